"""Datatypes of the original NESL library that its library functions use.

The CMU library defines ``datatype stream(int)`` (src/io.lnesl: the type of ``stdin``,
``stdout``, ``stderr``, ``nullstr`` and of ``read_string``'s stream argument) and
``datatype bound_box((a, a), (a, a)) :: (a in number)`` (src/plot.nesl: the result of
``bounding_box``).  Their constructors are global names, as in the original (real programs
write ``let bound_box(corner, size) = bounding_box(points) in ...``).

The type checker starts from an environment that knows them (:func:`library_env`); a typed
program that uses one gets its typed ``DataDef`` in front of its items
(:func:`library_datadefs`), so every later stage (monomorphiser, interpreter, flattener,
printing) sees an ordinary datatype.  Those definitions are the library's, not the
program's: no result line is printed for them (:func:`is_library_item`).
"""
from __future__ import annotations

from functools import lru_cache

#: the file name the library definitions are parsed under (their spans name it)
LIBRARY_FILE = "<library>"

LIBRARY_SOURCE = """\
datatype stream(int);
datatype bound_box((a, a), (a, a)) :: (a in number);
"""

#: name -> number of type parameters (what the builtin signatures' parser needs)
from nessie.types.builtins import LIBRARY_DATATYPE_ARITY  # noqa: E402,F401  (defined there)


@lru_cache(maxsize=1)
def _library():
    from nessie.diagnostics import Diagnostics
    from nessie.syntax import parse_text
    from nessie.types.infer import TypeEnv, check_item

    env = TypeEnv()
    defs = {}
    diags = Diagnostics()
    for item in parse_text(LIBRARY_SOURCE, LIBRARY_FILE).items:
        env, typed = check_item(env, item, diags)
        for t in typed:
            defs[t.name] = t
    diags.raise_if_errors()
    return env, defs


def library_env():
    """The type environment a program starts in: the library's datatypes and constructors."""
    return _library()[0]


def library_defs() -> dict:
    """name -> the library's typed ``DataDef``."""
    return dict(_library()[1])


def is_library_item(item) -> bool:
    """Is this typed (or monomorphic) item one of the library's definitions?"""
    span = getattr(item, "span", None)
    return span is not None and span.file == LIBRARY_FILE


def _datatype_names(t, out: set) -> None:
    from nessie.types.types import Scheme, TData, TFun, TPair, TSeq
    stack = [t]
    while stack:
        x = stack.pop()
        if isinstance(x, TData):
            out.add(x.name)
            stack.extend(x.args)
        elif isinstance(x, TSeq):
            stack.append(x.elem)
        elif isinstance(x, (TPair,)):
            stack += [x.fst, x.snd]
        elif isinstance(x, TFun):
            stack += [x.arg, x.result]
        elif isinstance(x, Scheme):
            stack.append(x.type)


_FIELDS: dict = {}


def used_datatypes(items) -> set:
    """The names of the datatypes the types of typed ``items`` mention (iterative walk)."""
    from dataclasses import fields, is_dataclass

    from nessie.types.types import Scheme, TBase, TData, TFun, TPair, TSeq, TVar

    types = (TBase, TData, TFun, TPair, TSeq, TVar, Scheme)
    names: set = set()
    stack = list(items)
    while stack:
        x = stack.pop()
        if isinstance(x, tuple):
            stack.extend(x)
        elif isinstance(x, types):
            _datatype_names(x, names)
        elif is_dataclass(x) and not isinstance(x, type):
            cls = type(x)
            fs = _FIELDS.get(cls)
            if fs is None:
                fs = _FIELDS[cls] = tuple(f.name for f in fields(x) if f.name != "span")
            stack.extend(getattr(x, f) for f in fs)
    return names


def library_datadefs(items, defined: set | None = None) -> list:
    """The library's typed ``DataDef``\\ s that typed ``items`` need and ``defined`` (names
    already defined, e.g. earlier in a REPL session; updated) does not hold yet."""
    defined = set() if defined is None else defined
    defs = _library()[1]
    used = used_datatypes(items)
    out = []
    for name, d in defs.items():
        if name in used and name not in defined and not any(
                getattr(it, "name", None) == name and not is_library_item(it)
                for it in items if type(it).__name__ == "DataDef"):
            out.append(d)
            defined.add(name)
    return out
