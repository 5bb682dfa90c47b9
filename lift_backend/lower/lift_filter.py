"""FILTERs, PARTITIONs and their segmented forms as Lift programs, compiled by the Lift
compiler's own stages.

The count phase of a FILTER or PARTITION -- chunk ``c`` counts the kept
elements of ``c * n / P .. (c + 1) * n / P`` into the runner's ``long`` buffer ``counts`` -- is a
reduction: the REDUCE chunk program of :mod:`lift_map` for the REDUCE

    REDUCE { i => let x = f(i) in if p(x) then 1L else 0L } (0L) + (n)

that is

    join o mapGlb(0)(toGlobal(mapSeq(id)) o reduceSeq(\\acc t -> acc + uf(t...), 0L))
      o partition(P, \\c -> (c + 1) * N / P - c * N / P) $ zip(v0, ...)

(``uf`` the thunk and the predicate as one user function returning ``0L`` or ``1L``).  It
qualifies where that REDUCE does: the thunk and the predicate read their vectors at the
element's index or at computed indices (a checked primitive's flags are reported by ``failIf``
in the fold's step); the runner launches it where the template ``count`` phase ran and the
inputs fit (``OpenCLRunner._lift_fits``).

The write phase is ``filterSeq`` over the same chunks, each compacting its elements to its row
of the output (:func:`lift_filter_write`; a PARTITION's rejected elements a second such
program, the predicate negated), launched where the chunk counts were scanned on the host.

A SEG_FILTER or SEG_PARTITION runs the same plan over the ``#seg_ids(sd)`` elements of all its
segments (balanced chunks, whatever the segments), with the same count, write and rejected
programs, plus two:

* the positions ``pre`` (``pre[i]`` the output position before element ``i``), the last pass
  of the SCAN of the kept flags, each chunk scanning from its chunk offset
  (:func:`lift_filter_pre`; the runner writes ``pre[n]``, the kept total), launched with the
  Lift write phase (the template write phase records ``pre`` itself);
* the per-segment counts, a map over the segments reading ``pre`` at the descriptor's offsets
  (:func:`lift_filter_counts`: kept ``pre[e] - pre[a]``, rejected ``e - a - kept``), launched
  whichever write phase wrote ``pre``.
"""
from __future__ import annotations

import dataclasses
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
    if len(f.params) != 1 or not pred.params:
        return None
    i = f.params[0].name
    xs = [p.name for p in pred.params]
    fv_f = ir.free_vars(f.body)
    if i in xs or i in ir.free_vars(pred.body) or any(x in fv_f for x in xs):
        return None
    pbody = pred.body
    if len(xs) == 1 and _is_read(f.body, i) and i not in bound_names(pbody):
        # p(f(i)) with f's value substituted: a subscript of p at the thunk's index is then a
        # read at the element's index (a zipped input: no check, as the template's fast version
        # where the vector has the filter's length), not a checked access at a computed index
        body = ir.If(subst(pbody, {xs[0]: f.body}), ir.Const(1, INT64), ir.Const(0, INT64))
    else:
        # (a FILTER fused with a consumer has a tuple value and a predicate of its components)
        body = ir.Let(tuple(p.var for p in pred.params), f.body,
                      ir.If(pbody, ir.Const(1, INT64), ir.Const(0, INT64)))
    a, b = ir.Param(ir.Var("nz_a"), INT64), ir.Param(ir.Var("nz_b"), INT64)
    op = ir.Thunk((a, b), ir.PrimOp("add", (a.var, b.var)))
    return ir.Reduce(ir.Thunk(f.params, body), (ir.Const(0, INT64),), op, _size(soac))


def _size(soac: ir.Soac) -> ir.Exp:
    """The number of elements a (segmented) filter reads: a SEG_FILTER's its descriptor's total."""
    return ir.seg_total(soac.sd) if soac.SEGMENTED else soac.size


_FILTERS = (ir.Filter, ir.Partition, ir.SegFilter, ir.SegPartition)


def lift_filter_count(kname: str, soac: ir.Soac, tenv: dict, ctx, sites: Optional[Sites] = None,
                      strategy: str = "cpu"):
    """The count phase of the FILTER/PARTITION ``soac`` as a compiled Lift program (a
    :class:`lift_map.LiftMap` writing the ``P`` chunk counts as ``long``s), or None."""
    if not isinstance(soac, _FILTERS):
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


def _unguarded(soac: ir.Soac) -> ir.Soac:
    """A filter in fusion's guarded form -- ``FILTER { i => if c then (e1, ..., ek, true) else
    (d1, ..., dk, false) } { (y1, ..., yk, keep) => keep }``, the values computed only where the
    filter keeps the element (FILTER-MAP where fusion could not show the value's vectors have the
    filter's length) -- as ``FILTER { i => (e1, ..., ek, c) } { ... => keep }`` where every
    ``e`` and ``c`` is a read at the element's index: the kept elements' outputs are the same
    (``c`` is true there), and the write phase's Lift program reads those vectors for every
    element only where the runner has checked that each has the filter's length
    (``OpenCLRunner._lift_fits``), as it does for any filter's zipped inputs.  Any other filter
    is returned as it is."""
    f, pred = soac.f, soac.pred
    if not isinstance(soac, _FILTERS) or len(f.params) != 1 or not isinstance(f.body, ir.If):
        return soac
    i = f.params[0].name
    c, then, else_ = f.body.cond, f.body.then, f.body.else_
    if not (isinstance(then, ir.Tuple) and isinstance(else_, ir.Tuple)
            and len(then.elems) == len(else_.elems) == len(pred.params) >= 2):
        return soac
    last_t, last_e = then.elems[-1], else_.elems[-1]
    if not (isinstance(last_t, ir.Const) and last_t.value is True
            and isinstance(last_e, ir.Const) and last_e.value is False):
        return soac
    if not (isinstance(pred.body, ir.Var) and pred.body.name == pred.params[-1].name):
        return soac
    comps = then.elems[:-1] + (c,)
    if not all(_is_read(e, i) for e in comps):
        return soac
    return dataclasses.replace(soac, f=ir.Thunk(f.params, ir.Tuple(comps), f.using))


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
    if not isinstance(soac, _FILTERS):
        return None
    soac = _unguarded(soac)
    red = count_reduce(soac)
    values = _kept_values(soac.f)
    if red is None or values is None:
        return None
    f, pred = soac.f, soac.pred
    pbody = pred.body
    if len(pred.params) == 1 and _is_read(f.body, f.params[0].name) \
            and f.params[0].name not in bound_names(pbody):
        # as in the count phase: p's subscript at the thunk's index a zipped input (the value
        # kept, f's, stays the first input: the let reads it first)
        pbody = subst(pbody, {pred.params[0].name: f.body})
    if rejected:
        pbody = ir.PrimOp("not", (pbody,))
    thunk = ir.Thunk(f.params, ir.Let(tuple(p.var for p in pred.params), f.body, pbody))
    from .lift_map import lift_map
    return lift_map(kname, ir.Map(thunk, _size(soac)), tenv, ctx, sites, strategy, filter_write=values,
                    rejected=rejected)


def lift_filter_pre(kname: str, soac: ir.Soac, tenv: dict, ctx, sites: Optional[Sites] = None,
                    strategy: str = "cpu"):
    """The positions ``pre`` of a SEG_FILTER's / SEG_PARTITION's write phase as a compiled Lift
    program, or None: ``pre[i]``, the output position before element ``i``, is the exclusive scan
    of the kept flags, each chunk scanning from its offset (the exclusive scan of the chunk
    counts, the runner's ``counts`` buffer) -- the last pass of the SCAN
    ``SCAN { i => let x = f(i) in if p(x) then 1L else 0L } (0L) + (n)`` (lift_map's
    ``scan_phase``):

        join o mapGlb(0)(\\t -> toGlobal(scanSeq(\\acc t -> acc + uf(t...), t._1)) $ t._0)
          $ zip(partition(P, \\c -> (c + 1) * N / P - c * N / P) $ zip(v0, ...), offs)

    ``pre[n]`` (the kept total) the runner writes itself."""
    if not isinstance(soac, (ir.SegFilter, ir.SegPartition)):
        return None
    red = count_reduce(soac)
    if red is None:
        return None
    from .lift_map import lift_map
    return lift_map(kname, ir.Scan(red.f, red.init, red.op, red.size), tenv, ctx, sites, strategy,
                    scan_phase=True)


def lift_filter_counts(kname: str, soac: ir.Soac, sites: Sites, strategy: str = "cpu"):
    """The ``counts`` phase of a SEG_FILTER / SEG_PARTITION as a compiled Lift program: segment
    ``s`` keeps ``pre[offs[s + 1]] - pre[offs[s]]`` elements (and rejects the others of its
    ``offs[s + 1] - offs[s]``), read at the descriptor's offsets (its ``S + 1`` ints, the total
    last) in the positions ``pre`` (``N + 1`` longs) of the write phase, Lift's or the
    template's:

        mapGlb(0)(toGlobal(\\s -> (\\w -> uf(w._0, w._1, arrayAccess(pre, w._0), arrayAccess(pre, w._1)))
                                   (toPrivate(uf_bounds)(arrayAccess(offs, s), arrayAccess(offs, uf_next(s))))))
          $ generate(S)

    (a SEG_PARTITION's ``uf`` returns the pair kept, rejected: one int buffer each).  The
    offsets of a descriptor are in range; the accesses are checked all the same, a failure
    reporting an index out of bounds."""
    if not isinstance(soac, (ir.SegFilter, ir.SegPartition)):
        return None
    from .. import compile_program
    from .. import arith as A
    from ..arith import size_var
    from ..errors import LiftError
    from ..ir.builders import lam, mapGlb, program, toGlobal, toPrivate, userfun
    from ..ir.expr import FunCall
    from ..ir.patterns import At, Generate, Get
    from ..types import ArrayType, ScalarType, TupleType, c_type_name
    from lambda_cu.errors import MSG_BOUNDS
    from .lift_map import CPU_LOCAL, LiftMap, kernel_args
    part = isinstance(soac, ir.SegPartition)
    code = sites.of("segcounts", None, MSG_BOUNDS)
    I, L = ScalarType("int"), ScalarType("long")
    S, N = size_var("S"), size_var("N")
    nxt = userfun(f"uf_{kname}_next", [("s", I)], I, "\n  return s + 1;\n")
    if part:
        pair = TupleType((I, I))
        uf = userfun(f"uf_{kname}_counts", [("a", I), ("e", I), ("pa", L), ("pe", L)], pair,
                     f"\n  const int k = (int)(pe - pa);\n  return ({c_type_name(pair)}){{k, e - a - k}};\n")
    else:
        uf = userfun(f"uf_{kname}_counts", [("a", I), ("e", I), ("pa", L), ("pe", L)], I,
                     "\n  return (int)(pe - pa);\n")

    bounds = userfun(f"uf_{kname}_bounds", [("a", I), ("e", I)], TupleType((I, I)),
                     f"\n  return ({c_type_name(TupleType((I, I)))}){{a, e}};\n")

    def body(offs, pre):
        def seg(s):
            # the segment's bounds read once (a private pair), then pre at each
            def counts(w):
                a, e = FunCall(Get(0), (w,)), FunCall(Get(1), (w,))
                return FunCall(uf, (a, e, FunCall(At(code), (pre, a)), FunCall(At(code), (pre, e))))
            b = FunCall(toPrivate(bounds), (FunCall(At(code), (offs, s)),
                                            FunCall(At(code), (offs, FunCall(nxt, (s,))))))
            return FunCall(lam(counts, ["w"]), (b,))
        return mapGlb(toGlobal(lam(seg, ["s"])))(FunCall(Generate(S), ()))
    prog = program(f"{kname}_liftcounts", [("offs", ArrayType(I, A.add(S, 1))), ("pre", ArrayType(L, A.add(N, 1)))],
                   body)
    launch = {"global_size": A.add(S, CPU_LOCAL - 1)} if strategy == "cpu" else {}
    try:
        kern = compile_program(prog, error_base=True, soa_output=True, **launch)
    except LiftError:
        return None
    # offs: the descriptor's offsets; pre: the positions
    args = kernel_args(kern, prog.name, {"S": ("nseg",), "N": ("total",)}, {"offs": ("offs",), "pre": ("pre",)})
    return LiftMap(prog, kern, (), args)


def lift_filter_phases(kname: str, soac: ir.Soac, tenv: dict, ctx, sites: Optional[Sites] = None,
                       strategy: str = "cpu") -> list:
    """The phases of a FILTER/PARTITION (segmented or not) that are Lift programs: ``(info
    key, LiftMap)`` pairs (``lift_count``: the count phase; ``lift_write``: the write phase, only
    with a Lift count phase; ``lift_reject``: a PARTITION's rejected elements, which its
    ``lift_write`` needs; a segmented one's ``lift_pre``: the positions ``pre``, which its
    ``lift_write`` needs, and ``lift_segcounts``: the per-segment counts, read from ``pre``
    whichever write phase ran)."""
    out = []
    seg = soac.SEGMENTED
    lc = lift_filter_count(kname, soac, tenv, ctx, sites, strategy)
    if lc is not None:
        out.append(("lift_count", lc))
        lw = lift_filter_write(kname, soac, tenv, ctx, sites, strategy)
        part = isinstance(soac, (ir.Partition, ir.SegPartition))
        lr = lift_filter_write(kname, soac, tenv, ctx, sites, strategy, rejected=True) \
            if part and lw is not None else None
        lp = lift_filter_pre(kname, soac, tenv, ctx, sites, strategy) if seg and lw is not None else None
        if lw is not None and (lr is not None or not part) and (lp is not None or not seg):
            out.append(("lift_write", lw))
            if lr is not None:
                out.append(("lift_reject", lr))
            if lp is not None:
                out.append(("lift_pre", lp))
    if seg and sites is not None:
        lk = lift_filter_counts(kname, soac, sites, strategy)
        if lk is not None:
            out.append(("lift_segcounts", lk))
    return out
