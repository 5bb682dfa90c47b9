"""Private memory of a work-item is bounded (issue 11): a private array of 1M floats per
work-item crashed PoCL (SIGSEGV); beyond LIFT_MAX_PRIVATE_BYTES (64 KB) it is a located
compile error at the pattern that allocates it."""
import numpy as np
import pytest

from lift_backend import LiftCompileError, compile_program, parse
from lift_backend.limits import MAX_PRIVATE_BYTES

SRC = """userfun add(a: float, b: float): float { return a + b; }
program p(x: [float]N) = join o mapGlb(0)(toGlobal(mapSeq(id)) o reduceSeq(add, 0.0f) o toPrivate(mapSeq(id))) o split(K) $ x
"""


def kernel(n, k):
    return compile_program(parse(SRC, "t.lift").program("p"), {"N": n, "K": k})


def test_limit_is_64_kb():
    assert MAX_PRIVATE_BYTES == 65536


def test_huge_private_array_is_a_located_error():
    with pytest.raises(LiftCompileError) as ei:
        kernel(2 ** 21, 2 ** 20)
    e = ei.value
    assert (e.span.line, e.span.col) == (2, 89)
    assert e.message.startswith("mapSeq: the private memory of a work-item would be 4194304 bytes "
                                "(this array: 4194304 bytes), more than 65536 (LIFT_MAX_PRIVATE_BYTES")


def test_just_over_the_limit_is_refused():
    with pytest.raises(LiftCompileError):
        kernel(2 * 16388, 16388)    # 65552 bytes


@pytest.mark.opencl
def test_at_the_limit_runs(runtime):
    x = np.ones(2 ** 15, dtype=np.float32)
    out = runtime.run(kernel(2 ** 15, 2 ** 14), {"x": x}, global_size=2)
    np.testing.assert_array_equal(out, [2 ** 14, 2 ** 14])


def test_element_bytes_are_the_devices_layout_without_numpy():
    """The private-memory limit counts bytes with ``elem_bytes`` (no numpy in the compiler):
    the same size as the runtime's numpy dtype of each element type, scalars, vectors (stored
    as their scalars), tuples with OpenCL's struct padding and 3-vectors taking a 4-vector's room."""
    from lift_backend import arith as A
    from lift_backend.types import ArrayType, ScalarType, TupleType, VectorType, numpy_dtype
    from lift_backend.types.types import elem_bytes
    s = {n: ScalarType(n) for n in ("float", "double", "int", "uint", "long", "bool", "char")}
    types = list(s.values()) + [
        VectorType(s["float"], 4), VectorType(s["double"], 3),
        TupleType((s["char"], s["double"])), TupleType((s["float"], s["bool"], s["int"])),
        TupleType((VectorType(s["float"], 2), s["float"])), TupleType((VectorType(s["float"], 3), s["char"])),
        TupleType((s["char"], TupleType((s["int"], s["char"])), s["long"])),
        ArrayType(TupleType((s["int"], s["double"])), A.cst(7))]
    for t in types:
        assert elem_bytes(t) == numpy_dtype(t).itemsize, t
