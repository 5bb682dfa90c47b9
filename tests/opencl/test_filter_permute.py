"""FILTER, PARTITION, SEG_FILTER, SEG_PARTITION, PERMUTE, SEG_PERMUTE, SCATTER and ONCE on
OpenCL against the numpy runner (results exactly; errors with the same location and message)."""
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from lambda_cu.errors import MSG_BOUNDS, MSG_PERMUTE, MSG_SCATTER, MSG_SCATTER_LENGTHS
from lambda_cu.ir import (Filter, If, Let, Once, Partition, Permute, Program, Proj, Scatter, SegFilter,
                          SegPartition, SegPermute, Tuple)
from lambda_cu.types import TupleT
from lambda_cu.values import SegDes

from .ocl_helpers import (L, BIG, BOOL, CHAR, FEW, FLOAT, INT, INT64, ODD_SIZES, SD, Index, Length, SegVec,
                          VecT, check, const, kernel, length, prim, seg, th, var)

pytestmark = pytest.mark.opencl

i, x = var("i"), var("x")
IV, FV = VecT(INT), VecT(FLOAT)
SEG_SHAPES = [[], [0], [0, 0, 0], [1], [3], [0, 2], [2, 0], [0, 1, 0, 0, 3, 0], [1] * 7, [5, 0, 0, 0, 4],
              [2049, 0, 0, 2048, 3, 0]]

# ------------------------------------------------------------------------------------------------
# FILTER / PARTITION / SEG_FILTER / SEG_PARTITION


def elem():
    """``{ i => (xs[i], i, xs[i] > 0.5) }``: a tuple of three types."""
    xi = Index(var("xs"), i)
    return th(("i", INT), Tuple((xi, i, prim("gt", xi, const(0.5)))))


def keep():
    """Keep ``(x, k, b)`` when ``b`` or ``k`` is a multiple of 3 (NaN never > 0.5)."""
    p = var("p")
    return th(("p", TupleT((FLOAT, INT, BOOL))),
              prim("or", Proj(p, 2), prim("eq", prim("rem", Proj(p, 1), const(3)), const(0))))


def filters():
    ps = [("xs", FV), ("sd", SD)]
    return Program((
        kernel("F", ps, [(["a", "b", "c"], Filter(elem(), keep(), length("xs")))], ["a", "b", "c"]),
        kernel("P", ps, [(["a", "b", "c", "d", "e", "f"], Partition(elem(), keep(), length("xs")))],
               ["a", "b", "c", "d", "e", "f"]),
        kernel("SF", ps, [(["a", "b", "c", "s"], SegFilter(elem(), keep(), var("sd")))], ["a", "b", "c", "s"]),
        kernel("SP", ps, [(["a", "b", "c", "s", "d", "e", "f", "t"], SegPartition(elem(), keep(), var("sd")))],
               ["a", "b", "c", "s", "d", "e", "f", "t"]),
    ))


FILTERS = filters()


def check_filters(runners, xs, lengths):
    xs = np.asarray(xs, np.float64)
    sd = SegDes(lengths)
    for name in ("F", "P", "SF", "SP"):
        check(FILTERS, runners, xs, sd, name=name, expect_error=False)


@pytest.mark.parametrize("lengths", SEG_SHAPES, ids=str)
def test_filters_segment_shapes(runners, lengths):
    n = sum(lengths)
    rng = np.random.default_rng(n)
    check_filters(runners, rng.random(n), lengths)
    check_filters(runners, np.zeros(n), lengths)          # keeps only multiples of 3
    check_filters(runners, np.ones(n), lengths)           # keeps everything


@pytest.mark.parametrize("n", ODD_SIZES)
def test_filters_sizes(runners, n):
    rng = np.random.default_rng(n)
    xs = rng.random(n)
    xs[::5] = np.nan
    check_filters(runners, xs, [n])


@FEW
@given(st.lists(st.lists(st.sampled_from([0.0, 1.0, np.nan]), max_size=6), max_size=8))
def test_filters_hypothesis(runners, rows):
    check_filters(runners, [x for r in rows for x in r], [len(r) for r in rows])


def test_filters_big(runners):
    rng = np.random.default_rng(1)
    lengths = rng.integers(0, 8, BIG // 4)
    lengths[:3] = 0
    lengths = np.concatenate([lengths, [BIG - lengths.sum(), 0, 0]])
    check_filters(runners[:1], rng.random(BIG), lengths)


# ------------------------------------------------------------------------------------------------
# PERMUTE / SEG_PERMUTE


def permutes():
    xi = Index(var("xs"), i)
    f = th(("i", INT), Tuple((xi, prim("mul", i, const(2)), prim("code_char", i))))
    g = th(("i", INT), Index(var("p"), i, L("perm:1:9")))
    s = var("s")
    # reverse each segment, then add the vector p (0 for a valid permutation) to the position
    rev = th(("i", INT), Let((s,), seg("sd", "ids", i),
                            prim("add", prim("sub", prim("sub", seg("sd", "lengths", s), const(1)),
                                             prim("sub", i, seg("sd", "offsets", s))),
                                 Index(var("p"), i))))
    ps = [("xs", IV), ("p", IV), ("sd", SD)]
    rs = ["a", "b", "c"]
    return Program((kernel("P", ps, [(rs, Permute(f, g, length("xs"), L("perm:1:1")))], rs),
                    kernel("SP", ps, [(rs, SegPermute(f, rev, var("sd"), L("perm:2:2")))], rs)))


PERMUTES = permutes()


@pytest.mark.parametrize("n", ODD_SIZES + (BIG,))
def test_permute_valid(runners, n):
    rng = np.random.default_rng(n)
    xs = rng.integers(-100, 100, n).astype(np.int32)
    check(PERMUTES, runners if n < BIG else runners[:1], xs, rng.permutation(n).astype(np.int32), SegDes([]),
          name="P", expect_error=False)


@FEW
@given(st.permutations(list(range(9))))
def test_permute_valid_hypothesis(runners, perm):
    check(PERMUTES, runners, np.arange(9, dtype=np.int32) * 3, np.asarray(perm, np.int32), SegDes([]),
          name="P", expect_error=False)


@pytest.mark.parametrize("perm", [[0, 0], [1, 1, 0], [0, 1, 2, 2], [3, 0, 1], [-1, 0], [0, 1, 2**31 - 1],
                                  [2, 0, 1, 3, 4, 5, 6, 7, 8, 9, 9]], ids=str)
def test_permute_invalid(runners, perm):
    n = len(perm)
    assert check(PERMUTES, runners, np.arange(n, dtype=np.int32), np.asarray(perm, np.int32), SegDes([]),
                 name="P", expect_error=True) == (L("perm:1:1"), MSG_PERMUTE)


def test_permute_invalid_big(runners):
    perm = np.random.default_rng(5).permutation(BIG).astype(np.int32)
    perm[BIG // 2] = perm[7]                                     # one duplicate, one missing
    assert check(PERMUTES, runners[:1], np.zeros(BIG, np.int32), perm, SegDes([]), name="P",
                 expect_error=True) == (L("perm:1:1"), MSG_PERMUTE)


def test_permute_index_thunk_error_comes_first(runners):
    """The index thunk's own subscript fails (p shorter than xs) before the permutation check."""
    assert check(PERMUTES, runners, np.arange(3, dtype=np.int32), np.asarray([0, 0], np.int32), SegDes([]),
                 name="P", expect_error=True) == (L("perm:1:9"), MSG_BOUNDS)


@pytest.mark.parametrize("lengths", SEG_SHAPES, ids=str)
def test_seg_permute_valid(runners, lengths):
    n = sum(lengths)
    xs = np.arange(n, dtype=np.int32) * 5 - 7
    check(PERMUTES, runners, xs, np.zeros(n, np.int32), SegDes(lengths), name="SP", expect_error=False)


def test_seg_permute_valid_big(runners):
    lengths = np.random.default_rng(2).integers(0, 7, BIG // 4)
    lengths = np.concatenate([[0], lengths, [BIG - lengths.sum()]])
    check(PERMUTES, runners[:1], np.arange(BIG, dtype=np.int32), np.zeros(BIG, np.int32), SegDes(lengths),
          name="SP", expect_error=False)


@pytest.mark.parametrize("lengths,delta", [
    ([2], [1, 0]),              # local position 2 in a segment of 2
    ([2], [0, -1]),             # local position 1, 1: duplicate
    ([0, 3, 1], [0, 0, 0, 1]),  # out of a one-element segment, into the next one's range
    ([3, 2], [-1, 0, 0, 0, 0]), # local position 1 twice in the first segment
    ([1, 1], [0, -1]),          # negative local position
], ids=str)
def test_seg_permute_invalid(runners, lengths, delta):
    n = sum(lengths)
    assert check(PERMUTES, runners, np.arange(n, dtype=np.int32), np.asarray(delta, np.int32),
                 SegDes(lengths), name="SP", expect_error=True) == (L("perm:2:2"), MSG_PERMUTE)


# ------------------------------------------------------------------------------------------------
# SCATTER


def scatter():
    f = th(("i", INT), Tuple((Index(var("vs"), i), prim("gt", Index(var("vs"), i), const(0)))))
    g = th(("i", INT), Index(var("ix"), i))
    return Program((kernel("S", [("d0", IV), ("d1", VecT(BOOL)), ("vs", IV), ("ix", IV)],
                           [(["a", "b"], Scatter((var("d0"), var("d1")), f, g, length("ix"), L("w:1:1")))],
                           ["a", "b", "d0"]),))


SCATTER = scatter()


def run_scatter(runners, m, vs, ix, m1=None, **kw):
    d0 = np.arange(m, dtype=np.int32) - 100
    d1 = np.zeros(m if m1 is None else m1, np.bool_)
    return check(SCATTER, runners, d0, d1, np.asarray(vs, np.int32), np.asarray(ix, np.int32), name="S", **kw)


@pytest.mark.parametrize("m,ix", [(0, []), (1, []), (1, [0]), (5, [4, 0, 2]), (3, [1, 1, 1, 0, 1]),
                                  (4, [3, 3, 0, 0, 3]), (2049, list(range(2048, -1, -3)) * 3)], ids=str)
def test_scatter_repeated_indices_last_writer_wins(runners, m, ix):
    vs = [(k * 7) % 13 - 6 for k in range(len(ix))]
    ref = run_scatter(runners, m, vs, ix, expect_error=False)
    for k, t in enumerate(ix):           # numpy's assignment: the last writer wins
        if k == max(j for j, u in enumerate(ix) if u == t):
            assert ref[0][t] == vs[k]


@FEW
@given(st.integers(1, 20), st.data())
def test_scatter_hypothesis(runners, m, data):
    ix = data.draw(st.lists(st.integers(0, m - 1), max_size=30))
    vs = data.draw(st.lists(st.integers(-5, 5), min_size=len(ix), max_size=len(ix)))
    run_scatter(runners, m, vs, ix, expect_error=False)


def test_scatter_big(runners):
    rng = np.random.default_rng(9)
    ix = rng.integers(0, BIG // 2, BIG).astype(np.int32)
    run_scatter(runners[:1], BIG, rng.integers(-9, 9, BIG), ix, expect_error=False)


@pytest.mark.parametrize("m,ix", [(3, [0, 3]), (3, [-1]), (0, [0]), (5, [1, 2, 2**31 - 1])], ids=str)
def test_scatter_out_of_range(runners, m, ix):
    assert run_scatter(runners, m, [1] * len(ix), ix, expect_error=True) == (L("w:1:1"), MSG_SCATTER)


@pytest.mark.parametrize("ix", [[], [0], [0, 5]], ids=str)
def test_scatter_destinations_of_different_lengths(runners, ix):
    """Destinations of different lengths fail, even with nothing to write."""
    assert run_scatter(runners, 3, [1] * len(ix), ix, m1=2, expect_error=True) == (L("w:1:1"), MSG_SCATTER_LENGTHS)


# ------------------------------------------------------------------------------------------------
# ONCE


def once():
    xs, s = var("xs"), var("s")
    body = Tuple((prim("add", Index(xs, const(0), L("o:1:1")), s),
                  Length(xs, INT64),
                  If(prim("gt", Length(xs), const(1)), Index(xs, prim("sub", Length(xs), const(1)), L("o:1:2")), s),
                  Tuple((const(2.5), const("c"), prim("lt", s, const(0))))))
    return Program((kernel("K", [("xs", IV), ("s", INT)],
                           [(["a", "b", "c", "d", "e", "f"], Once(th((), body)))], ["a", "b", "c", "d", "e", "f"]),))


def test_once(runners):
    prog = once()
    for xs in ([4], [4, 5, 6]):
        check(prog, runners, np.asarray(xs, np.int32), -3, expect_error=False)
    assert check(prog, runners, np.zeros(0, np.int32), 1, expect_error=True) == (L("o:1:1"), MSG_BOUNDS)
