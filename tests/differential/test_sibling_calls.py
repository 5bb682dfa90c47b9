"""Sibling calls of one user function in a parallel context (issue 11/9): the components of a
tuple (hence the operands of ``+``, the arguments of any call) and the elements of a sequence
literal that call the same function are evaluated as ONE lifted call (``call_batched`` in
``nessie/flatten/translate.py``) when the function can neither fail nor have an effect, so that
tree recursion makes a number of lifted calls linear in its depth.  Every program must print
the same, runtime errors included, on the interpreter and on λcu, unfused and fused."""
from __future__ import annotations

import re

import pytest

from diff_harness import compare
from nessie import driver

FIB = """
function fib(n) = if n < 2 then n else fib(n - 1) + fib(n - 2);
{fib(i) : i in [0:16]};
{fib(i) : i in [3, 0, 7, 1]};
fib(10);
{{fib(j) : j in [0:i]} : i in [0:6]};
"""

# tree-recursive sum over a nested sequence: uniform (s free) and lifted (s varies) arguments,
# and the same written with subscripts and take/drop (can fail: not batched, same results)
TREE_SUM = """
function tsum(s, lo, hi) =
  if hi - lo < 2 then sum({sum(r) : (i, r) in s | i >= lo and i < hi})
  else let m = (lo + hi) / 2 in tsum(s, lo, m) + tsum(s, m, hi);
function tag(s) = let ix = plus_scan({1 : x in s}) in {(i, x) : i in ix; x in s};
rows = [[1, 2], [], [3], [4, 5, 6], [7], [8, 9], [10]];
tg = tag(rows);
{tsum(tg, 0, n) : n in [0:8]};
{tsum(tag(s), 0, #s) : s in [rows, [[5]], [], [[1], [2, 3], [4, 5], [6]]]};
function tsum2(s) =
  if #s == 0 then 0
  else if #s == 1 then sum(s[0])
  else let h = #s / 2 in tsum2(take(s, h)) + tsum2(drop(s, h));
{tsum2(take(rows, n)) : n in [0:8]};
"""

TUPLE_RESULT = """
function fp(n) =
  if n < 2 then (n, 1)
  else let ((a, b), (c, d)) = (fp(n - 1), fp(n - 2)) in (a + c, b + d + 1);
{fp(i) : i in [0:12]};
function nest(n) =
  if n < 2 then [[n], [n, n], [] int]
  else let (a, b) = (nest(n - 1), nest(n - 2))
       in {{x + sum({sum(q) : q in b}) : x in r} : r in a};
{nest(i) : i in [0:6]};
function three(n, w) =
  if n < 1 then w
  else sum([three(n - 1, w * 2.0), three(n - 2, w + 1.0), three(n - 3, w - 0.5)]);
{three(i, 1.5) : i in [0:7]};
{(three(i, 1.0), fp(i)) : i in [0:5]};
"""

UNIFORM_ARG = """
function cnt(k, n) = if n < 2 then k else cnt(k, n - 1) + cnt(k, n - 2);
{cnt(3, i) : i in [0:12]};
{cnt(k, 6) : k in [1, 2, 3]};
{cnt(k, k) + cnt(2, k) : k in [0:7]};
function walk(v, n) = if n < 1 then sum(v) else walk(v, n - 1) + walk({x + n : x in v}, n - 2);
{walk([1, 2, 3], i) : i in [0:8]};
{[cnt(1, i), cnt(2, i), cnt(1, i + 1)] : i in [0:5]};
"""

RIGHT_ERROR = """
function fib(n) = if n < 2 then n else fib(n - 1) + fib(n - 2);
function g(n) = if n < 0 then [1, 2][n] else n * 2;
{g(i) + g(i - 1) : i in [0:1]};
"""

RIGHT_ARG_ERROR = """
function fib(n) = if n < 2 then n else fib(n - 1) + fib(n - 2);
{fib(i) + fib(10 / (i - 3)) : i in [0:6]};
"""

RIGHT_ERROR_MANY = """
function g(n) = if n < 0 then [1, 2][n] else n * 2;
{g(i) + g(i - 5) : i in [0:8]};
"""

BOTH_ERRORS = """
function g(n) = if n == 1 then 10 / (n - 1) else if n == 2 then [1][n] else n;
{g(i) + g(i + 1) : i in [1:2]};
"""

BOTH_ERRORS_SWAPPED = """
function g(n) = if n == 1 then 10 / (n - 1) else if n == 2 then [1][n] else n;
{g(i + 1) + g(i) : i in [1:2]};
"""

PROGRAMS = {
    "fib": (FIB, ["it = [0, 1, 1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 233, 377, 610] : [int]"]),
    "tree_sum": (TREE_SUM, ["it = [0, 3, 3, 6, 21, 28, 45, 55] : [int]"]),
    "tuple_result": (TUPLE_RESULT, []),
    "uniform_arg": (UNIFORM_ARG, []),
    "right_error": (RIGHT_ERROR, []),
    "right_arg_error": (RIGHT_ARG_ERROR, []),
    "right_error_many": (RIGHT_ERROR_MANY, []),
    "both_errors": (BOTH_ERRORS, []),
    "both_errors_swapped": (BOTH_ERRORS_SWAPPED, []),
}

EXPECTED_ERRORS = {
    "right_error": "RUNTIME ERROR: Sequence reference (a[i]) out of bounds.",
    "right_arg_error": "RUNTIME ERROR: Divide by zero.",
    "right_error_many": "RUNTIME ERROR: Sequence reference (a[i]) out of bounds.",
    "both_errors": "RUNTIME ERROR: Divide by zero.",
    "both_errors_swapped": "RUNTIME ERROR: Sequence reference (a[i]) out of bounds.",
}


@pytest.mark.parametrize("fused", [False, True], ids=["unfused", "fused"])
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_sibling_calls(name, fused):
    src, expected_lines = PROGRAMS[name]
    cmp = compare(src, fused=fused, filename=f"{name}.nesl")
    assert cmp.interp.crash is None, cmp.report()
    assert not cmp.mismatches(), cmp.report()
    lines = cmp.interp.out.splitlines()
    for line in expected_lines:
        assert line in lines, f"expected {line!r}\n" + cmp.report()
    assert cmp.interp.error == EXPECTED_ERRORS.get(name), cmp.report()


def _lifted_calls(src: str, fun: str) -> int:
    """Call sites of ``fun``'s lifted form inside that lifted function."""
    text = str(driver.flatten(driver.compile_source(src, "t.nesl")).program)
    m = re.search(rf"function {fun}_L \(.*?\n}}", text, re.S)
    assert m, text
    return len(re.findall(rf"= {fun}_L \(", m.group(0)))


def test_fib_lifted_once_per_level():
    """fib_L calls itself once (both recursive calls batched), not twice."""
    assert _lifted_calls(FIB, "fib") == 1


def test_failing_function_batched_speculatively():
    """A function that can fail (but has no effect) is batched speculatively (issue 11): one
    lifted call in the ``speculate`` block, and one per call site, in source order, in its
    ``replay`` block (the first error must be the left call's, as on the interpreter); see
    tests/differential/test_speculative_batching.py."""
    src = "function h(n) = if n < 2 then 10 / n else h(n - 1) + h(n - 2);\n{h(i) : i in [1:5]};\n"
    assert _lifted_calls(src, "h") == 3
    text = str(driver.flatten(driver.compile_source(src, "t.nesl")).program)
    fast, slow = re.search(r"speculate \(.*?\) \{(.*?)\} else replay \{(.*?)\}", text, re.S).groups()
    assert len(re.findall(r"= h_L \(", fast)) == 1 and len(re.findall(r"= h_L \(", slow)) == 2


def test_effectful_function_not_batched():
    """A function with an effect (here: output) is neither batched nor speculated: the calls
    are made one after the other, in order."""
    src = ('function h(n) = if n < 2 then print_string("x") else h(n - 1) and h(n - 2);\n'
           '{h(i) : i in [1:5]};\n')
    assert _lifted_calls(src, "h") == 2
    assert "speculate" not in str(driver.flatten(driver.compile_source(src, "t.nesl")).program)


def test_fib_launches_linear():
    """The number of kernel launches grows with the recursion depth, not with fib(n) (177 105
    launches before the calls were batched)."""
    import io
    c = driver.compile_source("function fib(n) = if n < 2 then n else fib(n - 1) + fib(n - 2);\n"
                              "{fib(i) : i in [0:22]};\n", "t.nesl")
    out = io.StringIO()
    it = driver.run_lcu(c, driver.flatten(c), out)
    assert "10946] : [int]" in out.getvalue()
    assert sum(it.launches.values()) < 1000
