"""Barrier elimination (Lift paper §5.4).

Safety first: every ``mapLcl`` is followed by a barrier unless the context shows that it
is not needed:

* its result is consumed by a ``mapLcl`` of the same dimension with no data-sharing
  pattern in between (split, join, gather, scatter, slide, pad, transpose, slice,
  asVector, asScalar, gatherIdx, splitOffsets, partition): every work-item then reads
  only what it wrote itself (zip and get do not share);
* it writes private memory (nothing is shared);
* it is the last step of a ``mapWrg`` iteration and the ``mapWrg`` runs at most once per
  work-group (no later iteration can overwrite local memory still being read), or no
  local memory is used at all; otherwise its barrier guards the local memory the next
  iteration reuses, so its fence is ``CLK_LOCAL_MEM_FENCE`` whatever the map writes (the
  data leaving the group is not read by it);
* of several ``mapLcl`` in the arguments of one ``zip`` only the last one keeps its barrier
  (the arguments are independent of each other);
* it produces the result of an enclosing ``mapLcl`` that is itself followed by a barrier.
"""
from __future__ import annotations

from types import MappingProxyType
from typing import Dict, Mapping, Optional

from ..ir import patterns as P
from ..ir.expr import Expr, FunCall, FunDecl, Lambda, Literal, Param, UserFun
from ..memory.address_space import LOCAL, PRIVATE, AddressSpace
from ..types.infer import TypedProgram

SHARING = (P.Split, P.Join, P.Gather, P.Scatter, P.Slide, P.Pad, P.Transpose, P.Slice, P.AsVector,
           P.AsScalar, P.GatherIdx, P.SplitOffsets, P.Partition)
PASS_THROUGH = (P.Zip, P.Get)
SHARE = "share"

LOCAL_FENCE = "CLK_LOCAL_MEM_FENCE"
GLOBAL_FENCE = "CLK_GLOBAL_MEM_FENCE"


def _unwrap(f: FunDecl) -> FunDecl:
    while isinstance(f, (P.ToGlobal, P.ToLocal, P.ToPrivate)):
        f = f.f
    return f


def first_consumer(f: FunDecl, memo: Optional[dict] = None):
    """How ``f`` reads its argument: ``('lcl', d)`` if a mapLcl(d) reads it element-wise.
    ``memo`` (by identity of the lambdas, for one pass) keeps nested lambdas linear."""
    f = _unwrap(f)
    if isinstance(f, P.Map) and f.kind == "mapLcl":
        return ("lcl", f.dim)
    if isinstance(f, Lambda) and len(f.params) == 1:
        if memo is not None and id(f) in memo:
            return memo[id(f)]
        from ..syntax.printer import composition_chain
        out = SHARE
        chain = composition_chain(f)
        if chain:
            for g in reversed(chain):
                g = _unwrap(g)
                if isinstance(g, P.Get):
                    continue
                out = first_consumer(g, memo)
                break
        if memo is not None:
            memo[id(f)] = out
        return out
    return SHARE


class _Barriers:
    def __init__(self, typed: TypedProgram, spaces, shapes, uses_local: bool):
        self.typed = typed
        self.spaces = spaces
        self.shapes = shapes
        self.uses_local = uses_local
        self.out: Dict[int, Optional[str]] = {}
        self.consumers: Dict[int, object] = {}   # first_consumer's memo (nodes live in typed)

    def visit(self, e: Expr, consumer):
        if not isinstance(e, FunCall):
            return
        f = e.f
        if isinstance(f, P.LayoutPattern):
            # data leaving the work-group (end of a mapWrg iteration or of the kernel) is not
            # read by this group any more: reshaping it on the way out shares nothing
            leaving = isinstance(consumer, tuple) and consumer[0] in ("wrg_end", "kernel_end")
            sub = consumer if (leaving or isinstance(f, PASS_THROUGH)) else SHARE
            for a in e.args:
                self.visit(a, sub)
            if isinstance(f, P.Zip):
                self.zip_rule(e)
            return
        argc = first_consumer(f, self.consumers)
        for a in e.args:
            self.visit(a, argc)
        self.visit_fun(f, e, consumer)

    def visit_fun(self, f: FunDecl, c: FunCall, consumer):
        if isinstance(f, Lambda):
            self.visit(f.body, consumer)
        elif isinstance(f, (P.ToGlobal, P.ToLocal, P.ToPrivate)):
            self.visit_fun(f.f, c, consumer)
        elif isinstance(f, P.Map):
            if f.kind == "mapLcl":
                decision = self.decide(f, c, consumer)
                self.out[id(f)] = decision
                # the body's result is this map's result: the barrier after this map (if
                # any) covers it; without one, data leaving the group needs none either
                if decision is not None:
                    inner = ("covered",)
                elif isinstance(consumer, tuple) and consumer[0] in ("wrg_end", "kernel_end"):
                    inner = consumer
                else:
                    inner = SHARE
                self.visit_fun(f.f, c, inner)
            elif f.kind == "mapWrg":
                self.visit_fun(f.f, c, ("wrg_end", id(f)))
            else:
                self.visit_fun(f.f, c, SHARE)
        elif isinstance(f, P.Reduce):
            self.visit(f.init, SHARE)
            self.visit_fun(f.f, c, SHARE)
        elif isinstance(f, P.Iterate):
            self.visit_fun(f.f, c, SHARE)
        elif isinstance(f, P.FilterSeq):
            self.visit_fun(f.f, c, SHARE)
            self.visit_fun(f.value, c, SHARE)
        elif isinstance(f, P.RadixSeq):
            self.visit_fun(f.f, c, SHARE)

    def decide(self, f: P.Map, c: FunCall, consumer) -> Optional[str]:
        space: AddressSpace = self.spaces.get(id(c))
        if space == PRIVATE:
            return None
        fence = LOCAL_FENCE if space == LOCAL else GLOBAL_FENCE
        if consumer == ("lcl", f.dim):
            return None
        if consumer in (("kernel_end",), ("covered",)):
            return None
        if isinstance(consumer, tuple) and consumer[0] == "wrg_end":
            if self.shapes.get(consumer[1]) in ("once", "if", "none") or not self.uses_local:
                return None
            # this barrier guards the reuse of the group's local memory by the next iteration
            # (the data leaving the group is not read by it): a local-memory fence
            return LOCAL_FENCE
        return fence

    def zip_rule(self, z: FunCall):
        with_barrier = []
        for a in z.args:
            m = self.top_mapLcl(a)
            if m is not None and self.out.get(id(m)):
                with_barrier.append(m)
        for m in with_barrier[:-1]:
            self.out[id(m)] = None

    def top_mapLcl(self, e: Expr):
        while isinstance(e, FunCall):
            f = _unwrap(e.f)
            if isinstance(f, P.Map) and f.kind == "mapLcl":
                return f
            if isinstance(f, P.Get):
                e = e.args[0]
                continue
            return None
        return None


def eliminate_barriers(typed: TypedProgram, spaces, shapes, uses_local: bool) -> Mapping[int, Optional[str]]:
    """For each mapLcl (keyed by pattern identity): the fence of the barrier emitted after
    it, or ``None`` when the barrier is not needed."""
    b = _Barriers(typed, spaces, shapes, uses_local)
    b.visit(typed.program.body, ("kernel_end",))
    return MappingProxyType(b.out)
