"""ONCEs the Lift compiler writes (lift_backend/lower/lift_map.py, ``lift_once``), and scalars kept
on the device read by Lift programs.

A ``ONCE { () => e }`` is the map of length 1 over the index space whose thunk ignores its index,
``mapGlb(0)(toGlobal(\\t -> uf(arrayAccess(w, uf_i0(...)), ...))) $ generate(N)`` launched with
``N = 1``: its subscripts are checked ``arrayAccess`` views reporting the hand-written ``once``
phase's sites.  A scalar an earlier SOAC of the kernel left in a one-element device buffer (a
``devscalar`` parameter, ``device_scalars.py``) is a Lift parameter ``[t]1`` read as
``arrayAccess(d, 0)``, a constant index the length admits, so no check is generated.  Which
SOACs become Lift programs, that the printed programs parse and compile to the launched kernel,
that they are what runs, and results and runtime errors against the numpy runner."""
import numpy as np
import pytest

from lambda_cu.errors import MSG_BOUNDS
from lambda_cu.ir import Index, Map, Once, Program, Reduce, Tuple
from lift_backend import compile_program, parse
from lift_backend.lower import print_lift
from lift_backend.lower.runner import OpenCLRunner, lower_kernel

from .ocl_helpers import (cpu_plan_runner, FLOAT, INT, L, VecT, check, const, kernel, length, op2, prim, th, var)

pytestmark = pytest.mark.opencl

i = var("i")


def onces():
    """``xs[s]`` at a host index; a pair ``(xs[s + 1], ys[0])``; the max of ``ps`` (a REDUCE: a
    device scalar), then ``xs[m]`` at that index (a ONCE reading a device scalar) and a MAP
    adding it to every element (a MAP reading a device scalar)."""
    xs, ys, ps, s = var("xs"), var("ys"), var("ps"), var("s")
    at = Once(th((), Index(xs, s, L("o:1:1"))))
    pair = Once(th((), Tuple((Index(xs, prim("add", s, const(1)), L("o:2:1")), Index(ys, const(0), L("o:2:9"))))))
    mx = Reduce(th(("i", INT), Index(ps, i)), (const(-2**31),), op2("max", INT), length("ps"))
    atm = Once(th((), Index(xs, var("m"), L("o:3:1"))))
    addm = Map(th(("i", INT), prim("add", Index(ps, i), var("m"))), length("ps"))
    binds = [("a", at), (("b0", "b1"), pair), ("m", mx), ("c", atm), ("d", addm)]
    return Program((kernel("K", [("xs", VecT(INT)), ("ys", VecT(FLOAT)), ("ps", VecT(INT)), ("s", INT)],
                           binds, ["a", "b0", "b1", "m", "c", "d"]),))


NAMES = ["a", "b0", "b1", "m", "c", "d"]


def test_onces_and_device_scalar_readers_are_lift_programs():
    prog = onces()
    lowered = lower_kernel(prog.kernels[0])
    assert ["lift" in ls.info for ls in lowered] == [True] * 5
    text = print_lift(prog)
    for ls in lowered:
        lm = ls.info["lift"]
        assert lm.name in text
        if ls.soac.NAME != "ONCE":
            continue
        src = lm.text()
        assert "generate(N)" in src and "arrayAccess(" in src, src
        # the printed program is Lift: parsed back (its site codes are the runner's, not
        # Lift's syntax), it compiles to a kernel whose accesses are checked
        again = compile_program(parse(src).program(lm.name))
        assert again.checks and all(c.kind == "arrayAccess" for c in again.checks)
    # the device scalar m: a one-element array read at 0, without a check
    for ls in lowered[3:]:
        src = ls.info["lift"].text()
        assert "[int]1" in src and "arrayAccess(s0, 0)" in src, src
    readers = [ls.info["lift"].kernel.source for ls in lowered[3:]]
    assert all("s0[0]" in k for k in readers), readers


def test_the_lift_kernels_are_what_run():
    r = cpu_plan_runner()
    xs = np.arange(10, 20, dtype=np.int32)
    check(onces(), [r], xs, np.array([0.5, 1.5]), np.array([3, 7, 1], np.int32), np.int32(2),
          expect_error=False, names=NAMES)
    r._collect_events()
    names = set(r.stats.by_kernel)
    assert sum(k.endswith("_lift") for k in names) == 5, names
    assert not any(k.endswith("_once") or k.endswith("_map") for k in names), names


@pytest.mark.parametrize("s", [0, 1, 5, 8])
def test_lift_onces_equal_numpy(runners, s):
    rng = np.random.default_rng(s)
    xs = rng.integers(-100, 100, 10).astype(np.int32)
    ps = rng.integers(0, 10, 4099).astype(np.int32)
    check(onces(), runners, xs, rng.standard_normal(3), ps, np.int32(s), expect_error=False, names=NAMES)


@pytest.mark.parametrize("s, where", [(-1, "o:1:1"), (10, "o:1:1"), (9, "o:2:1"), (2**31 - 1, "o:1:1")])
def test_a_failing_once_subscript_reports_its_site(runners, s, where):
    xs = np.arange(10, dtype=np.int32)
    assert check(onces(), runners, xs, np.ones(3), np.zeros(5, np.int32), np.int32(s),
                 expect_error=True) == (L(where), MSG_BOUNDS)


def test_empty_inputs_report_the_first_failing_once(runners):
    # ys empty: the pair's second subscript fails; ps empty: m is the least int, so xs[m] fails
    xs = np.arange(10, dtype=np.int32)
    assert check(onces(), runners, xs, np.ones(0), np.zeros(5, np.int32), np.int32(1),
                 expect_error=True) == (L("o:2:9"), MSG_BOUNDS)
    assert check(onces(), runners, xs, np.ones(1), np.zeros(0, np.int32), np.int32(1),
                 expect_error=True) == (L("o:3:1"), MSG_BOUNDS)


def test_a_device_scalar_index_out_of_range_reports_its_site(runners):
    xs = np.arange(10, dtype=np.int32)
    ps = np.array([3, 12, 1], np.int32)     # m = 12: xs[m] fails
    assert check(onces(), runners, xs, np.ones(2), ps, np.int32(0), expect_error=True) == \
        (L("o:3:1"), MSG_BOUNDS)


def test_a_literal_index_the_length_admits_is_not_checked():
    src = """
userfun addi(x: int, s: int): int { return x + s; }
program p0(xs: [int]N, d: [int]1) = mapGlb(0)(toGlobal(\\x -> addi(x, arrayAccess(d, 0)))) $ xs
program p1(xs: [int]N, d: [int]1) = mapGlb(0)(toGlobal(\\x -> addi(x, arrayAccess(d, 1)))) $ xs
program p2(xs: [int]N, d: [int]M) = mapGlb(0)(toGlobal(\\x -> addi(x, arrayAccess(d, 0)))) $ xs
program p3(xs: [int]N, d: [int]M) = mapGlb(0)(toGlobal(\\x -> addi(x, arrayAccess(d, 2)))) $ xs
"""
    lf = parse(src, "lit.lift")
    # Lift's sizes are at least 1 (the runtime refuses empty arrays): index 0 is always admitted
    for name in ("p0", "p2"):
        k0 = compile_program(lf.program(name))
        assert "d[0]" in k0.source and not k0.checks
    # index 1 of a one-element array, and index 2 of an array that may have 1 element: checked
    for name in ("p1", "p3"):
        k = compile_program(lf.program(name))
        assert [c.kind for c in k.checks] == ["arrayAccess"], name
