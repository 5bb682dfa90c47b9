"""Runtime errors on OpenCL: the same ``LcuRuntimeError(location, message)`` as the numpy runner,
when two sites of one SOAC fail (the first site in evaluation order wins, whatever the order in
which work-items run), when an earlier SOAC of the same kernel failed, for ``make_sd`` of a
negative length, and in the executor's order (a kernel's error comes before a later host
``check``, ``error`` or ``make_sd`` failure); the runner goes on after an error."""
import numpy as np
import pytest

from lambda_cu.errors import MSG_BOUNDS, MSG_DIV0, MSG_NEG_LENGTH, MSG_PERMUTE
from lambda_cu.ir import (Bind, Block, Check, Error, Filter, Function, If, Let, MakeSegDes, Map, Once,
                          Permute, Program, Reduce, Run, Scan, SegReduce, SegScan, Tuple, VecLit, param)
from lambda_cu.types import TupleT, UNIT
from lambda_cu.values import SegDes

from .ocl_helpers import (L, BIG, FLOAT, INT, INT64, SD, Index, Length, VecT, check, const, kernel, length,
                          op2, prim, pull, th, var)

pytestmark = pytest.mark.opencl

i, x, y = var("i"), var("x"), var("y")
IV = VecT(INT)


def at(k):
    """``xs[i + k]`` at location ``a:<k>``."""
    return Index(var("xs"), prim("add", i, const(k)), L(f"a:{k}"))


def div_at(k):
    """``100 / (xs[i] - k)`` at location ``d:<k>`` (fails where xs[i] == k)."""
    return prim("div", const(100), prim("sub", Index(var("xs"), i), const(k)), loc=L(f"d:{k}"))


def map_prog(body):
    return Program((kernel("K", [("xs", IV)], [("r", Map(th(("i", INT), body), length("xs")))], ["r"]),))


# ------------------------------------------------------------------------------------------------
# two failing sites in one SOAC


@pytest.mark.parametrize("n", [1, 5, 4099, BIG])
def test_first_site_in_evaluation_order_wins(runners, n):
    """``xs[i + 1] + 100 / (xs[i] - 0)``: the subscript fails only at the last index, the
    division at index 0; the numpy runner evaluates the subscript on every index first."""
    xs = np.arange(n, dtype=np.int32)
    rs = runners if n < BIG else runners[:1]
    assert check(map_prog(prim("add", at(1), div_at(0))), rs, xs, expect_error=True) == (L("a:1"), MSG_BOUNDS)
    assert check(map_prog(prim("add", div_at(0), at(1))), rs, xs, expect_error=True) == (L("d:0"), MSG_DIV0)
    # only the second site fails
    assert check(map_prog(prim("add", at(0), div_at(n - 1))), rs, xs, expect_error=True) == (L(f"d:{n - 1}"), MSG_DIV0)


def test_sites_in_if_and_let(runners):
    """Evaluation order inside ``if`` (condition, then, else) and ``let`` (right-hand side, body);
    a branch's site fails only where the branch is taken."""
    xs = np.asarray([0, 1, 2, 3, 4, 5], np.int32)
    odd = prim("eq", prim("rem", Index(var("xs"), i), const(2)), const(1))
    # the then-branch fails at index 3 (odd), the else-branch at 2 (even): then-branch first
    body = If(odd, div_at(3), div_at(2))
    assert check(map_prog(body), runners, xs, expect_error=True) == (L("d:3"), MSG_DIV0)
    # a failing else-branch of an untaken if: no error
    assert check(map_prog(If(prim("lt", i, const(100)), const(0), at(100))), runners, xs, expect_error=False) is not None
    # the condition fails at the last index only, the then-branch at index 1: condition first
    body = If(prim("gt", at(1), const(0)), div_at(1), const(0))
    assert check(map_prog(body), runners, xs, expect_error=True) == (L("a:1"), MSG_BOUNDS)
    # let: the right-hand side before the body
    body = Let((x,), div_at(5), prim("add", x, at(-1)))
    assert check(map_prog(body), runners, xs, expect_error=True) == (L("d:5"), MSG_DIV0)
    body = Let((x,), at(-1), prim("add", x, div_at(5)))
    assert check(map_prog(body), runners, xs, expect_error=True) == (L("a:-1"), MSG_BOUNDS)


def test_sites_across_the_thunks_of_one_soac(runners):
    """FILTER: the pull thunk before the predicate; REDUCE/SCAN and the segmented forms: the
    pull thunk before the operator (which fails on a zero operand: 7 / y)."""
    xs = np.asarray([3, 0, 2, 1], np.int32)
    failing_op = th((("x", INT), ("y", INT)),
                    prim("add", x, prim("div", const(7), y, loc=L("op:1"))))
    pred = th(("x", INT), prim("gt", prim("div", const(7), x, loc=L("pred:1")), const(2)))
    f_ok = pull("xs")
    f_bad = th(("i", INT), Index(var("xs"), prim("mul", i, const(2)), L("f:1")))
    ps = [("xs", IV), ("sd", SD)]
    for f, where in ((f_ok, None), (f_bad, L("f:1"))):
        prog = Program((
            kernel("F", ps, [("r", Filter(f, pred, length("xs")))], ["r"]),
            kernel("R", ps, [("r", Reduce(f, (const(1),), failing_op, length("xs")))], ["r"]),
            kernel("S", ps, [("r", Scan(f, (const(1),), failing_op, length("xs")))], ["r"]),
            kernel("SR", ps, [("r", SegReduce(f, (const(1),), failing_op, var("sd")))], ["r"]),
            kernel("SS", ps, [("r", SegScan(f, (const(1),), failing_op, var("sd")))], ["r"]),
        ))
        for name, own in (("F", L("pred:1")), ("R", L("op:1")), ("S", L("op:1")), ("SR", L("op:1")), ("SS", L("op:1"))):
            for lengths in ([4], [1, 0, 3]):
                got = check(prog, runners, xs, SegDes(lengths), name=name, expect_error=True)
                assert got[0] == (where or own), (name, got)


# ------------------------------------------------------------------------------------------------
# several SOACs in one kernel


def test_error_in_an_earlier_soac_of_the_kernel(runners):
    """The first SOAC fails at its last site; later SOACs fail at their first site (a smaller
    site number): the first SOAC's error is reported.  The later SOACs read the first one's
    results (a size read back to the host, a filter count)."""
    xs = var("xs")
    first = Map(th(("i", INT), Tuple((Index(xs, i, L("k1:a")), Index(xs, prim("sub", i, const(1)), L("k1:b"))))),
                length("xs"))
    k = kernel("K", [("xs", IV)], [
        (["a", "b"], first),
        ("s", Reduce(th(("i", INT), Index(var("b"), prim("add", i, const(1)), L("k2:a"))), (const(0),),
                     op2("add", INT), length("b"))),
        ("f", Filter(th(("i", INT), Index(var("a"), prim("add", i, const(2)), L("k3:a"))),
                     th(("x", INT), prim("gt", x, const(0))), length("a"))),
        ("m", Map(th(("i", INT), prim("div", i, prim("sub", i, i), loc=L("k4:a"))), var("s"))),
    ], ["m", "f"])
    prog = Program((k,))
    assert check(prog, runners, np.arange(5, dtype=np.int32), expect_error=True) == (L("k1:b"), MSG_BOUNDS)
    # the first SOAC succeeds (empty), the second fails: now its error
    k2 = kernel("K", [("xs", IV)], [
        ("s", Reduce(th(("i", INT), div_at(2)), (const(0),), op2("add", INT), length("xs"))),
        ("f", Filter(th(("i", INT), at(1)), th(("x", INT), prim("gt", x, const(0))), length("xs"))),
        ("m", Map(th(("i", INT), at(5)), var("s"))),
    ], ["m", "f"])
    prog2 = Program((k2,))
    assert check(prog2, runners, np.arange(4, dtype=np.int32), expect_error=True) == (L("d:2"), MSG_DIV0)
    assert check(prog2, runners, np.asarray([5, 6, 7], np.int32), expect_error=True) == (L("a:1"), MSG_BOUNDS)
    assert check(prog2, runners, np.zeros(0, np.int32), expect_error=False) is not None


def test_runner_goes_on_after_an_error(runners):
    prog = map_prog(div_at(0))
    for _ in range(2):
        assert check(prog, runners, np.asarray([1, 0], np.int32), expect_error=True) == (L("d:0"), MSG_DIV0)
        check(prog, runners, np.asarray([1, 2], np.int32), expect_error=False)


# ------------------------------------------------------------------------------------------------
# host level: make_sd, checks, the executor's ordering


def host_prog():
    """Functions mixing kernels and host operations (see each test)."""
    xs = var("xs")
    fails = kernel("FAIL", [("xs", IV)], [("r", Map(th(("i", INT), div_at(0)), length("xs")))], ["r"])
    neg = kernel("NEG", [("xs", IV)], [("r", Map(th(("i", INT), prim("sub", Index(xs, i), const(2))), length("xs")))],
                 ["r"])
    cnt = kernel("CNT", [("sd", SD)], [("r", SegReduce(th(("i", INT), const(1)), (const(0),), op2("add", INT),
                                                        var("sd")))], ["r"])
    V, S = param("v", IV), param("s", SD)
    fns = (
        # make_sd of the argument (negative -> error), then the segment sizes
        Function("mk", (param("xs", IV),), IV, Block((
            Bind(S, MakeSegDes(xs, L("m:1"))),
            Bind(V, Run("CNT", (var("s"),))),
        ), var("v"))),
        # make_sd of int64 lengths
        Function("mk64", (param("xs", VecT(INT64)),), IV, Block((
            Bind(S, MakeSegDes(xs, L("m:2"))),
        ), Run("CNT", (var("s"),)))),
        # make_sd of lengths computed on the device (xs - 2)
        Function("mkdev", (param("xs", IV),), IV, Block((
            Bind(V, Run("NEG", (xs,))),
            Bind(S, MakeSegDes(var("v"), L("m:3"))),
        ), Run("CNT", (var("s"),)))),
        # a failing kernel, then a failing check: the kernel's error
        Function("kcheck", (param("xs", IV),), IV, Block((
            Bind(V, Run("FAIL", (xs,))),
            Bind((), Check(const(False), L("c:1"), "RUNTIME ERROR: check failed.")),
        ), var("v"))),
        # a failing kernel, then make_sd of a negative length: the kernel's error
        Function("kmk", (param("xs", IV),), IV, Block((
            Bind(V, Run("FAIL", (xs,))),
            Bind(S, MakeSegDes(VecLit((const(1), const(-1)), INT), L("m:4"))),
        ), var("v"))),
        # a failing kernel, then an error: the kernel's error; without it the error's
        Function("kerr", (param("xs", IV),), IV, Block((
            Bind(V, Run("FAIL", (xs,))),
            Bind((), Error(UNIT, L("e:1"), "RUNTIME ERROR: boom.")),
        ), var("v"))),
        # a kernel whose result decides a host if: its error first
        Function("kif", (param("xs", IV),), IV, Block((
            Bind(V, Run("FAIL", (xs,))),
        ), If(prim("gt", Length(var("v")), const(1)), Block((), var("v")), Block((), Run("NEG", (var("v"),)))))),
    )
    return Program((fails, neg, cnt), fns)


HOST = host_prog()


def test_make_sd(runners):
    for lengths in ([], [0], [3, 0, 2], [0, 0]):
        check(HOST, runners, np.asarray(lengths, np.int32), name="mk", function=True, expect_error=False)
        check(HOST, runners, np.asarray(lengths, np.int64), name="mk64", function=True, expect_error=False)
        check(HOST, runners, np.asarray(lengths, np.int32) + 2, name="mkdev", function=True, expect_error=False)
    for lengths in ([-1], [3, -2, 1], [0, 0, -2**31]):
        assert check(HOST, runners, np.asarray(lengths, np.int32), name="mk", function=True,
                     expect_error=True) == (L("m:1"), MSG_NEG_LENGTH)
        assert check(HOST, runners, np.asarray(lengths, np.int64), name="mk64", function=True,
                     expect_error=True) == (L("m:2"), MSG_NEG_LENGTH)
        assert check(HOST, runners, np.asarray(lengths, np.int32) + 2, name="mkdev", function=True,
                     expect_error=True) == (L("m:3"), MSG_NEG_LENGTH)


def test_make_sd_big(runners):
    lengths = np.ones(BIG, np.int32)
    check(HOST, runners[:1], lengths, name="mk", function=True, expect_error=False)
    lengths[BIG - 1] = -1
    assert check(HOST, runners[:1], lengths, name="mk", function=True, expect_error=True) == (L("m:1"), MSG_NEG_LENGTH)


@pytest.mark.parametrize("fn,later", [("kcheck", (L("c:1"), "RUNTIME ERROR: check failed.")),
                                      ("kmk", (L("m:4"), MSG_NEG_LENGTH)),
                                      ("kerr", (L("e:1"), "RUNTIME ERROR: boom.")),
                                      ("kif", None)])
def test_kernel_error_comes_before_a_later_host_failure(runners, fn, later):
    assert check(HOST, runners, np.asarray([1, 0, 2], np.int32), name=fn, function=True,
                 expect_error=True) == (L("d:0"), MSG_DIV0)
    if later is not None:
        assert check(HOST, runners, np.asarray([1, 2, 3], np.int32), name=fn, function=True,
                     expect_error=True) == later
    else:
        check(HOST, runners, np.asarray([1, 2, 3], np.int32), name=fn, function=True, expect_error=False)


def test_failing_init(runners):
    """``init`` is evaluated once per SOAC, even on an empty vector or with no segments (as the
    numpy runner does), and after the pull thunk's sites but before the operator's."""
    a = var("a")
    init = (prim("div", const(7), a, loc=L("init:1")),)
    # x * y, failing when an operand is 0: associative, and fails whatever the grouping.  (With
    # several failing sites in an operator, which one fails first depends on the grouping of
    # the applications: the numpy runner combines pairs, the OpenCL runner folds chunks.)
    op = th((("x", INT), ("y", INT)),
            Let((var("p"),), prim("mul", x, y), prim("add", prim("mul", prim("div", var("p"), var("p"), loc=L("op:1")),
                                                                     const(0)), var("p"))))
    ps = [("xs", IV), ("sd", SD), ("a", INT)]
    f = pull("xs")
    prog = Program((
        kernel("R", ps, [("r", Reduce(f, init, op, length("xs")))], ["r"]),
        kernel("S", ps, [("r", Scan(f, init, op, length("xs")))], ["r"]),
        kernel("SR", ps, [("r", SegReduce(f, init, op, var("sd")))], ["r"]),
        kernel("SS", ps, [("r", SegScan(f, init, op, var("sd")))], ["r"]),
    ))
    for name in ("R", "S", "SR", "SS"):
        for xs, lengths in (([], []), ([], [0, 0]), ([1, 2], [2]), ([1, 0, 2], [1, 2]), ([0, 3], [2]),
                            ([2, 3, 1, 2, 3], [0, 2, 0, 3, 0])):
            for av in (0, 1):
                check(prog, runners, np.asarray(xs, np.int32), SegDes(lengths), av, name=name)
