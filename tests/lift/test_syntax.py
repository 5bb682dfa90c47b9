"""The .lift text syntax: parsing, printing, round trips and positioned errors."""
import pytest

from lift_backend.errors import LiftSyntaxError
from lift_backend.ir import FunCall, Lambda, Param, alpha_equal
from lift_backend.ir import patterns as P
from lift_backend.syntax import file_text, parse, parse_file, program_text
from lift_backend.syntax.printer import fun_text
from .lift_helpers import PROGRAMS

ALL = [(f.name, name) for f in sorted(PROGRAMS.glob("*.lift")) for name in parse_file(str(f)).programs]


@pytest.mark.parametrize("file,name", ALL, ids=[f"{f}:{n}" for f, n in ALL])
def test_round_trip(file, name):
    lf = parse_file(str(PROGRAMS / file))
    prog = lf.program(name)
    text = file_text([prog], lf.userfuns.values())
    again = parse(text).program(name)
    assert alpha_equal(again, prog)
    # printing is a fixed point after one round
    assert file_text([again], parse(text).userfuns.values()) == text


def test_printed_partial_dot():
    prog = parse_file(str(PROGRAMS / "dot.lift")).program("partialDot")
    assert program_text(prog) == (
        "program partialDot(x: [float]N, y: [float]N) =\n"
        "  join o mapWrg(0)(join o toGlobal(mapLcl(0)(mapSeq(id))) o split(1) o "
        "iterate(6)(join o mapLcl(0)(toLocal(mapSeq(id)) o reduceSeq(add, 0.0f)) o split(2)) o "
        "join o mapLcl(0)(toLocal(mapSeq(id)) o reduceSeq(multAndSumUp, 0.0f)) o split(2)) o split(128) "
        "$ zip(x, y)")


UF = "userfun add(a: float, b: float): float { return a + b; }\n"


def body(src):
    return parse(UF + "program p(x: [float]N, y: [float]N) = " + src).program("p").body


def test_dollar_is_loosest_and_right_associative():
    e = body("mapSeq(id) $ mapSeq(id) $ x")
    assert isinstance(e, FunCall) and isinstance(e.args[0], FunCall) and e.args[0].args[0].name == "x"
    e2 = body("mapSeq(id) o mapSeq(id) $ x")
    assert isinstance(e2.f, Lambda)


def test_application_forms_agree():
    assert alpha_equal(body("(mapSeq(id) o split(2))(x)"), body("mapSeq(id) o split(2) $ x"))


def test_lambdas_tuples_and_literals():
    e = body("reduceSeq(\\acc xy -> add(acc, xy._1), 0.0f) $ zip(x, y)")
    red = e.f
    assert isinstance(red, P.Reduce) and [p.name for p in red.f.params] == ["acc", "xy"]
    get = red.f.body.args[1]
    assert isinstance(get.f, P.Get) and get.f.i == 1
    v = body("reduceSeq(mapVec(add), float4(0.0f)) o asVector(4) $ x").f.body.f.init
    assert str(v.type) == "float4" and v.value == "0.0f"


def test_index_functions():
    for src in ["gather(\\i -> i / M + N * (i % M))", "gather(reverse)", "scatter(reorderStride(32))",
                "gather(transpose(N, M))", "partition(N, \\i -> i + 1)", "pad(1, 2, clamp)",
                "pad(1, 1, 0.0f)", "slide(3, 1)", "slice(0, len(x))", "mapGlb(1)(id)", "iterate(5)(id)"]:
        f = body(f"{src} $ x").f
        assert fun_text(f) == src


def test_partial_application_of_multi_input_patterns():
    e = body("splitOffsets(x) $ y")
    assert isinstance(e.f, Lambda) and isinstance(e.f.body.f, P.SplitOffsets)
    assert fun_text(e.f) == "splitOffsets(x)"
    assert isinstance(body("zip(x, y, x)").f, P.Zip) and body("zip(x, y, x)").f.n == 3


def test_types_in_parameters():
    prog = parse("program p(a: [i -> [float](i + 1)]N, b: [[(int, float4)]M](2 * N), s: double) = a").program("p")
    assert [str(q.type) for q in prog.params] == ["[i -> [float](i + 1)]N", "[[(int, float4)]M](2 * N)", "double"]


def test_comments_and_userfun_bodies_with_braces():
    lf = parse("// a comment\nuserfun f(a: float): float { if (a > 0) { return a; } /* } */ return -a; }\n"
               "program p(x: [float]N) = mapGlb(0)(f) $ x  # trailing\n")
    assert lf.userfuns["f"].body == "if (a > 0) { return a; } /* } */ return -a;"


@pytest.mark.parametrize("src,line,col,message", [
    ("program p(x: [float]N) =\n  mapGlb(0)(id) $ y", 2, 19, "unknown name 'y'"),
    ("program p(x: [float]N) =\n  mapGlb(0)(mapSeq(id) $ x", 2, 13, "the argument of mapGlb must be a function, found a value"),
    ("program p(x: [float]N) = split(2 $ x", 1, 34, "expected ')', found '$'"),
    ("program p(x: [flot]N) = x", 1, 15, "unknown type 'flot'"),
    ("userfun f(a: float): float { return a;", 1, 28, "unterminated user function body"),
    ("program p(x: [float]N) = split(2)(x, x)", 1, 26, "split expects 1 argument(s), got 2"),
    ("program p(x: [float]N) = x(x)", 1, 26, "a called expression must be a function"),
    ("program p(x: [float]N) = mapGlb(3)(id) $ x", 1, 33, "the dimension must be 0, 1 or 2"),
    ("program p(x: [float]N) = x @ x", 1, 28, "unexpected character '@'"),
    ("bogus", 1, 1, "expected 'userfun' or 'program'"),
])
def test_syntax_errors(src, line, col, message):
    with pytest.raises(LiftSyntaxError) as ei:
        parse(src, "t.lift")
    err = ei.value
    assert message in err.message
    assert (err.span.line, err.span.col) == (line, col)
    assert str(err).startswith(f"t.lift:{line}:{col}: error: ")


def test_the_least_int_prints_as_lift_reads_it():
    lit, t = "-2147483648", "int"
    src = (f"userfun mx(a: {t}, b: {t}): {t} {{ return a > b ? a : b; }}\n"
           f"program p(x: [{t}]N) = join o mapGlb(0)(toGlobal(mapSeq(id)) o reduceSeq(mx, {lit})) o split(4) $ x\n")
    text = file_text([parse(src).program("p")])
    assert f"reduceSeq(mx, {lit})" in text
    assert file_text([parse(text).program("p")]) == text


def test_generate_prints_in_every_form():
    prog = parse("userfun f(i: int, x: float): float { return x * i; }\n"
                 "program p(x: [float]N) = mapGlb(0)(\\t -> f(t._0, t._1)) $ zip(generate(N), x)\n").program("p")
    assert "generate(N)" in program_text(prog)
    assert fun_text(P.Generate(prog.params[0].type.length)) == "generate(N)"
