"""The carry phase of REDUCEs and SCANs through the Lift compiler (lift_map.py, ``carry_phase``):
one work-item combines the ``P`` chunk results in order,

    join o mapGlb(0)(\\row -> toGlobal(mapSeq(id)) o reduceSeq(op, init) $ row) o split(P) $ parts

(a REDUCE's result: ``init`` applied once, so any ``init`` qualifies), or the exclusive
``scanSeq(op, init)`` of that row (a SCAN's carry-in of each chunk, which its Lift last pass
reads).  With the chunk programs a REDUCE or SCAN of a CPU plan is then Lift programs only.
Which SOACs get it, that the printed program parses and compiles to the launched kernel, that it
is what runs, and results against the numpy runner (bit for bit: the chunk results are combined
in the template's order)."""
import numpy as np
import pytest

from lambda_cu.ir import Index, Program, Reduce, Scan
from lift_backend import compile_program, parse
from lift_backend.lower import print_lift
from lift_backend.lower.runner import OpenCLRunner, lower_kernel

from .ocl_helpers import (cpu_plan_runner, BIG, FLOAT, INT, ODD_SIZES, VecT, check, const, kernel, length, op2, prim,
                          th, var)

pytestmark = pytest.mark.opencl

i = var("i")


def combos():
    """A float sum (identity init), a float sum from 0.5 (not an identity: the Lift chunks fold
    from their first element, the carry applies 0.5 once), an int max from 7, an int sum scaled by a
    host scalar, an exclusive int scan from 3 and a float scan from 0.0."""
    xs, ps, k = var("xs"), var("ps"), var("k")
    fsum = Reduce(th(("i", INT), Index(xs, i)), (const(0.0),), op2("add", FLOAT), length("xs"))
    fhalf = Reduce(th(("i", INT), Index(xs, i)), (const(0.5),), op2("add", FLOAT), length("xs"))
    imax = Reduce(th(("i", INT), Index(ps, i)), (const(7),), op2("max", INT), length("ps"))
    ksum = Reduce(th(("i", INT), prim("mul", Index(ps, i), k)), (const(0),), op2("add", INT), length("ps"))
    iscan = Scan(th(("i", INT), Index(ps, i)), (const(3),), op2("add", INT), length("ps"))
    fscan = Scan(th(("i", INT), Index(xs, i)), (const(0.0),), op2("add", FLOAT), length("xs"))
    binds = [("a", fsum), ("b", fhalf), ("c", imax), ("d", ksum), ("e", iscan), ("f", fscan)]
    return Program((kernel("K", [("xs", VecT(FLOAT)), ("ps", VecT(INT)), ("k", INT)], binds,
                           [b[0] for b in binds]),))


NAMES = ["a", "b", "c", "d", "e", "f"]


def test_the_carry_phases_are_lift_programs():
    prog = combos()
    lowered = lower_kernel(prog.kernels[0])
    assert all("lift_carry" in ls.info for ls in lowered)
    # init 0.5 (and 7, 3) is no identity: the chunks fold from their first element, also Lift
    assert all("lift" in ls.info for ls in lowered)
    assert ["_init1" in ls.info["lift"].text() for ls in lowered] == [False, True, True, False, True, False]
    text = print_lift(prog)
    for ls in lowered:
        lc = ls.info["lift_carry"]
        assert lc.name.endswith("_liftcarry") and lc.name in text
        src = lc.text()
        assert "split(P)" in src and ("scanSeq(" if ls.soac.NAME == "SCAN" else "reduceSeq(") in src, src
        again = compile_program(parse(src).program(lc.name), error_base=True, soa_output=True,
                                global_size=1, local_size=1)
        assert again.source == lc.kernel.source


def test_the_lift_carry_kernels_are_what_run():
    r = cpu_plan_runner()
    rng = np.random.default_rng(2)
    n = 50000
    check(combos(), [r], rng.standard_normal(n), rng.integers(-50, 50, n).astype(np.int32), np.int32(3),
          expect_error=False, names=NAMES, rtol=1e-9)
    r._collect_events()
    names = set(r.stats.by_kernel)
    assert sum(k.endswith("_liftcarry") for k in names) == 6, names
    assert not any(k.endswith("_carry") for k in names), names


@pytest.mark.parametrize("n", ODD_SIZES + (BIG,))
def test_lift_carries_equal_numpy(runners, n):
    rng = np.random.default_rng(n)
    # positive floats: a prefix sum crossing zero has no relative tolerance to speak of
    xs = rng.random(n) + 0.5
    ps = rng.integers(-2**31, 2**31 - 1, n, dtype=np.int64).astype(np.int32)   # sums wrap
    rs = runners if n < BIG else runners[:1]
    check(combos(), rs, xs, ps, np.int32(-5), expect_error=False, names=NAMES, rtol=1e-9)


def test_the_combination_order_is_the_templates(runners):
    # the same chunks folded in the same order as the hand-written phases: bit for bit equal to
    # a runner without the Lift carry programs, on float sums whose rounding shows any regrouping
    rng = np.random.default_rng(9)
    n = 30001
    xs = rng.standard_normal(n) * 10.0 ** rng.integers(-8, 8, n)
    ps = rng.integers(-9, 9, n).astype(np.int32)
    prog = combos()
    lifted = OpenCLRunner()
    plain = OpenCLRunner(lifted.device)
    plain._lift_carry = lambda ls: False      # this runner launches the template carries
    from .ocl_helpers import outcome
    ok1, a = outcome(prog, lifted, ("kernel", "K", xs, ps, np.int32(1)))
    ok2, b = outcome(prog, plain, ("kernel", "K", xs, ps, np.int32(1)))
    assert ok1 == ok2 == "ok"
    for x, y in zip(a, b):
        np.testing.assert_array_equal(np.asarray(x), np.asarray(y))
