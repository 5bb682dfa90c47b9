"""``nessie bench``: whole programs timed on every backend, outputs compared with the
interpreter's, JSON / Markdown / PNG written (issue 9)."""
from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "nesl_examples"
CONFIGS = ["interp", "lcu-unfused", "lcu-fused", "opencl-unfused", "opencl-fused"]


def nessie(*args, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", "nessie", *map(str, args)], capture_output=True,
                          text=True, cwd=cwd, timeout=120)


def test_bench_examples(tmp_path):
    out = tmp_path / "b"
    p = nessie("bench", EXAMPLES / "dotp.nesl", EXAMPLES / "norm2.nesl", "--repeat", "1",
               "--out", out)
    assert p.returncode == 0, p.stderr
    assert "Traceback" not in p.stderr
    doc = json.loads((out / "bench.json").read_text())
    assert doc["repeat"] == 1
    rows = doc["rows"]
    assert [(r["program"], r["backend"]) for r in rows] == \
        [(prog, c) for prog in ("dotp", "norm2") for c in CONFIGS]
    by = {(r["program"], r["backend"]): r for r in rows}
    for r in rows:
        if r["status"] == "skipped":        # no usable OpenCL device here: said in the notes
            assert r["backend"].startswith("opencl") and "OpenCL" in r["message"]
            assert any("OpenCL" in n for n in doc["notes"])
            continue
        assert r["status"] == "ok", r
        assert r["time_s"] > 0 and len(r["times_s"]) == 1 and r["warmup_s"] > 0
        assert r["output_matches"] is True
        if r["backend"] != "interp":
            assert r["lcu_kernel_launches"] > 0
            assert r["lcu_run_sites"] > 0
        if r["backend"].startswith("opencl"):
            assert r["device_launches"] >= r["lcu_kernel_launches"]
            assert doc["device"]
    for prog in ("dotp", "norm2"):
        for kind, key in (("lcu", "lcu_kernel_launches"), ("opencl", "device_launches")):
            u, f = by[(prog, f"{kind}-unfused")], by[(prog, f"{kind}-fused")]
            if u["status"] == "ok":
                assert f[key] < u[key], (prog, kind)
                assert f["lcu_kernel_launches"] < u["lcu_kernel_launches"]
    assert {(x["program"], x["backend"]) for x in doc["fusion"]} >= \
        {("dotp", "lcu"), ("norm2", "lcu")}
    md = (out / "bench.md").read_text()
    assert "| program | backend | time | λcu kernel launches | device launches | output |" in md
    assert "| dotp | lcu-fused | " in md and "| norm2 | interp | " in md
    assert "| dotp | lcu | " in md             # the fused-vs-unfused table
    assert md in p.stdout                      # also printed
    pytest.importorskip("matplotlib")
    assert (out / "bench.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # not a terminal: plain progress lines on stderr
    assert "[2/20] dotp interp: " in p.stderr


def test_missing_file(tmp_path):
    p = nessie("bench", tmp_path / "nope.nesl", "--out", tmp_path / "b")
    assert p.returncode == 1
    assert p.stderr.strip() == f"nessie: error: cannot open {tmp_path / 'nope.nesl'}: No such file or directory"
    assert not (tmp_path / "b").exists()


def test_out_is_an_existing_file(tmp_path):
    (tmp_path / "afile").write_text("keep\n")
    p = nessie("bench", EXAMPLES / "dotp.nesl", "--backends", "interp", "--repeat", "1",
               "--out", tmp_path / "afile")
    assert p.returncode == 1
    assert p.stderr.strip() == (f"nessie: error: cannot create {tmp_path / 'afile'}: "
                                f"it exists and is not a directory")
    assert (tmp_path / "afile").read_text() == "keep\n"


def test_unknown_backend(tmp_path):
    p = nessie("bench", EXAMPLES / "dotp.nesl", "--backends", "lcu,cuda", "--out", tmp_path)
    assert p.returncode == 1
    assert p.stderr.startswith("nessie: error: --backends: unknown backend 'cuda'")
    assert "Traceback" not in p.stderr


def test_syntax_error(tmp_path):
    prog = tmp_path / "bad.nesl"
    prog.write_text("function g(x) = x +;\n")
    p = nessie("bench", prog, "--out", tmp_path / "b", cwd=tmp_path)
    assert p.returncode == 1
    assert p.stderr.startswith(f"{prog}:1:")
    assert ": error: " in p.stderr and "Traceback" not in p.stderr


def test_runtime_error_is_a_failed_row(tmp_path):
    prog = tmp_path / "rt.nesl"
    prog.write_text("function g(x) = 10 / x;\ng(2);\ng(0);\n")
    out = tmp_path / "b"
    p = nessie("bench", prog, "--backends", "interp,lcu", "--repeat", "1", "--out", out,
               "--no-plot")
    assert p.returncode == 1
    assert "Traceback" not in p.stderr
    rows = json.loads((out / "bench.json").read_text())["rows"]
    assert [r["backend"] for r in rows] == ["interp", "lcu-unfused", "lcu-fused"]
    for r in rows:
        assert r["status"] == "error"
        assert r["message"].endswith("RUNTIME ERROR: Divide by zero.")
        assert r["time_s"] is None
    md = (out / "bench.md").read_text()
    assert "| rt | lcu-fused | – | – | – | error: " in md
    assert not (out / "bench.png").exists()
    assert "3 of 3 runs failed" in p.stderr


def test_mismatch_is_a_failed_row(tmp_path, monkeypatch, capsys):
    """A backend printing other output than the interpreter: its row fails, exit status 1."""
    from nessie import bench, driver
    real = driver.run_lcu

    def wrong(c, flat, out, **kw):
        it = real(c, flat, out, **kw)
        out.write("it = 42 : int\n")
        return it

    monkeypatch.setattr(driver, "run_lcu", wrong)
    rc = bench.main([str(EXAMPLES / "norm2.nesl")], ["interp", "lcu-fused"], repeat=1,
                    out_dir=str(tmp_path), plot_png=False, progress=False)
    assert rc == 1
    rows = json.loads((tmp_path / "bench.json").read_text())["rows"]
    assert rows[0]["status"] == "ok"
    assert rows[1]["status"] == "mismatch" and rows[1]["output_matches"] is False
    assert "it = 42 : int" in rows[1]["message"]
    assert "mismatch: output differs" in capsys.readouterr().out


def test_without_matplotlib(tmp_path):
    code = ("import sys\n"
            "class Block:\n"
            "    def find_spec(self, name, path=None, target=None):\n"
            "        if name.split('.')[0] == 'matplotlib':\n"
            "            raise ImportError('no matplotlib')\n"
            "sys.meta_path.insert(0, Block())\n"
            "from nessie.cli import main\n"
            "sys.exit(main(sys.argv[1:]))\n")
    out = tmp_path / "b"
    p = subprocess.run([sys.executable, "-c", code, "bench", str(EXAMPLES / "dotp.nesl"),
                        "--backends", "interp,lcu-fused", "--repeat", "1", "--out", str(out)],
                       capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert p.returncode == 0, p.stderr
    assert ("matplotlib is not installed: no plot (pip install 'nessie[bench]')"
            in p.stderr)
    assert (out / "bench.json").exists() and (out / "bench.md").exists()
    assert not (out / "bench.png").exists()


def test_compare_output():
    from nessie.bench import compare_output
    assert compare_output("it = 1.5 : float\n", "it = 1.5 : float\n") == (True, None)
    same, note = compare_output("it = 1.0000000000001 : float\n", "it = 1.0000000000002 : float\n")
    assert same and "within" in note
    same, note = compare_output("it = 1.5 : float\nit = 2 : int\n",
                                "it = 1.5 : float\nit = 3 : int\n")
    assert not same and "line 2" in note


def test_progress_bar_with_tqdm(monkeypatch):
    pytest.importorskip("tqdm")
    from nessie.bench import Progress

    class Tty(io.StringIO):
        def isatty(self):
            return True

    err = Tty()
    monkeypatch.setattr(sys, "stderr", err)
    p = Progress(2, enabled=True)
    assert p.bar is not None
    p.step("dotp interp")
    p.advance()
    p.say("dotp interp: 1.0 ms")
    p.advance()
    p.close()
    text = err.getvalue()
    assert "dotp interp: 1.0 ms\n" in text and "%|" in text and "/2 [" in text


def _no_opencl(monkeypatch):
    from nessie import driver
    real = driver.make_runner

    def make_runner(backend="lcu", device=None, profile=False):
        if backend == "opencl":
            raise RuntimeError("no OpenCL platform (simulated)")
        return real(backend, device, profile)

    monkeypatch.setattr(driver, "make_runner", make_runner)


def test_no_opencl_device_skips_its_rows(tmp_path, monkeypatch, capsys):
    from nessie import bench
    _no_opencl(monkeypatch)
    rc = bench.main([str(EXAMPLES / "dotp.nesl")], ["interp", "opencl"], repeat=1,
                    out_dir=str(tmp_path), plot_png=False, progress=False)
    assert rc == 0
    doc = json.loads((tmp_path / "bench.json").read_text())
    assert [(r["backend"], r["status"]) for r in doc["rows"]] == \
        [("interp", "ok"), ("opencl-unfused", "skipped"), ("opencl-fused", "skipped")]
    assert "no usable OpenCL device: no OpenCL platform (simulated)" in doc["notes"][0]
    err = capsys.readouterr().err
    assert "nessie: note: the opencl rows are skipped: no usable OpenCL device" in err


def test_device_asked_for_but_unusable(tmp_path, monkeypatch, capsys):
    from nessie import bench
    _no_opencl(monkeypatch)
    rc = bench.main([str(EXAMPLES / "dotp.nesl")], None, device="gpu", repeat=1,
                    out_dir=str(tmp_path), progress=False)
    assert rc == 1
    assert capsys.readouterr().err == "nessie: error: no OpenCL platform (simulated)\n"
    assert not (tmp_path / "bench.json").exists()
