"""Segment descriptors made from lengths by Lift programs (lift_backend/lower/lift_sd.py): the
exclusive scan of the lengths padded by one zero is the ``N + 1`` offsets (the total last);
few segments take one launch on one work-item (``sd_small``: a tuple accumulator of offset,
total and longest segment), many take the chunk sums and maxima (``sd_chunks``, one fold with a
tuple accumulator) and the chunk offsets (``sd_offsets_self``: each chunk sums the chunk sums
before it; on the GPU strategy with many chunks ``sd_offsets`` after the templates' scan of the
chunk sums in place).  A negative length reports the descriptor's site through ``failIf``.
Offsets, total and longest segment equal numpy's on edge cases; the plans really run the Lift
kernels (``cpu_plan_runner``)."""
import numpy as np
import pytest

from lambda_cu.errors import MSG_NEG_LENGTH
from lift_backend.lower.lift_sd import sd_programs

from .ocl_helpers import L, cpu_plan_runner

pytestmark = pytest.mark.opencl

_INT_MAX = 2 ** 31 - 1


def _cases(rng):
    yield np.zeros(0, np.int32)                                 # no segment
    yield np.array([0], np.int32)                               # one empty segment
    yield np.array([7], np.int32)                               # one segment
    yield np.zeros(5, np.int32)                                 # only empty segments
    yield np.array([1, 0, 9, 0, 0, 2], np.int32)
    yield rng.integers(0, 5, 16384).astype(np.int32)            # the largest one-launch descriptor
    yield rng.integers(0, 5, 16385).astype(np.int32)            # the smallest chunked one
    a = rng.integers(0, 40, 64 * 2048 + 17).astype(np.int32)    # not a multiple of the chunks
    a[rng.integers(0, a.size, a.size // 5)] = 0
    yield a
    yield (np.arange(2 ** 20 + 1) % 3).astype(np.int32)         # 2^20 + 1 segments


def _check_sd(r, a, sd):
    want = np.concatenate(([0], np.cumsum(a, dtype=np.int64))).astype(np.int32)
    if a.size:
        # the n + 1 offsets, total last (no segment: nothing is launched, as before)
        got = np.empty(a.size + 1, np.int32)
        r._read([(got, sd.offsets.buf)])
        assert got.tolist() == want.tolist()
    assert sd.count == a.size
    assert (sd.total, sd.maxlen) == (int(a.sum()), int(a.max()) if a.size else 0)


def _launched(r, fn):
    r.finish_stats()
    before = dict(r.stats.by_kernel)
    out = fn()
    r.sync()
    r.finish_stats()
    return out, sorted(k for k in r.stats.by_kernel if r.stats.by_kernel[k] != before.get(k))


def test_offsets_total_and_longest(runners):
    rng = np.random.default_rng(11)
    rs = list(runners) + [cpu_plan_runner(runners[0].device)]
    for a in _cases(rng):
        for r in rs:
            _check_sd(r, a, r.make_sd(r.upload(a), None))
            if a.size:
                sd = r._sd_of_lengths(r.upload(a), int(a.sum()))
                assert sd.maxlen == int(a.max())
                _check_sd(r, a, sd)
            sd = r.make_sd(r.upload(a.astype(np.int64)), None)   # int64 lengths: a Lift cast first
            _check_sd(r, a, sd)


def test_the_plans_launch_lift_kernels(runners):
    r = cpu_plan_runner(runners[0].device)
    for n, want in ((1, ["sd_small"]), (16384, ["sd_small"]),
                    (16385, ["sd_chunks", "sd_offsets_self"]), (2 ** 20 + 1, ["sd_chunks", "sd_offsets_self"])):
        a = np.ones(n, np.int32)
        lv = r.upload(a)
        sd, names = _launched(r, lambda: r.make_sd(lv, None))
        assert names == want, (n, names)
        assert sd.total == n
    lv = r.upload(np.ones(100, np.int64))
    _, names = _launched(r, lambda: r.make_sd(lv, None))
    assert names == ["sd_cast_l2i", "sd_small"]
    sd = r.make_sd(r.upload(np.ones(100, np.int32)), None)
    _, names = _launched(r, lambda: r.sd_field(sd, "lengths", np.int64))
    assert names == ["sd_cast_i2l"]
    assert not any(k.startswith("nz_") for k in r.stats.by_kernel), r.stats.by_kernel


def test_gpu_strategy_many_chunks(runners):
    """The GPU strategy's many chunks: the Lift chunk sums and offsets around the templates'
    grouped scan of the chunk sums (nz_fold_long, nz_sd_carry, nz_spread_long: in place)."""
    from lift_backend.lower.runner import OpenCLRunner
    r = OpenCLRunner(runners[0].device, profile=True, strategy="gpu")
    a = (np.arange(2 ** 20 + 1) % 5).astype(np.int32)
    lv = r.upload(a)
    sd, names = _launched(r, lambda: r.make_sd(lv, None))
    assert names == ["nz_fold_long", "nz_sd_carry", "nz_spread_long", "sd_chunks", "sd_offsets"], names
    _check_sd(r, a, sd)


@pytest.mark.parametrize("n", [3, 16384, 16385, 64 * 2048 + 17])
def test_negative_length_reports_the_site(runners, n):
    from lambda_cu.errors import LcuRuntimeError
    loc = L("sd:1")
    for r in list(runners) + [cpu_plan_runner(runners[0].device)]:
        a = np.ones(n, np.int32)
        a[n // 2] = -1
        a[n - 1] = -2 ** 31
        sd = r.make_sd(r.upload(a), loc)
        with pytest.raises(LcuRuntimeError) as e:
            sd.total
        assert (e.value.location, e.value.message) == (loc, MSG_NEG_LENGTH)


@pytest.mark.parametrize("n", [3, 40_000])
def test_total_beyond_int_max(runners, n):
    for r in list(runners) + [cpu_plan_runner(runners[0].device)]:
        a = np.full(n, (2 ** 31) // n + 1, np.int32)
        assert int(a.sum()) > _INT_MAX
        sd = r.make_sd(r.upload(a), None)
        with pytest.raises(MemoryError, match="more than 2\\^31 - 1 elements"):
            sd.total


def test_programs_are_lift():
    """The printed programs are Lift: the padded lengths' exclusive scan, chunked folds."""
    from lift_backend.syntax import file_text
    ps = sd_programs("cpu")
    text = file_text([p.program for p in ps.values()])
    assert "scanSeq(" in text and "reduceSeq(" in text and "pad(0, 1, 0)" in text and "failIf(" in text
    assert set(ps) == {"small", "chunks", "offsets_self", "offsets", "cast_l2i", "cast_i2l"}
