"""``scatterIdx(idx, xs)`` and ``permuteIdx(idx, xs)``: a scatter at indices read at run time, the
writing counterpart of ``gatherIdx`` (an output view with an index expression).  Element ``k``
of ``xs`` is written at ``idx[k]``; each index is checked against the result's length, and
``permuteIdx`` also checks that no position is written twice (a per-position counter, the
kernel's ``marks`` buffer), so that a run succeeds only for a permutation."""
import numpy as np
import pytest

from lift_backend import LiftCompileError, LiftError, LiftRuntimeError, compile_program, parse
from lift_backend.ir import patterns as P
from lift_backend.syntax import file_text

UF = "userfun f(a: float): float { return a * 2.0f; }\n"


def prog(body: str, idx: str = "int", extra: str = UF):
    return parse(f"{extra}program p(x: [float]N, ix: [{idx}]N) = {body}", "t.lift").program("p")


def run(runtime, body, x, ix, idx="int", **kw):
    k = compile_program(prog(body, idx), **kw)
    return runtime.run(k, {"x": x, "ix": ix}, global_size=kw.pop("gs", 4))


PERM = "permuteIdx(ix, mapGlb(0)(toGlobal(f)) $ x)"
SCAT = "scatterIdx(ix, mapGlb(0)(toGlobal(f)) $ x)"


def test_parse_print_roundtrip():
    p = prog(PERM)
    assert isinstance(p.body.f, P.ScatterIdx) and p.body.f.once
    text = file_text([p])
    assert "permuteIdx(ix, mapGlb(0)(toGlobal(f))" in text
    again = parse(text, "u.lift").program("p")
    assert file_text([again]) == text
    s = prog(SCAT)
    assert isinstance(s.body.f, P.ScatterIdx) and not s.body.f.once
    assert "scatterIdx(ix, " in file_text([s])


def test_builders():
    from lift_backend.ir.builders import mapGlb, permuteIdx, program, scatterIdx, toGlobal, userfun, id_
    from lift_backend.types import ArrayType, ScalarType
    from lift_backend import arith as A
    N = A.size_var("N")
    f = userfun("g", [("a", ScalarType("float"))], ScalarType("float"), "return a;")
    for b, once in ((permuteIdx, True), (scatterIdx, False)):
        pr = program("q", [("x", ArrayType(ScalarType("float"), N)), ("ix", ArrayType(ScalarType("int"), N))],
                     lambda x, ix: b(ix, mapGlb(toGlobal(f))(x), code=3))
        assert pr.body.f == P.ScatterIdx(3, once)
        k = compile_program(pr, error_base=True)
        assert "lift_errbase + 3" in k.source
        assert ("lift_marks" in k.source) == once


def test_kernel_params_and_code():
    k = compile_program(prog(PERM))
    kinds = [p.kind for p in k.params]
    assert "marks" in kinds and kinds.count("errors") == 1
    marks = next(p for p in k.params if p.kind == "marks")
    assert marks.name == "lift_marks" and str(marks.size) == "N"
    assert "atomic_inc(&marks[i])" in k.source
    # a scatterIdx checks bounds only: no marks
    k2 = compile_program(prog(SCAT))
    assert "marks" not in [p.kind for p in k2.params] and "atomic_inc" not in k2.source


@pytest.mark.opencl
@pytest.mark.parametrize("n", [1, 2, 7, 257, 1000])
@pytest.mark.parametrize("idx", ["int", "long"])
def test_permutations_run(runtime, n, idx):
    rng = np.random.default_rng(n)
    x = rng.random(n).astype(np.float32)
    ix = rng.permutation(n).astype(np.int32 if idx == "int" else np.int64)
    want = np.empty(n, np.float32)
    want[ix] = x * 2
    np.testing.assert_array_equal(run(runtime, PERM, x, ix, idx), want)
    np.testing.assert_array_equal(run(runtime, SCAT, x, ix, idx), want)


@pytest.mark.opencl
@pytest.mark.parametrize("idx", ["int", "long"])
@pytest.mark.parametrize("bad, what", [
    ([0, 1, 2, 3, 7], "index out of bounds in permuteIdx (index 7, length 5)"),
    ([0, 1, -1, 3, 4], "index out of bounds in permuteIdx (index -1, length 5)"),
    ([0, 1, 2, 2, 4], "permuteIdx: position 2 is written twice (the indices are not a permutation of 0 .. 4)"),
    ([3, 3, 3, 3, 3], "permuteIdx: position 3 is written twice (the indices are not a permutation of 0 .. 4)"),
])
def test_permute_errors(runtime, idx, bad, what):
    x = np.arange(5, dtype=np.float32)
    with pytest.raises(LiftRuntimeError) as ei:
        run(runtime, PERM, x, np.array(bad, np.int32 if idx == "int" else np.int64), idx)
    e = ei.value
    assert e.message == what
    assert (e.span.line, e.span.col) == (2, len(f"program p(x: [float]N, ix: [{idx}]N) = ") + 1)


@pytest.mark.opencl
def test_permute_one_element(runtime):
    np.testing.assert_array_equal(run(runtime, PERM, np.array([1.5], np.float32), np.array([0], np.int32)), [3.0])
    with pytest.raises(LiftRuntimeError, match=r"index 1, length 1"):
        run(runtime, PERM, np.array([1.5], np.float32), np.array([1], np.int32))


@pytest.mark.opencl
def test_scatter_bounds_only(runtime):
    # scatterIdx checks the bounds; a duplicate is not its error (one of the writes wins)
    x = np.arange(4, dtype=np.float32)
    out = run(runtime, SCAT, x, np.array([1, 1, 2, 3], np.int32))
    assert out[1] in (0.0, 2.0) and list(out[2:]) == [4.0, 6.0]
    with pytest.raises(LiftRuntimeError, match=r"index out of bounds in scatterIdx \(index 4, length 4\)"):
        run(runtime, SCAT, x, np.array([1, 4, 2, 3], np.int32))


@pytest.mark.opencl
def test_permute_tuples_soa(runtime):
    """Several result components (``soa_output``): one position check and mark per element,
    shared by the components."""
    src = ("userfun h(a: float, k: int): (float, int) { return (Tuple_float_int){a + 1.0f, k * 10}; }\n"
           "program p(x: [float]N, ix: [int]N) = "
           "permuteIdx(ix, mapGlb(0)(toGlobal(\\t -> h(t._0, t._1))) $ zip(x, generate(N)))")
    k = compile_program(parse(src, "t.lift").program("p"), soa_output=True)
    assert k.source.count("lift_check_once(") == 2     # the function and one call
    k2 = compile_program(parse(src, "t.lift").program("p"))
    out = runtime.run(k2, {"x": np.arange(7, dtype=np.float32), "ix": np.array([6, 5, 4, 3, 2, 1, 0], np.int32)},
                      global_size=3)
    assert [tuple(map(float, r)) for r in out] == [(7 - i, (6 - i) * 10) for i in range(7)]


@pytest.mark.opencl
def test_empty_input_is_refused(runtime):
    # Lift arrays have at least one element (the NESL runner launches nothing for n = 0)
    with pytest.raises((LiftRuntimeError, LiftCompileError), match="empty arrays are not supported"):
        run(runtime, PERM, np.zeros(0, np.float32), np.zeros(0, np.int32))


def test_read_side_is_refused():
    with pytest.raises(LiftCompileError, match="permuteIdx: its result is read by another pattern"):
        compile_program(prog("mapGlb(0)(toGlobal(f)) $ permuteIdx(ix, x)"))


def test_index_type_and_length():
    with pytest.raises(LiftError, match=r"the index array must have type \[int\]n or \[long\]n"):
        compile_program(parse(UF + "program p(x: [float]N, ix: [float]N) = " + PERM, "t.lift").program("p"))
    with pytest.raises(LiftError, match="one index per element"):
        compile_program(parse(UF + "program p(x: [float]N, ix: [int]M) = " + PERM, "t.lift").program("p"))


ROWS = (UF + "program p(x: [[float]M]N, ix: [[int]M]N) = "
        "join o mapGlb(0)(\\r -> permuteIdx(r._1, toGlobal(mapSeq(f)) $ r._0)) $ zip(x, ix)")


@pytest.mark.opencl
def test_permute_rows(runtime):
    """A permuteIdx per row: the marks are the result's (the row's start added), so equal
    positions of two rows are distinct positions, and a position twice in a row is an error."""
    k = compile_program(parse(ROWS, "t.lift").program("p"))
    assert "lift_marks + " in k.source
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    ix = np.array([[3, 2, 1, 0], [0, 1, 2, 3], [1, 0, 3, 2]], np.int32)
    want = np.empty((3, 4), np.float32)
    for r in range(3):
        want[r][ix[r]] = x[r] * 2
    out = runtime.run(k, {"x": x, "ix": ix}, global_size=2)
    np.testing.assert_array_equal(np.asarray(out).reshape(-1), want.reshape(-1))
    ix[2] = [1, 0, 1, 2]
    with pytest.raises(LiftRuntimeError, match=r"permuteIdx: position 1 is written twice"):
        runtime.run(k, {"x": x, "ix": ix}, global_size=2)
    ix[2] = [1, 0, 4, 2]
    with pytest.raises(LiftRuntimeError, match=r"index out of bounds in permuteIdx \(index 4, length 4\)"):
        runtime.run(k, {"x": x, "ix": ix}, global_size=2)


def test_permute_needs_a_contiguous_destination():
    src = ROWS.replace("join o mapGlb", "join o transpose o mapGlb").replace("[[float]M]N", "[[float]M]M") \
        .replace("[[int]M]N", "[[int]M]M")
    with pytest.raises(LiftCompileError, match="permuteIdx: it must write a contiguous part"):
        compile_program(parse(src, "t.lift").program("p"))


@pytest.mark.opencl
def test_cli_run(tmp_path, capsys):
    """``python -m lift_backend run`` of a permuteIdx program: the marks are made by the runtime."""
    from lift_backend.cli import main
    f = tmp_path / "perm.lift"
    f.write_text(UF + "program p(x: [float]N, ix: [int]N) = " + PERM + "\n")
    np.save(tmp_path / "x.npy", np.arange(5, dtype=np.float32))
    np.save(tmp_path / "ix.npy", np.array([4, 3, 2, 1, 0], np.int32))
    np.save(tmp_path / "bad.npy", np.array([4, 3, 2, 1, 1], np.int32))
    args = ["run", str(f), "--arg", f"x={tmp_path / 'x.npy'}", "--global", "4", "--out", str(tmp_path / "o.npy")]
    assert main(args + ["--arg", f"ix={tmp_path / 'ix.npy'}"]) == 0
    np.testing.assert_array_equal(np.load(tmp_path / "o.npy"), [8, 6, 4, 2, 0])
    assert main(args + ["--arg", f"ix={tmp_path / 'bad.npy'}"]) == 1
    assert "permuteIdx: position 1 is written twice" in capsys.readouterr().err
