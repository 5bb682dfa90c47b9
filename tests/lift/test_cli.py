"""The command line: compile (typed / views / opencl / lift), run, and user errors as
FILE:LINE:COL: error: MESSAGE + source line + caret, exit status 1, never a traceback."""
import subprocess
import sys

import numpy as np
import pytest

from lift_backend.cli import main
from .lift_helpers import GOLDEN, PROGRAMS

DOT = str(PROGRAMS / "dot.lift")


def cli(capsys, *args):
    rc = main(list(args))
    out, err = capsys.readouterr()
    return rc, out, err


def test_compile_opencl_matches_golden(capsys):
    rc, out, err = cli(capsys, "compile", DOT, "--program", "partialDot", "--local", "64", "--emit", "opencl")
    assert rc == 0 and err == ""
    assert out == (GOLDEN / "partialDot.cl").read_text()


def test_compile_with_sizes(capsys):
    rc, out, _ = cli(capsys, "compile", DOT, "--program", "partialDot", "--size", "N=4096",
                     "--global", "2048", "--local", "64")
    assert rc == 0 and out == (GOLDEN / "partialDot_N4096.cl").read_text()


def test_emit_typed_views_lift(capsys):
    rc, out, _ = cli(capsys, "compile", DOT, "--program", "partialDot", "--emit", "typed")
    assert rc == 0
    assert out.startswith("program partialDot(x: [float]N, y: [float]N) : [float](N / 128) =")
    assert "mapWrg(0)  : [[float]1](N / 128)" in out and "split(2)  : [[float]2](size / 2)" in out
    rc, out, _ = cli(capsys, "compile", DOT, "--program", "partialDot", "--local", "64", "--emit", "views")
    assert "read  x[i + 2 * l_id + 128 * wg_id]" in out
    assert "view: Zip(Mem(x), Mem(y)) <- Split(128) <- Access(wg_id) <- Split(2) <- Access(l_id) <- Access(i)" in out
    rc, out, _ = cli(capsys, "compile", DOT, "--program", "partialDot", "--emit", "lift")
    assert out.startswith("userfun add(a: float, b: float): float { return a + b; }")


def test_emit_typed_prints_generate(capsys, tmp_path):
    f = tmp_path / "g.lift"
    f.write_text("userfun f(i: int, x: float): float { return x * i; }\n"
                 "program p(x: [float]N) = mapGlb(0)(\\t -> f(t._0, t._1)) $ zip(generate(N), x)\n")
    rc, out, err = cli(capsys, "compile", str(f), "--emit", "typed")
    assert rc == 0, err
    assert "      generate(N)  : [int]N\n" in out


@pytest.mark.opencl
def test_run(capsys, tmp_path, runtime):
    x = np.arange(256, dtype=np.float32)
    y = np.ones(256, dtype=np.float32)
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "y.npy", y)
    rc, out, err = cli(capsys, "run", DOT, "--program", "partialDot", "--size", "N=256",
                       "--arg", f"x={tmp_path / 'x.npy'}", "--arg", f"y={tmp_path / 'y.npy'}",
                       "--global", "128", "--local", "64", "--out", str(tmp_path / "out.npy"))
    assert rc == 0, err
    np.testing.assert_allclose(np.load(tmp_path / "out.npy"), x.reshape(2, 128).sum(1))


@pytest.mark.opencl
def test_run_with_device_choice(capsys, tmp_path, runtime, monkeypatch):
    np.save(tmp_path / "a.npy", np.arange(10, dtype=np.float32))
    stencil = str(PROGRAMS / "stencil.lift")
    common = ["run", stencil, "--program", "stencil3", "--arg", f"a={tmp_path / 'a.npy'}", "--global", "4",
              "--out", str(tmp_path / "o.npy")]
    assert cli(capsys, *common, "--device", "0:0")[0] == 0
    np.testing.assert_allclose(np.load(tmp_path / "o.npy")[:3], [1, 3, 6])
    rc, _, err = cli(capsys, *common, "--device", "7:0")
    assert rc == 1 and "no OpenCL device '7:0'" in err
    monkeypatch.setenv("PYOPENCL_CTX", "0:0")
    assert cli(capsys, *common)[0] == 0


def test_type_error_format(capsys, tmp_path):
    f = tmp_path / "bad.lift"
    f.write_text("program p(x: [float]N, y: [float]M) =\n  mapGlb(0)(id) $ zip(x, y)\n")
    rc, out, err = cli(capsys, "compile", str(f))
    assert rc == 1 and out == ""
    assert err == (f"{f}:2:19: error: zip: cannot show that the array lengths N and M are equal\n"
                   "  mapGlb(0)(id) $ zip(x, y)\n"
                   "                  ^\n")


def test_syntax_error_format(capsys, tmp_path):
    f = tmp_path / "bad.lift"
    f.write_text("userfun add(a: float, b: float): float { return a + b; }\n"
                 "program p(x: [float]N) =\n  reduceSeq(add 0.0f) $ x\n")
    rc, _, err = cli(capsys, "compile", str(f))
    assert rc == 1
    assert err.splitlines() == [f"{f}:3:17: error: expected ',', found '0.0f'",
                                "  reduceSeq(add 0.0f) $ x", "                ^"]


def test_compile_error_format(capsys, tmp_path):
    f = tmp_path / "bad.lift"
    f.write_text("program p(x: [float]N) =\n  split(2) $ x\n")
    rc, _, err = cli(capsys, "compile", str(f))
    assert rc == 1 and err.startswith(f"{f}:2:3: error: the result is the array x itself: nothing computes it")
    f.write_text("program p(x: [float]N) =\n  mapGlb(0)(mapSeq(id)) o gather(reverse) o split(2) $ x\n")
    assert cli(capsys, "compile", str(f))[0] == 0
    f.write_text("program p(x: [float]N) =\n  gather(reverse) o mapGlb(0)(id) $ x\n")
    rc, _, err = cli(capsys, "compile", str(f))
    assert rc == 1 and err.startswith(f"{f}:2:3: error: gather: a data-layout pattern cannot write the result")


@pytest.mark.parametrize("args,message", [
    (["compile", "/nonexistent.lift"], "error: /nonexistent.lift: cannot read the file: No such file"),
    (["compile", DOT, "--program", "nope"], "error: no program named nope"),
    (["compile", DOT, "--size", "N"], "error: --size expects NAME=VALUE"),
    (["compile", DOT, "--size", "Q=3"], "unknown size(s) Q"),
    (["compile", DOT, "--local", "0"], "error: --local expects 1 to 3 positive integers"),
])
def test_usage_errors(capsys, args, message):
    rc, _, err = cli(capsys, *args)
    assert rc == 1 and message in err and "Traceback" not in err


def test_run_errors_are_user_errors(capsys, tmp_path):
    np.save(tmp_path / "x.npy", np.zeros(100, np.float32))
    rc, _, err = cli(capsys, "run", DOT, "--program", "partialDot", "--arg", f"x={tmp_path / 'x.npy'}",
                     "--global", "64", "--out", str(tmp_path / "o.npy"))
    assert rc == 1 and "missing argument(s): y" in err and "Traceback" not in err


def test_module_entry_point():
    r = subprocess.run([sys.executable, "-m", "lift_backend", "compile", DOT, "--program", "partialDot",
                        "--local", "64"], capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout == (GOLDEN / "partialDot.cl").read_text()
