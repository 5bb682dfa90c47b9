"""Position-dependent arrays (``[i -> [float](i + 1)]N``): the size constraints of the patterns
applied to their rows hold for *every* row, checked once the sizes are known, and their row
offsets do not overflow ``int``.  A hunt found these constraints skipped: a split, slice,
window, padding, vector width or stride that does not fit some row ran anyway, leaving output
unwritten and reading or writing outside the buffers (one aborted with a heap corruption)."""
import subprocess
import sys

import numpy as np
import pytest

from lift_backend import compile_program, parse
from lift_backend.errors import LiftCompileError

ADD = "userfun add(a: float, b: float): float { return a + b; }\n"
DBL = "userfun dbl(a: float): float { return a + a; }\n"
LOWER = "program p(m: [i -> [float](i + 1)]N) = "
UPPER = "program p(m: [i -> [float](N - i)]N) = "

#: (program, message, first failing row) on the triangle of 4 rows
REFUSED = [
    (LOWER + "join o mapGlb(0)(join o mapSeq(mapSeq(id)) o split(2)) $ m",
     "must be divisible by 2", "gl_id=0"),
    (ADD + UPPER + "join o mapGlb(0)(toGlobal(mapSeq(id)) o reduceSeq(add, 0.0f) o slice(1, 3)) $ m",
     "the end 3 must not be beyond the length", "gl_id=2"),
    (LOWER + "join o mapGlb(0)(join o mapSeq(mapSeq(id)) o slide(3, 1)) $ m",
     "must not be shorter than the window", "gl_id=0"),
    (LOWER + "join o mapGlb(0)(mapSeq(id) o pad(3, 0, wrap)) $ m",
     "the left padding must not exceed the length", "gl_id=0"),
    (DBL + LOWER + "join o mapGlb(0)(asScalar o mapSeq(mapVec(dbl)) o asVector(2)) $ m",
     "must be divisible by 2", "gl_id=0"),
    (LOWER + "join o mapGlb(0)(mapSeq(id) o gather(reorderStride(2))) $ m",
     "must be divisible by 2", "gl_id=0"),
    (ADD + "program p(m: [i -> [float](i + 1)]N, v: [float]N) = join o mapGlb(0)(\\r -> "
     "mapSeq(\\t -> add(t._0, t._1)) $ zip(r, slice(1, len(r) + 1)(v))) $ m",
     "the end gl_id + 2 must not be beyond the length N", "gl_id=3"),
]


def _compile(src):
    return compile_program(parse(src).program("p"))


@pytest.mark.opencl
@pytest.mark.parametrize("src,message,row", REFUSED)
def test_a_constraint_violated_by_one_row_is_a_located_error(runtime, src, message, row):
    k = _compile(src)
    args = {"m": np.arange(1, 11, dtype=np.float32)}
    if ", v:" in src:
        args["v"] = np.ones(4, np.float32)
    with pytest.raises(LiftCompileError) as ei:
        runtime.run(k, args, sizes={"N": 4}, global_size=4)
    text = str(ei.value)
    assert message in text and f"row {row}" in text, text
    assert ei.value.span is not None


@pytest.mark.opencl
def test_rows_that_fit_run(runtime):
    """The same patterns where every row fits: rows of even length split by 2, slices and
    windows within every row."""
    m = np.arange(1, 21, dtype=np.float32)          # rows of 2, 4, 6, 8 (i + 1) * 2
    k = _compile("program p(m: [i -> [float]((i + 1) * 2)]N) = "
                 "join o mapGlb(0)(join o mapSeq(mapSeq(id)) o split(2)) $ m")
    np.testing.assert_array_equal(runtime.run(k, {"m": m}, sizes={"N": 4}, global_size=4), m)
    k = _compile(ADD + "program p(m: [i -> [float](i + 3)]N) = join o mapGlb(0)(toGlobal(mapSeq(id)) "
                 "o reduceSeq(add, 0.0f) o slice(1, 3)) $ m")
    tri = np.arange(1, 3 + 4 + 5 + 6 + 1, dtype=np.float32)
    rows = np.split(tri, np.cumsum([3, 4, 5])[:])
    np.testing.assert_allclose(runtime.run(k, {"m": tri}, sizes={"N": 4}, global_size=4),
                               [r[1:3].sum() for r in rows])
    # a window no longer than the shortest row: each row's windows, flattened
    k = _compile(LOWER.replace("(i + 1)", "(i + 3)") +
                 "join o mapGlb(0)(join o mapSeq(mapSeq(id)) o slide(3, 1)) $ m")
    out = runtime.run(k, {"m": tri}, sizes={"N": 4}, global_size=4)
    want = np.concatenate([np.concatenate([r[j:j + 3] for j in range(len(r) - 2)]) for r in rows])
    np.testing.assert_array_equal(out, want)


@pytest.mark.opencl
def test_a_negative_row_length_of_a_parameter_is_refused(runtime):
    """``[i -> [float](3 - i)]N`` with N = 5 has rows of -1 and -2 elements: the input-length
    check added the signed lengths (5) and accepted 5 elements; the rows read 6."""
    k = _compile(ADD + "program p(m: [i -> [float](3 - i)]N) = "
                 "join o mapGlb(0)(toGlobal(mapSeq(id)) o reduceSeq(add, 0.0f)) $ m")
    with pytest.raises(LiftCompileError, match=r"a row length must not be negative \(row i=4"):
        runtime.run(k, {"m": np.arange(1, 6, dtype=np.float32)}, sizes={"N": 5}, global_size=5)
    np.testing.assert_allclose(runtime.run(k, {"m": np.arange(1, 7, dtype=np.float32)},
                                           sizes={"N": 4}, global_size=4), [6, 9, 6, 0])


def test_row_offsets_of_a_triangle_are_computed_in_long():
    """Row ``i`` of a lower triangle starts at ``(i * i + i) / 2``: the product passes INT_MAX
    from row 46,341 on, while a triangle of 46,400 rows (1.08e9 elements) fits an int index
    (it crashed the process); with the number of rows known and small, int suffices."""
    src = LOWER.replace("[float]", "[char]") + "join o mapGlb(0)(mapSeq(id)) $ m"
    text = _compile(src).source
    assert "((long)gl_id) * ((long)gl_id)" in text, text
    small = compile_program(parse(src).program("p"), sizes={"N": 100}).source
    assert "long" not in small, small


def test_the_cli_reports_the_failing_row_at_its_pattern(tmp_path):
    f = tmp_path / "t.lift"
    f.write_text(LOWER + "join o mapGlb(0)(join o mapSeq(mapSeq(id)) o split(2)) $ m\n")
    np.save(tmp_path / "m.npy", np.arange(1, 11, dtype=np.float32))
    p = subprocess.run([sys.executable, "-m", "lift_backend", "run", str(f), "--arg",
                        f"m={tmp_path / 'm.npy'}", "--size", "N=4", "--global", "4",
                        "--out", str(tmp_path / "o.npy")], capture_output=True, text=True)
    assert p.returncode == 1, p.stderr
    assert f"{f}:1:" in p.stderr and "must be divisible by 2 (row gl_id=0" in p.stderr
    assert "^" in p.stderr and "Traceback" not in p.stderr
    assert not (tmp_path / "o.npy").exists()


BALANCED = ("userfun madd(acc: double, xy: (double, double)): double { return acc + xy._0 * xy._1; }\n"
            "program p(x: [double]N, y: [double]N) =\n"
            "  join o mapGlb(0)(\\row -> toGlobal(mapSeq(id)) o reduceSeq(madd, 0.0) $ row)\n"
            "  o partition(P, \\c -> (c + 1) * N / P - c * N / P) $ zip(x, y)\n")


@pytest.mark.opencl
@pytest.mark.parametrize("n,p", [(1000, 7), (5, 7), (1, 1), (3, 5), (2 ** 20 + 1, 64), (64, 64)])
def test_a_balanced_partition_covers_every_element_once(runtime, n, p):
    """Rows ``(c + 1) * N / P - c * N / P`` (chunks of a reduction for any ``N``): their lengths
    are shown not negative and their offsets ``c * N / P`` found by a telescoping sum, so the
    rows add up to ``N`` with no check left for the run; rows may be empty (``N < P``)."""
    k = _compile(BALANCED)
    x = np.arange(n, dtype=np.float64)
    y = np.linspace(-1, 1, n)
    out = runtime.run(k, {"x": x, "y": y}, sizes={"P": p}, global_size=p)
    bounds = [c * n // p for c in range(p + 1)]
    want = [float(np.dot(x[a:b], y[a:b])) for a, b in zip(bounds, bounds[1:])]
    np.testing.assert_allclose(out, want, rtol=1e-12, atol=1e-9)
