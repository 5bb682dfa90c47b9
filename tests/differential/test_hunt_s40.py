"""Hunt s40: CMU-style programs that combine less common builtins and shapes (records holding
sequences, 3- and 4-deep nesting with empty segments, tail recursion through two call sites at the call-depth limit,
NaN and -0.0 through the ordering builtins, characters above 127, reductions and scans over
several OpenCL chunks).  The hunt found no disagreement; these pin the combinations down on the
interpreter, λcu unfused and fused, and OpenCL unfused and fused, with a few expected values so
that the backends cannot agree on a wrong answer."""
from __future__ import annotations

import pytest

from diff_harness import compare

RECORDS = """\
datatype emp([char], int, [float]);
datatype dept([char], [emp]);
es = [emp("ann", 3, [1.5, 2.0]), emp("bob", 1, [] float), emp("cy", 2, [0.5])];
d = [dept("x", es), dept("y", [] emp), dept("z", take(es, 1))];
{sum({sum(s) : emp(n2, a, s) in e}) : dept(n, e) in d};
es <- [(1, emp("dan", 9, [9.0]))];
partition(es, [1, 0, 2]);
{@x : x in es};
{dept(n ++ "!", reverse(e)) : dept(n, e) in d};
function oldest(e) = e[max_index({a : emp(_, a, _) in e})];
{oldest(e) : dept(_, e) in d | #e > 0};
collect([(1, emp("m", 1, [1.0])), (0, emp("n", 2, [] float))]);
"""

DEEP = """\
x = [[[[1, 2], [] int], [] [int]], [] [[int]], [[[3]], [[4, 5, 6], [7]]]];
{{{plus_scan(d) : d in c} : c in b} : b in x};
{{{max_val([-1] ++ d) : d in c | #d > 0} : c in b} : b in x};
{{{reverse(d) : d in reverse(c)} : c in reverse(b)} : b in reverse(x)};
{{{{a + #d + #c + #b : a in d} : d in c} : c in b} : b in x};
{{{d -> {0 : a in d} : d in c} : c in b} : b in x};
{{{if #d > 1 then d[1] else 1 / #d : d in c} : c in b} : b in x};
"""

TAIL_LIMIT = """\
function loop(i, acc) = if i == 0 then acc else (if oddp(i) then loop(i - 1, acc + 1) else loop(i - 1, acc));
loop(9999, 0);
{loop(i, 0) : i in [31, 5, 0]};
loop(10000, 0);
"""

NAN_ORDER = """\
n = 0.0 / 0.0;
xs = [3.0, n, -1.0, 0.0, -0.0, n, 2.0];
max_val(xs), min_val(xs), max_index(xs), min_index(xs);
sort(xs);
rank(xs), rank_down(xs);
max_scan(xs), min_scan(xs);
{max_val(s), max_index(s) : s in [[n, 1.0], [1.0, n], [n]]};
remove_duplicates(xs), mark_duplicates([0.0, -0.0, n, n]);
find(n, xs), find(-0.0, xs), median([n, 1.0, 2.0]);
{sort(s) : s in [[n, 2.0, 1.0], [-0.0, 0.0]]};
"""

HIGH_CHARS = """\
cs = {code_char(i) : i in [200, 255, 128, 127, 0, 10, 9, 34, 96, 92]};
{char_code(c) : c in sort(cs)};
rank(cs), max_index(cs), min_index(cs);
{char_code(c) : c in max_scan(cs)};
{c : c in cs | c > `z};
"""

CHUNKS = """\
xs = {rem(i * 7919, 1000) : i in [0:70000]};
sum(xs), max_index(xs), min_index(xs), sum(plus_scan(xs));
ys = dist(7, 70000);
max_index(reverse(ys) <- [(69999, 8)]), min_index(ys <- [(50000, 6), (60000, 6)]);
segs = {[0:rem(i, 7)] : i in [0:10000]};
sum({max_index(s ++ [6]) : s in segs}), sum({min_index([9] ++ s) : s in segs});
sum(flatten({plus_scan(s) : s in segs}));
"""

PROGRAMS = {"records": RECORDS, "deep": DEEP, "tail_limit": TAIL_LIMIT, "nan_order": NAN_ORDER,
            "high_chars": HIGH_CHARS, "chunks": CHUNKS}

EXPECT = {
    "records": ["it = [4.0, 0.0, 3.5] : [float]"],
    "deep": ["it = [[[[7, 8], []], []], [], [[[7]], [[11, 12, 13], [12]]]] : [[[[int]]]]"],
    "tail_limit": ["it = 5000 : int", "it = [16, 3, 0] : [int]"],
    "nan_order": ["it = [-1.0, 0.0, -0.0, 2.0, 3.0, nan, nan] : [float]"],
    "high_chars": ["it = [0, 9, 10, 34, 92, 96, 127, 128, 200, 255] : [int]"],
    "chunks": [],
}

ERRORS = {"deep": "Divide by zero", "tail_limit": "recursion too deep"}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_hunt_s40_programs_agree(name):
    cmp = compare(PROGRAMS[name], opencl=True)
    assert cmp.interp.crash is None, cmp.report()
    assert not cmp.mismatches(), "backends disagree\n" + cmp.report()
    for line in EXPECT[name]:
        assert line in cmp.interp.out, cmp.report()
    if name in ERRORS:
        assert cmp.interp.error is not None and ERRORS[name] in cmp.interp.error, cmp.report()
    else:
        assert cmp.interp.error is None, cmp.report()
