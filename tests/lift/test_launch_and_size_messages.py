"""Messages found unclear by a hunt of Lift programs (issue 11): each names its cause and place.

* a local size beyond the device's work-group limits names the limit (was the driver's
  ``INVALID_WORK_GROUP_SIZE``);
* a size the arguments' shapes do not determine says how to give it, located at the program
  (was ``unknown size(s) K: give them explicitly`` without a location);
* a size that makes a divisor of an index function zero is located at the pattern (was the
  program's first column);
* a divisor the compiler cannot show non-zero is shown with the user's index variable (was an
  internal ``k``)."""
import numpy as np
import pytest

from lift_backend import LiftError, compile_program, parse
from lift_backend.cli import main


@pytest.mark.opencl
def test_local_size_beyond_the_device(runtime):
    k = compile_program(parse("program p(x: [float]N) = mapGlb(0)(id) $ x", "l.lift").program("p"))
    most = int(runtime.device.max_work_group_size)
    n = 2 * most
    x = np.arange(n, dtype=np.float32)
    with pytest.raises(LiftError, match=rf"the local size \({n},\) is beyond the device: its work-groups "
                                        rf"hold at most \d+ work-items"):
        runtime.run(k, {"x": x}, global_size=n, local_size=n)
    np.testing.assert_array_equal(runtime.run(k, {"x": x}, global_size=n, local_size=1), x)


@pytest.mark.opencl
def test_undetermined_size_is_located_and_says_how(tmp_path, capsys):
    f = tmp_path / "s.lift"
    f.write_text("program p(x: [float]N) = join o mapGlb(0)(mapSeq(id)) o split(K) $ x\n")
    x = tmp_path / "x.npy"
    np.save(x, np.arange(16, dtype=np.float32))
    out = tmp_path / "o.npy"
    assert main(["run", str(f), "--arg", f"x={x}", "--global", "4", "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"{f}:1:1: error: the size(s) K of program p are not determined by the "
                          f"arguments' shapes: give them (on the command line --size K=VALUE"), err
    assert main(["run", str(f), "--size", "K=4", "--arg", f"x={x}", "--global", "4", "--out", str(out)]) == 0
    np.testing.assert_array_equal(np.load(out), np.arange(16, dtype=np.float32))


@pytest.mark.parametrize("body,sizes,col,what", [
    ("mapGlb(0)(id) o gather(\\i -> i % (N - 16)) $ x", {"N": 16}, 42,
     "division by zero in a size or index expression of this pattern (with N=16)"),
    ("mapGlb(0)(id) o gather(\\j -> (j + 1) % j) $ x", None, 42,
     "gather: cannot show that the divisor j is not zero"),
])
def test_divisors_are_located_and_named(body, sizes, col, what):
    lf = parse(f"program p(x: [float]N) = {body}", "d.lift")
    with pytest.raises(LiftError) as ei:
        compile_program(lf.program("p"), sizes=sizes)
    assert str(ei.value).startswith(f"d.lift:1:{col}: error: {what}"), str(ei.value)


@pytest.mark.opencl
def test_run_infers_private_memory_sizes_from_the_arguments(tmp_path, capsys):
    # a row copied to private memory needs its length at compile time: `run` takes it from the
    # argument's shape, as the launch does (it asked for --size K before)
    f = tmp_path / "mv.lift"
    f.write_text("userfun madd(acc: float, p: (float, float)): float { return acc + p._0 * p._1; }\n"
                 "program mv(a: [[float]K]M, v: [float]K) = mapGlb(0)(\\row -> toGlobal(mapSeq(id)) o "
                 "reduceSeq(madd, 0.0f) $ zip(toPrivate(mapSeq(id)) $ row, v)) $ a\n")
    a, v, out = tmp_path / "a.npy", tmp_path / "v.npy", tmp_path / "o.npy"
    A = np.arange(12, dtype=np.float32).reshape(3, 4)
    np.save(a, A)
    np.save(v, np.ones(4, dtype=np.float32))
    assert main(["run", str(f), "--arg", f"a={a}", "--arg", f"v={v}", "--global", "3", "--out", str(out)]) == 0, \
        capsys.readouterr().err
    np.testing.assert_array_equal(np.load(out).reshape(-1), A.sum(1))
    # without arguments that give K, the message stays
    assert main(["compile", str(f)]) == 1
    assert "private memory needs a size known at compile time" in capsys.readouterr().err
