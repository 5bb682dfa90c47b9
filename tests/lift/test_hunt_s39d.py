"""Round 4 of the session-39 hunt: the accumulator of ``reduceSeq``/``scanSeq`` whose user
function takes a ``long``, ``uint``, ``char`` or ``double`` accumulator may be given as an
``int`` (or ``float``) literal, as ``pad``'s boundary value may: the language has no literals
of those types, so such a reduction could only be written with a user function returning 0."""
import numpy as np
import pytest

from lift_backend import LiftError, compile_program, parse

UF = r"""
userfun addl(a: long, b: long): long { return a + b; }
userfun addu(a: uint, b: uint): uint { return a + b; }
userfun addc(a: char, b: char): char { return a + b; }
userfun addd(a: double, b: double): double { return a + b; }
userfun cnt(a: int, b: long): int { return a + 1; }
"""


def prog(body: str, t: str):
    return parse(f"{UF}program p(x: [{t}]N) = {body}", "t.lift").program("p")


@pytest.mark.parametrize("t, f, init, dtype, x", [
    ("long", "addl", "5", np.int64, [2**40, 1, 2**62, 3]),
    ("uint", "addu", "2147483647", np.uint32, [2**31, 2, 3, 2**32 - 1]),
    ("char", "addc", "-128", np.int8, [100, 27, 3, -4]),
    ("double", "addd", "0.5f", np.float64, [0.1, 0.2, 0.3, 0.4]),
])
def test_a_literal_accumulator_takes_the_user_functions_type(runtime, t, f, init, dtype, x):
    x = np.array(x, dtype)
    two = dtype(int(init) if t != "double" else 0.5)
    with np.errstate(over="ignore"):
        red = runtime.run(compile_program(prog(
            f"join o mapGlb(0)(toGlobal(mapSeq(id)) o reduceSeq({f}, {init})) o split(2) $ x", t)),
            {"x": x}, global_size=2)
        want = np.array([two + x[0] + x[1], two + x[2] + x[3]], dtype)
        assert red.dtype == dtype
        np.testing.assert_array_equal(red, want)
        scan = runtime.run(compile_program(prog(
            f"join o mapGlb(0)(toGlobal(scanSeq({f}, {init}))) o split(4) $ x", t)),
            {"x": x}, global_size=1)
        want = np.array([two, two + x[0], two + x[0] + x[1], two + x[0] + x[1] + x[2]], dtype)
    assert scan.dtype == dtype
    np.testing.assert_array_equal(scan, want)
    k = compile_program(prog(f"join o mapGlb(0)(toGlobal(mapSeq(id)) o reduceSeq({f}, {init})) o split(2) $ x", t))
    assert f"{t} acc1 = {init};" in k.source, k.source


def test_a_literal_out_of_the_accumulators_range_is_still_refused():
    with pytest.raises(LiftError, match="user function addc: argument 1 has type int, expected char"):
        compile_program(prog("join o mapGlb(0)(toGlobal(mapSeq(id)) o reduceSeq(addc, 300)) o split(2) $ x", "char"))
    with pytest.raises(LiftError, match="user function addu: argument 1 has type int, expected uint"):
        compile_program(prog("join o mapGlb(0)(toGlobal(mapSeq(id)) o reduceSeq(addu, -1)) o split(2) $ x", "uint"))


def test_an_int_accumulator_over_long_elements_stays_int(runtime):
    # the literal follows the user function's accumulator, not the elements
    out = runtime.run(compile_program(prog(
        "join o mapGlb(0)(toGlobal(mapSeq(id)) o reduceSeq(cnt, 0)) o split(2) $ x", "long")),
        {"x": np.array([2**40, 1, 2, 3], np.int64)}, global_size=2)
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out, [2, 2])


EDGE = r"""
userfun idl(a: long): long { return a; }
userfun idb(a: bool): bool { return a; }
userfun pos(x: long): bool { return x > 0; }
program sl(x: [long]N, ix: [long]N) = scatterIdx(ix, mapGlb(0)(toGlobal(idl)) $ x)
program sb(x: [bool]N, ix: [int]N) = permuteIdx(ix, mapGlb(0)(toGlobal(idb)) $ x)
program fl(x: [long]N) = toGlobal(filterSeq(pos, id))(x, generate(K))
program gb(ix: [int]K, v: [bool]N) = mapGlb(0)(toGlobal(idb)) $ gatherIdx(ix, v)
"""


def test_long_and_bool_elements_through_the_index_patterns(runtime):
    f = parse(EDGE, "e.lift")
    run = lambda name, args, **kw: runtime.run(compile_program(f.program(name)), args, **kw)
    x = np.array([2**40, -2**62, 3], np.int64)
    np.testing.assert_array_equal(run("sl", {"x": x, "ix": np.array([2, 0, 1], np.int64)}, global_size=3),
                                  [-2**62, 3, 2**40])
    with pytest.raises(LiftError, match="index out of bounds in scatterIdx"):
        run("sl", {"x": x, "ix": np.array([-2**40, 0, 1], np.int64)}, global_size=3)
    out = run("sb", {"x": np.array([True, False, True]), "ix": np.array([2, 0, 1], np.int32)}, global_size=3)
    assert out.dtype == np.bool_ and out.tolist() == [False, True, True]
    with pytest.raises(LiftError, match="permuteIdx: position 2 is written twice"):
        run("sb", {"x": np.array([True, False, True]), "ix": np.array([2, 2, 1], np.int32)}, global_size=3)
    xs = np.array([5, -1, 2**40, 0], np.int64)
    np.testing.assert_array_equal(run("fl", {"x": xs}, sizes={"K": 3}, global_size=1), [5, 2**40, 0])
    np.testing.assert_array_equal(run("fl", {"x": -xs}, sizes={"K": 1}, global_size=1), [1])
    out = run("gb", {"ix": np.array([2, 0, 2], np.int32), "v": np.array([True, False, False])}, global_size=3)
    assert out.tolist() == [False, True, False]
    with pytest.raises(LiftError, match=r"index out of bounds in gatherIdx \(index -1, length 3\)"):
        run("gb", {"ix": np.array([-1, 0, 2], np.int32), "v": np.array([True, False, False])}, global_size=3)
