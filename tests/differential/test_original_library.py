"""Library functions of the original NESL 3.1 that Nessie lacked (issue 10), and the more
general types of existing ones.  Each program's expected text is stated here and must be what
every backend prints: the reference interpreter (its own implementations), and flattened λcu
unfused and fused (the data-parallel functions are expanded into typed NESL over the native
core, nessie/flatten/builtins.py ``NESL_EXPANSIONS``; ``print``/``error`` and the duplicate
functions are host calls)."""
from __future__ import annotations

import pytest

from diff_harness import compare, fusion_available


def check(source: str, expected: str, error: str | None = None, where: str | None = None):
    cmp = compare(source)
    assert cmp.interp.crash is None, cmp.report()
    assert cmp.interp.out == expected, cmp.report()
    assert cmp.interp.error == error, cmp.report()
    if where is not None:
        assert cmp.interp.where == where, cmp.report()
    assert cmp.flatten_error is None, cmp.report()
    assert not cmp.mismatches(), "backends disagree\n" + cmp.report()
    if fusion_available():
        assert cmp.fused is not None


ISSUE_EXAMPLES = """\
enumerate([T,F,T,T]);
group_by([1,2,3,4,5], 2);
median([5,1,4,2,3]);
remove_duplicates([(1,2),(1,2),(3,4)]);
remove_duplicates([4, 1, 4, 2, 1, 3]);
all([3, 6, 7]);
any([3, 6, 8]);
find("b", ["a","b","c"]);
"""

ISSUE_EXAMPLES_OUT = """\
it = [0, 1, 1, 2] : [int]
it = [[1, 2], [3, 4], [5]] : [[int]]
it = 3 : int
it = [(1, 2), (3, 4)] : [(int, int)]
it = [4, 2, 1, 3] : [int]
it = 2 : int
it = 15 : int
it = 1 : int
"""


def test_the_issues_examples():
    check(ISSUE_EXAMPLES, ISSUE_EXAMPLES_OUT)


SEQUENCE_FUNCTIONS = """\
previous([1, 2, 3], 0);
rest([1, 2, 3]);
rest([] int);
join([10, 30], [0, 2], [20], [1]);
vpair(1, 2);
vpair("ab", "c");
flag_merge([F, T, T, F], [1, 4], [2, 3]);
cond_put([7, 8, 9], [0, 1, 2], [T, F, T], [0, 0, 0, 0]);
median([4, 1, 3, 2]);
median("nessie");
group_by("abcdefg", 3);
group_by([] int, 4);
all([T, T]), any([F, F]), all([] int), any([] int);
"""

SEQUENCE_FUNCTIONS_OUT = """\
it = [0, 1, 2] : [int]
it = [2, 3] : [int]
it = [] : [int]
it = [10, 20, 30] : [int]
it = [1, 2] : [int]
it = ["ab", "c"] : [[char]]
it = [1, 2, 3, 4] : [int]
it = [7, 0, 9, 0] : [int]
it = 3 : int
it = `n : char
it = ["abc", "def", "g"] : [[char]]
it = [] : [[int]]
it = (T, F, -1, 0) : bool, bool, int, int
"""


def test_sequence_functions():
    check(SEQUENCE_FUNCTIONS, SEQUENCE_FUNCTIONS_OUT)


NESTED = """\
{enumerate(fs) : fs in [[T,F,T], [] bool, [F,F,T,T]]};
{group_by(s, n) : s in [[1,2,3,4,5], [6], [] int]; n in [2, 3, 1]};
{median(s) : s in [[5,1,4,2,3], [2, 1], [7]]};
{previous(s, v) : s in ["abc", "x"]; v in "01"};
{rest(s) : s in [[1,2,3], [] int, [4]]};
{join(a, b, c, d) : a in [[10, 30], [1]]; b in [[0, 2], [0]]; c in [[20], [] int];
                    d in [[1], [] int]};
{vpair([x], [x, x]) : x in [1, 2]};
{flag_merge(g, a, b) : g in [[F,T,T,F], [T]]; a in [[1,4], [] int]; b in [[2,3], [9]]};
{cond_put(v, i, g, d) : v in [[7,8,9], [1]]; i in [[0,1,2], [0]]; g in [[T,F,T], [F]];
                        d in [[0,0,0,0], [5]]};
{remove_duplicates(s) : s in [["ab", "c", "ab"], [] [char]]};
{all(s), any(s) : s in [[3, 6, 7], [] int, [1]]};
{find(w, ws) : w in ["b", "z"]; ws in [["a","b","c"], ["z"]]};
mark_duplicates([(1, 2), (3, 4), (1, 2)]);
name(["x", "y", "x"]);
"""

NESTED_OUT = """\
it = [[0, 1, 1], [], [0, 0, 0, 1]] : [[int]]
it = [[[1, 2], [3, 4], [5]], [[6]], []] : [[[int]]]
it = [3, 2, 7] : [int]
it = ["0ab", "1"] : [[char]]
it = [[2, 3], [], []] : [[int]]
it = [[10, 20, 30], [1]] : [[int]]
it = [[[1], [1, 1]], [[2], [2, 2]]] : [[[int]]]
it = [[1, 2, 3, 4], [9]] : [[int]]
it = [[7, 0, 9, 0], [5]] : [[int]]
it = [["c", "ab"], []] : [[[char]]]
it = [(2, 7), (-1, 0), (1, 1)] : [(int, int)]
it = [1, 0] : [int]
it = [F, T, T] : [bool]
it = [2, 1, 2] : [int]
"""


def test_in_parallel_contexts():
    check(NESTED, NESTED_OUT)


PRINT = """\
print([1,2]);
print("ab");
{print(x) : x in [3, 4]};
print((1, 2.5));
"""

PRINT_OUT = """\
[1, 2] 
it = T : bool
"ab" 
it = T : bool
3 4 
it = [T, T] : [bool]
(1, 2.5) 
it = T : bool
"""


def test_print_writes_the_value_and_a_space():
    check(PRINT, PRINT_OUT)


USER_FUNCTIONS = """\
function histogram(keys) =
  let u = remove_duplicates(keys)
  in {(k, count({k == x : x in keys})) : k in u};
histogram([3, 1, 3, 2, 1, 3]);
function chunk_sums(v, n) = {sum(g) : g in group_by(v, n)};
chunk_sums([1, 2, 3, 4, 5, 6, 7], 3);
function shift_diff(v) = {x - y : x in v; y in previous(v, 0)};
shift_diff([1, 4, 9, 16]);
function positions(flags) = {i : i in enumerate(flags); fl in flags | fl};
positions([F, T, T, F, T]);
function unsplit(v, flags) = let p = split(v, flags) in flag_merge(flags, p[0], p[1]);
unsplit([5, 6, 7, 8], [T, F, F, T]);
"""

USER_FUNCTIONS_OUT = """\
histogram = fn : [a] -> [(a, int)] :: (a in ordinal)
it = [(2, 1), (1, 2), (3, 3)] : [(int, int)]
chunk_sums = fn : ([a], int) -> [a] :: (a in number)
it = [6, 15, 7] : [int]
shift_diff = fn : [int] -> [int]
it = [1, 3, 5, 7] : [int]
positions = fn : [bool] -> [int]
it = [0, 1, 2] : [int]
unsplit = fn : ([a], [bool]) -> [a] :: (a in any)
it = [5, 6, 7, 8] : [int]
"""


def test_in_user_functions():
    check(USER_FUNCTIONS, USER_FUNCTIONS_OUT)


@pytest.mark.parametrize("source,error,where", [
    ("previous([] int, 0);", "RUNTIME ERROR: Sequence reference (a[i]) out of bounds.",
     "gen.nesl:1:1"),
    ("{median(s) : s in [[1], [] int]};",
     "RUNTIME ERROR: Sequence reference (a[i]) out of bounds.", "gen.nesl:1:2"),
    ("group_by([1, 2], 0);", "RUNTIME ERROR: Divide by zero.", "gen.nesl:1:1"),
    ("group_by([1, 2], -1);",
     "RUNTIME ERROR: Counts of partition do not sum to the length of the sequence.",
     "gen.nesl:1:1"),
    ("flag_merge([T, T], [1], [2]);", "RUNTIME ERROR: Sequence reference (a[i]) out of bounds.",
     "gen.nesl:1:1"),
    ("join([1], [1], [2], [1]);",
     "RUNTIME ERROR: Index sequence of permute is not a permutation.", "gen.nesl:1:1"),
    ("cond_put([1, 2], [0], [T, T], [0, 0]);",
     "RUNTIME ERROR: Length mismatch in an apply-to-each.", "gen.nesl:1:1"),
    ("cond_put([1], [5], [T], [0, 0]);",
     "RUNTIME ERROR: Sequence reference (a[i]) out of bounds.", "gen.nesl:1:1"),
    ('{if x > 1 then error("too big") else x : x in [1, 2]};', "RUNTIME ERROR: too big",
     "gen.nesl:1:16"),
])
def test_runtime_errors_are_the_same_everywhere(source, error, where):
    check(source, "", error, where)


ERRORS = """\
function checked(x) = if x >= 0 then x else error("negative argument");
checked(4);
{checked(x) : x in [] int};
{checked(x) : x in [1, 2]};
{checked(x) : x in [1, -2]};
"""

ERRORS_OUT = """\
checked = fn : int -> int
it = 4 : int
it = [] : [int]
it = [1, 2] : [int]
"""


def test_error_stops_with_its_message_at_the_call():
    check(ERRORS, ERRORS_OUT, "RUNTIME ERROR: negative argument", "gen.nesl:1:45")
