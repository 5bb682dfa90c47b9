"""Names of the generated C (issue 11, lift_backend/opencl/names.py): the generator's names
(out, tmp1, acc1, src1/dst1, swap, vector variants, id functions) avoid the user's, and user
names that OpenCL C gives a meaning (keywords, built-in functions, reserved prefixes) are
located errors, never a wrong result or a failed build."""
import dataclasses

import numpy as np
import pytest

from lift_backend import LiftCompileError, LiftSyntaxError, compile_program, parse

ADD = "userfun add(a: float, b: float): float { return a + b; }\n"
DBL = "userfun dbl(a: float): float { return a + a; }\n"
X = np.arange(16, dtype=np.float32)


def run(runtime, text, args, **kw):
    k = compile_program(parse(text).program("p"))
    return runtime.run(k, args, global_size=kw.pop("global_size", 4), **kw)


@pytest.mark.opencl
def test_parameter_named_like_the_accumulator(runtime):
    # L_acc1: the accumulator acc1 shadowed the parameter acc1 (silently wrong sums)
    text = ADD + "program p(x: [float]N, acc1: float) = join o mapGlb(0)(toGlobal(mapSeq(id)) o " \
                 "reduceSeq(add, acc1)) o split(4) $ x"
    out = run(runtime, text, {"x": X, "acc1": np.float32(100)})
    np.testing.assert_array_equal(out, X.reshape(4, 4).sum(1) + 100)


@pytest.mark.opencl
@pytest.mark.parametrize("name", ["out", "tmp1", "out_1"])
def test_parameters_named_like_buffers(runtime, name):
    text = DBL + f"program p({name}: [float]N) = mapGlb(0)(dbl) o mapGlb(0)(dbl) $ {name}"
    np.testing.assert_array_equal(run(runtime, text, {name: X}), 4 * X)


@pytest.mark.opencl
def test_parameters_named_like_loop_and_iterate_names(runtime):
    text = ADD + ("program p(x: [float]N, swap: float, size: float, src1: float, wg_id: float, l_id: float) =\n"
                  "  join o mapWrg(0)(toGlobal(mapLcl(0)(\\v -> add(v, add(swap, add(size, add(src1, add(wg_id, l_id)))))))"
                  " o iterate(2)(toLocal(mapLcl(0)(id)) o gather(reverse)) o toLocal(mapLcl(0)(id))) o split(8) $ x")
    one = np.float32(1)
    out = run(runtime, text, {"x": X, "swap": one, "size": one, "src1": one, "wg_id": one, "l_id": one},
              global_size=16, local_size=8)
    np.testing.assert_array_equal(out, X + 5)


@pytest.mark.opencl
def test_user_function_named_like_a_vector_variant(runtime):
    # add's vector variant would be add_float4, the name of a user function
    text = ("userfun add_float4(a: float, b: float): float { return a - b; }\n" + ADD +
            "program p(x: [float]N) = asScalar o mapGlb(0)(\\v -> mapVec(add_float4)(v, mapVec(add)(v, v))) "
            "o asVector(4) $ x")
    np.testing.assert_array_equal(run(runtime, text, {"x": X}), -X)


@pytest.mark.opencl
def test_tuple_component_names_do_not_capture_parameters(runtime):
    # M_tuplename: xy._0 became the parameter xy_0, already a parameter
    text = ("userfun f(xy: (float, float), xy_0: float): float { return xy._0 + xy_0 + xy._1; }\n"
            "program p(x: [float]N, y: [float]N) = mapGlb(0)(\\t -> f(t, t._0)) $ zip(x, y)")
    y = np.ones(16, np.float32)
    np.testing.assert_array_equal(run(runtime, text, {"x": X, "y": y}), 2 * X + 1)


RESERVED = [
    ("userfun fabs(a: float): float { return a; }\nprogram p(x: [float]N) = mapGlb(0)(fabs) $ x",
     "fabs", "1:9", "user function fabs: the name of an OpenCL C built-in function; rename it"),
    ("userfun get_global_id(a: float): float { return a; }\n"
     "program p(x: [float]N) = mapGlb(0)(get_global_id) $ x",
     "get_global_id", "1:9", "user function get_global_id: reserved: names beginning with get_"),
    ("userfun Tuple_float_float(a: float): float { return a; }\n"
     "program p(x: [float]N) = mapGlb(0)(Tuple_float_float) $ x", "Tuple_float_float", "1:9",
     "user function Tuple_float_float: reserved: names beginning with Tuple_"),
    ("userfun f(float4: float): float { return float4; }\nprogram p(x: [float]N) = mapGlb(0)(f) $ x",
     "float4", "1:11", "user function f: parameter float4: an OpenCL C keyword or type name"),
    ("program p(x: [float]N, get_local_id: float) = mapGlb(0)(id) $ x", "get_local_id", "1:24",
     "parameter get_local_id: reserved: names beginning with get_"),
]


def _renamed(x, old: str, new: str):
    """``x`` (a Lift IR value) with the name ``old`` written ``new`` everywhere."""
    if isinstance(x, str):
        return x.replace(old, new)
    if isinstance(x, tuple):
        return tuple(_renamed(e, old, new) for e in x)
    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        return dataclasses.replace(x, **{f.name: _renamed(getattr(x, f.name), old, new)
                                         for f in dataclasses.fields(x)
                                         if f.init and f.name not in ("span", "type")})
    return x


@pytest.mark.parametrize("text, name, where, msg", RESERVED)
def test_reserved_names_are_refused_by_the_parser(text, name, where, msg):
    # one list of the names OpenCL C reserves (lift_backend/reserved.py) for the parser and the
    # generator: the parser points at the name itself
    why = msg.split(f"{name}: ", 1)[1].split(";")[0]
    with pytest.raises(LiftSyntaxError) as ei:
        parse(text, "t.lift")
    e = ei.value
    assert f"{e.span.line}:{e.span.col}" == where and f"{name} is a reserved name ({why}" in e.message


@pytest.mark.parametrize("text, name, where, msg", RESERVED + [
    (DBL + "program dbl(x: [float]N) = mapGlb(0)(dbl) $ x", None, "2:1",
     "program dbl has the name of a user function it calls"),
])
def test_reserved_names_are_located_errors(text, name, where, msg):
    # programs built through the IR (the Python API), not read by the parser, are refused by
    # the generator, at the program
    if name is not None:
        prog = _renamed(parse(text.replace(name, "zzname"), "t.lift").program("p"), "zzname", name)
        where = "1:1"          # the user function's definition, or the program
    else:
        prog = list(parse(text, "t.lift").programs.values())[-1]
    with pytest.raises(LiftCompileError) as ei:
        compile_program(prog)
    e = ei.value
    assert e.span is not None and f"{e.span.line}:{e.span.col}" == where and e.message.startswith(msg)


def test_program_named_like_a_built_in_is_refused():
    # PoCL's clCreateKernel does not find a kernel named dot (INVALID_KERNEL_NAME)
    for name, why in (("dot", "the name of an OpenCL C built-in function"),
                      ("get_x", "reserved: names beginning with get_")):
        with pytest.raises(LiftCompileError) as ei:
            compile_program(parse(f"program {name}(x: [float]N) = mapGlb(0)(id) $ x").program(name))
        assert ei.value.message.startswith(f"program {name}: {why}")
