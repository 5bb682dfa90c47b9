"""Scalars that stay on the device between kernels (lift_backend/lower/device_scalars.py): a
scalar a kernel returns that the host never looks at (norm2's sums, quicksort's pivot) is not
read back; the kernels that use it read it from its device buffer.

The analysis is checked on compiled programs (what stays, and what must not: values the host
tests, prints, returns or uses as sizes; kernels also run with host arguments); the runs compare
the OpenCL output with the reference interpreter's, errors included (a kept scalar whose kernel
failed, a kernel failing on a kept scalar), and count the synchronisations saved."""
from __future__ import annotations

import io

import numpy as np
import pytest

from lift_backend.lower import device_scalars as DS
from nessie import driver

pytestmark = pytest.mark.opencl

NORM = """\
function norm(xs) = let s = sum(xs); m = max_val(xs) in {x / s + m : x in xs};
norm([1.0, 2.0, 5.0]);
norm([1, 2, 3]);
"""


def compiled(text, fuse=True):
    c = driver.compile_source(text, "t.nesl")
    flat = driver.flatten(c)
    return c, (driver.fuse(flat)[0] if fuse else flat)


def analysis(text, fuse=True):
    return DS.device_scalars(compiled(text, fuse)[1].program)


def run(text, runner, fuse=True):
    c, flat = compiled(text, fuse)
    out = io.StringIO()
    try:
        driver.run_lcu(c, flat, out, runner=runner)
    except Exception as e:      # a NESL runtime error: its text, after the output before it
        return out.getvalue() + e.format()
    return out.getvalue()


def interp(text):
    c = driver.compile_source(text, "t.nesl")
    out = io.StringIO()
    try:
        driver.run_interp(c, out)
    except Exception as e:
        return out.getvalue() + e.format()
    return out.getvalue()


@pytest.mark.parametrize("fuse", [True, False])
def test_reductions_feeding_a_map_stay_on_the_device(fuse):
    d = analysis(NORM, fuse)
    assert any(d.keep.values()) and any(d.params.values())
    kept = sum(len(v) for v in d.keep.values())
    assert kept >= 2 * 2            # the two sums and the two maxima of both instances


@pytest.mark.parametrize("text", [
    # the host tests it
    "function h(xs) = let s = sum(xs) in if s > 3 then {x + s : x in xs} else xs;\nh([1, 2]);\n",
    # it is returned (and printed)
    "function h(xs) = let s = sum(xs) in ({x + s : x in xs}, s);\nh([1, 2]);\n",
    # it is a size
    "function h(xs) = let s = sum(xs) in {x + i : x in xs; i in index(s)};\nh([1, 2]);\n",
    # it is the argument of a function call
    "function g(s, xs) = {x + s : x in xs};\nfunction h(xs) = g(sum(xs), xs);\nh([1, 2]);\n",
])
def test_what_the_host_reads_is_read_back(runners, text):
    # the sum is the one scalar a kernel returns: the host reads it, so nothing stays
    assert not any(analysis(text).keep.values()) and not any(analysis(text, False).keep.values())
    assert run(text, runners[0]) == interp(text)


@pytest.mark.parametrize("fuse", [True, False])
@pytest.mark.parametrize("text", [
    NORM,
    # the kernel producing the kept sum fails: its error, not the consumer's
    "function h(xs) = let s = sum({10 / x : x in xs}) in {x / s : x in xs};\n"
    "h([1, 2]);\nh([1, 0, 2]);\n",
    # the consumer fails on the kept value (a zero sum)
    "function h(xs) = let s = sum(xs) in {x / s : x in xs};\nh([1, 2]);\nh([1, -1]);\n",
    # a kept pivot in a recursion (quicksort's shape)
    "function qs(a) = if #a < 2 then a else let p = a[#a / 2]; "
    "l = {x in a | x < p}; e = {x in a | x == p}; g = {x in a | x > p}; "
    "r = {qs(v) : v in [l, g]} in r[0] ++ e ++ r[1];\n"
    "qs([5, 3, 9, 1, 5, 7, 2, 8, 6, 4, 0]);\n",
])
def test_same_output_as_the_interpreter(runners, text, fuse):
    expected = interp(text)
    for r in runners:
        assert run(text, r, fuse) == expected


def test_synchronisations_saved(runners, monkeypatch):
    r = runners[0]
    text = NORM
    before = r.stats.syncs
    out = run(text, r)
    with_dev = r.stats.syncs - before
    monkeypatch.setattr(DS, "device_scalars", lambda prog: DS.DeviceScalars())
    before = r.stats.syncs
    assert run(text, r) == out == interp(text)
    without = r.stats.syncs - before
    assert with_dev < without


def test_mismatched_arguments_still_run(runners):
    """A kernel lowered to read a parameter from the device also takes a host value (uploaded),
    and one lowered for a host value takes a device value (read back): the analysis can only
    make runs faster, never wrong."""
    from lambda_cu.executor import Executor
    c, flat = compiled(NORM)
    prog = flat.program
    d = DS.device_scalars(prog)
    kname = next(k for k, ps in d.params.items() if ps)
    k = prog.kernel(kname)
    r = runners[0]
    ex = Executor(prog, r, True)
    args = []
    for p in k.params:
        args.append(np.asarray([1.0, 2.0, 5.0]) if "Vec" in type(p.ty).__name__ else 2)
    got = ex.run_kernel(kname, *args)         # host values, device parameters
    assert got is not None
