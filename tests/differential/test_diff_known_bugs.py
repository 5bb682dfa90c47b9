"""Known differences between the reference interpreter and flattened λcu, found by the
differential tests (generated programs and probes), each as a minimal NESL program.

Cases still open are ``xfail(strict=True)``: the suite stays green while the bug exists, and turns red
(XPASS) as soon as it is fixed, so that the marker is removed and the case becomes a regression
test.  The generator in ``nesl_gen`` avoids these constructs unless ``Config(explore=True)``.
"""
from __future__ import annotations

import pytest

from diff_harness import compare


def bug(name: str, src: str, reason: str):
    return pytest.param(src, id=name, marks=pytest.mark.xfail(strict=True, reason=reason))


def fixed(name: str, src: str, reason: str):
    """A difference found by the differential tests and fixed since: a regression test (``fixed``)."""
    return pytest.param(src, id=name)


KNOWN = [
    # ------------------------------------------- builtins applied once for a context
    fixed("write-uniform-in-empty-context", "{[1, 2] <- [(7, 1)] : x in [] int};\n",
        "a builtin whose arguments are the same for every instance runs once on the host; a "
        "write out of bounds then failed for an apply-to-each over nothing (interp: [])"),
    fixed("write-uniform-in-untaken-branch",
        "function upd(tbl, k, flag) = if flag then tbl <- [(k, 0)] else tbl;\n"
        "{upd([1, 2], 7, b) : b in [F, F]};\n{upd([1, 2], 1, b) : b in [F, T]};\n"
        "{upd([1, 2], 7, b) : b in [F, T]};\n",
        "the same write in a branch no instance takes failed; where one instance takes it, it "
        "writes (or fails) as on the interpreter"),
    fixed("get-uniform-in-untaken-branch",
        "function look(tbl, ks, flag) = if flag then tbl -> ks else tbl;\n"
        "{look([1, 2], [7], b) : b in [F, F]};\n{look([1, 2], [1, 0], b) : b in [T, F]};\n",
        "tbl -> ks (a gather) with uniform arguments in an untaken branch failed"),
    fixed("uniform-builtins-in-filtered-context",
        "s = [1, 2];\n{s <- [(7, 1)] : x in [5] | x > 10};\n{get(s, [9]) : x in [] int};\n"
        "{write([[1], [2]], [(7, [3])]) : x in [] int};\n"
        "{{[1, 2] <- [(7, 1)] : x in [0:n]} : n in [0, 0]};\n"
        "{if x > 100 then [1, 2] <- [(-1, 1)] else [x] : x in [1]};\n",
        "the same with a top-level sequence, a filter keeping nothing, nested values, a nested "
        "empty context and a conditional"),
    # ---------------------------------------------------------------- flattener crashes
    fixed("eql-on-tuples", "eql((1, 2), (1, 2));\n",
        "flatten: eql on tuple values crashes (AttributeError: 'Scalar' object has no attribute "
        "'items' in the eql expansion); the interpreter prints T"),
    fixed("eql-on-tuples-lifted", "{eql((x, 2), (1, 2)) : x in [1, 2]};\n",
        "flatten: eql on tuples inside apply-to-each crashes the same way"),
    fixed("snoc-of-tuples", "snoc([(1, 2)], (3, 4));\n",
        "flatten: snoc of a tuple element crashes (AttributeError: 'Scalar' object has no "
        "attribute 'items'); the interpreter prints [(1, 2), (3, 4)] (cons works)"),

    # ---------------------------------------------------------------- wrong results
    fixed("range-length-overflow", "[max_int : min_int];\n[min_int : max_int : 1000000000];\n",
        "λcu computes a range's length in int32 and it wraps: [max_int : min_int] gives "
        "[2147483647] (interp: []) and [min_int : max_int : 1000000000] gives [] (interp: five "
        "elements); lengths are meant to be 64-bit internally"),
    fixed("range-length-overflow-lifted", "{[x : x + 3] : x in [max_int]};\n",
        "the same in a lifted range: [x : x + 3] with x = max_int (the end wraps to a negative "
        "number) is [[]] on the interpreter, three elements on λcu"),
    fixed("lifted-permute-no-length-check", "{permute(v, [0, 1, 2]) : v in [[1, 2]]};\n",
        "a lifted permute whose index sequence is longer than the data silently returns "
        "[[1, 2]]; the interpreter reports 'Index sequence of permute is not a permutation.'"),
    fixed("lifted-permute-short-index", "{permute(v, [0]) : v in [[1, 2]]};\n",
        "a lifted permute with a short index sequence fails with 'Sequence reference (a[i]) out "
        "of bounds.' and no source position (interp: not a permutation, at the call)"),
    fixed("isqrt-negative", "isqrt(-4);\n",
        "isqrt of a negative int is a runtime error on the interpreter ('isqrt of a negative "
        "number.'), 0 on λcu"),
    fixed("isqrt-negative-lifted", "{isqrt(x) : x in [4, -4]};\n",
        "the same inside apply-to-each: λcu prints [2, 0]"),
    fixed("float-to-int-out-of-range", "floor(2.5e10);\nround(1.0e20);\n{trunc(x) : x in [-3.0e9]};\n",
        "out-of-range float -> int conversion: the interpreter wraps modulo 2^32 (floor(2.5e10) = "
        "-769803776), λcu (numpy cast) gives min_int; one of them (or an error) must be chosen"),
    fixed("float-sum-order", "sum({0.1 : i in [0:1000]});\n",
        "float sum: the interpreter adds left to right (99.9999999999986), λcu uses numpy's "
        "pairwise summation (100.0); results differ whenever rounding happens"),
    fixed("float-sum-order-lifted", "{sum({0.1 : i in [0:n]}) : n in [10, 1000]};\n",
        "the same for segmented sums"),
    fixed("sort-with-nan", "sort([3.0, 0.0 / 0.0, 1.0]);\n",
        "sort of floats with a NaN: the interpreter returns [3.0, nan, 1.0] (Python's sort), λcu "
        "[1.0, 3.0, nan] (numpy)"),
    fixed("rank-with-nan", "rank([1.0, 0.0 / 0.0, 0.5]);\n",
        "rank with a NaN: interp [0, 1, 2], λcu [1, 2, 0]"),
    fixed("max-with-nan", "{max(x, 1.0) : x in [0.0 / 0.0, 2.0]};\n",
        "max/min with a NaN: the interpreter's max(nan, 1.0) is 1.0 (Python's max; max(1.0, nan) "
        "is nan, so not even commutative), λcu's is nan (numpy.maximum)"),
    fixed("max-val-with-nan", "max_val([1.0, 0.0 / 0.0, 2.0]);\nmin_val([0.0 / 0.0, 1.0]);\n",
        "max_val/min_val with a NaN: interp 2.0 and 1.0, λcu nan and nan"),
    fixed("max-scan-with-nan", "max_scan([1.0, 0.0 / 0.0, 2.0, 3.0]);\n",
        "max_scan with a NaN: interp [-inf, 1.0, 1.0, 2.0], λcu [-inf, 1.0, nan, nan]"),

    fixed("filter-invariant-error-on-empty", "{x : x in [] int | [t][3]};\n",
        "a filter that does not depend on the element and fails ([t][3] is out of range) is "
        "evaluated by λcu even though the sequence is empty (runtime error); the interpreter "
        "evaluates it per element, i.e. never, and prints []"),
    fixed("filter-invariant-error-on-empty-nested", "{{y : y in [] int | [t][3]} : x in [1, 2]};\n",
        "the same one level down: interp [[], []], λcu out of bounds"),
    fixed("print-seq-of-tuple-with-seq-first", "[([1], 2)];\n",
        "run_lcu's printing (driver._seq_len, commit d83eedf) crashes on any sequence of tuples "
        "whose first component is a sequence (TypeError: object of type 'SegDes' has no len())"),
    fixed("print-empty-seq-of-tuple-with-seq-first", "[] ([int], bool);\n",
        "the same for an empty one"),
    fixed("max-min-signed-zero", "max(-0.0, 0.0);\nmin(0.0, -0.0);\n{max(x, 0.0) : x in [-0.0]};\n"
        "max_val([-0.0, 0.0]);\n",
        "max/min/max_val of -0.0 and 0.0: the interpreter returns the first of two equal "
        "arguments (-0.0, 0.0, [-0.0], -0.0), λcu the other one (0.0, -0.0, [0.0], 0.0)"),
    fixed("rand-two-call-sites", "{(rand(100), rand(100)) : i in [0:3]};\n"
          "{(rand(j), rand(j)) : j in [10, 100, 1000]};\n",
        "two rand call sites in one apply-to-each: the interpreter drew element by element "
        "(site 1, site 2, site 1, ...), λcu site by site, so the pairs differed (issue 10: the "
        "interpreter evaluates drawing bodies vector-wise, nessie/interp/vector.py)"),
    fixed("rand-in-lifted-recursion", "function r(n) = if n <= 0 then rand(10) else r(n - 1) + rand(10);\n"
        "{r(n) : n in [2, 0, 1]};\n",
        "rand in a recursive function mapped over a sequence: different draws on the two backends"),

    # ---------------------------------------------------------------- fusion only
    fixed("fused-check-after-scatter", "{a : a in [0:1]; b in ([0:2] <- [(1, 7)])};\n",
        "fused only: the apply-to-each's length check runs after a fused kernel that already "
        "assumes equal lengths, so the in-range write into [0:2] fails with 'Write (<-): index "
        "out of bounds.' instead of 'Length mismatch in an apply-to-each.' (unfused is right)"),
    fixed("fused-check-after-gather", "{a : a in dist([1], 4); b in [[1], [2], [3]]};\n",
        "fused only: same ordering problem with a gather: 'Sequence reference (a[i]) out of "
        "bounds.' with no source position instead of the length mismatch"),

    # ---------------------------------------------------------------- runtime error messages
    fixed("permute-message", "permute([1, 2, 3], [0, 0, 1]);\n",
        "message differs: interp 'Index sequence of permute is not a permutation.', λcu "
        "'Permute: the index sequence is not a permutation.'"),
    fixed("permute-length-message", "permute([1, 2], [0]);\n",
        "message differs: interp 'Index sequence of permute is not a permutation.', λcu "
        "'Length mismatch in permute.'"),
    fixed("partition-message", "partition([1, 2, 3], [1, 1]);\n",
        "message differs: interp 'Counts of partition do not sum to the length of the "
        "sequence.', λcu 'Partition counts do not sum to the length of the sequence.'"),
    fixed("partition-negative-count", "partition([1, 2, 3], [2, -1, 2]);\n",
        "message differs: interp 'Counts of partition do not sum ...', λcu 'Negative segment "
        "length.'"),
    fixed("partition-count-overflow", "partition([1, 2], [max_int, 5]);\n",
        "λcu crashes with a Python OverflowError (int32 sum of the counts) instead of the "
        "partition runtime error"),
    fixed("write-out-of-range-message", "[1, 2] <- [(2, 0)];\n",
        "message differs: interp 'Sequence reference (a[i]) out of bounds.', λcu 'Write (<-): "
        "index out of bounds.' (the lifted <- already uses the interpreter's message)"),
    fixed("zip-length-message", "zip([1, 2], [1]);\n",
        "message differs: interp 'Length mismatch in an apply-to-each.', λcu 'Length mismatch "
        "in zip.'"),
    # ---------------------------------------------------------------- found by the session-17 hunt
    fixed("print-order-in-apply-to-each",
          '{print_string(@x) and print_string("-") : x in [1, 2]};\n'
          '{if x > 1 then print_string("b") else print_string("s") : x in [1, 2]};\n'
          'function pr(n) = if n == 0 then t else let ok = print_string(@n) in pr(n - 1);\n'
          '{pr(n) : n in [2, 3]};\n',
          "output inside an apply-to-each: the interpreter printed element by element (1-2-, sb, "
          "21321), the flattening backends in the flattened order (12--, bs, 23121); output is "
          "now ordered as the draws of rand are, on every backend"),
    fixed("select-and-identity-at-any-type",
          "select(t, [1], [2, 3]);\nselect(f, (1, 2.0), (3, 4.0));\n"
          "{select(b, [x], [y, y]) : b in [t, f]; x in [1, 2]; y in [3, 4]};\n"
          "identity([1]);\nidentity((1, 2));\n{identity(s) : s in [\"a\", \"b\"]};\n"
          "{select(b, (x, [x]), (y, [y, x])) : b in [t, f, t]; x in [1, 2, 3]; y in [4, 5, 6]};\n",
          "flatten: select and identity of a sequence or a tuple crashed (TypeError: not a base "
          "type); select : (bool, a, a) -> a :: (a in any)"),
    fixed("segdes-printed",
          "make_segdes(3);\nsegs = {make_segdes(#row) : row in [[1, 2], [3]]};\n"
          "(make_segdes(0), 5);\n",
          "a segdes result crashed the flattening backends' printer (TypeError: expected a "
          "segdes, got 3); the interpreter prints segdes(3)"),

    # ---------------------------------------------------------------- found by the session-20 hunt
    fixed("int-power-error-located",
          "function p(a, b) = a ^ b;\n{p(a, b) : a in [2, 0]; b in [2, -2]};\n",
          "0 ^ -1 (int) failed with 'Divide by zero.' and no source position on the flattening "
          "backends (the pow prim was built without its location); the interpreter points at "
          "a ^ b"),
    fixed("int-power-error-located-top", "{2 ^ b : b in [3, 0]};\n0 ^ -1;\n",
          "the same at top level"),
    fixed("min-max-index-with-nan",
          "min_index([5.0, 3.0, 0.0/0.0, 1.0]);\n"
          "{max_index(r) : r in [[1.0], [5.0, 0.0/0.0, 9.0]]};\n"
          "{min_index(r) : r in [[0.0/0.0, 1.0], [2.0, 0.0/0.0], [0.0/0.0], [], "
          "[1.0/0.0, 0.0/0.0, 1.0/0.0], [3.0, -0.0, 0.0, 0.0/0.0, -0.0]]};\n"
          "{max_index(r) : r in [[0.0/0.0, 1.0], [2.0, 0.0/0.0], [-1.0/0.0, 0.0/0.0, -1.0/0.0], "
          "[3.0, -0.0, 0.0, 0.0/0.0, 3.0]]};\n",
          "min_index/max_index's combining operator was not associative with a NaN (a NaN "
          "accumulator blocked every later value), so λcu's pairwise tree gave 1 where the "
          "interpreter's left fold gives 3; a later NaN now competes as +inf (-inf)"),
    fixed("nan-order-in-rank-down-kth-collect",
          "rank_down([1.0, 0.0/0.0, 2.0]);\n"
          "{rank_down(r) : r in [[0.0/0.0, -1.0/0.0], [3.0, 0.0/0.0, 3.0, -0.0, 0.0]]};\n"
          "kth_smallest([0.0/0.0, 1.0], 0);\nmedian([0.0/0.0, 1.0, 2.0]);\n"
          "collect([(1.0, 1), (0.0 / 0.0, 2), (0.0, 3), (0.0 / 0.0, 4), (1.0, 5)]);\n",
          "the interpreter ordered NaN inconsistently in rank_down (raw Python order), "
          "kth_smallest/median (sorted without the NaN-last key) and collect (raw key order); "
          "the flattening backends put NaN last"),
    fixed("nan-equality-of-a-named-nan",
          "nan = 0.0 / 0.0;\neql([nan], [nan]);\neql((nan, 1), (nan, 1));\n"
          "remove_duplicates([nan, nan, 1.0, 1.0]);\nmark_duplicates([nan, 1.0, nan, 1.0]);\n"
          "intersection([nan, 1.0], [nan, 1.0]);\nunion([nan, 1.0], [nan, 2.0]);\n"
          "find([nan], [[1.0], [nan]]);\nsearch_for_subseqs([nan], [nan, 1.0]);\n"
          "collect([(nan, 1), (nan, 2)]);\n",
          "the interpreter compared a NaN bound to a name equal to itself inside sequences and "
          "tuples (Python's container equality and dicts check identity first): eql([nan], "
          "[nan]) was T; a NaN now equals nothing, as = says, on every backend"),

]


@pytest.mark.parametrize("src", KNOWN)
def test_known_difference(src):
    cmp = compare(src, filename="bug.nesl")
    assert cmp.interp.crash is None, cmp.report()
    assert not cmp.mismatches(), cmp.report()
