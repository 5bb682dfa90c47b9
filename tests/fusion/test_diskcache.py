"""The compiler's disk cache of fusion and lowering results (lambda_cu/diskcache.py): a second
process reads what the first stored and prints the same; results read back equal fresh ones;
corrupt entries, unwritable directories and time-dependent fusion results are handled."""
from __future__ import annotations

import os
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

from lambda_cu import diskcache
from lambda_cu.fusion import deterministic, fuse_program
from lift_backend.lower.kernels import forget_lowered, lower_kernel
from nessie import passes
from nessie.limits import run_deep

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "nesl_examples"


def _env(cache_dir, **extra) -> dict:
    env = dict(os.environ, NESSIE_CACHE="1", NESSIE_CACHE_DIR=str(cache_dir))
    env.update(extra)
    return env


def _run(env, *args):
    return subprocess.run([sys.executable, "-m", "nessie", *args], capture_output=True,
                          text=True, timeout=600, env=env, cwd=ROOT)


def _entries(d: Path, kind: str) -> list:
    return sorted((d / kind).rglob("*.pkl")) if (d / kind).exists() else []


def test_second_run_reads_the_cache_and_prints_the_same(tmp_path):
    env = _env(tmp_path)
    prog = str(EXAMPLES / "quicksort.nesl")
    first = _run(env, "run", "--stats", prog)
    assert first.returncode == 0, first.stderr
    assert "read from the cache" not in first.stderr
    assert len(_entries(tmp_path, "fuse")) == 1 and len(_entries(tmp_path, "flatten")) == 1
    assert len(_entries(tmp_path, "lower")) > 3
    stored = {p: p.stat().st_mtime_ns for k in ("flatten", "fuse", "lower")
              for p in _entries(tmp_path, k)}
    second = _run(env, "run", "--stats", prog)
    assert second.returncode == 0, second.stderr
    assert second.stdout == first.stdout
    assert "regions read from the cache in" in second.stderr
    # the counts of the run are the same
    pick = [l for l in first.stderr.splitlines() if "λcu kernel launches" in l]
    assert pick and pick == [l for l in second.stderr.splitlines() if "λcu kernel launches" in l]
    plain = _run(dict(os.environ, NESSIE_CACHE="0"), "run", prog)
    assert plain.stdout == first.stdout
    # the second run read every entry the first wrote (a program read back from the cache has
    # the key of the one computed: keys do not depend on which values share an object) and
    # wrote none
    assert {p: p.stat().st_mtime_ns for k in ("flatten", "fuse", "lower")
            for p in _entries(tmp_path, k)}.keys() == stored.keys()


def test_corrupt_and_truncated_entries_are_misses(tmp_path):
    env = _env(tmp_path)
    prog = str(EXAMPLES / "dotp.nesl")
    first = _run(env, "run", prog)
    assert first.returncode == 0, first.stderr
    entries = _entries(tmp_path, "fuse") + _entries(tmp_path, "lower")
    assert entries
    for i, p in enumerate(entries):
        data = p.read_bytes()
        p.write_bytes(data[: len(data) // 2] if i % 2 else b"not a pickle")
    second = _run(env, "run", "--stats", prog)
    assert second.returncode == 0, second.stderr
    assert second.stdout == first.stdout
    assert "read from the cache" not in second.stderr
    # rewritten whole
    for p in _entries(tmp_path, "fuse") + _entries(tmp_path, "lower"):
        pickle.loads(p.read_bytes())


def test_an_unwritable_cache_directory_is_no_cache(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    env = _env(blocker / "cache")
    r = _run(env, "run", str(EXAMPLES / "dotp.nesl"))
    assert r.returncode == 0, r.stderr
    assert r.stderr == ""
    assert r.stdout == _run(dict(os.environ, NESSIE_CACHE="0"), "run",
                            str(EXAMPLES / "dotp.nesl")).stdout


def test_off_writes_nothing(tmp_path):
    env = _env(tmp_path / "c", NESSIE_CACHE="0")
    r = _run(env, "compile", "--emit", "opencl", str(EXAMPLES / "dotp.nesl"))
    assert r.returncode == 0, r.stderr
    # (the parser's tables, nessie/syntax/tables.py, are kept there whatever NESSIE_CACHE says)
    assert not (tmp_path / "c" / "fuse").exists() and not (tmp_path / "c" / "lower").exists()


def _flat(name: str):
    text = (EXAMPLES / name).read_text()
    return passes.run(text, passes.Options(name, 32, fuse=False), until="lcu")["lcu"].program


@pytest.mark.parametrize("name", ["quicksort.nesl", "sparse_mxv.nesl", "strings.nesl"])
def test_cached_results_equal_fresh_ones(tmp_path, monkeypatch, name):
    monkeypatch.setenv("NESSIE_CACHE", "0")
    prog = _flat(name)
    fresh = run_deep(lambda: fuse_program(prog))
    forget_lowered()
    fresh_low = [tuple(lower_kernel(k, s)) for k in fresh.program.kernels for s in ("cpu", "gpu")]
    monkeypatch.setenv("NESSIE_CACHE", "1")
    monkeypatch.setenv("NESSIE_CACHE_DIR", str(tmp_path))
    stored = run_deep(lambda: fuse_program(prog))
    assert not stored.report.cached
    again = run_deep(lambda: fuse_program(prog))
    assert again.report.cached
    assert again.program == fresh.program and str(again.program) == str(fresh.program)
    def shape(rep):             # the report but its times
        return [(f.name, f.unfused_runs, f.fused_runs, f.objective, f.fallback_reasons,
                 f.fused_kernels, [r.schedule.clusters for r in f.regions]) for f in rep.functions]
    assert shape(again.report) == shape(fresh.report)
    for _ in range(2):              # the first stores, the second reads
        forget_lowered()
        low = [tuple(lower_kernel(k, s)) for k in fresh.program.kernels for s in ("cpu", "gpu")]
        assert len(low) == len(fresh_low)
        for a, b in zip(low, fresh_low):
            assert [s.source for s in a] == [s.source for s in b]
            assert [[(p.name, p.lift, p.source) for p in s.phases] for s in a] == \
                   [[(p.name, p.lift, p.source) for p in s.phases] for s in b]
            assert [sorted(s.info) for s in a] == [sorted(s.info) for s in b]
    forget_lowered()
    assert _entries(tmp_path, "lower")


def test_time_dependent_fusion_is_not_stored(tmp_path, monkeypatch):
    monkeypatch.setenv("NESSIE_CACHE", "1")
    monkeypatch.setenv("NESSIE_CACHE_DIR", str(tmp_path))
    prog = _flat("quicksort.nesl")
    res = run_deep(lambda: fuse_program(prog, budget=1e-9))   # every region: budget spent
    assert any("time budget" in r for f in res.report.functions for r in f.fallback_reasons)
    assert not deterministic(res.report)
    assert not _entries(tmp_path, "fuse")
    ok = run_deep(lambda: fuse_program(prog))
    assert deterministic(ok.report)
    assert len(_entries(tmp_path, "fuse")) == 1


def test_the_key_does_not_depend_on_sharing():
    a = "lengths"
    shared = ([a, a], {"lengths": a})
    b = "".join(["leng", "ths"])            # equal, another object
    unshared = (["".join(["leng", "ths"]), b], {"lengths": "".join(["len", "gths"])})
    assert diskcache.key("t", shared) == diskcache.key("t", unshared)
    assert diskcache.key("t", shared) == diskcache.key("t", pickle.loads(pickle.dumps(shared)))


def test_the_key_depends_on_the_compiler_and_the_arguments(monkeypatch):
    k1 = diskcache.key("lower", (1, 2.0), "cpu")
    assert k1 == diskcache.key("lower", (1, 2.0), "cpu")
    assert k1 != diskcache.key("lower", (1, 2), "cpu")        # 2.0 and 2 lower differently
    assert k1 != diskcache.key("lower", (1, -0.0 + 2.0), "gpu")
    assert k1 != diskcache.key("fuse", (1, 2.0), "cpu")
    monkeypatch.setattr(diskcache, "code_version", lambda: "another compiler")
    assert k1 != diskcache.key("lower", (1, 2.0), "cpu")
    assert diskcache.key("lower", lambda: 0) is None            # not picklable: not cached


def test_prune_removes_the_least_recently_used(tmp_path, monkeypatch):
    monkeypatch.setenv("NESSIE_CACHE", "1")
    monkeypatch.setenv("NESSIE_CACHE_DIR", str(tmp_path))
    keys = [diskcache.key("t", i) for i in range(6)]
    for i, k in enumerate(keys):
        diskcache.store("t", k, bytes(1000))
        p = diskcache._path("t", k)
        os.utime(p, (1000 + i, 1000 + i))
    diskcache.prune(max_bytes=3 * 1100)
    left = [k for k in keys if diskcache.load("t", k) is not diskcache.MISS]
    assert left and len(left) <= 3 and left == keys[-len(left):]


def test_arithmetic_expressions_pickle_across_hash_seeds(tmp_path):
    """A Lift size expression read back in a process with another string-hash seed is equal to
    the one built there and finds it in a dict (its cached hash is not pickled)."""
    code = ("import pickle, sys\n"
            "from lift_backend.arith import core as A\n"
            "n = A.Var('n', A.Cst(1), A.Cst(10), 3)\n"
            "e = (n * 2 + A.Cst(5)) // A.Cst(3)\n"
            "c = A.Cond('<', n, A.Cst(4))\n"
            "if sys.argv[1] == 'w':\n"
            "    hash(e); hash(c)\n"
            "    open(sys.argv[2], 'wb').write(pickle.dumps((e, c)))\n"
            "else:\n"
            "    e2, c2 = pickle.loads(open(sys.argv[2], 'rb').read())\n"
            "    assert e2 == e and hash(e2) == hash(e) and {e: 1}[e2] == 1, e2\n"
            "    assert c2 == c and hash(c2) == hash(c)\n"
            "    print('ok')\n")
    f = tmp_path / "e.pkl"
    w = subprocess.run([sys.executable, "-c", code, "w", str(f)], cwd=ROOT, capture_output=True,
                       text=True, env=dict(os.environ, PYTHONHASHSEED="1"))
    assert w.returncode == 0, w.stderr
    r = subprocess.run([sys.executable, "-c", code, "r", str(f)], cwd=ROOT, capture_output=True,
                       text=True, env=dict(os.environ, PYTHONHASHSEED="2"))
    assert r.returncode == 0 and r.stdout == "ok\n", r.stderr


def test_the_key_depends_on_the_compilers_settings(monkeypatch):
    monkeypatch.delenv("NESSIE_FUSION_MAX_PAIRS", raising=False)
    k1 = diskcache.key("fuse", 1)
    monkeypatch.setenv("NESSIE_FUSION_MAX_PAIRS", "3")
    assert diskcache.key("fuse", 1) != k1
    monkeypatch.delenv("NESSIE_FUSION_MAX_PAIRS")
    monkeypatch.setenv("NESSIE_CACHE_DIR", "/elsewhere")      # where, not what
    assert diskcache.key("fuse", 1) == k1


def test_no_home_directory_is_no_cache(tmp_path, monkeypatch):
    """Where the cache's directory cannot be found (no HOME, no NESSIE_CACHE_DIR, no
    XDG_CACHE_HOME), results are computed and nothing fails."""
    monkeypatch.setenv("NESSIE_CACHE", "1")
    monkeypatch.delenv("NESSIE_CACHE_DIR", raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)

    def no_home():
        raise RuntimeError("Could not determine home directory.")
    monkeypatch.setattr(diskcache.Path, "home", staticmethod(no_home))
    k = diskcache.key("t", 1)
    assert diskcache.load("t", k) is diskcache.MISS
    diskcache.store("t", k, 2)
    diskcache.prune()
    assert diskcache.cached("t", (1,), lambda: 3) == (3, False)
