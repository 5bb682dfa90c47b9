"""The NESL-GPU benchmarks of issue 9, mandelbrot and Barnes-Hut, on Nessie's backends and numpy.

    python benchmarks/bench_nesl_gpu.py [--out DIR] [--mandel 256,512,1024] [--max-iter 256]
                                        [--bodies 1000,10000,75000] [--steps 1] [--repeat 3]
                                        [--device cpu|gpu|P:D] [--skip-after S]

Programs: benchmarks/nesl/mandelbrot.nesl (a WxW grid, max_iter iterations per point, checksum
the sum of the iteration counts) and benchmarks/nesl/barnes_hut.nesl (n bodies in 2-D, quadtree
by recursive partitioning, tree walk with theta = 0.5, n_steps leapfrog steps).  Their size lines
("NAME = INTEGER;") are substituted here.

For each program and size, the whole NESL program is run (building the inputs in NESL, the
work, the checksum; compile, flatten and fusion excluded) on

* ``lcu-fused`` / ``lcu``        flattened λcu, fused / unfused, on the numpy kernel runner;
* ``opencl-fused`` / ``opencl``  the same lowered to OpenCL on --device (the default device:
  PYOPENCL_CTX, else a GPU, else PoCL on the CPU), after a warm-up run that builds the kernels;
* ``interp``                     the reference interpreter, at the smallest size only;
* ``numpy``                      the peer: vectorised numpy mandelbrot (the same float operations,
  so the same counts), and for Barnes-Hut a direct O(n^2) vectorised force computation (blocks
  of rows; NOT a tree code: same steps and softening, the checksum differs by the tree's
  approximation, reported as the relative error of the displacement).

Times are the best of --repeat runs.  A configuration slower than --skip-after seconds at one
size is not run at the larger sizes.  Every backend's printed output is compared with the first
one's (interp where it ran); a difference is reported in the table.  Writes DIR/nesl_gpu.json
and DIR/nesl_gpu.md.  Measurements of the machine it runs on, never assertions.
"""
from __future__ import annotations

import argparse
import io
import json
import os
import platform
import re
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))

from nessie import driver  # noqa: E402

NESL_DIR = os.path.join(HERE, "nesl")

# the issue's numbers (issue 9): original NESL (CPU, NESL 3.1 VCODE interpreter) and Nessie's
# numpy λcu at the time of the issue; loads: Barnes-Hut 75,000 bodies, mandelbrot not given
ISSUE = {"mandelbrot": {"original NESL": 8.7, "Nessie (issue)": 98.0},
         "barnes_hut": {"original NESL": 23.0, "Nessie (issue)": "> 240"}}


def program(name: str, **sizes) -> str:
    """The program's text with its size lines ``NAME = INTEGER;`` set to ``sizes``."""
    with open(os.path.join(NESL_DIR, name + ".nesl")) as fh:
        src = fh.read()
    for key, val in sizes.items():
        src, k = re.subn(rf"(?m)^{key} = \d+;", f"{key} = {int(val)};", src)
        assert k == 1, f"{name}.nesl has no line '{key} = INTEGER;'"
    return src


def last_line(text: str) -> str:
    """The last top-level result, on one line (a long one is printed over several)."""
    starts = [m.start() for m in re.finditer(r"(?m)^it\b", text)]
    return " ".join(text[starts[-1]:].split()) if starts else text.strip().splitlines()[-1]


def same_within(out: str, ref: str, rel: float = 1e-12) -> bool:
    """Equal text up to printed floats within a relative ``rel`` (OpenCL regroups float sums)."""
    num = r"-?\d+\.\d*(?:E-?\d+)?"
    if re.sub(num, "#", out) != re.sub(num, "#", ref):
        return False
    return all(abs(float(a) - float(b)) <= rel * max(abs(float(a)), abs(float(b)))
               for a, b in zip(re.findall(num, out), re.findall(num, ref)))


def best_of(fn, repeat: int):
    best, out = float("inf"), None
    for _ in range(repeat):
        buf = io.StringIO()
        t = time.perf_counter()
        fn(buf)
        best = min(best, time.perf_counter() - t)
        out = buf.getvalue()
    return best, out


# ---------------------------------------------------------------- numpy peers

def numpy_mandelbrot(w: int, limit: int):
    """Vectorised: all points iterate together, a point stops counting once |z| > 2."""
    t = time.perf_counter()
    x = np.arange(w, dtype=np.float64)
    cr = np.broadcast_to(-2.0 + 3.0 * x / float(w), (w, w)).copy()
    ci = np.broadcast_to((-1.5 + 3.0 * x / float(w))[:, None], (w, w)).copy()
    zr = np.zeros_like(cr)
    zi = np.zeros_like(cr)
    k = np.zeros(cr.shape, dtype=np.int64)
    active = np.ones(cr.shape, dtype=bool)
    for _ in range(limit):
        active &= zr * zr + zi * zi <= 4.0
        if not active.any():
            break
        zr, zi = (np.where(active, zr * zr - zi * zi + cr, zr),
                  np.where(active, 2.0 * zr * zi + ci, zi))
        k += active
    return time.perf_counter() - t, int(k.sum())


def bodies(n: int):
    i = np.arange(n, dtype=np.int64)
    b = ((i * 7919 + 13) % 65521 * 30011 + i) % 1048576
    c = (b * 1999 + 17) % 1048576
    return b / 1048576.0, c / 1048576.0, 1.0 + (i % 3).astype(np.float64)


def numpy_direct_nbody(n: int, steps: int, dt=0.001, eps2=0.0001, block=2048):
    """Direct O(n^2) forces (vectorised over blocks of rows), the same leapfrog steps."""
    t = time.perf_counter()
    xs, ys, ms = bodies(n)
    vx = np.zeros(n)
    vy = np.zeros(n)
    for _ in range(steps):
        ax = np.empty(n)
        ay = np.empty(n)
        for s in range(0, n, block):
            dx = xs[None, :] - xs[s:s + block, None]
            dy = ys[None, :] - ys[s:s + block, None]
            r2 = dx * dx + dy * dy + eps2
            f = ms[None, :] / (r2 * np.sqrt(r2))
            ax[s:s + block] = (f * dx).sum(axis=1)
            ay[s:s + block] = (f * dy).sum(axis=1)
        g = 1.0 / n
        vx = vx + dt * g * ax
        vy = vy + dt * g * ay
        xs = xs + dt * vx
        ys = ys + dt * vy
    return time.perf_counter() - t, float(xs.sum() + ys.sum())


# ---------------------------------------------------------------- NESL runs

CONFIGS = ["lcu-fused", "lcu", "opencl-fused", "opencl", "interp"]


def run_program(name, sizes, configs, repeat, device, log):
    src = program(name, **sizes)
    c = driver.compile_source(src, name + ".nesl")
    flat = driver.flatten(c)
    fused = driver.fuse(flat)[0]
    res = {}
    for cfg in configs:
        if cfg == "interp":
            fn = lambda o: driver.run_interp(c, o)      # noqa: E731
        else:
            prog = fused if cfg.endswith("fused") else flat
            if cfg.startswith("opencl"):
                runner = driver.make_runner("opencl", device)
                t = time.perf_counter()
                driver.run_lcu(c, prog, io.StringIO(), runner=runner)     # builds the kernels
                log(f"    {cfg}: warm-up (kernel build) {time.perf_counter() - t:.2f} s")
                fn = lambda o, p=prog, r=runner: driver.run_lcu(c, p, o, runner=r)  # noqa: E731
            else:
                fn = lambda o, p=prog: driver.run_lcu(c, p, o)     # noqa: E731
        try:
            secs, out = best_of(fn, 1 if cfg == "interp" else repeat)
            res[cfg] = {"s": secs, "out": out, "result": last_line(out)}
            log(f"    {cfg}: {secs:.3f} s  {last_line(out)}")
        except Exception as e:      # a failure is a result too
            res[cfg] = {"s": None, "error": f"{type(e).__name__}: {e}"}
            log(f"    {cfg}: FAILED {type(e).__name__}: {e}")
    ref = next((r["out"] for r in res.values() if "out" in r), None)
    for r in res.values():
        if "out" in r:
            r["same_output"] = r["out"] == ref
            r["same_within_1e-12"] = same_within(r["out"], ref)
            del r["out"]
    return res


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default="/tmp/nesl-gpu-bench")
    ap.add_argument("--mandel", default="256,512,1024", help="grid widths (W x W points)")
    ap.add_argument("--max-iter", type=int, default=256)
    ap.add_argument("--bodies", default="1000,10000,75000")
    ap.add_argument("--steps", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--device", default=None)
    ap.add_argument("--skip-after", type=float, default=120.0)
    ap.add_argument("--configs", default=",".join(CONFIGS))
    ap.add_argument("--no-numpy", action="store_true")
    ap.add_argument("--numpy-max-bodies", type=int, default=10000,
                    help="the O(n^2) numpy peer is not run above this many bodies")
    ap.add_argument("--programs", default="mandelbrot,barnes_hut")
    a = ap.parse_args(argv)
    os.makedirs(a.out, exist_ok=True)
    configs = a.configs.split(",")

    def log(s):
        print(s, flush=True)

    dev = None
    if any(c.startswith("opencl") for c in configs):
        r = driver.make_runner("opencl", a.device)
        dev = str(getattr(r, "device", None) or getattr(getattr(r, "ctx", None), "devices", "?"))
    rows = []
    work = [("mandelbrot", {"width": w, "height": w, "max_iter": a.max_iter},
             f"{w}x{w} points, max_iter {a.max_iter}") for w in map(int, a.mandel.split(","))] + \
           [("barnes_hut", {"n_bodies": n, "n_steps": a.steps},
             f"{n} bodies, {a.steps} step(s), theta 0.5") for n in map(int, a.bodies.split(","))]
    work = [w for w in work if w[0] in a.programs.split(",")]
    slow = set()
    first = {}
    for name, sizes, load in work:
        log(f"{name}: {load}")
        cfgs = [c for c in configs if (name, c) not in slow
                and (c != "interp" or name not in first)]
        first.setdefault(name, load)
        res = run_program(name, sizes, cfgs, a.repeat, a.device, log)
        for c, r in res.items():
            if r.get("s") is None or r["s"] > a.skip_after:
                slow.add((name, c))
        row = {"program": name, "load": load, "sizes": sizes, "nesl": res}
        if not a.no_numpy:
            if name == "mandelbrot":
                secs, chk = numpy_mandelbrot(sizes["width"], sizes["max_iter"])
                row["numpy"] = {"s": secs, "checksum": chk, "peer": "vectorised numpy"}
            elif sizes["n_bodies"] > a.numpy_max_bodies:
                secs, chk = None, None
            else:
                secs, chk = numpy_direct_nbody(sizes["n_bodies"], sizes["n_steps"])
                row["numpy"] = {"s": secs, "checksum": chk, "peer": "numpy direct O(n^2)"}
            if secs is not None:
                log(f"    numpy: {secs:.3f} s  checksum {chk}")
        rows.append(row)

    meta = {"machine": platform.node(), "python": platform.python_version(),
            "numpy": np.__version__, "opencl_device": dev, "issue": ISSUE,
            "argv": sys.argv[1:]}
    with open(os.path.join(a.out, "nesl_gpu.json"), "w") as fh:
        json.dump({"meta": meta, "rows": rows}, fh, indent=1)

    def cell(r):
        if r is None:
            return "—"
        if r.get("s") is None:
            return "FAILED"
        if r.get("same_output", True):
            return f"{r['s']:.3f}"
        if r.get("same_within_1e-12"):
            return f"{r['s']:.3f} (floats within 1e-12)"
        return f"{r['s']:.3f} (DIFFERENT OUTPUT)"

    md = [f"NESL-GPU benchmarks (issue 9), seconds, best of {a.repeat} (interp: 1 run); "
          f"OpenCL device: {dev}; numpy {np.__version__}.", "",
          "| program | load | " + " | ".join(configs) + " | numpy peer | checksum (NESL) |",
          "|---|---|" + "---|" * len(configs) + "---|---|"]
    for row in rows:
        res = row["nesl"]
        chk = next((r["result"] for r in res.values() if "result" in r), "")
        peer = row.get("numpy")
        pc = f"{peer['s']:.3f} ({peer['peer']})" if peer else "— (not run)"
        md.append(f"| {row['program']} | {row['load']} | "
                  + " | ".join(cell(res.get(c)) for c in configs) + f" | {pc} | `{chk}` |")
    md += ["", "Issue 9's reference times (loads: Barnes-Hut 75,000 bodies; mandelbrot's load "
           "not given): " + "; ".join(f"{k}: " + ", ".join(f"{kk} {vv} s" for kk, vv in v.items())
                                       for k, v in ISSUE.items()) + "."]
    with open(os.path.join(a.out, "nesl_gpu.md"), "w") as fh:
        fh.write("\n".join(md) + "\n")
    print("\n".join(md))


if __name__ == "__main__":
    main()
