"""Lift ``bool`` values are 0 or 1 (issue 11, found by a hunt of paper-style Lift programs).

Before, a ``bool`` was ``uchar`` in the user functions' C: ``userfun tb(a: int): bool { return
a; }`` kept the low byte (256 became false, 2 stayed 2, so ``c == true`` failed), a
``failIf`` whose condition came from such a function was skipped silently, and ``bool`` inputs
took any byte.  Now a user function's ``bool`` parameters and result are C's ``bool``, a tuple
result's ``bool`` components are made 0 or 1 after the user's C built it, and ``bool`` arguments
other than 0 and 1 (or a numpy bool array) are refused before the launch."""
import numpy as np
import pytest

from lift_backend import LiftError, compile_program, parse
from lift_backend.cli import main

SRC = """userfun tb(a: int): bool { return a; }
userfun bi(a: bool): int { return a; }
userfun plus(a: bool, b: bool): bool { return a + b; }
userfun istrue(c: bool): int { return c == true ? 7 : 3; }
userfun tp(a: int): (bool, int) { return (Tuple_uchar_int){a % 3, a}; }
userfun fst(p: (bool, int)): int { return p._0 + 10 * p._1; }
userfun inc(k: int): int { return k + 1; }
program toBool(x: [int]N) = mapGlb(0)(tb) $ x
program roundTrip(x: [int]N) = mapGlb(0)(\\a -> bi(tb(a))) $ x
program sumTrue(x: [int]N) = mapGlb(0)(\\a -> istrue(plus(tb(a), tb(a)))) $ x
program tuples(x: [int]N) = mapGlb(0)(\\a -> fst(tp(a))) $ x
program checked(x: [int]N) = mapGlb(0)(\\k -> id(failIf(tb(k), inc(k)))) $ x
program fromBool(x: [bool]N) = mapGlb(0)(bi) $ x
program pick(x: [int]N, c: bool) = mapGlb(0)(\\a -> istrue(c)) $ x
"""

X = np.array([0, 1, 2, 256, -1, 512], dtype=np.int32)


def prog(name):
    return compile_program(parse(SRC, "b.lift").program(name))


@pytest.mark.opencl
def test_user_function_bools_are_0_or_1(runtime):
    truth = (X != 0)
    np.testing.assert_array_equal(runtime.run(prog("toBool"), {"x": X}, global_size=6), truth)
    np.testing.assert_array_equal(runtime.run(prog("roundTrip"), {"x": X}, global_size=6), truth.astype(np.int32))
    # true + true is true, and compares equal to true
    np.testing.assert_array_equal(runtime.run(prog("sumTrue"), {"x": X}, global_size=6),
                                  np.where(truth, 7, 3).astype(np.int32))
    # a tuple's bool component built from an int (the user's C stores it in a uchar first)
    want = ((X % 3) != 0).astype(np.int32) + 10 * X      # C's % of these: no negative remainder
    want[4] = 1 + 10 * -1                                 # -1 % 3 is -1 in C: true
    np.testing.assert_array_equal(runtime.run(prog("tuples"), {"x": X}, global_size=6), want)


@pytest.mark.opencl
def test_failif_on_a_computed_bool_fires(runtime):
    ok = np.zeros(4, dtype=np.int32)
    np.testing.assert_array_equal(runtime.run(prog("checked"), {"x": ok}, global_size=4), ok + 1)
    for bad in ([0, 256, 512, 0], [0, 0, 0, 2]):
        with pytest.raises(LiftError, match="failIf"):
            runtime.run(prog("checked"), {"x": np.array(bad, dtype=np.int32)}, global_size=4)


@pytest.mark.opencl
def test_bool_arguments_are_0_or_1(runtime):
    want = np.array([0, 1, 1, 0], dtype=np.int32)
    for good in (np.array([False, True, True, False]), np.array([0, 1, 1, 0], dtype=np.uint8),
                 np.array([0, 1, 1, 0], dtype=np.int64)):
        np.testing.assert_array_equal(runtime.run(prog("fromBool"), {"x": good}, global_size=4), want)
    for bad, what in ((np.array([0, 1, 2, 255], dtype=np.uint8), "the value 2 is not a bool"),
                      (np.array([0, -1, 1, 0], dtype=np.int32), "the value -1 is not a bool"),
                      (np.array([0.0, 1.0, 1.0, 0.0], dtype=np.float32), "floating-point values")):
        with pytest.raises(LiftError, match=what):
            runtime.run(prog("fromBool"), {"x": bad}, global_size=4)
    x = np.zeros(4, dtype=np.int32)
    np.testing.assert_array_equal(runtime.run(prog("pick"), {"x": x, "c": 1}, global_size=4), x + 7)
    np.testing.assert_array_equal(runtime.run(prog("pick"), {"x": x, "c": np.bool_(False)}, global_size=4), x + 3)
    with pytest.raises(LiftError, match="the value 2 is not a bool"):
        runtime.run(prog("pick"), {"x": x, "c": 2}, global_size=4)


def test_cli_refuses_a_bool_scalar_beyond_0_and_1(tmp_path, capsys):
    f = tmp_path / "b.lift"
    f.write_text(SRC)
    x = tmp_path / "x.npy"
    np.save(x, np.zeros(4, dtype=np.int32))
    out = tmp_path / "o.npy"
    assert main(["run", str(f), "--program", "pick", "--arg", f"x={x}", "--arg", "c=255",
                 "--global", "4", "--out", str(out)]) == 1
    assert "error: --arg c: the value 255 is not a bool (0 or 1)" in capsys.readouterr().err
    assert not out.exists()


@pytest.mark.parametrize("size,what", [(8, "the parameter x would have 0 elements"),
                                       (5, "the parameter x would have -3 elements")])
def test_parameter_lengths_below_one_are_refused(size, what):
    lf = parse("program p(x: [float](N - 8)) = mapGlb(0)(id) $ x", "e.lift")
    with pytest.raises(LiftError) as ei:
        compile_program(lf.program("p"), sizes={"N": size})
    assert what in str(ei.value) and "arrays have at least one element" in str(ei.value)
