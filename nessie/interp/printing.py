"""Printing of NESL values exactly as NESL 3.1.1 prints them.

A value alone does not determine its printed form (``[char]`` prints as a string, an empty
sequence has no elements to look at, a datatype needs its constructor), so every function
here takes the value *and* its type (a ``nessie.types.types`` value, or its NESL text), and,
for values containing datatypes, the program's ``vtypes.Datatypes``.

Rules (NESL.md, "Printing"):

* ``int``: decimal; ``bool``: ``T`` / ``F``; ``char``: a backquote and the character
  (`` `a ``); ``[char]``: ``"abc"`` (characters verbatim; but see result lines below).
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

* a string in a result line prints as Common Lisp's ``~s`` prints it: a ``"`` or a ``\\``
  inside it is preceded by a backslash (``"a\\"b"``); ``@`` and ``print`` are unchanged.

Result lines: ``NAME = VALUE : TYPE`` (``it`` for a top-level expression) and
``NAME = fn : TYPE``; a top-level tuple type loses its outer parentheses
(``it = (1, 2, 3) : int, int, int``).

Long result lines wrap as the original's pretty printer wraps them (``pprint-nesl-result`` and
``append-lines-2`` in ``src/pprint.lisp`` of NESL 3.1): a result is the pieces ``NAME``,
`` = ``, ``VALUE``, `` : ``, ``TYPE`` (the type itself made of pieces: ``[``, element, ``]``;
components and ``, ``; argument, `` -> ``, result; `` :: (``, context, ``)``), each a list of
indented lines, joined from the right: piece ``A`` (its last line, at indent ``i``, ending at
column ``c = i + len``) and the following text ``B`` share a line when ``c`` plus the length of
``B``'s first line is at most :data:`LINE_WIDTH` (120), and then ``B``'s other lines are
indented by ``c`` more; otherwise ``B`` starts a new line, all its lines indented by ``i``
more.  The value is one piece, never broken.  So ``index(30)`` (110 characters of value)
prints ``it = `` (with its trailing space), then ``  [0, 1, ..., 29] : [int]`` indented by 2
(the column after ``it``), and a value longer than 117 characters prints on its own line
indented by 2 with `` : TYPE`` on the next line, indented by 2 too.  A pattern's pieces
(``(``, components, ``, ``, ``)``) join within 50 columns (``cnesl-infix``).
"""

from __future__ import annotations

import math
from typing import Any

from nessie.types.lettering import scheme_to_str
from nessie.types.types import Scheme, display_name

from .values import DataVal, SegDes, Seq
from .vtypes import (CHAR, Datatypes, TBase, TData, TFun, TPair, TSeq, TVar, as_type, format_type,
                     tuple_components)

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
          out: list[str], escape: bool = False) -> None:
    if isinstance(ty, TBase):
        out.append(_format_scalar(value, ty.name))
    elif isinstance(ty, TSeq):
        if not isinstance(value, Seq):
            raise TypeError(f"expected a sequence of type {format_type(ty)}, got {value!r}")
        items = value.items
        cut = limit is not None and len(items) > limit
        shown = items[:limit] if cut else items
        if ty.elem == CHAR:
            text = "".join(shown)
            if escape:
                text = text.replace("\\", "\\\\").replace('"', '\\"')
            out.append('"' + text + ('..."' if cut else '"'))
            return
        out.append("[")
        for i, item in enumerate(shown):
            if i:
                out.append(", ")
            _emit(item, ty.elem, limit, datatypes, out, escape)
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
            _emit(component, cty, limit, datatypes, out, escape)
        out.append(")")
    elif isinstance(ty, TData):
        if not isinstance(value, DataVal) or value.name != ty.name:
            raise TypeError(f"expected a {ty.name} value, got {value!r}")
        if datatypes is None or ty.name not in datatypes:
            raise TypeError(f"printing a {ty.name} value needs the program's datatypes")
        out.append(display_name(value.name) + "(")
        for i, (field, fty) in enumerate(zip(value.fields, datatypes.fields(ty))):
            if i:
                out.append(", ")
            _emit(field, fty, limit, datatypes, out, escape)
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


# ----------------------------------------------------------------------------- line layout
#: the width the original's pretty printer joins pieces within (``append-lines-2``)
LINE_WIDTH = 120
#: the width the pieces of a pattern join within (``cnesl-infix``)
PATTERN_WIDTH = 50

Lines = list  # of (indent, text)


def _new(text: str) -> Lines:
    return [(0, text)]


def _inc(lines: Lines, k: int) -> Lines:
    return [(i + k, s) for i, s in lines]


def _join2(a: Lines, b: Lines, width: int = LINE_WIDTH) -> Lines:
    """``append-lines-2``: ``b`` after the last line of ``a``."""
    i, s = a[-1]
    end = i + len(s)
    if end + len(b[0][1]) > width:
        return a + _inc(b, i)
    return a[:-1] + [(i, s + b[0][1])] + _inc(b[1:], end)


def _join(*parts: Lines) -> Lines:
    """``append-lines``: the pieces joined from the right."""
    out = parts[-1]
    for p in reversed(parts[:-1]):
        out = _join2(p, out)
    return out


def _parens(flag: bool, body: Lines) -> Lines:
    return _join(_new("("), body, _new(")")) if flag else body


def type_lines(t: Any, parenth: int, namer: Any) -> Lines:
    """``cnesl-type``: a type as pieces; ``parenth`` 0 at the top of a result (a tuple has no
    parentheses), 1 inside a sequence, a tuple or a datatype, 3 for a function's argument and
    2 for its result (a function type is parenthesised above 2)."""
    if isinstance(t, TBase):
        return _new(t.name)
    if isinstance(t, TVar):
        return _new(namer(t.id))
    if isinstance(t, TSeq):
        return _join(_new("["), type_lines(t.elem, 1, namer), _new("]"))
    if isinstance(t, TPair):
        comps = tuple_components(t)
        parts: list = []
        for c in comps[:-1]:
            parts += [type_lines(c, 1, namer), _new(", ")]
        parts.append(type_lines(comps[-1], 0, namer))
        return _parens(parenth > 0, _join(*parts))
    if isinstance(t, TData):
        if not t.args:
            return _new(display_name(t.name))
        parts = [_new(display_name(t.name)), _new("("), type_lines(t.args[0], 1, namer)]
        for a in t.args[1:]:
            parts += [_new(", "), type_lines(a, 1, namer)]
        return _join(*parts, _new(")"))
    if isinstance(t, TFun):
        return _parens(parenth > 2, _join(type_lines(t.arg, 3, namer), _new(" -> "),
                                          type_lines(t.result, 2, namer)))
    raise TypeError(f"cannot print the type {t!r}")


def _full_type_lines(t: Any, namer: Any, context: list) -> Lines:
    """``cnesl-full-type``: a type and its context ``:: (a in number; b in any)``."""
    if not context:
        return _join(type_lines(t, 0, namer), _new(""))
    binds: list = []
    for k, b in enumerate(context):
        binds += ([_new("; ")] if k else []) + [_new(b)]
    return _join(type_lines(t, 0, namer), _join(_new(" :: "), _new("("), *binds, _new(")")))


def pattern_lines(p: Any, prec: int = 1) -> Lines:
    """``cnesl-exp`` of a top-level pattern (a typed-AST pattern) at precedence ``prec``:
    a tuple is parenthesised at precedence 1, its components join within 50 columns."""
    from nessie.types import typed_ast as T
    if isinstance(p, T.PVar):
        return _new(p.name)
    if isinstance(p, T.PWild):
        return _new("_")
    if isinstance(p, T.PCon):
        return _join(_new(p.name), _parens(True, pattern_lines(p.arg, 0)))
    if isinstance(p, T.PPair):
        comps = []
        while isinstance(p, T.PPair):
            comps.append(p.fst)
            p = p.snd
        out = pattern_lines(p, 0)
        for c in reversed(comps):
            out = _join2(_join(pattern_lines(c, 1), _new(", ")), out, PATTERN_WIDTH)
        return _parens(prec > 0, out)
    raise TypeError(f"not a pattern: {p!r}")


def _render(lines: Lines) -> str:
    return "\n".join(" " * i + s for i, s in lines)


def _lhs_lines(lhs: Any) -> Lines:
    return _new(lhs) if isinstance(lhs, str) else pattern_lines(lhs, 1)


def format_binding(lhs: Any, value: Any, ty: Any,
                   print_length: int | None = DEFAULT_PRINT_LENGTH,
                   datatypes: Datatypes | None = None) -> str:
    """``LHS = VALUE : TYPE``, wrapped as the original wraps it (the module docstring) --
    ``lhs`` is ``it``, a name, a pattern's text, or a typed-AST pattern."""
    ty = as_type(ty)
    parts: list[str] = []
    _emit(value, ty, print_length, datatypes, parts, escape=True)
    return _render(_join(_lhs_lines(lhs), _new(" = "), _new("".join(parts)), _new(" : "),
                         _full_type_lines(ty, _value_namer(ty), [])))


def _value_namer(ty: Any):
    from nessie.types.lettering import last_occurrence_order, original_names
    from nessie.types.types import Namer
    order = last_occurrence_order(ty)
    return Namer(dict(zip(order, original_names(len(order)))))


def format_function(name: str, ty: Any) -> str:
    """``NAME = fn : TYPE`` -- ``ty`` is a function's ``Scheme`` (printed with its context,
    ``([a], [a]) -> a :: (a in number)``, its variables lettered as the original letters
    them), a monomorphic ``TFun``, or the printed text; wrapped as results are."""
    if isinstance(ty, str):
        return f"{name} = fn : {ty}"
    if isinstance(ty, Scheme):
        from nessie.types.lettering import original_context, original_namer
        namer = original_namer(ty)
        context = original_context(ty, namer)
        type_part = _full_type_lines(ty.type, namer, context)
    else:
        type_part = _full_type_lines(ty, _value_namer(ty), [])
    return _render(_join(_new(name), _new(" = "), _new("fn"), _new(" : "), type_part))


# ----------------------------------------------------------------------------- redefinitions
#: what the original prints when a top-level name is defined again at another type
REDEFINING = "Redefining {} with a new type.  Old calls will not be modified."


class Redefinitions:
    """The types of a run's (or a REPL session's) top-level names, for the original's line
    ``Redefining NAME with a new type.  Old calls will not be modified.`` (``get-binding`` in
    src/defop.lisp: printed, with the name in upper case as Common Lisp prints a symbol, when
    a function, a datatype's constructor or a variable is defined while a binding of the same
    name exists at another type; a function's type is compared without its context, so
    ``a -> a :: (a in any)`` and ``a -> a :: (a in number)`` are the same; ``it`` and ``main``
    are never reported: the original's ``main-flag``).  A function's line comes after the note; a variable's note comes once its
    value is computed, before the result line."""

    def __init__(self) -> None:
        # the library's redefinable variable (``set-nesl-variable 'user ... :redefinable? on``)
        self._types: dict = {"user": ("value", "[char]")}

    def _note(self, name: str, key: tuple) -> list:
        old = self._types.get(name)
        self._types[name] = key
        if old is None or old == key or name in ("it", "main"):
            return []
        return [REDEFINING.format(name.upper())]

    def function(self, name: str, ty: Any) -> list:
        """Notes for defining function (or constructor) ``name`` with ``ty`` (a ``Scheme``,
        a ``TFun`` or the printed type)."""
        if isinstance(ty, Scheme):
            from nessie.types.lettering import original_namer
            text = _render(type_lines(ty.type, 0, original_namer(ty)))
        elif isinstance(ty, str):
            text = ty.split(" :: ")[0]
        else:
            text = _render(type_lines(ty, 0, _value_namer(ty)))
        return self._note(name, ("function", text))

    def pattern(self, pattern: Any) -> list:
        """Notes for binding the variables of a top-level (typed-AST) pattern, left to right."""
        from nessie.types import typed_ast as T
        notes: list = []
        stack = [pattern]
        while stack:
            p = stack.pop()
            if isinstance(p, T.PVar):
                notes += self._note(p.name, ("value", format_type_text(p.type)))
            elif isinstance(p, T.PPair):
                stack += [p.snd, p.fst]
            elif isinstance(p, T.PCon):
                stack.append(p.arg)
        return notes
