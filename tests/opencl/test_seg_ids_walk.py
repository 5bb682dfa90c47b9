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
    assert "nz_walk_ids" in lk.source and "v_sd_ids[" not in lk.source
    assert lk.ctx.ids_unread == {"sd"}
    [mixed] = lower_kernel(skipping().kernels[0], "cpu")
    assert "nz_walk_ids" in mixed.source and "v_sd_ids[" in mixed.source
    assert mixed.ctx.ids_unread == set()
    [gpu] = lower_kernel(only_walk.kernels[0], "gpu")
    assert "nz_walk_ids" not in gpu.source and "v_sd_ids[" in gpu.source
    sd = SegDes([3, 0, 2, 0, 4])
    ex = Executor(only_walk, cpu)
    dsd = cpu.from_host(sd, SD)
    out = cpu.to_host(ex._run(ex.kernels["K"], [dsd]))
    assert out.tolist() == [1, 1, 1, 3, 3, 5, 5, 5, 5]
    assert dsd._ids is None
