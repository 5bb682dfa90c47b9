"""Syntax the original NESL 3.1 accepts (issue 10): float literals without a leading digit,
application by juxtaposition (``(float)n``, ``not x``), and the comprehension whose first part is
a bare variable (``{s; x in d | x > 0}``).  Parsed trees are checked, and programs are run on
every backend (reference interpreter, flattened λcu unfused and fused) against the expected
text."""
from __future__ import annotations

import io

import pytest

from nessie import driver
from nessie.diagnostics import CompileErrors
from nessie.syntax import ast as A
from nessie.syntax import parse_expression, parse_text, print_ast

V = A.Var


def e(text):
    return parse_expression(text)


def backends():
    out = [("interp", None), ("lcu --no-fuse", False)]
    try:
        from lambda_cu.fusion import fuse_program  # noqa: F401
        out.append(("lcu", True))
    except ImportError:
        pass
    return out


def run(source: str, backend) -> str:
    c = driver.compile_source(source, "t.nesl")
    buf = io.StringIO()
    if backend is None:
        driver.run_interp(c, buf)
    else:
        flat = driver.flatten(c)
        if backend:
            flat, _ = driver.fuse(flat)
        driver.run_lcu(c, flat, buf)
    return buf.getvalue()


BACKENDS = backends()


def assert_on_all_backends(source: str, expected: str):
    for name, b in BACKENDS:
        assert run(source, b) == expected, f"backend {name}"


# ------------------------------------------------------------------ float literals
def test_float_without_leading_digit():
    assert e(".5") == A.FloatLit(0.5)
    assert e(".25e2") == A.FloatLit(25.0)
    assert e("x * .5") == A.BinOp("*", V("x"), A.FloatLit(0.5))
    assert e("[.5, 1.]") == A.SeqLit((A.FloatLit(0.5), A.FloatLit(1.0)))


def test_float_without_leading_digit_runs():
    assert_on_all_backends("x = .5 * 2.0;\n.125 + .875;\n",
                           "x = 1.0 : float\nit = 1.0 : float\n")


# ------------------------------------------------------------------ juxtaposition
def test_application_by_juxtaposition_parses():
    assert e("(float)n") == A.Call("float", V("n"))
    assert e("exp((float)n)") == A.Call("exp", A.Call("float", V("n")))
    assert e("(not x, x)") == A.Pair(A.Call("not", V("x")), V("x"))
    assert e("not x and y") == A.BinOp("and", A.Call("not", V("x")), V("y"))
    assert e("g (a, b)") == A.Call("g", A.Pair(V("a"), V("b")))
    assert e("g 1.5") == A.Call("g", A.FloatLit(1.5))
    assert e('g "ab"') == A.Call("g", A.StringLit("ab"))
    assert e("-g x") == A.UnOp("-", A.Call("g", V("x")))
    assert e("#g x") == A.UnOp("#", A.Call("g", V("x")))


def test_juxtaposition_is_left_associative_and_first_order():
    with pytest.raises(CompileErrors) as info:
        parse_text("y = h g x;", "j.nesl")
    assert [str(x) for x in info.value.errors] == ["j.nesl:1:9: error: syntax error at 'x'"]


def test_subscripts_of_simple_and_parenthesised_arguments():
    # a simple argument keeps its subscripts (C-style casts: (float)a[i] is float(a[i]))
    assert e("(float)a[i]") == A.Call("float", A.Subscript(V("a"), V("i")))
    # a parenthesised argument does not: g(x)[i] is (g(x))[i], as before
    assert e("g(x)[i]") == A.Subscript(A.Call("g", V("x")), V("i"))
    assert e("g(x)[i][j]") == A.Subscript(A.Subscript(A.Call("g", V("x")), V("i")), V("j"))


def test_typed_empty_sequences_still_take_their_type():
    assert e("[] int") == A.EmptySeq(A.TName("int", ()))
    assert e("[] (int, bool)") == A.EmptySeq(A.TPairE(A.TName("int", ()),
                                                      A.TName("bool", ())))
    assert e("[[1], [] int]") == A.SeqLit((A.SeqLit((A.IntLit(1),)),
                                           A.EmptySeq(A.TName("int", ()))))


def test_juxtaposed_literal_is_still_a_syntax_error():
    with pytest.raises(CompileErrors) as info:
        parse_text("y = [1 2];\nz = (a + b) c;\n", "s.nesl")
    assert [str(x) for x in info.value.errors] == [
        "s.nesl:1:8: error: syntax error at '2'",
        "s.nesl:2:13: error: syntax error at 'c'",
    ]


def test_printer_round_trips_juxtaposition():
    p = parse_text("function pow(x, n) = exp((float)n) * ln(x);\n")
    text = print_ast(p)
    assert text == "function pow(x, n) = exp(float(n)) * ln(x);\n"
    assert parse_text(text).items == p.items


POW = """\
function pow(x, n) = exp((float)n) * ln(x);
pow(2.0, 3);
function neg_and(x) = (not x, x);
neg_and(t);
neg_and(5);
function mean(v) = sum(v) / (float)(#v);
mean([1.0, 2.0, 4.5]);
function cast_elt(a, i) = (float)a[i] + .5;
cast_elt([1, 2, 3], 2);
{(float) i : i in [0:3]};
{not b : b in [t, f]};
"""

POW_OUT = """\
pow = fn : (float, int) -> float
it = 13.9222332883402 : float
neg_and = fn : a -> (a, a) :: (a in logical)
it = (F, T) : bool, bool
it = (-6, 5) : int, int
mean = fn : [float] -> float
it = 2.5 : float
cast_elt = fn : ([int], int) -> float
it = 3.5 : float
it = [0.0, 1.0, 2.0] : [float]
it = [F, T] : [bool]
"""


def test_juxtaposition_programs_on_all_backends():
    assert_on_all_backends(POW, POW_OUT)


# ------------------------------------------------------------------ bare-variable comprehension
def test_bare_variable_comprehension_parses():
    x = e("{s; x in d | x > 0}")
    assert x == A.ApplyToEach(None, (A.Generator(A.PVar("s"), None),
                                     A.Generator(A.PVar("x"), V("d"))),
                              A.BinOp(">", V("x"), A.IntLit(0)))
    assert e("{s | s > 0}") == A.ApplyToEach(None, (A.Generator(A.PVar("s"), None),),
                                            A.BinOp(">", V("s"), A.IntLit(0)))
    # the long form means the same
    long = e("{s : s in s; x in d | x > 0}")
    assert long.generators[1:] == x.generators[1:] and long.filter == x.filter
    assert print_ast(x) == "{s; x in d | x > 0}"


def test_bare_variable_must_be_a_name():
    with pytest.raises(CompileErrors) as info:
        parse_text("y = {a + 1; x in d};", "b.nesl")
    assert [str(x) for x in info.value.errors] == [
        "b.nesl:1:6: error: a generator without 'in' must be a variable name"]


PICK = """\
function pick(s, d) = {s; x in d | x > 0};
pick([1,2,3],[1,0,1]);
pick("abcd", [0, 2, 3, 0]);
function positives(s) = {s | s > 0};
positives([3, -1, 0, 7]);
{pick(a, b) : a in [[1, 2], [3, 4, 5]]; b in [[1, 1], [0, 1, 0]]};
"""

PICK_OUT = """\
pick = fn : ([a], [int]) -> [a] :: (a in any)
it = [1, 3] : [int]
it = "bc" : [char]
positives = fn : [int] -> [int]
it = [3, 7] : [int]
it = [[1, 2], [4]] : [[int]]
"""


def test_bare_variable_comprehension_on_all_backends():
    assert_on_all_backends(PICK, PICK_OUT)
