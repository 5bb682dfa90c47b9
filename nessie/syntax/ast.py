"""The untyped NESL abstract syntax tree produced by :mod:`nessie.syntax.parser`.

Every node is an immutable (frozen) dataclass whose last field is ``span`` (a
:class:`nessie.diagnostics.Span`).  Spans are excluded from equality and hashing, so two trees
parsed from differently formatted text compare equal when they have the same structure -- the
printer round-trip test relies on that.

The tree is close to the concrete syntax: binary operators stay :class:`BinOp`, the filter form
``{x in xs | p}`` is an :class:`ApplyToEach` with ``body=None``, a generator written ``x`` alone
has ``source=None``.  Desugaring happens in the typed AST (:mod:`nessie.types.typed_ast`).

Tuples are binary: ``(a, b, c)`` is ``Pair(a, Pair(b, c))``.  Calls take one argument, which is
a ``Pair`` for ``f(a, b)``.  Type expressions (in signatures, datatypes and ``[] T``) are kept
syntactic (:class:`TName`, :class:`TSeqE`, :class:`TPairE`); the type checker resolves names.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional, Union

from nessie.diagnostics import Span


def _span():
    return field(default=None, compare=False, repr=False)


# --------------------------------------------------------------------------- type expressions
@dataclass(frozen=True)
class TName:
    """``int``, ``a``, ``complex``, or a datatype applied to arguments ``pair(int, a)``."""
    name: str
    args: tuple = ()
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class TSeqE:
    elem: "TypeExpr"
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class TPairE:
    fst: "TypeExpr"
    snd: "TypeExpr"
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class TFunE:
    """``a -> b`` inside parentheses: the type of a function parameter, as in
    ``function twice(func, x) : (b -> b, b) -> b``."""
    arg: "TypeExpr"
    result: "TypeExpr"
    span: Optional[Span] = _span()


TypeExpr = Union[TName, TSeqE, TPairE, TFunE]


@dataclass(frozen=True)
class FunSig:
    """``ARG -> RES :: (a in number; b in any)``; ``context`` is a tuple of (var, class)."""
    arg: TypeExpr
    result: TypeExpr
    context: tuple = ()
    span: Optional[Span] = _span()


# --------------------------------------------------------------------------- patterns
@dataclass(frozen=True)
class PVar:
    """A variable pattern; the name ``_`` is the wildcard."""
    name: str
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class PPair:
    fst: "Pattern"
    snd: "Pattern"
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class PCon:
    """Constructor pattern ``complex(re, im)``."""
    name: str
    arg: "Pattern"
    span: Optional[Span] = _span()


Pattern = Union[PVar, PPair, PCon]


# --------------------------------------------------------------------------- expressions
@dataclass(frozen=True)
class IntLit:
    value: int
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class FloatLit:
    value: float
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class BoolLit:
    value: bool
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class CharLit:
    value: str
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class StringLit:
    value: str
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class Var:
    name: str
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class Pair:
    fst: "Exp"
    snd: "Exp"
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class BinOp:
    """``op`` is the operator as written (lower case): ``+ - * / ^ ++ || <- -> == /= < > <= >=
    and or nor xor nand``."""
    op: str
    left: "Exp"
    right: "Exp"
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class UnOp:
    """Prefix ``#``, ``@`` or ``-``."""
    op: str
    arg: "Exp"
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class Call:
    """``f(arg)`` or ```op`(arg)``; ``name`` is the function/operator name."""
    name: str
    arg: "Exp"
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class Subscript:
    seq: "Exp"
    index: "Exp"
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class If:
    cond: "Exp"
    then: "Exp"
    else_: "Exp"
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class Binding:
    pattern: Pattern
    exp: "Exp"
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class Let:
    bindings: tuple  # of Binding, at least one
    body: "Exp"
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class Generator:
    """``pattern in source``; ``source is None`` for the short form ``x`` (= ``x in x``)."""
    pattern: Pattern
    source: Optional["Exp"]
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class ApplyToEach:
    """``{body : gens | filter}``; ``body is None`` for the filter form ``{p in e; ... | f}``."""
    body: Optional["Exp"]
    generators: tuple  # of Generator, at least one
    filter: Optional["Exp"]
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class SeqLit:
    elems: tuple  # of Exp, at least one
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class EmptySeq:
    """``[] T``; ``elem_type`` is None for a bare ``[]``."""
    elem_type: Optional[TypeExpr]
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class Range:
    """``[start:end]`` or ``[start:end:stride]``."""
    start: "Exp"
    end: "Exp"
    stride: Optional["Exp"]
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class Time:
    exp: "Exp"
    span: Optional[Span] = _span()


Exp = Union[IntLit, FloatLit, BoolLit, CharLit, StringLit, Var, Pair, BinOp, UnOp, Call,
            Subscript, If, Let, ApplyToEach, SeqLit, EmptySeq, Range, Time]


# --------------------------------------------------------------------------- top level
@dataclass(frozen=True)
class FunDef:
    name: str
    param: Pattern
    sig: Optional[FunSig]
    doc: Optional[str]
    body: Exp
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class DataDef:
    """``datatype name(T1, T2, ...) :: (a in any)``."""
    name: str
    fields: tuple  # of TypeExpr
    context: tuple = ()
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class TopBind:
    pattern: Pattern
    exp: Exp
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class TopExp:
    exp: Exp
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class Load:
    """``load "path";``.  ``items`` holds the parsed items of the loaded file (None when loads
    were not expanded, e.g. the file was missing); ``resolved`` is the path actually read."""
    path: str
    items: Optional[tuple] = None
    resolved: Optional[str] = field(default=None, compare=False)
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class SetOption:
    """``set print_length 200;`` -> ``SetOption("print_length", ("200",))``."""
    name: str
    args: tuple
    span: Optional[Span] = _span()


TopItem = Union[FunDef, DataDef, TopBind, TopExp, Load, SetOption]


@dataclass(frozen=True)
class Program:
    items: tuple
    file: str = field(default="<input>", compare=False)
    span: Optional[Span] = _span()
    #: file name -> text of the file and of every file it loads (for messages)
    sources: dict = field(default_factory=dict, compare=False, repr=False)


def iter_items(program_or_items):
    """Yield top-level items with loaded files' items spliced in place of their ``Load``."""
    items = program_or_items.items if isinstance(program_or_items, Program) else program_or_items
    for it in items:
        if isinstance(it, Load):
            if it.items is not None:
                yield from iter_items(it.items)
        else:
            yield it
