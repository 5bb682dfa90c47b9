"""One or more example per NESL builtin, mostly from the NESL 3.1 manual and NESL.md.

Each case is ``(name, argument, expected, argument type or None)`` with values written in
Python: lists are sequences, tuples right-nested NESL tuples, ``S("..")`` strings,
one-character strings chars.
"""
from __future__ import annotations

import math

import pytest

from interp_helpers import S, V, call, runtime
from nessie.diagnostics import RuntimeNeslError
from nessie.interp.builtins import BUILTINS
from nessie.interp.values import SegDes, Seq

MIN32, MAX32 = -2**31, 2**31 - 1
T, F = True, False

CASES = [
    # arithmetic
    ("+", (2, 3), 5, None),
    ("+", (MAX32, 1), MIN32, None),
    ("+", (1.5, 2.25), 3.75, None),
    ("-", (3, 5), -2, None),
    ("-", (MIN32, 1), MAX32, None),
    ("*", (3, -4), -12, None),
    ("*", (65536, 65536), 0, None),
    ("*", (0.5, 3.0), 1.5, None),
    ("/", (7, 2), 3, None),
    ("/", (-7, 2), -3, None),
    ("/", (7, -2), -3, None),
    ("/", (MIN32, -1), MIN32, None),
    ("/", (1.0, 4.0), 0.25, None),
    ("/", (1.0, 0.0), math.inf, None),
    ("rem", (-7, 3), -1, None),
    ("rem", (7, -3), 1, None),
    ("rem", (7, 3), 1, None),
    ("mod", (-7, 3), 2, None),
    ("mod", (7, -3), -2, None),
    ("mod", (7, 3), 1, None),
    ("^", (2, 10), 1024, None),
    ("^", (2, 31), MIN32, None),
    ("^", (3, 0), 1, None),
    ("^", (1.5, 2), 2.25, None),
    ("^", (2.0, -1), 0.5, None),
    ("^", (2, -1), 0, None),
    ("^", (-1, -3), -1, None),
    ("negate", 5, -5, None),
    ("negate", MIN32, MIN32, None),
    ("negate", 2.5, -2.5, None),
    ("abs", -3, 3, None),
    ("abs", -2.5, 2.5, None),
    ("abs", MIN32, MIN32, None),
    ("diff", (3, 10), 7, None),
    ("diff", (10, 3), 7, None),
    ("diff", (1.5, 4.0), 2.5, None),
    ("max", (3, 7), 7, None),
    ("max", ("a", "c"), "c", None),
    ("max", (2.5, -1.0), 2.5, None),
    ("min", (3, 7), 3, None),
    ("min", ("a", "c"), "a", None),
    # comparisons
    ("==", (3, 3), T, None),
    ("==", ("a", "b"), F, None),
    ("==", (1.0, 1.0), T, None),
    ("/=", (3, 4), T, None),
    ("/=", (3, 3), F, None),
    ("<", (3, 4), T, None),
    ("<", ("b", "a"), F, None),
    (">", (3, 4), F, None),
    (">", (2.5, 1.0), T, None),
    ("<=", (4, 4), T, None),
    (">=", (3, 4), F, None),
    # logical (bool and bitwise int)
    ("not", T, F, None),
    ("not", 0, -1, None),
    ("not", 5, -6, None),
    ("and", (T, F), F, None),
    ("and", (12, 10), 8, None),
    ("or", (F, T), T, None),
    ("or", (12, 10), 14, None),
    ("xor", (T, T), F, None),
    ("xor", (12, 10), 6, None),
    ("nor", (F, F), T, None),
    ("nor", (0, 0), -1, None),
    ("nand", (T, T), F, None),
    ("nand", (12, 10), -9, None),
    # predicates
    ("plusp", 3, T, None),
    ("plusp", 0, F, None),
    ("plusp", 0.5, T, None),
    ("minusp", -1, T, None),
    ("minusp", 0.0, F, None),
    ("zerop", 0, T, None),
    ("zerop", 0.0, T, None),
    ("zerop", 2, F, None),
    ("oddp", 3, T, None),
    ("oddp", -3, T, None),
    ("oddp", 4, F, None),
    ("evenp", -4, T, None),
    ("evenp", 7, F, None),
    # shifts
    ("lshift", (1, 4), 16, None),
    ("lshift", (1, 31), MIN32, None),
    ("lshift", (3, 40), 768, None),       # the count modulo 32, as C on x86 (CMU NESL)
    ("lshift", (8, -1), 0, None),
    ("lshift", (1, 33), 2, None),
    ("rshift", (16, 2), 4, None),
    ("rshift", (-16, 2), -4, None),
    ("rshift", (-1, 40), -1, None),
    ("rshift", (8, -1), 0, None),
    ("rshift", (-8, 33), -4, None),
    # float functions
    ("sqrt", 16.0, 4.0, None),
    ("isqrt", 17, 4, None),
    ("isqrt", 16, 4, None),
    ("isqrt", 0, 0, None),
    ("ln", 1.0, 0.0, None),
    ("ln", 0.0, -math.inf, None),
    ("log", (8.0, 2.0), 3.0, None),
    ("log", (100.0, 10.0), 2.0, None),
    ("exp", 0.0, 1.0, None),
    ("expt", (2.0, 0.5), math.sqrt(2.0), None),
    ("expt", (2.0, 10.0), 1024.0, None),
    ("sin", 0.0, 0.0, None),
    ("cos", 0.0, 1.0, None),
    ("tan", 0.0, 0.0, None),
    ("asin", 1.0, math.pi / 2, None),
    ("acos", 1.0, 0.0, None),
    ("atan", 1.0, math.pi / 4, None),
    ("sinh", 0.0, 0.0, None),
    ("cosh", 0.0, 1.0, None),
    ("tanh", 0.0, 0.0, None),
    # conversions
    ("btoi", T, 1, None),
    ("btoi", F, 0, None),
    ("code_char", 97, "a", None),
    ("code_char", 32, " ", None),
    ("char_code", "a", 97, None),
    ("char_code", "\n", 10, None),
    ("float", 3, 3.0, None),
    ("float", -7, -7.0, None),
    ("ceil", 2.1, 3, None),
    ("ceil", -2.1, -2, None),
    ("floor", 2.9, 2, None),
    ("floor", -2.1, -3, None),
    ("trunc", -2.9, -2, None),
    ("trunc", 2.9, 2, None),
    ("round", 2.4, 2, None),
    ("round", 2.6, 3, None),
    ("round", -2.6, -3, None),
    ("round", 2.5, 2, None),
    ("round", 3.5, 4, None),
    ("select", (T, (1, 2)), 1, None),
    ("select", (F, (1, 2)), 2, None),
    ("identity", 5, 5, None),
    ("identity", [1, 2], [1, 2], None),
    ("first", (1, 2.5), 1, None),
    # sequences: construction and access
    ("#", [1, 2, 3], 3, None),
    ("#", [], 0, "[int]"),
    ("length", [[1], [2, 3]], 2, None),
    ("dist", (5, 3), [5, 5, 5], None),
    ("dist", ([1, 2], 2), [[1, 2], [1, 2]], None),
    ("dist", (T, 0), [], None),
    ("elt", ([4, 5, 6], 1), 5, None),
    ("rep", ([2, 11, 4, 5], 9, 1), [2, 9, 4, 5], None),
    ("zip", ([1, 2], [3.0, 4.0]), [(1, 3.0), (2, 4.0)], None),
    ("unzip", [(1, 3.0), (2, 4.0)], ([1, 2], [3.0, 4.0]), None),
    ("zip3", ([1, 2], [3, 4], [5, 6]), [(1, 3, 5), (2, 4, 6)], None),
    ("index", 5, [0, 1, 2, 3, 4], None),
    ("index", 0, [], None),
    ("iseq", (1, 3, 12), [1, 4, 7, 10], None),
    ("iseq", (10, -3, 0), [10, 7, 4, 1], None),
    ("iseq", (5, 1, 5), [], None),
    # scans: all exclusive
    ("plus_scan", [1, 3, 5, 7], [0, 1, 4, 9], None),
    ("plus_scan", [1.5, 2.5], [0.0, 1.5], None),
    ("plus_scan", [MAX32, 1, 1], [0, MAX32, MIN32], None),
    ("plus_scan", [], [], "[int]"),
    ("mult_scan", [1, 2, 3, 4], [1, 1, 2, 6], None),
    ("mult_scan", [2.0, 3.0], [1.0, 2.0], None),
    ("max_scan", [3, 1, 4, 1, 5], [MIN32, 3, 3, 4, 4], None),
    ("max_scan", [1.0, 2.0], [-math.inf, 1.0], None),
    ("min_scan", [3, 1, 4], [MAX32, 3, 1], None),
    ("min_scan", [3.0], [math.inf], None),
    ("or_scan", [F, T, F], [F, F, T], None),
    ("or_scan", [1, 2, 4], [0, 1, 3], None),
    ("and_scan", [T, T, F, T], [T, T, T, F], None),
    ("and_scan", [7, 6, 4], [-1, 7, 6], None),
    ("xor_scan", [T, T, F, T], [F, T, F, F], None),
    ("xor_scan", [1, 3, 4], [0, 1, 2], None),
    # reductions
    ("sum", [1, 2, 3], 6, None),
    ("sum", [MAX32, 1], MIN32, None),
    ("sum", [1.5, 2.5], 4.0, None),
    ("sum", [], 0, "[int]"),
    ("sum", [], 0.0, "[float]"),
    ("product", [1, 2, 3, 4], 24, None),
    ("product", [], 1, "[int]"),
    ("product", [], 1.0, "[float]"),
    ("max_val", [3, 9, 2], 9, None),
    ("max_val", [], MIN32, "[int]"),
    ("max_val", [], -math.inf, "[float]"),
    ("max_val", list("hello"), "o", None),
    ("min_val", [3, 9, 2], 2, None),
    ("min_val", [], MAX32, "[int]"),
    ("min_val", [], math.inf, "[float]"),
    ("any", [F, T, F], T, None),
    ("any", [], F, "[bool]"),
    ("all", [T, F], F, None),
    ("all", [], T, "[bool]"),
    ("count", [T, F, T], 2, None),
    ("count", [], 0, "[bool]"),
    ("parity", [T, F, T], F, None),
    ("parity", [T, F, F], T, None),
    ("max_index", [3, 9, 2, 9], 1, None),
    ("max_index", [2.0, 1.0], 0, None),
    ("min_index", [3, 1, 2, 1], 1, None),
    ("min_index", [], -1, "[int]"),
    # gathers and scatters
    ("->", ([1, 2, 3, 4, 5, 6, 7, 8], [0, 2, 4]), [1, 3, 5], None),
    ("->", (S("an example"), [7, 0, 8, 3]), S("pale"), None),
    ("read", ([1, 2, 3], [2, 2, 0]), [3, 3, 1], None),
    ("get", (S("abc"), [2, 0]), S("ca"), None),
    ("permute", (S("abc"), [2, 0, 1]), S("bca"), None),
    ("permute", ([], []), [], "([int], [int])"),
    ("<-", ([0, 0, 0, 0, 0, 0], [(0, 2), (2, 4), (4, 8)]), [2, 0, 4, 0, 8, 0], None),
    ("<-", ([0, 0], [(1, 5), (1, 7)]), [0, 7], None),
    ("write", (S("an example"), [(4, "s"), (2, "d"), (3, " ")]), S("and sample"), None),
    ("put", (S("xy"), [0, 2], S("abc")), S("xby"), None),
    ("rotate", ([1, 2, 3, 4], 1), [4, 1, 2, 3], None),
    ("rotate", ([1, 2, 3, 4], -1), [2, 3, 4, 1], None),
    ("rotate", ([1, 2, 3], 5), [2, 3, 1], None),
    ("rotate", ([], 3), [], "([int], int)"),
    ("reverse", [1, 2, 3], [3, 2, 1], None),
    ("pack", [(1, T), (2, F), (3, T)], [1, 3], None),
    ("++", ([1, 2], [3]), [1, 2, 3], None),
    ("++", (S("ab"), S("")), S("ab"), None),
    ("append", ([[1]], [[2, 3]]), [[1], [2, 3]], None),
    ("cons", (1, [2, 3]), [1, 2, 3], None),
    ("snoc", ([1, 2], 3), [1, 2, 3], None),
    ("subseq", (S("abcdef"), 1, 4), S("bcd"), None),
    ("subseq", (S("abc"), 2, 2), S(""), None),
    ("take", ([1, 2, 3, 4], 2), [1, 2], None),
    ("take", ([1, 2], 0), [], None),
    ("drop", ([1, 2, 3, 4], 2), [3, 4], None),
    ("drop", ([1, 2], 5), [], None),
    ("odd_elts", [0, 1, 2, 3, 4], [1, 3], None),
    ("even_elts", [0, 1, 2, 3, 4], [0, 2, 4], None),
    ("interleave", ([1, 3, 5], [2, 4, 6]), [1, 2, 3, 4, 5, 6], None),
    ("interleave", ([0, 2, 4], [1, 3]), [0, 1, 2, 3, 4], None),
    ("head_rest", [1, 2, 3], (1, [2, 3]), None),
    ("rest_tail", [1, 2, 3], ([1, 2], 3), None),
    # nested sequences
    ("partition", ([1, 2, 3, 4, 5, 6], [2, 3, 1]), [[1, 2], [3, 4, 5], [6]], None),
    ("partition", ([1, 2], [0, 2, 0]), [[], [1, 2], []], None),
    ("flatten", [[1, 2], [], [3]], [1, 2, 3], None),
    ("split", ([1, 2, 3, 4], [T, F, T, F]), [[2, 4], [1, 3]], None),
    ("split_index", [T, F, T, F], ([2, 2], [2, 0, 3, 1]), None),
    ("pack_index", [F, T, T, F], [1, 2], None),
    ("bottop", [1, 2, 3, 4, 5], [[1, 2, 3], [4, 5]], None),
    ("bottop", [1, 2, 3, 4], [[1, 2], [3, 4]], None),
    ("length_from_flags", [T, F, F, T, F, T, F, F], [3, 2, 3], None),
    ("transpose", [[1, 2, 3], [4, 5, 6]], [[1, 4], [2, 5], [3, 6]], None),
    ("make_segdes", 3, SegDes(3), None),
    ("nest", ([1, 2, 3, 4, 5], [SegDes(2), SegDes(0), SegDes(3)]), [[1, 2], [], [3, 4, 5]], None),
    # sorting, searching, sets
    ("sort", [3, 1, 2, 1], [1, 1, 2, 3], None),
    ("sort", S("nesl"), S("elns"), None),
    ("sort", [2.5, -1.0], [-1.0, 2.5], None),
    ("rank", [8, 3, 5], [2, 0, 1], None),
    ("rank", [1, 0, 1], [1, 0, 2], None),
    ("rank_down", [8, 3, 5], [0, 2, 1], None),
    ("rank_down", [1, 0, 1], [0, 2, 1], None),
    ("collect", [(2, "a"), (0, "b"), (2, "c")], [(0, S("b")), (2, S("ac"))], None),
    ("int_collect", [(3, 1.0), (1, 2.0), (3, 3.0)], [(1, [2.0]), (3, [1.0, 3.0])], None),
    ("kth_smallest", ([5, 1, 4, 2], 1), 2, None),
    ("kth_smallest", ([5, 1, 4, 2], 3), 5, None),
    ("find", (3, [1, 3, 5, 3]), 1, None),
    ("find", (9, [1, 3]), -1, None),
    ("search_for_subseqs", (S("foo"), S("afoobarfoo")), [1, 7], None),
    ("search_for_subseqs", (S("aa"), S("aaa")), [0, 1], None),
    ("search_for_subseqs", (S("xyz"), S("ab")), [], None),
    # the original keeps the element that name() labels, the last occurrence
    ("remove_duplicates", [1, 5, 1, 2, 5], [1, 2, 5], None),
    ("remove_duplicates", [4, 1, 4, 2, 1, 3], [4, 2, 1, 3], None),
    ("mark_duplicates", [1, 5, 1, 2, 5], [F, F, T, T, T], None),
    ("union", ([1, 2, 3], [3, 4, 1]), [1, 2, 3, 4], None),
    ("intersection", ([1, 2, 3, 2], [2, 3, 4]), [2, 3], None),
    ("name", [5, 7, 5, 9, 7], [2, 4, 2, 3, 4], None),
    ("remove_duplicates", [(1, 2), (1, 2), (3, 4)], [(1, 2), (3, 4)], None),
    ("remove_duplicates", [S("ab"), S("c"), S("ab")], [S("c"), S("ab")], None),
    ("find", (S("b"), [S("a"), S("b"), S("c")]), 1, None),
    ("any", [3, 6, 8], 15, None),
    ("all", [3, 6, 7], 2, None),
    ("all", [], -1, "[int]"),
    # more of the original's library (issue 10)
    ("enumerate", [T, F, T, T], [0, 1, 1, 2], None),
    ("group_by", ([1, 2, 3, 4, 5], 2), [[1, 2], [3, 4], [5]], None),
    ("group_by", ([], 3), [], "[int], int"),
    ("median", [5, 1, 4, 2, 3], 3, None),
    ("median", [4, 1, 3, 2], 3, None),
    ("previous", ([1, 2, 3], 0), [0, 1, 2], None),
    ("rest", [1, 2, 3], [2, 3], None),
    ("rest", [], [], "[int]"),
    ("join", ([10, 30], ([0, 2], ([20], [1]))), [10, 20, 30], None),
    ("vpair", (1, 2), [1, 2], None),
    ("flag_merge", ([F, T, T, F], ([1, 4], [2, 3])), [1, 2, 3, 4], None),
    ("cond_put", ([7, 8, 9], ([0, 1, 2], ([T, F, T], [0, 0, 0, 0]))), [7, 0, 9, 0], None),
    ("eql", (([1, 2], [[3]]), ([1, 2], [[3]])), T, None),
    ("eql", ([[1], []], [[1], [2]]), F, None),
    # search_for_subseqs' loop: the candidates c where s[c + i ..] matches w[i ..]
    ("next_char", ([0, 1, 2, 3], (S("ab"), (S("abab"), 0))), [0, 2], None),
    ("next_char", ([0, 1], (S("ab"), (S("abab"), 2))), [0, 1], None),
    ("next_char", ([], (S("x"), (S(""), 0))), [], "[int], [char], [char], int"),
    # characters and strings
    ("lowercase", "A", "a", None),
    ("lowercase", "1", "1", None),
    ("uppercase", "z", "Z", None),
    ("uppercase", "Q", "Q", None),
    ("@", 42, S("42"), "int"),
    ("@", 2.5, S("2.5"), "float"),
    ("@", [1, 2], S("[1, 2]"), "[int]"),
    ("@", (T, "a"), S("(T, `a)"), "bool, char"),
    ("||", (S("ab"), 4), S("  ab"), None),
    ("||", (S("ab"), -4), S("ab  "), None),
    ("||", (S("abc"), 2), S("abc"), None),
    ("string_eql", (S("ab"), S("ab")), T, None),
    ("string_eql", (S("ab"), S("abc")), F, None),
    ("parse_int", S("42"), (42, T), None),
    ("parse_int", S("-7"), (-7, T), None),
    ("parse_int", S(" 12 "), (12, T), None),
    ("parse_int", S("4x"), (0, F), None),
    ("parse_int", S(""), (0, F), None),
    ("parse_float", S("2.5"), (2.5, T), None),
    ("parse_float", S("1e-3"), (0.001, T), None),
    ("parse_float", S("-3"), (-3.0, T), None),
    ("parse_float", S("2."), (2.0, T), None),
    ("parse_float", S("abc"), (0.0, F), None),
    ("exp_string", (1234.5, 2), S("1.23E3"), None),
    ("exp_string", (0.00025, 1), S("2.5E-4"), None),
    ("linify", S("ab\ncd\n"), [S("ab"), S("cd")], None),
    ("linify", S("ab\n\ncd"), [S("ab"), S(""), S("cd")], None),
    ("wordify", S("  the cat\tsat\n"), [S("the"), S("cat"), S("sat")], None),
]

# Builtins whose behaviour is not a pure function of the argument: tested below.
TESTED_SEPARATELY = {
    "rand", "rand_seed", "hash", "print_string", "print_char", "print_line", "write_string",
    "print", "error",
    "read_int_seq_from_file", "read_float_seq_from_file", "write_string_to_file",
    "read_string_from_file",
    # the original's library I/O and bound_box (tests/cli/test_original_output.py)
    "read_string", "prompt", "bounding_box",
}


def _values_equal(a, b) -> bool:
    """Equality treating NaN as equal to NaN and distinguishing int/float/bool."""
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or math.isclose(a, b, rel_tol=1e-15, abs_tol=0.0) or a == b
    if type(a) is not type(b):
        return False
    if isinstance(a, Seq):
        return len(a) == len(b) and all(_values_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, tuple):
        return all(_values_equal(x, y) for x, y in zip(a, b))
    return a == b


@pytest.mark.parametrize("name,arg,expected,arg_type", CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_builtin_case(name, arg, expected, arg_type):
    result = call(name, V(arg), arg_type)
    assert _values_equal(result, V(expected)), f"{name}({arg!r}) = {result!r}, expected {expected!r}"


def test_every_builtin_has_a_case():
    covered = {c[0] for c in CASES} | TESTED_SEPARATELY
    assert sorted(set(BUILTINS) - covered) == []


def test_nan_results():
    assert math.isnan(call("sqrt", -1.0))
    assert math.isnan(call("/", (0.0, 0.0)))
    assert call("exp", 1000.0) == math.inf


def test_int_results_are_ints_not_bools():
    assert type(call("btoi", True)) is int
    assert type(call("count", V([True]))) is int
    assert type(call("plusp", 3)) is bool


def test_64_bit_words():
    rt = runtime(int_bits=64)
    assert call("+", (2**31 - 1, 1), rt=rt) == 2**31
    assert call("+", (2**63 - 1, 1), rt=rt) == -2**63
    assert call("max_val", V([]), "[int]", rt=rt) == -2**63
    assert call("^", (2, 63), rt=rt) == -2**63


def test_float_to_int_of_non_finite_is_min_int():
    assert call("trunc", math.nan) == MIN32
    assert call("round", math.inf) == MIN32
    assert call("floor", 3e10) == call("floor", 3e10)  # wraps, does not raise


# --------------------------------------------------------------------------------- errors

ERROR_CASES = [
    ("/", (1, 0), "RUNTIME ERROR: Divide by zero."),
    ("rem", (1, 0), "RUNTIME ERROR: Divide by zero."),
    ("mod", (1, 0), "RUNTIME ERROR: Divide by zero."),
    ("^", (0, -1), "RUNTIME ERROR: Divide by zero."),
    ("elt", ([1, 2], 2), "RUNTIME ERROR: Sequence reference (a[i]) out of bounds."),
    ("elt", ([1, 2], -1), "RUNTIME ERROR: Sequence reference (a[i]) out of bounds."),
    ("->", ([1, 2], [0, 5]), "RUNTIME ERROR: Sequence reference (a[i]) out of bounds."),
    ("<-", ([1, 2], [(2, 0)]), "RUNTIME ERROR: Sequence reference (a[i]) out of bounds."),
    ("rep", ([1, 2], 0, 3), "RUNTIME ERROR: Sequence reference (a[i]) out of bounds."),
    ("take", ([1, 2], 3), "RUNTIME ERROR: Sequence reference (a[i]) out of bounds."),
    ("subseq", ([1, 2], -1, 1), "RUNTIME ERROR: Sequence reference (a[i]) out of bounds."),
    ("head_rest", [], "RUNTIME ERROR: Sequence reference (a[i]) out of bounds."),
    ("kth_smallest", ([1], 1), "RUNTIME ERROR: Sequence reference (a[i]) out of bounds."),
    ("permute", ([1, 2, 3], [0, 0, 1]), "RUNTIME ERROR: Index sequence of permute is not a permutation."),
    ("permute", ([1, 2, 3], [0, 1, 3]), "RUNTIME ERROR: Index sequence of permute is not a permutation."),
    ("permute", ([1, 2, 3], [0, 1]), "RUNTIME ERROR: Index sequence of permute is not a permutation."),
    ("partition", ([1, 2, 3], [1, 1]),
     "RUNTIME ERROR: Counts of partition do not sum to the length of the sequence."),
    ("partition", ([1, 2, 3], [4, -1]),
     "RUNTIME ERROR: Counts of partition do not sum to the length of the sequence."),
    ("zip", ([1, 2], [1]), "RUNTIME ERROR: Length mismatch in an apply-to-each."),
    ("split", ([1, 2], [True]), "RUNTIME ERROR: Length mismatch in an apply-to-each."),
    ("transpose", [[1, 2], [3]], "RUNTIME ERROR: Length mismatch in an apply-to-each."),
    ("interleave", ([1], [1, 2]), "RUNTIME ERROR: Length mismatch in an apply-to-each."),
    ("isqrt", -4, "RUNTIME ERROR: isqrt of a negative number."),
    ("iseq", (0, 0, 5), "RUNTIME ERROR: Divide by zero."),
    ("group_by", ([1, 2], 0), "RUNTIME ERROR: Divide by zero."),
    ("group_by", ([1, 2], -1),
     "RUNTIME ERROR: Counts of partition do not sum to the length of the sequence."),
    ("median", [], "RUNTIME ERROR: Sequence reference (a[i]) out of bounds."),
    ("previous", ([], 0), "RUNTIME ERROR: Sequence reference (a[i]) out of bounds."),
    ("flag_merge", ([True, True], ([1], [2])),
     "RUNTIME ERROR: Sequence reference (a[i]) out of bounds."),
    ("join", ([1], ([1], ([2], [1]))), "RUNTIME ERROR: Index sequence of permute is not a permutation."),
    ("cond_put", ([1, 2], ([0], ([True, True], [0, 0]))),
     "RUNTIME ERROR: Length mismatch in an apply-to-each."),
    ("error", S("boom"), "RUNTIME ERROR: boom"),
]


@pytest.mark.parametrize("name,arg,message", ERROR_CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(ERROR_CASES)])
def test_runtime_errors(name, arg, message):
    rt = runtime()
    with pytest.raises(RuntimeNeslError) as info:
        rt_ctx = rt.context(span="SPAN")
        BUILTINS[name](V(arg), rt_ctx)
    assert info.value.message == message
    assert info.value.span == "SPAN"


# ------------------------------------------------------------------- random numbers, hash

def test_rand_is_deterministic_and_in_range():
    a = [call("rand", 10, rt=rt) for rt in [runtime()] for _ in range(200)]
    rt2 = runtime()
    b = [call("rand", 10, rt=rt2) for _ in range(200)]
    assert a == b
    assert all(0 <= x < 10 for x in a)
    assert set(a) == set(range(10))


def test_rand_float_and_degenerate_ranges():
    """C's ``random() % n``: a negative ``n`` gives a number in ``[0, |n|)``; ``rand(0)`` is a
    division by zero (tests/interp/test_rand_glibc.py checks the numbers against glibc)."""
    rt = runtime()
    xs = [call("rand", 2.5, rt=rt) for _ in range(200)]
    assert all(type(x) is float and 0.0 <= x < 2.5 for x in xs)
    assert all(-2.5 < call("rand", -2.5, rt=rt) <= 0.0 for _ in range(50))
    assert call("rand", 0.0, rt=rt) == 0.0
    with pytest.raises(RuntimeNeslError) as info:
        call("rand", 0, rt=rt)
    assert info.value.message == "RUNTIME ERROR: Divide by zero."
    assert set(call("rand", -5, rt=rt) for _ in range(200)) == set(range(5))


def test_rand_seed_reseeds():
    rt = runtime()
    assert call("rand_seed", 42, rt=rt) is True
    first = [call("rand", 1000, rt=rt) for _ in range(5)]
    call("rand_seed", 42, rt=rt)
    assert [call("rand", 1000, rt=rt) for _ in range(5)] == first
    call("rand_seed", 43, rt=rt)
    assert [call("rand", 1000, rt=rt) for _ in range(5)] != first


def test_hash_range_and_equality():
    values = [V([1, 2]), V([1, 2]), V([2, 1]), S("abc"), 3, 3.5, (1, V([True]))]
    hs = [call("hash", (v, 17)) for v in values]
    assert all(0 <= h < 17 for h in hs)
    assert hs[0] == hs[1]
    assert len({call("hash", (i, 1000)) for i in range(100)}) > 90
    assert call("hash", (0.0, 97)) == call("hash", (-0.0, 97))


# ------------------------------------------------------------------------------ output

def test_print_builtins_write_to_the_output():
    rt = runtime()
    assert call("print_string", S("hello "), rt=rt) is True
    assert call("print_char", "x", rt=rt) is True
    assert call("write_string", S("!"), rt=rt) is True
    assert call("print_line", S(" done"), rt=rt) is True
    assert rt.out.stream.getvalue() == "hello x! done\n"
    assert rt.out.at_line_start


# ------------------------------------------------------------------------------- files

def test_file_builtins(tmp_path):
    rt = runtime()
    rt.base_dir = str(tmp_path)
    (tmp_path / "ints.txt").write_text("1 -2\n 30\n")
    (tmp_path / "floats.txt").write_text("1.5 2 -3e2\n")
    assert call("read_int_seq_from_file", S("ints.txt"), rt=rt) == V([1, -2, 30])
    assert call("read_float_seq_from_file", S("floats.txt"), rt=rt) == V([1.5, 2.0, -300.0])
    assert call("write_string_to_file", (S("hi\nthere"), S("out.txt")), rt=rt) is True
    assert (tmp_path / "out.txt").read_text() == "hi\nthere"
    assert call("read_string_from_file", S("out.txt"), rt=rt) == S("hi\nthere")


def test_file_errors(tmp_path):
    rt = runtime()
    rt.base_dir = str(tmp_path)
    with pytest.raises(RuntimeNeslError, match="Could not access file missing.txt"):
        call("read_string_from_file", S("missing.txt"), rt=rt)
    (tmp_path / "bad.txt").write_text("1 two 3")
    with pytest.raises(RuntimeNeslError, match="Could not read an int"):
        call("read_int_seq_from_file", S("bad.txt"), rt=rt)


def test_constants():
    from nessie.interp.builtins import constant
    from nessie.interp.values import Semantics
    assert constant("max_int") == MAX32
    assert constant("min_int") == MIN32
    assert constant("max_int", Semantics(int_bits=64)) == 2**63 - 1
    assert constant("pi") == math.pi
    assert (constant("space"), constant("newline"), constant("tab")) == (" ", "\n", "\t")
