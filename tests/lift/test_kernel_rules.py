"""Rules of one kernel (lift_backend/opencl/kernel_rules.py): no two parallel maps distribute
the same NDRange dimension, no stage reads what other work-groups wrote in the same kernel
(paper §5.4), private results are read only by the work-item that wrote them.  Each refusal
is a located compile error; the accepted neighbours of each class still run correctly."""
import numpy as np
import pytest

from lift_backend import CompiledPipeline, LiftCompileError, compile_program, parse

DBL = "userfun dbl(a: float): float { return a + a; }\n"


def refused(text, name="p"):
    with pytest.raises(LiftCompileError) as ei:
        compile_program(parse(text, "t.lift").program(name))
    e = ei.value
    return f"{e.span.line}:{e.span.col}", e.message


# ------------------------------------------------------------------ across work-groups
ADD = "userfun add(a: float, b: float): float { return a + b; }\n"
X = np.arange(16, dtype=np.float32)

# a stage reading what other work-groups wrote starts a new kernel: the producing call
# (depending on the program's parameters only) becomes a kernel of its own
SPLIT = [
    # B_glb2: a gather between two mapGlb stages
    (DBL + "program p(x: [float]N) = mapGlb(0)(id) o gather(reverse) o mapGlb(0)(dbl) $ x", (2 * X)[::-1]),
    # split between them
    (DBL + "program p(x: [float]N) = join o mapGlb(0)(mapSeq(id)) o split(4) o mapGlb(0)(dbl) $ x", 2 * X),
    # a sequential consumer at the top level reads every element
    (DBL + ADD + "program p(x: [float]N) = toGlobal(mapSeq(id)) o reduceSeq(add, 0.0f) o mapGlb(0)(dbl) $ x",
     np.array([2 * X.sum()])),
    # a mapWrg's result consumed in the same program
    ("program p(x: [float]N) = join o mapWrg(0)(toGlobal(mapLcl(0)(id)) o gather(reverse)) o split(4) o join o "
     "mapWrg(0)(toGlobal(mapLcl(0)(id))) o split(8) $ x", X.reshape(4, 4)[:, ::-1].reshape(-1)),
    # another dimension
    ("program p(x: [float]N) = mapGlb(1)(id) o mapGlb(0)(id) $ x", X),
    # read from inside a parallel map's body (every work-item reads all of it)
    (DBL + ADD + "program p(x: [float]N) = (\\y -> mapGlb(0)(\\v -> toGlobal(mapSeq(id)) o reduceSeq(add, v) $ y) $ x)"
     " o mapGlb(0)(dbl) $ x", X + 2 * X.sum()),
    # a zip of an element-wise result and a reversed one: the reversed one's producer is
    # split off (a hunt found the element-wise one named, and the program refused)
    (DBL + ADD + "program p(x: [float]N) = (\\t -> mapGlb(0)(\\p -> add(p._0, p._1)) $ zip(mapGlb(0)(dbl) $ t, "
     "gather(reverse) $ t)) o mapGlb(0)(dbl) $ x", 4 * X + (2 * X)[::-1]),
    # three stages
    (DBL + "program p(x: [float]N) = mapGlb(0)(dbl) o gather(reverse) o mapGlb(0)(dbl) o gather(reverse) o "
     "mapGlb(0)(dbl) $ x", 8 * X),
]


@pytest.mark.opencl
@pytest.mark.parametrize("k", range(len(SPLIT)))
def test_stages_across_work_groups_become_kernels(runtime, k):
    text, expect = SPLIT[k]
    c = compile_program(parse(text).program("p"))
    assert isinstance(c, CompiledPipeline) and len(c.stages) >= 2
    assert c.source.startswith("// kernel 1 of")
    out = runtime.run(c, {"x": X}, global_size=(4, 2) if "mapGlb(1)" in text else 4, local_size=None)
    np.testing.assert_array_equal(np.asarray(out).reshape(-1), expect)


def test_stages_of_b_glb2():
    c = compile_program(parse(SPLIT[0][0]).program("p"))
    assert [k.name for k in c.stages] == ["p_stage1", "p"] and c.outputs == ("stage1", None)
    assert "kernel void p(const global float* restrict x, const global float* restrict stage1," in c.source


@pytest.mark.opencl
def test_split_program_from_the_command_line(tmp_path, capsys):
    from lift_backend.cli import main
    f = tmp_path / "b.lift"
    f.write_text(SPLIT[0][0])
    np.save(tmp_path / "x.npy", X)
    rc = main(["run", str(f), "--arg", f"x={tmp_path / 'x.npy'}", "--global", "4", "--out", str(tmp_path / "o.npy")])
    assert rc == 0, capsys.readouterr().err
    np.testing.assert_array_equal(np.load(tmp_path / "o.npy"), (2 * X)[::-1])


@pytest.mark.parametrize("text, where", [
    # the producer depends on a sequential map's row: it cannot be a kernel of its own
    ("program p(x: [[float]M]N) = map(\\row -> mapGlb(0)(id) o gather(reverse) o mapGlb(0)(id) $ row) $ x", "1:41"),
    # iterate: the next iteration reads the previous one reversed
    ("program p(x: [float]N) = iterate(2)(mapGlb(0)(id) o gather(reverse)) $ x", "1:37"),
])
def test_stages_across_work_groups_that_cannot_be_split_are_refused(text, where):
    at, msg = refused(text)
    assert at == where
    assert "OpenCL cannot synchronise work-groups" in msg and "§5.4" in msg


def test_message_names_both_stages():
    at, msg = refused("program p(x: [[float]M]N) = map(\\row -> mapGlb(0)(id) o gather(reverse) o "
                      "mapGlb(0)(id) $ row) $ x")
    assert msg.startswith("mapGlb(0) reads the result of mapGlb(0) at 1:75 in the same kernel")


@pytest.mark.opencl
@pytest.mark.parametrize("text, expect", [
    # element by element through the same dimension: each work-item reads what it wrote
    (DBL + "program p(x: [float]N) = mapGlb(0)(dbl) o mapGlb(0)(dbl) $ x", lambda x: 4 * x),
    (DBL + "userfun add(a: float, b: float): float { return a + b; }\n"
     "program p(x: [float]N) = mapGlb(0)(\\t -> add(t._0, t._1)) $ zip(mapGlb(0)(dbl) $ x, x)",
     lambda x: 3 * x),
    # rows: the same work-item wrote the whole row
    (DBL + "program p(x: [float]N) = join o mapGlb(0)(mapSeq(dbl)) o mapGlb(0)(mapSeq(dbl)) o split(4) $ x",
     lambda x: 4 * x),
    # the data-layout patterns after the last stage only shape the output
    ("program p(x: [float]N) = join o mapGlb(0)(mapSeq(id)) o split(4) $ x", lambda x: x),
])
def test_element_wise_stages_run(runtime, text, expect):
    x = np.arange(16, dtype=np.float32)
    k = compile_program(parse(text).program("p"))
    out = runtime.run(k, {"x": x}, global_size=4)
    np.testing.assert_array_equal(out.reshape(-1), expect(x))


# ------------------------------------------------------------------ nesting
@pytest.mark.parametrize("text, where, msg", [
    ("program p(x: [[float]M]N) = mapGlb(0)(mapGlb(0)(id)) $ x", "1:29",
     "mapGlb(0) cannot be nested in mapGlb(0): both distribute dimension 0"),
    ("program p(x: [[float]M]N) = join o mapWrg(0)(mapLcl(0)(mapLcl(0)(id))) o split(2) $ x", "1:36",
     "mapLcl(0) cannot be nested in mapLcl(0): both distribute dimension 0"),
    ("program p(x: [[[float]K]M]N) = mapWrg(0)(mapWrg(0)(mapLcl(0)(id))) $ x", "1:32",
     "mapWrg(0) cannot be nested in mapWrg(0): both distribute dimension 0"),
    ("program p(x: [[float]M]N) = mapWrg(0)(mapGlb(1)(id)) $ x", "1:29",
     "mapGlb cannot be nested in mapWrg (use mapLcl inside mapWrg)"),
    ("program p(x: [[[float]K]M]N) = mapGlb(0)(mapWrg(1)(mapLcl(1)(id))) $ x", "1:32",
     "mapWrg cannot be nested in mapGlb"),
    ("program p(x: [[float]M]N) = mapGlb(0)(mapLcl(1)(id)) $ x", "1:29",
     "mapLcl cannot be nested in mapGlb (use mapWrg)"),
    ("program p(x: [[[[float]L]K]M]N) = mapWrg(0)(mapLcl(0)(mapWrg(1)(mapLcl(1)(id)))) $ x", "1:35",
     "mapWrg cannot be nested in mapLcl"),
    # a mapLcl outside every mapWrg: each work-group would run the whole map (a hunt found the
    # groups racing on an iterate's global temporaries: wrong results, exit status 0)
    ("program p(x: [float]N) = mapLcl(0)(id) $ x", "1:26", "mapLcl must be nested in a mapWrg"),
    ("userfun inc(a: float): float { return a + 1.0f; }\n"
     "program p(x: [float]N) = mapLcl(0)(id) o iterate(5)(mapLcl(0)(inc) o gather(reverse)) "
     "o mapLcl(0)(id) $ x", "2:89", "mapLcl must be nested in a mapWrg"),
    ("program p(x: [[float]M]N) = mapSeq(mapLcl(0)(id)) $ x", "1:29",
     "mapLcl must be nested in a mapWrg"),
])
def test_nesting_the_same_dimension_is_refused(text, where, msg):
    at, m = refused(text)
    assert at == where and m.startswith(msg)


def test_c_nbody_inner_mapLcl_refused():
    text = ("userfun force(acc: float, pj: float, pi: float): float { float d = pj - pi; "
            "return acc + d / (d * d + 0.01f); }\n"
            "program nbody(x: [float]N) =\n"
            "  join o mapWrg(0)(\\myPs ->\n"
            "    toGlobal(mapLcl(0)(\\pi -> toPrivate(mapSeq(id)) o reduceSeq(\\acc pj -> force(acc, pj, pi), 0.0f)"
            " $ toLocal(mapLcl(0)(id)) $ x)) $ myPs\n"
            "  ) o split(8) $ x\n")
    at, msg = refused(text, "nbody")
    assert at == "4:104" and msg.startswith("mapLcl(0) cannot be nested in mapLcl(0)")


@pytest.mark.opencl
def test_different_dimensions_still_nest(runtime):
    x = np.arange(32, dtype=np.float32).reshape(4, 8)
    k = compile_program(parse("program p(x: [[float]M]N) = mapGlb(0)(mapGlb(1)(id)) $ x").program("p"))
    np.testing.assert_array_equal(runtime.run(k, {"x": x}, global_size=(2, 4)), x)


# ------------------------------------------------------------------ private memory
@pytest.mark.parametrize("text, where, producer", [
    ("program p(x: [float]N) =\n  join o mapWrg(0)(toGlobal(mapLcl(0)(id)) o gather(reverse) o "
     "toPrivate(mapLcl(0)(id))) o split(8) $ x", "2:20", "mapLcl(0) at 2:64"),
    ("program p(x: [float]N) = toGlobal(mapGlb(0)(id)) o gather(reverse) o toPrivate(mapGlb(0)(id)) $ x",
     "1:26", "mapGlb(0) at 1:70"),
    ("program p(x: [float]N) =\n  join o mapWrg(0)(join o toGlobal(mapLcl(0)(mapSeq(id))) o split(1) o "
     "gather(reverse) o join o mapLcl(0)(toPrivate(mapSeq(id))) o split(1)) o split(8) $ x", "2:27",
     "mapLcl(0) at 2:97"),
])
def test_private_results_read_by_other_work_items_are_refused(text, where, producer):
    at, msg = refused(text)
    assert at == where
    assert msg.startswith(f"{producer.split(' at ')[0]} reads the result of {producer}, which is in private memory")
    assert "private memory is per work-item" in msg


@pytest.mark.opencl
def test_private_result_read_by_its_own_work_item_runs(runtime):
    text = ("program p(x: [float]N) =\n  join o mapWrg(0)(toGlobal(mapLcl(0)(id)) o "
            "toPrivate(mapLcl(0)(id))) o split(8) $ x")
    x = np.arange(16, dtype=np.float32)
    k = compile_program(parse(text).program("p"))
    np.testing.assert_array_equal(runtime.run(k, {"x": x}, global_size=16, local_size=8), x)
