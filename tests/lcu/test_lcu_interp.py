"""Tests of the λcu numpy interpreter: every SOAC against straightforward Python references."""

import functools
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lcu_examples import LEN_MISMATCH, dotp, norm2_fused, norm2_unfused, plus, pull, smvm

from lambda_cu.interp import (MSG_BOUNDS, MSG_DIV0, MSG_PERMUTE, Interpreter, LcuRuntimeError, apply_prim,
                              call_function, eval_soac, recognise_monoid, run_program)
from lambda_cu.ir import (Bind, Block, Call, Check, Error, Filter, Function, If, Index, KBind, Kernel, Length,
                          Let, MakeSegDes, Map, Once, Partition, Permute, Program, Proj, Rank, Reduce, Run, Scan,
                          Scatter, SegFilter, SegPartition, SegPermute, SegRank, SegReduce, SegScan, SegVec,
                          Thunk, Tuple, VecLit, const, param, prim, seg_count, var)
from lambda_cu.loc import Loc
from lambda_cu.types import BOOL, FLOAT, INT, INT64, SD, SeqOf, TupleT, VecT
from lambda_cu.values import SegDes, from_nested, to_nested, values_close

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

i32 = st.integers(-2**31, 2**31 - 1)
small = st.integers(-50, 50)
exact_floats = st.integers(-1000, 1000).map(float)


def w32(x):
    return ((x + 2**31) % 2**32) - 2**31


def tdiv(a, b):
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def run(soac, **env):
    return eval_soac(soac, env)


def ivec(xs, dt=np.int32):
    return np.asarray(xs, dtype=dt)


def binop(name, t=INT):
    return Thunk((param("x", t), param("y", t)), prim(name, var("x"), var("y")))


def seg_of(rows):
    return SegDes([len(r) for r in rows]), [x for r in rows for x in r]


N = Length(var("xs"))
rows_int = st.lists(st.lists(small, max_size=6), max_size=8)

# ------------------------------------------------------------------------------------------ MAP


@SETTINGS
@given(st.lists(i32, max_size=30), st.lists(i32, max_size=30))
def test_map_guarded_division(xs, ys):
    n = min(len(xs), len(ys))
    xs, ys = xs[:n], ys[:n]
    x, y = Index(var("xs"), var("i")), Index(var("ys"), var("i"))
    outs = []
    for op in ("div", "rem", "mod"):
        th = Thunk(param("i", INT), If(prim("eq", y, const(0)), const(0), prim(op, x, y, loc=Loc.point("t", 1, 1))),
                   (var("xs"), var("ys")))
        (r,) = run(Map(th, N), xs=ivec(xs), ys=ivec(ys))
        assert r.dtype == np.int32
        outs.append(r.tolist())
    for k in range(n):
        a, b = xs[k], ys[k]
        if b == 0:
            assert [o[k] for o in outs] == [0, 0, 0]
        else:
            q = w32(tdiv(a, b))
            assert outs[0][k] == q
            assert outs[1][k] == w32(a - tdiv(a, b) * b)
            assert outs[2][k] == w32(a % b)


def test_if_with_tuple_branches():
    i = var("i")
    odd = prim("eq", prim("rem", i, const(2)), const(1))
    th = Thunk(param("i", INT), Let((var("p"),), If(odd, Tuple((i, Tuple((const(1.0), const(True))))),
                                                    Tuple((Tuple((prim("neg", i), const(2.0))), const(False)))),
                                    Tuple((Proj(var("p"), 0), Proj(Proj(var("p"), 1), 1)))))
    a, b = run(Map(th, const(4)))
    assert a.tolist() == [0, 1, -2, 3] and b.tolist() == [False, True, False, True]


@SETTINGS
@given(st.lists(i32, max_size=40), st.lists(i32, max_size=40))
def test_int32_wraps(xs, ys):
    n = min(len(xs), len(ys))
    xs, ys = xs[:n], ys[:n]
    x, y = Index(var("xs"), var("i")), Index(var("ys"), var("i"))
    th = Thunk(param("i", INT), Tuple((prim("add", x, y), prim("mul", x, y), prim("sub", x, y), prim("neg", x))),
               (var("xs"), var("ys")))
    a, m, s, ng = run(Map(th, N), xs=ivec(xs), ys=ivec(ys))
    assert a.tolist() == [w32(p + q) for p, q in zip(xs, ys)]
    assert m.tolist() == [w32(p * q) for p, q in zip(xs, ys)]
    assert s.tolist() == [w32(p - q) for p, q in zip(xs, ys)]
    assert ng.tolist() == [w32(-p) for p in xs]


def test_int64_option():
    th = Thunk(param("i", INT64), prim("mul", var("i"), const(3_000_000_000, INT64)))
    (r,) = run(Map(th, const(3)))
    assert r.dtype == np.int64 and r.tolist() == [0, 3_000_000_000, 6_000_000_000]


def test_scalar_primitives():
    f, i = np.float64, np.int32
    assert apply_prim("div", [i(-7), i(2)]) == -3
    assert apply_prim("rem", [i(-7), i(3)]) == -1
    assert apply_prim("mod", [i(-7), i(3)]) == 2
    assert apply_prim("div", [i(-2**31), i(-1)]) == -2**31
    assert apply_prim("pow", [i(3), i(4)]) == 81
    assert apply_prim("pow", [i(2), i(-1)]) == 0 and apply_prim("pow", [i(-1), i(-3)]) == -1
    assert apply_prim("pow", [f(2.0), i(-1)]) == 0.5
    assert apply_prim("isqrt", [i(17)]) == 4 and apply_prim("isqrt", [i(16)]) == 4
    # halves to even, like the reference interpreter (NESL round = Common Lisp ROUND)
    assert apply_prim("round", [f(2.5)]) == 2 and apply_prim("round", [f(-2.5)]) == -2
    assert apply_prim("round", [f(3.5)]) == 4
    assert apply_prim("trunc", [f(-2.7)]) == -2 and apply_prim("floor", [f(-2.2)]) == -3
    assert apply_prim("ceil", [f(2.2)]) == 3
    assert apply_prim("trunc", [f(5e9)], ty=INT64) == 5_000_000_000
    assert apply_prim("to_float", [i(3)]) == 3.0
    assert apply_prim("not", [np.bool_(True)]) == False  # noqa: E712
    assert apply_prim("not", [i(0)]) == -1
    assert apply_prim("xor", [i(6), i(3)]) == 5
    assert apply_prim("lshift", [i(1), i(31)]) == -2**31
    assert apply_prim("rshift", [i(-8), i(1)]) == -4
    assert apply_prim("code_char", [i(97)]) == 97 and apply_prim("char_code", [np.uint8(97)]) == 97
    assert apply_prim("btoi", [np.bool_(True)]) == 1
    assert apply_prim("select", [np.bool_(False), i(1), i(2)]) == 2
    assert math.isclose(apply_prim("log", [f(8.0), f(2.0)]), 3.0)
    assert apply_prim("div", [f(1.0), f(0.0)]) == math.inf
    with pytest.raises(LcuRuntimeError) as e:
        apply_prim("div", [i(1), i(0)], loc=Loc.point("x.nesl", 4, 2))
    assert e.value.location == Loc.point("x.nesl", 4, 2) and e.value.message == MSG_DIV0
    assert str(e.value) == "x.nesl:4:2: RUNTIME ERROR: Divide by zero."
    with pytest.raises(LcuRuntimeError, match="Divide by zero"):
        apply_prim("mod", [i(1), i(0)])


def test_runtime_errors_in_thunks():
    xs = ivec([1, 2, 0])
    th = Thunk(param("i", INT), prim("div", const(10), Index(var("xs"), var("i")), loc=Loc.point("f.nesl", 1, 5)), (var("xs"),))
    with pytest.raises(LcuRuntimeError) as e:
        run(Map(th, N), xs=xs)
    assert (e.value.location, e.value.message) == (Loc.point("f.nesl", 1, 5), MSG_DIV0)
    oob = Thunk(param("i", INT), Index(var("xs"), prim("add", var("i"), const(1)), Loc.point("f.nesl", 2, 3)), (var("xs"),))
    with pytest.raises(LcuRuntimeError) as e:
        run(Map(oob, N), xs=xs)
    assert (e.value.location, e.value.message) == (Loc.point("f.nesl", 2, 3), MSG_BOUNDS)
    # the failing branch is never taken / the index space is empty: no error
    safe = Thunk(param("i", INT), If(prim("lt", prim("add", var("i"), const(1)), Length(var("xs"))),
                                     Index(var("xs"), prim("add", var("i"), const(1))), const(-1)), (var("xs"),))
    assert run(Map(safe, N), xs=xs)[0].tolist() == [2, 0, -1]
    assert run(Map(th, const(0)), xs=xs)[0].tolist() == []
    assert run(Map(Thunk(param("i", INT), prim("div", const(1), const(0))), const(0)))[0].tolist() == []
    nested = Thunk(param("i", INT), If(prim("eq", var("i"), const(0)), const(0),
                                       If(prim("eq", var("i"), const(1)), const(1), prim("div", const(6), prim("sub", var("i"), const(1))))))
    assert run(Map(nested, const(5)))[0].tolist() == [0, 1, 6, 3, 2]
    # uniform condition: only the taken branch runs
    uni = Thunk(param("i", INT), If(const(True), var("i"), prim("div", var("i"), const(0))))
    assert run(Map(uni, const(3)))[0].tolist() == [0, 1, 2]


def test_let_tuples_and_segvecs():
    sd = SegDes([2, 0, 3])
    th = Thunk(param("i", INT),
               Let((var("s"),), Index(SegVec(var("sd"), "ids"), var("i")),
                   Tuple((var("s"), prim("sub", var("i"), Index(SegVec(var("sd"), "offsets"), var("s"))),
                          Index(SegVec(var("sd"), "lengths"), var("s")), seg_count(var("sd"))))),
               (var("sd"),))
    ids, local, lens, cnt = run(Map(th, Length(SegVec(var("sd"), "ids"))), sd=sd)
    assert ids.tolist() == [0, 0, 2, 2, 2]
    assert local.tolist() == [0, 1, 0, 1, 2]
    assert lens.tolist() == [2, 2, 3, 3, 3]
    assert cnt.tolist() == [3] * 5


# ------------------------------------------------------------------------------------------ PERMUTE / SCATTER


@SETTINGS
@given(st.lists(small, max_size=30), st.randoms())
def test_permute(xs, rnd):
    perm = list(range(len(xs)))
    rnd.shuffle(perm)
    th_idx = Thunk(param("i", INT), Index(var("p"), var("i")), (var("p"),))
    (r,) = run(Permute(pull("xs"), th_idx, N), xs=ivec(xs), p=ivec(perm))
    ref = [None] * len(xs)
    for k, x in enumerate(xs):
        ref[perm[k]] = x
    assert r.tolist() == ref


def test_permute_errors():
    th_idx = Thunk(param("i", INT), Index(var("p"), var("i")), (var("p"),))
    for p in ([0, 0, 1], [0, 1, 3], [-1, 0, 1]):
        with pytest.raises(LcuRuntimeError) as e:
            run(Permute(pull("xs"), th_idx, N, loc=Loc.point("p.nesl", 1, 1)), xs=ivec([1, 2, 3]), p=ivec(p))
        assert e.value.message == MSG_PERMUTE and e.value.location == Loc.point("p.nesl", 1, 1)


@SETTINGS
@given(st.lists(small, max_size=20), st.lists(st.tuples(st.integers(0, 100), small), max_size=20))
def test_scatter(dst, pairs):
    if not dst:
        pairs = []
    pairs = [(k % len(dst), v) for k, v in pairs] if dst else []
    idx, vals = ivec([k for k, _ in pairs]), ivec([v for _, v in pairs])
    th_v = Thunk(param("i", INT), Index(var("vals"), var("i")), (var("vals"),))
    th_i = Thunk(param("i", INT), Index(var("idx"), var("i")), (var("idx"),))
    (r,) = run(Scatter((var("d"),), th_v, th_i, Length(var("idx"))), d=ivec(dst), idx=idx, vals=vals)
    for pos in range(len(dst)):
        written = [v for k, v in pairs if k == pos]
        assert r[pos] in written if written else r[pos] == dst[pos]
    with pytest.raises(LcuRuntimeError):
        run(Scatter((var("d"),), th_v, th_i, Length(var("idx"))), d=ivec(dst), idx=ivec([len(dst)]), vals=ivec([1]))


# ------------------------------------------------------------------------------------------ REDUCE / SCAN

INT_MONOIDS = [("add", 0, lambda a, b: w32(a + b)), ("mul", 1, lambda a, b: w32(a * b)),
               ("max", -2**31, max), ("min", 2**31 - 1, min), ("and", -1, lambda a, b: a & b),
               ("or", 0, lambda a, b: a | b), ("xor", 0, lambda a, b: a ^ b)]


@pytest.mark.parametrize("name, ident, fn", INT_MONOIDS)
@SETTINGS
@given(xs=st.lists(i32, max_size=40), init=i32)
def test_reduce_scan_int_monoids(name, ident, fn, xs, init):
    op = binop(name)
    assert recognise_monoid(op, 1) == [name]
    (r,) = run(Reduce(pull("xs"), (const(init),), op, N), xs=ivec(xs))
    assert r == functools.reduce(fn, xs, init) and isinstance(r, np.int32)
    (s,) = run(Scan(pull("xs"), (const(init),), op, N), xs=ivec(xs))
    acc, ref = init, []
    for x in xs:
        ref.append(acc)
        acc = fn(acc, x)
    assert s.tolist() == ref


@pytest.mark.parametrize("name, fn", [("and", lambda a, b: a and b), ("or", lambda a, b: a or b),
                                      ("xor", lambda a, b: a != b)])
@SETTINGS
@given(xs=st.lists(st.booleans(), max_size=40), init=st.booleans())
def test_reduce_scan_bool_monoids(name, fn, xs, init):
    op = binop(name, BOOL)
    p = Thunk(param("i", INT), Index(var("xs"), var("i")), (var("xs"),))
    (r,) = run(Reduce(p, (const(init),), op, N), xs=np.asarray(xs, dtype=bool))
    assert bool(r) == functools.reduce(fn, xs, init)
    (s,) = run(Scan(p, (const(init),), op, N), xs=np.asarray(xs, dtype=bool))
    acc, ref = init, []
    for x in xs:
        ref.append(acc)
        acc = fn(acc, x)
    assert s.tolist() == ref


def affine():
    """Composition of affine maps x -> a*x + b, a non-commutative monoid with identity (1, 0)."""
    P = TupleT((INT, INT))
    f, g = var("f"), var("g")
    body = Tuple((prim("mul", Proj(f, 0), Proj(g, 0)), prim("add", prim("mul", Proj(f, 1), Proj(g, 0)), Proj(g, 1))))
    return Thunk((param("f", P), param("g", P)), body)


def affine_ref(f, g):
    return (w32(f[0] * g[0]), w32(f[1] * g[0] + g[1]))


PAIR_PULL = Thunk(param("i", INT), Tuple((Index(var("as"), var("i")), Index(var("bs"), var("i")))), (var("as"), var("bs")))


@SETTINGS
@given(st.lists(st.tuples(small, small), max_size=70), st.tuples(small, small))
def test_general_monoid_reduce_scan(pairs, init):
    op = affine()
    assert recognise_monoid(op, 2) is None
    env = dict(**{"as": ivec([a for a, _ in pairs]), "bs": ivec([b for _, b in pairs])})
    n = Length(var("as"))
    r = run(Reduce(PAIR_PULL, (const(init[0]), const(init[1])), op, n), **env)
    assert tuple(int(x) for x in r) == functools.reduce(affine_ref, pairs, init)
    s0, s1 = run(Scan(PAIR_PULL, (const(init[0]), const(init[1])), op, n), **env)
    acc, ref = init, []
    for p in pairs:
        ref.append(acc)
        acc = affine_ref(acc, p)
    assert list(zip(s0.tolist(), s1.tolist())) == ref


@SETTINGS
@given(st.lists(exact_floats, max_size=50))
def test_float_reduce_tuple_monoid(xs):
    """The fused norm2 reduction: a recognised tuple monoid (x.0 + y.0, x.1 + y.1)."""
    kf1 = norm2_fused().kernel("KF1")
    s1, s2 = run(kf1.binds[0].soac, xs=np.asarray(xs, dtype=float))
    assert s1 == sum(xs) and s2 == sum(x for x in xs if x > 0)
    assert recognise_monoid(kf1.binds[0].soac.op, 2) == ["add", "add"]


# ------------------------------------------------------------------------------------------ FILTER / PARTITION / ONCE / RANK


@SETTINGS
@given(st.lists(small, max_size=40))
def test_filter_partition(xs):
    pos = Thunk(param("x", INT), prim("gt", var("x"), const(0)))
    (f,) = run(Filter(pull("xs"), pos, N), xs=ivec(xs))
    assert f.tolist() == [x for x in xs if x > 0]
    t, e = run(Partition(pull("xs"), pos, N), xs=ivec(xs))
    assert t.tolist() == [x for x in xs if x > 0] and e.tolist() == [x for x in xs if not x > 0]
    # filter of pairs with a predicate over the pair
    pp = Thunk(param("i", INT), Tuple((Index(var("xs"), var("i")), prim("mul", var("i"), const(2)))), (var("xs"),))
    pred = Thunk((param("a", INT), param("b", INT)), prim("lt", var("a"), var("b")))
    a, b = run(Filter(pp, pred, N), xs=ivec(xs))
    assert list(zip(a.tolist(), b.tolist())) == [(x, 2 * k) for k, x in enumerate(xs) if x < 2 * k]


def test_once():
    th = Thunk((), Tuple((Index(var("xs"), const(0)), prim("add", var("s"), const(1)))), (var("xs"), var("s")))
    a, b = run(Once(th), xs=ivec([7, 8]), s=np.int32(41))
    assert (a, b) == (7, 42)
    with pytest.raises(LcuRuntimeError, match="out of bounds"):
        run(Once(Thunk((), Index(var("xs"), const(0)), (var("xs"),))), xs=ivec([]))


@SETTINGS
@given(st.lists(st.integers(-5, 5), max_size=40))
def test_rank(xs):
    (r,) = run(Rank(pull("xs"), N), xs=ivec(xs))
    order = sorted(range(len(xs)), key=lambda k: xs[k])
    ref = [0] * len(xs)
    for pos, k in enumerate(order):
        ref[k] = pos
    assert r.tolist() == ref
    (d,) = run(Rank(pull("xs"), N, descending=True), xs=ivec(xs))
    order = sorted(range(len(xs)), key=lambda k: -xs[k])
    for pos, k in enumerate(order):
        ref[k] = pos
    assert d.tolist() == ref


# ------------------------------------------------------------------------------------------ segmented SOACs


def seg_ref_scan(rows, init, fn):
    out = []
    for r in rows:
        acc = init
        for x in r:
            out.append(acc)
            acc = fn(acc, x)
    return out


@pytest.mark.parametrize("name, ident, fn", INT_MONOIDS)
@SETTINGS
@given(rows=rows_int, init=small)
def test_seg_reduce_scan_int(name, ident, fn, rows, init):
    sd, flat = seg_of(rows)
    (r,) = run(SegReduce(pull("xs"), (const(init),), binop(name), var("sd")), xs=ivec(flat), sd=sd)
    assert r.tolist() == [functools.reduce(fn, row, init) for row in rows]
    (s,) = run(SegScan(pull("xs"), (const(init),), binop(name), var("sd")), xs=ivec(flat), sd=sd)
    assert s.tolist() == seg_ref_scan(rows, init, fn)


@SETTINGS
@given(rows=st.lists(st.lists(exact_floats, max_size=6), max_size=8))
def test_seg_reduce_scan_float(rows):
    sd, flat = seg_of(rows)
    xs = np.asarray(flat, dtype=float)
    (r,) = run(SegReduce(pull("xs"), (const(0.0),), plus(), var("sd")), xs=xs, sd=sd)
    assert r.tolist() == [sum(row) for row in rows]
    (s,) = run(SegScan(pull("xs"), (const(0.0),), plus(), var("sd")), xs=xs, sd=sd)
    assert s.tolist() == seg_ref_scan(rows, 0.0, lambda a, b: a + b)
    (m,) = run(SegScan(pull("xs"), (const(-1e9),), binop("max", FLOAT), var("sd")), xs=xs, sd=sd)
    assert m.tolist() == seg_ref_scan(rows, -1e9, max)


@SETTINGS
@given(rows=st.lists(st.lists(st.tuples(small, small), max_size=6), max_size=8), init=st.tuples(small, small))
def test_seg_general_monoid(rows, init):
    sd, flat = seg_of(rows)
    env = {"as": ivec([a for a, _ in flat]), "bs": ivec([b for _, b in flat]), "sd": sd}
    r0, r1 = run(SegReduce(PAIR_PULL, (const(init[0]), const(init[1])), affine(), var("sd")), **env)
    assert list(zip(r0.tolist(), r1.tolist())) == [functools.reduce(affine_ref, row, init) for row in rows]
    s0, s1 = run(SegScan(PAIR_PULL, (const(init[0]), const(init[1])), affine(), var("sd")), **env)
    assert list(zip(s0.tolist(), s1.tolist())) == seg_ref_scan(rows, init, affine_ref)


@SETTINGS
@given(rows=rows_int)
def test_seg_filter_partition(rows):
    sd, flat = seg_of(rows)
    pos = Thunk(param("x", INT), prim("gt", var("x"), const(0)))
    data, sd2 = run(SegFilter(pull("xs"), pos, var("sd")), xs=ivec(flat), sd=sd)
    assert to_nested((sd2, data), SeqOf(SeqOf(INT))) == [[x for x in r if x > 0] for r in rows]
    t, tsd, f, fsd = run(SegPartition(pull("xs"), pos, var("sd")), xs=ivec(flat), sd=sd)
    assert to_nested((tsd, t), SeqOf(SeqOf(INT))) == [[x for x in r if x > 0] for r in rows]
    assert to_nested((fsd, f), SeqOf(SeqOf(INT))) == [[x for x in r if not x > 0] for r in rows]


@SETTINGS
@given(rows=rows_int)
def test_seg_permute_reverse_and_rank(rows):
    sd, flat = seg_of(rows)
    s, i = var("sd"), var("i")
    seg = Index(SegVec(s, "ids"), i)
    local = prim("sub", i, Index(SegVec(s, "offsets"), seg))
    rev = Thunk(param("i", INT), prim("sub", prim("sub", Index(SegVec(s, "lengths"), seg), local), const(1)), (s,))
    (r,) = run(SegPermute(pull("xs"), rev, s), xs=ivec(flat), sd=sd)
    assert to_nested((sd, r), SeqOf(SeqOf(INT))) == [list(reversed(row)) for row in rows]
    (k,) = run(SegRank(pull("xs"), s), xs=ivec(flat), sd=sd)
    ref = []
    for row in rows:
        order = sorted(range(len(row)), key=lambda j: row[j])
        rk = [0] * len(row)
        for p, j in enumerate(order):
            rk[j] = p
        ref.append(rk)
    assert to_nested((sd, k), SeqOf(SeqOf(INT))) == ref
    if any(len(row) > 1 for row in rows):
        ident0 = Thunk(param("i", INT), const(0))
        with pytest.raises(LcuRuntimeError, match="permutation"):
            run(SegPermute(pull("xs"), ident0, s), xs=ivec(flat), sd=sd)


def test_empty_everything():
    e, sd = ivec([]), SegDes([])
    assert run(Reduce(pull("xs"), (const(5),), affine_like_int(), N), xs=e) == (5,)
    assert run(Scan(pull("xs"), (const(5),), binop("add"), N), xs=e)[0].tolist() == []
    assert run(SegReduce(pull("xs"), (const(5),), binop("max"), var("sd")), xs=e, sd=sd)[0].tolist() == []
    sd0 = SegDes([0, 0])
    assert run(SegReduce(pull("xs"), (const(5),), binop("max"), var("sd")), xs=e, sd=sd0)[0].tolist() == [5, 5]
    assert run(SegReduce(pull("xs"), (const(5),), affine_like_int(), var("sd")), xs=e, sd=sd0)[0].tolist() == [5, 5]
    assert run(SegScan(pull("xs"), (const(5),), affine_like_int(), var("sd")), xs=e, sd=sd0)[0].tolist() == []


def affine_like_int():
    """An associative operator the interpreter does not recognise: x + y written as (x + y) * 1."""
    return Thunk((param("x", INT), param("y", INT)), prim("mul", prim("add", var("x"), var("y")), const(1)))


def test_unrecognised_int_monoid_matches():
    xs = list(range(-20, 37))
    sd = SegDes([5, 0, 17, 1, 0, 34])
    op = affine_like_int()
    assert recognise_monoid(op, 1) is None
    assert run(Reduce(pull("xs"), (const(3),), op, N), xs=ivec(xs))[0] == 3 + sum(xs)
    (r,) = run(SegReduce(pull("xs"), (const(0),), op, var("sd")), xs=ivec(xs), sd=sd)
    (q,) = run(SegReduce(pull("xs"), (const(0),), binop("add"), var("sd")), xs=ivec(xs), sd=sd)
    assert r.tolist() == q.tolist()
    (r,) = run(SegScan(pull("xs"), (const(0),), op, var("sd")), xs=ivec(xs), sd=sd)
    (q,) = run(SegScan(pull("xs"), (const(0),), binop("add"), var("sd")), xs=ivec(xs), sd=sd)
    assert r.tolist() == q.tolist()


# ------------------------------------------------------------------------------------------ whole programs


@SETTINGS
@given(st.lists(st.integers(1, 1000).map(float), min_size=1, max_size=40))
def test_norm2_unfused_equals_fused(xs):
    a = Interpreter(norm2_unfused())
    b = Interpreter(norm2_fused())
    ra, rb = a.call("norm2", xs), b.call("norm2", xs)
    arr = np.asarray(xs)
    pos = arr[arr > 0].sum()
    assert np.allclose(ra[0], arr / arr.sum()) and np.allclose(ra[1], arr / pos)
    assert np.allclose(ra[0], rb[0]) and np.allclose(ra[1], rb[1])
    assert sum(a.launches.values()) == 5 and sum(b.launches.values()) == 2


def test_dotp_and_length_check():
    it = Interpreter(dotp())
    assert it.call("dotp", [1.0, 2.0, 3.0], [4.0, 5.0, 6.0]) == 32.0
    with pytest.raises(LcuRuntimeError) as e:
        it.call("dotp", [1.0], [1.0, 2.0])
    assert e.value.location == Loc.point("dotp.nesl", 1, 28) and e.value.message == LEN_MISMATCH


@SETTINGS
@given(st.integers(1, 8).flatmap(lambda n: st.tuples(
    st.lists(st.lists(st.tuples(st.integers(0, n - 1), exact_floats), max_size=5), max_size=6),
    st.lists(exact_floats, min_size=n, max_size=n))))
def test_smvm(case):
    sm, v = case
    M = SeqOf(SeqOf(TupleT((INT, FLOAT))))
    m = from_nested(sm, M)
    r = call_function(smvm(), "smvm", [m, np.asarray(v)])
    assert r.tolist() == [sum(x * v[c] for c, x in row) for row in sm]


def test_smvm_bad_column():
    m = from_nested([[(0, 1.0)], [(5, 2.0)]], SeqOf(SeqOf(TupleT((INT, FLOAT)))))
    with pytest.raises(LcuRuntimeError) as e:
        call_function(smvm(), "smvm", [m, np.asarray([1.0, 2.0])])
    assert e.value.location == Loc.point("smvm.nesl", 2, 14) and e.value.message == MSG_BOUNDS


def recursive_program():
    """fact (host recursion) and a recursive sum that halves a vector with kernels at each level."""
    n, xs = var("n"), var("xs")
    fact = Function("fact", (param("n", INT),), INT, Block((), If(
        prim("le", n, const(1)), Block((), const(1)),
        Block((Bind(param("m", INT), Call("fact", (prim("sub", n, const(1)),))),), prim("mul", n, var("m"))))))
    # count (n): recursion depth n on the host
    count = Function("count", (param("n", INT),), INT, Block((), If(
        prim("eq", n, const(0)), Block((), const(0)),
        Block((Bind(param("m", INT), Call("count", (prim("sub", n, const(1)),))),), prim("add", var("m"), const(1))))))
    # halve: rsum(xs) = if #xs <= 1 then (if #xs == 0 then 0 else xs[0]) else rsum(pairwise sums)
    I = VecT(INT)
    half = Kernel("HALF", (param("xs", I),), (I,), (KBind(var("ys"), Map(Thunk(param("i", INT), If(
        prim("lt", prim("add", prim("mul", var("i"), const(2)), const(1)), Length(xs)),
        prim("add", Index(xs, prim("mul", var("i"), const(2))), Index(xs, prim("add", prim("mul", var("i"), const(2)), const(1)))),
        Index(xs, prim("mul", var("i"), const(2)))), (xs,)),
        var("h"))),), (var("ys"),))
    half = Kernel("HALF", (param("xs", I), param("h", INT)), (I,), half.binds, half.returns)
    first = Kernel("FIRST", (param("xs", I),), (INT,), (KBind(var("x"), Once(Thunk((), Index(xs, const(0)), (xs,)))),),
                   (var("x"),))
    rsum = Function("rsum", (param("xs", I),), INT, Block((Bind(param("n", INT), Length(xs)),), If(
        prim("le", n, const(1)),
        Block((), If(prim("eq", n, const(0)), const(0), Run("FIRST", (xs,)))),
        Block((Bind(param("ys", I), Run("HALF", (xs, prim("div", prim("add", n, const(1)), const(2))))),),
              Call("rsum", (var("ys"),))))))
    main = (Bind(param("f", INT), Call("fact", (const(10),))),
            Bind(param("c", INT), Call("count", (const(9000),))),   # within MAX_CALL_DEPTH
            Bind(param("v", I), VecLit(tuple(const(k) for k in range(1, 101)), INT)),
            Bind(param("s", INT), Call("rsum", (var("v"),))),
            Bind(param("e", I), VecLit((), INT)),
            Bind(param("z", INT), Call("rsum", (var("e"),))),
            Bind(param("sd", SD), MakeSegDes(var("v"))),
            Bind(param("nseg", INT), seg_count(var("sd"))),
            Bind((), Check(prim("eq", var("s"), const(5050)), Loc.point("m", 1, 1), "bad sum")))
    return Program((half, first), (fact, count, rsum), main)


def test_recursion_on_the_host():
    it = Interpreter(recursive_program())
    res = it.run_main()
    assert [int(x) for x in res[:2]] == [3628800, 9000]
    assert it.globals["s"] == 5050 and it.globals["z"] == 0 and it.globals["nseg"] == 100
    assert it.globals["sd"].total == 5050
    assert it.launches["HALF"] == 7 and it.launches["FIRST"] == 1


def test_error_node_and_check():
    prog = Program((), (), (Bind(param("x", INT), If(const(False), const(1), Error(INT, Loc.point("e", 1, 2), "RUNTIME ERROR: nope."))),))
    with pytest.raises(LcuRuntimeError) as e:
        run_program(prog)
    assert str(e.value) == "e:1:2: RUNTIME ERROR: nope."
    neg = Program((), (), (Bind(param("s", SD), MakeSegDes(VecLit((const(1), const(-1)), INT), Loc.point("e", 2, 2))),))
    with pytest.raises(LcuRuntimeError, match="Negative segment length"):
        run_program(neg)


# ------------------------------------------------------------------------------------------ conversions

nested_ints = st.lists(st.lists(st.lists(small, max_size=4), max_size=4), max_size=5)


@SETTINGS
@given(nested_ints)
def test_conversion_roundtrip_deep(v):
    T = SeqOf(SeqOf(SeqOf(INT)))
    rep = from_nested(v, T)
    assert isinstance(rep[0], SegDes) and isinstance(rep[1][0], SegDes)
    assert to_nested(rep, T) == v


@SETTINGS
@given(st.lists(st.tuples(st.booleans(), st.lists(st.characters(max_codepoint=255), max_size=4), exact_floats),
                max_size=6))
def test_conversion_roundtrip_tuples(v):
    from lambda_cu.types import CHAR
    T = SeqOf(TupleT((BOOL, SeqOf(CHAR), FLOAT)))
    rep = from_nested(v, T)
    assert rep[0].dtype == np.bool_ and rep[1][1].dtype == np.uint8 and rep[2].dtype == np.float64
    back = to_nested(rep, T)
    assert back == [(b, list(s), f) for b, s, f in v]
    assert values_close(back, [(b, list(s), f + 1e-13) for b, s, f in v])


def test_conversion_scalars_and_wrap():
    assert from_nested(2**31, INT) == -2**31
    assert from_nested((1, (2.5, "a")), TupleT((INT, TupleT((FLOAT, __import__("lambda_cu.types").types.CHAR))))) == (1, (2.5, 97))
    assert to_nested(from_nested([2**31, 1], SeqOf(INT)), SeqOf(INT)) == [-2**31, 1]
    assert to_nested((SegDes([0, 2]), np.asarray([1, 2], dtype=np.int32)), SeqOf(SeqOf(INT)), seq=tuple) == ((), (1, 2))


# ------------------------------------------------------------------------------------------ performance smoke


def test_seg_reduce_two_million_elements():
    n, nseg = 2_000_000, 20_000
    rng = np.random.default_rng(1)
    cuts = np.sort(rng.integers(0, n, nseg - 1))
    lengths = np.diff(np.concatenate([[0], cuts, [n]]))
    sd = SegDes(lengths)
    cols = rng.integers(0, 1000, n).astype(np.int32)
    vals = rng.random(n)
    v = rng.random(1000)
    k = smvm().kernel("SMVM")
    it = Interpreter(Program((k,), ()))
    (res,) = (it.run_kernel("SMVM", sd, cols, vals, v),)
    assert res.shape == (nseg,)
    ref = np.add.reduceat(vals * v[cols], sd.offsets[lengths > 0])
    assert np.allclose(res[lengths > 0], ref)
    # the general (unrecognised) path and a segmented scan also complete
    op = Thunk((param("x", FLOAT), param("y", FLOAT)), prim("mul", prim("add", var("x"), var("y")), const(1.0)))
    (g,) = eval_soac(SegReduce(pull("vals"), (const(0.0),), op, var("sd")), {"vals": vals, "sd": sd})
    assert np.allclose(g[lengths > 0], np.add.reduceat(vals, sd.offsets[lengths > 0]))
    (s,) = eval_soac(SegScan(pull("vals"), (const(0.0),), plus(), var("sd")), {"vals": vals, "sd": sd})
    assert s.shape == (n,)
