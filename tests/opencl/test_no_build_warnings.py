"""The generated OpenCL builds without compiler warnings (issues 8 and 11).

A warning is noise on the user's terminal (PoCL's clang prints "N warnings generated." to
stderr) and usually a sign of sloppy generated code (`if ((a == b))`, `x && 10 == 0`).  Every
example and every CMU-style program is lowered, fused and unfused, and its OpenCL C is built
with PoCL's kernel cache off (a cached build has no log), in a child process so that the
setting takes effect; the build logs must be free of warnings."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PROGRAMS = sorted((ROOT / "nesl_examples").glob("*.nesl")) + \
    sorted((ROOT / "tests" / "cmu_style").glob("*.nesl"))

CHILD = r"""
import json, sys, warnings
import pyopencl as cl
from nessie import passes
from nessie.flatten import FlattenUnsupported
from lift_backend.devices import choose
dev = choose("cpu")
ctx = cl.Context([dev])
report = {}
for path in sys.argv[1:]:
    text = open(path, encoding="utf-8").read()
    for fuse in (True, False):
        try:
            src = passes.run(text, passes.Options(filename=path, fuse=fuse), until="opencl")["opencl"]
        except FlattenUnsupported:
            continue
        prg = cl.Program(ctx, src)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            prg.build(options=["-cl-std=CL1.2"])
        log = prg.get_build_info(dev, cl.program_build_info.LOG)
        if "warning" in log:
            report[f"{path} ({'fused' if fuse else 'unfused'})"] = log[-2000:]
print(json.dumps(report))
"""


def test_generated_opencl_builds_without_warnings():
    assert len(PROGRAMS) > 40
    env = dict(os.environ, POCL_KERNEL_CACHE="0")
    r = subprocess.run([sys.executable, "-c", CHILD, *map(str, PROGRAMS)], capture_output=True,
                       text=True, env=env, cwd=ROOT, timeout=1200)
    assert r.returncode == 0, r.stderr[-3000:]
    report = json.loads(r.stdout.strip().splitlines()[-1])
    assert report == {}, "\n\n".join(f"{k}:\n{v}" for k, v in report.items())
