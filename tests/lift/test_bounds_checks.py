"""Bounds checks of data-dependent indices (issue 11): a gather reading outside its input is a
located error, never garbage or a segfault.

The generated OpenCL checks each index it cannot prove in range with one unsigned compare; a
failing check records its site in an error buffer (``atomic_min``, the first site wins) with
the index and the length, reads element 0 instead, and the runtime reports
``FILE:LINE:COL: error: index out of bounds in gatherIdx (index N, length M)`` at the pattern
after the kernel.  Indices provably in range (reverse, transpose, reorderStride, index
functions whose result the loop ranges bound) are not checked."""
import numpy as np
import pytest

from lift_backend import LiftRuntimeError, compile_program, parse
from lift_backend.cli import main

ADD = "userfun add(a: float, b: float): float { return a + b; }\n"


def write(tmp_path, name, text):
    f = tmp_path / name
    f.write_text(text)
    return str(f)


def save(tmp_path, name, arr):
    f = tmp_path / name
    np.save(f, arr)
    return str(f)


def cli(capsys, *args):
    rc = main(list(args))
    out, err = capsys.readouterr()
    return rc, out, err


def source(text, name="p"):
    return compile_program(parse(text).program(name)).source


GATHER_IDX = "program g(idx: [int]M, v: [float]N) =\n  mapGlb(0)(id) $ gatherIdx(idx, v)\n"


@pytest.mark.opencl
@pytest.mark.parametrize("bad,shown", [(100000000, 100000000), (-5, -5), (8, 8)])
def test_gather_idx_out_of_bounds_is_a_located_error(capsys, tmp_path, bad, shown):
    f = write(tmp_path, "g.lift", GATHER_IDX)
    idx = save(tmp_path, "idx.npy", np.array([0, 1, bad, 3], np.int32))
    v = save(tmp_path, "v.npy", np.arange(8, dtype=np.float32))
    out = tmp_path / "o.npy"
    rc, _, err = cli(capsys, "run", f, "--arg", f"idx={idx}", "--arg", f"v={v}", "--global", "4",
                     "--out", str(out))
    assert rc == 1
    assert err == (f"{f}:2:19: error: index out of bounds in gatherIdx (index {shown}, length 8)\n"
                   "  mapGlb(0)(id) $ gatherIdx(idx, v)\n"
                   "                  ^\n")
    assert not out.exists()


@pytest.mark.opencl
def test_gather_idx_in_range_runs(capsys, tmp_path):
    f = write(tmp_path, "g.lift", GATHER_IDX)
    idx = save(tmp_path, "idx.npy", np.array([7, 0, 3, 3], np.int32))
    v = save(tmp_path, "v.npy", np.arange(8, dtype=np.float32) * 10)
    rc, _, err = cli(capsys, "run", f, "--arg", f"idx={idx}", "--arg", f"v={v}", "--global", "4",
                     "--out", str(tmp_path / "o.npy"))
    assert rc == 0, err
    np.testing.assert_array_equal(np.load(tmp_path / "o.npy"), [70, 0, 30, 30])


def test_the_check_is_one_compare_and_a_predicated_store():
    src = source(GATHER_IDX, "g")
    assert "out[gl_id] = id(v[lift_check(idx[gl_id], N, 0, lift_err)]);" in src
    assert ("int lift_check(int i, int n, int site, global int* err) {\n"
            "  if ((uint)i < (uint)n) return i;\n"
            "  if (atomic_min(err, site) > site) { err[1 + 2 * site] = i; err[2 + 2 * site] = n; }\n"
            "  return 0;\n}") in src
    assert "global int* lift_err)" in src


@pytest.mark.opencl
def test_gather_with_an_index_function_out_of_range(capsys, tmp_path):
    f = write(tmp_path, "g.lift", "program g(v: [float]N) =\n  mapGlb(0)(id) o gather(\\i -> i + 3) $ v\n")
    v = save(tmp_path, "v.npy", np.arange(8, dtype=np.float32))
    rc, _, err = cli(capsys, "run", f, "--arg", f"v={v}", "--global", "8", "--out", str(tmp_path / "o.npy"))
    assert rc == 1
    assert err.splitlines() == [f"{f}:2:19: error: index out of bounds in gather (index 8, length 8)",
                                "  mapGlb(0)(id) o gather(\\i -> i + 3) $ v", "                  ^"]


@pytest.mark.opencl
def test_scatter_with_an_index_function_out_of_range(capsys, tmp_path):
    f = write(tmp_path, "s.lift", "program s(x: [float]N) =\n  scatter(\\i -> i + 1) o mapGlb(0)(id) $ x\n")
    x = save(tmp_path, "x.npy", np.arange(64, dtype=np.float32))
    rc, _, err = cli(capsys, "run", f, "--arg", f"x={x}", "--global", "8", "--out", str(tmp_path / "o.npy"))
    assert rc == 1
    assert err.splitlines()[0] == f"{f}:2:3: error: index out of bounds in scatter (index 64, length 64)"


def test_provable_permutations_are_not_checked():
    for body in ("mapGlb(0)(id) o gather(reverse) $ x",
                 "mapGlb(0)(id) o gather(reorderStride(4)) $ x",
                 "mapGlb(0)(id) o gather(\\i -> len(x) - 1 - i) $ x",
                 "join o mapWrg(0)(mapLcl(0)(id)) o split(8) o gather(transpose(8, N / 8)) $ x",
                 "scatter(reverse) o mapGlb(0)(id) $ x"):
        src = source(f"program p(x: [float]N) = {body}")
        assert "lift_check" not in src and "lift_err" not in src, body
    # the index function alone is not provably in range, the index the loops give it is
    src = source("program t(x: [[float]M]N) = mapWrg(0)(mapLcl(0)(id)) o split(N) o "
                 "gather(\\i -> (i % N) * M + i / N) o join $ x", "t")
    assert "id(x[wg_id + M * l_id])" in src and "lift_check" not in src


@pytest.mark.opencl
def test_the_first_failing_site_is_reported(capsys, tmp_path):
    f = write(tmp_path, "two.lift", ADD + "program two(i1: [int]N, i2: [int]N, v: [float]M) =\n"
              "  mapGlb(0)(\\t -> add(t._0, t._1)) $ zip(gatherIdx(i1, v), gatherIdx(i2, v))\n")
    i1 = save(tmp_path, "i1.npy", np.array([0, 9, 1, 2], np.int32))
    i2 = save(tmp_path, "i2.npy", np.array([-1, 0, 1, 2], np.int32))
    v = save(tmp_path, "v.npy", np.zeros(4, np.float32))
    rc, _, err = cli(capsys, "run", f, "--arg", f"i1={i1}", "--arg", f"i2={i2}", "--arg", f"v={v}",
                     "--global", "4", "--out", str(tmp_path / "o.npy"))
    assert rc == 1
    assert err.splitlines()[0] == f"{f}:3:42: error: index out of bounds in gatherIdx (index 9, length 4)"


SPLIT = ADD + ("program seg(vals: [float]NNZ, offs: [int](N + 1)) =\n"
               "  join o mapGlb(0)(toGlobal(mapSeq(id)) o reduceSeq(add, 0.0f)) o splitOffsets(offs) $ vals\n")


@pytest.mark.opencl
@pytest.mark.parametrize("offs,detail", [
    ([0, 2, 9], "offsets[2] = 9 is beyond the data's length 4"),
    ([0, 3, 1], "offsets[2] = 1 is less than offsets[1] = 3"),
    ([-2, 1, 4], "offsets[0] = -2 is negative"),
])
def test_split_offsets_given_by_the_host_are_checked_before_the_launch(capsys, tmp_path, offs, detail):
    f = write(tmp_path, "seg.lift", SPLIT)
    vals = save(tmp_path, "vals.npy", np.ones(4, np.float32))
    o = save(tmp_path, "offs.npy", np.array(offs, np.int32))
    rc, _, err = cli(capsys, "run", f, "--arg", f"vals={vals}", "--arg", f"offs={o}", "--global", "2",
                     "--out", str(tmp_path / "o.npy"))
    assert rc == 1
    assert err.splitlines()[0] == (f"{f}:3:67: error: index out of bounds in splitOffsets: the offsets offs "
                                   f"must be non-decreasing, between 0 and 4; {detail}")
    assert "lift_check" not in source(SPLIT, "seg")   # checked by the host: no device check


@pytest.mark.opencl
def test_split_offsets_computed_on_the_device_are_checked_where_used(capsys, tmp_path):
    text = ADD + ("program seg(vals: [float]NNZ, offs: [int](N + 1)) =\n"
                  "  join o mapGlb(0)(toGlobal(mapSeq(id)) o reduceSeq(add, 0.0f))\n"
                  "  $ splitOffsets(toGlobal(mapSeq(id)) $ offs, vals)\n")
    assert "lift_check(" in source(text, "seg")
    # the offsets are copied by every work-item (a sequential map): no mapGlb feeds the mapGlb
    # (that would need a synchronisation across work-groups: refused, test_kernel_rules.py)
    f = write(tmp_path, "seg.lift", text)
    vals = save(tmp_path, "vals.npy", np.ones(4, np.float32))
    o = save(tmp_path, "offs.npy", np.array([0, 2, 9], np.int32))
    rc, _, err = cli(capsys, "run", f, "--arg", f"vals={vals}", "--arg", f"offs={o}", "--global", "1",
                     "--out", str(tmp_path / "o.npy"))
    assert rc == 1
    assert err.splitlines()[0] == f"{f}:4:5: error: index out of bounds in splitOffsets (index 4, length 4)"
    o = save(tmp_path, "offs.npy", np.array([0, 1, 4], np.int32))
    rc, _, err = cli(capsys, "run", f, "--arg", f"vals={vals}", "--arg", f"offs={o}", "--global", "1",
                     "--out", str(tmp_path / "o.npy"))
    assert rc == 0, err
    np.testing.assert_array_equal(np.load(tmp_path / "o.npy"), [1, 3])


@pytest.mark.opencl
def test_the_python_api_raises_a_located_error(runtime):
    prog = parse(GATHER_IDX, "g.lift").program("g")
    k = compile_program(prog)
    with pytest.raises(LiftRuntimeError) as ei:
        runtime.run(k, {"idx": np.array([5, 2], np.int32), "v": np.zeros(3, np.float32)}, global_size=2)
    assert str(ei.value) == "g.lift:2:19: error: index out of bounds in gatherIdx (index 5, length 3)"
    # the same kernel runs again with good indices (the error buffer is fresh for each launch)
    out = runtime.run(k, {"idx": np.array([2, 0], np.int32), "v": np.arange(3, dtype=np.float32)},
                      global_size=2)
    np.testing.assert_array_equal(out, [2, 0])
