"""The ``nessie`` command line, run as a subprocess: outputs, exit statuses, and the exact text
of user errors (which never show a Python traceback)."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "nesl_examples"

SMALL = """\
% a small program %
function sq(x) = x * x;
v = [1, 2, 3, 4];
{sq(a) : a in v};
sum(v);
"hello" ++ " " ++ "world";
(sq(1.5), #v, v[0] == 1);
"""

SMALL_OUT = """\
sq = fn : a -> a :: (a in number)
v = [1, 2, 3, 4] : [int]
it = [1, 4, 9, 16] : [int]
it = 10 : int
it = "hello world" : [char]
it = (2.25, 4, T) : float, int, bool
"""

RUNTIME = """\
function inv(x) = 100 / x;
inv(4);
v = [1, 2, 3];
{inv(a) : a in v};
inv(0);
3;
"""

RUNTIME_OUT = """\
inv = fn : int -> int
it = 25 : int
v = [1, 2, 3] : [int]
it = [100, 50, 33] : [int]
"""

RUN_BACKENDS = [["--backend", "interp"], ["--backend", "lcu", "--no-fuse"],
                ["--backend", "lcu"], []]


def _fusion_available() -> bool:
    try:
        from lambda_cu.fusion import fuse_program  # noqa: F401
    except ImportError:
        return False
    return True


def _needs_fusion(args):
    return "--no-fuse" not in args and "interp" not in args


def nessie(*args, cwd, timeout=300):
    p = subprocess.run([sys.executable, "-m", "nessie", *args], capture_output=True, text=True,
                       cwd=cwd, timeout=timeout)
    assert "Traceback" not in p.stderr, p.stderr
    return p.stdout, p.stderr, p.returncode


@pytest.fixture
def prog(tmp_path):
    """Write a program into the temporary directory (the cwd of the command)."""
    def write(text, name="prog.nesl"):
        (tmp_path / name).write_text(text)
        return name
    return write


# --------------------------------------------------------------------------- run
@pytest.mark.parametrize("args", RUN_BACKENDS, ids=lambda a: " ".join(a) or "default")
def test_run_small_program(tmp_path, prog, args):
    if _needs_fusion(args) and not _fusion_available():
        pytest.skip("kernel fusion not available")
    out, err, rc = nessie("run", *args, prog(SMALL), cwd=tmp_path)
    assert (out, rc) == (SMALL_OUT, 0)
    assert err == ""


def test_console_script(tmp_path, prog):
    exe = shutil.which("nessie", path=os.path.dirname(sys.executable)) or shutil.which("nessie")
    if exe is None:
        pytest.skip("console script not installed")
    p = subprocess.run([exe, "run", "--backend", "interp", prog(SMALL)], capture_output=True,
                       text=True, cwd=tmp_path, timeout=300)
    assert (p.stdout, p.stderr, p.returncode) == (SMALL_OUT, "", 0)


def test_run_stats(tmp_path, prog):
    name = prog(SMALL)
    _, err, rc = nessie("run", "--backend", "lcu", "--no-fuse", "--stats", name, cwd=tmp_path)
    assert rc == 0
    m = re.fullmatch(r"nessie: (\d+) kernels, (\d+) launches \(unfused\)\n", err)
    assert m, err
    if _fusion_available():
        _, err2, _ = nessie("run", "--backend", "lcu", "--stats", name, cwd=tmp_path)
        m2 = re.fullmatch(r"nessie: (\d+) kernels, (\d+) launches \(fused\)\n", err2)
        assert m2, err2
        assert int(m2.group(2)) <= int(m.group(2))


@pytest.mark.parametrize("backend", [["--backend", "interp"], ["--backend", "lcu", "--no-fuse"]])
def test_print_length(tmp_path, prog, backend):
    name = prog("[0:10];\nset print_length 2;\n[5:9];\n")
    out, _, rc = nessie("run", *backend, "--print-length", "3", name, cwd=tmp_path)
    assert rc == 0
    assert out == "it = [0, 1, 2,...] : [int]\nit = [5, 6,...] : [int]\n"
    out, _, _ = nessie("run", *backend, name, cwd=tmp_path)
    assert out == "it = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9] : [int]\nit = [5, 6,...] : [int]\n"


@pytest.mark.parametrize("backend", [["--backend", "interp"], ["--backend", "lcu", "--no-fuse"]])
def test_int32_wraps(tmp_path, prog, backend):
    name = prog("max_int;\nmax_int + 1;\n")
    out, _, rc = nessie("run", *backend, name, cwd=tmp_path)
    assert (out, rc) == ("it = 2147483647 : int\nit = -2147483648 : int\n", 0)


@pytest.mark.parametrize("backend", [["--backend", "interp"], []])
def test_int64(tmp_path, prog, backend):
    """64-bit ints run on the reference interpreter (the default backend falls back to it)."""
    name = prog("max_int;\nmax_int + 1;\n[0:3];\n")
    out, _, rc = nessie("run", *backend, "--int64", name, cwd=tmp_path)
    assert (out, rc) == ("it = 9223372036854775807 : int\nit = -9223372036854775808 : int\n"
                         "it = [0, 1, 2] : [int]\n", 0)


def test_int64_on_lcu_is_a_clear_error(tmp_path, prog):
    name = prog("[0:3];\n")
    out, err, rc = nessie("run", "--backend", "lcu", "--int64", name, cwd=tmp_path)
    assert rc == 1 and out == "" and "Traceback" not in err
    assert "64-bit NESL ints" in err


@pytest.mark.parametrize("example", ["dotp.nesl", "sparse_mxv.nesl", "nested.nesl"])
def test_examples_backends_agree(example):
    ref, _, rc = nessie("run", "--backend", "interp", example, cwd=EXAMPLES)
    assert rc == 0
    out, _, rc = nessie("run", "--backend", "lcu", "--no-fuse", example, cwd=EXAMPLES)
    assert (out, rc) == (ref, 0)


# --------------------------------------------------------------------------- check / compile
def test_check_is_silent(tmp_path, prog):
    assert nessie("check", prog(SMALL), cwd=tmp_path) == ("", "", 0)


def test_check_reports_errors(tmp_path, prog):
    out, err, rc = nessie("check", prog("x = 1 + `c;\n"), cwd=tmp_path)
    assert (out, rc) == ("", 1)
    assert err.startswith("prog.nesl:1:9: error: type mismatch: expected int but got char\n")


def test_emit_ast_parses_back(tmp_path, prog):
    from nessie.syntax import parse_text, print_ast
    out, err, rc = nessie("compile", "--emit", "ast", prog(SMALL), cwd=tmp_path)
    assert rc == 0 and err == "" and out.strip()
    assert print_ast(parse_text(out, "<emitted>")) == print_ast(parse_text(SMALL, "<src>"))


def test_emit_typed_parses_back(tmp_path, prog):
    from nessie.syntax import parse_text
    out, err, rc = nessie("compile", "--emit", "typed", prog(SMALL), cwd=tmp_path)
    assert rc == 0 and err == ""
    assert "function sq(x) : a -> a :: (a in number) = x * x;" in out
    assert len(parse_text(out, "<typed>").items) == 6


def test_emit_mono(tmp_path, prog):
    out, err, rc = nessie("compile", "--emit", "mono", prog(SMALL), cwd=tmp_path)
    assert rc == 0 and err == ""
    assert "function sq<int>(x) : int -> int = x * x;" in out
    assert "function sq<float>(x) : float -> float = x * x;" in out


def test_emit_lcu(tmp_path, prog):
    out, err, rc = nessie("compile", "--emit", "lcu", prog(SMALL), cwd=tmp_path)
    assert rc == 0 and err == ""
    assert re.search(r"^kernel K\d+ ", out, re.M)
    assert re.search(r"^function sq_int_ ", out, re.M)
    assert re.search(r"^let ", out, re.M)


@pytest.mark.skipif(not _fusion_available(), reason="kernel fusion not available")
def test_emit_fused_pdg_and_stats(tmp_path, prog):
    name = prog(SMALL)
    out, err, rc = nessie("compile", "--emit", "lcu-fused", name, cwd=tmp_path)
    assert rc == 0 and err == "" and re.search(r"^kernel ", out, re.M)
    out, err, rc = nessie("compile", "--emit", "pdg", name, cwd=tmp_path)
    assert rc == 0 and err == "" and out.startswith("digraph ")
    out, err, rc = nessie("stats", name, cwd=tmp_path)
    assert rc == 0 and err == "" and out.startswith("function ")
    out, err, rc = nessie("stats", "--json", name, cwd=tmp_path)
    assert rc == 0 and err == ""
    data = json.loads(out)
    main = data["functions"]["main"]
    assert main["fused_kernels"] <= main["unfused_kernels"]


# --------------------------------------------------------------------------- user errors
@pytest.mark.parametrize("cmd", [["run", "--backend", "interp"], ["run", "--backend", "lcu"],
                                 ["check"], ["compile", "--emit", "typed"]])
def test_syntax_error(tmp_path, prog, cmd):
    out, err, rc = nessie(*cmd, prog("x = 1;\ny = (1 +;\n"), cwd=tmp_path)
    assert (out, rc) == ("", 1)
    assert err == ("prog.nesl:2:9: error: syntax error at ';'\n"
                   "    y = (1 +;\n"
                   "            ^\n")


def test_type_error(tmp_path, prog):
    out, err, rc = nessie("run", prog("function g(x) = x + 1;\ng(2.5);\n"), cwd=tmp_path)
    assert (out, rc) == ("", 1)
    assert err == ("prog.nesl:2:3: error: type mismatch: expected int but got float\n"
                   "    g(2.5);\n"
                   "      ^~~\n")


def test_unbound_variable(tmp_path, prog):
    out, err, rc = nessie("run", prog("y = z + 1;\n"), cwd=tmp_path)
    assert (out, rc) == ("", 1)
    assert err == ("prog.nesl:1:5: error: unbound variable z\n"
                   "    y = z + 1;\n"
                   "        ^\n")


def test_two_errors_both_reported(tmp_path, prog):
    out, err, rc = nessie("run", prog("a = 1 + `c;\nok = 2;\nb = [1, 2] ++ [t];\n"),
                          cwd=tmp_path)
    assert (out, rc) == ("", 1)
    assert err == ("prog.nesl:1:9: error: type mismatch: expected int but got char\n"
                   "    a = 1 + `c;\n"
                   "            ^~\n"
                   "prog.nesl:3:15: error: type mismatch: expected [int] but got [bool]\n"
                   "    b = [1, 2] ++ [t];\n"
                   "                  ^~~\n")


def test_syntax_errors_in_two_items(tmp_path, prog):
    out, err, rc = nessie("check", prog("x = ) 1;\ny = 2;\nz = 3 3;\n"), cwd=tmp_path)
    assert (out, rc) == ("", 1)
    assert err.count("error: syntax error") == 2
    assert err.startswith("prog.nesl:1:5: error: syntax error at ')'\n")
    assert "prog.nesl:3:7: error: syntax error at '3'\n" in err


@pytest.mark.parametrize("backend", [["--backend", "interp"], ["--backend", "lcu", "--no-fuse"],
                                     ["--backend", "lcu"]],
                         ids=["interp", "lcu-unfused", "lcu-fused"])
def test_runtime_error(tmp_path, prog, backend):
    if _needs_fusion(backend) and not _fusion_available():
        pytest.skip("kernel fusion not available")
    out, err, rc = nessie("run", *backend, prog(RUNTIME), cwd=tmp_path)
    assert (out, rc) == (RUNTIME_OUT, 1)
    lines = err.splitlines()
    assert lines[:2] == ["prog.nesl:1:19: error: RUNTIME ERROR: Divide by zero.",
                         "    function inv(x) = 100 / x;"]
    assert len(lines) == 3 and re.fullmatch(r" {22}\^~*", lines[2])


def test_runtime_error_interp_exact(tmp_path, prog):
    _, err, _ = nessie("run", "--backend", "interp", prog(RUNTIME), cwd=tmp_path)
    assert err == ("prog.nesl:1:19: error: RUNTIME ERROR: Divide by zero.\n"
                   "    function inv(x) = 100 / x;\n"
                   "                      ^~~~~~~\n")


@pytest.mark.parametrize("backend", [["--backend", "interp"], ["--backend", "lcu", "--no-fuse"]])
def test_runtime_error_subscript(tmp_path, prog, backend):
    out, err, rc = nessie("run", *backend, prog("v = [1, 2];\nv[2];\n"), cwd=tmp_path)
    assert (out, rc) == ("v = [1, 2] : [int]\n", 1)
    assert err.startswith("prog.nesl:2:1: error: RUNTIME ERROR: Sequence reference (a[i]) out "
                          "of bounds.\n    v[2];\n    ^")


@pytest.mark.parametrize("cmd", [["run"], ["check"], ["compile", "--emit", "ast"], ["stats"]])
def test_missing_file(tmp_path, cmd):
    out, err, rc = nessie(*cmd, "nofile.nesl", cwd=tmp_path)
    assert (out, err, rc) == ("", "nessie: error: cannot open nofile.nesl\n", 1)


def test_bad_option_usage_error(tmp_path, prog):
    p = subprocess.run([sys.executable, "-m", "nessie", "run", "--backend", "gpu", prog(SMALL)],
                       capture_output=True, text=True, cwd=tmp_path, timeout=60)
    assert p.returncode == 2 and "invalid choice: 'gpu'" in p.stderr
    assert "Traceback" not in p.stderr
