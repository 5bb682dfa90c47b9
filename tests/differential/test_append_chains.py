"""Appends in an apply-to-each (issue 9): a chain ``a ++ b ++ c`` is one pass over its result,
and each operand is read where it is -- an element of a nested sequence (``r[0]``), a value
seen through a branch or an inner apply-to-each, a sequence the same for every instance -- not
gathered into a contiguous copy first (quicksort's ``result[0] ++ equal ++ result[1]``: four
passes per recursion level became two, then one).  Every backend prints what the interpreter
prints, fused and unfused."""
import pytest

from diff_harness import assert_same
from nessie import driver

PROGRAMS = [
    # chains of 2, 3, 4 operands, left- and right-nested, with empty operands and segments
    "{a ++ b ++ c : a in [[1], [], [2, 3]]; b in [[4, 5], [], []]; c in [[6], [7], []]};\n",
    "{a ++ (b ++ (c ++ a)) : a in [[1], [], [2, 3]]; b in [[4, 5], [], []]; c in [[6], [7], []]};\n",
    "{(a ++ b) ++ (c ++ [0]) : a in [[1], [], [2, 3]]; b in [[4, 5], [], [9]]; c in [[6], [7], []]};\n",
    # elements of nested sequences (read through an index map), mixed with uniform operands
    "let r = [[[1, 2], [3]], [[], [4]], [[5], []]] in {x[1] ++ [0, 0] ++ x[0] : x in r};\n",
    "let u = [7, 8] in {x[0] ++ u ++ x[1] ++ u : x in [[[1, 2], [3]], [[], []], [[5], [6, 6]]]};\n",
    # sequences of sequences and of tuples
    "{a ++ [[0]] ++ a : a in [[[1, 2], []], [], [[3]]]};\n",
    "{a ++ b ++ a : a in [[(1, `a), (2, `b)], []]; b in [[(3, `c)], [(4, `d), (5, `e)]]};\n",
    "{a ++ \"-\" ++ b : a in [\"ab\", \"\", \"c\"]; b in [\"x\", \"yz\", \"\"]};\n",
    # operands seen through a branch and an inner apply-to-each
    "{if #a > 1 then a ++ [0] ++ a else a ++ a : a in [[1, 2], [3], [], [4, 5, 6]]};\n",
    "{{a ++ [j] ++ a : j in [0:#a]} : a in [[1, 2], [3], []]};\n",
    # floats, and a chain whose operands are user-function calls (batched)
    "function dbl(x) = {y * 2.0 : y in x};\n"
    "{dbl(a) ++ dbl(b) ++ a : a in [[1.5], [], [2.5, 3.5]]; b in [[0.5], [1.0], []]};\n",
    # quicksort, the chain on the way up out of the recursion
    "function qs(a) = if #a < 2 then a else let p = a[#a / 2]; "
    "r = {qs(v) : v in [{e in a | e < p}, {e in a | e > p}]} "
    "in r[0] ++ {e in a | e == p} ++ r[1];\n"
    "qs([5, 3, 9, 1, 5, 7, 2, 8, 8, 0, -4, 3]);\n{qs(x) : x in [[3, 1, 2], [], [1], [2, 2, 1]]};\n",
    # an error after appends: reported alike
    "let r = {a ++ b ++ a : a in [[1], [2, 3]]; b in [[4], []]} in {x[3] : x in r};\n",
]


@pytest.mark.opencl
@pytest.mark.parametrize("k", range(len(PROGRAMS)))
def test_backends_agree(k):
    cmp = assert_same(PROGRAMS[k], opencl=True)
    if k == len(PROGRAMS) - 1:
        assert cmp.interp.error is not None and "bounds" in cmp.interp.error.lower(), cmp.report()


def _lifted(src, name):
    c = driver.compile_source(src, "t.nesl")
    (f,) = [f for f in driver.flatten(c).program.functions if f.name.startswith(name)]
    return str(f)


def test_a_chain_of_three_is_one_combine_over_its_operands():
    """The mechanism: ``r[0] ++ e ++ r[1]`` in a context builds one descriptor of the result
    lengths and one combine reading the three operands in place, none gathered first."""
    src = ("function g(r, e) = {x[0] ++ y ++ x[1] : x in r; y in e};\n"
           "g([[[1], [2]]], [[3]]);\n")
    f = _lifted(src, "g")
    assert f.count("make_sd(alen") == 1, f
    assert "glen" not in f, f                   # no segments gathered out of x before
