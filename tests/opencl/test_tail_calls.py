"""Tail calls in the λcu executor (``lambda_cu.executor.Executor.exp``): a loop written as tail
recursion -- NESL's only loop -- holds the vectors of its current step only, on every runner, and
its results, errors and recursion limit are those of the reference interpreter.

Before, each step's environment stayed alive until the recursion returned: 400 steps over
200,000 floats took 641,600,008 bytes of device memory on PoCL (4,800,008 now)."""
from __future__ import annotations

import io
import tracemalloc

import pytest

from nessie import driver

pytestmark = pytest.mark.opencl

ITER = """
function iter(x, k) = if k == 0 then x else iter({{a * 0.5 + 1.0 : a in x}}, k - 1);
sum(iter(dist(1.0, {n}), {k}));
"""

#: a pair of vectors carried around the loop, the call under a ``let`` and in the ``then``
#: branch; a lifted loop (``loop3`` in an apply-to-each) is tail recursive too
PAIR = """
function loop(x, y, k) = if k == 0 then (x, y)
  else loop({{a + 1.0 : a in x}}, {{b * 2 : b in y}}, k - 1);
function loop3(x, k) = if k > 0 then let z = {{a + 1 : a in x}} in loop3(z, k - 1) else x;
function outer(xs) = {{sum(loop3(x, {k})) : x in xs}};
let (p, q) = loop(dist(0.5, {n}), dist(1, {n}), 20) in (sum(p), q[7]);
outer({{dist(i, {n} + i) : i in [0:4]}});
outer([] [int]);
"""

#: the limit still counts every call of the loop; an error in a late step is the interpreter's
DEEP = """
function g(n) = if n == 0 then 0 else g(n - 1);
function h(n, acc) = if n == 0 then acc else h(n - 1, {a + n : a in acc});
g(9999);
h(30, [1, 2, 3]);
g(10000);
h(5, [4]);
"""

BAD = """
function bad(x, k) = if k == 0 then x[5] else bad({a + 1 : a in x}, k - 1);
bad([1, 2, 3], 2);
bad([1, 2, 3], 100);
bad([1, 2, 3], 3);
"""


def _interp(src: str) -> str:
    c = driver.compile_source(src, "t.nesl")
    out = io.StringIO()
    try:
        driver.run_interp(c, out)
    except Exception as e:          # a runtime error: its text after the output before it
        out.write(f"\n{type(e).__name__}: {e}")
    return out.getvalue()


def _flat(src: str, backend: str):
    c = driver.compile_source(src, "t.nesl")
    flat = driver.fuse(driver.flatten(c))[0]
    runner = driver.make_runner(backend)
    out = io.StringIO()
    try:
        driver.run_lcu(c, flat, out, runner=runner)
    except Exception as e:
        out.write(f"\n{type(e).__name__}: {e}")
    return out.getvalue(), runner


@pytest.mark.parametrize("src", [ITER.format(n=3000, k=40), PAIR.format(n=500, k=30), BAD],
                         ids=["iter", "pair", "bad"])
@pytest.mark.parametrize("backend", ["lcu", "opencl"])
def test_results_are_the_interpreters(src, backend):
    want = _interp(src)
    got, _ = _flat(src, backend)
    assert got == want
    if src is BAD:
        assert want.endswith("t.nesl:2:37: RUNTIME ERROR: Sequence reference (a[i]) out of bounds.")
    else:
        assert "it = " in want and "Error" not in want


@pytest.mark.parametrize("backend", ["lcu", "opencl"])
def test_tail_calls_count_for_the_recursion_limit(backend):
    """10,000 active calls run, one more is too deep, though a tail call stacks nothing.  (The
    interpreter prints the same on Python 3.11; Python 3.12's fixed C recursion limit stops
    it earlier, so its output is not compared here.)"""
    got, _ = _flat(DEEP, backend)
    assert got == ("g = fn : int -> int\nh = fn : (int, [int]) -> [int]\nit = 0 : int\n"
                   "it = [466, 467, 468] : [int]\n\nRuntimeNeslError: t.nesl:6:1: RUNTIME ERROR: "
                   "recursion too deep.")


def test_device_memory_of_a_loop_is_one_step():
    got, runner = _flat(ITER.format(n=200000, k=400), "opencl")
    assert "it = 400000.0" in got
    step = 200000 * 4
    # the input, the current step's vector and the next one's, the reduction's partials
    assert runner.stats.peak_bytes <= 8 * step, runner.stats.peak_bytes


def test_device_memory_of_a_lifted_loop_is_one_step():
    got, runner = _flat(PAIR.format(n=20000, k=300), "opencl")
    assert "it = [" in got
    # 4 segments of ~20,000 ints through 300 steps (and 20 steps of two vectors of 20,000);
    # one step is ~320 kB, all 300 were 96 MB
    assert runner.stats.peak_bytes <= 40 * 80006 * 4, runner.stats.peak_bytes


def test_host_memory_of_a_loop_on_numpy_is_one_step():
    c = driver.compile_source(ITER.format(n=200000, k=400), "t.nesl")
    flat = driver.fuse(driver.flatten(c))[0]
    tracemalloc.start()
    try:
        out = io.StringIO()
        driver.run_lcu(c, flat, out, runner=driver.make_runner("lcu"))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert "it = 400000.0" in out.getvalue()
    # float64 on numpy: 1.6 MB a step; before, 400 steps kept 640 MB
    assert peak <= 20 * 200000 * 8, peak
