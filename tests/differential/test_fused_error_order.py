"""Which runtime error a program reports when two operations of one apply-to-each fail: fusion
must not change it (a hostile-input hunt found ``{x / 0 + [1][x] : x in [5]}`` reporting the
subscript when fused, the division unfused and on the interpreter).

The unfused kernels run in binding order and the first to fail reports; a fused thunk fails at
its first failing site, so the engine (``fusion/rewrite.py``, ``_pull_with``) keeps the values of
the producers it pulls into a consumer in their binding order.  Every pair of failing operations,
in several shapes (operands, ``let`` bindings in both orders, tuples), on interp, lcu unfused
and fused, and OpenCL fused."""
from __future__ import annotations

import pytest

from diff_harness import compare

FAILING = {"div": "x / 0", "sub": "[1][x]", "rem": "rem(x, 0)", "elt": "elt([1, 2], x + 3)",
           "isqrt": "isqrt(0 - x - 1)"}
SHAPES = ["{A + B : x in [5, 6]}", "{let p = A; q = B in p + q : x in [5]}",
          "{(A, B) : x in [5]}", "{let p = A in B + p : x in [5]}", "{A + (B + x) : x in [5, 7]}",
          "{let q = B; p = A in q - p : x in [5]}"]
CASES = [s.replace("A", FAILING[a]).replace("B", FAILING[b]) + ";\n"
         for s in SHAPES for a in FAILING for b in FAILING if a != b]


@pytest.mark.parametrize("src", CASES)
def test_first_failure_is_the_same_fused(src):
    cmp = compare(src, opencl=src in CASES[::7])        # OpenCL on a seventh of them
    assert cmp.interp.error is not None, cmp.report()    # the program does fail
    assert not cmp.mismatches(), "backends disagree\n" + cmp.report()
