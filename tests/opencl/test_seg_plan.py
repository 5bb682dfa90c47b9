"""The plan of a segmented reduction/scan: one work-item per segment (``rows``) only when no
segment is long, whatever the average (quicksort's segments are skewed: one work-item walking a
long segment alone was slower than the chunked plan).  The longest segment comes from the
descriptor's own kernels (lift_sd.py's ``sd_small`` / ``sd_chunks``), read back with the total or on
demand; the results agree with the numpy runner on both plans."""
import numpy as np
import pytest

from lambda_cu.ir import Program, SegReduce, SegScan
from lambda_cu.values import SegDes

from .ocl_helpers import INT, SD, VecT, check, const, kernel, op2, prim, pull, th, var

pytestmark = pytest.mark.opencl


def _lengths(runner, short: int, long: int) -> np.ndarray:
    """Enough segments for ``rows`` on ``runner``'s device kind, all of length ``short`` but
    one of length ``long`` in the middle (their mean stays short)."""
    count = 4096 if runner.c.strategy == "gpu" else 4 * runner.max_chunks
    count = max(count, 8192)
    lengths = np.full(count, short, np.int32)
    lengths[count // 2] = long
    return lengths


@pytest.mark.parametrize("how", ["make_sd", "of_lengths", "host"])
def test_rows_only_without_a_long_segment(runners, how):
    for r in runners[::2]:          # the device's strategy and the other one (real chunking)
        for long, want in ((3, True), (200_000, False)):
            lengths = _lengths(r, 3, long)
            total = int(lengths.sum())
            if how == "make_sd":
                sd = r.make_sd(r.upload(lengths), None)
            elif how == "of_lengths":
                sd = r._sd_of_lengths(r.upload(lengths), total)
            else:
                sd = r.sd_from_lengths(lengths)
            assert sd.maxlen == long
            assert sd.total == total
            assert r._rows(sd) is want, (r.c.strategy, long, how)


def test_maxlen_of_chunked_and_small_descriptors(runners):
    for r in runners:
        for lengths in ([0], [7], [0, 0, 0], [1, 9, 2], list(range(50_000)), [5] * 40_000 + [123]):
            a = np.asarray(lengths, np.int32)
            sd = r.make_sd(r.upload(a), None)
            assert (sd.total, sd.maxlen) == (int(a.sum()), int(a.max()))
            sd = r._sd_of_lengths(r.upload(a), int(a.sum()))
            assert sd.maxlen == int(a.max())


def test_skewed_segments_agree_on_both_plans(runners):
    f = pull("xs")
    prog = Program((
        kernel("SR", [("xs", VecT(INT)), ("sd", SD)],
               [("r", SegReduce(f, (const(1),), op2("add", INT), var("sd")))], ["r"]),
        kernel("SS", [("xs", VecT(INT)), ("sd", SD)],
               [("r", SegScan(f, (const(-2),), op2("max", INT), var("sd")))], ["r"])))
    rng = np.random.default_rng(7)
    for long in (3, 200_000):
        lengths = _lengths(runners[0], 3, long)
        xs = rng.integers(-1000, 1000, int(lengths.sum())).astype(np.int32)
        for name in ("SR", "SS"):
            check(prog, runners, xs, SegDes(lengths), name=name, expect_error=False)


@pytest.mark.parametrize("Soac", [SegReduce, SegScan])
def test_gpu_rows_in_local_memory_staged_and_not(runners, Soac):
    """The GPU strategy's ``rowsl`` (a work-group stages its W segments' elements in local
    memory, coalesced, then folds -- or scans in place and writes back coalesced -- each
    segment in order) against the numpy runner: blocks whose
    elements fit, blocks that do not (folded from global memory), empty segments, a float sum
    (in order: bit for bit) and a tuple operator; the plan is really taken."""
    from lambda_cu.ir import Index, Proj, Tuple
    from lambda_cu.types import FLOAT, TupleT
    gpu = [r for r in runners if r.c.strategy == "gpu"]
    assert gpu, "the runners include the GPU strategy"
    FI = TupleT((FLOAT, INT))
    pair = Tuple((Index(var("fs"), var("i")), Index(var("xs"), var("i"))))
    prog = Program((
        kernel("F", [("fs", VecT(FLOAT)), ("xs", VecT(INT)), ("sd", SD)],
               [("r", Soac(th(("i", INT), Index(var("fs"), var("i"))), (const(0.5, FLOAT),),
                                op2("add", FLOAT), var("sd")))], ["r"]),
        kernel("T", [("fs", VecT(FLOAT)), ("xs", VecT(INT)), ("sd", SD)],
               [(("a", "b"), Soac(th(("i", INT), pair), (const(0.0, FLOAT), const(7)),
                                       th((("x", FI), ("y", FI)),
                                          Tuple((prim("max", Proj(var("x"), 0), Proj(var("y"), 0)),
                                                 prim("add", Proj(var("x"), 1), Proj(var("y"), 1))))),
                                       var("sd")))], ["a", "b"])))
    rng = np.random.default_rng(3)
    launched = []
    for r in gpu:
        orig = r.launch
        r.launch = lambda kern, g, args, _o=orig: (launched.append(kern.function_name), _o(kern, g, args))[1]
    try:
        for lengths in (np.full(8192, 3, np.int32),                      # fits
                        np.full(8192, 60, np.int32),                     # 256 x 60 > cap
                        np.where(np.arange(9000) % 7 == 0, 0, rng.integers(0, 40, 9000)).astype(np.int32)):
            total = int(lengths.sum())
            fs = rng.standard_normal(total) * 1e3
            xs = rng.integers(-100, 100, total).astype(np.int32)
            check(prog, gpu, fs, xs, SegDes(lengths), name="F", expect_error=False)
            check(prog, gpu, fs, xs, SegDes(lengths), name="T", expect_error=False)
    finally:
        for r in gpu:
            del r.launch
    assert any(n.endswith("_rowsl") for n in launched), launched


def test_one_work_group_descriptor_scan(runners):
    """GPU strategy: a descriptor of up to ``group_seq`` segments is scanned by one work-group
    in one launch (nz_sd_group) -- offsets, total, longest segment and a negative length as the
    chunked scan gives them (on PoCL through the runner with the other strategy)."""
    rng = np.random.default_rng(5)
    assert any(r.group_seq for r in runners)      # the GPU-strategy runner has the plan
    for r in runners:
        if not r.group_seq:
            continue
        for n in (128, 255, 256, 257, 1000, 4099, r.group_seq):
            a = rng.integers(0, 40, n).astype(np.int32)
            a[rng.integers(0, n, max(1, n // 7))] = 0
            launched = []
            orig = r.launch
            r.launch = lambda k, g, args, orig=orig: (launched.append(k.function_name), orig(k, g, args))
            try:
                sd = r.make_sd(r.upload(a), None)
            finally:
                del r.launch
            assert launched == ["nz_sd_group"], (n, launched)
            want = np.concatenate(([0], np.cumsum(a)[:-1]))
            assert r.download(sd.offsets).tolist() == want.tolist()
            assert (sd.total, sd.maxlen) == (int(a.sum()), int(a.max()))
        a = np.ones(3000, np.int32)
        a[2999] = -4
        sd = r.make_sd(r.upload(a), None)
        with pytest.raises(Exception, match="egative"):
            r.sync()
            sd.total
