"""User index functions of gather and scatter are evaluated as the range analysis assumes,
with exact integers (issue 11): where an intermediate value may exceed ``int`` (sizes at most
2^31 - 1), the generated C computes the function in ``long``; where even 64 bits cannot be
shown to suffice, a located compile error.  Before, ``(i * 1000000007) % N`` wrapped in
``int``: out-of-bounds reads (gather) and heap corruption (scatter)."""
import numpy as np
import pytest

from lift_backend import LiftCompileError, LiftRuntimeError, compile_program, parse

X = np.arange(16, dtype=np.float32)
EXPECTED = X[(np.arange(16, dtype=np.int64) * 1000000007) % 16]


def kernel(body, sizes=None, **kw):
    return compile_program(parse(f"program p(x: [float]N) = {body} $ x", "t.lift").program("p"), sizes, **kw)


GATHER = "mapGlb(0)(id) o gather(\\i -> (i * 1000000007) % N)"
SCATTER = "scatter(\\i -> (i * 1000000007) % N) o mapGlb(0)(id)"


@pytest.mark.parametrize("sizes", [None, {"N": 16}])
@pytest.mark.parametrize("body", [GATHER, SCATTER])
def test_wide_index_functions_are_computed_in_long(body, sizes):
    src = kernel(body, sizes, global_size=(16,)).source
    assert "1000000007L * ((long)(gl_id))" in src and "(int)(" in src


@pytest.mark.parametrize("fn", ["(i * 17 + 3) % N", "(i % 4) * 4 + i / 4", "N - 1 - i"])
def test_int_index_functions_stay_int(fn):
    # bounded by int (or by the length) with every size at most 2^31 - 1: no long
    src = kernel(f"mapGlb(0)(id) o gather(\\i -> {fn})", {"N": 16}, global_size=(16,)).source
    assert "long" not in src


@pytest.mark.parametrize("name", ["transposeGather", "transposeScatter"])
def test_transpose_index_function_symbolic_stays_int(name):
    # (i % N) * M is at most N * M - 1, an array length: int
    from .lift_helpers import load
    assert "long" not in compile_program(load("transpose.lift", name)).source


def test_int_for_small_fixed_sizes_long_for_large():
    fn = "mapGlb(0)(id) o gather(\\i -> (i * 17 + 3) % N)"
    assert "long" not in kernel(fn, {"N": 2 ** 20}).source
    assert "long" in kernel(fn, {"N": 2 ** 27}).source     # 17 * (2^27 - 1) > 2^31 - 1
    assert "long" in kernel(fn).source                      # N up to 2^31 - 1


@pytest.mark.parametrize("sizes, where", [(None, (1, 42)), ({"N": 2 ** 20}, (1, 42))])
def test_beyond_64_bits_is_a_located_error(sizes, where):
    with pytest.raises(LiftCompileError) as ei:
        kernel("mapGlb(0)(id) o gather(\\i -> (i * i * i * i) % N)", sizes)
    e = ei.value
    assert (e.span.line, e.span.col) == where
    assert "gather: the index function cannot be evaluated exactly in the kernel" in e.message
    assert "64-bit" in e.message


def test_small_fixed_sizes_beyond_int_fit_long():
    # i^4 < 16^4: int; with N = 2^10, i^4 < 2^40: long
    assert "long" not in kernel("mapGlb(0)(id) o gather(\\i -> (i * i * i * i) % N)", {"N": 16}).source
    assert "long" in kernel("mapGlb(0)(id) o gather(\\i -> (i * i * i * i) % N)", {"N": 1024}).source


@pytest.mark.opencl
@pytest.mark.parametrize("sizes", [None, {"N": 16}])
def test_gather_overflow_runs(runtime, sizes):
    np.testing.assert_array_equal(runtime.run(kernel(GATHER, sizes), {"x": X}, global_size=16), EXPECTED)


@pytest.mark.opencl
@pytest.mark.parametrize("sizes", [None, {"N": 16}])
def test_scatter_overflow_runs(runtime, sizes):
    out = runtime.run(kernel(SCATTER, sizes), {"x": X}, global_size=16)
    expected = np.empty_like(X)
    expected[(np.arange(16, dtype=np.int64) * 1000000007) % 16] = X
    np.testing.assert_array_equal(out, expected)


@pytest.mark.opencl
def test_scatter_permutation_check_sees_the_kernels_values(runtime):
    # exact: (i * 1000000000) % 16 is 0 for every i, not a permutation (int would wrap differently)
    with pytest.raises(LiftRuntimeError) as ei:
        runtime.run(kernel("scatter(\\i -> (i * 1000000000) % N) o mapGlb(0)(id)"), {"x": X}, global_size=16)
    assert "not a permutation" in ei.value.message


@pytest.mark.opencl
@pytest.mark.parametrize("sizes", [None, {"N": 16}])
def test_wide_index_out_of_range_is_checked(runtime, sizes):
    # (6 * 1000000007) % 17 == 16: out of range of 16 elements, checked in long
    with pytest.raises(LiftRuntimeError) as ei:
        runtime.run(kernel("mapGlb(0)(id) o gather(\\i -> (i * 1000000007) % 17)", sizes), {"x": X}, global_size=16)
    assert ei.value.message.startswith("index out of bounds in gather (index 16, length 16)")
