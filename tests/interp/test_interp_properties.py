"""Property tests of the builtins: against numpy's int32 arithmetic and cumulative
operations, and algebraic laws relating the sequence builtins."""
from __future__ import annotations

import math
import re
from collections import Counter

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from interp_helpers import V, call, runtime
from nessie.interp.printing import format_float
from nessie.interp.values import Seq

int32s = st.integers(min_value=-2**31, max_value=2**31 - 1)
small_ints = st.integers(min_value=-50, max_value=50)
int_lists = st.lists(int32s, max_size=40)
bool_lists = st.lists(st.booleans(), max_size=40)


def _np32(op, a, b):
    with np.errstate(over="ignore"):
        return int(op(np.int32(a), np.int32(b)))


@given(int32s, int32s)
def test_wrapping_arithmetic_matches_int32(a, b):
    assert call("+", (a, b)) == _np32(np.add, a, b)
    assert call("-", (a, b)) == _np32(np.subtract, a, b)
    assert call("*", (a, b)) == _np32(np.multiply, a, b)


@given(int32s, int32s.filter(lambda b: b != 0))
def test_division_truncates_like_c(a, b):
    q, r, m = call("/", (a, b)), call("rem", (a, b)), call("mod", (a, b))
    if not (a == -2**31 and b == -1):
        assert r == int(np.fmod(np.int64(a), np.int64(b)))
        assert q * b + r == a
        assert abs(r) < abs(b) and (r == 0 or (r < 0) == (a < 0))
    assert m == a % b
    assert m == 0 or (m < 0) == (b < 0)


@given(int_lists)
def test_plus_scan_is_exclusive_cumulative_sum(xs):
    expected = np.concatenate([[0], np.cumsum(np.array(xs, dtype=np.int32), dtype=np.int32)[:-1]]) \
        if xs else np.array([], dtype=np.int32)
    assert call("plus_scan", V(xs), "[int]") == V([int(x) for x in expected])
    assert call("sum", V(xs), "[int]") == int(np.sum(np.array(xs, dtype=np.int32), dtype=np.int32))


@given(st.lists(st.integers(-1000, 1000), min_size=1, max_size=40))
def test_max_min_scans_match_numpy(xs):
    arr = np.array(xs)
    assert list(call("max_scan", V(xs)))[1:] == list(np.maximum.accumulate(arr)[:-1])
    assert list(call("min_scan", V(xs)))[1:] == list(np.minimum.accumulate(arr)[:-1])
    assert call("max_val", V(xs)) == max(xs)
    assert call("max_index", V(xs)) == xs.index(max(xs))
    assert call("min_index", V(xs)) == xs.index(min(xs))


@given(bool_lists)
def test_boolean_scans(flags):
    ors = call("or_scan", V(flags), "[bool]")
    ands = call("and_scan", V(flags), "[bool]")
    for i in range(len(flags)):
        assert ors[i] == any(flags[:i])
        assert ands[i] == all(flags[:i])
    assert call("count", V(flags), "[bool]") == sum(flags)
    assert call("parity", V(flags), "[bool]") == (sum(flags) % 2 == 1)


@given(st.lists(small_ints, max_size=40))
def test_sort_is_a_sorted_permutation_and_rank_agrees(xs):
    s = V(xs)
    srt = call("sort", s, "[int]")
    assert list(srt) == sorted(xs)
    r = call("rank", s, "[int]")
    assert sorted(r) == list(range(len(xs)))
    assert call("permute", (s, r), "([int], [int])") == srt
    rd = call("rank_down", s, "[int]")
    assert list(call("permute", (s, rd), "([int], [int])")) == sorted(xs, reverse=True)


@given(st.lists(small_ints, max_size=30), st.randoms())
def test_permute_and_gather_are_inverse(xs, rnd):
    perm = list(range(len(xs)))
    rnd.shuffle(perm)
    permuted = call("permute", (V(xs), V(perm)))
    assert call("->", (permuted, V(perm))) == V(xs)


@given(st.lists(st.lists(small_ints, max_size=5), max_size=8))
def test_partition_flatten_roundtrip(rows):
    nested = V(rows)
    flat = call("flatten", nested, "[[int]]")
    counts = V([len(r) for r in rows])
    assert call("partition", (flat, counts)) == nested


@given(st.lists(small_ints, max_size=30))
def test_interleave_of_even_and_odd_elements(xs):
    s = V(xs)
    assert call("interleave", (call("even_elts", s), call("odd_elts", s))) == s


@given(st.lists(st.tuples(small_ints, st.booleans()), max_size=30))
def test_split_and_split_index_agree(pairs):
    xs = V([x for x, _ in pairs])
    flags = V([f for _, f in pairs])
    halves = call("split", (xs, flags))
    counts, positions = call("split_index", flags)
    assert list(counts) == [len(halves[0]), len(halves[1])]
    assert call("permute", (xs, positions)) == call("flatten", halves)
    assert halves[1] == call("pack", call("zip", (xs, flags)))


@given(st.lists(st.integers(0, 6), max_size=30))
def test_duplicates_and_names(xs):
    s = V(xs)
    marks = call("mark_duplicates", s)
    assert call("remove_duplicates", s) == call("pack", call("zip", (s, marks)))
    # the last occurrence of each value is kept, in order
    assert list(call("remove_duplicates", s)) == list(reversed(dict.fromkeys(reversed(xs))))
    names = call("name", s)
    for i in range(len(xs)):
        for j in range(len(xs)):
            assert (names[i] == names[j]) == (xs[i] == xs[j])


@given(st.lists(st.tuples(st.integers(0, 5), small_ints), max_size=30))
def test_collect_groups_every_value(pairs):
    groups = call("collect", V(pairs))
    keys = [k for k, _ in groups]
    assert keys == sorted(set(k for k, _ in pairs))
    for k, vals in groups:
        assert list(vals) == [v for kk, v in pairs if kk == k]


@given(st.lists(small_ints, max_size=20), st.integers(-50, 50))
def test_rotate_inverse(xs, i):
    s = V(xs)
    assert call("rotate", (call("rotate", (s, i)), -i)) == s
    if xs:
        assert call("rotate", (s, i))[i % len(xs)] == xs[0]


@given(st.lists(st.integers(0, 2), max_size=12), st.lists(st.integers(0, 2), min_size=1, max_size=3))
def test_search_for_subseqs(s, w):
    found = list(call("search_for_subseqs", (V(w), V(s))))
    assert found == [i for i in range(len(s) - len(w) + 1) if s[i:i + len(w)] == w]


@given(st.lists(st.integers(0, 100), min_size=1, max_size=20), st.data())
def test_kth_smallest(xs, data):
    k = data.draw(st.integers(0, len(xs) - 1))
    assert call("kth_smallest", (V(xs), k)) == sorted(xs)[k]


@given(st.lists(small_ints, max_size=20), st.lists(small_ints, max_size=20))
def test_union_intersection(a, b):
    u = list(call("union", (V(a), V(b))))
    assert set(u) == set(a) | set(b) and len(u) == len(set(u))
    i = list(call("intersection", (V(a), V(b))))
    assert set(i) == set(a) & set(b) and len(i) == len(set(i))


@given(st.floats(allow_nan=False, allow_infinity=False, min_value=-1e308, max_value=1e308))
def test_format_float_shape_and_precision(x):
    text = format_float(x)
    assert re.fullmatch(r"-?\d+\.\d+(E-?\d+)?", text), text
    back = float(text.replace("E", "e"))
    assert back == x or math.isclose(back, x, rel_tol=1e-14)
    if "E" in text:
        assert x == 0 or abs(x) >= 1e7 - 1 or abs(x) < 1e-3
        assert not text.split("E")[0].endswith("0") or text.split("E")[0].endswith(".0")
    else:
        assert not text.endswith("0") or text.endswith(".0")


@settings(max_examples=50)
@given(st.lists(st.lists(st.integers(0, 9), min_size=3, max_size=3), max_size=5))
def test_transpose_twice_is_identity(rows):
    m = V(rows)
    if rows:
        assert call("transpose", call("transpose", m)) == m


@given(st.integers(-2**31, 2**31 - 1), st.integers(-2**31, 2**31 - 1))
def test_shifts_match_int32(a, n):
    # C on x86 (CMU NESL's runtime): the count modulo 32, arithmetic right shift
    assert call("lshift", (a, n)) == int(np.left_shift(np.int32(a), np.int32(n & 31)))
    assert call("rshift", (a, n)) == a >> (n & 31)


def test_rand_sequence_is_stable_across_runtimes():
    rt1, rt2 = runtime(), runtime()
    assert [call("rand", 100, rt=rt1) for _ in range(50)] == [call("rand", 100, rt=rt2) for _ in range(50)]
    assert isinstance(call("index", 3), Seq)
    assert Counter(call("rand", 4, rt=rt1) for _ in range(4000)).keys() == {0, 1, 2, 3}
