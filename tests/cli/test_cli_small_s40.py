"""Small fixes s40: file names that cannot be read, and REPL commands given arguments.

* ``load "";`` (NESL's top-level ``load``) said ``is a directory`` (the empty name joined to
  the including file's directory names that directory; ``file not found`` from the current
  directory): now ``cannot load "": the file name is empty``, located at the ``load`` as the
  other names that cannot be loaded (missing, a directory, not readable).
* ``nessie run/check/compile/stats/bench`` of a missing file said ``cannot open X`` without
  the reason: now ``cannot open X: No such file or directory`` (``Permission denied``, ...), as
  ``:load`` and ``nessie test`` say it; an empty file name says so.
* ``:quit now`` (``:help foo``) quit (showed the help) silently ignoring the argument: now an
  error naming the command's usage, and the session goes on.
"""
from __future__ import annotations

import errno
import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def nessie(*args, cwd):
    p = subprocess.run([sys.executable, "-m", "nessie", *map(str, args)], capture_output=True,
                       text=True, cwd=cwd, timeout=120)
    assert "Traceback" not in p.stderr, p.stderr
    return p.stdout, p.stderr, p.returncode


def repl(text: str, *args: str, cwd=ROOT):
    p = subprocess.run([sys.executable, "-m", "nessie.repl", "--backend", "interp", *args],
                       input=text, capture_output=True, text=True, cwd=cwd, timeout=120)
    assert "Traceback" not in p.stderr, p.stderr
    return p.stdout, p.stderr, p.returncode


def session():
    from nessie.repl import Session
    out, err = io.StringIO(), io.StringIO()
    return Session(out, err), out, err


# ------------------------------------------------------------------------------------ load ""
@pytest.mark.parametrize("where", [".", "sub"])
def test_load_of_the_empty_name(tmp_path, where):
    (tmp_path / "sub").mkdir()
    prog = tmp_path / where / "p.nesl"
    prog.write_text('1;\nload "";\n2;\n')
    out, err, rc = nessie("run", "--backend", "interp", prog.relative_to(tmp_path), cwd=tmp_path)
    name = os.path.join(where, "p.nesl") if where != "." else "p.nesl"
    assert (out, rc) == ("", 1)
    assert err == (f'{name}:2:1: error: cannot load "": the file name is empty\n'
                   f'    load "";\n'
                   f'    ^~~~~~~\n')


def test_load_of_bad_names_is_located_and_consistent(tmp_path):
    (tmp_path / "adir").mkdir()
    (tmp_path / "p.nesl").write_text('load "";\nload "missing";\nload "adir";\n')
    out, err, rc = nessie("check", "p.nesl", cwd=tmp_path)
    assert (out, rc) == ("", 1)
    lines = [ln for ln in err.splitlines() if ": error: " in ln]
    assert lines == ['p.nesl:1:1: error: cannot load "": the file name is empty',
                     'p.nesl:2:1: error: cannot load "missing": file not found',
                     'p.nesl:3:1: error: cannot load "adir": is a directory']


def test_load_of_the_empty_name_in_the_repl():
    out, err, rc = repl('load "";\n1;\n')
    assert out == "it = 1 : int\n"
    assert err == ('<stdin>:1:1: error: cannot load "": the file name is empty\n'
                   '    load "";\n'
                   '    ^~~~~~~\n')


def test_load_of_an_unreadable_file(tmp_path, monkeypatch):
    # in-process (root reads any file): open fails as for a file without read permission
    import nessie.syntax as syntax
    from nessie.diagnostics import CompileErrors
    (tmp_path / "secret.nesl").write_text("x = 1;\n")

    def refuse(path, *a, **k):
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), path)

    monkeypatch.setattr(syntax, "open", refuse, raising=False)
    with pytest.raises(CompileErrors) as e:
        syntax.parse_text('load "secret";\n', str(tmp_path / "p.nesl"))
    [err] = e.value.errors
    assert err.message == 'cannot load "secret": permission denied'
    assert (err.span.line, err.span.col) == (1, 1)


# ------------------------------------------------------------------ nessie CMD /missing/file
@pytest.mark.parametrize("cmd", [["run"], ["check"], ["compile", "--emit", "ast"], ["stats"],
                                 ["bench", "--no-plot"]])
def test_missing_file_says_why(tmp_path, cmd):
    missing = "/missing/file.nesl"
    out, err, rc = nessie(*cmd, missing, cwd=tmp_path)
    assert rc == 1
    assert err == f"nessie: error: cannot open {missing}: No such file or directory\n"


@pytest.mark.parametrize("cmd", [["run"], ["check"], ["compile", "--emit", "ast"], ["stats"]])
def test_empty_file_name(tmp_path, cmd):
    out, err, rc = nessie(*cmd, "", cwd=tmp_path)
    assert (out, rc) == ("", 1)
    assert err == ("nessie: error: the file name is empty (give a NESL file, or - for standard "
                   "input)\n")


def test_directory_still_said_so(tmp_path):
    out, err, rc = nessie("run", tmp_path, cwd=tmp_path)
    assert (out, err, rc) == ("", f"nessie: error: {tmp_path} is a directory, not a NESL file\n", 1)


def test_unreadable_file_says_why(tmp_path, monkeypatch, capsys):
    import nessie.sources as sources
    from nessie import cli
    prog = tmp_path / "p.nesl"
    prog.write_text("1;\n")

    def refuse(path, *a, **k):
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), path)

    monkeypatch.setattr(sources, "open", refuse, raising=False)
    assert cli.main(["check", str(prog)]) == 1
    assert capsys.readouterr().err == f"nessie: error: cannot open {prog}: Permission denied\n"


def test_several_files_one_missing(tmp_path):
    (tmp_path / "a.nesl").write_text("1;\n")
    out, err, rc = nessie("run", "--backend", "interp", "a.nesl", "nope.nesl", cwd=tmp_path)
    assert rc == 1
    assert out == "==> a.nesl <==\nit = 1 : int\n\n==> nope.nesl <==\n"
    assert err == "nessie: error: cannot open nope.nesl: No such file or directory\n"


# ------------------------------------------------------------------------ REPL :quit now
@pytest.mark.parametrize("line, col, name, usage", [
    (":quit now", 7, ":quit", ":quit"),
    (":q  x", 5, ":q", ":quit"),
    ("  :exit 1", 9, ":exit", ":quit"),
    (":help me", 7, ":help", ":help"),
    (":? load", 4, ":?", ":help"),
])
def test_command_with_unexpected_arguments(line, col, name, usage):
    s, out, err = session()
    s.feed(line)
    assert not s.quit
    assert out.getvalue() == ""
    assert err.getvalue() == (f"<stdin>:1:{col}: error: {name} takes no arguments "
                              f"(usage: {usage})\n")
    s.feed("1;")
    assert out.getvalue() == "it = 1 : int\n"


def test_quit_now_does_not_end_the_session():
    out, err, rc = repl("1;\n:quit now\n2;\n:quit\n3;\n")
    assert (out, rc) == ("it = 1 : int\nit = 2 : int\n", 0)
    assert err == "<stdin>:2:7: error: :quit takes no arguments (usage: :quit)\n"


def test_commands_without_arguments_still_work():
    out, err, rc = repl(":help\n:QUIT\n1;\n")
    assert (err, rc) == ("", 0)
    assert ":load FILE" in out and "it = 1" not in out


def test_nessie_test_of_an_empty_file_name(tmp_path):
    out, err, rc = nessie("test", "", cwd=tmp_path)
    assert rc == 1
    assert "the file name is empty (give a NESL file, or - for standard input)" in out + err
    assert "No such file" not in out + err
