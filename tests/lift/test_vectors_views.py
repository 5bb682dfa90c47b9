"""asVector over views (issue 11): a vector is read or written with vloadN/vstoreN only where
its elements are provably contiguous with unit stride in one memory; through any other view
(gather(reverse), reorderStride, join o transpose, pad, a reversed local buffer, a scatter) it
is built from (stored to) its components."""
import numpy as np
import pytest

from lift_backend import compile_program, parse

X = np.arange(16, dtype=np.float32)
M = np.arange(16, dtype=np.float32).reshape(4, 4)
VEC = "asScalar o mapGlb(0)(mapVec(id)) o asVector(4)"

CASES = {
    "rev": (f"program p(x: [float]N) = {VEC} o gather(reverse) $ x", X, X[::-1]),
    "stride": (f"program p(x: [float]N) = {VEC} o gather(reorderStride(4)) $ x", X, M.T.reshape(-1)),
    "transpose": (f"program p(x: [[float]M]N) = {VEC} o join o transpose $ x", M, M.T.reshape(-1)),
    "pad": (f"program p(x: [float]N) = {VEC} o pad(2, 2, clamp) $ x", X, np.pad(X, 2, mode="edge")),
    "scatter": (f"program p(x: [float]N) = scatter(reverse) o {VEC} $ x", X, X[::-1]),
    "local": ("program p(x: [float]N) = join o mapWrg(0)(asScalar o toGlobal(mapLcl(0)(mapVec(id))) o "
              "asVector(4) o gather(reverse) o toLocal(mapLcl(0)(id))) o split(8) $ x",
              X, X.reshape(2, 8)[:, ::-1].reshape(-1)),
}


@pytest.mark.opencl
@pytest.mark.parametrize("case", sorted(CASES))
def test_vectors_through_non_contiguous_views(runtime, case):
    text, x, expect = CASES[case]
    k = compile_program(parse(text).program("p"))
    out = runtime.run(k, {"x": x}, global_size=2, local_size=2 if case == "local" else None)
    np.testing.assert_array_equal(out.reshape(-1), expect)


def test_no_vload_from_a_reversed_view():
    src = compile_program(parse(CASES["rev"][0]).program("p")).source
    assert "vload4" not in src
    assert "(float4)(x[N - 4 * gl_id - 1], x[N - 4 * gl_id - 2], x[N - 4 * gl_id - 3], x[N - 4 * gl_id - 4])" in src


def test_scatter_stores_components():
    src = compile_program(parse(CASES["scatter"][0]).program("p")).source
    assert "vload4(gl_id, x)" in src and "vstore4" not in src
    assert "out[N - 4 * gl_id - 4] = vec.s3;" in src


def test_contiguous_views_keep_vload():
    src = compile_program(parse(f"program p(x: [float]N) = {VEC} o join o split(8) $ x").program("p")).source
    assert "vload4(gl_id, x)" in src and "vstore4(" in src
