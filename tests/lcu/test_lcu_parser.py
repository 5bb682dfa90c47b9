"""The parser of printed λcu (lambda_cu/parser.py, issue 13): every example program round-trips
through its printed form, bad input is reported with a position, and passes can be tested as
"this IR in, these lines out"."""
import glob
import os

import pytest

from lambda_cu import dead_code, ir
from lambda_cu.fusion.cse import cse_program
from lambda_cu.loc import Loc
from lambda_cu.parser import (LcuParseError, parse_exp, parse_function, parse_kernel,
                              parse_program, strip_unprinted)
from lambda_cu.types import FLOAT, INT, INT64, TupleT

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FILES = sorted(glob.glob(os.path.join(ROOT, "nesl_examples", "*.nesl"))
               + glob.glob(os.path.join(ROOT, "tests", "cmu_style", "*.nesl")))


def lines(node) -> list[str]:
    return str(node).strip("\n").split("\n")


def programs(path):
    from nessie import passes
    with open(path) as f:
        text = f.read()
    values = passes.run(text, passes.Options(path), until="lcu-fused")
    return {"lcu": values["lcu"].program, "lcu-fused": values["lcu-fused"].flat.program}


@pytest.mark.parametrize("path", FILES, ids=[os.path.relpath(p, ROOT) for p in FILES])
def test_printed_programs_round_trip(path):
    for stage, prog in programs(path).items():
        text = str(prog)
        back = parse_program(text)
        assert str(back) == text, stage
        # structural equality, modulo the fields the printer does not show (locations, ...)
        assert back == strip_unprinted(prog), stage
        assert parse_program(str(back)) == back, stage


def test_example_list_is_complete():
    assert len(FILES) >= 50


# ---------------------------------------------------------------- what the parser infers

def test_thunk_parameter_types_and_literal_widths_are_inferred():
    k = parse_kernel(
        "kernel K (xs0 : [int]) -> (int64, int) {\n"
        "  let (r0, r1) = REDUCE { i => (to_int:int64(xs0[i]), xs0[i]) using xs0 } (0, 2147483647)"
        " { (x1, m1, x2, m2) => (x1 + x2, min(m1, m2)) } (#xs0)\n"
        "  return (r0, r1)\n"
        "}")
    s = k.binds[0].soac
    assert [p.ty for p in s.f.params] == [INT]
    assert [p.ty for p in s.op.params] == [INT64, INT, INT64, INT]
    assert s.init == (ir.Const(0, INT64), ir.Const(2147483647, INT))
    t = parse_kernel("kernel K (xs : [float], n : int) -> (float, int) {\n"
                     "  let r = REDUCE { i => (xs[i], 1) using xs } (0.0, 0) { (a, b) => (a.0 + b.0, a.1 + b.1) } (n)\n"
                     "  return r\n}")
    assert t.results == (TupleT((FLOAT, INT)),)   # one returned variable: one tuple result
    assert [p.ty for p in t.binds[0].soac.op.params] == [TupleT((FLOAT, INT))] * 2


def test_typed_thunks_are_read_too():
    k = parse_kernel("kernel K (xs : [float]) -> [float] {\n"
                     "  let r = MAP { (i : int) => xs[i] * 2.0 using xs } (#xs)\n  return r\n}")
    assert k.binds[0].soac.f.params == (ir.Param(ir.Var("i"), INT),)


def test_precedence_and_ambiguous_forms():
    e = parse_exp("a - b - c * d ^ e ^ f < -1 && !p || q")
    assert str(e) == "a - b - c * d ^ e ^ f < -1 && !p || q"
    assert e.op == "or" and e.args[0].op == "and"
    assert parse_exp("a - (b - c)").args[1].op == "sub"
    assert parse_exp("(a ^ b) ^ c").args[0].op == "pow"
    assert parse_exp("v[-1]").idx == ir.Const(-1, INT)
    assert parse_exp("x.0.1") == ir.Proj(ir.Proj(ir.Var("x"), 0), 1)
    assert parse_exp("f (x)") == ir.Call("f", (ir.Var("x"),))
    assert parse_exp("sqrt(x)") == ir.PrimOp("sqrt", (ir.Var("x"),))
    assert parse_exp("trunc:int64(x)") == ir.PrimOp("trunc", (ir.Var("x"),), INT64)
    assert parse_exp("extern @#3 (n) : [char]").name == "@#3"
    assert parse_exp('check(n >= 0, "f.nesl:1:2", "say \\"no\\"")').message == 'say "no"'


def test_check_and_error_locations_are_read_into_loc_values():
    """The printed location of ``check``/``error`` comes back as the ``Loc`` it was printed
    from (issue 13): with its end, as a point, or ``None`` for ``?``; anything else is refused."""
    assert parse_exp('check(b, "d:\\\\x.nesl:2:5-3:1", "m")').loc == Loc("d:\\x.nesl", 2, 5, 3, 1)
    assert parse_exp('check(b, "f.nesl:1:2", "m")').loc == Loc.point("f.nesl", 1, 2)
    assert parse_exp('error("?", "m") : int').loc is None
    for loc in (Loc("a.nesl", 4, 7, 4, 12), Loc.point("a.nesl", 4, 7), None):
        e = ir.Error(INT, loc, "m")
        assert parse_exp(str(e)) == e
    with pytest.raises(LcuParseError, match="expected a location"):
        parse_exp('check(b, "somewhere", "m")')


# ---------------------------------------------------------------- errors

def test_bad_token_is_reported_with_its_position():
    with pytest.raises(LcuParseError) as e:
        parse_program("function f (x : int) -> int {\n  return x $ 1\n}\n")
    assert str(e.value).startswith("2:12:")
    assert (e.value.line, e.value.col) == (2, 12)


def test_unbalanced_brace_is_reported_with_a_position():
    with pytest.raises(LcuParseError) as e:
        parse_program("function f (x : int) -> int {\n  let y : int = x + 1\n  return y\n")
    assert str(e.value).startswith("4:1:") and "'}'" in str(e.value)
    with pytest.raises(LcuParseError) as e:
        parse_program("kernel K (xs : [int]) -> [int] {\n  let r = MAP { i => xs[i] using xs (#xs)\n"
                      "  return r\n}\n")
    assert str(e.value).startswith("2:")
    with pytest.raises(LcuParseError, match=r"^1:\d+: "):
        parse_exp("(a + b))")


def test_ill_typed_kernel_is_reported_at_the_kernel():
    with pytest.raises(LcuParseError, match=r"^1:1: kernel K"):
        parse_kernel("kernel K (xs : [int]) -> int {\n"
                     "  let r = REDUCE { i => ys[i] using ys } (0) { (a, b) => a + b } (#xs)\n"
                     "  return r\n}")


# ---------------------------------------------------------------- passes as text in, lines out

def test_cse_merges_identical_segment_descriptors():
    prog = parse_program("""
function f (xs : [int]) -> (sd, sd) {
  let a : sd = make_sd(xs)
  let b : sd = make_sd(xs)
  return (a, b)
}
""")
    assert lines(cse_program(prog)) == [
        "function f (xs : [int]) -> (sd, sd) {",
        "  let a : sd = make_sd(xs)",
        "  return (a, a)",
        "}",
    ]


def test_dead_code_drops_unused_total_work_and_its_kernel():
    prog = parse_program("""
kernel K1 (xs0 : [int], s1 : int) -> [int] {
  let r0 = MAP { i => xs0[i] + 1 using xs0 } (s1)
  return r0
}

function g (xs : [int]) -> int {
  let n : int = #xs
  let m : int = n + 1
  let ys : [int] = run K1 (xs, n)
  let _ = check(n > 0, "g.nesl:1:1", "empty")
  return n
}
""")
    assert lines(dead_code.eliminate_dead_code(prog)) == [
        "function g (xs : [int]) -> int {",
        "  let n : int = #xs",
        '  let _ = check(n > 0, "g.nesl:1:1", "empty")',
        "  return n",
        "}",
    ]
