"""The one free-variable walk (``lambda_cu.ir``) and the one dead-code elimination
(``lambda_cu.dead_code``) shared by the flattener and fusion (issue 13)."""
from lambda_cu import ir
from lambda_cu.dead_code import drop_dead_bindings, removable
from lambda_cu.types import INT


def v(n):
    return ir.Var(n)


def bind(name, rhs):
    return ir.Bind((ir.Param(v(name), INT),), rhs)


def test_ordered_free_vars_in_first_occurrence_order_with_binders():
    t = ir.Thunk((ir.Param(v("i"), INT),), ir.prim("+", v("b"), ir.prim("+", v("i"), v("a"))))
    assert ir.ordered_free_vars(t) == ["b", "a"]
    assert ir.thunk_free_vars(t) == {"a", "b"}
    blk = ir.Block((bind("x", ir.Extern("f", (v("y"),), INT)),), ir.prim("+", v("x"), v("z")))
    assert ir.ordered_free_vars(blk, v("y")) == ["y", "z"]
    assert ir.free_vars(blk) == {"y", "z"}
    assert ir.ordered_free_vars(v("a"), bound=frozenset({"a"})) == []


def never(kernel):
    return False


def test_dead_bindings_that_cannot_fail_go_and_located_ones_stay():
    binds = (bind("n", ir.Length(v("xs"), INT)),
             bind("m", ir.prim("+", v("n"), ir.const(1))),
             bind("q", ir.PrimOp("/", (v("n"), v("k")), INT, "f.nesl:1:1")),
             bind("r", ir.Run("K1", (v("xs"),))),
             bind("u", ir.Run("K2", (v("xs"),))))
    out = drop_dead_bindings(binds, v("k"), lambda k: k == "K1")
    assert [b.names for b in out] == [("n",), ("q",), ("u",)]   # q may fail: kept, n with it
    assert [b.names for b in drop_dead_bindings(binds, v("m"), never)] \
        == [("n",), ("m",), ("q",), ("r",), ("u",)]
    assert not removable(ir.Tuple((v("a"), ir.Run("K1", ()))), never)
