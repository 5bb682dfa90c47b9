"""Defects of the command line, the REPL and the Python API found by a hunt (issue 11): each
ends with a message, never an internal error, and each surface behaves as the others do."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from nessie import cli

ROOT = Path(__file__).resolve().parents[2]


def run(capsys, *argv):
    rc = cli.main(list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err and "internal" not in err, err
    return rc, out, err


@pytest.mark.parametrize("backend", ["interp", "lcu", "opencl"])
def test_huge_print_length_is_unlimited(capsys, tmp_path, backend):
    f = tmp_path / "p.nesl"
    f.write_text("[[1, 2], [3]];\n{[x] : x in [0:200]};\n")
    rc, out, err = run(capsys, "run", "--backend", backend, "--print-length", str(2 ** 63 - 1), str(f))
    assert rc == 0 and out.startswith("it = [[1, 2], [3]] : [[int]]\n") and ",...]" not in out, err


def test_bench_repeat_must_be_positive(capsys, tmp_path):
    f = tmp_path / "p.nesl"
    f.write_text("1;\n")
    for bad in ("0", "-1"):
        with pytest.raises(SystemExit):
            cli.main(["bench", "--repeat", bad, str(f)])
        assert f"argument --repeat: must be 1 or more, not {bad}" in capsys.readouterr().err


def test_stats_json_of_several_files_is_one_object(capsys):
    files = [str(ROOT / "nesl_examples" / n) for n in ("dotp.nesl", "norm2.nesl")]
    rc, out, err = run(capsys, "stats", "--json", *files)
    assert rc == 0
    data = json.loads(out)
    assert list(data) == files and all("totals" in v for v in data.values())
    rc, out, err = run(capsys, "stats", "--json", files[0])
    assert "totals" in json.loads(out)


def test_stats_on_the_interpreter_says_it_counts_nothing(capsys, tmp_path):
    f = tmp_path / "p.nesl"
    f.write_text("1 + 2;\n")
    rc, out, err = run(capsys, "run", "--backend", "interp", "--stats", str(f))
    assert (rc, out) == (0, "it = 3 : int\n") and "the reference interpreter runs none" in err


def test_repl_on_lcu_prints_no_numpy_warnings():
    p = subprocess.run([sys.executable, "-m", "nessie.repl", "--backend", "lcu"],
                       input="0.0 / 0.0;\nsqrt(-1.0);\n{x / 0.0 : x in [1.0, 0.0]};\n{ln(x) : x in [0.0, -1.0]};\n",
                       capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert p.returncode == 0 and p.stderr == "", p.stderr
    assert p.stdout == ("it = nan : float\nit = nan : float\nit = [inf, nan] : [float]\n"
                        "it = [-inf, nan] : [float]\n")


@pytest.mark.parametrize("device", ["tpu", "gpu0", "1:x", ""])
def test_api_refuses_a_malformed_device_before_compiling(device):
    import nessie
    with pytest.raises(ValueError, match="device must be"):
        nessie.load("function f(x) = x + 1;", backend="opencl", device=device)
