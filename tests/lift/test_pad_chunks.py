"""``pad(0, 1, 0)`` under balanced chunks of the padded array (the segment descriptors' scan,
lower/lift_sd.py): the exclusive scan of the padded lengths is the ``N + 1`` offsets, the total
last; the pad's bound at a chunk's start ``c * (N + 1) / P`` is compared in ``long`` where the
product can pass ``INT_MAX`` (as the index expression itself is computed)."""
import numpy as np
import pytest

from lift_backend import compile_program, parse

SRC = r"""
userfun add(a: int, b: int): int { return a + b; }
program offs(x: [int]N) = join o mapGlb(0)(toGlobal(scanSeq(add, 0)))
  o partition(P, \c -> (c + 1) * (N + 1) / P - c * (N + 1) / P) o pad(0, 1, 0) $ x
program one(x: [int]N) = toGlobal(scanSeq(add, 0)) o pad(0, 1, 0) $ x
"""


def test_the_bound_is_compared_in_long():
    k = compile_program(parse(SRC).program("offs"))
    # the pad's guard: the chunk's start in long, against N in long
    assert "/ ((long)P) < ((long)N) ?" in k.source
    # one row: nothing can overflow, int arithmetic
    k1 = compile_program(parse(SRC).program("one"))
    assert "(i < N ? x[i] : 0)" in k1.source


@pytest.mark.opencl
@pytest.mark.parametrize("n", [1, 5, 63, 64, 1000, 2 ** 20 + 1])
def test_offsets_of_padded_chunks(runtime, n):
    x = (np.arange(n) % 7).astype(np.int32)
    want = np.concatenate(([0], np.cumsum(x))).astype(np.int32)
    P = max(1, min(8, n // 2))
    # the chunks of N + 1 elements: the last chunk's last element is the total
    k = compile_program(parse(SRC).program("offs"), sizes={"P": P})
    out = runtime.run(k, {"x": x}, global_size=P)
    xp, m = np.append(x, 0), n + 1
    rows = [xp[c * m // P:(c + 1) * m // P] for c in range(P)]
    np.testing.assert_array_equal(out, np.concatenate([np.concatenate(([0], np.cumsum(r)[:-1])) for r in rows]))
    out = runtime.run(compile_program(parse(SRC).program("one")), {"x": x}, global_size=1)
    np.testing.assert_array_equal(out, want)
