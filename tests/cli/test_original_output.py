"""Output that matches the original NESL 3.1's (issue 10): a datatype's constructor line, the
letters of type variables, ``Redefining NAME with a new type.``, the wrapping of long results,
backslashes in strings, and the library functions ``next_char``, ``bounding_box``,
``read_string``, ``prompt`` and variables ``nesl_path``, ``user``, ``stdin``...  Every program
is run through ``nessie run`` on every backend (and the REPL on two) with the expected text
stated here."""
from __future__ import annotations

import io
from pathlib import Path

import pytest

import nessie
from nessie import cli

BACKENDS = [("interp",), ("lcu",), ("lcu", "--no-fuse"), ("opencl",)]


def run(capsys, tmp_path, source: str, backend) -> str:
    path = tmp_path / "prog.nesl"
    path.write_text(source)
    rc = cli.main(["run", "--backend", *backend, str(path)])
    out, err = capsys.readouterr()
    err = "\n".join(ln for ln in err.splitlines() if not ln.endswith("generated."))
    assert (rc, err) == (0, ""), err
    return out


def check(capsys, tmp_path, source: str, expected: str) -> None:
    for backend in BACKENDS:
        assert run(capsys, tmp_path, source, backend) == expected, backend


def repl_output(source: str, backend: str) -> str:
    from nessie.repl import Session
    out, err = io.StringIO(), io.StringIO()
    s = Session(out, err, backend=backend)
    for line in source.split("\n"):
        s.feed(line)
    s.finish()
    assert err.getvalue() == ""
    return out.getvalue()


# --------------------------------------------------------------------------- datatypes
def test_a_datatype_prints_its_constructor(capsys, tmp_path):
    check(capsys, tmp_path, """\
datatype point(float, float);
datatype pt(a, a) :: (a in number);
point(1.0, 2.0);
pt(1, 2);
""", """\
point = fn : (float, float) -> point
pt = fn : (a, a) -> pt(a) :: (a in number)
it = point(1.0, 2.0) : point
it = pt(1, 2) : pt(int)
""")


# --------------------------------------------------------------------------- lettering
LETTERS = """\
function make_quads(s, lo, hi) =
  {{e : e in s | (let (x, y, z) = e in x > lo and y < hi)} : i in [0:2]};
function fst(a, b) = a;
function swap(a, b) = (b, a);
function f2(a, b) = (b, [] int, a);
function rev6(u, v, w, x, y, z) = (z, y, x, w, v, u);
"""

LETTERS_OUT = """\
make_quads = fn : ([(b, c, a)], b, c) -> [[(b, c, a)]] :: (a in any; b in ordinal; c in ordinal)
fst = fn : (a, b) -> a :: (a in any; b in any)
swap = fn : (a, b) -> (b, a) :: (a in any; b in any)
f2 = fn : (a, b) -> (b, [int], a) :: (a in any; b in any)
rev6 = fn : (a0, a1, a2, a3, a4, a5) -> (a5, a4, a3, a2, a1, a0)
             :: (a0 in any; a1 in any; a2 in any; a3 in any; a4 in any; a5 in any)
"""


def test_type_variables_are_lettered_as_the_original_letters_them(capsys, tmp_path):
    # make_quads: the type observed on the original; the letters follow the variables' last
    # occurrences reading the result, then the argument; past five variables a0, a1, ...
    # (rev6's type and context, 125 columns, do not fit on a line: the context goes on the
    # next, indented by the 12 columns of "rev6 = fn : ")
    check(capsys, tmp_path, LETTERS, LETTERS_OUT)


# --------------------------------------------------------------------------- redefinition
REDEFINE = """\
x = 5;
x = 6;
x = 2.0;
function h(y) = y;
function h(y) = y + 1;
function h(y) = y * 2;
function g(y) = y;
function g(y) = y + y;
h = [1];
datatype point(float, float);
datatype point(int, int);
(x, z) = (1.5, 2);
(x, z) = (1, 3);
1;
it = 2.0;
user = 7;
function main(x) = x;
function main(x) = x + 1.0;
"""

REDEFINE_OUT = """\
x = 5 : int
x = 6 : int
Redefining X with a new type.  Old calls will not be modified.
x = 2.0 : float
h = fn : a -> a :: (a in any)
Redefining H with a new type.  Old calls will not be modified.
h = fn : int -> int
h = fn : int -> int
g = fn : a -> a :: (a in any)
g = fn : a -> a :: (a in number)
Redefining H with a new type.  Old calls will not be modified.
h = [1] : [int]
point = fn : (float, float) -> point
Redefining POINT with a new type.  Old calls will not be modified.
point = fn : (int, int) -> point
(x, z) = (1.5, 2) : float, int
Redefining X with a new type.  Old calls will not be modified.
(x, z) = (1, 3) : int, int
it = 1 : int
it = 2.0 : float
Redefining USER with a new type.  Old calls will not be modified.
user = 7 : int
main = fn : a -> a :: (a in any)
main = fn : float -> float
"""


def test_redefining_at_a_new_type_is_announced(capsys, tmp_path):
    # the original compares a function's type without its context (g), never reports it
    # or main (its main-flag), and reports the library's redefinable variable user
    check(capsys, tmp_path, REDEFINE, REDEFINE_OUT)


@pytest.mark.parametrize("backend", ["interp", "lcu"])
def test_redefining_in_the_repl(backend):
    assert repl_output(REDEFINE, backend) == REDEFINE_OUT


# --------------------------------------------------------------------------- wrapping
def _index(n: int) -> str:
    return "[" + ", ".join(str(i) for i in range(n)) + "]"


WRAP = """\
index(29);
index(30);
index(31);
index(40);
[0:200];
long_name_here = index(30);
long_name_here = index(27);
(aaaaaaaaaa, bbbbbbbbbbbbbb, cccccccccccccc, dddddddddddddd, eeeeeeeeeeeeeeee) = (1, 2, 3, 4, 5);
"""


def test_long_results_wrap_as_the_original_wraps_them(capsys, tmp_path):
    cut = "[" + ", ".join(str(i) for i in range(100)) + ",...]"
    expected = (
        # 119 columns: one line
        f"it = {_index(29)} : [int]\n"
        # the value and its type (118 columns) do not fit after "it = ": a new line,
        # indented by 2 (the column after "it")
        f"it = \n  {_index(30)} : [int]\n"
        # value 114 columns: after "it = ", its type on the next line, indented 2 + 3
        f"it = {_index(31)}\n      : [int]\n"
        # longer than 117: the value alone on its line, its type on the next
        f"it = \n  {_index(40)}\n   : [int]\n"
        f"it = \n  {cut}\n   : [int]\n"
        # the break comes after " = " as for "it", indented by the 14 columns of the name
        f"long_name_here = \n              {_index(30)} : [int]\n"
        # " = VALUE : [int]" (109 columns) fits in 120 but not after the name: the break
        # comes before " = "
        f"long_name_here\n = {_index(27)} : [int]\n"
        # a pattern's components join within 50 columns
        "(aaaaaaaaaa, bbbbbbbbbbbbbb, \n"
        "             cccccccccccccc, dddddddddddddd, eeeeeeeeeeeeeeee) = (1, 2, 3, 4, 5)"
        " : int, int, int, int, int\n")
    check(capsys, tmp_path, WRAP, expected)


def test_wrapping_at_the_boundaries_of_120_columns():
    from nessie.interp.printing import format_binding
    from nessie.interp.values import Seq

    def string(n):
        return format_binding("it", Seq(tuple("x" * n)), "[char]", None)
    x = lambda n: '"' + "x" * n + '"'  # noqa: E731
    # "it = VALUE : [char]" is 16 + n columns: one line up to 120
    assert string(104) == f"it = {x(104)} : [char]"
    # 121 columns: " = VALUE : [char]" (119) still fits in 120 but not after "it"
    assert string(105) == f"it\n = {x(105)} : [char]"
    assert string(106) == f"it\n = {x(106)} : [char]"
    # VALUE : [char] (117 + 1) no longer fits after " = "
    assert string(107) == f"it = \n  {x(107)} : [char]"
    assert string(109) == f"it = \n  {x(109)} : [char]"
    # VALUE and " : [char]" (121 columns and more) no longer fit on one line: the type goes
    # on the next line, indented by the columns of what precedes the value
    assert string(110) == f"it = {x(110)}\n      : [char]"
    assert string(113) == f"it = {x(113)}\n      : [char]"
    assert string(114) == f"it\n = {x(114)}\n    : [char]"
    assert string(115) == f"it\n = {x(115)}\n    : [char]"
    # the value no longer fits after " = " (118 columns and more)
    assert string(116) == f"it = \n  {x(116)}\n   : [char]"
    assert string(300) == f"it = \n  {x(300)}\n   : [char]"


# --------------------------------------------------------------------------- strings
def test_a_backslash_takes_the_next_character(capsys, tmp_path):
    check(capsys, tmp_path, '"good\\n";\n"a\\"b";\n"c\\\\d";\n#"\\t";\n"two\nlines";\n',
          'it = "goodn" : [char]\n'
          'it = "a\\"b" : [char]\n'
          'it = "c\\\\d" : [char]\n'
          "it = 1 : int\n"
          'it = "two\nlines" : [char]\n')


def test_a_doc_string_may_span_lines(capsys, tmp_path):
    check(capsys, tmp_path, 'function inc(a)\n"Adds one\nto a." = a + 1;\ninc(2);\n',
          "inc = fn : int -> int\nit = 3 : int\n")


# --------------------------------------------------------------------------- library
LIBRARY = """\
next_char([0, 1, 2, 3], "ab", "abab", 0);
search_for_subseqs("ab", "xabab");
bounding_box([(1.0, 2.0), (3.0, 5.0), (-1.0, 4.0)]);
let bound_box((x0, y0), (w, h)) = bounding_box([(1, 2), (3, 5)]) in (x0, y0, w, h);
read_string("", -1, stdin);
read_string(" ", 0, stdin);
read_string("", 5, nullstr);
prompt("Name? ");
{prompt("> ") : i in [0:3]};
(stdin, stdout, stderr, nullstr);
user;
"""

LIBRARY_OUT = """\
it = [0, 2] : [int]
it = [1, 3] : [int]
it = bound_box((-1.0, 2.0), 4.0, 3.0) : bound_box(float)
it = (1, 2, 2, 3) : int, int, int, int
it = (("", -1), T, "") : ([char], int), bool, [char]
it = (("", -2), T, "") : ([char], int), bool, [char]
it = (("", -1), F, "illegal VCODE file descriptor in FREAD") : ([char], int), bool, [char]
Name? 
it = "" : [char]
> > > 
it = ["", "", ""] : [[char]]
it = (stream(0), stream(2), stream(2), stream(-1)) : stream, stream, stream, stream
it = "tester" : [char]
"""


def test_library_functions_and_variables(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("USER", "tester")
    check(capsys, tmp_path, LIBRARY, LIBRARY_OUT)


@pytest.mark.parametrize("backend", ["interp", "lcu"])
def test_library_in_the_repl(backend, monkeypatch):
    monkeypatch.setenv("USER", "tester")
    assert repl_output(LIBRARY, backend) == LIBRARY_OUT


def test_library_types(capsys, tmp_path):
    from nessie.types import BUILTIN_SCHEMES, CONSTANT_TYPES, scheme_to_str, type_to_str
    assert {n: scheme_to_str(BUILTIN_SCHEMES[n]) for n in
            ("next_char", "bounding_box", "read_string", "prompt")} == {
        "next_char": "([int], [a], [a], int) -> [int] :: (a in any)",
        "bounding_box": "[(a, a)] -> bound_box(a) :: (a in number)",
        "read_string": "([char], int, stream) -> (([char], int), bool, [char])",
        "prompt": "[char] -> [char]"}
    assert {n: type_to_str(CONSTANT_TYPES[n]) for n in
            ("nesl_path", "user", "stdin", "stdout", "stderr", "nullstr")} == {
        "nesl_path": "[char]", "user": "[char]", "stdin": "stream", "stdout": "stream",
        "stderr": "stream", "nullstr": "stream"}


def test_nesl_path_is_the_installation_directory(capsys, tmp_path):
    where = str(Path(nessie.__file__).resolve().parents[1]) + "/"
    check(capsys, tmp_path, "nesl_path;\n", f'it = "{where}" : [char]\n')


def test_next_char_out_of_range_is_a_runtime_error(capsys, tmp_path):
    path = tmp_path / "e.nesl"
    path.write_text('next_char([0, 5], "ab", "abab", 0);\n')
    for backend in BACKENDS:
        assert cli.main(["run", "--backend", *backend, str(path)]) == 1
        out, err = capsys.readouterr()
        assert out == "" and "RUNTIME ERROR" in err, backend
