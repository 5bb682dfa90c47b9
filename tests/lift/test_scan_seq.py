"""``scanSeq(f, init)``: the exclusive scan -- the accumulator of ``reduceSeq(f, init)`` before
each element, ``[init, f(init, x0), f(f(init, x0), x1), ...]`` -- written to global, local or
private memory, with scalar and tuple accumulators and over the rows of position-dependent
arrays (the OpenCL lowering's balanced chunks)."""
import numpy as np
import pytest

from lift_backend import compile_program, parse
from lift_backend.errors import LiftError
from lift_backend.syntax import file_text

SRC = r"""
userfun add(a: float, b: float): float { return a + b; }
userfun imax(a: int, b: int): int { return a > b ? a : b; }
userfun sc(acc: (float, int), x: float): (float, int) { Tuple_float_int r = {acc._0 + x, acc._1 + (x > 0.0f)}; return r; }
program glb(x: [float]N) = join o mapGlb(0)(toGlobal(scanSeq(add, 0.0f))) o split(4) $ x
program prv(x: [float]N) = join o mapGlb(0)(toGlobal(mapSeq(id)) o toPrivate(scanSeq(add, 0.0f))) o split(4) $ x
program lcl(x: [float]N) = join o mapWrg(0)(toGlobal(mapLcl(0)(id)) o toLocal(mapLcl(0)(id)) o join o
  mapLcl(0)(toLocal(scanSeq(add, 1.0f))) o split(4)) o split(16) $ x
program mx(x: [int]N) = join o mapGlb(0)(toGlobal(scanSeq(imax, -2147483648))) o split(8) $ x
userfun zero(): (float, int) { Tuple_float_int r = {0.0f, 0}; return r; }
program tup(x: [float]N) = join o mapGlb(0)(toGlobal(scanSeq(sc, toPrivate(zero)()))) o split(4) $ x
program rows(x: [float]N) = join o mapGlb(0)(toGlobal(scanSeq(add, 0.0f)))
  o partition(P, \c -> (c + 1) * N / P - c * N / P) $ x
"""


def lf():
    return parse(SRC, "scan.lift")


def exclusive(rows, op, init):
    out = []
    for r in rows:
        acc = init
        for v in r:
            out.append(acc)
            acc = op(acc, v)
    return out


def test_types_and_printing():
    f = lf()
    text = file_text([f.program("glb")])
    assert "scanSeq(add, 0.0f)" in text
    assert file_text([parse(text).program("glb")]) == text
    k = compile_program(f.program("glb"))
    assert "out[4 * gl_id + i] = acc" in k.source      # written before the element is folded in


def test_the_function_must_fit_the_accumulator():
    with pytest.raises(LiftError, match="scanSeq: the function returns int but the accumulator has type float"):
        compile_program(parse("userfun f(a: float, b: float): int { return 1; }\n"
                              "program p(x: [float]N) = mapGlb(0)(toGlobal(scanSeq(f, 0.0f))) o split(2) $ x\n")
                        .program("p"))


@pytest.mark.opencl
@pytest.mark.parametrize("prog", ["glb", "prv"])
@pytest.mark.parametrize("n", [4, 64, 2 ** 20 + 4])
def test_float_sums(runtime, prog, n):
    x = (np.arange(n) % 7 - 3).astype(np.float32)
    out = runtime.run(compile_program(lf().program(prog)), {"x": x}, global_size=min(n // 4, 4096))
    want = np.concatenate([np.concatenate([[0], np.cumsum(r)[:-1]]) for r in x.reshape(-1, 4)])
    np.testing.assert_array_equal(out, want.astype(np.float32))


@pytest.mark.opencl
def test_local_memory(runtime):
    x = np.arange(32, dtype=np.float32)
    out = runtime.run(compile_program(lf().program("lcl"), local_size=4), {"x": x}, global_size=8, local_size=4)
    np.testing.assert_array_equal(out, exclusive(x.reshape(-1, 4), lambda a, b: a + b, 1.0))


@pytest.mark.opencl
def test_int_max_and_tuple_accumulators(runtime):
    x = np.array([5, -3, 9, 2, 2, 11, -40, 7] * 3, np.int32)
    out = runtime.run(compile_program(lf().program("mx")), {"x": x}, global_size=3)
    np.testing.assert_array_equal(out, exclusive(x.reshape(-1, 8), max, -2**31))
    f = np.array([1.5, -2, 0, 3, -1, 4, 4, -0.5], np.float32)
    out = runtime.run(compile_program(lf().program("tup")), {"x": f}, global_size=2)
    want = exclusive(f.reshape(-1, 4), lambda a, v: (a[0] + v, a[1] + int(v > 0)), (0.0, 0))
    np.testing.assert_array_equal(out["_0"], [w[0] for w in want])
    np.testing.assert_array_equal(out["_1"], [w[1] for w in want])


@pytest.mark.opencl
@pytest.mark.parametrize("n,p", [(10, 3), (7, 7), (1000, 64), (2 ** 20 + 1, 48)])
def test_over_balanced_chunks(runtime, n, p):
    x = (np.arange(n) % 5).astype(np.float32)
    out = runtime.run(compile_program(lf().program("rows")), {"x": x}, sizes={"P": p}, global_size=p)
    b = [c * n // p for c in range(p + 1)]
    np.testing.assert_array_equal(out, exclusive([x[s:e] for s, e in zip(b, b[1:])], lambda a, v: a + v,
                                                 np.float32(0)))


SEGS = ("userfun add(a: float, b: float): float { return a + b; }\n"
        "program segs(x: [float]NNZ, offs: [int]M) =\n"
        "  join o mapGlb(0)(toGlobal(scanSeq(add, 0.0f))) o splitOffsets(offs) $ x\n")


def test_joined_rows_of_split_offsets_have_the_telescoped_length():
    # the rows offs[k] .. offs[k + 1] joined: offs[M - 1] - offs[0] elements, the output's size
    k = compile_program(parse(SEGS).program("segs"))
    out = next(p for p in k.params if p.kind == "output")
    from lift_backend.arith import to_text
    assert to_text(out.size) == "offs[M - 1] - offs[0]"
    assert "out[i + offs[gl_id] - offs[0]] = acc" in k.source


@pytest.mark.opencl
@pytest.mark.parametrize("offs", [[0, 3, 3, 7, 10], [2, 3, 3, 7, 9], [0, 0, 4, 10, 10], [5], [0, 10],
                                  [4, 4, 4]])
def test_over_split_offsets_sized_by_the_offsets(runtime, offs):
    # the host sizes the output from the offsets it is given (a size that reads an input)
    x = (np.arange(10) % 4 + 1).astype(np.float32)
    o = np.array(offs, np.int32)
    out = runtime.run(compile_program(parse(SEGS).program("segs")), {"x": x, "offs": o},
                      global_size=max(len(offs) - 1, 1))
    want = exclusive([x[s:e] for s, e in zip(offs, offs[1:])], lambda a, v: a + v, np.float32(0))
    assert out.shape == (offs[-1] - offs[0],)
    np.testing.assert_array_equal(out, np.array(want, np.float32))


@pytest.mark.opencl
def test_over_split_offsets_from_the_command_line(capsys, tmp_path):
    from lift_backend.cli import main
    f = tmp_path / "segs.lift"
    f.write_text(SEGS)
    np.save(tmp_path / "x.npy", np.arange(1, 9, dtype=np.float32))
    np.save(tmp_path / "offs.npy", np.array([1, 1, 4, 8], np.int32))
    rc = main(["run", str(f), "--arg", f"x={tmp_path / 'x.npy'}", "--arg", f"offs={tmp_path / 'offs.npy'}",
               "--global", "3", "--out", str(tmp_path / "o.npy")])
    assert rc == 0, capsys.readouterr().err
    np.testing.assert_array_equal(np.load(tmp_path / "o.npy"), [0, 2, 5, 0, 5, 11, 18])
