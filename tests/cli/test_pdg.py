"""`nessie compile F --emit pdg [--out DIR]` (issue 12): one graph per function that runs
kernels, with a title, a legend and clusters named as the fused kernels; --out writes one DOT
file per function and renders PNGs with Graphviz's dot program."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
QUICKHULL = str(ROOT / "nesl_examples" / "quickhull.nesl")
DOTP = str(ROOT / "nesl_examples" / "dotp.nesl")
NO_DOT = "Graphviz's dot program is not installed (apt-get install graphviz)"
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def nessie(*args, env=None, cwd=ROOT):
    p = subprocess.run([sys.executable, "-m", "nessie", *args], capture_output=True, text=True,
                       cwd=cwd, timeout=600, env=env)
    assert "Traceback" not in p.stderr, p.stderr
    return p.stdout, p.stderr, p.returncode


def _graphs(text):
    return [g for g in re.split(r"(?m)^(?=digraph )", text) if g.strip()]


def _functions_with_runs(path):
    from nessie import driver
    c = driver.compile_source(Path(path).read_text(), path)
    _, report = driver.fuse(driver.flatten(c))
    return report, [f.name for f in report.functions if any(r.pdg.runs for r in f.regions)]


def test_one_titled_graph_per_function_with_legend_and_kf_names():
    out, err, rc = nessie("compile", "--emit", "pdg", QUICKHULL)
    assert rc == 0 and err == ""
    graphs = _graphs(out)
    report, names = _functions_with_runs(QUICKHULL)
    assert [re.match(r'digraph "([^"]+)"', g).group(1) for g in graphs] == names
    fused, _, _ = nessie("compile", "--emit", "lcu-fused", QUICKHULL)
    defined = set(re.findall(r"^kernel (\w+) ", fused, re.M))
    for g, name in zip(graphs, names):
        f = report.function(name)
        title = re.search(r'^  label="([^"]*)"; labelloc=t;', g, re.M)
        assert title, g
        assert title.group(1).startswith(f"{name}: {f.unfused_runs} λcu run site")
        assert f"-> {f.fused_runs} after fusion" in title.group(1)
        assert 'subgraph "cluster_legend"' in g and 'label="legend"' in g
        assert "shape=box" in g.replace('"legend_', "")          # not empty: a kernel run
        clusters = re.findall(r'label="(KF\d+): (\d+) runs fused"', g)
        assert {k for k, _ in clusters} == {k.name for k in f.fused_kernels}
        for k, _ in clusters:
            assert k in defined                 # named as --emit lcu-fused prints it
    # the CPU-only regions of main (no kernel) and functions without kernels are not drawn
    assert "cross_product_float_" not in [re.match(r'digraph "([^"]+)"', g).group(1)
                                          for g in graphs]


def test_out_without_dot_writes_dot_files_and_says_so(tmp_path):
    empty = tmp_path / "bin"
    empty.mkdir()
    env = dict(os.environ, PATH=str(empty))
    out, err, rc = nessie("compile", "--emit", "pdg", "--out", str(tmp_path / "g"), DOTP, env=env)
    assert rc == 1
    assert "Graphviz's dot program is not installed" in err and "dot -Tpng" in err
    files = sorted(p.name for p in (tmp_path / "g").iterdir())
    _, names = _functions_with_runs(DOTP)
    assert files == sorted(f"{n}.dot" for n in names)
    assert out.split() == [str(tmp_path / "g" / f"{n}.dot") for n in names]
    for n in names:
        assert (tmp_path / "g" / f"{n}.dot").read_text().startswith(f'digraph "{n}" {{')


def test_out_applies_to_pdg_only(tmp_path):
    _, err, rc = nessie("compile", "--emit", "lcu", "--out", str(tmp_path), DOTP)
    assert rc == 1 and err == "nessie: error: --out applies to --emit pdg only\n"


@pytest.mark.skipif(shutil.which("dot") is None, reason=NO_DOT)
def test_out_renders_one_png_per_function(tmp_path):
    out, err, rc = nessie("compile", "--emit", "pdg", "--out", str(tmp_path / "g"), QUICKHULL)
    assert rc == 0, err
    _, names = _functions_with_runs(QUICKHULL)
    for n in names:
        assert (tmp_path / "g" / f"{n}.dot").is_file()
        assert (tmp_path / "g" / f"{n}.png").read_bytes().startswith(PNG_MAGIC)
    assert len(list((tmp_path / "g").iterdir())) == 2 * len(names)
    assert out.split()[-1] == str(tmp_path / "g" / f"{names[-1]}.png")


@pytest.mark.skipif(shutil.which("dot") is None, reason=NO_DOT)
def test_png_without_the_python_graphviz_package(tmp_path, monkeypatch, capsys):
    """Without the optional graphviz package (pip install 'nessie[viz]') dot is run directly."""
    from nessie.cli import main
    monkeypatch.setitem(sys.modules, "graphviz", None)       # import graphviz -> ImportError
    rc = main(["compile", "--emit", "pdg", "--out", str(tmp_path), DOTP])
    out, err = capsys.readouterr()
    assert rc == 0, err
    pngs = sorted(tmp_path.glob("*.png"))
    assert pngs and all(p.read_bytes().startswith(PNG_MAGIC) for p in pngs)


@pytest.mark.skipif(shutil.which("dot") is None, reason=NO_DOT)
def test_out_with_several_files_uses_one_folder_per_file(tmp_path):
    _, err, rc = nessie("compile", "--emit", "pdg", "--out", str(tmp_path), DOTP, QUICKHULL)
    assert rc == 0, err
    assert (tmp_path / "dotp" / "main.png").is_file()
    assert (tmp_path / "quickhull" / "main.png").is_file()
