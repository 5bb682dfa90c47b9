"""What a thunk computes from the segment alone, computed once per segment (CPU strategy).

On a CPU a MAP walks its block segment by segment (``NZ_SEGCHUNKS``), a segmented reduction's
rows plan folds one row per work-item, and the chunked plans of SEG_REDUCE / SEG_SCAN walk their
chunk segment by segment: the statements of a thunk that do not depend on the element's index
(gathers at the segment id, checked subscripts of them, conditions on them) run once per
segment piece before the element loop (``cgen.seg_loop_body``), and an element loop that
branches on such a condition is written once per branch.  These tests check the split itself,
and the results and errors against the numpy runner: a per-segment read that would fail is
made only for a segment with elements, as every backend does."""
import re

import numpy as np
import pytest

from lambda_cu import ir
from lambda_cu.errors import MSG_BOUNDS
from lambda_cu.values import SegDes
from lift_backend.lower.cgen import seg_loop_body
from lift_backend.lower.runner import lower_kernel

from .ocl_helpers import (L, INT, SD, BIG, Index, Length, SegVec, VecT, check, const, one, op2,
                          prim, seg, th, var)

pytestmark = pytest.mark.opencl

i = var("i")
IV = VecT(INT)
LOOP = "for (; i < e; i++) {"


# ------------------------------------------------------------------------------------------------
# the split (cgen.seg_loop_body) on C statements


def test_invariant_statements_run_before_the_element_loop():
    body = ["int t1 = (int)s;",
            "int t2;",
            "if ((long)(t1) >= (long)(w_n)) { nz_err = min(nz_err, 3); t2 = 0; } else t2 = w[t1];",
            "int t3 = (int)i + t2;",
            "out0[i] = t3;"]
    got = seg_loop_body(body, ("i",), "", LOOP)
    assert got == body[:3] + [LOOP, "  int t3 = (int)i + t2;", "  out0[i] = t3;", "}"]


def test_a_temporary_assigned_in_the_loop_stays_in_it():
    """``t2`` is declared with no index in sight, but assigned from the element: its declaration
    and every statement naming it stay in the loop; an accumulator the loop carries is a loop
    variable like the index (a statement naming only it is not hoisted)."""
    body = ["int t2;",
            "if (t9) { t2 = x[i]; } else { t2 = 0; }",
            "int t4 = t2 + 1;",
            "int t5 = acc0 * 2;",
            "int t6 = c + 1;",
            "acc0 = t5 + t4 + t6;"]
    got = seg_loop_body(body, ("i", "acc0"), "", LOOP)
    assert got[:2] == ["int t6 = c + 1;", LOOP]
    assert [ln.strip() for ln in got[2:-1]] == [b for b in body if b != "int t6 = c + 1;"]


def test_a_branch_on_an_invariant_condition_splits_the_loop():
    """Each branch's invariant reads are hoisted into its own copy of the loop; a branch on an
    element's value is not split, and what it computes stays conditional."""
    body = ["uchar t1 = (uchar)(w[s] == 0);",
            "int t2;",
            "if (t1) {",
            "  int t3 = a[s];",
            "  t2 = t3 + (int)i;",
            "} else {",
            "  int t4;",
            "  if (b_n <= s) { nz_err = min(nz_err, 4); t4 = 0; } else t4 = b[s];",
            "  t2 = t4 - (int)i;",
            "}",
            "uchar t5 = (uchar)(t2 > 0);",
            "int t6;",
            "if (t5) {",
            "  t6 = d[s];",
            "} else {",
            "  t6 = 0;",
            "}",
            "out0[i] = t6;"]
    got = seg_loop_body(body, ("i",), "", LOOP)
    text = "\n".join(got)
    assert got[0] == body[0] and got[1] == "if (t1) {"
    assert text.count(LOOP) == 2
    then, other = text.split("} else {\n", 1)[0], text.split(LOOP, 2)[1]
    assert then.index("int t3 = a[s];") < then.index(LOOP)
    assert "if (b_n <= s)" in text and text.index("if (b_n <= s)") < text.rindex(LOOP)
    # the branch on the element's t5 is not split: d[s] is read only where t5 holds
    assert text.count("t6 = d[s];") == 2 and "if (t5) {" in other
    for ln in got:
        if "t6 = d[s]" in ln:
            assert ln.startswith("      ")      # inside the copy of the loop and the if


# ------------------------------------------------------------------------------------------------
# kernels: results and errors against the numpy runner


def seg_gather_reduce(scan: bool = False):
    """Each element ``xs[i]`` plus a per-segment value read through a checked, data-dependent
    subscript (``ws[at[s] / q]``, s the element's segment), summed (or scanned) per segment.
    The division (a primitive that can fail) inside a subscript is no Lift user function, so
    the hand-written phases run (rows, chunks), whose code is split."""
    s = seg("sd", "ids", i)
    at = prim("div", Index(var("at"), s, L("h:1:2")), var("q"))
    x = prim("add", Index(var("xs"), i, L("h:1:1")), Index(var("ws"), at, L("h:1:3")))
    soac = (ir.SegScan if scan else ir.SegReduce)(th(("i", INT), x), (const(0),), op2("add", INT), var("sd"))
    return one(soac, [("sd", SD), ("xs", IV), ("ws", IV), ("at", IV), ("q", INT)])


def gather_inputs(lengths, rng, bad=None):
    """``at[k]`` points into ``ws`` except for segment ``bad``, whose entry is past its end."""
    total, m = int(sum(lengths)), len(lengths)
    at = rng.integers(0, 5, m).astype(np.int32)
    if bad is not None:
        at[bad] = 5
    return (SegDes(lengths), rng.integers(-9, 9, total).astype(np.int32),
            rng.integers(-9, 9, 5).astype(np.int32), at, np.int32(1))


SHAPES = [[3, 2, 0], [1] * 50, [0, 4, 0, 0, 1], [20000, 0, 3, 30000], [2049, 2047, 0, 1]]


@pytest.mark.parametrize("scan", [False, True], ids=["seg_reduce", "seg_scan"])
@pytest.mark.parametrize("lengths", SHAPES, ids=lambda x: str(x)[:30])
def test_segmented_fold_of_a_per_segment_gather(runners, lengths, scan):
    rng = np.random.default_rng(len(lengths))
    check(seg_gather_reduce(scan), runners, *gather_inputs(lengths, rng), expect_error=False)


@pytest.mark.parametrize("scan", [False, True], ids=["seg_reduce", "seg_scan"])
@pytest.mark.parametrize("lengths,empty,full", [([3, 0, 2], 1, 2), ([20000, 0, 30000], 1, 2),
                                                ([0, 1] * 40, 0, 79)], ids=["rows", "chunks", "many"])
def test_a_failing_per_segment_read_fails_only_where_elements_ask(runners, lengths, empty, full, scan):
    """The read that fails for an empty segment is never made; for a segment with elements it
    is the located error of every backend, whichever plan (rows, chunks) runs."""
    rng = np.random.default_rng(7)
    check(seg_gather_reduce(scan), runners, *gather_inputs(lengths, rng, bad=empty), expect_error=False)
    assert check(seg_gather_reduce(scan), runners, *gather_inputs(lengths, rng, bad=full),
                 expect_error=True) == (L("h:1:3"), MSG_BOUNDS)


def test_segmented_fold_big(runners):
    rng = np.random.default_rng(9)
    lengths = rng.integers(0, 12, BIG // 6) * (rng.random(BIG // 6) < 0.8)
    check(seg_gather_reduce(), runners, *gather_inputs(lengths, rng), expect_error=False)


def _phase(lk, suffix):
    return next(p.source for p in lk.phases if p.name.endswith(suffix))


def test_the_gather_is_made_before_each_loop_of_the_cpu_phases():
    """In the CPU source of the MAP, the rows plan and the chunked plan, the checked read of
    ``at[s]`` comes before the element loop; on a GPU nothing is split."""
    s = seg("sd", "ids", i)
    per_seg = Index(var("ws"), Index(var("at"), s, L("h:2:1")), L("h:2:2"))
    mp = one(ir.Map(th(("i", INT), prim("add", per_seg, Index(var("xs"), i))), Length(SegVec(var("sd"), "ids"))),
             [("sd", SD), ("xs", IV), ("ws", IV), ("at", IV)])
    [lk] = lower_kernel(mp.kernels[0], "cpu")
    src = _phase(lk, "_map")
    assert src.index("v_at[") < src.index("for (; i < seg_e; i++) {")
    [red] = lower_kernel(seg_gather_reduce().kernels[0], "cpu")
    rows = _phase(red, "_rows")
    assert rows.index("v_at[") < rows.index("for (long i = a; i < e; i++) {")
    assert "if (a < e) {" in rows
    chunks = _phase(red, "_chunks")
    assert chunks.index("v_at[") < chunks.index("for (; i < sg_e; i++) {")
    [gpu] = lower_kernel(mp.kernels[0], "gpu")
    assert "seg_e" not in _phase(gpu, "_map")


def test_a_map_branching_on_a_segment_value_has_a_loop_per_branch():
    """Quicksort's interleave (a choice per segment between two sources): two element loops,
    each after its branch's reads of the segment's source offset."""
    s = seg("sd", "ids", i)
    local = prim("sub", i, seg("sd", "offsets", s))
    base = Index(SegVec(var("src"), "offsets"), Index(var("at"), s, L("h:3:1")), L("h:3:2"))
    body = ir.If(prim("eq", Index(var("which"), s, L("h:3:3")), const(0)),
                 Index(var("xs"), prim("add", base, local), L("h:3:4")),
                 Index(var("ys"), prim("add", base, local), L("h:3:5")))
    prog = one(ir.Map(th(("i", INT), body), Length(SegVec(var("sd"), "ids"))),
               [("sd", SD), ("src", SD), ("which", IV), ("at", IV), ("xs", IV), ("ys", IV)])
    [lk] = lower_kernel(prog.kernels[0], "cpu")
    src = _phase(lk, "_map")
    fast = src.split("} else {\n    int nz_err", 1)[0]       # the unchecked version
    loops = [m.start() for m in re.finditer(re.escape("for (; i < seg_e; i++) {"), fast)]
    assert len(loops) == 2
    assert fast.index("v_src_offsets[") < loops[0]
    assert fast.index("v_src_offsets[", loops[0]) < loops[1]


def test_every_way_of_assigning_a_temporary_keeps_its_readers_in_the_loop():
    """A temporary written element by element in any form (``tN[k] =``, ``+=``, ``++``, a
    pointer or array declaration) is the loop's: the statements reading it are not hoisted."""
    for write in ("t2[0] = (int)i;", "t2 += (int)i;", "t2++; t2 = t2 + (int)i;", "++t2; t2 ^= (int)i;"):
        decl = "int t2[1];" if "[0]" in write else "int t2 = 0;"
        use = "int t3 = t2[0] + 1;" if "[0]" in write else "int t3 = t2 + 1;"
        body = [decl, write, use, "int t4 = w[s];", "out0[i] = t3 + t4;"]
        got = seg_loop_body(body, ("i",), "", LOOP)
        assert got[0] == "int t4 = w[s];" and got[1] == LOOP, (write, got)
        assert [ln.strip() for ln in got[2:-1]] == [decl, write, use, "out0[i] = t3 + t4;"], (write, got)
    ptr = ["global int* t2 = w + i;", "int t3 = *t2;", "out0[i] = t3;"]
    assert seg_loop_body(ptr, ("i",), "", LOOP)[0] == LOOP
