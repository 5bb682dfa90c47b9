"""Kernel counts (issue 12): one definition (nessie/counts.py, README "Kernel counts"), the same
names and the same numbers in `nessie stats`, `nessie stats --json` and `nessie run --stats`."""
from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "nesl_examples"


def nessie(*args, timeout=600):
    p = subprocess.run([sys.executable, "-m", "nessie", *args], capture_output=True, text=True,
                       cwd=ROOT, timeout=timeout)
    assert "Traceback" not in p.stderr, p.stderr
    assert p.returncode == 0, p.stderr
    return p.stdout, p.stderr


RUN_LINE = re.compile(r"nessie: backend (\w+), (fused|unfused): (\d+) λcu kernels, (\d+) λcu run "
                      r"sites, (\d+) λcu kernel launches")
DEVICE_LINE = re.compile(r"nessie: device .+: (\d+) OpenCL kernels built in [\d.]+ s, (\d+) device "
                         r"launches, ")


def _totals(path):
    out, _ = nessie("stats", "--json", str(path))
    return json.loads(out)["totals"]


@pytest.mark.parametrize("name", ["sparse_mxv", "quickhull"])
def test_stats_text_and_json_agree(name):
    path = EXAMPLES / f"{name}.nesl"
    totals = _totals(path)
    text, _ = nessie("stats", str(path))
    rows = {}
    for label, key in (("λcu kernels", "lcu_kernels"), ("λcu run sites", "lcu_run_sites"),
                       ("OpenCL kernels", "opencl_kernels")):
        m = re.search(rf"^{label} +(\d+) +(\d+)   \S", text, re.M)
        assert m, text
        rows[key] = (int(m.group(1)), int(m.group(2)))
        assert rows[key] == (totals["unfused"][key], totals["fused"][key])
    # the per-function table's total row is the run sites' total
    m = re.search(r"^total +(\d+) +(\d+)$", text, re.M)
    assert m and (int(m.group(1)), int(m.group(2))) == rows["lcu_run_sites"]
    assert "nessie run --stats" in text           # where the run-time counts are
    # fusion shares equal fused kernels: no more definitions than before (quickhull: 52 -> 55
    # before the fix)
    assert totals["fused"]["lcu_kernels"] <= totals["unfused"]["lcu_kernels"]
    assert totals["fused"]["lcu_run_sites"] < totals["unfused"]["lcu_run_sites"]
    data = json.loads(nessie("stats", "--json", str(path))[0])
    assert sum(f["lcu_run_sites"]["unfused"] for f in data["functions"].values()) == \
        totals["unfused"]["lcu_run_sites"]


@pytest.mark.parametrize("fuse", [[], ["--no-fuse"]], ids=["fused", "unfused"])
def test_run_stats_uses_the_same_counts_lcu(fuse):
    path = EXAMPLES / "sparse_mxv.nesl"
    totals = _totals(path)["unfused" if fuse else "fused"]
    _, err = nessie("run", "--backend", "lcu", "--stats", *fuse, str(path))
    lines = err.strip().splitlines()
    m = RUN_LINE.fullmatch(lines[0])
    assert m, err
    # fused: one more line, on fusion (nessie run --stats)
    assert len(lines) == (2 if not fuse else 1) and all(
        ln.startswith("nessie: fusion: ") for ln in lines[1:]), err
    assert (int(m.group(3)), int(m.group(4))) == (totals["lcu_kernels"], totals["lcu_run_sites"])
    assert int(m.group(5)) > 0


@pytest.mark.opencl
@pytest.mark.parametrize("fuse", [[], ["--no-fuse"]], ids=["fused", "unfused"])
def test_run_stats_uses_the_same_counts_opencl(fuse):
    path = EXAMPLES / "quickhull.nesl"
    totals = _totals(path)["unfused" if fuse else "fused"]
    # the same file twice: each reports its own share of the shared OpenCL runner
    _, err = nessie("run", "--stats", *fuse, str(path), str(path))
    runs = [RUN_LINE.search(l) for l in err.splitlines() if RUN_LINE.search(l)]
    devs = [DEVICE_LINE.search(l) for l in err.splitlines() if DEVICE_LINE.search(l)]
    assert len(runs) == len(devs) == 2, err
    for m in runs:
        assert (int(m.group(3)), int(m.group(4))) == (totals["lcu_kernels"],
                                                      totals["lcu_run_sites"])
    for d in devs:
        assert int(d.group(1)) == totals["opencl_kernels"]
    assert devs[0].group(2) == devs[1].group(2)          # device launches, per file


def test_counts_module_names():
    from nessie import counts
    assert list(counts.NAMES) == ["lcu_kernels", "lcu_run_sites", "opencl_kernels",
                                  "lcu_kernel_launches", "device_launches"]
    readme = (ROOT / "README.md").read_text()
    section = readme[readme.index("### Kernel counts"):]
    for name in counts.NAMES.values():
        assert f"**{name}**" in section


@pytest.mark.parametrize("backend", ["lcu", "opencl"])
def test_run_stats_after_a_runtime_error(tmp_path, backend):
    """A run that stops at a runtime error still reports its figures with --stats: the error as
    without --stats (after the same output), then the counts of what ran; exit status 1."""
    f = tmp_path / "rt.nesl"
    f.write_text("function g(x) = 10 / x;\ng(2);\n{g(x) : x in [1, 0, 2]};\n3;\n")
    plain = subprocess.run([sys.executable, "-m", "nessie", "run", "--backend", backend, str(f)],
                           capture_output=True, text=True, cwd=ROOT, timeout=600)
    p = subprocess.run([sys.executable, "-m", "nessie", "run", "--stats", "--backend", backend,
                        str(f)], capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert plain.returncode == p.returncode == 1
    assert p.stdout == plain.stdout == "g = fn : int -> int\nit = 5 : int\n"
    assert p.stderr.startswith(plain.stderr), p.stderr
    assert "RUNTIME ERROR: Divide by zero." in plain.stderr
    rest = p.stderr[len(plain.stderr):]
    assert re.search(rf"nessie: backend {backend}, fused: \d+ λcu kernels, \d+ λcu run sites, the "
                     rf"run stopped at the error above\n", rest), rest
    assert "nessie: fusion: " in rest
    if backend == "opencl":
        assert DEVICE_LINE.search(rest), rest
    assert "Traceback" not in p.stderr
