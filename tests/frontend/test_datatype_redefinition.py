"""Redefining a datatype (a hostile-input hunt: every backend crashed printing a value of the old
definition with the new one).  The same definition again is allowed (a file loaded twice in the
REPL); another type for the same name is a located compile error on every backend, and the REPL
goes on with the old definition."""
from __future__ import annotations

import subprocess
import sys

import pytest

from nessie import driver
from nessie.diagnostics import CompileErrors

CHANGED = "datatype pt(int, int);\np = pt(1, 2);\ndatatype pt(float);\np;\n"
SAME = "datatype pt(int, int);\np = pt(1, 2);\ndatatype pt(int, int);\np;\n" \
       "datatype box(a, a);\ndatatype box(b, b);\nbox(1, 2);\n"


def test_another_type_is_a_located_error():
    with pytest.raises(CompileErrors) as ei:
        driver.compile_source(CHANGED, "r.nesl")
    text = ei.value.format()
    assert text.splitlines() == [
        "r.nesl:3:1: error: datatype pt is already defined, as (int, int) -> pt; Nessie cannot "
        "redefine a datatype with another type (give the new one another name)",
        "    datatype pt(float);",
        "    ^~~~~~~~~~~~~~~~~~"]


@pytest.mark.parametrize("src", ["datatype box(a, a);\ndatatype box(a, int);\n",
                                 "datatype w(a) :: (a in number);\ndatatype w(a) :: (a in any);\n"])
def test_other_parameters_or_classes_are_errors(src):
    with pytest.raises(CompileErrors, match="already defined"):
        driver.compile_source(src + "1;\n", "r.nesl")


@pytest.mark.parametrize("backend", ["interp", "lcu", "opencl"])
def test_the_same_definition_again_runs(backend, tmp_path):
    f = tmp_path / "same.nesl"
    f.write_text(SAME)
    r = subprocess.run([sys.executable, "-m", "nessie", "run", "--backend", backend, str(f)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "p = pt(1, 2) : pt\n" in r.stdout and r.stdout.endswith("it = box(1, 2) : box(int)\n")


def test_repl_keeps_the_old_definition():
    r = subprocess.run([sys.executable, "-m", "nessie.repl", "--backend", "interp"], input=CHANGED,
                       capture_output=True, text=True, timeout=120)
    assert "datatype pt is already defined" in r.stdout + r.stderr
    assert "it = pt(1, 2) : pt" in r.stdout and "Traceback" not in r.stdout + r.stderr
