"""Each rewrite rule of lambda_cu.fusion.rewrite on a small program: the rule fires (the fused
kernel has the expected SOACs) and the interpreter gives the same results as before fusion."""
import numpy as np

from lambda_cu import ir
from lambda_cu.check import check_program
from lambda_cu.fusion import fuse_program
from lambda_cu.fusion.rewrite import fuse_kernel
from lambda_cu.interp import Interpreter
from lambda_cu.types import FLOAT, INT, SD, TupleT, VecT
from lambda_cu.values import SegDes

IV, FV = VecT(INT), VecT(FLOAT)
i = ir.var("i")


def th(params, body, using=()):
    return ir.Thunk(tuple(params), body, tuple(ir.var(u) for u in using))


def ix(v, idx=i):
    return ir.Index(ir.var(v), idx)


def c(v):
    return ir.const(v, INT)


def plus():
    return th([ir.param("a", INT), ir.param("b", INT)], ir.prim("add", ir.var("a"), ir.var("b")))


def kernel(name, params, result_ty, soac, nvars=1):
    vs = tuple(ir.var(f"r{j}") for j in range(nvars))
    tys = result_ty if isinstance(result_ty, tuple) else (result_ty,)
    return ir.Kernel(name, tuple(ir.param(n, t) for n, t in params), tys, (ir.KBind(vs, soac),), vs)


def program(fparams, steps, result, rty):
    """steps: (out names and types, kernel, args)"""
    kernels, binds = [], []
    for outs, k, args in steps:
        kernels.append(k)
        binds.append(ir.Bind(tuple(ir.param(n, t) for n, t in outs),
                             ir.Run(k.name, tuple(ir.var(a) if isinstance(a, str) else a for a in args))))
    fn = ir.Function("f", tuple(ir.param(n, t) for n, t in fparams), rty, ir.Block(tuple(binds), result))
    return ir.Program(tuple(kernels), (fn,))


def fused_soacs(prog):
    res = fuse_program(prog)
    check_program(res.program)
    runs = [b.rhs for b in res.program.function("f").body.binds if isinstance(b.rhs, ir.Run)]
    return res, [[b.soac.NAME for b in res.program.kernel(r.kernel).binds] for r in runs]


def same(p, q, *args):
    a, b = Interpreter(p).call("f", *args), Interpreter(q).call("f", *args)
    if isinstance(a, tuple):
        assert all(np.array_equal(np.asarray(x), np.asarray(y)) for x, y in zip(a, b)), (a, b)
    else:
        assert np.array_equal(np.asarray(a), np.asarray(b)), (a, b)


def test_map_scan():
    m = kernel("M", [("v", IV)], IV, ir.Map(th([ir.param("i", INT)], ir.prim("mul", ix("v"), c(3)), ["v"]),
                                            ir.Length(ir.var("v"))))
    s = kernel("S", [("v", IV)], IV, ir.Scan(th([ir.param("i", INT)], ix("v"), ["v"]), (c(0),), plus(),
                                             ir.Length(ir.var("v"))))
    p = program([("xs", IV)], [([("a", IV)], m, ["xs"]), ([("b", IV)], s, ["a"])], ir.var("b"), IV)
    res, soacs = fused_soacs(p)
    assert soacs == [["SCAN"]]
    assert "MAP-SCAN" in res.report.function("f").fused_kernels[0].rules
    same(p, res.program, np.array([1, 2, 3, -4], dtype=np.int32))


def test_filter_filter_and_filter_reduce_chain():
    f1 = kernel("F1", [("v", IV)], IV, ir.Filter(th([ir.param("i", INT)], ix("v"), ["v"]),
                                                 th([ir.param("x", INT)], ir.prim("gt", ir.var("x"), c(0))),
                                                 ir.Length(ir.var("v"))))
    f2 = kernel("F2", [("v", IV)], IV, ir.Filter(th([ir.param("i", INT)], ir.prim("mul", ix("v"), c(2)), ["v"]),
                                                 th([ir.param("x", INT)],
                                                    ir.prim("eq", ir.prim("rem", ir.var("x"), c(3)), c(0))),
                                                 ir.Length(ir.var("v"))))
    r = kernel("R", [("v", IV)], INT, ir.Reduce(th([ir.param("i", INT)], ix("v"), ["v"]), (c(0),), plus(),
                                                ir.Length(ir.var("v"))))
    p = program([("xs", IV)], [([("a", IV)], f1, ["xs"]), ([("b", IV)], f2, ["a"]),
                               ([("s", INT)], r, ["b"])],
                ir.Tuple((ir.var("b"), ir.var("s"))), TupleT((IV, INT)))
    res, soacs = fused_soacs(p)
    assert len(soacs) == 1
    rules = res.report.function("f").fused_kernels[0].rules
    assert "FILTER-FILTER" in rules
    for xs in ([1, -2, 3, 6, 9, -9, 0, 12], [], [-1]):
        same(p, res.program, np.array(xs, dtype=np.int32))


def test_filter_reduce_guards_failing_consumers():
    # the reduce divides by the kept values: must not divide by the filtered-out zeros
    f = kernel("F", [("v", IV)], IV, ir.Filter(th([ir.param("i", INT)], ix("v"), ["v"]),
                                               th([ir.param("x", INT)], ir.prim("ne", ir.var("x"), c(0))),
                                               ir.Length(ir.var("v"))))
    r = kernel("R", [("v", IV)], INT, ir.Reduce(th([ir.param("i", INT)], ir.prim("div", c(100), ix("v")), ["v"]),
                                                (c(0),), plus(), ir.Length(ir.var("v"))))
    p = program([("xs", IV)], [([("a", IV)], f, ["xs"]), ([("s", INT)], r, ["a"])], ir.var("s"), INT)
    res, soacs = fused_soacs(p)
    assert soacs == [["REDUCE"]]
    same(p, res.program, np.array([0, 5, 0, -3, 7], dtype=np.int32))


def test_permute_permute():
    n = ir.Length(ir.var("v"))
    rev = th([ir.param("i", INT)], ir.prim("sub", ir.prim("sub", ir.Length(ir.var("v")), c(1)), i), ["v"])
    p1 = kernel("P1", [("v", IV)], IV, ir.Permute(th([ir.param("i", INT)], ix("v"), ["v"]), rev, n))
    rot = th([ir.param("i", INT)], ir.prim("rem", ir.prim("add", i, c(1)), ir.Length(ir.var("v"))), ["v"])
    p2 = kernel("P2", [("v", IV)], IV, ir.Permute(th([ir.param("i", INT)], ir.prim("add", ix("v"), c(10)), ["v"]),
                                                  rot, n))
    p = program([("xs", IV)], [([("a", IV)], p1, ["xs"]), ([("b", IV)], p2, ["a"])], ir.var("b"), IV)
    res, soacs = fused_soacs(p)
    assert soacs == [["PERMUTE"]]
    assert "PERMUTE-PERMUTE" in res.report.function("f").fused_kernels[0].rules
    same(p, res.program, np.array([5, 1, 4, 2, 8], dtype=np.int32))


def test_map_seg_scan_and_horizontal_seg_reduces():
    m = kernel("M", [("v", IV), ("n", INT)], IV,
               ir.Map(th([ir.param("i", INT)], ir.prim("mul", ix("v"), ix("v")), ["v"]), ir.var("n")))
    ss = kernel("SS", [("v", IV), ("sd", SD)], IV,
                ir.SegScan(th([ir.param("i", INT)], ix("v"), ["v"]), (c(0),), plus(), ir.var("sd")))
    sr = kernel("SR", [("v", IV), ("sd", SD)], IV,
                ir.SegReduce(th([ir.param("i", INT)], ix("v"), ["v"]), (c(0),), plus(), ir.var("sd")))
    sm = kernel("SM", [("v", IV), ("sd", SD)], IV,
                ir.SegReduce(th([ir.param("i", INT)], ix("v"), ["v"]), (c(MIN := -2 ** 31),),
                             th([ir.param("a", INT), ir.param("b", INT)], ir.prim("max", ir.var("a"), ir.var("b"))),
                             ir.var("sd")))
    p = ir.Program((m, ss, sr, sm), (ir.Function("f", (ir.param("sd", SD), ir.param("xs", IV)),
                                                 TupleT((IV, IV, IV)), ir.Block((
        ir.Bind(ir.param("n", INT), ir.seg_total(ir.var("sd"))),
        ir.Bind(ir.param("sq", IV), ir.Run("M", (ir.var("xs"), ir.var("n")))),
        ir.Bind(ir.param("sc", IV), ir.Run("SS", (ir.var("sq"), ir.var("sd")))),
        ir.Bind(ir.param("tot", IV), ir.Run("SR", (ir.var("xs"), ir.var("sd")))),
        ir.Bind(ir.param("mx", IV), ir.Run("SM", (ir.var("xs"), ir.var("sd")))),
    ), ir.Tuple((ir.var("sc"), ir.var("tot"), ir.var("mx"))))),))
    res, soacs = fused_soacs(p)
    assert len(soacs) == 1
    rules = res.report.function("f").fused_kernels[0].rules
    assert "MAP-SEG_SCAN" in rules and "SEG_REDUCE+SEG_REDUCE" in rules
    assert sorted(soacs[0]) == ["SEG_REDUCE", "SEG_SCAN"]
    same(p, res.program, SegDes(np.array([2, 0, 3, 1])), np.array([1, -2, 3, 4, -5, 6], dtype=np.int32))


def test_seg_filter_seg_reduce():
    sf = ir.Kernel("SF", (ir.param("v", IV), ir.param("sd", SD)), (IV, SD),
                   (ir.KBind((ir.var("k"), ir.var("ksd")),
                             ir.SegFilter(th([ir.param("i", INT)], ix("v"), ["v"]),
                                          th([ir.param("x", INT)], ir.prim("gt", ir.var("x"), c(0))),
                                          ir.var("sd"))),),
                   (ir.var("k"), ir.var("ksd")))
    sr = kernel("SR", [("v", IV), ("sd", SD)], IV,
                ir.SegReduce(th([ir.param("i", INT)], ix("v"), ["v"]), (c(0),), plus(), ir.var("sd")))
    p = ir.Program((sf, sr), (ir.Function("f", (ir.param("sd", SD), ir.param("xs", IV)), IV, ir.Block((
        ir.Bind((ir.param("kept", IV), ir.param("ksd", SD)), ir.Run("SF", (ir.var("xs"), ir.var("sd")))),
        ir.Bind(ir.param("s", IV), ir.Run("SR", (ir.var("kept"), ir.var("ksd")))),
    ), ir.var("s"))),))
    res, soacs = fused_soacs(p)
    assert soacs == [["SEG_REDUCE"]]
    same(p, res.program, SegDes(np.array([2, 0, 3, 1])), np.array([1, -2, 3, 4, -5, -6], dtype=np.int32))


def test_reduce_once():
    r = kernel("R", [("v", IV)], INT, ir.Reduce(th([ir.param("i", INT)], ix("v"), ["v"]), (c(0),), plus(),
                                                ir.Length(ir.var("v"))))
    o = kernel("O", [("s", INT)], INT, ir.Once(th([], ir.prim("mul", ir.var("s"), c(2)), ["s"])))
    p = program([("xs", IV)], [([("s", INT)], r, ["xs"]), ([("t", INT)], o, ["s"])], ir.var("t"), INT)
    res, soacs = fused_soacs(p)
    assert soacs == [["REDUCE", "ONCE"]]
    same(p, res.program, np.array([1, 2, 3], dtype=np.int32))


def test_region_inside_a_host_if():
    m = kernel("M", [("v", IV)], IV, ir.Map(th([ir.param("i", INT)], ir.prim("add", ix("v"), c(1)), ["v"]),
                                            ir.Length(ir.var("v"))))
    r = kernel("R", [("v", IV)], INT, ir.Reduce(th([ir.param("i", INT)], ix("v"), ["v"]), (c(0),), plus(),
                                                ir.Length(ir.var("v"))))
    branch = ir.Block((ir.Bind(ir.param("a", IV), ir.Run("M", (ir.var("xs"),))),
                       ir.Bind(ir.param("s", INT), ir.Run("R", (ir.var("a"),)))), ir.var("s"))
    body = ir.Block((ir.Bind(ir.param("y", INT),
                             ir.If(ir.prim("gt", ir.Length(ir.var("xs")), c(2)), branch,
                                   ir.Block((), c(0)))),), ir.var("y"))
    p = ir.Program((m, r), (ir.Function("f", (ir.param("xs", IV),), INT, body),))
    res = fuse_program(p)
    check_program(res.program)
    then = res.program.function("f").body.binds[0].rhs.then
    assert len(then.binds) == 1
    assert [b.soac.NAME for b in res.program.kernel(then.binds[0].rhs.kernel).binds] == ["REDUCE"]
    same(p, res.program, np.array([1, 2, 3, 4], dtype=np.int32))
    same(p, res.program, np.array([1], dtype=np.int32))


def test_cpu_use_of_a_result_keeps_it_materialised():
    m = kernel("M", [("v", IV)], IV, ir.Map(th([ir.param("i", INT)], ir.prim("add", ix("v"), c(1)), ["v"]),
                                            ir.Length(ir.var("v"))))
    r = kernel("R", [("v", IV)], INT, ir.Reduce(th([ir.param("i", INT)], ix("v"), ["v"]), (c(0),), plus(),
                                                ir.Length(ir.var("v"))))
    p = ir.Program((m, r), (ir.Function("f", (ir.param("xs", IV),), TupleT((INT, IV)), ir.Block((
        ir.Bind(ir.param("a", IV), ir.Run("M", (ir.var("xs"),))),
        ir.Bind(ir.param("s", INT), ir.Run("R", (ir.var("a"),))),
    ), ir.Tuple((ir.var("s"), ir.var("a"))))),))
    res, soacs = fused_soacs(p)
    # the map's result is returned, so it is still produced (MAP and REDUCE in one kernel)
    assert len(soacs) == 1 and sorted(soacs[0]) == ["MAP", "REDUCE"]
    same(p, res.program, np.array([1, 2, 3], dtype=np.int32))


def test_fuse_kernel_reaches_a_fixpoint_without_sizes():
    # a kernel merged by hand: MAP feeding two REDUCEs, no outside size information
    a = ir.KBind(ir.var("a"), ir.Map(th([ir.param("i", INT)], ir.prim("mul", ix("xs"), c(2)), ["xs"]),
                                     ir.Length(ir.var("xs"))))
    r1 = ir.KBind(ir.var("s"), ir.Reduce(th([ir.param("i", INT)], ix("a"), ["a"]), (c(0),), plus(),
                                         ir.Length(ir.var("a"))))
    r2 = ir.KBind(ir.var("t"), ir.Reduce(th([ir.param("j", INT)], ix("a", ir.var("j")), ["a"]), (c(0),), plus(),
                                         ir.Length(ir.var("a"))))
    k = ir.Kernel("K", (ir.param("xs", IV),), (INT, INT), (a, r1, r2), (ir.var("s"), ir.var("t")))
    k2, rules = fuse_kernel(k)
    assert [b.soac.NAME for b in k2.binds] == ["REDUCE"]
    assert rules == ("MAP-REDUCE", "MAP-REDUCE", "REDUCE+REDUCE")
    from lambda_cu.check import check_kernel
    check_kernel(k2)
    xs = np.array([1, 2, 3], dtype=np.int32)
    p0 = ir.Program((k,), ())
    p1 = ir.Program((k2,), ())
    assert Interpreter(p0).run_kernel("K", xs) == Interpreter(p1).run_kernel("K", xs)
