"""Subscripts whose index range is known run unchecked where one test of the launch's lengths
shows the checks redundant (issue 9: a dot product's chunk pass in half the time), and checked
otherwise: the checked version still reports the same located error as every other backend.

The programs make the guard fail at run time: a pull thunk reads a vector shorter than the index
space (REDUCE, SCAN, segmented REDUCE, MAP, FILTER), so the fast version must not run."""
import pytest

from diff_harness import assert_same
from lambda_cu import ir
from lift_backend.lower import print_opencl
from nessie import driver

SHORT = [
    # REDUCE: the sum's pull thunk reads a[i] for i up to 9, #a = 5
    "let a = [1, 2, 3, 4, 5] in sum({a[i] : i in [0:10]});\n",
    "let a = [1.5, 2.5] in sum({a[i] * 2.0 : i in [0:3]});\n",
    # SCAN
    "let a = [1, 2, 3] in plus_scan({a[i] : i in [0:4]});\n",
    # segmented REDUCE (one sum per row, the last row runs past #a)
    "let a = [1, 2, 3, 4, 5] in {sum({a[i] : i in [0:k]}) : k in [3, 5, 6]};\n",
    # MAP and FILTER
    "let a = [1, 2, 3] in {a[i] + 1 : i in [0:5]};\n",
    "let a = [1, 2, 3] in {a[i] : i in [0:5] | i > 0};\n",
    # in range: the fast version runs, same results
    "let a = [1, 2, 3, 4, 5] in (sum({a[i] : i in [0:5]}), plus_scan({a[i] : i in [1:5]}),"
    " {sum({a[i] : i in [0:k]}) : k in [0, 3, 5]});\n",
]


@pytest.mark.opencl
@pytest.mark.parametrize("k", range(len(SHORT)))
def test_backends_agree(k):
    cmp = assert_same(SHORT[k], opencl=True)
    if k < len(SHORT) - 1:
        assert cmp.interp.error is not None and "bounds" in cmp.interp.error.lower(), cmp.report()


def test_reduce_chunks_have_a_fast_version():
    """The mechanism: dotp's chunk kernel is guarded by its lengths, its fast version reads
    without checks and starts the fold outside the loop."""
    src = "function dotp(a, b) = sum({x * y : x in a; y in b});\ndotp([1.5], [2.0]);\n"
    c = driver.compile_source(src, "dotp.nesl")
    prog = driver.fuse(driver.flatten(c))[0].program
    text = print_opencl(prog)
    chunks = text[text.index("_chunks("):]
    chunks = chunks[:chunks.index("\n}\n")]
    fast, slow = chunks.split("} else {", 1)
    assert "(long)(n) <= (long)(v_v0_n)" in fast and "(long)(n) <= (long)(v_v1_n)" in fast
    assert "NESSIE_ERR" not in fast and "NESSIE_ERR" in slow
    assert "for (long i = lo + 1; i < hi; i++)" in fast
    assert "i == lo" not in fast
