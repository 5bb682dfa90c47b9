"""A robustness campaign: many mutated programs per class, on every backend, with counts.

    python tests/robustness/campaign.py [-n INPUTS_PER_CLASS] [--seed S] [--budget SECONDS]
        [--classes delete,garbage,...] [--full] [--out DIR]

Each input (``mutate.py``) is run with ``nessie run --backend interp``, ``lcu`` and ``opencl``
(``runner.run_backends``); the script prints, per mutation class, the verdicts of each backend
and the disagreements between them.  Every defect (traceback, hang, crash, other exit status,
unlocated error, disagreement) is written to ``DIR`` (default ``robustness-failures/``) with
the commands' output, to be replayed with ``nessie run``.  Without ``--full`` (as
test_mutations.py), the ``deep`` class runs unfused on lcu and opencl with sequence nesting capped at 40,
and ``slow`` lcu/opencl runs (``runner.run_backends``)
are counted, not reported as defects.
Exit status 1 if any defect was found.
"""
from __future__ import annotations

import argparse
import collections
import os
import random
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from mutate import CLASSES, mutate, seed_files  # noqa: E402
from runner import Worker, describe, run_backends  # noqa: E402

#: as in test_mutations.py: without --full, the deep class's sequence nesting stops here
SEQ_DEPTH_CAP = 40


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-n", type=int, default=50, help="inputs per class")
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--budget", type=float, default=60.0, help="seconds per run")
    ap.add_argument("--unbounded-budget", type=float, default=10.0,
                    help="seconds for lcu after the interpreter recursed too deep")
    ap.add_argument("--classes", default=",".join(CLASSES))
    ap.add_argument("--full", action="store_true",
                    help="deep class fused on lcu with sequence nesting not capped; "
                         "slow lcu runs are defects")
    ap.add_argument("--out", default="robustness-failures")
    args = ap.parse_args(argv)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**32)
    print(f"robustness campaign: seed {seed} (--seed {seed} repeats it)", flush=True)
    seeds = seed_files()
    worker = Worker()
    tmp = tempfile.mkdtemp(prefix="nessie-robust-")
    defects = 0
    start = time.time()
    try:
        for cls in args.classes.split(","):
            counts: dict = collections.defaultdict(collections.Counter)
            slowest = 0.0
            for k in range(args.n):
                r = random.Random(f"{seed}/{cls}/{k}")
                rel = seeds[r.randrange(len(seeds))]
                limited = cls == "deep" and not args.full
                kw = {"seq_depth_cap": SEQ_DEPTH_CAP} if limited else {}
                data = mutate(cls, rel, r, **kw)
                path = os.path.join(tmp, f"{cls}-{k}.nesl")
                with open(path, "wb") as f:
                    f.write(data)
                out = run_backends(worker, path, args.budget, args.unbounded_budget,
                                   lcu_unfused=limited, exact_carets=True)
                for b, v in out.verdicts.items():
                    counts[b][v] += 1
                slowest = max([slowest] + [a.seconds for a in out.answers.values()])
                for b, a in out.answers.items():
                    if a.seconds > args.budget / 4 and not a.hung:
                        print(f"  long run: {b} {a.seconds:.1f} s on {cls}-{k} ({rel}), in "
                              f"{path}", flush=True)
                found = out.defects(strict=args.full)
                if out.diff is not None:
                    counts["both"]["disagree"] += 1
                slow = [(b, v) for b, v in out.verdicts.items() if v == "slow" and not found]
                if found or slow:             # slow inputs are kept too, as known gaps
                    defects += bool(found)
                    os.makedirs(args.out, exist_ok=True)
                    kinds = "+".join(sorted({v for _, v in found or slow}))
                    stem = os.path.join(args.out, f"{kinds}-{cls}-{k}")
                    with open(stem + ".nesl", "wb") as f:
                        f.write(data)
                    with open(stem + ".txt", "w", encoding="utf-8") as f:
                        f.write(f"seed {seed}, from {rel}\n")
                        for b, a in out.answers.items():
                            f.write(f"=== nessie {' '.join(out.argvs[b])}\n{describe(a)}\n")
                        if out.diff:
                            f.write(out.diff + "\n")
                    print(f"  {kinds}: {stem}.nesl ({rel})", flush=True)
            for b, c in counts.items():
                print(f"{cls:9} {b:6} {sum(c.values()):5} runs: "
                      + ", ".join(f"{n} {v}" for v, n in sorted(c.items())), flush=True)
            print(f"{cls:9} slowest run {slowest:.1f} s", flush=True)
    finally:
        worker.close()
    print(f"{defects} inputs with defects in {time.time() - start:.0f} s (seed {seed})")
    return 1 if defects else 0


if __name__ == "__main__":
    sys.exit(main())
