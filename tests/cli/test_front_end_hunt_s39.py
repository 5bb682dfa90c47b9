"""Front-end findings of hunt 39 (CMU-style and hostile NESL programs).

* A syntax error at a number quoted the number's value, not what was written: ``1 1e3;`` said
  ``syntax error at '1000.0'``, ``x = 1 .5;`` ``at '0.5'``, ``1 007;`` ``at '7'``.
* ``f(x)`` / ``t(x)`` in an expression (``f`` and ``t`` are the boolean literals) said only
  ``syntax error at '('``; a definition ``function f(x)`` already said why.
"""
from __future__ import annotations

import subprocess
import sys

import pytest

from nessie.cli import main


def cli(capsys, *args):
    rc = main([str(a) for a in args])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return rc, out, err


def write(tmp_path, text, name="p.nesl"):
    f = tmp_path / name
    f.write_text(text)
    return f


@pytest.mark.parametrize("src, col, shown", [
    ("1 1e3;", 3, "1e3"),                 # juxtaposition: a number after a number
    ("x = 1 .5;", 7, ".5"),
    ("1.5.3;", 4, ".3"),
    ("1 007;", 3, "007"),
    ("\t1\t1E+05;", 4, "1E+05"),
    ("1 2.50;", 3, "2.50"),
    ("x = [1,2]; x[0] 3e1;", 17, "3e1"),
    ("function g(x) : int -> 2.50 = 1;", 24, "2.50"),   # the parser's error function
    ("datatype d(007);", 12, "007"),
])
def test_syntax_error_quotes_a_number_as_written(capsys, tmp_path, src, col, shown):
    f = write(tmp_path, src + "\n")
    rc, out, err = cli(capsys, "check", f)
    assert (rc, out) == (1, "")
    first = err.splitlines()[0]
    assert first == f"{f}:1:{col}: error: syntax error at '{shown}'"
    if "\t" not in src:
        assert err.splitlines()[1] == "    " + src


def test_number_quoted_as_written_on_a_later_line_and_in_run(capsys, tmp_path):
    f = write(tmp_path, "x = 1;\n\n  y = 2 1.50e1;\n")
    rc, out, err = cli(capsys, "run", "--backend", "interp", f)
    assert (rc, out) == (1, "")
    assert err == (f"{f}:3:9: error: syntax error at '1.50e1'\n"
                   f"      y = 2 1.50e1;\n"
                   f"            ^\n")


def test_repl_quotes_a_number_as_written():
    r = subprocess.run([sys.executable, "-m", "nessie.repl", "--backend", "interp",
                        "--no-history"], input="1;\n\n  1 1e3;\nx = 1 .5;\n",
                       capture_output=True, text=True, timeout=120)
    assert "Traceback" not in r.stderr + r.stdout
    text = r.stdout + r.stderr
    assert "<stdin>:3:5: error: syntax error at '1e3'" in text
    assert "<stdin>:4:7: error: syntax error at '.5'" in text


@pytest.mark.parametrize("src, col, shown, word", [
    ("{f(s, 2) : s in [[1]]};", 3, "(", "f"),
    ("x = T (1);", 7, "(", "t"),
    ("y = 1 + f 2;", 11, "2", "f"),
])
def test_boolean_applied_as_a_function_says_why(capsys, tmp_path, src, col, shown, word):
    f = write(tmp_path, src + "\n")
    rc, out, err = cli(capsys, "check", f)
    assert (rc, out) == (1, "")
    meaning = "true" if word == "t" else "false"
    assert err.splitlines()[0] == (
        f"{f}:1:{col}: error: syntax error at '{shown}': in NESL '{word}' is the boolean "
        f"{meaning} (t and f are the boolean literals), so it cannot name a function")


def test_other_juxtapositions_keep_their_message(capsys, tmp_path):
    f = write(tmp_path, "[1 2];\n")
    rc, _, err = cli(capsys, "check", f)
    assert rc == 1
    assert err.splitlines()[0] == f"{f}:1:4: error: syntax error at '2'"
