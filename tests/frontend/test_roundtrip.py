"""Printer round trip: print(AST) parses back to the same AST (hypothesis-generated trees)."""
import string

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nessie.syntax import ast as A
from nessie.syntax import parse_expression, parse_text, print_ast
from nessie.syntax.lexer import KEYWORDS
from nessie.types.builtins import BINARY_OPERATORS

names = st.text(alphabet=string.ascii_lowercase, min_size=1, max_size=6).filter(
    lambda s: s not in KEYWORDS and s not in ("t", "f"))
ops = st.sampled_from(BINARY_OPERATORS)
chars = st.sampled_from(list(string.ascii_letters + string.digits + "+-*/,;()[]{}%\" "))

leaf = st.one_of(
    st.builds(A.IntLit, st.integers(0, 10 ** 6)),
    st.builds(A.FloatLit, st.floats(0, 1e30, allow_nan=False, allow_infinity=False)),
    st.builds(A.BoolLit, st.booleans()),
    st.builds(A.CharLit, chars),
    st.builds(A.StringLit, st.text(alphabet=string.printable, max_size=5)),
    st.builds(A.Var, names),
)

texp = st.recursive(
    st.builds(A.TName, st.sampled_from(["int", "float", "bool", "char"])),
    lambda inner: st.one_of(st.builds(A.TSeqE, inner), st.builds(A.TPairE, inner, inner)),
    max_leaves=4)

pattern = st.recursive(
    st.builds(A.PVar, names),
    lambda inner: st.one_of(st.builds(A.PPair, inner, inner),
                            st.builds(A.PCon, names, inner)),
    max_leaves=4)


def _exps(inner):
    gen = st.builds(A.Generator, pattern, inner)
    short_gen = st.builds(lambda n: A.Generator(A.PVar(n), None), names)
    return st.one_of(
        st.builds(A.BinOp, ops, inner, inner),
        st.builds(A.UnOp, st.sampled_from(["-", "#", "@"]), inner),
        st.builds(A.Pair, inner, inner),
        st.builds(A.Call, st.one_of(names, ops), inner),
        st.builds(A.Subscript, inner, inner),
        st.builds(A.If, inner, inner, inner),
        st.builds(A.Let, st.lists(st.builds(A.Binding, pattern, inner), min_size=1,
                                  max_size=3).map(tuple), inner),
        st.builds(A.ApplyToEach, inner, st.lists(st.one_of(gen, short_gen), min_size=1,
                                                 max_size=3).map(tuple),
                  st.none() | inner),
        st.builds(lambda g, rest, filt: A.ApplyToEach(None, (g,) + tuple(rest), filt),
                  gen, st.lists(gen, max_size=2), st.none() | inner),
        st.builds(A.SeqLit, st.lists(inner, min_size=1, max_size=3).map(tuple)),
        st.builds(A.EmptySeq, st.none() | texp),
        st.builds(A.Range, inner, inner, st.none() | inner),
        st.builds(A.Time, inner),
    )


exp = st.recursive(leaf, _exps, max_leaves=12)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(exp)
def test_expression_round_trip(e):
    text = print_ast(e)
    assert parse_expression(text) == e, text


sig = st.builds(A.FunSig, texp, texp, st.just(()))
item = st.one_of(
    st.builds(A.FunDef, names, pattern, st.none() | sig,
              st.none() | st.text(alphabet=string.ascii_letters, max_size=5), exp),
    st.builds(A.TopBind, pattern, exp),
    st.builds(A.TopExp, exp),
    st.builds(A.DataDef, names, texp, st.just(())),
    st.builds(A.SetOption, names, st.lists(names, max_size=2).map(tuple)),
)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(item, min_size=1, max_size=4))
def test_program_round_trip(items):
    prog = A.Program(tuple(items))
    text = print_ast(prog)
    assert parse_text(text, "<rt>", expand_loads=False) == prog, text


def test_hand_picked_round_trips():
    for src in ["if a then b else c, d", "(if a then b else c), d", "[if a then 1 else 2, 3]",
                "(let x = 1 in x) + 2", "#(a + b)", "-(a - b)", "a - (b - c)", "(a, b), c",
                "g((a, b))", "([] int)[0]", "([])[0]", "[[] int, [1]]", "{x in a | x}",
                "`+`(1, 2)", "`and`(a, b)", "{(i, v) : (i, v) in s; w}"]:
        e = parse_expression(src)
        assert parse_expression(print_ast(e)) == e, src
