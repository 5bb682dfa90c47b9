"""Benchmarks of the OpenCL backend against the peers, measured in one run (issue 9).

    python benchmarks/bench_opencl.py [--device cpu|gpu|P:D] [--scale S] [--out DIR]

For each workload the NESL function is flattened, fused and lowered once; its inputs are put on
the device once ("data already on the device", as the peers get theirs); then each call is timed
(median of --repeat, after a warm-up call that also builds the kernels) up to the device's
completion.  Fused and unfused programs are both timed, with their device launches per call.
Peers in the same process: numpy / scipy (csr @ v, ConvexHull) on a CPU device, CuPy (cuBLAS,
cuSPARSE, cupy.sort) on a GPU device when CuPy is importable.  Writes DIR/bench.json, DIR/bench.md and, with matplotlib,
DIR/bench.png (fused vs unfused time per workload).  Measurements, never assertions.
"""
from __future__ import annotations

from typing import Optional

import argparse
import json
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from lambda_cu.executor import Executor  # noqa: E402
from lambda_cu.types import TupleT  # noqa: E402
from lambda_cu.values import SegDes  # noqa: E402
from lift_backend.lower.runner import OpenCLRunner  # noqa: E402
from nessie import driver  # noqa: E402

SOURCES = {
    "dotp": ("function dotp(a, b) : ([float], [float]) -> float = sum({x * y : x in a; y in b});",
             "dotp"),
    "norm2": ("""function norm2f(xs) : [float] -> ([float], [float]) =
  let sum1 = sum(xs); gts = {x in xs | x > 0.0}; sum2 = sum(gts)
  in ({x / sum1 : x in xs}, {x / sum2 : x in xs});""", "norm2f"),
    "sparse_mxv": ("""function sparse_mxv(mat, vec) : ([[(int, float)]], [float]) -> [float] =
  {sum({v * vec[c] : (c, v) in row}) : row in mat};""", "sparse_mxv"),
    "quicksort": ("""function qsort(a) : [int] -> [int] =
  if (#a < 2) then a
  else
    let pivot = a[#a / 2];
        lesser = {e in a | e < pivot};
        equal = {e in a | e == pivot};
        greater = {e in a | e > pivot};
        result = {qsort(v) : v in [lesser, greater]}
    in result[0] ++ equal ++ result[1];""", "qsort"),
    # nesl_examples/quickhull.nesl's functions
    "quickhull": ("""function cross_product(o, line) =
  let (xo, yo) = o;
      ((x1, y1), (x2, y2)) = line
  in (x1 - xo) * (y2 - yo) - (y1 - yo) * (x2 - xo);
function hsplit(points, p1, p2) =
  let cross = {cross_product(p, (p1, p2)) : p in points};
      packed = {p in points; c in cross | plusp(c)}
  in if #packed < 2 then [p1] ++ packed
     else
       let pm = points[max_index(cross)]
       in flatten({hsplit(packed, l, r) : l in [p1, pm]; r in [pm, p2]});
function quickhull(points) : [(float, float)] -> [(float, float)] =
  let xs = {x : (x, y) in points};
      minx = points[min_index(xs)];
      maxx = points[max_index(xs)]
  in hsplit(points, minx, maxx) ++ hsplit(points, maxx, minx);""", "quickhull"),
}


def nest(leaves: list, ty):
    """Leaves (in order) shaped as a λcu parameter type (tuples nest)."""
    if isinstance(ty, TupleT):
        return tuple(nest(leaves, t) for t in ty.elems)
    return leaves.pop(0)


def inputs(name: str, n: int, rng):
    """(NESL leaves, peer inputs) of a workload of size n."""
    if name in ("dotp",):
        a, b = rng.random(n), rng.random(n)
        return [a, b], (a, b)
    if name == "norm2":
        a = rng.random(n) - 0.3
        return [a], (a,)
    if name == "sparse_mxv":
        rows, per = n, 8 if n <= 2_000_000 else 10
        cols = rng.integers(0, rows, rows * per).astype(np.int32)
        vals = rng.random(rows * per)
        vec = rng.random(rows)
        sd = SegDes(np.full(rows, per))
        return [sd, cols, vals, vec], (cols, vals, vec, rows, per)
    if name == "quicksort":
        a = rng.integers(-2**31, 2**31 - 1, n).astype(np.int32)
        return [a], (a,)
    if name == "quickhull":
        # uniform in the unit disk: about n^(1/3) hull points
        r, t = np.sqrt(rng.random(n)), rng.random(n) * 2 * np.pi
        x, y = r * np.cos(t), r * np.sin(t)
        return [x, y], (np.stack([x, y], axis=1),)
    raise KeyError(name)


def peers(name: str, data, gpu: bool):
    """{peer name: zero-argument callable} on prepared data (on the GPU with CuPy)."""
    out = {}
    if gpu:
        try:
            import cupy as cp
            import cupyx.scipy.sparse as cps
        except ImportError:
            return out
        sync = cp.cuda.runtime.deviceSynchronize
        if name == "dotp":
            a, b = (cp.asarray(x) for x in data)
            out["cupy.dot"] = lambda: (cp.dot(a, b), sync())
        elif name == "norm2":
            a = cp.asarray(data[0])
            out["cupy"] = lambda: ((a / a.sum(), a / a[a > 0].sum()), sync())
        elif name == "sparse_mxv":
            cols, vals, vec, rows, per = data
            m = cps.csr_matrix((cp.asarray(vals), cp.asarray(cols),
                                cp.arange(0, rows * per + 1, per, dtype=cp.int32)), shape=(rows, rows))
            v = cp.asarray(vec)
            out["cuSPARSE csr@v"] = lambda: (m @ v, sync())
        elif name == "quicksort":
            a = cp.asarray(data[0])
            out["cupy.sort"] = lambda: (cp.sort(a), sync())
        return out
    if name == "dotp":
        a, b = data
        out["numpy.dot"] = lambda: np.dot(a, b)
    elif name == "norm2":
        a = data[0]
        out["numpy"] = lambda: (a / a.sum(), a / a[a > 0].sum())
    elif name == "sparse_mxv":
        try:
            import scipy.sparse as sp
        except ImportError:
            return out
        cols, vals, vec, rows, per = data
        m = sp.csr_matrix((vals, cols, np.arange(0, rows * per + 1, per)), shape=(rows, rows))
        out["scipy csr@v"] = lambda: m @ vec
    elif name == "quicksort":
        a = data[0]
        out["numpy.sort"] = lambda: np.sort(a)
    elif name == "quickhull":
        try:
            from scipy.spatial import ConvexHull
        except ImportError:
            return out
        pts = data[0]
        out["scipy ConvexHull"] = lambda: ConvexHull(pts)
    return out


#: bytes a workload has to move at the least (its inputs read, its results written), for the
#: bandwidth column: dotp reads its two vectors once; norm2 reads xs for its two sums and again
#: for its two results, which it writes (8-byte floats)
MIN_BYTES = {"dotp": lambda n: 16 * n, "norm2": lambda n: 32 * n}


def copy_bandwidth(runner: OpenCLRunner, nbytes: int, repeat: int) -> float:
    """The device's copy bandwidth, in bytes read plus bytes written per second: one
    device-to-device copy of ``nbytes`` by the driver (median of ``repeat``)."""
    cl = runner.cl
    src = cl.Buffer(runner.ctx, cl.mem_flags.READ_WRITE, nbytes)
    dst = cl.Buffer(runner.ctx, cl.mem_flags.READ_WRITE, nbytes)
    cl.enqueue_fill_buffer(runner.queue, src, np.uint8(1), 0, nbytes)

    def copy():
        cl.enqueue_copy(runner.queue, dst, src)
        runner.queue.finish()
    t = timed(copy, repeat)
    src.release()
    dst.release()
    return 2 * nbytes / t


def timed(fn, repeat: int) -> float:
    fn()
    ts = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t)
    return statistics.median(ts)


def nessie_call(name: str, fuse: bool, leaves: list, runner: OpenCLRunner):
    src, fname = SOURCES[name]
    c = driver.compile_source(src, f"{name}.nesl")
    flat = driver.flatten(c)
    if fuse:
        flat, _ = driver.fuse(flat)
    ex = Executor(flat.program, runner)
    f = flat.program.function(fname)
    ls = list(leaves)
    args = [runner.from_host(nest(ls, p.ty), p.ty) for p in f.params]
    runner.finish()

    def call():
        r = ex._call(f, args)
        runner.sync()
        runner.finish()
        return r
    return call


def same_as_peer(name: str, result, pdata, runner: OpenCLRunner) -> Optional[bool]:
    """Whether a workload's NESL result is the peer's (None: not compared).  Quickhull: the hull's
    points, as a set, are scipy's hull vertices (points in general position: no ties)."""
    if name == "quickhull":
        try:
            from scipy.spatial import ConvexHull
        except ImportError:
            return None
        pts = pdata[0]
        xs, ys = (runner.to_host(v) for v in result)
        got = set(zip(xs.tolist(), ys.tolist()))
        want = set(map(tuple, pts[ConvexHull(pts).vertices].tolist()))
        return got == want
    return None


def examples(args) -> int:
    """Fused vs unfused on every example program: device launches and time of a whole run."""
    import io
    from pathlib import Path
    root = Path(__file__).resolve().parents[1] / "nesl_examples"
    runner_dev = OpenCLRunner(args.device).device
    rows = []
    paths = sorted(root.glob("*.nesl"))
    if args.only:
        wanted = args.only.split(",")
        unknown = [w for w in wanted if not (root / f"{w}.nesl").is_file()]
        if unknown:
            print(f"bench_opencl.py: error: no example {', '.join(unknown)} in nesl_examples/",
                  file=sys.stderr)
            return 1
        paths = [p for p in paths if p.stem in wanted]
    for path in paths:
        c = driver.compile_file(str(path))
        row = {"example": path.stem}
        for fuse in (False, True):
            flat = driver.flatten(c)
            if fuse:
                flat, _ = driver.fuse(flat)
            tag = "fused" if fuse else "unfused"

            def run():
                r = OpenCLRunner(runner_dev)
                driver.run_lcu(c, flat, io.StringIO(), runner=r)
                return r.stats.launches
            run()                                  # builds the kernels
            ts, launches = [], 0
            for _ in range(args.repeat):
                t = time.perf_counter()
                launches = run()
                ts.append(time.perf_counter() - t)
            row[f"{tag}_s"] = statistics.median(ts)
            row[f"{tag}_launches"] = launches
        row["saved_s"] = row["unfused_s"] - row["fused_s"]
        rows.append(row)
        print(json.dumps(row), flush=True)
    os.makedirs(args.out, exist_ok=True)
    dev = f"{runner_dev.name.strip()} ({runner_dev.platform.name.strip()})"
    with open(os.path.join(args.out, "examples.json"), "w") as f:
        json.dump({"device": dev, "rows": rows,
                   "totals": {k: sum(r[k] for r in rows) for k in
                              ("unfused_launches", "fused_launches", "unfused_s", "fused_s",
                               "saved_s")}}, f, indent=2)
    lines = [f"Device: {dev}", "",
             "| example | device launches unfused | fused | time unfused | fused | saved by fusion |",
             "|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['example']} | {r['unfused_launches']} | {r['fused_launches']} | "
                     f"{r['unfused_s'] * 1e3:.1f} ms | {r['fused_s'] * 1e3:.1f} ms | "
                     f"{r['saved_s'] * 1e3:+.1f} ms |")
    tot = {k: sum(r[k] for r in rows) for k in ("unfused_launches", "fused_launches",
                                                  "unfused_s", "fused_s", "saved_s")}
    lines.append(f"| total | {tot['unfused_launches']} | {tot['fused_launches']} | "
                 f"{tot['unfused_s'] * 1e3:.1f} ms | {tot['fused_s'] * 1e3:.1f} ms | "
                 f"{tot['saved_s'] * 1e3:+.1f} ms |")
    with open(os.path.join(args.out, "examples.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: no plot", file=sys.stderr)
        return 0
    fig, (a1, a2) = plt.subplots(2, 1, figsize=(9, 6), sharex=True)
    xs = np.arange(len(rows))
    for ax, key, label in ((a1, "launches", "device launches"), (a2, "s", "ms per run")):
        scale = 1e3 if key == "s" else 1
        ax.bar(xs - 0.2, [r[f"unfused_{key}"] * scale for r in rows], 0.4, label="unfused")
        ax.bar(xs + 0.2, [r[f"fused_{key}"] * scale for r in rows], 0.4, label="fused")
        ax.set_ylabel(label)
        ax.set_yscale("log")
        ax.legend(fontsize=8)
    a2.set_xticks(xs, [r["example"] for r in rows], rotation=30, ha="right")
    a1.set_title(f"nesl_examples, fused vs unfused: {dev}", fontsize=9)
    fig.tight_layout()
    fig.savefig(os.path.join(args.out, "examples.png"), dpi=120)
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--device", default=None)
    ap.add_argument("--scale", type=float, default=1.0, help="multiply every size by this")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--only", default=None,
                    help="comma-separated workloads (with --examples: example names, e.g. dotp,quickhull)")
    ap.add_argument("--out", default="benchmarks/out")
    ap.add_argument("--examples", action="store_true",
                    help="instead: every program in nesl_examples/, fused vs unfused (device "
                         "launches and wall time of a whole run, kernels built beforehand); "
                         "writes DIR/examples.md, DIR/examples.json and DIR/examples.png")
    args = ap.parse_args(argv)
    if args.examples:
        return examples(args)
    runner = OpenCLRunner(args.device)
    gpu = runner.c.is_gpu
    sizes = {"dotp": 10**8 if gpu else 10**7, "norm2": 10**8 if gpu else 10**7,
             "sparse_mxv": 10**7 if gpu else 10**6, "quicksort": 10**7 if gpu else 10**6,
             "quickhull": 10**7 if gpu else 10**6}
    rng = np.random.default_rng(0)
    rows = []
    copy_bw = None          # measured once, on the first workload with a bandwidth column
    names = args.only.split(",") if args.only else list(SOURCES)
    for name in names:
        n = max(1, int(sizes[name] * args.scale))
        leaves, pdata = inputs(name, n, rng)
        row = {"workload": name, "n": n}
        for fuse in (True, False):
            call = nessie_call(name, fuse, leaves, runner)
            before = runner.stats.launches
            res = call()
            same = same_as_peer(name, res, pdata, runner)
            if same is not None:
                row["same_as_peer_" + ("fused" if fuse else "unfused")] = same
            row["launches_" + ("fused" if fuse else "unfused")] = runner.stats.launches - before
            row["nessie_" + ("fused" if fuse else "unfused") + "_s"] = timed(call, args.repeat)
        for pname, fn in peers(name, pdata, gpu).items():
            row["peer"] = pname
            row["peer_s"] = timed(fn, args.repeat)
        if "peer_s" in row:
            row["ratio_fused_to_peer"] = row["nessie_fused_s"] / row["peer_s"]
        if name in MIN_BYTES:
            nbytes = MIN_BYTES[name](n)
            if copy_bw is None:
                copy_bw = copy_bandwidth(runner, 8 * n, args.repeat)
            row["fused_bytes_per_s"] = nbytes / row["nessie_fused_s"]
            row["copy_bytes_per_s"] = copy_bw
            row["fraction_of_copy_bandwidth"] = row["fused_bytes_per_s"] / copy_bw
        rows.append(row)
        print(json.dumps(row), flush=True)
    os.makedirs(args.out, exist_ok=True)
    dev = f"{runner.device.name.strip()} ({runner.device.platform.name.strip()})"
    with open(os.path.join(args.out, "bench.json"), "w") as f:
        json.dump({"device": dev, "rows": rows,
                   "totals": {k: sum(r[k] for r in rows) for k in
                              ("launches_fused", "launches_unfused", "nessie_fused_s",
                               "nessie_unfused_s")}}, f, indent=2)
    lines = [f"Device: {dev}", "",
             "| workload | n | fused | unfused | device launches fused/unfused | peer | peer time | fused/peer "
             "| result = peer's |",
             "|---|---|---|---|---|---|---|---|---|"]

    def same(r):
        v = [r[k] for k in ("same_as_peer_fused", "same_as_peer_unfused") if k in r]
        return "-" if not v else "yes" if all(v) else "NO"
    for r in rows:
        lines.append(f"| {r['workload']} | {r['n']:.0e} | {r['nessie_fused_s'] * 1e3:.2f} ms | "
                     f"{r['nessie_unfused_s'] * 1e3:.2f} ms | {r['launches_fused']}/{r['launches_unfused']} | "
                     f"{r.get('peer', '-')} | "
                     + (f"{r['peer_s'] * 1e3:.2f} ms | {r['ratio_fused_to_peer']:.2f}x |" if 'peer_s' in r else "- | - |")
                     + f" {same(r)} |")
    bw = [r for r in rows if "fraction_of_copy_bandwidth" in r]
    if bw:
        lines += ["", "Bandwidth of the fused program: the bytes the workload has to move at the "
                  "least (MIN_BYTES) per second, against a device-to-device copy of 8n bytes "
                  "(bytes read + written per second).", "",
                  "| workload | n | fused GB/s | copy GB/s | fraction of copy |", "|---|---|---|---|---|"]
        for r in bw:
            lines.append(f"| {r['workload']} | {r['n']:.0e} | {r['fused_bytes_per_s'] / 1e9:.1f} | "
                         f"{r['copy_bytes_per_s'] / 1e9:.1f} | {r['fraction_of_copy_bandwidth']:.0%} |")
    with open(os.path.join(args.out, "bench.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(7, 3.5))
        xs = np.arange(len(rows))
        ax.bar(xs - 0.27, [r["nessie_fused_s"] * 1e3 for r in rows], 0.27, label="Nessie fused")
        ax.bar(xs, [r["nessie_unfused_s"] * 1e3 for r in rows], 0.27, label="Nessie unfused")
        ax.bar(xs + 0.27, [r.get("peer_s", 0) * 1e3 for r in rows], 0.27, label="peer")
        ax.set_xticks(xs, [r["workload"] for r in rows])
        ax.set_yscale("log")
        ax.set_ylabel("ms per call")
        ax.set_title(dev, fontsize=9)
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(os.path.join(args.out, "bench.png"), dpi=120)
    except ImportError:
        print("matplotlib is not installed: no plot", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
