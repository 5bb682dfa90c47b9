"""MAPs whose subscripts' values several functions use (a fused ``let`` copied into every result
component, as quicksort's split: ``let a = v4[...] in (a, a < p, a == p, a > p)``): each distinct
subscript is read once in the Lift program, into a private value bound by a lambda,
``(\\a1 -> uf(x, a1, ...))(toPrivate(uf_rd)(arrayAccess(w, uf_i1(...))))`` (lift_map.py's
``with_reads``), so ``MAX_ACCESSES`` counts distinct reads, not copies.  The flat map
(``mapGlb``) and the rows form (``mapSeq`` inside a row of ``splitOffsets``: the private value is
one variable, not replicated over the row, see lift_backend/memory/alloc.py) give the numpy
runner's results, and an out-of-bounds subscript reports the located message of the template's
first failing subscript; quicksort's KF2_0, KF5_0 and KF7_0 are Lift programs and NESL programs
print what ``--backend lcu`` prints."""
import re
from pathlib import Path

import numpy as np
import pytest

from lambda_cu.errors import MSG_BOUNDS
from lambda_cu.ir import If, Map, Program, SegVec, Tuple
from lambda_cu.types import INT, SD
from lambda_cu.values import SegDes
from lift_backend.lower import lift_map as LM
from lift_backend.lower.runner import lower_kernel

from .ocl_helpers import (cpu_plan_runner, BIG, FLOAT, L, VecT, Index, Length, check, const, kernel, prim,
                          run_nesl, th, var)

pytestmark = pytest.mark.opencl

ROOT = Path(__file__).resolve().parents[2]
i = var("i")
xs, ps, qs, ws = var("xs"), var("ps"), var("qs"), var("ws")


def chain():
    """``xs[ps[ps[ps[qs[i]]]]]``, a fresh copy each call (as fusion inlines a ``let``): four
    subscripts at computed indices, each site's location the same in every copy."""
    return Index(xs, Index(ps, Index(ps, Index(ps, Index(qs, i), L("c:1:4")), L("c:1:3")), L("c:1:2")), L("c:1:1"))


def flat_program():
    """r: 7 components each using its own copy of the chain (28 accesses as copies; 4 distinct
    reads), one of them in a branch whose other side reads ``xs``
    at another index (an ``arrayAccessIf``), then the chain's inner reads as a value and as
    an index of another read."""
    k = var("k")
    # ps[ps[qs[i]]] is also a value of the result, and ps[ps[ps[qs[i]]]] the index of a ps read
    # too: those values are used by two functions each (read once into private values)
    p2 = Index(ps, Index(ps, Index(qs, i), L("c:1:4")), L("c:1:3"))
    p3 = Index(ps, Index(ps, Index(ps, Index(qs, i), L("c:1:4")), L("c:1:3")), L("c:1:2"))
    comps = (chain(), prim("lt", chain(), k), prim("eq", chain(), k), prim("gt", chain(), k),
             prim("add", chain(), const(1)), prim("mul", chain(), const(3)),
             If(prim("gt", Index(qs, i), const(0)), chain(), Index(xs, Index(qs, i), L("b:1:1"))),
             p2, Index(ps, p3, L("c:2:1")))
    m = Map(th(("i", INT), Tuple(comps)), Length(qs, INT))
    names = [f"r{j}" for j in range(len(comps))]
    return Program((kernel("K", [("xs", VecT(INT)), ("ps", VecT(INT)), ("qs", VecT(INT)), ("k", INT)],
                           [(tuple(names), m)], names),)), names


def lifted(prog, strategy="cpu"):
    return [ls for k in prog.kernels for ls in lower_kernel(k, strategy=strategy) if "lift" in ls.info]


def test_copies_of_a_read_are_one_bound_read():
    prog, _ = flat_program()
    ls = lifted(prog)
    assert len(ls) == 1
    text = ls[0].info["lift"].text()
    # each distinct subscript once: the chain's four, the last component's and the branch's
    # one (guarded)
    assert text.count("arrayAccess(") == 5 and text.count("arrayAccessIf(") == 1, text
    # read once into private values bound by lambdas, in dependency order
    assert "toPrivate(uf_v_K_0_rd" in text and "(\\a" in text, text


@pytest.mark.parametrize("n", [1, 7, 300, BIG])
def test_bound_reads_equal_numpy(runners, n):
    prog, names = flat_program()
    rng = np.random.default_rng(n)
    m = 50
    x = rng.integers(-100, 100, m).astype(np.int32)
    p = rng.integers(0, m, m).astype(np.int32)
    q = rng.integers(0, m, n).astype(np.int32)      # 0: the branch reads xs[qs[i]]
    rs = runners if n < BIG else [cpu_plan_runner()]
    check(prog, rs, x, p, q, np.int32(5), expect_error=False, names=names)


def test_bound_reads_out_of_bounds_report_the_first_failing_site(runners):
    prog, names = flat_program()
    rng = np.random.default_rng(3)
    m, n = 40, 500
    x = rng.integers(-100, 100, m).astype(np.int32)
    p = rng.integers(0, m, m).astype(np.int32)
    q = rng.integers(0, m, n).astype(np.int32)
    # the innermost read fails (qs[i] past ps): its site, not a later copy's
    q2 = q.copy()
    q2[77] = m
    assert check(prog, runners, x, p, q2, np.int32(5), expect_error=True) == (L("c:1:4"), MSG_BOUNDS)
    # a middle read fails
    p2 = p.copy()
    p2[:] = m + 3
    assert check(prog, runners, x, p2, q, np.int32(5), expect_error=True) == (L("c:1:3"), MSG_BOUNDS)
    # the outer read fails (xs shorter): the chain's xs read
    assert check(prog, runners, x[:1], np.zeros(m, np.int32) + 1, q, np.int32(5), expect_error=True) == \
        (L("c:1:1"), MSG_BOUNDS)
    # the guarded read fails only where its branch runs (qs[i] <= 0)
    q3 = q.copy()
    q3[q3 <= 0] = 1
    check(prog, runners, x[:2], np.ones(m, np.int32), q3 % 2 + 1, np.int32(5), expect_error=False)


def test_the_bound_lift_kernel_is_what_runs():
    r = cpu_plan_runner()
    prog, names = flat_program()
    rng = np.random.default_rng(1)
    x = rng.integers(-100, 100, 30).astype(np.int32)
    p = rng.integers(0, 30, 30).astype(np.int32)
    q = rng.integers(0, 30, 10000).astype(np.int32)
    check(prog, [r], x, p, q, np.int32(5), expect_error=False, names=names)
    r._collect_events()
    assert any(k.endswith("_lift") for k in r.stats.by_kernel), r.stats.by_kernel
    assert not any(k.endswith("_map") for k in r.stats.by_kernel), r.stats.by_kernel


# ------------------------------------------------------------------------------------------------
# the rows form: quicksort's split, each component with its own copy of the gather


def rows_program():
    sd = var("sd")
    sid = Index(SegVec(sd, "ids"), i)

    def gather():
        other = Index(SegVec(var("sd2"), "offsets"), Index(qs, Index(SegVec(sd, "ids"), i), L("q:1:1")), L("o2:1:1"))
        pos = prim("sub", i, Index(SegVec(sd, "offsets"), Index(SegVec(sd, "ids"), i), L("o:1:1")))
        return Index(ps, prim("add", other, pos), L("p:1:1"))

    def pivot():
        return Index(ws, Index(SegVec(sd, "ids"), i), L("w:1:1"))
    pos = prim("sub", i, Index(SegVec(sd, "offsets"), sid, L("o:1:1")))
    # the position in the segment is a result too: its read used by two functions
    comps = (gather(), prim("lt", gather(), pivot()), prim("eq", gather(), pivot()), prim("gt", gather(), pivot()),
             pos)
    m = Map(th(("i", INT), Tuple(comps)), var("n"))
    names = ["r0", "r1", "r2", "r3", "r4"]
    params = [("ps", VecT(INT)), ("ws", VecT(INT)), ("qs", VecT(INT)), ("sd", SD), ("sd2", SD), ("n", INT)]
    return Program((kernel("K", params, [(tuple(names), m)], names),)), names


def _rows_inputs(lengths, seed):
    rng = np.random.default_rng(seed)
    total, m = int(sum(lengths)), len(lengths)
    p = rng.integers(-1000, 1000, total).astype(np.int32)
    w = rng.integers(-1000, 1000, m).astype(np.int32)
    q = np.arange(m - 1, -1, -1, dtype=np.int32)       # sd2: the lengths reversed
    return p, w, q, SegDes(lengths), SegDes(list(reversed(lengths))), total


def test_rows_copies_are_one_bound_read():
    prog, _ = rows_program()
    ls = lifted(prog)
    assert len(ls) == 1
    lm = ls[0].info["lift"]
    assert lm.rows == "sd"
    text = lm.text()
    # qs[id], seg_offsets(sd2)[.], seg_offsets(sd)[id], ps[.], ws[id]: five reads
    assert text.count("arrayAccess(") == 5, text
    assert "mapSeq(" in text and "toPrivate(uf_v_K_0_rd" in text, text
    # the bound value is one private variable of the work-item, not an array over the row
    assert not re.search(r"\b(int|uchar|long|double) \w+\[\d*\];", lm.kernel.source), lm.kernel.source


@pytest.mark.parametrize("lengths", [[], [1], [3, 0, 2], [2] * 300, [1, 0, 3] * 301, [5]])
def test_rows_bound_reads_equal_numpy(runners, lengths):
    prog, names = rows_program()
    p, w, q, d, d2, total = _rows_inputs(lengths, len(lengths))
    check(prog, runners, p, w, q, d, d2, total, expect_error=False, names=names)


def _big(pattern=(1, 2, 0, 3, 1, 2, 0, 3, 1, 2, 0, 2)):
    lengths = [0] + list(pattern) * (BIG // sum(pattern))
    assert sum(lengths) == BIG
    return lengths


def test_rows_bound_reads_run_as_lift_and_report_errors():
    r = cpu_plan_runner()
    prog, names = rows_program()
    lengths = _big()
    p, w, q, d, d2, total = _rows_inputs(lengths, 5)
    check(prog, [r], p, w, q, d, d2, total, expect_error=False, names=names)

    r._collect_events()
    kernels = set(r.stats.by_kernel)
    r.stats.by_kernel.clear()
    assert any(k.endswith("_lift") for k in kernels) and not any(k.endswith("_map") for k in kernels), kernels
    # ws one shorter: the last segment's pivot read fails (its site)
    assert check(prog, [r], p, w[:-1], q, d, d2, total, expect_error=True) == (L("w:1:1"), MSG_BOUNDS)
    # ps shorter: the gather fails
    assert check(prog, [r], p[:-1], w, q, d, d2, total, expect_error=True) == (L("p:1:1"), MSG_BOUNDS)


# ------------------------------------------------------------------------------------------------
# NESL


def test_quicksorts_split_maps_are_lift_programs():
    """quicksort.nesl's KF2_0, KF5_0 and KF7_0 (the split's gather used by 4 result components)
    were refused by ``MAX_ACCESSES`` as copies; read once, they are Lift programs."""
    from lift_backend.lower.device_scalars import device_scalars
    from nessie import driver
    flat, _ = driver.fuse(driver.flatten(driver.compile_file(str(ROOT / "nesl_examples" / "quicksort.nesl"))))
    d = device_scalars(flat.program)
    got = {f"{k.name}_{j}" for k in flat.program.kernels
           for j, ls in enumerate(lower_kernel(k, "cpu", d.params_of(k.name)))
           if isinstance(ls.soac, Map) and "lift" in ls.info}
    assert {"KF2_0", "KF5_0", "KF7_0"} <= got, got


NESL = """function split(rows, ps) = {{(x, x < p, x == p, x > p) : x in row} : row in rows; p in ps};
function g(xs, js) = {let a = xs[js[j]] in (a, a + 1, a * 2, a < 3, a == 4) : j in index(#js)};
split([[5, 1, 9], [], [4, 4], [7]], [5, 0, 4, 8]);
g([10, 20, 30, 40], [3, 2, 1, 0, 2]);
{let a = {x * 2 : x in row}; b = a[0] in (b, b + 1, b - 1, b * b) : row in [[1, 2], [3], [4, 5, 6]]};
"""


@pytest.mark.parametrize("tail", ["", "g([10, 20, 30, 40], [3, 2, 4, 0]);\n",
                                  "{let a = {x * 2 : x in row}; b = a[1] in (b, b + 1, b - 1, b * b) : "
                                  "row in [[1, 2], [3], [4, 5, 6]]};\n"],
                         ids=["ok", "bounds-flat", "bounds-rows"])
def test_nesl_bound_reads_same_as_lcu(tmp_path, tail):
    src = NESL + tail
    want = run_nesl(tmp_path, src, "lcu")
    got = run_nesl(tmp_path, src, "opencl")
    assert got == want
    assert want[0] == (0 if not tail else 1), want
