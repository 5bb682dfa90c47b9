"""``scatterMaxIdx(M)(idx, ks)`` and ``scatterLastIdx(idx, win, xs)``: a last-writer scatter as two
Lift programs.  The claim writes each element's number ``k`` at ``idx[k]`` with ``atomic_max``
(the host fills the result with -1 first), so ``win[j]`` is the last element aiming at ``j``; the
conditional write stores element ``k`` at ``idx[k]`` only where ``win[idx[k]] == k``.  Both check
each index against the destination's length ``M``."""
import numpy as np
import pytest

from lift_backend import LiftError, LiftRuntimeError, compile_program, parse
from lift_backend.ir import patterns as P
from lift_backend.syntax import file_text

SRC = """userfun id_i(a: int): int {{ return a; }}
userfun f(a: float): float {{ return a * 2.0f; }}
program claim(ix: [{t}]N) = scatterMaxIdx(M)(ix, mapGlb(0)(toGlobal(id_i)) $ generate(N))
program write(x: [float]N, ix: [{t}]N, win: [int]M) = scatterLastIdx(ix, win, mapGlb(0)(toGlobal(f)) $ x)
"""


def progs(t="int"):
    m = parse(SRC.format(t=t), "t.lift")
    return m.program("claim"), m.program("write")


def last_writer(ix, m):
    win = np.full(m, -1, np.int64)
    for k, j in enumerate(ix):
        win[j] = k
    return win


def run_both(runtime, x, ix, m, t="int"):
    c, w = progs(t)
    win = runtime.run(compile_program(c), {"ix": ix}, sizes={"M": m}, global_size=4)
    out = runtime.run(compile_program(w), {"x": x, "ix": ix, "win": win.astype(np.int32)}, global_size=4)
    return win, out


def test_parse_print_roundtrip():
    c, w = progs()
    assert c.body.f == P.ScatterIdx(mode="max", length=c.body.f.length) and c.body.f.name == "scatterMaxIdx"
    assert w.body.f.mode == "last" and w.body.f.arity == 3
    text = file_text([c, w])
    assert "scatterMaxIdx(M)(ix, " in text and "scatterLastIdx(ix, win, " in text
    again = parse(text, "u.lift")
    assert file_text([again.program("claim"), again.program("write")]) == text


def test_code():
    c, w = progs()
    kc, kw = compile_program(c), compile_program(w)
    assert "atomic_max(&out[lift_check(ix[" in kc.source
    out = next(p for p in kc.params if p.kind == "output")
    assert out.fill == -1 and str(out.size) == "M"
    assert "== gl_id ?" in kw.source and "if (pos" in kw.source
    # the positions no element wins are zero (the host zeroes the result first)
    assert next(p for p in kw.params if p.kind == "output").fill == 0


def test_builders():
    from lift_backend import arith as A
    from lift_backend.ir.builders import mapGlb, program, scatterLastIdx, scatterMaxIdx, toGlobal, userfun
    from lift_backend.ir.expr import FunCall
    from lift_backend.types import ArrayType, ScalarType
    N, M = A.size_var("N"), A.size_var("M")
    I = ScalarType("int")
    idf = userfun("g", [("a", I)], I, "return a;")
    pc = program("c", [("ix", ArrayType(I, N))],
                 lambda ix: scatterMaxIdx(M, ix, mapGlb(toGlobal(idf))(FunCall(P.Generate(N), ())), code=5))
    k = compile_program(pc, error_base=True)
    assert "lift_errbase + 5" in k.source
    pw = program("w", [("x", ArrayType(I, N)), ("ix", ArrayType(I, N)), ("win", ArrayType(I, M))],
                 lambda x, ix, win: scatterLastIdx(ix, win, mapGlb(toGlobal(idf))(x), code=5))
    assert "lift_errbase + 5" in compile_program(pw, error_base=True).source


def test_types_refused():
    with pytest.raises(LiftError, match="claims are ints"):
        compile_program(parse("program p(x: [float]N, ix: [int]N) = scatterMaxIdx(M)(ix, mapGlb(0)(toGlobal(id)) $ x)",
                              "t.lift").program("p"))
    with pytest.raises(LiftError, match="claims array"):
        compile_program(parse("program p(x: [float]N, ix: [int]N, w: [float]M) = "
                              "scatterLastIdx(ix, w, mapGlb(0)(toGlobal(id)) $ x)", "t.lift").program("p"))


@pytest.mark.opencl
@pytest.mark.parametrize("n,m", [(1, 1), (1, 3), (2, 1), (7, 3), (257, 100), (1000, 1001), (1001, 17)])
@pytest.mark.parametrize("t", ["int", "long"])
def test_last_writer_wins(runtime, n, m, t):
    rng = np.random.default_rng(n * 31 + m)
    x = rng.random(n).astype(np.float32)
    ix = rng.integers(0, m, n).astype(np.int32 if t == "int" else np.int64)
    win, out = run_both(runtime, x, ix, m, t)
    want = last_writer(ix, m)
    np.testing.assert_array_equal(win, want)
    hit = want >= 0
    np.testing.assert_array_equal(out[hit], (x * 2)[want[hit]])
    assert not out[~hit].any()


@pytest.mark.opencl
def test_duplicates_all_one_position(runtime):
    n = 513
    x = np.arange(n, dtype=np.float32)
    ix = np.full(n, 2, np.int32)
    win, out = run_both(runtime, x, ix, 4)
    assert list(win) == [-1, -1, n - 1, -1]
    assert out[2] == 2 * (n - 1)


@pytest.mark.opencl
@pytest.mark.parametrize("bad", [-1, 5, 2 ** 31 - 1])
@pytest.mark.parametrize("prog", ["claim", "write"])
def test_out_of_range_reported(runtime, bad, prog):
    ix = np.array([0, 1, bad, 2], np.int32)
    c, w = progs()
    with pytest.raises(LiftRuntimeError, match=f"index out of bounds in scatter{'Max' if prog == 'claim' else 'Last'}Idx"):
        if prog == "claim":
            runtime.run(compile_program(c), {"ix": ix}, sizes={"M": 5}, global_size=4)
        else:
            runtime.run(compile_program(w), {"x": np.ones(4, np.float32), "ix": ix,
                                             "win": np.array([0, 1, 3, -1, -1], np.int32)}, global_size=4)


@pytest.mark.opencl
def test_long_index_out_of_range(runtime):
    c, _ = progs("long")
    with pytest.raises(LiftRuntimeError):
        runtime.run(compile_program(c), {"ix": np.array([0, 2 ** 32 + 1], np.int64)}, sizes={"M": 3},
                    global_size=2)


@pytest.mark.opencl
def test_cli_run(tmp_path, capsys):
    """``python -m lift_backend run`` of the claim (its result filled with -1 by the runtime, M
    given as a size) and of the conditional write fed with the claims."""
    from lift_backend.cli import main
    f = tmp_path / "scat.lift"
    f.write_text(SRC.format(t="int"))
    np.save(tmp_path / "x.npy", np.arange(5, dtype=np.float32))
    np.save(tmp_path / "ix.npy", np.array([1, 3, 1, 0, 3], np.int32))
    np.save(tmp_path / "bad.npy", np.array([1, 3, 1, 0, 6], np.int32))
    assert main(["run", str(f), "--program", "claim", "--size", "M=6", "--arg", f"ix={tmp_path / 'ix.npy'}",
                 "--global", "4", "--out", str(tmp_path / "w.npy")]) == 0
    win = np.load(tmp_path / "w.npy")
    np.testing.assert_array_equal(win, [3, 2, -1, 4, -1, -1])
    assert main(["run", str(f), "--program", "write", "--arg", f"x={tmp_path / 'x.npy'}",
                 "--arg", f"ix={tmp_path / 'ix.npy'}", "--arg", f"win={tmp_path / 'w.npy'}",
                 "--global", "4", "--out", str(tmp_path / "o.npy")]) == 0
    o = np.load(tmp_path / "o.npy")
    np.testing.assert_array_equal(o[[0, 1, 3]], [6, 4, 8])
    assert main(["run", str(f), "--program", "claim", "--size", "M=6", "--arg", f"ix={tmp_path / 'bad.npy'}",
                 "--global", "4", "--out", str(tmp_path / "w2.npy")]) == 1
    assert "index out of bounds in scatterMaxIdx (index 6, length 6)" in capsys.readouterr().err
