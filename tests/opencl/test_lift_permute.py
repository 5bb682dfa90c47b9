"""PERMUTEs that the Lift compiler writes (lift_backend/lower/lift_permute.py): a PERMUTE whose
index thunk is ``{i => p[i]}`` and whose value thunk qualifies as a MAP's is the Lift program

    permuteIdx(ix, mapGlb(0)(toGlobal(\\t -> uf(t._0, ...))) $ zip(v0, ..., generate(N)))

(``permuteIdx``: element ``k`` written at ``ix[k]``, each position checked against the length and
against a second write).  Which PERMUTEs become Lift programs, that the printed program parses
and compiles to the kernel the runner launches, that it is what runs, and that results and
runtime errors (out-of-range and duplicate positions, errors of the value thunk, which come
first) equal the numpy runner's; NESL programs using ``permute`` print the same on
``--backend opencl`` and ``--backend lcu``, a failing permutation after the same output."""
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from lambda_cu.errors import MSG_BOUNDS, MSG_DIV0, MSG_PERMUTE
from lambda_cu.ir import Permute, Program, Scatter, SegPermute, Tuple
from lambda_cu.values import SegDes
from lift_backend import compile_program, parse
from lift_backend.lower import print_lift
from lift_backend.lower.runner import OpenCLRunner

from .ocl_helpers import (cpu_plan_runner, run_nesl, FEW, BIG, CHAR, FLOAT, INT, INT64, ODD_SIZES, SD, L, VecT, check, const, kernel,
                          length, prim, seg, th, var)
from lambda_cu.ir import Index

pytestmark = pytest.mark.opencl

i = var("i")
ROOT = Path(__file__).resolve().parents[2]


def permutes():
    """Kernel P: a PERMUTE of a tuple (an int read at the index, the index doubled, a char, a
    float quotient whose divisor is checked) to the positions p[i]; kernel Q: a PERMUTE of the
    index space (what NESL's permute lowers to: the inverse permutation, then a gather)."""
    xs, p, ys = var("xs"), var("p"), var("ys")
    f = th(("i", INT), Tuple((Index(xs, i), prim("mul", i, const(2)), prim("code_char", i),
                              prim("div", const(1000), Index(xs, i), loc=L("pm:1:5")))))
    g = th(("i", INT), Index(p, i, L("pm:1:9")))
    q = Permute(th(("i", INT), prim("mul", Index(ys, i), const(0.5))), th(("i", INT), Index(p, i, L("pm:2:9"))),
                length("p"), L("pm:2:1"))
    ps = [("xs", VecT(INT)), ("p", VecT(INT)), ("ys", VecT(FLOAT))]
    return Program((kernel("P", ps, [(["a", "b", "c", "d"], Permute(f, g, length("xs"), L("pm:1:1")))],
                           ["a", "b", "c", "d"]),
                    kernel("Q", ps, [(["e"], q)], ["e"])))


PERMUTES = permutes()


def lifted(prog, strategy="cpu"):
    from lift_backend.lower.runner import lower_kernel
    return [ls for k in prog.kernels for ls in lower_kernel(k, strategy=strategy) if "lift" in ls.info]


def test_permutes_are_lift_programs():
    ls = lifted(PERMUTES)
    assert [x.soac for x in ls] == [k.binds[0].soac for k in PERMUTES.kernels]
    for x in ls:
        lm = x.info["lift"]
        text = lm.text()
        assert "permuteIdx(ix, mapGlb(0)(toGlobal(" in text, text
        launch = dict(global_size=lm.kernel.launch.global_size, local_size=lm.kernel.launch.local_size)
        # the printed program is Lift: parsed back, it compiles (the site codes are the
        # runner's, not part of Lift's syntax: with Lift's own protocol)
        again = compile_program(parse(text).program(lm.name), soa_output=True, **launch)
        assert "permuteIdx" in {c.kind for c in again.checks}
        assert ("failIf" in {c.kind for c in again.checks}) == ("failIf" in text)
        assert "atomic_inc(&marks[i])" in again.source
        assert "marks" in [p.kind for p in lm.kernel.params]
        assert lm.name in print_lift(PERMUTES)
        # the template's target site is the code of the position check
        assert ("marks",) in lm.args


def test_not_lift_programs():
    xs, p = var("xs"), var("p")
    f = th(("i", INT), Index(xs, i))
    # a computed position that is not a Lift MAP's (it reads a length as a value), a segmented
    # one too, a scatter: not PERMUTE Lift programs (computed positions a MAP can write:
    # tests/opencl/test_lift_positions.py, tests/opencl/test_lift_seg_permute_pos.py)
    comp = Permute(f, th(("i", INT), prim("add", Index(p, i), length("p"))), length("xs"), L("n:1:1"))
    sp = SegPermute(f, th(("i", INT), prim("add", Index(p, i), length("p"))), var("sd"), L("n:2:1"))
    sc = Scatter((var("d"),), f, th(("i", INT), Index(p, i)), length("xs"), L("n:3:1"))
    ps = [("xs", VecT(INT)), ("p", VecT(INT)), ("sd", SD), ("d", VecT(INT))]
    prog = Program((kernel("A", ps, [(["a"], comp)], ["a"]), kernel("B", ps, [(["b"], sp)], ["b"]),
                    kernel("C", ps, [(["c"], sc)], ["c"])))
    assert lifted(prog) == []


def test_a_gpu_strides():
    for x in lifted(PERMUTES, strategy="gpu"):
        assert "for (int gl_id = get_global_id(0); gl_id < N; gl_id += get_global_size(0))" in \
            x.info["lift"].kernel.source


def test_lift_kernel_is_what_runs():
    r = cpu_plan_runner()
    n = 5000
    rng = np.random.default_rng(0)
    xs = rng.integers(1, 100, n).astype(np.int32)
    perm = rng.permutation(n).astype(np.int32)
    check(PERMUTES, [r], xs, perm, rng.random(n), name="P", expect_error=False)
    r._collect_events()
    assert any(k.endswith("P_0_lift") for k in r.stats.by_kernel), r.stats.by_kernel
    assert not any(k.endswith("_permute") for k in r.stats.by_kernel), r.stats.by_kernel


def _args(n, seed=0):
    rng = np.random.default_rng(seed)
    xs = rng.integers(1, 100, n).astype(np.int32) * rng.choice([-1, 1], n).astype(np.int32)
    return xs, rng.permutation(n).astype(np.int32), rng.standard_normal(n)


@pytest.mark.parametrize("n", ODD_SIZES + (63, 256, 257, BIG))
def test_lift_permutes_equal_numpy(runners, n):
    rs = runners if n < BIG else runners[:1]
    xs, p, ys = _args(n, n)
    check(PERMUTES, rs, xs, p, ys, name="P", expect_error=False)
    check(PERMUTES, rs, xs, p, ys, name="Q", expect_error=False)


@pytest.mark.parametrize("perm", [[0, 0], [1, 1, 0], [0, 1, 2, 2], [3, 0, 1], [-1, 0], [0, 1, 2**31 - 1],
                                  [2, 0, 1, 3, 4, 5, 6, 7, 8, 9, 9], [5] * 7], ids=str)
def test_invalid_permutations(runners, perm):
    n = len(perm)
    xs = np.arange(1, n + 1, dtype=np.int32)
    for name, loc in (("P", "pm:1:1"), ("Q", "pm:2:1")):
        assert check(PERMUTES, runners, xs, np.asarray(perm, np.int32), np.ones(n), name=name,
                     expect_error=True) == (L(loc), MSG_PERMUTE)


def test_invalid_big(runners):
    xs, p, ys = _args(BIG, 5)
    p[BIG // 2] = p[7]                                  # one duplicate, one missing
    assert check(PERMUTES, runners[:1], xs, p, ys, name="P", expect_error=True) == (L("pm:1:1"), MSG_PERMUTE)
    p[7] = BIG
    assert check(PERMUTES, runners[:1], xs, p, ys, name="P", expect_error=True) == (L("pm:1:1"), MSG_PERMUTE)


def test_value_thunk_error_comes_first(runners):
    """A zero divisor in the value thunk is reported before a bad permutation (the numpy runner
    evaluates the values first; the Lift kernel's sites have the template's codes)."""
    xs = np.array([3, 0, 5, 7], np.int32)
    for p in ([0, 1, 2, 3], [0, 0, 9, -1]):
        assert check(PERMUTES, runners, xs, np.asarray(p, np.int32), np.ones(4), name="P",
                     expect_error=True) == (L("pm:1:5"), MSG_DIV0)


def test_shorter_index_runs_the_template(runners):
    # p shorter than xs: the Lift kernel (p read unchecked) must not run; the template reports
    # the index thunk's subscript, as the numpy runner does
    for m in (0, 2):
        assert check(PERMUTES, runners, np.arange(1, 4, dtype=np.int32), np.arange(m, dtype=np.int32), np.ones(3),
                     name="P", expect_error=True) == (L("pm:1:9"), MSG_BOUNDS)


# ------------------------------------------------------------------------------------------------
# NESL programs: --backend opencl prints what --backend lcu prints


NESL = """v = [10, 20, 30, 40, 50, 60, 70];
permute(v, [6, 5, 4, 3, 2, 1, 0]);
permute({(x, float(x) * 0.5) : x in v}, [1, 0, 3, 2, 5, 4, 6]);
{x + 1 : x in permute(v, {rem(i + 3, 7) : i in index(7)})};
{permute(a, b) : a in [[1, 2, 3], [], [4, 5]]; b in [[2, 0, 1], [] int, [1, 0]]};
permute([] int, [] int);
permute("abc", [2, 1, 0]);
permute([1.5], [0]);
"""


@pytest.mark.parametrize("tail", ["", "permute(v, [0, 1, 2, 3, 4, 5, 7]);\n", "permute(v, [0, 1, 2, 3, 4, 5, 5]);\n",
                                  "permute(v, [0, 1, 2, 3, 4, 5, -1]);\n",
                                  "{permute(a, b) : a in [[1, 2], [3]]; b in [[1, 1], [0]]};\n",
                                  "function k(v, i) = permute({10 / x : x in v}, i);\nk([1, 0, 5], [0, 1, 1]);\n"],
                         ids=["ok", "out-of-range", "duplicate", "negative", "nested-duplicate", "div0-first"])
def test_nesl_permute_same_as_lcu(tmp_path, tail):
    src = NESL + tail
    want = run_nesl(tmp_path, src, "lcu")
    got = run_nesl(tmp_path, src, "opencl")
    assert got == want
    assert want[0] == (0 if not tail else 1), want
    if tail:
        assert ("Divide by zero." if "10 / x" in tail else "Index sequence of permute is not a permutation.") \
            in want[2]
        assert want[1].count("\n") >= 8          # the output before the error


def test_nesl_permutes_are_lift_programs(tmp_path):
    f = tmp_path / "p.nesl"
    f.write_text(NESL)
    r = subprocess.run([sys.executable, "-m", "nessie", "compile", "--emit", "lift", str(f)],
                       capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert r.returncode == 0, r.stderr
    # every PERMUTE and SEG_PERMUTE is a Lift program
    assert r.stdout.count("= PERMUTE") == r.stdout.count("permuteIdx(ix, ") > 0
    assert r.stdout.count("= SEG_PERMUTE") == r.stdout.count("permuteIdx(r._1, ") == 1


def test_long_positions(runners):
    """An int64 position vector: permuteIdx with a long index (checked in long: 2^40 is out of
    range, not wrapped into it)."""
    q = Permute(th(("i", INT), Index(var("xs"), i)), th(("i", INT), Index(var("p"), i, L("lp:1:9"))),
                length("xs"), L("lp:1:1"))
    prog = Program((kernel("K", [("xs", VecT(FLOAT)), ("p", VecT(INT64))], [(["e"], q)], ["e"]),))
    assert len(lifted(prog)) == 1 and "ix: [long]N" in lifted(prog)[0].info["lift"].text()
    check(prog, runners, np.array([1.0, 2.0, 3.0]), np.array([2, 0, 1], np.int64), expect_error=False)
    for p in ([2, 0, 3], [2, 2, 1], [2**40, 0, 1], [2**32 + 1, 0, 2]):
        assert check(prog, runners, np.array([1.0, 2.0, 3.0]), np.array(p, np.int64),
                     expect_error=True) == (L("lp:1:1"), MSG_PERMUTE)



# ------------------------------------------------------------------------------------------------
# SEG_PERMUTE: its rows plan, one work-item a segment, permuteIdx per row (the marks are the
# result's: the row's start added)

SEG_SHAPES = [[], [0], [0, 0, 0], [1], [3], [0, 2], [2, 0], [0, 1, 0, 0, 3, 0], [1] * 7, [5, 0, 0, 0, 4],
              [2049, 0, 0, 2048, 3, 0]]


def seg_permutes():
    xs, p = var("xs"), var("p")
    f = th(("i", INT), Tuple((Index(xs, i), prim("mul", i, const(2)), prim("code_char", i))))
    g = th(("i", INT), Index(p, i, L("sp:1:9")))
    ps = [("xs", VecT(INT)), ("p", VecT(INT)), ("sd", SD)]
    return Program((kernel("S", ps, [(["a", "b", "c"], SegPermute(f, g, var("sd"), L("sp:1:1")))],
                           ["a", "b", "c"]),))


SEG_PERMUTES = seg_permutes()


def _local_perm(lengths, seed):
    rng = np.random.default_rng(seed)
    return np.concatenate([rng.permutation(m) for m in lengths] + [np.zeros(0)]).astype(np.int32)


def test_seg_permutes_are_lift_rows():
    (x,) = lifted(SEG_PERMUTES)
    text = x.info["lift"].text()
    assert "splitOffsets(offs, " in text and "permuteIdx(r._1, toGlobal(mapSeq(" in text, text
    src = x.info["lift"].kernel.source
    assert "lift_marks + offs[gl_id] - offs[0]" in src
    assert "for (int gl_id" not in src            # one work-item a segment on a CPU


@pytest.mark.parametrize("lengths", SEG_SHAPES, ids=str)
def test_seg_permutes_equal_numpy(runners, lengths):
    n = sum(lengths)
    xs = np.arange(n, dtype=np.int32) * 5 - 7
    check(SEG_PERMUTES, runners, xs, _local_perm(lengths, n), SegDes(lengths), name="S", expect_error=False)


def test_seg_permute_long_segments_run_the_template(runners):
    # few long segments: the runner keeps the template's per-element plan (the rows plan's
    # choice, OpenCLRunner._rows), with the same results
    lengths = [BIG - 5, 5]
    r = cpu_plan_runner()
    check(SEG_PERMUTES, [r], np.arange(BIG, dtype=np.int32), _local_perm(lengths, 1), SegDes(lengths), name="S",
          expect_error=False)
    r._collect_events()
    assert any(k.endswith("_permute") for k in r.stats.by_kernel), r.stats.by_kernel


def test_seg_permute_lift_rows_are_what_run():
    r = cpu_plan_runner()
    lengths = [3, 0, 5, 1] * 50
    check(SEG_PERMUTES, [r], np.arange(sum(lengths), dtype=np.int32), _local_perm(lengths, 2), SegDes(lengths),
          name="S", expect_error=False)
    r._collect_events()
    assert any(k.endswith("S_0_lift") for k in r.stats.by_kernel), r.stats.by_kernel
    assert not any(k.endswith("_permute") for k in r.stats.by_kernel), r.stats.by_kernel


@pytest.mark.parametrize("lengths, k, value", [
    ([3], 0, 3), ([3], 2, -1), ([2, 2], 2, 1), ([2, 2], 0, 1), ([0, 4, 0], 3, 0), ([1, 1, 1], 1, 1),
    ([2049, 3], 2050, 7)], ids=str)
def test_seg_permute_invalid(runners, lengths, k, value):
    """A local position out of its segment (a position of the next segment is not one of this
    one's), or twice in a segment: the template's located message."""
    n = sum(lengths)
    p = np.concatenate([np.arange(m) for m in lengths]).astype(np.int32)
    p[k] = value
    assert check(SEG_PERMUTES, runners, np.arange(n, dtype=np.int32), p, SegDes(lengths), name="S",
                 expect_error=True) == (L("sp:1:1"), MSG_PERMUTE)


def test_nested_nesl_permute_is_a_lift_program(tmp_path):
    src = "{permute(a, b) : a in [[1, 2, 3], [], [4, 5]]; b in [[2, 0, 1], [] int, [1, 0]]};\n"
    f = tmp_path / "s.nesl"
    f.write_text(src)
    r = subprocess.run([sys.executable, "-m", "nessie", "compile", "--emit", "lift", str(f)],
                       capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert r.returncode == 0, r.stderr
    assert "= SEG_PERMUTE" in r.stdout and "permuteIdx(r._1, " in r.stdout
