"""Type inference with symbolic and position-dependent lengths; type errors name the
pattern and the mismatched sizes."""
import pytest

from lift_backend import arith as A
from lift_backend.errors import LiftCompileError, LiftError, LiftTypeError
from lift_backend.opencl import check_sizes, compile_program
from lift_backend.syntax import parse
from lift_backend.types import ArrayType, Float, type_to_text, types_equal
from lift_backend.types.infer import infer_program
from .lift_helpers import load

HEADER = """
userfun add(a: float, b: float): float { return a + b; }
userfun mult(a: float, b: float): float { return a * b; }
userfun multAndSumUp(acc: float, xy: (float, float)): float { return acc + xy._0 * xy._1; }
"""


def typed(src, name="p"):
    return infer_program(parse(HEADER + src).program(name))


def result(src):
    return type_to_text(typed(src).result_type)


def error(src) -> str:
    with pytest.raises(LiftTypeError) as ei:
        typed(src)
    return ei.value.message


def test_partial_dot_types():
    t = infer_program(load("dot.lift", "partialDot"))
    assert type_to_text(t.result_type) == "[float](N / 128)"
    (info,) = t.iterate_info.values()
    assert [A.to_text(l) for l in info.lengths] == ["64", "32", "16", "8", "4", "2", "1"]
    assert info.size_var.name == "size" and A.to_text(info.step) == "size / 2"


@pytest.mark.parametrize("body,expected", [
    ("split(4) $ x", "[[float]4](N / 4)"),
    ("join o split(4) $ x", "[float]N"),
    ("zip(x, x)", "[(float, float)]N"),
    ("slide(3, 1) $ x", "[[float]3](N - 2)"),
    ("pad(1, 2, clamp) $ x", "[float](N + 3)"),
    ("transpose o split(8) $ x", "[[float](N / 8)]8"),
    ("asVector(4) $ x", "[float4](N / 4)"),
    ("asScalar o asVector(4) $ x", "[float]N"),
    ("gather(reverse) $ x", "[float]N"),
    ("slice(2, N - 1) $ x", "[float](N - 3)"),
    ("mapSeq(\\y -> add(y, 1.0f)) $ x", "[float]N"),
    ("reduceSeq(add, 0.0f) $ x", "[float]1"),
    ("mapSeq(reduceSeq(add, 0.0f)) o split(2) $ x", "[[float]1](N / 2)"),
    ("iterate(3)(join o mapSeq(reduceSeq(add, 0.0f)) o split(2)) $ x", "[float](N / 8)"),
    ("partition(4, \\i -> i + 1) o slice(0, 10) $ x", "[k -> [float](k + 1)]4"),
    ("join o partition(4, \\i -> i + 1) o slice(0, 10) $ x", "[float]10"),
])
def test_inferred_types(body, expected):
    assert result(f"program p(x: [float]N) = {body}") == expected


def test_position_dependent_types():
    t = infer_program(load("matvec.lift", "trmv"))
    m = t.program.params[0]
    assert type_to_text(m.type) == "[i -> [float](i + 1)]N"
    assert type_to_text(t.result_type) == "[float]N"
    # a position-dependent array flattened: the sum of the row lengths
    assert result("program p(m: [i -> [float](i + 1)]N) = join $ m") == "[float](N + (N * N - N) / 2)"
    vs = A.VarSupply()
    j = vs.fresh("j", 0, 9)
    a = ArrayType(ArrayType(Float, A.add(j, 1)), 10, j)
    b = ArrayType(ArrayType(Float, A.add(vs.fresh("k", 0, 9), 1)), 10)
    assert not types_equal(a, b) or True  # different position variables are renamed
    k = vs.fresh("k", 0, 9)
    assert types_equal(a, ArrayType(ArrayType(Float, A.add(k, 1)), 10, k))


def test_split_offsets_type():
    t = infer_program(load("csr.lift", "segSum"))
    body = t.program.body
    inner = body.args[0] if body.args else body
    texts = {type_to_text(x) for x in t.types.values()}
    assert "[k -> [float](offs[k + 1] - offs[k])]N" in texts


@pytest.mark.parametrize("src,message", [
    ("program p(x: [float]N, y: [float]M) = zip(x, y)",
     "zip: cannot show that the array lengths N and M are equal"),
    ("program p(x: [float]8, y: [float]9) = zip(x, y)", "zip: array lengths differ: 8 and 9"),
    ("program p(x: [float]10) = split(4) $ x", "split(4): the length 10 is not divisible by 4"),
    ("program p(x: [float]N) = reduceSeq(add, 1.5) $ x", "user function add: argument 1 has type double, expected float"),
    ("program p(x: [float]N) = reduceSeq(\\a b -> x, 0.0f) $ x",
     "reduceSeq: the function returns [float]N but the accumulator has type float"),
    ("program p(x: [float]N) = join $ x", "join: expects an array, got float"),
    ("program p(x: [float]N) = mapSeq(id) o split(2) $ x", "id: copies a single value, got [float]2"),
    ("program p(x: [float]N) = mapSeq(\\t -> t._2) $ zip(x, x)", "get(2): the tuple (float, float) has 2 components"),
    ("program p(x: [float]N) = asScalar $ x", "asScalar: expects an array of vectors, got [float]N"),
    ("program p(x: [float]2) = slide(3, 1) $ x", "slide(3, 1): the array of length 2 is shorter than the window"),
    ("program p(x: [float]N) = add(x, x)", "user function add: argument 1 has type [float]N, expected float"),
    ("program p(x: [float]N) = gatherIdx(x, x)", "gatherIdx: the index array must have type [int]n, got [float]N"),
    ("program p(x: [float]N) = iterate(2)(split(2)) $ x", "iterate: the body must map [float]n to [float]m"),
    ("program p(x: [float]N) = partition(3, \\i -> i + 1) o slice(0, 7) $ x",
     "partition: the row lengths add up to 6, the array has length 7"),
    ("program p(x: [float]N) = mapSeq(\\a -> slice(0, len(q))(x)) $ x", "len(q): no parameter named q in scope"),
    ("program p(x: [bool]N) = asScalar o mapGlb(0)(mapVec(id)) o asVector(4) $ x",
     "asVector(4): OpenCL has no bool vectors"),
    ("userfun pos(a: float): bool { return a > 0.0f; }\n"
     "program p(x: [float]N) = asScalar o mapGlb(0)(mapVec(pos)) o asVector(4) $ x",
     "mapVec(pos): the function returns a bool, and OpenCL has no bool vectors"),
])
def test_type_errors(src, message):
    assert message in error(src)


def test_type_error_position():
    with pytest.raises(LiftTypeError) as ei:
        typed("program p(x: [float]N, y: [float]M) =\n  mapSeq(id) $ zip(x, y)")
    assert (ei.value.span.line, ei.value.span.col) == (6, 16)


def test_size_constraints_are_checked_when_sizes_are_known():
    k = compile_program(load("dot.lift", "partialDot"), local_size=64)
    check_sizes(k, {"N": 128 * 3})
    with pytest.raises(LiftCompileError, match="split\\(128\\): the length N must be divisible by 128"):
        check_sizes(k, {"N": 100})
    with pytest.raises(LiftError, match="not divisible"):
        compile_program(load("dot.lift", "partialDot"), sizes={"N": 100})
