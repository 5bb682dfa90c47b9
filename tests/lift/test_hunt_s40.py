"""Defects found by a hunt of the standalone Lift compiler (session 40):

* an ``int`` literal as the initial value of ``reduceSeq``/``scanSeq``/``reduce`` whose
  accumulator is ``float`` (``reduceSeq(add, 0)``) was refused ("argument 1 has type int,
  expected float"): the initial value is a value of the accumulator type ``T`` (the papers'
  ``reduce: ((T, T) -> T, T, [T]n) -> [T]1``), so a literal that is exactly a ``float`` (or
  ``double``) stands for it, as C's initialisation converts it; one that is not
  (``16777217``) is a located error naming the ``float`` it would become.  The accumulator
  type is read from the user function, also through ``toPrivate(f)`` and from a lambda
  ``\\acc x -> f(f(acc, x), x)``; ``pad``'s constant boundary follows the same rule;
* a user function whose C body returns in some paths and falls off its end in another
  (``if (a > 0.0f) { return a; }``, a ``switch`` without ``default``, a loop) compiled, its
  result garbage there: a located error at the body's closing brace;
* a lambda with a parameter named twice (``\\a a -> f(a, a)``) was accepted (the body's
  ``a`` silently the second); ``mapGlb(-1)(f)`` said "the argument of mapGlb must be a
  function, found a value": both are located errors saying what is wrong;
* user functions built through the Python API skipped the parser's checks (no return, a path
  without one, ``#``, a ``}`` closing the function early, a call of itself, a name that is no C
  identifier: garbage results, an injected C function, failed builds), ``flit(nan)``/``flit(inf)``
  gave ``nanf``/``inff`` (no C), ``flit(1e300)`` an infinite float, ``ilit(2**40)`` a C ``long``,
  ``userfun(.., [("a", "float")], ..)`` "argument 1 has type float, expected float" and
  ``mapGlb(f, 5)`` compiled: each is refused saying why;
* ``file_text(parse(...))`` (a LiftFile) raised "'LiftFile' object is not iterable";
* a row constraint of a position-dependent array compiled without the sizes said "no closed
  form for the sum sum(gl_id_1, 0, gl_id, (gl_id_1 + 1) / 3)": the constraint is the error
  (naming row 0 where it fails whatever the sizes, else asking for the sizes).
"""
import numpy as np
import pytest

from lift_backend import LiftError, compile_program, parse
from lift_backend.cli import main
from lift_backend.errors import LiftSyntaxError, LiftTypeError
from lift_backend.syntax.cflow import can_fall_off_end

UF = r"""
userfun add(a: float, b: float): float { return a + b; }
userfun addd(a: double, b: double): double { return a + b; }
userfun mul(a: float, b: float): float { return a * b; }
"""


def prog(body: str, elem: str = "float", name: str = "p"):
    return parse(f"{UF}program {name}(x: [{elem}]N) = {body}\n", "t.lift").program(name)


def _cli(capsys, *argv):
    rc = main([str(a) for a in argv])
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return rc, err


# ------------------------------------------------------- int literals for float accumulators

X = np.array([0.5, 1.25, -2.0, 3.0, 4.5, -0.75, 8.0, 1.0], np.float32)


@pytest.mark.opencl
@pytest.mark.parametrize("body,want", [
    ("join o mapGlb(0)(toGlobal(mapSeq(id)) o reduceSeq(add, 3)) o split(2) $ x",
     lambda x: 3 + x.reshape(4, 2).sum(1)),
    ("join o mapGlb(0)(toGlobal(mapSeq(id)) o reduceSeq(add, 0)) o split(4) $ x",
     lambda x: x.reshape(2, 4).sum(1)),
    ("join o mapGlb(0)(toGlobal(mapSeq(id)) o reduceSeq(mul, -1)) o split(4) $ x",
     lambda x: -x.reshape(2, 4).prod(1)),
    ("join o mapGlb(0)(toGlobal(mapSeq(id)) o reduceSeq(add, 16777216)) o split(8) $ x",
     lambda x: np.float32(16777216) + x.sum()),
    ("join o mapGlb(0)(toGlobal(scanSeq(add, -2))) o split(4) $ x",
     lambda x: np.concatenate([-2 + np.concatenate([[0], np.cumsum(r)[:-1]]) for r in x.reshape(2, 4)])),
    ("join o mapGlb(0)(toGlobal(mapSeq(id)) o reduce(add, 1)) o split(4) $ x",
     lambda x: 1 + x.reshape(2, 4).sum(1)),
    # the accumulator type from a lambda's user function, nested calls, toPrivate
    ("join o mapGlb(0)(toGlobal(scanSeq(\\a b -> add(a, mul(b, b)), 5))) o split(2) $ x",
     lambda x: np.concatenate([[5, 5 + r[0] ** 2] for r in x.reshape(4, 2)])),
    ("join o mapGlb(0)(toGlobal(mapSeq(id)) o reduceSeq(\\a b -> add(add(a, b), b), 0)) o split(2) $ x",
     lambda x: 2 * x.reshape(4, 2).sum(1)),
    ("join o mapGlb(0)(toGlobal(mapSeq(id)) o reduceSeq(toPrivate(add), 7)) o split(2) $ x",
     lambda x: 7 + x.reshape(4, 2).sum(1)),
    # pad's constant boundary: the same rule
    ("mapGlb(0)(toGlobal(id)) o pad(1, 2, 7) $ x", lambda x: np.pad(x, (1, 2), constant_values=7)),
])
def test_an_int_literal_initialises_a_float_accumulator(runtime, body, want):
    k = compile_program(prog(body))
    out = runtime.run(k, {"x": X}, global_size=4)
    assert out.dtype == np.float32
    np.testing.assert_allclose(np.asarray(out).reshape(-1), want(X.astype(np.float64)), rtol=1e-6)


@pytest.mark.opencl
def test_an_int_literal_initialises_a_double_accumulator(runtime):
    # every int is a double: 2147483647 exactly
    x = np.array([1.0, 0.5, -1.0, 2.0], np.float64)
    k = compile_program(prog("join o mapGlb(0)(toGlobal(mapSeq(id)) o reduceSeq(addd, 2147483647)) o split(2) $ x",
                             "double"))
    out = runtime.run(k, {"x": x}, global_size=2)
    assert out.dtype == np.float64
    np.testing.assert_array_equal(out, [2147483648.5, 2147483648.0])


@pytest.mark.opencl
def test_the_cli_runs_a_float_reduction_from_an_int_literal(tmp_path, capsys):
    f = tmp_path / "s.lift"
    f.write_text(UF + "program s(x: [float]N) = join o mapGlb(0)(toGlobal(mapSeq(id)) o reduceSeq(add, 0)) o split(4) $ x\n")
    np.save(tmp_path / "x.npy", X)
    rc, err = _cli(capsys, "run", f, "--arg", f"x={tmp_path / 'x.npy'}", "--global", "2", "--out", tmp_path / "o.npy")
    assert rc == 0, err
    np.testing.assert_allclose(np.load(tmp_path / "o.npy"), X.reshape(2, 4).sum(1))


@pytest.mark.parametrize("body,kind,value,rounded", [
    ("join o mapGlb(0)(toGlobal(mapSeq(id)) o reduceSeq(add, 16777217)) o split(2) $ x",
     "reduceSeq", "16777217", "16777216.0f"),
    ("join o mapGlb(0)(toGlobal(mapSeq(id)) o reduceSeq(add, -16777217)) o split(2) $ x",
     "reduceSeq", "-16777217", "-16777216.0f"),
    ("join o mapGlb(0)(toGlobal(scanSeq(add, 2147483647))) o split(2) $ x",
     "scanSeq", "2147483647", "2147483648.0f"),
    ("join o mapGlb(0)(toGlobal(mapSeq(id)) o reduceSeq(\\a b -> add(a, b), 33554433)) o split(2) $ x",
     "reduceSeq", "33554433", "33554432.0f"),
    ("mapGlb(0)(toGlobal(id)) o pad(1, 1, 16777217) $ x", "pad", "16777217", "16777216.0f"),
])
def test_an_int_literal_that_is_no_float_is_a_located_error(body, kind, value, rounded):
    col = len("program p(x: [float]N) = ") + body.index(value) + 1
    what = "initial value" if kind != "pad" else "boundary value"
    with pytest.raises(LiftTypeError) as ei:
        compile_program(prog(body))
    msg = str(ei.value)
    assert f"{kind}: the {what} {value} is not a float value (as a float it would be {rounded})" in msg, msg
    assert msg.startswith(f"t.lift:5:{col}: error:"), msg      # at the literal


@pytest.mark.parametrize("body,message", [
    # a double literal, a vector accumulator, a float literal for an int one: still type errors
    ("join o mapGlb(0)(toGlobal(mapSeq(id)) o reduceSeq(add, 1.5)) o split(2) $ x",
     "user function add: argument 1 has type double, expected float"),
    ("mapGlb(0)(toGlobal(id)) o pad(1, 1, 2.0) $ x",
     "pad: the boundary value has type double, the elements have type float"),
])
def test_literals_of_other_types_stay_type_errors(body, message):
    with pytest.raises(LiftError, match=message.replace("(", r"\(")):
        compile_program(prog(body))


def test_the_generated_accumulator_is_the_float_type():
    k = compile_program(prog("join o mapGlb(0)(toGlobal(mapSeq(id)) o reduceSeq(add, 3)) o split(2) $ x"))
    assert "float acc1 = 3;" in k.source, k.source


# ------------------------------------------------------------- user functions falling off

FALLS = [
    "if (a > 0.0f) { return a; }",
    "if (a > 0.0f) return a; else if (a < 0.0f) return -a;",
    "switch ((int)a) { case 0: return 1.0f; case 1: return 2.0f; }",
    "switch ((int)a) { case 0: break; default: return 2.0f; }",
    "for (int i = 0; i < 3; i++) { if (a > i) return a; }",
    "while (a > 0.0f) { return a; }",
    "for (;;) { if (a > 1.0f) break; a += 1.0f; if (a < -9.0f) return a; }",
    "do { if (a > 0.0f) continue; return a; } while (a < 0.0f);",
    "if (a) { return a; } else { /* return 0.0f; */ }",
]

RETURNS = [
    "return a;",
    "if (a > 0.0f) return a; else return -a;",
    "if (a > 0.0f) { return a; } else if (a < 0.0f) { return -a; } else { return 0.0f; }",
    "switch ((int)a) { case 0: return 1.0f; default: return 2.0f; }",
    "switch ((int)a) { case 0: a = 1.0f; default: return a; }",
    "while (1) { if (a > 4.0f) return a; a += 1.0f; }",
    "for (;;) { if (a > 4.0f) return a; a += 1.0f; }",
    "do { return a; } while (0);",
    "float r = a < 0.0f ? -a : a; { float q[2] = {r, 1.0f}; return q[0]; }",
    "again: if (a > 4.0f) return a; a += 1.0f; goto again;",
    "if (a > 0.0f) return a; return -a; // if (a) { }",
    "for (;;) { if (a > 1.0f) break; a += 1.0f; } return a;",
    "if (0) { a = 1.0f; } else { return a; }",
    "while (010) { if (a > 4.0f) return a; a += 1.0f; }",     # octal: int("010", 0) raised
]


@pytest.mark.parametrize("body", FALLS)
def test_a_user_function_that_can_end_without_a_return_is_a_located_error(body):
    src = f"userfun f(a: float): float {{\n  {body}\n}}\nprogram p(x: [float]N) = mapGlb(0)(f) $ x\n"
    with pytest.raises(LiftSyntaxError) as ei:
        parse(src, "u.lift")
    msg = str(ei.value)
    assert msg.startswith("u.lift:3:1: error: user function f returns float but control can reach the end "
                          "of its body without a return statement"), msg


@pytest.mark.opencl
@pytest.mark.parametrize("body", RETURNS)
def test_a_user_function_returning_on_every_path_runs(runtime, body):
    src = f"userfun f(a: float): float {{\n  {body}\n}}\nprogram p(x: [float]N) = mapGlb(0)(f) $ x\n"
    k = compile_program(parse(src, "u.lift").program("p"))
    out = runtime.run(k, {"x": np.array([5.0, 6.0], np.float32)}, global_size=2)
    assert out.shape == (2,)


def test_the_cli_reports_a_missing_return_with_the_closing_brace(tmp_path, capsys):
    f = tmp_path / "f.lift"
    f.write_text("userfun f(a: float): float { if (a > 0.0f) { return a; } }\n"
                 "program p(x: [float]N) = mapGlb(0)(f) $ x\n")
    rc, err = _cli(capsys, "compile", f, "--size", "N=4")
    assert rc == 1
    lines = err.splitlines()
    assert lines[0] == (f"{f}:1:58: error: user function f returns float but control can reach the end of "
                        f"its body without a return statement (a path that returns no value)"), err
    assert lines[1].startswith("userfun f(a: float)") and lines[2] == " " * 57 + "^"


def test_the_flow_analysis_gives_no_verdict_on_what_it_does_not_parse():
    # a case label in a nested block (Duff's device), a stray else: the OpenCL compiler judges
    assert can_fall_off_end("switch (n) { case 0: do { case 1: x++; } while (0); } return x;") is None
    assert can_fall_off_end("else return 1;") is None
    assert can_fall_off_end("if (a) return 1;") is True
    assert can_fall_off_end("if (a) return 1; return 2;") is False


# -------------------------------------------------------------------- lambdas and dimensions

def test_a_lambda_parameter_named_twice_is_a_located_error():
    with pytest.raises(LiftSyntaxError) as ei:
        prog("join o mapGlb(0)(toGlobal(mapSeq(id)) o reduceSeq(\\a a -> add(a, a), 0.0f)) o split(2) $ x")
    assert str(ei.value).startswith("t.lift:5:79: error: lambda parameter a is declared twice"), str(ei.value)


def test_a_negative_map_dimension_is_named():
    with pytest.raises(LiftSyntaxError) as ei:
        prog("mapGlb(-1)(id) $ x")
    assert str(ei.value).startswith("t.lift:5:33: error: mapGlb: the dimension must be 0, 1 or 2, got -1"), \
        str(ei.value)


# ----------------------------------------------------------- programs built through the API

def _api_program(uf, init=None):
    from lift_backend.arith import size_var
    from lift_backend.ir import builders as B
    from lift_backend.types import ArrayType, Float
    n = size_var("N")
    if init is None:
        return B.program("p", [("x", ArrayType(Float, n))], lambda x: B.mapGlb(uf)(x))
    return B.program("p", [("x", ArrayType(Float, n))], lambda x: B.compose(
        B.join(), B.mapGlb(B.compose(B.toGlobal(B.mapSeq(B.id_())), B.reduceSeq(uf, init))), B.split(2))(x))


@pytest.mark.parametrize("name,body,message", [
    ("f", "if (a > 0.0f) return a;", "user function f: control can reach the end of its body without a return"),
    ("f", "a += 1.0f;", "user function f: its body has no return statement"),
    ("f", "#define X 1\nreturn a;", "user function f: a user function body is C statements: preprocessor"),
    ("f", "return a; } float evil(float a) { return a;", "user function f: its body closes a brace it did not open"),
    ("f", "{ return a;", "user function f: its body opens a brace (or a comment or string literal) it does not close"),
    ("f", "return a > 0.0f ? f(a - 1.0f) : a;", "user function f: it calls itself: OpenCL C has no recursion"),
    ("1f", "return a;", "user function 1f: '1f' is not a name"),
])
def test_api_user_functions_get_the_parsers_checks(name, body, message):
    # they compiled (garbage results, an injected C function, a kernel that does not build)
    from lift_backend.errors import LiftCompileError
    from lift_backend.ir import builders as B
    from lift_backend.types import Float
    uf = B.userfun(name, [("a", Float)], Float, body)
    with pytest.raises(LiftCompileError) as ei:
        compile_program(_api_program(uf))
    assert message in str(ei.value), str(ei.value)


@pytest.mark.opencl
def test_api_int_literal_initialises_a_float_accumulator(runtime):
    from lift_backend.ir import builders as B
    from lift_backend.types import Float
    add = B.userfun("add", [("a", Float), ("b", Float)], Float, "return a + b;")
    out = runtime.run(compile_program(_api_program(add, B.ilit(3))), {"x": X}, global_size=4)
    np.testing.assert_allclose(out, 3 + X.reshape(4, 2).sum(1))
    out = runtime.run(compile_program(_api_program(add, B.ilit(-2 ** 31))), {"x": X}, global_size=4)
    np.testing.assert_allclose(out, np.float32(-2 ** 31) + X.reshape(4, 2).sum(1))


@pytest.mark.parametrize("make,message", [
    (lambda B: B.ilit(2 ** 40), "ilit(1099511627776): the value does not fit the type int"),
    (lambda B: B.ilit(2.5), "ilit: expected an integer, got 2.5"),
    (lambda B: B.flit(float("nan")), "flit(nan): a float literal must be a finite float"),
    (lambda B: B.flit(float("-inf")), "flit(-inf): a float literal must be a finite float"),
    (lambda B: B.flit(1e300), "flit(1e+300): a float literal must be a finite float"),
    (lambda B: B.dlit(float("inf")), "dlit(inf): a double literal must be a finite double"),
])
def test_api_literals_the_language_cannot_write_are_refused(make, message):
    # they gave "nanf"/"inff" (the OpenCL build failed), an infinite float or an int literal
    # C reads as a long
    from lift_backend.errors import LiftTypeError as TE
    from lift_backend.ir import builders as B
    with pytest.raises(TE) as ei:
        make(B)
    assert message in str(ei.value), str(ei.value)


def test_api_user_function_types_and_map_dimensions_are_checked():
    from lift_backend.arith import size_var
    from lift_backend.ir import builders as B
    from lift_backend.types import ArrayType, Float
    with pytest.raises(LiftTypeError, match="user function g: parameter a has type 'float': expected a scalar"):
        B.userfun("g", [("a", "float")], Float, "return a;")       # said "has type float, expected float"
    with pytest.raises(LiftTypeError, match=r"user function g: the result has type \[float\]N"):
        B.userfun("g", [("a", Float)], ArrayType(Float, size_var("N")), "return a;")
    uf = B.userfun("g", [("a", Float)], Float, "return a;")
    p = B.program("p", [("x", ArrayType(Float, size_var("N")))], lambda x: B.mapGlb(uf, 5)(x))
    with pytest.raises(LiftTypeError, match="mapGlb: the dimension must be 0, 1 or 2, got 5"):
        compile_program(p)                                        # compiled, get_global_id(5)


def test_file_text_prints_a_parsed_file():
    from lift_backend import alpha_equal, file_text
    f = parse(UF + "program p(x: [float]N) = join o mapGlb(0)(toGlobal(mapSeq(id)) o reduceSeq(add, 0)) "
                   "o split(2) $ x\n", "t.lift")
    text = file_text(f)                               # TypeError: 'LiftFile' object is not iterable
    again = parse(text, "again.lift")
    assert set(again.userfuns) == {"add", "addd", "mul"}
    assert alpha_equal(again.program("p"), f.program("p"))


# ------------------------------------------------ row constraints before the sizes are known

ROWS = ("userfun add(a: float, b: float): float { return a + b; }\n"
        "program p(m: [i -> [float](LEN)]N) = mapGlb(0)(\\row -> join o mapSeq(toGlobal(mapSeq(id)) "
        "o reduceSeq(add, 0.0f)) o split(K) $ row) $ m\n")


def test_a_row_that_never_fits_is_named_without_the_sizes():
    # said "no closed form for the sum sum(gl_id_1, 0, gl_id, (gl_id_1 + 1) / 3)"
    with pytest.raises(LiftError) as ei:
        compile_program(parse(ROWS.replace("LEN", "i + 1").replace("K", "3"), "r.lift").program("p"))
    assert str(ei.value) == ("r.lift:2:119: error: split(3): the length gl_id + 1 must be divisible by 3 "
                             "(row gl_id=0, whatever the sizes)"), str(ei.value)


def test_a_row_constraint_that_needs_the_sizes_asks_for_them():
    src = ROWS.replace("LEN", "N - i").replace("K", "2")
    with pytest.raises(LiftError) as ei:
        compile_program(parse(src, "r.lift").program("p"))
    assert str(ei.value) == ("r.lift:2:119: error: split(2): the length N - gl_id must be divisible by 2 for "
                             "every row, which cannot be checked without the size(s) N (nor the row offsets "
                             "computed): give them (on the command line --size N=VALUE, in Python "
                             "sizes={'N': VALUE})"), str(ei.value)
    with pytest.raises(LiftError, match=r"split\(2\): the length 4 - gl_id must be divisible by 2 "
                                        r"\(row gl_id=1: with N=4\)"):
        compile_program(parse(src, "r.lift").program("p"), sizes={"N": 4})


@pytest.mark.opencl
def test_rows_that_fit_still_compile_without_the_sizes(runtime):
    k = compile_program(parse(ROWS.replace("LEN", "3 * i + 3").replace("K", "3"), "r.lift").program("p"))
    m = np.arange(18, dtype=np.float32)          # rows of 3, 6, 9
    out = runtime.run(k, {"m": m}, global_size=3)
    np.testing.assert_array_equal(np.asarray(out).reshape(-1), m.reshape(6, 3).sum(1))
