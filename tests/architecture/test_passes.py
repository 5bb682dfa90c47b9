"""The pass registry (issue 13): one list of named passes; ``--emit NAME`` prints the IR after
any of them; docs/architecture.md shows the list as registered."""
from __future__ import annotations

from pathlib import Path

import pytest

from nessie import cli, passes

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "nesl_examples" / "dotp.nesl"


def test_registry_order_and_names():
    assert [p.name for p in passes.PASSES] == ["parse", "typecheck", "mono", "flatten", "fuse",
                                              "lower", "opencl"]
    assert passes.EMITS == ("ast", "typed", "mono", "lcu", "lcu-fused", "lift", "opencl")
    assert set(passes.EMITS) < set(cli.EMITS)


def test_docs_show_the_registered_passes():
    doc = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    assert passes.table() in doc


@pytest.mark.parametrize("name", passes.EMITS)
def test_emit_prints_the_ir_after_each_pass(capsys, name):
    text = EXAMPLE.read_text()
    values = passes.run(text, passes.Options(str(EXAMPLE)), until=name)
    assert list(values) == list(passes.EMITS[:passes.EMITS.index(name) + 1])
    expected = passes.show(name, values[name])
    assert expected.strip()
    assert cli.main(["compile", "--emit", name, str(EXAMPLE)]) == 0
    assert capsys.readouterr().out == expected + "\n"


def test_passes_are_pure():
    """Running the pipeline twice on the same input gives equal printed IRs (no hidden state
    carried from one run to the next)."""
    text = EXAMPLE.read_text()
    a = passes.run(text, passes.Options(str(EXAMPLE)), until="opencl")
    b = passes.run(text, passes.Options(str(EXAMPLE)), until="opencl")
    for name in passes.EMITS:
        assert passes.show(name, a[name]) == passes.show(name, b[name]), name


def test_no_fuse_skips_the_fuse_pass():
    text = EXAMPLE.read_text()
    v = passes.run(text, passes.Options(str(EXAMPLE), fuse=False), until="lift")
    assert "lcu-fused" not in v and "lift" in v


def test_resuming_at_the_requested_ir_runs_nothing_more():
    """``nessie compile --emit lcu`` resumes after flattening with ``until="lcu"``: no later
    pass runs (it used to fuse, lower and print the OpenCL of the program it did not show)."""
    text = EXAMPLE.read_text()
    flat = passes.run(text, passes.Options(str(EXAMPLE)), until="lcu")["lcu"]
    v = passes.run(text, passes.Options(str(EXAMPLE)), until="lcu", start=("lcu", flat))
    assert set(v) == {"lcu"} and v["lcu"] is flat
    v = passes.run(text, passes.Options(str(EXAMPLE)), until="lcu-fused", start=("lcu", flat))
    assert set(v) == {"lcu", "lcu-fused"}
