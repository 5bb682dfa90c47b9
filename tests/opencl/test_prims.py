"""Every scalar primitive of lambda_cu/prims.py lowered to OpenCL C (cgen.py), on int, int64,
float, bool and char, against the numpy runner: wrap-around, division by zero, shifts by the
width or more, float->int conversions of huge/inf/nan values, NaN and signed zeros in min/max.

Each test runs one MAP over all pairs of edge values whose thunk applies many primitives at once
(one OpenCL kernel per type, so that the test stays fast); results are compared exactly (floats
bit for bit, NaN = NaN)."""
import dataclasses
import itertools
import math

import numpy as np
import pytest

from lambda_cu.errors import MSG_DIV0, MSG_ISQRT
from lambda_cu.ir import Exp, If, Let, Map, PrimOp, Tuple
from lambda_cu.prims import PRIMS

from .ocl_helpers import (L, BOOL, CHAR, FLOAT, INT, INT64, VecT, check, const, length, one, prim, th,
                          var, Index)

pytestmark = pytest.mark.opencl

I32 = [0, 1, -1, 2, -2, 3, -7, 7, 31, 32, 33, 63, 64, 100, 46341, 65536, -65536,
       2**31 - 1, -2**31, 2**31 - 2, -2**31 + 1]
I64 = [0, 1, -1, 2, -3, 7, -7, 31, 32, 63, 64, 65, 2**31 - 1, -2**31, 2**32, 2**32 + 1,
       3037000499, 3037000500, 2**62, 2**63 - 1, -2**63, -2**63 + 1]
F64 = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, 2.5, -2.5, 3.7, -3.7, 0.1, 1e-310, 2.0**31,
       -2.0**31 - 1, 2.0**32 + 0.5, 2.0**63, -2.0**63, 2.0**64 + 4096, 1e300, -1e300,
       math.inf, -math.inf, math.nan, -math.nan, 7.0, 1e20, -123456789.75]
CHARS = [0, 1, 9, 48, 65, 97, 122, 127, 128, 200, 255]


def pairs(vals, dtype):
    a, b = zip(*itertools.product(vals, vals))
    return np.asarray(a, dtype=dtype), np.asarray(b, dtype=dtype)


def binary_map(t, exprs):
    """MAP over #a of a thunk ``let x = a[i]; y = b[i] in (exprs...)``."""
    i = var("i")
    body = Let((var("x"),), Index(var("a"), i), Let((var("y"),), Index(var("b"), i), Tuple(tuple(exprs))))
    return one(Map(th(("i", INT), body), length("a")), [("a", VecT(t)), ("b", VecT(t))], nres=len(exprs))


X, Y = var("x"), var("y")


def guarded(op, t, zero):
    """``if y == 0 then 0 else op(x, y)`` (the untaken branch cannot fail)."""
    return If(prim("eq", Y, const(zero, t)), const(zero, t), prim(op, X, Y, loc=L(f"p:{op}")))


def int_exprs(t):
    z = 0
    names, exprs = [], []

    def add(name, e):
        names.append(name)
        exprs.append(e)
    for op in ("add", "sub", "mul", "min", "max", "and", "or", "xor", "nand", "nor",
               "lshift", "rshift"):
        add(op, prim(op, X, Y))
    for op in ("eq", "ne", "lt", "le", "gt", "ge"):
        add(op, prim(op, X, Y))
    for op in ("div", "rem", "mod"):
        add(op, guarded(op, t, z))
    # pow: a negative exponent gives 1/x^-e (0 ^ negative fails: guarded)
    add("pow", If(prim("and", prim("lt", Y, const(0, t)), prim("eq", X, const(0, t))), const(0, t),
                  prim("pow", X, Y, loc=L("p:pow"))))
    add("pow_small", prim("pow", X, prim("abs", prim("rem", Y, const(5, t)))))
    for op in ("neg", "abs", "not", "isqrt"):
        add(op, prim(op, X))
    add("isqrt_loc", If(prim("lt", X, const(0, t)), const(0, t), prim("isqrt", X, loc=L("p:isqrt"))))
    add("to_float", prim("to_float", X))
    add("to_int32", prim("to_int", X, ty=INT))
    add("to_int64", prim("to_int", X, ty=INT64))
    add("code_char", prim("code_char", X))
    add("select", prim("select", prim("lt", X, Y), X, Y))
    other = INT64 if t == INT else INT
    # shifts and powers with a count of the other width
    add("lshift_w", prim("lshift", X, prim("to_int", Y, ty=other)))
    add("rshift_w", prim("rshift", X, prim("to_int", Y, ty=other)))
    add("pow_w", prim("pow", X, prim("to_int", prim("abs", prim("rem", Y, const(9, t))), ty=other)))
    return names, exprs


@pytest.mark.parametrize("t,vals,dt", [(INT, I32, np.int32), (INT64, I64, np.int64)], ids=["int", "int64"])
def test_integer_primitives(runners, t, vals, dt):
    names, exprs = int_exprs(t)
    a, b = pairs(vals, dt)
    check(binary_map(t, exprs), runners, a, b, names=names, expect_error=False)


def float_exprs():
    names, exprs = [], []

    def add(name, e):
        names.append(name)
        exprs.append(e)
    for op in ("add", "sub", "mul", "div", "min", "max", "expt", "log"):
        add(op, prim(op, X, Y))
    for op in ("eq", "ne", "lt", "le", "gt", "ge"):
        add(op, prim(op, X, Y))
    add("pow_int", prim("pow", X, prim("trunc", prim("div", Y, const(1e10)), ty=INT)))
    add("pow_small", prim("pow", X, prim("rem", prim("trunc", Y, ty=INT), const(4))))
    add("select", prim("select", prim("lt", X, Y), X, Y))
    for op in ("neg", "abs", "sqrt", "exp", "ln", "sin", "cos", "tan", "asin", "acos", "atan",
               "sinh", "cosh", "tanh"):
        add(op, prim(op, X))
    for op in ("trunc", "round", "floor", "ceil"):
        add(op, prim(op, X))
        add(op + "64", prim(op, X, ty=INT64))
    return names, exprs


#: OpenCL's double-precision built-ins are not correctly rounded (OpenCL 1.2, 7.4: exp, sin,
#: cos, tan ... within 2-4 ulp, pow within 16 ulp) while numpy's (glibc's) nearly are: PoCL gives
#: e.g. exp(1.0) = 2.7182818284590455 (1 ulp above numpy's).  These results may differ by a few
#: ulp; +, -, *, /, sqrt, rounding, min/max and the conversions are compared bit for bit.
LIBM_ULPS = {n: 4 for n in ("exp", "ln", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh",
                            "tanh", "log")}
LIBM_ULPS.update({n: 16 for n in ("expt", "pow_int", "pow_small")})


def test_float_primitives(runners):
    names, exprs = float_exprs()
    a, b = pairs(F64, np.float64)
    check(binary_map(FLOAT, exprs), runners, a, b, names=names, expect_error=False, ulps=LIBM_ULPS)


def test_round_halves_to_even_and_conversions_wrap(runners):
    vals = [0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 2.0**31 + 0.5, 2.0**32 - 0.5, -2.0**31 - 0.5,
            4294967296.0 * 3 + 7.0, -4294967296.0 * 5 - 9.0, 2.0**63 + 2.0**11, 2.0**80, -2.0**80,
            math.inf, -math.inf, math.nan]
    xs = np.asarray(vals)
    x = Index(var("xs"), var("i"))
    exprs = [prim(op, x, ty=ty) for op in ("trunc", "round", "floor", "ceil") for ty in (INT, INT64)]
    prog = one(Map(th(("i", INT), Tuple(tuple(exprs))), length("xs")), [("xs", VecT(FLOAT))], nres=len(exprs))
    ref = check(prog, runners, xs, expect_error=False)
    assert ref[2][:6].tolist() == [0, 2, 2, 0, -2, -2]          # round: halves to even
    assert ref[0][-3:].tolist() == [-2**31] * 3                  # inf/nan -> min int


def char_exprs():
    names, exprs = [], []
    for op in ("min", "max", "eq", "ne", "lt", "le", "gt", "ge"):
        names.append(op)
        exprs.append(prim(op, X, Y))
    names += ["char_code", "char_code64", "roundtrip", "select", "const"]
    exprs += [prim("char_code", X), prim("char_code", X, ty=INT64),
              prim("code_char", prim("add", prim("char_code", X), const(300))),
              prim("select", prim("gt", X, Y), X, const("z")), const("\xff")]
    return names, exprs


def test_char_primitives(runners):
    a, b = pairs(CHARS, np.uint8)
    names, exprs = char_exprs()
    check(binary_map(CHAR, exprs), runners, a, b, names=names, expect_error=False)


def bool_exprs():
    names, exprs = [], []
    for op in ("and", "or", "xor", "nand", "nor", "eq", "ne"):
        names.append(op)
        exprs.append(prim(op, X, Y))
    names += ["not", "btoi", "btoi64", "select", "true", "false"]
    exprs += [prim("not", X), prim("btoi", X), prim("btoi", X, ty=INT64), prim("select", X, Y, prim("not", Y)),
              const(True), const(False)]
    return names, exprs


def test_bool_primitives(runners):
    a, b = pairs([False, True], np.bool_)
    names, exprs = bool_exprs()
    check(binary_map(BOOL, exprs), runners, a, b, names=names, expect_error=False)


def _ops(e, out):
    if isinstance(e, PrimOp):
        out.add(e.op)
    for f in dataclasses.fields(e):
        v = getattr(e, f.name)
        for x in (v if isinstance(v, tuple) else (v,)):
            if isinstance(x, Exp):
                _ops(x, out)


def test_every_primitive_is_covered():
    used = set()
    for make in (lambda: int_exprs(INT), lambda: int_exprs(INT64), float_exprs, char_exprs, bool_exprs):
        for e in make()[1]:
            _ops(e, used)
    assert set(PRIMS) - used == set()


def test_constants_of_every_type(runners):
    cs = [const(0), const(-2**31, INT), const(2**31 - 1, INT), const(-2**63, INT64), const(2**63 - 1, INT64),
          const(0.1), const(-0.0), const(math.inf), const(-math.inf), const(math.nan), const(2.0**60),
          const(1e-310), const(True), const(False), const("a"), const("\x00")]
    prog = one(Map(th(("i", INT), Tuple(tuple(cs))), const(3)), [], nres=len(cs))
    check(prog, runners, expect_error=False)


# ------------------------------------------------------------------------------------------------
# primitives that fail: same location and message as the numpy runner


@pytest.mark.parametrize("op", ["div", "rem", "mod"])
@pytest.mark.parametrize("t,dt", [(INT, np.int32), (INT64, np.int64)], ids=["int", "int64"])
def test_division_by_zero(runners, op, t, dt):
    prog = binary_map(t, [prim(op, X, Y, loc=L(f"f.nesl:3:{op}"))])
    (ref,) = [check(prog, runners, np.asarray([5, 6, 7], dt), np.asarray([1, 0, 2], dt), expect_error=True)]
    assert ref == (L(f"f.nesl:3:{op}"), MSG_DIV0)
    check(prog, runners, np.asarray([5, -7], dt), np.asarray([2, -1], dt), expect_error=False)


def test_float_division_by_zero_is_ieee(runners):
    prog = binary_map(FLOAT, [prim("div", X, Y, loc=L("f:1:1"))])
    check(prog, runners, np.asarray([1.0, -1.0, 0.0, -0.0]), np.asarray([0.0, 0.0, 0.0, -0.0]), expect_error=False)


def test_zero_to_a_negative_power_and_isqrt_of_a_negative(runners):
    prog = binary_map(INT, [prim("pow", X, Y, loc=L("f:2:2"))])
    assert check(prog, runners, np.asarray([2, 0], np.int32), np.asarray([-1, -3], np.int32),
                 expect_error=True) == (L("f:2:2"), MSG_DIV0)
    prog = binary_map(INT, [prim("isqrt", X, loc=L("f:4:4"))])
    assert check(prog, runners, np.asarray([4, -4], np.int32), np.asarray([0, 0], np.int32),
                 expect_error=True) == (L("f:4:4"), MSG_ISQRT)
    # without a location isqrt of a negative number is 0, no error
    prog = binary_map(INT, [prim("isqrt", X)])
    check(prog, runners, np.asarray([4, -4], np.int32), np.asarray([0, 0], np.int32), expect_error=False)

