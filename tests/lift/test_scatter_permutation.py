"""A scatter writes every output element exactly once (issue 11): a user index function that
is not a permutation is a located error before the launch, not outputs left unwritten."""
import numpy as np
import pytest

from lift_backend import LiftRuntimeError, compile_program, parse

X = np.arange(16, dtype=np.float32)


def run(runtime, body, **kw):
    k = compile_program(parse(f"program p(x: [float]N) = {body} $ x", "t.lift").program("p"))
    return runtime.run(k, {"x": X}, global_size=16, **kw)


@pytest.mark.opencl
@pytest.mark.parametrize("body, where, msg", [
    ("scatter(\\i -> i / 2) o mapGlb(0)(id)", (1, 26),
     "scatter: the index function is not a permutation of 0 .. 15 (with N=16): output 0 is written by 2 "
     "elements (0, 1) and 8 outputs are never written (the first: 8)"),
    ("join o mapWrg(0)(scatter(\\i -> i % 4) o toGlobal(mapLcl(0)(id))) o split(8)", (1, 43),
     "scatter: the index function is not a permutation of 0 .. 7 (with N=16): output 0 is written by 2 "
     "elements (0, 4) and 4 outputs are never written (the first: 4)"),
])
def test_non_permutations_are_refused(runtime, body, where, msg):
    with pytest.raises(LiftRuntimeError) as ei:
        run(runtime, body, local_size=8)
    e = ei.value
    assert (e.span.line, e.span.col) == where and e.message == msg


@pytest.mark.opencl
def test_permutations_run(runtime):
    np.testing.assert_array_equal(run(runtime, "scatter(\\i -> (i + 3) % N) o mapGlb(0)(id)"), np.roll(X, 3))
    np.testing.assert_array_equal(run(runtime, "scatter(reverse) o mapGlb(0)(id)"), X[::-1])
