"""Literals that do not fit their type and user functions over arrays are located errors (issue 11)."""
import numpy as np
import pytest

from lift_backend import LiftSyntaxError, compile_program, parse

ADDI = "userfun addi(a: int, b: int): int { return a + b; }\n"


@pytest.mark.parametrize("lit, col, msg", [
    ("99999999999", 63, "literal out of range: 99999999999 does not fit the type int (-2147483648 .. 2147483647)"),
    ("2147483648", 63, "literal out of range: 2147483648 does not fit the type int"),
    ("-2147483649", 64, "literal out of range: -2147483649 does not fit the type int"),
])
def test_int_literal_out_of_range(lit, col, msg):
    text = ADDI + f"program p(x: [int]N) = toGlobal(mapSeq(id)) o reduceSeq(addi, {lit}) $ x"
    with pytest.raises(LiftSyntaxError) as ei:
        parse(text, "t.lift")
    e = ei.value
    assert (e.span.line, e.span.col) == (2, col) and e.message.startswith(msg)


def test_float_literal_out_of_range():
    text = ("userfun add(a: float, b: float): float { return a + b; }\n"
            "program p(x: [float]N) = toGlobal(mapSeq(id)) o reduceSeq(add, 1e39f) $ x")
    with pytest.raises(LiftSyntaxError) as ei:
        parse(text, "t.lift")
    assert ei.value.message == "literal out of range: 1e39f does not fit the type float (it would be infinite)"


@pytest.mark.opencl
def test_int_extremes_accepted(runtime):
    for lit, start in (("2147483647", 2147483647), ("-2147483648", -2147483648)):
        text = ADDI + f"program p(x: [int]N) = toGlobal(mapSeq(id)) o reduceSeq(addi, {lit}) $ x"
        k = compile_program(parse(text).program("p"))
        out = runtime.run(k, {"x": np.zeros(4, np.int32)}, global_size=1)
        assert int(out[0]) == start


@pytest.mark.opencl
def test_int_literal_with_a_leading_zero_is_decimal(runtime):
    """012 is twelve (C would read it as octal ten)."""
    text = ADDI + "program p(x: [int]N) = toGlobal(mapSeq(id)) o reduceSeq(addi, 012) $ x"
    k = compile_program(parse(text).program("p"))
    out = runtime.run(k, {"x": np.arange(4, dtype=np.int32)}, global_size=1)
    assert int(out[0]) == 12 + 0 + 1 + 2 + 3


def test_user_function_with_an_array_parameter_is_a_located_error():
    # H_arrparam: was "internal error: ValueError"
    text = "userfun f(a: [float]4): float { return a[0]; }\nprogram p(x: [float]N) = mapGlb(0)(f) o split(4) $ x"
    with pytest.raises(LiftSyntaxError) as ei:
        parse(text, "t.lift")
    e = ei.value
    assert (e.span.line, e.span.col) == (1, 14)
    assert e.message.startswith("user function f: parameter a has the array type [float]4: user functions take "
                                "scalars, vectors and tuples")
    with pytest.raises(LiftSyntaxError) as ei:
        parse("userfun g(a: float): [float]2 { return a; }\n", "t.lift")
    assert ei.value.message.startswith("user function g: the result type [float]2 is an array")


def test_user_function_with_an_array_parameter_built_in_python():
    from lift_backend import LiftError
    from lift_backend.ir.expr import FunCall, Param, Program, UserFun
    from lift_backend.ir import patterns as P
    from lift_backend.types import ArrayType, ScalarType
    from lift_backend import arith as A
    f32 = ScalarType("float")
    uf = UserFun("f", ("a",), (ArrayType(f32, A.Cst(4)),), f32, "return a[0];")
    x = Param("x", ArrayType(f32, A.Var("N", A.Cst(1), None, 0)))
    prog = Program("p", (x,), FunCall(P.Map("mapGlb", uf, 0), (FunCall(P.Split(A.Cst(4)), (x,)),)))
    with pytest.raises(LiftError) as ei:
        compile_program(prog)
    assert "user function f: parameter a has the array type [float]4" in ei.value.message
