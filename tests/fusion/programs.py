"""Hand-built λcu programs for the fusion tests (the shapes flattening produces: one SOAC per
kernel, sizes passed as ``#xs`` or as int arguments)."""
from lambda_cu.ir import (Bind, Block, Filter, Function, Index, KBind, Kernel, Length, Map,
                          Program, Reduce, Run, SegReduce, Thunk, Tuple, const, param, prim, var)
from lambda_cu.types import FLOAT, INT, SD, TupleT, VecT

F = VecT(FLOAT)
I = VecT(INT)


def pull(vec, idx="i", ty=INT):
    return Thunk(param(idx, INT), Index(var(vec), var(idx)), (var(vec),))


def plus(t=FLOAT):
    return Thunk((param("x", t), param("y", t)), prim("add", var("x"), var("y")))


def norm2_unfused() -> Program:
    """The λcu paper §5 listing: K1 (sum), K2 (filter x > 0), K3 (divide); five runs."""
    xs = var("xs")
    k1 = Kernel("K1", (param("xs", F),), (FLOAT,),
                (KBind(var("z"), Reduce(pull("xs"), (const(0.0),), plus(), Length(xs))),), (var("z"),))
    k2 = Kernel("K2", (param("xs", F),), (F,),
                (KBind(var("ys"), Filter(pull("xs"), Thunk(param("x", FLOAT),
                                                           prim("gt", var("x"), const(0.0))),
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


def dotp_unfused() -> Program:
    """MAP (x*y) then REDUCE (+), the size passed as an int argument like flattening does."""
    k1 = Kernel("MUL", (param("a", F), param("b", F), param("n", INT)), (F,),
                (KBind(var("p"), Map(Thunk(param("i", INT), prim("mul", Index(var("a"), var("i")),
                                                                 Index(var("b"), var("i"))),
                                           (var("a"), var("b"))), var("n"))),), (var("p"),))
    k2 = Kernel("SUM", (param("v", F),), (FLOAT,),
                (KBind(var("s"), Reduce(pull("v"), (const(0.0),), plus(), Length(var("v")))),), (var("s"),))
    fn = Function("dotp", (param("xs", F), param("ys", F)), FLOAT, Block((
        Bind(param("n", INT), Length(var("xs"))),
        Bind(param("prods", F), Run("MUL", (var("xs"), var("ys"), var("n")))),
        Bind(param("d", FLOAT), Run("SUM", (var("prods"),))),
    ), var("d")))
    return Program((k1, k2), (fn,))


def smvm_unfused() -> Program:
    """Sparse matrix-vector product: MAP vals[i] * v[cols[i]] then SEG_REDUCE over the rows."""
    i = var("i")
    k1 = Kernel("PROD", (param("vals", F), param("cols", I), param("v", F), param("n", INT)), (F,),
                (KBind(var("p"), Map(Thunk(param("i", INT),
                                           prim("mul", Index(var("vals"), i),
                                                Index(var("v"), Index(var("cols"), i))),
                                           (var("vals"), var("v"), var("cols"))), var("n"))),),
                (var("p"),))
    k2 = Kernel("ROWSUM", (param("xs", F), param("segs", SD)), (F,),
                (KBind(var("r"), SegReduce(pull("xs"), (const(0.0),), plus(), var("segs"))),), (var("r"),))
    from lambda_cu.ir import seg_total
    fn = Function("smvm", (param("segs", SD), param("cols", I), param("vals", F), param("v", F)), F,
                  Block((
                      Bind(param("tot", INT), seg_total(var("segs"))),
                      Bind(param("prods", F), Run("PROD", (var("vals"), var("cols"), var("v"), var("tot")))),
                      Bind(param("res", F), Run("ROWSUM", (var("prods"), var("segs")))),
                  ), var("res")))
    return Program((k1, k2), (fn,))


def normalise_unfused() -> Program:
    """``let total = sum(xs) in {x / total : x in xs}``: the map needs the whole reduction."""
    xs = var("xs")
    k1 = Kernel("SUM", (param("xs", F),), (FLOAT,),
                (KBind(var("z"), Reduce(pull("xs"), (const(0.0),), plus(), Length(xs))),), (var("z"),))
    k2 = Kernel("DIV", (param("xs", F), param("s", FLOAT)), (F,),
                (KBind(var("q"), Map(Thunk(param("i", INT), prim("div", Index(xs, var("i")), var("s")),
                                           (xs, var("s"))), Length(xs))),), (var("q"),))
    fn = Function("normalise", (param("xs", F),), F, Block((
        Bind(param("total", FLOAT), Run("SUM", (xs,))),
        Bind(param("res", F), Run("DIV", (xs, var("total")))),
    ), var("res")))
    return Program((k1, k2), (fn,))


def gather_unfused() -> Program:
    """A map whose result is then gathered through an index vector: fusion-preventing."""
    i = var("i")
    k1 = Kernel("SQ", (param("xs", F),), (F,),
                (KBind(var("sq"), Map(Thunk(param("i", INT), prim("mul", Index(var("xs"), i), Index(var("xs"), i)),
                                            (var("xs"),)), Length(var("xs")))),), (var("sq"),))
    k2 = Kernel("GATHER", (param("v", F), param("idx", I)), (F,),
                (KBind(var("g"), Map(Thunk(param("i", INT), Index(var("v"), Index(var("idx"), i)),
                                           (var("v"), var("idx"))), Length(var("idx")))),), (var("g"),))
    fn = Function("gather", (param("xs", F), param("idx", I)), F, Block((
        Bind(param("sq", F), Run("SQ", (var("xs"),))),
        Bind(param("g", F), Run("GATHER", (var("sq"), var("idx")))),
    ), var("g")))
    return Program((k1, k2), (fn,))
