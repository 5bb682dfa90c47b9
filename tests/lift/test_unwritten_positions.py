"""Positions of a result that no element writes.  ``scatterIdx`` (indices that repeat or miss
positions), ``permuteIdx`` of fewer elements than positions, ``scatterLastIdx`` (positions no
element claims) and ``filterSeq`` (fewer kept elements than slots) leave some positions of their
destination unwritten; the runtime zeroes such a kernel's outputs before the launch, so those
positions are 0 -- not what an earlier kernel left in the memory (a hunt, session 33: garbage
such as ``1.1e27`` came back with exit status 0, different on every run).  A kernel that writes
every position pays for no fill."""
import numpy as np
import pytest

from lift_backend import compile_program, parse

SRC = """userfun f(a: float): float { return a * 2.0f; }
userfun pos(x: float): bool { return x > 0.0f; }
program scat(x: [float]N, ix: [int]N) = scatterIdx(ix, mapGlb(0)(toGlobal(f)) $ x)
program last(x: [float]N, ix: [int]N, win: [int]M) = scatterLastIdx(ix, win, mapGlb(0)(toGlobal(f)) $ x)
program keep(x: [float]N, s: [int]K) = toGlobal(filterSeq(pos, id))(x, s)
program plain(x: [float]N) = mapGlb(0)(toGlobal(f)) $ x
"""


def kernel(name):
    return compile_program(parse(SRC, "u.lift").program(name))


def dirty(runtime, n=1 << 16):
    """Leave non-zero values in freed device memory (PoCL reuses it for the next buffers)."""
    for _ in range(3):
        runtime.run(kernel("plain"), {"x": np.full(n, 3.25, np.float32)}, global_size=64)


def output_fill(k):
    return [p.fill for p in k.params if p.kind == "output"]


def test_fill_only_where_positions_may_stay_unwritten():
    assert output_fill(kernel("scat")) == [0]
    assert output_fill(kernel("last")) == [0]
    assert output_fill(kernel("keep")) == [0]
    assert output_fill(kernel("plain")) == [None]


@pytest.mark.opencl
@pytest.mark.parametrize("n", [8, 1 << 16])
def test_scatter_to_one_position_leaves_zeros(runtime, n):
    dirty(runtime)
    x = np.arange(1, n + 1, dtype=np.float32)
    out = runtime.run(kernel("scat"), {"x": x, "ix": np.zeros(n, np.int32)}, global_size=1)
    assert out[0] == 2 * n and not out[1:].any()


@pytest.mark.opencl
def test_scatter_missing_a_position_leaves_zero_there(runtime):
    dirty(runtime)
    x = np.array([1, 2, 3], np.float32)
    out = runtime.run(kernel("scat"), {"x": x, "ix": np.array([2, 0, 2], np.int32)}, global_size=1)
    assert out.tolist() == [4.0, 0.0, 6.0]


@pytest.mark.opencl
def test_scatter_last_unclaimed_positions_are_zero(runtime):
    dirty(runtime)
    x = np.array([1, 2, 3], np.float32)
    ix = np.array([1, 1, 3], np.int32)
    win = np.array([-1, 1, -1, 2, -1, -1], np.int32)
    out = runtime.run(kernel("last"), {"x": x, "ix": ix, "win": win}, global_size=4)
    assert out.tolist() == [0.0, 4.0, 0.0, 6.0, 0.0, 0.0]


@pytest.mark.opencl
def test_filter_with_more_slots_than_kept_leaves_zeros(runtime):
    dirty(runtime)
    rng = np.random.default_rng(3)
    x = rng.standard_normal(16).astype(np.float32)
    out = runtime.run(kernel("keep"), {"x": x, "s": np.zeros(40, np.int32)}, global_size=1)
    kept = x[x > 0]
    assert len(out) == 40
    np.testing.assert_array_equal(out[:len(kept)], kept)
    assert not out[len(kept):].any()
