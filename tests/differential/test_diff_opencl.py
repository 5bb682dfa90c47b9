"""Differential tests of the OpenCL backend (issue 8): every NESL program of the test suite, run
as generated OpenCL on the default device (PoCL in CI), fused and unfused, must print what the
reference interpreter prints and end with the same runtime error (message and position).

"The same" is byte-identical text, except that printed floats may differ by a relative
``FLOAT_REL_TOL`` (1e-9): the OpenCL backend's reductions and scans regroup float sums by chunk,
so their last bits can differ from the interpreter's sequential order.

Programs: the examples in ``nesl_examples/``, the front end's test programs, the hand-written
differential programs, the regression programs of earlier differences, the library programs of
issue 10, and generated programs (``nesl_gen``; fewer than the numpy-backend campaign, since each
OpenCL run builds kernels: ``NESSIE_HYPOTHESIS_OPENCL_EXAMPLES`` scales it).
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given, seed, settings

import test_diff_handwritten as handwritten
import test_diff_known_bugs as known
import test_original_library as library
from diff_harness import compare
from diff_seed import DIFF_SEED
from test_diff_generated import _COMMON, FAILING_CFG, nesl_programs

ROOT = Path(__file__).resolve().parents[2]
FILES = sorted((ROOT / "nesl_examples").glob("*.nesl")) + \
    sorted((ROOT / "tests" / "frontend" / "programs").glob("*.nesl"))


def _check(src: str, fused: bool, filename: str = "gen.nesl", max_fused=None):
    cmp = compare(src, fused=fused, filename=filename, opencl=True, lcu=False,
                  max_fused_launches=max_fused)
    assert cmp.interp.crash is None, "the reference interpreter crashed\n" + cmp.report()
    assert cmp.flatten_error is None, cmp.report()
    assert cmp.opencl is not None
    if fused and max_fused is None:
        assert cmp.opencl_fused is not None, cmp.report()
    assert not cmp.mismatches(), (f"the OpenCL backend disagrees with the interpreter (generated "
                                  f"programs: NESSIE_DIFF_SEED={DIFF_SEED} repeats this run)\n"
                                  + cmp.report())
    return cmp


@pytest.mark.opencl
@pytest.mark.parametrize("fused", [False, True], ids=["unfused", "fused"])
@pytest.mark.parametrize("path", FILES, ids=[f"{p.parent.name}/{p.name}" for p in FILES])
def test_program_files(path, fused):
    _check(path.read_text(encoding="utf-8"), fused, filename=str(path))


@pytest.mark.opencl
@pytest.mark.parametrize("fused", [False, True], ids=["unfused", "fused"])
@pytest.mark.parametrize("name", sorted(handwritten.PROGRAMS))
def test_handwritten_programs(name, fused):
    src, _ = handwritten.PROGRAMS[name]
    _check(src, fused, filename=f"{name}.nesl")


@pytest.mark.opencl
@pytest.mark.parametrize("src", known.KNOWN)
def test_known_differences(src):
    _check(src, True, filename="bug.nesl")


LIBRARY = [v for k, v in sorted(vars(library).items())
           if k.isupper() and not k.endswith("_OUT") and isinstance(v, str) and ";" in v]


@pytest.mark.opencl
@pytest.mark.parametrize("src", LIBRARY)
def test_library_programs(src):
    _check(src, True)


OPENCL_EXAMPLES = int(os.environ.get("NESSIE_HYPOTHESIS_OPENCL_EXAMPLES", "25"))


@pytest.mark.opencl
@seed(DIFF_SEED)
@settings(max_examples=OPENCL_EXAMPLES, **_COMMON)
@given(nesl_programs())
def test_generated_programs_opencl(src):
    _check(src, True)


@pytest.mark.opencl
@seed(DIFF_SEED)
@settings(max_examples=max(1, OPENCL_EXAMPLES // 2), **_COMMON)
@given(nesl_programs(FAILING_CFG))
def test_generated_failing_programs_opencl(src):
    _check(src, True)
