"""Sizes inside iterate and sizes used only in a program's body (issue 11).

The body of an iterate is typed once over a length variable; the constraints it puts on that
length (split's divisibility, slide's and pad's bounds) are checked for the length of every
iteration, as outside iterate: a split that would make an array empty is the same
"not divisible" error, never an empty result.  A size variable that appears only in the body
(``split(K)``) is a size of the program like those of the parameter types: ``--size K=4`` sets
it, the kernel receives it."""
import numpy as np
import pytest

from lift_backend import LiftError, LiftTypeError, compile_program, parse

ADD = "userfun add(a: float, b: float): float { return a + b; }\n"


def tree(n_iter, chunk="2"):
    return ADD + ("program p(x: [float]N) =\n"
                  "  join o mapWrg(0)(toGlobal(mapLcl(0)(id)) o\n"
                  f"    iterate({n_iter})(join o mapLcl(0)(toLocal(mapSeq(id)) o reduceSeq(add, 0.0f)) o split(2)) o\n"
                  f"    toLocal(mapLcl(0)(id))) o split({chunk}) $ x")


def test_split_in_iterate_to_an_empty_array_is_an_error():
    # D_iter: 2 -> 1 -> split(2) of 1
    text = tree(2).replace("x: [float]N", "x: [float]8")
    with pytest.raises(LiftTypeError) as ei:
        compile_program(parse(text, "t.lift").program("p"))
    e = ei.value
    assert (e.span.line, e.span.col) == (4, 79)
    assert e.message == "split(2): the length 1 is not divisible by 2 (in iteration 2 of iterate)"


@pytest.mark.opencl
def test_split_in_iterate_with_a_body_size(runtime):
    prog = parse(tree(3, "K"), "t.lift").program("p")
    x = np.arange(16, dtype=np.float32)
    k = compile_program(prog, {"K": 8})
    np.testing.assert_array_equal(runtime.run(k, {"x": x}, global_size=8, local_size=8), x.reshape(2, 8).sum(1))
    with pytest.raises(LiftTypeError) as ei:
        compile_program(prog, {"K": 4})
    assert ei.value.message == "split(2): the length 1 is not divisible by 2 (in iteration 3 of iterate)"


@pytest.mark.opencl
def test_size_used_only_in_the_body(runtime, tmp_path, capsys):
    from lift_backend.cli import main
    f = tmp_path / "k.lift"
    f.write_text("program p(x: [float]N) = join o mapGlb(0)(mapSeq(id)) o split(K) $ x\n")
    np.save(tmp_path / "x.npy", np.arange(16, dtype=np.float32))
    rc = main(["run", str(f), "--size", "K=4", "--arg", f"x={tmp_path / 'x.npy'}", "--global", "4",
               "--out", str(tmp_path / "o.npy")])
    _, err = capsys.readouterr()
    assert rc == 0, err
    np.testing.assert_array_equal(np.load(tmp_path / "o.npy"), np.arange(16))
    k = compile_program(parse(f.read_text()).program("p"))
    assert "int K" in k.source and k.size_names == ("N", "K")
    with pytest.raises(LiftError) as ei:
        runtime.run(k, {"x": np.arange(16, dtype=np.float32)}, global_size=4)
    assert "the size(s) K of program p are not determined" in ei.value.message
