"""A call of one function in both branches of a varying conditional is made once per level
(nessie/flatten/hoist.py): collatz-style recursion makes a number of lifted calls linear in its
depth instead of exponential, with the interpreter's output on every backend; where hoisting
would be observable (a branch that can fail, a call under a nested condition, an argument that
reads a variable of its branch) the flattener splits as before, and the output is still the
interpreter's."""
from __future__ import annotations

import io
import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "differential"))

from diff_harness import compare  # noqa: E402
from nessie import driver  # noqa: E402

COLLATZ = """function collatz(n) : int -> int =
  if n == 1 then 0
  else if evenp(n) then 1 + collatz(n / 2)
  else 1 + collatz(3 * n + 1);
"""

#: (name, source, calls of the recursive function in its lifted body once hoisted)
PROGRAMS = {
    "collatz": (COLLATZ + "{collatz(i) : i in [1:60]};\nsum({collatz(i) : i in [1:3030]});\n",
                "collatz", 1),
    # a pair of calls in each branch, a tuple result, a let around the call
    "two_results": ("""function walk(n, acc) : (int, int) -> (int, int) =
  if n <= 1 then (n, acc)
  else if evenp(n) then walk(n / 2, acc + 1)
  else let (a, b) = walk(n - 1, acc + 2) in (a, b + 1);
{walk(i, 0) : i in [0:200]};
""", "walk", 1),
    # the call sits under a nested if in one branch: not hoisted (the call is conditional)
    "nested_condition": ("""function fn(n) : int -> int =
  if n < 2 then n
  else if evenp(n) then (if n > 10 then fn(n / 2) else n)
  else fn(n - 1) + 1;
{fn(i) : i in [0:100]};
""", "fn", 2),
    # the argument reads a variable bound inside its branch: not hoisted
    "branch_variable": ("""function g(n) : int -> int =
  if n < 2 then n
  else if evenp(n) then let h = n / 2 in g(h) + h
  else g(n - 1);
{g(i) : i in [0:100]};
""", "g", 2),
    # a branch that can fail (a division by a variable): not hoisted, the error is the
    # interpreter's
    "can_fail": ("""function d(n, k) : (int, int) -> int =
  if n < 2 then n
  else if evenp(n) then d(n / k, k)
  else d(n - 1, k) + 1;
{d(i, 2) : i in [0:100]};
{d(i, i - 50) : i in [0:100]};
""", "d", 2),
}


def lifted_call_sites(src: str, name: str) -> int:
    """The most calls a lifted instance of ``name`` (``name_L``, ``name_LL``, ...) makes of
    itself in its body, in the fused λcu."""
    c = driver.compile_source(src, "hoist.nesl")
    flat, _ = driver.fuse(driver.flatten(c))
    text = str(flat.program)
    found = re.findall(rf"^function ({name}_L\w*) .*?^}}", text, re.S | re.M)
    assert found, text
    most = 0
    for fname in found:
        m = re.search(rf"^function {fname} .*?^}}", text, re.S | re.M)
        body = m.group(0).split("\n", 1)[1]
        most = max(most, len(re.findall(rf"\b{fname} \(", body)))
    return most


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_lifted_call_sites(name):
    src, fun, sites = PROGRAMS[name]
    assert lifted_call_sites(src, fun) == sites


@pytest.mark.opencl
@pytest.mark.parametrize("fused", [False, True], ids=["unfused", "fused"])
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_same_output_as_interpreter(name, fused):
    src, _, _ = PROGRAMS[name]
    cmp = compare(src, fused=fused, filename=f"{name}.nesl", opencl=True, lcu=True)
    assert cmp.interp.crash is None, cmp.report()
    assert cmp.flatten_error is None, cmp.report()
    assert not cmp.mismatches(), cmp.report()
    if name == "can_fail":
        assert "Divide by zero" in cmp.interp.error, cmp.report()


def test_collatz_launches_grow_with_depth_not_with_its_power():
    """collatz over [1:3030] (longest chain 216 steps) with hoisting: one lifted call per
    level, about 10 launches a level on lcu (before: one lifted call per branch and level, the
    run did not end in 5 minutes)."""
    c = driver.compile_source(COLLATZ + "sum({collatz(i) : i in [1:3030]});\n", "c.nesl")
    flat = driver.flatten(c)
    out = io.StringIO()
    ex = driver.run_lcu(c, flat, out)
    assert out.getvalue().strip().endswith("it = 217238 : int")
    launches = sum(ex.launches.values())
    assert launches < 30 * 217, launches
