"""Building Lift programs from Python (the API the lowering of λcu kernels uses).

Functions (FunDecl) are called to build FunCalls and composed with :func:`compose` or
``f.o(g)``; lambdas are written as Python functions over Lift parameters::

    from lift_backend.ir.builders import *
    from lift_backend.types import Float, ArrayType
    from lift_backend.arith import size_var

    N = size_var("N")
    add = userfun("add", [("a", Float), ("b", Float)], Float, "return a + b;")
    prog = program("sum", [("x", ArrayType(Float, N))],
                   lambda x: compose(join(), mapGlb(toGlobal(mapSeq(id_())) .o(reduceSeq(add, flit(0.0)))),
                                     split(128))(x))
"""
from __future__ import annotations

import dataclasses
import inspect
from typing import Callable, Sequence, Tuple, Union

from .. import arith as A
from ..errors import LiftTypeError
from ..types import ArrayType, Double, Float, Int, ScalarType, Type, VectorType
from . import patterns as P
from .expr import (field_names, Expr, FunCall, FunDecl, Lambda, Literal, Param, Program, UserFun, compose,
                   unused_number)

__all__ = [
    "userfun", "lam", "program", "compose", "lit", "flit", "dlit", "ilit", "vlit",
    "map_", "mapSeq", "mapGlb", "mapWrg", "mapLcl", "reduceSeq", "reduce_", "scanSeq", "filterSeq", "radixHistSeq", "radixRankSeq", "iterate", "split",
    "join", "gather", "scatter", "zip_", "get", "slide", "pad", "transpose", "id_", "toGlobal",
    "toLocal", "toPrivate", "asVector", "asScalar", "mapVec", "slice_", "gatherIdx", "scatterIdx", "permuteIdx", "scatterMaxIdx", "scatterLastIdx",
    "splitOffsets", "partition", "index_fun", "reverse", "reorderStride", "transposeIdx",
]

def userfun(name: str, params: Sequence[Tuple[str, Type]], ret: Type, body: str) -> UserFun:
    """A user function: C ``body`` over scalar/vector/tuple parameters."""
    from ..types import is_value, type_to_text
    params = tuple(params)
    for what, t in [*((f"parameter {n}", t) for n, t in params), ("the result", ret)]:
        # the parser reads types; here a string ("float") or an array type would be taken
        # for one and reported as a mismatch of equal-looking names
        if not isinstance(t, Type) or not is_value(t):
            shown = type_to_text(t) if isinstance(t, Type) else repr(t)
            raise LiftTypeError(f"user function {name}: {what} has type {shown}: expected a scalar, "
                                f"vector or tuple type (Float, VectorType(Float, 4), TupleType(...))")
    return UserFun(name, tuple(n for n, _ in params), tuple(t for _, t in params), ret, body)


class _Hole(Param):
    """A parameter of a lambda being built, before it has its name: equal only to itself."""

    __eq__ = object.__eq__
    __hash__ = object.__hash__


def _fill(node, m: dict):
    """``node`` with the holes of ``m`` replaced (the unchanged parts shared)."""
    if isinstance(node, _Hole):
        return m.get(node, node)
    if isinstance(node, UserFun) or not isinstance(node, (Expr, FunDecl)) \
            or not dataclasses.is_dataclass(node):
        return node
    changes = {}
    for fname in field_names(node):
        v = getattr(node, fname)
        if isinstance(v, (Expr, FunDecl)):
            w = _fill(v, m)
            if w is not v:
                changes[fname] = w
        elif isinstance(v, tuple) and any(isinstance(x, (Expr, FunDecl)) for x in v):
            w = tuple(_fill(x, m) for x in v)
            if any(a is not b for a, b in zip(v, w)):
                changes[fname] = w
    return dataclasses.replace(node, **changes) if changes else node


def lam(fn: Callable[..., Expr], names: Sequence[str] = ()) -> Lambda:
    """``lam(lambda acc, x: add(acc, x))`` -> ``\\acc x -> add(acc, x)``.

    Without ``names`` the parameters are named after the body is built: ``_l<n>``, ``n``
    above the numbers of the ``_l`` parameters in the body (the lambdas built inside this
    one), so they capture none of its names and no lambda inside shadows them; no counter
    (building a program twice gives the same names, issue 13)."""
    n = len(inspect.signature(fn).parameters)
    if names:
        params = tuple(Param(p) for p in names)
        return Lambda(params, fn(*params))
    holes = tuple(_Hole("_l?") for _ in range(n))
    body = fn(*holes)
    first = unused_number("_l", body)
    params = tuple(Param(f"_l{first + j}") for j in range(n))
    return Lambda(params, _fill(body, dict(zip(holes, params))))


def program(name: str, params: Sequence[Tuple[str, Type]], body: Callable[..., Expr]) -> Program:
    ps = tuple(Param(n, t) for n, t in params)
    return Program(name, ps, body(*ps))


def _fun(f) -> FunDecl:
    if isinstance(f, FunDecl):
        return f
    if callable(f):
        return lam(f)
    raise TypeError(f"expected a Lift function, got {f!r}")


def lit(value: str, t: Type) -> Literal:
    return Literal(value, t)


def _float_text(v, single: bool) -> str:
    """The C text of the finite number ``v`` as a ``float`` (``single``) or ``double`` literal;
    a value the language has no literal for (not finite, beyond the type) is refused, as the
    parser refuses ``1e999``."""
    import math
    import struct
    t = "float" if single else "double"
    if isinstance(v, bool) or not isinstance(v, (int, float)) and not hasattr(v, "__float__"):
        raise LiftTypeError(f"{'flit' if single else 'dlit'}: expected a number, got {v!r}")
    try:
        x = float(v)
        if single and math.isfinite(x):
            x32 = struct.unpack("f", struct.pack("f", x))[0]     # inf beyond FLT_MAX
            if not math.isfinite(x32):
                x = x32
    except (OverflowError, ValueError, TypeError):
        x = math.inf
    if not math.isfinite(x):
        raise LiftTypeError(f"{'flit' if single else 'dlit'}({v!r}): a {t} literal must be a finite {t} "
                            f"(pass infinities and NaN as scalar parameters)")
    return repr(x)


def flit(v: float) -> Literal:
    return Literal(_float_text(v, True) + "f", Float)


def dlit(v: float) -> Literal:
    return Literal(_float_text(v, False), Double)


def ilit(v: int) -> Literal:
    if isinstance(v, bool) or not isinstance(v, int) and not hasattr(v, "__index__"):
        raise LiftTypeError(f"ilit: expected an integer, got {v!r}")
    v = int(v.__index__())
    if not -2 ** 31 <= v <= 2 ** 31 - 1:
        raise LiftTypeError(f"ilit({v}): the value does not fit the type int "
                            f"({-2 ** 31} .. {2 ** 31 - 1})")
    # C reads 2147483648 as a long before negating it
    return Literal(str(v) if v != -2 ** 31 else "(-2147483647 - 1)", Int)


def vlit(scalar: Literal, width: int) -> Literal:
    """A vector literal with all components equal to ``scalar`` (``float4(0.0f)``)."""
    return Literal(scalar.value, VectorType(scalar.type, width))


def map_(f) -> P.Map:
    return P.Map("map", _fun(f))


def mapSeq(f) -> P.Map:
    return P.Map("mapSeq", _fun(f))


def mapGlb(f, dim: int = 0) -> P.Map:
    return P.Map("mapGlb", _fun(f), dim)


def mapWrg(f, dim: int = 0) -> P.Map:
    return P.Map("mapWrg", _fun(f), dim)


def mapLcl(f, dim: int = 0) -> P.Map:
    return P.Map("mapLcl", _fun(f), dim)


def reduceSeq(f, init: Expr) -> P.Reduce:
    return P.Reduce("reduceSeq", _fun(f), init)


def scanSeq(f, init: Expr) -> P.Reduce:
    """The exclusive scan: the accumulator before each element."""
    return P.Reduce("scanSeq", _fun(f), init)


def filterSeq(p, v=None) -> P.FilterSeq:
    """Sequential compaction: ``filterSeq(p, v)(xs, slots)`` keeps ``v(x)`` of the elements ``x``
    of ``xs`` where ``p`` holds, as many as ``slots`` has elements (``v``: ``id`` by default)."""
    return P.FilterSeq(_fun(p), P.Id() if v is None else _fun(v))


def radixHistSeq(bits: int, f) -> P.RadixSeq:
    """``radixHistSeq(bits, f)(xs)``: the histogram of the elements' digits ``f(x) & (2^bits -
    1)``, ``[int]_{2^bits}``."""
    return P.RadixSeq(bits, _fun(f))


def radixRankSeq(bits: int, f) -> P.RadixSeq:
    """``radixRankSeq(bits, f)(xs, starts)``: each element's position in a stable sort by its
    digit, ``starts[d]`` plus the elements of digit ``d`` before it."""
    return P.RadixSeq(bits, _fun(f), rank=True)


def reduce_(f, init: Expr) -> P.Reduce:
    return P.Reduce("reduce", _fun(f), init)


def iterate(n, f) -> P.Iterate:
    return P.Iterate(A.to_expr(n), _fun(f))


def split(n) -> P.Split:
    return P.Split(A.to_expr(n))


def join() -> P.Join:
    return P.Join()


def index_fun(fn: Callable[[A.Var], A.Expr], name: str = "i") -> P.IndexLambda:
    """``index_fun(lambda i: i % N * M + i // N)`` (``//`` is C division)."""
    v = A.Var(name, A.Cst(0), None, -1)
    return P.IndexLambda(v, A.to_expr(fn(v)))


def reverse() -> P.Reverse:
    return P.Reverse()


def reorderStride(s) -> P.ReorderStride:
    return P.ReorderStride(A.to_expr(s))


def transposeIdx(n, m) -> P.TransposeIdx:
    return P.TransposeIdx(A.to_expr(n), A.to_expr(m))


def _idx(f) -> P.IndexFun:
    if isinstance(f, P.IndexFun):
        return f
    return index_fun(f)


def gather(f) -> P.Gather:
    return P.Gather(_idx(f))


def scatter(f) -> P.Scatter:
    return P.Scatter(_idx(f))


def zip_(*arrays: Expr) -> FunCall:
    return FunCall(P.Zip(len(arrays)), tuple(arrays))


def get(i: int) -> P.Get:
    return P.Get(i)


def slide(size, step) -> P.Slide:
    return P.Slide(A.to_expr(size), A.to_expr(step))


def pad(left, right, boundary) -> P.Pad:
    return P.Pad(A.to_expr(left), A.to_expr(right), boundary)


def transpose() -> P.Transpose:
    return P.Transpose()


def id_() -> P.Id:
    return P.Id()


def toGlobal(f) -> P.ToGlobal:
    return P.ToGlobal(_fun(f))


def toLocal(f) -> P.ToLocal:
    return P.ToLocal(_fun(f))


def toPrivate(f) -> P.ToPrivate:
    return P.ToPrivate(_fun(f))


def asVector(width: int) -> P.AsVector:
    return P.AsVector(width)


def asScalar() -> P.AsScalar:
    return P.AsScalar()


def mapVec(f) -> P.MapVec:
    return P.MapVec(_fun(f))


def slice_(start, stop) -> P.Slice:
    return P.Slice(A.to_expr(start), A.to_expr(stop))


def gatherIdx(idx: Expr, v: Expr, code=None) -> FunCall:
    """``v[idx[k]]`` for every ``k`` (a view; each index checked, reporting ``code``)."""
    return FunCall(P.GatherIdx(code), (idx, v))


def scatterIdx(idx: Expr, v: Expr, code=None) -> FunCall:
    """The array whose element ``idx[k]`` is ``v[k]`` (written through; each index checked)."""
    return FunCall(P.ScatterIdx(code), (idx, v))


def permuteIdx(idx: Expr, v: Expr, code=None) -> FunCall:
    """``scatterIdx`` that also checks that no position is written twice."""
    return FunCall(P.ScatterIdx(code, once=True), (idx, v))


def scatterMaxIdx(length, idx: Expr, v: Expr, code=None) -> FunCall:
    """The claims of a last-writer scatter: ``length`` ints, element ``j`` the largest ``v[k]``
    with ``idx[k] = j`` (-1 where none; an ``atomic_max`` a write, each index checked)."""
    return FunCall(P.ScatterIdx(code, mode="max", length=A.to_expr(length)), (idx, v))


def scatterLastIdx(idx: Expr, win: Expr, v: Expr, code=None) -> FunCall:
    """``v[k]`` written at ``idx[k]`` where ``win[idx[k]] == k`` (``win`` the claims of
    ``scatterMaxIdx``: the last writer of each position wins; each index checked)."""
    return FunCall(P.ScatterIdx(code, mode="last"), (idx, win, v))


def splitOffsets(offsets: Expr, v: Expr) -> FunCall:
    """Row ``i`` is ``v[offsets[i] .. offsets[i+1]-1]``."""
    return FunCall(P.SplitOffsets(), (offsets, v))


def partition(n, f) -> P.Partition:
    return P.Partition(A.to_expr(n), _idx(f))
