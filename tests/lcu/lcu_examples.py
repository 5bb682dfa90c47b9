"""Hand-built λcu programs shared by the tests of tests/lcu (the paper's §5 example and others)."""

from lambda_cu.ir import (Bind, Block, Check, Filter, Function, If, Index, KBind, Kernel, Length, Map,
                          Program, Proj, Reduce, Run, SegReduce, Thunk, Tuple, const, param, prim, var)
from lambda_cu.loc import Loc
from lambda_cu.types import FLOAT, INT, SD, TupleT, VecT

F = VecT(FLOAT)
LEN_MISMATCH = "RUNTIME ERROR: Length mismatch in an apply-to-each."


def pull(vec: str, idx: str = "i") -> Thunk:
    """``{ i => vec[i] using vec }``."""
    return Thunk(param(idx, INT), Index(var(vec), var(idx)), (var(vec),))


def plus(t=FLOAT) -> Thunk:
    """``{ (x, y) => x + y }``."""
    return Thunk((param("x", t), param("y", t)), prim("add", var("x"), var("y")))


def norm2_unfused() -> Program:
    """The flattened norm2 of §5: three kernels, five launches."""
    xs = var("xs")
    k1 = Kernel("K1", (param("xs", F),), (FLOAT,),
                (KBind(var("z"), Reduce(pull("xs"), (const(0.0),), plus(), Length(xs))),), (var("z"),))
    k2 = Kernel("K2", (param("xs", F),), (F,),
                (KBind(var("ys"), Filter(pull("xs"), Thunk(param("x", FLOAT), prim("gt", var("x"), const(0.0))),
                                         Length(xs))),), (var("ys"),))
    k3 = Kernel("K3", (param("xs", F), param("s", FLOAT)), (F,),
                (KBind(var("zs"), Map(Thunk(param("i", INT), prim("div", Index(xs, var("i")), var("s")),
                                            (xs, var("s"))), Length(xs))),), (var("zs"),))
    fn = Function("norm2", (param("xs", F),), TupleT((F, F)), Block((
        Bind(param("sum1", FLOAT), Run("K1", (xs,))),
        Bind(param("gts", F), Run("K2", (xs,))),
        Bind(param("sum2", FLOAT), Run("K1", (var("gts"),))),
        Bind(param("res1", F), Run("K3", (xs, var("sum1")))),
        Bind(param("res2", F), Run("K3", (xs, var("sum2")))),
    ), Tuple((var("res1"), var("res2")))))
    return Program((k1, k2, k3), (fn,))


def norm2_fused() -> Program:
    """norm2 after fusion (§5, last listing): KF1 (filter-reduce + horizontal reduce), KF2 (two maps)."""
    xs, i = var("xs"), var("i")
    FF = TupleT((FLOAT, FLOAT))
    xi = Index(xs, i)
    pull2 = Thunk(param("i", INT), Tuple((xi, If(prim("gt", xi, const(0.0)), xi, const(0.0)))), (xs,))
    plus2 = Thunk((param("x", FF), param("y", FF)),
                  Tuple((prim("add", Proj(var("x"), 0), Proj(var("y"), 0)),
                         prim("add", Proj(var("x"), 1), Proj(var("y"), 1)))))
    kf1 = Kernel("KF1", (param("xs", F),), (FLOAT, FLOAT),
                 (KBind((var("sum1"), var("sum2")), Reduce(pull2, (const(0.0), const(0.0)), plus2, Length(xs))),),
                 (var("sum1"), var("sum2")))
    s1, s2 = var("sum1"), var("sum2")
    map2 = Thunk(param("i", INT), Tuple((prim("div", xi, s1), prim("div", xi, s2))), (xs, s1, s2))
    kf2 = Kernel("KF2", (param("xs", F), param("sum1", FLOAT), param("sum2", FLOAT)), (F, F),
                 (KBind((var("res1"), var("res2")), Map(map2, Length(xs))),), (var("res1"), var("res2")))
    fn = Function("norm2", (param("xs", F),), TupleT((F, F)), Block((
        Bind((param("sum1", FLOAT), param("sum2", FLOAT)), Run("KF1", (xs,))),
        Bind((param("res1", F), param("res2", F)), Run("KF2", (xs, s1, s2))),
    ), Tuple((var("res1"), var("res2")))))
    return Program((kf1, kf2), (fn,))


def dotp() -> Program:
    """``function dotp (xs, ys) = sum({x * y : x in xs; y in ys})`` with its length check."""
    xs, ys, i = var("xs"), var("ys"), var("i")
    k = Kernel("DOTP", (param("xs", F), param("ys", F)), (FLOAT,),
               (KBind(var("s"), Reduce(Thunk(param("i", INT), prim("mul", Index(xs, i), Index(ys, i)), (xs, ys)),
                                       (const(0.0),), plus(), Length(xs))),), (var("s"),))
    fn = Function("dotp", (param("xs", F), param("ys", F)), FLOAT, Block((
        Bind((), Check(prim("eq", Length(xs), Length(ys)), Loc.point("dotp.nesl", 1, 28), LEN_MISMATCH)),
        Bind(param("s", FLOAT), Run("DOTP", (xs, ys))),
    ), var("s")))
    return Program((k,), (fn,))


def smvm() -> Program:
    """Sparse matrix (rows of (col, val) pairs, represented as (sd, ([int], [float]))) times a dense vector."""
    cols, vals, v, i = var("cols"), var("vals"), var("v"), var("i")
    row_sum = SegReduce(
        Thunk(param("i", INT), prim("mul", Index(vals, i), Index(v, Index(cols, i), Loc.point("smvm.nesl", 2, 14))), (cols, vals, v)),
        (const(0.0),), plus(), var("segs"))
    k = Kernel("SMVM", (param("segs", SD), param("cols", VecT(INT)), param("vals", F), param("v", F)), (F,),
               (KBind(var("res"), row_sum),), (var("res"),))
    M = TupleT((SD, TupleT((VecT(INT), F))))
    cv = var("cv")
    fn = Function("smvm", (param("m", M), param("v", F)), F, Block((
        Bind((param("segs", SD), param("cv", TupleT((VecT(INT), F)))), var("m")),
        Bind(param("r", F), Run("SMVM", (var("segs"), Proj(cv, 0), Proj(cv, 1), v))),
    ), var("r")))
    return Program((k,), (fn,))
