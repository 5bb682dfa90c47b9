"""A private value bound by a lambda (or passed to a call) inside a ``mapSeq`` is one variable of
the work-item, used in the iteration that computes it: memory allocation does not replicate it
over the ``mapSeq`` (only what a pattern writes as its result is an array over the loop), so it
needs no compile-time length -- inside a row of ``splitOffsets`` too, whose length is known only
at run time.  The results, and the checks of the ``arrayAccess`` read into it, equal numpy's."""
import re

import numpy as np
import pytest

from lift_backend import LiftError, compile_program, parse

UF = r"""
userfun rd(x: int): int { return x; }
userfun f(a: int, b: int, c: int): int { return a * 10 + b - c; }
"""

SPLIT = UF + r"""
program p(x: [int]N, y: [int]L) = join o mapGlb(0)(\row -> toGlobal(mapSeq(\v -> (\a -> f(a, a, v))(toPrivate(rd)(arrayAccess(y, v))))) $ row) o split(4) $ x
"""

ROWS = UF + r"""
program q(x: [int]N, y: [int]L, offs: [int]M) = join o mapGlb(0)(\row -> toGlobal(mapSeq(\v -> (\a -> (\b -> f(a, b, b))(toPrivate(rd)(arrayAccess(y, a))))(toPrivate(rd)(arrayAccess(y, v))))) $ row) $ splitOffsets(offs, x)
"""

PRIVATE_ARRAY = re.compile(r"\b(int|uchar|long|double|float) \w+\[\d*\];")


def test_a_bound_private_value_in_a_mapseq_is_one_variable():
    k = compile_program(parse(SPLIT, "s.lift").program("p"))
    assert not PRIVATE_ARRAY.search(k.source), k.source
    assert re.search(r"int v\d+ = rd\(y\[", k.source), k.source


def test_a_bound_private_value_in_a_row_of_unknown_length_compiles():
    k = compile_program(parse(ROWS, "r.lift").program("q"))
    assert not PRIVATE_ARRAY.search(k.source), k.source
    # the second read's index is the first's value: its variable
    assert len(re.findall(r"int v\d+ = rd\(y\[", k.source)) == 2, k.source


def test_a_private_result_of_a_mapseq_is_still_an_array():
    # what a mapSeq writes as its result in private memory is replicated over the loop
    src = UF + ("program r(x: [int]N) = join o mapGlb(0)(\\row -> toGlobal(mapSeq(rd)) o "
                "toPrivate(mapSeq(rd)) $ row) o split(4) $ x\n")
    k = compile_program(parse(src, "a.lift").program("r"))
    assert PRIVATE_ARRAY.search(k.source), k.source


@pytest.mark.opencl
@pytest.mark.parametrize("lengths", [[1], [3, 0, 2], [0, 4, 0], [2] * 300 + [0, 5]])
def test_bound_values_in_rows_results_and_errors(runtime, lengths):
    k = compile_program(parse(ROWS, "r.lift").program("q"))
    rng = np.random.default_rng(len(lengths))
    n, m = int(sum(lengths)), 13
    x = rng.integers(0, m, n).astype(np.int32)
    y = rng.integers(0, m, m).astype(np.int32)
    offs = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int32)
    a = y[x]
    want = a * 10 + y[a] - y[a]
    got = runtime.run(k, {"x": x, "y": y, "offs": offs}, global_size=len(lengths))
    np.testing.assert_array_equal(np.asarray(got).reshape(-1), want)
    if n:
        bad = y.copy()
        bad[x[-1]] = m + 4          # the second read of the last element fails
        with pytest.raises(LiftError, match=rf"index out of bounds in arrayAccess \(index {m + 4}, length {m}\)"):
            runtime.run(k, {"x": x, "y": bad, "offs": offs}, global_size=len(lengths))
