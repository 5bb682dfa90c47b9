"""Element-wise MAPs compiled by the Lift compiler (lift_backend/lower/lift_map.py): which MAPs
become Lift programs, that the printed program is Lift the parser reads back and compiles to the
same kernel, and that the runner's results (Lift kernel, or the checked hand-written kernel where
an input is shorter than the map) equal the numpy runner's."""
import numpy as np
import pytest

from lambda_cu.errors import MSG_BOUNDS
from lambda_cu.ir import If, Let, Map, Tuple
from lift_backend import compile_program, parse
from lift_backend.lower import lower_program, print_lift
from lift_backend.lower.runner import OpenCLRunner

from .ocl_helpers import (BIG, BOOL, FLOAT, INT, INT64, ODD_SIZES, Index, L, Length, VecT, check,
                          const, one, prim, th, var)

pytestmark = pytest.mark.opencl

i, x = var("i"), var("x")


def axpy():
    """``{ i => a * xs[i] + to_float(ys[i]) }``: two inputs, one host scalar."""
    body = prim("add", prim("mul", var("a"), Index(var("xs"), i, L("m:1:1"))),
                prim("to_float", Index(var("ys"), i, L("m:1:2"))))
    return one(Map(th(("i", INT), body), Length(var("xs"), INT)),
               [("xs", VecT(FLOAT)), ("ys", VecT(INT)), ("a", FLOAT)])


def clamp_int():
    """``{ i => let x = xs[i] in if x > k then x - k else to_long(x) }`` on ints: a let, an if
    and wrapping arithmetic in the user function."""
    body = Let((x,), Index(var("xs"), i, L("c:1:1")),
               If(prim("gt", x, var("k")), prim("to_int", prim("sub", x, var("k")), ty=INT64),
                  prim("to_int", prim("mul", x, const(3)), ty=INT64)))
    return one(Map(th(("i", INT), body), Length(var("xs"), INT)),
               [("xs", VecT(INT)), ("k", INT)])


def chars():
    """``{ i => (if bs[i] then cs[i] else c, ...)}`` as two MAPs: a char result from bool and
    char inputs and a char scalar, and a bool result comparing chars (codes above 127 must
    compare as unsigned: Lift's char is C's signed char)."""
    from lambda_cu.ir import KBind, Kernel, Program
    from lambda_cu.types import CHAR as C
    pick = Map(th(("i", INT), If(Index(var("bs"), i), Index(var("cs"), i), var("c"))),
               Length(var("cs"), INT))
    above = Map(th(("i", INT), prim("gt", Index(var("cs"), i), var("c"))), Length(var("cs"), INT))
    from .ocl_helpers import kernel
    return Program((kernel("K", [("bs", VecT(BOOL)), ("cs", VecT(C)), ("c", C)],
                           [("r0", pick), ("r1", above)], ["r0", "r1"]),))


def index_maps():
    """Maps over the index space (``generate(N)`` in Lift): the index as a value next to a
    read, a long index, and a constant map that reads nothing."""
    from lambda_cu.ir import Program
    from .ocl_helpers import kernel
    j = var("j")
    mixed = Map(th(("i", INT), prim("add", Index(var("xs"), i), prim("mul", i, const(3)))),
                Length(var("xs"), INT))
    wide = Map(th(("j", INT64), prim("sub", j, prim("to_int", var("k"), ty=INT64))), Length(var("xs"), INT64))
    konst = Map(th(("i", INT), const(0.25)), var("k"))
    return Program((kernel("K", [("xs", VecT(INT)), ("k", INT)],
                           [("r0", mixed), ("r1", wide), ("r2", konst)], ["r0", "r1", "r2"]),))


def lifted(prog):
    return [ls for _, soacs in lower_program(prog).kernels for ls in soacs if "lift" in ls.info]


def test_elementwise_maps_are_lift_programs():
    progs = (axpy(), clamp_int(), chars(), index_maps())
    assert [len(lifted(p)) for p in progs] == [1, 1, 2, 3]
    for prog in progs:
        for ls in lifted(prog):
            lm = ls.info["lift"]
            text = lm.text()
            assert "mapGlb(0)(toGlobal(" in text and "userfun uf_" in text
            # the printed program is Lift: parsed back, it compiles to the kernel the runner
            # launches
            lf = parse(text)
            again = compile_program(lf.program(lm.name))
            assert again.source == lm.kernel.source
            assert [p.kind for p in lm.kernel.params][-2:] == ["output", "size"]
            assert lm.name in print_lift(prog)


def test_maps_that_are_not_lift_programs_yet():
    # a computed subscript, a checked division, two results
    bodies = [
        (Index(var("xs"), prim("sub", Length(var("xs"), INT), prim("add", i, const(1)))), [("xs", VecT(INT))]),
        (prim("div", Index(var("xs"), i), var("k"), loc=L("d:1:1")), [("xs", VecT(INT)), ("k", INT)]),
        (Tuple((Index(var("xs"), i), Index(var("xs"), i))), [("xs", VecT(INT))]),
    ]
    for body, params in bodies:
        nres = 2 if isinstance(body, Tuple) else 1
        prog = one(Map(th(("i", INT), body), Length(var(params[0][0]), INT)), params, nres=nres)
        assert lifted(prog) == [], body


@pytest.mark.parametrize("n", ODD_SIZES + (63, 64, 65, BIG))
def test_lift_maps_equal_numpy(runners, n):
    rng = np.random.default_rng(n)
    xs = rng.standard_normal(n)
    ys = rng.integers(-2**31, 2**31 - 1, n, dtype=np.int64).astype(np.int32)
    rs = runners if n < BIG else runners[:1]
    check(axpy(), rs, xs, ys, np.float64(-1.5), expect_error=False)
    check(clamp_int(), rs, ys, np.int32(7), expect_error=False)
    bs = rng.integers(0, 2, n).astype(np.bool_)
    cs = rng.integers(0, 256, n).astype(np.uint8)
    check(chars(), rs, bs, cs, np.uint8(130), expect_error=False)


def test_bool_and_char_maps_are_lift_programs():
    assert len(lifted(chars())) == 2


def test_index_space_maps_are_lift_programs():
    ls = lifted(index_maps())
    assert len(ls) == 3
    for x in ls:
        assert "generate(N)" in x.info["lift"].text()


@pytest.mark.parametrize("n", ODD_SIZES + (65, BIG))
def test_index_space_maps_equal_numpy(runners, n):
    xs = (np.arange(n, dtype=np.int64) * 7919 % 2**31).astype(np.int32)
    rs = runners if n < BIG else runners[:1]
    check(index_maps(), rs, xs, np.int32(n), expect_error=False)
    check(index_maps(), rs[:1], xs, np.int32(0), expect_error=False)


def test_lift_kernel_is_what_runs():
    r = OpenCLRunner(profile=True)
    n = 10000
    check(axpy(), [r], np.ones(n), np.arange(n, dtype=np.int32), np.float64(2.0), expect_error=False)
    r._collect_events()
    assert any(k.endswith("_lift") for k in r.stats.by_kernel), r.stats.by_kernel
    assert not any(k.endswith("_map") for k in r.stats.by_kernel), r.stats.by_kernel


def test_shorter_input_runs_the_checked_kernel(runners):
    # ys shorter than the map: the Lift kernel (no checks) must not run; the checked kernel
    # reports the subscript's location, as the numpy runner does
    for m in (0, 3, 99):
        assert check(axpy(), runners, np.ones(100), np.zeros(m, np.int32), np.float64(1.0),
                     expect_error=True) == (L("m:1:2"), MSG_BOUNDS)
    # a longer one is read at the map's indices only
    check(axpy(), runners, np.ones(5), np.arange(9, dtype=np.int32), np.float64(1.0),
          expect_error=False)


def test_a_lift_refusal_leaves_the_checked_kernel(monkeypatch):
    # a limit of the Lift compiler must not stop the program: the MAP keeps its hand-written
    # phase only, and runs
    import lift_backend
    from lift_backend.errors import LiftCompileError

    def refuse(*a, **k):
        raise LiftCompileError("a limit")
    monkeypatch.setattr(lift_backend, "compile_program", refuse)
    prog = axpy()
    assert lifted(prog) == []
    r = OpenCLRunner()
    check(prog, [r], np.ones(70), np.arange(70, dtype=np.int32), np.float64(3.0), expect_error=False)
