"""Benchmarks: backends compared on NESL programs of growing size, against hand-written numpy.

    python benchmarks/run.py [--quick] [--out benchmarks/results.md]

For each program and size it measures (wall clock, best of --repeat runs, compile excluded):

* ``interp``     the reference interpreter (skipped above --interp-limit elements: it is slow);
* ``lcu``        flattened λcu, unfused, on the numpy interpreter;
* ``lcu-fused``  the same after ILP fusion (if the fusion stage is available);
* ``numpy``      what a Python user would write by hand with numpy (where there is an idiom);

NESL timings include building the inputs in NESL (the whole program runs); the numpy column
times only the core operation on prepared arrays, so it is a lower bound for a Python user.

And the λcu kernel launches of the flattened program at run time, unfused and fused (the
count of that name in ``nessie run --stats``; README.md, "Kernel counts").  The table is
written as Markdown.  Timings are measurements of this machine, never assertions.
"""
from __future__ import annotations

import argparse
import io
import platform
import sys
import time

import numpy as np

from nessie import driver

SPARSE = """
function sparse_mxv(mat, vec) = {sum({v * vec[i] : (i, v) in row}) : row in mat};
function row(r, nnz, n) = {(mod(r * 7919 + j * 104729, n), 1.0) : j in [0:nnz]};
n = %(n)d;
vec = {float(i) : i in [0:n]};
mat = {row(r, 10, n) : r in [0:n / 10]};
sum(sparse_mxv(mat, vec));
"""

DOTP = """
function dotp(a, b) = sum({x * y : x in a; y in b});
n = %(n)d;
dotp({float(i) : i in [0:n]}, {float(n - i) : i in [0:n]});
"""

QSORT = """
function qsort(a) =
  if (#a < 2) then a
  else let pivot = a[#a / 2];
           lesser = {e in a | e < pivot};
           equal = {e in a | e == pivot};
           greater = {e in a | e > pivot};
           result = {qsort(v) : v in [lesser, greater]}
       in result[0] ++ equal ++ result[1];
n = %(n)d;
s = qsort({mod(i * 1103515245 + 12345, 1000000) : i in [0:n]});
s[0];
"""

NORM2 = """
function norm2(xs) : [float] -> ([float], [float]) =
  let sum1 = sum(xs); gts = {x : x in xs | x > 0.0}; sum2 = sum(gts)
  in ({x / sum1 : x in xs}, {x / sum2 : x in xs});
n = %(n)d;
r = norm2({float(mod(i * 7919, 2001) - 1000) : i in [0:n]});
"""


def numpy_sparse(n):
    rows = n // 10
    r = np.arange(rows, dtype=np.int64)[:, None]
    j = np.arange(10, dtype=np.int64)[None, :]
    cols = ((r * 7919 + j * 104729) % n).ravel()
    vec = np.arange(n, dtype=np.float64)
    t = time.perf_counter()
    prod = vec[cols]
    res = np.add.reduceat(prod, np.arange(0, rows * 10, 10)).sum()
    return time.perf_counter() - t, res


def numpy_dotp(n):
    a = np.arange(n, dtype=np.float64)
    b = n - a
    t = time.perf_counter()
    res = float(a @ b)
    return time.perf_counter() - t, res


def numpy_sort(n):
    i = np.arange(n, dtype=np.int64)
    x = ((i * 1103515245 + 12345).astype(np.int32).astype(np.int64)) % 1000000
    t = time.perf_counter()
    s = np.sort(x)
    return time.perf_counter() - t, s[0]


def numpy_norm2(n):
    i = np.arange(n, dtype=np.int64)
    xs = ((i * 7919) % 2001 - 1000).astype(np.float64)
    t = time.perf_counter()
    r = (xs / xs.sum(), xs / xs[xs > 0].sum())
    return time.perf_counter() - t, r


PROGRAMS = {"sparse_mxv": (SPARSE, numpy_sparse), "dotp": (DOTP, numpy_dotp),
            "quicksort": (QSORT, numpy_sort), "norm2": (NORM2, numpy_norm2)}


def timed(fn, repeat):
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def measure(name, n, repeat, interp_limit):
    src, np_fn = PROGRAMS[name]
    c = driver.compile_source(src % {"n": n}, f"{name}.nesl")
    row = {"program": name, "n": n}
    if n <= interp_limit:
        row["interp"] = timed(lambda: driver.run_interp(c, io.StringIO()), repeat)
    flat = driver.flatten(c)
    launches = {}

    def run(fp, key):
        it = driver.run_lcu(c, fp, io.StringIO())
        launches[key] = sum(it.launches.values())

    row["lcu"] = timed(lambda: run(flat, "unfused"), repeat)
    try:
        fused, _ = driver.fuse(flat)
    except Exception as e:  # fusion stage missing or failing: say so in the table
        row["lcu-fused"] = f"n/a ({type(e).__name__})"
    else:
        row["lcu-fused"] = timed(lambda: run(fused, "fused"), repeat)
    row["numpy"] = min(np_fn(n)[0] for _ in range(repeat))
    row["launches"] = f"{launches.get('unfused', '-')} / {launches.get('fused', '-')}"
    return row


def fmt(v):
    if isinstance(v, float):
        return f"{v * 1000:.1f} ms"
    return str(v) if v is not None else "-"


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--interp-limit", type=int, default=20000)
    ap.add_argument("--out", default=None)
    a = ap.parse_args(argv)
    sizes = [1000, 10000] if a.quick else [1000, 10000, 100000, 1000000]
    rows = []
    for name in PROGRAMS:
        for n in sizes:
            rows.append(measure(name, n, a.repeat, a.interp_limit))
            print(rows[-1], file=sys.stderr)
    cols = ["program", "n", "interp", "lcu", "lcu-fused", "numpy", "launches"]
    lines = [f"Machine: {platform.machine()}, {platform.processor() or 'cpu'}, Python "
             f"{platform.python_version()}, numpy {np.__version__}. Best of {a.repeat}; "
             f"launches = λcu kernel launches unfused / fused.", "",
             "| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for r in rows:
        lines.append("| " + " | ".join(fmt(r.get(c)) for c in cols) + " |")
    text = "\n".join(lines) + "\n"
    print(text)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
