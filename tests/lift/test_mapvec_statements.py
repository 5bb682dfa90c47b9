"""mapVec of a user function whose body has statements (issue 11): the body kept its scalar
locals (``float t = a * a;`` with a ``float4`` a), a failed OpenCL build; such a function is
now applied to each component.  A single ``return`` keeps the vector body (OpenCL's
operators and built-ins work on vectors)."""
import numpy as np
import pytest

from lift_backend import compile_program, parse

SRC = """userfun f(a: float): float { float t = a * a; return t + 1.0f; }
userfun g(a: float, b: float): float { if (a > b) { return a; } return b - a; }
userfun h(a: float): float { return a * 2.0f; }
program pf(x: [float]N) = asScalar o mapGlb(0)(mapVec(f)) o asVector(4) $ x
program pg(x: [float]N) = asScalar o mapGlb(0)(\\v -> mapVec(g)(v, v)) o asVector(4) $ x
program ph(x: [float]N) = asScalar o mapGlb(0)(mapVec(h)) o asVector(4) $ x
"""
X = np.arange(8, dtype=np.float32) - 3


def kernel(name):
    return compile_program(parse(SRC, "t.lift").program(name), {"N": 8})


def test_statements_are_applied_per_component():
    src = kernel("pf").source
    assert "return (float4)(f(a.s0), f(a.s1), f(a.s2), f(a.s3));" in src
    assert "float f(float a)" in src


def test_single_return_keeps_the_vector_body():
    assert "float4 h_float4(float4 a) {\n  return a * 2.0f;\n}" in kernel("ph").source


@pytest.mark.opencl
def test_statements_run(runtime):
    np.testing.assert_array_equal(runtime.run(kernel("pf"), {"x": X}, global_size=2), X * X + 1)
    np.testing.assert_array_equal(runtime.run(kernel("pg"), {"x": X}, global_size=2), np.zeros(8, np.float32))
    np.testing.assert_array_equal(runtime.run(kernel("ph"), {"x": X}, global_size=2), X * 2)


#: single returns whose operators mean something else on vectors (a vector comparison or ``!``
#: is -1 where true, a vector ``?:`` selects on the sign bit) or do not build on vectors (a
#: cast, a char operand, an int vector times a scalar float): applied per component
PER_COMPONENT = """userfun gt(a: int, b: int): int { return a > b; }
userfun sel(a: int): int { return a ? 10 : 20; }
userfun nt(a: int): int { return !a; }
userfun odd(a: int): int { return (a & 1) ? a : -a; }
userfun cst(a: float): int { return (int)a; }
userfun chr2(a: char): char { return a * 2; }
userfun halved(a: int): int { return a * 0.5f; }
userfun poly(a: float, b: float): float { return fma(a, b, 1.5f) * (a - b) / 2; }
program pgt(x: [int]N, y: [int]N) = asScalar o mapGlb(0)(\\t -> mapVec(gt)(t._0, t._1)) $ zip(asVector(4) $ x, asVector(4) $ y)
program psel(x: [int]N) = asScalar o mapGlb(0)(mapVec(sel)) o asVector(4) $ x
program pnt(x: [int]N) = asScalar o mapGlb(0)(mapVec(nt)) o asVector(4) $ x
program podd(x: [int]N) = asScalar o mapGlb(0)(mapVec(odd)) o asVector(4) $ x
program pcst(x: [float]N) = asScalar o mapGlb(0)(mapVec(cst)) o asVector(4) $ x
program pchr(x: [char]N) = asScalar o mapGlb(0)(mapVec(chr2)) o asVector(4) $ x
program phalf(x: [int]N) = asScalar o mapGlb(0)(mapVec(halved)) o asVector(4) $ x
program ppoly(x: [float]N, y: [float]N) = asScalar o mapGlb(0)(\\t -> mapVec(poly)(t._0, t._1)) $ zip(asVector(4) $ x, asVector(4) $ y)
"""


def per_component(name):
    return compile_program(parse(PER_COMPONENT, "v.lift").program(name), {"N": 8})


@pytest.mark.parametrize("prog,uf", [("pgt", "gt"), ("psel", "sel"), ("pnt", "nt"), ("podd", "odd"),
                                     ("pcst", "cst"), ("pchr", "chr2"), ("phalf", "halved")])
def test_operators_that_differ_on_vectors_are_applied_per_component(prog, uf):
    src = per_component(prog).source
    assert f"{uf}(a.s0" in src, src


def test_arithmetic_and_vector_built_ins_keep_the_vector_body():
    src = per_component("ppoly").source
    assert "float4 poly_float4(float4 a, float4 b) {\n  return fma(a, b, 1.5f) * (a - b) / 2;\n}" in src


@pytest.mark.opencl
def test_per_component_results_equal_the_scalar_function(runtime):
    x = np.array([-3, -1, 0, 1, 2, 5, 7, -8], np.int32)
    y = np.array([0, 0, 1, 0, 3, 4, 6, 9], np.int32)
    run = lambda p, **a: runtime.run(per_component(p), a, global_size=2)  # noqa: E731
    np.testing.assert_array_equal(run("pgt", x=x, y=y), (x > y).astype(np.int32))
    np.testing.assert_array_equal(run("psel", x=x), np.where(x != 0, 10, 20))
    np.testing.assert_array_equal(run("pnt", x=x), (x == 0).astype(np.int32))
    np.testing.assert_array_equal(run("podd", x=x), np.where(x & 1, x, -x))
    f = np.array([-2.5, -0.5, 0.5, 1.5, 2.7, 3.9, -7.1, 8.0], np.float32)
    np.testing.assert_array_equal(run("pcst", x=f), np.trunc(f).astype(np.int32))
    np.testing.assert_array_equal(run("phalf", x=x), np.trunc(x * 0.5).astype(np.int32))
    g = np.linspace(-2, 2, 8).astype(np.float32)
    np.testing.assert_allclose(run("ppoly", x=f, y=g), (f * g + 1.5) * (f - g) / 2, rtol=1e-6)
