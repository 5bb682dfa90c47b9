"""Speculative batching of sibling calls (issue 11): two or more sibling calls of a user function
that may fail but has no effect become a λcu ``speculate (size) {batched call} else replay {the
calls in source order}``; the executor runs the replay block only when the batched one raised a
runtime error (a kernel's, reported through the OpenCL error buffer, included), so

* a tree recursion that can fail makes lifted calls (and kernel launches) linear in its depth,
  not exponential, when nothing fails;
* when something fails, the error reported, and the results printed before it, are the
  interpreter's, even where the batched evaluation meets a different error first.

Every program runs on the reference interpreter, on λcu (numpy) and on OpenCL (PoCL here), each
unfused and fused."""
from __future__ import annotations

import io
import re

import pytest

from diff_harness import compare
from lambda_cu import ir
from lambda_cu.errors import MSG_BOUNDS, MSG_DIV0
from lambda_cu.parser import parse_exp, parse_program, strip_unprinted
from lambda_cu.types import INT
from nessie import driver

INDEX_TREE = """
function g(n) = if n < 2 then [1, 2, 3][n] else g(n - 1) + g(n - 2);
{g(i) : i in [0:%d]};
"""

DIV_TREE = """
function h(n) = if n < 2 then 100 / (n + 1) else h(n - 1) + h(n - 2) + n / 3;
{h(i) : i in [0:%d]};
"""

#: tree recursions that can fail (a subscript, a division), with tuples and three calls
OK_PROGRAMS = {
    "index_tree": INDEX_TREE % 14 + "{g(i) + g(i + 1) : i in [0:6]};\n{[g(i), g(2 * i)] : i in [1:5]};\n",
    "div_tree": DIV_TREE % 14 + "{h(i) - h(i + 2) : i in [0:6]};\n",
    "three_calls": """
function tri(n, w) = if n < 1 then 100 / (w + 9) else tri(n - 1, w + 1) + tri(n - 2, w * 2) + tri(n - 3, w - 1);
{tri(i, 7) : i in [0:9]};
{(tri(i, i), tri(i, 1)) : i in [0:5]};
""",
    "tuple_result": """
function p(n) = if n < 2 then ([n, n + 1][n], 1) else
  let ((a, b), (c, d)) = (p(n - 1), p(n - 2)) in (a + c, b + d);
{p(i) : i in [0:12]};
""",
    "two_functions": """
function v(n) = if n < 1 then 10 / (n + 2) else v(n - 1) + v(n - 2);
function u(n) = if n < 1 then [7, 8, 9][n + 1] else u(n - 1) + v(n - 1) + u(n - 2) + v(n - 2);
{u(i) + v(i) : i in [0:9]};
{u(i) + v(i) + u(i + 1) + v(i + 1) : i in [0:5]};
""",
}

#: programs where the batched evaluation fails first with ANOTHER error than the calls in source
#: order: the left call fails with a division by zero deep in its recursion, the right one (or
#: its own right call) at once with a subscript out of bounds or an ``error``
DIFFERENT_FIRST_ERROR = {
    "div_deep_index_early": ("""
function k(n) = if n < 0 then [1, 2][n] else if n == 0 then 10 / n else k(n - 1) + k(n - 1);
function m(n) = if n < 2 then [5, 6][n] else m(n - 1) + m(n - 2);
{m(i) : i in [0:10]};
{m(i) + m(i + 1) : i in [0:5]};
{k(i) + k(i - 10) : i in [3:5]};
{m(i) : i in [0:3]};
""", MSG_DIV0),
    "index_deep_div_early": ("""
function k(n) = if n == 0 then [1, 2][n + 5] else if n < 0 then 10 / (n + n - n - n) else k(n - 1) + k(n - 1);
{k(i) + 1 : i in [-2:0]};
{k(i) + k(-i) : i in [3:5]};
""", "RUNTIME ERROR: Divide by zero."),
    "deep_error_inside_recursion": ("""
function q(n) = if n < 0 then error("negative") else if n == 0 then 10 / n else q(n - 1) + q(n - 4);
{q(i) + 1 : i in [-3:-1]};
""", "RUNTIME ERROR: negative"),
    "same_level_order": ("""
function z(n) = if n < 0 then [1][n] else if n == 0 then 1 / n else z(n - 1) + z(n - 2);
{z(i) : i in [1:2]};
{z(i) : i in [2:3]};
""", MSG_DIV0),
    "swapped": ("""
function k(n) = if n < 0 then [1, 2][n] else if n == 0 then 10 / n else k(n - 1) + k(n - 1);
{k(i - 10) + k(i) : i in [3:5]};
""", MSG_BOUNDS),
    "recursion_vs_error": ("""
function r(n) = if n < 0 then r(n - 1) + r(n - 1) else 10 / n;
{r(i) + 1 : i in [1:3]};
{r(i) + r(i - 1) : i in [0:1]};
""", MSG_DIV0),
}


def _check(src: str, fused: bool, name: str):
    cmp = compare(src, fused=fused, filename=f"{name}.nesl", opencl=True)
    assert cmp.interp.crash is None, cmp.report()
    assert cmp.flatten_error is None, cmp.report()
    assert cmp.lcu is not None and cmp.opencl is not None, cmp.report()
    if fused:
        assert cmp.fused is not None and cmp.opencl_fused is not None, cmp.report()
    assert not cmp.mismatches(), cmp.report()
    return cmp


def _flat(src: str):
    c = driver.compile_source(src, "t.nesl")
    return c, driver.flatten(c)


@pytest.mark.parametrize("fused", [False, True], ids=["unfused", "fused"])
@pytest.mark.parametrize("name", sorted(OK_PROGRAMS))
def test_failing_capable_tree_recursion(name, fused):
    src = OK_PROGRAMS[name]
    assert "speculate" in str(_flat(src)[1].program)
    cmp = _check(src, fused, name)
    assert cmp.interp.error is None, cmp.report()


@pytest.mark.parametrize("fused", [False, True], ids=["unfused", "fused"])
@pytest.mark.parametrize("name", sorted(DIFFERENT_FIRST_ERROR))
def test_first_error_in_source_order(name, fused):
    src, error = DIFFERENT_FIRST_ERROR[name]
    cmp = _check(src, fused, name)
    assert cmp.interp.error == error, cmp.report()


@pytest.mark.parametrize("opencl", [False, True], ids=["lcu", "opencl"])
def test_replay_happens(opencl):
    """The batched block of ``{k(i) + k(i - 10) ...}`` fails with the subscript of ``k(i - 10)``
    (the executor's replays say so); the replay reports the division of ``k(i)``."""
    src = DIFFERENT_FIRST_ERROR["div_deep_index_early"][0]
    c, flat = _flat(src)
    runner = driver.make_runner("opencl") if opencl else None
    from lambda_cu.executor import Executor
    from nessie.diagnostics import RuntimeNeslError
    seen = []
    orig = Executor._speculate

    def spy(self, e, env):
        seen.append(self)
        return orig(self, e, env)
    Executor._speculate = spy
    try:
        with pytest.raises(RuntimeNeslError) as info:
            driver.run_lcu(c, flat, io.StringIO(), runner=runner)
    finally:
        Executor._speculate = orig
    assert info.value.message == MSG_DIV0
    replays = seen[0].replays
    assert replays[MSG_BOUNDS] >= 1, replays
    assert replays[MSG_DIV0] >= 1, replays


def _launches(n: int, fused: bool, opencl: bool, src: str) -> tuple:
    c, flat = _flat(src % n)
    if fused:
        flat, _ = driver.fuse(flat)
    out = io.StringIO()
    runner = driver.make_runner("opencl") if opencl else None
    ex = driver.run_lcu(c, flat, out, runner=runner)
    assert "RUNTIME ERROR" not in out.getvalue()
    assert not ex.replays, ex.replays
    lcu = sum(ex.launches.values())
    return lcu, (ex.runner.stats.launches if opencl else lcu)


@pytest.mark.parametrize("opencl", [False, True], ids=["lcu", "opencl"])
@pytest.mark.parametrize("fused", [False, True], ids=["unfused", "fused"])
@pytest.mark.parametrize("src", [INDEX_TREE, DIV_TREE], ids=["index", "div"])
def test_launches_linear_in_depth(src, fused, opencl):
    """Twice the depth, about twice the launches (sequential calls: 31,002 λcu launches at depth
    18 for the index tree, 654 at depth 10; here 9 a level)."""
    lo_lcu, lo_dev = _launches(10, fused, opencl, src)
    hi_lcu, hi_dev = _launches(20, fused, opencl, src)
    assert hi_lcu < 2.5 * lo_lcu, (lo_lcu, hi_lcu)
    assert hi_dev < 2.5 * lo_dev, (lo_dev, hi_dev)
    assert hi_lcu < 400, hi_lcu


def test_speculation_limit_gives_up_and_replays():
    """A batched context larger than the executor's speculation limit is not speculated on:
    the calls are made in order (and inside the limit they are batched again)."""
    c, flat = _flat(INDEX_TREE % 12)
    from lambda_cu.executor import Executor
    from lambda_cu.interp import NumpyRunner
    runs = {}
    for limit in (1 << 20, 8):
        ex = Executor(flat.program, NumpyRunner(), externs=driver.make_externs(c, flat, io.StringIO())[0])
        ex.speculation_limit = limit
        vals = ex.run_main()
        runs[limit] = (list(ex.runner.to_host(vals[-1])), sum(ex.launches.values()),
                       dict(ex.replays))
    assert runs[8][0] == runs[1 << 20][0] == [1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 233]
    assert runs[1 << 20][2] == {}
    assert runs[8][2].get("too large", 0) >= 1
    assert runs[8][1] > runs[1 << 20][1]


def test_internal_errors_are_not_replayed():
    """Only NESL runtime errors (and a recursion too deep) make the executor replay: a
    ``MemoryError`` inside the batched block propagates."""
    c, flat = _flat(INDEX_TREE % 12)
    from lambda_cu.executor import Executor
    from lambda_cu.interp import NumpyRunner

    class Failing(NumpyRunner):
        calls = 0

        def run_kernel(self, k, args):
            Failing.calls += 1
            if Failing.calls == 40:
                raise MemoryError("a vector of too many elements")
            return super().run_kernel(k, args)
    ex = Executor(flat.program, Failing(), externs=driver.make_externs(c, flat, io.StringIO())[0])
    with pytest.raises(MemoryError):
        ex.run_main()
    assert not ex.replays


SPEC_FUNCTION = """function f (n_1 : int, as_2 : [int]) -> [int] {
  let bn_3 : int = n_1 * 2
  let r_4 : [int] = speculate (bn_3) {
    let c_5 : [int] = g (bn_3, as_2)
    return c_5
  } else replay {
    let c_6 : [int] = g (n_1, as_2)
    let c_7 : [int] = g (n_1, as_2)
    return c_7
  }
  return r_4
}
"""


def test_print_parse_round_trip():
    """``speculate (size) { ... } else replay { ... }`` prints and parses back."""
    text = "kernel K1 (a0 : int) -> [int] {\n  let r0 = MAP { i => i } (a0)\n  return (r0)\n}\n\n" \
        "function g (n : int, xs : [int]) -> [int] {\n  return xs\n}\n\n" + SPEC_FUNCTION
    prog = parse_program(text)
    f = prog.function("f")
    spec = f.body.binds[1].rhs
    assert isinstance(spec, ir.Speculate)
    assert spec.size == ir.Var("bn_3")
    assert len(spec.fast.binds) == 1 and len(spec.slow.binds) == 2
    assert str(f) + "\n" == SPEC_FUNCTION
    assert parse_program(str(prog)) == strip_unprinted(prog)
    e = parse_exp("speculate (4) { return 1 } else replay { return 2 }")
    assert e == ir.Speculate(ir.Const(4, INT), ir.Block((), ir.Const(1, INT)),
                             ir.Block((), ir.Const(2, INT)))
    assert str(e) == "speculate (4) {\n  return 1\n} else replay {\n  return 2\n}"


def test_flattened_speculation_round_trips_and_checks():
    """A flattened program with speculation, unfused and fused, prints, parses back and type
    checks; its dead code and CSE keep both blocks."""
    from lambda_cu.check import check_program
    from lambda_cu.dead_code import eliminate_dead_code
    c, flat = _flat(OK_PROGRAMS["two_functions"])
    fused, _ = driver.fuse(flat)
    for prog in (flat.program, fused.program):
        check_program(prog)
        assert parse_program(str(prog)) == strip_unprinted(prog)
        assert eliminate_dead_code(prog, renumber=False) == prog
        text = str(prog)
        assert len(re.findall(r"speculate \(", text)) == len(re.findall(r"\} else replay \{", text)) > 0
