"""Element-wise MAPs compiled by the Lift compiler (lift_backend/lower/lift_map.py): which MAPs
become Lift programs, that the printed program is Lift the parser reads back and compiles to the
same kernel, and that the runner's results (Lift kernel, or the checked hand-written kernel where
an input is shorter than the map) equal the numpy runner's."""
import numpy as np
import pytest

from lambda_cu.errors import MSG_BOUNDS, MSG_DIV0
from lambda_cu.ir import If, Let, Map, Tuple
from lift_backend import compile_program, parse
from lift_backend.lower import lower_program, print_lift
from lift_backend.lower.runner import OpenCLRunner

from .ocl_helpers import (cpu_plan_runner, BIG, BOOL, CHAR, FLOAT, INT, INT64, ODD_SIZES, SD, Index, L, Length, SegVec, VecT, check,
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
            again = compile_program(lf.program(lm.name), global_size=lm.kernel.launch.global_size,
                                    error_base=True, soa_output=True)
            assert again.source == lm.kernel.source
            # on a CPU the runner launches a work-item per element: the mapGlb is an if
            assert "if (get_global_id(0) < N)" in again.source
            assert [p.kind for p in lm.kernel.params][-2:] == ["output", "size"]
            assert lm.name in print_lift(prog)


def test_maps_that_are_not_lift_programs_yet():
    # a length read as a value
    body = Index(var("xs"), prim("sub", Length(var("xs"), INT), prim("add", i, const(1))))
    prog = one(Map(th(("i", INT), body), Length(var("xs"), INT)), [("xs", VecT(INT))])
    assert lifted(prog) == []


def failing():
    """Checked primitives (a user function cannot reach the error buffer: it returns a flag per
    failing site, which ``failIf`` reports with the site's code): ``{ i => let q = xs[i] / k in
    (if q > 2 then rem(xs[i], ys[i]) else isqrt(ys[i] - 3), q ^ ys[i], to_float(q)) }``."""
    x, y = Index(var("xs"), i), Index(var("ys"), i)
    q = var("q")
    body = Let((q,), prim("div", x, var("k"), loc=L("f:1:1")),
               Tuple((If(prim("gt", q, const(2)), prim("rem", x, y, loc=L("f:1:2")),
                         prim("isqrt", prim("sub", y, const(3)), loc=L("f:1:3"))),
                      prim("pow", q, prim("sub", y, const(2)), loc=L("f:1:4")),
                      prim("to_float", q))))
    return one(Map(th(("i", INT), body), Length(var("xs"), INT)),
               [("xs", VecT(INT)), ("ys", VecT(INT)), ("k", INT)], nres=3)


def test_checked_primitives_are_lift_programs():
    ls = lifted(failing())
    assert len(ls) == 1
    lm = ls[0].info["lift"]
    assert lm.text().count("failIf(") == 4
    assert "_check_fail(" in lm.kernel.source and "NESSIE_ERR" not in lm.kernel.source


@pytest.mark.parametrize("n", (1, 7, 2049))
def test_checked_primitives_equal_numpy(runners, n):
    rng = np.random.default_rng(n)
    xs = rng.integers(-50, 50, n).astype(np.int32)
    ys = rng.integers(3, 9, n).astype(np.int32)
    check(failing(), runners, xs, ys, np.int32(3), expect_error=False)
    # each site fails alone, then several at once (numpy's order decides)
    assert check(failing(), runners, xs, ys, np.int32(0), expect_error=True) == (L("f:1:1"), MSG_DIV0)
    y0 = ys.copy()
    y0[-1], xs[-1] = 0, 40                                  # rem by zero where q > 2
    assert check(failing(), runners, xs, y0, np.int32(3), expect_error=True) == (L("f:1:2"), MSG_DIV0)
    y1 = ys.copy()
    y1[0], xs[0] = 1, -30                                   # isqrt(-2) where q <= 2
    got = check(failing(), runners, xs, y1, np.int32(3), expect_error=True)
    assert got[0] in (L("f:1:3"), L("f:1:4"))
    xs[0] = 0                                               # 0 ^ -1 (and isqrt(-2))
    check(failing(), runners, xs, y1, np.int32(3), expect_error=True)


def several():
    """``{ i => (xs[i] * 2, to_float(xs[i]) / 4.0, xs[i] > k, ys[ps[i]]) }``: four results of three
    types (bool among them), written as four buffers (``soa_output``), one at a computed index."""
    x = Index(var("xs"), i)
    body = Tuple((prim("mul", x, const(2)), prim("div", prim("to_float", x), const(4.0)),
                  prim("gt", x, var("k")), Index(var("ys"), Index(var("ps"), i), L("t:1:1"))))
    return one(Map(th(("i", INT), body), Length(var("xs"), INT)),
               [("xs", VecT(INT)), ("ys", VecT(CHAR)), ("ps", VecT(INT)), ("k", INT)], nres=4)


def test_several_results_are_one_lift_program():
    ls = lifted(several())
    assert len(ls) == 1
    lm = ls[0].info["lift"]
    assert [p.kind for p in lm.kernel.params].count("output") == 4
    assert "typedef struct" in lm.kernel.source and "#ifndef LIFT_Tuple_" in lm.kernel.source
    # the printed program reads back (one array of tuples there: Lift's own result)
    again = compile_program(parse(lm.text()).program(lm.name))
    assert [p.kind for p in again.params].count("output") == 1


@pytest.mark.parametrize("n", (1, 3, 65, 2049, BIG))
def test_several_results_equal_numpy(runners, n):
    rng = np.random.default_rng(n)
    xs = rng.integers(-1000, 1000, n).astype(np.int32)
    ys = rng.integers(0, 256, 37).astype(np.uint8)
    ps = rng.integers(0, 37, n).astype(np.int32)
    rs = runners if n < BIG else runners[:1]
    check(several(), rs, xs, ys, ps, np.int32(3), expect_error=False)
    ps[-1] = 37
    assert check(several(), rs, xs, ys, ps, np.int32(3), expect_error=True) == (L("t:1:1"), MSG_BOUNDS)


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
    r = cpu_plan_runner()
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
    # lowering is memoised for the process: forget what earlier tests lowered, before and after
    from lift_backend.lower.kernels import forget_lowered
    forget_lowered()
    try:
        prog = axpy()
        assert lifted(prog) == []
        r = OpenCLRunner()
        check(prog, [r], np.ones(70), np.arange(70, dtype=np.int32), np.float64(3.0), expect_error=False)
    finally:
        forget_lowered()


# ------------------------------------------------------------------------------------------------
# subscripts at computed indices: arrayAccess


def gathers():
    """Subscripts at indices computed from loaded data (``arrayAccess`` in Lift, checked with
    the subscript's own site): a gather through an index vector, a gather of a gather, an
    index computed from the map's index and a scalar, a long index, and a subscript in a
    branch of an ``if`` (``arrayAccessIf``: the branch may not run, and then its check must
    not)."""
    from lambda_cu.ir import Program
    from .ocl_helpers import kernel
    j, ps = var("j"), var("ps")
    g0 = Map(th(("i", INT), prim("mul", Index(var("xs"), Index(ps, i), L("g:1:1")), const(2.0))),
             Length(ps, INT))
    g1 = Map(th(("i", INT), Index(var("xs"), Index(ps, Index(var("qs"), i), L("g:2:2")), L("g:2:1"))),
             Length(var("qs"), INT))
    g2 = Map(th(("i", INT), Index(var("xs"), prim("add", i, var("k")), L("g:3:1"))), Length(ps, INT))
    g3 = Map(th(("j", INT64), prim("add", Index(var("ws"), prim("add", j, const(1, INT64)), L("g:4:1")),
                                   j)), Length(ps, INT64))
    g4 = Map(th(("i", INT), If(prim("lt", Index(ps, i), var("k")), Index(var("xs"), Index(ps, i), L("g:5:1")),
                               const(0.5))), Length(ps, INT))
    return Program((kernel("K", [("xs", VecT(FLOAT)), ("ps", VecT(INT)), ("qs", VecT(INT)),
                                 ("ws", VecT(INT64)), ("k", INT)],
                           [("r0", g0), ("r1", g1), ("r2", g2), ("r3", g3), ("r4", g4)],
                           ["r0", "r1", "r2", "r3", "r4"]),))


def test_computed_subscripts_are_lift_programs():
    ls = lifted(gathers())
    assert [x.soac for x in ls] == [b.soac for b in gathers().kernels[0].binds]
    for x in ls:
        lm = x.info["lift"]
        assert "arrayAccess(" in lm.text() or "arrayAccessIf(" in lm.text()
        # the kernel reports the subscript's site as errbase + code (no Lift site numbers)
        assert [p.kind for p in lm.kernel.params][-2:] == ["errors", "errbase"]
        assert "atomic_min" in lm.kernel.source
        # the printed program parses and compiles back (Lift's own error protocol there)
        again = compile_program(parse(lm.text()).program(lm.name))
        assert again.checks and all(c.kind.startswith("arrayAccess") for c in again.checks)
    # the long index is checked as a long, the nested gather twice
    lm1, lm3, lm4 = ls[1].info["lift"], ls[3].info["lift"], ls[4].info["lift"]
    assert "arrayAccessIf(" in lm4.text() and " ? " in lm4.kernel.source
    assert f"{lm3.name}_check_long(" in lm3.kernel.source
    assert lm1.kernel.source.count(f"{lm1.name}_check(") == 3     # the helper and two calls


def _gather_inputs(rng, n, m):
    xs = rng.standard_normal(m)
    ps = rng.integers(0, max(m, 1), n).astype(np.int32)
    qs = rng.integers(0, max(n, 1), n).astype(np.int32)
    ws = rng.integers(-2**40, 2**40, n + 1).astype(np.int64)
    return xs, ps, qs, ws


@pytest.mark.parametrize("n", ODD_SIZES[1:] + (65, BIG))
def test_computed_subscripts_equal_numpy(runners, n):
    rng = np.random.default_rng(n)
    m = max(n // 3, 1) + 7
    xs, ps, qs, ws = _gather_inputs(rng, n, m)
    rs = runners if n < BIG else runners[:1]
    # k keeps i + k inside xs: k = m - n when n < m (else an error, below)
    if n < m:
        check(gathers(), rs, xs, ps, qs, ws, np.int32(m - n), expect_error=False)
    else:
        assert check(gathers(), rs, xs, ps, qs, ws, np.int32(m - n), expect_error=True) == \
            (L("g:3:1"), MSG_BOUNDS)


def test_computed_subscripts_out_of_bounds_report_their_site(runners):
    rng = np.random.default_rng(7)
    n, m = 100, 150
    xs, ps, qs, ws = _gather_inputs(rng, n, m)
    k = np.int32(0)             # i + k in bounds
    check(gathers(), runners, xs, ps, qs, ws, k, expect_error=False)
    bad = ps.copy()
    bad[73] = m                 # one past the end: r0's subscript
    assert check(gathers(), runners, xs, bad, qs, ws, k, expect_error=True) == (L("g:1:1"), MSG_BOUNDS)
    bad[73] = -1
    assert check(gathers(), runners, xs, bad, qs, ws, k, expect_error=True) == (L("g:1:1"), MSG_BOUNDS)
    # the inner and the outer subscript of a gather of a gather: numpy's order
    q2 = qs.copy()
    q2[5] = n
    assert check(gathers(), runners, xs, ps, q2, ws, k, expect_error=True) == (L("g:2:2"), MSG_BOUNDS)
    # an index computed from the map's index and a scalar
    assert check(gathers(), runners, xs, ps, qs, ws, np.int32(m - n + 1), expect_error=True) == \
        (L("g:3:1"), MSG_BOUNDS)
    # an empty vector read at a computed index: every subscript fails
    assert check(gathers(), runners, np.zeros(0), ps, qs, ws, k, expect_error=True) == \
        (L("g:1:1"), MSG_BOUNDS)
    # the long index one past ws's end
    assert check(gathers(), runners, xs, ps, qs, ws[:n], k, expect_error=True) == \
        (L("g:4:1"), MSG_BOUNDS)


def test_a_subscript_in_an_untaken_branch_is_not_checked(runners):
    from lambda_cu.ir import Program
    from .ocl_helpers import kernel
    g4 = gathers().kernels[0].binds[4].soac
    prog = Program((kernel("K", [("xs", VecT(FLOAT)), ("ps", VecT(INT)), ("k", INT)], [("r", g4)], ["r"]),))
    assert len(lifted(prog)) == 1
    xs = np.arange(10.0)
    ps = np.array([3, 99, 7, 1000, 0] * 20, np.int32)     # 99 and 1000: the branch is not taken
    check(prog, runners, xs, ps, np.int32(10), expect_error=False)
    assert check(prog, runners, xs, ps, np.int32(100), expect_error=True) == (L("g:5:1"), MSG_BOUNDS)


def segment_maps():
    """Segment-descriptor fields read at the map's index and at computed indices: the value of
    each element's segment start, and each segment's length plus its first element (an error
    for an empty last segment)."""
    from lambda_cu.ir import Program
    from .ocl_helpers import kernel, seg
    r = var("r")
    starts = Map(th(("i", INT), Index(var("vs"), seg("sd", "offsets", seg("sd", "ids", i)), L("s:1:1"))),
                 Length(var("vs"), INT))
    firsts = Map(th(("r", INT), prim("add", seg("sd", "lengths", r),
                                     Index(var("vs"), seg("sd", "offsets", r), L("s:2:1")))),
                 Length(SegVec(var("sd"), "lengths"), INT))
    return Program((kernel("K", [("sd", SD), ("vs", VecT(INT))], [("a", starts), ("b", firsts)],
                           ["a", "b"]),))


def test_segment_fields_at_computed_indices():
    from lift_backend.lower.runner import lower_kernel
    k = segment_maps().kernels[0]
    # on a GPU both are Lift programs; on a CPU the segment ids are computed by walking the
    # offsets (no buffer to read), so the map that reads them at its index is sd's rows, the
    # row's index the id (test_lift_map_rows.py)
    assert ["lift" in x.info for x in lower_kernel(k, strategy="gpu")] == [True, True]
    cpu = lower_kernel(k, strategy="cpu")
    assert ["lift" in x.info for x in cpu] == [True, True]
    assert [x.info["lift"].rows for x in cpu] == ["sd", None]


@pytest.mark.parametrize("lengths", [[1], [3, 1, 2], [5] * 7 + [2], [1, 2, 3] * 700])
def test_segment_fields_equal_numpy(runners, lengths):
    from lambda_cu.values import SegDes
    n = sum(lengths)
    vs = (np.arange(n, dtype=np.int64) * 7919 % 1000).astype(np.int32)
    check(segment_maps(), runners, SegDes(lengths), vs, expect_error=False)
    # an empty last segment: its offset is #vs, out of bounds
    assert check(segment_maps(), runners, SegDes(lengths + [0]), vs, expect_error=True) == \
        (L("s:2:1"), MSG_BOUNDS)


def let_index():
    """``{ i => let y = ps[i] + 1 in xs[y - 1] * to_float(y) }``: the index uses a ``let``
    variable (its right-hand side runs again in the index's user function)."""
    y = var("y")
    body = Let((y,), prim("add", Index(var("ps"), i), const(1)),
               prim("mul", Index(var("xs"), prim("sub", y, const(1)), L("l:1:1")), prim("to_float", y)))
    return one(Map(th(("i", INT), body), Length(var("ps"), INT)), [("xs", VecT(FLOAT)), ("ps", VecT(INT))])


@pytest.mark.parametrize("n", (1, 7, 2049))
def test_an_index_using_a_let_variable(runners, n):
    ls = lifted(let_index())
    assert len(ls) == 1 and "arrayAccess(" in ls[0].info["lift"].text()
    xs = np.linspace(-1, 1, 50)
    ps = (np.arange(n) * 31 % 50).astype(np.int32)
    check(let_index(), runners, xs, ps, expect_error=False)
    ps[n // 2] = 50
    assert check(let_index(), runners, xs, ps, expect_error=True) == (L("l:1:1"), MSG_BOUNDS)


def branches():
    """Subscripts in nested branches, a condition read at a computed index, and a ``let`` in a
    branch that shadows a variable of the condition (the path condition must keep the outer
    one): ``{ i => let y = ps[i] in
                    if y >= 0 then (if xs[y] > 0.0 then xs[y] * 2.0
                                    else let y = y - 1 in xs[y])   -- y - 1 may be -1
                    else if y > -k then 1.0 else xs[y + k] }``"""
    y = var("y")
    ps, xs, k = var("ps"), var("xs"), var("k")
    inner = If(prim("gt", Index(xs, y, L("b:1:1")), const(0.0)),
               prim("mul", Index(xs, y, L("b:1:2")), const(2.0)),
               Let((y,), prim("sub", y, const(1)), Index(xs, y, L("b:1:3"))))
    outer = If(prim("ge", y, const(0)), inner,
               If(prim("gt", y, prim("neg", k)), const(1.0), Index(xs, prim("add", y, k), L("b:1:4"))))
    body = Let((y,), Index(ps, i), outer)
    return one(Map(th(("i", INT), body), Length(ps, INT)), [("xs", VecT(FLOAT)), ("ps", VecT(INT)), ("k", INT)])


@pytest.mark.parametrize("n", (1, 7, 65, 2049))
def test_subscripts_in_branches(runners, n):
    ls = lifted(branches())
    assert len(ls) == 1 and ls[0].info["lift"].text().count("arrayAccessIf(") >= 4
    rng = np.random.default_rng(n)
    xs = rng.standard_normal(40)
    ps = rng.integers(-45, 40, n).astype(np.int32)
    ps[0] = 0                                       # xs[0] <= 0 would read xs[-1]
    xs[0] = abs(xs[0]) + 0.5
    check(branches(), runners, xs, ps, np.int32(45), expect_error=False)
    # a branch taken with a bad index: its own location
    big = ps.copy()
    big[-1] = 40
    assert check(branches(), runners, xs, big, np.int32(45), expect_error=True) == (L("b:1:1"), MSG_BOUNDS)
    # k = 4: y > -4 gives 1.0, y = -4 reads xs[0], y = -5 reads xs[-1]
    neg = np.maximum(ps, -4).astype(np.int32)
    check(branches(), runners, xs, neg, np.int32(4), expect_error=False)
    neg[n // 2] = -5
    assert check(branches(), runners, xs, neg, np.int32(4), expect_error=True) == (L("b:1:4"), MSG_BOUNDS)
    xz = xs.copy()
    xz[0] = -1.0                                    # y = 0, xs[0] <= 0: reads xs[-1]
    assert check(branches(), runners, xz, ps, np.int32(45), expect_error=True) == (L("b:1:3"), MSG_BOUNDS)
