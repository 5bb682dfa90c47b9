"""REDUCEs and SCANs whose ``init`` is not the operator's identity (``max_index``'s ``(-inf,
-1)`` with an operator preferring the left argument while the right's index is negative; a sum
from 5): their Lift chunks fold from each chunk's first element, an accumulator ``(value...,
started)``, and the carry phase applies ``init`` once, as the template chunks do.  Results equal
the numpy runner's on one element, odd lengths and 2^20 + 1 elements, and the Lift chunks are
what ran on the CPU plan."""
import numpy as np
import pytest

from lambda_cu.ir import If, Program, Proj, Reduce, Scan, Tuple
from lambda_cu.types import FLOAT, INT, TupleT

from .ocl_helpers import (cpu_plan_runner, BIG, L, VecT, Index, Length, check, const, kernel, op2,
                          prim, th, var)

pytestmark = pytest.mark.opencl

i = var("i")
xs = var("xs")


def program():
    """r0, r1: the argmax of ``xs`` as quickhull's ``max_index`` (the first of equal maxima);
    r2: the sum of ``xs`` from 5; r3: the running sums from 7 (an exclusive scan); r4: the
    number of elements from -3 (int)."""
    n = Length(xs, INT)
    pt = TupleT((FLOAT, INT))
    x1, i1, x2, i2 = var("x1"), var("i1"), var("x2"), var("i2")
    pick = th((("x1", FLOAT), ("i1", INT), ("x2", FLOAT), ("i2", INT)),
              If(prim("or", prim("lt", i1, const(0)), prim("and", prim("ge", i2, const(0)), prim("gt", x2, x1))),
                 Tuple((x2, i2)), Tuple((x1, i1))))
    argmax = Reduce(th(("i", INT), Tuple((Index(xs, i), i))), (const(float("-inf")), const(-1)), pick, n)
    total = Reduce(th(("i", INT), Index(xs, i)), (const(5.0),), op2("add", FLOAT), n)
    running = Scan(th(("i", INT), Index(xs, i)), (const(7.0),), op2("add", FLOAT), n)
    count = Reduce(th(("i", INT), const(1)), (const(-3),), op2("add", INT), n)
    return Program((kernel("K", [("xs", VecT(FLOAT))],
                           [(("r0", "r1"), argmax), ("r2", total), ("r3", running), ("r4", count)],
                           ["r0", "r1", "r2", "r3", "r4"]),))


NAMES = ["max", "argmax", "sum5", "scan7", "count"]


def test_the_chunks_are_lift_programs_folding_from_their_first_element():
    from lift_backend.lower.runner import lower_kernel
    ls = lower_kernel(program().kernels[0], "cpu")
    assert all("lift" in x.info and "lift_carry" in x.info for x in ls), [x.soac.NAME for x in ls]
    assert "lift_scan" in ls[2].info
    for x in ls:
        assert "_init1" in x.info["lift"].text(), x.soac.NAME
    # the carry and the last pass apply init (from the carry-ins), not the first element
    assert "_init1" not in ls[2].info["lift_scan"].text()


@pytest.mark.parametrize("n", [1, 2, 7, 2047, 2049, 4097, 6149, 100003])
def test_equal_numpy(runners, n):
    rng = np.random.default_rng(n)
    x = rng.integers(-50, 50, n).astype(np.float64)      # ties: the first maximum wins
    check(program(), list(runners) + [cpu_plan_runner()], x, expect_error=False, names=NAMES, rtol=1e-12)


def test_the_lift_chunks_are_what_run_2_20_plus_1():
    rng = np.random.default_rng(3)
    x = rng.standard_normal(BIG)
    x[rng.integers(0, BIG, 5)] = 9.0                     # several equal maxima
    r = cpu_plan_runner()
    got = check(program(), [r], x, expect_error=False, names=NAMES, rtol=1e-9)
    assert got[1] == int(np.argmax(x))
    r._collect_events()
    ks = set(r.stats.by_kernel)
    assert {"v_K_0_lift", "v_K_1_lift", "v_K_2_lift", "v_K_2_liftscan", "v_K_3_lift"} <= ks, ks
    assert not any(k.endswith(("_chunks", "_scan")) for k in ks), ks
