"""Tests of the λcu type checker."""

import pytest
from lcu_examples import F, dotp, norm2_fused, norm2_unfused, plus, pull, smvm

from lambda_cu.check import LcuTypeError, check_kernel, check_program, soac_result_types
from lambda_cu.ir import (Bind, Block, Call, Const, Filter, Function, If, Index, KBind, Kernel, Length, Let,
                          MakeSegDes, Map, Once, Partition, Permute, Program, Proj, Rank, Reduce, Run,
                          Scan, Scatter, SegFilter, SegPartition, SegPermute, SegRank, SegReduce, SegScan,
                          SegVec, Thunk, Tuple, VecLit, const, param, prim, var)
from lambda_cu.types import BOOL, CHAR, FLOAT, INT, INT64, SD, UNIT, TupleT, VecT

I = VecT(INT)


def kernel(name, params, results, binds, returns):
    return Kernel(name, params, results, binds, tuple(var(r) for r in returns))


def one(soac, params, results, nvars=1):
    names = tuple(f"r{k}" for k in range(nvars))
    return kernel("K", params, results, (KBind(tuple(var(n) for n in names), soac),), names)


def test_examples_accepted():
    for prog in (norm2_unfused(), norm2_fused(), dotp(), smvm()):
        info = check_program(prog)
    info = check_program(norm2_unfused())
    assert info.kernels["K2"]["ys"] == F
    assert info.functions["norm2"]["sum2"] == FLOAT
    assert info.kernel_sigs["K3"] == ((F, FLOAT), (F,))


def test_thunk_variable_not_in_using():
    xs, s = var("xs"), var("s")
    k = one(Map(Thunk(param("i", INT), prim("div", Index(xs, var("i")), s), (xs,)), Length(xs)),
            (param("xs", F), param("s", FLOAT)), (F,))
    with pytest.raises(LcuTypeError) as e:
        check_kernel(k)
    msg = str(e.value)
    assert "kernel K" in msg and "binding r0" in msg and "'s'" in msg and "using" in msg


def test_using_unbound_variable():
    k = one(Map(Thunk(param("i", INT), Index(var("zs"), var("i")), (var("zs"),)), const(3)),
            (param("xs", F),), (F,))
    with pytest.raises(LcuTypeError, match="'zs'.*not bound"):
        check_kernel(k)


def test_vector_used_as_value_in_thunk():
    xs = var("xs")
    k = one(Map(Thunk(param("i", INT), xs, (xs,)), Length(xs)), (param("xs", F),), (F,))
    with pytest.raises(LcuTypeError, match="subscripted"):
        check_kernel(k)


def test_bind_count_mismatch():
    xs = var("xs")
    k = one(Partition(pull("xs"), Thunk(param("x", FLOAT), prim("gt", var("x"), const(0.0))), Length(xs)),
            (param("xs", F),), (F,))
    with pytest.raises(LcuTypeError, match="produces 2 result"):
        check_kernel(k)


def test_soac_result_types_table():
    env = {"xs": F, "ys": I, "sd": SD, "n": INT}
    pf, pi = pull("xs"), pull("ys")
    pos = Thunk(param("x", FLOAT), prim("gt", var("x"), const(0.0)))
    rev = Thunk(param("i", INT), prim("sub", prim("sub", Length(var("xs")), var("i")), const(1)), (var("xs"),))
    n, sd = Length(var("xs")), var("sd")
    pair = Thunk(param("i", INT), Tuple((Index(var("xs"), var("i")), Index(var("ys"), var("i")))), (var("xs"), var("ys")))
    assert soac_result_types(Map(pf, n), env) == (F,)
    assert soac_result_types(Map(pair, n), env) == (F, I)
    assert soac_result_types(Permute(pf, rev, n), env) == (F,)
    assert soac_result_types(Scatter((var("xs"),), pf, rev, var("n")), env) == (F,)
    assert soac_result_types(Reduce(pf, (const(0.0),), plus(), n), env) == (FLOAT,)
    assert soac_result_types(Scan(pf, (const(0.0),), plus(), n), env) == (F,)
    assert soac_result_types(Filter(pf, pos, n), env) == (F,)
    assert soac_result_types(Partition(pf, pos, n), env) == (F, F)
    assert soac_result_types(Once(Thunk((), Index(var("xs"), const(0)), (var("xs"),))), env) == (FLOAT,)
    assert soac_result_types(Rank(pi, n), env) == (I,)
    assert soac_result_types(SegReduce(pf, (const(0.0),), plus(), sd), env) == (F,)
    assert soac_result_types(SegScan(pf, (const(0.0),), plus(), sd), env) == (F,)
    assert soac_result_types(SegFilter(pf, pos, sd), env) == (F, SD)
    assert soac_result_types(SegPartition(pf, pos, sd), env) == (F, SD, F, SD)
    assert soac_result_types(SegPermute(pf, rev, sd), env) == (F,)
    assert soac_result_types(SegRank(pf, sd), env) == (I,)
    seg = Thunk(param("i", INT), Index(SegVec(sd, "offsets"), Index(SegVec(sd, "ids"), var("i"))), (sd,))
    assert soac_result_types(Map(seg, Length(SegVec(sd, "ids"))), env) == (I,)


@pytest.mark.parametrize("soac, pattern", [
    (Reduce(pull("xs"), (const(0),), plus(), Length(var("xs"))), "initial value has type int"),
    (Reduce(pull("xs"), (const(0.0),), plus(INT), Length(var("xs"))), "operator thunk has type"),
    (Scan(pull("xs"), (const(0.0), const(0.0)), plus(), Length(var("xs"))), "initial value"),
    (Filter(pull("xs"), Thunk(param("x", FLOAT), var("x")), Length(var("xs"))), "predicate thunk"),
    (Map(Thunk((param("i", INT), param("j", INT)), var("i")), Length(var("xs"))), "one int index"),
    (Map(Thunk(param("i", FLOAT), var("i")), Length(var("xs"))), "one int index"),
    (Map(pull("xs"), const(2.0)), "size"),
    (Map(pull("xs"), var("s")), "size 's' has type float"),
    (SegReduce(pull("xs"), (const(0.0),), plus(), var("xs")), "not sd"),
    (Permute(pull("xs"), Thunk(param("i", INT), const(1.0)), Length(var("xs"))), "index thunk"),
    (Scatter((var("ys"),), pull("xs"), Thunk(param("i", INT), var("i")), Length(var("xs"))), "SCATTER destinations"),
    (Rank(Thunk(param("i", INT), prim("gt", Index(var("xs"), var("i")), const(0.0)), (var("xs"),)),
          Length(var("xs"))), "ordinal"),
    (Map(Thunk(param("i", INT), Index(var("xs"), const(1.5)), (var("xs"),)), const(1)), "index has type float"),
    (Map(Thunk(param("i", INT), prim("add", var("i"), const(1.0))), const(1)), "same type"),
    (Map(Thunk(param("i", INT), If(var("i"), const(1), const(2))), const(1)), "not bool"),
    (Map(Thunk(param("i", INT), If(prim("lt", var("i"), const(1)), const(1), const(2.0))), const(1)), "disagree"),
    (Map(Thunk(param("i", INT), Proj(var("i"), 0)), const(1)), "non-tuple"),
    (Map(Thunk(param("i", INT), const(None)), const(1)), "cannot be stored"),
    (Once(Thunk(param("i", INT), var("i"))), "no argument"),
])
def test_soac_errors(soac, pattern):
    k = one(soac, (param("xs", F), param("ys", I), param("s", FLOAT)), (F,))
    with pytest.raises(LcuTypeError, match=pattern) as e:
        check_kernel(k)
    assert str(e.value).startswith("kernel K, binding r0")


def test_kernel_level_errors():
    xs = var("xs")
    m = Map(pull("xs"), Length(xs))
    with pytest.raises(LcuTypeError, match="returns 'r0' of type \\[float\\] where the result type is \\[int\\]"):
        check_kernel(one(m, (param("xs", F),), (I,)))
    with pytest.raises(LcuTypeError, match="not bound"):
        check_kernel(kernel("K", (param("xs", F),), (F,), (), ("zz",)))
    with pytest.raises(LcuTypeError, match="duplicate parameter"):
        check_kernel(kernel("K", (param("xs", F), param("xs", F)), (F,), (), ("xs",)))
    with pytest.raises(LcuTypeError, match="bound twice"):
        check_kernel(kernel("K", (param("xs", F),), (F,), (KBind(var("xs"), m),), ("xs",)))
    with pytest.raises(LcuTypeError, match="not a kernel type"):
        check_kernel(kernel("K", (param("p", TupleT((F, F))),), (F,), (), ("p",)))


def _fn_prog(body_binds, result, rtype=FLOAT, params=(param("xs", F),)):
    base = norm2_unfused()
    return Program(base.kernels, (Function("g", params, rtype, Block(body_binds, result)),))


def test_cpu_level_errors():
    xs = var("xs")
    cases = [
        ((Bind(param("a", FLOAT), Run("K1", (xs, xs))),), var("a"), "binding a: kernel K1 takes 1 argument"),
        ((Bind(param("a", FLOAT), Run("K3", (xs, const(1)))),), var("a"), "argument 2 of kernel K3 \\('s'\\) has type int"),
        ((Bind(param("a", F), Run("K1", (xs,))),), var("a"), "'a' is declared \\[float\\] but the value has type float"),
        ((Bind(param("a", FLOAT), Run("NOPE", (xs,))),), var("a"), "unknown kernel"),
        ((Bind(param("a", FLOAT), Call("nope", (xs,))),), var("a"), "unknown function"),
        ((Bind(param("a", FLOAT), If(const(True), Run("K1", (xs,)), Run("K2", (xs,)))),), var("a"), "disagree"),
        ((Bind(param("a", FLOAT), If(const(1), Run("K1", (xs,)), Run("K1", (xs,)))),), var("a"), "not bool"),
        ((Bind((param("a", FLOAT), param("b", FLOAT)), Run("K1", (xs,))),), var("a"), "binds 2 variables"),
        ((Bind(param("a", FLOAT), Index(xs, const(0))),), var("a"), "GPU-level"),
        ((Bind(param("a", SD), MakeSegDes(xs)),), const(0.0), "make_sd"),
        ((Bind(param("a", F), VecLit((const(1),), FLOAT)),), const(0.0), "vector literal"),
        ((), Run("K2", (xs,)), "result: .*"),
        ((Bind(param("a", INT), Length(const(1))),), const(0.0), "not a vector"),
    ]
    for binds, result, pattern in cases:
        with pytest.raises(LcuTypeError, match=pattern) as e:
            check_program(_fn_prog(binds, result))
        assert str(e.value).startswith("function g")
    with pytest.raises(LcuTypeError, match="function g, result: body has type float, declared \\[float\\]"):
        check_program(_fn_prog((), const(1.0), rtype=F))


def test_recursion_and_main():
    n = var("n")
    fact = Function("fact", (param("n", INT),), INT, Block((), If(
        prim("le", n, const(1)), Block((), const(1)),
        Block((Bind(param("m", INT), Call("fact", (prim("sub", n, const(1)),))),), prim("mul", n, var("m"))))))
    prog = Program((), (fact,), (Bind(param("it", INT), Call("fact", (const(5),))),))
    info = check_program(prog)
    assert info.main == {"it": INT}
    bad = Program((), (fact,), (Bind(param("it", INT), Call("fact", (const(5.0),))),))
    with pytest.raises(LcuTypeError, match="main, binding it: argument 1 of function fact"):
        check_program(bad)


def test_gpu_let_and_tuples():
    xs = var("xs")
    body = Let((var("a"), var("b")), Tuple((Index(xs, var("i")), const(2.0))), prim("mul", var("a"), var("b")))
    k = one(Map(Thunk(param("i", INT), body, (xs,)), Length(xs)), (param("xs", F),), (F,))
    assert check_kernel(k)["r0"] == F
    # int64 programs
    k64 = one(Map(Thunk(param("i", INT64), prim("add", var("i"), const(1, INT64))), var("n")),
              (param("n", INT64),), (VecT(INT64),))
    assert check_kernel(k64)["r0"] == VecT(INT64)
