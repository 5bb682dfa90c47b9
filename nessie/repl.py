"""``python -m nessie.repl``: a NESL read-eval-print loop.

Usage::

    python -m nessie.repl [--backend auto|opencl|lcu|interp] [--device DEV] [--no-fuse]
                          [--int64] [--print-length N] [FILE ...]

The backend is chosen as for ``nessie run`` (default ``auto``: OpenCL, through
``driver.make_runner``).  Definitions always live in the reference interpreter; each top-level
expression or binding is flattened (with the session's functions, the top-level values it reads
passed as parameters), fused and run on the backend's kernel runner, and its value is kept in
the session.  What the backend cannot run (64-bit ints, a construct the flattener or the
OpenCL lowering does not handle, no OpenCL device) runs on the interpreter with a note under
``auto``, and is an error naming the reason under an explicit ``--backend``.

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

The ``FILE`` arguments are loaded first, as ``:load`` does; the session goes on after one
that cannot be loaded (unreadable, or stopped by an error), but the exit status is then 1.

Commands (at the start of an input): ``:help``, ``:load FILE``, ``:type EXPR``, ``:quit``
(also end of input / Ctrl-D).  Ctrl-C discards a partial input or interrupts a computation.
The original NESL top-level commands: ``help;`` / ``?`` (the commands), ``describe NAME;`` /
``help NAME;`` (type and documentation: the doc string, or the comment written just before the
definition), ``show code NAME;`` (the definition's source), ``set print_length N;``; the
others (``set trace``, ``set arg_check``, ``set verbose``, ``set profile``, ``show status``,
...) are answered with "not supported by Nessie".

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
import re
import sys
import threading
import traceback
from types import MappingProxyType
from typing import Any, Callable, Optional, TextIO

from nessie.diagnostics import CompileError, CompileErrors, Diagnostics, RuntimeNeslError

PROMPT = "nessie> "
CONTINUATION = "     .. "
HISTORY_FILE = "~/.nessie_history"
FILENAME = "<stdin>"

HELP = """\
Type NESL top-level items, each ended by ';' (or '$'); an item may span several lines:
  function inc(x) = x + 1;     define a function         inc = fn : int -> int
  x = [1, 2, 3];               bind a value              x = [1, 2, 3] : [int]
  {inc(a) : a in x};           evaluate an expression    it = [2, 3, 4] : [int]
  set print_length 20;         print at most 20 elements of a sequence
  load "file.nesl";            run a file's items (path relative to the current directory)
  (t and f are the booleans true and false: they cannot name functions or variables)
NESL top-level commands:
  describe inc;                the type and documentation of a function (also help inc;)
  show code inc;               the source of a function
  help;  or  ?                 the NESL top-level commands
Commands:
  :help                        this text
  :load FILE                   run the items of FILE into the session
  :type EXPR                   the type of an expression, or of a function (:type dotp)
  :quit                        leave (also Ctrl-D); Ctrl-C interrupts a computation"""

TOPLEVEL_HELP = """\
NESL top-level forms:
  function name(a1, ..., an) [: typespec] [\"doc\"] = exp;   define a function
  datatype name(t1, ..., tn) [:: typebinds];                define a record type
  pattern = exp;                                            bind top-level variables
  exp;                                                      evaluate (bound to it)
NESL top-level commands:
  describe name;          type and documentation of a function or variable (help name; ? name)
  show code name;         source of a function
  set print_length n;     longest sequence printed in full
  load "file";            run a file's items
  help;  ?                this message (:help for the REPL's own commands)
Not supported by Nessie: set trace, set arg_check (arguments are always checked),
set verbose, set profile, show status, and the other commands of the original system."""

#: ``set`` options of the original system Nessie does not have, with the reason
UNSUPPORTED_SET = {
    "trace": "not supported by Nessie (no tracing of NESL functions)",
    "arg_check": "not supported by Nessie (arguments are always checked)",
    "verbose": "not supported by Nessie",
    "profile": "not supported by Nessie (nessie run --stats reports kernel launches)",
    "memory_size": "not supported by Nessie (memory is not preallocated)",
    "debug": "not supported by Nessie",
}

#: the REPL's commands that take no argument, with their usage line (read-only)
_NO_ARGUMENTS = MappingProxyType({**dict.fromkeys((":q", ":quit", ":exit"), ":quit"),
                                  **dict.fromkeys((":h", ":help", ":?"), ":help")})

#: an operator named bare (``describe ++;``, as ```++``` names it in an expression)
_OPERATOR = r"[-+*/=<>^#@|&!~]+"
_DESCRIBE_ARG = re.compile(rf"^([A-Za-z_][\w]*|`[^`\s]+`|{_OPERATOR})?$")
_SHOW_ARG = re.compile(rf"^[A-Za-z_]\w*(\s+([A-Za-z_][\w]*|`[^`\s]+`|{_OPERATOR}))?$")
_COMMAND_FIRST = re.compile(r"^(\s*(?:\?|help|describe|show)(?![\w])[^;\"'%`]*;)(?=.*\S)", re.I | re.S)
_COMMAND = re.compile(r"^\s*(\?|(?:help|describe|show)(?![\w]))\s*(.*?)\s*[;$]?\s*$",
                      re.I | re.S)

#: stack size and recursion limit of the thread that evaluates NESL (deep recursion works)
STACK_SIZE = 1 << 29
RECURSION_LIMIT = 1_000_000


BACKENDS = ("auto", "opencl", "lcu", "interp")

#: the name of the λcu function an evaluated top-level item is wrapped in
_ITEM_FUNCTION = "<repl item>"


class Interrupted(Exception):
    """A computation was interrupted by Ctrl-C."""


class BackendCannotRun(Exception):
    """The chosen backend cannot run an item (the message says why)."""


class _CannotRun(Exception):
    """Raised inside the compiled path; becomes a note (auto) or :class:`BackendCannotRun`."""


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
        try:
            thread.start()
        except RuntimeError:
            # no room for the big stack (an address-space limit): the item is out of memory,
            # the session goes on
            sys.setrecursionlimit(old_limit)
            raise MemoryError("cannot start the evaluation thread") from None
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


def _type_expression(arg: str) -> str:
    """The expression of ``:type EXPR``, without the ``;`` or ``$`` it may end with."""
    text = arg.strip()
    while text.endswith(";") or text.endswith("$"):
        text = text[:-1].rstrip()
    return text


def _locate_end(e: CompileErrors, filename: str, line: int, col: int) -> CompileErrors:
    """The parser's end-of-input error has no location: at the end of a ``:type`` expression
    (``:type % c %``), or left out after errors of its own place (``:type &``: the illegal
    character is the error)."""
    from nessie.diagnostics import Span
    located = [x for x in e.errors if x.span is not None]
    if len(located) == len(e.errors):
        return e
    errors = located or [CompileError(Span.point(filename, line, col), x.message)
                         for x in e.errors]
    return CompileErrors(errors, e.sources)


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
    input is unfinished when it ends inside a comment or a string (strings may span lines),
    or the parser needs more tokens to finish an item; an erroneous item is finished once its
    ``;``/``$`` has been typed."""
    if not errors:
        return False
    for e in errors:
        if (e.message == "unterminated comment" or "unexpected end of input" in e.message
                or e.message.startswith("unterminated string literal")):
            return True
    return _last_token(text, filename) not in ("SEMI", "DOLLAR")


class Session:
    """The state of one REPL session: type environment, monomorphiser, interpreter, source.

    ``out`` receives the result lines and the program's output, ``err`` the error messages.
    """

    def __init__(self, out: Optional[TextIO] = None, err: Optional[TextIO] = None, *,
                 int_bits: int = 32, print_length: int = 100, filename: str = FILENAME,
                 backend: str = "interp", device: Optional[str] = None,
                 fuse: bool = True) -> None:
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
        #: file name -> text that messages quote: the session's lines, the files it loaded
        self.sources: dict[str, str] = {}
        self.pending: list[str] = []      # lines of the unfinished input
        self._library_defined: set = set()  # library datatypes defined in the session
        self.quit = False
        if backend not in BACKENDS:
            raise ValueError(f"backend must be one of {', '.join(BACKENDS)}, not {backend!r}")
        #: the backend asked for (``auto`` falls back to the interpreter, with a note)
        self.backend = backend
        self.device = device
        self.fuse = fuse
        self.int_bits = int_bits
        self._runner: Any = None          # the kernel runner, made on first use

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
        if not self.pending and self._toplevel_command(line):
            self.lines.append(line)
            self._register()
            return False
        shown = line
        if not self.pending:
            # ``show code ff; 5;``: a command, then NESL input on the same line (parsed in
            # place, the command's text blanked, so locations keep their columns; messages
            # quote the line as typed)
            m = _COMMAND_FIRST.match(line)
            if m and self._toplevel_command(m.group(1)):
                line = " " * len(m.group(1)) + line[len(m.group(1)):]
        self.pending.append(line)
        self.lines.append(shown)
        start = len(self.lines) - len(self.pending)
        text = "\n" * start + "\n".join(self.pending)
        items, errors = self._parse(text)
        if _is_incomplete(text, errors, self.filename):
            return True
        self.pending = []
        if errors:
            self._error(CompileErrors(errors).format(self.sources))
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
            self._error(CompileErrors(errors).format(self.sources))
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
        self.sources[self.filename] = "\n".join(self.lines)

    def _parse(self, text: str) -> tuple:
        from nessie.syntax import parse_items
        diags = Diagnostics()
        try:
            items = parse_items(text, self.filename, diags)
        finally:
            self.sources.update(diags.sources)   # the files the input loaded
            self._register()  # the parser recorded only this input's lines
        return items, list(diags.errors)

    # ------------------------------------------------------------------ running
    def run_source(self, text: str, filename: str) -> bool:
        """Parse ``text`` (a file's contents) and run its items; False on an error."""
        from nessie.syntax import parse_text
        try:
            prog = parse_text(text, filename)
        except (CompileErrors, CompileError) as e:
            self.sources.update(e.sources)
            self._error(e.format(self.sources))
            return False
        self.sources.update(prog.sources)
        return self.run_items(prog.items)

    def run_items(self, items) -> bool:
        """Type-check AST items against the session, then run them one by one.  A compile
        error leaves the session unchanged; a runtime error stops at the failing item and
        leaves the state after the items before it.  Returns True when everything ran."""
        from nessie.limits import run_deep
        from nessie.types.infer import check_item

        items = _flat_items(items)
        diags = Diagnostics()
        checked = []                      # (typed items, env after the item)

        def check() -> None:              # on a big stack: expressions may nest deep
            env = self.env
            for item in items:
                env, typed = check_item(env, item, diags)
                checked.append((typed, env))
        run_deep(check)
        if diags:
            self._error(diags.format(self.sources))
            return False
        for typed, env_after in checked:
            if not self._run_typed(typed):
                return False
            self.env = env_after
        return True

    def _snapshot_mono(self) -> tuple:
        return self.mono.snapshot()

    def _restore_mono(self, snap: tuple) -> None:
        self.mono.restore(snap)

    def _run_typed(self, typed: list) -> bool:
        from nessie import driver
        from nessie.limits import run_deep
        from nessie.types import typed_ast as T

        from nessie.types.library import library_datadefs

        snap = self._snapshot_mono()
        defined = set(self._library_defined)
        typed = library_datadefs(typed, defined) + list(typed)   # the library's datatypes
        try:
            bad = driver.int_literal_errors(tuple(typed), self.int_bits)
            if bad:
                raise CompileErrors(bad)
            for t in typed:
                if isinstance(t, T.SetItem) and not self._set_option(t):
                    return False
            mono_items = []
            for t in typed:
                mono_items.extend(run_deep(lambda: self.mono.add(t)))
            values = [m for m in mono_items if isinstance(m, (T.ValBind, T.ExpItem))]
            if self.backend == "interp" or not values:
                _run_interruptibly(lambda: self.interp.run_items(mono_items, typed))
            else:
                _run_interruptibly(lambda: self._run_compiled(mono_items))
            self._library_defined = defined
            return True
        except BackendCannotRun as e:
            self._restore_mono(snap)
            self._error(f"error: {e}")
        except RuntimeNeslError as e:
            self._restore_mono(snap)
            self._error(e.format(self.sources))
        except Interrupted:
            self._restore_mono(snap)
            self._error("Interrupted.")
        except (CompileErrors, CompileError) as e:  # e.g. a file builtin's located error
            self._restore_mono(snap)
            self._error(e.format(self.sources))
        except RecursionError:
            self._restore_mono(snap)
            self._error("error: recursion too deep")
        except MemoryError:
            self._restore_mono(snap)
            self._error("error: out of memory")
        except Exception:  # noqa: BLE001 - a Nessie bug; the session goes on
            self._restore_mono(snap)
            self._error(traceback.format_exc().rstrip() + "\nnessie: internal error (this is a "
                        "bug in Nessie); the session goes on without this item")
        finally:
            self._fresh_line()
        return False

    # ------------------------------------------------------------------ set options
    def _set_option(self, item) -> bool:
        """Check a ``set`` item: False (after an error) if it cannot be run."""
        name, args = item.name, item.args
        where = ""
        if item.span is not None and item.span.file != self.filename:
            where = f"{item.span.file}:{item.span.line}: "
        if name == "print_length":
            ok = len(args) == 1 and args[0].isdigit()
            if not ok:
                self._error(f"{where}error: set print_length needs a number, 0 or more "
                            f"(set print_length 20;)")
            return ok
        reason = UNSUPPORTED_SET.get(name, "not supported by Nessie (Nessie has set "
                                           "print_length N only)")
        self._error(f"{where}set {name}: {reason}")
        return True

    # ------------------------------------------------------------------ NESL commands
    def _user_name(self, word: str) -> bool:
        word = word.lower()
        return word in self.env.globals or word in self.env.functions

    def _toplevel_command(self, line: str) -> bool:
        """Run ``help;``, ``?``, ``describe NAME;``, ``show code NAME;`` (a complete line);
        False if ``line`` is not one of them (then it is NESL input)."""
        m = _COMMAND.match(line)
        if m is None:
            return False
        word, arg = m.group(1).lower(), m.group(2).strip()
        if word != "?" and self._user_name(word):
            return False                  # a NESL name of the session: an expression
        while len(arg) >= 2 and arg[0] == "(" and arg[-1] == ")":
            arg = arg[1:-1].strip()
        if word == "show":
            # ``show code (ff);``: the name in brackets, as describe's may be
            what, sep, name = arg.partition(" ")
            name = name.strip()
            while len(name) >= 2 and name[0] == "(" and name[-1] == ")":
                name = name[1:-1].strip()
            arg = f"{what} {name}" if sep else what
        shape = _SHOW_ARG if word == "show" else _DESCRIBE_ARG
        if not shape.match(arg):
            return False                  # e.g. describe = 3; : NESL input
        if word in ("?", "help") and not arg:
            print(TOPLEVEL_HELP, file=self.out)
        elif word in ("?", "help", "describe"):
            if not arg:
                self._error("error: describe needs a name (describe dotp;)")
            else:
                self._describe(arg)
        else:
            what, _, name = arg.partition(" ")
            name = name.strip()
            if what.lower() == "code" and name:
                self._show_code(name)
            elif what.lower() == "code":
                self._error("error: show code needs a function name (show code dotp;)")
            else:
                self._error(f"show {what}: not supported by Nessie (Nessie has show code "
                            f"NAME only)")
        self._fresh_line()
        return True

    def _user_fundef(self, name: str):
        entry = self.mono.defs.get(name)
        return entry[0] if entry is not None else None

    def describe(self, name: str) -> str:
        """The text ``describe NAME;`` prints (raises KeyError for an unknown name)."""
        from nessie.doc import doc_comment
        from nessie.types import BUILTIN_SCHEMES, CONSTANT_TYPES, scheme_to_str, type_to_str

        key = name.strip("`").lower()
        lines = []
        found = self.env.lookup_function(key)
        if found is not None:
            kind, scheme = found
            lines.append(f"{key} : {scheme_to_str(scheme)}")
            fd = self._user_fundef(key) if key in self.env.functions else None
            if fd is not None:
                doc = fd.doc or doc_comment(fd.span, self.sources)
                lines.append(doc if doc else "(no documentation: write a doc string, or a "
                                             "% comment % just before the definition)")
                if fd.span is not None:
                    lines.append(f"defined at {fd.span}")
            elif key in self.env.functions:
                lines.append("a datatype constructor")
            elif key in BUILTIN_SCHEMES:
                lines.append("a builtin function of NESL")
        if key in self.env.globals:
            lines.append(f"{key} : {type_to_str(self.env.globals[key], True)}"
                         f"    (a top-level variable)")
        elif key in CONSTANT_TYPES and found is None:
            lines.append(f"{key} : {type_to_str(CONSTANT_TYPES[key], True)}"
                         f"    (a predefined constant)")
        if not lines:
            raise KeyError(name)
        return "\n".join(lines)

    def _describe(self, name: str) -> None:
        try:
            print(self.describe(name), file=self.out)
        except KeyError:
            hint = ""
            if name.lower() in ("t", "f"):
                hint = (f": in NESL '{name.lower()}' is the boolean "
                        f"{'true' if name.lower() == 't' else 'false'}")
            self._error(f"error: describe: no function or variable named {name}{hint}")

    def show_code(self, name: str) -> str:
        """The text ``show code NAME;`` prints (raises KeyError for an unknown function)."""
        from nessie.doc import definition_text
        from nessie.types import BUILTIN_SCHEMES

        key = name.strip("`").lower()
        if key in self.env.functions:
            fd = self._user_fundef(key)
            text = definition_text(fd.span, self.sources) if fd is not None else None
            if text is None:
                return f"{key}: a datatype constructor (no code)" if fd is None else \
                    f"{key}: its source is not available"
            return text
        if key in BUILTIN_SCHEMES:
            from nessie.flatten.builtins import NESL_EXPANSIONS
            if key in NESL_EXPANSIONS:
                params, body = NESL_EXPANSIONS[key]
                return (f"function {key}({', '.join(params)}) = {body};\n"
                        f"(a library function; Nessie defines it in NESL)")
            return f"{key}: a builtin function (a primitive of Nessie, not written in NESL)"
        raise KeyError(name)

    def _show_code(self, name: str) -> None:
        try:
            print(self.show_code(name), file=self.out)
        except KeyError:
            self._error(f"error: show code: no function named {name}")

    # ------------------------------------------------------------------ compiled backends
    def start_backend(self) -> bool:
        """Make the OpenCL runner now (so a missing device is said at once): under ``auto``
        the session then runs on the interpreter, with a note; False if the backend asked
        for explicitly cannot start."""
        if self.int_bits != 32 and self.backend == "auto":
            self._error("nessie: note: 64-bit NESL ints (--int64) run on the reference "
                        "interpreter only: the session runs on it")
            self.backend = "interp"
        if self.backend in ("interp", "lcu"):
            return True
        try:
            self.runner()
        except _CannotRun as e:
            if self.backend == "auto" and self.device is None:
                # the same fused λcu on the numpy kernel runner (a device asked for by name
                # that cannot run is an error, as for nessie run)
                self._error(f"nessie: note: running on the lcu backend (numpy): {e}")
                self.backend = "lcu"
                self._runner = None
                return True
            self._error(f"nessie: error: {e}")
            return False
        return True

    def banner_backend(self) -> str:
        if self.backend == "interp" or self.int_bits != 32:
            return "the reference interpreter"
        if self.backend == "lcu":
            return "λcu kernels on numpy"
        dev = getattr(self._runner, "device", None)
        name = f" on {dev.name.strip()}" if dev is not None else ""
        return f"OpenCL{name}"

    def backend_in_use(self) -> str:
        return self.backend if self.backend != "auto" else "opencl"

    def runner(self):
        """The kernel runner (made on first use); raises _CannotRun without a device."""
        if self._runner is None:
            from nessie import driver
            try:
                self._runner = driver.make_runner(self.backend_in_use(), self.device)
            except Exception as e:  # noqa: BLE001 - no OpenCL platform or device
                self._runner = e
        if isinstance(self._runner, Exception):
            raise _CannotRun(str(self._runner))
        return self._runner

    def _run_compiled(self, mono_items: list) -> None:
        """Run one typed item's monomorphic items: definitions in the interpreter, values on
        the backend (or on the interpreter, with a note, when ``auto`` cannot use it)."""
        from nessie.interp.printing import format_binding
        from nessie.types import typed_ast as T

        # the instances this item needs, defined silently (its typed item is a value), and
        # the library datatypes it uses
        for m in mono_items:
            if isinstance(m, T.DataDef):
                self.interp.compiler.define_datatype(m)
        self.interp.run_items([m for m in mono_items if isinstance(m, T.FunDef)], [])
        for m in mono_items:
            if not isinstance(m, (T.ValBind, T.ExpItem)):
                continue
            deep = None
            try:
                value = self._compiled_value(m.exp)
            except RecursionError:
                deep = "recursion"    # raised below, once the traceback's frames are freed
            except MemoryError:
                deep = "memory"
            except _CannotRun as e:
                if self.backend != "auto":
                    raise BackendCannotRun(f"the {self.backend} backend cannot run this item: "
                                           f"{e}") from None
                self._error(f"nessie: note: running this item on the reference interpreter: "
                            f"{e}")
                self.interp.run_item(m)
                continue
            if deep is not None:
                from nessie.limits import OUT_OF_MEMORY, RECURSION_TOO_DEEP
                raise RuntimeNeslError(m.exp.span, RECURSION_TOO_DEEP if deep == "recursion"
                                       else OUT_OF_MEMORY)
            rt = self.rt
            if isinstance(m, T.ValBind):
                self.interp.compiler.pattern(m.pattern)(value, self.interp.globals)
                lhs = m.pattern
                for note in self.interp.redefinitions.pattern(m.pattern):
                    rt.out.line(note)
            else:
                self.interp.globals["it"] = value
                lhs = "it"
            rt.out.line(format_binding(lhs, value, m.exp.type, rt.print_length, rt.datatypes))

    def _compiled_value(self, exp):
        """Flatten ``exp`` (monomorphic) wrapped in a function whose leading parameters are
        the top-level values it reads, run it on the backend, return the interpreter value."""
        from nessie import driver
        from nessie.convert import datatypes, leaves_to_value, value_to_leaves
        from nessie.flatten import FlattenUnsupported
        from nessie.mono import MonoProgram
        from nessie.types import typed_ast as T
        from nessie.types.types import INT, Scheme, TFun
        from lambda_cu.errors import LcuRuntimeError
        from lambda_cu.executor import Executor

        if self.int_bits != 32:
            raise _CannotRun("64-bit NESL ints (--int64) run on the reference interpreter only")
        ft = TFun(INT, exp.type)
        wrapper = T.FunDef(_ITEM_FUNCTION, T.PVar("_", INT), exp, ft, Scheme((), (), ft))
        defs = {it.name: it for it in self.mono.out if isinstance(it, T.FunDef)}
        order, seen, todo = [], set(), [wrapper]
        used: dict = {}
        while todo:
            fd = todo.pop()
            for node in T.iter_nodes(fd.body):
                if isinstance(node, T.Call) and node.kind == T.USER and node.name not in seen:
                    seen.add(node.name)
                    order.append(defs[node.name])
                    todo.append(defs[node.name])
                elif isinstance(node, T.GlobalVar):
                    used[node.name] = node.type
        datadefs = tuple(it for it in self.mono.out if isinstance(it, T.DataDef))
        prog = MonoProgram(datadefs + tuple(reversed(order)) + (wrapper,))
        c = driver.Compiled(self.filename, T.TypedProgram(datadefs), prog)
        try:
            flat = driver.flatten(c)
        except FlattenUnsupported as e:
            raise _CannotRun(f"the flattener does not handle it ({e})") from None
        if self.fuse:
            try:
                flat = driver.fuse(flat)[0]
            except ImportError as e:
                raise _CannotRun(f"kernel fusion is not available ({e}); use --no-fuse") \
                    from None
        runner = self.runner() if self.backend_in_use() == "opencl" else driver.make_runner("lcu")
        externs, rt = driver.make_externs(c, flat, self.rt.out, int_bits=self.int_bits,
                                          print_length=self.rt.print_length)
        fname = "".join(ch if ch.isalnum() or ch == "_" else "_" for ch in _ITEM_FUNCTION)
        tm = flat.typemap
        leaves: list = []
        for g in sorted(used):
            leaves += value_to_leaves(tm, used[g], self.interp.globals[g])
        leaves.append(0)
        try:
            ex = Executor(flat.program, runner, True, externs=externs)
            f = ex.functions[fname]
            if hasattr(ex, "_call"):
                # on this (interruptible, big-stack) thread rather than on a thread of its own
                args = [runner.from_host(runner.coerce(a, p.ty), p.ty)
                        for a, p in zip(leaves, f.params)]
                # the wrapper's body, not a call of it: the item's own calls are the first
                # ones counted (NESSIE_MAX_CALL_DEPTH), as on the interpreter
                # numpy's floating-point warnings off, as on the executor's own thread
                # (0.0 / 0.0 is nan, as NESL defines it, not a warning)
                import numpy as np
                with np.errstate(all="ignore"):
                    res = ex.exp(f.body, {p.name: a for p, a in zip(f.params, args)})
                    runner.sync()
            else:  # pragma: no cover - an executor without the internal entry point
                res = ex.call(fname, *leaves)
            n = len(tm.value_leaf_types(exp.type))
            out = [res] if n == 1 else list(res)
            host = [runner.to_host(x) for x in out]
        except LcuRuntimeError as err:
            raise RuntimeNeslError(err.location, err.message) from None
        except (RuntimeNeslError, KeyboardInterrupt, RecursionError, MemoryError):
            raise
        except Exception as e:  # noqa: BLE001 - the lowering or the device failed
            raise _CannotRun(f"{type(e).__name__}: {e}") from None
        return leaves_to_value(tm, exp.type, host, datatypes(c.typed.items))

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
        usage = _NO_ARGUMENTS.get(name)
        if usage is not None and arg:
            # `:quit now` is no :quit (nor `:help foo` :help): said, and the session goes on
            col = raw.find(arg, raw.find(parts[0]) + len(parts[0])) + 1
            self._error(f"{self.filename}:{lineno}:{col}: error: {name} takes no arguments "
                        f"(usage: {usage})")
        elif name in (":q", ":quit", ":exit"):
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
        if os.path.isdir(path):
            self._error(f"error: {path} is a directory, not a NESL file")   # as nessie run says
            return False
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except OSError as e:
            from nessie.sources import reason
            self._error(f"error: cannot open {path}: {reason(e)}")
            return False
        except UnicodeDecodeError as e:
            self._error(f"error: cannot load {path}: not UTF-8 text (byte "
                        f"0x{e.object[e.start]:02x} at offset {e.start})")
            return False
        return self.run_source(text, path)

    def type_of(self, expr: str, lineno: int = 0, col: int = 0) -> str:
        """The ``:type`` line for ``expr`` (raises CompileErrors)."""
        from nessie.limits import run_deep
        from nessie.syntax import ast as A, parse_expression
        from nessie.types import scheme_to_str, type_to_str
        from nessie.types.infer import check_topexp

        text = _type_expression(expr)
        name = text.lower()
        if len(name) > 2 and name[0] == name[-1] == "`":
            name = name[1:-1]             # :type `+` as :type sum: a function's type
        if (name.isidentifier() or re.fullmatch(_OPERATOR, name)) and name not in self.env.globals:
            found = self.env.lookup_function(name)
            if found is not None:
                return f"{name} : {scheme_to_str(found[1])}"
        padded = "\n" * max(lineno - 1, 0) + " " * max(col, 0) + text
        try:
            exp = parse_expression(padded, self.filename)
        except CompileErrors as e:
            raise _locate_end(e, self.filename, max(lineno, 1), max(col, 0) + len(text) + 1) \
                from None
        finally:
            self._register()
        try:
            _, typed = run_deep(lambda: check_topexp(self.env, A.TopExp(exp, span=exp.span)))
        except CompileError as e:
            raise CompileErrors([e]) from None
        return f"{text} : {type_to_str(typed.exp.type, True)}"

    def cmd_type(self, arg: str, lineno: int, col: int) -> None:
        if not _type_expression(arg):
            self._error("error: :type needs an expression")
            return
        try:
            print(self.type_of(arg, lineno, col), file=self.out)
        except (CompileErrors, CompileError) as e:
            self._error(e.format(self.sources))
        except Exception:  # noqa: BLE001 - poisoned names and the like
            self._error(f"error: cannot type {arg}")

    # ------------------------------------------------------------------ completion
    def names(self) -> list:
        from nessie.syntax.lexer import KEYWORDS
        from nessie.types import BUILTIN_SCHEMES, CONSTANT_TYPES
        out = set(self.env.functions) | set(self.env.globals) | set(BUILTIN_SCHEMES)
        out |= set(CONSTANT_TYPES) | set(KEYWORDS)
        out |= {":help", ":load", ":type", ":quit", "describe", "show", "code", "help"}
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
        print(f"Nessie {__version__}, a NESL compiler: {session.banner_backend()}. "
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
    from nessie.cli import _print_length
    ap = argparse.ArgumentParser(prog="python -m nessie.repl",
                                 description="NESL read-eval-print loop")
    ap.add_argument("files", nargs="*", metavar="FILE", help="NESL files to load first")
    ap.add_argument("--backend", choices=BACKENDS, default="auto",
                    help="where expressions run, as for nessie run: opencl (OpenCL kernels), "
                         "lcu (numpy kernels), interp (the reference interpreter); auto "
                         "(default): opencl, the interpreter (with a note) for what opencl "
                         "cannot run, and lcu (with a note) when no OpenCL device can build "
                         "kernels")
    ap.add_argument("--device", default=None, metavar="DEV",
                    help="OpenCL device: cpu, gpu or P:D (default: PYOPENCL_CTX, else a GPU, "
                         "else the CPU)")
    ap.add_argument("--no-fuse", action="store_true",
                    help="switch kernel fusion off (opencl and lcu)")
    ap.add_argument("--int64", action="store_true",
                    help="64-bit NESL int (default: 32-bit); expressions then run on the "
                         "reference interpreter (--backend auto or interp)")
    ap.add_argument("--print-length", type=_print_length, default=100, metavar="N",
                    help="longest sequence printed in full (default 100)")
    ap.add_argument("--no-history", action="store_true", help="do not read or write "
                    + HISTORY_FILE)
    return ap


def main(argv: Optional[list] = None) -> int:
    ap = _arg_parser()
    args = ap.parse_args(argv)
    if args.int64 and args.backend in ("opencl", "lcu"):
        ap.error(f"--int64 (64-bit NESL ints) runs on the reference interpreter only: use "
                 f"--backend interp or auto; the {args.backend} backend uses 32-bit ints")
    if args.device is not None and args.backend not in ("opencl", "auto"):
        ap.error("--device applies to --backend opencl (or auto) only")
    session = Session(int_bits=64 if args.int64 else 32, print_length=args.print_length,
                      backend=args.backend, device=args.device, fuse=not args.no_fuse)
    if not session.start_backend():
        return 1
    # each FILE is loaded (as :load) and the session goes on, but a FILE that could not be
    # loaded (unreadable, or stopped by an error) makes the exit status 1, as for nessie run
    loaded = [session.cmd_load(path) for path in args.files]
    interactive = sys.stdin.isatty()
    try:
        return repl(session, interactive, None if args.no_history else HISTORY_FILE) \
            or (0 if all(loaded) else 1)
    except BrokenPipeError:  # e.g. piped into head
        try:
            sys.stdout = open(os.devnull, "w")
        except OSError:
            pass
        return 0


if __name__ == "__main__":
    sys.exit(main())
