"""MAPs whose thunks read the segment ids of a descriptor at their index (``seg_ids(sd)[i]``, the
map over the elements of ``sd``; on a CPU the hand-written map walks the offsets for them, no
buffer exists): the Lift program is ``sd``'s rows, each zipped with its index,

    join o mapGlb(0)(\\row -> toGlobal(mapSeq(\\t -> uf(t..., row._1))) $ row._0)
      $ zip(splitOffsets(offs, zip(inputs)), generate(M - 1))

the row's index ``row._1`` the id.  The runner launches it where the map's size is ``sd``'s total,
a segmented reduction over ``sd`` would take its rows plan (many short segments) and those average
at most ``OpenCLRunner.map_rows_avg`` (2) elements, else the hand-written map (balanced chunks
walking the segments, faster for longer segments on a CPU).  Which MAPs lift, that the Lift
kernels are what run (and the template where they should not), and that results and runtime
errors equal the numpy runner's on empty vectors, empty segments, one element, one segment, odd
lengths and 2^20 + 1 elements; NESL programs on --backend opencl and lcu."""
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from lambda_cu.errors import MSG_BOUNDS, MSG_DIV0
from lambda_cu.ir import Map, Program, SegVec, Tuple
from lambda_cu.types import INT, INT64, SD
from lambda_cu.values import SegDes
from lift_backend import compile_program, parse
from lift_backend.lower.runner import OpenCLRunner, lower_kernel

from .ocl_helpers import cpu_plan_runner, BIG, FLOAT, L, VecT, Index, check, const, kernel, prim, run_nesl, th, var

pytestmark = pytest.mark.opencl

ROOT = Path(__file__).resolve().parents[2]
i = var("i")
sd, n = var("sd"), var("n")


def sid(ity=INT):
    return Index(SegVec(sd, "ids", ity), i)


def offs(e, tag):
    return Index(SegVec(sd, "offsets"), e, L(tag))


def programs():
    """MAPs over the elements of ``sd`` reading their segment's id: a per-segment value gathered
    at it (the id the only read: the rows of generate(N)), the position within the segment
    (``i - seg_offsets(sd)[id]``, as flattened NESL computes it), a tuple (an input plus the id,
    a comparison with a per-segment pivot, a float scaled by the id), a long id, a checked
    division by a per-segment value (its flag reported by ``failIf``), and quicksort's gather of the element at the same position
    in another descriptor's segment (``ps[seg_offsets(sd2)[qs[id]] + (i - seg_offsets(sd)[id])]``)."""
    ps, ws, xs, qs = var("ps"), var("ws"), var("xs"), var("qs")
    gather = Map(th(("i", INT), Index(ws, sid(), L("w:1:1"))), n)
    pos = Map(th(("i", INT), prim("sub", i, offs(sid(), "o:1:1"))), n)
    tup = Map(th(("i", INT), Tuple((prim("add", Index(ps, i), sid()),
                                    prim("lt", Index(ps, i), Index(ws, sid(), L("w:2:1"))),
                                    prim("mul", Index(xs, i), prim("to_float", sid()))))), n)
    lid = Map(th(("i", INT), prim("add", sid(INT64), const(1, INT64))), n)
    div = Map(th(("i", INT), prim("div", Index(ps, i), Index(ws, sid(), L("w:3:1")), loc=L("d:1:1"))), n)
    other = Index(SegVec(var("sd2"), "offsets"), Index(qs, sid(), L("q:1:1")), L("o2:1:1"))
    qsort = Map(th(("i", INT), Index(ps, prim("add", other, prim("sub", i, offs(sid(), "o:2:1"))), L("p:1:1"))), n)
    binds = [("r0", gather), ("r1", pos), (("r2", "r3", "r4"), tup), ("r5", lid), ("r6", div), ("r7", qsort)]
    names = ["r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7"]
    params = [("ps", VecT(INT)), ("ws", VecT(INT)), ("xs", VecT(FLOAT)), ("qs", VecT(INT)), ("sd", SD),
              ("sd2", SD), ("n", INT)]
    return Program((kernel("K", params, binds, names),)), names


def lifted(prog, strategy="cpu"):
    return [ls for k in prog.kernels for ls in lower_kernel(k, strategy=strategy) if "lift" in ls.info]


def test_maps_reading_their_segment_ids_are_rows():
    prog, _ = programs()
    ls = lifted(prog, "cpu")
    binds = prog.kernels[0].binds
    # all, the checked division too (its private results and flags are one variable of the
    # work-item, not an array over the row)
    assert [x.soac for x in ls] == [b.soac for b in binds]
    for x in ls:
        lm = x.info["lift"]
        text = lm.text()
        assert lm.rows == "sd", lm.rows
        # the rows zipped with their indices, each element mapped; no segment-id vector is a
        # parameter
        assert "zip(splitOffsets(offs, " in text and "generate(M - 1))" in text, text
        assert "row._1" in text and "mapSeq(" in text, text
        assert all("ids" not in str(p.name) for p in lm.kernel.params), lm.kernel.params
        if "arrayAccess(" not in text and "failIf" not in text:
            # the printed program is Lift: parsed back, it compiles to the kernel launched
            launch = dict(global_size=lm.kernel.launch.global_size, local_size=lm.kernel.launch.local_size)
            again = compile_program(parse(text).program(lm.name), error_base=True, soa_output=True, **launch)
            assert again.source == lm.kernel.source
    # a GPU has segment-id vectors (no walk): the plain element-wise map, reading them
    for x in lifted(prog, "gpu"):
        assert x.info["lift"].rows is None


def test_two_descriptors_ids_or_a_computed_index_read_the_id_vectors():
    """``seg_ids(sd)[i] + seg_ids(sd2)[i]`` (two walked descriptors: no one row index gives both)
    and ``seg_ids(sd)[e]`` at a computed index are not rows: on a CPU their Lift maps read the
    id vectors the runner computes for them (``LiftMap.ids``), where the hand-written map walks
    (tests/opencl/test_seg_ids_walk.py runs them)."""
    two = Map(th(("i", INT), prim("add", sid(), Index(SegVec(var("sd2"), "ids"), i))), n)
    computed = Map(th(("i", INT), Index(SegVec(sd, "ids"), Index(var("ps"), i), L("c:1:1"))), n)
    prog = Program((kernel("K", [("ps", VecT(INT)), ("sd", SD), ("sd2", SD), ("n", INT)],
                           [("r0", two), ("r1", computed)], ["r0", "r1"]),))
    got = {ls.soac: ls.info["lift"] for ls in lifted(prog, "cpu")}
    assert set(got) == {two, computed}
    assert got[two].rows is None and got[two].ids == ("sd", "sd2")
    assert got[computed].rows is None and got[computed].ids == ("sd",)


def _inputs(lengths, seed=0, short_ws=False, zero_ws=False):
    rng = np.random.default_rng(seed)
    total, m = int(sum(lengths)), len(lengths)
    ps = rng.integers(-2**31, 2**31, total, dtype=np.int64).astype(np.int32)
    ws = rng.integers(-2**31, 2**31, max(m - 1, 0) if short_ws else m, dtype=np.int64).astype(np.int32)
    ws[ws == 0] = 1
    if zero_ws and m:
        ws[-1] = 0
    xs = rng.standard_normal(total)
    # sd2: the same lengths in reverse order, qs[s] the segment of sd2 of the same length as s
    qs = np.arange(m - 1, -1, -1, dtype=np.int32)
    return ps, ws, xs, qs, SegDes(lengths), SegDes(list(reversed(lengths))), total


SHAPES = [[], [0], [0, 0, 0], [1], [5], [3, 0, 2], [0, 0, 5, 0], [2049], [255, 0, 257, 1],
          [7] * 300, [1, 2, 3, 4] * 500, [2049, 0, 1, 4097], [2] * 20000, [1, 0, 3] * 3001,
          [0] * 20 + [1], [65], [63, 1, 0, 127, 257]]


@pytest.mark.parametrize("lengths", SHAPES, ids=range(len(SHAPES)))
def test_rows_maps_equal_numpy(runners, lengths):
    prog, names = programs()
    ps, ws, xs, qs, d, d2, total = _inputs(lengths, len(lengths))
    check(prog, runners, ps, ws, xs, qs, d, d2, total, expect_error=False, names=names)


@pytest.mark.parametrize("lengths", [[3, 0, 2], [4] * 50, [1, 0, 3] * 3001])
def test_a_map_shorter_than_the_descriptor_is_the_template(runners, lengths):
    """The map's size below the descriptor's total: not its rows (the hand-written map runs;
    the maps reading no vector at their index, ``r0``, ``r1``, ``r5``, are refused by the size
    alone)."""
    prog, names = programs()
    ps, ws, xs, qs, d, d2, total = _inputs(lengths, 2)
    check(prog, runners, ps, ws, xs, qs, d, d2, total - 1, expect_error=False, names=names)


@pytest.mark.parametrize("lengths", [[1], [3, 0, 2], [0, 0, 5, 0], [3, 0, 5, 8, 1] * 400, [5, 0]])
def test_a_failing_gather_at_the_segment_id_reports_its_site(runners, lengths):
    """``ws`` one shorter than the segments: the last segment's gather fails (its first
    subscript in evaluation order, ``w:1:1``), also where that segment is empty (no element
    reads it: no error)."""
    prog, _ = programs()
    ps, ws, xs, qs, d, d2, total = _inputs(lengths, 3, short_ws=True)
    fails = lengths[-1] > 0
    got = check(prog, runners, ps, ws, xs, qs, d, d2, total, expect_error=fails)
    if fails:
        assert got == (L("w:1:1"), MSG_BOUNDS)


@pytest.mark.parametrize("lengths", [[1], [3, 0, 2], [3, 0, 5, 8, 1] * 400])
def test_a_division_by_zero_in_the_thunk_reports_its_site(runners, lengths):
    """The last segment's divisor is 0: the checked division (Lift rows, its flag reported by
    ``failIf``) reports ``d:1:1``."""
    prog, _ = programs()
    ps, ws, xs, qs, d, d2, total = _inputs(lengths, 4, zero_ws=True)
    assert check(prog, runners, ps, ws, xs, qs, d, d2, total, expect_error=True) == (L("d:1:1"), MSG_DIV0)


def _big(pattern=(1, 2, 0, 3, 1, 2, 0, 3, 1, 2, 0, 2)):
    """2^20 + 1 elements in short segments: by default 1.4 a segment on average (the rows
    plan of a MAP: at most ``map_rows_avg``)."""
    lengths = [0] + list(pattern) * (BIG // sum(pattern))
    assert sum(lengths) == BIG
    return lengths


def _kernels(r):
    r._collect_events()
    ks = set(r.stats.by_kernel)
    r.stats.by_kernel.clear()
    return ks


def test_the_lift_rows_are_what_run_2_20_plus_1():
    """On a CPU the MAPs over 2^20 + 1 elements in short segments are the Lift rows (no
    hand-written map runs), with the numpy runner's and the GPU strategy's results; then a
    failing gather reports its site, and a map one shorter than the total runs the template."""
    cpu = cpu_plan_runner()
    gpu = OpenCLRunner(cpu.device, strategy="gpu")
    prog, names = programs()
    lengths = _big()
    ps, ws, xs, qs, d, d2, total = _inputs(lengths, 5)
    check(prog, [cpu, gpu], ps, ws, xs, qs, d, d2, total, expect_error=False, names=names)
    kernels = _kernels(cpu)
    assert sum(k.endswith("_lift") for k in kernels) == 6, kernels
    assert [k for k in kernels if k.endswith("_map")] == [], kernels
    check(prog, [cpu], ps, ws, xs, qs, d, d2, total - 1, expect_error=False, names=names)
    kernels = _kernels(cpu)
    assert sum(k.endswith("_map") for k in kernels) == 6 and not any(k.endswith("_lift") for k in kernels), kernels
    short = lengths[:-2] + lengths[-1:]         # one segment less, the last one not empty
    ps2, ws2, xs2, qs2, d2_, d22, total2 = _inputs(short, 6, short_ws=True)
    assert check(prog, [cpu], ps2, ws2, xs2, qs2, d2_, d22, total2, expect_error=True) == (L("w:1:1"), MSG_BOUNDS)


def test_segments_longer_than_map_rows_avg_run_the_template():
    """2^20 + 1 elements in segments of 2.8 on average: a segmented reduction's rows plan, but
    the hand-written map (its balanced chunks hoist what depends on the segment alone) runs the
    MAPs; then with ``map_rows_avg`` raised, the Lift rows."""
    r = cpu_plan_runner()
    prog, names = programs()
    lengths = _big((3, 0, 5, 8, 1, 0))
    ps, ws, xs, qs, d, d2, total = _inputs(lengths, 9)
    check(prog, [r], ps, ws, xs, qs, d, d2, total, expect_error=False, names=names)
    kernels = _kernels(r)
    assert sum(k.endswith("_map") for k in kernels) == 6 and not any(k.endswith("_lift") for k in kernels), kernels
    r.map_rows_avg = 3
    check(prog, [r], ps, ws, xs, qs, d, d2, total, expect_error=False, names=names)
    kernels = _kernels(r)
    assert sum(k.endswith("_lift") for k in kernels) == 6, kernels


def test_one_long_segment_of_2_20_plus_1_runs_the_template():
    """One segment of 2^20 + 1 elements: the hand-written map's balanced chunks, equal to numpy."""
    r = cpu_plan_runner()
    prog, names = programs()
    ps, ws, xs, qs, d, d2, total = _inputs([BIG], 8)
    check(prog, [r], ps, ws, xs, qs, d, d2, total, expect_error=False, names=names)
    kernels = _kernels(r)
    assert sum(k.endswith("_map") for k in kernels) == 6 and not any(k.endswith("_lift") for k in kernels), kernels


def test_quicksorts_maps_are_rows(tmp_path):
    """quicksort.nesl's fused MAPs gathering each segment's elements (KF10, KF13, ...: reading
    ``seg_offsets(sd2)[seg_ids(sd2)[i]]``) are Lift rows on a CPU."""
    from lift_backend.lower.device_scalars import device_scalars
    from nessie import driver
    flat, _ = driver.fuse(driver.flatten(driver.compile_file(str(ROOT / "nesl_examples" / "quicksort.nesl"))))
    d = device_scalars(flat.program)
    rows = {k.name for k in flat.program.kernels for ls in lower_kernel(k, "cpu", d.params_of(k.name))
            if isinstance(ls.soac, Map) and "lift" in ls.info and ls.info["lift"].rows}
    assert {"KF10", "KF13"} <= rows, rows


NESL = """function shift(rows, as) = {{x - a + i : x in row; i in index(#row)} : row in rows; a in as};
function pos(rows) = {{i - 1 : x in row; i in index(#row)} : row in rows};
function gat(rows, ws) = {{ws[j] : x in row} : row in rows; j in index(#rows)};
shift([[1, 2, 3], [], [4, 5], [6]], [10, 20, 30, 40]);
pos([[5, 6], [], [7, 8, 9]]);
gat([[1, 2], [3], [], [4, 5, 6]], [7, 8, 9, 10]);
shift([[] int], [1]);
{{x / a : x in row} : row in [[4, 6], [8], [10, 12, 14]]; a in [2, 4, 7]};
{sum({x * j : x in row}) : row in {{k : k in index(rem(j, 5))} : j in index(3000)}; j in index(3000)};
{{x * 2 + j : x in row} : row in {{k : k in index(rem(j, 4))} : j in index(70001)}; j in index(70001)}[69999];
"""


@pytest.mark.parametrize("tail", ["", "{{x / a : x in row} : row in [[4, 6], [8], [10]]; a in [2, 4, 0]};\n",
                                  "{{x / a : x in row} : row in [[4, 6], [], [10]]; a in [2, 0, 1]};\n",
                                  "function g(rows, ws) = {{ws[j + 1] : x in row} : row in rows; j in index(#rows)};\n"
                                  "g([[1], [2, 3], [4]], [5, 6, 7]);\n"],
                         ids=["ok", "div0", "div0-empty-segment", "bounds"])
def test_nesl_rows_maps_same_as_lcu(tmp_path, tail):
    src = NESL + tail
    want = run_nesl(tmp_path, src, "lcu")
    got = run_nesl(tmp_path, src, "opencl")
    assert got == want
    # a zero divisor of an empty segment divides nothing
    assert want[0] == (0 if not tail or "[2, 0, 1]" in tail else 1), want
    assert want[1].count("\n") >= 7          # the output before any error


def test_nesl_maps_reading_segment_ids_are_lift_rows(tmp_path):
    """The example's nested maps over rows reading the row's value are rows programs."""
    f = tmp_path / "p.nesl"
    f.write_text(NESL)
    r = subprocess.run([sys.executable, "-m", "nessie", "compile", "--emit", "lift", str(f)],
                       capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert r.returncode == 0, r.stderr
    assert "zip(splitOffsets(offs, " in r.stdout and "generate(M - 1))" in r.stdout, r.stdout
