"""The Lift patterns.

Algorithmic: ``Map`` (map, mapSeq, mapGlb(d), mapWrg(d), mapLcl(d)), ``Reduce`` (reduce,
reduceSeq, scanSeq), ``FilterSeq`` (filterSeq: sequential compaction), ``RadixSeq`` (radixHistSeq, radixRankSeq:
the sequential passes of a radix sort), ``Iterate``, ``Id`` (the identity user function), ``MapVec``.
Data layout (views, no memory): ``Split``, ``Join``, ``Gather``, ``Scatter``, ``Zip``, ``Get``,
``Slide``, ``Pad``, ``Transpose``, ``AsVector``, ``AsScalar``, ``Slice`` and the patterns for
segmented data: ``GatherIdx`` (data-dependent gather ``out[k] = v[idx[k]]``),
``SplitOffsets`` (row ``i`` spans ``offsets[i] .. offsets[i+1]``) and ``Partition(n, f)``;
``Generate(n)``, the index space ``0 .. n-1`` as an array (a view without memory), and
``At`` (``arrayAccess(xs, k)``: element ``k`` of ``xs`` for an index ``k`` computed at run time,
an access view with an index expression, checked) and ``AtIf`` (``arrayAccessIf(xs, k, g)``:
the same where ``g`` holds, else zero, unchecked), and ``FailIf`` (``failIf(c, x)``: ``x``,
reporting an error where ``c`` holds), and ``ScatterIdx`` (``scatterIdx(idx, xs)``/``permuteIdx(idx,
xs)``: the writing counterpart of ``gatherIdx``, element ``k`` of ``xs`` written at ``idx[k]``,
checked, and for ``permuteIdx`` written at most once).
Address spaces: ``ToGlobal``, ``ToLocal``, ``ToPrivate``.

Index functions for gather/scatter/partition: ``IndexLambda`` (``\\i -> i / M + ...``),
``Reverse``, ``ReorderStride(s)``, ``TransposeIdx(n, m)``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Union

from .. import arith as A
from ..arith import Expr as AExpr, Var
from .expr import Expr, FunDecl, Literal


class Pattern(FunDecl):
    """Base class of built-in patterns."""

    name = "pattern"


# --------------------------------------------------------------------------- index functions

class IndexFun:
    """A function on indices ``i -> f(i)`` that may use the array length ``n``."""

    def apply(self, i: AExpr, n: AExpr) -> AExpr:  # pragma: no cover - abstract
        raise NotImplementedError


@dataclass(frozen=True)
class IndexLambda(IndexFun):
    param: Var
    body: AExpr

    def apply(self, i, n):
        return A.subst(self.body, {self.param: i})


@dataclass(frozen=True)
class Reverse(IndexFun):
    def apply(self, i, n):
        return A.sub(A.sub(n, 1), i)


@dataclass(frozen=True)
class ReorderStride(IndexFun):
    """``i -> i / (n/s) + s * (i % (n/s))``: after splitting in chunks of ``n/s``, consecutive
    chunks read consecutive elements (coalescing), as in the rewrite-rules paper."""
    stride: AExpr

    def apply(self, i, n):
        m = A.div(n, self.stride)
        return A.add(A.div(i, m), A.mul(self.stride, A.mod(i, m)))


@dataclass(frozen=True)
class TransposeIdx(IndexFun):
    """Index function of the transposition of an ``n x m`` row-major matrix read as an
    ``m x n`` one: ``i -> (i % n) * m + i / n``."""
    n: AExpr
    m: AExpr

    def apply(self, i, n_total):
        return A.add(A.mul(A.mod(i, self.n), self.m), A.div(i, self.n))


# --------------------------------------------------------------------------- algorithmic

MAP_KINDS = ("map", "mapSeq", "mapGlb", "mapWrg", "mapLcl")


@dataclass(frozen=True)
class Map(Pattern):
    kind: str       # one of MAP_KINDS
    f: FunDecl
    dim: int = 0

    @property
    def name(self):  # type: ignore[override]
        return self.kind

    @property
    def parallel(self) -> bool:
        return self.kind in ("mapGlb", "mapWrg", "mapLcl")


@dataclass(frozen=True)
class Reduce(Pattern):
    """``reduceSeq(f, init)``: ``f(...f(f(init, x0), x1)..., xn-1)``, result ``[acc]_1``.
    ``scanSeq(f, init)``: the same fold, its result the accumulator *before* each element --
    ``[init, f(init, x0), f(f(init, x0), x1), ...]``, ``[acc]_n`` (an exclusive scan, as NESL's
    ``plus_scan``)."""
    kind: str       # "reduce" | "reduceSeq" | "scanSeq"
    f: FunDecl
    init: Expr

    @property
    def name(self):  # type: ignore[override]
        return self.kind


@dataclass(frozen=True)
class FilterSeq(Pattern):
    """``filterSeq(p, v)(xs, slots)``: the values ``v(x)`` of the elements ``x`` of ``xs`` for
    which the predicate ``p`` (a function to ``bool``) holds, in order, sequentially (``v`` is
    ``id`` to keep the elements themselves, ``\t -> id(t._0)`` to keep one component of a zip
    whose other components only the predicate reads).  The number kept is data: it is given by
    the second argument, an array whose only use is its length ``k`` (the positions the kept
    values fill, e.g. a row of ``splitOffsets(offs, generate(K))`` with ``offs`` the exclusive
    scan of counts made before): ``[s]_m, [u]_k -> [t]_k`` for ``p: s -> bool, v: s -> t``.
    Each value is stored at the next position while that is below ``k`` -- without a branch on
    the predicate -- and the position advances past a kept element only; the run writes no
    more than ``k`` values whatever the predicate gives; where fewer than ``k`` are kept, the
    slot after the last kept value is zeroed after the loop (it holds a rejected element) and
    the runtime zeroes the output first, so the rest of the row is 0."""
    f: FunDecl          # the predicate
    value: FunDecl      # the value kept of an element
    name = "filterSeq"
    arity = 2


@dataclass(frozen=True)
class RadixSeq(Pattern):
    """The sequential passes of an LSD radix sort over a row of elements, each one's digit
    ``f(x) & (2^bits - 1)`` given by the function ``f`` (to ``int``; e.g. a user
    function of the element and a shift, ``\\k -> digit(k, sh)``, so one program serves every
    pass):

    * ``radixHistSeq(bits, f)(xs)``: the digits' histogram, ``[t]_m -> [int]_{2^bits}``
      (element ``d`` the number of elements whose digit is ``d``);
    * ``radixRankSeq(bits, f)(xs, starts)``: each element's position in a stable sort by the
      digit, ``[t]_m, [int]_{2^bits} -> [int]_m``: ``starts[d]`` plus the number of elements of
      digit ``d`` before it in the row (``starts`` a row of the exclusive scan, digit-major, of
      the histograms of every row: the positions are then a permutation of the whole array).

    Both count in a private array of ``2^bits`` ints (``1 <= bits <= 8``), one work-item a row;
    the digit is a private variable, computed once an element."""
    bits: int
    f: FunDecl
    rank: bool = False

    @property
    def name(self):  # type: ignore[override]
        return "radixRankSeq" if self.rank else "radixHistSeq"

    @property
    def arity(self):  # type: ignore[override]
        return 2 if self.rank else 1


@dataclass(frozen=True)
class Iterate(Pattern):
    n: AExpr
    f: FunDecl
    name = "iterate"


@dataclass(frozen=True)
class Id(Pattern):
    """The identity user function on values (``mapSeq(id)`` copies an array)."""
    name = "id"


@dataclass(frozen=True)
class MapVec(Pattern):
    """Applies a scalar user function to every component of vectors (vectorised form)."""
    f: FunDecl
    name = "mapVec"

    @property
    def arity(self):  # type: ignore[override]
        return self.f.arity


# --------------------------------------------------------------------------- data layout

class LayoutPattern(Pattern):
    """Patterns that only change how memory is accessed (views; no code, no memory)."""


@dataclass(frozen=True)
class Split(LayoutPattern):
    n: AExpr
    name = "split"


@dataclass(frozen=True)
class Join(LayoutPattern):
    name = "join"


@dataclass(frozen=True)
class Gather(LayoutPattern):
    idx: IndexFun
    name = "gather"


@dataclass(frozen=True)
class Scatter(LayoutPattern):
    idx: IndexFun
    name = "scatter"


@dataclass(frozen=True)
class Zip(LayoutPattern):
    n: int = 2
    name = "zip"

    @property
    def arity(self):  # type: ignore[override]
        return self.n


@dataclass(frozen=True)
class Get(LayoutPattern):
    i: int
    name = "get"


@dataclass(frozen=True)
class Slide(LayoutPattern):
    size: AExpr
    step: AExpr
    name = "slide"


BOUNDARIES = ("clamp", "mirror", "wrap")


@dataclass(frozen=True)
class Pad(LayoutPattern):
    """``pad(l, r, b)``: ``b`` is ``clamp``, ``mirror``, ``wrap`` or a constant Literal."""
    left: AExpr
    right: AExpr
    boundary: Union[str, Literal]
    name = "pad"


@dataclass(frozen=True)
class Transpose(LayoutPattern):
    name = "transpose"


@dataclass(frozen=True)
class AsVector(LayoutPattern):
    width: int
    name = "asVector"


@dataclass(frozen=True)
class AsScalar(LayoutPattern):
    name = "asScalar"


@dataclass(frozen=True)
class Slice(LayoutPattern):
    """``slice(start, stop)``: elements ``start .. stop-1`` (sizes may use ``len(x)``)."""
    start: AExpr
    stop: AExpr
    name = "slice"


@dataclass(frozen=True)
class GatherIdx(LayoutPattern):
    """``gatherIdx(idx, v)[k] = v[idx[k]]`` with ``idx`` read from memory (a view), each index
    checked against ``v``'s length (``code``: as ``At.code``)."""
    code: Optional[int] = None
    name = "gatherIdx"
    arity = 2


@dataclass(frozen=True)
class Generate(LayoutPattern):
    """``generate(n)``: the index space ``[0, 1, ..., n-1]`` of type ``[int]_n`` as a view (no
    memory: reading element ``k`` gives ``k``).  It is what a map over positions maps over (the
    λcu lowering's pull thunks ``{ i => ... }`` that use their index as a value)."""
    n: AExpr
    name = "generate"
    arity = 0


@dataclass(frozen=True)
class At(LayoutPattern):
    """``arrayAccess(xs, k)``: element ``k`` of the array ``xs``, where the index ``k`` is a value
    (``int`` or ``long``) computed at run time, e.g. by a user function from loaded data: an
    *access view with an index expression* (``xs``'s view read at the value of ``k``; no memory).
    The index is checked: outside ``0 .. len(xs)-1`` it records the site in the kernel's error
    buffer and reads element 0 instead (the run then fails).  ``code`` is the error code the
    site reports in a kernel compiled with ``error_base`` (the NESL lowering gives each
    subscript its site number); ``None``: numbered by the code generator."""
    code: Optional[int] = None
    name = "arrayAccess"
    arity = 2


@dataclass(frozen=True)
class AtIf(LayoutPattern):
    """``arrayAccessIf(xs, k, g)``: ``arrayAccess(xs, k)`` where the ``bool`` value ``g`` holds,
    else the zero of ``xs``'s (scalar) element type, without reading or checking anything:
    a subscript in a branch of a conditional, which runs only when the branch does (the λcu
    lowering's ``if c then xs[e] else ...``, ``g`` the branch's path condition)."""
    code: Optional[int] = None
    name = "arrayAccessIf"
    arity = 3


@dataclass(frozen=True)
class FailIf(LayoutPattern):
    """``failIf(c, x)``: the value ``x``, where the ``bool`` value ``c`` holds also recording
    this site in the kernel's error buffer (the run then fails): a run-time check of a value,
    as ``arrayAccess`` checks an index (the λcu lowering's checked division, ``c`` being a zero
    divisor on the path the thunk takes).  ``code``: as ``At.code``."""
    code: Optional[int] = None
    name = "failIf"
    arity = 2


@dataclass(frozen=True)
class ScatterIdx(LayoutPattern):
    """``scatterIdx(idx, xs)``: the array whose element ``idx[k]`` is ``xs[k]`` -- a scatter at
    indices read at run time (the writing counterpart of ``gatherIdx``: an *output view with an
    index expression*, no memory).  It is only written through: the producer of ``xs`` writes
    its element ``k`` at the value ``idx[k]`` of the destination (``idx`` is read element by
    element, ``int`` or ``long``).  Each index is checked against the destination's length: an
    index outside ``0 .. len - 1`` records the site in the kernel's error buffer (the element
    is then written to position 0; the run fails).  ``permuteIdx(idx, xs)`` (``once``) also
    checks that no position is written twice, with a per-position counter (``atomic_inc`` on
    the kernel's ``marks`` buffer, zeroed by the host): for ``n`` elements into ``n`` positions
    that makes ``idx`` a permutation.  ``code``: as ``At.code`` (both checks report it)."""
    code: Optional[int] = None
    once: bool = False
    #: ``"max"``: ``scatterMaxIdx(M)(idx, xs)``, the claim of a last-writer scatter: the array of
    #: ``length`` ints whose element ``j`` is the largest ``xs[k]`` with ``idx[k] = j`` (an
    #: ``atomic_max`` a write; the host fills the result with -1 first, so -1 where none);
    #: ``"last"``: ``scatterLastIdx(idx, win, xs)``, the conditional write: element ``k`` is
    #: written at ``idx[k]`` only where ``win[idx[k]] == k`` (``win`` the claims of ``idx``,
    #: ``[int]M``: the result is ``[t]M``, its positions no element wins left as they are:
    #: 0 in a result the runtime allocates, which it zeroes first, as for ``scatterIdx``)
    mode: str = ""
    length: Optional[object] = None

    @property
    def arity(self):  # type: ignore[override]
        return 3 if self.mode == "last" else 2

    @property
    def name(self):  # type: ignore[override]
        if self.mode == "max":
            return "scatterMaxIdx"
        if self.mode == "last":
            return "scatterLastIdx"
        return "permuteIdx" if self.once else "scatterIdx"


@dataclass(frozen=True)
class SplitOffsets(LayoutPattern):
    """``splitOffsets(offsets, v)``: row ``i`` is ``v[offsets[i] .. offsets[i+1]-1]``; type
    ``[i -> [t]_{offsets[i+1]-offsets[i]}]_{n}`` for ``offsets : [int]_{n+1}``."""
    name = "splitOffsets"
    arity = 2


@dataclass(frozen=True)
class Partition(LayoutPattern):
    """``partition(n, f)``: ``[t]_{sum f(i)} -> [i -> [t]_{f(i)}]_n`` for statically known
    row lengths ``f``."""
    n: AExpr
    f: IndexFun
    name = "partition"


# --------------------------------------------------------------------------- address spaces

@dataclass(frozen=True)
class ToGlobal(Pattern):
    f: FunDecl
    name = "toGlobal"

    @property
    def arity(self):  # type: ignore[override]
        return self.f.arity


@dataclass(frozen=True)
class ToLocal(Pattern):
    f: FunDecl
    name = "toLocal"

    @property
    def arity(self):  # type: ignore[override]
        return self.f.arity


@dataclass(frozen=True)
class ToPrivate(Pattern):
    f: FunDecl
    name = "toPrivate"

    @property
    def arity(self):  # type: ignore[override]
        return self.f.arity


ADDRESS_PATTERNS = (ToGlobal, ToLocal, ToPrivate)
