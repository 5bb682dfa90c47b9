"""Defects found by a second hunt of the standalone Lift compiler (session 39):

* a structured argument for a tuple parameter was read by position whatever its fields' names
  (``_1, _0`` read swapped): fields named ``_0 .. _k`` are read by name, in any order; other
  names like a component's are refused; a vector component is converted (and checked) as a
  scalar array is;
* a user function with a result and no ``return`` compiled, its result garbage: a located
  error; a comment of its body naming a function (itself: "calls itself") was taken for a call;
* a ``pad`` boundary value out of the element type's range said "has type int, the elements have
  type char", located at the ``pad``: it says out of range, located at the value; ``-2147483648``
  (written ``(-2147483647 - 1)`` in C) was refused for a ``long`` array;
* a position-dependent array (a triangle) of more than ``2^31 - 1`` elements compiled, its
  index computed in ``long`` then cast to ``int``: the limit's located error.
"""
import numpy as np
import pytest

from lift_backend import compile_program, parse
from lift_backend.cli import main
from lift_backend.errors import LiftArgumentError, LiftCompileError, LiftSyntaxError, LiftTypeError


def _cli(capsys, *argv):
    rc = main([str(a) for a in argv])
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return rc, err


# ------------------------------------------------------------ structured arguments by name

PAIR = ("userfun f(p: (float, int)): float { return p._0 - p._1; }\n"
        "program p(x: [(float, int)]N) = mapGlb(0)(f) $ x\n")


def _pairs(names, formats=("f4", "i4")):
    x = np.zeros(3, dtype=list(zip(names, formats)))
    x[names[0]] = [10, 20, 30]
    x[names[1]] = [1, 2, 3]
    return x


@pytest.mark.opencl
@pytest.mark.parametrize("names,formats,want", [
    (("_0", "_1"), ("f4", "i4"), [9, 18, 27]),
    (("_1", "_0"), ("i4", "f4"), [-9, -18, -27]),      # _0 holds 1, 2, 3 and _1 10, 20, 30
    (("a", "b"), ("f4", "i4"), [9, 18, 27]),           # other names: by position
])
def test_tuple_fields_are_read_by_name(runtime, names, formats, want):
    k = compile_program(parse(PAIR).program("p"))
    x = _pairs(names, formats)
    np.testing.assert_array_equal(runtime.run(k, {"x": x}, global_size=4), np.array(want, np.float32))


@pytest.mark.opencl
def test_fields_named_out_of_order_read_by_name_from_the_command_line(tmp_path, capsys):
    f = tmp_path / "p.lift"
    f.write_text(PAIR)
    x = np.zeros(3, dtype=[("_1", "i4"), ("_0", "f4")])
    x["_0"] = [10, 20, 30]
    x["_1"] = [1, 2, 3]
    np.save(tmp_path / "x.npy", x)
    rc, err = _cli(capsys, "run", f, "--arg", f"x={tmp_path / 'x.npy'}", "--global", "4",
                   "--out", tmp_path / "o.npy")
    assert rc == 0, err
    np.testing.assert_array_equal(np.load(tmp_path / "o.npy"), [9, 18, 27])


@pytest.mark.opencl
def test_nested_tuple_fields_are_read_by_name(runtime):
    src = ("userfun f(t: (int, (float, char))): float { return t._0 + t._1._0 + t._1._1; }\n"
           "program p(x: [(int, (float, char))]N) = mapGlb(0)(f) $ x\n")
    x = np.zeros(2, dtype=[("_1", [("_1", "i1"), ("_0", "f4")]), ("_0", "i4")])
    x["_0"] = [1, 2]
    x["_1"]["_0"] = [10, 20]
    x["_1"]["_1"] = [100, -100]
    out = runtime.run(compile_program(parse(src).program("p")), {"x": x}, global_size=2)
    np.testing.assert_array_equal(out, [111, -78])


def test_fields_named_like_other_components_are_refused(runtime):
    k = compile_program(parse(PAIR).program("p"))
    with pytest.raises(LiftArgumentError, match=r"the fields of the dtype structured \(_0: float32, _2: int32\) "
                                                 r"do not match the components _0, _1 of the type"):
        runtime.run(k, {"x": _pairs(("_0", "_2"))}, global_size=4)


VEC = ("userfun f(t: (float2, float)): float { return t._0.x + t._0.y + t._1; }\n"
       "program p(x: [(float2, float)]N) = mapGlb(0)(f) $ x\n")


@pytest.mark.opencl
def test_a_vector_component_is_converted_and_checked(runtime):
    k = compile_program(parse(VEC).program("p"))
    x = np.zeros(4, dtype=[("_1", "f8"), ("_0", "f8", (2,))])
    x["_0"] = [[1, 2]] * 4
    x["_1"] = 5
    np.testing.assert_array_equal(runtime.run(k, {"x": x}, global_size=4), [8] * 4)
    x["_0"][0, 0] = 1e300
    with pytest.raises(LiftArgumentError, match="the value 1e\\+300 does not fit the type"):
        runtime.run(k, {"x": x}, global_size=4)
    bad = np.zeros(4, dtype=[("_0", "f4", (3,)), ("_1", "f4")])
    with pytest.raises(LiftArgumentError, match=r"the field _0 .* has the shape \(3,\), the component _0 .* "
                                                 r"needs \(2,\)"):
        runtime.run(k, {"x": bad}, global_size=4)


# ------------------------------------------------------------ user functions without a return

def test_a_user_function_without_a_return_is_a_located_error(tmp_path, capsys):
    f = tmp_path / "r.lift"
    f.write_text("userfun f(a: float): float { float b = a * 2.0f; /* return b; */ }\n"
                 "program p(x: [float]N) = mapGlb(0)(f) $ x\n")
    rc, err = _cli(capsys, "compile", f)
    assert rc == 1
    lines = err.splitlines()
    assert lines[0] == f"{f}:1:9: error: user function f returns float but its body has no return statement"
    assert lines[2] == " " * 8 + "^"


@pytest.mark.parametrize("body", [
    "a.returned = 1;",
    "char c = 'r'; // return a;\n",
    'char* s = "return a;";',
])
def test_return_only_in_a_name_comment_or_literal_is_no_return(body):
    with pytest.raises(LiftSyntaxError, match="has no return statement"):
        parse(f"userfun f(a: float): float {{ {body} }}\nprogram p(x: [float]N) = mapGlb(0)(f) $ x\n")


def test_a_return_in_every_form_is_accepted():
    for body in ["return a;", "if (a > 0.0f) return a; return -a;", "{ return(a); }"]:
        parse(f"userfun f(a: float): float {{ {body} }}\nprogram p(x: [float]N) = mapGlb(0)(f) $ x\n")


@pytest.mark.opencl
def test_a_comment_naming_a_function_is_no_call(runtime):
    src = ("userfun f(a: float): float { // not f(a) again, nor g(a)\n return a + 1.0f; }\n"
           "userfun g(a: float): float { /* f(a) */ return a * 2.0f; }\n"
           "program p(x: [float]N) = mapGlb(0)(g) o mapGlb(0)(f) $ x\n")
    lf = parse(src)
    assert lf.userfuns["g"].calls == ()
    out = runtime.run(compile_program(lf.program("p")), {"x": np.arange(4, dtype=np.float32)}, global_size=4)
    np.testing.assert_array_equal(out, 2 * (np.arange(4) + 1))


def test_a_real_call_is_still_found():
    with pytest.raises(LiftSyntaxError, match="calls itself"):
        parse("userfun f(a: float): float { /* x */ return f(a); }\n")
    with pytest.raises(LiftSyntaxError, match="user function f calls g, which is defined after it"):
        parse("userfun f(a: float): float { return g(a); }\nuserfun g(a: float): float { return a; }\n")


# ------------------------------------------------------------ pad boundary values

@pytest.mark.parametrize("ty,value,rng", [
    ("char", "128", "-128 .. 127"),
    ("char", "-129", "-128 .. 127"),
    ("uint", "-1", "0 .. 4294967295"),
])
def test_a_pad_value_out_of_range_is_located_at_the_value(tmp_path, capsys, ty, value, rng):
    f = tmp_path / "pad.lift"
    src = f"program p(x: [{ty}]N) = mapGlb(0)(id) o pad(1, 1, {value}) $ x\n"
    f.write_text(src)
    rc, err = _cli(capsys, "compile", f)
    col = src.index(f", {value})") + 3
    assert rc == 1
    lines = err.splitlines()
    assert lines[0] == (f"{f}:1:{col}: error: pad: the boundary value {value} is out of range for the "
                        f"elements of type {ty} ({rng})")
    assert lines[2] == " " * (col - 1) + "^"


def test_a_pad_value_of_another_type_is_located_at_the_value():
    src = "program p(x: [int]N) = mapGlb(0)(id) o pad(1, 1, 2.0f) $ x\n"
    with pytest.raises(LiftTypeError, match="the boundary value has type float, the elements have type int") as e:
        compile_program(parse(src).program("p"))
    assert e.value.span.col == src.index("2.0f") + 1


@pytest.mark.opencl
@pytest.mark.parametrize("ty,dtype,value", [
    ("long", np.int64, -2 ** 31), ("int", np.int32, -2 ** 31), ("char", np.int8, -128),
    ("uint", np.uint32, 2 ** 31 - 1),
])
def test_pad_values_at_the_bounds_run(runtime, ty, dtype, value):
    src = f"program p(x: [{ty}]N) = mapGlb(0)(id) o pad(2, 1, {value}) $ x\n"
    x = np.arange(3, dtype=dtype)
    out = runtime.run(compile_program(parse(src).program("p")), {"x": x}, global_size=6)
    np.testing.assert_array_equal(out, np.pad(x, (2, 1), constant_values=value))


# ------------------------------------------------------------ position-dependent arrays at 2^31

TRI = ("userfun add(a: float, b: float): float { return a + b; }\n"
       "program p(x: [i -> [float](i + 1)]N) = "
       "join o mapGlb(0)(toGlobal(mapSeq(id)) o reduceSeq(add, 0.0f)) $ x\n")


def test_a_triangle_beyond_int_indices_is_refused(tmp_path, capsys):
    with pytest.raises(LiftCompileError, match=r"the array of type \[i -> \[float\]\(i \+ 1\)\]65536 has more "
                                               r"than 2147483647 elements, the limit of the kernels' int indices"):
        compile_program(parse(TRI).program("p"), sizes={"N": 65536})
    compile_program(parse(TRI).program("p"), sizes={"N": 65535})      # 2147450880 elements
    f = tmp_path / "tri.lift"
    f.write_text(TRI)
    rc, err = _cli(capsys, "compile", f, "--size", "N=70000", "--global", "64")
    assert rc == 1 and err.startswith(f"{f}:2:1: error: the array of type [i -> [float](i + 1)]70000 has more")


def test_a_triangle_beyond_int_indices_is_refused_at_launch(runtime):
    k = compile_program(parse(TRI).program("p"))
    with pytest.raises(LiftCompileError, match=r"has more than 2147483647 elements \(with N=70000\)"):
        runtime.run(k, {"x": np.zeros(100, np.float32)}, sizes={"N": 70000}, global_size=64)


@pytest.mark.parametrize("g, l", [("8", "16"), ("8,2", "4"), ("6", "4")])
def test_compile_refuses_an_ndrange_run_would_refuse(tmp_path, capsys, g, l):
    f = tmp_path / "p.lift"
    f.write_text("program p(x: [float]N) = mapGlb(0)(\\a -> a) $ x\n")
    rc, err = _cli(capsys, "compile", str(f), "--global", g, "--local", l)
    dims = g.replace(",", ", ") + ("," if "," not in g else "")
    assert rc == 1
    assert err.startswith(f"error: the global size ({dims})") and \
        "is not a multiple of the local size" in err
    assert _cli(capsys, "compile", str(f), "--global", "16", "--local", "8")[0] == 0
