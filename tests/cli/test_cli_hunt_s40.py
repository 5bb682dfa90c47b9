"""Bug hunt s40, the REPL (``python -m nessie.repl``) and the command line.

* ``:type +`` / ``:type ++`` were syntax errors and ``:type `+``` said "function + cannot be
  used as a value", though ``:type sum`` gives a function's type: an operator's type now.
* ``:type ;`` said ``<unknown>: error: syntax error: unexpected end of input`` (no location);
  now ``:type needs an expression``.  ``:type % c %`` and ``:type &`` added the same
  unlocated error: now located at the end of the expression, or left out after the illegal
  character's own error.
* ``describe ++;`` / ``show code ++;`` were syntax errors (only ```++``` was taken): an
  operator is named bare, as in the original's ``describe +;``.
* ``:load DIR`` said ``cannot open DIR: Is a directory``; now as ``nessie run`` says it, ``DIR
  is a directory, not a NESL file``.
"""
from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def session():
    from nessie.repl import Session
    out, err = io.StringIO(), io.StringIO()
    return Session(out, err), out, err


def feed_all(s, text: str) -> None:
    for line in text.split("\n"):
        s.feed(line)
    s.finish()


def repl(text: str, *args: str):
    p = subprocess.run([sys.executable, "-m", "nessie.repl", "--backend", "interp", *args],
                       input=text, capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert "Traceback" not in p.stderr, p.stderr
    return p.stdout, p.stderr, p.returncode


@pytest.mark.parametrize("line, want", [
    (":type +", "+ : (a, a) -> a :: (a in number)"),
    (":type `+`", "+ : (a, a) -> a :: (a in number)"),
    (":type ++", "++ : ([a], [a]) -> [a] :: (a in any)"),
    (":type <-;", "<- : ([a], [(int, a)]) -> [a] :: (a in any)"),
    (":type ==", "== : (a, a) -> bool :: (a in ordinal)"),
    (":type sum", "sum : [a] -> a :: (a in number)"),
])
def test_type_of_an_operator(line, want):
    s, out, err = session()
    feed_all(s, line)
    assert (out.getvalue(), err.getvalue()) == (want + "\n", "")


@pytest.mark.parametrize("line", [":type ;", ":type  ;; ", ":type $", ":type"])
def test_type_of_nothing(line):
    s, out, err = session()
    feed_all(s, line)
    assert (out.getvalue(), err.getvalue()) == ("", "error: :type needs an expression\n")


def test_type_errors_are_located():
    s, out, err = session()
    feed_all(s, ":type % c %\n:type &\n:type 1 +")
    e = err.getvalue()
    assert "<unknown>" not in e
    assert e.splitlines() == [
        "<stdin>:1:12: error: syntax error: unexpected end of input (missing ';'?)",
        "    :type % c %",
        "               ^",
        "<stdin>:2:7: error: illegal character '&'",
        "    :type &",
        "          ^",
        "<stdin>:3:9: error: syntax error: unexpected end of input (missing ';'?)",
        "    :type 1 +",
        "            ^",
    ]
    assert out.getvalue() == ""


def test_type_of_a_variable_and_an_expression():
    s, out, err = session()
    feed_all(s, "x = [1, 2];\n:type x\n:type x ++ x;")
    assert out.getvalue().splitlines()[1:] == ["x : [int]", "x ++ x : [int]"]
    assert err.getvalue() == ""


def test_describe_and_show_code_of_an_operator():
    s, out, err = session()
    feed_all(s, "describe ++;\ndescribe +;\nshow code ++;\ndescribe `==`;")
    assert out.getvalue().splitlines() == [
        "++ : ([a], [a]) -> [a] :: (a in any)",
        "a builtin function of NESL",
        "+ : (a, a) -> a :: (a in number)",
        "a builtin function of NESL",
        "++: a builtin function (a primitive of Nessie, not written in NESL)",
        "== : (a, a) -> bool :: (a in ordinal)",
        "a builtin function of NESL",
    ]
    assert err.getvalue() == ""
    s, out, err = session()
    feed_all(s, "describe &&;")
    assert err.getvalue() == "error: describe: no function or variable named &&\n"
    s, out, err = session()
    # a binding of a variable named describe is still NESL input, and so is an expression
    feed_all(s, "describe = 3;\ndescribe + 1;")
    assert out.getvalue() == "describe = 3 : int\nit = 4 : int\n"


def test_load_of_a_directory(tmp_path):
    s, out, err = session()
    s.feed(f":load {tmp_path}")
    assert err.getvalue() == f"error: {tmp_path} is a directory, not a NESL file\n"
    out_text, err_text, rc = repl("1;\n", str(tmp_path))
    assert rc == 1 and out_text == "it = 1 : int\n"
    assert err_text == f"error: {tmp_path} is a directory, not a NESL file\n"
    # the command line says it the same way
    p = subprocess.run([sys.executable, "-m", "nessie", "run", str(tmp_path)], capture_output=True,
                       text=True, cwd=ROOT, timeout=120)
    assert (p.returncode, p.stderr) == (1, f"nessie: error: {tmp_path} is a directory, not a NESL "
                                           f"file\n")
