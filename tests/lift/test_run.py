"""The papers' programs, compiled and run on the default OpenCL device (PoCL) against numpy."""
import numpy as np
import pytest

from lift_backend.opencl import compile_program
from .lift_helpers import load

pytestmark = pytest.mark.opencl
rng = np.random.default_rng(1234)


def run(runtime, file, name, args, global_size, local_size=None, sizes=None, compile_launch=True):
    k = compile_program(load(file, name), sizes=sizes,
                        global_size=global_size if compile_launch else None,
                        local_size=local_size if compile_launch else None)
    return k, runtime.run(k, args, sizes=sizes, global_size=global_size, local_size=local_size)


@pytest.mark.parametrize("groups,launch_known", [(16, True), (4, False)])
def test_partial_dot(runtime, groups, launch_known):
    n = 128 * 32
    x = rng.random(n, dtype=np.float32)
    y = rng.random(n, dtype=np.float32)
    # fewer groups than chunks when launch_known is False: the mapWrg loop iterates
    k, out = run(runtime, "dot.lift", "partialDot", {"x": x, "y": y}, 64 * groups, 64,
                 compile_launch=launch_known)
    np.testing.assert_allclose(out, (x * y).reshape(-1, 128).sum(1), rtol=1e-5)


@pytest.mark.parametrize("name", ["transposeGather", "transposeScatter", "transposeIndexFun", "transposeView"])
def test_transpose(runtime, name):
    n, m = 24, 40
    x = rng.random((n, m), dtype=np.float32)
    out_rows = n if name == "transposeScatter" else m
    k, out = run(runtime, "transpose.lift", name, {"x": x}, (8 * 4,), (4,), compile_launch=False)
    np.testing.assert_array_equal(out.reshape(m, n), x.T)


def _asum(runtime, name, n, global_size, local_size):
    x = (rng.random(n, dtype=np.float32) - 0.5)
    # with N known at compile time the mapWrg runs exactly once per group
    k, partial = run(runtime, "asum.lift", name, {"x": x}, global_size, local_size, sizes={"N": n})
    k2, total = run(runtime, "asum.lift", "sumPartials", {"x": partial.reshape(-1)}, 1, 1)
    np.testing.assert_allclose(total.reshape(-1)[0], np.abs(x).astype(np.float64).sum(), rtol=1e-4)
    return k


def test_asum_nvidia(runtime):
    k = _asum(runtime, "asumNvidia", 262144 * 2, 128 * 2, 128)
    assert k.barriers == 2   # the mapWrg runs once per group: no barrier at the end


def test_asum_amd(runtime):
    k = _asum(runtime, "asumAmd", 2048 * 8, 256 * 8, 256)
    assert k.barriers == 2


def test_asum_intel(runtime):
    k = _asum(runtime, "asumIntel", 32768 * 4, 4, 1)
    assert k.barriers == 0


STENCIL_REFS = {
    "stencil3": lambda a: np.pad(a, 1, mode="edge"),
    "stencil3Zero": lambda a: np.pad(a, 1, mode="constant"),
    "stencil5Wrap": lambda a: np.pad(a, 2, mode="wrap"),
    "stencil3Mirror": lambda a: np.pad(a, 1, mode="symmetric"),
}


@pytest.mark.parametrize("name", sorted(STENCIL_REFS))
def test_stencil(runtime, name):
    a = rng.random(1000, dtype=np.float32)
    k, out = run(runtime, "stencil.lift", name, {"a": a}, 256, 64)
    padded = STENCIL_REFS[name](a)
    w = 5 if "5" in name else 3
    ref = np.lib.stride_tricks.sliding_window_view(padded, w).sum(1)
    np.testing.assert_allclose(out.reshape(-1), ref, rtol=1e-5)


def test_mv(runtime):
    m = rng.random((100, 37), dtype=np.float32)
    v = rng.random(37, dtype=np.float32)
    k, out = run(runtime, "matvec.lift", "mv", {"m": m, "v": v}, 64, 16)
    np.testing.assert_allclose(out, m @ v, rtol=1e-5)


def test_mv_wrg(runtime):
    m = rng.random((20, 32 * 3), dtype=np.float32)
    v = rng.random(32 * 3, dtype=np.float32)
    k, out = run(runtime, "matvec.lift", "mvWrg", {"m": m, "v": v}, 32 * 8, 32)
    np.testing.assert_allclose(out, m @ v, rtol=1e-5)


def _tri(n):
    full = np.tril(rng.random((n, n), dtype=np.float32))
    flat = np.concatenate([full[i, :i + 1] for i in range(n)])
    return full, flat


@pytest.mark.parametrize("name", ["trmv", "trmvPartition"])
def test_trmv(runtime, name):
    n = 57
    full, flat = _tri(n)
    v = rng.random(n, dtype=np.float32)
    k, out = run(runtime, "matvec.lift", name, {"m": flat, "v": v}, 32, 8, sizes={"N": n}, compile_launch=False)
    np.testing.assert_allclose(out, full @ v, rtol=1e-5)
    # closed-form row offsets: two loops (rows, row elements), none to compute offsets
    assert k.source.count("for (") == 2
    assert "m[gl_id + i + (gl_id * gl_id - gl_id) / 2]" in k.source


def _csr(rows, cols_n, density=0.3):
    dense = rng.random((rows, cols_n), dtype=np.float32) * (rng.random((rows, cols_n)) < density)
    dense[3] = 0  # an empty row
    offs = np.zeros(rows + 1, np.int32)
    vals, cols = [], []
    for i in range(rows):
        nz = np.nonzero(dense[i])[0]
        cols.extend(nz)
        vals.extend(dense[i, nz])
        offs[i + 1] = len(vals)
    return dense, np.array(vals, np.float32), np.array(cols, np.int32), offs


def test_seg_sum(runtime):
    dense, vals, cols, offs = _csr(50, 20)
    k, out = run(runtime, "csr.lift", "segSum", {"vals": vals, "offs": offs}, 16, 4)
    np.testing.assert_allclose(out, dense.sum(1), rtol=1e-5, atol=1e-6)


def test_spmv(runtime):
    dense, vals, cols, offs = _csr(64, 33)
    x = rng.random(33, dtype=np.float32)
    k, out = run(runtime, "csr.lift", "spmv", {"vals": vals, "cols": cols, "offs": offs, "x": x}, 32, 8)
    np.testing.assert_allclose(out, dense @ x, rtol=1e-5, atol=1e-6)


def test_two_iterates(runtime):
    x = rng.random(16 * 10, dtype=np.float32)
    k, out = run(runtime, "dot.lift", "twoIterates", {"x": x}, 16 * 3, 16, compile_launch=False)
    np.testing.assert_allclose(out, x.reshape(-1, 16).sum(1), rtol=1e-5)
    assert "local float* src2 = src1;" in k.source


def test_bool_results_are_numpy_bools(runtime):
    # bools are uchar on the device; a [bool] result comes back as a numpy bool array (a hunt
    # found uint8), any non-zero byte true
    from lift_backend import parse
    lf = parse("userfun notb(a: bool): bool { return !a; }\n"
               "userfun two(a: bool): bool { return a ? 2 : 0; }\n"
               "program boolNot(a: [bool]N) = mapGlb(0)(notb) $ a\n"
               "program boolTwo(a: [bool]N) = mapGlb(0)(two) $ a\n")
    a = rng.integers(0, 2, 37).astype(np.bool_)
    out = runtime.run(compile_program(lf.program("boolNot")), {"a": a}, global_size=8)
    assert out.dtype == np.bool_ and np.array_equal(out, ~a)
    out = runtime.run(compile_program(lf.program("boolTwo")), {"a": a}, global_size=8)
    assert out.dtype == np.bool_ and np.array_equal(out, a)
