"""Defects found by a hunt of the standalone Lift compiler (session 39):

* a consumer reading, other than element by element, the rows computed by a nested parallel
  map (``mapGlb(0)(mapGlb(1)(f))``) was refused ("compute it in a separate program") where
  the enclosing map can be a kernel of its own, as a flat producer is made one;
* a ``mapLcl`` that every work-item runs the same number of times with a barrier inside
  (a 2-D tile in local memory, local size (1, 1)) aborted PoCL 3.1 while building the kernel
  ("Could not find a dominating alternative variable", SIGABRT): such a loop now counts its
  rounds with a counter all work-items share;
* ``run`` took the sizes of the arguments' shapes only for private memory and row offsets: an
  ``iterate`` in local memory ("cannot bound the buffer sizes M / 2, M / 4") and a barrier in a
  ``mapLcl`` every work-item runs alike ("needs a barrier inside control flow") were refused
  though the arguments give every size;
* an integer ``--arg`` beyond 64 bits was "unsupported dtype object": for a float parameter it
  is the number rounded, for an integer one a value that does not fit;
* sizes were inferred from the arguments in one pass: ``x: [float](N * M), y: [float]M`` left
  ``N`` undetermined (``y`` first worked), and a length affine only at 0, 1, 2 (``N % 3``) was
  solved as if it were affine (``N=8`` for 8 elements, then "expected 2 elements").
"""
import numpy as np
import pytest

from lift_backend import compile_program, parse
from lift_backend.cli import main

NEG = "userfun neg(a: float): float { return -a; }\n"
SQ = "userfun sq(a: float): float { return a * a; }\n"
ADD = "userfun add(a: float, b: float): float { return a + b; }\n"


def _run_cli(capsys, *argv):
    rc = main([str(a) for a in argv])
    return rc, capsys.readouterr().err


def _cli_run(tmp_path, capsys, src, args, glob, local=None, extra=()):
    f = tmp_path / "p.lift"
    f.write_text(src)
    argv = ["run", f]
    for name, value in args.items():
        if isinstance(value, np.ndarray):
            np.save(tmp_path / f"{name}.npy", value)
            value = tmp_path / f"{name}.npy"
        argv += ["--arg", f"{name}={value}"]
    argv += ["--global", ",".join(map(str, glob))]
    if local is not None:
        argv += ["--local", ",".join(map(str, local))]
    argv += list(extra) + ["--out", tmp_path / "o.npy"]
    rc, err = _run_cli(capsys, *argv)
    return rc, err, (np.load(tmp_path / "o.npy") if rc == 0 else None)


# ------------------------------------------------------------ nested producers as kernels

NESTED = [
    # a row reversed by the consumer: its elements were written by other work-items of dim 1
    ("mapGlb(0)(\\r -> mapSeq(id) o gather(reverse) $ r) o mapGlb(0)(mapGlb(1)(neg)) o split(2) $ x",
     (4, 2), lambda x: -x.reshape(4, 2)[:, ::-1]),
    ("mapGlb(0)(\\r -> mapSeq(id) $ r) o mapGlb(0)(\\r -> mapGlb(1)(neg) $ r) o split(2) $ x",
     (4, 2), lambda x: -x.reshape(4, 2)),
    ("mapGlb(0)(mapGlb(1)(mapSeq(id) o gather(reverse))) o mapGlb(0)(mapGlb(1)(mapGlb(2)(neg))) "
     "o split(2) o split(2) $ x", (2, 2, 2), lambda x: -x.reshape(2, 2, 2)[:, :, ::-1]),
    ("mapGlb(0)(mapSeq(id)) o mapGlb(0)(mapGlb(1)(neg)) o pad(0, 1, mirror) o mapGlb(0)(mapGlb(1)(neg)) "
     "o slide(3, 1) $ x", (7, 3),
     lambda x: np.pad(np.stack([x[i:i + 3] for i in range(6)]), ((0, 1), (0, 0)), mode="symmetric")),
]


@pytest.mark.opencl
@pytest.mark.parametrize("body,glob,want", NESTED)
def test_a_nested_producer_read_across_work_items_becomes_a_kernel(runtime, body, glob, want):
    x = np.arange(8, dtype=np.float32)
    k = compile_program(parse(NEG + f"program p(x: [float]N) = {body}").program("p"))
    assert len(k.stages) >= 2          # the enclosing producer is a kernel of its own
    out = runtime.run(k, {"x": x}, global_size=glob)
    np.testing.assert_array_equal(np.asarray(out).reshape(-1), want(x).reshape(-1))


def test_a_nested_producer_that_reads_a_body_variable_is_still_refused():
    # the producer reads the element of the enclosing iterate's map: no kernel of its own
    src = NEG + ("program p(x: [float]N) = mapGlb(0)(\\r -> mapSeq(id) o gather(reverse) "
                 "o mapGlb(1)(neg) $ r) o split(2) $ x")
    with pytest.raises(Exception) as ei:
        compile_program(parse(src, "t.lift").program("p"))
    assert "mapSeq reads the result of mapGlb(1)" in str(ei.value)
    assert str(ei.value).startswith("t.lift:2:")


# ------------------------------------------------------ barriers in uniform mapLcl loops

TILE = SQ + ("program p(x: [[float]M]N) = join o mapWrg(0)(\\rows ->\n"
             "  mapLcl(0)(\\row -> toGlobal(mapLcl(1)(sq)) o gather(reverse) o toLocal(mapLcl(1)(id)) $ row)"
             " $ rows) o split(4) $ x\n")


@pytest.mark.opencl
@pytest.mark.parametrize("glob,local", [((2, 1), (1, 1)), ((4, 1), (2, 1)), ((2, 2), (1, 2)),
                                        ((8, 6), (4, 6)), ((2, 3), (1, 3))])
def test_a_barrier_in_a_loop_every_work_item_runs_alike_builds_on_pocl(tmp_path, capsys, glob, local):
    # PoCL aborted the process building the (1, 1), (2, 1) and (1, 2) kernels
    m = np.arange(48, dtype=np.float32).reshape(8, 6)
    rc, err, out = _cli_run(tmp_path, capsys, TILE, {"x": m}, glob, local)
    assert rc == 0, err
    np.testing.assert_array_equal(out.reshape(8, 6), m[:, ::-1] ** 2)


def test_the_uniform_loop_counts_rounds_shared_by_the_work_items():
    k = compile_program(parse(TILE).program("p"), sizes={"N": 8, "M": 6}, global_size=(2, 1),
                        local_size=(1, 1))
    assert "for (int rnd = 0; rnd < (4) / (int)get_local_size(0); rnd += 1) {" in k.source, k.source
    assert "int l_id = get_local_id(0) + rnd * (int)get_local_size(0);" in k.source
    # the loops without a barrier keep their form
    assert "for (int l_id1 = get_local_id(1); l_id1 < 6; l_id1 += get_local_size(1))" in k.source


# ------------------------------------------------------------- run infers the sizes first

ROWSUM = ADD + ("program p(x: [[float]M]N) = join o mapWrg(0)(\\rows ->\n"
                "  mapLcl(0)(\\row -> join o toGlobal(mapLcl(1)(mapSeq(id))) o split(1) o\n"
                "    iterate(2)(join o mapLcl(1)(toLocal(mapSeq(id)) o reduceSeq(add, 0.0f)) o split(2)) o\n"
                "    toLocal(mapLcl(1)(id)) $ row) $ rows) o split(4) $ x\n")


@pytest.mark.opencl
@pytest.mark.parametrize("glob,local", [((2, 1), (1, 1)), ((4, 2), (2, 2)), ((8, 4), (4, 4))])
def test_run_takes_an_iterates_buffer_sizes_from_the_arguments(tmp_path, capsys, glob, local):
    m = np.arange(32, dtype=np.float32).reshape(8, 4)
    rc, err, out = _cli_run(tmp_path, capsys, ROWSUM, {"x": m}, glob, local)
    assert rc == 0, err
    np.testing.assert_array_equal(out.reshape(-1), m.sum(1))


@pytest.mark.opencl
def test_run_takes_the_sizes_that_make_a_barrier_loop_uniform_from_the_arguments(tmp_path, capsys):
    src = SQ + ("program p(x: [[[float]M]K]N) = mapWrg(0)(\\blk ->\n"
                "  mapLcl(1)(\\row -> toGlobal(mapLcl(0)(sq)) o gather(reverse) o toLocal(mapLcl(0)(id)) $ row)"
                " $ blk) $ x\n")
    m = np.arange(8 * 4 * 6, dtype=np.float32).reshape(8, 4, 6)
    rc, err, out = _cli_run(tmp_path, capsys, src, {"x": m}, (24, 2), (3, 2))
    assert rc == 0, err
    np.testing.assert_array_equal(out.reshape(m.shape), m[:, :, ::-1] ** 2)


def test_compile_without_the_sizes_still_says_what_it_needs(tmp_path, capsys):
    f = tmp_path / "p.lift"
    f.write_text(ROWSUM)
    rc, err = _run_cli(capsys, "compile", f, "--global", "2,1", "--local", "1,1")
    assert rc == 1
    assert f"{f}:4:5: error: iterate: cannot bound the buffer sizes M / 2, M / 4" in err, err


@pytest.mark.opencl
def test_run_reports_the_error_of_the_sizes_given_by_the_arguments(tmp_path, capsys):
    # 4 rows a group over 3 work-items: not uniform with the sizes known either (located)
    src = TILE
    m = np.arange(48, dtype=np.float32).reshape(8, 6)
    rc, err, _ = _cli_run(tmp_path, capsys, src, {"x": m}, (6, 6), (3, 6))
    assert rc == 1
    assert "error: mapLcl(1) needs a barrier inside control flow that not every work-item" in err, err
    assert err.count("\n") == 3 and err.rstrip().endswith("^"), err


# ----------------------------------------------------------- integers beyond 64 bits

SCALE = ("userfun f(a: float, s: TY): float { return a + (float)s; }\n"
         "program p(x: [float]N, s: TY) = mapGlb(0)(\\a -> f(a, s)) $ x\n")


@pytest.mark.opencl
@pytest.mark.parametrize("ty", ["float", "double"])
@pytest.mark.parametrize("value", [2 ** 70, -2 ** 70, 2 ** 64], ids=["2^70", "-2^70", "2^64"])
def test_an_integer_beyond_64_bits_for_a_float_is_the_number(tmp_path, capsys, ty, value):
    rc, err, out = _cli_run(tmp_path, capsys, SCALE.replace("TY", ty), {"x": np.zeros(2, np.float32),
                                                                    "s": str(value)}, (2,))
    assert rc == 0, err
    np.testing.assert_array_equal(out, np.full(2, np.float32(float(value))))


@pytest.mark.parametrize("ty,value,message", [
    ("int", 2 ** 70, f"the value {2 ** 70} does not fit the type int (-2147483648 .. 2147483647)"),
    ("long", -2 ** 63 - 1, f"the value {-2 ** 63 - 1} does not fit the type long "
                           f"(-9223372036854775808 .. 9223372036854775807)"),
    ("uint", 2 ** 64, f"the value {2 ** 64} does not fit the type uint (0 .. 4294967295)"),
    ("float", 10 ** 400, "does not fit the type float (it would become infinite)"),
    ("double", -10 ** 400, "does not fit the type double (it would become infinite)"),
    ("bool", 2 ** 64, f"the value {2 ** 64} is not a bool (0 or 1) for the type bool"),
], ids=["int", "long", "uint", "float", "double", "bool"])
def test_an_integer_beyond_64_bits_that_does_not_fit(tmp_path, capsys, ty, value, message):
    rc, err, _ = _cli_run(tmp_path, capsys, SCALE.replace("TY", ty), {"x": np.zeros(2, np.float32),
                                                                   "s": str(value)}, (2,))
    assert rc == 1
    assert err.startswith("error: --arg s: ") and message in err and err.count("\n") == 1, err
    assert "object" not in err


def test_an_integer_beyond_64_bits_through_the_api(runtime):
    k = compile_program(parse(SCALE.replace("TY", "long")).program("p"))
    from lift_backend.errors import LiftArgumentError
    with pytest.raises(LiftArgumentError) as ei:
        runtime.run(k, {"x": np.zeros(2, np.float32), "s": 2 ** 64}, global_size=2)
    assert "does not fit the type long" in str(ei.value)


# ------------------------------------------------------------------ sizes in any order

SPLIT_M = "program p(x: [float](N * M), y: [float]M) = join o mapGlb(0)(mapSeq(id)) o split(M) $ x\n"


@pytest.mark.opencl
def test_a_size_found_from_a_later_argument_determines_an_earlier_one(tmp_path, capsys, runtime):
    x = np.arange(8, dtype=np.float32)
    rc, err, out = _cli_run(tmp_path, capsys, SPLIT_M, {"x": x, "y": np.zeros(2, np.float32)}, (4,))
    assert rc == 0, err
    np.testing.assert_array_equal(out.reshape(-1), x)
    k = compile_program(parse(SPLIT_M).program("p"))
    out = runtime.run(k, {"x": x, "y": np.zeros(4, np.float32)}, global_size=2)
    np.testing.assert_array_equal(np.asarray(out).reshape(-1), x)


@pytest.mark.opencl
def test_a_later_argument_gives_the_size_a_pipeline_needs(runtime):
    src = NEG + ("program p(x: [float](N * M), y: [float]M) = mapGlb(0)(mapSeq(id) o gather(reverse)) "
                 "o mapGlb(0)(mapGlb(1)(neg)) o split(M) $ x\n")
    k = compile_program(parse(src).program("p"))
    assert len(k.stages) == 2
    x = np.arange(8, dtype=np.float32)
    out = runtime.run(k, {"x": x, "y": np.zeros(2, np.float32)}, global_size=(4, 2))
    np.testing.assert_array_equal(np.asarray(out).reshape(4, 2), -x.reshape(4, 2)[:, ::-1])


def test_a_length_not_affine_in_its_size_determines_nothing(tmp_path, capsys):
    f = tmp_path / "p.lift"
    f.write_text("program p(x: [float](N % 3)) = mapGlb(0)(id) $ x\n")
    np.save(tmp_path / "x.npy", np.arange(8, dtype=np.float32))
    rc, err = _run_cli(capsys, "run", f, "--arg", f"x={tmp_path / 'x.npy'}", "--global", "8",
                       "--out", tmp_path / "o.npy")
    assert rc == 1
    assert "the size(s) N of program p are not determined by the arguments' shapes" in err, err
    assert "N=8" not in err
