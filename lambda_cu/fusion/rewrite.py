"""SOAC fusion inside one kernel: the rewrite rules of the λcu paper's Fig. 5, applied until
none applies (:func:`fuse_kernel`).

Vertical rules (producer A, consumer B; B reads A's results only as ``A[i]`` in its index
thunks, the iteration sizes agree):
  MAP-X            (X = MAP, PERMUTE, SCATTER, REDUCE, SCAN, FILTER, PARTITION, RANK and the
                   segmented SOACs: MAP-SEG_REDUCE, MAP-SEG_SCAN, ...)
                   B = X { i => let a = e1 in [a/A[i]] e2 using xs ∪ (ys \\ A) } ...
  PERMUTE-PERMUTE  the index maps compose: Y[g2(g1(j))] = f1(j)
  FILTER-REDUCE    b = REDUCE { i => let a = e1 in if p(a) then [a/A[i]]e2 else id } id op n
  FILTER-FILTER    the consumer runs over the producer's index space; its pull thunk also
                   yields the producer's predicate (a dead, never-returned flag vector) that its
                   predicate conjoins (the IR's predicates see values, not indices)
  SEG_FILTER-SEG_REDUCE   FILTER-REDUCE within each segment, over the producer's descriptor
Horizontal rules (no dependence path between the two, same iteration size / descriptor):
  MAP+MAP, REDUCE+REDUCE, SCAN+SCAN, SEG_REDUCE+SEG_REDUCE, SEG_SCAN+SEG_SCAN
                   one SOAC producing the tuple of both results.
Equal iteration sizes are equal shapes of the one shape analysis (``shapes.KernelShapes``).
Between rules, ``#v`` sizes of size-preserving results are replaced by the producer's size,
dead bindings are removed, and every thunk's ``using`` list is recomputed to be exactly its free
kernel variables.  The kernel's parameters and returns are unchanged.
"""
from __future__ import annotations

import dataclasses
from typing import Callable, Mapping

from .. import ir
from ..check import check_kernel
from ..types import BOOL, INT, TupleT, VecT, flat_components
from .exprs import (NameSupply, bound_names, exp_size, freshen, identity_only,
                    index_dependent_reads, rewrite, simplify, soac_can_fail, subst, zero_of)
from .shapes import KernelShapes, Shape

INLINE_LIMIT = 40   # a MAP still needed elsewhere is inlined only when its body is this small


# --------------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------------

def exact_using(t: ir.Thunk) -> ir.Thunk:
    """The thunk with ``using`` = exactly its free variables (in the old order, then sorted)."""
    fv = ir.thunk_free_vars(t)
    old = [u.name for u in t.using if u.name in fv]
    rest = sorted(fv - set(old))
    return ir.Thunk(t.params, t.body, tuple(ir.Var(n) for n in dict.fromkeys(old + rest)))


def _map_thunks(s: ir.Soac, f) -> ir.Soac:
    return dataclasses.replace(s, **{name: f(getattr(s, name)) for name in s.THUNK_FIELDS})


def _reads(b: ir.KBind) -> frozenset:
    return ir.soac_reads(b.soac)


def _replace_index(body: ir.Exp, vecs: Mapping[str, ir.Exp], index: str) -> ir.Exp:
    """``[a/A[i]]``: replace ``A[index]`` by ``vecs[A]``."""
    def f(e):
        if isinstance(e, ir.Index) and isinstance(e.vec, ir.Var) and e.vec.name in vecs \
                and isinstance(e.idx, ir.Var) and e.idx.name == index:
            return vecs[e.vec.name]
        return None
    return rewrite(body, f)


def _tuple_or_single(es):
    es = tuple(es)
    return es[0] if len(es) == 1 else ir.Tuple(es)


def _bind_params(params, values):
    """``let (params) = values in ...`` as a Let header: (vars, rhs)."""
    vs = tuple(p.var for p in params)
    if len(vs) == 1:
        return vs, _tuple_or_single(values)
    if len(vs) == len(values):
        return vs, ir.Tuple(tuple(values))
    raise ValueError("parameter/value arity mismatch")


def _body_parts(e: ir.Exp) -> tuple:
    return e.elems if isinstance(e, ir.Tuple) else (e,)


class _Ctx:
    def __init__(self, kernel: ir.Kernel, supply: NameSupply, shapes_args):
        self.kernel = kernel
        self.supply = supply
        self.env = check_kernel(kernel)
        self.shapes = KernelShapes(kernel.binds, *shapes_args)
        self.returned = {r.name for r in kernel.returns}

    def uses_elsewhere(self, names, skip: set) -> bool:
        if set(names) & self.returned:
            return True
        for b in self.kernel.binds:
            if id(b) in skip:
                continue
            if set(names) & _reads(b):
                return True
        return False

    def elem_types(self, vars_) -> tuple:
        out = []
        for v in vars_:
            t = self.env[v.name]
            out.append(t.elem if isinstance(t, VecT) else t)
        return tuple(out)


def _pull_with(prod_f: ir.Thunk, avars: tuple, cons_body: ir.Exp, index: str, ctx: _Ctx,
               wrap: Callable[[tuple, ir.Exp], ir.Exp] | None = None) -> ir.Exp:
    """``let (a..) = e1[index] in [a/A[index]] cons_body`` (``wrap`` may guard the consumer)."""
    pf = freshen(prod_f, ctx.supply)
    e1 = subst(pf.body, {pf.params[0].name: ir.Var(index)})
    locals_ = tuple(ir.Var(ctx.supply.fresh("a")) for _ in avars)
    body = _replace_index(cons_body, {A.name: a for A, a in zip(avars, locals_)}, index)
    if wrap is not None:
        body = wrap(locals_, body)
    return ir.Let(locals_, e1, body)


# --------------------------------------------------------------------------------------------
# vertical rules
# --------------------------------------------------------------------------------------------

def _consumer_ok(a: ir.KBind, b: ir.KBind, fields=("f", "idx")) -> bool:
    """B reads A's results only as A[i] in the index thunks ``fields`` (and nowhere else)."""
    names = {v.name for v in a.vars}
    s = b.soac
    if not names & _reads(b):
        return False
    for fname in s.THUNK_FIELDS:
        t = getattr(s, fname)
        used = names & {u.name for u in t.using}
        if not used:
            continue
        if fname not in fields or len(t.params) != 1:
            return False
        if not all(identity_only(t.body, n, t.params[0].name, allow_length=False) for n in used):
            return False
    if s.shape is not None and names & ir.free_vars(s.shape):
        return False
    for e in s.init_exps:
        if names & ir.free_vars(e):
            return False
    if isinstance(s, ir.Scatter) and names & {v.name for v in s.dsts}:
        return False
    return True


def _rule_map_x(a: ir.KBind, b: ir.KBind, ctx: _Ctx):
    sa, sb = a.soac, b.soac
    if not isinstance(sa, ir.Map) or isinstance(sb, ir.Once):
        return None
    if not _consumer_ok(a, b):
        return None
    if ctx.shapes.iteration(sa) != ctx.shapes.iteration(sb):
        return None
    if ctx.uses_elsewhere([v.name for v in a.vars], {id(a), id(b)}) and exp_size(sa.f.body) > INLINE_LIMIT:
        return None
    names = {v.name for v in a.vars}

    def fix(t: ir.Thunk) -> ir.Thunk:
        if not names & {u.name for u in t.using}:
            return t
        t = freshen(t, ctx.supply)
        i = t.params[0].name
        body = _pull_with(sa.f, a.vars, t.body, i, ctx)
        return ir.Thunk(t.params, body, t.using + sa.f.using)
    return [ir.KBind(b.vars, _map_thunks(sb, fix))], f"MAP-{sb.NAME}"


def _filter_guarded_pull(sa, a_vals, tb: ir.Thunk, ctx: _Ctx, else_value):
    """Pull thunk over A's index space: ``let a = e1 in if p(a) then [a/A[i]]e2 else else_value``."""
    tb = freshen(tb, ctx.supply)
    i = tb.params[0].name
    pred = freshen(sa.pred, ctx.supply)

    def wrap(locals_, body):
        vs, rhs = _bind_params(pred.params, locals_)
        return ir.If(ir.Let(vs, rhs, pred.body), body, else_value)
    body = _pull_with(sa.f, a_vals, tb.body, i, ctx, wrap)
    return ir.Thunk(tb.params, body, tb.using + sa.f.using + pred.using)


def _filter_consumer_ok(a_vals, b, index_thunk: ir.Thunk) -> bool:
    names = {v.name for v in a_vals}
    s = b.soac
    for fname in s.THUNK_FIELDS:
        if fname != "f" and names & {u.name for u in getattr(s, fname).using}:
            return False
    for e in s.init_exps:
        if names & ir.free_vars(e):
            return False
    t = index_thunk
    i = t.params[0].name
    if not all(identity_only(t.body, n, i, allow_length=False) for n in names):
        return False
    # nothing else may be read at a position depending on the index (it lives in A's space)
    if index_dependent_reads(t.body, i) - names:
        return False
    if any(isinstance(x, ir.SegVec) for x in _subexps(t.body)):
        return False
    return True


def _subexps(e):
    out = []

    def go(x):
        out.append(x)
        return None
    rewrite(e, go)
    return out


def _rule_filter_reduce(a: ir.KBind, b: ir.KBind, ctx: _Ctx):
    sa, sb = a.soac, b.soac
    if not (isinstance(sa, ir.Filter) and isinstance(sb, ir.Reduce)):
        return None
    if not {v.name for v in a.vars} & set(u.name for u in sb.f.using):
        return None
    if ctx.shapes.iteration(sb) != ctx.shapes.filtered(a.vars[0]):
        return None
    if not _filter_consumer_ok(a.vars, b, sb.f):
        return None
    f2 = _filter_guarded_pull(sa, a.vars, sb.f, ctx, _tuple_or_single(sb.init))
    return [ir.KBind(b.vars, ir.Reduce(f2, sb.init, sb.op, sa.size))], "FILTER-REDUCE"


def _rule_filter_filter(a: ir.KBind, b: ir.KBind, ctx: _Ctx):
    sa, sb = a.soac, b.soac
    if not (isinstance(sa, ir.Filter) and isinstance(sb, ir.Filter)):
        return None
    if not {v.name for v in a.vars} & set(u.name for u in sb.f.using):
        return None
    if ctx.shapes.iteration(sb) != ctx.shapes.filtered(a.vars[0]):
        return None
    if not _filter_consumer_ok(a.vars, b, sb.f):
        return None
    btys = ctx.elem_types(b.vars)
    zeros = tuple(zero_of(t) for t in btys)
    tb = freshen(sb.f, ctx.supply)
    # pull: (e2 components..., true) when A keeps the element, (zeros..., false) otherwise
    tb2 = ir.Thunk(tb.params, ir.Tuple(_value_parts(tb.body, len(btys), ctx) + (ir.Const(True, BOOL),)),
                   tb.using)
    f2 = _filter_guarded_pull(sa, a.vars, tb2, ctx, ir.Tuple(zeros + (ir.Const(False, BOOL),)))
    pb = freshen(sb.pred, ctx.supply)
    ys = tuple(ir.Param(ir.Var(ctx.supply.fresh("y")), t) for t in btys)
    flag = ir.Param(ir.Var(ctx.supply.fresh("keep")), BOOL)
    vs, rhs = _bind_params(pb.params, tuple(p.var for p in ys))
    # the consumer's predicate sees only the elements A keeps (``&&`` would also evaluate it on
    # the placeholder zeros, where it may fail: ``10 / y``)
    pred2 = ir.Thunk(ys + (flag,), ir.If(flag.var, ir.Let(vs, rhs, pb.body), ir.Const(False, BOOL)),
                     pb.using)
    dead = ir.Var(ctx.supply.fresh(b.vars[0].name + "_kept"))
    return [ir.KBind(b.vars + (dead,), ir.Filter(f2, pred2, sa.size))], "FILTER-FILTER"


def _value_parts(body: ir.Exp, k: int, ctx: _Ctx) -> tuple:
    """The k components of a GPU value as expressions (destructuring with a let if needed)."""
    if k == 1:
        return (body,)
    if isinstance(body, ir.Tuple) and len(body.elems) == k:
        return body.elems
    return tuple(ir.Proj(body, j) for j in range(k))


def _rule_segfilter_segreduce(a: ir.KBind, b: ir.KBind, ctx: _Ctx):
    sa, sb = a.soac, b.soac
    if not (isinstance(sa, ir.SegFilter) and isinstance(sb, ir.SegReduce)):
        return None
    vals, sd_out = a.vars[:-1], a.vars[-1]
    if not (isinstance(sb.sd, ir.Var) and sb.sd.name == sd_out.name):
        return None
    if sd_out.name in {u.name for t in sb.thunks() for u in t.using}:
        return None
    if not _filter_consumer_ok(vals, b, sb.f):
        return None
    f2 = _filter_guarded_pull(sa, vals, sb.f, ctx, _tuple_or_single(sb.init))
    return [ir.KBind(b.vars, ir.SegReduce(f2, sb.init, sb.op, sa.sd))], "SEG_FILTER-SEG_REDUCE"


def _rule_permute_permute(a: ir.KBind, b: ir.KBind, ctx: _Ctx):
    sa, sb = a.soac, b.soac
    if not (isinstance(sa, ir.Permute) and isinstance(sb, ir.Permute)):
        return None
    if not _consumer_ok(a, b, fields=("f",)):
        return None
    if ctx.shapes.iteration(sa) != ctx.shapes.iteration(sb):
        return None
    if sa.loc != sb.loc:
        # one PERMUTE checks one permutation: A's failure would be reported at B's place
        return None
    fb, gb = freshen(sb.f, ctx.supply), freshen(sb.idx, ctx.supply)
    ga = freshen(sa.idx, ctx.supply)
    j = ir.Var(ctx.supply.fresh("j"))
    target = subst(ga.body, {ga.params[0].name: j})
    ity = fb.params[0].ty

    def in_range(x):
        return ir.PrimOp("and", (ir.PrimOp("le", (ir.Const(0, ity), x)),
                                 ir.PrimOp("lt", (x, _as_ty(sa.size, ity)))))
    # f: i = gA(j); A[i] = fA(j).  B's thunks are evaluated only where gA(j) is in range, and
    # the composed target is -1 elsewhere, so that the fused permutation check fails exactly
    # when one of the two would have (gA out of range or not injective, or gB not a permutation)
    fa = freshen(sa.f, ctx.supply)
    e1 = subst(fa.body, {fa.params[0].name: j})
    locals_ = tuple(ir.Var(ctx.supply.fresh("a")) for _ in a.vars)
    i = fb.params[0].name
    zeros = _tuple_or_single(zero_of(t) for t in ctx.elem_types(b.vars))
    body_f = ir.Let(locals_, e1, ir.Let((ir.Var(i),), target, ir.If(in_range(ir.Var(i)), _replace_index(
        fb.body, {A.name: x for A, x in zip(a.vars, locals_)}, i), zeros)))
    ig = gb.params[0].name
    ga2 = freshen(sa.idx, ctx.supply)
    body_g = ir.Let((ir.Var(ig),), subst(ga2.body, {ga2.params[0].name: j}),
                    ir.If(in_range(ir.Var(ig)), gb.body, ir.Const(-1, ity)))
    jp = ir.Param(j, fb.params[0].ty)
    f2 = ir.Thunk((jp,), body_f, fb.using + fa.using + ga.using)
    g2 = ir.Thunk((jp,), body_g, gb.using + ga2.using)
    return [ir.KBind(b.vars, dataclasses.replace(sb, f=f2, idx=g2, size=sa.size))], "PERMUTE-PERMUTE"


def _as_ty(e: ir.Exp, ity) -> ir.Exp:
    """An int size expression at int type ``ity``."""
    if isinstance(e, ir.Length):
        return dataclasses.replace(e, ity=ity)
    if isinstance(e, ir.Const):
        return ir.Const(e.value, ity)
    return e if ity == INT else ir.PrimOp("to_int", (e,), ity)


VERTICAL = (_rule_filter_reduce, _rule_filter_filter, _rule_segfilter_segreduce,
            _rule_permute_permute, _rule_map_x)


# --------------------------------------------------------------------------------------------
# horizontal rules
# --------------------------------------------------------------------------------------------

def _merge_pulls(fa: ir.Thunk, fb: ir.Thunk, ctx: _Ctx) -> ir.Thunk:
    fa, fb = freshen(fa, ctx.supply), freshen(fb, ctx.supply)
    i = fa.params[0]
    bb = subst(fb.body, {fb.params[0].name: i.var})
    return ir.Thunk((i,), ir.Tuple(_body_parts(fa.body) + _body_parts(bb)), fa.using + fb.using)


def _merge_ops(opa: ir.Thunk, opb: ir.Thunk, ta: tuple, tb: tuple, ctx: _Ctx) -> ir.Thunk:
    tau = ta + tb
    l = ir.Param(ir.Var(ctx.supply.fresh("l")), TupleT(tau))
    r = ir.Param(ir.Var(ctx.supply.fresh("r")), TupleT(tau))

    def instantiate(op: ir.Thunk, n: int, offset: int):
        op = freshen(op, ctx.supply)
        comps = [ir.Proj(l.var, offset + j) for j in range(n)] + \
                [ir.Proj(r.var, offset + j) for j in range(n)]
        mapping, pos = {}, 0
        for p in op.params:
            c = len(flat_components(p.ty))
            mapping[p.name] = _tuple_or_single(comps[pos:pos + c])
            pos += c
        return simplify(subst(op.body, mapping)), op.using
    ba, ua = instantiate(opa, len(ta), 0)
    bb, ub = instantiate(opb, len(tb), len(ta))
    return ir.Thunk((l, r), ir.Tuple(_body_parts(ba) + _body_parts(bb)), ua + ub)


def _rule_horizontal(a: ir.KBind, b: ir.KBind, ctx: _Ctx):
    sa, sb = a.soac, b.soac
    if type(sa) is not type(sb):
        return None
    if not isinstance(sa, (ir.Map, ir.Reduce, ir.Scan, ir.SegReduce, ir.SegScan)):
        return None
    if ctx.shapes.iteration(sa) != ctx.shapes.iteration(sb):
        return None
    if sa.SEGMENTED and sa.sd != sb.sd:
        return None
    f = _merge_pulls(sa.f, sb.f, ctx)
    vars_ = a.vars + b.vars
    if isinstance(sa, ir.Map):
        return [ir.KBind(vars_, ir.Map(f, sa.size))], "MAP+MAP"
    op = _merge_ops(sa.op, sb.op, ctx.elem_types(a.vars), ctx.elem_types(b.vars), ctx)
    soac = dataclasses.replace(sa, f=f, init=sa.init + sb.init, op=op)
    return [ir.KBind(vars_, soac)], f"{sa.NAME}+{sb.NAME}"


# --------------------------------------------------------------------------------------------
# driver
# --------------------------------------------------------------------------------------------

def _normalise_sizes(binds) -> tuple:
    """Replace ``#v`` sizes by the size of v's size-preserving producer (a kernel-level fact)."""
    prod = {}
    for b in binds:
        if isinstance(b.soac, (ir.Map, ir.Scan, ir.Permute, ir.Rank)):
            for v in b.vars:
                prod[v.name] = b.soac.size
    out = []
    for b in binds:
        s = b.soac
        size = getattr(s, "size", None)
        seen = set()
        while isinstance(size, ir.Length) and isinstance(size.vec, ir.Var) \
                and size.vec.name in prod and size.vec.name not in seen:
            seen.add(size.vec.name)
            size = prod[size.vec.name]
        if size is not getattr(s, "size", None):
            s = dataclasses.replace(s, size=size)
        s = _map_thunks(s, lambda t: _thunk_lengths(t, prod))
        out.append(ir.KBind(b.vars, s))
    return tuple(out)


def _thunk_lengths(t: ir.Thunk, prod: Mapping[str, ir.Exp]) -> ir.Thunk:
    """``#v`` inside a thunk body -> the size of v's size-preserving producer."""
    local = {p.name for p in t.params} | bound_names(t.body)

    def resolve(name):
        size, seen = prod[name], {name}
        while isinstance(size, ir.Length) and isinstance(size.vec, ir.Var) \
                and size.vec.name in prod and size.vec.name not in seen:
            seen.add(size.vec.name)
            size = prod[size.vec.name]
        return size

    def f(e):
        if isinstance(e, ir.Length) and isinstance(e.vec, ir.Var) and e.vec.name in prod \
                and e.vec.name not in local:
            size = resolve(e.vec.name)
            if ir.free_vars(size) & local:
                return None
            if isinstance(size, ir.Length):
                return dataclasses.replace(size, ity=e.ity)
            if e.ity == INT:
                return size
            return ir.PrimOp("to_int", (size,), e.ity)
        return None
    body = rewrite(t.body, f)
    if body == t.body:
        return t
    return exact_using(ir.Thunk(t.params, body, t.using))


def _clean(binds, returns, absorbed: frozenset = frozenset()) -> tuple:
    """Dead-binding elimination, exact using lists, simplified thunk bodies, topological order.

    A binding whose results are unused is removed only if evaluating it cannot fail, or if it
    was *absorbed* (``absorbed``: variables of producers whose thunks a vertical rule copied into
    a consumer that evaluates them over the same index space).  Every check of the unfused
    kernel is therefore still evaluated by the fused one (issue 11)."""
    binds = [ir.KBind(b.vars, _map_thunks(b.soac, lambda t: exact_using(
        ir.Thunk(t.params, simplify(t.body), t.using)))) for b in binds]
    live = {r.name for r in returns}
    kept = []
    for b in reversed(binds):
        if any(v.name in live for v in b.vars) or (
                not all(v.name in absorbed for v in b.vars) and soac_can_fail(b.soac)):
            kept.append(b)
            live |= _reads(b)
    kept.reverse()
    return _toposort(kept)


def _toposort(binds) -> tuple:
    defs = {v.name: k for k, b in enumerate(binds) for v in b.vars}
    deps = {k: {defs[n] for n in _reads(b) if n in defs and defs[n] != k} for k, b in enumerate(binds)}
    done, out = set(), []
    while len(out) < len(binds):
        progress = False
        for k, b in enumerate(binds):
            if k not in done and deps[k] <= done:
                done.add(k)
                out.append(b)
                progress = True
                break
        if not progress:
            raise ValueError("cyclic kernel bindings")
    return tuple(out)


def _path(binds, a: ir.KBind, b: ir.KBind) -> bool:
    """Is there a dependence path between a and b (either way)?"""
    defs = {v.name: k for k, x in enumerate(binds) for v in x.vars}
    succ = {k: set() for k in range(len(binds))}
    for k, x in enumerate(binds):
        for n in _reads(x):
            if n in defs and defs[n] != k:
                succ[defs[n]].add(k)

    def reach(s, t):
        stack, seen = [s], {s}
        while stack:
            u = stack.pop()
            if u == t:
                return True
            for w in succ[u]:
                if w not in seen:
                    seen.add(w)
                    stack.append(w)
        return False
    ka, kb = _at(binds, a), _at(binds, b)
    return reach(ka, kb) or reach(kb, ka)


def fuse_kernel(kernel: ir.Kernel, param_shapes: Mapping[str, Shape] | None = None,
                elems: Callable | None = None, segs: Callable | None = None,
                max_steps: int = 1000) -> tuple[ir.Kernel, tuple[str, ...]]:
    """Apply the rewrite rules to ``kernel`` until none applies.  Returns the new kernel and
    the names of the rules applied, in order.  ``param_shapes``, ``elems``, ``segs``: the
    region's shapes of the kernel's parameters and descriptor counts (see
    ``shapes.KernelShapes``; without them, parameters are kernel-scope symbols)."""
    taken = {p.name for p in kernel.params} | {v.name for b in kernel.binds for v in b.vars}
    for b in kernel.binds:
        for t in b.soac.thunks():
            taken |= {p.name for p in t.params} | bound_names(t.body)
    supply = NameSupply(taken)
    applied = []
    absorbed: set[str] = set()
    k = dataclasses.replace(kernel, binds=_clean(_normalise_sizes(kernel.binds), kernel.returns))
    for _ in range(max_steps):
        ctx = _Ctx(k, supply, (param_shapes, elems, segs))
        step = _one_step(k, ctx)
        if step is None:
            break
        new_binds, rule, producer = step
        applied.append(rule)
        absorbed |= producer
        k = dataclasses.replace(k, binds=_clean(_normalise_sizes(new_binds), k.returns,
                                                frozenset(absorbed)))
    return k, tuple(applied)


def _at(seq, x) -> int:
    return next(k for k, c in enumerate(seq) if c is x)


def _one_step(k: ir.Kernel, ctx: _Ctx):
    binds = list(k.binds)
    for rule in VERTICAL:
        for x, a in enumerate(binds):
            for b in binds[x + 1:]:
                r = rule(a, b, ctx)
                if r is not None:
                    repl, name = r
                    out = binds[:]
                    pos = _at(binds, b)
                    out[pos:pos + 1] = repl
                    return out, name, {v.name for v in a.vars}
    for x, a in enumerate(binds):
        for b in binds[x + 1:]:
            if _path(binds, a, b):
                continue
            r = _rule_horizontal(a, b, ctx)
            if r is not None:
                repl, name = r
                out = [c for c in binds if c is not a]
                pos = _at(out, b)
                out[pos:pos + 1] = repl
                return out, name, set()
    return None
