"""Acceptance tests of kernel fusion on λcu programs (lambda_cu.fusion)."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from lambda_cu import ir
from lambda_cu.check import check_program
from lambda_cu.fusion import fuse_program, pdg_to_dot, program_pdgs
from lambda_cu.interp import Interpreter
from lambda_cu.types import INT, TupleT, VecT
from lambda_cu.values import SegDes

from .programs import (dotp_unfused, gather_unfused, normalise_unfused, norm2_unfused,
                       smvm_unfused)


def runs_of(prog, fname):
    return [b.rhs for b in prog.function(fname).body.binds if isinstance(b.rhs, ir.Run)]


def same(a, b):
    if isinstance(a, tuple):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return np.array_equal(np.asarray(a), np.asarray(b))


def assert_same_results(p, q, fname, *args):
    a = Interpreter(p).call(fname, *args)
    b = Interpreter(q).call(fname, *args)
    assert same(a, b), (a, b)


# --------------------------------------------------------------------------------------------
# norm2 (the λcu paper §5)
# --------------------------------------------------------------------------------------------

def test_norm2_fuses_into_the_papers_two_kernels():
    prog = norm2_unfused()
    res = fuse_program(prog)
    new = res.program
    check_program(new)
    runs = runs_of(new, "norm2")
    assert len(runs) == 2
    kf1, kf2 = (new.kernel(r.kernel) for r in runs)
    # KF1: a single REDUCE producing both sums
    assert [b.soac.NAME for b in kf1.binds] == ["REDUCE"]
    red = kf1.binds[0].soac
    assert len(kf1.binds[0].vars) == 2 and len(red.init) == 2
    first, second = red.f.body.elems
    assert isinstance(first, ir.Index)                      # xs[i]
    # the filter is folded into the second component: if xs[i] > 0 then xs[i] else 0
    cond = second.body if isinstance(second, ir.Let) else second
    assert isinstance(cond, ir.If) and isinstance(cond.cond, ir.PrimOp) and cond.cond.op == "gt"
    assert cond.else_ == ir.Const(0.0, red.init[1].ty)
    # KF2: a single MAP producing both quotient vectors
    assert [b.soac.NAME for b in kf2.binds] == ["MAP"]
    assert len(kf2.binds[0].vars) == 2
    # it reads xs, sum1 and sum2 (its parameters have canonical names, v0, n1, ..., so that
    # equal clusters share one kernel)
    assert len(kf2.params) == 3
    assert {a.name for a in runs[1].args} == {"xs", "sum1", "sum2"}
    # the CPU binds both sums and both results
    binds = new.function("norm2").body.binds
    assert [b.names for b in binds] == [("sum1", "sum2"), ("res1", "res2")]
    # no FILTER result is materialised anywhere
    assert all(b.soac.NAME != "FILTER" for k in new.kernels for b in k.binds)
    rep = res.report.function("norm2")
    assert (rep.unfused_runs, rep.fused_runs) == (5, 2)
    assert [k.soacs for k in rep.fused_kernels] == [("REDUCE",), ("MAP",)]
    assert rep.traffic_after < rep.traffic_before
    assert not rep.fallback and rep.solve_time > 0


@pytest.mark.parametrize("xs", [[1.0, -2.0, 3.0, 4.0, -5.0], [2.5], [-1.0, -2.0], [3.0] * 7])
def test_norm2_same_results(xs):
    p = norm2_unfused()
    assert_same_results(p, fuse_program(p).program, "norm2", np.array(xs))


def test_norm2_using_lists_are_exact():
    new = fuse_program(norm2_unfused()).program
    for k in new.kernels:
        for b in k.binds:
            for t in b.soac.thunks():
                assert {u.name for u in t.using} == ir.thunk_free_vars(t)


def test_fusion_is_pure():
    p = norm2_unfused()
    text = str(p)
    r1 = fuse_program(p)
    assert str(p) == text
    assert str(fuse_program(p).program) == str(r1.program)


def test_no_fusion_with_greedy_solver_gives_same_kernels():
    r = fuse_program(norm2_unfused(), solver="greedy")
    f = r.report.function("norm2")
    assert f.fallback and f.fused_runs == 2


# --------------------------------------------------------------------------------------------
# other acceptance programs
# --------------------------------------------------------------------------------------------

def test_dot_product_becomes_one_reduce():
    p = dotp_unfused()
    new = fuse_program(p).program
    check_program(new)
    runs = runs_of(new, "dotp")
    assert len(runs) == 1
    k = new.kernel(runs[0].kernel)
    assert [b.soac.NAME for b in k.binds] == ["REDUCE"]
    assert_same_results(p, new, "dotp", np.arange(6.0), np.linspace(0, 1, 6))
    assert_same_results(p, new, "dotp", np.zeros(0), np.zeros(0))


def test_sparse_mxv_is_one_seg_reduce_without_product_array():
    p = smvm_unfused()
    new = fuse_program(p).program
    check_program(new)
    runs = runs_of(new, "smvm")
    assert len(runs) == 1
    k = new.kernel(runs[0].kernel)
    assert [b.soac.NAME for b in k.binds] == ["SEG_REDUCE"]
    pull = k.binds[0].soac.f
    # the pull thunk computes vals[i] * v[cols[i]]; no product vector exists
    arg_of = {q.name: a.name for q, a in zip(k.params, runs[0].args)}   # canonical -> CPU name
    assert {arg_of[u.name] for u in pull.using} == {"vals", "v", "cols"}
    assert len(k.params) == 4 and len(k.results) == 1    # segs, cols, vals, v -> rows
    args = (SegDes(np.array([2, 0, 3])), np.array([0, 2, 1, 1, 0], dtype=np.int32),
            np.arange(5.0), np.array([1.0, 2.0, 3.0]))
    assert_same_results(p, new, "smvm", *args)


def test_map_dividing_by_a_sum_of_the_same_region_stays_separate():
    p = normalise_unfused()
    res = fuse_program(p)
    assert len(runs_of(res.program, "normalise")) == 2
    pdg = res.report.function("normalise").regions[0].pdg
    (edge, why), = pdg.edge_reasons.items()
    assert "scalar" in why and "REDUCE" in why
    assert not pdg.graph.edges[0].fusible
    assert_same_results(p, res.program, "normalise", np.arange(1.0, 6.0))


def test_data_dependent_gather_is_fusion_preventing():
    p = gather_unfused()
    res = fuse_program(p)
    assert len(runs_of(res.program, "gather")) == 2
    pdg = res.report.function("gather").regions[0].pdg
    assert "data-dependent" in next(iter(pdg.edge_reasons.values()))
    assert_same_results(p, res.program, "gather", np.arange(4.0), np.array([3, 0, 0], dtype=np.int32))


def test_pdg_of_norm2_and_dot():
    p = norm2_unfused()
    (pdg, _main) = program_pdgs(p)
    g = pdg.graph
    kinds = [n.kind for n in g.nodes]
    assert kinds == ["REDUCE", "FILTER", "REDUCE", "MAP", "MAP"]
    sizes = [n.size for n in g.nodes]
    assert sizes[0] == sizes[1] == sizes[3] == sizes[4] != sizes[2]
    assert g.nodes[1].out_size == sizes[2]                  # the filter's transducer size
    fus = {(e.src, e.dst): e.fusible for e in g.edges}
    assert fus == {(1, 2): True, (0, 3): False, (2, 4): False}
    assert g.outputs == {3, 4}
    sched = fuse_program(p).report.function("norm2").regions[0].schedule
    dot = pdg_to_dot(pdg, sched)
    assert dot.startswith("digraph") and dot.count("subgraph") == 2
    assert "style=dashed" in dot and "FILTER" in dot


# --------------------------------------------------------------------------------------------
# flattened programs (through the real front end, when it is available)
# --------------------------------------------------------------------------------------------

NORM2 = """
function norm2(xs) : [int] -> ([int], [int]) =
  let sum1 = sum(xs);
      gts = {x : x in xs | x > 0};
      sum2 = sum(gts)
  in ({x / sum1 : x in xs}, {x / sum2 : x in xs});
"""
SPARSE = """
function sparse_mxv(mat, vec) : ([[(int, float)]], [float]) -> [float] =
  {sum({v * vec[i] : (i, v) in row}) : row in mat};
"""
DOTP = "function dotp(a, b) : ([float], [float]) -> float = sum({x * y : x in a; y in b});\n"


def _flatten(src, name):
    from nessie import driver
    return driver.flatten(driver.compile_source(src, f"{name}.nesl")).program


def test_flattened_norm2():
    p = _flatten(NORM2, "norm2")
    res = fuse_program(p)
    check_program(res.program)
    runs = runs_of(res.program, "norm2")
    assert [[b.soac.NAME for b in res.program.kernel(r.kernel).binds] for r in runs] == \
        [["REDUCE"], ["MAP"]]
    xs = np.array([3, -1, 4, 1, -5, 9, 2, 6], dtype=np.int32)
    assert_same_results(p, res.program, "norm2", xs)


def test_flattened_dotp_and_sparse_mxv():
    p = _flatten(DOTP, "dotp")
    new = fuse_program(p).program
    assert len(runs_of(new, "dotp")) == 1
    assert_same_results(p, new, "dotp", np.arange(4.0), np.arange(4.0))
    p = _flatten(SPARSE, "sparse_mxv")
    new = fuse_program(p).program
    runs = runs_of(new, "sparse_mxv")
    assert len(runs) == 1
    assert [b.soac.NAME for b in new.kernel(runs[0].kernel).binds] == ["SEG_REDUCE"]
    args = (SegDes(np.array([2, 0, 3])), np.array([0, 2, 1, 1, 0], dtype=np.int32),
            np.arange(5.0), np.array([1.0, 2.0, 3.0]))
    assert_same_results(p, new, "sparse_mxv", *args)


# --------------------------------------------------------------------------------------------
# random chains of MAP / FILTER / REDUCE kernels
# --------------------------------------------------------------------------------------------

IV = VecT(INT)
MIN_INT = -(2 ** 31)


def _c(v):
    return ir.const(v, INT)


@st.composite
def chains(draw):
    """A function over xs : [int] made of 1-7 single-SOAC kernels; vectors remember their
    size class so that element-wise maps only combine vectors of equal length."""
    vecs = [("xs", "root")]
    scalars = []
    kernels, binds = [], []
    n = draw(st.integers(1, 7))
    for k in range(n):
        kind = draw(st.sampled_from(["MAP", "MAP", "FILTER", "REDUCE"]))
        v, cls = draw(st.sampled_from(vecs))
        name = f"K{k}"
        out = f"t{k}"
        i = ir.var("i")
        if kind == "MAP":
            params = [ir.param("v", IV)]
            args = [ir.var(v)]
            using = [ir.var("v")]
            e = ir.Index(ir.var("v"), i)
            op = draw(st.sampled_from(["add", "sub", "mul"]))
            same_cls = [w for w, c in vecs if c == cls]
            if draw(st.booleans()):
                w = draw(st.sampled_from(same_cls))
                params.append(ir.param("w", IV))
                args.append(ir.var(w))
                using.append(ir.var("w"))
                e = ir.prim(op, e, ir.Index(ir.var("w"), i))
            else:
                e = ir.prim(op, e, _c(draw(st.integers(-3, 3))))
            if scalars and draw(st.booleans()):
                s = draw(st.sampled_from(scalars))
                params.append(ir.param("s", INT))
                args.append(ir.var(s))
                using.append(ir.var("s"))
                e = ir.prim("add", e, ir.var("s"))
            size_by_arg = draw(st.booleans())
            if size_by_arg:
                params.append(ir.param("n", INT))
                binds.append(ir.Bind(ir.param(f"n{k}", INT), ir.Length(ir.var(v))))
                args.append(ir.var(f"n{k}"))
                size = ir.var("n")
            else:
                size = ir.Length(ir.var("v"))
            soac = ir.Map(ir.Thunk(ir.param("i", INT), e, tuple(using)), size)
            ty = IV
            vecs.append((out, cls))
        elif kind == "FILTER":
            params, args = [ir.param("v", IV)], [ir.var(v)]
            x = ir.var("x")
            pred = draw(st.sampled_from([ir.prim("gt", x, _c(draw(st.integers(-5, 5)))),
                                         ir.prim("eq", ir.prim("rem", x, _c(2)), _c(0))]))
            soac = ir.Filter(ir.Thunk(ir.param("i", INT), ir.Index(ir.var("v"), i), (ir.var("v"),)),
                             ir.Thunk(ir.param("x", INT), pred), ir.Length(ir.var("v")))
            ty = IV
            vecs.append((out, f"f{k}"))
        else:
            params, args = [ir.param("v", IV)], [ir.var(v)]
            a, b = ir.var("a"), ir.var("b")
            if draw(st.booleans()):
                op, init = ir.prim("add", a, b), _c(0)
            else:
                op, init = ir.prim("max", a, b), _c(MIN_INT)
            soac = ir.Reduce(ir.Thunk(ir.param("i", INT), ir.Index(ir.var("v"), i), (ir.var("v"),)),
                             (init,), ir.Thunk((ir.param("a", INT), ir.param("b", INT)), op),
                             ir.Length(ir.var("v")))
            ty = INT
            scalars.append(out)
        kernels.append(ir.Kernel(name, tuple(params), (ty,), (ir.KBind(ir.var("r"), soac),),
                                 (ir.var("r"),)))
        binds.append(ir.Bind(ir.param(out, ty), ir.Run(name, tuple(args))))
    outs = [vecs[-1][0]] + scalars if len(vecs) > 1 else scalars
    if draw(st.booleans()) and len(vecs) > 2:
        outs.append(vecs[1][0])
    outs = list(dict.fromkeys(outs))
    types = {b.params[0].name: b.params[0].ty for b in binds}
    if len(outs) == 1:
        result, rty = ir.var(outs[0]), types[outs[0]]
    else:
        result, rty = ir.Tuple(tuple(ir.var(o) for o in outs)), TupleT(tuple(types[o] for o in outs))
    fn = ir.Function("f", (ir.param("xs", IV),), rty, ir.Block(tuple(binds), result))
    return ir.Program(tuple(kernels), (fn,))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(chains(), st.lists(st.integers(-20, 20), max_size=12))
def test_random_chains_fused_equal_unfused(prog, xs):
    check_program(prog)
    res = fuse_program(prog)
    check_program(res.program)
    xs = np.array(xs, dtype=np.int32)
    assert_same_results(prog, res.program, "f", xs)
    f = res.report.function("f")
    assert f.fused_runs <= f.unfused_runs
    for r in f.regions:
        from lambda_cu.fusion.ilp import check_schedule
        assert check_schedule(r.pdg.graph, r.schedule.clusters) == []
