"""Common-subexpression elimination on λcu (``lambda_cu.fusion.cse``): equal components of a tuple
``MAP`` computed once, equal CPU-level bindings (kernel runs, ``make_sd``, descriptor vectors,
lengths) evaluated once, host library calls never merged, and results unchanged (the numpy
interpreter runs the program before and after).  The fused pipeline runs it before and after
fusion (``nessie.passes``: pass ``fuse``); quicksort's lifted body then builds one descriptor of
its segments' lengths instead of three."""
import numpy as np

from lambda_cu import ir
from lambda_cu.check import check_program
from lambda_cu.fusion.cse import cse_kernel, cse_program
from lambda_cu.interp import call_function
from lambda_cu.types import INT, SD, VecT, tuple_of

VI = VecT(INT)


def v(n):
    return ir.Var(n)


def p(n, t=INT):
    return ir.Param(v(n), t)


def thunk(params, body):
    t = ir.Thunk(tuple(params), body, ())
    return ir.Thunk(t.params, body, tuple(v(n) for n in sorted(ir.thunk_free_vars(t))))


def lengths_kernel():
    """``K(xs, n)``: (1, xs[i] * 2, 1, 1) in one MAP (ones: segments of length 1)."""
    i = v("i")
    a = ir.prim("add", ir.prim("mul", ir.Index(v("xs"), i), ir.const(0)), ir.const(1))
    b = ir.prim("mul", ir.Index(v("xs"), i), ir.const(2))
    m = ir.Map(thunk([p("i")], ir.Tuple((a, b, a, a))), v("n"))
    return ir.Kernel("K", (p("xs", VI), p("n")), (VI,) * 4,
                     (ir.KBind((v("t0"), v("t1"), v("t2"), v("t3")), m),),
                     (v("t0"), v("t1"), v("t2"), v("t3")))


def test_equal_map_components_are_computed_once():
    k = cse_kernel(lengths_kernel())
    (kb,) = k.binds
    assert [x.name for x in kb.vars] == ["t0", "t1"]
    assert len(kb.soac.f.body.elems) == 2
    assert [r.name for r in k.returns] == ["t0", "t1", "t0", "t0"]
    assert k.results == lengths_kernel().results


def seg_sum_kernel():
    i = v("i")
    s = ir.SegReduce(thunk([p("i")], ir.Index(v("ys"), i)), (ir.const(0),),
                     thunk([p("a"), p("b")], ir.prim("add", v("a"), v("b"))), v("sd"))
    return ir.Kernel("S", (p("ys", VI), p("sd", SD)), (VI,), (ir.KBind((v("r"),), s),), (v("r"),))


def bind(names, rhs, t=INT):
    names = (names,) if isinstance(names, str) else names
    ts = t if isinstance(t, tuple) else (t,) * len(names)
    return ir.Bind(tuple(p(n, ty) for n, ty in zip(names, ts)), rhs)


def program(with_externs=True) -> ir.Program:
    """f(xs, n): lengths computed three times by one kernel, two descriptors of equal lengths,
    a sum over each; a branch reuses the outer descriptor; a host library call twice."""
    ext = (bind("e1", ir.Extern("rand", (v("n"),), INT)),
           bind("e2", ir.Extern("rand", (v("n"),), INT))) if with_externs else ()
    body = ir.Block((
        bind(("a", "b", "c", "d"), ir.Run("K", (v("xs"), v("n"))), (VI,) * 4),
        bind("sa", ir.MakeSegDes(v("a"), "f.nesl:1:1"), SD),
        bind("sc", ir.MakeSegDes(v("c"), "f.nesl:2:1"), SD),
        bind("ta", ir.Length(ir.SegVec(v("sa"), "ids"), INT)),
        bind("tc", ir.Length(ir.SegVec(v("sc"), "ids"), INT)),
        bind(("ya", "yb", "yc", "yd"), ir.Run("K", (v("xs"), v("n"))), (VI,) * 4),
        bind("r1", ir.Run("S", (v("xs"), v("sa"))), VI),
        bind("r2", ir.Run("S", (v("xs"), v("sc"))), VI),
    ) + ext + (
        bind("br", ir.If(ir.prim("lt", v("ta"), ir.prim("add", v("tc"), ir.const(1))),
                         ir.Block((bind("sd2", ir.MakeSegDes(v("d"), "f.nesl:3:1"), SD),
                                   bind("r3", ir.Run("S", (v("yb"), v("sd2"))), VI)), v("r3")),
                         ir.Block((bind("sd3", ir.MakeSegDes(v("b"), "f.nesl:4:1"), SD),),
                                  v("r2"))),
             VI),
    ), ir.Tuple((v("r1"), v("r2"), v("br"), v("tc"))))
    f = ir.Function("f", (p("xs", VI), p("n")), tuple_of((VI, VI, VI, INT)), body)
    return ir.Program((lengths_kernel(), seg_sum_kernel()), (f,))


def test_cpu_bindings_are_merged_and_externs_are_not():
    out = cse_program(program())
    check_program(out)
    names = [b.names for b in out.functions[0].body.binds]
    # sc, tc, the second run of K and r2 are copies; e1 and e2 are host calls: both stay
    assert names == [("a", "b", "c", "d"), ("sa",), ("ta",), ("r1",), ("e1",), ("e2",), ("br",)]
    printed = str(out.functions[0])
    assert "make_sd(c)" not in printed and "make_sd(d)" not in printed   # c and d are a
    assert "make_sd(b)" in printed                                         # b differs
    assert "run S (b, sa)" in printed                                      # yb is b, sd2 is sa
    assert "return (r1, r1, br, ta)" in printed


def test_results_unchanged_on_the_interpreter():
    prog = program(with_externs=False)
    check_program(prog)
    out = cse_program(prog)
    for data in (np.arange(5, dtype=np.int32), np.asarray([7], np.int32)):
        want = call_function(prog, "f", [data, np.int32(len(data))])
        got = call_function(out, "f", [data, np.int32(len(data))])
        assert len(want) == len(got) == 4
        for a, b in zip(want, got):
            np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


def test_a_rebound_name_forgets_what_was_known():
    body = ir.Block((
        bind("s", ir.MakeSegDes(v("x"), None), SD),
        bind("x", ir.Run("K", (v("xs"), v("n"))), VI),
        bind("t", ir.MakeSegDes(v("x"), None), SD),
    ), ir.Tuple((v("s"), v("t"))))
    f = ir.Function("g", (p("xs", VI), p("n"), p("x", VI)), tuple_of((SD, SD)), body)
    out = cse_program(ir.Program((), (f,)))
    assert [b.names for b in out.functions[0].body.binds] == [("s",), ("x",), ("t",)]


def test_quicksort_builds_one_descriptor_of_its_segment_lengths():
    from nessie import passes
    src = """function qsort(a) : [int] -> [int] =
  if (#a < 2) then a
  else
    let pivot = a[#a / 2];
        lesser = {e in a | e < pivot};
        equal = {e in a | e == pivot};
        greater = {e in a | e > pivot};
        result = {qsort(v) : v in [lesser, greater]}
    in result[0] ++ equal ++ result[1];
qsort([5, 3, 9, 1, 5, 7, 2]);"""
    from nessie.flatten.translate import flatten_program as translate_only
    vals = passes.run(src, passes.Options("qs.nesl"), until="lcu-fused")

    def lifted(prog):
        (f,) = [f for f in prog.functions if f.name.startswith("qsort_L")]
        return str(f)
    raw = lifted(translate_only(vals["mono"]).program)     # before the flattener's CSE
    flat = lifted(vals["lcu"].program)
    fused = lifted(vals["lcu-fused"].flat.program)
    # three descriptors of the same lengths (one per filter): one (the others are the
    # gathers of the instances' sequences into contiguous segments)
    assert raw.count("make_sd(glen") == 4 and flat.count("make_sd(glen") == 2
    # segment ids are read in the kernels (``seg_ids(sd)[i]``), never bound as a vector
    assert "seg_ids(sd" in fused
    assert raw.count("= seg_ids(") == flat.count("= seg_ids(") == fused.count("= seg_ids(") == 0
    # the three filters now read one descriptor: fused into one kernel with their counts
    assert fused.count("run ") < lifted(driver_fuse_unaided(vals)).count("run ")


def driver_fuse_unaided(vals):
    """Fusion of the flattened program without the flattener's CSE (before this pass)."""
    from lambda_cu.fusion import fuse_program
    from nessie.flatten.translate import flatten_program as translate_only
    return fuse_program(translate_only(vals["mono"]).program).program
