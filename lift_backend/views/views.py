"""Views (Lift paper §5.3): how data-layout patterns change the way memory is accessed.

A view is an immutable chain ending in a :class:`MemView` (or a :class:`ValueView`).
The same views serve for reading (input views, built along the data flow) and writing
(output views, built from the destination backwards): a view is an index mapping.

*Consumption* (the two-stack algorithm of Figure 5) walks a view chain from the top:
``AccessView`` pushes the index of a map's iteration on the *array stack*; ``SplitView``
pops the row and column and pushes ``row * n + col``; ``JoinView`` does the opposite;
``TupleAccessView`` pushes on the *tuple stack* and ``ZipView`` pops it to choose the
array; ``MemView`` finally flattens the remaining indices into an offset.  Every index is
built with the smart constructors, so it comes out simplified with the ranges of the
loop variables (``get_local_id`` & co.).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import List, Optional, Sequence, Tuple, Union

from .. import arith as A
from ..arith import Expr as AExpr
from ..errors import LiftCompileError, Span
from ..limits import MAX_INDEX_NODES
from ..types.types import flat_offset  # noqa: F401  (defined with the layout of types)
from ..ir import patterns as P
from ..ir.expr import Literal
from ..types import (ArrayType, ScalarType, TupleType, Type, VectorType, size_in_elements)


@dataclass(frozen=True)
class BoundsCheck:
    """An index checked at run time: the generated code tests ``0 <= index < length`` (one
    unsigned compare) and, when it fails, records this check's site in the kernel's error
    buffer (the first failing site wins) and uses element 0 instead (in bounds; the run then
    fails and its output is discarded).  It is the ``array`` of
    an arithmetic :class:`~lift_backend.arith.Lookup` whose ``index`` is the unchecked index
    and whose range is ``0 .. length - 1`` (what the check guarantees).

    ``kind`` names the pattern (``gather``, ``scatter``, ``gatherIdx``, ``splitOffsets``) and
    ``span`` its place in the source, for the error message."""
    kind: str
    span: Optional[Span]
    length: AExpr
    code: Optional[int] = None     # the site's error code given by the program (``At.code``)
    key: Optional[int] = None      # distinguishes the checks of distinct ``arrayAccess`` calls
    #: ``permuteIdx``: the index must also be the first to reach its position (an
    #: ``atomic_inc`` of the kernel's marks buffer, one counter per position of ``length``)
    once: bool = False
    #: ``permuteIdx``: the flat position, in the result, of the destination's element 0 (its
    #: marks are the result's, one counter per position)
    base: Optional[AExpr] = None
    #: ``scatterMaxIdx``/``scatterLastIdx`` (``"max"``/``"last"``): the write through the
    #: checked position is an ``atomic_max`` / happens only where the position is not -1
    mode: str = ""


@dataclass(frozen=True)
class ValueIndex:
    """An index that is a value computed at run time (``arrayAccess(xs, k)``): the access that
    reads ``k`` (private variable, expression, memory or index), ``int`` or ``long`` (``wide``).
    It is the ``array`` of an arithmetic :class:`~lift_backend.arith.Lookup` (index 0, unbounded:
    nothing is known of a data value until its check)."""
    access: object
    wide: bool = False


def checked(index: AExpr, check: Optional[BoundsCheck]) -> AExpr:
    """``index`` guarded by ``check`` (unchanged when ``check`` is None)."""
    if check is None:
        return index
    return A.Lookup(check, "check", index, 0, A.sub(check.length, 1))


def index_fun_in_range(f: P.IndexFun, n: AExpr) -> bool:
    """Whether ``f`` maps every ``0 <= k < n`` into ``0 .. n-1`` (provably).  The built-in
    permutations are, given the size constraints the type checker records for them
    (``reorderStride(s)``: ``s`` divides ``n``; ``transpose(a, b)``: ``n = a * b``)."""
    if isinstance(f, (P.Reverse, P.ReorderStride, P.TransposeIdx)):
        return True
    # a variable of neither ``f`` nor ``n`` (no counter: the function stays pure)
    k = A.VarSupply.avoiding(getattr(f, "body", None), getattr(f, "param", None), n).fresh(
        "k", 0, A.sub(n, 1))
    try:
        e = f.apply(k, n)
        return A.prove_nonneg(e) and A.prove_le(e, A.sub(n, 1))
    except (ZeroDivisionError, ValueError, TypeError):
        return False


@dataclass(frozen=True)
class WideIndex:
    """A user index function evaluated in 64-bit ``long`` (issue 11): the range analysis works
    with exact integers, so an index function whose intermediate values may exceed ``int``
    (``gather(\\i -> (i * 1000000007) % N)``) is printed with ``long`` operands, the result
    (``0 .. length - 1``, proven, or checked at run time by ``check``) converted back to
    ``int``.  It is the ``array`` of an arithmetic :class:`~lift_backend.arith.Lookup` whose
    ``index`` is the argument of the function (an ``int`` index below ``length``): ``body`` is
    the function applied to ``param`` (a variable of range ``0 .. length - 1``)."""
    param: A.Var
    body: AExpr
    length: AExpr
    check: Optional[BoundsCheck] = None

    def rebuild_with(self, f) -> "WideIndex":
        """The same function with ``f`` applied to its body (substitutions of sizes)."""
        return WideIndex(self.param, f(self.body), self.length, self.check)


INT64_MIN, INT64_MAX = -2 ** 63, 2 ** 63 - 1


def _provable(fn) -> bool:
    try:
        return bool(fn())
    except (ZeroDivisionError, ValueError, TypeError):
        return False


def index_fun_width(f: P.IndexFun, n: AExpr):
    """How the generated C must evaluate the index function ``f`` over ``n`` elements:
    ``None`` when every intermediate value fits the kernels' ``int`` (the built-in index
    functions; user functions whose values are bounded, with sizes at most ``2^31 - 1``, by
    ``int`` or by the length ``n``), else ``(k, body)``: the function applied to a variable
    ``k`` of range ``0 .. n-1``, to be evaluated in ``long``.  ``ValueError`` when even ``long``
    cannot be shown to hold every intermediate value."""
    if not isinstance(f, P.IndexLambda):
        return None
    k = A.VarSupply.avoiding(f.body, f.param, n).fresh("k", 0, A.sub(n, 1))
    try:
        body = f.apply(k, n)
    except (ZeroDivisionError, ValueError, TypeError):
        return None
    wide = False
    for x in A.iter_nodes(body):
        if _int_safe(x, n):
            continue
        lo, hi = A.int_bounds(x)
        if lo < INT64_MIN or hi > INT64_MAX:
            raise ValueError(f"its intermediate value {A.to_text(x)} may exceed 64-bit integers "
                             f"(between {_num_text(lo)} and {_num_text(hi)})")
        wide = True
    return (k, body) if wide else None


def _int_safe(x: AExpr, n: AExpr) -> bool:
    """Whether the value of ``x`` fits an ``int``: by its bounds (every variable an ``int``), or
    bounded by the length ``n`` (an array length, at most ``2^31 - 1``)."""
    lo, hi = A.int_bounds(x)
    return ((lo >= A.ranges.INT32_MIN or _provable(lambda: A.prove_le(A.neg(x), n)))
            and (hi <= A.ranges.INT32_MAX or _provable(lambda: A.prove_le(x, n))))


def _all_int_safe(e: AExpr, n: AExpr) -> bool:
    return all(_int_safe(x, n) for x in A.iter_nodes(e))


def _num_text(v) -> str:
    if v in (float("inf"), float("-inf")):
        return str(v)
    v = int(v)
    return str(v) if abs(v) < 10 ** 12 else f"{'-' if v < 0 else ''}about 2^{abs(v).bit_length() - 1}"


def _larger_than(e: AExpr, limit: int) -> bool:
    """Whether the tree of ``e`` (shared subexpressions counted each time, as printed) has more
    than ``limit`` nodes (counts at most ``limit + 1``)."""
    count = 0
    for _ in A.iter_nodes(e):
        count += 1
        if count > limit:
            return True
    return False


def _in_range(idx: AExpr, n: AExpr) -> bool:
    """Whether the index ``idx`` (over the loop variables that reach it) is provably in
    ``0 .. n-1``: ``gather(\\i -> (i % N) * M + i / N)`` after ``split``/``join`` reads
    ``x[wg_id + M * l_id]``, in range although the index function alone is not provably so."""
    try:
        return A.prove_nonneg(idx) and A.prove_le(idx, A.sub(n, 1))
    except (ZeroDivisionError, ValueError, TypeError):
        return False


class View:
    type: Type

    def describe(self) -> str:
        return view_text(self)


@dataclass(frozen=True, eq=False)
class MemView(View):
    mem: object                    # lift_backend.memory.alloc.Memory
    outer: tuple                   # OuterDim per enclosing map at the allocation
    type: Type


@dataclass(frozen=True, eq=False)
class ValueView(View):
    """A private value: a variable (``mem``) or a C expression (``expr``); arrays of length 1
    around it (``[t]_1``, the result of reduceSeq) are indexed away."""
    type: Type
    mem: object = None
    expr: Optional[str] = None


@dataclass(frozen=True, eq=False)
class AccessView(View):
    parent: View
    index: AExpr
    type: Type


@dataclass(frozen=True, eq=False)
class SplitView(View):
    parent: View
    n: AExpr
    type: Type


@dataclass(frozen=True, eq=False)
class NestView(View):
    """Position-dependent split: row ``i`` starts at ``offset(i)`` (partition, splitOffsets,
    and the inverse of join on irregular arrays)."""
    parent: View
    offset_var: A.Var
    offset: AExpr          # in terms of offset_var
    type: Type
    label: str = "nest"
    check: Optional[BoundsCheck] = None   # splitOffsets over offsets computed on the device


@dataclass(frozen=True, eq=False)
class JoinView(View):
    parent: View
    inner: AExpr
    type: Type


@dataclass(frozen=True, eq=False)
class ReorderView(View):
    """``gather(f)`` (reading) and ``scatter(f)`` (writing): element ``k`` is ``parent[f(k)]``."""
    parent: View
    f: P.IndexFun
    n: AExpr
    type: Type
    label: str = "gather"
    check: Optional[BoundsCheck] = None   # None: the index function is provably in range
    wide: Optional[tuple] = None          # (k, body): evaluated in long (see WideIndex)


@dataclass(frozen=True, eq=False)
class ZipView(View):
    parents: Tuple[View, ...]
    type: Type


@dataclass(frozen=True, eq=False)
class TupleAccessView(View):
    parent: View
    i: int
    type: Type


@dataclass(frozen=True, eq=False)
class SlideView(View):
    parent: View
    size: AExpr
    step: AExpr
    type: Type


@dataclass(frozen=True, eq=False)
class PadView(View):
    parent: View
    left: AExpr
    n: AExpr               # length of the parent
    boundary: object       # 'clamp' | 'mirror' | 'wrap' | Literal
    type: Type


@dataclass(frozen=True, eq=False)
class TransposeView(View):
    parent: View
    type: Type


@dataclass(frozen=True, eq=False)
class OffsetView(View):
    """``slice(start, stop)``: element ``k`` is ``parent[start + k]``."""
    parent: View
    start: AExpr
    type: Type


@dataclass(frozen=True, eq=False)
class AsVectorView(View):
    parent: View
    width: int
    type: Type


@dataclass(frozen=True, eq=False)
class AsScalarView(View):
    parent: View
    width: int
    type: Type


@dataclass(frozen=True, eq=False)
class GatherIdxView(View):
    """Data-dependent gather: element ``k`` is ``parent[idx[k]]``, ``idx`` read from memory."""
    parent: View
    idx: View
    type: Type
    check: Optional[BoundsCheck] = None


@dataclass(frozen=True, eq=False)
class ScatterIdxView(View):
    """The output view of ``scatterIdx(idx, xs)``/``permuteIdx``: element ``k`` is written at
    ``parent[idx[k]]``, the index a value read from the view ``idx`` (``int`` or ``long``,
    ``wide``) and checked by ``check`` against the parent's length (and, ``check.once``, against
    a second write of the same position)."""
    parent: View
    idx: View
    type: Type
    check: "BoundsCheck"
    wide: bool = False
    #: ``scatterLastIdx``: the claims (``[int]M``): element ``k`` is written only where the
    #: claim of its position is ``k`` (its position is -1 otherwise)
    claims: Optional[View] = None


@dataclass(frozen=True, eq=False)
class GuardView(View):
    """``arrayAccessIf``: the element ``parent`` reads where the value ``guard`` (a ``Lookup``
    of a :class:`ValueIndex`) is not 0, else the zero of its type (the read, and its check,
    happen only where the guard holds: a C conditional expression)."""
    parent: View
    guard: AExpr
    type: Type


@dataclass(frozen=True, eq=False)
class FailView(View):
    """``failIf(c, x)``: reads ``parent`` (the value ``x``) after recording ``check``'s site in
    the error buffer where the value ``cond`` is not 0 (:class:`FailAccess`)."""
    parent: View
    cond: AExpr
    check: "BoundsCheck"
    type: Type


# ------------------------------------------------------------------------------- accesses

@dataclass(frozen=True, eq=False)
class GenerateView(View):
    """``generate(n)``: reading element ``k`` gives ``k`` (no memory)."""
    type: Type


@dataclass(frozen=True)
class IndexAccess:
    """The value of an index: what reading ``generate(n)`` at ``index`` gives."""
    index: AExpr


@dataclass(frozen=True)
class MemAccess:
    """``mem[index]`` (``index`` in elements of the memory), then tuple ``fields``; a vector
    of ``width`` elements is read/written with vloadN/vstoreN when the memory holds scalars."""
    mem: object
    index: AExpr
    fields: Tuple[int, ...] = ()
    width: int = 1


@dataclass(frozen=True)
class ValueAccess:
    mem: object = None
    expr: Optional[str] = None
    fields: Tuple[int, ...] = ()


@dataclass(frozen=True)
class CondAccess:
    cond: A.Cond
    then: object
    els: object


@dataclass(frozen=True)
class FailAccess:
    """``inner``, read after reporting ``check`` where ``cond`` holds (a C comma expression)."""
    cond: AExpr
    inner: object
    check: "BoundsCheck"


@dataclass(frozen=True)
class ConstAccess:
    literal: Literal


@dataclass(frozen=True)
class TupleBuild:
    """A whole tuple read from a zip: built from its components."""
    type: TupleType
    parts: Tuple[object, ...]


@dataclass(frozen=True)
class VectorBuild:
    """A vector read through ``asVector`` from elements that are not provably contiguous with
    unit stride in one memory (a reversed, strided, transposed or padded view): built from
    its components, one access each (a vloadN there would read the wrong elements)."""
    type: VectorType
    parts: Tuple[object, ...]


Access = Union[MemAccess, ValueAccess, CondAccess, ConstAccess, TupleBuild, VectorBuild]


def _contiguous(parts) -> bool:
    """The accesses ``parts`` are ``mem[i], mem[i + 1], ...``: one memory, unit stride."""
    first = parts[0]
    if not all(isinstance(p, MemAccess) and p.width == 1 for p in parts):
        return False
    for c, p in enumerate(parts):
        if p.mem is not first.mem or p.fields != first.fields:
            return False
        if A.sub(p.index, first.index) != A.Cst(c):
            return False
    return True


def _elem_type(t: Type, depth: int) -> Type:
    for _ in range(depth):
        if not isinstance(t, ArrayType):
            break
        t = t.elem_at(A.ZERO) if t.index_var is not None else t.elem
    return t


def consume(view: View, arr: Tuple[AExpr, ...] = (), tup: Tuple[int, ...] = (), extra: AExpr = A.ZERO,
            width: int = 1) -> Access:
    """Generate the access for element ``arr`` (outermost index first) of ``view``,
    projecting tuple components ``tup`` (first component first)."""
    arr = list(arr)
    tup = list(tup)
    return _consume(view, arr, tup, extra, width)


def _consume(v: View, arr: List[AExpr], tup: List[int], extra: AExpr, width: int,
             comp: bool = False) -> Access:
    """``comp``: a component of a vector was selected (``asScalar`` above), at offset ``extra``
    (which may be 0: the first component, not the whole vector)."""
    while True:
        if isinstance(v, AccessView):
            arr.insert(0, v.index)
            v = v.parent
        elif isinstance(v, TupleAccessView):
            tup.insert(0, v.i)
            v = v.parent
        elif isinstance(v, SplitView):
            i, j = arr[0], arr[1]
            arr[:2] = [A.add(A.mul(i, v.n), j)]
            v = v.parent
        elif isinstance(v, NestView):
            i, j = arr[0], arr[1]
            arr[:2] = [checked(A.add(A.subst(v.offset, {v.offset_var: i}), j), v.check)]
            v = v.parent
        elif isinstance(v, JoinView):
            k = arr[0]
            arr[:1] = [A.div(k, v.inner), A.mod(k, v.inner)]
            v = v.parent
        elif isinstance(v, ReorderView):
            idx = v.f.apply(arr[0], v.n)
            if v.wide is not None and not _all_int_safe(idx, v.n):
                # the function applied to this index (simplified with the ranges of the loop
                # variables) may exceed int: evaluated in long
                chk = v.check if v.check is not None and not _in_range(idx, v.n) else None
                idx = A.Lookup(WideIndex(v.wide[0], v.wide[1], v.n, chk), "long", arr[0], 0,
                               A.sub(v.n, 1))
            elif v.check is not None and not _in_range(idx, v.n):
                idx = checked(idx, v.check)
            arr[0] = idx
            v = v.parent
        elif isinstance(v, OffsetView):
            arr[0] = A.add(arr[0], v.start)
            v = v.parent
        elif isinstance(v, SlideView):
            w, j = arr[0], arr[1]
            arr[:2] = [A.add(A.mul(w, v.step), j)]
            v = v.parent
        elif isinstance(v, TransposeView):
            arr[0], arr[1] = arr[1], arr[0]
            v = v.parent
        elif isinstance(v, PadView):
            i = A.sub(arr[0], v.left)
            n = v.n
            b = v.boundary
            if isinstance(b, Literal):
                # out of bounds reads give the constant; C's ?: only evaluates the taken read
                lo_ok = A.decide(A.Cond("<=", A.ZERO, i))
                hi_ok = A.decide(A.Cond("<", i, n))
                if lo_ok is False or hi_ok is False:
                    return ConstAccess(b)
                res = _consume(v.parent, [i] + arr[1:], list(tup), extra, width, comp)
                if hi_ok is not True:
                    res = CondAccess(A.Cond("<", i, n), res, ConstAccess(b))
                if lo_ok is not True:
                    res = CondAccess(A.Cond("<=", A.ZERO, i), res, ConstAccess(b))
                return res
            if b == "clamp":
                idx = A.ite(A.Cond("<", i, A.ZERO), A.ZERO, A.ite(A.Cond("<", i, n), i, A.sub(n, 1)))
            elif b == "mirror":
                idx = A.ite(A.Cond("<", i, A.ZERO), A.sub(A.neg(i), 1),
                            A.ite(A.Cond("<", i, n), i, A.sub(A.sub(A.mul(2, n), i), 1)))
            elif b == "wrap":
                idx = A.ite(A.Cond("<", i, A.ZERO), A.add(i, n), A.ite(A.Cond("<", i, n), i, A.sub(i, n)))
            else:  # pragma: no cover
                raise LiftCompileError(f"unknown boundary {b}")
            if _larger_than(idx, MAX_INDEX_NODES):
                raise LiftCompileError(
                    f"pad({b}): the index expression of this read has more than {MAX_INDEX_NODES} operations: each "
                    f"clamp, mirror or wrap pad copies the index of the patterns before it into each of its cases, "
                    f"so chained pads grow it exponentially (the Lift backend's limit, LIFT_MAX_INDEX_NODES); "
                    f"chain fewer such pads")
            arr[0] = idx
            v = v.parent
        elif isinstance(v, AsVectorView):
            if (comp or extra != A.ZERO) and width == 1:
                # a component of a vector (asScalar above): the scalar at vector * w + component
                arr[0] = A.add(A.mul(arr[0], v.width), extra)
                extra = A.ZERO
                comp = False
            elif width == 1 and not tup:
                # a whole vector: one vloadN/vstoreN only where its elements are provably
                # contiguous in memory, else built from (or stored to) its components
                base = arr[0]
                parts = tuple(_consume(v.parent, [A.add(A.mul(base, v.width), c)] + arr[1:], [], A.ZERO, 1)
                              for c in range(v.width))
                if _contiguous(parts):
                    return MemAccess(parts[0].mem, parts[0].index, parts[0].fields, v.width)
                et = _elem_type(v.type, len(arr))
                if not isinstance(et, VectorType):  # pragma: no cover
                    raise LiftCompileError(f"internal: asVector of {v.type}")
                return VectorBuild(et, parts)
            else:
                arr[0] = A.mul(arr[0], v.width)
                width = v.width if width == 1 else width
            v = v.parent
        elif isinstance(v, AsScalarView):
            k = arr[0]
            arr[0] = A.div(k, v.width)
            extra = A.add(extra, A.mod(k, v.width))
            comp = True
            v = v.parent
        elif isinstance(v, FailView):
            return FailAccess(v.cond, _consume(v.parent, arr, tup, extra, width, comp), v.check)
        elif isinstance(v, GuardView):
            res = _consume(v.parent, arr, tup, extra, width, comp)
            return CondAccess(A.Cond("!=", v.guard, A.ZERO), res, ConstAccess(Literal("0", v.type)))
        elif isinstance(v, ScatterIdxView):
            # the position is a value read at run time: nothing is known of it until its check
            ia = _consume(v.idx, [arr[0]], [], A.ZERO, 1)
            check = v.check
            if check.once:
                # the marks of a permuteIdx are the result's: its destination must be a
                # contiguous part of the result, starting at ``base``
                ends = []
                for k in (A.ZERO, A.ONE):
                    b = _consume(v.parent, [k] + arr[1:], list(tup), extra, width, comp)
                    b = b.parts[0] if isinstance(b, TupleBuild) else b
                    if not isinstance(b, MemAccess) or getattr(b.mem, "kind", None) != "output" or b.width != 1:
                        raise LiftCompileError("permuteIdx: it must write (a part of) the program's result")
                    ends.append(b.index)
                if A.sub(ends[1], ends[0]) != A.ONE:
                    raise LiftCompileError("permuteIdx: it must write a contiguous part of the program's "
                                           "result (its positions are marked in the result's order)")
                import dataclasses as _dc
                check = _dc.replace(check, base=ends[0])
            pos = checked(A.Lookup(ValueIndex(ia, v.wide), "value", 0, None, None), check)
            if v.claims is not None:
                # scatterLastIdx: the position, or -1 where the claim of the position is not k
                wa = _consume(v.claims, [pos], [], A.ZERO, 1)
                owner = A.Lookup(ValueIndex(wa, False), "value", 0, None, None)
                pos = A.ite(A.Cond("==", owner, arr[0]), pos, A.cst(-1))
            arr[0] = pos
            v = v.parent
        elif isinstance(v, GatherIdxView):
            k = arr[0]
            ia = _consume(v.idx, [k], [], A.ZERO, 1)
            if not isinstance(ia, MemAccess):
                raise LiftCompileError("gatherIdx: the index array must be read from memory")
            pt = v.parent.type
            if v.check is None:
                hi = A.sub(pt.length, 1) if isinstance(pt, ArrayType) else None
                arr[0] = A.Lookup(ia.mem, ia.mem.name, ia.index, 0, hi)
            else:
                # the indices are data: nothing is known of them until the check
                arr[0] = checked(A.Lookup(ia.mem, ia.mem.name, ia.index, None, None), v.check)
            v = v.parent
        elif isinstance(v, ZipView):
            if not tup:
                # the whole tuple is needed: build it from its components
                parts = tuple(_consume(p, list(arr), [], extra, width, comp) for p in v.parents)
                return TupleBuild(_elem_type(v.type, len(arr)), parts)
            v = v.parents[tup.pop(0)]
        elif isinstance(v, ValueView):
            return ValueAccess(v.mem, v.expr, tuple(tup))
        elif isinstance(v, GenerateView):
            if len(arr) != 1 or tup or extra != A.ZERO or comp or width != 1:   # pragma: no cover
                raise LiftCompileError("internal: generate read as a nested, tuple or vector array")
            return IndexAccess(arr[0])
        elif isinstance(v, MemView):
            idxs = [d.var for d in v.outer if d.replicated]
            from ..memory.alloc import memory_type
            mt = memory_type(v.outer, v.type)
            depth = len(arr)
            off = flat_offset(mt, idxs + arr)
            off = A.add(off, extra)
            et = _elem_type(v.type, depth)
            w = width
            if isinstance(et, VectorType) and width == 1 and extra == A.ZERO and not comp:
                w = et.width
            return MemAccess(v.mem, off, tuple(tup), w)
        else:
            raise LiftCompileError(f"internal: cannot consume view {type(v).__name__}")


# ------------------------------------------------------------------------------- printing

def view_text(v: View) -> str:
    """``MemView(x) <- Zip <- Split(128) <- Access(wg_id) ...`` from memory to the top."""
    parts = []
    while True:
        name = type(v).__name__.replace("View", "")
        if isinstance(v, MemView):
            parts.append(f"Mem({v.mem.name})")
            break
        if isinstance(v, ValueView):
            parts.append(f"Value({v.mem.name if v.mem is not None else v.expr})")
            break
        if isinstance(v, ZipView):
            parts.append("Zip(" + ", ".join(view_text(p) for p in v.parents) + ")")
            break
        if isinstance(v, GenerateView):
            parts.append(f"Generate({A.to_text(v.type.length)})")
            break
        if isinstance(v, AccessView):
            parts.append(f"Access({A.to_text(v.index)})")
        elif isinstance(v, SplitView):
            parts.append(f"Split({A.to_text(v.n)})")
        elif isinstance(v, JoinView):
            parts.append(f"Join({A.to_text(v.inner)})")
        elif isinstance(v, NestView):
            parts.append(f"{v.label}({v.offset_var.name} -> {A.to_text(v.offset)})")
        elif isinstance(v, ReorderView):
            parts.append(f"{v.label.capitalize()}")
        elif isinstance(v, TupleAccessView):
            parts.append(f"Get({v.i})")
        elif isinstance(v, GatherIdxView):
            parts.append(f"GatherIdx[{view_text(v.idx)}]")
        elif isinstance(v, ScatterIdxView):
            nm = {"max": "ScatterMaxIdx", "last": "ScatterLastIdx"}.get(v.check.mode) or \
                ('PermuteIdx' if v.check.once else 'ScatterIdx')
            parts.append(f"{nm}[{view_text(v.idx)}" + (f", {view_text(v.claims)}]" if v.claims is not None else "]"))
        elif isinstance(v, GuardView):
            parts.append(f"If({A.to_text(v.guard)})")
        elif isinstance(v, FailView):
            parts.append(f"FailIf({A.to_text(v.cond)})")
        elif isinstance(v, SlideView):
            parts.append(f"Slide({A.to_text(v.size)}, {A.to_text(v.step)})")
        elif isinstance(v, PadView):
            parts.append(f"Pad({A.to_text(v.left)})")
        elif isinstance(v, OffsetView):
            parts.append(f"Slice({A.to_text(v.start)})")
        else:
            parts.append(name)
        v = v.parent
    return " <- ".join(reversed(parts))
