"""REDUCEs and SCANs over the elements of a segment descriptor whose thunks read its segment
ids at their index (``ws[seg_ids(sd)[i]]``: flattened NESL compares each element with a value of
its segment, as word_count's and run_length_encoding's scans and closest_pair's checks do).  On
a CPU the hand-written chunks walk the offsets for the ids; the Lift chunks (and a SCAN's last
pass) read the descriptor's id vector, which the runner computes for them (``LiftMap.ids``, the
vector kept with the descriptor).  Which SOACs lift, that the Lift kernels are what run, and
results and located errors equal to the numpy runner's on empty vectors, empty segments, one
element, odd lengths and 2^20 + 1 elements."""
import numpy as np
import pytest

from lambda_cu.errors import MSG_BOUNDS
from lambda_cu.ir import Program, Reduce, Scan, SegVec
from lambda_cu.types import BOOL, INT, SD
from lambda_cu.values import SegDes

from .ocl_helpers import (cpu_plan_runner, BIG, L, VecT, Index, Length, check, const, kernel, op2,
                          prim, th, var)

pytestmark = pytest.mark.opencl

i = var("i")
sd, xs, ws = var("sd"), var("xs"), var("ws")


def program():
    """r0: the running count of elements equal to their segment's value (a SCAN), r1: whether
    every element lies at most 3 below its segment's value (a REDUCE with ``and``), r2: the sum
    of the elements' segment values (a REDUCE over the ids alone)."""
    sid = Index(SegVec(sd, "ids"), i)
    w = Index(ws, sid, L("w:1:1"))
    n = Length(SegVec(sd, "ids"), INT)
    eq = prim("btoi", prim("eq", Index(xs, i), w), ty=INT)
    scan = Scan(th(("i", INT), eq), (const(0),), op2("add", INT), n)
    close = prim("le", prim("sub", Index(ws, sid, L("w:2:1")), Index(xs, i)), const(3))
    near = Reduce(th(("i", INT), close), (const(True),), op2("and", BOOL), n)
    total = Reduce(th(("i", INT), Index(ws, sid, L("w:3:1"))), (const(0),), op2("add", INT), n)
    return Program((kernel("K", [("xs", VecT(INT)), ("ws", VecT(INT)), ("sd", SD)],
                           [("r0", scan), ("r1", near), ("r2", total)], ["r0", "r1", "r2"]),))


def _inputs(lengths, seed=0, short_ws=False):
    rng = np.random.default_rng(seed)
    n, m = int(sum(lengths)), len(lengths)
    ws = rng.integers(0, 6, max(m - 1, 0) if short_ws else m).astype(np.int32)
    ids = np.repeat(np.arange(m), lengths)
    full = rng.integers(0, 6, m).astype(np.int32) if short_ws else ws
    xs = (full[ids] - rng.integers(0, 5, n)).astype(np.int32) if n else np.zeros(0, np.int32)
    return xs, ws, SegDes(lengths)


def test_the_chunks_read_the_id_vector():
    from lift_backend.lower.runner import lower_kernel
    ls = lower_kernel(program().kernels[0], "cpu")
    assert all("lift" in x.info for x in ls), [x.soac.NAME for x in ls if "lift" not in x.info]
    assert ls[0].info["lift_scan"].ids == ("sd",)
    assert all(x.info["lift"].ids == ("sd",) for x in ls)
    # the runner computes the ids for these SOACs (their hand-written phases walk)
    assert all("sd" not in x.ctx.ids_unread for x in ls)


SHAPES = [[], [0], [1], [5], [3, 0, 2], [0, 0, 5, 0], [2049], [255, 0, 257, 1], [1, 2, 3, 4] * 500,
          [2049, 0, 1, 4097], [2] * 20000, [0] * 20 + [1]]


@pytest.mark.parametrize("lengths", SHAPES, ids=range(len(SHAPES)))
def test_equal_numpy(runners, lengths):
    xs, ws, d = _inputs(lengths, len(lengths))
    check(program(), list(runners) + [cpu_plan_runner()], xs, ws, d, expect_error=False,
          names=["count", "near", "total"])


@pytest.mark.parametrize("lengths", [[1], [3, 0, 2], [0, 0, 5, 0], [3, 0, 5, 8, 1] * 400, [5, 0]])
def test_a_failing_read_at_the_segment_id_reports_its_site(runners, lengths):
    """``ws`` one shorter than the segments: the last segment's read fails (the SCAN's, the
    first SOAC), unless that segment is empty."""
    xs, ws, d = _inputs(lengths, 3, short_ws=True)
    fails = lengths[-1] > 0
    got = check(program(), list(runners) + [cpu_plan_runner()], xs, ws, d, expect_error=fails)
    if fails:
        assert got == (L("w:1:1"), MSG_BOUNDS)


def test_the_lift_chunks_are_what_run_2_20_plus_1():
    lengths = [0] + [3, 0, 5, 8, 1, 0] * 61681
    assert sum(lengths) == BIG
    xs, ws, d = _inputs(lengths, 7)
    r = cpu_plan_runner()
    check(program(), [r], xs, ws, d, expect_error=False, names=["count", "near", "total"])
    r._collect_events()
    ks = set(r.stats.by_kernel)
    assert {"v_K_0_lift", "v_K_0_liftscan", "v_K_1_lift", "v_K_2_lift"} <= ks, ks
    assert not any(k.endswith(("_chunks", "_scan")) for k in ks), ks
