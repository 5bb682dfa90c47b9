"""Folds whose thunk has a checked primitive (``sum({a / b : a in xs; b in ys})``, a FILTER's
predicate ``100 / x > 3``, a SEG_REDUCE's ``rem``): their Lift programs -- a REDUCE's or SCAN's
chunks and a SCAN's last pass, a SEG_REDUCE's or SEG_SCAN's rows, a FILTER's or PARTITION's count
-- bind the thunk's value and failure flags in the fold's step and report each flag with
``failIf`` and its site's code, as a MAP's do.  Results and located errors equal the numpy
runner's (and the reference interpreter's, for NESL programs), and the Lift kernels are what
ran on the CPU plan."""
import numpy as np
import pytest

from lambda_cu.errors import MSG_DIV0
from lambda_cu.ir import Filter, Program, Reduce, Scan, SegReduce, SegScan, Tuple
from lambda_cu.types import BOOL, INT, SD
from lambda_cu.values import SegDes

from .ocl_helpers import (cpu_plan_runner, BIG, L, VecT, Index, Length, check, const, kernel, op2,
                          prim, th, var)

pytestmark = pytest.mark.opencl

i = var("i")
xs, ys, sd = var("xs"), var("ys"), var("sd")


def program():
    """r0: the sum of ``xs[i] / ys[i]``; r1: the running count of ``rem(xs[i], ys[i]) == 0``;
    r2, r3: the pair (sum, max) of ``xs[i] / ys[i]``, ``rem(...)``; r4: the per-segment sums of
    ``xs[i] / ys[i]``; r5: the per-segment running sums of ``rem(xs[i], ys[i])``; r6: the
    indices whose ``100 / xs[i]`` exceeds 3."""
    q = prim("div", Index(xs, i), Index(ys, i), loc=L("d:q"))
    r = prim("rem", Index(xs, i), Index(ys, i), loc=L("d:r"))
    n = Length(xs, INT)
    total = Reduce(th(("i", INT), q), (const(0),), op2("add", INT), n)
    count = Scan(th(("i", INT), prim("btoi", prim("eq", r, const(0)), ty=INT)), (const(0),), op2("add", INT), n)
    from lambda_cu.ir import Proj, Thunk, param
    pair_t = th((("l", _pair()), ("r", _pair())),
                Tuple((prim("add", Proj(var("l"), 0), Proj(var("r"), 0)),
                       prim("max", Proj(var("l"), 1), Proj(var("r"), 1)))))
    pair = Reduce(th(("i", INT), Tuple((q, r))), (const(0), const(-2**31)), pair_t, n)
    segsum = SegReduce(th(("i", INT), q), (const(0),), op2("add", INT), sd)
    segscan = SegScan(th(("i", INT), r), (const(0),), op2("add", INT), sd)
    kept = Filter(th(("i", INT), i),
                  th(("x", INT), prim("gt", prim("div", const(100), Index(xs, var("x")), loc=L("d:f")), const(3))), n)
    return Program((kernel("K", [("xs", VecT(INT)), ("ys", VecT(INT)), ("sd", SD)],
                           [("r0", total), ("r1", count), (("r2", "r3"), pair), ("r4", segsum), ("r5", segscan),
                            ("r6", kept)], ["r0", "r1", "r2", "r3", "r4", "r5", "r6"]),))


def _pair():
    from lambda_cu.types import TupleT
    return TupleT((INT, INT))


NAMES = ["sum", "count", "pair_sum", "pair_max", "segsum", "segscan", "kept"]


def test_the_folds_are_lift_programs():
    from lift_backend.lower.runner import lower_kernel
    ls = lower_kernel(program().kernels[0], "cpu")
    missing = [(x.soac.NAME, key) for x, key in zip(ls, ["lift", "lift", "lift", "lift", "lift", "lift_count"])
               if key not in x.info]
    assert not missing, missing
    assert "failIf(" in ls[0].info["lift"].text()
    assert "failIf(" in ls[1].info["lift_scan"].text()


def _inputs(lengths, zero_at=None, seed=0):
    rng = np.random.default_rng(seed)
    n = int(sum(lengths))
    x = rng.integers(-1000, 1000, n).astype(np.int32)
    x[x == 0] = 7
    y = rng.integers(1, 50, n).astype(np.int32) * rng.choice([-1, 1], n).astype(np.int32)
    if zero_at is not None and n:
        y[zero_at % n] = 0
    return x, y, SegDes(lengths)


SHAPES = [[1], [5], [3, 0, 2], [2049], [1, 2, 3, 4] * 500, [2049, 0, 1, 4097], [0] * 20 + [1]]


@pytest.mark.parametrize("lengths", SHAPES, ids=range(len(SHAPES)))
def test_equal_numpy(runners, lengths):
    x, y, d = _inputs(lengths, seed=len(lengths))
    check(program(), list(runners) + [cpu_plan_runner()], x, y, d, expect_error=False, names=NAMES)


@pytest.mark.parametrize("lengths, at", [([1], 0), ([3, 0, 2], 4), ([2049], 2048), ([1, 2, 3, 4] * 500, 2500),
                                         ([2049, 0, 1, 4097], 3000)])
def test_a_zero_divisor_is_the_divisions_error(runners, lengths, at):
    x, y, d = _inputs(lengths, zero_at=at, seed=3)
    got = check(program(), list(runners) + [cpu_plan_runner()], x, y, d, expect_error=True)
    assert got == (L("d:q"), MSG_DIV0)


def test_the_predicates_division_fails_in_the_filter():
    """Only the FILTER divides by ``xs``: a zero there is its predicate's error."""
    x, y, d = _inputs([2049, 0, 1, 4097], seed=4)
    x[4000] = 0
    got = check(program(), [cpu_plan_runner()], x, y, d, expect_error=True)
    assert got == (L("d:f"), MSG_DIV0)


def test_the_lift_kernels_are_what_run_2_20_plus_1():
    lengths = [0] + [3, 0, 5, 8, 1, 0] * 61681
    assert sum(lengths) == BIG
    x, y, d = _inputs(lengths, seed=7)
    r = cpu_plan_runner()
    check(program(), [r], x, y, d, expect_error=False, names=NAMES)
    r._collect_events()
    ks = set(r.stats.by_kernel)
    assert {"v_K_0_lift", "v_K_1_lift", "v_K_1_liftscan", "v_K_2_lift", "v_K_3_lift", "v_K_4_lift"} <= ks, ks
    assert not any(k.endswith(("_chunks", "_rows", "_count")) for k in ks), ks


NESL = """function ratio(xs, ys) = sum({a / b : a in xs; b in ys});
function runs(xs, ys) = plus_scan({btoi(rem(a, b) == 0) : a in xs; b in ys});
function segs(rows, ds) = {sum({x / d : x in row}) : row in rows; d in ds};
function big(xs) = {x in xs | 100 / x > 3};
"""


@pytest.mark.parametrize("tail, fails", [
    ("ratio({i + 1 : i in [0:3000]}, {rem(i, 7) + 1 : i in [0:3000]});", False),
    ("ratio({i + 1 : i in [0:3000]}, {rem(i, 2999) : i in [0:3000]});", True),
    ("take(runs({i : i in [0:3000]}, {rem(i, 5) + 1 : i in [0:3000]}), 12);", False),
    ("runs([4, 5, 6], [2, 0, 3]);", True),
    ("segs([[10, 20], [], [30, 40, 50]], [3, 0, 7]);", False),
    ("segs([[10, 20], [1], [30, 40, 50]], [3, 0, 7]);", True),
    ("#big({i - 1500 : i in [0:3000] | i /= 1500});", False),
    ("#big({i - 1500 : i in [0:3000]});", True),
])
def test_nesl_programs_print_what_the_interpreter_prints(tail, fails):
    from .ocl_helpers import outputs_with_errors
    want, _, got, _ = outputs_with_errors(NESL + tail + "\n", "fold.nesl")
    assert got == want
    assert ("error:" in want) == fails
