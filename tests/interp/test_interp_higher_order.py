"""The reference interpreter on higher-order functions (issue 10), in both of its ways: on the
specialised program (``nessie.mono``'s default, what every backend runs) and with functions
as values at run time (``keep_function_args``, a second implementation)."""
from __future__ import annotations

import io

import pytest

from nessie.diagnostics import RuntimeNeslError
from nessie.interp.eval import run_source

MODES = [False, True]
IDS = ["specialised", "function-values"]


def run(text: str, keep: bool) -> str:
    out = io.StringIO()
    run_source(text, "t.nesl", out=out, keep_function_args=keep)
    return out.getvalue()


@pytest.mark.parametrize("keep", MODES, ids=IDS)
def test_the_issue_example(keep):
    assert run("function twice(func, x) = func(func(x));\n"
               "function inc(x) = x + 1;\n"
               "twice(inc, 3);\n", keep).splitlines() == [
        "twice = fn : (b -> b, b) -> b :: (a in any; b in any)",
        "inc = fn : int -> int",
        "it = 5 : int",
    ]


PROGRAM = """
function twice(func, x) = func(func(x));
function inc(x) = x + 1;
function iter(g, x, n) = if n == 0 then x else iter(g, g(x), n - 1);
function map_f(g, xs) = {g(x) : x in xs};
function zip_with(op, a, b) = {op(x, y) : x in a; y in b};
function red(op, z, s) = if #s == 0 then z else op(s[0], red(op, z, drop(s, 1)));
function four(g, x) = twice(g, twice(g, x));
function idf(x) = x;
datatype pt(int, int);
function mk(c, v) = c(v, v);
function a3(g) = g(3);
iter(inc, 0, 10);
map_f(inc, [1, 2, 3]);
{twice(inc, x) : x in [1, 2, 3]};
{map_f(inc, xs) : xs in [[1], [] int, [2, 3]]};
zip_with(`+`, [1, 2], [10, 20]);
zip_with(max, [1.5, 7.0], [2.5, 0.5]);
red(`-`, 0, [10, 4, 1]);
red(`++`, [] int, [[1], [2, 3]]);
four(inc, 0);
(twice(idf, 2), twice(idf, 2.5));
mk(pt, 7);
a3(inc);
map_f(`#`, ["ab", "", "c"]);
{a3(negate) + i : i in [0, 1]};
"""

EXPECTED = [
    "it = 10 : int",
    "it = [2, 3, 4] : [int]",
    "it = [3, 4, 5] : [int]",
    "it = [[2], [], [3, 4]] : [[int]]",
    "it = [11, 22] : [int]",
    "it = [2.5, 7.0] : [float]",
    "it = 7 : int",
    "it = [1, 2, 3] : [int]",
    "it = 4 : int",
    "it = (2, 2.5) : int, float",
    "it = pt(7, 7) : pt",
    "it = 4 : int",
    "it = [2, 0, 1] : [int]",
    "it = [-3, -2] : [int]",
]


@pytest.mark.parametrize("keep", MODES, ids=IDS)
def test_calls_passing_on_recursion_and_apply_to_each(keep):
    lines = run(PROGRAM, keep).splitlines()
    assert [x for x in lines if x.startswith("it = ")] == EXPECTED
    assert "red = fn : ((c, b) -> b, b, [c]) -> b :: (a in any; b in any; c in any)" in lines
    assert "mk = fn : ((c, c) -> b, c) -> b :: (a in any; b in any; c in any)" in lines


@pytest.mark.parametrize("keep", MODES, ids=IDS)
def test_a_runtime_error_in_a_function_passed_is_located_at_the_call(keep):
    src = ("function red(op, z, s) = if #s == 0 then z else op(s[0], red(op, z, drop(s, 1)));\n"
           "red(`/`, 1, [8, 4]);\n"
           "red(`/`, 1, [8, 0]);\n")
    out = io.StringIO()
    with pytest.raises(RuntimeNeslError) as info:
        run_source(src, "t.nesl", out=out, keep_function_args=keep)
    assert out.getvalue().splitlines()[-1] == "it = 2 : int"
    assert str(info.value) == "t.nesl:1:49: RUNTIME ERROR: Divide by zero."


@pytest.mark.parametrize("keep", MODES, ids=IDS)
def test_redefined_functions_passed_keep_their_meaning(keep):
    src = ("function twice(func, x) = func(func(x));\nfunction inc(x) = x + 1;\n"
           "twice(inc, 1);\nfunction inc(x) = x + 10;\ntwice(inc, 1);\n")
    assert [x for x in run(src, keep).splitlines() if x.startswith("it")] == [
        "it = 3 : int", "it = 21 : int"]
