"""Redefining a datatype (a hostile-input hunt: every backend crashed printing a value of the old
definition with the new one).  As in the original, a datatype may be redefined, at another type
too ("Redefining POINT with a new type.  Old calls will not be modified.",
tests/cli/test_original_output.py).  What was bound with the old definition — a global value,
a function whose type mentions the datatype — keeps it, so using it afterwards is a located
compile error on every backend (define it again to use it); the same definition again changes
nothing."""
from __future__ import annotations

import subprocess
import sys

import pytest

from nessie import driver
from nessie.diagnostics import CompileErrors

CHANGED = "datatype pt(int, int);\np = pt(1, 2);\ndatatype pt(float);\np;\n"
SAME = "datatype pt(int, int);\np = pt(1, 2);\ndatatype pt(int, int);\np;\n" \
       "datatype box(a, a);\ndatatype box(b, b);\nbox(1, 2);\n"


def test_a_value_of_the_old_definition_is_a_located_error():
    with pytest.raises(CompileErrors) as ei:
        driver.compile_source(CHANGED, "r.nesl")
    assert ei.value.format().splitlines() == [
        "r.nesl:4:1: error: p was defined with the earlier definition of datatype pt, which "
        "line 3 redefines with another type; define it again to use it",
        "    p;",
        "    ^"]


@pytest.mark.parametrize("src, ok", [
    # a function returning the old datatype
    ("datatype pt(int, int);\nfunction mk(x) = pt(x, x);\ndatatype pt(float);\nmk(1);\n", False),
    # defined again after the redefinition: fine
    ("datatype pt(int, int);\np = pt(1, 2);\ndatatype pt(float);\np = pt(2.0);\np;\n", True),
    # values of other types are untouched
    ("datatype pt(int, int);\nq = 3;\ndatatype pt(float);\nq + 1;\n", True),
])
def test_what_the_redefinition_affects(src, ok):
    if ok:
        driver.compile_source(src, "r.nesl")
    else:
        with pytest.raises(CompileErrors, match="earlier definition of datatype pt"):
            driver.compile_source(src, "r.nesl")


@pytest.mark.parametrize("backend", ["interp", "lcu", "opencl"])
def test_the_same_definition_again_runs(backend, tmp_path):
    f = tmp_path / "same.nesl"
    f.write_text(SAME)
    r = subprocess.run([sys.executable, "-m", "nessie", "run", "--backend", backend, str(f)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "p = pt(1, 2) : pt\n" in r.stdout and r.stdout.endswith("it = box(1, 2) : box(int)\n")
    assert "Redefining" not in r.stdout


def test_repl_goes_on():
    r = subprocess.run([sys.executable, "-m", "nessie.repl", "--backend", "interp"],
                       input=CHANGED + "pt(1.5);\n", capture_output=True, text=True, timeout=120)
    out = r.stdout + r.stderr
    assert "Redefining PT with a new type." in out and "earlier definition of datatype pt" in out
    assert "it = pt(1.5) : pt" in r.stdout and "Traceback" not in out
