"""Every example in nesl_examples/ on the default OpenCL device (``PYOPENCL_CTX``), fused and
unfused, compared with its golden output (floats within the differential tests' tolerance)."""
from __future__ import annotations

import io
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "differential"))

from diff_harness import same_text  # noqa: E402
from nessie import driver  # noqa: E402
from nessie.diagnostics import RuntimeNeslError  # noqa: E402

bad = 0
for path in sorted((ROOT / "nesl_examples").glob("*.nesl")):
    want = path.with_suffix(".out").read_text(encoding="utf-8")
    c = driver.compile_file(str(path))
    for fused in (True, False):
        flat = driver.flatten(c)
        if fused:
            flat, _ = driver.fuse(flat)
        out = io.StringIO()
        t = time.perf_counter()
        runner = driver.make_runner("opencl")
        try:
            driver.run_lcu(c, flat, out, runner=runner)
        except RuntimeNeslError as e:
            out.write(e.format() + "\n")
        ok = same_text(out.getvalue(), want)
        bad += not ok
        print(f"{path.name:18s} {'fused' if fused else 'unfused':8s} {'OK' if ok else 'DIFFERS'} "
              f"{time.perf_counter() - t:6.2f} s  {runner.device.name.strip()}")
        if not ok:
            print(out.getvalue())
sys.exit(1 if bad else 0)
