"""The CMU-style NESL programs of this folder (issue 10): graph algorithms, geometry, sorting,
string processing and numerical code in the style of the original distribution's examples,
each carrying its expected output in a ``% ==`` block (computed independently of Nessie).

Every program runs through ``nessie test`` (``nessie.testing``) on every configuration --
the reference interpreter, λcu unfused and fused, OpenCL unfused and fused -- and the test
fails (it never skips) when any configuration differs from the block, stops with an
unexpected error, crashes, or cannot run at all (no OpenCL device included).

A program that exposes a Nessie bug keeps its right expected output and is listed in
``KNOWN_BUGS`` (an xfail with ``strict=True``, so it fails again once the bug is fixed).
"""
from __future__ import annotations

from pathlib import Path

import pytest

from nessie import testing

HERE = Path(__file__).resolve().parent
PROGRAMS = sorted(p.name for p in HERE.glob("*.nesl"))

#: program file name -> the bug it exposes (backend, construct, wrong vs right output)
KNOWN_BUGS: dict = {}


@pytest.fixture(scope="module")
def runner():
    """One runner for the whole folder: OpenCL contexts and programs are built once."""
    return testing.Runner()


def test_the_folder_holds_the_programs():
    assert len(PROGRAMS) >= 30, PROGRAMS
    for name in PROGRAMS:
        text = (HERE / name).read_text(encoding="utf-8")
        spec = testing.parse_block(testing.find_block(text))
        assert spec.output, f"{name}: no expected output in its % == block"
        assert spec.backends is None, f"{name}: the program must run on every backend"


def _params():
    for name in PROGRAMS:
        marks = ()
        if name in KNOWN_BUGS:
            marks = (pytest.mark.xfail(reason=KNOWN_BUGS[name], strict=True),)
        yield pytest.param(name, marks=marks, id=name[:-5])


@pytest.mark.opencl
@pytest.mark.parametrize("name", list(_params()))
def test_program_on_every_backend(runner, name):
    res = testing.test_file(str(HERE / name), runner, None)
    ran = [r.config for r in res.runs]
    report = "\n".join(f"{cfg}: {why}" for cfg, why in res.failures)
    assert not res.failures, f"{name} failed:\n{report}"
    assert ran == list(testing.CONFIGS), f"{name} ran only on {ran}"
