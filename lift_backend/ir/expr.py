"""Lift expressions: ``Expr = Literal | Param | FunCall`` and ``FunDecl = Lambda | Pattern | UserFun``.

All nodes are frozen dataclasses (immutable values).  Source spans are carried for error
messages but do not take part in equality.
"""
from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from typing import Optional, Tuple

from ..errors import Span
from ..types import Type


class Expr:
    """A Lift expression (a value)."""

    def __call__(self, *args):  # pragma: no cover - guard against confusion
        raise TypeError("a Lift expression is not a function; use a FunDecl")


class FunDecl:
    """A Lift function: lambda, pattern or user function.  Calling it builds a FunCall."""

    arity = 1

    def __call__(self, *args) -> "FunCall":
        return FunCall(self, tuple(args))

    def o(self, other: "FunDecl") -> "Lambda":
        """Composition ``self o other``."""
        return compose(self, other)


@dataclass(frozen=True)
class Literal(Expr):
    """A compile-time constant in OpenCL C syntax (``0.0f``, ``(float4)(0.0f)``)."""
    value: str
    type: Type
    span: Optional[Span] = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class Param(Expr):
    """A function parameter; program parameters carry their declared type."""
    name: str
    type: Optional[Type] = None


@dataclass(frozen=True)
class FunCall(Expr):
    f: FunDecl
    args: Tuple[Expr, ...]
    span: Optional[Span] = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class Lambda(FunDecl):
    params: Tuple[Param, ...]
    body: Expr

    @property
    def arity(self) -> int:  # type: ignore[override]
        return len(self.params)


@dataclass(frozen=True)
class UserFun(FunDecl):
    """A C function over scalars, vectors and tuples.  Tuple parameters are accessed in the
    body as ``p._0``; the body is the text between the braces of the C function."""
    name: str
    param_names: Tuple[str, ...]
    param_types: Tuple[Type, ...]
    ret_type: Type
    body: str
    span: Optional[Span] = field(default=None, compare=False, repr=False)
    #: the user functions (defined before it) its C body calls: built before it, printed before
    #: it; not IR children (``ir_children`` skips them)
    calls: Tuple["UserFun", ...] = field(default=(), repr=False)

    @property
    def arity(self) -> int:  # type: ignore[override]
        return len(self.param_names)


@dataclass(frozen=True)
class Program:
    """A named kernel: typed parameters and a body expression."""
    name: str
    params: Tuple[Param, ...]
    body: Expr
    span: Optional[Span] = field(default=None, compare=False, repr=False)

    @property
    def as_lambda(self) -> Lambda:
        return Lambda(self.params, self.body)


class Scope:
    """An environment of names for the passes that descend into lambdas: extending it is
    O(1) and shares its parent (nested lambdas keep memory linear in their depth, where
    copying a dict per lambda took quadratic memory)."""

    __slots__ = ("_vars", "_parent")

    def __init__(self, bindings=None, parent: "Optional[Scope]" = None):
        self._vars = dict(bindings or {})
        self._parent = parent

    def get(self, name, default=None):
        s = self
        while s is not None:
            if name in s._vars:
                return s._vars[name]
            s = s._parent
        return default

    def __getitem__(self, name):
        s = self
        while s is not None:
            if name in s._vars:
                return s._vars[name]
            s = s._parent
        raise KeyError(name)

    def __contains__(self, name) -> bool:
        s = self
        while s is not None:
            if name in s._vars:
                return True
            s = s._parent
        return False

    def __setitem__(self, name, value) -> None:
        self._vars[name] = value


def extend(env, bindings) -> Scope:
    """``env`` (a dict or a :class:`Scope`) with ``bindings`` added, without copying it."""
    return Scope(bindings, env if isinstance(env, Scope) else Scope(env))


def unused_number(prefix: str, *nodes) -> int:
    """The least number above those of the parameters named ``prefix<number>`` in ``nodes``
    (0 when there are none): the builders name the parameters they make from what they
    enclose, not from a process-wide counter, so building a program twice gives the same
    names (issue 13)."""
    pat = re.compile(re.escape(prefix) + r"(\d+)$")
    top = -1
    for node in nodes:
        for n in walk(node):
            if isinstance(n, Param):
                m = pat.match(n.name)
                if m:
                    top = max(top, int(m.group(1)))
    return top + 1


def compose(*fs: FunDecl) -> Lambda:
    """``compose(f, g, h) == f o g o h`` as ``\\p -> f(g(h(p)))``.  ``p`` occurs only as the
    argument of ``h`` (under none of the binders of ``fs``), so a name unlike all the
    parameters of ``fs`` is fresh: ``_c<n>``, ``n`` above the numbers of the ``_c`` names in
    ``fs`` (a composition made later around this one picks a higher number)."""
    p = Param(f"_c{unused_number('_c', *fs)}")
    body: Expr = p
    for f in reversed(fs):
        body = FunCall(f, (body,))
    return Lambda((p,), body)


_FIELD_NAMES: dict = {}


def field_names(node) -> tuple:
    """The dataclass field names of ``node``'s class (``dataclasses.fields`` builds its tuple on
    every call: a third of the lowering's tree walks went there)."""
    cls = type(node)
    names = _FIELD_NAMES.get(cls)
    if names is None:
        names = _FIELD_NAMES[cls] = tuple(f.name for f in dataclasses.fields(node))
    return names


_IR = (Expr, FunDecl)

#: class -> the fields ``ir_children`` looks at (a ``UserFun``'s ``calls`` left out)
_CHILD_FIELDS: dict = {}


def _child_fields(cls, node) -> tuple:
    names = _CHILD_FIELDS.get(cls)
    if names is None:
        names = field_names(node)
        if issubclass(cls, UserFun):
            names = tuple(n for n in names if n != "calls")
        _CHILD_FIELDS[cls] = names
    return names


def ir_children(node):
    """Direct IR children (Expr / FunDecl) of a node, in field order."""
    cls = type(node)
    if cls is FunCall:
        # the commonest node: its fields are f, args and span (never IR)
        f = node.f
        out = [f] if isinstance(f, _IR) else []
        args = node.args
        if isinstance(args, _IR):
            out.append(args)
        elif isinstance(args, tuple):
            out.extend([x for x in args if isinstance(x, _IR)])
        span = node.span
        if isinstance(span, _IR):
            out.append(span)
        elif isinstance(span, tuple):
            out.extend([x for x in span if isinstance(x, _IR)])
        return out
    out = []
    for name in _child_fields(cls, node):
        v = getattr(node, name)
        if isinstance(v, _IR):
            out.append(v)
        elif isinstance(v, tuple):
            out.extend([x for x in v if isinstance(x, _IR)])
    return out


def freshen(node):
    """A copy of an IR tree in which every node is a distinct object (passes annotate
    nodes by identity, so shared sub-trees must be unshared first).  User functions and
    types are kept: they carry no per-use annotation."""
    if isinstance(node, UserFun) or not dataclasses.is_dataclass(node) or isinstance(node, type):
        return node
    if not isinstance(node, (Expr, FunDecl, Program)):
        return node
    changes = {}
    for fname in field_names(node):
        v = getattr(node, fname)
        if isinstance(v, (Expr, FunDecl)):
            changes[fname] = freshen(v)
        elif isinstance(v, tuple) and any(isinstance(x, (Expr, FunDecl)) for x in v):
            changes[fname] = tuple(freshen(x) for x in v)
    return dataclasses.replace(node, **changes)


def walk(node):
    """Pre-order traversal over Expr and FunDecl nodes (iterative: any depth, linear time)."""
    stack = [node]
    extend = stack.extend
    while stack:
        n = stack.pop()
        yield n
        children = ir_children(n)
        if children:
            children.reverse()
            extend(children)


def alpha_equal(a, b, env=None) -> bool:
    """Structural equality up to renaming of lambda parameters."""
    env = env or {}
    if isinstance(a, Param) and isinstance(b, Param):
        if a.name in env:
            return env[a.name] == b.name and a.type == b.type
        return a == b
    if isinstance(a, Lambda) and isinstance(b, Lambda):
        if len(a.params) != len(b.params):
            return False
        env2 = dict(env)
        for p, q in zip(a.params, b.params):
            env2[p.name] = q.name
        return alpha_equal(a.body, b.body, env2)
    if type(a) is not type(b):
        return False
    if dataclasses.is_dataclass(a) and isinstance(a, (Expr, FunDecl, Program)) and not isinstance(a, UserFun):
        if isinstance(a, Program):
            if a.name != b.name or a.params != b.params:
                return False
            return alpha_equal(a.body, b.body, env)
        for fld in dataclasses.fields(a):
            if not fld.compare:
                continue
            x, y = getattr(a, fld.name), getattr(b, fld.name)
            if isinstance(x, tuple) and isinstance(y, tuple):
                if len(x) != len(y) or not all(alpha_equal(p, q, env) for p, q in zip(x, y)):
                    return False
            elif isinstance(x, (Expr, FunDecl)):
                if not alpha_equal(x, y, env):
                    return False
            elif x != y:
                return False
        return True
    return a == b
