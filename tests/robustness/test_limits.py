"""Issue 11's front-end and runtime classes, one test per member found: each must end with a
located message and exit status 1 (or run), on the interpreter, λcu and OpenCL, never with a
traceback.  Run in-process through ``nessie.cli.main``."""
from __future__ import annotations

import re
import time

import pytest

from nessie import cli
from nessie.limits import MAX_CALL_DEPTH, MAX_EXPR_DEPTH, OUT_OF_MEMORY, RECURSION_TOO_DEEP

BACKENDS = ["interp", "lcu", "opencl"]


def run(capsys, tmp_path, text, *args, backend="interp", name="p.nesl", data=None):
    path = tmp_path / name
    if data is not None:
        path.write_bytes(data)
    else:
        path.write_text(text, encoding="utf-8")
    rc = cli.main(["run", "--backend", backend, *args, str(path)])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err and "internal" not in err, err
    return rc, out, err.replace(str(tmp_path) + "/", "")


def located(err: str, line: int, col: int, message: str) -> bool:
    return re.search(rf"^p\.nesl:{line}:{col}: error: .*{re.escape(message)}", err, re.M) \
        is not None


# ----------------------------------------------------------------------------- int literals
@pytest.mark.parametrize("backend", BACKENDS)
def test_int32_literal_bounds(capsys, tmp_path, backend):
    rc, out, err = run(capsys, tmp_path, "2147483647;\n-2147483648;\n-(2147483647) - 1;\n",
                       backend=backend)
    assert (rc, err) == (0, "")
    assert out == ("it = 2147483647 : int\nit = -2147483648 : int\n"
                   "it = -2147483648 : int\n")


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("lit", ["2147483648", "-2147483649", "4294967296",
                                 "99999999999999999999"])
def test_int_literal_outside_int32_is_a_located_error(capsys, tmp_path, backend, lit):
    rc, out, err = run(capsys, tmp_path, f"1;\nx = {lit};\n", backend=backend)
    assert rc == 1 and out == ""          # a compile error: nothing runs
    assert located(err, 2, 5, "does not fit in a"), err


def test_int64_literals(capsys, tmp_path):
    rc, out, err = run(capsys, tmp_path, "4294967296;\n-9223372036854775808;\n", "--int64")
    assert (rc, out) == (0, "it = 4294967296 : int\nit = -9223372036854775808 : int\n")
    rc, out, err = run(capsys, tmp_path, "9223372036854775808;\n", "--int64")
    assert rc == 1 and located(err, 1, 1, "does not fit in a NESL int (64 bits at most")


@pytest.mark.parametrize("backend", BACKENDS)
def test_literal_of_thousands_of_digits(capsys, tmp_path, backend):
    rc, out, err = run(capsys, tmp_path, "1;\n" + "7" * 6000 + ";\n", backend=backend)
    assert rc == 1 and located(err, 2, 1, "(6000 digits) does not fit in a NESL int")
    assert len(err) < 1000                # the line is quoted in part


# ----------------------------------------------------------------------------- characters
@pytest.mark.parametrize("backend", BACKENDS)
def test_chars_above_255(capsys, tmp_path, backend):
    rc, out, err = run(capsys, tmp_path, 'x = "ab\u0101";\ny = `\u20ac;\n', backend=backend)
    assert rc == 1
    assert located(err, 1, 8, "character 'ā' (U+0101) is not a NESL char")
    assert located(err, 2, 6, "(U+20AC) is not a NESL char")


@pytest.mark.parametrize("backend", BACKENDS)
def test_latin1_chars_are_chars(capsys, tmp_path, backend):
    rc, out, err = run(capsys, tmp_path, '"caf\u00e9";\n', backend=backend)
    assert (rc, out) == (0, 'it = "caf\u00e9" : [char]\n')


# ----------------------------------------------------------------------------- deep expressions
def deep(shape: str, n: int) -> str:
    return {"plus": "+".join(["1"] * n),
            "parens": "(" * n + "1" + ")" * n,
            "brackets": "#" + "[" * n + "1" + "]" * n,
            "let": "".join(f"let x{i} = {i} in " for i in range(n)) + "x0",
            "if": "if t then " * n + "1" + " else 2" * n,
            "tuple": "#[(" + ", ".join(["1"] * n) + ")]",
            "neg": "-" * n + "1"}[shape]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("shape,n,want", [("plus", 500, "500"), ("plus", MAX_EXPR_DEPTH, None),
                                          ("parens", 5000, "1"), ("neg", 400, "1"),
                                          ("let", 400, "0"), ("if", 400, "1"),
                                          ("tuple", 900, "1"), ("brackets", 30, "1")])
def test_deep_expressions_within_the_limit_run(capsys, tmp_path, backend, shape, n, want):
    args = ["--no-fuse"] if backend != "interp" else []  # fusion time: see test_mutations.py
    rc, out, err = run(capsys, tmp_path, f"function g(x) = {deep(shape, n)};\ng(0);\n", *args,
                       backend=backend)
    assert (rc, err) == (0, "")
    assert out.endswith(f"it = {want or MAX_EXPR_DEPTH} : int\n")


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("shape,n", [("plus", MAX_EXPR_DEPTH + 1), ("plus", 100_000),
                                     ("brackets", 1000), ("let", 3000), ("neg", 2000),
                                     ("tuple", 5000)])
def test_too_deep_is_a_located_error(capsys, tmp_path, backend, shape, n):
    start = time.perf_counter()
    rc, out, err = run(capsys, tmp_path, f"1;\nx = {deep(shape, n)};\n2;\n", backend=backend)
    assert rc == 1 and out == ""
    assert re.search(r"^p\.nesl:2:\d+: error: expression too deep: nested more than "
                     rf"{MAX_EXPR_DEPTH} levels", err, re.M), err
    assert err.count("error:") == 1
    assert time.perf_counter() - start < 30


def test_deep_pattern_is_a_located_error(capsys, tmp_path):
    pat = ", ".join(f"a{i}" for i in range(3000))
    rc, out, err = run(capsys, tmp_path, f"({pat}) = ({pat});\n")
    assert rc == 1 and "expression too deep" in err


def test_repl_session_survives_deep_input():
    import io

    from nessie.repl import Session
    out, err = io.StringIO(), io.StringIO()
    s = Session(out, err)
    for line in [deep("plus", 500) + ";", deep("plus", 5000) + ";",
                 f"x = {deep('brackets', 400)};", "1 + 1;"]:
        s.feed(line)
    s.finish()
    assert out.getvalue() == "it = 500 : int\nx = 1 : int\nit = 2 : int\n"
    assert "<stdin>:2:1: error: expression too deep" in err.getvalue()
    assert "Traceback" not in err.getvalue()


def test_sequence_literal_parses_in_linear_time():
    """100,000 elements took 42 s (the element list was copied for each element).

    A complexity check, not a speed one: each size is timed three times with the garbage
    collector off and the fastest run is kept, so that a pause of a loaded CI machine (one
    run of 100,000 took 2.6 s there against 1.1 s alone) does not read as a quadratic parser.
    Linear is 5x the time for 5x the elements; the quadratic parser was 25x."""
    import gc
    from nessie.syntax import parse_text

    def seconds(n: int) -> float:
        src = "[" + ", ".join(str(i % 1000) for i in range(n)) + "];\n"
        best = float("inf")
        for _ in range(3):
            gc.collect()
            gc.disable()
            try:
                start = time.perf_counter()
                parse_text(src, "s.nesl")
                best = min(best, time.perf_counter() - start)
            finally:
                gc.enable()
        return best

    seconds(1000)                             # warm up (tables)
    small, large = seconds(20_000), seconds(100_000)
    assert large < 20
    assert large < 12 * max(small, 0.05)      # linear: 5x the elements, ~5x the time


# ----------------------------------------------------------------------------- run-time recursion
@pytest.mark.parametrize("backend,body,arg", [
    ("interp", "if n == 0 then 0 else 1 + g(n - 1)", "1000000"),
    ("lcu", "if n == 0 then 0 else 1 + g(n - 1)", "1000000"),
    ("interp", "g(n + 1)", "1")])
def test_recursion_too_deep(capsys, tmp_path, backend, body, arg):
    start = time.perf_counter()
    rc, out, err = run(capsys, tmp_path, f"function g(n) = {body};\n1 + 1;\ng({arg});\n3;\n",
                       backend=backend)
    assert rc == 1
    assert out.splitlines()[1:] == ["it = 2 : int"]
    assert err == (f"p.nesl:3:1: error: {RECURSION_TOO_DEEP}\n    g({arg});\n"
                   f"    ^{'~' * (len(arg) + 2)}\n")
    assert time.perf_counter() - start < 60


@pytest.mark.parametrize("backend", BACKENDS)
def test_deep_recursion_within_the_limit_runs(capsys, tmp_path, backend):
    # g(n) makes n + 1 calls: MAX_CALL_DEPTH active at once (NESSIE_MAX_CALL_DEPTH; the exact
    # limit on every backend is tests/robustness/test_call_depth.py's)
    n = MAX_CALL_DEPTH - 1
    rc, out, err = run(capsys, tmp_path,
                       f"function g(n) = if n == 0 then 0 else 1 + g(n - 1);\ng({n});\n",
                       backend=backend)
    assert (rc, err) == (0, "") and out.endswith(f"it = {n} : int\n")


def test_repl_recursion_too_deep_is_located():
    import io

    from nessie.repl import Session
    for backend in ("lcu",):          # (interp: the interpreter's own, as in nessie run)
        out, err = io.StringIO(), io.StringIO()
        s = Session(out, err, backend=backend)
        for line in ["function g(n) = g(n + 1);", "g(1);", "2;"]:
            s.feed(line)
        assert err.getvalue().startswith(f"<stdin>:2:1: error: {RECURSION_TOO_DEEP}"), backend
        assert out.getvalue().endswith("it = 2 : int\n")


# ----------------------------------------------------------------------------- files and options
def test_not_utf8(capsys, tmp_path):
    rc, out, err = run(capsys, tmp_path, None, data=b"x = 1;\ny = \"a\xe9\";\n")
    assert (rc, out) == (1, "")
    # the line, decoded with replacement characters, and a caret under the byte
    assert err == ("p.nesl:2:7: error: not UTF-8 text (byte 0xe9): NESL programs are read as "
                   "UTF-8\n    y = \"a\ufffd\";\n          ^\n")


def test_directory_and_missing_file(capsys, tmp_path):
    (tmp_path / "d.nesl").mkdir()
    assert cli.main(["run", str(tmp_path / "d.nesl")]) == 1
    assert cli.main(["check", str(tmp_path / "none.nesl")]) == 1
    out, err = capsys.readouterr()
    assert err.splitlines() == [f"nessie: error: {tmp_path}/d.nesl is a directory, not a NESL "
                                f"file", f"nessie: error: cannot open {tmp_path}/none.nesl: No such file "
                                f"or directory"]


def test_loads_of_bad_files(capsys, tmp_path):
    (tmp_path / "bad.nesl").write_bytes(b"1 + \xff;\n")
    (tmp_path / "dir.nesl").mkdir()
    rc, out, err = run(capsys, tmp_path, 'load "bad.nesl";\nload "dir";\n')
    assert rc == 1
    assert located(err, 1, 1, 'cannot load "bad.nesl": not UTF-8 text (byte 0xff at offset 4)')
    assert located(err, 2, 1, 'cannot load "dir": is a directory')


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("arg", ["x", "", "1.5", "1 2"])
def test_set_print_length_needs_a_number(capsys, tmp_path, backend, arg):
    rc, out, err = run(capsys, tmp_path, f"1;\nset print_length {arg};\n", backend=backend)
    assert (rc, out) == (1, "")
    assert located(err, 2, 1, "set print_length needs a number, 0 or more")


# ----------------------------------------------------------------------------- out of memory
OOM_PROGRAM = ("function triangle(n) = {[0:i] : i in [0:n]};\n1 + 2;\n"
               "sum({sum(row) : row in triangle(100100)});\n4;\n")
OOM_OUT = "triangle = fn : int -> [[int]]\nit = 3 : int\n"


@pytest.mark.parametrize("backend", ["lcu", "opencl"])
def test_nested_total_beyond_int32_is_out_of_memory(capsys, tmp_path, backend):
    """5 * 10^9 elements in all: the flattened backends' int32 segment descriptors cannot hold
    them; reported like any values that do not fit, at the top-level expression."""
    rc, out, err = run(capsys, tmp_path, OOM_PROGRAM, backend=backend)
    assert (rc, out) == (1, OOM_OUT)
    assert located(err, 3, 1, OUT_OF_MEMORY), err


@pytest.mark.parametrize("backend", BACKENDS)
def test_memory_exhaustion_is_a_located_error(tmp_path, backend):
    """With the address space limited to 3 GiB, the interpreter's tuples (and λcu's vectors)
    run out: a located ``out of memory`` after the preceding results, exit status 1."""
    import resource
    import subprocess
    import sys

    path = tmp_path / "p.nesl"
    path.write_text(OOM_PROGRAM)
    limit = 3 << 30

    def cap():
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    t0 = time.perf_counter()
    p = subprocess.run([sys.executable, "-m", "nessie", "run", "--backend", backend, "p.nesl"],
                       cwd=tmp_path, capture_output=True, text=True, preexec_fn=cap,
                       timeout=120)
    assert "Traceback" not in p.stderr and "internal" not in p.stderr, p.stderr
    assert (p.returncode, p.stdout) == (1, OOM_OUT), p.stderr
    assert located(p.stderr, 3, 1, OUT_OF_MEMORY), p.stderr
    assert time.perf_counter() - t0 < 60


# ----------------------------------------------------------------------------- set options
@pytest.mark.parametrize("backend", BACKENDS)
def test_set_print_length_string_is_a_located_error(capsys, tmp_path, backend):
    rc, out, err = run(capsys, tmp_path, 'set print_length "10";\n[1, 2, 3];\n', backend=backend)
    assert rc == 1 and out == ""
    assert located(err, 1, 1, "set print_length needs a number"), err


# ----------------------------------------------------------------------------- Python API
@pytest.mark.parametrize("backend", ["interp", "lcu", "opencl"])
def test_api_refuses_masked_and_other_array_subclasses(backend):
    import numpy as np

    import nessie
    m = nessie.load("function s(v) = sum(v);", backend=backend)
    with pytest.raises(TypeError, match="masked array is not accepted"):
        m.s(np.ma.masked_array([1, 2, 3], mask=[0, 1, 0]))
    with pytest.raises(TypeError, match="numpy.matrix is not accepted"):
        m.s(np.matrix([[1, 2]]))
    with pytest.raises(TypeError, match="masked array"):       # inside a nested argument
        nessie.load("function rows(v) = {sum(r) : r in v};", backend=backend).rows(
            [np.ma.masked_array([1])])
    assert m.s(np.arange(4)) == 6


@pytest.mark.parametrize("backend", BACKENDS)
def test_api_deep_recursion_is_a_runtime_error(backend):
    import nessie
    from nessie.diagnostics import RuntimeNeslError
    m = nessie.load("function r(n) = if n == 0 then 0 else 1 + r(n - 1);", backend=backend)
    assert m.r(1000) == 1000
    t0 = time.perf_counter()
    with pytest.raises(RuntimeNeslError, match="recursion too deep"):
        m.r(10 ** 7)
    assert time.perf_counter() - t0 < 120
