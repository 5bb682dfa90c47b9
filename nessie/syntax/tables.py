"""Cached LALR tables for the PLY parser.

Building NESL's LALR(1) tables with PLY takes about 0.3 s, which used to be paid by every
``nessie`` command.  The tables are now built once and kept as a JSON file named by a hash of the
grammar (start symbol, precedence, tokens, every ``p_`` function's name and rule text, and the
PLY version), so a changed grammar never reads a stale table: it has another name, and the key
stored inside the file is checked as well.

Where the file lives (first found is used; written to the first writable directory):

* ``$NESSIE_CACHE_DIR`` if set, else ``$XDG_CACHE_HOME/nessie`` or ``~/.cache/nessie``;
* ``nessie/syntax/`` itself is only read (a table shipped with the package), never written, so
  a read-only installation works; if no directory is writable the tables are built in memory.

JSON rather than a generated Python module or a pickle: loading it runs no code.  Writes go
through a temporary file and ``os.replace`` so concurrent runs never see a partial table.
The only module-level state is the parser object cached by :func:`nessie.syntax.parser._parser`.
"""
from __future__ import annotations

import hashlib
import json
import os
import tempfile

import ply
import ply.yacc as yacc

FORMAT = 1


def grammar_key(module, start: str = "") -> str:
    """Hash of everything in ``module`` that determines the LALR tables and their actions."""
    h = hashlib.sha256()
    funcs = [f for name, f in vars(module).items()
             if name.startswith("p_") and callable(f) and name != "p_error"]
    funcs.sort(key=lambda f: f.__code__.co_firstlineno)
    parts = [f"format={FORMAT}", f"ply={ply.__version__}/{yacc.__tabversion__}",
             f"start={start}", repr(getattr(module, "precedence", ())),
             " ".join(module.tokens)]
    parts += [f"{f.__name__}:{f.__doc__}" for f in funcs]
    h.update("\n".join(parts).encode())
    return h.hexdigest()[:24]


def cache_dirs() -> list[str]:
    """Directories searched for a table, in order (the package's own is last, read only)."""
    env = os.environ.get("NESSIE_CACHE_DIR")
    if env:
        user = env
    else:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        user = os.path.join(base, "nessie")
    return [user, os.path.dirname(os.path.abspath(__file__))]


def table_filename(key: str) -> str:
    return f"nesl_parsetab_{key}.json"


def _load(path: str, key: str):
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except (OSError, ValueError):
        return None
    try:
        if data.get("key") != key or data.get("format") != FORMAT:
            return None
        action = {int(s): acts for s, acts in data["action"].items()}
        goto = {int(s): gs for s, gs in data["goto"].items()}
        productions = [yacc.MiniProduction(*p) for p in data["productions"]]
        return action, goto, productions
    except (KeyError, TypeError, ValueError, AttributeError):
        return None


def _save(directory: str, key: str, parser) -> str | None:
    data = {
        "format": FORMAT, "key": key,
        "action": {str(s): acts for s, acts in parser.action.items()},
        "goto": {str(s): gs for s, gs in parser.goto.items()},
        "productions": [[p.str, p.name, p.len, p.func, os.path.basename(p.file or ""), p.line]
                        for p in parser.productions],
    }
    try:
        os.makedirs(directory, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".parsetab-", suffix=".tmp", dir=directory)
    except OSError:
        return None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(data, fh, separators=(",", ":"))
        target = os.path.join(directory, table_filename(key))
        os.replace(tmp, target)
        return target
    except OSError:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        return None


def build_parser(module, start: str):
    """An ``LRParser`` for the grammar in ``module``: from a cached table when one matches,
    otherwise built by PLY (and cached for the next run where a directory is writable)."""
    key = grammar_key(module, start)
    name = table_filename(key)
    dirs = cache_dirs()
    for d in dirs:
        loaded = _load(os.path.join(d, name), key)
        if loaded is None:
            continue
        action, goto, productions = loaded
        lr = yacc.LRTable()
        lr.lr_action, lr.lr_goto, lr.lr_productions, lr.lr_method = action, goto, productions, \
            "LALR"
        try:
            lr.bind_callables(vars(module))
        except Exception:  # a table naming a function that no longer exists: rebuild
            continue
        if any(p.func and p.callable is None for p in productions):
            continue
        return yacc.LRParser(lr, getattr(module, "p_error", None))
    parser = yacc.yacc(module=module, start=start, write_tables=False, debug=False,
                       errorlog=yacc.NullLogger())
    _save(dirs[0], key, parser)
    return parser
