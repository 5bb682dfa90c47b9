"""``arrayAccess(xs, k)``: element ``k`` of an array for an index ``k`` computed at run time (an
access view with an index *expression*, the generalisation of ``gatherIdx`` from an index array
to any value: what the λcu lowering needs for a subscript computed from loaded data).

Parsing and printing, types, the view (the element's read goes through ``xs``'s view: reversed,
zipped, nested rows), the index as a value (no memory), the bounds check (a located error with
the index and the length, ``long`` indices included), cross-work-group reads split into
kernels, and results against numpy."""
import numpy as np
import pytest

from lift_backend import LiftError, compile_program, parse, program_text
from lift_backend.cli import main

SRC = r"""
userfun inc(i: int): int { return i + 1; }
userfun twice(i: int): long { return (long)i * 2L; }
userfun comb(i: int, x: double): double { return x + i; }
userfun sq(x: double): double { return x * x; }
program perm(x: [double]N, p: [int]M) = mapGlb(0)(toGlobal(\i -> id(arrayAccess(x, i)))) $ p
program chain(x: [double]M, p: [int]N) = mapGlb(0)(toGlobal(\t -> comb(t._0, arrayAccess(x, inc(t._1))))) $ zip(generate(N), p)
program wide(x: [double]M) = mapGlb(0)(toGlobal(\i -> id(arrayAccess(x, twice(i))))) $ generate(N)
program nested(x: [double]M, p: [int]N) = mapGlb(0)(toGlobal(\i -> sq(arrayAccess(x, arrayAccess(p, i))))) $ p
program rev(x: [double]M, p: [int]N) = mapGlb(0)(toGlobal(\i -> id(arrayAccess(gather(reverse) $ x, i)))) $ p
program rows(m: [[double]C]R, p: [int]N) = mapGlb(0)(\i -> toGlobal(mapSeq(sq)) $ arrayAccess(m, i)) $ p
program fields(x: [double]M, y: [int]M, p: [int]N) = mapGlb(0)(toGlobal(\i -> comb(arrayAccess(zip(x, y), i)._1, arrayAccess(zip(x, y), i)._0))) $ p
program staged(x: [double]M, p: [int]N) = (\t -> mapGlb(0)(toGlobal(\i -> id(arrayAccess(t, i)))) $ p) o mapGlb(0)(toGlobal(sq)) $ x
"""


@pytest.fixture(scope="module")
def lf():
    return parse(SRC, "at.lift")


NAMES = ("perm", "chain", "wide", "nested", "rev", "rows", "fields", "staged")


def test_prints_and_parses_back(lf):
    for name in NAMES:
        p = lf.program(name)
        text = program_text(p)
        assert "arrayAccess(" in text
        again = parse(SRC.split("program")[0] + text, "again.lift").program(name)
        assert compile_program(again).source == compile_program(p).source


def test_the_index_is_a_value_and_checked(lf):
    k = compile_program(lf.program("chain"))
    # the index function is inlined into the check (no memory for it), the check is one compare
    assert "x[lift_check(inc(p[gl_id]), M, 0, lift_err)]" in k.source
    assert [p.kind for p in k.params] == ["input", "input", "output", "size", "size", "errors"]
    k = compile_program(lf.program("wide"))
    assert "lift_check_long(twice(" in k.source
    k = compile_program(lf.program("nested"))
    assert k.source.count("lift_check(") == 3           # the helper and the two accesses
    # reading what other work-groups of a mapGlb wrote, at any index: a kernel of its own
    assert type(compile_program(lf.program("staged"))).__name__ == "CompiledPipeline"


@pytest.mark.opencl
@pytest.mark.parametrize("n", [1, 2, 7, 64, 65, 1000, 2**20 + 1])
def test_results(runtime, lf, n):
    rng = np.random.default_rng(n)
    m = n // 2 + 3
    x = rng.standard_normal(m)
    y = rng.integers(-50, 50, m).astype(np.int32)
    p = rng.integers(0, m, n).astype(np.int32)
    run = lambda name, args, **kw: runtime.run(compile_program(lf.program(name)), args, global_size=64, **kw)
    np.testing.assert_array_equal(run("perm", {"x": x, "p": p}), x[p])
    q = np.minimum(p, m - 2).astype(np.int32)
    np.testing.assert_array_equal(run("chain", {"x": x, "p": q}), x[q + 1] + np.arange(n))
    np.testing.assert_array_equal(run("wide", {"x": x}, sizes={"N": (m + 1) // 2}), x[::2])
    pm = np.minimum(p, n - 1).astype(np.int32)        # indices into p itself
    np.testing.assert_array_equal(run("nested", {"x": x, "p": pm}), x[pm[pm]] ** 2)
    np.testing.assert_array_equal(run("rev", {"x": x, "p": p}), x[::-1][p])
    np.testing.assert_array_equal(run("fields", {"x": x, "y": y, "p": p}), x[p] + y[p])
    np.testing.assert_array_equal(run("staged", {"x": x, "p": p}), (x * x)[p])
    if n <= 1000:
        mat = rng.standard_normal((m, 5))
        np.testing.assert_array_equal(run("rows", {"m": mat, "p": p}), (mat ** 2)[p])


@pytest.mark.opencl
@pytest.mark.parametrize("bad", [8, -1, 100000000])
def test_out_of_bounds_is_a_located_error(capsys, tmp_path, bad):
    f = tmp_path / "a.lift"
    f.write_text(SRC)
    x, p = tmp_path / "x.npy", tmp_path / "p.npy"
    np.save(x, np.arange(8.0))
    np.save(p, np.array([0, 3, bad, 7], np.int32))
    out = tmp_path / "o.npy"
    rc = main(["run", str(f), "--program", "perm", "--arg", f"x={x}", "--arg", f"p={p}", "--global", "4",
               "--out", str(out)])
    err = capsys.readouterr().err
    line = SRC.splitlines()[5]
    col = line.index("arrayAccess") + 1
    assert rc == 1
    assert err == (f"{f}:6:{col}: error: index out of bounds in arrayAccess (index {bad}, length 8)\n"
                   f"{line}\n" + " " * (col - 1) + "^\n")
    assert not out.exists()


@pytest.mark.opencl
def test_a_long_index_beyond_int_is_reported_clamped(runtime, lf):
    k = compile_program(lf.program("wide"))
    with pytest.raises(LiftError, match=r"arrayAccess \(index 8, length 7\)"):
        runtime.run(k, {"x": np.arange(7.0)}, sizes={"N": 5}, global_size=4)


@pytest.mark.opencl
@pytest.mark.parametrize("value,shown", [("4294967296L", "2147483647 or more"),
                                         ("-4294967293L", "-2147483647 or less"),
                                         ("2147483647L", "2147483647 or more")])
def test_a_long_index_beyond_int_says_it_is_at_least_the_clamp(runtime, value, shown):
    """The error buffer holds ints: a long index beyond them is stored clamped, and the message
    says so instead of naming the clamp as the index."""
    k = compile_program(parse(f"userfun r(a: int): long {{ return {value}; }}\n"
                              "program p(x: [float]N) = mapGlb(0)(toGlobal(\\i -> id(arrayAccess(x, r(i))))) "
                              "$ generate(N)\n").program("p"))
    with pytest.raises(LiftError, match=rf"arrayAccess \(index {shown}, length 10\)"):
        runtime.run(k, {"x": np.arange(10, dtype=np.float32)}, global_size=2)


def test_errors():
    bad = [
        ("program p(x: [double]N, k: [double]N) = mapGlb(0)(toGlobal(\\i -> id(arrayAccess(x, i)))) $ k",
         "arrayAccess: the index must be an int or a long, got double"),
        ("program p(x: double, k: [int]N) = mapGlb(0)(toGlobal(\\i -> id(arrayAccess(x, i)))) $ k",
         "arrayAccess: expects an array (argument 1), got double"),
        ("program p(x: [double]N, k: [int]N) = mapGlb(0)(toGlobal(\\i -> id(arrayAccess(x, i, i)))) $ k",
         "arrayAccess expects 2 argument(s), got 3"),
        ("program p(x: [double]N, k: [int]N) = mapGlb(0)(\\i -> arrayAccess(x, i)) $ k",
         "a data-layout pattern cannot write the result"),
        ("program p(x: [double]N, k: [int]N) = arrayAccess(x, 0)", "the result must be an array"),
    ]
    for text, what in bad:
        with pytest.raises(LiftError) as ei:
            compile_program(parse(text, "t.lift").program("p"))
        assert what in str(ei.value), (text, str(ei.value))


GUARDED = r"""
userfun pos(i: int): bool { return i >= 0; }
userfun pick(i: int, x: double): double { return i >= 0 ? x : -1.0; }
program g(x: [double]M, p: [int]N) = mapGlb(0)(toGlobal(\i -> pick(i, arrayAccessIf(x, i, pos(i))))) $ p
"""


def test_guarded_access_reads_only_where_the_condition_holds():
    p = parse(GUARDED, "g.lift").program("g")
    text = program_text(p)
    assert "arrayAccessIf(x, i, pos(i))" in text
    k = compile_program(p)
    assert compile_program(parse(GUARDED.split("program")[0] + text).program("g")).source == k.source
    # the read and its check are the then-part of a C conditional: not evaluated otherwise
    assert "(pos(p[gl_id]) != 0 ? x[lift_check(p[gl_id], M, 0, lift_err)] : 0)" in k.source


@pytest.mark.opencl
@pytest.mark.parametrize("n", [1, 65, 2**20 + 1])
def test_guarded_access_results_and_errors(runtime, n):
    k = compile_program(parse(GUARDED, "g.lift").program("g"))
    rng = np.random.default_rng(n)
    x = rng.standard_normal(9)
    p = rng.integers(-10**9, 9, n).astype(np.int32)     # negative: not read, not checked
    np.testing.assert_array_equal(runtime.run(k, {"x": x, "p": p}, global_size=64),
                                  np.where(p >= 0, x[np.maximum(p, 0)], -1.0))
    p[-1] = 9
    with pytest.raises(LiftError, match=r"g.lift:4:71: error: index out of bounds in arrayAccessIf "
                                        r"\(index 9, length 9\)"):
        runtime.run(k, {"x": x, "p": p}, global_size=64)


def test_guarded_access_errors():
    bad = [
        ("program p(x: [double]N, k: [int]N) = mapGlb(0)(toGlobal(\\i -> id(arrayAccessIf(x, i, i)))) $ k",
         "arrayAccessIf: the condition must be a bool, got int"),
        ("program p(x: [[double]M]N, k: [int]N, b: bool) = mapGlb(0)(\\i -> toGlobal(mapSeq(id)) $ "
         "arrayAccessIf(x, i, b)) $ k", "arrayAccessIf: the elements must be scalars"),
        ("program p(x: [double]N, k: [int]N) = mapGlb(0)(toGlobal(\\i -> id(arrayAccessIf(x, i)))) $ k",
         "an argument must be a value, found a function"),   # applied to 2 of its 3 arguments
    ]
    for text, what in bad:
        with pytest.raises(LiftError) as ei:
            compile_program(parse(text, "t.lift").program("p"))
        assert what in str(ei.value), (text, str(ei.value))


@pytest.mark.opencl
def test_a_symbolic_global_size_makes_the_map_an_if(runtime, lf):
    # a global size that is an expression of the sizes: at least N work-items, so the mapGlb
    # over N runs at most once per work-item (Lift's control-flow simplification, §5.5)
    from lift_backend import arith as A
    M = A.size_var("M")       # perm maps over p: [int]M
    k = compile_program(lf.program("perm"), global_size=A.add(M, 63))
    assert "if (get_global_id(0) < M)" in k.source
    assert "for (int gl_id" not in k.source
    x = np.arange(10.0)
    p = np.array([9, 0, 3], np.int32)
    np.testing.assert_array_equal(runtime.run(k, {"x": x, "p": p}), x[p])
    np.testing.assert_array_equal(runtime.run(k, {"x": x, "p": p}, global_size=128), x[p])
    with pytest.raises(LiftError, match="at least"):
        runtime.run(k, {"x": x, "p": np.arange(10, dtype=np.int32)}, global_size=8, local_size=8)


FAIL = r"""
userfun zero(d: int): bool { return d == 0; }
userfun safediv(a: int, d: int): int { return d == 0 ? 0 : a / d; }
program q(a: [int]N, d: [int]N) = mapGlb(0)(toGlobal(\t -> id(failIf(zero(t._1), safediv(t._0, t._1))))) $ zip(a, d)
"""


def test_fail_if_prints_and_parses_back():
    p = parse(FAIL, "f.lift").program("q")
    text = program_text(p)
    assert "failIf(zero(t._1), safediv(t._0, t._1))" in text
    assert compile_program(parse(FAIL.split("program")[0] + text).program("q")).source == \
        compile_program(p).source
    src = compile_program(p).source
    # the check is sequenced before the value (a C comma expression); no bounds-check helper
    assert "(lift_check_fail(zero(d[gl_id]) != 0, 0, lift_err), safediv(a[gl_id], d[gl_id]))" in src
    assert "int lift_check(" not in src


@pytest.mark.opencl
@pytest.mark.parametrize("n", [1, 65, 2**20 + 1])
def test_fail_if_results_and_errors(runtime, n):
    k = compile_program(parse(FAIL, "f.lift").program("q"))
    rng = np.random.default_rng(n)
    a = rng.integers(-1000, 1000, n).astype(np.int32)
    d = rng.integers(1, 9, n).astype(np.int32)
    np.testing.assert_array_equal(runtime.run(k, {"a": a, "d": d}, global_size=64),
                                  (np.trunc(a / d)).astype(np.int32))
    d[n // 2] = 0
    with pytest.raises(LiftError, match=r"f.lift:4:63: error: failIf: the condition holds"):
        runtime.run(k, {"a": a, "d": d}, global_size=64)


def test_fail_if_errors():
    bad = [
        ("program p(x: [int]N) = mapGlb(0)(toGlobal(\\i -> id(failIf(i, i)))) $ x",
         "failIf: the condition must be a bool, got int"),
        ("program p(x: [int]N, b: bool) = mapGlb(0)(\\i -> failIf(b, i)) $ x",
         "a data-layout pattern cannot write the result"),
    ]
    for text, what in bad:
        with pytest.raises(LiftError) as ei:
            compile_program(parse(text, "t.lift").program("p"))
        assert what in str(ei.value), (text, str(ei.value))
