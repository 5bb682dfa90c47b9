"""The typed AST: the contract between the front end and later stages.

Produced by :func:`nessie.types.typecheck` (polymorphic: types may contain :class:`TVar`) and by
:func:`nessie.mono.monomorphise` (same classes, every type ground).  It is a separate immutable
tree -- the untyped AST is never mutated.  Every node is a frozen dataclass with a ``span``
(excluded from equality); every expression node has a ``type`` (a value of
:mod:`nessie.types.types`).

Expressions
-----------
``Lit(value, type)``
    Scalar literal: ``int`` (Python int), ``float`` (Python float), ``bool`` (Python bool) or
    ``char`` (a one-character Python str).
``StringLit(value, type)``
    A string literal, type ``[char]``.
``Var(name, type)``
    A local variable (function parameter, ``let``-bound or generator-bound).
``GlobalVar(name, type)``
    A top-level value binding (``z = 4;``, or ``it`` after a top-level expression).
``ConstRef(name, type)``
    A predefined constant: ``pi max_int min_int space newline tab``.
``Call(name, kind, arg, fun_type, type)``
    A first-order call.  ``kind`` is ``"builtin"`` (``name`` is a key of
    ``nessie.types.builtins.BUILTIN_TYPES``), ``"user"`` (a user function; after
    monomorphisation ``name`` is the mangled instance name, e.g. ``dotp<int>``, and
    ``orig_name`` the source name) or ``"constructor"`` (a datatype constructor; the result is a
    :class:`TData` value).  ``arg`` is one expression (a ``Pair`` for several arguments);
    ``fun_type`` is the instance type ``TFun(arg.type, type)`` at this call site.
    Desugared into calls: binary operators (``a + b`` -> ``Call("+", ...)``, also ``==``,
    ``->``, ``<-``, ``++``, ``||``, ``and``, ...), prefix ``#a`` -> ``"#"``, ``@a`` -> ``"@"``,
    ``-a`` -> ``"negate"``, subscripts ``a[i]`` -> ``Call("elt", Pair(a, i))``.
    ``kind`` ``"param"``: a call of a function parameter (``func(x)`` in ``function twice(func,
    x) = func(func(x))``; ``name`` is the parameter).  Monomorphisation specialises these away
    (one copy of ``twice`` per function passed); with ``keep_function_args`` they stay, for
    the reference interpreter, which calls the function value the parameter holds.
``FunRef(name, kind, type)``
    A function passed by name as an argument to a function parameter: ``inc`` in
    ``twice(inc, 3)``.  ``kind`` is ``"user"``, ``"builtin"``, ``"constructor"`` or
    ``"param"`` (a function parameter of the enclosing function, passed on); ``type`` is the
    ground-able instance type, a :class:`TFun`.  It only occurs as a component of a call's
    argument tuple, where the callee's parameter has a function type.
``Pair(fst, snd, type)``
    A 2-tuple (``(a, b, c)`` is ``Pair(a, Pair(b, c))``).
``If(cond, then, else_, type)``
``Let(pattern, bound, body, type)``
    One binding; ``let p1 = e1; p2 = e2 in b`` becomes nested ``Let``\\ s.  Local lets are
    monomorphic.
``ApplyToEach(body, gens, filter, type)``
    ``{body : p1 in s1; p2 in s2 | filter}`` with ``gens`` a tuple of :class:`Gen`
    ``(pattern, source)``; ``filter`` is None or a ``bool`` expression; the type is
    ``[body.type]``.  The sources are evaluated in the enclosing scope and must have equal
    lengths.  Desugared: ``x`` alone -> ``x in x``; the filter form ``{p in s | f}`` ->
    ``{p : p in s | f}`` (the body rebuilt from the first generator's pattern).
``SeqLit(elems, type)``
    Non-empty sequence literal.
``EmptySeq(type)``
    ``[] T``; ``type`` is ``[T]``.
``Range(start, end, stride, type)``
    ``[start:end:stride]`` (end exclusive) of type ``[int]``; ``stride`` is always present
    (a literal 1 when omitted in the source).
``Time(exp, type)``
    ``time(e)``: evaluates ``e``; type ``(e.type, float)`` (value, seconds).

Patterns
--------
``PVar(name, type)``, ``PWild(type)`` (``_``), ``PPair(fst, snd, type)``,
``PCon(name, arg, type)`` (constructor pattern; ``type`` is the datatype).

Top-level items (in file order, ``load``\\ ed files spliced in)
-----------------------------------------------------------------
``FunDef(name, param, body, fun_type, scheme, declared, doc, orig_name, type_args)``
    ``fun_type`` is ``TFun(param.type, body.type)``; ``scheme`` generalises it
    (:class:`~nessie.types.types.Scheme`); ``declared`` tells whether a signature was written.
    After monomorphisation ``name`` is the instance name, ``orig_name`` the source name and
    ``type_args`` the ground types substituted for the scheme's variables (in order).
``DataDef(name, params, arg_type, scheme)``
    ``datatype name(...)``: constructor ``name : arg_type -> name(params)``.
``ValBind(pattern, exp)``
    Top-level binding; defines global variables.
``ExpItem(exp)``
    Top-level expression; the REPL prints its value, and it binds the global ``it``.
``SetItem(name, args)``
    ``set name args;`` -- recorded for the driver (e.g. ``print_length``).

``TypedProgram(items, env)`` holds the items and the final type environment.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

from nessie.diagnostics import Span
from nessie.types.types import Scheme, TFun, Type


def _span():
    return field(default=None, compare=False, repr=False)


# --------------------------------------------------------------------------- expressions
@dataclass(frozen=True)
class Lit:
    value: Any
    type: Type
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class StringLit:
    value: str
    type: Type
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class Var:
    name: str
    type: Type
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class GlobalVar:
    name: str
    type: Type
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class ConstRef:
    name: str
    type: Type
    span: Optional[Span] = _span()


BUILTIN = "builtin"
USER = "user"
CONSTRUCTOR = "constructor"
PARAM = "param"     # a function parameter (called, or passed on by name)


@dataclass(frozen=True)
class Call:
    name: str
    kind: str
    arg: "Exp"
    fun_type: TFun
    type: Type
    span: Optional[Span] = _span()
    orig_name: Optional[str] = None


@dataclass(frozen=True)
class FunRef:
    name: str
    kind: str
    type: Type
    span: Optional[Span] = _span()
    orig_name: Optional[str] = None


@dataclass(frozen=True)
class Pair:
    fst: "Exp"
    snd: "Exp"
    type: Type
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class If:
    cond: "Exp"
    then: "Exp"
    else_: "Exp"
    type: Type
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class Let:
    pattern: "Pattern"
    bound: "Exp"
    body: "Exp"
    type: Type
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class Gen:
    pattern: "Pattern"
    source: "Exp"
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class ApplyToEach:
    body: "Exp"
    gens: tuple
    filter: Optional["Exp"]
    type: Type
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class SeqLit:
    elems: tuple
    type: Type
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class EmptySeq:
    type: Type
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class Range:
    start: "Exp"
    end: "Exp"
    stride: "Exp"
    type: Type
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class Time:
    exp: "Exp"
    type: Type
    span: Optional[Span] = _span()


Exp = Any  # union of the classes above

# --------------------------------------------------------------------------- patterns


@dataclass(frozen=True)
class PVar:
    name: str
    type: Type
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class PWild:
    type: Type
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class PPair:
    fst: "Pattern"
    snd: "Pattern"
    type: Type
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class PCon:
    name: str
    arg: "Pattern"
    type: Type
    span: Optional[Span] = _span()


Pattern = Any


def pattern_vars(p) -> list:
    """Names bound by a pattern, left to right."""
    if isinstance(p, PVar):
        return [p.name]
    if isinstance(p, PPair):
        return pattern_vars(p.fst) + pattern_vars(p.snd)
    if isinstance(p, PCon):
        return pattern_vars(p.arg)
    return []


def pattern_types(p) -> dict:
    """``{name: type}`` of the variables a typed pattern binds (a name bound twice: the last)."""
    if isinstance(p, PVar):
        return {p.name: p.type}
    if isinstance(p, PPair):
        return {**pattern_types(p.fst), **pattern_types(p.snd)}
    if isinstance(p, PCon):
        return pattern_types(p.arg)
    return {}


# --------------------------------------------------------------------------- top level
@dataclass(frozen=True)
class FunDef:
    name: str
    param: Pattern
    body: Exp
    fun_type: TFun
    scheme: Scheme
    declared: bool = False
    doc: Optional[str] = None
    span: Optional[Span] = _span()
    orig_name: Optional[str] = None
    type_args: tuple = ()


@dataclass(frozen=True)
class DataDef:
    name: str
    params: tuple
    arg_type: Type
    scheme: Scheme
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class ValBind:
    pattern: Pattern
    exp: Exp
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class ExpItem:
    exp: Exp
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class SetItem:
    name: str
    args: tuple
    span: Optional[Span] = _span()


@dataclass(frozen=True)
class TypedProgram:
    items: tuple
    env: Any = field(default=None, compare=False, repr=False)


# --------------------------------------------------------------------------- traversal
_NODE_TYPES = (Lit, StringLit, Var, GlobalVar, ConstRef, Call, FunRef, Pair, If, Let, Gen,
               ApplyToEach, SeqLit, EmptySeq, Range, Time, PVar, PWild, PPair, PCon, FunDef,
               DataDef, ValBind, ExpItem, SetItem)

_TYPE_FIELDS = {"type", "fun_type", "arg_type"}


def map_types(node, f: Callable[[Type], Type]):
    """A copy of ``node`` with ``f`` applied to every type it carries (schemes untouched)."""
    if isinstance(node, tuple):
        return tuple(map_types(n, f) for n in node)
    if not isinstance(node, _NODE_TYPES):
        return node
    changes = {}
    for fl in dataclasses.fields(node):
        v = getattr(node, fl.name)
        if fl.name in _TYPE_FIELDS:
            nv = f(v)
        elif fl.name in ("scheme", "span", "params", "type_args"):
            continue
        elif isinstance(v, (tuple,) + _NODE_TYPES):
            nv = map_types(v, f)
        else:
            continue
        if nv is not v:
            changes[fl.name] = nv
    return dataclasses.replace(node, **changes) if changes else node


def iter_nodes(node):
    """Pre-order iteration over all typed-AST nodes below (and including) ``node``.

    Iterative (an explicit stack): nested ``yield from`` cost O(depth) per node, O(n^2) on an
    expression nested n deep."""
    stack = [node]
    while stack:
        node = stack.pop()
        if isinstance(node, tuple):
            stack.extend(reversed(node))
            continue
        if not isinstance(node, _NODE_TYPES):
            continue
        yield node
        children = []
        for fl in dataclasses.fields(node):
            if fl.name in _TYPE_FIELDS or fl.name in ("scheme", "span"):
                continue
            v = getattr(node, fl.name)
            if isinstance(v, (tuple,) + _NODE_TYPES):
                children.append(v)
        stack.extend(reversed(children))


def map_nodes(node, f: Callable):
    """Bottom-up rebuild: children are transformed first, then ``f(node)`` replaces the node.

    Types, schemes and spans are carried over unchanged."""
    if isinstance(node, tuple):
        return tuple(map_nodes(n, f) for n in node)
    if not isinstance(node, _NODE_TYPES):
        return node
    changes = {}
    for fl in dataclasses.fields(node):
        if fl.name in _TYPE_FIELDS or fl.name in ("scheme", "span", "params", "type_args"):
            continue
        v = getattr(node, fl.name)
        if isinstance(v, (tuple,) + _NODE_TYPES):
            nv = map_nodes(v, f)
            if nv is not v:
                changes[fl.name] = nv
    if changes:
        node = dataclasses.replace(node, **changes)
    return f(node)
