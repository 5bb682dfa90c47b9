"""Parser: every construct of NESL.md, precedences, spans, load/set, typed empty sequences."""
import pytest

from nessie.diagnostics import CompileErrors
from nessie.syntax import ast as A
from nessie.syntax import parse_expression, parse_file, parse_text, parse_type_signature

V = A.Var
I = A.IntLit


def e(text):
    return parse_expression(text)


def items(text):
    return parse_text(text).items


def B(op, l, r):
    return A.BinOp(op, l, r)


# ------------------------------------------------------------------ expressions
def test_precedence_arith():
    assert e("a + b * c") == B("+", V("a"), B("*", V("b"), V("c")))
    assert e("a - b - c") == B("-", B("-", V("a"), V("b")), V("c"))
    assert e("a * b ^ c") == B("*", V("a"), B("^", V("b"), V("c")))
    assert e("a ^ b ^ c") == B("^", B("^", V("a"), V("b")), V("c"))


def test_precedence_logic_and_comparison():
    assert e("a or b and c == d") == B("or", V("a"), B("and", V("b"), B("==", V("c"), V("d"))))
    assert e("a < b + 1") == B("<", V("a"), B("+", V("b"), I(1)))
    assert e("a nor b xor c") == B("xor", B("nor", V("a"), V("b")), V("c"))
    assert e("a nand b") == B("nand", V("a"), V("b"))


def test_arrows_bind_tighter_than_arithmetic():
    assert e("a + b -> c") == B("+", V("a"), B("->", V("b"), V("c")))
    assert e("a * b <- c") == B("*", V("a"), B("<-", V("b"), V("c")))
    assert e("a <- b -> c") == B("<-", V("a"), B("->", V("b"), V("c")))
    assert e("a ++ b || 3") == B("++", V("a"), B("||", V("b"), I(3)))


def test_prefix_operators():
    assert e("#a - 1") == B("-", A.UnOp("#", V("a")), I(1))
    assert e("-a -> b") == B("->", A.UnOp("-", V("a")), V("b"))
    assert e("#a[i]") == A.UnOp("#", A.Subscript(V("a"), V("i")))
    assert e("@ -x") == A.UnOp("@", A.UnOp("-", V("x")))


def test_subscripts_chain_and_calls():
    assert e("a[i][j]") == A.Subscript(A.Subscript(V("a"), V("i")), V("j"))
    assert e("g(a, b)[0]") == A.Subscript(A.Call("g", A.Pair(V("a"), V("b"))), I(0))
    assert e("g(x)") == A.Call("g", V("x"))


def test_backquoted_operator_calls():
    assert e("`+`(1, 2)") == A.Call("+", A.Pair(I(1), I(2)))
    assert e("`<-`(a, b)") == A.Call("<-", A.Pair(V("a"), V("b")))
    assert e("`and`(a, b)") == A.Call("and", A.Pair(V("a"), V("b")))


def test_tuples_are_right_nested():
    abc = A.Pair(V("a"), A.Pair(V("b"), V("c")))
    assert e("(a, b, c)") == abc
    assert e("a, b, c") == abc
    assert e("(a, (b, c))") == abc
    assert e("((a, b), c)") == A.Pair(A.Pair(V("a"), V("b")), V("c"))


def test_literals():
    assert e("`a") == A.CharLit("a")
    assert e('"Hi"') == A.StringLit("Hi")
    assert e("T") == A.BoolLit(True)
    assert e("2.") == A.FloatLit(2.0)


def test_sequences_and_ranges():
    assert e("[1, 2, 3]") == A.SeqLit((I(1), I(2), I(3)))
    assert e("[(1, 2), (3, 4)]") == A.SeqLit((A.Pair(I(1), I(2)), A.Pair(I(3), I(4))))
    assert e("[a:b]") == A.Range(V("a"), V("b"), None)
    assert e("[0:n:2]") == A.Range(I(0), V("n"), I(2))
    assert e("[[1], [] int, [2]]") == A.SeqLit((A.SeqLit((I(1),)), A.EmptySeq(A.TName("int")),
                                                A.SeqLit((I(2),))))


def test_typed_empty_sequences():
    assert e("[] int") == A.EmptySeq(A.TName("int"))
    assert e("[] [int]") == A.EmptySeq(A.TSeqE(A.TName("int")))
    assert e("[] (int, float)") == A.EmptySeq(A.TPairE(A.TName("int"), A.TName("float")))
    assert e("[]") == A.EmptySeq(None)
    assert e("[] int ++ a") == B("++", A.EmptySeq(A.TName("int")), V("a"))


def test_apply_to_each_forms():
    g = A.Generator
    assert e("{x * y : x in a; y in b}") == A.ApplyToEach(
        B("*", V("x"), V("y")), (g(A.PVar("x"), V("a")), g(A.PVar("y"), V("b"))), None)
    assert e("{x : x in a | x > 0}") == A.ApplyToEach(
        V("x"), (g(A.PVar("x"), V("a")),), B(">", V("x"), I(0)))
    assert e("{a + b : a; b}") == A.ApplyToEach(
        B("+", V("a"), V("b")), (g(A.PVar("a"), None), g(A.PVar("b"), None)), None)
    assert e("{v : (i, v) in sv}") == A.ApplyToEach(
        V("v"), (g(A.PPair(A.PVar("i"), A.PVar("v")), V("sv")),), None)
    assert e("{x + y : x, y in pts}") == A.ApplyToEach(
        B("+", V("x"), V("y")), (g(A.PPair(A.PVar("x"), A.PVar("y")), V("pts")),), None)


def test_filter_form():
    g = A.Generator
    assert e("{x in xs | p(x)}") == A.ApplyToEach(
        None, (g(A.PVar("x"), V("xs")),), A.Call("p", V("x")))
    assert e("{i in [0:n]; fl in flags | fl}") == A.ApplyToEach(
        None, (g(A.PVar("i"), A.Range(I(0), V("n"), None)), g(A.PVar("fl"), V("flags"))),
        V("fl"))
    assert e("{(i, x) in sv | x > 0}").generators[0].pattern == A.PPair(A.PVar("i"),
                                                                         A.PVar("x"))


def test_if_and_let_extend_right():
    assert e("if c then a else b + 1") == A.If(V("c"), V("a"), B("+", V("b"), I(1)))
    assert e("if c then a else b, d") == A.If(V("c"), V("a"), A.Pair(V("b"), V("d")))
    assert e("let x = 1 in x + 1") == A.Let((A.Binding(A.PVar("x"), I(1)),),
                                            B("+", V("x"), I(1)))
    assert e("[if c then 1 else 2, 3]") == A.SeqLit((A.If(V("c"), I(1), I(2)), I(3)))


def test_let_several_bindings_and_trailing_semicolon():
    one = e("let a = 1; (b, c) = (2, 3) in a + b")
    two = e("let a = 1; (b, c) = (2, 3); in a + b")
    assert one == two
    assert one.bindings[1].pattern == A.PPair(A.PVar("b"), A.PVar("c"))


def test_time():
    assert e("time(g(x))") == A.Time(A.Call("g", V("x")))


def test_constructor_pattern_in_let():
    x = e("let complex(re, im) = z in re")
    assert x.bindings[0].pattern == A.PCon("complex", A.PPair(A.PVar("re"), A.PVar("im")))


# ------------------------------------------------------------------ top level
def test_function_definitions():
    (f,) = items("function f1(a, b) = a + b;")
    assert f == A.FunDef("f1", A.PPair(A.PVar("a"), A.PVar("b")), None, None,
                         B("+", V("a"), V("b")))
    (g,) = items('function g(a,b) : ([a],[a]) -> a :: (a in number) "doc" = a;')
    assert g.sig == A.FunSig(A.TPairE(A.TSeqE(A.TName("a")), A.TSeqE(A.TName("a"))),
                             A.TName("a"), (("a", "number"),))
    assert g.doc == "doc"
    (h,) = items("function h(x) : int -> int = x $")
    assert h.sig == A.FunSig(A.TName("int"), A.TName("int"), ())
    (k,) = items("function k(a, b) : [a], [b] -> a :: (a in any; b in ordinal) = a;")
    assert k.sig.context == (("a", "any"), ("b", "ordinal"))


def test_datatype_binding_expression_set():
    its = items("datatype complex(float, float);\n(x, y) = (1, 2);\n1 + 2;\n"
                "set print_length 200;\nset arg_check off;\n"
                "datatype pt(a, a) :: (a in number);")
    assert its[0] == A.DataDef("complex", A.TPairE(A.TName("float"), A.TName("float")))
    assert its[1] == A.TopBind(A.PPair(A.PVar("x"), A.PVar("y")), A.Pair(I(1), I(2)))
    assert its[2] == A.TopExp(B("+", I(1), I(2)))
    assert its[3] == A.SetOption("print_length", ("200",))
    assert its[4] == A.SetOption("arg_check", ("off",))
    assert its[5].context == (("a", "number"),)


def test_the_cmu_quicksort_parses_unchanged():
    src = ("function qsort(a) = if (#a < 2) then a else let pivot = a[#a/2]; "
           "lesser = {e in a| e < pivot}; equal = {e in a| e == pivot}; "
           "greater = {e in a| e > pivot}; result = {qsort(v): v in [lesser,greater]} "
           "in result[0] ++ equal ++ result[1];")
    (q,) = items(src)
    assert isinstance(q.body, A.If) and isinstance(q.body.else_, A.Let)
    assert len(q.body.else_.bindings) == 5


def test_type_signature_entry_point():
    s = parse_type_signature("a, int -> [a] :: (a in any)")
    assert s == A.FunSig(A.TPairE(A.TName("a"), A.TName("int")), A.TSeqE(A.TName("a")),
                         (("a", "any"),))


def test_spans():
    (f,) = items("function f1(x) =\n  x + 10;")
    body = f.body
    assert (body.span.line, body.span.col, body.span.end_line, body.span.end_col) == (2, 3, 2, 8)
    assert (f.span.line, f.span.col) == (1, 1)
    assert body.right.span.col == 7


# ------------------------------------------------------------------ load
def test_load_relative_to_including_file(tmp_path):
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "util.nesl").write_text("function inc(x) = x + 1;\n")
    (tmp_path / "main.nesl").write_text('load "lib/util.nesl";\ninc(1);\n')
    prog = parse_file(str(tmp_path / "main.nesl"))
    load = prog.items[0]
    assert isinstance(load, A.Load) and load.path == "lib/util.nesl"
    assert load.items[0].name == "inc"
    assert [type(i).__name__ for i in A.iter_items(prog)] == ["FunDef", "TopExp"]


def test_load_nested_and_missing(tmp_path):
    (tmp_path / "a.nesl").write_text('load "b";\n')
    (tmp_path / "b.nesl").write_text("x = 1;\n")
    prog = parse_file(str(tmp_path / "a.nesl"))
    assert prog.items[0].items[0].pattern == A.PVar("x")
    (tmp_path / "c.nesl").write_text('1;\nload "nothere.nesl";\n')
    with pytest.raises(CompileErrors) as info:
        parse_file(str(tmp_path / "c.nesl"))
    err = info.value.errors[0]
    assert (err.span.line, err.span.col) == (2, 1)
    assert err.message == 'cannot load "nothere.nesl": file not found'


def test_circular_load(tmp_path):
    (tmp_path / "a.nesl").write_text('load "b.nesl";\n')
    (tmp_path / "b.nesl").write_text('load "a.nesl";\n')
    with pytest.raises(CompileErrors) as info:
        parse_file(str(tmp_path / "a.nesl"))
    assert "circular load" in str(info.value)
