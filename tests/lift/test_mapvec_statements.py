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
