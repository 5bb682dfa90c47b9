"""Hand-written differential programs in the style of the CMU NESL examples: each must print the
same on the reference interpreter and on flattened λcu (unfused and fused).  A few expected
values are checked as well, so that the two backends cannot agree on a wrong answer."""
from __future__ import annotations

import pytest

from diff_harness import compare, fusion_available

STRING_SEARCH = """
% Segmented string search: every position of every pattern in a text.  The candidate positions
  of one pattern are tested in parallel, each test compares the pattern's characters in parallel,
  and all the patterns are searched at once (three levels of apply-to-each, irregular lengths). %
function occurs_at(s, p, i) = all({s[i + j] == c : c in p; j in [0:#p]});

function search(s, p) =
  if #p == 0 then [] int
  else {i in [0:#s - #p + 1] | occurs_at(s, p, i)};

text = "the cat sat on the mat with the hat";
search(text, "at");
{search(text, p) : p in ["the", "at", "xyz", "t", "", "hat"]};
{#search(text, p) : p in ["the", "at", "xyz", "t"]};
% searching in several texts at once %
{{search(s, p) : p in ["ab", "b"]} : s in ["abab", "", "b", "aabba"]};
"""

NESTED_SIEVE = """
% Primes below each n, by trial division against every candidate divisor (nested, irregular:
  each candidate has its own number of divisors, each n its own candidates). %
function is_prime(x) = x > 1 and all({mod(x, d) /= 0 : d in [2:isqrt(x) + 1]});
function primes_below(n) = {x in [0:n] | is_prime(x)};

{primes_below(n) : n in [10, 0, 30, 2, 3]};
{#primes_below(n) : n in [100, 1000]};

% Sieve of Eratosthenes, recursive on sqrt(n), with the multiples scattered by <- %
function sieve(n) =
  if n < 4 then {i in [2:n]}
  else
    let ps = sieve(isqrt(n - 1) + 1);
        multiples = flatten({[2 * p : n : p] : p in ps});
        flags = dist(t, n) <- {(m, f) : m in multiples}
    in drop({i in [0:n]; fl in flags | fl}, 2);
{sieve(n) : n in [20, 3, 50]};
eql(sieve(500), primes_below(500));
"""

HISTOGRAM = """
% Histograms of several key sets at once: by counting, and by sorting and scattering the run
  lengths (segment boundaries found by comparing neighbours). %
function hist_count(keys, nbins) = {count({k == b : k in keys}) : b in [0:nbins]};

function hist_sort(keys, nbins) =
  let s = sort(keys);
      n = #s;
      starts = {i in [0:n] | i == 0 or s[max(i - 1, 0)] /= s[i]};
      ends = {i in [0:n] | i == n - 1 or s[min(i + 1, n - 1)] /= s[i]}
  in dist(0, nbins) <- {(s[a], e - a + 1) : a in starts; e in ends};

keysets = [[3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5], [] int, [0, 0, 0], [9, 8, 7, 7]];
{hist_count(k, 10) : k in keysets};
{hist_sort(k, 10) : k in keysets};
all({eql(hist_count(k, 10), hist_sort(k, 10)) : k in keysets});
% float values into bins %
{trunc(x * 4.0) : x in [0.1, 0.5, 0.99, 0.25, 0.75]};
hist_count({trunc(x * 4.0) : x in [0.1, 0.5, 0.99, 0.25, 0.75]}, 4);
"""

MERGESORT = """
% Mergesort: both halves are sorted in parallel by {msort(x) : x in [a, b]}; the merge is
  parallel too: each element's final position is its index plus the number of elements of the
  other sequence that go before it, and the result is one permute. %
function merge(a, b) =
  let pa = {i + count({y < x : y in b}) : x in a; i in [0:#a]};
      pb = {j + count({x <= y : x in a}) : y in b; j in [0:#b]}
  in permute(a ++ b, pa ++ pb);

function msort(s) =
  if #s < 2 then s
  else
    let h = #s / 2;
        halves = {msort(x) : x in [take(s, h), drop(s, h)]}
    in merge(halves[0], halves[1]);

msort([5, 3, 9, 1, 5, 0, -2, 8, 3]);
msort([] int);
msort("mergesort");
{msort(r) : r in [[3, 2, 1], [] int, [7], [2, 2, 1, 1], [10, -10, 0, 5, -5, 3]]};
data = {mod(i * 7919, 101) - 50 : i in [0:300]};
eql(msort(data), sort(data));
msort([2.5, -1.0, 0.0, 2.5, -3.25]);
"""

TREE_DEPTH = """
% Recursion whose depth differs per element: the depth of an implicit tree whose node n has
  children n / 2 and n / 3 (only those smaller than n), computed for many roots at once. %
function depth(n) =
  if n < 2 then 1
  else 1 + max_val({depth(c) : c in [n / 2, n / 3] | c < n});

{depth(n) : n in [0:20]};
{depth(n) : n in [1000, 1, 37, 0, 4096]};

% sizes of the same trees: a sum over a recursion tree of irregular shape %
function size(n) = if n < 2 then 1 else 1 + sum({size(c) : c in [n / 2, n / 3]});
{size(n) : n in [0, 1, 2, 10, 100]};

% a nested recursion: the Ackermann-like tower, each element with a different depth %
function tower(k, xs) =
  if k <= 0 then xs
  else tower(k - 1, flatten({[x, x + k] : x in xs}));
{#tower(k, [0]) : k in [0, 3, 1, 5]};
{tower(k, [k]) : k in [0:4]};
"""

NESTED_QSORT = """
% Quicksort of every row of an irregular matrix at once: the recursion is lifted over the rows,
  each of which recurses to its own depth (empty and one-element rows stop at once). %
function qsort(a) =
  if #a < 2 then a
  else
    let p = a[#a / 2];
        r = {qsort(v) : v in [{e in a | e < p}, {e in a | e > p}]}
    in r[0] ++ {e in a | e == p} ++ r[1];

rows = [[5, 1, 4], [] int, [9, 9, 1, 0, 3, 3, 7, 2, 8], [1], [2, 1]];
{qsort(r) : r in rows};
{#qsort(r) : r in rows};
{qsort({mod(i * 37, 23) : i in [0:n]}) : n in [0, 1, 5, 30]};
"""

LINE_OF_SIGHT = """
% Line of sight (from the NESL examples): which points of a terrain are visible from the first
  one; a max_scan over the angles, per terrain, for several terrains of different lengths. %
function visible(alt) =
  let h0 = alt[0];
      angles = {float(a - h0) / float(max(i, 1)) : a in alt; i in [0:#alt]};
      best = max_scan(angles)
  in {i == 0 or x >= m : x in angles; m in best; i in [0:#alt]};

visible([10, 11, 13, 12, 20, 14]);
{visible(h) : h in [[0, 1, 2, 3], [5, 4, 6], [3], [1, 10, 2, 30, 3, 40]]};
{count(visible(h)) : h in [[0, 1, 2, 3], [5, 4, 6], [3], [1, 10, 2, 30, 3, 40]]};
"""

BITONIC = """
% Batcher's odd-even merge sort on sequences whose length is a power of two: recursive calls on
  the halves in parallel, odd_elts/even_elts/interleave, and a compare-exchange per pair. %
function oddeven_merge(a) =
  if #a <= 2 then (if #a == 2 and a[0] > a[1] then [a[1], a[0]] else a)
  else
    let m = {oddeven_merge(x) : x in [even_elts(a), odd_elts(a)]};
        e = m[0];
        o = m[1];
        n = #e;
        lo = {if i == 0 then e[0] else max(e[i], o[i - 1]) : i in [0:n]};
        hi = {if i == n - 1 then o[i] else min(e[i + 1], o[i]) : i in [0:n]}
    in interleave(lo, hi);

function oesort(a) =
  if #a <= 1 then a
  else
    let h = #a / 2;
        s = {oesort(x) : x in [take(a, h), drop(a, h)]}
    in oddeven_merge(s[0] ++ s[1]);

oesort([7, 3, 6, 2, 8, 1, 5, 4]);
oesort([4, 4, 1, 1]);
{oesort(r) : r in [[2, 1], [9], [3, 1, 2, 0], [5, 6, 7, 8, 1, 2, 3, 4, 9, 9, 0, 0, 1, 1, 2, 2]]};
"""

SEGMENTED_OPS = """
% Segmented primitives on irregular nested data, with tuples and patterns. %
m = [[1, 2, 3], [] int, [4], [5, 6], [] int, [7, 8, 9, 10]];
{(sum(r), #r, plus_scan(r)) : r in m};
{{(x, i) : x in r; i in [0:#r] | oddp(x + i)} : r in m};
{(a, b) in zip({#r : r in m}, {max_val(r) : r in m}) | a > 0};
{reverse(r) ++ r : r in m};
{take(r, min(2, #r)) : r in m};
partition(flatten(m), {#r : r in m});
{permute(r, reverse([0:#r])) : r in m};
{r <- {(i, -1) : i in [0:#r:2]} : r in m};
{{if i < #r then r[i] else 0 : i in [0:3]} : r in m};
{dist(#r, #r) : r in m};
{sort(r) : r in ["zyx", "", "banana"]};
{rank(r) : r in [[3.5, 1.0, 2.0], [] float]};
{(x, y) : (x, y) in [(1, 2.5), (3, -1.0)] | y > 0.0};
(a, b) = unzip([(1, `a), (2, `b)]);
a;
"""

ERRORS_NOT_TAKEN = """
% Branches that would fail on the wrong elements must not be evaluated there, at any depth. %
function safe_div(a, b) = if b == 0 then 0 else a / b;
function at(v, i) = if 0 <= i and i < #v then v[i] else -1;
{safe_div(10, b) : b in [2, 0, -3, 0]};
{{at(v, i) : i in [-1:4]} : v in [[1, 2], [] int, [5, 6, 7, 8, 9]]};
{if #v > 0 then v[#v - 1] else 0 : v in [[1, 2], [] int, [3]]};
{x in [0, 1, 2, 3] | if x == 0 then t else 12 / x > 4};   % `or` is strict: no guard %
function f_rec(n, v) = if n <= 0 or #v == 0 then 0 else v[0] + f_rec(n - 1, drop(v, 1));
{f_rec(n, v) : n in [3, 5, 0]; v in [[1, 2, 3, 4], [1], [] int]};
"""

RUNTIME_ERROR_NESTED = """
% A subscript out of range deep inside nested apply-to-each: both backends report it at the
  same place, after printing the results before it. %
function g(v, i) = v[i];
ok = {g(v, 0) : v in [[1], [2, 3]]};
{{g(v, i) : i in [0:3]} : v in [[1, 2, 3], [4, 5]]};
ok;
"""

RUNTIME_ERROR_RECURSIVE = """
% Division by zero reached by only one element of a lifted recursion. %
function down(n, d) = if n <= 0 then 100 / d else down(n - 1, d - 1);
{down(n, 3) : n in [0, 1, 2]};
{down(n, 3) : n in [0, 1, 3, 2]};
"""

LENGTH_MISMATCH = """
% Generators of different lengths in one apply-to-each, inside a function mapped over rows. %
function pairsum(a, b) = {x + y : x in a; y in b};
{pairsum(r, r) : r in [[1, 2], [3]]};
{pairsum(r, [1, 2]) : r in [[1, 2], [3]]};
"""

PROGRAMS = {
    "string_search": (STRING_SEARCH, ["it = [5, 9, 20, 33] : [int]",
                                      "it = [3, 4, 0, 8] : [int]"]),
    "nested_sieve": (NESTED_SIEVE, ["it = [25, 168] : [int]", "it = T : bool"]),
    "histogram": (HISTOGRAM, ["it = T : bool"]),
    "mergesort": (MERGESORT, ["it = [-2, 0, 1, 3, 3, 5, 5, 8, 9] : [int]", 'it = "eegmorrst" : [char]',
                              "it = T : bool"]),
    "tree_depth": (TREE_DEPTH, ["it = [1, 1, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4, 5, 5, 5, 5] : [int]",
                                  "it = [1, 1, 3, 9, 65] : [int]"]),
    "nested_qsort": (NESTED_QSORT, ["it = [[1, 4, 5], [], [0, 1, 2, 3, 3, 7, 8, 9, 9], [1], [1, 2]] : [[int]]"]),
    "line_of_sight": (LINE_OF_SIGHT, []),
    "oddeven_mergesort": (BITONIC, ["it = [1, 2, 3, 4, 5, 6, 7, 8] : [int]", "it = [1, 1, 4, 4] : [int]",
                                    "it = [[1, 2], [9], [0, 1, 2, 3], [0, 0, 1, 1, 1, 2, 2, 2, 3, 4, 5, "
                                    "6, 7, 8, 9, 9]] : [[int]]"]),
    "segmented_ops": (SEGMENTED_OPS, []),
    "errors_not_taken": (ERRORS_NOT_TAKEN, ["it = [5, 0, -3, 0] : [int]"]),
    "runtime_error_nested": (RUNTIME_ERROR_NESTED, []),
    "runtime_error_recursive": (RUNTIME_ERROR_RECURSIVE, []),
    "length_mismatch": (LENGTH_MISMATCH, []),
}

EXPECTED_ERRORS = {
    "runtime_error_nested": "RUNTIME ERROR: Sequence reference (a[i]) out of bounds.",
    "runtime_error_recursive": "RUNTIME ERROR: Divide by zero.",
    "length_mismatch": "RUNTIME ERROR: Length mismatch in an apply-to-each.",
}


@pytest.mark.parametrize("fused", [False, True], ids=["unfused", "fused"])
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_handwritten(name, fused):
    src, expected_lines = PROGRAMS[name]
    cmp = compare(src, fused=fused, filename=f"{name}.nesl")
    assert cmp.interp.crash is None, cmp.report()
    assert not cmp.mismatches(), cmp.report()
    lines = cmp.interp.out.splitlines()
    for line in expected_lines:
        assert line in lines, f"expected {line!r}\n" + cmp.report()
    assert cmp.interp.error == EXPECTED_ERRORS.get(name), cmp.report()
