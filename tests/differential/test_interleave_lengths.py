"""``interleave(a, b)``: #a may exceed #b by one; other lengths are the interpreter's length
mismatch on every backend (hunt 4: the flattened expansion reported its subscript instead)."""
from __future__ import annotations

import pytest

from diff_harness import compare

GOOD = ["interleave([1, 2, 3], [4, 5]);", "interleave(\"ab\", \"cd\");", "interleave([] int, [] int);",
        "interleave([1.5], [] float);", "{interleave(a, b) : a in [[1], [3, 4]]; b in [[4], [5]]};",
        "interleave([[1], [2, 3]], [[7]]);", "interleave(even_elts([0:7]), odd_elts([0:7]));"]
BAD = ["interleave([1, 2, 3], [4]);", "interleave([1], [2, 3]);", "interleave([] int, [1]);",
       "{interleave(a, b) : a in [[1], [3]]; b in [[4, 5], [] int]};",
       "{#interleave([0:i], [0:i + 2]) : i in [0:3]};"]


@pytest.mark.parametrize("src", GOOD)
def test_interleave_lengths_that_fit(src):
    cmp = compare(src + "\n", opencl=True)
    assert cmp.interp.error is None, cmp.report()
    assert not cmp.mismatches(), cmp.report()


@pytest.mark.parametrize("src", BAD)
def test_interleave_length_mismatch_on_every_backend(src):
    cmp = compare(src + "\n", opencl=True)
    assert cmp.interp.error is not None and "Length mismatch" in cmp.interp.error, cmp.report()
    assert not cmp.mismatches(), cmp.report()
