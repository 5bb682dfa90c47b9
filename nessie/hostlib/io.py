"""Output, files and errors: the builtins that act on the world, in program order."""
from __future__ import annotations

import os

import numpy as np

from lambda_cu import errors as E

from . import host_builtin
from .leaves import chars, text
from .strings import _FLOAT_SYNTAX, _INT_SYNTAX

_TRUE = [np.bool_(True)]


@host_builtin("print_string", "write_string")
def print_string(args, call):
    """Write a string to the program's output (no newline added); ``T``."""
    call.rt.out.write(text(args[0]))
    return _TRUE


@host_builtin("print_char")
def print_char(args, call):
    call.rt.out.write(chr(int(args[0])))
    return _TRUE


@host_builtin("print_line")
def print_line(args, call):
    """Write a string and a newline; ``T``."""
    call.rt.out.write(text(args[0]) + "\n")
    return _TRUE


@host_builtin("print")
def print_value(args, call):
    """Write the printed form of any value (as ``@`` gives it) and a space; ``T``."""
    from .strings import printed
    call.rt.out.write(printed(args, call) + " ")
    return _TRUE


@host_builtin("error")
def error(args, call):
    """``error(message)`` with a computed message: stop with ``RUNTIME ERROR: message`` at the
    call (a literal message is an ``Error`` node of the flattened program itself)."""
    raise call.error(text(args[0]))


# ------------------------------------------------------------------------------ files
def _path(name: str, call) -> str:
    return os.path.join(call.rt.base_dir, name)


def _read(name: str, call) -> str:
    try:
        with open(_path(name, call), encoding="latin-1") as f:
            return f.read()
    except OSError as exc:
        raise call.error(E.FILE_ERROR.format(name=name, reason=exc.strerror)) from None


@host_builtin("read_string_from_file")
def read_string_from_file(args, call):
    """The contents of a file (relative to the program's directory) as a string."""
    return [chars(_read(text(args[0]), call))]


def _tokens(name: str, call, syntax, kind: str, convert) -> list:
    out = []
    for token in _read(name, call).split():
        m = syntax.match(token)
        if not m:
            raise call.error(E.FILE_FORMAT.format(kind=kind, name=name, token=token))
        out.append(convert(m.group(1)))
    return out


@host_builtin("read_int_seq_from_file")
def read_int_seq_from_file(args, call):
    """The whitespace-separated integers of a file (each wrapped to the int word)."""
    name = text(args[0])
    vals = _tokens(name, call, _INT_SYNTAX, "an int", lambda g: call.rt.wrap(int(g)))
    return [np.asarray(vals, dtype=np.int64).astype(_int_dtype(call))]


@host_builtin("read_float_seq_from_file")
def read_float_seq_from_file(args, call):
    """The whitespace-separated floats (or integers) of a file."""
    name = text(args[0])
    return [np.asarray(_tokens(name, call, _FLOAT_SYNTAX, "a float", float), dtype=np.float64)]


@host_builtin("write_string_to_file")
def write_string_to_file(args, call):
    """``write_string_to_file(str, filename)``: write (replace) the file; ``T``."""
    s, name = text(args[0]), text(args[1])
    try:
        with open(_path(name, call), "w", encoding="latin-1") as f:
            f.write(s)
    except OSError as exc:
        raise call.error(E.FILE_ERROR.format(name=name, reason=exc.strerror)) from None
    return _TRUE


def _int_dtype(call):
    from lambda_cu.values import dtype_of
    return dtype_of(call.tm.int_type)
