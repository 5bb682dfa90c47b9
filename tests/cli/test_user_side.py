"""What a new user meets (issue 12), driven as a user drives it, through subprocesses: the
fallback to the numpy runner when no OpenCL device can build kernels (CLI, REPL, Python API),
startup time and the parser tables of a fresh read-only copy, the README's quick start, and the
fused-vs-unfused plot of `benchmarks/bench_opencl.py --examples`."""
from __future__ import annotations

import json
import os
import re
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "nesl_examples"
SPARSE = EXAMPLES / "sparse_mxv.nesl"
NOTE = "nessie: note: running on the lcu backend (numpy): "

# a machine whose only OpenCL device is the PoCL wheel on a CPU newer than its LLVM: every device
# is listed, none builds a kernel (lift_backend/devices.py probes each with a tiny kernel)
BROKEN_DEVICES = """
import sys
from lift_backend import devices
devices.probe = lambda device, fp64=True: "error: unknown target CPU 'generic'"
"""


def _python(code: str, *args: str, env=None, cwd=ROOT, input=None, timeout=600):
    p = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                       cwd=cwd, env=env, input=input, timeout=timeout)
    assert "Traceback" not in p.stderr, p.stderr
    return p.stdout, p.stderr, p.returncode


def nessie_broken(*args: str):
    """`nessie ARGS` on a machine where no OpenCL device can build kernels."""
    return _python(BROKEN_DEVICES + "from nessie.cli import main\nsys.exit(main(sys.argv[1:]))",
                   *args)


# --------------------------------------------------------------------------- no usable device

def test_run_falls_back_to_lcu_when_no_device_builds_kernels():
    out, err, rc = nessie_broken("run", str(SPARSE))
    assert rc == 0
    assert out == (EXAMPLES / "sparse_mxv.out").read_text()
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith(NOTE + "no usable OpenCL device: 0:0 "), err
    assert "cannot build kernels: error: unknown target CPU 'generic'" in err
    assert "apt-get install pocl-opencl-icd" in err          # the fix, named


def test_fallback_is_said_once_and_stats_name_the_backend():
    out, err, rc = nessie_broken("run", "--stats", str(SPARSE), str(EXAMPLES / "dotp.nesl"))
    assert rc == 0
    assert out == (f"==> {SPARSE} <==\n" + (EXAMPLES / "sparse_mxv.out").read_text() + "\n"
                   f"==> {EXAMPLES / 'dotp.nesl'} <==\n" + (EXAMPLES / "dotp.out").read_text())
    assert err.count(NOTE) == 1, err
    assert len(re.findall(r"^nessie: backend lcu, fused: ", err, re.M)) == 2, err


def test_help_of_backend_says_when_auto_falls_back():
    for cmd in ([sys.executable, "-m", "nessie", "run", "--help"],
                [sys.executable, "-m", "nessie.repl", "--help"]):
        p = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, timeout=60)
        assert p.returncode == 0
        assert "lcu (with a note) when no OpenCL device can build kernels" in " ".join(
            p.stdout.split()) or "and lcu when no OpenCL device can build kernels" in " ".join(
            p.stdout.split()), p.stdout


def test_explicit_opencl_backend_is_an_error_not_a_fallback():
    out, err, rc = nessie_broken("run", "--backend", "opencl", str(SPARSE))
    assert (out, rc) == ("", 1)
    assert err.startswith("nessie: error: no usable OpenCL device: ") and NOTE not in err


def test_repl_says_the_same_note():
    code = BROKEN_DEVICES + "from nessie.repl import main\nsys.exit(main(sys.argv[1:]))"
    out, err, rc = _python(code, input="{a * a : a in [1, 2, 3]};\n")
    assert (out, rc) == ("it = [1, 4, 9] : [int]\n", 0)
    assert err.startswith(NOTE + "no usable OpenCL device") and "pocl-opencl-icd" in err


def test_api_default_and_auto_fall_back_with_a_warning():
    code = BROKEN_DEVICES + f"""
import warnings, numpy as np, nessie
for kw in ({{}}, {{"backend": "auto"}}):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        m = nessie.load({str(EXAMPLES / 'dotp.nesl')!r}, **kw)
        r = m.dotp(np.array([1.0, 2.0]), np.array([3.0, 4.0]))
    notes = [str(x.message) for x in w if x.category is RuntimeWarning]
    print(r, m.backend, len(notes), notes[0].startswith(
        "nessie: running on the lcu backend (numpy): no usable OpenCL device: "))
"""
    out, err, rc = _python(code)
    assert rc == 0, err
    assert out.splitlines() == ["11.0 lcu 1 True"] * 2


def test_only_a_broken_pocl_on_this_machine(tmp_path):
    """OCL_ICD_VENDORS pointing at an empty folder hides the system's OpenCL drivers, leaving
    the PoCL of the pyopencl wheel: on a CPU its LLVM does not know (this machine's) it cannot
    build kernels and `nessie run` says so and runs on numpy; where it works, it runs quietly."""
    env = dict(os.environ, OCL_ICD_VENDORS=str(tmp_path))
    why, _, _ = _python("from lift_backend import devices\ntry:\n    devices.choose()\n"
                        "except devices.NoUsableDevice as e:\n    print(e, end='')\n", env=env)
    p = subprocess.run([sys.executable, "-m", "nessie", "run", str(SPARSE)], capture_output=True,
                       text=True, cwd=ROOT, env=env, timeout=600)
    assert p.returncode == 0 and "Traceback" not in p.stderr
    assert p.stdout == (EXAMPLES / "sparse_mxv.out").read_text()
    assert p.stderr == (f"{NOTE}{why}\n" if why else ""), p.stderr


# --------------------------------------------------------------------------- startup

_LOADED = """
import runpy, sys, threading
started = [0]
_start = threading.Thread.start
def start(self):
    started[0] += 1
    _start(self)
threading.Thread.start = start
if sys.argv[1:] == ["import"]:
    import nessie.driver
else:
    sys.argv = ["nessie"] + sys.argv[1:]
    try:
        runpy.run_module("nessie", run_name="__main__")
    except SystemExit as e:
        assert not e.code, e.code
print(started[0], *sorted(m for m in sys.modules if m.split(".")[0] in {
    "numpy", "pyopencl", "pulp", "scipy", "lift_backend", "nessie", "lambda_cu"}), file=sys.stderr)
"""

#: what starting and checking never needs: the back ends, numpy, OpenCL, the ILP solver
_NOT_AT_STARTUP = ("numpy", "pyopencl", "pulp", "scipy", "lift_backend", "lambda_cu.interp",
                   "lambda_cu.ir", "nessie.interp", "nessie.flatten", "nessie.fusion",
                   "nessie.opencl")


def test_startup_loads_only_the_front_end(tmp_path):
    """`nessie check` of a small program, `nessie --version` and importing the driver (as the
    Python API does) import the front end only (no numpy, OpenCL, solver or back end: those are
    where start-up time would go) and start at most one thread (the deep-recursion thread; the
    builtin type table is parsed on one, not on a thread per builtin as it once was: 90 ms).  Their CPU time is measured, not asserted:
    benchmarks/bench_startup.py."""
    env = dict(os.environ, NESSIE_CACHE_DIR=str(tmp_path / "cache"))
    src = tmp_path / "t.nesl"
    src.write_text("function add1(x) = x + 1;\nadd1(2);\n")
    for args in (["check", str(src)], ["--version"], ["import"]):
        p = subprocess.run([sys.executable, "-c", _LOADED, *args], capture_output=True,
                           text=True, cwd=ROOT, env=env, timeout=120)
        assert p.returncode == 0, p.stderr
        threads, *mods = p.stderr.split()
        assert int(threads) <= 1, (args, threads)
        assert ("nessie.syntax" in mods) == (args != ["--version"]), mods
        heavy = [m for m in mods if m.startswith(_NOT_AT_STARTUP)]
        assert heavy == [], (args, heavy)


def test_compiling_needs_no_numpy_and_no_opencl(tmp_path):
    """`nessie compile` to every form (flattening, fusion, the Lift and OpenCL code) imports
    neither numpy nor pyopencl: the compiler is pure Python, and numpy's import alone was ~0.15 s
    of a 0.6 s compile (lift_backend.lower.kernels holds the lowering of a kernel, apart from the
    runner; the portable math library imports numpy on first use)."""
    env = dict(os.environ, NESSIE_CACHE_DIR=str(tmp_path / "cache"))
    for example, emit in (("quickhull", "opencl"), ("strings", "lift"), ("quicksort", "lcu-fused"),
                          ("sparse_mxv", "opencl")):
        args = ["compile", "--emit", emit, str(ROOT / "nesl_examples" / f"{example}.nesl")]
        p = subprocess.run([sys.executable, "-c", _LOADED, *args], capture_output=True,
                           text=True, cwd=ROOT, env=env, timeout=300)
        assert p.returncode == 0, p.stderr
        mods = p.stderr.split()[1:]
        assert "lift_backend.lower.kernels" in mods or emit == "lcu-fused", mods
        assert [m for m in mods if m.split(".")[0] in ("numpy", "pyopencl")] == [], (args, mods)


def test_later_runs_never_run_the_table_generator(tmp_path):
    env = dict(os.environ, NESSIE_CACHE_DIR=str(tmp_path / "cache"))
    src = tmp_path / "t.nesl"
    src.write_text("function add1(x) = x + 1;\nadd1(2);\n")
    code = ("import sys\nfrom nessie.cli import main\n"
            "if sys.argv[1] == 'forbid':\n"
            "    import ply.yacc\n"
            "    def no(*a, **k): raise SystemExit('PLY rebuilt the parse tables')\n"
            "    ply.yacc.yacc = no\n"
            "sys.exit(main(['run', '--backend', 'interp', sys.argv[2]]))\n")
    for mode in ("first", "forbid", "forbid"):
        out, err, rc = _python(code, mode, str(src), env=env)
        assert (out, err, rc) == ("add1 = fn : int -> int\nit = 3 : int\n", "", 0)


def _tree(d: Path) -> list[str]:
    """The files under ``d``, less Python's own bytecode caches (which Python skips by itself
    where it cannot write)."""
    return sorted(str(p.relative_to(d)) for p in d.rglob("*")
                  if "__pycache__" not in p.parts)


def test_a_read_only_copy_writes_nothing_into_its_source_tree(tmp_path):
    """A fresh copy of the sources (as a clone or a read-only install has them, no table, no
    parser.out): running it writes nothing under the package, builds the tables once into the
    user's cache and reads them from there afterwards; with no writable cache it still writes
    nothing into the package.  (The copy is made read-only, which binds only when the tests do
    not run as root: the tree is compared file by file in any case.)"""
    src = tmp_path / "src"
    for pkg in ("nessie", "lambda_cu", "lift_backend"):
        shutil.copytree(ROOT / pkg, src / pkg, ignore=shutil.ignore_patterns(
            "__pycache__", "*.pyc", "nesl_parsetab_*", "parser.out", "parsetab*"))
    before = _tree(src)
    for p in [src, *src.rglob("*")]:
        p.chmod(p.stat().st_mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))
    work = tmp_path / "work"
    work.mkdir()
    prog = work / "t.nesl"
    prog.write_text("function add1(x) = x + 1;\nadd1(2);\n")
    cache = tmp_path / "cache"
    env = dict(os.environ, PYTHONPATH=str(src), NESSIE_CACHE_DIR=str(cache))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    try:
        out, _, _ = _python("import nessie; print(nessie.__file__)", env=env, cwd=work)
        assert out.strip() == str(src / "nessie" / "__init__.py")
        mtimes = []
        for _ in range(3):
            p = subprocess.run([sys.executable, "-m", "nessie", "run", "--backend", "interp",
                                str(prog)], capture_output=True, text=True, cwd=work, env=env,
                               timeout=120)
            assert (p.stdout, p.stderr, p.returncode) == (
                "add1 = fn : int -> int\nit = 3 : int\n", "", 0)
            tables = sorted(cache.glob("nesl_parsetab_*.json"))
            assert len(tables) == 1
            mtimes.append(tables[0].stat().st_mtime_ns)
        assert len(set(mtimes)) == 1                  # written once, then only read
        assert _tree(src) == before
        assert not list(work.glob("parse*")) and _tree(work) == ["t.nesl"]
        (tmp_path / "a-file").write_text("")
        env["NESSIE_CACHE_DIR"] = str(tmp_path / "a-file" / "cache")      # cannot be made
        for _ in range(2):
            p = subprocess.run([sys.executable, "-m", "nessie", "check", str(prog)],
                               capture_output=True, text=True, cwd=work, env=env, timeout=120)
            assert (p.stdout, p.stderr, p.returncode) == ("", "", 0)
        assert _tree(src) == before and _tree(work) == ["t.nesl"]
    finally:
        for p in [src, *src.rglob("*")]:
            p.chmod(p.stat().st_mode | stat.S_IWUSR)


# --------------------------------------------------------------------------- README

def test_readme_quick_start_activation_and_fallback():
    readme = (ROOT / "README.md").read_text()
    quick = readme[readme.index("## Quick start"):readme.index("## A short tour")]
    assert quick.split("```")[1] == (
        "sh\npython3 -m venv .venv && .venv/bin/pip install -e '.[test]' && .venv/bin/python -m "
        "compileall -q nessie lambda_cu lift_backend && .venv/bin/nessie run "
        "nesl_examples/sparse_mxv.nesl\n.venv/bin/python -m pytest -q -n auto --maxprocesses 8\n")
    # CI runs the README's test command
    ci = (ROOT / ".ci" / "run").read_text()
    assert ci.rstrip().splitlines()[-1] == ".venv/bin/python -m pytest -q -n auto --maxprocesses 8"
    # how to activate the virtual environment: said once, in the quick start
    assert len(re.findall(r"\. \.venv/bin/activate|source \.venv/bin/activate", readme)) == 1
    assert ". .venv/bin/activate" in quick
    # the fallback and its fix, near the quick start, with the note as the CLI prints it
    flat = " ".join(quick.split())
    assert "`nessie: note: running on the lcu backend (numpy): ...`" in flat
    assert "`sudo apt-get install pocl-opencl-icd`" in flat


# --------------------------------------------------------------------------- benchmark plot

def _device_launches(*args):
    p = subprocess.run([sys.executable, "-m", "nessie", "run", "--stats", *args,
                        str(EXAMPLES / "dotp.nesl")], capture_output=True, text=True, cwd=ROOT,
                       timeout=600)
    assert p.returncode == 0, p.stderr
    m = re.search(r"OpenCL kernels built in [\d.]+ s, (\d+) device launches", p.stderr)
    assert m, p.stderr
    return int(m.group(1))


@pytest.mark.opencl
def test_bench_examples_plot_and_table(tmp_path):
    p = subprocess.run([sys.executable, "benchmarks/bench_opencl.py", "--examples", "--only",
                        "dotp,sparse_mxv", "--repeat", "1", "--out", str(tmp_path)],
                       capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert p.returncode == 0 and "Traceback" not in p.stderr, p.stderr
    assert (tmp_path / "examples.png").read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
    data = json.loads((tmp_path / "examples.json").read_text())
    rows = {r["example"]: r for r in data["rows"]}
    assert sorted(rows) == ["dotp", "sparse_mxv"]
    # the same count, under the same name, as `nessie run --stats`
    assert rows["dotp"]["unfused_launches"] == _device_launches("--no-fuse")
    assert rows["dotp"]["fused_launches"] == _device_launches()
    for r in rows.values():
        assert r["fused_launches"] < r["unfused_launches"] and r["fused_s"] > 0
    assert data["totals"]["fused_launches"] == sum(r["fused_launches"] for r in rows.values())
    table = (tmp_path / "examples.md").read_text()
    assert "| example | device launches unfused | fused |" in table
    assert re.search(r"^\| total \| \d+ \| \d+ \| ", table, re.M)
    bad = subprocess.run([sys.executable, "benchmarks/bench_opencl.py", "--examples", "--only",
                          "no_such", "--out", str(tmp_path)], capture_output=True, text=True,
                         cwd=ROOT, timeout=120)
    assert bad.returncode == 1 and "no example no_such" in bad.stderr


def test_bench_peers_table_json_and_plot(tmp_path):
    """The peer comparison (the GPU script's step) at a tiny scale: every row, the totals, the
    table and the plot (a KeyError in the totals once ended it after the last workload)."""
    p = subprocess.run([sys.executable, "benchmarks/bench_opencl.py", "--only", "dotp,quicksort,quickhull",
                        "--scale", "1e-4", "--repeat", "1", "--out", str(tmp_path)],
                       capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert p.returncode == 0 and "Traceback" not in p.stderr, p.stderr
    data = json.loads((tmp_path / "bench.json").read_text())
    rows = {r["workload"]: r for r in data["rows"]}
    assert sorted(rows) == ["dotp", "quickhull", "quicksort"]
    for r in rows.values():
        assert r["launches_fused"] > 0 and r["nessie_fused_s"] > 0 and r["peer_s"] > 0
    # quickhull's hull, fused and unfused, is scipy's (its points as a set)
    assert rows["quickhull"]["same_as_peer_fused"] is True
    assert rows["quickhull"]["same_as_peer_unfused"] is True
    assert data["totals"]["launches_fused"] == sum(r["launches_fused"] for r in rows.values())
    assert "| dotp | 1e+03 |" in (tmp_path / "bench.md").read_text()
    assert (tmp_path / "bench.png").read_bytes().startswith(b"\x89PNG\r\n\x1a\n")


def test_bench_startup_table_json_and_plot(tmp_path):
    """benchmarks/bench_startup.py: the peers' and nessie's rows, an example's check and compile
    times, the table and the plot; an unknown --only name is an error, not an empty table."""
    p = subprocess.run([sys.executable, "benchmarks/bench_startup.py", "--only", "dotp",
                        "--repeat", "1", "--out", str(tmp_path)],
                       capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert p.returncode == 0 and "Traceback" not in p.stderr, p.stderr
    data = json.loads((tmp_path / "startup.json").read_text())
    rows = {r["what"]: r for r in data["rows"]}
    assert sorted(rows) == sorted(["python -c pass (peer)", "python -c 'import numpy' (peer)",
                                   "nessie --version", "nessie check (2 lines)", "dotp"])
    assert all(r["check_cpu_s"] > 0 for r in rows.values())
    assert rows["dotp"]["compile_cpu_s"] > 0 and rows["nessie --version"]["compile_cpu_s"] is None
    assert re.search(r"^\| dotp \| \d+\.\d{3} \| \d+\.\d{3} \|$", (tmp_path / "startup.md").read_text(), re.M)
    assert (tmp_path / "startup.png").read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
    bad = subprocess.run([sys.executable, "benchmarks/bench_startup.py", "--only", "no_such",
                          "--out", str(tmp_path)], capture_output=True, text=True, cwd=ROOT,
                         timeout=120)
    assert bad.returncode == 1 and "no example no_such" in bad.stderr, bad.stderr
