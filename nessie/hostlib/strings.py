"""Printed forms of values and the parsing of numbers in strings."""
from __future__ import annotations

import math
import re

import numpy as np

from nessie.types import types as nt

from . import host_builtin
from .leaves import chars, text


def printed(leaves: list, call) -> str:
    """The printed form of the argument value (never cut by ``print_length``): the one value
    printer of every backend, ``nessie.interp.printing`` (result lines print with it too)."""
    from nessie.interp.printing import format_value
    value = call.rt.to_value(call.arg_type, list(leaves))
    return format_value(value, call.arg_type, print_length=None, datatypes=call.rt.datatypes)


@host_builtin("@")
def to_string(args, call):
    """``@v``: the printed form of any value, as ``[char]``.  A sequence of scalars is printed
    here, straight from its vector, a block of elements at a time (memory: the result and one
    block; ``@`` of 50 million floats needs about 1 GB, not 8); other values through the
    shared printer."""
    t = call.tm.unfold(call.arg_type) if hasattr(call.tm, "unfold") else call.arg_type
    if isinstance(t, nt.TSeq) and len(args) == 1 and isinstance(args[0], np.ndarray):
        elem = call.tm.unfold(t.elem) if hasattr(call.tm, "unfold") else t.elem
        if isinstance(elem, nt.TBase) and elem.name in _ELEMENT_TEXT:
            return [_scalar_seq_text(args[0], elem.name)]
    return [chars(printed(args, call))]


def format_float(x: float) -> str:
    """NESL's printed form of a float: 15 significant digits, trailing zeros dropped (one kept
    after the point), positional for exponents -3..6, else ``D.DDDE<exp>``; ``nan``, ``inf``,
    ``-inf``, ``-0.0``."""
    if x != x:
        return "nan"
    if x in (math.inf, -math.inf):
        return "inf" if x > 0 else "-inf"
    if x == 0.0:
        return "-0.0" if math.copysign(1.0, x) < 0 else "0.0"
    mant, _, e = ("%.14e" % abs(x)).partition("e")
    exp = int(e)
    digits = mant.replace(".", "").rstrip("0") or "0"
    sign = "-" if x < 0 else ""
    if exp < -3 or exp >= 7:
        return f"{sign}{digits[0]}.{digits[1:] or '0'}E{exp}"
    if exp >= 0:
        return f"{sign}{digits[:exp + 1].ljust(exp + 1, '0')}.{digits[exp + 1:] or '0'}"
    return f"{sign}0.{'0' * (-exp - 1)}{digits}"


_ELEMENT_TEXT = {
    "int": lambda xs: map(str, xs),
    "float": lambda xs: map(format_float, xs),
    "bool": lambda xs: ("T" if x else "F" for x in xs),
    "char": None,                                   # a string: its characters, quoted
}

#: elements formatted at a time by ``@`` of a sequence of scalars
_BLOCK = 1 << 16


def _scalar_seq_text(v: np.ndarray, name: str) -> np.ndarray:
    if name == "char":
        out = np.empty(v.shape[0] + 2, np.uint8)
        out[0] = out[-1] = ord('"')
        out[1:-1] = v
        return out
    fmt = _ELEMENT_TEXT[name]
    pieces = [b"["]
    for lo in range(0, v.shape[0], _BLOCK):
        block = v[lo:lo + _BLOCK].tolist()
        pieces.append(((", " if lo else "") + ", ".join(fmt(block))).encode("latin-1"))
    pieces.append(b"]")
    out = np.empty(sum(len(p) for p in pieces), np.uint8)
    at = 0
    for p in pieces:                # into the result directly: no second copy of the text
        out[at:at + len(p)] = np.frombuffer(p, np.uint8)
        at += len(p)
    return out


def _nonfinite(x: float) -> str:
    return "nan" if math.isnan(x) else ("inf" if x > 0 else "-inf")


@host_builtin("exp_string")
def exp_string(args, call):
    """``exp_string(x, digits)``: ``x`` in exponent form with ``digits`` digits after the point
    (``exp_string(1234.5, 2) = "1.23E3"``); a non-finite ``x`` prints as ``@`` prints it."""
    x, digits = float(args[0]), int(args[1])
    if not math.isfinite(x):
        return [chars(_nonfinite(x))]
    mantissa, exponent = ("%.*e" % (max(digits, 0), x)).split("e")
    return [chars(f"{mantissa}E{int(exponent)}")]


_INT_SYNTAX = re.compile(r"\s*([+-]?\d+)\s*\Z")
_FLOAT_SYNTAX = re.compile(r"\s*([+-]?(?:\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?))\s*\Z")


def _int_scalar(call, x: int):
    from lambda_cu.values import dtype_of
    return dtype_of(call.tm.int_type).type(x)


@host_builtin("parse_int")
def parse_int(args, call):
    """``parse_int(str) = (value, ok)``: an optionally signed decimal, surrounding whitespace
    allowed, wrapped to the int word; ``(0, F)`` otherwise."""
    m = _INT_SYNTAX.match(text(args[0]))
    if not m:
        return [_int_scalar(call, 0), np.bool_(False)]
    return [_int_scalar(call, call.rt.wrap(int(m.group(1)))), np.bool_(True)]


@host_builtin("parse_float")
def parse_float(args, call):
    """``parse_float(str) = (value, ok)``: NESL float or integer syntax (``1.5``, ``2.``,
    ``1e-3``, ``-4``), surrounding whitespace allowed; ``(0.0, F)`` otherwise."""
    m = _FLOAT_SYNTAX.match(text(args[0]))
    if not m:
        return [np.float64(0.0), np.bool_(False)]
    return [np.float64(float(m.group(1))), np.bool_(True)]
