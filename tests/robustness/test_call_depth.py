"""Issue 11: run-time recursion is bounded by one limit, ``NESSIE_MAX_CALL_DEPTH`` (the NESL
user-function calls active at once, ``nessie.limits``), counted the same way on the reference
interpreter, the λcu executor with the numpy runner and with the OpenCL runner (PoCL here), so
that every backend fails at the same depth, with the same located message, after the same
output, and quickly (before it, a recursion through an apply-to-each took minutes to exhaust
the compiled backends' stacks).

Every run is a subprocess: the limit is read from the environment when ``lambda_cu.support``
is imported.  The exact-limit cases set it to 50; the unbounded ones use the default."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from nessie.limits import MAX_CALL_DEPTH, RECURSION_TOO_DEEP

ROOT = Path(__file__).resolve().parents[2]
BACKENDS = ["interp", "lcu", "opencl"]

#: what an unbounded recursion may take to fail, start-up and kernel compilation included
#: (measured on 2 cores with PoCL at the default limit: about 1 s on the interpreter, 5 s on
#: lcu, 15 s on opencl for the apply-to-each; the bound leaves room for a loaded machine)
SECONDS = 60


def env(limit=None) -> dict:
    e = dict(os.environ)
    e.pop("NESSIE_MAX_CALL_DEPTH", None)
    if limit is not None:
        e["NESSIE_MAX_CALL_DEPTH"] = str(limit)
    return e


def nessie_run(tmp_path, text: str, backend: str, limit=None):
    path = tmp_path / "p.nesl"
    path.write_text(text, encoding="utf-8")
    start = time.perf_counter()
    p = subprocess.run([sys.executable, "-m", "nessie", "run", "--backend", backend, "p.nesl"],
                       capture_output=True, text=True, cwd=tmp_path, env=env(limit),
                       timeout=600)
    return p.returncode, p.stdout, p.stderr, time.perf_counter() - start


def test_the_default_limit():
    assert MAX_CALL_DEPTH == 10_000 or "NESSIE_MAX_CALL_DEPTH" in os.environ


# ----------------------------------------------------------------------------- unbounded
UNBOUNDED = {
    # the program: a recursion through an apply-to-each, one lifted call per level
    "apply_to_each": ("function h(x) = if x < 0 then [x] else {h(y+1) : y in [x]}[0];\n"
                      "1 + 1;\nh(1);\n3;\n", "h(1);", 3),
    "scalar": ("function g(x) = if x < 0 then x else g(x+1);\n1 + 1;\ng(1);\n3;\n", "g(1);",
               3),
}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("shape", sorted(UNBOUNDED))
def test_unbounded_recursion_fails_quickly_and_alike(tmp_path, backend, shape):
    text, line, lineno = UNBOUNDED[shape]
    rc, out, err, seconds = nessie_run(tmp_path, text, backend)
    assert rc == 1
    assert out.splitlines()[1:] == ["it = 2 : int"]        # after the lines before it
    assert err == (f"p.nesl:{lineno}:1: error: {RECURSION_TOO_DEEP}\n    {line}\n"
                   f"    ^{'~' * (len(line) - 2)}\n")
    assert seconds < SECONDS, seconds


# ----------------------------------------------------------------------------- the exact limit
#: (definitions, a call that makes exactly 50 calls active and its result, one deeper)
DEFS = """\
function g(n) = if n == 0 then 0 else 1 + g(n - 1);
function h(x) = if x <= 0 then [x] else {h(y - 1) : y in [x]}[0];
function s2(n) = if n <= 0 then 0 else s2(n - 1) + s2(-1);
function ev(n, k) = if n == 0 then t else k(n - 1);
function od(n) = if n == 0 then f else ev(n - 1, od);
function hr(x) = if x <= 0 then [rand(5) + x] else {hr(y - 1) : y in [x]}[0];
function fib(n) = if n < 2 then n else fib(n - 1) + fib(n - 2);
"""
EXACT = {
    # plain recursion: g(49) is 50 calls (g(49) ... g(0))
    "scalar": ("g(49)", "49 : int", "g(50)"),
    # through an apply-to-each: one lifted call per level on the compiled backends
    "apply_to_each": ("h(49)", "[0] : [int]", "h(50)"),
    # sibling calls, batched into one lifted call per level by the flattener
    "siblings": ("s2(49)", "0 : int", "s2(50)"),
    # mutual recursion (through a function parameter: od -> ev -> od ...), 25 + 25 calls
    "mutual": ("od(49)", "T : bool", "od(50)"),
    # a body that draws random numbers: evaluated vector-wise by the interpreter
    "random": ("hr(49)", "[3] : [int]", "hr(50)"),
    # inside an apply-to-each: g(49) for the deepest element
    "in_apply_to_each": ("{g(i) : i in [47:50]}", "[47, 48, 49] : [int]",
                         "{g(i) : i in [47:51]}"),
    # a tree of calls: its depth counts, not its size (fib(20) is 20 deep)
    "tree": ("fib(20)", "6765 : int", "{fib(i) : i in [20:23]} ++ [g(50)]"),
}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("case", sorted(EXACT))
def test_exactly_the_limit_runs_and_one_deeper_fails(tmp_path, backend, case):
    ok, value, deeper = EXACT[case]
    text = f"{DEFS}1 + 1;\n{ok};\n{deeper};\n3;\n"
    rc, out, err, _ = nessie_run(tmp_path, text, backend, limit=50)
    lines = [x for x in out.splitlines() if " = fn : " not in x]
    assert lines == ["it = 2 : int", f"it = {value}"], err
    assert rc == 1
    where = DEFS.count("\n") + 3
    assert err == (f"p.nesl:{where}:1: error: {RECURSION_TOO_DEEP}\n    {deeper};\n"
                   f"    ^{'~' * (len(deeper) - 1)}\n")


def test_a_deeper_limit_runs_deeper(tmp_path):
    rc, out, err, _ = nessie_run(tmp_path, DEFS + "g(99);\n", "lcu", limit=100)
    assert (rc, err) == (0, "") and out.endswith("it = 99 : int\n")


# ----------------------------------------------------------------------------- REPL and API
SCRIPT = r"""
import io, json, sys
import nessie
from nessie.diagnostics import RuntimeNeslError
from nessie.repl import Session

backend = sys.argv[1]
res = {}
out, err = io.StringIO(), io.StringIO()
s = Session(out, err, backend=backend)
for line in ["function g(n) = if n == 0 then 0 else 1 + g(n - 1);", "g(50);", "g(49);",
             "function w(n) = if n < 0 then [n] else {w(y + 1) : y in [n]}[0];", "w(1);",
             "g(49);"]:
    s.feed(line)
s.finish()
res["repl"] = [out.getvalue(), err.getvalue()]
m = nessie.load("function g(n) = if n == 0 then 0 else 1 + g(n - 1);", backend=backend,
                run_toplevel=False)
api = [int(m.g(49))]
try:
    m.g(50)
    api.append("no error")
except RuntimeNeslError as e:
    api.append(str(e))
api.append(int(m.g(49)))
res["api"] = api
print(json.dumps(res))
"""


@pytest.mark.parametrize("backend", BACKENDS)
def test_repl_and_api(backend):
    p = subprocess.run([sys.executable, "-c", SCRIPT, backend], capture_output=True, text=True,
                       cwd=ROOT, env=env(50), timeout=600)
    assert p.returncode == 0, p.stderr
    res = json.loads(p.stdout.splitlines()[-1])
    out, err = res["repl"]
    # the session goes on after each error, and a later evaluation starts at depth 0
    assert [x for x in out.splitlines() if " = fn : " not in x] == ["it = 49 : int",
                                                                    "it = 49 : int"]
    errs = [x for x in err.splitlines() if "error:" in x]
    assert errs == [f"<stdin>:2:1: error: {RECURSION_TOO_DEEP}",
                    f"<stdin>:5:1: error: {RECURSION_TOO_DEEP}"], err
    ok, message, again = res["api"]
    assert (ok, again) == (49, 49)
    assert message.endswith(RECURSION_TOO_DEEP) and "<string>:1:" in message
