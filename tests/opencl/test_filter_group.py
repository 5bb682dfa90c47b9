"""Independent FILTERs / PARTITIONs of one kernel (quicksort's three filters by the pivot) run as
a group on OpenCL: every count phase, one synchronisation for all their chunk counts, then every
write phase (``OpenCLRunner._run_filters``).  Against the numpy runner: results of every member,
sizes that differ between members, a member reading an earlier member's result (not grouped),
and errors: the earliest member's error is the one reported, whichever members fail."""
import numpy as np
import pytest

from lambda_cu import ir
from lambda_cu.errors import MSG_BOUNDS, MSG_DIV0
from lambda_cu.executor import Executor
from lambda_cu.ir import Filter, Index, Length, Partition, Program

from .ocl_helpers import L, INT, VecT, check, const, kernel, length, prim, th, var

pytestmark = pytest.mark.opencl

IV = VecT(INT)
x = var("x")


def pull_checked(vec, tag, div=None):
    """``{ i => vec[w[i]] }`` (a located subscript), or ``{ i => 100 / vec[w[i]] }``."""
    e = Index(var(vec), Index(var("w"), var("i"), L(tag + ":idx")), L(tag))
    if div:
        e = prim("div", const(100), e, loc=L(div))
    return th(("i", INT), e)


def pred(op, k):
    return th(("x", INT), prim(op, x, const(k)))


def group():
    """lt / eq (partition) / gt filters of the same pull, a filter over another size, and a last
    filter that reads the first one's result (runs after the group)."""
    ps = [("v", IV), ("w", IV), ("u", IV)]
    return Program((kernel("G", ps, [
        ("a", Filter(pull_checked("v", "a"), pred("lt", 0), length("w"))),
        (["b", "b2"], Partition(pull_checked("v", "b", div="b:div"), pred("eq", 5), length("w"))),
        ("c", Filter(pull_checked("v", "c"), pred("gt", 0), length("w"))),
        ("d", Filter(th(("i", INT), Index(var("u"), var("i"))), pred("ge", 2), length("u"))),
        ("e", Filter(th(("i", INT), Index(var("a"), var("i"))), pred("lt", -2), Length(var("a")))),
    ], ["a", "b", "b2", "c", "d", "e"]),))


@pytest.mark.parametrize("n", [0, 1, 2, 7, 2049, 6151])
def test_group_results(runners, n):
    rng = np.random.default_rng(n)
    v = rng.integers(-9, 10, 50).astype(np.int32)
    v[v == 0] = 1
    w = rng.integers(0, 50, n).astype(np.int32)
    u = rng.integers(0, 5, (n * 3) // 2 + 1).astype(np.int32)
    check(group(), runners, v, w, u, name="G", expect_error=False)


def test_group_is_one_synchronisation(runners):
    """Grouped, the three filters over w and the one over u read their counts together: running
    the kernel synchronises twice (the group, then the filter that reads a group member's
    result), not five times."""
    r = runners[0]
    rng = np.random.default_rng(1)
    prog = group()
    ex = Executor(prog, r)
    k = prog.kernels[0]
    args = [r.from_host(a, p.ty) for a, p in zip(
        (rng.integers(-9, 10, 50).astype(np.int32) | 1, rng.integers(0, 50, 5000).astype(np.int32),
         rng.integers(0, 5, 3000).astype(np.int32)), k.params)]
    r.sync()
    before = r.stats.syncs
    ex._run(k, args)
    assert r.stats.syncs - before == 2


def with_bad_members(bad):
    """``group()`` where each member named in ``bad`` reads ``v`` out of range at element 1234."""
    k = group().kernels[0]
    binds = []
    for b in k.binds:
        name, s = b.vars[0].name, b.soac
        if name in bad:
            shift = prim("mul", const(50), prim("btoi", prim("eq", var("i"), const(1234)), ty=INT))
            e = Index(var("v"), prim("add", Index(var("w"), var("i"), L(name + ":idx")), shift), L(name))
            if name == "b":
                e = prim("div", const(100), e, loc=L("b:div"))
            s = type(s)(th(("i", INT), e), s.pred, s.size)
        binds.append(ir.KBind(b.vars, s))
    return Program((ir.Kernel(k.name, k.params, k.results, tuple(binds), k.returns),))


@pytest.mark.parametrize("bad", ["a", "b", "c", "ac", "bc", "abc"])
def test_first_member_error_wins(runners, bad):
    """Members whose subscript fails at one element: the error reported is that of the first
    failing member in kernel order, as when they run one at a time."""
    rng = np.random.default_rng(len(bad))
    v = rng.integers(1, 10, 50).astype(np.int32)
    w = rng.integers(0, 50, 3000).astype(np.int32)
    got = check(with_bad_members(bad), runners, v, w, np.zeros(10, np.int32), name="G", expect_error=True)
    assert got == (L(bad[0]), MSG_BOUNDS)


def test_division_error_in_a_later_member(runners):
    """A division by zero in the partition (second member) while the first member is fine."""
    v = np.asarray([3, 0, 4], np.int32)
    w = np.asarray([0, 2, 1, 0, 2], np.int32)
    got = check(group(), runners, v, w, np.zeros(3, np.int32), name="G", expect_error=True)
    assert got == (L("b:div"), MSG_DIV0)
