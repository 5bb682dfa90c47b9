"""REDUCEs whose chunks the Lift compiler writes (lift_backend/lower/lift_map.py): the chunk
phase is the Lift program

    join o mapGlb(0)(toGlobal(mapSeq(id)) o reduceSeq(\\acc t -> op(acc, f(t)), init))
      o partition(P, \\c -> (c + 1) * N / P - c * N / P) $ zip(inputs)

(balanced chunks of any length ``N``, row offsets ``c * N / P`` found by the Lift compiler's
telescoping sums).  Which REDUCEs become Lift programs, that the printed program parses and
compiles to the kernel the runner launches, that it is what runs, and that results and runtime
errors equal the numpy runner's on every size around the chunking."""
import numpy as np
import pytest

from lambda_cu.errors import MSG_BOUNDS, MSG_DIV0
from lambda_cu.ir import Index, Program, Reduce, Scan, Tuple
from lambda_cu.types import BOOL, CHAR, FLOAT, INT, INT64
from lift_backend import compile_program, parse
from lift_backend.lower import print_lift
from lift_backend.lower.runner import OpenCLRunner

from .ocl_helpers import (cpu_plan_runner, BIG, FLOAT_SUM_RTOL, ODD_SIZES, L, VecT, check, const, kernel, length,
                          op2, prim, th, var)

pytestmark = pytest.mark.opencl

i = var("i")


def reductions():
    """One kernel of REDUCEs: a dot product (floats), a wrapping int sum of a scaled input, a
    max with its identity, an ``or`` of a comparison (bool), a max of chars (codes above 127
    compare unsigned), a long sum over the index space, and a sum of a gather (a subscript at a
    computed index, checked with its own site)."""
    xs, ys, ps = var("xs"), var("ys"), var("ps")
    dot = Reduce(th(("i", INT), prim("mul", Index(xs, i), Index(ys, i))), (const(0.0),),
                 op2("add", FLOAT), length("xs"))
    isum = Reduce(th(("i", INT), prim("mul", Index(ps, i), var("k"))), (const(0),), op2("add", INT),
                  length("ps"))
    imax = Reduce(th(("i", INT), Index(ps, i)), (const(-2**31),), op2("max", INT), length("ps"))
    anyg = Reduce(th(("i", INT), prim("gt", Index(ps, i), var("k"))), (const(False),), op2("or", BOOL),
                  length("ps"))
    cmax = Reduce(th(("i", INT), Index(var("cs"), i)), (const(chr(0), CHAR),), op2("max", CHAR), length("cs"))
    lsum = Reduce(th(("j", INT64), prim("mul", var("j"), var("j"))), (const(0, INT64),),
                  op2("add", INT64), length("ps", INT64))
    gsum = Reduce(th(("i", INT), Index(xs, Index(ps, i), L("r:7:1"))), (const(0.0),), op2("add", FLOAT),
                  length("ps"))
    binds = [("r0", dot), ("r1", isum), ("r2", imax), ("r3", anyg), ("r4", cmax), ("r5", lsum), ("r6", gsum)]
    return Program((kernel("K", [("xs", VecT(FLOAT)), ("ys", VecT(FLOAT)), ("ps", VecT(INT)),
                                 ("cs", VecT(CHAR)), ("k", INT)], binds, [b[0] for b in binds]),))


def lifted(prog, strategy="cpu"):
    from lift_backend.lower.runner import lower_kernel
    return [ls for k in prog.kernels for ls in lower_kernel(k, strategy=strategy) if "lift" in ls.info]


def test_reductions_are_lift_programs():
    prog = reductions()
    ls = lifted(prog)
    assert [x.soac for x in ls] == [b.soac for b in prog.kernels[0].binds]
    for x in ls:
        lm = x.info["lift"]
        text = lm.text()
        assert "reduceSeq(" in text and "partition(P, " in text, text
        # the printed program is Lift: parsed back, it compiles to the kernel the runner launches
        launch = dict(global_size=lm.kernel.launch.global_size, local_size=lm.kernel.launch.local_size)
        if "arrayAccess(" in text:
            # the site codes are the runner's, not part of Lift's syntax: Lift's own protocol
            again = compile_program(parse(text).program(lm.name), **launch)
            assert again.checks and all(c.kind == "arrayAccess" for c in again.checks)
        else:
            again = compile_program(parse(text).program(lm.name), error_base=True, soa_output=True,
                                    **launch)
            assert again.source == lm.kernel.source
        # one work-item per chunk on a CPU: no loop over the chunks
        assert "for (int gl_id" not in again.source
        assert {"N", "P"} <= {p.name for p in lm.kernel.params if p.kind == "size"}
        assert lm.name in print_lift(prog)


def test_a_gpu_strides_over_the_chunks():
    for x in lifted(reductions(), strategy="gpu"):
        assert "for (int gl_id = get_global_id(0); gl_id < P; gl_id += get_global_size(0))" in \
            x.info["lift"].kernel.source


def test_reductions_once_left_to_the_template_are_lift_programs():
    """A pair with a component-wise operator from (0, 0) (no identity of max/min), a fold whose
    element can fail (a division: failIf in the fold's step reports it), a scan from 7, sums
    from 5 and 0.5 and a max from 0: each a Lift program now, folding its chunks from their
    first element where init is no identity; the failure is the division's located message."""
    xs, ps = var("xs"), var("ps")
    pair_op = th((("a", INT), ("b", INT), ("c", INT), ("d", INT)),
                 Tuple((prim("max", var("a"), var("c")), prim("min", var("b"), var("d")))))
    pair = Reduce(th(("i", INT), Tuple((Index(ps, i), i))), (const(0), const(0)), pair_op, length("ps"))
    div = Reduce(th(("i", INT), prim("div", const(100), Index(ps, i), loc=L("r:9:1"))), (const(0),),
                 op2("add", INT), length("ps"))
    scan = Scan(th(("i", INT), Index(ps, i)), (const(7),), op2("add", INT), length("ps"))
    off = Reduce(th(("i", INT), Index(ps, i)), (const(5),), op2("add", INT), length("ps"))
    half = Reduce(th(("i", INT), Index(xs, i)), (const(0.5),), op2("add", FLOAT), length("xs"))
    low = Reduce(th(("i", INT), Index(ps, i)), (const(0),), op2("max", INT), length("ps"))
    prog = Program((kernel("K", [("xs", VecT(FLOAT)), ("ps", VecT(INT))],
                           [(("p0", "p1"), pair), ("d", div), ("s", scan), ("o", off), ("h", half),
                            ("m", low)], ["p0", "d", "s", "o", "h", "m"]),))
    ls = lifted(prog)
    assert [x.soac.NAME for x in ls] == ["REDUCE", "REDUCE", "SCAN", "REDUCE", "REDUCE", "REDUCE"]
    assert ["_init1" in x.info["lift"].text() for x in ls] == [True, False, True, True, True, True]
    assert "failIf(" in ls[1].info["lift"].text()
    rng = np.random.default_rng(1)
    for n in (1, 2049, 6149):
        check(prog, [OpenCLRunner(), cpu_plan_runner()], rng.standard_normal(n),
              rng.integers(-9, 0, n).astype(np.int32), expect_error=False, rtol=FLOAT_SUM_RTOL)
        p = rng.integers(-9, 0, n).astype(np.int32)
        p[n // 2] = 0
        assert check(prog, [OpenCLRunner(), cpu_plan_runner()], rng.standard_normal(n), p,
                     expect_error=True)[0] == L("r:9:1")


def test_signed_zeros_sum_as_the_numpy_runner_does(runners):
    """A float sum folded from +0.0 in every chunk: a chunk of -0.0s gives +0.0, and the total,
    with init added once more, is the numpy runner's bit for bit."""
    xs, ys = var("xs"), var("ys")
    for init in (0.0, -0.0):
        dot = Reduce(th(("i", INT), prim("mul", Index(xs, i), Index(ys, i))), (const(init),),
                     op2("add", FLOAT), length("xs"))
        prog = Program((kernel("K", [("xs", VecT(FLOAT)), ("ys", VecT(FLOAT))], [("r", dot)], ["r"]),))
        assert len(lifted(prog)) == 1
        for n in (1, 3, 4097):
            for x in (-0.0, 0.0):
                check(prog, runners, np.full(n, x), np.ones(n), expect_error=False)


def _inputs(rng, n):
    xs = rng.standard_normal(n)
    ys = rng.standard_normal(n)
    ps = rng.integers(-2**31, 2**31 - 1, n, dtype=np.int64).astype(np.int32)
    cs = rng.integers(0, 256, n).astype(np.uint8)
    return xs, ys, ps, cs


@pytest.mark.parametrize("n", ODD_SIZES + (63, 64, 65, BIG))
def test_lift_reductions_equal_numpy(runners, n):
    rng = np.random.default_rng(n)
    xs, ys, ps, cs = _inputs(rng, n)
    gather = np.abs(ps.astype(np.int64)) % max(n, 1)
    rs = runners if n < BIG else runners[:1]
    names = [f"r{j}" for j in range(7)]
    check(reductions(), rs, xs, ys, gather.astype(np.int32), cs, np.int32(3), expect_error=False,
          rtol=FLOAT_SUM_RTOL, names=names)
    # a wrapping sum (the scaled ints overflow) and the max of raw ints
    check(reductions(), rs[:1] if n >= BIG else rs, xs, ys, ps, cs, np.int32(-7),
          expect_error=n > 0 and bool(np.any((ps < 0) | (ps >= n))), rtol=FLOAT_SUM_RTOL, names=names)


def test_a_failing_subscript_reports_its_site(runners):
    rng = np.random.default_rng(3)
    n = 5000
    xs, ys, ps, cs = _inputs(rng, n)
    good = (np.arange(n) * 7 % n).astype(np.int32)
    check(reductions(), runners, xs, ys, good, cs, np.int32(1), expect_error=False, rtol=FLOAT_SUM_RTOL)
    for at, bad in ((0, n), (n - 1, -1), (2500, 2**31 - 1)):
        g = good.copy()
        g[at] = bad
        assert check(reductions(), runners, xs, ys, g, cs, np.int32(1), expect_error=True) == \
            (L("r:7:1"), MSG_BOUNDS)


def test_the_lift_kernel_is_what_runs():
    r = cpu_plan_runner()
    rng = np.random.default_rng(5)
    n = 100000
    xs, ys, ps, cs = _inputs(rng, n)
    check(reductions(), [r], xs, ys, (np.arange(n) % n).astype(np.int32), cs, np.int32(2),
          expect_error=False, rtol=FLOAT_SUM_RTOL)
    r._collect_events()
    names = set(r.stats.by_kernel)
    assert sum(k.endswith("_lift") for k in names) == 7, names
    assert not any(k.endswith("_chunks") for k in names), names


def test_a_shorter_input_runs_the_checked_chunks(runners):
    # ys shorter than xs (the REDUCE's length): the Lift kernel must not run; the checked chunk
    # phase reports the subscript's location as the numpy runner does
    xs, ys = var("xs"), var("ys")
    dot = Reduce(th(("i", INT), prim("mul", Index(xs, i), Index(ys, i, L("d:1:2")))), (const(0.0),),
                 op2("add", FLOAT), length("xs"))
    prog = Program((kernel("K", [("xs", VecT(FLOAT)), ("ys", VecT(FLOAT))], [("r", dot)], ["r"]),))
    assert len(lifted(prog)) == 1
    for m in (0, 3, 4999):
        assert check(prog, runners, np.ones(5000), np.ones(m), expect_error=True) == (L("d:1:2"), MSG_BOUNDS)
    check(prog, runners, np.ones(50), np.ones(70), expect_error=False, rtol=FLOAT_SUM_RTOL)


def test_div0_in_a_reduction_is_still_reported(runners):
    ps = var("ps")
    div = Reduce(th(("i", INT), prim("div", const(100), Index(ps, i), loc=L("r:9:1"))), (const(0),),
                 op2("add", INT), length("ps"))
    prog = Program((kernel("K", [("ps", VecT(INT))], [("d", div)], ["d"]),))
    v = np.arange(1, 3001, dtype=np.int32)
    check(prog, runners, v, expect_error=False)
    v[1234] = 0
    assert check(prog, runners, v, expect_error=True) == (L("r:9:1"), MSG_DIV0)


# ------------------------------------------------------------------------------------------------
# SCANs: the chunk pass as above, and the last pass, each chunk scanning again from its carry-in,
# as the Lift program  join o mapGlb(0)(\t -> toGlobal(scanSeq(\acc x -> op(acc, f(x)), t._1))
# $ t._0) $ zip(partition(P, ...) $ zip(inputs), carry)


def scans():
    """The REDUCEs of :func:`reductions` as SCANs (exclusive, as λcu's)."""
    prog = reductions()
    k = prog.kernels[0]
    binds = [(b.vars[0].name, Scan(b.soac.f, b.soac.init, b.soac.op, b.soac.size)) for b in k.binds]
    return Program((kernel("K", [(p.name, p.ty) for p in k.params], binds, [b[0] for b in binds]),))


def test_scans_are_two_lift_programs():
    prog = scans()
    ls = lifted(prog)
    assert [x.soac for x in ls] == [b.soac for b in prog.kernels[0].binds]
    for x in ls:
        lm, lms = x.info["lift"], x.info["lift_scan"]
        assert "reduceSeq(" in lm.text()
        text = lms.text()
        assert "scanSeq(" in text and "carry: [" in text, text
        if "arrayAccess(" not in text:
            again = compile_program(parse(text).program(lms.name), global_size=lms.kernel.launch.global_size,
                                    local_size=lms.kernel.launch.local_size, error_base=True, soa_output=True)
            assert again.source == lms.kernel.source
        # the two programs build together: their user functions have their own names
        base = lms.name[:-len("_liftscan")]
        assert f"uf_{base}_s" in lms.kernel.source and f"uf_{base}_s" not in lm.kernel.source


@pytest.mark.parametrize("n", ODD_SIZES + (65, BIG))
def test_lift_scans_equal_numpy(runners, n):
    rng = np.random.default_rng(n + 1)
    xs, ys, ps, cs = _inputs(rng, n)
    # positive floats: a prefix sum of mixed signs crosses zero, where no relative tolerance
    # holds for a regrouped sum
    xs, ys = np.abs(xs) + 0.5, np.abs(ys) + 0.5
    gather = (np.abs(ps.astype(np.int64)) % max(n, 1)).astype(np.int32)
    rs = runners if n < BIG else runners[:1]
    check(scans(), rs, xs, ys, gather, cs, np.int32(3), expect_error=False, rtol=FLOAT_SUM_RTOL,
          names=[f"r{j}" for j in range(7)])


def test_the_lift_scan_kernels_are_what_run():
    r = cpu_plan_runner()
    rng = np.random.default_rng(6)
    n = 100000
    xs, ys, ps, cs = _inputs(rng, n)
    check(scans(), [r], xs, ys, (np.arange(n) % n).astype(np.int32), cs, np.int32(2),
          expect_error=False, rtol=FLOAT_SUM_RTOL)
    r._collect_events()
    names = set(r.stats.by_kernel)
    assert sum(k.endswith("_liftscan") for k in names) == 7, names
    assert sum(k.endswith("_lift") for k in names) == 7, names
    assert not any(k.endswith("_scan") or k.endswith("_chunks") for k in names), names


def test_a_scan_subscript_failure_reports_its_site(runners):
    rng = np.random.default_rng(8)
    n = 5000
    xs, ys, ps, cs = _inputs(rng, n)
    g = (np.arange(n) * 3 % n).astype(np.int32)
    g[4321] = -5
    assert check(scans(), runners, xs, ys, g, cs, np.int32(1), expect_error=True) == (L("r:7:1"), MSG_BOUNDS)


# ------------------------------------------------------------------------------------------------
# SEG_REDUCEs: the rows plan (one work-item a segment) as the Lift program
#   join o mapGlb(0)(toGlobal(mapSeq(id)) o reduceSeq(\acc t -> op(acc, f(t)), init))
#     $ splitOffsets(offs, zip(inputs))
# the descriptor's offsets (one more than segments: the total) cutting the inputs into rows


def seg_reductions():
    """Per segment: a dot product, a max from an init that is no identity (each segment folds
    from init once), an ``or`` of a comparison, and a sum through a gather (its subscript's
    site)."""
    from lambda_cu.ir import SegReduce
    from lambda_cu.types import SD
    xs, ys, ps, sd = var("xs"), var("ys"), var("ps"), var("sd")
    dot = SegReduce(th(("i", INT), prim("mul", Index(xs, i), Index(ys, i))), (const(0.0),),
                    op2("add", FLOAT), sd)
    mx = SegReduce(th(("i", INT), Index(ps, i)), (const(5),), op2("max", INT), sd)
    anyg = SegReduce(th(("i", INT), prim("gt", Index(ps, i), var("k"))), (const(False),), op2("or", BOOL), sd)
    gsum = SegReduce(th(("i", INT), Index(xs, Index(ps, i), L("s:4:1"))), (const(1.5),), op2("add", FLOAT), sd)
    binds = [("r0", dot), ("r1", mx), ("r2", anyg), ("r3", gsum)]
    return Program((kernel("K", [("xs", VecT(FLOAT)), ("ys", VecT(FLOAT)), ("ps", VecT(INT)), ("k", INT),
                                 ("sd", SD)], binds, [b[0] for b in binds]),))


def test_segmented_reductions_are_lift_programs():
    prog = seg_reductions()
    ls = lifted(prog)
    assert [x.soac for x in ls] == [b.soac for b in prog.kernels[0].binds]
    for x in ls:
        text = x.info["lift"].text()
        assert "splitOffsets(offs, " in text and "reduceSeq(" in text and "offs: [int]M" in text, text


SEG_SHAPES = [[1], [3, 0, 2], [0, 0, 5, 0], [7] * 300, [1, 2, 3, 4] * 500, [2049, 0, 1, 4097], [2] * 20000,
              [1, 0, 3] * 30000,
              [0] * 20 + [1]]


@pytest.mark.parametrize("lengths", SEG_SHAPES, ids=range(len(SEG_SHAPES)))
def test_lift_segmented_reductions_equal_numpy(runners, lengths):
    from lambda_cu.values import SegDes
    rng = np.random.default_rng(len(lengths))
    n = int(sum(lengths))
    xs, ys, ps, _ = _inputs(rng, n)
    ps = (np.abs(ps.astype(np.int64)) % max(n, 1)).astype(np.int32)
    check(seg_reductions(), runners, xs, ys, ps, np.int32(n // 2), SegDes(lengths), expect_error=False,
          rtol=FLOAT_SUM_RTOL, names=["r0", "r1", "r2", "r3"])


def test_the_lift_rows_are_what_run_and_report_their_site():
    from lambda_cu.values import SegDes
    r = cpu_plan_runner()
    rng = np.random.default_rng(9)
    lengths = [3, 0, 5, 8, 1] * 2000
    n = sum(lengths)
    xs, ys, ps, _ = _inputs(rng, n)
    ps = (np.arange(n) * 7 % n).astype(np.int32)
    check(seg_reductions(), [r], xs, ys, ps, np.int32(9), SegDes(lengths), expect_error=False,
          rtol=FLOAT_SUM_RTOL)
    r._collect_events()
    names = set(r.stats.by_kernel)
    assert sum(k.endswith("_lift") for k in names) == 4, names
    assert not any(k.endswith("_rows") for k in names), names
    ps[12345] = n
    assert check(seg_reductions(), [r, OpenCLRunner()], xs, ys, ps, np.int32(9), SegDes(lengths),
                 expect_error=True) == (L("s:4:1"), MSG_BOUNDS)


# ------------------------------------------------------------------------------------------------
# SEG_SCANs: the rows plan (one work-item a segment) as the Lift program
#   join o mapGlb(0)(\row -> toGlobal(scanSeq(\acc t -> op(acc, f(t)), init)) $ row)
#     $ splitOffsets(offs, zip(inputs))
# each segment scanned exclusively from init (λcu's SEG_SCAN), one result an element, the joined
# rows (offs[M - 1] - offs[0] elements) the output


def seg_scans():
    """Per segment, exclusive scans from init: a float sum of products, a max and a min of ints
    from inits that are no identity, a wrapping int sum of a scaled input, a float min, a float
    sum through a gather (a subscript at a computed index, with its site) and an ``or`` of a
    comparison (bools)."""
    from lambda_cu.ir import SegScan
    from lambda_cu.types import SD
    xs, ys, ps, sd = var("xs"), var("ys"), var("ps"), var("sd")
    dot = SegScan(th(("i", INT), prim("mul", Index(xs, i), Index(ys, i))), (const(0.0),),
                  op2("add", FLOAT), sd)
    mx = SegScan(th(("i", INT), Index(ps, i)), (const(5),), op2("max", INT), sd)
    mn = SegScan(th(("i", INT), Index(ps, i)), (const(-3),), op2("min", INT), sd)
    isum = SegScan(th(("i", INT), prim("mul", Index(ps, i), var("k"))), (const(7),), op2("add", INT), sd)
    fmin = SegScan(th(("i", INT), Index(ys, i)), (const(0.75),), op2("min", FLOAT), sd)
    gsum = SegScan(th(("i", INT), Index(xs, Index(ps, i), L("q:4:1"))), (const(1.5),), op2("add", FLOAT), sd)
    anyg = SegScan(th(("i", INT), prim("gt", Index(ps, i), var("k"))), (const(False),), op2("or", BOOL), sd)
    binds = [("r0", dot), ("r1", mx), ("r2", mn), ("r3", isum), ("r4", fmin), ("r5", gsum), ("r6", anyg)]
    return Program((kernel("K", [("xs", VecT(FLOAT)), ("ys", VecT(FLOAT)), ("ps", VecT(INT)), ("k", INT),
                                 ("sd", SD)], binds, [b[0] for b in binds]),))


SCAN_NAMES = [f"r{j}" for j in range(7)]


def _scan_inputs(rng, n):
    # positive floats: a regrouped prefix sum (the chunked plan, for long segments) of mixed
    # signs crosses zero, where no relative tolerance holds
    xs, ys, ps, _ = _inputs(rng, n)
    return np.abs(xs) + 0.5, np.abs(ys) + 0.5, ps


def test_segmented_scans_are_lift_programs():
    prog = seg_scans()
    for strategy in ("cpu", "gpu"):
        ls = lifted(prog, strategy)
        assert [x.soac for x in ls] == [b.soac for b in prog.kernels[0].binds]
        for x in ls:
            lm = x.info["lift"]
            text = lm.text()
            assert "splitOffsets(offs, " in text and "scanSeq(" in text and "offs: [int]M" in text, text
            assert "reduceSeq(" not in text and "lift_scan" not in x.info
            out = next(p for p in lm.kernel.params if p.kind == "output")
            from lift_backend.arith import to_text
            assert to_text(out.size) == "offs[M - 1] - offs[0]"
            # one result an element, written before the element is folded in (exclusive)
            assert "out[i + offs[gl_id] - offs[0]] = acc" in lm.kernel.source
            launch = dict(global_size=lm.kernel.launch.global_size, local_size=lm.kernel.launch.local_size)
            if "arrayAccess(" not in text:
                # the printed program is Lift: parsed back, it compiles to the kernel launched
                again = compile_program(parse(text).program(lm.name), error_base=True, soa_output=True,
                                        **launch)
                assert again.source == lm.kernel.source
            # a CPU runs one work-item a segment (the mapGlb an if), a GPU strides
            loop = "for (int gl_id = get_global_id(0); gl_id < M - 1; gl_id += get_global_size(0))"
            assert (loop in lm.kernel.source) == (strategy == "gpu")
            assert lm.name in print_lift(prog)


SCAN_SHAPES = [[], [0], [0, 0, 0], [1], [5], [3, 0, 2], [0, 0, 5, 0], [0, 4, 4, 0], [7] * 300,
               [1, 2, 3, 4] * 500, [2049, 0, 1, 4097], [2] * 20000, [1, 0, 3] * 30000, [0] * 20 + [1],
               [65], [63, 1, 0, 127, 257]]


@pytest.mark.parametrize("lengths", SCAN_SHAPES, ids=range(len(SCAN_SHAPES)))
def test_lift_segmented_scans_equal_numpy(runners, lengths):
    from lambda_cu.values import SegDes
    rng = np.random.default_rng(len(lengths) + 11)
    n = int(sum(lengths))
    xs, ys, ps = _scan_inputs(rng, n)
    gather = (np.abs(ps.astype(np.int64)) % max(n, 1)).astype(np.int32)
    check(seg_scans(), runners, xs, ys, gather, np.int32(3), SegDes(lengths), expect_error=False,
          rtol=FLOAT_SUM_RTOL, names=SCAN_NAMES)
    # raw ints: the scaled sum wraps, the max and min see the extremes
    if n:
        ps[0] = -2**31
        ps[-1] = 2**31 - 1
    check(seg_scans(), runners, xs, ys, ps, np.int32(-7), SegDes(lengths),
          expect_error=n > 0 and bool(np.any((ps < 0) | (ps >= n))), rtol=FLOAT_SUM_RTOL, names=SCAN_NAMES)


def _big_rows():
    """2^20 + 1 = 17 * 61681 elements in short segments, the first and last empty: the rows
    plan on a CPU."""
    lengths = [0] + [3, 0, 5, 8, 1, 0] * 61681
    assert sum(lengths) == BIG
    return lengths


def test_lift_segmented_scans_of_2_20_plus_1_elements():
    from lambda_cu.values import SegDes
    cpu = cpu_plan_runner()
    gpu = OpenCLRunner(cpu.device, strategy="gpu")
    lengths = _big_rows()
    rng = np.random.default_rng(22)
    xs, ys, ps = _scan_inputs(rng, BIG)
    gather = (np.abs(ps.astype(np.int64)) % BIG).astype(np.int32)
    check(seg_scans(), [cpu, gpu], xs, ys, gather, np.int32(3), SegDes(lengths), expect_error=False,
          rtol=FLOAT_SUM_RTOL, names=SCAN_NAMES)
    cpu._collect_events()
    names = set(cpu.stats.by_kernel)
    assert sum(k.endswith("_lift") for k in names) == 7, names
    assert not any(k.endswith(("_rows", "_chunks", "_scan")) for k in names), names


def test_the_lift_scan_rows_are_what_run_and_report_their_site():
    from lambda_cu.values import SegDes
    r = cpu_plan_runner()
    rng = np.random.default_rng(10)
    lengths = [3, 0, 5, 8, 1, 0] * 2000
    n = sum(lengths)
    xs, ys, ps = _scan_inputs(rng, n)
    ps = (np.arange(n) * 7 % n).astype(np.int32)
    check(seg_scans(), [r], xs, ys, ps, np.int32(9), SegDes(lengths), expect_error=False,
          rtol=FLOAT_SUM_RTOL, names=SCAN_NAMES)
    r._collect_events()
    names = set(r.stats.by_kernel)
    assert sum(k.endswith("_lift") for k in names) == 7, names
    assert not any(k.endswith(("_rows", "_chunks", "_scan")) for k in names), names
    ps[12345] = n
    assert check(seg_scans(), [r, OpenCLRunner()], xs, ys, ps, np.int32(9), SegDes(lengths),
                 expect_error=True) == (L("q:4:1"), MSG_BOUNDS)


@pytest.mark.parametrize("lengths", [[1], [0, 0, 5, 0], [3, 0, 2] * 700 + [0], [65, 1, 0, 129]])
def test_the_gpu_kernel_of_the_scan_rows_equals_numpy(lengths):
    """The runner's GPU strategy runs its local-memory rows (``rowsl``, a template) where the
    rows plan is picked: the Lift program it compiles for a GPU (work-items striding over the
    segments) is run here through the Lift runtime, parsed back from its printed text, over the
    descriptor's count + 1 offsets, with fewer work-items than segments."""
    from lambda_cu.values import SegDes
    import dataclasses
    from lift_backend.lower.cgen import prelude
    from lift_backend.runtime import get_runtime
    prog = seg_scans()
    n = int(sum(lengths))
    rng = np.random.default_rng(n)
    xs, ys, ps = _scan_inputs(rng, n)
    ps = (np.abs(ps.astype(np.int64)) % n).astype(np.int32)
    host = {"xs": xs, "ys": ys, "ps": ps, "k": np.int32(-5)}
    sd = SegDes(lengths)
    want = check(prog, [], xs, ys, ps, np.int32(-5), sd, expect_error=False)
    offs = np.append(sd.offsets, sd.total).astype(np.int32)
    ls = lifted(prog, "gpu")
    assert len(ls) == 7
    for x, ref in zip(ls, want):
        lm = x.info["lift"]
        kern = compile_program(parse(lm.text()).program(lm.name))
        # the user functions call the lowering's C helpers (nz_fmin: NESL's min of floats), which
        # every program of the runner builds with
        kern = dataclasses.replace(kern, source=prelude("gpu") + "\n" + kern.source)
        args = {"offs": offs}
        for kp, a in zip(lm.kernel.params, lm.args):
            if a[0] == "host":
                p = x.ctx.params[a[1]]
                args[kp.name] = host[p.name]
        got = get_runtime().run(kern, args, global_size=3)
        assert got.dtype == ref.dtype and got.shape == ref.shape
        np.testing.assert_array_equal(got, ref)


def test_the_printed_scan_rows_of_an_example_run_standalone(tmp_path, capsys):
    """``nessie compile nested.nesl --emit lift`` prints row_prefix's SEG_SCAN rows as a Lift
    program; written to a file, it runs with ``python -m lift_backend run``, which sizes its output
    from the offsets given (``offs[M - 1] - offs[0]`` elements)."""
    import re
    from pathlib import Path
    from lift_backend.cli import main
    from nessie.cli import main as nessie_main
    root = Path(__file__).resolve().parents[2]
    assert nessie_main(["compile", str(root / "nesl_examples" / "nested.nesl"), "--emit", "lift"]) in (0, None)
    text = capsys.readouterr().out
    m = re.compile(r"    (\w+_lift): compiled by the Lift compiler from\n((?:      .*\n)+)").search(
        text, text.index("= SEG_SCAN "))
    assert m, text
    name, body = m.group(1), "\n".join(line[6:] for line in m.group(2).splitlines()) + "\n"
    assert f"program {name}(v0: [int]N, offs: [int]M)" in body and "scanSeq(" in body
    f = tmp_path / "rows.lift"
    f.write_text(body)
    x = np.array([4, -1, 7, 2, 9, 3, 5], np.int32)
    np.save(tmp_path / "v0.npy", x)
    offs = [0, 0, 3, 3, 7, 7]            # rows [], [4 -1 7], [], [2 9 3 5], []
    np.save(tmp_path / "offs.npy", np.array(offs, np.int32))
    rc = main(["run", str(f), "--program", name, "--arg", f"v0={tmp_path / 'v0.npy'}",
               "--arg", f"offs={tmp_path / 'offs.npy'}", "--global", "5", "--out", str(tmp_path / "o.npy")])
    assert rc == 0, capsys.readouterr().err
    np.testing.assert_array_equal(np.load(tmp_path / "o.npy"), [0, 4, 3, 0, 2, 11, 14])
