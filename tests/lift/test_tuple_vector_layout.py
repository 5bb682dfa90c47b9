"""Tuples with vector components in global memory: the host lays them out as the device does
(OpenCL C: a vector is aligned to its size, a 3-vector takes a 4-vector's room).  A hunt found
the host sizing and reading them packed -- ``(float2, float)`` as 12 bytes where the device
writes 16 -- giving scrambled output, reads past an input buffer, and heap corruption where a
temporary between two kernels was allocated too small."""
import numpy as np
import pytest

from lift_backend import compile_program, parse
from lift_backend.types import ScalarType, TupleType, VectorType
from lift_backend.types.types import numpy_dtype

F, D, I, C = (ScalarType(n) for n in ("float", "double", "int", "char"))


@pytest.mark.parametrize("t,size,offsets", [
    (TupleType((VectorType(F, 2), F)), 16, [0, 8]),
    (TupleType((VectorType(F, 3), F)), 32, [0, 16]),
    (TupleType((F, VectorType(F, 4))), 32, [0, 16]),
    (TupleType((VectorType(D, 3), F)), 64, [0, 32]),
    (TupleType((VectorType(I, 3), C)), 32, [0, 16]),
    (TupleType((C, D)), 16, [0, 8]),
    (TupleType((F, TupleType((C, VectorType(F, 2))))), 24, [0, 8]),
    (TupleType((F, I)), 8, [0, 4]),
])
def test_struct_layout_is_opencls(t, size, offsets):
    d = numpy_dtype(t)
    assert d.itemsize == size
    assert [d.fields[n][1] for n in d.names] == offsets


def _run(runtime, src, x, global_size):
    k = compile_program(parse(src, "t.lift").program("p"))
    return runtime.run(k, {"x": x}, global_size=global_size)


@pytest.mark.opencl
@pytest.mark.parametrize("w", [2, 3, 4])
def test_a_tuple_with_a_vector_as_the_output(runtime, w):
    src = (f"userfun f(v: float{w}, s: float): (float{w}, float) {{ Tuple_float{w}_float r = {{v, s}}; return r; }}\n"
           f"program p(x: [float]({w} * M), y: [float]M) = "
           f"mapGlb(0)(\\t -> f(t._0, t._1)) $ zip(asVector({w}) $ x, y)\n")
    m = 9
    x = np.arange(w * m, dtype=np.float32)
    y = np.arange(m, dtype=np.float32) * 10
    k = compile_program(parse(src, "t.lift").program("p"))
    out = runtime.run(k, {"x": x, "y": y}, global_size=4)
    np.testing.assert_array_equal(out["_0"], x.reshape(m, w))
    np.testing.assert_array_equal(out["_1"], y)


@pytest.mark.opencl
def test_a_tuple_with_a_vector_as_the_input(runtime):
    src = ("userfun f(t: (float2, float)): float { return t._0.x + t._0.y + t._1; }\n"
           "program p(x: [(float2, float)]N) = mapGlb(0)(f) $ x\n")
    packed = np.zeros(8, dtype=[("_0", "<f4", (2,)), ("_1", "<f4")])   # as a user writes it
    packed["_0"] = np.arange(16, dtype=np.float32).reshape(8, 2)
    packed["_1"] = np.arange(8) * 10
    out = _run(runtime, src, packed, 4)
    np.testing.assert_array_equal(out, packed["_0"].sum(axis=1) + packed["_1"])


@pytest.mark.opencl
@pytest.mark.parametrize("between", ["", "gather(reverse) o "])
def test_a_temporary_tuple_with_a_vector_between_two_maps(runtime, between):
    src = ("userfun f(a: float): (float4, float) { Tuple_float4_float r = {(float4)(a), a * 3.0f}; return r; }\n"
           "userfun g(t: (float4, float)): float { return t._0.x + t._0.w + t._1; }\n"
           f"program p(x: [float]N) = mapGlb(0)(g) o {between}mapGlb(0)(f) $ x\n")
    x = np.arange(1024, dtype=np.float32)
    out = _run(runtime, src, x, 64)
    np.testing.assert_array_equal(out, (5 * x)[::-1] if between else 5 * x)
