"""Cost of converting Python arguments through the Python API (issue 9), against scipy peers
measured in the same run.

    python benchmarks/bench_api_convert.py [--rows N] [--points N] [--backends lcu,opencl]
                                           [--repeat R] [--out benchmarks/results_api.md]

1. ``sparse_mxv`` (nesl_examples/sparse_mxv.nesl) on a CSR matrix of ``--rows`` rows of 10
   entries: the time to convert the arguments (typing, normalising and making the λcu leaves:
   everything a call does before the first kernel) against scipy's ``A @ v``; the whole call on
   each backend; and, for reference, the same conversion from nested lists of tuples on a
   tenth of the rows (the form accepted before issue 9).
2. ``quickhull`` (nesl_examples/quickhull.nesl) of ``--points`` uniform random points given as
   an ``(n, 2)`` float array, against ``scipy.spatial.ConvexHull``: the conversion, the whole
   call on each backend, and the same conversion from a list of tuples; the hull must be the
   same set of points as scipy's (checked, the run fails otherwise).

Times are the minimum of ``--repeat`` runs after one warm-up (which also builds the kernels);
the conversions and ``A @ v`` (milliseconds each) of at least 20.
Writes a Markdown table to ``--out``.  Measurements, never assertions (but the hull check).
"""
from __future__ import annotations

import argparse
import os
import platform
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import nessie  # noqa: E402

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
EX = os.path.join(ROOT, "nesl_examples")


def best(fn, repeat: int) -> float:
    fn()                                                  # warm-up
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def convert_only(f, *args) -> list:
    """What a call of ``f`` does to its arguments before running anything: the instance type,
    normalisation and the λcu leaves (flat vectors and segment descriptors)."""
    memo: dict = {}
    vals = list(args)
    fun, ground = f.instance_type(vals, memo)
    norm = f.convert_args(vals, ground, memo)
    leaves: list = []
    for a, t in zip(norm, ground):
        f._module._conv.to_leaves(a, t, leaves)
    return leaves


def ms(x: float) -> str:
    return f"{x * 1e3:.1f} ms" if x < 10 else f"{x:.2f} s"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=10 ** 6)
    ap.add_argument("--points", type=int, default=10 ** 6)
    ap.add_argument("--backends", default="lcu,opencl")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--out", default=os.path.join(ROOT, "benchmarks", "results_api.md"))
    args = ap.parse_args()
    import scipy
    import scipy.sparse as sp
    from scipy.spatial import ConvexHull

    backends = [b for b in args.backends.split(",") if b]
    rng = np.random.default_rng(0)
    rows: list = []

    # ------------------------------------------------------------------ sparse_mxv
    n, k = args.rows, 10
    cols = rng.integers(0, n, n * k).astype(np.int32)
    A = sp.csr_matrix((rng.random(n * k), cols, np.arange(0, n * k + 1, k)), shape=(n, n))
    v = rng.random(n)
    t_scipy = best(lambda: A @ v, max(20, args.repeat))
    mods = {b: nessie.load(os.path.join(EX, "sparse_mxv.nesl"), backend=b, run_toplevel=False)
            for b in backends}
    f0 = mods[backends[0]].sparse_mxv
    t_conv = best(lambda: convert_only(f0, A, v), max(20, args.repeat))
    rows.append(("sparse_mxv", f"{n} x {k} CSR", "scipy `A @ v`", ms(t_scipy), ""))
    rows.append(("sparse_mxv", f"{n} x {k} CSR", "API conversion (CSR)", ms(t_conv),
                 f"{100 * t_conv / t_scipy:.1f}% of scipy"))
    for b, m in mods.items():
        res = m.sparse_mxv(A, v)
        ok = np.allclose(res, A @ v, rtol=1e-9, atol=1e-9)
        t = best(lambda: m.sparse_mxv(A, v), max(1, args.repeat // 2))
        rows.append(("sparse_mxv", f"{n} x {k} CSR", f"whole call, {b}", ms(t),
                     f"{t / t_scipy:.1f}x scipy; result {'=' if ok else '!='} scipy's"))
    small = n // 10
    B = A[:small]
    nested = [list(zip(B.indices[a:b].tolist(), B.data[a:b].tolist()))
              for a, b in zip(B.indptr[:-1].tolist(), B.indptr[1:].tolist())]
    t_list = best(lambda: convert_only(f0, nested, v), 1)
    rows.append(("sparse_mxv", f"{small} x {k} nested lists", "API conversion (lists)",
                 ms(t_list), f"{t_list / t_conv:.0f}x the CSR conversion of 10x the rows"))
    del nested

    # ------------------------------------------------------------------ quickhull
    p = args.points
    pts = rng.random((p, 2))
    t_hull = best(lambda: ConvexHull(pts), args.repeat)
    want = {tuple(x) for x in pts[ConvexHull(pts).vertices].tolist()}
    rows.append(("quickhull", f"{p} points", "scipy ConvexHull", ms(t_hull), ""))
    qmods = {b: nessie.load(os.path.join(EX, "quickhull.nesl"), backend=b, run_toplevel=False)
             for b in backends}
    q0 = qmods[backends[0]].quickhull
    t_qconv = best(lambda: convert_only(q0, pts), max(20, args.repeat))
    rows.append(("quickhull", f"{p} points", "API conversion ((n, 2) array)", ms(t_qconv),
                 f"{100 * t_qconv / t_hull:.1f}% of scipy"))
    for b, q in qmods.items():
        hull = q.quickhull(pts)
        same = set(hull) == want and len(hull) == len(want)
        if not same:
            print(f"quickhull on {b}: the hull differs from scipy's ({len(hull)} vs "
                  f"{len(want)} points)", file=sys.stderr)
            return 1
        t = best(lambda: q.quickhull(pts), max(1, args.repeat // 2))
        hn = q.function("quickhull", results="numpy")
        tn = best(lambda: hn(pts), max(1, args.repeat // 2))
        rows.append(("quickhull", f"{p} points", f"whole call, {b}", ms(t),
                     f"{t / t_hull:.1f}x scipy; hull = scipy's ({len(hull)} points)"))
        rows.append(("quickhull", f"{p} points", f"whole call, {b}, results=\"numpy\"",
                     ms(tn), f"{tn / t_hull:.1f}x scipy"))
    tuples = [tuple(x) for x in pts.tolist()]
    t_qlist = best(lambda: convert_only(q0, tuples), 1)
    rows.append(("quickhull", f"{p} points", "API conversion (list of tuples)", ms(t_qlist),
                 f"{t_qlist / t_qconv:.0f}x the array conversion"))

    lines = [
        "# Python API argument conversion (issue 9)",
        "",
        "Generated by `python benchmarks/bench_api_convert.py` "
        f"(--rows {n} --points {p} --repeat {args.repeat}); peers measured in the same run. "
        f"Machine: {platform.machine()}, {os.cpu_count()} CPUs, Python "
        f"{platform.python_version()}, numpy {np.__version__}, scipy {scipy.__version__}. "
        "Times: minimum of the repeats after a warm-up. \"API conversion\" is everything a "
        "call does to its arguments before the first kernel (instance type, normalisation, "
        "λcu leaves); \"whole call\" includes it and the conversion of the result. On a "
        "shared machine the times vary between runs (up to 2x); compare rows of one run.",
        "",
        "| workload | input | what | time | note |",
        "|---|---|---|---|---|",
    ]
    lines += [f"| {a} | {b} | {c} | {d} | {e} |" for a, b, c, d, e in rows]
    text = "\n".join(lines) + "\n"
    with open(args.out, "w", encoding="utf-8") as f:
        f.write(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
