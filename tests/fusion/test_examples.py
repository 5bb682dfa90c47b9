"""Differential test: every program of nesl_examples/ prints the same thing on the λcu
interpreter fused and unfused, the fused program type-checks, and fusion removes launches."""
import io
import pathlib

import pytest

from lambda_cu.check import check_program

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "nesl_examples").glob("*.nesl"))


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_example_fused_equals_unfused(path):
    from nessie import driver
    c = driver.compile_file(str(path))
    flat = driver.flatten(c)
    fused, report = driver.fuse(flat)
    check_program(fused.program)
    outs = []
    for f in (flat, fused):
        out = io.StringIO()
        try:
            driver.run_lcu(c, f, out)
        except Exception as exc:  # a runtime error must be the same error
            out.write(f"error: {exc}")
        outs.append(out.getvalue())
    assert outs[0] == outs[1]
    before = sum(f.unfused_runs for f in report.functions)
    after = sum(f.fused_runs for f in report.functions)
    assert after < before
    for f in report.functions:
        for r in f.regions:
            from lambda_cu.fusion.ilp import check_schedule
            assert check_schedule(r.pdg.graph, r.schedule.clusters) == []
