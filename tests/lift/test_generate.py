"""``generate(N)``: the index space ``[0, ..., N-1]`` as an ``[int]N`` array without memory (the
index-space generator the λcu lowering maps over): parsing and printing, types, views through
the other layout patterns, and results against numpy."""
import subprocess
import sys

import numpy as np
import pytest

from lift_backend import LiftError, compile_program, parse, program_text
from lift_backend.types import ArrayType, Int

pytestmark = pytest.mark.opencl

SRC = """
userfun halve(i: int): double { return (double)i * 0.5; }
userfun plus(i: int, x: double): double { return i + x; }
userfun addi(a: int, b: int): int { return a + b; }
program withX(x: [double]N) = mapGlb(0)(toGlobal(\\t -> plus(t._0, t._1))) $ zip(generate(N), x)
program withLen(x: [double]N) = mapGlb(0)(toGlobal(\\t -> plus(t._0, t._1))) $ zip(generate(len(x)), x)
program alone() = mapGlb(0)(toGlobal(halve)) $ generate(N)
program reversed() = mapGlb(0)(id) o gather(reverse) $ generate(N)
program chunkSums() = join o mapGlb(0)(toGlobal(mapSeq(id)) o reduceSeq(addi, 0)) o split(4) $ generate(N)
program staged() = join o mapWrg(0)(toGlobal(mapLcl(0)(id)) o toLocal(mapLcl(0)(id))) o split(8) o slice(2, 34) $ generate(N)
"""


@pytest.fixture(scope="module")
def lf():
    return parse(SRC, "gen.lift")


def test_generate_prints_and_parses_back(lf):
    for name in ("withX", "withLen", "alone", "reversed", "chunkSums", "staged"):
        p = lf.program(name)
        text = program_text(p)
        assert "generate(" in text
        again = parse(SRC.split("program")[0] + text, "again.lift").program(name)
        assert compile_program(again).source == compile_program(p).source


def test_generate_is_a_view_without_memory(lf):
    k = compile_program(lf.program("alone"))
    # no input buffer: the output and the size only; element k is the index itself
    assert [p.kind for p in k.params] == ["output", "size"]
    assert "halve(((int)(gl_id)))" in k.source


def test_generate_results(runtime, lf):
    x = np.linspace(-3, 7, 37)
    for name in ("withX", "withLen"):
        out = runtime.run(compile_program(lf.program(name)), {"x": x}, global_size=8)
        np.testing.assert_array_equal(out, np.arange(37) + x)
    for n in (1, 5, 64, 1000):
        out = runtime.run(compile_program(lf.program("alone")), {}, sizes={"N": n}, global_size=16)
        np.testing.assert_array_equal(out, np.arange(n) * 0.5)
        out = runtime.run(compile_program(lf.program("reversed")), {}, sizes={"N": n}, global_size=16)
        np.testing.assert_array_equal(out, np.arange(n, dtype=np.int32)[::-1])
    out = runtime.run(compile_program(lf.program("chunkSums")), {}, sizes={"N": 40}, global_size=4)
    np.testing.assert_array_equal(out, np.arange(40).reshape(10, 4).sum(1))
    out = runtime.run(compile_program(lf.program("staged")), {}, sizes={"N": 40}, global_size=16,
                      local_size=8)
    np.testing.assert_array_equal(out, np.arange(2, 34))


def test_generate_errors(lf):
    bad = [
        ("program p() = mapGlb(0)(id) $ generate()", "expected"),
        ("program p(x: [float]N) = mapGlb(0)(id) $ generate(len(y))", "len(y)"),
        ("program p() = mapGlb(0)(id) $ generate(0 - 3)", "the length must be at least 1"),
        ("program p(x: [float]N) = mapGlb(0)(id) $ zip(generate(N + 1), x)", "zip"),
    ]
    for text, what in bad:
        with pytest.raises(LiftError) as ei:
            compile_program(parse(text, "t.lift").program("p"))
        assert what in str(ei.value), (text, str(ei.value))


def test_generate_size_from_the_command_line(tmp_path):
    f = tmp_path / "g.lift"
    f.write_text(SRC)
    out = tmp_path / "o.npy"
    cmd = [sys.executable, "-m", "lift_backend", "run", str(f), "--program", "alone", "--global", "4",
           "--out", str(out)]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert r.returncode == 1 and f"{f}:" in r.stderr and \
        "error: the size(s) N of program alone are not determined by the arguments' shapes: give them " \
        "(on the command line --size N=VALUE" in r.stderr, r.stderr
    r = subprocess.run(cmd + ["--size", "N=6"], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    np.testing.assert_array_equal(np.load(out), np.arange(6) * 0.5)
