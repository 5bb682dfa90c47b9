"""The Python API: building programs with lift_backend.ir.builders (as the λcu lowering
will), compiling once and launching many times with numpy arrays."""
import numpy as np
import pytest

from lift_backend import alpha_equal, compile_program, parse
from lift_backend.arith import size_var
from lift_backend.errors import LiftRuntimeError
from lift_backend.ir.builders import *
from lift_backend.types import ArrayType, Float, Int, TupleType
from .lift_helpers import PROGRAMS, load

N = size_var("N")
add = userfun("add", [("a", Float), ("b", Float)], Float, "return a + b;")
mas = userfun("multAndSumUp", [("acc", Float), ("xy", TupleType((Float, Float)))], Float,
              "return acc + xy._0 * xy._1;")


def built_partial_dot():
    return program("partialDot", [("x", ArrayType(Float, N)), ("y", ArrayType(Float, N))], lambda x, y:
        compose(join(), mapWrg(compose(
            join(), toGlobal(mapLcl(mapSeq(id_()))), split(1),
            iterate(6, compose(join(), mapLcl(compose(toLocal(mapSeq(id_())), reduceSeq(add, flit(0)))), split(2))),
            join(), mapLcl(compose(toLocal(mapSeq(id_())), reduceSeq(mas, flit(0)))), split(2))),
            split(128))(zip_(x, y)))


def test_builders_give_the_parsed_program():
    assert alpha_equal(built_partial_dot(), load("dot.lift", "partialDot"))
    k1 = compile_program(built_partial_dot(), local_size=64)
    k2 = compile_program(load("dot.lift", "partialDot"), local_size=64)
    assert k1.source == k2.source


def test_python_lambdas_and_index_functions():
    M = size_var("M")
    prog = program("t", [("x", ArrayType(ArrayType(Float, M), N))], lambda x:
                   compose(mapWrg(mapLcl(id_())), split(N), gather(lambda i: (i % N) * M + i // N), join())(x))
    assert "out[l_id + N * wg_id] = id(x[wg_id + M * l_id]);" in compile_program(prog).source
    p2 = program("s", [("x", ArrayType(Float, N))],
                 lambda x: mapGlb(lam(lambda a: add(a, flit(1.5))))(x))
    assert "out[gl_id] = add(x[gl_id], 1.5f);" in compile_program(p2).source


@pytest.mark.opencl
def test_segmented_reduction_of_a_pull_thunk(runtime):
    """What a fused λcu segmented reduction of the thunk v[idx[i]] looks like in Lift."""
    NNZ, S, V = size_var("NNZ"), size_var("S"), size_var("V")
    prog = program("segGather",
                   [("v", ArrayType(Float, V)), ("idx", ArrayType(Int, NNZ)), ("offs", ArrayType(Int, S + 1))],
                   lambda v, idx, offs: compose(join(), mapGlb(compose(toGlobal(mapSeq(id_())),
                                                                     reduceSeq(add, flit(0)))))(
                       splitOffsets(offs, gatherIdx(idx, v))))
    k = compile_program(prog)
    # the data-dependent index is checked (see test_bounds_checks.py); the offsets, an input,
    # are checked by the host before the launch
    assert "acc1 = add(acc1, v[lift_check(idx[i + offs[gl_id]], V, 0, lift_err)]);" in k.source
    rng = np.random.default_rng(3)
    v = rng.random(50, dtype=np.float32)
    idx = rng.integers(0, 50, 200).astype(np.int32)
    offs = np.sort(rng.integers(0, 201, 11)).astype(np.int32)
    offs[0], offs[-1] = 0, 200
    for _ in range(3):  # compiled once, launched many times
        out = runtime.run(k, {"v": v, "idx": idx, "offs": offs}, global_size=8)
        ref = [v[idx[offs[s]:offs[s + 1]]].sum() for s in range(10)]
        np.testing.assert_allclose(out, ref, rtol=1e-5)
    assert runtime.build(k.source) is runtime.build(k.source)


@pytest.mark.opencl
def test_runtime_errors(runtime):
    k = compile_program(load("csr.lift", "segSum"))
    with pytest.raises(LiftRuntimeError, match="missing argument"):
        runtime.run(k, {"vals": np.zeros(3, np.float32)}, global_size=4)
    with pytest.raises(LiftRuntimeError, match="the global size is needed"):
        runtime.run(k, {"vals": np.zeros(3, np.float32), "offs": np.array([0, 3], np.int32)})
    k = compile_program(load("dot.lift", "partialDot"), local_size=64)
    with pytest.raises(LiftRuntimeError, match="compiled for the local size"):
        runtime.run(k, {"x": np.zeros(128, np.float32), "y": np.zeros(128, np.float32)},
                    global_size=64, local_size=32)
    from lift_backend.errors import LiftCompileError
    with pytest.raises(LiftCompileError, match="must be divisible by 128"):
        runtime.run(k, {"x": np.zeros(100, np.float32), "y": np.zeros(100, np.float32)}, global_size=64)
    rows = parse("userfun add(a: float, b: float): float { return a + b; }\n"
                 "program rowSums(m: [i -> [float](i + 1)]N) ="
                 " join o mapGlb(0)(toGlobal(mapSeq(id)) o reduceSeq(add, 0.0f)) $ m").program("rowSums")
    k = compile_program(rows)
    with pytest.raises(LiftRuntimeError, match="are not determined by the arguments. shapes"):
        runtime.run(k, {"m": np.zeros(7, np.float32)}, global_size=4)      # no N gives 7 elements
    # 10 elements: N = 4, the one size whose triangle has 10 (session 39c)
    np.testing.assert_allclose(runtime.run(k, {"m": np.ones(10, np.float32)}, global_size=4), [1, 2, 3, 4])
    np.testing.assert_allclose(runtime.run(k, {"m": np.ones(10, np.float32)}, sizes={"N": 4}, global_size=4),
                               [1, 2, 3, 4])
    k = compile_program(load("matvec.lift", "trmv"))   # N inferred from v
    with pytest.raises(LiftRuntimeError, match="argument m: expected 15 elements"):
        runtime.run(k, {"m": np.zeros(10, np.float32), "v": np.zeros(5, np.float32)}, global_size=4)


@pytest.mark.opencl
def test_build_failure_shows_the_log(runtime):
    bad = parse("userfun f(a: float): float { return a +; }\n"
                "program p(x: [float]N) = mapGlb(0)(f) $ x").program("p")
    with pytest.raises(LiftRuntimeError) as ei:
        runtime.run(compile_program(bad), {"x": np.zeros(4, np.float32)}, global_size=4)
    msg = str(ei.value)
    assert "OpenCL build failed" in msg and "error" in msg.lower() and "return a +;" in msg


@pytest.mark.opencl
def test_double(runtime):
    if not runtime.has_fp64:
        pytest.skip("device without cl_khr_fp64")
    prog = parse("userfun addd(a: double, b: double): double { return a + b; }\n"
                 "program s(x: [double]N) = join o mapGlb(0)(toGlobal(mapSeq(id)) o reduceSeq(addd, 0.0))"
                 " o split(4) $ x").program("s")
    x = np.arange(16, dtype=np.float64) / 3
    out = runtime.run(compile_program(prog), {"x": x}, global_size=4)
    assert out.dtype == np.float64
    np.testing.assert_allclose(out, x.reshape(4, 4).sum(1))


def test_package_docstring_example():
    import lift_backend
    doc = lift_backend.__doc__
    start = doc.index("    from lift_backend.ir.builders import *")
    code = "\n".join(line[4:] for line in doc[start:].split("\n\n")[0].splitlines())
    env = {}
    exec(code, env)
    k = compile_program(env["prog"], local_size=64)
    assert "acc1 = add(acc1, x[128 * gl_id + i]);" in k.source
