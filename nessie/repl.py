"""``python -m nessie.repl``: a NESL read-eval-print loop on the reference interpreter.

Usage::

    python -m nessie.repl [--int64] [--print-length N] [FILE ...]

Input is read line by line and collected until it forms complete top-level items (the parser
decides: ``let x = 1;`` is not complete, ``"a;b"`` and ``% ; %`` contain no terminator).  Every
complete input is parsed, type-checked against the session, monomorphised and run; results are
printed exactly as ``nessie run`` prints them (``f = fn : TYPE``, ``x = VALUE : TYPE``,
``it = VALUE : TYPE``).  Definitions and bindings persist across inputs.

Errors (syntax, type, runtime) are printed on stderr as ``<stdin>:LINE:COL: error: ...`` with
the source line and a caret; line numbers count every line read in the session, so in a piped
script they are the script's line numbers.  An input with a compile error changes nothing; a
runtime error stops the input at the failing item, after the results of the items before it,
and the session keeps the state it had before that item.

Commands (at the start of an input): ``:help``, ``:load FILE``, ``:type EXPR``, ``:quit``
(also end of input / Ctrl-D).  Ctrl-C discards a partial input or interrupts a computation.

On a terminal the prompt is ``nessie> `` (continuation ``     .. ``), with line editing, name
completion and history (``~/.nessie_history``) from the standard ``readline`` module.  When
standard input is not a terminal no banner or prompt is printed, so scripts can be piped in::

    $ printf '1+2;\\n' | python -m nessie.repl
    it = 3 : int

The :class:`Session` class is the REPL without the terminal: ``feed(line)`` one line at a time
(returns True while more input is needed), ``finish()`` at end of input.
"""
from __future__ import annotations

import argparse
import ctypes
import os
import sys
import threading
import traceback
from typing import Any, Callable, Optional, TextIO

from nessie.diagnostics import (CompileError, CompileErrors, Diagnostics, RuntimeNeslError,
                                register_source)

PROMPT = "nessie> "
CONTINUATION = "     .. "
HISTORY_FILE = "~/.nessie_history"
FILENAME = "<stdin>"

HELP = """\
Type NESL top-level items, each ended by ';' (or '$'); an item may span several lines:
  function f(x) = x + 1;       define a function         f = fn : int -> int
  x = [1, 2, 3];               bind a value              x = [1, 2, 3] : [int]
  {f(a) : a in x};             evaluate an expression    it = [2, 3, 4] : [int]
  set print_length 20;         print at most 20 elements of a sequence
  load "file.nesl";            run a file's items (path relative to the current directory)
Commands:
  :help                        this text
  :load FILE                   run the items of FILE into the session
  :type EXPR                   the type of an expression, or of a function (:type dotp)
  :quit                        leave (also Ctrl-D); Ctrl-C interrupts a computation"""

#: stack size and recursion limit of the thread that evaluates NESL (deep recursion works)
STACK_SIZE = 1 << 29
RECURSION_LIMIT = 1_000_000


class Interrupted(Exception):
    """A computation was interrupted by Ctrl-C."""


def _run_interruptibly(fn: Callable[[], Any]) -> Any:
    """Run ``fn`` on a thread with a large stack; Ctrl-C in the calling (main) thread raises
    KeyboardInterrupt inside ``fn`` and :class:`Interrupted` here."""
    box: dict = {}

    def target() -> None:
        try:
            box["value"] = fn()
        except BaseException as exc:  # noqa: BLE001 - handed to the calling thread
            box["error"] = exc

    old_size, old_limit = threading.stack_size(), sys.getrecursionlimit()
    sys.setrecursionlimit(max(old_limit, RECURSION_LIMIT))
    threading.stack_size(STACK_SIZE)
    try:
        thread = threading.Thread(target=target, name="nessie-repl-eval", daemon=True)
        thread.start()
    finally:
        threading.stack_size(old_size)
    interrupted = False
    try:
        while thread.is_alive():
            try:
                thread.join(0.05)
            except KeyboardInterrupt:
                if not interrupted:
                    interrupted = True
                    ctypes.pythonapi.PyThreadState_SetAsyncExc(
                        ctypes.c_ulong(thread.ident), ctypes.py_object(KeyboardInterrupt))
    finally:
        # the main thread (parser, type checker) keeps its normal limit: its stack is small
        sys.setrecursionlimit(old_limit)
    if "error" in box:
        err = box["error"]
        if isinstance(err, KeyboardInterrupt):
            raise Interrupted() from None
        raise err
    if interrupted:
        raise Interrupted()
    return box.get("value")


def _flat_items(items) -> list:
    """Top-level AST items with the items of ``load``\\ ed files spliced in."""
    from nessie.syntax import ast as A
    out = []
    for it in items:
        if isinstance(it, A.Load) and it.items is not None:
            out.extend(_flat_items(it.items))
        else:
            out.append(it)
    return out


def _last_token(text: str, filename: str) -> Optional[str]:
    from nessie.syntax.lexer import make_lexer
    lx = make_lexer(filename, text, Diagnostics())
    last = None
    while True:
        t = lx.token()
        if t is None:
            return last
        last = t.type


def _is_incomplete(text: str, errors: list, filename: str) -> bool:
    """Should the REPL read more lines before handling ``text``?  Decided by the parser: the
    input is unfinished when it ends inside a comment, or the parser needs more tokens to
    finish an item; an erroneous item is finished once its ``;``/``$`` has been typed."""
    if not errors:
        return False
    for e in errors:
        if e.message == "unterminated comment" or "unexpected end of input" in e.message:
            return True
    return _last_token(text, filename) not in ("SEMI", "DOLLAR")


class Session:
    """The state of one REPL session: type environment, monomorphiser, interpreter, source.

    ``out`` receives the result lines and the program's output, ``err`` the error messages.
    """

    def __init__(self, out: Optional[TextIO] = None, err: Optional[TextIO] = None, *,
                 int_bits: int = 32, print_length: int = 100, filename: str = FILENAME) -> None:
        from nessie.interp.builtins import Runtime
        from nessie.interp.eval import Interpreter
        from nessie.interp.values import Semantics
        from nessie.mono import Monomorphiser
        from nessie.types import initial_env

        self.out = out if out is not None else sys.stdout
        self.err = err if err is not None else sys.stderr
        self.filename = filename
        self.env = initial_env()
        self.mono = Monomorphiser()
        self.rt = Runtime(Semantics(int_bits=int_bits), self.out, print_length=print_length)
        self.interp = Interpreter(self.rt)
        self.lines: list[str] = []        # every line read in the session (for messages)
        self.pending: list[str] = []      # lines of the unfinished input
        self.quit = False

    # ------------------------------------------------------------------ input
    def feed(self, line: str) -> bool:
        """Take one line of input (without its newline); returns True while the current
        input is unfinished (the caller shows the continuation prompt)."""
        line = line.rstrip("\r\n")
        if not self.pending and line.lstrip().startswith(":"):
            self.lines.append(line)
            self._register()
            self.command(line, len(self.lines))
            return False
        self.pending.append(line)
        self.lines.append(line)
        start = len(self.lines) - len(self.pending)
        text = "\n" * start + "\n".join(self.pending)
        items, errors = self._parse(text)
        if _is_incomplete(text, errors, self.filename):
            return True
        self.pending = []
        if errors:
            self._error(CompileErrors(errors).format())
            return False
        if items:
            self.run_items(items)
        return False

    def finish(self) -> None:
        """End of input: an unfinished input is reported as the syntax error it is."""
        if not self.pending:
            return
        start = len(self.lines) - len(self.pending)
        text = "\n" * start + "\n".join(self.pending)
        self.pending = []
        items, errors = self._parse(text)
        if errors:
            self._error(CompileErrors(errors).format())
        elif items:
            self.run_items(items)

    def interrupt_input(self) -> None:
        """Ctrl-C at a prompt: drop the unfinished input."""
        self.pending = []

    @property
    def needs_more(self) -> bool:
        return bool(self.pending)

    # ------------------------------------------------------------------ parsing
    def _register(self) -> None:
        register_source(self.filename, "\n".join(self.lines))

    def _parse(self, text: str) -> tuple:
        from nessie.syntax import parse_items
        diags = Diagnostics()
        try:
            items = parse_items(text, self.filename, diags)
        finally:
            self._register()  # the parser registered only this input's lines
        return items, list(diags.errors)

    # ------------------------------------------------------------------ running
    def run_source(self, text: str, filename: str) -> bool:
        """Parse ``text`` (a file's contents) and run its items; False on an error."""
        from nessie.syntax import parse_text
        try:
            prog = parse_text(text, filename)
        except (CompileErrors, CompileError) as e:
            self._error(e.format())
            return False
        return self.run_items(prog.items)

    def run_items(self, items) -> bool:
        """Type-check AST items against the session, then run them one by one.  A compile
        error leaves the session unchanged; a runtime error stops at the failing item and
        leaves the state after the items before it.  Returns True when everything ran."""
        from nessie.types.infer import check_item

        items = _flat_items(items)
        diags = Diagnostics()
        env = self.env
        checked = []                      # (typed items, env after the item)
        for item in items:
            env, typed = check_item(env, item, diags)
            checked.append((typed, env))
        if diags:
            self._error(diags.format())
            return False
        for typed, env_after in checked:
            if not self._run_typed(typed):
                return False
            self.env = env_after
        return True

    def _snapshot_mono(self) -> tuple:
        m = self.mono
        return (dict(m.defs), dict(m.versions), dict(m.cache), dict(m.names), len(m.out))

    def _restore_mono(self, snap: tuple) -> None:
        m = self.mono
        m.defs, m.versions, m.cache, m.names, n = snap[0], snap[1], snap[2], snap[3], snap[4]
        del m.out[n:]

    def _run_typed(self, typed: list) -> bool:
        snap = self._snapshot_mono()
        try:
            mono_items = []
            for t in typed:
                mono_items.extend(self.mono.add(t))
            _run_interruptibly(lambda: self.interp.run_items(mono_items, typed))
            return True
        except RuntimeNeslError as e:
            self._restore_mono(snap)
            self._error(e.format())
        except Interrupted:
            self._restore_mono(snap)
            self._error("Interrupted.")
        except (CompileErrors, CompileError) as e:  # e.g. a file builtin's located error
            self._restore_mono(snap)
            self._error(e.format())
        except RecursionError:
            self._restore_mono(snap)
            self._error("error: recursion too deep")
        except Exception:  # noqa: BLE001 - a Nessie bug; the session goes on
            self._restore_mono(snap)
            self._error(traceback.format_exc().rstrip() + "\nnessie: internal error (this is a "
                        "bug in Nessie); the session goes on without this item")
        finally:
            self._fresh_line()
        return False

    def _fresh_line(self) -> None:
        o = self.rt.out
        if not o.at_line_start:
            o.write("\n")
        try:
            self.out.flush()
        except (OSError, ValueError):
            pass

    def _error(self, text: str) -> None:
        try:
            self.out.flush()
        except (OSError, ValueError):
            pass
        print(text, file=self.err)
        try:
            self.err.flush()
        except (OSError, ValueError):
            pass

    # ------------------------------------------------------------------ commands
    def command(self, raw: str, lineno: int) -> None:
        """Run a ``:command`` line (``lineno``: its line number in the session)."""
        line = raw.strip()
        parts = line.split(None, 1)
        name = parts[0].lower()
        arg = parts[1].strip() if len(parts) > 1 else ""
        if name in (":q", ":quit", ":exit"):
            self.quit = True
        elif name in (":h", ":help", ":?"):
            print(HELP, file=self.out)
        elif name in (":l", ":load"):
            self.cmd_load(arg)
        elif name in (":t", ":type"):
            col = raw.find(arg, raw.find(parts[0]) + len(parts[0])) if arg else 0
            self.cmd_type(arg, lineno, col)
        else:
            self._error(f"{self.filename}:{lineno}:1: error: unknown command {name} "
                        f"(:help lists the commands)")
        self._fresh_line()

    def cmd_load(self, arg: str) -> bool:
        path = arg.strip()
        if len(path) >= 2 and path[0] == path[-1] and path[0] in "\"'":
            path = path[1:-1]
        if not path:
            self._error("error: :load needs a file name")
            return False
        path = os.path.expanduser(path)
        if not os.path.isfile(path) and os.path.isfile(path + ".nesl"):
            path += ".nesl"
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except OSError as e:
            self._error(f"error: cannot open {path}: {e.strerror or e}")
            return False
        return self.run_source(text, path)

    def type_of(self, expr: str, lineno: int = 0, col: int = 0) -> str:
        """The ``:type`` line for ``expr`` (raises CompileErrors)."""
        from nessie.syntax import ast as A, parse_expression
        from nessie.types import scheme_to_str, type_to_str
        from nessie.types.infer import check_topexp

        text = expr.strip()
        while text.endswith(";") or text.endswith("$"):
            text = text[:-1].rstrip()
        name = text.lower()
        if name.isidentifier() and name not in self.env.globals:
            found = self.env.lookup_function(name)
            if found is not None:
                return f"{name} : {scheme_to_str(found[1])}"
        padded = "\n" * max(lineno - 1, 0) + " " * max(col, 0) + text
        try:
            exp = parse_expression(padded, self.filename)
        finally:
            self._register()
        try:
            _, typed = check_topexp(self.env, A.TopExp(exp, span=exp.span))
        except CompileError as e:
            raise CompileErrors([e]) from None
        return f"{text} : {type_to_str(typed.exp.type, True)}"

    def cmd_type(self, arg: str, lineno: int, col: int) -> None:
        if not arg:
            self._error("error: :type needs an expression")
            return
        try:
            print(self.type_of(arg, lineno, col), file=self.out)
        except (CompileErrors, CompileError) as e:
            self._error(e.format())
        except Exception:  # noqa: BLE001 - poisoned names and the like
            self._error(f"error: cannot type {arg}")

    # ------------------------------------------------------------------ completion
    def names(self) -> list:
        from nessie.syntax.lexer import KEYWORDS
        from nessie.types import BUILTIN_SCHEMES, CONSTANT_TYPES
        out = set(self.env.functions) | set(self.env.globals) | set(BUILTIN_SCHEMES)
        out |= set(CONSTANT_TYPES) | set(KEYWORDS)
        out |= {":help", ":load", ":type", ":quit"}
        return sorted(n for n in out if n.replace("_", "a").replace(":", "a").isalnum())


# ---------------------------------------------------------------------------- terminal
class _LineReader:
    """Reads lines from a terminal (readline, prompts, history) or from a pipe (quietly)."""

    def __init__(self, session: Session, interactive: bool, history: Optional[str]) -> None:
        self.session = session
        self.interactive = interactive
        self.readline = None
        self.history = os.path.expanduser(history) if history else None
        if interactive:
            try:
                import readline
                self.readline = readline
            except ImportError:  # pragma: no cover - platforms without readline
                self.readline = None
        if self.readline is not None:
            self._setup_readline()

    def _setup_readline(self) -> None:
        rl = self.readline
        try:
            rl.set_history_length(2000)
            if self.history:
                rl.read_history_file(self.history)
        except Exception:  # noqa: BLE001 - history is a convenience only
            pass
        try:
            matches: list = []

            def complete(text, state):
                if state == 0:
                    matches[:] = [n for n in self.session.names() if n.startswith(text)]
                return matches[state] if state < len(matches) else None

            rl.set_completer(complete)
            rl.set_completer_delims(" \t\n`~!@#$%^&*()-=+[{]}\\|;'\",<>/?")
            if "libedit" in (getattr(rl, "__doc__", "") or ""):
                rl.parse_and_bind("bind ^I rl_complete")
            else:
                rl.parse_and_bind("tab: complete")
        except Exception:  # noqa: BLE001
            pass

    def save_history(self) -> None:
        if self.readline is not None and self.history:
            try:
                self.readline.write_history_file(self.history)
            except Exception:  # noqa: BLE001 - e.g. a read-only home directory
                pass

    def read(self, prompt: str) -> Optional[str]:
        """One line without its newline, or None at end of input."""
        if self.interactive:
            try:
                return input(prompt)
            except EOFError:
                print(file=sys.stdout)
                return None
        line = sys.stdin.readline()
        if not line:
            return None
        return line.rstrip("\n")


def repl(session: Session, interactive: bool, history: Optional[str] = HISTORY_FILE) -> int:
    reader = _LineReader(session, interactive, history if interactive else None)
    if interactive:
        from nessie import __version__
        print(f"Nessie {__version__}, a NESL compiler: the reference interpreter. "
              f":help for help, :quit or Ctrl-D to leave.")
    try:
        while not session.quit:
            prompt = CONTINUATION if session.needs_more else PROMPT
            try:
                line = reader.read(prompt)
            except KeyboardInterrupt:
                print(file=sys.stdout)
                session._error("Interrupted (input discarded).")
                session.interrupt_input()
                continue
            if line is None:
                session.finish()
                break
            try:
                session.feed(line)
            except KeyboardInterrupt:
                session.interrupt_input()
                session._error("Interrupted.")
    finally:
        reader.save_history()
    return 0


def _arg_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m nessie.repl",
                                 description="NESL read-eval-print loop (reference interpreter)")
    ap.add_argument("files", nargs="*", help="NESL files to load first")
    ap.add_argument("--int64", action="store_true", help="64-bit NESL int (default: 32-bit)")
    ap.add_argument("--print-length", type=int, default=100, metavar="N",
                    help="longest sequence printed in full (default 100)")
    ap.add_argument("--no-history", action="store_true", help="do not read or write "
                    + HISTORY_FILE)
    return ap


def main(argv: Optional[list] = None) -> int:
    args = _arg_parser().parse_args(argv)
    session = Session(int_bits=64 if args.int64 else 32, print_length=args.print_length)
    for path in args.files:
        session.cmd_load(path)
    interactive = sys.stdin.isatty()
    try:
        return repl(session, interactive, None if args.no_history else HISTORY_FILE)
    except BrokenPipeError:  # e.g. piped into head
        try:
            sys.stdout = open(os.devnull, "w")
        except OSError:
            pass
        return 0


if __name__ == "__main__":
    sys.exit(main())
