"""Reductions of several components through the Lift compiler (lift_map.py, ``_reduce_functions``):
the accumulator, the element and ``init`` are Lift tuples, the operator a user function on
them, the results one buffer per component (``soa_output``).  A component-wise operator whose
``init`` components are its primitives' identities (norm2's pair of sums) gets the chunk
programs; any operator (quickhull's arg-max, written on flat or on tuple parameters) the carry
program and a SEG_REDUCE's rows.  Which SOACs qualify, that their programs parse back, that they
are what runs, and results against the numpy runner."""
import numpy as np
import pytest

from lambda_cu.ir import If, Index, Length, Program, Proj, Reduce, SegReduce, Tuple, var
from lift_backend import compile_program, parse
from lift_backend.lower.runner import OpenCLRunner, lower_kernel

from .ocl_helpers import (cpu_plan_runner, BIG, BOOL, FLOAT, INT, ODD_SIZES, SD, VecT, check, const, kernel, length,
                          prim, th)

pytestmark = pytest.mark.opencl

i = var("i")


def pair_op(names, t0, t1, body):
    """An operator on pairs: ``names`` two tuple parameters or four flat ones."""
    if len(names) == 2:
        from lambda_cu.types import TupleT
        return th(((names[0], TupleT((t0, t1))), (names[1], TupleT((t0, t1)))), body)
    return th(((names[0], t0), (names[1], t1), (names[2], t0), (names[3], t1)), body)


def reductions():
    """A pair of sums (int and float, tuple parameters), a sum and an ``or`` (flat parameters),
    an arg-max (not component-wise: carry only) and a segmented pair of a sum and a max."""
    xs, ps = var("xs"), var("ps")
    l, r = var("l"), var("r")
    sums = Reduce(th(("i", INT), Tuple((Index(ps, i), Index(xs, i)))), (const(0), const(0.0)),
                  pair_op(("l", "r"), INT, FLOAT, Tuple((prim("add", Proj(l, 0), Proj(r, 0)),
                                                         prim("add", Proj(l, 1), Proj(r, 1))))),
                  length("ps"))
    a, b, c, d = var("a"), var("b"), var("c"), var("d")
    sum_or = Reduce(th(("i", INT), Tuple((Index(ps, i), prim("gt", Index(ps, i), const(5))))),
                    (const(0), const(False)),
                    pair_op(("a", "b", "c", "d"), INT, BOOL, Tuple((prim("add", a, c), prim("or", b, d)))),
                    length("ps"))
    # the first index of the largest element (ties: the earlier one)
    argmax = Reduce(th(("i", INT), Tuple((Index(xs, i), i))), (const(-np.inf), const(-1)),
                    pair_op(("a", "b", "c", "d"), FLOAT, INT,
                            If(prim("or", prim("lt", b, const(0)), prim("and", prim("ge", d, const(0)),
                                                                        prim("gt", c, a))),
                               Tuple((c, d)), Tuple((a, b)))),
                    length("xs"))
    seg = SegReduce(th(("i", INT), Tuple((Index(ps, i), Index(xs, i)))), (const(0), const(-np.inf)),
                    pair_op(("l", "r"), INT, FLOAT, Tuple((prim("add", Proj(l, 0), Proj(r, 0)),
                                                           prim("max", Proj(l, 1), Proj(r, 1))))),
                    var("sd"))
    binds = [(("s0", "s1"), sums), (("o0", "o1"), sum_or), (("m0", "m1"), argmax), (("g0", "g1"), seg)]
    names = ["s0", "s1", "o0", "o1", "m0", "m1", "g0", "g1"]
    return Program((kernel("K", [("xs", VecT(FLOAT)), ("ps", VecT(INT)), ("sd", SD)], binds, names),)), names


def test_tuple_reductions_are_lift_programs():
    prog, _ = reductions()
    lowered = lower_kernel(prog.kernels[0])
    assert [sorted(k for k in ls.info if k.startswith("lift")) for ls in lowered] == [
        ["lift", "lift_carry"], ["lift", "lift_carry"], ["lift", "lift_carry"], ["lift"]]
    # the arg-max has no identity: its chunks fold from their first element
    assert ["_init1" in ls.info["lift"].text() for ls in lowered[:3]] == [False, False, True]
    for ls in lowered:
        for key in ("lift", "lift_carry"):
            lm = ls.info.get(key)
            if lm is None:
                continue
            text = lm.text()
            assert "acc: (" in text, text           # a tuple accumulator
            launch = dict(global_size=lm.kernel.launch.global_size, local_size=lm.kernel.launch.local_size)
            again = compile_program(parse(text).program(lm.name), error_base=True, soa_output=True, **launch)
            assert again.source == lm.kernel.source


def _args(rng, n, nseg):
    from lambda_cu.values import SegDes
    xs = rng.standard_normal(n)
    xs[rng.integers(0, max(n, 1), min(n, 3))] = 7.5 if n else 0      # ties of the maximum
    ps = rng.integers(-2**31, 2**31 - 1, n, dtype=np.int64).astype(np.int32)
    cuts = np.sort(rng.integers(0, n + 1, max(nseg - 1, 0)))
    lengths = np.diff(np.concatenate(([0], cuts, [n]))) if nseg else np.zeros(0, np.int64)
    return xs, ps, SegDes(lengths.astype(np.int32))


@pytest.mark.parametrize("n", ODD_SIZES + (BIG,))
def test_lift_tuple_reductions_equal_numpy(runners, n):
    prog, names = reductions()
    rng = np.random.default_rng(n)
    rs = runners if n < BIG else runners[:1]
    for nseg in ((1, 4, n // 3 + 1) if n else (0, 2)):
        xs, ps, sd = _args(rng, n, nseg)
        check(prog, rs, xs, ps, sd, expect_error=False, names=names, rtol=1e-9)


def test_the_lift_tuple_kernels_are_what_run():
    prog, names = reductions()
    r = cpu_plan_runner()
    rng = np.random.default_rng(4)
    xs, ps, sd = _args(rng, 20000, 5000)
    check(prog, [r], xs, ps, sd, expect_error=False, names=names, rtol=1e-9)
    r._collect_events()
    ks = set(r.stats.by_kernel)
    assert sum(k.endswith("_lift") for k in ks) == 4, ks           # three chunk passes, the rows
    assert sum(k.endswith("_liftcarry") for k in ks) == 3, ks
    assert not any(k.endswith(("_carry", "_rows", "_chunks")) for k in ks), ks
