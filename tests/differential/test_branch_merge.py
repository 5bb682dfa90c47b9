"""A conditional whose condition varies across an apply-to-each splits the instances, runs each
branch on its part and merges the results back in instance order.  When the results hold
sequences and every instance went the same way, the merge (a copy of every element) is skipped:
that branch's result is already in order (issue 9: quicksort's upper recursion levels, where no
instance has finished yet).  Every backend prints what the interpreter prints, fused and
unfused, whichever way the instances go."""
import pytest

from diff_harness import assert_same
from nessie import driver

PROGRAMS = [
    # all instances take the then branch, all the else branch, a mix, none (empty context)
    "{if #a > 0 then a ++ [0] else [1, 2] : a in [[3], [4, 5]]};\n",
    "{if #a > 9 then a else {x * 2 : x in a} : a in [[3], [4, 5], []]};\n",
    "{if #a > 1 then reverse(a) else a ++ a : a in [[3], [4, 5], [], [6, 7, 8]]};\n",
    "{if #a > 1 then a else [0] : a in [] [int]};\n",
    # sequences of tuples and of sequences, strings, sequences inside tuples
    "{if b then [(1, a)] else [(2, a), (3, a)] : a in \"xyz\"; b in [t, t, t]};\n",
    "{if #a == 2 then [a, a] else [a] : a in [[1, 2], [3, 4]]};\n",
    "{if #s > 2 then (#s, s) else (0, \"\") : s in [\"ab\", \"c\", \"\"]};\n",
    # nested: an inner conditional over elements inside an outer one over instances
    "{if #a > 1 then {if x > 2 then [x] else [] int : x in a} else [[9]] : a in [[1, 3], [5, 2]]};\n",
    # recursion whose levels go one way, then both: quicksort on sorted, equal and mixed data
    "function qs(a) = if #a < 2 then a else let p = a[#a / 2]; "
    "r = {qs(v) : v in [{e in a | e < p}, {e in a | e > p}]} "
    "in r[0] ++ {e in a | e == p} ++ r[1];\n"
    "qs([1, 2, 3, 4, 5, 6, 7, 8]);\nqs(dist(7, 6));\nqs([9, 1, 8, 2, 7, 3, 6, 4, 5, 0]);\n"
    "{qs(x) : x in [[2, 1], [], [3, 3, 1], [5]]};\n",
    # an error inside a branch that every instance takes
    "{if #a > 0 then [a[5]] else [0] : a in [[1], [2, 3]]};\n",
]


@pytest.mark.opencl
@pytest.mark.parametrize("k", range(len(PROGRAMS)))
def test_backends_agree(k):
    cmp = assert_same(PROGRAMS[k], opencl=True)
    if k == len(PROGRAMS) - 1:
        assert cmp.interp.error is not None and "bounds" in cmp.interp.error.lower(), cmp.report()


def test_the_merge_of_sequences_is_skipped_when_one_side_is_empty():
    src = "function g(xs) = {if #a > 1 then a ++ a else [0] : a in xs};\ng([[1, 2]]);\n"
    c = driver.compile_source(src, "t.nesl")
    (f,) = [f for f in driver.flatten(c).program.functions if f.name == "g"]
    text = str(f)
    assert "if nf_" in text and "== 0" in text, text
    # scalar results keep the one merge kernel (fused with what surrounds it)
    src = "function h(xs) = {if x > 1 then x else 0 : x in xs};\nh([1, 2]);\n"
    c = driver.compile_source(src, "t.nesl")
    (f,) = [f for f in driver.flatten(c).program.functions if f.name == "h"]
    assert "== 0 then" not in str(f), str(f)
