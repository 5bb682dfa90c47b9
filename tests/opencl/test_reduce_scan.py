"""REDUCE, SCAN, SEG_REDUCE and SEG_SCAN on OpenCL against the numpy runner.

Operators: + * max min xor on int, + max on int64, + * max min on float, and/or/xor on bool,
max/min on char — several component-wise in one tuple-valued SOAC, so that each OpenCL kernel
covers many operators — and two non-commutative operators on tuples — composition of affine maps ``(a, b)`` (x -> a*x + b) on
ints, and an arg-max with an ``if`` that keeps the first of equal maxima.  ``init`` is never the
identity of the operator (REDUCE = init ⊕ x0 ⊕ ... ⊕ x(n-1); empty segments reduce to init).

Floating-point ``+`` and ``*`` are compared with a relative tolerance of 1e-9 (FLOAT_SUM_RTOL):
the OpenCL runner folds chunks in parallel and combines the chunk results, the numpy runner folds
left to right.  Everything else (float max/min included) is compared exactly."""
import math
import zlib

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from lambda_cu.ir import If, Program, Proj, Reduce, Scan, SegReduce, SegScan, Tuple
from lambda_cu.types import TupleT
from lambda_cu.values import SegDes

from .ocl_helpers import (BIG, BOOL, CHAR, FEW, FLOAT, FLOAT_SUM_RTOL, INT, INT64, ODD_SIZES, SD, Index,
                          VecT, check, const, kernel, length, op2, prim, th, var)

pytestmark = pytest.mark.opencl

i = var("i")
X, Y = var("x"), var("y")
II = TupleT((INT, INT))
FI = TupleT((FLOAT, INT))


def affine():
    """(a1, b1) then (a2, b2): x -> a2 * (a1 * x + b1) + b2 = (a1 a2, a2 b1 + b2); wraps."""
    return th((("x", II), ("y", II)),
              Tuple((prim("mul", Proj(X, 0), Proj(Y, 0)),
                     prim("add", prim("mul", Proj(Y, 0), Proj(X, 1)), Proj(Y, 1)))))


def argmax():
    """(value, position): the larger value, the first position of equal ones (an ``if``)."""
    return th((("x", FI), ("y", FI)), If(prim("gt", Proj(Y, 0), Proj(X, 0)), Y, X))


def multi_pull(k):
    """``{ i => (x0[i], ..., x(k-1)[i]) }``."""
    return th(("i", INT), Tuple(tuple(Index(var(f"x{j}"), i) for j in range(k))))


def componentwise(ops, tys):
    """The tuple operator applying ``ops[j]`` to component ``j``."""
    t = TupleT(tuple(tys))
    return th((("x", t), ("y", t)), Tuple(tuple(prim(o, Proj(X, j), Proj(Y, j)) for j, o in enumerate(ops))))


# name: (components (type, operator, init) of a component-wise tuple operator | (types, thunk,
# init) of a general one, rtol).  Several operators share one SOAC (a tuple of vectors), so
# that each OpenCL kernel covers many operators.
CASES = {
    "int": ([(INT, "add", 10), (INT, "mul", 3), (INT, "max", 5), (INT, "min", -5), (INT, "xor", 0x5a5a)], None),
    "int64_bool_char": ([(INT64, "add", 2**40), (INT64, "max", -2**63), (BOOL, "and", True), (BOOL, "or", True),
                         (BOOL, "xor", True), (CHAR, "max", "a"), (CHAR, "min", "z")], None),
    "float_max_min": ([(FLOAT, "max", 0.25), (FLOAT, "min", -0.25)], None),
    "float_sums": ([(FLOAT, "add", 0.5), (FLOAT, "mul", 1.5)], FLOAT_SUM_RTOL),
    "float_add": ([(FLOAT, "add", -0.5)], FLOAT_SUM_RTOL),      # one component: not a tuple
    "affine": (((INT, INT), affine(), (const(2), const(3))), None),
    "argmax": (((FLOAT, INT), argmax(), (const(0.5), const(-1))), None),
}


def parts(case):
    """(component types, operator thunk, init expressions, operator names or None)."""
    spec, _ = CASES[case]
    if isinstance(spec, list):
        tys = tuple(t for t, _, _ in spec)
        ops = [o for _, o, _ in spec]
        op = componentwise(ops, tys) if len(spec) > 1 else op2(ops[0], tys[0])
        return tys, op, tuple(const(v, t) for t, _, v in spec), ops
    tys, op, init = spec
    return tys, op, init, None


def program(case):
    tys, op, init, _ = parts(case)
    f = multi_pull(len(tys))
    ps = [(f"x{j}", VecT(t)) for j, t in enumerate(tys)]
    rs = [f"r{j}" for j in range(len(tys))]
    ks = [kernel("R", ps, [(rs, Reduce(f, init, op, length("x0")))], rs),
          kernel("S", ps, [(rs, Scan(f, init, op, length("x0")))], rs),
          kernel("SR", ps + [("sd", SD)], [(rs, SegReduce(f, init, op, var("sd")))], rs),
          kernel("SS", ps + [("sd", SD)], [(rs, SegScan(f, init, op, var("sd")))], rs)]
    return Program(tuple(ks))


_PROGS: dict = {}


def prog_of(case):
    if case not in _PROGS:
        _PROGS[case] = program(case)
    return _PROGS[case]


def component_data(case, t, op, n, rng):
    if op == "mul" and t == INT:      # wraps, but never reaches 0
        return rng.choice(np.asarray([1, -1, 3, 7, -5, 65537, 2**31 - 1, 1, 1, 1], np.int32), n)
    if op == "add" and t == FLOAT:
        return rng.uniform(0.5, 2.0, n)
    if op == "mul" and t == FLOAT:
        return rng.uniform(0.999, 1.001, n)
    if case == "argmax":
        if t == FLOAT:
            return rng.integers(-50, 50, n).astype(np.float64)    # ties: the first must win
        return np.arange(n, dtype=np.int32)
    if t == FLOAT:
        a = rng.choice(np.asarray([1.5, -2.0, 0.0, -0.0, 3.25, -7.5, math.inf, -math.inf, 1e300]), n)
        if n > 10:
            a[rng.integers(0, n)] = math.nan
        return a
    if t == BOOL:
        return rng.random(n) < {"and": 0.97, "or": 0.03}.get(op, 0.5)
    if t == CHAR:
        return rng.integers(0, 256, n).astype(np.uint8)
    if t == INT64:
        return rng.integers(-2**62, 2**62, n, dtype=np.int64) * 2
    if case == "affine":
        return rng.integers(-3, 4, n).astype(np.int32)
    return rng.integers(-2**31, 2**31, n, dtype=np.int64).astype(np.int32)


def data(case, n, rng):
    tys, _, _, ops = parts(case)
    return [component_data(case, t, (ops or [None] * len(tys))[j], n, rng) for j, t in enumerate(tys)]


def check_all(case, runners, xs, sd):
    rtol = CASES[case][1]
    check(prog_of(case), runners, *xs, name="R", rtol=rtol, expect_error=False)
    check(prog_of(case), runners, *xs, name="S", rtol=rtol, expect_error=False)
    check(prog_of(case), runners, *xs, sd, name="SR", rtol=rtol, expect_error=False)
    check(prog_of(case), runners, *xs, sd, name="SS", rtol=rtol, expect_error=False)


SEG_SHAPES = [[], [0], [0, 0, 0], [1], [2], [0, 3], [3, 0], [0, 2, 0, 0, 1, 0], [1, 1, 1, 1, 1, 1, 1],
              [7, 0, 0, 0, 5], [2049, 0, 2048, 1, 0, 0, 2050]]


@pytest.mark.parametrize("case", sorted(CASES))
def test_edge_shapes(runners, case):
    """Every operator on: empty vectors, one element, all-empty / leading / trailing empty
    segments, one segment, lengths around the chunk sizes."""
    rng = np.random.default_rng(zlib.crc32(case.encode()))
    for lengths in SEG_SHAPES:
        n = sum(lengths)
        check_all(case, runners, data(case, n, rng), SegDes(lengths))
    for n in ODD_SIZES:
        check_all(case, runners, data(case, n, rng), SegDes([n]))


@pytest.mark.parametrize("case", ["int", "float_sums", "float_max_min", "affine", "argmax"])
def test_random_segments(runners, case):
    rng = np.random.default_rng(7)
    for _ in range(3):
        lengths = rng.integers(0, 6, rng.integers(0, 40)) * (rng.random() < 0.9)
        check_all(case, runners, data(case, int(lengths.sum()), rng), SegDes(lengths))


@FEW
@given(st.lists(st.lists(st.integers(-3, 3), max_size=5), max_size=10))
def test_affine_hypothesis(runners, rows):
    flat = [x for r in rows for x in r]
    xs = np.asarray(flat, np.int32)
    ys = np.asarray([(3 * k) % 11 - 5 for k in range(len(flat))], np.int32)
    check_all("affine", runners, [xs, ys], SegDes([len(r) for r in rows]))
    check_all("argmax", runners, [xs.astype(np.float64), ys], SegDes([len(r) for r in rows]))


@pytest.mark.parametrize("case", ["int", "float_add", "float_max_min", "affine"])
def test_big(runners, case):
    """2^20 + 1 elements in segments of 0..7 elements (0..2000 for float sums, which the numpy
    runner folds left to right segment by segment), leading and trailing empty ones; the
    default runner (64 chunks)."""
    rng = np.random.default_rng(3)
    xs = data(case, BIG, rng)
    lengths = rng.integers(0, 8, BIG // 4) if case != "float_add" else rng.integers(0, 2000, BIG // 1000)
    lengths[0] = lengths[-1] = 0
    lengths = np.concatenate([lengths, [BIG - lengths.sum()], [0]])
    check_all(case, runners[:1], xs, SegDes(lengths))


def test_nan_and_signed_zeros_in_max_min(runners):
    xs = np.asarray([0.0, -0.0, 1.0, math.nan, 2.0, -0.0, 0.0])
    case = "float_max_min"
    for k in range(len(xs) + 1):
        check_all(case, runners, [xs[:k], xs[:k][::-1]], SegDes([1, 0, k - 1] if k else []))
    zeros = np.asarray([-0.0, 0.0] * 5000)
    check_all(case, runners, [zeros, zeros[::-1]], SegDes([3, 4997, 5000]))


def test_init_from_a_kernel_scalar(runners):
    """``init`` is an expression over the kernel's scalars (here a parameter, and a reduction
    computed earlier in the same kernel, read on the device)."""
    f = th(("i", INT), Index(var("xs"), i))
    k = kernel("K", [("xs", VecT(INT)), ("sd", SD), ("a", INT)], [
        ("m", Reduce(f, (prim("mul", var("a"), const(2)),), op2("max", INT), length("xs"))),
        ("s", Scan(f, (var("m"),), op2("add", INT), length("xs"))),
        ("t", SegReduce(f, (prim("neg", var("m")),), op2("add", INT), var("sd"))),
        ("u", SegScan(f, (var("m"),), op2("min", INT), var("sd"))),
    ], ["m", "s", "t", "u"])
    prog = Program((k,))
    for xs, lengths in (([], []), ([], [0, 0]), ([5], [1]), ([3, -1, 4, 1, -5, 9], [0, 2, 0, 4, 0])):
        check(prog, runners, np.asarray(xs, np.int32), SegDes(lengths), 1, expect_error=False)
