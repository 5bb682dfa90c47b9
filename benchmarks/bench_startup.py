"""Start-up and compile time of the nessie command (issue 9: `nessie check` / compile of the
examples ≤ 0.3 s, ILP included).

Measures the CPU time (user + system of the child process: the machine may be busy with other
work, CPU time is what the command itself costs) of, best of --repeat runs after one warm-up
that fills the parse-table cache:

- the peers: `python -c pass` (the interpreter's own floor) and `python -c "import numpy"`;
- `nessie --version` and `nessie check` of a two-line program;
- `nessie check` and `nessie compile` (flatten, ILP fusion, Lift lowering, OpenCL source; the
  ILP's CBC solves included, no device needed) of every nesl_examples/*.nesl, or those --only
  names.

Writes DIR/startup.json, DIR/startup.md and, with matplotlib, DIR/startup.png.

Note: Python reads the modules' cached bytecode (__pycache__) where it exists; with
PYTHONDONTWRITEBYTECODE set and no cache every run compiles the sources again (about 60 ms more
on a 2-core machine).  The table says which it measured.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "nesl_examples"
TARGET_S = 0.3


def cpu_seconds(args: list[str], env: dict) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.run(args, capture_output=True, text=True, cwd=ROOT, env=env, timeout=600)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        raise SystemExit(f"bench_startup: {' '.join(args)} failed:\n{p.stderr}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def best(args: list[str], env: dict, repeat: int) -> float:
    cpu_seconds(args, env)                                  # warm-up: caches, page cache
    return min(cpu_seconds(args, env) for _ in range(repeat))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--only", default=None, help="comma-separated example names (default: all)")
    ap.add_argument("--out", default="benchmarks/out")
    args = ap.parse_args(argv)
    names = sorted(p.stem for p in EXAMPLES.glob("*.nesl"))
    if args.only:
        wanted = set(args.only.split(","))
        unknown = sorted(wanted - set(names))
        if unknown:
            print(f"bench_startup: no example {', '.join(unknown)} in {EXAMPLES}", file=sys.stderr)
            return 1
        names = [n for n in names if n in wanted]
    os.makedirs(args.out, exist_ok=True)
    py = sys.executable
    tmp = tempfile.mkdtemp(prefix="nessie-startup-")
    env = dict(os.environ, NESSIE_CACHE_DIR=os.path.join(tmp, "cache"))
    small = os.path.join(tmp, "t.nesl")
    Path(small).write_text("function add1(x) = x + 1;\nadd1(2);\n")
    nessie = [py, "-m", "nessie"]
    rows = [("python -c pass (peer)", best([py, "-c", "pass"], env, args.repeat), None),
            ("python -c 'import numpy' (peer)", best([py, "-c", "import numpy"], env, args.repeat),
             None),
            ("nessie --version", best(nessie + ["--version"], env, args.repeat), None),
            ("nessie check (2 lines)", best(nessie + ["check", small], env, args.repeat), None)]
    for name in names:
        f = str(EXAMPLES / f"{name}.nesl")
        check = best(nessie + ["check", f], env, args.repeat)
        comp = best(nessie + ["compile", f, "--emit", "opencl"], env, args.repeat)
        rows.append((name, check, comp))
    shutil.rmtree(tmp, ignore_errors=True)
    bytecode = "read from __pycache__" if any((ROOT / "nessie").glob("__pycache__/*.pyc")) \
        else "compiled on every run (no __pycache__)"
    over = [r for r in rows[2:] if max(x for x in r[1:] if x is not None) > TARGET_S]
    with open(os.path.join(args.out, "startup.json"), "w") as fh:
        json.dump({"bytecode": bytecode, "repeat": args.repeat, "target_s": TARGET_S,
                   "rows": [{"what": w, "check_cpu_s": c, "compile_cpu_s": k}
                            for w, c, k in rows]}, fh, indent=1)
    lines = [f"CPU seconds, best of {args.repeat} (bytecode {bytecode}); target ≤ {TARGET_S} s",
             "", "| what | check / run | compile --emit opencl |", "|---|---:|---:|"]
    for w, c, k in rows:
        lines.append(f"| {w} | {c:.3f} | {'' if k is None else f'{k:.3f}'} |")
    lines += ["", f"over the target: {len(over)} of {len(rows) - 2}"
              + (f" ({', '.join(r[0] for r in over)})" if over else "")]
    text = "\n".join(lines) + "\n"
    with open(os.path.join(args.out, "startup.md"), "w") as fh:
        fh.write(text)
    print(text, end="")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: no plot", file=sys.stderr)
        return 0
    fig, ax = plt.subplots(figsize=(8, 0.25 * len(rows) + 1.5))
    ys = range(len(rows))
    ax.barh([y - 0.2 for y in ys], [r[1] for r in rows], height=0.4, label="check / run")
    ax.barh([y + 0.2 for y in ys], [r[2] or 0 for r in rows], height=0.4, label="compile")
    ax.axvline(TARGET_S, color="red", linestyle="--", label=f"target {TARGET_S} s")
    ax.set_yticks(list(ys), [r[0] for r in rows], fontsize=7)
    ax.invert_yaxis()
    ax.set_xlabel("CPU seconds (best of %d)" % args.repeat)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(args.out, "startup.png"), dpi=120)
    return 0


if __name__ == "__main__":
    sys.exit(main())
