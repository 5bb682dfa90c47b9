"""README.md's Lift example (issue 12), run as written: the .lift program of "The Lift backend
on its own" and its shell commands through `python -m lift_backend`, checking the printed
result; and every CLI flag the README names exists."""
from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _section() -> str:
    text = (ROOT / "README.md").read_text()
    start = text.index("### The Lift backend on its own")
    return text[start:text.index("\n### ", start + 1)]


def _block(section: str, lang: str) -> str:
    m = re.search(rf"```{lang}\n(.*?)```", section, re.S)
    assert m, f"no ```{lang} block in the README's Lift section"
    return m.group(1)


def test_readme_names_the_flags():
    section = _section()
    for flag in ("--global", "--size", "--arg", "--out", "--local", "--program"):
        assert f"`{flag}" in section, flag
    assert "compile --emit typed|views|opencl|lift" in section
    from lift_backend.cli import _build_parser
    run = _build_parser()._subparsers._group_actions[0].choices["run"]
    flags = {s for a in run._actions for s in a.option_strings}
    assert {"--global", "--size", "--arg", "--out", "--local", "--program", "--device"} <= flags


@pytest.mark.opencl
def test_readme_lift_example_runs(tmp_path):
    section = _section()
    program = _block(section, "lift")
    name = re.match(r"// (\w+\.lift):", program).group(1)
    (tmp_path / name).write_text(program)
    commands = _block(section, "sh").strip().splitlines()
    assert any("python -m lift_backend run" in c for c in commands)
    checked = 0
    for line in commands:
        cmd, _, expected = line.partition("    # ")
        argv = shlex.split(cmd)
        assert argv[0] == "python"
        p = subprocess.run([sys.executable, *argv[1:]], capture_output=True, text=True,
                           cwd=tmp_path, timeout=300)
        assert p.returncode == 0, (line, p.stderr)
        if expected:
            assert p.stdout.strip() == expected.strip(), line
            checked += 1
        if "--emit opencl" in cmd:
            assert "kernel" in p.stdout and "square" in p.stdout
    assert checked == 1
