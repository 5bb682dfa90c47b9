"""Sibling calls of one function in host code (outside any apply-to-each) are made as one lifted
call (``Flattener.host_siblings``): ``fib(25)`` at top level recurses lifted, its calls batched
level by level, instead of making 242,785 host calls; the output, and the first error where
calls fail, are the interpreter's on every backend."""
from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "differential"))

from diff_harness import compare  # noqa: E402
from nessie import driver  # noqa: E402

FIB = "function fib(n) = if n < 2 then n else fib(n-1) + fib(n-2);\n"
G = "function g(n) = if n < 2 then [1,2,3][n] else g(n-1) + g(n-2);\n"

PROGRAMS = {
    "safe": FIB + "(fib(20), fib(15));\nfib(12) + fib(3);\n[fib(1), fib(7), fib(0)];\n",
    "may_fail": G + "g(15) + g(12);\n(g(3), g(1));\n",
    # the second call fails: the interpreter's error, after the first statement's result
    "second_fails": G + "g(6);\n(g(5), g(-1));\n",
    # the first fails with one error, the second with another: the first call's error
    "first_error_first": G + "function h(n) = if n < 2 then 10 / n else h(n - 1) + h(n - 2);\n"
                             "(h(4) + h(0), g(-2));\n(g(-2), h(0));\n",
    # sequences and tuples as arguments and results
    "nested": "function parts(s) : [int] -> [[int]] = if #s < 2 then [s] else "
              "parts({x in s | x < s[0]}) ++ [{x in s | x == s[0]}] ++ parts({x in s | x > s[0]});\n"
              "(parts([5, 3, 8, 1]), parts([2, 2, 9]));\n",
    # an effect between the calls: not batched, the output order is the interpreter's
    "effect_between": FIB + "(fib(10), print_string(\"x\"), fib(11));\n",
}


@pytest.mark.opencl
@pytest.mark.parametrize("fused", [False, True], ids=["unfused", "fused"])
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_same_as_interpreter(name, fused):
    cmp = compare(PROGRAMS[name], fused=fused, filename=f"{name}.nesl", opencl=True, lcu=True)
    assert cmp.interp.crash is None, cmp.report()
    assert cmp.flatten_error is None, cmp.report()
    assert not cmp.mismatches(), cmp.report()
    if name == "first_error_first":
        assert "Divide by zero" in cmp.interp.error, cmp.report()


def test_fib_at_top_level_recurses_lifted():
    """fib(25): 242,785 host calls before; now the lifted fib's levels, a few hundred
    launches."""
    src = FIB + "fib(25);\n"
    c = driver.compile_source(src, "fib.nesl")
    flat = driver.flatten(c)
    text = str(flat.program)
    assert "fib_L" in text.split("function fib ", 1)[1], text
    out = io.StringIO()
    ex = driver.run_lcu(c, flat, out)
    assert out.getvalue().strip().endswith("it = 75025 : int")
    assert 0 < sum(ex.launches.values()) < 2000
