"""Defects found by a hunt of the standalone Lift compiler (session 38):

* ``mapVec`` of an int/long user function whose C has an integer literal beyond the element
  type (``a - 2147483648``) applied the body to vectors, which OpenCL does not build
  (``int4 - long``); such bodies are applied to each component with the scalar function;
* a program body that is a function (``mapGlb(0)(id)``, ``$ x`` forgotten) was reported at
  the end of the file, or at the next program, without the source line;
* ``split(3)`` of rows ``2 * i + 2`` reported ``no closed form for the sum`` (with the bound
  variable printed like its limit) instead of the row that is not divisible;
* an argument of a vector-element parameter whose shape no size fits asked for the size;
* a UTF-8 byte order mark at the start of a ``.lift`` file was refused.
"""
import numpy as np
import pytest

from lift_backend import LiftError, compile_program, parse
from lift_backend import arith as A
from lift_backend.cli import main
from lift_backend.errors import LiftArgumentError, LiftCompileError


def _run_cli(capsys, *argv):
    rc = main([str(a) for a in argv])
    return rc, capsys.readouterr().err


# --------------------------------------------------------------------------------- mapVec

def _wrap(values, dtype):
    """Python integers wrapped to ``dtype`` (two's complement)."""
    bits = np.dtype(dtype).itemsize * 8
    return np.array([((int(v) + (1 << (bits - 1))) % (1 << bits)) - (1 << (bits - 1)) for v in values],
                    dtype=dtype)


#: (element type, vector width, body, the value of the body for an element as a Python int,
#:  whether the body is applied to vectors)
VEC_CASES = [
    ("int", 4, "a - 2147483648", lambda a: a - 2 ** 31, False),
    ("int", 4, "a * 3000000000", lambda a: a * 3000000000, False),
    ("int", 4, "a + 4294967296", lambda a: a + 2 ** 32, False),
    ("int", 4, "a * 020000000000", lambda a: a * 2 ** 31, False),      # octal: unsigned int
    ("int", 4, "a + 0x7fffffff", lambda a: a + 2 ** 31 - 1, False),
    ("int", 4, "a * 3u", lambda a: a * 3, False),
    ("int", 4, "a * 2L", lambda a: a * 2, False),
    ("int", 4, "a + 2147483647", lambda a: a + 2 ** 31 - 1, True),     # fits: still a vector body
    ("int", 4, "a * 017777777777", lambda a: a * (2 ** 31 - 1), True),
    ("int", 4, "(a + 3) * 5 - 7", lambda a: (a + 3) * 5 - 7, True),
    ("long", 2, "a + 18446744073709551615", lambda a: a + 2 ** 64 - 1, False),
    ("long", 2, "a + 9223372036854775808", lambda a: a + 2 ** 63, False),
    ("long", 2, "a + 9223372036854775807", lambda a: a + 2 ** 63 - 1, True),
]


@pytest.mark.opencl
@pytest.mark.parametrize("elem,width,body,value,vectorised", VEC_CASES)
def test_mapvec_with_integer_literals_beyond_the_element_type(runtime, elem, width, body, value,
                                                              vectorised):
    dtype = {"int": np.int32, "long": np.int64}[elem]
    uf = f"userfun f(a: {elem}): {elem} {{ return {body}; }}\n"
    vec = parse(uf + f"program p(x: [{elem}]N) = asScalar o mapGlb(0)(mapVec(f)) o asVector({width}) $ x"
                ).program("p")
    scalar = parse(uf + f"program p(x: [{elem}]N) = mapGlb(0)(f) $ x").program("p")
    x = np.arange(-8, 8, dtype=dtype)
    k = compile_program(vec)
    # a body kept for vectors has no per-component calls of the scalar function
    assert ("f(a.s0)" not in k.source) == vectorised, k.source
    out = runtime.run(k, {"x": x}, global_size=len(x) // width)
    want = _wrap([value(int(a)) for a in x], dtype)
    np.testing.assert_array_equal(out, want)
    np.testing.assert_array_equal(runtime.run(compile_program(scalar), {"x": x}, global_size=16), want)


@pytest.mark.opencl
def test_mapvec_of_the_hunt_program_from_the_command_line(tmp_path, capsys):
    f = tmp_path / "p.lift"
    f.write_text("userfun f(a: int): int { return a - 2147483648; }\n"
                 "program p(x: [int]N) = asScalar o mapGlb(0)(mapVec(f)) o asVector(4) $ x\n")
    x = np.arange(16, dtype=np.int32) * 1000 - 7000
    np.save(tmp_path / "x.npy", x)
    rc, err = _run_cli(capsys, "run", f, "--arg", f"x={tmp_path / 'x.npy'}", "--global", "4",
                       "--out", tmp_path / "o.npy")
    assert rc == 0, err
    np.testing.assert_array_equal(np.load(tmp_path / "o.npy"), _wrap([int(a) - 2 ** 31 for a in x], np.int32))


# ------------------------------------------------------------------- program body a function

def test_a_program_body_that_is_a_function_is_located_at_the_body(tmp_path, capsys):
    f = tmp_path / "nobody.lift"
    f.write_text("program p(x: [float]N) = mapGlb(0)(id)\n")
    rc, err = _run_cli(capsys, "compile", f)
    assert rc == 1
    assert err == (f"{f}:1:26: error: the program body must be a value, found a function\n"
                   "program p(x: [float]N) = mapGlb(0)(id)\n"
                   "                         ^\n"), err
    # followed by another program: still at the body, not at the next `program`
    f.write_text("program p(x: [float]N) =\n"
                 "  join o mapGlb(0)(mapSeq(id)) o split(4)\n"
                 "program q(x: [float]N) = mapGlb(0)(id) $ x\n")
    rc, err = _run_cli(capsys, "compile", f, "--program", "q")
    assert rc == 1
    assert err == (f"{f}:2:3: error: the program body must be a value, found a function\n"
                   "  join o mapGlb(0)(mapSeq(id)) o split(4)\n"
                   "  ^\n"), err


def test_a_program_body_that_is_a_function_through_the_api():
    with pytest.raises(LiftError) as ei:
        parse("program p(x: [float]N) = mapGlb(0)(id);\nprogram q(x: [float]N) = mapGlb(0)(id) $ x", "t.lift")
    assert "the program body must be a value, found a function" in str(ei.value)
    assert (ei.value.span.line, ei.value.span.col) == (1, 26)


# -------------------------------------------------------------- split of position-dependent rows

ADD = "userfun add(a: float, b: float): float { return a + b; }\n"


def _rows_program(length, k):
    return (ADD + f"program p(m: [i -> [float]({length})]N) =\n"
            f"  join o mapGlb(0)(join o mapSeq(toGlobal(mapSeq(id)) o reduceSeq(add, 0.0f)) o split({k})) $ m\n")


def test_a_split_that_does_not_divide_a_row_is_the_divisibility_error(tmp_path, capsys):
    f = tmp_path / "p.lift"
    f.write_text(_rows_program("2 * i + 2", 3))
    np.save(tmp_path / "m.npy", np.arange(30, dtype=np.float32))
    rc, err = _run_cli(capsys, "run", f, "--size", "N=5", "--arg", f"m={tmp_path / 'm.npy'}",
                       "--global", "5", "--out", tmp_path / "o.npy")
    assert rc == 1
    line = "  join o mapGlb(0)(join o mapSeq(toGlobal(mapSeq(id)) o reduceSeq(add, 0.0f)) o split(3)) $ m"
    col = line.index("split(3)") + 1
    assert err == (f"{f}:3:{col}: error: split(3): the length 2 * gl_id + 2 must be divisible by 3 "
                   f"(row gl_id=0: with N=5)\n{line}\n{' ' * (col - 1)}^\n"), err
    assert not (tmp_path / "o.npy").exists()
    # the same through the API, sizes given to the compiler; a row other than the first
    with pytest.raises(LiftCompileError) as ei:
        compile_program(parse(_rows_program("3 * (i / 2) + 3 * (1 - i % 2) + 4 * (i % 2)", 3)).program("p"),
                        sizes={"N": 4})
    assert "must be divisible by 3 (row gl_id=1: with N=4)" in ei.value.message, ei.value.message


def test_a_split_of_rows_with_the_size_given_by_another_argument(tmp_path, capsys):
    """N not given but determined by ``v``: compiled again with it, the row check reports."""
    f = tmp_path / "p.lift"
    f.write_text(_rows_program("2 * i + 2", 3).replace("]N) =", "]N, v: [float]N) ="))
    np.save(tmp_path / "m.npy", np.arange(30, dtype=np.float32))
    np.save(tmp_path / "v.npy", np.arange(5, dtype=np.float32))
    rc, err = _run_cli(capsys, "run", f, "--arg", f"m={tmp_path / 'm.npy'}", "--arg", f"v={tmp_path / 'v.npy'}",
                       "--global", "5", "--out", tmp_path / "o.npy")
    assert rc == 1
    assert "error: split(3): the length 2 * gl_id + 2 must be divisible by 3 (row gl_id=0: with N=5)" in err, err


def test_no_closed_form_names_the_bound_variable_apart_from_its_limit():
    with pytest.raises(LiftCompileError) as ei:
        compile_program(parse(_rows_program("2 * i + 2", 3)).program("p"))
    # (session 40: the row that causes the missing closed form is the error now)
    assert "split(3): the length 2 * gl_id + 2 must be divisible by 3 (row gl_id=0, whatever the sizes)" \
        in ei.value.message, ei.value.message
    n = A.Var("N", 1, None)
    i = A.Var("i", 0, A.sub(n, 1), 5)
    j = A.Var("i", 0, A.sub(n, 1), 6)
    body = A.div(A.add(A.mul(2, i), 2), 3)
    assert A.to_text(A.SumOver(i, A.Cst(0), j, body)) == "sum(i_1, 0, i, (2 * i_1 + 2) / 3)"
    assert A.to_text(A.SumOver(i, A.Cst(0), i, body)) == "sum(i_1, 0, i, (2 * i_1 + 2) / 3)"
    assert A.to_text(A.SumOver(i, A.Cst(0), n, body)) == "sum(i, 0, N, (2 * i + 2) / 3)"


@pytest.mark.opencl
@pytest.mark.parametrize("length,k,rows", [("6 * i + 6", 3, lambda i: 6 * i + 6),
                                           ("4 * (i + 1)", 2, lambda i: 4 * (i + 1))])
def test_splits_that_divide_every_row_run(runtime, length, k, rows):
    n = 5
    lens = [rows(i) for i in range(n)]
    m = np.arange(sum(lens), dtype=np.float32)
    want = m.reshape(-1, k).sum(axis=1)
    prog = parse(_rows_program(length, k)).program("p")
    for kern in (compile_program(prog), compile_program(prog, sizes={"N": n})):
        np.testing.assert_allclose(runtime.run(kern, {"m": m}, sizes={"N": n}, global_size=n), want)


# ------------------------------------------------------------------ vector-element arguments

VP = ("userfun len4(v: float4): float { return sqrt(v.x * v.x + v.y * v.y + v.z * v.z + v.w * v.w); }\n"
      "program vp(x: [float4]N) = mapGlb(0)(len4) $ x\n")


@pytest.mark.opencl
@pytest.mark.parametrize("shape,sizes,message", [
    ((5, 3), [], "argument x: the shape (5, 3) does not fit the type [float4]N: expected the shape (5, 4) "
                 "(with N=5) or a flat array of its elements"),
    ((5, 3), ["--size", "N=5"], "argument x: the shape (5, 3) does not fit the type [float4]5: expected the "
                                "shape (5, 4) (with N=5) or a flat array of its elements"),
    ((22,), [], "argument x: the shape (22,) does not fit the type [float4]N: expected 4 * N elements for "
                "some size N, got 22"),
    ((2, 3, 4), [], "argument x: the shape (2, 3, 4) does not fit the type [float4]N"),
])
def test_a_vector_argument_whose_shape_does_not_fit(tmp_path, capsys, shape, sizes, message):
    f = tmp_path / "vp.lift"
    f.write_text(VP)
    x = tmp_path / "x.npy"
    np.save(x, np.ones(shape, np.float32))
    rc, err = _run_cli(capsys, "run", f, *sizes, "--arg", f"x={x}", "--global", "5", "--out", tmp_path / "o.npy")
    assert rc == 1
    assert err.startswith(f"error: {x}: {message}"), err
    assert "not determined" not in err


@pytest.mark.opencl
@pytest.mark.parametrize("shape", [(5, 4), (20,)])
def test_a_vector_argument_that_fits_runs(tmp_path, capsys, shape):
    f = tmp_path / "vp.lift"
    f.write_text(VP)
    v = np.arange(20, dtype=np.float32).reshape(5, 4) / 7
    np.save(tmp_path / "x.npy", v.reshape(shape))
    rc, err = _run_cli(capsys, "run", f, "--arg", f"x={tmp_path / 'x.npy'}", "--global", "5",
                       "--out", tmp_path / "o.npy")
    assert rc == 0, err
    np.testing.assert_allclose(np.load(tmp_path / "o.npy"), np.linalg.norm(v, axis=1), rtol=1e-6)


@pytest.mark.opencl
def test_shapes_that_do_not_fit_through_the_api(runtime):
    k = compile_program(parse(ADD + "program m(x: [[float]M]N) = "
                                    "mapGlb(0)(toGlobal(mapSeq(id)) o reduceSeq(add, 0.0f)) $ x").program("m"))
    with pytest.raises(LiftArgumentError, match=r"the shape \(7,\) does not fit the type \[\[float\]M\]N: "
                                                r"expected M \* N elements for some size M \(with N=2\), got 7"):
        runtime.run(k, {"x": np.ones(7, np.float32)}, sizes={"N": 2}, global_size=2)
    with pytest.raises(LiftArgumentError, match=r"the shape \(2, 3, 1\) does not fit the type \[\[float\]M\]N: "
                                                r"expected the shape \(N, M\) or a flat array"):
        runtime.run(k, {"x": np.ones((2, 3, 1), np.float32)}, global_size=2)
    np.testing.assert_allclose(runtime.run(k, {"x": np.ones(8, np.float32)}, sizes={"N": 2}, global_size=2)
                               .reshape(-1), [4, 4])
    # a size the shapes cannot determine (a triangle of 7 elements: no N) is still asked for;
    # 10 elements give N = 4 (session 39c)
    tri = compile_program(parse(ADD + "program t(m: [i -> [float](i + 1)]N) = join o mapGlb(0)("
                                      "toGlobal(mapSeq(id)) o reduceSeq(add, 0.0f)) $ m").program("t"))
    with pytest.raises(LiftError, match="are not determined by the arguments. shapes"):
        runtime.run(tri, {"m": np.ones(7, np.float32)}, global_size=4)
    np.testing.assert_allclose(runtime.run(tri, {"m": np.ones(10, np.float32)}, global_size=4), [1, 2, 3, 4])


# ----------------------------------------------------------------------------- byte order mark

@pytest.mark.opencl
def test_a_byte_order_mark_is_skipped(tmp_path, capsys):
    f = tmp_path / "bom.lift"
    f.write_bytes("\ufeffprogram p(x: [float]N) = mapGlb(0)(id) $ x\n".encode("utf-8"))
    x = np.arange(8, dtype=np.float32)
    np.save(tmp_path / "x.npy", x)
    rc, err = _run_cli(capsys, "run", f, "--arg", f"x={tmp_path / 'x.npy'}", "--global", "8",
                       "--out", tmp_path / "o.npy")
    assert rc == 0, err
    np.testing.assert_array_equal(np.load(tmp_path / "o.npy"), x)
    # columns are counted, and the line quoted, without the mark
    f.write_bytes("\ufeffprogram p(x: [float]N) = mapGlb(0)(idd) $ x\n".encode("utf-8"))
    rc, err = _run_cli(capsys, "compile", f)
    assert rc == 1
    assert err == (f"{f}:1:36: error: unknown name 'idd'\n"
                   "program p(x: [float]N) = mapGlb(0)(idd) $ x\n"
                   "                                   ^\n"), err
    # through the API too; a mark anywhere else is still no character of the language
    assert parse("\ufeffprogram p(x: [float]N) = mapGlb(0)(id) $ x").program("p").name == "p"
    with pytest.raises(LiftError, match="unexpected character"):
        parse("program p(x: [float]N) = \ufeffmapGlb(0)(id) $ x")
