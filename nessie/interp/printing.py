"""Printing of NESL values exactly as NESL 3.1.1 prints them.

A value alone does not determine its printed form (``[char]`` prints as a string, an empty
sequence has no elements to look at, a datatype needs its constructor), so every function
here takes the value *and* its type (a ``nessie.types.types`` value, or its NESL text), and,
for values containing datatypes, the program's ``vtypes.Datatypes``.

Rules (NESL.md, "Printing"):

* ``int``: decimal; ``bool``: ``T`` / ``F``; ``char``: a backquote and the character
  (`` `a ``); ``[char]``: ``"abc"`` (characters verbatim, no escapes).
* ``float``: 15 significant digits, trailing zeros removed but at least one digit after the
  point; exponent form ``1.0E20`` / ``2.5E-7`` when the (rounded) magnitude is ``>= 1e7``
  or ``< 1e-3``.  Infinities and NaN print as ``inf``, ``-inf``, ``nan``; negative zero as
  ``-0.0`` (the original front end printed floats with Common Lisp, which keeps the sign).
* sequences: ``[1, 2, 3]``, ``[]``; a sequence longer than ``print_length`` shows its first
  ``print_length`` elements then ``,...]`` (``[0, 1, ..., 99,...]``), and ``[...]`` when
  ``print_length`` is 0 (no element, then the ellipsis, as a Common Lisp printer with
  ``*print-length*`` 0 prints ``(...)``; NESL.md shows only the case with elements); a string
  longer than ``print_length`` likewise shows its first characters then ``..."`` (our
  choice: NESL.md does not show a long string).
* tuples keep their parentheses and print right-nested pairs flat: ``(1, 2, 3)``, while a
  pair in first position keeps its own: ``((1, 2), 3)``.
* datatypes: ``complex(1.0, 2.0)``; segment descriptors: ``segdes(3)`` (our choice).

Result lines: ``NAME = VALUE : TYPE`` (``it`` for a top-level expression) and
``NAME = fn : TYPE``; a top-level tuple type loses its outer parentheses
(``it = (1, 2, 3) : int, int, int``).  Lines are not wrapped (NESL wraps long results,
but whitespace is not significant).
"""

from __future__ import annotations

import math
from typing import Any

from nessie.types.types import Scheme, scheme_to_str

from .values import DataVal, SegDes, Seq
from .vtypes import CHAR, Datatypes, TBase, TData, TPair, TSeq, as_type, format_type, tuple_components

DEFAULT_PRINT_LENGTH = 100


def format_float(x: float) -> str:
    """NESL's printed form of a float (see the module docstring)."""
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    if x == 0.0:
        return "-0.0" if math.copysign(1.0, x) < 0 else "0.0"
    sign = "-" if x < 0 else ""
    mantissa, exponent = ("%.14e" % abs(x)).split("e")
    exp = int(exponent)
    digits = mantissa.replace(".", "").rstrip("0") or "0"
    if -3 <= exp < 7:
        if exp >= 0:
            whole = digits[: exp + 1].ljust(exp + 1, "0")
            frac = digits[exp + 1 :]
        else:
            whole = "0"
            frac = "0" * (-exp - 1) + digits
        return f"{sign}{whole}.{frac or '0'}"
    return f"{sign}{digits[0]}.{digits[1:] or '0'}E{exp}"


def format_value(value: Any, ty: Any, print_length: int | None = DEFAULT_PRINT_LENGTH,
                 datatypes: Datatypes | None = None) -> str:
    """The printed form of ``value`` of type ``ty``; ``print_length=None`` never cuts."""
    parts: list[str] = []
    _emit(value, as_type(ty), print_length, datatypes, parts)
    return "".join(parts)


def _emit(value: Any, ty: Any, limit: int | None, datatypes: Datatypes | None,
          out: list[str]) -> None:
    if isinstance(ty, TBase):
        out.append(_format_scalar(value, ty.name))
    elif isinstance(ty, TSeq):
        if not isinstance(value, Seq):
            raise TypeError(f"expected a sequence of type {format_type(ty)}, got {value!r}")
        items = value.items
        cut = limit is not None and len(items) > limit
        shown = items[:limit] if cut else items
        if ty.elem == CHAR:
            out.append('"' + "".join(shown) + ('..."' if cut else '"'))
            return
        out.append("[")
        for i, item in enumerate(shown):
            if i:
                out.append(", ")
            _emit(item, ty.elem, limit, datatypes, out)
        out.append(("...]" if not shown else ",...]") if cut else "]")
    elif isinstance(ty, TPair):
        components = tuple_components(ty)
        out.append("(")
        for i, cty in enumerate(components):
            if i:
                out.append(", ")
            if i < len(components) - 1:
                if not isinstance(value, tuple) or len(value) != 2:
                    raise TypeError(f"expected a pair of type {format_type(ty)}, got {value!r}")
                component, value = value
            else:
                component = value
            _emit(component, cty, limit, datatypes, out)
        out.append(")")
    elif isinstance(ty, TData):
        if not isinstance(value, DataVal) or value.name != ty.name:
            raise TypeError(f"expected a {ty.name} value, got {value!r}")
        if datatypes is None or ty.name not in datatypes:
            raise TypeError(f"printing a {ty.name} value needs the program's datatypes")
        out.append(value.name + "(")
        for i, (field, fty) in enumerate(zip(value.fields, datatypes.fields(ty))):
            if i:
                out.append(", ")
            _emit(field, fty, limit, datatypes, out)
        out.append(")")
    else:
        raise TypeError(f"cannot print a value of type {format_type(ty)}")


def _format_scalar(value: Any, name: str) -> str:
    if name == "int":
        if type(value) is not int:
            raise TypeError(f"expected an int, got {value!r}")
        return str(value)
    if name == "float":
        if type(value) is not float:
            raise TypeError(f"expected a float, got {value!r}")
        return format_float(value)
    if name == "bool":
        if type(value) is not bool:
            raise TypeError(f"expected a bool, got {value!r}")
        return "T" if value else "F"
    if name == "char":
        if type(value) is not str or len(value) != 1:
            raise TypeError(f"expected a char, got {value!r}")
        return "`" + value
    if name == "segdes":
        if not isinstance(value, SegDes):
            raise TypeError(f"expected a segdes, got {value!r}")
        return f"segdes({value.length})"
    raise TypeError(f"unknown base type {name}")


def format_type_text(ty: Any) -> str:
    """The printed form of a type at the top of a result line (text passes through)."""
    if isinstance(ty, str):
        return ty
    return format_type(ty, top=True)


def format_binding(lhs: str, value: Any, ty: Any,
                   print_length: int | None = DEFAULT_PRINT_LENGTH,
                   datatypes: Datatypes | None = None) -> str:
    """``LHS = VALUE : TYPE`` -- ``lhs`` is ``it``, a name, or a pattern's text."""
    ty = as_type(ty)
    return f"{lhs} = {format_value(value, ty, print_length, datatypes)} : {format_type_text(ty)}"


def format_function(name: str, ty: Any) -> str:
    """``NAME = fn : TYPE`` -- ``ty`` is a function's ``Scheme`` (printed with its context,
    ``([a], [a]) -> a :: (a in number)``), a monomorphic ``TFun``, or the printed text."""
    if isinstance(ty, Scheme):
        return f"{name} = fn : {scheme_to_str(ty)}"
    return f"{name} = fn : {format_type_text(ty)}"
