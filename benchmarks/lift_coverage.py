"""How many SOACs of the fused (and unfused) λcu of the example programs have a phase that
the Lift compiler builds (``Phase.compiled``), per SOAC kind and device strategy.

    python benchmarks/lift_coverage.py [--strategy cpu|gpu] [--no-fuse] [FILES...]

The lowering runs without a device (it only builds OpenCL C text and Lift programs); a SOAC
counts as lifted when at least one of its phases is a compiled Lift program, and as whole when
every phase of its usual plan on a CPU is (MAP, ONCE, PERMUTE: the map; REDUCE: chunks and carry; SCAN:
chunks, carry and last pass; FILTER, PARTITION: count and write, the chunk offsets scanned on
the host; SEG_FILTER, SEG_PARTITION: those and the positions ``pre`` and per-segment counts;
SCATTER: claim and write; RANK: keys, the radix passes' histograms, scan, positions and
moves, and the ranks; SEG_RANK: those and the passes over the segment ids; the others: none
counted yet, their plans keep hand-written phases).  Which phase the runner launches still
depends on sizes at run time (see docs/architecture.md)."""
from __future__ import annotations

import argparse
import collections
import glob
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from lift_backend.lower.device_scalars import device_scalars  # noqa: E402
from lift_backend.lower.runner import lower_kernel  # noqa: E402
from nessie import driver  # noqa: E402


#: the Lift programs (``LoweredSoac.info`` keys) of a SOAC's usual CPU plan
WHOLE = {"MAP": ("lift",), "ONCE": ("lift",), "PERMUTE": ("lift",), "REDUCE": ("lift", "lift_carry"),
         "SCAN": ("lift", "lift_carry", "lift_scan"), "FILTER": ("lift_count", "lift_write"),
         "PARTITION": ("lift_count", "lift_write", "lift_reject"),
         "SCATTER": ("lift_claim", "lift_scatter"),
         "SEG_FILTER": ("lift_count", "lift_write", "lift_pre", "lift_segcounts"),
         "SEG_PARTITION": ("lift_count", "lift_write", "lift_reject", "lift_pre", "lift_segcounts"),
         # the keys, every radix pass (histograms, their scan, positions, the move) and the ranks
         "RANK": ("lift_keys", "lift_hist", "lift_starts", "lift_pos", "lift_perm", "lift_out"),
         "SEG_RANK": ("lift_keys", "lift_hist", "lift_starts", "lift_pos", "lift_perm", "lift_seghist",
                      "lift_segpos", "lift_segperm", "lift_segout")}


def coverage(files: list, strategy: str, fuse: bool) -> tuple[dict, list]:
    total: collections.Counter = collections.Counter()
    lifted: collections.Counter = collections.Counter()
    whole: collections.Counter = collections.Counter()
    failed = []
    for path in files:
        try:
            c = driver.compile_file(path)
            flat = driver.flatten(c)
            if fuse:
                flat, _ = driver.fuse(flat)
            prog = flat.program
            d = device_scalars(prog)
            for k in prog.kernels:
                for ls in lower_kernel(k, strategy, d.params_of(k.name)):
                    total[ls.soac.NAME] += 1
                    if any(p.compiled for p in ls.phases):
                        lifted[ls.soac.NAME] += 1
                    if set(WHOLE.get(ls.soac.NAME, ("-",))) <= set(ls.info):
                        whole[ls.soac.NAME] += 1
        except Exception as e:          # a program the pipeline rejects: listed, not counted
            failed.append((path, f"{type(e).__name__}: {e}"))
    return {k: (lifted[k], whole[k], total[k]) for k in sorted(total)}, failed


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="*")
    ap.add_argument("--strategy", default="cpu", choices=("cpu", "gpu"))
    ap.add_argument("--no-fuse", action="store_true")
    a = ap.parse_args(argv)
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    files = a.files or sorted(glob.glob(os.path.join(root, "nesl_examples", "*.nesl")))
    table, failed = coverage(files, a.strategy, not a.no_fuse)
    print(f"{'SOAC':<14} {'lifted':>6} {'whole':>6} {'all':>5}   ({a.strategy} strategy, "
          f"{'unfused' if a.no_fuse else 'fused'}, {len(files)} programs)")
    for k, (l, w, t) in table.items():
        print(f"{k:<14} {l:>6} {w:>6} {t:>5}")
    for path, why in failed:
        print(f"not lowered: {path}: {why}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
