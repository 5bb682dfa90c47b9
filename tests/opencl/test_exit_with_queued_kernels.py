"""A process that exits while kernels are still queued (a run ending in a runtime error may leave
some): the runner waits for every context's queue at exit (``runner._finish_all``, registered
with the first context), so the exit status is the program's, not a crash of the driver's
threads while the interpreter tears down the OpenCL objects."""
import subprocess
import sys

import pytest

pytestmark = pytest.mark.opencl

CODE = r"""
import sys, numpy as np
from lift_backend.lower.runner import OpenCLRunner
import pyopencl as cl
r = OpenCLRunner("cpu")
prg = cl.Program(r.ctx, "kernel void k(global float* a, const long n) { for (long i = 0; i < n; i++) a[get_global_id(0)] += 1.0f; }").build()
buf = cl.Buffer(r.ctx, cl.mem_flags.READ_WRITE, 4 * 4096)
for _ in range(300):
    r.launch(prg.k, 4096, [buf, np.int64(2000)], local=64)
print("queued", flush=True)
sys.exit(3)
"""


def test_exit_waits_for_the_queue():
    for _ in range(3):
        p = subprocess.run([sys.executable, "-c", CODE], capture_output=True, text=True, timeout=300)
        assert p.returncode == 3, p.stderr
        assert p.stdout == "queued\n"


def test_finish_all_waits_and_never_raises():
    from lift_backend.lower import runner
    runner.get_context(runner.choose_device("cpu"))
    assert runner._CONTEXTS
    runner._finish_all()       # idempotent, and never raises
    runner._finish_all()
