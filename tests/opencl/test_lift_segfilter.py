"""SEG_FILTERs and SEG_PARTITIONs whose phases the Lift compiler writes (lift_backend/lower/
lift_filter.py): the count phase and the write phase are the FILTER's programs (the REDUCE
chunk program counting the kept elements of each balanced chunk; ``filterSeq`` compacting each
chunk to its row of the output, a PARTITION's rejected elements a second such program), the
positions ``pre`` (the output position before each element) the last pass of the SCAN of the
kept flags, each chunk scanning from its offset,

    join o mapGlb(0)(\\t -> toGlobal(scanSeq(\\acc t -> acc + uf(t...), t._1)) $ t._0)
      $ zip(partition(P, ...) $ zip(inputs), carry)

and the per-segment counts a map over the segments reading ``pre`` at the descriptor's offsets,

    mapGlb(0)(toGlobal(\\s -> uf(arrayAccess(offs, s), ..., arrayAccess(pre, arrayAccess(offs, s)), ...)))
      $ generate(S)

Which segmented filters qualify, that the Lift kernels are what runs, and that results and
errors equal the numpy runner's and the reference interpreter's."""

import numpy as np
import pytest

from lambda_cu.errors import MSG_BOUNDS
from lambda_cu.ir import Index, Proj, Program, SegFilter, SegPartition, Tuple
from lambda_cu.types import FLOAT, INT, TupleT
from lambda_cu.values import SegDes
from lift_backend import compile_program, parse
from lift_backend.lower.runner import OpenCLRunner, lower_kernel

from .ocl_helpers import QSORT_NESL, cpu_plan_runner, interp_output, nesl_outputs, BIG, ODD_SIZES, SD, L, VecT, check, const, kernel, prim, th, var

pytestmark = pytest.mark.opencl

i, x = var("i"), var("x")
PS = [("xs", VecT(FLOAT)), ("ys", VecT(INT)), ("fl", VecT(INT)), ("k", FLOAT), ("sd", SD)]


def seg_filters():
    """Kernels of one segmented SOAC each: floats above a scalar (SF), pairs of a float and an
    int kept by the int's sign (SQ), indices whose flag is set (SI), a partition of the floats
    by the scalar (SP), and values ``ys[i] + 1`` whose flag (read at the value: a checked access)
    is set (SE)."""
    xs, ys, fl = var("xs"), var("ys"), var("fl")
    sd = var("sd")
    above = SegFilter(th(("i", INT), Index(xs, i)), th(("x", FLOAT), prim("gt", x, var("k"))), sd)
    p = var("p")
    pairs = SegFilter(th(("i", INT), Tuple((Index(xs, i), Index(ys, i)))),
                      th(("p", TupleT((FLOAT, INT))), prim("lt", Proj(p, 1), const(0))), sd)
    flags = SegFilter(th(("i", INT), i), th(("x", INT), prim("ne", Index(fl, x, L("sf:3:7")), const(0))), sd)
    # a computed value (no Lift write phase) and a subscript at it (checked by the Lift count)
    err = SegFilter(th(("i", INT), prim("add", Index(ys, i), const(1))),
                    th(("x", INT), prim("ne", Index(fl, x, L("sf:4:9")), const(0))), sd)
    part = SegPartition(th(("i", INT), Index(xs, i)), th(("x", FLOAT), prim("le", x, var("k"))), sd)
    return Program((
        kernel("SF", PS, [(["a", "s"], above)], ["a", "s"]),
        kernel("SQ", PS, [(["a", "b", "s"], pairs)], ["a", "b", "s"]),
        kernel("SI", PS, [(["a", "s"], flags)], ["a", "s"]),
        kernel("SP", PS, [(["a", "s", "b", "t"], part)], ["a", "s", "b", "t"]),
        kernel("SE", PS, [(["a", "s"], err)], ["a", "s"]),
    ))


PROG = seg_filters()
NAMES = {"SF": ["a", "s"], "SQ": ["a", "b", "s"], "SI": ["a", "s"], "SP": ["a", "s", "b", "t"], "SE": ["a", "s"]}


def lowered(strategy="cpu"):
    return {k.name: lower_kernel(k, strategy=strategy)[0] for k in PROG.kernels}


@pytest.mark.parametrize("strategy", ["cpu", "gpu"])
def test_seg_filters_are_lift_programs(strategy):
    for name, ls in lowered(strategy).items():
        if name == "SE":
            # a computed value: the count and per-segment counts only
            assert set(ls.info) == {"lift_count", "lift_segcounts"}, set(ls.info)
            assert "arrayAccess(" in ls.info["lift_count"].text()
            continue
        keys = {"lift_count", "lift_write", "lift_pre", "lift_segcounts"}
        assert keys <= set(ls.info), (name, set(ls.info))
        assert ("lift_reject" in ls.info) == (name == "SP")
        assert "scanSeq(" in ls.info["lift_pre"].text() and "carry: [long]P" in ls.info["lift_pre"].text()
        text = ls.info["lift_segcounts"].text()
        assert "arrayAccess(pre, w._0)" in text and "arrayAccess(offs, s)" in text and "generate(S)" in text, text
        for key in keys | {"lift_reject"}:
            lm = ls.info.get(key)
            if lm is None:
                continue
            # the printed program is Lift: parsed back, it compiles
            launch = dict(global_size=lm.kernel.launch.global_size, local_size=lm.kernel.launch.local_size)
            compile_program(parse(lm.text()).program(lm.name), **launch)


def test_a_checked_predicate_has_a_template_write_phase():
    """A predicate with a checked primitive (rem by a variable): the count is a Lift program
    (failIf in its fold reports the site), the write phase and its ``pre`` the template; the
    per-segment counts are a Lift program all the same (they read ``pre``, which the template
    write phase records).  The same predicate by a
    constant (it cannot fail) is Lift's whole."""
    ys, m = var("ys"), var("m")

    def by(d):
        return SegFilter(th(("i", INT), Index(ys, i)),
                         th(("x", INT), prim("eq", prim("rem", x, d, loc=L("r:1:1")), const(0))), var("sd"))
    prog = Program((kernel("R", PS + [("m", INT)], [(["a", "s"], by(m))], ["a", "s"]),
                    kernel("C", PS + [("m", INT)], [(["a", "s"], by(const(2)))], ["a", "s"])))
    r, c = (lower_kernel(k, strategy="cpu")[0] for k in prog.kernels)
    assert not {"lift_write", "lift_pre"} & set(r.info)
    assert {"lift_count", "lift_segcounts"} <= set(r.info)
    assert "failIf(" in r.info["lift_count"].text()
    assert {"lift_count", "lift_write", "lift_pre", "lift_segcounts"} <= set(c.info)
    rng = np.random.default_rng(3)
    for lengths in ([], [0], [3, 0, 5], [4097, 0, 2]):
        n = sum(lengths)
        args = (rng.standard_normal(n), rng.integers(-9, 9, n).astype(np.int32), np.ones(20, np.int32),
                np.float64(0), SegDes(lengths))
        for name in ("R", "C"):
            check(prog, [OpenCLRunner()], *args, np.int32(2), name=name, expect_error=False)
        if n:
            assert check(prog, [OpenCLRunner()], *args, np.int32(0), name="R", expect_error=True)[0] == L("r:1:1")


def check_all(runners, rng, lengths, keep="some"):
    n = int(sum(lengths))
    xs = rng.standard_normal(n)
    ys = rng.integers(-9, 9, n).astype(np.int32)
    fl = (rng.random(n) < 0.5).astype(np.int32)
    k = np.float64(0.25)
    if keep == "all":
        ys, fl, k = -np.abs(ys) - 1, np.ones(n, np.int32), np.float64(-np.inf)
    elif keep == "none":
        ys, fl, k = np.abs(ys), np.zeros(n, np.int32), np.float64(np.inf)
    sd = SegDes(np.asarray(lengths, np.int64))
    for name in ("SF", "SQ", "SI", "SP"):
        check(PROG, runners, xs, ys, fl, k, sd, name=name, expect_error=False, names=NAMES[name])
    # SE reads fl at ys[i] + 1 (in range)
    fl20 = (rng.random(20) < 0.5).astype(np.int32) if keep == "some" else np.full(20, int(keep == "all"), np.int32)
    check(PROG, runners, xs, np.abs(ys) % 19, fl20, k, sd, name="SE", expect_error=False, names=NAMES["SE"])


SEG_SHAPES = [[], [0], [0, 0, 0], [1], [3], [0, 2], [2, 0], [0, 1, 0, 0, 3, 0], [1] * 7, [5, 0, 0, 0, 4],
              [2049, 0, 0, 2048, 3, 0], [6149], [257] * 9]


@pytest.mark.parametrize("lengths", SEG_SHAPES, ids=str)
@pytest.mark.parametrize("keep", ["some", "all", "none"])
def test_segment_shapes_equal_numpy(runners, lengths, keep):
    check_all(runners, np.random.default_rng(len(lengths)), lengths, keep)


@pytest.mark.parametrize("n", ODD_SIZES)
def test_one_segment_sizes(runners, n):
    check_all(runners, np.random.default_rng(n), [n])


def test_big(runners):
    """2^20 + 1 elements in segments of 0 .. 7 and one long one."""
    rng = np.random.default_rng(1)
    lengths = rng.integers(0, 8, BIG // 4)
    lengths[:3] = 0
    lengths = np.concatenate([lengths, [BIG - lengths.sum(), 0, 0]])
    check_all(runners[:1], rng, lengths)


def test_many_chunks_scan_their_counts_on_the_device(runners):
    """More chunks than the runner scans on the host: the Lift count phase, the device's scan of
    the counts, the template write phase (recording pre) and the Lift per-segment counts."""
    many = OpenCLRunner(runners[0].device, strategy="cpu")
    many.max_chunks, many.min_chunk = 1 << 12, 16
    rng = np.random.default_rng(9)
    lengths = list(rng.integers(0, 50, 1600))
    assert many.chunks(sum(lengths)) > many.host_scan
    check_all([many], rng, lengths)


def test_a_failing_predicate_reports_its_site(runners):
    """The flags read at the thunk's value out of range: the Lift count phase reports the
    subscript's site (the checked arrayAccess), as the numpy runner does; flags shorter than
    the segments' elements read at the index: the template phases run (the inputs do not fit
    the Lift kernels) and report the subscript's site."""
    rng = np.random.default_rng(4)
    for lengths in ([5000, 3], [1], [0, 2, 0]):
        n = sum(lengths)
        ys = rng.integers(0, 19, n).astype(np.int32)
        ys[n // 2] = 20 + n
        got = check(PROG, runners, rng.standard_normal(n), ys, np.ones(20, np.int32), np.float64(0), SegDes(lengths),
                    name="SE", expect_error=True)
        assert got == (L("sf:4:9"), MSG_BOUNDS)
        got = check(PROG, runners, rng.standard_normal(n), ys, np.ones(n - 1, np.int32), np.float64(0),
                    SegDes(lengths), name="SI", expect_error=True)
        assert got == (L("sf:3:7"), MSG_BOUNDS)


def test_the_lift_kernels_are_what_run():
    """The runner launches the Lift count, write, positions and per-segment counts phases (and a
    SEG_PARTITION's reject phase), not the template ``count``/``write``/``counts`` phases: this
    fails if the runner's choice is reverted."""
    r = cpu_plan_runner()
    check_all([r], np.random.default_rng(5), [3000, 0, 17, 4000, 1, 0, 2983])
    r.finish_stats()
    names = set(r.stats.by_kernel)
    for k in ("SF", "SQ", "SI", "SP"):
        for suffix in ("lift", "liftwrite", "liftscan", "liftcounts"):
            assert f"v_{k}_0_{suffix}" in names, (k, suffix, names)
        for suffix in ("count", "write", "counts"):
            assert f"v_{k}_0_{suffix}" not in names, (k, suffix, names)
    assert "v_SP_0_liftreject" in names
    # SE: the Lift count and per-segment counts, the template write (a computed value)
    assert {"v_SE_0_lift", "v_SE_0_write", "v_SE_0_liftcounts"} <= names
    assert not {"v_SE_0_count", "v_SE_0_counts", "v_SE_0_liftscan"} & names


# ------------------------------------------------------------------------------------------------
# NESL programs: the reference interpreter, the numpy λcu runner and OpenCL print the same


NESL = QSORT_NESL + r"""
function lcg(n, seed) = {mod(i * 1103515245 + seed, 1000) : i in [0:n]};
function pivots(xss) = {let p = xs[#xs / 2] in ({x in xs | x < p}, {x in xs | x >= p}) : xs in xss | #xs > 0};
xs = lcg(N, 12345);
xss = {{xs[mod(i * 37 + j, #xs)] : j in [0:mod(i * 13, 41)]} : i in [0:N / 20]};
{{x in ys | mod(x, 3) == 1} : ys in xss};
{#{x in ys | x > 500} : ys in xss};
{{x in ys | x > 2000} : ys in xss};
{{x in ys | x >= 0} : ys in xss};
{{(x, i) : x in ys; i in [0:#ys] | x < 100} : ys in xss};
{{c in w | c > `a} : w in ["banana", "", "a", "nessie"]};
{{x in ys | x > 0} : ys in [[] int, [] int]};
pivots(xss);
{qsort(ys) : ys in xss};
{qsort(ys) : ys in [[3], [] int, [2, 1], [5, 5, 5, 1]]};
"""


def _outputs(src: str, runner=None):
    return nesl_outputs(src, "segfilters.nesl", runner)


@pytest.mark.parametrize("n", [0, 1, 7, 100, 2000])
def test_nesl_nested_filters_equal_the_interpreter(n):
    src = NESL.replace("lcg(N,", f"lcg({n},").replace("N / 20", f"{n} / 20")
    c, lcu, ocl = _outputs(src)
    assert lcu == interp_output(c)
    assert ocl == lcu


def test_nesl_nested_filters_run_the_lift_kernels():
    """The segmented filters of the NESL program launch the Lift positions and counts programs."""
    src = NESL.replace("lcg(N,", "lcg(5000,").replace("N / 20", "250")
    r = cpu_plan_runner()
    _, lcu, ocl = _outputs(src, runner=r)
    assert ocl == lcu
    r.finish_stats()
    names = set(r.stats.by_kernel)
    assert any(nm.endswith("_liftscan") for nm in names), names
    assert any(nm.endswith("_liftcounts") for nm in names), names
    assert not any(nm.endswith("_counts") for nm in names), names


def test_nesl_nested_filters_large():
    """More than 2^20 elements in the segments: the λcu runner and OpenCL."""
    src = (r"""
function lcg(n, seed) = {mod(i * 1103515245 + seed, 1000000) : i in [0:n]};
xs = lcg(1048577, 7);
xss = partition(xs, {mod(i * 7919, 300) : i in [0:7000]} ++ [1048577 - sum({mod(i * 7919, 300) : i in [0:7000]})]);
ks = {{x in ys | mod(x, 5) < 2} : ys in xss};
{#k : k in take(ks, 20)};
sum({sum(k) : k in ks});
""")
    _, lcu, ocl = _outputs(src)
    assert ocl == lcu
