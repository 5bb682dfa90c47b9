"""The shape of an argument is checked against its parameter's type (issue 11): a
multi-dimensional array has one dimension per array level, of the type's lengths (vector
elements: then the width); a flat array is read row-major.  A (2, 8) file for [[float]M]N with
M=2, N=8 (8 rows of 2) and a 2-D file for a 1-D parameter are errors naming the parameter and
both shapes."""
import numpy as np
import pytest

from lift_backend import LiftArgumentError, compile_program, parse
from lift_backend.cli import main

ADD = "userfun add(a: float, b: float): float { return a + b; }\n"
ROWS = ADD + "program p(x: [[float]M]N) = join o mapGlb(0)(toGlobal(mapSeq(id)) o reduceSeq(add, 0.0f)) $ x"


def test_transposed_file_is_refused(tmp_path, capsys):
    f = tmp_path / "e.lift"
    f.write_text(ROWS)
    np.save(tmp_path / "m.npy", np.arange(16, dtype=np.float32).reshape(2, 8))
    rc = main(["run", str(f), "--arg", f"x={tmp_path / 'm.npy'}", "--size", "M=2,N=8", "--global", "2",
               "--out", str(tmp_path / "o.npy")])
    _, err = capsys.readouterr()
    assert rc == 1
    assert err.strip() == (f"error: {tmp_path / 'm.npy'}: argument x: the shape (2, 8) does not fit the type "
                           "[[float]2]8: expected the shape (8, 2) (with M=2, N=8) or a flat array of its elements")


@pytest.mark.opencl
def test_shapes(runtime):
    k = compile_program(parse(ROWS).program("p"))
    m = np.arange(16, dtype=np.float32).reshape(2, 8)
    # the sizes from the shape: 2 rows of 8
    np.testing.assert_array_equal(runtime.run(k, {"x": m}, global_size=2), m.sum(1))
    # flat, with the sizes given
    np.testing.assert_array_equal(runtime.run(k, {"x": m.reshape(-1)}, sizes={"M": 8, "N": 2}, global_size=2),
                                  m.sum(1))
    with pytest.raises(LiftArgumentError) as ei:
        runtime.run(k, {"x": m}, sizes={"M": 2, "N": 8}, global_size=2)
    assert ei.value.param == "x" and "expected the shape (8, 2)" in ei.value.message
    one = compile_program(parse("program p(x: [float]N) = mapGlb(0)(id) $ x").program("p"))
    with pytest.raises(LiftArgumentError) as ei:
        runtime.run(one, {"x": m}, global_size=2)
    assert ei.value.message == ("argument x: the shape (2, 8) does not fit the type [float]N: "
                                "expected the shape (16,) (with N=16)")
    vec = compile_program(parse("program p(x: [float4]N) = asScalar o mapGlb(0)(mapVec(id)) $ x").program("p"))
    v = np.arange(16, dtype=np.float32)
    np.testing.assert_array_equal(runtime.run(vec, {"x": v.reshape(4, 4)}, global_size=2), v)
    with pytest.raises(LiftArgumentError):
        runtime.run(vec, {"x": v.reshape(2, 8)}, sizes={"N": 4}, global_size=2)
