"""Issue 11 leftovers of the Lift hunt: a ``toLocal``/``toPrivate`` around what becomes the
program's (or a split-off kernel's) result was silently ignored (the kernel writes its result to
global memory): it is now a located error, while the same patterns on intermediate values keep
working; ``slice(k, k)`` and ``generate(0)`` gave an empty output although arrays are never empty:
they are now located errors, at compile time for constants and before the launch for sizes."""
import numpy as np
import pytest

from lift_backend import LiftError, compile_program, parse
from lift_backend.cli import main

SQ = ("userfun sq(x: float): float { return x * x; }\n"
      "userfun id1(x: float): float { return x; }\n")


def compile_text(text, name="p"):
    return compile_program(parse(text, "t.lift").program(name))


@pytest.mark.parametrize("body,col,what", [
    ("toLocal(mapGlb(0)(sq)) $ x", 26, "toLocal around what becomes the program's result"),
    ("toPrivate(mapGlb(0)(sq)) $ x", 26, "toPrivate around what becomes the program's result"),
    ("join o mapWrg(0)(toLocal(mapLcl(0)(sq))) o split(4) $ x", 33, "toLocal around"),
    ("mapGlb(0)(toPrivate(sq)) $ x", 26, "toPrivate around"),
    ("join o mapWrg(0)(mapLcl(0)(toLocal(mapSeq(sq)))) o split(4) o split(2) $ x", 33, "toLocal around"),
    ("iterate(2)(toLocal(mapGlb(0)(sq))) $ x", 26, "toLocal around"),
    # the gather splits the producer off as a kernel of its own, whose result goes through
    # global memory
    ("mapGlb(0)(toGlobal(id1)) o gather(reverse) o toLocal(mapGlb(0)(sq)) $ x", 71, "toLocal around"),
])
def test_result_in_local_or_private_memory_is_refused(body, col, what):
    with pytest.raises(LiftError) as ei:
        compile_text(SQ + "program p(x: [float]N) = " + body)
    msg = str(ei.value)
    assert what in msg and "a kernel's result is written to global memory" in msg, msg
    assert msg.startswith(f"t.lift:3:{col}: error:"), msg


@pytest.mark.opencl
@pytest.mark.parametrize("body,want", [
    # intermediate values in local or private memory, read element by element by the same map
    ("mapGlb(0)(toGlobal(id1)) o toLocal(mapGlb(0)(sq)) $ x", lambda x: x * x),
    ("join o mapWrg(0)(toGlobal(mapLcl(0)(id1)) o toLocal(mapLcl(0)(sq))) o split(4) $ x", lambda x: x * x),
    ("join o mapGlb(0)(toGlobal(mapSeq(id1)) o toPrivate(mapSeq(sq))) o split(2) $ x", lambda x: x * x),
    ("toGlobal(mapGlb(0)(sq)) $ x", lambda x: x * x),
])
def test_intermediate_spaces_still_work(runtime, body, want):
    x = np.arange(16, dtype=np.float32) - 5
    k = compile_text(SQ + "program p(x: [float]N) = " + body)
    np.testing.assert_array_equal(runtime.run(k, {"x": x}, global_size=16, local_size=4), want(x))


@pytest.mark.parametrize("body,what", [
    ("mapGlb(0)(id1) o slice(3, 3) $ x", "t.lift:3:43: error: slice: the end 3 is not after the start 3"),
    ("mapGlb(0)(id1) o slice(5, 3) $ x", "slice: the end 3 is not after the start 5"),
    ("mapGlb(0)(id1) o slice(N, N) $ x", "slice: the end N is not after the start N"),
    ("mapGlb(0)(\\i -> id1(i)) $ generate(0)", "generate(0): the length must be at least 1"),
])
def test_empty_arrays_are_refused(body, what):
    src = SQ + "program p(x: [float]N) = " + body
    if "generate" in body:
        src = src.replace("id1(x: float): float", "id1(x: int): int")
    with pytest.raises(LiftError) as ei:
        compile_text(src)
    assert what in str(ei.value), str(ei.value)


@pytest.mark.opencl
def test_empty_slice_of_sizes_is_refused_before_the_launch(tmp_path, capsys):
    f = tmp_path / "s.lift"
    f.write_text(SQ + "program p(x: [float]N) = mapGlb(0)(id1) o slice(K, 3) $ x\n")
    x = tmp_path / "x.npy"
    np.save(x, np.arange(8, dtype=np.float32))
    out = tmp_path / "o.npy"
    assert main(["run", str(f), "--size", "K=3", "--arg", f"x={x}", "--global", "8", "--out", str(out)]) == 1
    err = capsys.readouterr().err
    # the sizes are known before the type check: the message shows their values
    assert "s.lift:3:43: error: slice: the end 3 is not after the start 3" in err, err
    assert not out.exists()
    assert main(["run", str(f), "--size", "K=2", "--arg", f"x={x}", "--global", "8", "--out", str(out)]) == 0
    np.testing.assert_array_equal(np.load(out), np.array([2.0], dtype=np.float32))
