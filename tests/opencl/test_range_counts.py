"""Range lengths with a constant start or stride, and descriptor programs built on demand.

The flattener computes ``#[s:e:k]`` as ``max(0, ceil((e - s) / k))`` in 64-bit arithmetic; with
a constant stride it folds the sign test and, for the usual stride 1, the division (nothing
that can fail is left, so the apply-to-each's length check, a REDUCE, is a Lift program and
not a template).  Results and errors are the reference interpreter's on every backend, whatever
the folding; the lowering of a range's length check is Lift's.

The OpenCL runner builds the segment descriptors' Lift programs (lift_sd.py) on the first
descriptor made, so a program without nested sequences pays for neither."""
from __future__ import annotations

import pytest

from nessie import driver

from .ocl_helpers import interp_output, nesl_outputs

pytestmark = pytest.mark.opencl

RANGES = """
[0:10];
[3:10];
[10:3];
[0:10:3];
[10:0:-3];
[-5:5:2];
[5:-5:-2];
{[0:n] : n in [0, 3, -2, 1]};
{[a:b:c] : a in [0, 10, 1, 4]; b in [10, 0, 1, -4]; c in [3, -4, 1, -1]};
{#[x:x + 5] : x in [1, 2]};
{[x:7] : x in [9, 7, 6, -1]};
{[0:x:2] : x in [0, 1, 2, 7]};
"""


def _fused(src: str, name: str):
    c = driver.compile_source(src, name)
    flat, _ = driver.fuse(driver.flatten(c))
    return c, flat.program


def test_ranges_print_what_the_interpreter_prints():
    c, lcu_out, ocl_out = nesl_outputs(RANGES, "ranges.nesl")
    want = interp_output(c)
    assert "[10, 7, 4, 1]" in want and "[[0, 3, 6, 9], [10, 6, 2], [], [4, 3, 2, 1, 0, -1, -2, -3]]" in want
    assert lcu_out == want
    assert ocl_out == want


def test_a_zero_stride_still_fails_where_the_interpreter_does(tmp_path):
    from .ocl_helpers import run_nesl
    src = "[1, 2];\n{[0:10:k] : k in [1, 0]};\n"
    want = run_nesl(tmp_path, src, "interp")
    assert want[0] == 1 and "Divide by zero" in want[2], want
    for backend in ("lcu", "opencl"):
        assert run_nesl(tmp_path, src, backend) == want


def test_stride_one_count_has_no_division():
    _, prog = _fused("function cnt(a, b) = {#[x:y] : x in a; y in b};\n", "count.nesl")
    from lambda_cu.printer import pretty
    text = "\n".join(pretty(k) for k in prog.kernels)
    assert "268435457" in text                 # the count is there ...
    assert " / " not in text                   # ... without a division by the stride 1


def test_length_checks_of_ranges_are_lift_reduces():
    from lift_backend.lower.device_scalars import device_scalars
    from lift_backend.lower.runner import lower_kernel
    _, prog = _fused("function rng(a) = {[0:x] : x in a};\nrng([3, 0, 2]);\n", "lens.nesl")
    d = device_scalars(prog)
    reduces = [ls for k in prog.kernels for ls in lower_kernel(k, "cpu", d.params_of(k.name))
               if ls.soac.NAME == "REDUCE"]
    assert reduces, "the range's length check should be a REDUCE"
    for ls in reduces:
        assert "lift" in ls.info and "lift_carry" in ls.info, ls.soac


def test_descriptor_programs_are_built_on_first_use():
    from lift_backend.lower.runner import OpenCLRunner, _Context
    import numpy as np
    # a context of its own (the shared ones may have built them already)
    r = OpenCLRunner()
    c = _Context(r.device, r.c.strategy)
    assert c._sd is None
    ks = c.sd
    assert c._sd is ks and any(name.startswith("sd_") for name in ks)
    # and a runner makes descriptors with them
    sd = r.make_sd(r.upload(np.array([2, 0, 3], np.int32)), None)
    assert r.to_host(sd).lengths.tolist() == [2, 0, 3]
