"""Bug hunt s38.  The Python API: a datatype defined again at another type (each function
converts its arguments and results with the definition it was compiled against, values of the
other definition are refused), 0-d numpy string arrays, Segmented's repr.  The command line and
the REPL (one file: tests/api and tests/cli share pytest's module namespace): options that do
not apply refused the same way (--out, --device), out of memory reading a program, the REPL's
exit status after a FILE that cannot be loaded, --emit pdg --out of files of the same name,
and bench's summary counting programs that do not compile."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import nessie
from nessie import DataVal, Segmented

BACKENDS = ["interp", "lcu", pytest.param("opencl", marks=pytest.mark.opencl)]

README_EXAMPLE = "datatype pt(int, int); pt(1, 2); datatype pt(float, float); pt(1.0, 2.0);"

TWO_PT = """datatype pt(int, int); function mka(x) = pt(x, x); function a(p) = let pt(x, y) = p in x;
u = pt(3, 4);
function mkseq(n) = {pt(i, i + 1) : i in [0:n]};
datatype pt(float, float); function mkb(x) = pt(x, x); function b(p) = let pt(x, y) = p in y;
function idd(x) = x;
v = pt(5.0, 6.0);
"""

LATER_FOR_EARLIER = ("a: argument 1 (p) must be pt: p is a value of the later definition of "
                     "datatype pt (line 4), where one of the earlier definition (line 1) is "
                     "expected (a datatype defined again at another type is another datatype)")
EARLIER_FOR_LATER = ("b: argument 1 (p) must be pt: p is a value of the earlier definition of "
                     "datatype pt (line 1), where one of the later definition (line 4) is "
                     "expected (a datatype defined again at another type is another datatype)")


def _same(x, y):
    """Equal values of equal Python types, fields included (1 is not 1.0 here)."""
    if isinstance(x, DataVal):
        return (isinstance(y, DataVal) and x.name == y.name and len(x.fields) == len(y.fields)
                and all(_same(a, b) for a, b in zip(x.fields, y.fields)))
    if isinstance(x, list):
        return isinstance(y, list) and len(x) == len(y) and all(map(_same, x, y))
    return type(x) is type(y) and x == y


@pytest.mark.parametrize("backend", BACKENDS)
def test_readme_redefinition_example_loads(backend):
    m = nessie.load(README_EXAMPLE, backend=backend)
    assert m.output == ("pt = fn : (int, int) -> pt\n"
                        "it = pt(1, 2) : pt\n"
                        "Redefining PT with a new type.  Old calls will not be modified.\n"
                        "pt = fn : (float, float) -> pt\n"
                        "it = pt(1.0, 2.0) : pt\n")
    assert _same(m.values["it"], DataVal("pt", (1.0, 2.0)))


@pytest.mark.parametrize("backend", BACKENDS)
def test_values_of_both_definitions(backend):
    m = nessie.load("datatype pt(int, int); p = pt(1, 2); datatype pt(float, float); "
                    "q = pt(1.0, 2.0);", backend=backend)
    assert _same(m.values["p"], DataVal("pt", (1, 2)))
    assert _same(m.values["q"], DataVal("pt", (1.0, 2.0)))
    assert m.values["p"].definition == "pt" and m.values["q"].definition == "pt~2"


@pytest.mark.parametrize("backend", BACKENDS)
def test_each_function_uses_its_definition(backend):
    m = nessie.load(TWO_PT, backend=backend)
    assert _same(m.mka(1), DataVal("pt", (1, 1)))
    assert _same(m.mkb(1.0), DataVal("pt", (1.0, 1.0)))
    assert _same(m.a(m.mka(1)), 1)
    assert _same(m.b(m.mkb(2.0)), 2.0)
    assert _same(m.a(m.values["u"]), 3) and _same(m.b(m.values["v"]), 6.0)
    assert _same(m.mkseq(3), [DataVal("pt", (0, 1)), DataVal("pt", (1, 2)),
                              DataVal("pt", (2, 3))])
    assert _same(m.a(m.mkseq(2)[1]), 1)
    # by hand: the definition the function expects
    assert _same(m.a(DataVal("pt", (1, 2))), 1)
    assert _same(m.b(DataVal("pt", (1, 2))), 2.0)
    # a polymorphic function keeps the definition of the value it is given
    assert _same(m.a(m.idd(m.mka(7))), 7)
    assert _same(m.idd(DataVal("pt", (1.0, 2.0))), DataVal("pt", (1.0, 2.0)))


@pytest.mark.parametrize("backend", BACKENDS)
def test_value_of_the_other_definition_is_refused(backend):
    m = nessie.load(TWO_PT, backend=backend)
    with pytest.raises(TypeError) as e:
        m.a(m.mkb(1.0))
    assert str(e.value) == LATER_FOR_EARLIER
    with pytest.raises(TypeError) as e:
        m.a(m.values["v"])
    assert str(e.value) == LATER_FOR_EARLIER
    with pytest.raises(TypeError) as e:
        m.b(m.mka(1))
    assert str(e.value) == EARLIER_FOR_LATER
    with pytest.raises(TypeError) as e:
        m.b(m.idd(m.values["u"]))
    assert str(e.value) == EARLIER_FOR_LATER
    with pytest.raises(TypeError) as e:
        m.a(DataVal("pt", (1.5, 2.0)))
    assert str(e.value) == ("a: argument 1 (p) must be pt; got DataVal pt; p.fields[0] is "
                            "float 1.5, where int is expected (signature a : pt -> int)")


@pytest.mark.parametrize("backend", BACKENDS)
def test_compatible_fields_of_the_other_definition_still_refused(backend):
    # the int fields of the later definition would convert to the earlier one's floats
    m = nessie.load("datatype q(float, int); function fa(x) = let q(a, b) = x in a;\n"
                    "datatype q(int, int); function mk(i) = q(i, i);", backend=backend)
    assert _same(m.fa(DataVal("q", (1, 2))), 1.0)
    with pytest.raises(TypeError, match=r"^fa: argument 1 \(x\) must be q: x is a value of "
                                        r"the later definition of datatype q \(line 2\)"):
        m.fa(m.mk(1))


@pytest.mark.parametrize("backend", BACKENDS)
def test_zero_d_string_array_is_a_string(backend):
    m = nessie.load("function strlen(s) = #s; function addone(x) = x + 1; "
                    "function ident(x) = x;", backend=backend)
    assert m.strlen(np.array("ab")) == 2 == m.strlen("ab")
    assert m.strlen(np.array("")) == 0
    assert m.ident(np.array("abc")) == "abc"
    assert m.addone(np.array(3)) == 4          # as a 0-d numeric array is its number
    with pytest.raises(TypeError) as e:
        m.addone(np.array("ab"))
    assert str(e.value) == ("addone: argument 1 (x) must be int; got numpy array of <U2 with "
                            "shape () (signature addone : int -> int)")
    # a 0-d bytes array is its bytes, a string of latin-1 codes (session 40)
    assert m.strlen(np.array(b"ab")) == 2 == m.strlen(b"ab")


# ============================================================================ command line
ROOT = Path(__file__).resolve().parents[2]
DOTP = ROOT / "nesl_examples" / "dotp.nesl"


def run_nessie(*args, cwd=ROOT, **kw):
    p = subprocess.run([sys.executable, "-m", "nessie", *map(str, args)], capture_output=True,
                       text=True, cwd=cwd, timeout=300, **kw)
    assert "Traceback" not in p.stderr, p.stderr
    return p.stdout, p.stderr, p.returncode


# ------------------------------------------------------------------ --out with --emit ast
@pytest.mark.parametrize("emit", ["ast", "typed", "lcu"])
def test_out_applies_to_pdg_only_for_every_emit(tmp_path, emit):
    out, err, rc = run_nessie("compile", "--emit", emit, "--out", tmp_path / "x", DOTP)
    assert (out, err, rc) == ("", "nessie: error: --out applies to --emit pdg only\n", 1)
    assert not (tmp_path / "x").exists()


def test_out_refused_once_for_several_files(tmp_path):
    out, err, rc = run_nessie("compile", "--emit", "ast", "--out", tmp_path, DOTP, DOTP)
    assert (out, err, rc) == ("", "nessie: error: --out applies to --emit pdg only\n", 1)


# ------------------------------------------------------------------ --device
@pytest.mark.parametrize("backend", ["interp", "lcu"])
def test_device_refused_with_other_backends(backend):
    out, err, rc = run_nessie("run", "--backend", backend, "--device", "9:9", DOTP)
    assert (out, rc) == ("", 1)
    assert err == (f"nessie: error: --device applies to --backend opencl (or auto) only, not "
                   f"--backend {backend}\n")


@pytest.mark.opencl
def test_device_with_auto_uses_that_device():
    out, err, rc = run_nessie("run", "--backend", "auto", "--device", "9:9", DOTP)
    assert (out, rc) == ("", 1)
    assert err.startswith("nessie: error: no OpenCL device '9:9' (devices: ")
    assert err.count("\n") == 1


# ------------------------------------------------------------------ out of memory reading
def _limit_memory():
    import resource
    resource.setrlimit(resource.RLIMIT_AS, (1 << 31, 1 << 31))


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
@pytest.mark.parametrize("cmd", ["check", "run"])
def test_out_of_memory_reading_the_program(cmd):
    out, err, rc = run_nessie(cmd, "/dev/zero", preexec_fn=_limit_memory)
    assert (out, err, rc) == (
        "", "nessie: error: cannot read /dev/zero: out of memory (the input is too large)\n", 1)


def test_out_of_memory_reading_is_a_usage_error(monkeypatch):
    import builtins

    from nessie.sources import UsageError, read_source

    class Huge:
        def __enter__(self):
            return self

        def __exit__(self, *a):
            return False

        def read(self):
            raise MemoryError

    monkeypatch.setattr(builtins, "open", lambda *a, **k: Huge())
    with pytest.raises(UsageError) as e:
        read_source("big.nesl")
    assert str(e.value) == "cannot read big.nesl: out of memory (the input is too large)"


# ------------------------------------------------------------------ Segmented repr
def test_segmented_repr_with_offsets_is_the_same_value():
    s = Segmented([1, 2, 3], offsets=[1, 3])
    assert repr(s) == "Segmented([1, 2, 3], offsets=[1, 3])"
    assert eval(repr(s)) == s and s.to_list() == [[2, 3]]
    t = Segmented(np.array([1, 2, 3]), offsets=[0, 2])
    assert repr(t) == "Segmented([1, 2, 3], offsets=[0, 2])" and t.to_list() == [[1, 2]]
    # offsets covering all the values are the lengths' form
    assert repr(Segmented([1, 2, 3], offsets=[0, 1, 3])) == "Segmented([1, 2, 3], lengths=[1, 2])"
    assert repr(Segmented([1, 2, 3], lengths=[3, 0])) == "Segmented([1, 2, 3], lengths=[3, 0])"
    assert repr(s[0:1]) == "Segmented([1, 2, 3], offsets=[1, 3])"


# ------------------------------------------------------------------ REPL FILE arguments
def _repl(text, *args):
    p = subprocess.run([sys.executable, "-m", "nessie.repl", "--backend", "interp", *args],
                       input=text, capture_output=True, text=True, cwd=ROOT, timeout=120)
    return p.stdout, p.stderr, p.returncode


def test_repl_missing_file_argument_exit_status(tmp_path):
    missing = tmp_path / "missing.nesl"
    out, err, rc = _repl("1 + 2;\n", str(missing))
    assert (out, rc) == ("it = 3 : int\n", 1)       # the session goes on, the status says it
    assert err == f"error: cannot open {missing}: No such file or directory\n"


def test_repl_file_with_an_error_exit_status(tmp_path):
    bad = tmp_path / "bad.nesl"
    bad.write_text("x = 1 + `c;\n")
    out, err, rc = _repl("2;\n", str(bad))
    assert (out, rc) == ("it = 2 : int\n", 1)
    assert err.startswith(f"{bad}:1:9: error: type mismatch")


def test_repl_good_file_argument_exit_status(tmp_path):
    good = tmp_path / "good.nesl"
    good.write_text("function sq(x) = x * x;\n")
    assert _repl("sq(3);\n", str(good)) == (
        "sq = fn : a -> a :: (a in number)\nit = 9 : int\n", "", 0)


# ------------------------------------------------------------------ pdg --out, same names
def test_pdg_out_files_of_the_same_name_get_their_own_folders(tmp_path):
    for d in ("a", "b"):
        (tmp_path / d).mkdir()
        shutil.copy(DOTP, tmp_path / d / "dotp.nesl")
    (tmp_path / "b" / "dotp.nesl").write_text("function twice(v) = {2 * x : x in v};\n"
                                              "twice([1, 2]);\n")
    out, err, rc = run_nessie("compile", "--emit", "pdg", "--out", "g", "a/dotp.nesl",
                          "b/dotp.nesl", cwd=tmp_path)
    assert rc == (0 if shutil.which("dot") else 1), err
    a = sorted(p.name for p in (tmp_path / "g" / "a_dotp").glob("*.dot"))
    b = sorted(p.name for p in (tmp_path / "g" / "b_dotp").glob("*.dot"))
    assert a == ["dotp_float_.dot", "dotp_int_.dot", "main.dot"]
    assert b == ["twice.dot"]
    assert not (tmp_path / "g" / "dotp").exists()
    assert "g/a_dotp/main.dot" in out.split() and "g/b_dotp/twice.dot" in out.split()


def test_pdg_out_folders_that_would_still_clash_are_refused(tmp_path):
    (tmp_path / "a").mkdir()
    shutil.copy(DOTP, tmp_path / "a" / "dotp.nesl")
    shutil.copy(DOTP, tmp_path / "dotp.nesl")
    shutil.copy(DOTP, tmp_path / "a_dotp.nesl")
    out, err, rc = run_nessie("compile", "--emit", "pdg", "--out", "g", "a/dotp.nesl", "dotp.nesl",
                          "a_dotp.nesl", cwd=tmp_path)
    assert (out, rc) == ("", 1)
    assert err == ("nessie: error: --out: the graphs of a/dotp.nesl and a_dotp.nesl would both "
                   "go to a_dotp/; rename one of the files\n")
    assert not (tmp_path / "g").exists()


def test_pdg_folders_keep_plain_names_when_unique():
    from nessie.cli import _pdg_folders
    assert _pdg_folders(["x/dotp.nesl", "y/quickhull.nesl"]) == {
        "x/dotp.nesl": "dotp", "y/quickhull.nesl": "quickhull"}
    assert _pdg_folders(["x/dotp.nesl", "../dotp.nesl"]) == {
        "x/dotp.nesl": "x_dotp", "../dotp.nesl": "up_dotp"}


# ------------------------------------------------------------------ bench summary
def test_bench_counts_a_program_that_does_not_compile(tmp_path):
    bad = tmp_path / "bad.nesl"
    bad.write_text("x = 1 +;\n")
    p = subprocess.run([sys.executable, "-m", "nessie", "bench", str(bad), str(DOTP),
                        "--backends", "interp,lcu", "--repeat", "1", "--out",
                        str(tmp_path / "b"), "--no-plot"],
                       capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert p.returncode == 1
    assert p.stderr.startswith(f"{bad}:1:8: error: syntax error at ';'\n")
    assert p.stderr.endswith("nessie bench: 3 of 6 runs failed: bad (does not compile)\n")
    rows = json.loads((tmp_path / "b" / "bench.json").read_text())["rows"]
    assert [(r["program"], r["backend"], r["status"]) for r in rows] == [
        ("dotp", "interp", "ok"), ("dotp", "lcu-unfused", "ok"), ("dotp", "lcu-fused", "ok")]


def test_bench_only_programs_that_do_not_compile(tmp_path):
    bad = tmp_path / "bad.nesl"
    bad.write_text("x = 1 +;\n")
    p = subprocess.run([sys.executable, "-m", "nessie", "bench", str(bad), "--backends",
                        "interp", "--repeat", "1", "--out", str(tmp_path / "b"), "--no-plot"],
                       capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert (p.stdout, p.returncode) == ("", 1)
    assert p.stderr == (f"{bad}:1:8: error: syntax error at ';'\n"
                        "    x = 1 +;\n"
                        "           ^\n"
                        "nessie bench: 1 of 1 run failed: bad (does not compile)\n")


def test_ints_and_floats_in_a_list_are_floats_whichever_comes_first(tmp_path):
    """A list whose element type is open takes ints and floats at the same place as floats, in
    any order (as numpy does); a type fixed to int still rejects the float, bools never mix."""
    f = tmp_path / "m.nesl"
    f.write_text("function s(x) = sum(x);\nfunction idf(x) = x;\n"
                 "function si(x) : [int] -> int = sum(x);\n")
    m = nessie.load(str(f), backend="interp")
    assert m.s([1, 2.5]) == m.s([2.5, 1]) == 3.5
    assert isinstance(m.s([1, 2.5]), float)
    assert m.s([1, 2]) == 3 and isinstance(m.s([1, 2]), int)
    got = m.idf([[1, 2], [], [3.5]])
    assert [list(r) for r in got] == [[1.0, 2.0], [], [3.5]]
    assert all(r.dtype == np.float64 for r in got)
    assert [list(r) for r in m.idf([[1], [2]])] == [[1], [2]]
    with pytest.raises(TypeError, match=r"x\[1\] is float 2.5, where int is expected"):
        m.si([1, 2.5])
    for bad in ([True, 1], [1, True]):
        with pytest.raises(TypeError, match="is expected"):
            m.s(bad)
