"""MAP (and the thunk lowering of cgen.py) on OpenCL against the numpy runner: several results,
tuple results, data-dependent subscripts, segment-descriptor fields, if/let in thunks, sizes of
every form, scalar parameters of every type, several SOACs in one kernel."""
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from lambda_cu.errors import MSG_BOUNDS
from lambda_cu.ir import If, Let, Map, Proj, Reduce, Tuple
from lambda_cu.types import TupleT
from lambda_cu.values import SegDes

from .ocl_helpers import (L, BIG, BOOL, CHAR, FEW, FLOAT, INT, INT64, ODD_SIZES, SD, Index, Length, SegVec,
                          VecT, check, const, kernel, length, one, op2, prim, pull, seg, th, var)

pytestmark = pytest.mark.opencl

i, x = var("i"), var("x")
IV, FV = VecT(INT), VecT(FLOAT)


def several_results():
    body = Let((x,), Index(var("xs"), i),
               Tuple((prim("add", x, const(1)),
                      Tuple((prim("mul", prim("to_float", x), const(0.5)), prim("gt", x, const(0)))),
                      prim("code_char", x),
                      prim("to_int", x, ty=INT64))))
    return one(Map(th(("i", INT), body), length("xs")), [("xs", IV)], nres=5)


@pytest.mark.parametrize("n", ODD_SIZES + (BIG,))
def test_map_several_and_tuple_results(runners, n):
    xs = (np.arange(n, dtype=np.int64) * 7919 % 1001 - 500).astype(np.int32)
    check(several_results(), runners if n < BIG else runners[:1], xs, expect_error=False)


def gather():
    """``v[w[i]]`` and ``v[w[w[i] mod #w] mod #v]`` (subscripts read from memory)."""
    w_i = Index(var("w"), i, L("g:1:3"))
    ww = Index(var("w"), prim("mod", w_i, Length(var("w")), loc=L("g:1:4")), L("g:1:5"))
    body = Tuple((Index(var("v"), w_i, L("g:1:1")),
                  Index(var("v"), prim("mod", ww, Length(var("v")), loc=L("g:1:6")), L("g:1:7"))))
    return one(Map(th(("i", INT), body), length("w")), [("v", FV), ("w", IV)], nres=2)


@FEW
@given(st.lists(st.floats(allow_nan=True, allow_infinity=True), min_size=1, max_size=40), st.data())
def test_map_data_dependent_subscripts(runners, v, data):
    w = data.draw(st.lists(st.integers(0, len(v) - 1), max_size=40))
    check(gather(), runners, np.asarray(v), np.asarray(w, np.int32), expect_error=False)


def test_map_data_dependent_subscript_out_of_bounds(runners):
    v = np.arange(5, dtype=np.float64)
    for w in ([0, 4, 5, 1], [0, -1], [2**31 - 1]):
        assert check(gather(), runners, v, np.asarray(w, np.int32), expect_error=True) == (L("g:1:1"), MSG_BOUNDS)
    assert check(gather(), runners, np.zeros(0), np.asarray([0], np.int32), expect_error=True) == (L("g:1:1"), MSG_BOUNDS)
    check(gather(), runners, np.zeros(0), np.zeros(0, np.int32), expect_error=False)


def segment_fields():
    """Per element: segment number, position in the segment, segment length, number of
    segments, total, the segment's offset as an int64 (plus 0), and the next segment's length."""
    s = var("s")
    body = Let((s,), seg("sd", "ids", i),
               Tuple((s, prim("sub", i, seg("sd", "offsets", s)), seg("sd", "lengths", s),
                      Length(SegVec(var("sd"), "lengths")), Length(SegVec(var("sd"), "ids"), INT64),
                      prim("add", Index(SegVec(var("sd"), "offsets", INT64), s), Length(var("sd2"), INT64)),
                      If(prim("lt", prim("add", s, const(1)), Length(SegVec(var("sd"), "offsets"))),
                         seg("sd", "lengths", prim("add", s, const(1))), const(-1)))))
    return one(Map(th(("i", INT), body), Length(SegVec(var("sd"), "ids"))),
               [("sd", SD), ("sd2", VecT(INT))], nres=7)


SEG_SHAPES = [[], [0], [0, 0, 0], [1], [3], [0, 2, 0], [0, 0, 1, 2], [2, 1, 0, 0], [5, 0, 0, 3, 0, 1, 0],
              [1] * 9, [4099, 0, 2050, 1, 0]]


@pytest.mark.parametrize("lengths", SEG_SHAPES, ids=str)
def test_map_segment_descriptor_subscripts(runners, lengths):
    check(segment_fields(), runners, SegDes(lengths), np.zeros(0, np.int32), expect_error=False)


def test_map_segment_descriptor_subscripts_big(runners):
    lengths = np.full(BIG // 3, 3)
    lengths[::7] = 0
    lengths = np.concatenate([[0], lengths, [BIG - lengths.sum()], [0, 0]])
    check(segment_fields(), runners[:1], SegDes(lengths), np.zeros(0, np.int32), expect_error=False)


def if_let():
    """if/let inside a thunk: untaken branches that would fail, tuples out of an if, nested
    destructuring lets, shadowing."""
    xi = Index(var("xs"), i, L("l:1:1"))
    pair = var("p")
    body = Let((x,), xi, Let((pair,),
               If(prim("gt", x, const(0)),
                  Tuple((prim("div", const(100), x, loc=L("l:2:1")), Tuple((x, const(True))))),
                  Tuple((const(-1), Tuple((prim("neg", x), const(False)))))),
               Let((var("a"), var("b")), pair,
                   Let((var("c"), var("d")), var("b"),
                       Let((x,), prim("add", var("a"), var("c")),          # shadows x
                           Tuple((x, var("d"),
                                  # reads xs[i + 1] only where it exists
                                  If(prim("lt", prim("add", i, const(1)), Length(var("xs"))),
                                     Index(var("xs"), prim("add", i, const(1)), L("l:3:1")), const(0)),
                                  # division guarded by the condition
                                  If(prim("eq", var("c"), const(0)), const(0),
                                     prim("rem", const(7), var("c"), loc=L("l:4:1"))),
                                  # if inside the condition of an if
                                  If(If(var("d"), prim("gt", var("c"), const(3)), const(False)),
                                     const("y"), const("n")))))))))
    return one(Map(th(("i", INT), body), length("xs")), [("xs", IV)], nres=5)


@FEW
@given(st.lists(st.integers(-10, 10), max_size=30))
def test_map_if_let(runners, xs):
    check(if_let(), runners, np.asarray(xs, np.int32), expect_error=False)


@pytest.mark.parametrize("n", ODD_SIZES)
def test_map_if_let_sizes(runners, n):
    check(if_let(), runners, (np.arange(n) % 21 - 10).astype(np.int32), expect_error=False)


def test_map_sizes_of_every_form(runners):
    """Sizes: a constant, an int and an int64 parameter, #xs as an int64, #seg_lengths(sd), and a
    scalar computed on the device by an earlier SOAC of the same kernel."""
    idx = th(("i", INT), prim("mul", i, i))
    idx64 = th(("j", INT64), prim("add", var("j"), prim("to_int", var("m"), ty=INT64)))
    k = kernel("K", [("xs", IV), ("m", INT), ("m64", INT64), ("sd", SD)], [
        ("a", Map(idx, const(5))),
        ("b", Map(idx, var("m"))),
        ("c", Map(idx64, var("m64"))),
        ("d", Map(idx64, Length(var("xs"), INT64))),
        ("e", Map(idx, Length(SegVec(var("sd"), "lengths")))),
        ("cnt", Reduce(th(("i", INT), prim("btoi", prim("gt", Index(var("xs"), i), const(0)))),
                       (const(0),), op2("add", INT), length("xs"))),
        ("f", Map(th(("i", INT), prim("add", i, var("cnt"))), var("cnt"))),
    ], ["a", "b", "c", "d", "e", "cnt", "f"])
    from lambda_cu.ir import Program
    prog = Program((k,))
    check(prog, runners, np.asarray([3, -1, 4, 0, 5, 9], np.int32), 4, np.int64(3), SegDes([1, 0, 2]),
          expect_error=False)
    check(prog, runners, np.zeros(0, np.int32), 0, np.int64(0), SegDes([]), expect_error=False)


def test_map_scalar_parameters_of_every_type(runners):
    """Host scalars of every type (and a tuple) reach the thunk as kernel arguments."""
    tt = TupleT((INT, TupleT((FLOAT, CHAR))))
    body = Tuple((prim("add", i, var("a")), prim("to_int", var("b"), ty=INT64), prim("mul", var("c"), const(2.0)),
                  prim("select", var("d"), var("e"), const("?")),
                  prim("add", Proj(var("t"), 0), i), Proj(Proj(var("t"), 1), 0), Proj(Proj(var("t"), 1), 1),
                  prim("not", var("d"))))
    k = kernel("K", [("n", INT), ("a", INT), ("b", INT64), ("c", FLOAT), ("d", BOOL), ("e", CHAR), ("t", tt)],
               [(["r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7"], Map(th(("i", INT), body), var("n")))],
               ["r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "a", "t"])
    from lambda_cu.ir import Program
    prog = Program((k,))
    for d in (True, False):
        check(prog, runners, 3, -2**31, np.int64(-2**63), -0.0, d, "x", (7, (float("nan"), "q")), expect_error=False)


def test_map_chain_in_one_kernel(runners):
    """A MAP reads the vectors of an earlier MAP of the same kernel; bool and char vectors."""
    k = kernel("K", [("xs", VecT(CHAR))], [
        (["up", "isdigit"], Map(th(("i", INT), Let((x,), Index(var("xs"), i),
                                                   Tuple((If(prim("and", prim("ge", x, const("a")), prim("le", x, const("z"))),
                                                             prim("code_char", prim("sub", prim("char_code", x), const(32))), x),
                                                          prim("and", prim("ge", x, const("0")), prim("le", x, const("9"))))))),
                                length("xs"))),
        ("n", Map(th(("i", INT), If(Index(var("isdigit"), i), prim("sub", prim("char_code", Index(var("up"), i)),
                                                                         const(48)), const(-1))),
                  length("up"))),
    ], ["up", "isdigit", "n"])
    from lambda_cu.ir import Program
    prog = Program((k,))
    for s in ("", "a", "Hello, World 2024!", "z" * 4097):
        check(prog, runners, s, expect_error=False)
