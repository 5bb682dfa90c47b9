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
          "{let q = B; p = A in q - p : x in [5]}",
          # a pulled producer of the second of two horizontally merged MAPs (hunt 4)
          "{let a = A; b = B in (a + 1, b) : x in [1]}", "{let a = A; b = B in (b, a * 2) : x in [1]}"]
CASES = [s.replace("A", FAILING[a]).replace("B", FAILING[b]) + ";\n"
         for s in SHAPES for a in FAILING for b in FAILING if a != b]


def _same_first_failure(src: str, opencl: bool) -> None:
    """The program fails, and every backend compared reports the interpreter's error."""
    cmp = compare(src, opencl=opencl)
    assert cmp.interp.error is not None, cmp.report()    # the program does fail
    assert not cmp.mismatches(), "backends disagree\n" + cmp.report()


@pytest.mark.parametrize("src", CASES)
def test_first_failure_is_the_same_fused(src):
    _same_first_failure(src, src in CASES[::7])          # OpenCL on a seventh of them


# A failing operation of an apply-to-each followed by a nested apply-to-each that fails too
# (hunt 4): the outer operation's kernel, fused into its consumer at the end, ran after the
# nested one's kernel and reported its error.  Failing kernels now keep their order across
# clusters (``pdg.region_pdg``'s error-order edges, ``fusion._order_items``).
NESTED_SHAPES = ["{let a = A; b = {N : y in [0, 1]} in a + #b : x in [1]}",
                 "{A + sum({N : y in [x, x]}) : x in [1]}",
                 "{let a = A; b = {N : y in [0]} in #b - a : x in [1, 2]}",
                 "{let a = A; b = {y in [0, 1] | N > 0} in a + #b : x in [1]}",
                 "{let a = A; b = plus_scan({N : y in [0, 1]}) in a * #b : x in [3]}",
                 "{(A, {N : y in [x]}) : x in [1]}",
                 "{let a = {A : z in [1, 2]}; b = plus_scan({N : y in [0, 5]}) in sum(a) + sum(b) : x in [1]}"]
NESTED = {"div": "10 / (x - x)", "sub": "[1][x]", "elt": "elt([1, 2], x + 3)"}
INNER = {"div": "10 / y", "sub": "[1][y + 5]", "rem": "rem(7, y - y)"}
# two filters of one let whose predicates fail (hunt 5): the first filter, fused into its
# reduction, ran after the second's predicate MAP, which sat between them in the kernel
NESTED_SHAPES += ["{let a = {z : z in [0, 1, 2, 3] | A > 0}; b = {y in [0, 1, 2, 3] | N > 0} "
                  "in sum(a) + sum(b) : x in [3]}",
                  "{let a = {z : z in [0, 1, 2, 3] | A > 0}; b = {y in [0, 1, 2, 3] | N > 0} "
                  "in sum(b) - sum(a) : x in [3, 3]}",
                  "{let a = {A : z in [0, 1, 2, 3]}; b = {N : y in [0, 1, 2, 3]} in sum(b) + sum(a) : x in [3]}",
                  "{let (a, b) = ({A : z in [0, 1]}, {N : y in [0, 1]}) in (sum(b), sum(a)) : x in [3]}",
                  "{let a = {A : z in [0, 1]}; b = {N : y in [0, 1]} in #b + sum(a) : x in [3]}"]
NESTED_CASES = [s.replace("A", NESTED[a]).replace("N", INNER[n]) + ";\n"
                for s in NESTED_SHAPES for a in NESTED for n in INNER]


@pytest.mark.parametrize("src", NESTED_CASES)
def test_outer_failure_before_a_nested_one_fused(src):
    _same_first_failure(src, src in NESTED_CASES[::5])


# The same at top level, over a global sequence (hunt 5): the second binding's MAP ran before
# the first's filter or division when the first was fused into its reduction after it.
TOP_SHAPES = ["let a = {x : x in r | A > 0}; b = {x : x in r | B > 0} in sum(a) + sum(b)",
              "let a = {A : x in r}; b = {B : x in r} in sum(b) + sum(a)",
              "let (a, b) = ({A : x in r}, {B : x in r}) in (sum(b), sum(a))",
              "let a = {A : x in r}; b = {B : x in r} in #b + sum(a)",
              "let a = {x : x in r | A > 0}; b = {x : x in r | B > 0} in max_val(a) + sum(b)"]
TOP_FAILING = {"div": "5 / (x - 3)", "sub": "r[x + 1]", "rem": "rem(7, x - 3)"}
TOP_CASES = ["r = [0:4];\n" + s.replace("A", TOP_FAILING[a]).replace("B", TOP_FAILING[b]) + ";\n"
             for s in TOP_SHAPES for a in TOP_FAILING for b in TOP_FAILING if a != b]


@pytest.mark.parametrize("src", TOP_CASES)
def test_two_failing_bindings_at_top_level_fused(src):
    _same_first_failure(src, src in TOP_CASES[::4])


# Two apply-to-each of one outer element whose results two reductions combine (hunt 6): the
# first one's division was pulled into its reduction and its `let` dissolved (`let a = e in a`
# -> `e`), so the horizontal merge placed it at the reduction's position, after the second's
# bounds check; the subscript's error was reported instead of the division's
# (`simplify`'s ``keep``: a pulled producer's failing ``let`` stays).
INSTANCE_SHAPES = [
    "{let b = {A : x in r}; c = {B : x in r} in sum(b) + sum(c) : r in m}",
    "{let b = {A : x in r}; c = {B : x in r} in sum(b) * sum(c) : r in m}",
    "{let b = {A : x in r}; c = {B : x in r} in (sum(b), sum(c)) : r in m}",
    "{let b = {A : x in r}; c = {B : x in r} in max_val(b) + max_val(c) : r in m}",
    "{let b = {A : x in r}; c = {B : x in r} in count({y > 0 : y in b}) + sum(c) : r in m}",
    "{let b = {A : x in r}; c = {B : x in r} in plus_scan(b) ++ plus_scan(c) : r in m}",
    "{{let b = {A : x in r}; c = {B : x in r} in sum(b) + sum(c) : r in m} : q in [1, 2]}",
    "{let b = {A : x in r}; c = {B : x in r} in sum(c) + sum(b) : r in m}"]
INSTANCE_FAILING = {"div": "1 / x", "rem": "rem(10, x)", "sub": "r[x + 1]", "sub0": "[1][x + 1]"}
INSTANCE_CASES = [f"m = {m};\n" + s.replace("A", INSTANCE_FAILING[a]).replace("B", INSTANCE_FAILING[b])
                  + ";\n" for m in ("[[0]]", "[[5, 1], [0]]") for s in INSTANCE_SHAPES
                  for a in INSTANCE_FAILING for b in INSTANCE_FAILING if a != b]
INSTANCE_CASES += [
    "function g(s) = let b = {1 / x : x in s}; c = {s[x + 1] : x in s} in sum(b) + sum(c);\n"
    "{g(s) : s in [[0]]};\n",
    "function g(s, v) = let b = {1 / x : x in s}; c = {v[x + 1] : x in s} in sum(b) + sum(c);\n"
    "{g(s, v) : s in [[0], [2]]; v in [[1], [3]]};\n",
    "m = [[0]];\n{let p = print_string(\"hi\"); b = {1 / x : x in r}; c = {r[x + 1] : x in r} "
    "in sum(b) + sum(c) : r in m};\n"]


@pytest.mark.parametrize("src", INSTANCE_CASES)
def test_two_failing_apply_to_each_of_one_instance_fused(src):
    _same_first_failure(src, src in INSTANCE_CASES[::6])


# A put / write whose (index, value) pairs an apply-to-each computes, both parts failing (hunt
# 7): the index MAP was pulled into the SCATTER's index thunk, which runs after its value thunk,
# so the value's error was reported (`rewrite._thunk_order_kept`).
PUT_SHAPES = ["[0] <- {(A, B) : x in [0]}", "write([0], {(A, B) : x in [0]})",
              "[0] <- {let i = A; v = B in (i, v) : x in [0]}",
              "[(0, 0)] <- {(0 * A, (B, 0)) : x in [0]}",
              "let p = print_string(\"a\") in [0] <- {(0 * A, B) : x in [0]}",
              "{[0] <- {(0 * A, B) : x in [y]} : y in [0, 0]}",
              "{s <- {(0 * A, B) : x in s} : s in [[0, 1, 2, 3], [0]]}",
              "[0, 0, 0] <- {(B, A) : x in [0]}"]
PUT_FAILING = {"div": "(10 / x)", "sub": "[1][x + 1]", "rem": "rem(1, x)", "isqrt": "isqrt(x - 1)"}
PUT_CASES = [s.replace("A", PUT_FAILING[a]).replace("B", PUT_FAILING[b]) + ";\n"
             for s in PUT_SHAPES for a in PUT_FAILING for b in PUT_FAILING if a != b]


@pytest.mark.parametrize("src", PUT_CASES)
def test_put_of_two_failing_parts_fused(src):
    _same_first_failure(src, src in PUT_CASES[::5])
