"""Fusion's one shape analysis (lambda_cu/fusion/shapes.py, issue 13): shapes are structured
values, not printed IR, so fusion decisions do not depend on the λcu printer."""
import dataclasses
import pathlib

import pytest

from lambda_cu import ir
from lambda_cu.fusion import fuse_program
from lambda_cu.fusion.pdg import region_pdg
from lambda_cu.fusion.shapes import (Elems, Filtered, FilteredSegDes, IntOf, KernelShapes, Known,
                                     LenOf, MadeSegDes, RegionShapes, ResultLen, Scope, SegDes,
                                     Segs, value_exp)
from lambda_cu.ir import (Bind, Filter, Index, KBind, Kernel, Length, MakeSegDes, Map, Reduce,
                          Run, SegReduce, SegVec, Thunk, const, param, prim, var)
from lambda_cu.loc import Loc
from lambda_cu.types import FLOAT, INT, INT64, SD, VecT

from . import programs as P

ROOT = pathlib.Path(__file__).resolve().parents[2]
F = VecT(FLOAT)


def pull(vec, idx="i"):
    return Thunk(param(idx, INT), Index(var(vec), var(idx)), (var(vec),))


def plus():
    return Thunk((param("x", FLOAT), param("y", FLOAT)), prim("add", var("x"), var("y")))


def positive():
    return Thunk(param("x", FLOAT), prim("gt", var("x"), const(0.0)))


# --------------------------------------------------------------------------------------------
# kernel level
# --------------------------------------------------------------------------------------------

def test_kernel_map_then_reduce_share_the_iteration_size():
    binds = (KBind(var("ys"), Map(pull("xs"), Length(var("xs")))),
             KBind(var("z"), Reduce(pull("ys"), (const(0.0),), plus(), Length(var("ys")))))
    sh = KernelShapes(binds)
    it = sh.iteration(binds[0].soac)
    assert it == LenOf(var("xs"), Scope.KERNEL)
    assert sh.iteration(binds[1].soac) == it          # #ys = the MAP's size
    assert sh.len_shape(var("z")) == LenOf(var("z"), Scope.KERNEL)   # not a vector result


def test_kernel_filter_output_is_a_fresh_size():
    binds = (KBind(var("ys"), Filter(pull("xs"), positive(), Length(var("xs")))),
             KBind(var("z"), Reduce(pull("ys"), (const(0.0),), plus(), Length(var("ys")))))
    sh = KernelShapes(binds)
    assert sh.iteration(binds[1].soac) == sh.filtered(var("ys")) == Filtered("ys", None, Scope.KERNEL)
    assert sh.iteration(binds[1].soac) != sh.iteration(binds[0].soac)


def test_kernel_parameters_take_their_region_shapes():
    binds = (KBind(var("ys"), Map(pull("xs"), Length(var("xs")))),
             KBind(var("zs"), Map(pull("ws"), var("n"))))
    region = LenOf(var("a"))
    sh = KernelShapes(binds, {"xs": region, "ws": LenOf(var("b")), "n": region})
    assert sh.iteration(binds[0].soac) == sh.iteration(binds[1].soac) == region
    # without them, each parameter is a kernel-scope symbol of its own
    sh0 = KernelShapes(binds)
    assert sh0.iteration(binds[0].soac) != sh0.iteration(binds[1].soac)
    # a region symbol and a kernel symbol of the same name differ
    assert LenOf(var("xs")) != LenOf(var("xs"), Scope.KERNEL)


def test_kernel_segmented_iteration_and_filter_descriptor():
    binds = (KBind(var("r"), SegReduce(pull("xs"), (const(0.0),), plus(), var("sd"))),)
    outer = SegDes(var("s"))
    sh = KernelShapes(binds, {"sd": outer})
    assert sh.iteration(binds[0].soac) == Elems(outer)
    assert sh.len_shape(var("r")) == Segs(outer)
    assert sh.len_shape(SegVec(var("sd"), "ids")) == Elems(outer)
    assert sh.len_shape(SegVec(var("sd"), "lengths")) == Segs(outer)
    assert sh.elems(FilteredSegDes("v", Scope.KERNEL)) == Filtered("v", None, Scope.KERNEL)


def test_opaque_sizes_are_expressions_compared_by_value():
    e1 = prim("add", var("n"), const(1), loc=Loc("f.nesl", 1, 1, 1, 5))
    e2 = prim("add", var("n"), const(1), loc=Loc("f.nesl", 9, 9, 9, 9))
    e3 = prim("add", var("n"), const(2))
    sh = KernelShapes(())
    assert sh.int_shape(e1) == sh.int_shape(e2) == IntOf(value_exp(e1), Scope.KERNEL)
    assert sh.int_shape(e1) != sh.int_shape(e3)
    assert value_exp(Length(var("xs"), INT64)) == Length(var("xs"))
    assert value_exp(e3) is e3                      # nothing to drop: the same object
    assert hash(sh.int_shape(e1)) == hash(sh.int_shape(e2))
    with pytest.raises(dataclasses.FrozenInstanceError):
        sh.int_shape(e1).exp = e3


def test_shape_text_is_display_only():
    assert str(LenOf(var("xs"))) == "#xs"
    assert str(Known(3)) == "3"
    assert str(Elems(MadeSegDes(var("sd"), LenOf(var("ls"))))) == "elems(mksd(sd, #ls))"
    assert str(Filtered(4)) == "filt(4)" and str(Filtered(4, 1)) == "filt(4, 1)"
    assert str(ResultLen(2, 0)) == "len(2, 0)"


# --------------------------------------------------------------------------------------------
# region level
# --------------------------------------------------------------------------------------------

def _kernels():
    kmap = Kernel("KM", (param("xs", F),), (F,),
                  (KBind(var("ys"), Map(pull("xs"), Length(var("xs")))),), (var("ys"),))
    kmapn = Kernel("KN", (param("xs", F), param("n", INT)), (F,),
                   (KBind(var("ys"), Map(pull("xs"), var("n"))),), (var("ys"),))
    kfil = Kernel("KF", (param("xs", F),), (F,),
                  (KBind(var("ys"), Filter(pull("xs"), positive(), Length(var("xs")))),), (var("ys"),))
    ksum = Kernel("KS", (param("xs", F), param("sd", SD)), (F,),
                  (KBind(var("r"), SegReduce(pull("xs"), (const(0.0),), plus(), var("sd"))),),
                  (var("r"),))
    return {k.name: k for k in (kmap, kmapn, kfil, ksum)}


def test_region_shapes_follow_bindings_and_runs():
    binds = (
        Bind(param("n", INT), Length(var("xs"))),                          # 0
        Bind(param("ys", F), Run("KM", (var("xs"),))),                      # 1
        Bind(param("zs", F), Run("KN", (var("ys"), var("n")))),             # 2
        Bind(param("ws", F), Run("KF", (var("zs"),))),                      # 3
        Bind(param("sd", SD), MakeSegDes(var("ls"))),                       # 4
        Bind(param("rs", F), Run("KS", (var("ws"), var("sd")))),            # 5
    )
    pdg = region_pdg("r", binds, var("rs"), _kernels())
    sh = pdg.shapes
    assert isinstance(sh, RegionShapes)
    xs = LenOf(var("xs"))
    assert sh.int_shape(var("n")) == xs
    assert sh.iteration(1) == sh.iteration(2) == xs == sh.len_shape(var("zs"))
    assert sh.len_shape(var("ws")) == Filtered(3)
    made = MadeSegDes(var("sd"), LenOf(var("ls")))
    assert sh.kernel_sd(5) == made
    assert sh.iteration(5) == Elems(made)
    assert sh.len_shape(var("rs")) == LenOf(var("ls"))       # segments of make_sd(ls)
    sizes = {n.id: (n.size, n.out_size) for n in pdg.graph.nodes}
    assert sizes[1] == sizes[2] == (xs, None)
    assert sizes[3] == (xs, Filtered(3))
    # an unknown int argument stays a symbol of its own, unresolved kernel sizes unknown
    assert sh.int_shape(var("m")) == IntOf(var("m"))
    assert sh.int_shape(prim("add", var("m"), const(1))) == IntOf(prim("add", var("m"), const(1)))


# --------------------------------------------------------------------------------------------
# fusion does not depend on the printer
# --------------------------------------------------------------------------------------------

def _summary(res):
    return [(f.name, f.unfused_runs, f.fused_runs, [(k.soacs, k.members, k.rules)
                                                   for k in f.fused_kernels])
            for f in res.report.functions]


def _garbage_printer(monkeypatch):
    # every λcu node prints as the same text: keys made of printed IR would all collide
    monkeypatch.setattr(ir.Node, "_pretty", staticmethod(lambda node, *a, **k: "garbage"))


@pytest.mark.parametrize("name", ["norm2", "sparse_mxv", "quicksort"])
def test_fusion_of_examples_does_not_depend_on_the_printer(name, monkeypatch):
    from nessie import driver
    c = driver.compile_file(str(ROOT / "nesl_examples" / f"{name}.nesl"))
    flat = driver.flatten(c)
    ref = fuse_program(flat.program, solver="greedy")
    _garbage_printer(monkeypatch)
    assert str(ref.program.kernels[0]) == "garbage"
    res = fuse_program(flat.program, solver="greedy")
    assert res.program == ref.program          # structural equality of the fused programs
    assert _summary(res) == _summary(ref)
    assert sum(f.fused_runs for f in res.report.functions) < sum(f.unfused_runs for f in res.report.functions)


@pytest.mark.parametrize("make", [P.norm2_unfused, P.smvm_unfused, P.dotp_unfused])
def test_fusion_of_hand_built_programs_does_not_depend_on_the_printer(make, monkeypatch):
    ref = fuse_program(make(), solver="greedy")
    _garbage_printer(monkeypatch)
    res = fuse_program(make(), solver="greedy")
    assert res.program == ref.program
    assert _summary(res) == _summary(ref)
