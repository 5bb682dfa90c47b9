"""The Lift command line after the third hostile-input campaign (issue 11): carets under
lines with tabs, and scalar ``--arg`` values beyond the largest double."""
import numpy as np
import pytest

from lift_backend.cli import main
from lift_backend.errors import LiftError, Span, format_error

SCALE = ("userfun mult(a: float, b: float): float { return a * b; }\n"
         "program scale(x: [float]N, s: float) = mapGlb(0)(\\a -> mult(a, s)) $ x\n")


def cli(capsys, *args):
    rc = main([str(a) for a in args])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return rc, out, err


def test_caret_lines_up_under_tabs(capsys, tmp_path):
    f = tmp_path / "tab.lift"
    f.write_text("userfun square(x: float): float { return x * x; }\n"
                 "program p(x: [float]N) =\n"
                 "\t\tmapGlb(0)(cube) $ x\n")
    rc, _, err = cli(capsys, "compile", f, "--size", "N=4")
    assert rc == 1
    head, line, caret = err.splitlines()
    assert head == f"{f}:3:13: error: unknown name 'cube'"
    assert "\t" not in line
    assert line[caret.index("^"):].startswith("cube")


def test_format_error_expands_tabs_one_column_each():
    err = LiftError("m", Span(1, 4, "f"))
    assert format_error(err, "\t\tx+y\n").splitlines()[1:] == ["  x+y", "   ^"]


@pytest.fixture
def prog(tmp_path):
    f = tmp_path / "p.lift"
    f.write_text(SCALE)
    np.save(tmp_path / "x.npy", np.arange(4, dtype=np.float32))
    return f


def run_s(capsys, prog, value):
    return cli(capsys, "run", prog, "--size", "N=4", "--arg", f"x={prog.parent / 'x.npy'}",
               "--arg", f"s={value}", "--global", "4", "--out", prog.parent / "o.npy")


@pytest.mark.parametrize("value", ["1e300", "1e999", "-1e999", "-2.5e400"])
def test_scalar_beyond_the_type_is_refused(capsys, prog, value):
    rc, _, err = run_s(capsys, prog, value)
    assert rc == 1
    assert err.startswith("error: --arg s: the value ")
    assert err.endswith(" does not fit the type float (it would become infinite)\n")
    assert err.count("\n") == 1


def test_overflow_refused_before_the_program_compiles(capsys, tmp_path):
    # refused by the command line itself: no device needed to say it
    f = tmp_path / "p.lift"
    f.write_text(SCALE)
    rc, _, err = cli(capsys, "run", f, "--arg", "s=1e999", "--out", tmp_path / "o.npy")
    assert (rc, err) == (1, "error: --arg s: the value 1e999 does not fit the type float "
                            "(it would become infinite)\n")
