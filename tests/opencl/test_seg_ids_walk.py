"""Segment ids computed by walking the offsets (CPU strategy, issue 9).

A thunk that reads ``seg_ids(sd)[i]`` at its own element index ``i`` gets the segment by
``nz_walk_ids`` (a few steps on from the segment it found for the work-item's previous index,
else a binary search) instead of reading a segment-id vector the runner would first have to
compute; a SOAC none of whose kernels reads the vector makes the runner skip computing it.
These tests check the walk against the numpy runner where the order of indices is not a plain
increasing walk: elements skipped by a conditional, ids read at other indices than the element's
own, empty segments everywhere, indices past the end (a located error), and the plans of every
order-dependent SOAC."""
import numpy as np
import pytest

from lambda_cu import ir
from lambda_cu.errors import MSG_BOUNDS
from lambda_cu.executor import Executor
from lambda_cu.ir import Filter, If, Let, Map, SegReduce, Tuple
from lambda_cu.values import SegDes
from lift_backend.lower.runner import lower_kernel

from .ocl_helpers import (L, BIG, INT, SD, Index, Length, SegVec, VecT, check, const, one, op2,
                          prim, seg, th, var)

pytestmark = pytest.mark.opencl

i, s = var("i"), var("s")
IV = VecT(INT)
TOTAL = Length(SegVec(var("sd"), "ids"))

SHAPES = [[], [0], [0, 0, 0], [1], [0, 1, 0, 0, 2], [3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1],
          [1] * 40, [0] * 30 + [5] + [0] * 30 + [2], [4099, 0, 2050, 1, 0]]


def skipping():
    """The id of element i only where xs[i] > 0 (the walk jumps over skipped elements, and over
    many empty segments), the id of element #xs - 1 - i (a decreasing index: read from the
    vector), and the id of a data-dependent index."""
    xi = Index(var("xs"), i, L("w:1:1"))
    rev = prim("sub", prim("sub", Length(var("xs")), const(1)), i)
    body = Tuple((If(prim("gt", xi, const(0)), Index(SegVec(var("sd"), "ids"), i, L("w:1:2")), const(-1)),
                  Index(SegVec(var("sd"), "ids"), rev, L("w:1:3")),
                  Index(SegVec(var("sd"), "ids"), prim("mod", prim("mul", i, const(7919)), Length(var("xs"))),
                        L("w:1:4"))))
    return one(Map(th(("i", INT), body), TOTAL), [("sd", SD), ("xs", IV)], nres=3)


def data(lengths, rng):
    n = int(sum(lengths))
    return SegDes(lengths), rng.integers(-3, 4, n).astype(np.int32)


@pytest.mark.parametrize("lengths", SHAPES, ids=lambda x: str(x)[:40])
def test_walk_with_skipped_and_reversed_indices(runners, lengths):
    sd, xs = data(lengths, np.random.default_rng(len(lengths)))
    check(skipping(), runners, sd, xs, expect_error=False)


def test_walk_big_random_segments(runners):
    rng = np.random.default_rng(5)
    lengths = rng.integers(0, 5, BIG // 2) * (rng.random(BIG // 2) < 0.7)
    check(skipping(), runners[:1], *data(lengths, rng), expect_error=False)


def in_filter_and_seg_reduce():
    """The ids read by a FILTER's predicate input and by a SEG_REDUCE's thunk (rows plan for
    short segments, chunked plan for long ones)."""
    ids_i = Let((s,), seg("sd", "ids", i), prim("add", prim("mul", s, const(3)), Index(var("xs"), i)))
    return ir.Program((ir.Kernel("K", (ir.param("sd", SD), ir.param("xs", IV)), (IV, IV), (
        ir.KBind((var("f"),), Filter(th(("i", INT), ids_i), th(("x", INT), prim("gt", var("x"), const(4))), TOTAL)),
        ir.KBind((var("r"),), SegReduce(th(("i", INT), ids_i), (const(0),), op2("add", INT), var("sd")))),
        (var("f"), var("r"))),))


@pytest.mark.parametrize("lengths", SHAPES + [[9000, 3, 0, 7000]], ids=lambda x: str(x)[:40])
def test_walk_in_filter_and_segmented_reduction(runners, lengths):
    sd, xs = data(lengths, np.random.default_rng(3))
    check(in_filter_and_seg_reduce(), runners, sd, xs, expect_error=False)


def test_walk_index_past_the_end_is_a_located_error(runners):
    """A MAP longer than the descriptor: ``seg_ids(sd)[i]`` past the total fails at its node."""
    body = Index(SegVec(var("sd"), "ids"), i, L("w:2:1"))
    prog = one(Map(th(("i", INT), body), Length(var("xs"))), [("sd", SD), ("xs", IV)])
    for lengths, n in (([2, 0, 1], 4), ([0, 0], 1), ([5], 6)):
        got = check(prog, runners, SegDes(lengths), np.zeros(n, np.int32), expect_error=True)
        assert got == (L("w:2:1"), MSG_BOUNDS)


def test_ids_vector_not_computed_when_every_read_walks(runners):
    """On the CPU strategy the MAP of ``skipping`` walks for element i but reads the vector for
    the others; a MAP reading the ids only at i reads no vector, and its runner computes none."""
    cpu = [r for r in runners if r.c.strategy == "cpu"][0]
    only_walk = one(Map(th(("i", INT), prim("add", seg("sd", "ids", i), const(1))), TOTAL), [("sd", SD)])
    [lk] = lower_kernel(only_walk.kernels[0], "cpu")
    assert "NZ_SEGCHUNKS(i, n, v_sd_offsets" in lk.source and "v_sd_ids[" not in lk.source
    assert lk.ctx.ids_unread == {"sd"}
    [mixed] = lower_kernel(skipping().kernels[0], "cpu")
    assert "NZ_SEGCHUNKS(i, n, v_sd_offsets" in mixed.source and "v_sd_ids[" in mixed.source
    assert mixed.ctx.ids_unread == set()
    [gpu] = lower_kernel(only_walk.kernels[0], "gpu")
    assert "NZ_SEGCHUNKS" not in gpu.source and "v_sd_ids[" in gpu.source
    sd = SegDes([3, 0, 2, 0, 4])
    ex = Executor(only_walk, cpu)
    dsd = cpu.from_host(sd, SD)
    out = cpu.to_host(ex._run(ex.kernels["K"], [dsd]))
    assert out.tolist() == [1, 1, 1, 3, 3, 5, 5, 5, 5]
    assert dsd._ids is None


# ------------------------------------------------------------------------------------------------
# the segment loop of a CPU MAP (cgen.SEG_LOOP): a work-item's block walked segment by segment, the
# segment id a loop variable; what the thunk computes from it alone is evaluated only for the
# segments that have elements in the block


def per_segment_gather():
    """Quicksort's interleave (KF5): per segment, a choice and a source offset read at its id
    (``which[s]``, ``offs(src)[at[s]]``: a checked, data-dependent subscript), then the element
    ``i - offs(sd)[s]`` of that segment of one of two vectors."""
    sid = seg("sd", "ids", i)
    local = prim("sub", i, seg("sd", "offsets", sid))
    which = Index(var("which"), sid, L("p:1:1"))
    base = Index(SegVec(var("src"), "offsets"), Index(var("at"), sid, L("p:1:2")), L("p:1:3"))
    pos = prim("add", base, local)
    body = If(prim("eq", which, const(0)), Index(var("xs"), pos, L("p:1:4")),
              Index(var("ys"), pos, L("p:1:5")))
    return one(Map(th(("i", INT), body), TOTAL),
               [("sd", SD), ("src", SD), ("which", IV), ("at", IV), ("xs", IV), ("ys", IV)])


def segment_inputs(lengths, rng, short_by=0):
    """Each segment of ``lengths`` copies a segment of the same length of a source descriptor
    (in a shuffled order) from xs or ys; ``short_by``: ``at`` lacks its last entries."""
    m = len(lengths)
    perm = rng.permutation(m).astype(np.int32)
    src = SegDes(np.asarray(lengths, np.int64)[np.argsort(perm)] if m else [])
    which = rng.integers(0, 2, m).astype(np.int32)
    total = int(sum(lengths))
    xs = rng.integers(-99, 99, total).astype(np.int32)
    ys = rng.integers(-99, 99, total).astype(np.int32)
    return SegDes(lengths), src, which, perm[:m - short_by], xs, ys


@pytest.mark.parametrize("lengths", SHAPES + [[1, 0] * 3000, [0] * 5 + [7000] + [0] * 5],
                         ids=lambda x: str(x)[:40])
def test_segment_loop_gathers_per_segment(runners, lengths):
    rng = np.random.default_rng(len(lengths) + 11)
    check(per_segment_gather(), runners, *segment_inputs(lengths, rng), expect_error=False)


def test_segment_loop_big(runners):
    rng = np.random.default_rng(8)
    lengths = rng.integers(0, 9, BIG // 4) * (rng.random(BIG // 4) < 0.8)
    check(per_segment_gather(), runners, *segment_inputs(lengths, rng), expect_error=False)


def test_segment_loop_skips_empty_segments_and_reports_the_others(runners):
    """A per-segment read that would fail for an empty segment is never made (no element asks
    for it); for a segment with elements it is the located error of every backend."""
    rng = np.random.default_rng(2)
    ok = segment_inputs([3, 2, 0], rng, short_by=1)      # at[2] missing: segment 2 is empty
    check(per_segment_gather(), runners, *ok, expect_error=False)
    bad = segment_inputs([3, 0, 2], rng, short_by=1)     # at[2] missing: segment 2 has elements
    assert check(per_segment_gather(), runners, *bad, expect_error=True) == (L("p:1:2"), MSG_BOUNDS)


def test_chunked_segmented_plans_walk_their_own_descriptor(runners):
    """On a CPU the chunked plan of a SEG_REDUCE / SEG_SCAN finds segment starts and ends by
    walking the offsets (the loop's segment ``sg``): no phase reads the id vector, so the
    runner never computes it; a GPU's phases read it."""
    for mk in (lambda t, sd: SegReduce(t, (const(0),), op2("add", INT), sd),
               lambda t, sd: ir.SegScan(t, (const(0),), op2("add", INT), sd)):
        prog = one(mk(th(("i", INT), Index(var("xs"), i)), var("sd")), [("sd", SD), ("xs", IV)])
        [cpu] = lower_kernel(prog.kernels[0], "cpu")
        assert "v_sd_ids[" not in cpu.source and cpu.ctx.ids_unread == {"sd"}
        [gpu] = lower_kernel(prog.kernels[0], "gpu")
        assert "v_sd_ids[" in gpu.source and gpu.ctx.ids_unread == set()
        rng = np.random.default_rng(4)
        for lengths in ([5000, 0, 1, 7000, 0], [0, 0, 3], [1] * 3000 + [9000]):
            check(prog, runners, *data(lengths, rng), expect_error=False)


# ------------------------------------------------------------------------------------------------
# a MAP's Lift kernel reading walked segment ids (the id vector computed for it, LiftMap.ids)


def ids_at_computed_and_two_walks():
    """word_count's KF7 (``seg_ids(sd)[ix[i]]`` and the length of that segment) and the ids of
    two descriptors read at the element's own index: on a CPU the hand-written phase walks the
    offsets of ``sd2`` and ``sd3``; the Lift kernel reads all three from their id vectors."""
    at = Index(var("ix"), i, L("g:1:1"))
    a = var("a")
    body = Tuple((Index(SegVec(var("sd"), "ids"), at, L("g:1:2")),
                  Let((a,), Index(SegVec(var("sd"), "ids"), at, L("g:1:3")),
                      Index(SegVec(var("sd"), "lengths"), a, L("g:1:4"))),
                  prim("add", seg("sd2", "ids", i), prim("mul", seg("sd3", "ids", i), const(10)))))
    return one(Map(th(("i", INT), body), Length(var("ix"))),
               [("sd", SD), ("sd2", SD), ("sd3", SD), ("ix", IV)], nres=3)


def test_lift_map_reads_walked_ids_from_their_vector(runners):
    prog = ids_at_computed_and_two_walks()
    [cpu] = lower_kernel(prog.kernels[0], "cpu")
    lm = cpu.info["lift"]
    assert lm.ids == ("sd", "sd2", "sd3") and lm.rows is None
    # the hand-written phase walks sd2 and sd3, the Lift kernel reads their vectors: computed
    assert cpu.ctx.ids_unread.isdisjoint({"sd", "sd2", "sd3"})
    rng = np.random.default_rng(9)
    for lengths, n in (([3, 0, 2], 5), ([1] * 9, 9), ([0, 4, 0, 0, 1, 0], 5), ([700, 0, 900], 1600)):
        sd = SegDes(lengths)
        total = int(sum(lengths))
        ix = rng.integers(0, total, n).astype(np.int32)
        check(prog, runners, sd, SegDes(np.diff(np.linspace(0, n, 4).astype(int))),
              SegDes(np.diff(np.linspace(0, n, 3).astype(int))), ix, expect_error=False)
    # an index past the total: the located error of the subscript, as numpy reports it
    got = check(prog, runners, SegDes([2, 1]), SegDes([1, 1]), SegDes([2]),
                np.array([0, 3], np.int32), expect_error=True)
    assert got == (L("g:1:2"), MSG_BOUNDS)
    # the Lift kernel is what runs on the CPU strategy, and the ids are computed for it
    r = next(r for r in runners if r.c.strategy == "cpu" and r.map_items > 3)
    launched = []
    orig = r.launch
    r.launch = lambda k, g, args, local=0: (launched.append(k.function_name), orig(k, g, args, local))[1]
    try:
        sd = r.from_host(SegDes([3, 0, 2]), SD)
        ex = Executor(prog, r)
        out = ex._run(ex.kernels["K"], [sd, r.from_host(SegDes([2, 1]), SD),
                                          r.from_host(SegDes([3]), SD),
                                          r.upload(np.array([4, 0, 2], np.int32))])
        assert [r.to_host(x).tolist() for x in out] == [[2, 0, 0], [2, 3, 3], [0, 0, 1]]
    finally:
        del r.launch
    assert "v_K_0_lift" in launched and "v_K_0_map" not in launched
    assert sd._ids is not None
