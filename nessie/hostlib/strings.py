"""Printed forms of values and the parsing of numbers in strings."""
from __future__ import annotations

import math
import re

import numpy as np

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
    """``@v``: the printed form of any value, as ``[char]``."""
    return [chars(printed(args, call))]


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
