"""Differential test of higher-order functions (issue 10): each program prints exactly the text
stated here on the reference interpreter with functions as run-time values
(``keep_function_args``), on the interpreter running the specialised program (what ``nessie run
--backend interp`` runs), on flattened λcu unfused and fused, and on OpenCL unfused and fused.
The specialisation (``nessie.mono``) makes the flattened backends see first-order code only;
the function-values interpreter is an independent implementation of the same programs."""
from __future__ import annotations

import io

import pytest

from nessie import driver
from nessie.diagnostics import RuntimeNeslError
from nessie.interp.eval import run_source

ISSUE = ("""
function twice(func, x) = func(func(x));
function inc(x) = x + 1;
twice(inc, 3);
{twice(inc, x) : x in [0, 10, 20]};
""", """\
twice = fn : (b -> b, b) -> b :: (a in any; b in any)
inc = fn : int -> int
it = 5 : int
it = [2, 12, 22] : [int]
""")

MAP_IN_PARALLEL = ("""
% a function parameter called inside an apply-to-each, itself inside one %
function map_f(g, xs) = {g(x) : x in xs};
function square(x) = x * x;
map_f(square, [1, 2, 3]);
{map_f(square, xs) : xs in [[4], [] int, [5, 6]]};
{map_f(negate, xs) : xs in [[1, -2], [3]]};
map_f(`#`, ["nested", "", "data"]);
""", """\
map_f = fn : (c -> b, [c]) -> [b] :: (a in any; b in any; c in any)
square = fn : a -> a :: (a in number)
it = [1, 4, 9] : [int]
it = [[16], [], [25, 36]] : [[int]]
it = [[-1, 2], [-3]] : [[int]]
it = [6, 0, 4] : [int]
""")

ITERATE = ("""
% recursion through a higher-order function, which passes its parameter to itself and on %
function iter(f2, x, n) = if n == 0 then x else iter(f2, f2(x), n - 1);
function twice(func, x) = func(func(x));
function both(g, x) = (iter(g, x, 3), twice(g, x));
function halve(x) = x / 2;
iter(halve, 1000, 3);
both(halve, 64);
{iter(halve, x, n) : x in [100, 7, 64]; n in [1, 2, 6]};
""", """\
iter = fn : (b -> b, b, int) -> b :: (a in any; b in any)
twice = fn : (b -> b, b) -> b :: (a in any; b in any)
both = fn : (b -> b, b) -> (b, b) :: (a in any; b in any)
halve = fn : int -> int
it = 125 : int
it = (8, 16) : int, int
it = [50, 1, 1] : [int]
""")

REDUCE = ("""
% a generic divide-and-conquer reduce; operators and builtins passed by name %
function reduce_with(op, z, s) =
  if #s == 0 then z
  else if #s == 1 then s[0]
  else let h = #s / 2;
           r = {reduce_with(op, z, v) : v in [take(s, h), drop(s, h)]}
       in op(r[0], r[1]);
reduce_with(`+`, 0, [1:11]);
reduce_with(min, 100, [5, 3, 8]);
{reduce_with(max, 0, row) : row in [[3, 9, 2], [] int, [4]]};
reduce_with(`/`, 1, [100, 5, 0]);
""", """\
reduce_with = fn : ((b, b) -> b, b, [b]) -> b :: (a in any; b in any)
it = 55 : int
it = 3 : int
it = [9, 0, 4] : [int]
""", ("RUNTIME ERROR: Divide by zero.", "t.nesl:8:11"))

SORT_BY = ("""
function qsort_by(lt, a) =
  if #a < 2 then a
  else let p = a[#a / 2];
           r = {qsort_by(lt, v) : v in [{e in a | lt(e, p)}, {e in a | lt(p, e)}]}
       in r[0] ++ {e in a | not(lt(e, p)) and not(lt(p, e))} ++ r[1];
function lt(a, b) = a < b;
qsort_by(`>`, [3, 1, 4, 1, 5, 9, 2, 6]);
qsort_by(lt, [3, 1, 4, 1, 5, 9, 2, 6]);
qsort_by(`<`, [3, 1, 4, 1, 5, 9, 2, 6]);
function shorter(s, u) = #s < #u;
qsort_by(shorter, ["parallel", "a", "nested", "of", "data"]);
{qsort_by(`<`, s) : s in [[3, 1, 2], [] int, [9, 7, 8, 7]]};
""", """\
qsort_by = fn : ((b, b) -> bool, [b]) -> [b] :: (a in any; b in any)
lt = fn : (a, a) -> bool :: (a in ordinal)
it = [9, 6, 5, 4, 3, 2, 1, 1] : [int]
it = [1, 1, 2, 3, 4, 5, 6, 9] : [int]
it = [1, 1, 2, 3, 4, 5, 6, 9] : [int]
shorter = fn : ([a], [b]) -> bool :: (a in any; b in any)
it = ["a", "of", "data", "nested", "parallel"] : [[char]]
it = [[1, 2, 3], [], [7, 7, 8, 9]] : [[int]]
""")

PROGRAMS = {"issue": ISSUE, "map_in_parallel": MAP_IN_PARALLEL, "iterate": ITERATE,
            "reduce": REDUCE, "sort_by": SORT_BY}


def _outcome(fn):
    buf = io.StringIO()
    try:
        fn(buf)
    except RuntimeNeslError as e:
        return buf.getvalue(), (e.message, f"{e.span.file}:{e.span.line}:{e.span.col}")
    return buf.getvalue(), None


def _expected(name):
    prog = PROGRAMS[name]
    return prog[1], (prog[2] if len(prog) > 2 else None)


def _compiled(name):
    return driver.compile_source(PROGRAMS[name][0], "t.nesl")


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_interpreter_with_function_values(name):
    got = _outcome(lambda out: run_source(PROGRAMS[name][0], "t.nesl", out=out,
                                          keep_function_args=True))
    assert got == _expected(name)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_interpreter_on_the_specialised_program(name):
    assert _outcome(lambda out: driver.run_interp(_compiled(name), out)) == _expected(name)


@pytest.mark.parametrize("fused", [False, True], ids=["unfused", "fused"])
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_lcu(name, fused):
    c = _compiled(name)
    flat = driver.flatten(c)
    if fused:
        flat, _ = driver.fuse(flat)
    assert _outcome(lambda out: driver.run_lcu(c, flat, out)) == _expected(name)


@pytest.mark.opencl
@pytest.mark.parametrize("fused", [False, True], ids=["unfused", "fused"])
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_opencl(name, fused):
    c = _compiled(name)
    flat = driver.flatten(c)
    if fused:
        flat, _ = driver.fuse(flat)
    runner = driver.make_runner("opencl")
    assert _outcome(lambda out: driver.run_lcu(c, flat, out, runner=runner)) == _expected(name)


def test_the_flattened_program_is_first_order():
    """The flattener gets one first-order function per function passed (no new construct)."""
    from nessie.types import typed_ast as T
    c = _compiled("sort_by")
    names = [it.name for it in c.mono.items if isinstance(it, T.FunDef)]
    # `<` is spelled lt: the copies for the user function lt and for `<` get distinct names
    assert names == ["qsort_by<int>[gt]", "lt<int>", "qsort_by<int>[lt]", "qsort_by<int>[lt]~2",
                     "shorter<char, char>", "qsort_by<[char]>[shorter]"]
    flat = driver.flatten(c)
    fnames = {f.name for f in flat.program.functions}
    assert {"qsort_by_int__gt_", "qsort_by_int__lt_", "qsort_by_int__lt__2",
            "qsort_by_int__lt__L", "qsort_by_int__lt__2_L"} <= fnames
