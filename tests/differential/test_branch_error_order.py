"""Which error a failing apply-to-each reports when its elements fail in different branches of a
conditional (a hostile-input hunt: ``{g(x) : x in [0, 2]}`` with ``g(x) = if x > 1 then x / 0
else [1][x + 5]`` reported element 0's subscript on the interpreter and the division on the
flattening backends).  The order is the original's, a flattening implementation: the ``then``
branch runs for the elements that take it before the ``else`` branch for the others; the
interpreter evaluates element by element and, when that fails, evaluates the apply-to-each again
vector-wise in that order (``nessie/interp/eval.py``, ``_drawing_or``).  Failing branches in
functions, nested apply-to-each, recursion, sibling calls and ``let``s, on interp, lcu unfused
and fused, and OpenCL for some."""
from __future__ import annotations

import pytest

from diff_harness import compare

FAIL = {"div": "x / 0", "sub": "[1][x + 5]", "isqrt": "isqrt(0 - x - 1)", "ok": "x + 1"}
SHAPES = [
    "function g(x) = if x > 1 then T else E;\n{g(x) : x in [0, 2, 1, 3]};\n",
    "function g(x) = if x > 1 then T else E;\n{{g(x + y) : y in [0, 1]} : x in [0, 2]};\n",
    "{if x > 1 then T else E : x in [3, 0]};\n",
    "function g(x) = if x > 1 then T else E;\nfunction h(x) = if x == 0 then g(x) else h(x - 1);\n"
    "{h(x) : x in [2, 0, 3]};\n",
    "function g(x) = if x > 1 then T else E;\n{g(x) + g(x + 2) : x in [0, 1]};\n",
    "function g(x) = let a = (if x > 1 then T else E) in a + 1;\n{g(x) : x in [0, 5]};\n",
    "{let a = (if x > 1 then T else 0) in a + (if x < 1 then E else 0) : x in [0, 5]};\n",
]
CASES = [s.replace("T", FAIL[t]).replace("E", FAIL[e])
         for s in SHAPES for t in FAIL for e in FAIL if not t == e == "ok"]


@pytest.mark.parametrize("src", CASES)
def test_same_error_on_every_backend(src):
    cmp = compare(src, opencl=src in CASES[::9])
    assert not cmp.mismatches(), "backends disagree\n" + cmp.report()


def test_the_then_branch_fails_first():
    cmp = compare("function g(x) = if x > 1 then x / 0 else [1][x + 5];\n{g(x) : x in [0, 2]};\n")
    assert cmp.interp.error == "RUNTIME ERROR: Divide by zero." and cmp.interp.where.endswith(":1:31")


def test_output_before_the_error_is_kept_once():
    # a body with output is evaluated vector-wise from the start (never again): its output
    # appears once, in the flattened order, before the error
    src = ('function g(x) = if x > 1 then x / 0 else [1][x + 5];\n'
           '{print_string(@x) and g(x) > 0 : x in [0, 2]};\n')
    cmp = compare(src)
    assert not cmp.mismatches(), cmp.report()
    assert cmp.interp.out.endswith("\n02") and cmp.interp.error == "RUNTIME ERROR: Divide by zero."
