"""Huge sizes fail with a located error on every backend, before anything of that size is
allocated (issue 11: ``take([0:5], max_int)`` built max_int indices on λcu before its bounds
check failed; ``index``/``dist`` of huge sizes exhausted memory on every backend).

* ``take``/``drop`` gather from a range clamped to ``#s + 1`` (``[-1:#s]``), so the gather fails
  exactly when the interpreter's check does; ``subseq`` checks on the host before its range.
* ``index``, ``dist``, ranges and ``iseq`` longer than ``nessie.interp.errors.MAX_SEQ_LENGTH``
  (environment variable ``NESSIE_MAX_SEQ_LENGTH``) fail with ``Sequence too long`` at their
  place, on the interpreter and (by a host check before the allocation) on flattened λcu; in
  an empty context nothing is evaluated and nothing fails.

Programs run in a subprocess whose address space is limited, so a regression shows up as a
memory error rather than as a machine brought down."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BOUNDS = "RUNTIME ERROR: Sequence reference (a[i]) out of bounds."

CHILD = textwrap.dedent(r"""
    import io, json, resource, sys
    limit = int(sys.argv[1]) << 20
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    from nessie import driver
    from nessie.diagnostics import RuntimeNeslError

    def outcome(fn):
        buf = io.StringIO()
        try:
            fn(buf)
        except RuntimeNeslError as e:
            return [buf.getvalue(), e.message, str(e.span) if e.span else None]
        except MemoryError:
            return [buf.getvalue(), "MemoryError", None]
        return [buf.getvalue(), None, None]

    results = []
    for src in json.loads(sys.stdin.read()):
        c = driver.compile_source(src, "t.nesl")
        flat = driver.flatten(c)
        fused, _ = driver.fuse(flat)
        results.append({"interp": outcome(lambda o: driver.run_interp(c, o)),
                        "lcu": outcome(lambda o: driver.run_lcu(c, flat, o)),
                        "fused": outcome(lambda o: driver.run_lcu(c, fused, o))})
    print(json.dumps(results))
""")


def run_all(programs, *, mem_mib=3072, max_len=None):
    env = dict(os.environ)
    if max_len is not None:
        env["NESSIE_MAX_SEQ_LENGTH"] = str(max_len)
    p = subprocess.run([sys.executable, "-c", CHILD, str(mem_mib)], input=json.dumps(programs),
                       capture_output=True, text=True, cwd=ROOT, env=env, timeout=600)
    assert p.returncode == 0, p.stderr[-3000:]
    return json.loads(p.stdout)


HUGE = [  # (program, message, place): under a 3 GiB address space, on every backend
    ("take([0:5], max_int);\n", BOUNDS, "t.nesl:1:1"),
    ("drop([0:5], min_int);\n", BOUNDS, "t.nesl:1:1"),
    ("subseq([0:5], 2, max_int);\n", BOUNDS, "t.nesl:1:1"),
    ("subseq([0:5], min_int, 3);\n", BOUNDS, "t.nesl:1:1"),
    ("{take(v, n) : v in [[1], [2, 3]]; n in [1, max_int]};\n", BOUNDS, "t.nesl:1:2"),
    ("{drop(v, n) : v in [[1], [2, 3]]; n in [0, min_int]};\n", BOUNDS, "t.nesl:1:2"),
    ("{subseq(v, 0, n) : v in [[1], [2, 3]]; n in [1, max_int]};\n", BOUNDS, "t.nesl:1:2"),
    ("index(max_int);\n", "too long", "t.nesl:1:1"),
    ("dist(1.5, max_int);\n", "too long", "t.nesl:1:1"),
    ("[min_int : max_int];\n", "too long", "t.nesl:1:1"),
    ("iseq(0, 1, max_int);\n", "too long", "t.nesl:1:1"),
    ("{dist(x, n) : x in [1, 2]; n in [3, max_int]};\n", "too long", "t.nesl:1:2"),
    ("{index(n) : n in [2, max_int]};\n", "too long", "t.nesl:1:2"),
    ("{#[x : x + 300000000] : x in [1, 2]};\n", "too long", "t.nesl:1:3"),
]


@pytest.fixture(scope="module")
def huge_results():
    return run_all([src for src, _, _ in HUGE])


@pytest.mark.parametrize("k", range(len(HUGE)), ids=[src.strip() for src, _, _ in HUGE])
def test_huge_sizes_fail_at_once(huge_results, k):
    src, message, where = HUGE[k]
    r = huge_results[k]
    out, msg, at = r["interp"]
    assert msg is not None and message in msg and at == where, r
    assert r["lcu"] == r["interp"], r
    assert r["fused"] == r["interp"], r


LIMITED = [  # with NESSIE_MAX_SEQ_LENGTH=1000
    "index(1000);\n#index(1001);\n",
    "#dist(`a, 1000);\ndist(`a, 1001);\n",
    "#[0:2000:2];\n#[0:2001:2];\n",
    "#[1000:0:-1];\n#[1000:(-1):-1];\n",
    "{#index(n) : n in [3, 1000]};\n{index(n) : n in [3, 1001]};\n",
    "{#[0:n:2] : n in [3, 2000]};\n{#[0:n:2] : n in [3, 2001]};\n",
    "{#dist(n, n) : n in [3, 1000]};\n{dist(n, n) : n in [3, 1001]};\n",
    # nothing is evaluated in an empty context: no error (also for a hoisted, uniform count)
    "let k = 5000 in {#index(k) : i in [] int};\n{#index(n) : n in [] int};\n",
    "let k = 0 in {#[0:10:k] : i in [] int};\n",
    "let k = 5000 in {#dist(i, k) : i in [] int};\n",
    "let k = 5000 in {#index(k) : i in [1]};\n",
]


@pytest.fixture(scope="module")
def limited_results():
    return run_all(LIMITED, max_len=1000)


@pytest.mark.parametrize("k", range(len(LIMITED)), ids=[s.replace("\n", " ") for s in LIMITED])
def test_length_limit_is_the_same_on_every_backend(limited_results, k):
    r = limited_results[k]
    assert r["lcu"] == r["interp"], r
    assert r["fused"] == r["interp"], r
    src = LIMITED[k]
    if "[] int" in src:
        assert r["interp"][1] is None, r
    else:
        assert r["interp"][1] == "RUNTIME ERROR: Sequence too long (more than 1000 elements).", r
        if "in [1]" in src:
            assert r["interp"][2] == "t.nesl:1:19", r      # index(k), in the one instance


def test_take_and_drop_within_bounds():
    srcs = ["take([1, 2, 3], 0);\ntake([1, 2, 3], 3);\ntake([1, 2, 3], -4);\n"
            "drop([1, 2, 3], 0);\ndrop([1, 2, 3], 3);\ndrop([1, 2, 3], 7);\n"
            "subseq([1, 2, 3], 1, 3);\nsubseq([1, 2, 3], 3, 1);\nsubseq([1, 2, 3], -5, -7);\n"
            "{(take(v, n), drop(v, n)) : v in [[1, 2], [], [3, 4, 5]]; n in [1, 0, 3]};\n"
            "{subseq(v, n, 2) : v in [[1, 2], [], [3, 4, 5]]; n in [1, 5, 0]};\n"]
    r = run_all(srcs)[0]
    assert r["interp"][1] is None, r
    assert r["lcu"] == r["interp"] and r["fused"] == r["interp"], r
