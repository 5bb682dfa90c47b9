"""FILTERs and PARTITIONs as Lift programs, compiled by the Lift compiler's own stages.

The count phase of a (not segmented) FILTER or PARTITION -- chunk ``c`` counts the kept
elements of ``c * n / P .. (c + 1) * n / P`` into the runner's ``long`` buffer ``counts`` -- is a
reduction: the REDUCE chunk program of :mod:`lift_map` for the REDUCE

    REDUCE { i => let x = f(i) in if p(x) then 1L else 0L } (0L) + (n)

that is

    join o mapGlb(0)(toGlobal(mapSeq(id)) o reduceSeq(\\acc t -> acc + uf(t...), 0L))
      o partition(P, \\c -> (c + 1) * N / P - c * N / P) $ zip(v0, ...)

(``uf`` the thunk and the predicate as one user function returning ``0L`` or ``1L``).  It
qualifies where that REDUCE does: the thunk and the predicate read their vectors at the
element's index or at computed indices and have no checked primitive (a fold has nowhere to
carry a failure flag); the runner launches it where the template ``count`` phase ran and the
inputs fit (``OpenCLRunner._lift_fits``).
"""
from __future__ import annotations

from typing import Optional

from lambda_cu import ir
from lambda_cu.types import INT64

from lambda_cu.fusion.exprs import bound_names, subst

from .cgen import Sites


def _is_read(e: ir.Exp, i: str) -> bool:
    """Whether ``e`` is the index ``i`` or a vector read at it (``v[i]``)."""
    if isinstance(e, ir.Var):
        return e.name == i
    return isinstance(e, ir.Index) and isinstance(e.vec, ir.Var) and isinstance(e.idx, ir.Var) \
        and e.idx.name == i


def count_reduce(soac: ir.Soac) -> Optional[ir.Reduce]:
    """The REDUCE whose chunk results are the filter's chunk counts, or None where the
    predicate cannot be composed with the thunk (a name of one would capture the other's)."""
    f, pred = soac.f, soac.pred
    if len(f.params) != 1 or len(pred.params) != 1:
        return None
    i = f.params[0].name
    x = pred.params[0].name
    if x == i or i in ir.free_vars(pred.body) or x in ir.free_vars(f.body):
        return None
    pbody = pred.body
    if _is_read(f.body, i) and i not in bound_names(pbody):
        # p(f(i)) with f's value substituted: a subscript of p at the thunk's index is then a
        # read at the element's index (a zipped input: no check, as the template's fast version
        # where the vector has the filter's length), not a checked access at a computed index
        body = ir.If(subst(pbody, {x: f.body}), ir.Const(1, INT64), ir.Const(0, INT64))
    else:
        body = ir.Let((pred.params[0].var,), f.body,
                      ir.If(pbody, ir.Const(1, INT64), ir.Const(0, INT64)))
    a, b = ir.Param(ir.Var("nz_a"), INT64), ir.Param(ir.Var("nz_b"), INT64)
    op = ir.Thunk((a, b), ir.PrimOp("add", (a.var, b.var)))
    return ir.Reduce(ir.Thunk(f.params, body), (ir.Const(0, INT64),), op, soac.size)


def lift_filter_count(kname: str, soac: ir.Soac, tenv: dict, ctx, sites: Optional[Sites] = None,
                      strategy: str = "cpu"):
    """The count phase of the FILTER/PARTITION ``soac`` as a compiled Lift program (a
    :class:`lift_map.LiftMap` writing the ``P`` chunk counts as ``long``s), or None."""
    if not isinstance(soac, (ir.Filter, ir.Partition)):
        return None
    red = count_reduce(soac)
    if red is None:
        return None
    from .lift_map import lift_map
    return lift_map(kname, red, tenv, ctx, sites, strategy)


def _kept_values(f: ir.Thunk) -> Optional[tuple]:
    """The inputs a FILTER's thunk ``f`` keeps, in the order of its result's components: each a
    vector read at the element's index (its name) or the index itself (:data:`lift_map.INDEX`);
    None for any other thunk (a computed value: the write phase stays the template's)."""
    from .lift_map import INDEX
    i = f.params[0].name
    comps = f.body.elems if isinstance(f.body, ir.Tuple) else (f.body,)
    out = []
    for e in comps:
        if isinstance(e, ir.Var) and e.name == i:
            out.append(INDEX)
        elif isinstance(e, ir.Index) and isinstance(e.vec, ir.Var) and isinstance(e.idx, ir.Var) \
                and e.idx.name == i:
            out.append(e.vec.name)
        else:
            return None
    if len(set(out)) != len(out):
        return None
    return tuple(out)


def lift_filter_write(kname: str, soac: ir.Soac, tenv: dict, ctx, sites: Optional[Sites] = None,
                      strategy: str = "cpu", rejected: bool = False):
    """The write phase of the FILTER ``soac`` as a compiled Lift program, or None: chunk ``c``
    compacts its elements with ``filterSeq`` to its row of the output,

        join o mapGlb(0)(\\r -> toGlobal(filterSeq(\\t -> uf(t...), keep))(r._0, r._1))
          $ zip(partition(P, \\c -> (c + 1) * N / P - c * N / P) $ zip(v0, ...),
                splitOffsets(offs, generate(K)))

    ``offs`` the ``P + 1`` chunk offsets (the exclusive scan of the counts, the total ``K``
    last), ``uf`` the predicate of the thunk's values, ``keep`` the values kept (the thunk's,
    the first of the zipped inputs where the predicate reads more at the index).  Where the thunk's result is the inputs it
    reads at the element's index (or the index), in order, and the predicate qualifies as the
    count phase's.  A PARTITION has two such programs: its kept elements, and (``rejected``) its
    rejected ones, ``filterSeq`` with the predicate negated, the rows cut by the rejected
    elements' chunk offsets ``c * N / P - offs[c]``: each reads the input (the template's write
    phase reads it once for both)."""
    if not isinstance(soac, (ir.Filter, ir.Partition)):
        return None
    red = count_reduce(soac)
    values = _kept_values(soac.f)
    if red is None or values is None:
        return None
    f, pred = soac.f, soac.pred
    pbody = pred.body
    if _is_read(f.body, f.params[0].name) and f.params[0].name not in bound_names(pbody):
        # as in the count phase: p's subscript at the thunk's index a zipped input (the value
        # kept, f's, stays the first input: the let reads it first)
        pbody = subst(pbody, {pred.params[0].name: f.body})
    if rejected:
        pbody = ir.PrimOp("not", (pbody,))
    thunk = ir.Thunk(f.params, ir.Let((pred.params[0].var,), f.body, pbody))
    from .lift_map import lift_map
    return lift_map(kname, ir.Map(thunk, soac.size), tenv, ctx, sites, strategy, filter_write=values,
                    rejected=rejected)


def lift_filter_phases(kname: str, soac: ir.Soac, tenv: dict, ctx, sites: Optional[Sites] = None,
                       strategy: str = "cpu") -> list:
    """The phases of a FILTER/PARTITION that are Lift programs: ``(info key, LiftMap)`` pairs
    (``lift_count``: the count phase; ``lift_write``: the write phase, only with a Lift count
    phase; ``lift_reject``: a PARTITION's rejected elements, which its ``lift_write`` needs)."""
    out = []
    lc = lift_filter_count(kname, soac, tenv, ctx, sites, strategy)
    if lc is not None:
        out.append(("lift_count", lc))
        lw = lift_filter_write(kname, soac, tenv, ctx, sites, strategy)
        lr = lift_filter_write(kname, soac, tenv, ctx, sites, strategy, rejected=True) \
            if isinstance(soac, ir.Partition) and lw is not None else None
        if lw is not None and (lr is not None or isinstance(soac, ir.Filter)):
            out.append(("lift_write", lw))
        if lr is not None:
            out.append(("lift_reject", lr))
    return out
