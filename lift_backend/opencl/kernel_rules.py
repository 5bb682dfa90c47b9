"""Rules of one OpenCL kernel that the type system does not express (checked before the
code generation, each refusal located at the offending call).

1. **Nesting of parallel maps.**  A parallel map distributes its iterations over one
   dimension of the NDRange: ``mapGlb(d)`` over the global ids, ``mapWrg(d)`` over the
   work-groups and ``mapLcl(d)`` over the work-items of a group.  The same dimension cannot
   be distributed twice by nested maps (``mapGlb(0)`` in ``mapGlb(0)``, ``mapLcl(0)`` in
   ``mapLcl(0)``, ``mapWrg(0)`` in ``mapWrg(0)``: the inner map would only see the ids
   of the outer one), ``mapGlb`` is not mixed with ``mapWrg``/``mapLcl`` (either nesting),
   ``mapWrg`` is not nested in ``mapLcl``, and a ``mapLcl`` is nested in a ``mapWrg`` (else
   every work-group would run the whole map).

2. **No synchronisation across work-groups** (Lift paper §5.4: a kernel ends after a
   ``mapGlb``/``mapWrg``, since OpenCL cannot synchronise across work-groups).  The result of
   a ``mapGlb``/``mapWrg`` may flow to the kernel's output through data-layout patterns; it
   may be consumed by another computation of the same kernel only by a ``mapGlb`` of the
   same dimension reading it element by element (directly, or through ``zip``/``get``,
   which keep the indices): then each work-item reads exactly the elements it wrote itself.
   Any other consumer (a ``gather``/``split``/... view in between, a sequential pattern,
   a user function, a ``mapWrg``, a read from inside a parallel map's body, the next
   iteration of an ``iterate`` through such a view) would read elements written by other
   work-groups: refused, split the program into several kernels.

3. **Private memory is per work-item.**  The result of a parallel map (``mapGlb``/``mapLcl``)
   stored in private memory (``toPrivate`` around the map or around its function) holds in
   each work-item only the elements it computed; it may be consumed only by a parallel map
   of the same kind and dimension reading it element by element (as in 2.); other
   consumers would read other work-items' private memory: refused (use ``toLocal``).
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Mapping, Optional, Tuple

from ..errors import LiftCompileError, Span
from ..ir import patterns as P
from ..ir.expr import Expr, FunCall, FunDecl, Lambda, Literal, Param
from ..memory.address_space import PRIVATE

PARALLEL = ("mapGlb", "mapWrg", "mapLcl")


@dataclass(frozen=True)
class Produced:
    """A value computed by a parallel map (``kind``/``dim``) that other work-items cannot
    read freely: ``exact`` while it is indexed as the map wrote it; ``elem`` describes the
    elements (set when the map's function is itself such a map); ``private`` when it lies
    in private memory."""
    kind: str
    dim: int
    span: Optional[Span]
    exact: bool
    private: bool
    elem: Optional["Produced"] = None
    call: Optional[FunCall] = None      # the producing call

    def viewed(self) -> "Produced":
        return Produced(self.kind, self.dim, self.span, False, self.private, None, self.call)

    def within(self, call: Optional[FunCall]) -> "Produced":
        """This element producer as part of the enclosing map's ``call``: the call the compiler
        can make a kernel of its own is the enclosing one, since the element's own call reads
        the enclosing map's element."""
        if call is None:
            return self
        return replace(self, call=call, elem=self.elem.within(call) if self.elem is not None else None)


class CrossGroupError(LiftCompileError):
    """A stage reads what other work-groups wrote in the same kernel; ``producer`` is the
    producing call (the compiler may make it a kernel of its own)."""

    def __init__(self, message, span, producer):
        super().__init__(message, span)
        self.producer = producer
        self.typed = None


def _unwrap(f: FunDecl) -> FunDecl:
    while isinstance(f, (P.ToGlobal, P.ToLocal, P.ToPrivate)):
        f = f.f
    return f


def _where(s: Optional[Span]) -> str:
    return f" at {s.line}:{s.col}" if s is not None else ""


class _Rules:
    def __init__(self, spaces: Mapping[int, object]):
        self.spaces = spaces

    # ------------------------------------------------------------------ expressions
    def expr(self, e: Expr, env, outer: Tuple[Tuple[str, int], ...], span) -> Optional[Produced]:
        if isinstance(e, Literal):
            return None
        if isinstance(e, Param):
            return env.get(e.name)
        if isinstance(e, FunCall):
            s = e.span or span
            args = [self.expr(a, env, outer, s) for a in e.args]
            return self.call(e.f, e, args, env, outer, s)
        return None  # pragma: no cover

    def refuse_consumer(self, what: str, p: Produced, span) -> LiftCompileError:
        if p.private:
            return LiftCompileError(
                f"{what} reads the result of {p.kind}({p.dim}){_where(p.span)}, which is in private memory: "
                f"private memory is per work-item and this read is not the element the same work-item "
                f"wrote (only a {p.kind}({p.dim}) reading it element by element may consume it); "
                f"store it in local or global memory (toLocal/toGlobal)", span)
        return CrossGroupError(
            f"{what} reads the result of {p.kind}({p.dim}){_where(p.span)} in the same kernel, as written "
            f"by other work-groups: OpenCL cannot synchronise work-groups, so a kernel ends after "
            f"mapGlb/mapWrg (Lift paper §5.4); only a mapGlb({p.dim}) reading it element by element may "
            f"consume it: compute it in a separate program (kernel)", span, p.call)

    def call(self, f: FunDecl, c: FunCall, args, env, outer, span) -> Optional[Produced]:
        g = _unwrap(f)
        if isinstance(g, P.LayoutPattern):
            flagged = [a for a in args if a is not None]
            if not flagged:
                return None
            if isinstance(g, (P.Zip, P.Get)) and all(a.exact for a in flagged):
                first = flagged[0]
                return Produced(first.kind, first.dim, first.span, True, any(a.private for a in flagged),
                                next((a.elem for a in flagged if a.elem is not None), None), first.call)
            # the component read through a view is the one other work-groups wrote (a zip of an
            # element-wise result and a reversed one: the reversed one's producer is the culprit,
            # and the one the compiler can make a kernel of its own)
            return next((a for a in flagged if not a.exact), flagged[0]).viewed()
        if isinstance(g, Lambda):
            body_env = _Env({p.name: a for p, a in zip(g.params, args)}, env)
            return self.expr(g.body, body_env, outer, span)
        if isinstance(g, P.Map):
            return self.map(g, c, args[0] if args else None, env, outer, span)
        name = getattr(g, "name", type(g).__name__)
        for a in args:
            if a is not None:
                raise self.refuse_consumer(name, a, span)
        if isinstance(g, P.Reduce):
            self.expr(g.init, env, outer, span)
            self.fun(g.f, [None, None], env, outer, span)
            return None
        if isinstance(g, P.Iterate):
            first = self.fun(g.f, [None], env, outer, span)
            if first is not None:
                # the next iteration reads what this one wrote
                self.fun(g.f, [first], env, outer, span)
            return None
        if isinstance(g, P.MapVec):
            return None
        return None

    def fun(self, f: FunDecl, args, env, outer, span) -> Optional[Produced]:
        """``f`` applied to values described by ``args``."""
        g = _unwrap(f)
        if isinstance(g, Lambda):
            body_env = _Env({p.name: a for p, a in zip(g.params, args)}, env)
            return self.expr(g.body, body_env, outer, span)
        return self.call(f, None, args, env, outer, span)

    def map(self, g: P.Map, c: Optional[FunCall], arg: Optional[Produced], env, outer, span):
        kind, dim = g.kind, g.dim
        if g.parallel:
            self.check_nesting(kind, dim, outer, span)
        elem_in = None
        if arg is not None:
            if g.parallel and arg.exact and arg.kind == kind and arg.dim == dim and \
                    (kind == "mapGlb" or arg.private and kind == "mapLcl"):
                elem_in = arg.elem
            else:
                raise self.refuse_consumer(f"{kind}" + (f"({dim})" if g.parallel else ""), arg, span)
        inner_outer = outer + ((kind, dim),) if g.parallel else outer
        # values of the enclosing scopes read inside a parallel map's body are read by all its
        # work-items: they cannot be results of other work-groups (or other work-items' private)
        body_env = env
        if g.parallel:
            body_env = _Captured(env, kind, dim, self, span)
        res = self.fun(g.f, [elem_in], body_env, inner_outer, span)
        if not g.parallel:
            return None if res is None else res.viewed()
        private = c is not None and self.spaces.get(id(c)) == PRIVATE
        if kind in ("mapGlb", "mapWrg") or private:
            return Produced(kind, dim, span, True, private, res.within(c) if res is not None else None, c)
        return None

    def check_nesting(self, kind: str, dim: int, outer, span) -> None:
        for ok, od in outer:
            bad = None
            if ok == kind and od == dim:
                bad = f"{kind}({dim}) cannot be nested in {ok}({od}): both distribute dimension {dim}"
            elif kind == "mapLcl" and ok == "mapGlb":
                bad = "mapLcl cannot be nested in mapGlb (use mapWrg)"
            elif kind == "mapWrg" and ok == "mapGlb":
                bad = "mapWrg cannot be nested in mapGlb (put the mapWrg outside, with mapLcl inside)"
            elif kind == "mapGlb" and ok in ("mapWrg", "mapLcl"):
                bad = f"mapGlb cannot be nested in {ok} (use mapLcl inside mapWrg)"
            elif kind == "mapWrg" and ok == "mapLcl":
                bad = "mapWrg cannot be nested in mapLcl (mapWrg must enclose mapLcl)"
            if bad:
                raise LiftCompileError(bad, span)
        if kind == "mapLcl" and not any(ok == "mapWrg" for ok, _ in outer):
            # every work-group would run the whole map, each over the same data (and through
            # the same global temporaries: a race between groups)
            raise LiftCompileError("mapLcl must be nested in a mapWrg: it distributes the work-items "
                                   "of one work-group, and without a mapWrg around it every "
                                   "work-group would compute the whole map", span)


class _Env:
    def __init__(self, bindings, parent=None):
        self.bindings, self.parent = bindings, parent

    def get(self, name, default=None):
        if name in self.bindings:
            return self.bindings[name]
        return self.parent.get(name, default) if self.parent is not None else default


class _Captured:
    """The environment seen inside a parallel map's body: reading a produced value of an
    enclosing scope is a read of every element by every work-item."""

    def __init__(self, env, kind, dim, rules, span):
        self.env, self.kind, self.dim, self.rules, self.span = env, kind, dim, rules, span

    def get(self, name, default=None):
        v = self.env.get(name, default)
        if isinstance(v, Produced):
            raise self.rules.refuse_consumer(f"the function of {self.kind}({self.dim})", v, self.span)
        return v


def check_kernel_rules(typed, spaces) -> None:
    """Raise a located :class:`LiftCompileError` when the program breaks one of the rules of
    the module documentation."""
    prog = typed.program
    env = _Env({p.name: None for p in prog.params})
    try:
        _Rules(spaces).expr(prog.body, env, (), prog.span)
    except CrossGroupError as e:
        e.typed = typed      # the producer is a node of this typed program
        raise
