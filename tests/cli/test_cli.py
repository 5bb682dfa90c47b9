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
    out, err, rc = nessie("run", *args, prog(SMALL), cwd=tmp_path)
    assert (out, rc) == (SMALL_OUT, 0)
    assert err == ""


def test_console_script(tmp_path, prog):
    exe = shutil.which("nessie", path=os.path.dirname(sys.executable)) or shutil.which("nessie")
    assert exe is not None, "the console script 'nessie' is not installed (pip install -e .)"
    p = subprocess.run([exe, "run", "--backend", "interp", prog(SMALL)], capture_output=True,
                       text=True, cwd=tmp_path, timeout=300)
    assert (p.stdout, p.stderr, p.returncode) == (SMALL_OUT, "", 0)


def test_run_stats(tmp_path, prog):
    name = prog(SMALL)
    _, err, rc = nessie("run", "--backend", "lcu", "--no-fuse", "--stats", name, cwd=tmp_path)
    assert rc == 0
    pat = r"nessie: backend lcu, %s: (\d+) λcu kernels, \d+ λcu run sites, (\d+) λcu kernel launches\n"
    m = re.fullmatch(pat % "unfused", err)
    assert m, err
    _, err2, _ = nessie("run", "--backend", "lcu", "--stats", name, cwd=tmp_path)
    # fused: a second line on fusion (its time, the ILP's, bounds and fallbacks that acted)
    m2 = re.fullmatch(pat % "fused" + r"nessie: fusion: \d+ regions in [\d.]+ s \(ILP solves "
                      r"[\d.]+ s\)\n", err2)
    assert m2, err2
    assert int(m2.group(2)) <= int(m.group(2))


@pytest.mark.opencl
def test_run_stats_opencl(tmp_path, prog):
    """On OpenCL --stats names the device and reports device launches, kernel time (profiling
    events), bytes moved and peak device memory."""
    name = prog(SMALL)
    _, err, rc = nessie("run", "--backend", "opencl", "--stats", name, cwd=tmp_path)
    assert rc == 0, err
    lines = [l for l in err.splitlines() if l.startswith("nessie:")]
    assert re.fullmatch(r"nessie: backend opencl, fused: \d+ λcu kernels, \d+ λcu run sites, "
                        r"\d+ λcu kernel launches", lines[0]), err
    assert lines[1].startswith("nessie: fusion: "), err
    m = re.fullmatch(r"nessie: device (.+): (\d+) OpenCL kernels built in [\d.]+ s, (\d+) device "
                     r"launches, kernel time [\d.]+ ms, (\d+) B to device, (\d+) B from device, "
                     r"\d+ synchronisations, peak device memory (\d+) B", lines[2])
    assert m, err
    assert int(m.group(3)) > 0 and int(m.group(5)) > 0 and int(m.group(6)) > 0


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


def test_int64_float_power_keeps_an_odd_exponents_sign(tmp_path, prog):
    """A 64-bit exponent above 2^53 is not rounded to an even float before the power."""
    name = prog("(-1.0) ^ max_int;\n(-1.0) ^ (max_int - 1);\n(-2.0) ^ max_int;\n"
                "(-0.5) ^ max_int;\n{x ^ max_int : x in [-1.0, 1.0, 0.5]};\n")
    out, _, rc = nessie("run", "--backend", "interp", "--int64", name, cwd=tmp_path)
    assert (out, rc) == ("it = -1.0 : float\nit = 1.0 : float\nit = -inf : float\n"
                         "it = -0.0 : float\nit = [-1.0, 1.0, 0.0] : [float]\n", 0)


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


def test_emit_fused_pdg_and_stats(tmp_path, prog):
    name = prog(SMALL)
    out, err, rc = nessie("compile", "--emit", "lcu-fused", name, cwd=tmp_path)
    assert rc == 0 and err == "" and re.search(r"^kernel ", out, re.M)
    out, err, rc = nessie("compile", "--emit", "pdg", name, cwd=tmp_path)
    assert rc == 0 and err == "" and out.startswith("digraph ")
    out, err, rc = nessie("stats", name, cwd=tmp_path)
    assert rc == 0 and err == "" and "\nfunction " in out
    out, err, rc = nessie("stats", "--json", name, cwd=tmp_path)
    assert rc == 0 and err == ""
    data = json.loads(out)
    main = data["functions"]["main"]
    assert main["lcu_run_sites"]["fused"] <= main["lcu_run_sites"]["unfused"]


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
    assert (out, err, rc) == ("", "nessie: error: cannot open nofile.nesl: No such file or directory\n", 1)


def test_bad_option_usage_error(tmp_path, prog):
    p = subprocess.run([sys.executable, "-m", "nessie", "run", "--backend", "gpu", prog(SMALL)],
                       capture_output=True, text=True, cwd=tmp_path, timeout=60)
    assert p.returncode == 2 and "invalid choice: 'gpu'" in p.stderr
    assert "Traceback" not in p.stderr


# --------------------------------------------------------------------------- issue 12
def test_version(tmp_path):
    from nessie import __version__
    assert nessie("--version", cwd=tmp_path) == (f"nessie {__version__}\n", "", 0)


def test_every_option_has_help(tmp_path):
    """``nessie COMMAND --help`` explains every option it lists (as argparse prints them)."""
    import argparse
    from nessie.cli import _parser
    ap = _parser()
    sub = next(a for a in ap._actions if isinstance(a, argparse._SubParsersAction))
    for name, p in sub.choices.items():
        out, err, rc = nessie(name, "--help", cwd=tmp_path)
        assert rc == 0 and err == ""
        for action in p._actions:
            if action.help == argparse.SUPPRESS:
                continue
            assert action.help, (name, action.option_strings or action.dest)
            shown = action.option_strings[0] if action.option_strings else action.metavar
            m = re.search(rf"^  {re.escape(shown)}\b.*?(?=^  \S|\Z)", out, re.M | re.S)
            assert m, (name, shown, out)
            words = action.help.split()[0]
            assert words in m.group(0), (name, shown, m.group(0))
    out, _, rc = nessie("--help", cwd=tmp_path)
    assert rc == 0 and "--version" in out and all(c in out for c in sub.choices)


def test_program_from_standard_input(tmp_path):
    p = subprocess.run([sys.executable, "-m", "nessie", "run", "--backend", "interp", "-"],
                       input="x = [1, 2] ++ [3];\nsum(x);\n", capture_output=True, text=True,
                       cwd=tmp_path, timeout=120)
    assert (p.stdout, p.stderr, p.returncode) == ("x = [1, 2, 3] : [int]\nit = 6 : int\n", "", 0)
    p = subprocess.run([sys.executable, "-m", "nessie", "check", "-"], input="y = 1 +;\n",
                       capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert p.returncode == 1 and p.stderr.startswith("<stdin>:1:8: error: syntax error at ';'")


def test_several_files_each_run_in_turn(tmp_path, prog):
    a = prog("1 + 2;\n", "a.nesl")
    bad = prog("x = [1, 2];\nx[7];\n", "bad.nesl")
    c = prog("\"c\";\n", "c.nesl")
    out, err, rc = nessie("run", "--backend", "interp", a, bad, c, cwd=tmp_path)
    assert rc == 1
    assert out == ("==> a.nesl <==\nit = 3 : int\n\n==> bad.nesl <==\nx = [1, 2] : [int]\n\n"
                   "==> c.nesl <==\nit = \"c\" : [char]\n")
    assert err.startswith("bad.nesl:2:1: error: RUNTIME ERROR: Sequence reference")
    assert nessie("check", a, c, cwd=tmp_path) == ("", "", 0)
    out, err, rc = nessie("check", a, "missing.nesl", c, cwd=tmp_path)
    assert (out, err, rc) == ("", "nessie: error: cannot open missing.nesl: No such file or directory\n", 1)


@pytest.mark.parametrize("backend", [["--backend", "interp"], ["--backend", "lcu"]])
def test_print_length_zero(tmp_path, prog, backend):
    name = prog("[1, 2, 3];\n[[1], [2]];\n[] int;\n\"ab\";\n(1, [2]);\n")
    out, err, rc = nessie("run", *backend, "--print-length", "0", name, cwd=tmp_path)
    assert (err, rc) == ("", 0)
    assert out == ("it = [...] : [int]\nit = [...] : [[int]]\nit = [] : [int]\n"
                   "it = \"...\" : [char]\nit = (1, [...]) : int, [int]\n")
    _, err, rc = nessie("run", "--print-length", "-1", name, cwd=tmp_path)
    assert rc == 2 and "--print-length: must be 0 or more, not -1" in err


@pytest.mark.parametrize("cmd", [["run", "--backend", "opencl"], ["run", "--backend", "lcu"],
                                 ["compile", "--emit", "typed"], ["stats"],
                                 ["test"]])
def test_int64_where_it_does_not_apply(tmp_path, prog, cmd):
    out, err, rc = nessie(*cmd, "--int64", prog("1;\n"), cwd=tmp_path)
    assert (out, rc) == ("", 1)
    assert err.startswith("nessie: error: --int64") and err.count("\n") == 1
    assert "reference interpreter" in err


# --------------------------------------------------------------------------- nessie test
TESTED = """\
function inv(x) = 100 / x;
inv(4);
"50%" ++ " off";
% ==
output:
inv = fn : int -> int
it = 25 : int
it = "50%% off" : [char]
%
"""

FAST = ["--backend", "interp,lcu"]


def test_nessie_test_example_on_every_backend():
    """The example program carries its expected output: it passes on all five
    configurations (the one OpenCL run of these tests)."""
    out, err, rc = nessie("test", "row_sums.nesl", cwd=EXAMPLES)
    assert rc == 0, out + err
    assert out == ("row_sums.nesl: ok (interp, lcu-unfused, lcu-fused, opencl-unfused, "
                   "opencl-fused)\nnessie test: 1 program, 5 runs: 5 passed, 0 failed\n")


def test_nessie_test_passes_and_fails(tmp_path, prog):
    good = prog(TESTED, "good.nesl")
    wrong = prog(TESTED.replace("it = 25", "it = 26"), "wrong.nesl")
    out, err, rc = nessie("test", *FAST, good, wrong, cwd=tmp_path)
    assert rc == 1 and err == ""
    assert out == ("good.nesl: ok (interp, lcu-unfused, lcu-fused)\n"
                   "wrong.nesl: FAILED\n"
                   "  interp, lcu-unfused, lcu-fused: the output differs from the expected "
                   "output:\n"
                   "    --- expected\n    +++ actual\n    @@ -1,3 +1,3 @@\n"
                   "     inv = fn : int -> int\n    -it = 26 : int\n    +it = 25 : int\n"
                   "     it = \"50% off\" : [char]\n"
                   "nessie test: 2 programs, 6 runs: 3 passed, 3 failed\n")
    assert nessie("test", *FAST, good, cwd=tmp_path)[2] == 0


def test_nessie_test_expected_error_and_backends_section(tmp_path, prog):
    name = prog("function inv(x) = 100 / x;\ninv(4);\ninv(0);\n% ==\nbackends: interp\n"
                "output:\ninv = fn : int -> int\nit = 25 : int\n"
                "error: RUNTIME ERROR: Divide by zero.\n%\n")
    assert nessie("test", name, cwd=tmp_path) == (
        "prog.nesl: ok (interp)\nnessie test: 1 program, 1 run: 1 passed, 0 failed\n", "", 0)
    name = prog("x = 1 +;\n% ==\nerror: syntax error at ';'\n%\n", "syntax.nesl")
    out, _, rc = nessie("test", *FAST, name, cwd=tmp_path)
    assert rc == 0 and out.startswith("syntax.nesl: ok (interp, lcu-unfused, lcu-fused)\n")
    name = prog("1;\n% ==\nerror: Divide by zero\n%\n", "noerror.nesl")
    out, _, rc = nessie("test", "--backend", "interp", name, cwd=tmp_path)
    assert rc == 1 and ("interp: expected an error containing 'Divide by zero', but the "
                        "program ran to the end") in out


def test_nessie_test_without_a_block(tmp_path, prog):
    """No block: the .out file is the expected output, else the interpreter's output."""
    prog("sum([1, 2]);\n", "golden.nesl")
    (tmp_path / "golden.out").write_text("it = 3 : int\n")
    prog("{a * 2 : a in [1, 2]};\n", "plain.nesl")
    prog("1;\n% ==\nouput:\nit = 1 : int\n%\n", "typo.nesl")
    out, err, rc = nessie("test", *FAST, "-v", ".", cwd=tmp_path)
    assert rc == 1 and err == ""
    assert out.splitlines() == [
        "./golden.nesl: ok (interp, lcu-unfused, lcu-fused)",
        "  note: expected output from the .out file",
        "./plain.nesl: ok (interp, lcu-unfused, lcu-fused)",
        "  note: no '% ==' block: every backend compared with the reference interpreter",
        "./typo.nesl: FAILED",
        "  block: bad test block: unexpected line in the test block: 'ouput:' (sections: "
        "output:, error:, backends:)",
        "nessie test: 3 programs, 7 runs: 6 passed, 1 failed"]


def test_nessie_test_second_block_is_an_error(tmp_path, prog):
    """Two '% ==' blocks: which one holds would be a guess, so the file fails and says where
    the second starts (a '%%' inside the first block's output is not a second block)."""
    name = prog("1 + 2;\n% ==\noutput:\nit = 3 : int\n%\n5;\n% ==\noutput:\nit = 99 : int\n%\n",
                "two.nesl")
    out, err, rc = nessie("test", *FAST, name, cwd=tmp_path)
    assert (rc, err) == (1, "")
    assert out.splitlines()[:2] == [
        "two.nesl: FAILED",
        "  block: bad test block: a second '% ==' block at line 7: a program has one test "
        "block (put every expected line in the first)"]
    one = prog('"a%== b";\n% ==\noutput:\nit = "a%%== b" : [char]\n%\n', "one.nesl")
    assert nessie("test", "--backend", "interp", one, cwd=tmp_path)[2] == 0
