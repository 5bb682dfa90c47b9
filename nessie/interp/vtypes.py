"""Types as the interpreter uses them.

The interpreter works directly on the front end's type values (``nessie.types.types``:
``TBase``, ``TSeq``, ``TPair``, ``TData``, ``TVar``, ``TFun``), re-exported here.  It needs
types for three things only: printing a value (``[char]`` prints as a string, ``float``
with NESL's float format, a datatype with its constructor's fields), choosing the identity
of a reduction over an empty sequence (``sum([] int) = 0`` but ``sum([] float) = 0.0``), and
the ``@`` builtin.

A ``TData`` type names a datatype but does not carry its fields; ``Datatypes`` maps each
datatype to its constructor's scheme and gives the (instantiated) field types:
``datatype complex(float, float)`` has fields ``[float, float]``, the components of the
constructor's argument type along its right spine (a NESL tuple ``(a, b, c)`` is
``(a, (b, c))``, so a constructor's argument is always read as that flat list).

``parse_type`` reads NESL type notation with the front end's parser (tests, REPL);
``format_type`` prints it (a top-level tuple loses its parentheses).
"""

from __future__ import annotations

from typing import Any, Mapping

from nessie.types.types import (BOOL, CHAR, FLOAT, INT, SEGDES, STRING, Scheme, TBase,
                                TData, TFun, TPair, TSeq, TVar, Type, subst_type,
                                tuple_components, type_to_str)

__all__ = [
    "BOOL", "CHAR", "FLOAT", "INT", "SEGDES", "STRING", "TBase", "TData", "TFun", "TPair",
    "TSeq", "TVar", "Type", "Datatypes", "format_type", "parse_type", "tuple_components",
]


class Datatypes:
    """The datatypes of a program: name -> constructor scheme
    (``forall params. arg_type -> name(params)``)."""

    def __init__(self, schemes: Mapping[str, Scheme] | None = None) -> None:
        self._schemes: dict[str, Scheme] = dict(schemes or {})
        self._cache: dict[TData, tuple] = {}

    def add(self, name: str, scheme: Scheme) -> None:
        self._schemes[name] = scheme
        self._cache = {k: v for k, v in self._cache.items() if k.name != name}

    def __contains__(self, name: str) -> bool:
        return name in self._schemes

    def arg_type(self, ty: TData) -> Type:
        """The constructor's argument type at the instance ``ty``."""
        fun = self._schemes[ty.name].type
        params = fun.result.args
        return subst_type(fun.arg, {p.id: a for p, a in zip(params, ty.args)})

    def fields(self, ty: TData) -> tuple:
        """The field types of datatype instance ``ty`` (components of its argument)."""
        if ty not in self._cache:
            if ty.name not in self._schemes:
                raise KeyError(f"unknown datatype {ty.name}")
            self._cache[ty] = tuple(tuple_components(self.arg_type(ty)))
        return self._cache[ty]


def format_type(ty: Type, top: bool = True) -> str:
    """NESL notation of a type (top-level tuples lose their outer parentheses)."""
    return type_to_str(ty, top)


def parse_type(text: str) -> Type:
    """A type from NESL notation: ``"[(int, float)]"``, ``"int, int"``, ``"[a] -> a"``.

    Type variables are numbered from 0 in order of appearance.  Datatype names are not
    known here: build ``TData`` values directly for them.
    """
    from nessie.syntax import parse_type_signature, parse_value_type
    from nessie.types.convert import scheme_from_sig, scheme_from_value_type

    if "->" in text:
        return scheme_from_sig(parse_type_signature(text)).type
    texp, context = parse_value_type(text)
    return scheme_from_value_type(texp, context).type


def as_type(ty: Any) -> Type:
    """``ty`` itself, or parsed when given as text (convenient in tests and at the REPL)."""
    return parse_type(ty) if isinstance(ty, str) else ty


def conforms(value: Any, ty: Type, datatypes: Datatypes | None = None) -> bool:
    """Does ``value`` have the (ground) type ``ty`` in the interpreter's representation?
    (A checker for tests and assertions: bools are not ints, chars are 1-char strings.)"""
    from .values import DataVal, SegDes, Seq

    if isinstance(ty, TBase):
        return {
            "int": lambda v: type(v) is int,
            "float": lambda v: type(v) is float,
            "bool": lambda v: type(v) is bool,
            "char": lambda v: type(v) is str and len(v) == 1,
            "segdes": lambda v: isinstance(v, SegDes),
        }[ty.name](value)
    if isinstance(ty, TSeq):
        return isinstance(value, Seq) and all(conforms(x, ty.elem, datatypes) for x in value)
    if isinstance(ty, TPair):
        return (isinstance(value, tuple) and len(value) == 2
                and conforms(value[0], ty.fst, datatypes) and conforms(value[1], ty.snd, datatypes))
    if isinstance(ty, TData):
        if not isinstance(value, DataVal) or value.name != ty.name or datatypes is None:
            return False
        fields = datatypes.fields(ty)
        return len(fields) == len(value.fields) and all(
            conforms(v, t, datatypes) for v, t in zip(value.fields, fields))
    return False
