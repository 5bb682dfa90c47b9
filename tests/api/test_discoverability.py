"""The Python API can be discovered from Python (issue 12): dir(nessie), help(nessie), dir(m)
and help(m.f) as a Python user reads them."""
from __future__ import annotations

import pydoc
import subprocess
import sys
from pathlib import Path

import nessie

ROOT = Path(__file__).resolve().parents[2]

PROG = """\
% Squares every element of a sequence.
  (The comment just before a definition documents it.) %
function squares(xs) = {x * x : x in xs};

function noted(a, b) = a + b;

% helpers %
datatype point(float, float);
"""


def _help(obj) -> str:
    return pydoc.render_doc(obj, renderer=pydoc.plaintext)


def test_dir_nessie_lists_the_api():
    names = dir(nessie)
    for n in ("load", "Module", "Function", "DataVal", "__version__"):
        assert n in names
    assert not [n for n in names if n.startswith("_") and not n.startswith("__")]
    from nessie import api
    assert nessie.load is api.load and nessie.Module is api.Module
    assert nessie.Function is api.Function and nessie.DataVal is api.DataVal


def test_help_nessie_documents_load():
    text = _help(nessie)
    assert "load(source" in text                       # the FUNCTIONS section
    assert "Compile a NESL program" in text
    assert "backend" in text and "opencl" in text


def test_help_in_a_fresh_interpreter():
    """What a user typing help(nessie) sees, without anything imported before."""
    code = ("import pydoc, nessie; print(sorted(set(dir(nessie)) & {'load', 'Module', "
            "'Function', 'DataVal', '__version__'})); "
            "print(pydoc.render_doc(nessie, renderer=pydoc.plaintext))")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                       timeout=300)
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith("['DataVal', 'Function', 'Module', '__version__', 'load']")
    assert "load(source" in p.stdout


def test_dir_module_lists_nesl_functions_without_private_names():
    m = nessie.load(PROG, backend="interp")
    names = dir(m)
    assert "squares" in names and "noted" in names
    assert not [n for n in names if n.startswith("_")]
    assert "functions" in names and "output" in names
    assert m.functions == ["squares", "noted"]


def test_help_of_a_function_shows_type_and_comment():
    m = nessie.load(PROG, backend="interp")
    doc = m.squares.__doc__
    assert doc.startswith("NESL function squares(xs)")
    assert "squares : [a] -> [a] :: (a in number)" in doc
    assert "Squares every element of a sequence.\n(The comment just before a definition " \
           "documents it.)" in doc
    text = _help(m.squares)
    assert "squares : [a] -> [a] :: (a in number)" in text and "Squares every element" in text
    assert "(no documentation" in m.noted.__doc__
    import inspect
    assert str(inspect.signature(m.noted)) == "(a, b)"


def test_help_of_an_example_file():
    m = nessie.load(ROOT / "nesl_examples" / "dotp.nesl", backend="interp")
    assert "Dot product" in m.dotp.__doc__
    assert "defined at " in m.dotp.__doc__ and "dotp.nesl:2:1" in m.dotp.__doc__
