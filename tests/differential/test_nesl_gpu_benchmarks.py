"""The NESL-GPU benchmark programs of issue 9 (benchmarks/nesl/mandelbrot.nesl and
barnes_hut.nesl) at tiny sizes: the flattened program, fused and unfused, on the numpy λcu runner
and on OpenCL, prints exactly what the reference interpreter prints.

Exactly, floats included: mandelbrot's counts are integers and each point iterates on its own;
Barnes-Hut's bodies start on a 2^-20 grid with masses 1, 2, 3, so the tree's sums are exact in any
order, each body's walk is sequential, and with one step the final checksum's sum is the one place
where a regrouped float sum could differ (it has not so far: a difference there, beyond
FLOAT_REL_TOL, would be a finding)."""
from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from nessie import driver

ROOT = Path(__file__).resolve().parents[2]
FLOAT_REL_TOL = 1e-12

CASES = {
    "mandelbrot": {"width": 24, "height": 16, "max_iter": 40},
    "barnes_hut": {"n_bodies": 150, "n_steps": 1, "max_depth": 24},
}


def program(name: str) -> str:
    src = (ROOT / "benchmarks" / "nesl" / f"{name}.nesl").read_text()
    for key, val in CASES[name].items():
        src, k = re.subn(rf"(?m)^{key} = \d+;", f"{key} = {val};", src)
        assert k == 1, key
    return src


def _run(fn) -> str:
    buf = io.StringIO()
    fn(buf)
    return buf.getvalue()


_REF = {}


def compiled(name):
    if name not in _REF:
        c = driver.compile_source(program(name), f"{name}.nesl")
        flat = driver.flatten(c)
        _REF[name] = (c, flat, driver.fuse(flat)[0], _run(lambda o: driver.run_interp(c, o)))
    return _REF[name]


def same(out: str, ref: str) -> bool:
    if out == ref:
        return True
    num = r"-?\d+\.\d*(?:E-?\d+)?"
    if re.sub(num, "#", out) != re.sub(num, "#", ref):
        return False
    return all(abs(float(a) - float(b)) <= FLOAT_REL_TOL * max(abs(float(a)), abs(float(b)))
               for a, b in zip(re.findall(num, out), re.findall(num, ref)))


def test_reference_outputs():
    """The interpreter's checksums at the tiny sizes (a change here is a change of program)."""
    assert "it = (4202, 40, 40) : int, int, int" in compiled("mandelbrot")[3]
    assert "it = (230, 150.842996933952, " in compiled("barnes_hut")[3]


@pytest.mark.parametrize("fused", [False, True], ids=["unfused", "fused"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_lcu_equals_interp(name, fused):
    c, flat, fz, ref = compiled(name)
    out = _run(lambda o: driver.run_lcu(c, fz if fused else flat, o))
    assert out == ref


@pytest.mark.opencl
@pytest.mark.parametrize("fused", [False, True], ids=["unfused", "fused"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_opencl_equals_interp(name, fused):
    c, flat, fz, ref = compiled(name)
    out = _run(lambda o: driver.run_lcu(c, fz if fused else flat, o,
                                        runner=driver.make_runner("opencl")))
    assert same(out, ref), f"opencl output\n{out}\ninterp output\n{ref}"
