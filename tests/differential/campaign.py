"""A long local differential campaign: many generated programs, interpreter vs flattened λcu
(and, with ``--opencl``, vs the OpenCL backend fused and unfused).

    .venv/bin/python tests/differential/campaign.py --count 5000 --workers 2 [--explore]
        [--no-fused] [--opencl] [--depth 4] [--start 0] [--timeout 20] [--shrink 60]
        [--out /tmp/nessie-campaign]

Programs run in worker processes (a hung or very slow program is killed after ``--timeout``
seconds and reported as a timeout).  Failures are bucketed by a coarse signature (which backend,
what kind of difference, the error messages / exception types); the first program of each bucket
is shrunk (``--shrink`` seconds per bucket) by replaying a reduced choice sequence through the
generator, and written to ``OUT/<bucket>.nesl`` with both outputs in ``OUT/<bucket>.txt``.
This is not a pytest test (the file name does not start with ``test_``).
"""
from __future__ import annotations

import argparse
import hashlib
import json
import multiprocessing as mp
import os
import queue
import re
import sys
import time
from collections import Counter, defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from nesl_gen import Config, ReplayChooser, TooBig, generate, random_program  # noqa: E402


# ------------------------------------------------------------------------------ evaluation
def _norm(s: str) -> str:
    """Strip names and numbers from a message so that similar failures share a bucket."""
    s = re.sub(r"\b[a-z]+\d+\b", "V", s)
    s = re.sub(r"-?\d+(\.\d+)?", "N", s)
    s = re.sub(r"'[^']*'", "'S'", s)
    return s[:160]


def signature(cmp) -> str:
    """Coarse description of how the backends disagree ('' when they agree)."""
    if cmp.interp.crash is not None:
        return "interp-crash: " + _norm(cmp.interp.crash)
    if cmp.flatten_error is not None:
        if cmp.flatten_error.startswith("FlattenUnsupported"):
            return "flatten-unsupported: " + _norm(cmp.flatten_error)
        return "flatten-crash: " + _norm(cmp.flatten_error)
    bad = set(cmp.mismatches())     # OpenCL: floats within the harness's tolerance
    for name, o in (("lcu", cmp.lcu), ("fused", cmp.fused), ("opencl", cmp.opencl),
                    ("opencl-fused", cmp.opencl_fused)):
        if o is None or o == cmp.interp or (name.startswith("opencl") and name not in bad):
            continue
        if o.crash is not None:
            return f"{name}-crash: " + _norm(o.crash)
        i = cmp.interp
        if (i.error is None) != (o.error is None):
            if i.error is not None:
                return f"{name}-missing-error: interp raised {i.error!r}"
            return f"{name}-spurious-error: {o.error!r}"
        if i.error is not None and i.error != o.error:
            return f"{name}-error-message: {i.error!r} vs {o.error!r}"
        if i.error is not None and i.where != o.where:
            return f"{name}-error-location"
        # same error status, different printed output: find the kind of the first line
        il, ol = i.out.splitlines(), o.out.splitlines()
        for a, b in zip(il, ol):
            if a != b:
                kind = a.rsplit(" : ", 1)[-1] if " : " in a else "?"
                kind = re.sub(r"\(.*\)", "(..)", kind)
                return f"{name}-output: value of type {kind}"
        return f"{name}-output: different line count"
    return ""


FUSED = True
OPENCL = False


def evaluate(src: str) -> dict:
    from diff_harness import compare
    t = time.time()
    try:
        cmp = compare(src, fused=FUSED, opencl=OPENCL)
    except Exception as e:  # noqa: BLE001 - a generator bug (program does not compile)
        return {"sig": "generator: " + _norm(f"{type(e).__name__}: {e}"), "report": str(e),
                "time": time.time() - t, "interp_error": None}
    return {"sig": signature(cmp), "report": cmp.report(), "time": time.time() - t,
            "interp_error": cmp.interp.error}


def _worker(inq, outq, explore: bool, fused: bool, depth: int = 4, opencl: bool = False):
    global FUSED, OPENCL
    FUSED, OPENCL = fused, opencl
    cfg = Config(explore=explore, max_depth=depth)
    while True:
        job = inq.get()
        if job is None:
            return
        kind, key, payload = job
        try:
            if kind == "seed":
                src, rec = random_program(payload, cfg)
            else:
                rec = payload
                try:
                    src = generate(ReplayChooser(rec), cfg)
                except TooBig:
                    outq.put((key, {"sig": "toobig", "src": "", "rec": rec}))
                    continue
            res = evaluate(src)
            res["src"], res["rec"] = src, rec
        except TooBig:
            res = {"sig": "toobig", "src": "", "rec": [], "time": 0}
        except Exception as e:  # noqa: BLE001
            res = {"sig": "harness: " + repr(e), "src": "", "rec": [], "time": 0}
        outq.put((key, res))


class Pool:
    """Worker processes with a per-job timeout (a stuck worker is killed and replaced)."""

    def __init__(self, n: int, explore: bool, timeout: float, fused: bool = True, depth: int = 4,
                 opencl: bool = False):
        self.n, self.explore, self.timeout, self.fused, self.depth = n, explore, timeout, fused, depth
        self.opencl = opencl
        self.outq = mp.Queue()
        self.workers = [self._spawn() for _ in range(n)]

    def _spawn(self):
        inq = mp.Queue()
        p = mp.Process(target=_worker, args=(inq, self.outq, self.explore, self.fused, self.depth, self.opencl),
                       daemon=True)
        p.start()
        return {"p": p, "inq": inq, "job": None, "since": 0.0}

    def run(self, jobs):
        """Yield (key, result) for every job ((kind, key, payload)); timeouts yield
        {'sig': 'timeout'}."""
        jobs = list(jobs)[::-1]
        busy = 0
        while jobs or busy:
            for w in self.workers:
                if w["job"] is None and jobs:
                    w["job"] = jobs.pop()
                    w["since"] = time.time()
                    w["inq"].put(w["job"])
                    busy += 1
            try:
                key, res = self.outq.get(timeout=0.5)
                for w in self.workers:
                    if w["job"] is not None and w["job"][1] == key:
                        w["job"] = None
                        busy -= 1
                        break
                yield key, res
            except queue.Empty:
                pass
            now = time.time()
            for i, w in enumerate(self.workers):
                if w["job"] is not None and now - w["since"] > self.timeout:
                    job = w["job"]
                    w["p"].kill()
                    w["p"].join()
                    self.workers[i] = self._spawn()
                    busy -= 1
                    yield job[1], {"sig": "timeout", "src": "", "rec": job[2] if job[0] == "rec" else [],
                                   "seed": job[2] if job[0] == "seed" else None}

    def close(self):
        for w in self.workers:
            w["inq"].put(None)
        for w in self.workers:
            w["p"].join(timeout=5)
            if w["p"].is_alive():
                w["p"].kill()


# ------------------------------------------------------------------------------ shrinking
def shrink(pool: Pool, rec: list, sig: str, budget: float) -> dict:
    """Greedy shrinking of a choice sequence that keeps the failure signature."""
    best = {"rec": rec}
    deadline = time.time() + budget
    key = [0]

    def attempt(cands):
        jobs = []
        for c in cands:
            key[0] += 1
            jobs.append(("rec", f"s{key[0]}", c))
        found = None
        for _, res in pool.run(jobs):
            if found is None and res.get("sig") == sig:
                if len(res["src"]) <= len(best.get("src", "x" * 10 ** 9)):
                    found = res
        return found

    # evaluate the original once to have its source
    r = attempt([rec])
    if r is None:
        return {"rec": rec, "src": "", "report": "(could not reproduce)"}
    best = r
    improved = True
    while improved and time.time() < deadline:
        improved = False
        cur = best["rec"]
        n = len(cur)
        cands = []
        for size in (n // 2, n // 4, n // 8, 16, 8, 4, 2, 1):
            if size < 1:
                continue
            for start in range(0, n, size):
                cands.append(cur[:start] + cur[start + size:])          # delete a block
                z = cur[:start] + [0] * min(size, n - start) + cur[start + size:]
                if z != cur:
                    cands.append(z)                                    # zero a block
            if len(cands) > 64:
                break
        for i in range(n):
            if cur[i] > 0:
                cands.append(cur[:i] + [cur[i] - 1] + cur[i + 1:])
            if len(cands) > 200:
                break
        for k in range(0, len(cands), pool.n * 4):
            if time.time() > deadline:
                break
            r = attempt(cands[k:k + pool.n * 4])
            if r is not None and len(r["src"]) < len(best["src"]):
                best = r
                improved = True
                break
    return best


# ------------------------------------------------------------------------------ main
def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--start", type=int, default=0)
    ap.add_argument("--count", type=int, default=1000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=20.0)
    ap.add_argument("--shrink", type=float, default=60.0)
    ap.add_argument("--explore", action="store_true")
    ap.add_argument("--no-fused", action="store_true", help="compare unfused λcu only (faster)")
    ap.add_argument("--depth", type=int, default=4, help="expression depth budget (Config.max_depth)")
    ap.add_argument("--opencl", action="store_true",
                    help="run every program on the OpenCL backend too (fused and unfused)")
    ap.add_argument("--out", default="/tmp/nessie-campaign")
    args = ap.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)

    pool = Pool(args.workers, args.explore, args.timeout, not args.no_fused, args.depth, args.opencl)
    buckets: dict[str, list] = defaultdict(list)
    stats = Counter()
    times = []
    t0 = time.time()
    jobs = [("seed", f"seed{s}", s) for s in range(args.start, args.start + args.count)]
    done = 0
    for key, res in pool.run(jobs):
        done += 1
        sig = res.get("sig", "")
        times.append(res.get("time", 0))
        if res.get("interp_error"):
            stats["interp raised a runtime error"] += 1
        if sig in ("", "toobig"):
            stats["agree" if sig == "" else "too big"] += 1
        else:
            stats["fail"] += 1
            buckets[sig].append((key, res))
        if done % 250 == 0:
            print(f"[{done}/{args.count}] {time.time() - t0:.0f}s {dict(stats)} "
                  f"buckets={len(buckets)}", flush=True)
    print(f"ran {done} programs in {time.time() - t0:.0f}s: {dict(stats)}")
    if times:
        times.sort()
        print(f"time per program: median {times[len(times) // 2]:.3f}s, "
              f"p99 {times[int(len(times) * .99)]:.3f}s, max {times[-1]:.3f}s")
    summary = []
    for sig, items in sorted(buckets.items(), key=lambda kv: -len(kv[1])):
        h = hashlib.sha1(sig.encode()).hexdigest()[:8]
        key, res = items[0]
        print(f"\n=== [{h}] {len(items)}x {sig}  (first: {key})")
        best = res
        if args.shrink > 0 and res.get("rec") and sig != "timeout":
            best = shrink(pool, res["rec"], sig, args.shrink)
        with open(os.path.join(args.out, f"{h}.nesl"), "w") as f:
            f.write(best.get("src", ""))
        with open(os.path.join(args.out, f"{h}.txt"), "w") as f:
            f.write(sig + "\n" + best.get("report", "") + "\n")
        print(best.get("report", res.get("src", ""))[:4000])
        summary.append({"sig": sig, "count": len(items), "file": f"{h}.nesl",
                        "seeds": [k for k, _ in items[:20]]})
    with open(os.path.join(args.out, "summary.json"), "w") as f:
        json.dump({"stats": dict(stats), "buckets": summary}, f, indent=1)
    pool.close()


if __name__ == "__main__":
    main()
