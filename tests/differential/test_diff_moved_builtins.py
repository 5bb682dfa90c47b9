"""Differential tests of the builtins that the flattening backends used to serve by calling into
the reference interpreter's own code (issue 10).  They now have implementations of their own:

* data-parallel forms in the flattener (``nessie/flatten/builtins.py``): ``transpose``,
  ``bottop``, ``length_from_flags``, ``split_index``, ``string_eql``, ``find``,
  ``search_for_subseqs``, ``collect``, ``int_collect``, ``union``, ``intersection``, ``name``,
  ``mark_duplicates``, ``remove_duplicates``, ``linify``, ``wordify``, ``||``; ``<-`` on
  sequences of tuples and of nested sequences (a segmented scatter); ``eql`` on datatypes;
* the host library ``nessie/hostlib`` (on λcu leaves): ``print_string``, ``write_string``,
  ``print_char``, ``print_line``, ``print``, ``error`` (computed message), ``@``,
  ``exp_string``, ``parse_int``, ``parse_float``, ``hash``, ``read_string_from_file``,
  ``read_int_seq_from_file``, ``read_float_seq_from_file``, ``write_string_to_file``;
  ``next_char``, ``read_string``, ``prompt`` (``bounding_box`` is a data-parallel form).

Every program runs on the reference interpreter and on flattened λcu unfused and fused (and, marked
``opencl``, on the OpenCL backend, unfused and fused); all must print the same and end with the
same runtime error at the same place.  A few expected values are checked too, so that two
implementations cannot agree on a wrong answer.  (``rand``/``rand_seed`` are tested with
their own implementation, ``nessie/glibc_random.py``.)
"""
from __future__ import annotations

import pytest

from diff_harness import compare

SETS = """\
datatype pt (int, float);
name([4, 1, 4, 2, 1, 3]);
mark_duplicates([4, 1, 4, 2, 1, 3]);
remove_duplicates([4, 1, 4, 2, 1, 3]);
remove_duplicates([(1, 2), (1, 2), (3, 4), (1, 3)]);
remove_duplicates(["ab", "a", "", "ab", "b", "", "a"]);
name(["ab", "a", "", "ab", "b", "", "a"]);
remove_duplicates([T, F, T, T]);
remove_duplicates([1.5, 0.0, -0.0, 1.5, 2.0]);
remove_duplicates("mississippi");
remove_duplicates([[[1], []], [[1]], [[1], []], [], [[]], []]);
remove_duplicates([("ab", [1, 2]), ("ab", [1]), ("ab", [1, 2]), ("", [] int)]);
remove_duplicates([pt(1, 2.0), pt(1, 3.0), pt(1, 2.0)]);
remove_duplicates(["abcdefghijklmnopqrstuvwxyz", "abcdefghijklmnopqrstuvwxyz",
                   "abcdefghijklmnopqrstuvwxya", "zbcdefghijklmnopqrstuvwxyz", "abcdefghijklm"]);
mark_duplicates(["aaaa", "aaa", "aaaa", "aaaaa", "aaa", "", "a"]);
remove_duplicates([] [char]), name([] int), mark_duplicates([] (int, bool));
{remove_duplicates(s) : s in [["a", "b", "a"], [] [char], ["xyz", "xyz", "xyw"]]};
{name(s) : s in [[1, 1], [] int, [3, 2, 3]]};
{mark_duplicates(s) : s in [[(1, "a"), (1, "a")], [(2, "")]]};
union([1, 3, 2, 3], [4, 1, 5]);
union([] int, [] int), union("", "ba"), union([2.5, -0.0], [0.0, 2.5]);
intersection([1, 3, 2, 3, 7], [4, 3, 1, 5]);
intersection("hello", "world"), intersection([] int, [1]), intersection([1], [] int);
{union(a, b) : a in ["ab", "", "zz"]; b in ["ba", "c", "z"]};
{intersection(a, b) : a in ["abca", "", "zz"]; b in ["ba", "c", "z"]};
find("b", ["a", "b", "c"]);
find(3, [1, 2]), find(4, [] int), find(`s, "mississippi");
find((1, "x"), [(1, "y"), (1, "x"), (1, "x")]);
find(pt(1, 3.0), [pt(1, 2.0), pt(1, 3.0)]);
find([] int, [[1], [], []]);
{find(x, [4, 5, 4]) : x in [4, 5, 6]};
{find(w, ws) : w in ["a", "b"]; ws in [["b", "a"], [] [char]]};
collect([(3, "c"), (1, "a"), (3, "d"), (2, "b"), (1, "e")]);
int_collect([(3, 1.5), (1, 2.5), (3, 3.5)]);
collect([(`b, [1]), (`a, [] int), (`b, [2, 3])]);
collect([(2.0, 1), (-0.0, 2), (0.0, 3)]);
collect([] (char, int)), int_collect([] (int, [char]));
{collect(p) : p in [[(1, 2), (1, 3)], [] (int, int), [(2, 1), (1, 2), (2, 0)]]};
{int_collect(p) : p in [[(5, "x")], [(0, "y"), (0, "z")]]};
"""

SETS_EXPECTED = [
    "it = [2, 4, 2, 3, 4, 5] : [int]",
    "it = [4, 2, 1, 3] : [int]",
    'it = ["ab", "b", "", "a"] : [[char]]',
    "it = [1, 3, 2, 4, 5] : [int]",
    "it = [(1, [\"a\", \"e\"]), (2, [\"b\"]), (3, [\"c\", \"d\"])] : [(int, [[char]])]",
]

SEQUENCES = """\
datatype pt (int, float);
transpose([[1, 2, 3], [4, 5, 6]]);
transpose([] [int]), transpose([[] int, [] int]);
transpose([["a", "b"], ["c", "d"]]);
transpose([[(1, `a)], [(2, `b)]]);
{transpose(m) : m in [[[1, 2], [3, 4], [5, 6]], [] [int], [[7]]]};
bottop([1, 2, 3, 4, 5]), bottop(""), bottop([pt(1, 1.0)]);
{bottop(s) : s in ["abcd", "x", ""]};
length_from_flags([T, F, F, T, F]), length_from_flags([F, F, T]), length_from_flags([] bool);
{length_from_flags(fs) : fs in [[T, T], [F], [T, F, F]]};
split_index([T, F, T, T, F]), split_index([] bool);
{split_index(fs) : fs in [[F, T], [T]]};
string_eql("abc", "abc"), string_eql("ab", "abc"), string_eql("", "");
{string_eql(a, b) : a in ["x", "yy"]; b in ["x", "y"]};
search_for_subseqs("ab", "abcabab"), search_for_subseqs("", "abc");
search_for_subseqs("abcd", "ab"), search_for_subseqs([2, 2], [2, 2, 2, 1, 2, 2]);
{search_for_subseqs(w, "aaaa") : w in ["a", "aa", "b", ""]};
eql(pt(1, 2.0), pt(1, 2.0)), eql(pt(1, 2.0), pt(1, 3.0));
eql([pt(1, 2.0), pt(3, 4.0)], [pt(1, 2.0), pt(3, 4.0)]);
{eql(x, pt(3, 4.0)) : x in [pt(1, 2.0), pt(3, 4.0)]};
eql((1, [pt(1, 1.0)]), (1, [] pt));
"""

STRINGS = """\
nl = [newline];
linify("ab" ++ nl ++ "cd" ++ nl ++ nl ++ "ef");
linify(""), linify("a" ++ nl), linify(nl ++ nl);
{linify(s) : s in ["x" ++ nl ++ "y", "", nl, "zz"]};
wordify("  the quick" ++ [tab] ++ "brown" ++ nl ++ [code_char(13)] ++ "fox ");
wordify(""), wordify("   "), wordify("one");
{wordify(s) : s in ["a b", "", "  ", "xyz"]};
"ab" || 5, "ab" || -5, "abcdef" || 3, "" || 0;
{s || n : s in ["a", "bb"]; n in [3, -4]};
"""

WRITES = """\
[[1], [2, 3]] <- [(0, [7, 8])];
[(1, `a), (2, `b)] <- [(1, (5, `z))];
[(1, `a), (2, `b)] <- [(1, (5, `z)), (0, (3, `y)), (1, (6, `x))];
["ab", "", "cde"] <- [(2, "x"), (1, "yy"), (2, "zzz")];
[(1, [[2]])] <- [(0, (3, [[4], []]))];
[] [char] <- [] (int, [char]);
{d <- p : d in [["a"], ["b", "c"], [] [char]]; p in [[(0, "q")], [(1, "r"), (1, "s")], [] (int, [char])]};
{d <- p : d in [[(1, [2])], [(3, [4]), (5, [])]]; p in [[(0, (9, [8, 7]))], [(1, (0, [1]))]]};
{d <- [(1, "zz")] : d in [["a", "b"], ["c", "d", "e"]]};
"""

OUTPUT = """\
datatype pt (int, float);
datatype wrap (pt);
print_string("abc");
print_line("def");
print_char(`x);
print([1, 2, 3]);
print((1, "a", 2.5));
print(pt(1, 2.0));
write_string("ws" ++ [newline]);
{print_string(s) : s in ["p", "q", ""]};
{print(x) : x in [[1], [] int, [2, 3]]};
{print_char(c) : c in "xyz"};
@42, @(-1.5), @[(1, `a)], @pt(3, 4.0), @wrap(pt(1, 1.0)), @"s", @[[1.0e20]];
{@x : x in [1, 20, 300]};
{@x : x in [[1.5], [] float]};
exp_string(1234.5, 2), exp_string(0.000123, 0), exp_string(1.0 / 0.0, 2);
{exp_string(x, d) : x in [1.0, -2.5e10, 0.0]; d in [3, 1, -1]};
parse_int("  42 "), parse_int("-17"), parse_int("4x"), parse_int("99999999999"), parse_int("");
{parse_int(s) : s in ["1", "+2", "", " -3 "]};
parse_float("1.5"), parse_float("2."), parse_float("-1e-3"), parse_float(".5"), parse_float("abc");
{parse_float(s) : s in ["1", "x", " 2.5e1 "]};
hash(42, 100), hash(-1, 1000), hash(T, 7), hash(`a, 50), hash(1.5, 1000000), hash(-0.0, 99);
hash([1, 2, 3], 1000), hash("abc", 12345), hash((1, 2.5), 1000);
hash([(1, "x"), (2, "")], 999), hash(pt(1, 2.0), 1000), hash(wrap(pt(1, 2.0)), 1000);
hash([[1], [], [2, 3]], -77), hash(make_segdes(3), 100), hash([] [int], 5);
{hash(x, 10) : x in ["a", "b", "", "abc"]};
{hash(x, n) : x in [1, 2, 3]; n in [5, 7, 11]};
"""

OUTPUT_EXPECTED = [
    "abc",
    "def",
    '(1, "a", 2.5) ',
    'it = ["1", "20", "300"] : [[char]]',
    'it = ("1.23E3", "1E-4", "inf") : [char], [char], [char]',
    "it = [(1, T), (2, T), (0, F), (-3, T)] : [(int, bool)]",
    "it = (62, 67, 4, 23, 623784, 0) : int, int, int, int, int, int",
]

FILES = """\
read_int_seq_from_file("ints.txt");
read_float_seq_from_file("floats.txt");
read_string_from_file("text.txt");
{read_int_seq_from_file(fn) : fn in ["ints.txt", "ints.txt"]};
{#read_string_from_file(fn) : fn in ["text.txt", "floats.txt"]};
write_string_to_file("written", "out.txt");
read_string_from_file("out.txt");
{write_string_to_file(s, fn) : s in ["one", "two"]; fn in ["o1.txt", "o2.txt"]};
read_string_from_file("o1.txt") ++ read_string_from_file("o2.txt");
"""

LIBRARY = """\
datatype pt (int, float);
next_char([0, 1, 2, 3], "ab", "abab", 0);
next_char([0, 1, 2], ["a", "b"], ["a", "b", "a", "b"], 0);
next_char([0, 2], [(1, 2)], [(1, 2), (3, 4), (1, 2)], 0);
next_char([0, 1], [pt(1, 1.0)], [pt(1, 1.0), pt(1, 2.0)], 0);
next_char([] int, "ab", "abab", 0), next_char([1], "ab", "ab", 0), next_char([5], "ab", "ab", 2);
{next_char(c, "ab", "abab", 0) : c in [[0, 1], [2]]};
bounding_box([(1.0, 2.0), (3.0, 5.0), (-1.0, 4.0)]);
let bound_box((x0, y0), (w, h)) = bounding_box([(1, 2), (3, 5)]) in (x0, y0, w, h);
bounding_box([] (int, int)), bounding_box([] (float, float));
{bounding_box(p) : p in [[(1, 1)], [(2, 3), (0, 7)], [] (int, int)]};
read_string("", -1, stdin), read_string(" ", 0, stdin), read_string("", 5, nullstr);
{read_string("x", n, s) : n in [0, 3, 1]; s in [stdin, stdout, nullstr]};
prompt("Name? ");
{prompt("> ") : i in [0:3]};
"""

PROGRAMS = {"sets": SETS, "sequences": SEQUENCES, "strings": STRINGS, "writes": WRITES,
            "output": OUTPUT, "library": LIBRARY}

#: one failing program each: (program, message).  The position must be the interpreter's.
ERRORS = [
    ('transpose([[1, 2], [3]]);', "Length mismatch in an apply-to-each."),
    ('{transpose(m) : m in [[[1]], [[1, 2], [3]]]};', "Length mismatch in an apply-to-each."),
    ('["a"] <- [(1, "b")];', "Sequence reference (a[i]) out of bounds."),
    ('[(1, 2.0)] <- [(-1, (3, 4.0))];', "Sequence reference (a[i]) out of bounds."),
    ('{d <- [(5, "x")] : d in [["a"]]};', "Sequence reference (a[i]) out of bounds."),
    ('hash(3, 0);', "Divide by zero."),
    ('{hash(x, n) : x in [1, 2]; n in [3, 0]};', "Divide by zero."),
    ('error("a" ++ "b");', "ab"),
    ('{error(s) : s in ["x" ++ "y"]};', "xy"),
    ('let x = print_string("before") in error(@42);', "42"),
    ('read_int_seq_from_file("missing.txt");',
     "Could not access file missing.txt: No such file or directory."),
    ('read_int_seq_from_file("bad.txt");', "Could not read an int from file bad.txt: 'x'."),
    ('read_float_seq_from_file("bad.txt");', "Could not read a float from file bad.txt: 'x'."),
    ('{read_string_from_file(fn) : fn in ["ints.txt", "nope"]};',
     "Could not access file nope: No such file or directory."),
    ('write_string_to_file("x", "nodir/out.txt");',
     "Could not access file nodir/out.txt: No such file or directory."),
    ('next_char([0], "ab", "ab", 3);', "Sequence reference (a[i]) out of bounds."),
    ('next_char([1], "aa", "aa", 0);', "Sequence reference (a[i]) out of bounds."),
    ('{next_char(c, "a", "ab", 0) : c in [[0], [-1]]};', "Sequence reference (a[i]) out of bounds."),
]


def _files(tmp_path):
    (tmp_path / "ints.txt").write_text("1 2\n -3  40\n")
    (tmp_path / "floats.txt").write_text("1.5 2 -3e2\n.5\n")
    (tmp_path / "text.txt").write_text("hello\nworld\n")
    (tmp_path / "bad.txt").write_text("1 x 2")


def _check(cmp, expected=()):
    assert cmp.interp.crash is None, "the reference interpreter crashed\n" + cmp.report()
    assert cmp.flatten_error is None, cmp.report()
    assert cmp.lcu is not None or cmp.opencl is not None
    assert not cmp.mismatches(), "the backends disagree\n" + cmp.report()
    lines = cmp.interp.out.splitlines()
    for e in expected:
        if e is not None:
            assert e in lines, f"expected the line {e!r}\n" + cmp.report()


def _expected(name):
    return {"sets": SETS_EXPECTED, "output": OUTPUT_EXPECTED}.get(name, ())


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_moved_builtins(name):
    cmp = compare(PROGRAMS[name], filename=f"{name}.nesl")
    assert cmp.fused is not None, cmp.report()
    _check(cmp, _expected(name))


def test_files(tmp_path):
    _files(tmp_path)
    cmp = compare(FILES, filename=str(tmp_path / "files.nesl"))
    assert cmp.fused is not None, cmp.report()
    _check(cmp, ["it = [1, 2, -3, 40] : [int]", "it = [1.5, 2.0, -300.0, 0.5] : [float]",
                 'it = "onetwo" : [char]'])


@pytest.mark.parametrize("src,message", ERRORS, ids=[f"error{k}" for k in range(len(ERRORS))])
def test_runtime_errors(tmp_path, src, message):
    _files(tmp_path)
    cmp = compare(src, filename=str(tmp_path / "err.nesl"))
    assert cmp.interp.error == "RUNTIME ERROR: " + message, cmp.report()
    assert cmp.interp.where is not None, cmp.report()
    _check(cmp)


@pytest.mark.opencl
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_moved_builtins_opencl(name):
    cmp = compare(PROGRAMS[name], filename=f"{name}.nesl", opencl=True, lcu=False)
    assert cmp.opencl is not None and cmp.opencl_fused is not None, cmp.report()
    _check(cmp, _expected(name))


@pytest.mark.opencl
def test_files_opencl(tmp_path):
    _files(tmp_path)
    _check(compare(FILES, filename=str(tmp_path / "files.nesl"), opencl=True, lcu=False))


@pytest.mark.opencl
@pytest.mark.parametrize("src,message", ERRORS, ids=[f"error{k}" for k in range(len(ERRORS))])
def test_runtime_errors_opencl(tmp_path, src, message):
    _files(tmp_path)
    cmp = compare(src, filename=str(tmp_path / "err.nesl"), opencl=True, lcu=False, fused=False)
    assert cmp.interp.error == "RUNTIME ERROR: " + message, cmp.report()
    _check(cmp)
