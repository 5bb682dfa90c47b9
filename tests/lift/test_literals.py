"""Literals that do not fit their type are located syntax errors (issue 11), not truncated."""
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
