"""Recursive datatypes (a tree whose children are trees) are beyond the flattening backends:
their values nest without bound, so no flat representation exists.  Every flattening entry
point says so instead of recursing until a stage runs out of stack (a bug hunt found the
compiler spending 20 s and then failing with "program nested too deeply"): ``nessie run``
falls back to the reference interpreter (auto) or exits 1 with the reason (lcu, opencl),
``nessie compile`` names the file, and the Python API falls back (auto) with a warning or raises
``FlattenUnsupported``.  Non-recursive datatypes, also nested in each other, still flatten."""
from __future__ import annotations

import subprocess
import sys
import warnings

import pytest

from nessie import driver
from nessie.api import Module
from nessie.flatten import FlattenUnsupported

TREE = """\
datatype tree(int, [tree]);
function tsum(x) = let tree(v, ch) = x in v + sum({tsum(c) : c in ch});
function build(n) = if n <= 0 then tree(1, [] tree) else tree(n, {build(n - 1 - i) : i in [0:2]});
function total(n) = tsum(build(n));
"""
TREE_TOP = TREE + "total(3);\n"
TREE_OUT = """\
tree = fn : (int, [tree]) -> tree
tsum = fn : tree -> int
build = fn : int -> tree
total = fn : int -> int
it = 12 : int
"""

RECURSIVE = {
    "through a sequence": "datatype tr(int, [tr]);\ntr(1, [] tr);\n",
    "through a tuple in a sequence": "datatype tr(float, [(int, tr)]);\ntr(1.0, [] (int, tr));\n",
    "polymorphic": "datatype node(a, [node(a)]);\nnode(2, [] node(int));\n",
    "through another datatype": ("datatype box(int, int);\ndatatype tr(box, [tr]);\n"
                                 "tr(box(1, 2), [] tr);\n"),
}

def _flatten(text: str, name="t.nesl"):
    return driver.flatten(driver.compile_source(text, name))


@pytest.mark.parametrize("kind", sorted(RECURSIVE))
def test_recursive_datatypes_are_refused_by_the_flattener(kind):
    with pytest.raises(FlattenUnsupported, match=r"the recursive datatype \w+ is not supported"):
        _flatten(RECURSIVE[kind])


def test_datatypes_that_are_not_recursive_flatten():
    flat = _flatten("datatype box(int, float);\ndatatype pairbox(box, [box]);\n"
                    "datatype wrap(a) :: (a in any);\n"
                    "pairbox(box(1, 2.0), [box(3, 4.0)]);\n")
    assert flat.program.main


def _nessie(*args, stdin=None):
    return subprocess.run([sys.executable, "-m", "nessie", *args], capture_output=True,
                          text=True, timeout=300, input=stdin)


def test_run_auto_falls_back_to_the_interpreter(tmp_path):
    f = tmp_path / "tree.nesl"
    f.write_text(TREE_TOP)
    r = _nessie("run", str(f))
    assert r.returncode == 0 and r.stdout == TREE_OUT
    assert "running on the reference interpreter: the recursive datatype tree" in r.stderr


@pytest.mark.parametrize("cmd", [["run", "--backend", "lcu"], ["run", "--backend", "opencl"],
                                 ["compile", "--emit", "lcu"]])
def test_flattening_commands_say_why_and_exit_1(tmp_path, cmd):
    f = tmp_path / "tree.nesl"
    f.write_text(TREE_TOP)
    r = _nessie(*cmd, str(f))
    assert r.returncode == 1 and r.stdout == ""
    assert r.stderr == (f"{f}: error: the recursive datatype tree is not supported by the "
                        f"flattening backends (its values nest without bound)\n")


def test_api_auto_falls_back_with_a_warning():
    with pytest.warns(RuntimeWarning, match="running on the reference interpreter"):
        m = Module(TREE_TOP, "tree.nesl")        # the top level uses the datatype
    assert m.backend == "interp" and m.values["it"] == 12 and m.total(4) == 22
    m = Module(TREE, "tree.nesl", run_toplevel=False)   # only a call flattens
    assert m.backend == "opencl"
    with pytest.warns(RuntimeWarning, match="the recursive datatype tree"):
        assert m.total(4) == 22
    assert m.backend == "interp"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert m.total(2) == 6                   # once: no second warning


@pytest.mark.parametrize("backend", ["lcu", "opencl"])
def test_api_explicit_backend_raises(backend):
    with pytest.raises(FlattenUnsupported, match="the recursive datatype tree"):
        Module(TREE_TOP, "tree.nesl", backend=backend)
