"""Address spaces (Algorithm 1), allocation, barrier elimination, control flow — compiled
and run on PoCL."""
import numpy as np
import pytest

from lift_backend.errors import LiftCompileError
from lift_backend.memory import GLOBAL, LOCAL, PRIVATE, allocate, infer_address_spaces
from lift_backend.opencl import compile_program
from lift_backend.types.infer import infer_program
from .lift_helpers import load

rng = np.random.default_rng(7)


def test_partial_dot_address_spaces_and_buffers():
    typed = infer_program(load("dot.lift", "partialDot"))
    spaces = infer_address_spaces(typed)
    alloc = allocate(typed, spaces)
    mems = {m.name: m for m in alloc.memories}
    assert (mems["tmp1"].space, mems["tmp1"].size.value, mems["tmp1"].kind) == (LOCAL, 64, "temp")
    assert (mems["tmp2"].space, mems["tmp2"].size.value) == (LOCAL, 32)   # the iterate's second buffer
    assert mems["acc1"].space == PRIVATE and mems["acc1"].kind == "variable"
    assert mems["x"].kind == "input" and mems["out"].space == GLOBAL
    assert {m.kind for m in alloc.memories} == {"input", "output", "temp", "variable", "pointer"}
    # data-layout patterns allocate nothing: 2 inputs, output, 2 local buffers, 2 accumulators,
    # the iterate's 2 pointers
    assert len(alloc.memories) == 9


def compile_misc(name, **kw):
    return compile_program(load("misc.lift", name), **kw)


@pytest.mark.parametrize("name,barriers", [
    ("lclChain", 1), ("lclShare", 2), ("zipped", 2), ("scale", 0), ("twoMaps", 0), ("privateCopy", 0)])
def test_barrier_counts(name, barriers):
    assert compile_misc(name).barriers == barriers


def test_private_and_global_temporaries():
    k = compile_misc("privateCopy")
    assert "  float tmp1[4];" in k.source
    k = compile_misc("twoMaps")
    assert [p.kind for p in k.params] == ["input", "output", "temp", "size"]


def test_divergent_barrier_is_refused():
    # without the local size the dim-0 mapLcl is a loop some work-items skip: no barrier there
    with pytest.raises(LiftCompileError, match="barrier inside control flow"):
        compile_misc("nested")
    k = compile_misc("nested", local_size=(4, 8), sizes={"M": 8})
    assert k.barriers == 2


def test_control_flow_shapes():
    k = compile_misc("lclChain", local_size=64)
    assert "for (int l_id" not in k.source and "int l_id = get_local_id(0);" in k.source
    k = compile_misc("lclChain", local_size=128)
    assert "if (get_local_id(0) < 64) {" in k.source
    k = compile_misc("lclChain", local_size=32)
    assert "l_id += get_local_size(0)" in k.source
    k = compile_misc("lclChain", local_size=64, global_size=64, sizes={"N": 64})
    assert "for (" not in k.source and k.barriers == 0




@pytest.mark.opencl
def test_run_misc(runtime):
    x = rng.random(256, dtype=np.float32)
    y = rng.random(256, dtype=np.float32)
    out = runtime.run(compile_misc("scale"), {"x": x, "s": 2.5}, global_size=64)
    np.testing.assert_allclose(out, x * 2.5, rtol=1e-6)
    out = runtime.run(compile_misc("privateCopy"), {"x": x}, global_size=16)
    np.testing.assert_allclose(out.reshape(-1), 2 * x, rtol=1e-6)
    out = runtime.run(compile_misc("twoMaps"), {"x": x}, global_size=32)
    np.testing.assert_allclose(out, x * x + 1, rtol=1e-6)
    for name, ref in [("lclChain", 2 * x), ("lclShare", 2 * x.reshape(-1, 64)[:, ::-1].reshape(-1))]:
        out = runtime.run(compile_misc(name), {"x": x}, global_size=64, local_size=32)
        np.testing.assert_allclose(out, ref, rtol=1e-6)
    out = runtime.run(compile_misc("zipped"), {"x": x, "y": y}, global_size=64, local_size=32)
    np.testing.assert_allclose(out, (x + y).reshape(-1, 64)[:, ::-1].reshape(-1), rtol=1e-6)
    out = runtime.run(compile_misc("swapPairs"), {"x": x, "y": y}, global_size=64)
    np.testing.assert_array_equal(out, x)


@pytest.mark.opencl
def test_run_nested_2d(runtime):
    x = rng.random((12, 8), dtype=np.float32)
    k = compile_misc("nested", local_size=(4, 8), sizes={"M": 8})
    out = runtime.run(k, {"x": x}, global_size=(8, 8), local_size=(4, 8))
    np.testing.assert_array_equal(out.reshape(12, 8), x[:, ::-1])


@pytest.mark.opencl
def test_run_iterate_and_high_level_patterns(runtime):
    x = rng.random(96, dtype=np.float32)
    k = compile_misc("iterReverse", local_size=32)
    assert k.barriers == 3 and "src1[31 - l_id]" in k.source
    out = runtime.run(k, {"x": x}, global_size=64, local_size=32)
    np.testing.assert_allclose(out, 8 * x.reshape(-1, 32)[:, ::-1].reshape(-1), rtol=1e-6)
    out = runtime.run(compile_misc("highLevel"), {"x": x}, global_size=1)
    np.testing.assert_allclose(out, x.reshape(-1, 4).sum(1), rtol=1e-5)


@pytest.mark.opencl
def test_a_barrier_in_a_loop_every_work_item_runs_alike_is_allowed(runtime):
    """A work-group of 8 x 2 work-items copies a 4 x 8 tile to local memory: each runs the
    dim-1 ``mapLcl`` twice (4 rows / 2), so the barrier after each row is reached by all of
    them alike (it was refused as divergent); with 3 rows per group it would not be (refused)."""
    import numpy as np
    from lift_backend import compile_program, parse
    src = ("program p(x: [[[float]M]4]G) = mapWrg(0)(\\rows -> mapLcl(1)(\\row -> "
           "toGlobal(mapLcl(0)(id)) $ row) o toLocal(mapLcl(1)(mapLcl(0)(id))) $ rows) $ x")
    k = compile_program(parse(src).program("p"), global_size=(16, 2), local_size=(8, 2), sizes={"M": 8})
    assert "for (int l_id1 = get_local_id(1); l_id1 < 4; l_id1 += get_local_size(1))" in k.source
    x = np.arange(2 * 4 * 8, dtype=np.float32).reshape(2, 4, 8)
    out = runtime.run(k, {"x": x}, global_size=(16, 2), local_size=(8, 2))
    np.testing.assert_array_equal(np.asarray(out).ravel(), x.ravel())
    with pytest.raises(LiftCompileError, match="barrier inside control flow"):
        compile_program(parse(src.replace("]4]", "]6]")).program("p"), global_size=(16, 4),
                        local_size=(8, 4), sizes={"M": 8})
