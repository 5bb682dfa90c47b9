"""Defects found by a hunt of hostile and paper-style Lift programs (issue 11): names the C
cannot keep (``while``, size variables that are keywords, macros or user-function names,
``len`` in a parameter's type), ``pow`` beyond natural-number arithmetic (negative or huge:
a located error, never an internal error or a hang), float literals C does not read (``5f``)
or wrongly refused (``3.4028235e38f`` is FLT_MAX), and a vector view of a scalar view of a
vector view (``asVector(4) o asScalar o asVector(4)``)."""
import numpy as np
import pytest

from lift_backend import LiftError, compile_program, parse
from lift_backend.cli import main


def compile_text(text, name="p"):
    return compile_program(parse(text, "t.lift").program(name))


@pytest.mark.parametrize("text,what", [
    ("program p(while: [float]N) = mapGlb(0)(id) $ while", "while is a reserved name"),
    ("userfun f(a: float): float { return a + 1.0f; }\nprogram p(x: [float]f) = mapGlb(0)(f) $ x",
     "size f (in the type of x) has the name of a user function"),
    ("program p(x: [float]int) = mapGlb(0)(id) $ x", "size int (in the type of x): an OpenCL C keyword"),
    ("program p(x: [float]INT_MAX) = mapGlb(0)(id) $ x", "size INT_MAX (in the type of x): a macro"),
    ("program p(x: [float]M_PI) = mapGlb(0)(id) $ x", "a macro of OpenCL C"),
    ("program p(x: [float]x) = mapGlb(0)(id) $ x", "parameter x has the name of a size variable"),
    ("program p(x: [float](len(q))) = mapGlb(0)(id) $ x", "its type uses len(q)"),
    ("program p(x: [float]N) = join o mapGlb(0)(mapSeq(id)) o split(pow(2, 0 - 1)) $ x",
     "t.lift:1:63: error: pow: negative exponent"),
    ("program p(x: [float](pow(2, 100000000))) = mapGlb(0)(id) $ x", "is too large"),
    ("program p(x: [float]N) = join o mapGlb(0)(mapSeq(id)) o split(pow(2, pow(2, 40))) $ x", "is too large"),
    ("program p(x: [float](pow(2, N + 100000))) = mapGlb(0)(id) $ x", "is too large"),
])
def test_located_errors(text, what):
    with pytest.raises(LiftError) as ei:
        compile_text(text)
    assert what in str(ei.value), str(ei.value)


@pytest.mark.opencl
def test_float_literals(runtime):
    x = np.arange(16, dtype=np.float32)
    src = "userfun add(a: float, b: float): float { return a + b; }\n"
    for lit, want in (("5f", 5.0), ("-5F", -5.0), ("007f", 7.0), ("3.4028235e38f", np.float32(3.4028235e38))):
        k = compile_text(src + f"program p(x: [float]N) = mapGlb(0)(\\a -> add(a, {lit})) $ x")
        np.testing.assert_array_equal(runtime.run(k, {"x": x}, global_size=4), x + np.float32(want))
    with pytest.raises(LiftError, match="it would be infinite"):
        compile_text(src + "program p(x: [float]N) = mapGlb(0)(\\a -> add(a, 3.5e38f)) $ x")


@pytest.mark.opencl
def test_flt_max_arguments(tmp_path, capsys):
    f = tmp_path / "s.lift"
    f.write_text("userfun add(a: float, b: float): float { return a + b; }\n"
                 "program p(x: [float]N, s: float) = mapGlb(0)(\\a -> add(a, s)) $ x\n")
    x = tmp_path / "x.npy"
    np.save(x, np.full(4, 3.4028235e38))        # float64 values that round to FLT_MAX
    out = tmp_path / "o.npy"
    assert main(["run", str(f), "--arg", f"x={x}", "--arg", "s=0", "--global", "4", "--out", str(out)]) == 0
    np.testing.assert_array_equal(np.load(out), np.full(4, np.finfo(np.float32).max))
    assert main(["run", str(f), "--arg", f"x={x}", "--arg", "s=3.4028235e38", "--global", "4",
                 "--out", str(out)]) == 0
    np.save(x, np.full(4, 3.5e38))
    assert main(["run", str(f), "--arg", f"x={x}", "--arg", "s=0", "--global", "4", "--out", str(out)]) == 1
    assert "would become infinite" in capsys.readouterr().err


@pytest.mark.opencl
@pytest.mark.parametrize("m,n", [(4, 4), (8, 4), (4, 2), (16, 4), (8, 2), (4, 8), (2, 4)])
def test_vector_views_of_scalar_views_of_vector_views(runtime, m, n):
    src = (f"program p(x: [float]N) = asScalar o mapGlb(0)(mapVec(id)) o asVector({m}) o asScalar "
           f"o asVector({n}) $ x")
    x = np.arange(64, dtype=np.float32)
    np.testing.assert_array_equal(runtime.run(compile_text(src), {"x": x}, global_size=4), x)


@pytest.mark.opencl
def test_two_vectorised_stages(runtime):
    src = ("userfun dbl(a: float): float { return a * 2.0f; }\n"
           "program p(x: [float]N) = asScalar o mapGlb(0)(mapVec(dbl)) o asVector(8) o asScalar "
           "o mapGlb(0)(mapVec(dbl)) o asVector(4) $ x")
    x = np.arange(64, dtype=np.float32)
    np.testing.assert_array_equal(runtime.run(compile_text(src), {"x": x}, global_size=4), 4 * x)
