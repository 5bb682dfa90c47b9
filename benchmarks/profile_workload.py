"""Where the time of one benchmark workload goes on an OpenCL device (issue 9).

    python benchmarks/profile_workload.py quicksort 1000000 [--unfused] [--device DEV]

Runs the workload of ``bench_opencl.py`` once to warm up (kernels built), then once timed with
device profiling (kernel time summed from OpenCL events), then once under cProfile, and prints:
wall time, device launches, synchronisations (blocking reads), the sum of kernel times, and the
host functions with the most time of their own.  Time inside the blocking reads is the host
waiting for the device (kernels still queued, plus the transfer); time in ``launch`` is the
host's cost of enqueueing."""
from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy as np  # noqa: E402

import bench_opencl as B  # noqa: E402
from lift_backend.lower.runner import OpenCLRunner  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("workload", choices=sorted(B.SOURCES))
    ap.add_argument("n", type=int)
    ap.add_argument("--unfused", action="store_true")
    ap.add_argument("--device", default=None)
    ap.add_argument("--top", type=int, default=15)
    a = ap.parse_args(argv)
    leaves, _ = B.inputs(a.workload, a.n, np.random.default_rng(1))

    def stats_of(profile: bool):
        runner = OpenCLRunner(a.device, profile=profile)
        call = B.nessie_call(a.workload, not a.unfused, list(leaves), runner)
        call()                                  # warm-up: kernels built
        before = (runner.stats.launches, runner.stats.syncs)
        runner.finish_stats()
        k0 = runner.stats.kernel_seconds
        t = time.perf_counter()
        call()
        wall = time.perf_counter() - t
        st = runner.finish_stats()
        return (runner, call, wall, st.launches - before[0], st.syncs - before[1],
                st.kernel_seconds - k0)

    runner, call, wall, launches, syncs, _ = stats_of(False)
    print(f"device: {runner.device.name.strip()} ({runner.device.platform.name.strip()})")
    print(f"{a.workload} n={a.n} {'unfused' if a.unfused else 'fused'}: wall {wall * 1e3:.1f} ms, "
          f"{launches} device launches, {syncs} synchronisations")
    prunner, _, pwall, _, _, ksec = stats_of(True)
    print(f"with event profiling: wall {pwall * 1e3:.1f} ms, kernel time (sum of events) "
          f"{ksec * 1e3:.1f} ms (warm-up included below)")
    top = sorted(prunner.stats.by_kernel.items(), key=lambda kv: -kv[1])[:a.top]
    for name, sec in top:
        print(f"  {sec * 1e3:9.1f} ms  {name}")
    pr = cProfile.Profile()
    pr.enable()
    call()
    pr.disable()
    s = io.StringIO()
    pstats.Stats(pr, stream=s).sort_stats("tottime").print_stats(a.top)
    print(s.getvalue())
    return 0


if __name__ == "__main__":
    sys.exit(main())
