"""Golden tests of the λcu printer (the paper's §5 listings, dot product, sparse mat-vec)."""

from lcu_examples import dotp, norm2_fused, norm2_unfused, smvm

from lambda_cu.ir import (Call, Const, Error, If, Index, KBind, Kernel, Length, Let, MakeSegDes, Map, Once,
                          Partition, Permute, Rank, Scan, Scatter, SegFilter, SegPartition, SegPermute,
                          SegRank, SegScan, SegVec, Thunk, Tuple, VecLit, const, param, prim, seg_count,
                          seg_total, var)
from lambda_cu.loc import Loc
from lambda_cu.printer import pretty
from lambda_cu.types import (BOOL, CHAR, FLOAT, INT, INT64, SD, UNIT, SeqOf, TupleT, VecT, rep_type)

NORM2_UNFUSED = """\
kernel K1 (xs : [float]) -> float {
  let z = REDUCE { i => xs[i] using xs } (0.0) { (x, y) => x + y } (#xs)
  return z
}

kernel K2 (xs : [float]) -> [float] {
  let ys = FILTER { i => xs[i] using xs } { x => x > 0.0 } (#xs)
  return ys
}

kernel K3 (xs : [float], s : float) -> [float] {
  let zs = MAP { i => xs[i] / s using xs, s } (#xs)
  return zs
}

function norm2 (xs : [float]) -> ([float], [float]) {
  let sum1 : float = run K1 (xs)
  let gts : [float] = run K2 (xs)
  let sum2 : float = run K1 (gts)
  let res1 : [float] = run K3 (xs, sum1)
  let res2 : [float] = run K3 (xs, sum2)
  return (res1, res2)
}
"""

NORM2_FUSED = """\
kernel KF1 (xs : [float]) -> (float, float) {
  let (sum1, sum2) = REDUCE { i => (xs[i], if xs[i] > 0.0 then xs[i] else 0.0) using xs } (0.0, 0.0) \
{ (x, y) => (x.0 + y.0, x.1 + y.1) } (#xs)
  return (sum1, sum2)
}

kernel KF2 (xs : [float], sum1 : float, sum2 : float) -> ([float], [float]) {
  let (res1, res2) = MAP { i => (xs[i] / sum1, xs[i] / sum2) using xs, sum1, sum2 } (#xs)
  return (res1, res2)
}

function norm2 (xs : [float]) -> ([float], [float]) {
  let (sum1 : float, sum2 : float) = run KF1 (xs)
  let (res1 : [float], res2 : [float]) = run KF2 (xs, sum1, sum2)
  return (res1, res2)
}
"""

DOTP = """\
kernel DOTP (xs : [float], ys : [float]) -> float {
  let s = REDUCE { i => xs[i] * ys[i] using xs, ys } (0.0) { (x, y) => x + y } (#xs)
  return s
}

function dotp (xs : [float], ys : [float]) -> float {
  let _ = check(#xs == #ys, "dotp.nesl:1:28", "RUNTIME ERROR: Length mismatch in an apply-to-each.")
  let s : float = run DOTP (xs, ys)
  return s
}
"""

SMVM = """\
kernel SMVM (segs : sd, cols : [int], vals : [float], v : [float]) -> [float] {
  let res = SEG_REDUCE { i => vals[i] * v[cols[i]] using cols, vals, v } (0.0) { (x, y) => x + y } (segs)
  return res
}

function smvm (m : (sd, ([int], [float])), v : [float]) -> [float] {
  let (segs : sd, cv : ([int], [float])) = m
  let r : [float] = run SMVM (segs, cv.0, cv.1, v)
  return r
}
"""


def test_norm2_unfused_golden():
    assert pretty(norm2_unfused()) == NORM2_UNFUSED


def test_norm2_fused_golden():
    assert pretty(norm2_fused()) == NORM2_FUSED


def test_dotp_golden():
    assert pretty(dotp()) == DOTP


def test_smvm_golden():
    assert str(smvm()) == SMVM


def test_types():
    assert [str(t) for t in (INT, INT64, FLOAT, BOOL, CHAR, UNIT, SD, VecT(INT), TupleT((INT, VecT(FLOAT))))] == \
        ["int", "int64", "float", "bool", "char", "unit", "sd", "[int]", "(int, [float])"]
    assert str(rep_type(SeqOf(SeqOf(TupleT((INT, FLOAT)))))) == "(sd, ([int], [float]))"
    assert str(rep_type(TupleT((INT, SeqOf(CHAR))))) == "(int, [char])"


def test_precedence():
    a, b, c = var("a"), var("b"), var("c")
    assert pretty(prim("mul", prim("add", a, b), c)) == "(a + b) * c"
    assert pretty(prim("add", a, prim("mul", b, c))) == "a + b * c"
    assert pretty(prim("sub", a, prim("sub", b, c))) == "a - (b - c)"
    assert pretty(prim("sub", prim("sub", a, b), c)) == "a - b - c"
    assert pretty(prim("and", prim("lt", a, b), prim("or", b, c))) == "a < b && (b || c)"
    assert pretty(prim("neg", prim("add", a, b))) == "-(a + b)"
    assert pretty(prim("add", a, If(b, c, a))) == "a + (if b then c else a)"
    assert pretty(prim("max", a, const(-3))) == "max(a, -3)"
    assert pretty(prim("trunc", a, ty=INT64)) == "trunc:int64(a)"
    assert pretty(prim("trunc", a)) == "trunc(a)"
    assert pretty(Let((var("p"), var("q")), Tuple((a, b)), prim("add", var("p"), var("q")))) == \
        "let (p, q) = (a, b) in p + q"
    assert pretty(Index(SegVec(var("sd"), "offsets"), Index(SegVec(var("sd"), "ids"), var("i")))) == \
        "seg_offsets(sd)[seg_ids(sd)[i]]"
    assert pretty(seg_count(var("sd"))) == "#seg_lengths(sd)"
    assert pretty(seg_total(var("sd"))) == "#seg_ids(sd)"
    assert pretty(const("a")) == "`a"
    assert pretty(const(True)) == "true"
    assert pretty(const(None)) == "()"
    assert pretty(VecLit((const(1), const(2)), INT)) == "[1, 2] : [int]"
    assert pretty(MakeSegDes(var("lens"))) == "make_sd(lens)"
    assert pretty(Error(INT, Loc.point("f.nesl", 3, 4), "boom")) == 'error("f.nesl:3:4", "boom") : int'
    assert pretty(Call("fact", (prim("sub", var("n"), const(1)),))) == "fact (n - 1)"


def test_all_soacs_print():
    i, x, y = param("i", INT), param("x", INT), param("y", INT)
    f = Thunk(i, Index(var("xs"), var("i")), (var("xs"),))
    g = Thunk(i, prim("sub", prim("sub", Length(var("xs")), var("i")), const(1)), (var("xs"),))
    p = Thunk(x, prim("gt", var("x"), const(0)))
    op = Thunk((x, y), prim("max", var("x"), var("y")))
    n, sd = Length(var("xs")), var("sd")
    cases = [
        (Permute(f, g, n), "PERMUTE { i => xs[i] using xs } { i => #xs - i - 1 using xs } (#xs)"),
        (Scatter((var("d"),), f, g, n), "SCATTER (d) { i => xs[i] using xs } { i => #xs - i - 1 using xs } (#xs)"),
        (Scan(f, (const(0),), op, var("n")), "SCAN { i => xs[i] using xs } (0) { (x, y) => max(x, y) } (n)"),
        (Partition(f, p, n), "PARTITION { i => xs[i] using xs } { x => x > 0 } (#xs)"),
        (Once(Thunk((), Index(var("xs"), const(0)), (var("xs"),))), "ONCE { () => xs[0] using xs }"),
        (Rank(f, n, descending=True), "RANK_DOWN { i => xs[i] using xs } (#xs)"),
        (Rank(f, n), "RANK { i => xs[i] using xs } (#xs)"),
        (SegScan(f, (const(0),), op, sd), "SEG_SCAN { i => xs[i] using xs } (0) { (x, y) => max(x, y) } (sd)"),
        (SegFilter(f, p, sd), "SEG_FILTER { i => xs[i] using xs } { x => x > 0 } (sd)"),
        (SegPartition(f, p, sd), "SEG_PARTITION { i => xs[i] using xs } { x => x > 0 } (sd)"),
        (SegPermute(f, g, sd), "SEG_PERMUTE { i => xs[i] using xs } { i => #xs - i - 1 using xs } (sd)"),
        (SegRank(f, sd), "SEG_RANK { i => xs[i] using xs } (sd)"),
    ]
    for soac, text in cases:
        assert pretty(soac) == text
    assert pretty(KBind((var("a"), var("b")), Partition(f, p, n))) == \
        "let (a, b) = PARTITION { i => xs[i] using xs } { x => x > 0 } (#xs)"
    assert pretty(op, thunk_types=True) == "{ (x : int, y : int) => max(x, y) }"


def test_cpu_if_blocks_print():
    from lambda_cu.ir import Bind, Block, Function, Run
    fn = Function("f", (param("n", INT),), INT, Block((
        Bind(param("r", INT), If(prim("le", var("n"), const(1)),
                                 Block((), const(1)),
                                 Block((Bind(param("m", INT), Call("f", (prim("sub", var("n"), const(1)),))),),
                                       prim("mul", var("n"), var("m"))))),
    ), var("r")))
    assert pretty(fn) == """\
function f (n : int) -> int {
  let r : int = if n <= 1 then {
    return 1
  } else {
    let m : int = f (n - 1)
    return n * m
  }
  return r
}"""
