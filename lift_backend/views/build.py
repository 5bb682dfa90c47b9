"""Construction of views from data-layout patterns.

* :func:`layout_view` — the *input* view of a data-layout call: how its result is read,
  given the views of its arguments (no code, no memory).
* :func:`output_view` — the *output* view for the argument of a data-layout call whose
  result must be written into ``dest``: join/split/scatter/transpose/asVector/asScalar
  are inverted, so that the producer below writes directly at the right place
  (``split(N) o scatter(f) o join o mapWrg(mapLcl(id))`` writes ``out[f(i)]``).
"""
from __future__ import annotations

from typing import Mapping, Optional, Sequence

from .. import arith as A
from ..errors import LiftCompileError, Span
from ..ir import patterns as P
from ..types import ArrayType, TupleType, Type, VectorType
from ..types.types import flat_offset, size_in_elements
from .views import (AccessView, AsScalarView, AsVectorView, BoundsCheck, FailView, GatherIdxView, GuardView, ScatterIdxView, ValueIndex, checked, GenerateView, JoinView,
                    MemView, NestView, OffsetView, PadView, ReorderView, SlideView, SplitView,
                    TransposeView, TupleAccessView, View, ZipView, index_fun_in_range, index_fun_width)


def memory_view(mem, outer, t: Type) -> MemView:
    return MemView(mem, tuple(outer), t)


def access(v: View, index) -> AccessView:
    """The element ``index`` of the array view ``v`` (what a map iteration sees)."""
    t = v.type
    if not isinstance(t, ArrayType):
        raise LiftCompileError(f"internal: cannot index the non-array view {t}")
    return AccessView(v, A.to_expr(index), t.elem_at(index))


def _int_literal(v) -> Optional[int]:
    """The value of an integer literal's view (``arrayAccess(xs, 0)``), else None."""
    from .views import ValueView
    if isinstance(v, ValueView) and v.mem is None and isinstance(v.expr, str):
        text = v.expr.rstrip("lL")
        if text.isdigit():
            return int(text)
    return None


def _reorder_check(f, idx, n, span: Optional[Span]) -> Optional[BoundsCheck]:
    """The run-time check of ``gather(idx)``/``scatter(idx)`` over ``n`` elements, or None
    when ``idx`` is provably in range."""
    if index_fun_in_range(idx, n):
        return None
    return BoundsCheck(f.name, span, n)


def _reorder_wide(f, idx, n, span: Optional[Span]):
    """How ``gather(idx)``/``scatter(idx)`` evaluates its index function (see
    :func:`~lift_backend.views.views.index_fun_width`): None (``int``) or ``(k, body)``
    (``long``); a function whose intermediate values may exceed even 64 bits is a located
    error (the analysis assumes exact integers: the kernel would compute other indices)."""
    try:
        return index_fun_width(idx, n)
    except ValueError as ex:
        raise LiftCompileError(f"{f.name}: the index function cannot be evaluated exactly in the kernel: {ex} "
                               f"(sizes are taken at most 2^31 - 1 where --size does not fix them)", span)


def layout_view(f: P.LayoutPattern, args: Sequence[View], result_type: Type,
                static: Mapping[str, object], supply: A.VarSupply,
                span: Optional[Span] = None) -> View:
    """Input view of ``f(args)`` whose type is ``result_type``.  Data-dependent indices
    (``gatherIdx``, ``splitOffsets`` over offsets computed on the device) and index
    functions not provably in range (``gather(\\i -> i + 1)``) get a run-time check located
    at ``span``.  Row variables of nested views come from ``supply`` (the code generator's)."""
    if isinstance(f, P.Split):
        return SplitView(args[0], static["n"], result_type)
    if isinstance(f, P.Join):
        at = args[0].type
        k = at.index_var
        inner = at.elem_at(k) if k is not None else at.elem
        if k is not None and A.contains(inner.length, k):
            # irregular rows: the position of element j is found through the row offsets,
            # which only a memory view or a nest view can provide (checked at consumption)
            return _irregular_join(args[0], result_type, span)
        return JoinView(args[0], inner.length, result_type)
    if isinstance(f, P.Gather):
        n = args[0].type.length
        idx = static.get("idx", f.idx)      # with len(x) resolved by the type checker
        return ReorderView(args[0], idx, n, result_type, "gather", _reorder_check(f, idx, n, span),
                           _reorder_wide(f, idx, n, span))
    if isinstance(f, P.Scatter):
        # reading the result of a scatter needs the inverse permutation: only the output
        # side is supported (the producer writes through the scatter)
        raise LiftCompileError("scatter: its result is read by another pattern, which is not supported (reads "
                               "would need the inverse permutation); a scatter must give the result of the "
                               "program or of a map's function, which its producer writes through it; to "
                               "reorder data for a consumer, gather with the inverse index function instead "
                               "(gather(reverse) for scatter(reverse))", span)
    if isinstance(f, P.ScatterIdx):
        raise LiftCompileError(f"{f.name}: its result is read by another pattern, which is not supported: a "
                               f"{f.name} must give the result of the program or of a map's function, which "
                               f"its producer writes through it (to read at computed indices, use gatherIdx "
                               f"or arrayAccess)", span)
    if isinstance(f, P.Zip):
        return ZipView(tuple(args), result_type)
    if isinstance(f, P.Get):
        return TupleAccessView(args[0], f.i, result_type)
    if isinstance(f, P.Slide):
        return SlideView(args[0], static["size"], static["step"], result_type)
    if isinstance(f, P.Pad):
        return PadView(args[0], static["left"], args[0].type.length, f.boundary, result_type)
    if isinstance(f, P.Transpose):
        return TransposeView(args[0], result_type)
    if isinstance(f, P.AsVector):
        return AsVectorView(args[0], f.width, result_type)
    if isinstance(f, P.AsScalar):
        return AsScalarView(args[0], args[0].type.elem.width, result_type)
    if isinstance(f, P.Slice):
        return OffsetView(args[0], static["start"], result_type)
    if isinstance(f, P.Generate):
        return GenerateView(result_type)
    if isinstance(f, P.FailIf):
        from .views import consume
        cond = A.Lookup(ValueIndex(consume(args[0])), "cond", 0, None, None)
        return FailView(args[1], cond, BoundsCheck(f.name, span, A.ZERO, f.code, id(f)), result_type)
    if isinstance(f, (P.At, P.AtIf)):
        from .views import consume
        from ..types import ScalarType as _S
        xs, k = args[0], args[1]
        c = _int_literal(k)
        if isinstance(f, P.At) and c is not None and c >= 0 and A.prove_le(A.cst(c), A.sub(xs.type.length, 1)):
            # a constant index the array's length provably admits (``arrayAccess(d, 0)`` of a
            # ``[t]_1``, a scalar kept in device memory): read at it, nothing to check
            return AccessView(xs, A.cst(c), result_type)
        acc = consume(k)
        wide = k.type == _S("long")
        value = A.Lookup(ValueIndex(acc, wide), "value", 0, None, None)
        check = BoundsCheck(f.name, span, xs.type.length, f.code, id(f))
        read = AccessView(xs, checked(value, check), result_type)
        if isinstance(f, P.At):
            return read
        guard = A.Lookup(ValueIndex(consume(args[2])), "guard", 0, None, None)
        return GuardView(read, guard, result_type)
    if isinstance(f, P.GatherIdx):
        pt = args[1].type
        return GatherIdxView(args[1], args[0], result_type, BoundsCheck("gatherIdx", span, pt.length, f.code))
    if isinstance(f, P.SplitOffsets):
        offs, data = args
        var = supply.fresh("r", 0, A.sub(result_type.length, 1))
        from .views import consume, MemAccess
        acc = consume(offs, (var,))
        if not isinstance(acc, MemAccess):
            raise LiftCompileError("splitOffsets: the offsets must be read from memory")
        start = A.Lookup(acc.mem, acc.mem.name, acc.index, 0, data.type.length)
        # offsets given by the host are checked there before the launch (non-decreasing,
        # within the data); offsets computed on the device are checked where they are used
        check = None if host_checked_offsets(offs, data) else \
            BoundsCheck("splitOffsets", span, data.type.length)
        return NestView(data, var, start, result_type, "splitOffsets", check)
    if isinstance(f, P.Partition):
        k = result_type.index_var
        var = supply.fresh("r", 0, A.sub(result_type.length, 1))
        if k is None:
            row = result_type.elem
            start = A.mul(var, row.length)
        else:
            row_len = result_type.elem.length  # in terms of k
            start = A.sum_over(k, 0, var, row_len)
        return NestView(args[0], var, start, result_type, "partition")
    raise LiftCompileError(f"no view for {getattr(f, 'name', f)!r}")


def host_checked_offsets(offs: View, data: View) -> bool:
    """Whether the offsets of a ``splitOffsets`` are an input of the kernel read as they are
    and the data's length is known on the host (then the runtime checks them)."""
    return (isinstance(offs, MemView) and not offs.outer and getattr(offs.mem, "kind", None) == "input"
            and not any(isinstance(n, A.Lookup) for n in A.iter_nodes(data.type.length)))


def _irregular_join(v: View, result_type: Type, span: Optional[Span] = None) -> View:
    """join of a position-dependent array: element j of the result is element j of the
    flat memory when the rows were laid out by a nest view over contiguous memory, or
    element ``start + j`` where the array is a row of a position-dependent array in memory
    (a triangle of triangles), its rows stored one after the other from ``start``."""
    if isinstance(v, NestView):
        return _retype(v.parent, result_type)
    if isinstance(v, MemView) and not v.outer:
        return MemView(v.mem, v.outer, result_type)
    base, idxs = v, []
    while True:
        if isinstance(base, AccessView):
            idxs.insert(0, base.index)
            base = base.parent
        elif isinstance(base, TupleAccessView) and isinstance(base.parent, AccessView) \
                and isinstance(base.parent.parent, ZipView) and not idxs:
            # component k of element i of a zip is element i of its k-th array
            base = AccessView(base.parent.parent.parents[base.i], base.parent.index, base.type)
        else:
            break
    if idxs and isinstance(base, MemView) and not base.outer \
            and size_in_elements(result_type.elem) == A.ONE:
        flat = MemView(base.mem, base.outer, ArrayType(result_type.elem, size_in_elements(base.type)))
        return OffsetView(flat, flat_offset(base.type, idxs), result_type)
    raise LiftCompileError("join: cannot flatten a position-dependent array that is not stored "
                           "contiguously", span)


def _retype(v: View, t: Type) -> View:
    import dataclasses
    return dataclasses.replace(v, type=t)


def output_view(f: P.LayoutPattern, dest: View, arg_type: Type, static: Mapping[str, object],
                supply: A.VarSupply, span: Optional[Span] = None, index: Optional[View] = None,
                claims: Optional[View] = None) -> View:
    """Where the argument of ``f`` must be written so that ``f(arg)`` lands in ``dest``
    (``index``: the view of the indices of a ``scatterIdx``/``permuteIdx``, its first argument;
    the data, written through, is its second)."""
    if isinstance(f, P.ScatterIdx):
        from ..types import ScalarType as _S
        check = BoundsCheck(f.name, span, dest.type.length, f.code, id(f), f.once, mode=f.mode)
        return ScatterIdxView(dest, index, arg_type, check, index.type.elem == _S("long"), claims)
    if isinstance(f, P.Join):
        # arg : [[t]_m]_n  ->  rows of dest
        at = arg_type
        k = at.index_var
        inner = at.elem_at(k) if k is not None else at.elem
        if k is not None and A.contains(inner.length, k):
            var = supply.fresh("r", 0, A.sub(at.length, 1))
            start = A.sum_over(k, 0, var, inner.length)
            return NestView(dest, var, start, arg_type, "unjoin")
        return SplitView(dest, inner.length, arg_type)
    if isinstance(f, P.Split):
        return JoinView(dest, static["n"], arg_type)
    if isinstance(f, P.Scatter):
        n = arg_type.length
        idx = static.get("idx", f.idx)
        return ReorderView(dest, idx, n, arg_type, "scatter", _reorder_check(f, idx, n, span),
                           _reorder_wide(f, idx, n, span))
    if isinstance(f, P.Transpose):
        return TransposeView(dest, arg_type)
    if isinstance(f, P.AsVector):
        # dest holds vectors; the argument's scalars are their components
        return AsScalarView(dest, f.width, arg_type)
    if isinstance(f, P.AsScalar):
        return AsVectorView(dest, arg_type.elem.width, arg_type)
    raise LiftCompileError(f"{f.name}: cannot write through this data-layout pattern")
