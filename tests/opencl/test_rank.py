"""RANK, RANK_DOWN, SEG_RANK and SEG_RANK_DOWN (the radix sort of soacs.py) on OpenCL against
the numpy runner: int, int64, float (NaN, -0.0, inf), char keys, stability (equal keys keep their
order), segments of every shape.  (bool keys are not ordinal in λcu: the checker refuses them.)"""
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from lambda_cu.check import LcuTypeError
from lambda_cu.ir import Program, Rank, SegRank
from lambda_cu.values import SegDes

from .ocl_helpers import (BIG, BOOL, CHAR, FEW, FLOAT, INT, INT64, ODD_SIZES, SD, VecT, check, kernel,
                          length, pull, var)

pytestmark = pytest.mark.opencl

TYPES = {"int": (INT, np.int32), "int64": (INT64, np.int64), "float": (FLOAT, np.float64), "char": (CHAR, np.uint8)}


def ranks(t, ity=INT):
    ps = [("xs", VecT(t)), ("sd", SD)]
    f = pull("xs", ity)
    return Program((kernel("R", ps, [("r", Rank(f, length("xs", ity)))], ["r"]),
                    kernel("D", ps, [("r", Rank(f, length("xs", ity), descending=True))], ["r"]),
                    kernel("SR", ps, [("r", SegRank(f, var("sd")))], ["r"]),
                    kernel("SD", ps, [("r", SegRank(f, var("sd"), descending=True))], ["r"])))


PROGS = {name: ranks(t) for name, (t, _) in TYPES.items()}


def check_ranks(runners, tname, xs, lengths):
    xs = np.asarray(xs, TYPES[tname][1])
    sd = SegDes(lengths)
    for k in ("R", "D", "SR", "SD"):
        check(PROGS[tname], runners, xs, sd, name=k, expect_error=False)


EDGE = {
    "int": [0, -1, 1, 2**31 - 1, -2**31, 5, 5, -5, 0, 2**31 - 1, -2**31, 256, -256, 65536, 255],
    "int64": [0, -1, 1, 2**63 - 1, -2**63, -2**63 + 1, 2**32, -2**32, 5, 5, 2**40 + 1, 2**40, -7, 2**63 - 1],
    "float": [0.0, -0.0, 1.0, -1.0, math.inf, -math.inf, math.nan, 0.0, -0.0, 2.5, math.nan, -math.nan,
              1e-310, -1e-310, 1e300, 2.5, -math.inf],
    "char": [0, 255, 128, 127, 97, 97, 65, 0, 255, 1],
}


@pytest.mark.parametrize("tname", sorted(TYPES))
def test_rank_edge_keys(runners, tname):
    keys = EDGE[tname]
    n = len(keys)
    for lengths in ([n], [0, n], [n, 0], [0, 3, 0, n - 3, 0], [1] * n, [2] * (n // 2) + [n % 2]):
        check_ranks(runners, tname, keys, lengths)
    check_ranks(runners, tname, [], [])
    check_ranks(runners, tname, [], [0, 0])
    check_ranks(runners, tname, keys[:1], [1])


@pytest.mark.parametrize("tname", sorted(TYPES))
@pytest.mark.parametrize("n", ODD_SIZES[1:])
def test_rank_sizes_and_stability(runners, tname, n):
    """Few distinct keys (so most are equal: stability decides) in segments straddling chunks."""
    rng = np.random.default_rng(n)
    keys = np.asarray(EDGE[tname])[rng.integers(0, 4, n)]
    lengths = [n // 3, 0, n - n // 3 - n // 5, n // 5]
    check_ranks(runners, tname, keys, lengths)


def test_rank_int64_index_type(runners):
    prog = ranks(INT, INT64)
    check(prog, runners, np.asarray([3, 1, 2, 1], np.int32), SegDes([4]), name="R", expect_error=False)
    check(prog, runners, np.asarray([3, 1, 2, 1], np.int32), SegDes([4]), name="D", expect_error=False)


@FEW
@given(st.lists(st.lists(st.floats(width=64), max_size=6), max_size=8))
def test_rank_float_hypothesis(runners, rows):
    check_ranks(runners, "float", [x for r in rows for x in r], [len(r) for r in rows])


@FEW
@given(st.lists(st.integers(-2**31, 2**31 - 1), max_size=40), st.integers(1, 5))
def test_rank_int_hypothesis(runners, keys, k):
    n = len(keys)
    check_ranks(runners, "int", keys, [n // k] * k + [n - (n // k) * k])


@pytest.mark.parametrize("tname", ["int", "float"])
def test_rank_big(runners, tname):
    rng = np.random.default_rng(4)
    keys = rng.integers(-1000, 1000, BIG).astype(TYPES[tname][1])
    lengths = rng.integers(0, 7, BIG // 4)
    lengths = np.concatenate([[0, 0], lengths, [BIG - lengths.sum(), 0]])
    check_ranks(runners[:1], tname, keys, lengths)


def test_bool_keys_are_refused():
    with pytest.raises(LcuTypeError):
        ranks(BOOL)
