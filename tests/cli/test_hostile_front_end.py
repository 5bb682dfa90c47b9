"""Hostile inputs to the ``nessie`` command line found by the third campaign (issue 11): every
one is a located error -- ``FILE:LINE:COL: error: MESSAGE``, the source line, a caret line --
with exit status 1, or is accepted, never a traceback."""
from __future__ import annotations

import pytest

from nessie.cli import main


def cli(capsys, *args):
    rc = main([str(a) for a in args])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return rc, out, err


def write(tmp_path, data, name="p.nesl"):
    f = tmp_path / name
    f.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
    return f


INT_ERR = ("integer literal 2147483648 does not fit in a 32-bit NESL int "
           "(-2147483648 .. 2147483647); nessie run --int64 has 64-bit ints")


@pytest.mark.parametrize("cmd", [["check"], ["compile", "--emit", "ast"],
                                 ["compile", "--emit", "typed"], ["compile", "--emit", "mono"],
                                 ["compile", "--emit", "lcu"], ["run", "--backend", "interp"]])
def test_int_literal_beyond_int32_is_refused_by_every_command(capsys, tmp_path, cmd):
    f = write(tmp_path, "x = 2147483648;\n")
    rc, out, err = cli(capsys, *cmd, f)
    assert (rc, out) == (1, "")
    assert err == (f"{f}:1:5: error: {INT_ERR}\n"
                   f"    x = 2147483648;\n"
                   f"        ^~~~~~~~~~\n")


@pytest.mark.parametrize("cmd", [["check"], ["compile", "--emit", "ast"],
                                 ["compile", "--emit", "typed"]])
def test_int_literal_limits_themselves_pass(capsys, tmp_path, cmd):
    f = write(tmp_path, "x = -2147483648;\ny = 2147483647;\n")
    rc, _, err = cli(capsys, *cmd, f)
    assert (rc, err) == (0, "")


def test_check_int64_checks_the_64_bit_limit(capsys, tmp_path):
    ok = write(tmp_path, "x = 2147483648;\ny = -9223372036854775808;\n")
    assert cli(capsys, "check", "--int64", ok) == (0, "", "")
    bad = write(tmp_path, "x = 9223372036854775808;\n", "bad.nesl")
    rc, _, err = cli(capsys, "check", "--int64", bad)
    assert rc == 1
    assert err.startswith(f"{bad}:1:5: error: integer literal 9223372036854775808 does not fit "
                          f"in a ")
    assert err.count("\n") == 3 and "nessie run --int64" not in err


def test_multiline_token_is_quoted_on_one_line(capsys, tmp_path):
    f = write(tmp_path, 'x = 1 "line one\nline two\nline three";\n')
    rc, _, err = cli(capsys, "check", f)
    assert rc == 1
    assert err == (f"{f}:1:7: error: syntax error at '\"line one...'\n"
                   f"    x = 1 \"line one\n"
                   f"          ^\n")


@pytest.mark.parametrize("cmd", [["check"], ["run", "--backend", "interp"],
                                 ["run", "--backend", "lcu"], ["compile", "--emit", "ast"]])
@pytest.mark.parametrize("lit", ["1e400", "1.5e309", "179769313486231580793728971405303415079934"
                                 "1327330390094856052947869474683.0e300"])
def test_float_literal_overflow_is_a_located_error(capsys, tmp_path, cmd, lit):
    f = write(tmp_path, f"x = {lit};\n")
    rc, out, err = cli(capsys, *cmd, f)
    assert (rc, out) == (1, "")
    lines = err.splitlines()
    assert len(lines) == 3, err
    assert lines[0].startswith(f"{f}:1:5: error: float literal ")
    assert "out of range" in lines[0]
    assert lines[1] == f"    x = {lit};"
    assert lines[2].startswith("        ^~~~")


def test_float_literal_underflow_and_the_largest_float_are_accepted(capsys, tmp_path):
    f = write(tmp_path, "x = 1e-400;\ny = 4.9e-324;\nz = 1.7976931348623157e308;\n")
    rc, out, err = cli(capsys, "run", "--backend", "interp", f)
    assert (rc, err) == (0, "")
    assert out.splitlines()[0] == "x = 0.0 : float"


def test_leading_bom_is_skipped_with_columns_right(capsys, tmp_path):
    f = write(tmp_path, b"\xef\xbb\xbfx = 1 + t;\n")
    rc, _, err = cli(capsys, "check", f)
    assert rc == 1
    assert err == (f"{f}:1:9: error: type mismatch: expected int but got bool\n"
                   f"    x = 1 + t;\n"
                   f"            ^\n")
    ok = write(tmp_path, b"\xef\xbb\xbfx = 1 + 2;\n", "ok.nesl")
    assert cli(capsys, "run", "--backend", "interp", ok) == (0, "x = 3 : int\n", "")


def test_loaded_file_with_bom(capsys, tmp_path):
    write(tmp_path, b"\xef\xbb\xbffunction g(x) = x + 1;\n", "lib.nesl")
    f = write(tmp_path, b'\xef\xbb\xbfload "lib";\ng(2);\n')
    rc, out, err = cli(capsys, "run", "--backend", "interp", f)
    assert (rc, err) == (0, "")
    assert out.endswith("it = 3 : int\n")
    write(tmp_path, b"\xef\xbb\xbfy = 1 + t;\n", "lib2.nesl")
    f2 = write(tmp_path, b'load "lib2";\n', "m2.nesl")
    rc, _, err = cli(capsys, "check", f2)
    assert rc == 1
    assert err.endswith("lib2.nesl:1:9: error: type mismatch: expected int but got bool\n"
                        "    y = 1 + t;\n"
                        "            ^\n")


def test_invalid_utf8_quotes_the_line_with_a_caret(capsys, tmp_path):
    f = write(tmp_path, b'y = 1;\nx = "\xe9";\n')
    rc, _, err = cli(capsys, "check", f)
    assert rc == 1
    assert err == (f"{f}:2:6: error: not UTF-8 text (byte 0xe9): NESL programs are read as "
                   f"UTF-8\n"
                   f"    x = \"\ufffd\";\n"
                   f"         ^\n")


def test_invalid_utf8_after_a_bom(capsys, tmp_path):
    f = write(tmp_path, b'\xef\xbb\xbfx = "\xe9";\n')
    rc, _, err = cli(capsys, "check", f)
    assert rc == 1
    assert err.splitlines()[1:] == ["    x = \"\ufffd\";", "         ^"]
    assert err.startswith(f"{f}:1:6: error: not UTF-8 text")


def test_control_characters_are_quoted_as_control_pictures(capsys, tmp_path):
    """A quoted source line never sends a control character to the terminal (an ESC sequence
    would recolour it): each shows as its one-column Unicode control picture, caret aligned."""
    f = write(tmp_path, "1;\x1b[31m;\n")
    rc, out, err = cli(capsys, "run", "--backend", "interp", f)
    assert rc == 1 and out == ""
    assert "\x1b" not in err
    assert err.startswith(f"{f}:1:3: error: illegal character '\\x1b'\n"
                          f"    1;\u241b[31m;\n"
                          f"      ^\n")
    f = write(tmp_path, "x = 1 +\x07\x7f;\n")
    rc, out, err = cli(capsys, "check", f)
    assert rc == 1 and "\x07" not in err and "\x7f" not in err
    assert "    x = 1 +\u2407\u2421;\n" in err


def test_loading_a_file_that_is_not_regular_is_named_so(capsys, tmp_path):
    f = write(tmp_path, 'load "/dev/null"; 3;\n')
    rc, out, err = cli(capsys, "run", "--backend", "interp", f)
    assert (rc, out) == (1, "")
    assert err.startswith(f'{f}:1:1: error: cannot load "/dev/null": not a regular file\n')
