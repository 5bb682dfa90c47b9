"""Out of memory on the OpenCL backend (a hostile-input hunt: under ``ulimit -v`` PoCL aborted the
process — and the REPL with it — when its own allocation failed).  On a CPU device the runner
checks a large buffer against the address-space limit first, so the program gets the located
``RUNTIME ERROR: out of memory.`` every backend reports, and the REPL goes on."""
from __future__ import annotations

import resource
import subprocess
import sys

import pytest

pytestmark = pytest.mark.opencl

SRC = "#flatten({index(j) : j in [0:40000]});\n"     # 800 million ints in all
LIMIT = 4_000_000_000


def _limited():
    resource.setrlimit(resource.RLIMIT_AS, (LIMIT, LIMIT))


def test_run_reports_out_of_memory(tmp_path):
    f = tmp_path / "oom.nesl"
    f.write_text(SRC)
    r = subprocess.run([sys.executable, "-m", "nessie", "run", "--backend", "opencl",
                        "--device", "cpu", str(f)], capture_output=True, text=True, timeout=300,
                       preexec_fn=_limited)
    assert r.returncode == 1, r.stderr
    assert r.stderr.splitlines()[0] == f"{f}:1:1: error: RUNTIME ERROR: out of memory."


def test_repl_goes_on_after_out_of_memory():
    r = subprocess.run([sys.executable, "-m", "nessie.repl", "--backend", "opencl", "--device",
                        "cpu"], input=SRC + "1;\n", capture_output=True, text=True, timeout=300,
                       preexec_fn=_limited)
    assert "RUNTIME ERROR: out of memory." in r.stdout + r.stderr
    assert "it = 1 : int" in r.stdout
