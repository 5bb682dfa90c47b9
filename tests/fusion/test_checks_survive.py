"""Every check of an unfused program survives fusion (issue 11, "wrong results").

A NESL runtime check lives in λcu as a located subscript or primitive inside a thunk (``a[i]``,
``x / y``), a located PERMUTE/SCATTER, or a host ``check``.  Fusion used to lose some of them:
a kernel whose result is unused (``rep``'s bounds check ``let _ = s[i]``, ``let x = a[i] in 0``)
was deleted as dead code once merged into a cluster, a tuple component that can fail was dropped
by ``(e1, e2).1 -> e2``, and a failing kernel could be moved after a ``print_string``.  Conversely
FILTER-FILTER evaluated the second predicate on placeholder zeros (``10 / y`` failed).  Here the
reference interpreter, flattened λcu and fused λcu must print the same text and end with the same
error at the same place.
"""
from __future__ import annotations

import io

import numpy as np
import pytest

from lambda_cu import ir
from lambda_cu.check import check_program
from lambda_cu.fusion import fuse_program
from lambda_cu.fusion.exprs import simplify
from lambda_cu.fusion.rewrite import fuse_kernel
from lambda_cu.interp import Interpreter, LcuRuntimeError
from lambda_cu.loc import Loc
from lambda_cu.types import INT, VecT
from nessie import driver
from nessie.diagnostics import RuntimeNeslError

BOUNDS = "RUNTIME ERROR: Sequence reference (a[i]) out of bounds."
DIV0 = "RUNTIME ERROR: Divide by zero."


def _outcome(fn):
    buf = io.StringIO()
    try:
        fn(buf)
    except RuntimeNeslError as e:
        return buf.getvalue(), e.message, str(e.span) if e.span else None
    return buf.getvalue(), None, None


def outcomes(src: str):
    c = driver.compile_source(src, "t.nesl")
    flat = driver.flatten(c)
    fused, _ = driver.fuse(flat)
    return {"interp": _outcome(lambda o: driver.run_interp(c, o)),
            "lcu": _outcome(lambda o: driver.run_lcu(c, flat, o)),
            "fused": _outcome(lambda o: driver.run_lcu(c, fused, o))}


# (program, expected error message, expected place); every backend must agree
FAILING = [
    ("{rep([1, 2, 3], 9, i) : i in [0:4]};\n", BOUNDS, "t.nesl:1:2"),
    ("{#rep([1, 2, 3], 9, i) : i in [0:5]};\n", BOUNDS, "t.nesl:1:3"),
    ("rep([1, 2, 3], 9, 5);\n", BOUNDS, "t.nesl:1:1"),
    ("{let x = [1, 2, 3][i] in 0 : i in [0:4]};\n", BOUNDS, "t.nesl:1:10"),
    ("{(let y = [1, 2, 3][i] in 2) + i : i in [0:5]};\n", BOUNDS, "t.nesl:1:11"),
    ("{let (a, b) = ([1, 2][i], i) in b : i in [0:5]};\n", BOUNDS, "t.nesl:1:16"),
    ("{let x = 1 / i in 2 : i in [0:3]};\n", DIV0, "t.nesl:1:10"),
    ("{#take([1, 2, 3], i) : i in [0:5]};\n", BOUNDS, "t.nesl:1:3"),
    ("{#drop([1, 2, 3], i - 1) : i in [0:5]};\n", BOUNDS, "t.nesl:1:3"),
    ("{#subseq([1, 2, 3], 1, i) : i in [0:5]};\n", BOUNDS, "t.nesl:1:3"),
    ("{#{[1, 2, 3][j] : j in [0:i]} : i in [0:5]};\n", BOUNDS, "t.nesl:1:4"),
    ("{#([1, 2, 3] <- [(i, 0)]) : i in [0:5]};\n", BOUNDS, "t.nesl:1:3"),
    ("{#permute([1, 2, 3], [i, 0, 1]) : i in [0:3]};\n",
     "RUNTIME ERROR: Index sequence of permute is not a permutation.", "t.nesl:1:3"),
    ("{#(v -> [0, 5]) : v in [[1, 2], [3]]};\n", BOUNDS, "t.nesl:1:3"),
    ("{let x = v[2] in #v : v in [[1, 2, 3], [3]]};\n", BOUNDS, "t.nesl:1:10"),
    # a failing kernel is not moved after a later print
    ("let r = [0:5];\n    a = {[1, 2, 3][i] : i in r};\n    p = print_string(\"hi\");\n"
     "    b = {i + 1 : i in r}\nin (a, b);\n", BOUNDS, "t.nesl:2:10"),
]


@pytest.mark.parametrize("src,message,where", FAILING)
def test_fused_program_fails_like_the_interpreter(src, message, where):
    out = outcomes(src)
    assert out["interp"][1:] == (message, where), out
    assert out["lcu"] == out["interp"], out
    assert out["fused"] == out["interp"], out


SUCCEEDING = [
    # FILTER-FILTER: the second predicate only sees what the first one kept
    "{y in {x in [3, 2, 5] | x > 2} | 10 / y > 1};\n",
    "{y in {x in [-1, 2, 5] | x > 0} | isqrt(y) > 1};\n",
    "{{y in {x in v | x /= 0} | 6 / y > 2} : v in [[0, 1, 2], [0], [3, 0, 1]]};\n",
    "{rep(v, 0, 1) : v in [[1, 2], [3, 4, 5]]};\n",
    "{let x = [1, 2, 3][i] in 0 : i in [0:3]};\n",
]


@pytest.mark.parametrize("src", SUCCEEDING)
def test_fused_program_does_not_fail_spuriously(src):
    out = outcomes(src)
    assert out["interp"][1] is None, out
    assert out["lcu"] == out["interp"], out
    assert out["fused"] == out["interp"], out


# --------------------------------------------------------------------------------------------
# the mechanisms, on λcu directly
# --------------------------------------------------------------------------------------------

IV = VecT(INT)
i = ir.var("i")


def th(params, body, using=()):
    return ir.Thunk(tuple(params), body, tuple(ir.var(u) for u in using))


def test_fuse_kernel_keeps_a_dead_soac_that_checks():
    chk = ir.Map(th([ir.param("i", INT)], ir.Index(ir.var("v"), i, Loc.point("f.nesl", 1, 1)), ["v"]), ir.var("n"))
    out = ir.Map(th([ir.param("i", INT)], ir.prim("add", i, ir.const(1, INT))), ir.var("n"))
    k = ir.Kernel("K", (ir.param("v", IV), ir.param("n", INT)), (IV,),
                  (ir.KBind((ir.var("dead"),), chk), ir.KBind((ir.var("r"),), out)), (ir.var("r"),))
    fused, rules = fuse_kernel(k)
    text = str(fused)
    assert "v[i" in text, text                       # the located subscript is still evaluated
    # ... and still fails at run time
    fn = ir.Function("f", (ir.param("v", IV), ir.param("n", INT)), IV,
                     ir.Block((ir.Bind((ir.param("r", IV),), ir.Run("K", (ir.var("v"), ir.var("n")))),),
                              ir.var("r")))
    prog = ir.Program((fused,), (fn,))
    with pytest.raises(LcuRuntimeError) as e:
        Interpreter(prog).call("f", np.array([1, 2], dtype=np.int32), 3)
    assert e.value.location == Loc.point("f.nesl", 1, 1)


def test_fuse_kernel_still_drops_a_dead_total_soac():
    dead = ir.Map(th([ir.param("i", INT)], ir.prim("mul", i, i)), ir.var("n"))
    out = ir.Map(th([ir.param("i", INT)], ir.prim("add", i, ir.const(1, INT))), ir.var("n"))
    k = ir.Kernel("K", (ir.param("n", INT),), (IV,),
                  (ir.KBind((ir.var("dead"),), dead), ir.KBind((ir.var("r"),), out)), (ir.var("r"),))
    fused, _ = fuse_kernel(k)
    assert len(fused.binds) == 1


def test_simplify_keeps_a_projected_away_component_that_checks():
    chk = ir.Index(ir.var("v"), i, Loc.point("f.nesl", 1, 1))
    e = ir.Proj(ir.Tuple((chk, i)), 1)
    assert simplify(e) == e
    assert simplify(ir.Proj(ir.Tuple((ir.prim("mul", i, i), i)), 1)) == i


def _permute_pair(loc1, loc2, idx1):
    """b = PERMUTE (a) by idx2 after a = PERMUTE (xs) by idx1 (a program of two kernels)."""
    n = ir.Length(ir.var("v"))
    p1 = ir.Kernel("P1", (ir.param("v", IV), ir.param("p", IV)), (IV,),
                   (ir.KBind((ir.var("r0"),), ir.Permute(th([ir.param("i", INT)], ir.Index(ir.var("v"), i), ["v"]),
                                                         th([ir.param("i", INT)], ir.Index(ir.var("p"), i), ["p"]),
                                                         n, loc1)),), (ir.var("r0"),))
    # the second index map is a bijection of the ints that maps [0, n) onto itself and an
    # out-of-range index of the first one into range: only A's own check catches it
    rev = th([ir.param("i", INT)], ir.prim("mod", ir.prim("sub", ir.prim("sub", ir.Length(ir.var("v")),
                                                                         ir.const(1, INT)), i),
                                           ir.Length(ir.var("v"))), ["v"])
    p2 = ir.Kernel("P2", (ir.param("v", IV),), (IV,),
                   (ir.KBind((ir.var("r0"),), ir.Permute(th([ir.param("i", INT)], ir.Index(ir.var("v"), i), ["v"]),
                                                         rev, n, loc2)),), (ir.var("r0"),))
    body = ir.Block((ir.Bind((ir.param("a", IV),), ir.Run("P1", (ir.var("xs"), ir.var("p")))),
                     ir.Bind((ir.param("b", IV),), ir.Run("P2", (ir.var("a"),)))), ir.var("b"))
    fn = ir.Function("f", (ir.param("xs", IV), ir.param("p", IV)), IV, body)
    return ir.Program((p1, p2), (fn,))


@pytest.mark.parametrize("idx", [[0, 0, 1], [0, 1, 3], [-1, 0, 1], [3, 1, 2]])
def test_permute_permute_keeps_the_first_permutation_check(idx):
    prog = _permute_pair(Loc.point("f.nesl", 1, 1), Loc.point("f.nesl", 1, 1), idx)
    res = fuse_program(prog)
    check_program(res.program)
    xs, p = np.array([5, 6, 7], dtype=np.int32), np.array(idx, dtype=np.int32)
    with pytest.raises(LcuRuntimeError):
        Interpreter(prog).call("f", xs, p)
    with pytest.raises(LcuRuntimeError):
        Interpreter(res.program).call("f", xs, p)
    good = np.array([2, 0, 1], dtype=np.int32)
    assert np.array_equal(Interpreter(prog).call("f", xs, good), Interpreter(res.program).call("f", xs, good))


def test_permute_permute_at_different_places_reports_the_first():
    prog = _permute_pair(Loc.point("f.nesl", 1, 1), Loc.point("f.nesl", 2, 1), [0, 1, 2])
    res = fuse_program(prog)
    assert "PERMUTE-PERMUTE" not in str(res.report)
    xs, p = np.array([5, 6, 7], dtype=np.int32), np.array([0, 0, 1], dtype=np.int32)
    for q in (prog, res.program):
        with pytest.raises(LcuRuntimeError) as e:
            Interpreter(q).call("f", xs, p)
        assert e.value.location == Loc.point("f.nesl", 1, 1)
