"""Unchecked subscripts behind a guard (issue 9): a kernel whose pull thunk reads ``xs[i]`` at its
own index runs a version without that check when one test of the launch's lengths (``n <= #xs``)
shows it redundant, and the checked version otherwise.  Here the index space is longer than the
vector (``n`` a kernel argument, not ``#xs``), so the guard fails and the checked version must
report the subscript's location as the numpy runner does; with ``n <= #xs`` both agree on the
results.  Every SOAC that pulls at its loop index is covered, segmented ones (whose rows and
chunks read below the descriptor's total) included."""
import numpy as np
import pytest

from lambda_cu.errors import MSG_BOUNDS
from lambda_cu.ir import (Filter, Map, Permute, Program, Rank, Reduce, Scan, SegReduce, SegScan)
from lambda_cu.values import SegDes

from .ocl_helpers import (L, BIG, INT, SD, Index, VecT, check, const, kernel, length, op2, prim,
                          th, var)

pytestmark = pytest.mark.opencl

i = var("i")
IV = VecT(INT)
PS = [("xs", IV), ("n", INT), ("sd", SD)]


def prog():
    f = th(("i", INT), Index(var("xs"), i, L("xs")))
    add = op2("add", INT)
    pos = th(("x", INT), prim("gt", var("x"), const(2)))
    n = var("n")
    return Program((
        kernel("M", PS, [("r", Map(f, n))], ["r"]),
        kernel("R", PS, [("r", Reduce(f, (const(0),), add, n))], ["r"]),
        kernel("S", PS, [("r", Scan(f, (const(0),), add, n))], ["r"]),
        kernel("F", PS, [("r", Filter(f, pos, n))], ["r"]),
        kernel("SR", PS, [("r", SegReduce(f, (const(0),), add, var("sd")))], ["r"]),
        kernel("SS", PS, [("r", SegScan(f, (const(0),), add, var("sd")))], ["r"]),
    ))


PROG = prog()


@pytest.mark.parametrize("name", ["M", "R", "S", "F", "SR", "SS"])
@pytest.mark.parametrize("m", [1, 7, 4099])
def test_index_space_longer_than_the_vector(runners, name, m):
    xs = np.arange(m, dtype=np.int32)
    for extra in (1, 5):
        # the segments cover m + extra elements: the last one runs past #xs
        sd = SegDes([m // 2, 0, m - m // 2 + extra])
        got = check(PROG, runners, xs, np.int32(m + extra), sd, name=name, expect_error=True)
        assert got == (L("xs"), MSG_BOUNDS)


@pytest.mark.parametrize("name", ["M", "R", "S", "F", "SR", "SS"])
@pytest.mark.parametrize("m", [0, 1, 2049, BIG])
def test_index_space_within_the_vector(runners, name, m):
    xs = (np.arange(m, dtype=np.int64) * 7 % 11).astype(np.int32)
    rs = runners if m < BIG else runners[:1]
    for n in sorted({m, m // 2}):
        sd = SegDes([n // 3, 0, n - n // 3])
        check(PROG, rs, xs, np.int32(n), sd, name=name, expect_error=False)
