"""Messages (issue 11): located and saying what is wrong the right way round."""
import os
import subprocess
import sys

import numpy as np
import pytest

from lift_backend import LiftCompileError, LiftError, LiftSyntaxError, LiftTypeError, compile_program, parse
from lift_backend.cli import main


def test_reading_a_scatter_is_located_and_the_hint_is_consistent():
    text = ("program p(x: [float]N) =\n  join o mapWrg(0)(toGlobal(mapLcl(0)(id)) o scatter(reverse) o "
            "toLocal(mapLcl(0)(id))) o split(8) $ x")
    with pytest.raises(LiftCompileError) as ei:
        compile_program(parse(text, "t.lift").program("p"))
    e = ei.value
    assert (e.span.line, e.span.col) == (2, 46)
    assert e.message.startswith("scatter: its result is read by another pattern, which is not supported")
    assert "gather with the inverse index function instead (gather(reverse) for scatter(reverse))" in e.message


@pytest.mark.opencl
def test_scatter_giving_a_map_result_still_runs(runtime):
    text = ("program p(x: [float]N) =\n  join o mapWrg(0)(scatter(reverse) o toGlobal(mapLcl(0)(id)) o "
            "toLocal(mapLcl(0)(id))) o split(8) $ x")
    x = np.arange(16, dtype=np.float32)
    out = runtime.run(compile_program(parse(text).program("p")), {"x": x}, global_size=16, local_size=8)
    np.testing.assert_array_equal(out, x.reshape(2, 8)[:, ::-1].reshape(-1))


def test_unterminated_comment():
    with pytest.raises(LiftSyntaxError) as ei:
        parse("userfun f(a: float): float { return a; }\n  /* unterminated\nprogram p(x: [float]N) = mapGlb(0)(f) $ x\n",
              "t.lift")
    e = ei.value
    assert (e.span.line, e.span.col) == (2, 3)
    assert e.message == "unterminated comment: '/*' without a closing '*/'"


def test_padding_beyond_the_length_says_which_is_larger():
    with pytest.raises(LiftTypeError) as ei:
        compile_program(parse("program p(x: [float]3) = mapGlb(0)(id) o pad(5, 5, mirror) $ x").program("p"))
    assert ei.value.message == "pad(5, 5): mirror: the left padding must not exceed the length 3 (5 > 3)"
    with pytest.raises(LiftTypeError) as ei:
        compile_program(parse("program p(x: [float]3) = mapGlb(0)(id) o slice(1, 5) $ x").program("p"))
    assert ei.value.message == "slice: the end 5 is beyond the length 3"


@pytest.mark.opencl
def test_element_count_message_without_sizes(runtime):
    k = compile_program(parse("program p(x: [float]4) = mapGlb(0)(id) $ x").program("p"))
    with pytest.raises(LiftError) as ei:
        runtime.run(k, {"x": np.zeros(16, np.float32)}, global_size=1)
    assert ei.value.message == "argument x: expected 4 elements for the type [float]4, got 16"


@pytest.mark.opencl
def test_no_pocl_warning_and_no_environment_write(tmp_path):
    # the runtime no longer sets POCL_WORK_GROUP_METHOD (the installed PoCLs do not know cbs and
    # printed "Unknown work group generation method" on every run)
    f = tmp_path / "p.lift"
    f.write_text("program p(x: [float]N) = mapGlb(0)(id) $ x\n")
    np.save(tmp_path / "x.npy", np.arange(4, dtype=np.float32))
    env = {k: v for k, v in os.environ.items() if k != "POCL_WORK_GROUP_METHOD"}
    code = ("import os, sys\nfrom lift_backend.cli import main\n"
            f"rc = main(['run', {str(f)!r}, '--arg', 'x={tmp_path / 'x.npy'}', '--global', '4', "
            f"'--out', {str(tmp_path / 'o.npy')!r}])\n"
            "assert 'POCL_WORK_GROUP_METHOD' not in os.environ\nsys.exit(rc)\n")
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120,
                       cwd=os.path.dirname(os.path.dirname(os.path.dirname(__file__))))
    assert r.returncode == 0, r.stderr
    assert "Unknown work group generation method" not in r.stderr
    np.testing.assert_array_equal(np.load(tmp_path / "o.npy"), np.arange(4))


def test_mapwrg_loop_barrier_guards_local_memory_with_a_local_fence():
    text = ("program p(x: [float]N) = join o mapWrg(0)(toGlobal(mapLcl(0)(id)) o gather(reverse) o "
            "toLocal(mapLcl(0)(id))) o split(8) $ x")
    src = compile_program(parse(text).program("p")).source
    import re
    # after the local copy (read reversed by other work-items), at the end of each group iteration
    assert re.findall(r"barrier\((\w+)\)", src) == ["CLK_LOCAL_MEM_FENCE", "CLK_LOCAL_MEM_FENCE"]
