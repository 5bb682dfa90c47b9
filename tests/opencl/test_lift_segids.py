"""SEG_REDUCEs and SEG_SCANs whose thunks read the segment ids of their own descriptor at their
index (``seg_ids(sd)[i]``, ``sd`` the SOAC's descriptor): in the rows plan (one work-item a
segment) element ``i`` of row ``s`` lies in segment ``s``, so the Lift program zips the rows with
their indices,

    join o mapGlb(0)(\\row -> toGlobal(mapSeq(id)) o reduceSeq(\\acc t -> op(acc, f(t, row._1)), init)
      $ row._0) $ zip(splitOffsets(offs, zip(inputs)), generate(M - 1))

and the id is ``row._1``: no segment-id vector (on a CPU the template walks the offsets for it,
and no buffer exists).  Which SOACs lift, that the Lift kernels are what run, and that results
and runtime errors equal the numpy runner's on empty vectors, empty segments, one element, one
segment, odd lengths and 2^20 + 1 elements."""
import numpy as np
import pytest

from lambda_cu.errors import MSG_BOUNDS
from lambda_cu.ir import SegReduce, SegScan, Tuple
from lambda_cu.types import INT, INT64, SD
from lambda_cu.values import SegDes
from lift_backend import compile_program, parse
from lift_backend.lower.runner import OpenCLRunner

from .ocl_helpers import cpu_plan_runner, BIG, FLOAT, L, VecT, Index, check, const, kernel, op2, prim, th, var

pytestmark = pytest.mark.opencl

i = var("i")
sd = var("sd")


def sid(ity=INT):
    from lambda_cu.ir import SegVec
    return Index(SegVec(sd, "ids", ity), i)


def programs():
    """Per segment, thunks reading the segment's id: a sum of a per-segment value gathered at it
    (the id the only read: the rows are those of generate(N)), a sum of an input scaled by it
    (wrapping), the max of the position within the segment (``i - seg_offsets(sd)[id]``, as
    flattened NESL computes it), a pair (count, sum) of the elements below a per-segment pivot
    (quicksort's split), a long id, a float, and exclusive scans of an input plus the id."""
    from lambda_cu.ir import SegVec
    ps, ws, xs = var("ps"), var("ws"), var("xs")
    gather = SegReduce(th(("i", INT), Index(ws, sid(), L("w:1:1"))), (const(0),), op2("add", INT), sd)
    scaled = SegReduce(th(("i", INT), prim("mul", Index(ps, i), sid())), (const(3),), op2("add", INT), sd)
    pos = SegReduce(th(("i", INT), prim("sub", i, Index(SegVec(sd, "offsets"), sid(), L("o:1:1")))),
                    (const(-1),), op2("max", INT), sd)
    below = prim("lt", Index(ps, i), Index(ws, sid(), L("w:2:1")))
    pair_th = th(("i", INT), Tuple((prim("btoi", below, ty=INT),
                                    prim("mul", prim("btoi", below, ty=INT), Index(ps, i)))))
    pair_op = th((("l", ir_tuple()), ("r", ir_tuple())),
                 Tuple((prim("add", proj("l", 0), proj("r", 0)), prim("add", proj("l", 1), proj("r", 1)))))
    pair = SegReduce(pair_th, (const(0), const(0)), pair_op, sd)
    lid = SegReduce(th(("i", INT), sid(INT64)), (const(0, INT64),), op2("add", INT64), sd)
    flt = SegReduce(th(("i", INT), prim("mul", Index(xs, i), prim("to_float", sid()))), (const(0.5),),
                    op2("add", FLOAT), sd)
    scan = SegScan(th(("i", INT), prim("add", Index(ps, i), sid())), (const(7),), op2("add", INT), sd)
    scan_max = SegScan(th(("i", INT), Index(ws, sid(), L("w:3:1"))), (const(-5),), op2("max", INT), sd)
    binds = [("r0", gather), ("r1", scaled), ("r2", pos), (("r3", "r4"), pair), ("r5", lid), ("r6", flt),
             ("r7", scan), ("r8", scan_max)]
    names = ["r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8"]
    return ir_program(kernel("K", [("ps", VecT(INT)), ("ws", VecT(INT)), ("xs", VecT(FLOAT)), ("sd", SD)],
                             binds, names)), names


def ir_tuple():
    from lambda_cu.types import TupleT
    return TupleT((INT, INT))


def proj(v, j):
    from lambda_cu.ir import Proj
    return Proj(var(v), j)


def ir_program(k):
    from lambda_cu.ir import Program
    return Program((k,))


def lifted(prog, strategy="cpu"):
    from lift_backend.lower.runner import lower_kernel
    return [ls for k in prog.kernels for ls in lower_kernel(k, strategy=strategy) if "lift" in ls.info]


def test_own_segment_ids_lift():
    prog, _ = programs()
    for strategy in ("cpu", "gpu"):
        ls = lifted(prog, strategy)
        assert [x.soac for x in ls] == [b.soac for b in prog.kernels[0].binds], strategy
        for x in ls:
            lm = x.info["lift"]
            text = lm.text()
            # the rows zipped with their indices; no segment-id vector is a parameter
            assert "zip(splitOffsets(offs, " in text and "generate(M - 1))" in text, text
            assert "row._1" in text, text
            assert all("ids" not in str(p.name) for p in lm.kernel.params), lm.kernel.params
            if "arrayAccess(" not in text:
                # the printed program is Lift: parsed back, it compiles to the kernel launched
                launch = dict(global_size=lm.kernel.launch.global_size, local_size=lm.kernel.launch.local_size)
                again = compile_program(parse(text).program(lm.name), error_base=True, soa_output=True,
                                        **launch)
                assert again.source == lm.kernel.source


def test_another_descriptors_ids_or_a_computed_index_stay_templates():
    """``seg_ids(other)[i]`` (no row index gives it) and ``seg_ids(sd)[e]`` at a computed index
    are not the row's id: on a CPU those are walks, and no Lift program is built."""
    from lambda_cu.ir import SegVec
    other = SegReduce(th(("i", INT), Index(SegVec(var("sd2"), "ids"), i)), (const(0),), op2("add", INT), sd)
    computed = SegReduce(th(("i", INT), Index(SegVec(sd, "ids"), Index(var("ps"), i), L("c:1:1"))),
                         (const(0),), op2("add", INT), sd)
    prog = ir_program(kernel("K", [("ps", VecT(INT)), ("sd", SD), ("sd2", SD)],
                             [("r0", other), ("r1", computed)], ["r0", "r1"]))
    assert lifted(prog, "cpu") == []


def _inputs(lengths, seed=0, short_ws=False):
    rng = np.random.default_rng(seed)
    n, m = int(sum(lengths)), len(lengths)
    ps = rng.integers(-2**31, 2**31, n, dtype=np.int64).astype(np.int32)
    ws = rng.integers(-2**31, 2**31, max(m - 1, 0) if short_ws else m, dtype=np.int64).astype(np.int32)
    xs = rng.standard_normal(n)
    return ps, ws, xs, SegDes(lengths)


SHAPES = [[], [0], [0, 0, 0], [1], [5], [3, 0, 2], [0, 0, 5, 0], [2049], [255, 0, 257, 1],
          [7] * 300, [1, 2, 3, 4] * 500, [2049, 0, 1, 4097], [2] * 20000, [1, 0, 3] * 3001,
          [0] * 20 + [1], [65], [63, 1, 0, 127, 257]]


@pytest.mark.parametrize("lengths", SHAPES, ids=range(len(SHAPES)))
def test_own_segment_ids_equal_numpy(runners, lengths):
    prog, names = programs()
    ps, ws, xs, d = _inputs(lengths, len(lengths))
    check(prog, runners, ps, ws, xs, d, expect_error=False, rtol=1e-9, names=names)


@pytest.mark.parametrize("lengths", [[1], [3, 0, 2], [0, 0, 5, 0], [3, 0, 5, 8, 1] * 400, [5, 0]])
def test_a_failing_gather_at_the_segment_id_reports_its_site(runners, lengths):
    """``ws`` one shorter than the segments: the last segment's gather fails (its first
    subscript in evaluation order, ``w:1:1``), also where that segment is empty (no element
    reads it: no error)."""
    prog, _ = programs()
    ps, ws, xs, d = _inputs(lengths, 3, short_ws=True)
    fails = lengths[-1] > 0
    got = check(prog, runners, ps, ws, xs, d, expect_error=fails)
    if fails:
        assert got == (L("w:1:1"), MSG_BOUNDS)


def _big():
    lengths = [0] + [3, 0, 5, 8, 1, 0] * 61681
    assert sum(lengths) == BIG
    return lengths


def test_the_lift_rows_are_what_run_2_20_plus_1():
    """On a CPU the rows of 2^20 + 1 elements in short segments are the Lift kernels (none of the
    template rows or chunks runs), with the same results as the numpy runner and the GPU
    strategy's plan; then a failing gather reports its site.  The segments average 2.8
    elements: the runner launches the Lift rows reading their segment's id only up to
    ``map_rows_avg`` elements a segment (``_short_rows``; the template rows read what depends on
    the segment once a segment), raised to 3 here; with the default 2 the template rows run."""
    cpu = cpu_plan_runner()
    cpu.map_rows_avg = 3
    gpu = OpenCLRunner(cpu.device, strategy="gpu")
    prog, names = programs()
    lengths = _big()
    ps, ws, xs, d = _inputs(lengths, 5)
    check(prog, [cpu, gpu], ps, ws, xs, d, expect_error=False, rtol=1e-9, names=names)
    cpu._collect_events()
    kernels = set(cpu.stats.by_kernel)
    assert sum(k.endswith("_lift") for k in kernels) == 8, kernels
    assert not any(k.endswith(("_rows", "_chunks", "_scan", "_init")) for k in kernels), kernels
    plain = cpu_plan_runner(cpu.device)
    check(prog, [plain], ps, ws, xs, d, expect_error=False, rtol=1e-9, names=names)
    plain._collect_events()
    kernels = set(plain.stats.by_kernel)
    assert not any(k.endswith("_lift") for k in kernels) and any(k.endswith("_rows") for k in kernels), kernels
    ps2, ws2, xs2, d2 = _inputs(lengths[:-1], 6, short_ws=True)      # the last segment not empty
    assert check(prog, [cpu], ps2, ws2, xs2, d2, expect_error=True) == (L("w:1:1"), MSG_BOUNDS)


def test_one_long_segment_of_2_20_plus_1_runs_the_chunked_plan():
    """One segment of 2^20 + 1 elements: the chunked plan (templates), equal to numpy."""
    r = OpenCLRunner(strategy="cpu")
    prog, names = programs()
    ps, ws, xs, d = _inputs([BIG], 8)
    check(prog, [r], ps, ws, xs, d, expect_error=False, rtol=1e-9, names=names)


def test_quicksorts_split_is_a_lift_program(tmp_path):
    """quicksort.nesl's fused KF2 SEG_REDUCE (the counts below, equal to and above each
    segment's pivot, reading ``v5[seg_ids(sd2)[i]]`` and ``seg_offsets(sd2)[seg_ids(sd2)[i]]``)
    has its Lift rows."""
    from pathlib import Path
    from lift_backend.lower.device_scalars import device_scalars
    from lift_backend.lower.runner import lower_kernel
    from nessie import driver
    root = Path(__file__).resolve().parents[2]
    flat, _ = driver.fuse(driver.flatten(driver.compile_file(str(root / "nesl_examples" / "quicksort.nesl"))))
    d = device_scalars(flat.program)
    segs = [ls for k in flat.program.kernels for ls in lower_kernel(k, "cpu", d.params_of(k.name))
            if isinstance(ls.soac, SegReduce)]
    assert segs and all("lift" in ls.info for ls in segs)


@pytest.mark.parametrize("lengths", [[1], [0, 0, 5, 0], [3, 0, 2] * 700 + [0], [65, 1, 0, 129]])
def test_the_gpu_kernels_of_the_rows_equal_numpy(lengths):
    """The GPU strategy runs its local-memory rows (``rowsl``, templates) where the rows plan is
    picked: the Lift programs compiled for a GPU (work-items striding over the segments, the
    row's index from the zipped generate(M - 1)) run here through the Lift runtime, parsed back
    from their printed text, with fewer work-items than segments."""
    import dataclasses
    from lift_backend.lower.cgen import prelude
    from lift_backend.runtime import get_runtime
    prog, _ = programs()
    ps, ws, xs, d = _inputs(lengths, 4)
    want = check(prog, [], ps, ws, xs, d, expect_error=False)
    host = {"ps": ps, "ws": ws, "xs": xs}
    offs = np.append(d.offsets, d.total).astype(np.int32)
    ls = lifted(prog, "gpu")
    refs = [want[0], want[1], want[2], None, want[5], want[6], want[7], want[8]]
    assert len(ls) == len(refs)
    ran = 0
    for x, ref in zip(ls, refs):
        if ref is None:         # the pair: two outputs (soa_output), compared through the runner
            continue
        lm = x.info["lift"]
        kern = compile_program(parse(lm.text()).program(lm.name))
        kern = dataclasses.replace(kern, source=prelude("gpu") + "\n" + kern.source)
        args = {"offs": offs}
        for kp, a in zip(lm.kernel.params, lm.args):
            if a[0] == "host":
                p = x.ctx.params[a[1]]
                # seg_offsets(sd): the descriptor's count offsets
                args[kp.name] = d.offsets.astype(np.int32) if p.kind == "sdbuf" else host[p.name]
        # (N given: a thunk reading only its segment's id folds the rows of generate(N))
        got = get_runtime().run(kern, args, global_size=3, sizes={"N": int(d.total)})
        assert got.dtype == ref.dtype and got.shape == ref.shape
        if got.dtype.kind == "f":
            np.testing.assert_allclose(got, ref, rtol=1e-12)
        else:
            np.testing.assert_array_equal(got, ref)
        ran += 1
    assert ran == 7
