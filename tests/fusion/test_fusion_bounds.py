"""Fusion's bounds (issue 11): a region of more than ``window`` run sites is fused window by
window, and once the time budget is spent the remaining regions are left unfused; both keep the
program's results, and both are reported (``FusionReport.notes``, fallback reasons,
``nessie run --stats``)."""
from __future__ import annotations

import io
from dataclasses import replace

from lambda_cu import fusion
from lambda_cu.fusion import fuse_program
from lambda_cu.fusion.ilp import check_schedule
from nessie import cli, driver

#: one region of about 120 run sites: a deep sequence literal, then subscripts
DEEP = "[" * 6 + "1" + "]" * 6 + "[0]" * 6 + ";\n" + \
    "function g(v) = {x * 2 + 1 : x in v};\n{sum(g(r)) : r in [[1, 2], [3], [4, 5, 6]]};\n"


def _program(src):
    c = driver.compile_source(src, "b.nesl")
    return c, driver.flatten(c)


def _output(c, flat):
    out = io.StringIO()
    driver.run_lcu(c, flat, out)
    return out.getvalue()


def test_windows_bound_the_ilp_and_keep_results():
    c, flat = _program(DEEP)
    whole = fuse_program(flat.program, window=10_000)
    cut = fuse_program(flat.program, window=8)
    big = max(r.unfused_runs for f in whole.report.functions for r in f.regions)
    assert big > 8                                   # the test needs a region larger than 8
    regions = [r for f in cut.report.functions for r in f.regions]
    assert max(r.unfused_runs for r in regions) <= 8
    assert any("windows of at most 8" in n for n in cut.report.notes), cut.report.notes
    for r in regions:
        assert check_schedule(r.pdg.graph, r.schedule.clusters) == []
    ref = _output(c, flat)
    assert _output(c, replace(flat, program=cut.program)) == ref
    assert _output(c, replace(flat, program=whole.program)) == ref
    # windows still fuse: fewer run sites than unfused
    assert sum(f.fused_runs for f in cut.report.functions) < \
        sum(f.unfused_runs for f in cut.report.functions)


def test_spent_budget_leaves_regions_unfused_and_says_so():
    c, flat = _program(DEEP)
    res = fuse_program(flat.program, budget=1e-9)
    fs = res.report.functions
    assert sum(f.fused_runs for f in fs) == sum(f.unfused_runs for f in fs)
    reasons = [r for f in fs for r in f.fallback_reasons]
    assert reasons and all("budget" in r for r in reasons), reasons
    for f in fs:
        for r in f.regions:
            assert check_schedule(r.pdg.graph, r.schedule.clusters) == []
    assert _output(c, replace(flat, program=res.program)) == _output(c, flat)


def test_stats_report_the_bounds(capsys, tmp_path, monkeypatch):
    path = tmp_path / "b.nesl"
    path.write_text(DEEP)
    monkeypatch.setattr(fusion, "DEFAULT_WINDOW", 8)
    assert cli.main(["run", "--backend", "lcu", "--stats", str(path)]) == 0
    err = capsys.readouterr().err
    assert "nessie: fusion: " in err and "windows of at most 8" in err, err
    monkeypatch.setattr(fusion, "DEFAULT_BUDGET", 1e-9)
    assert cli.main(["run", "--backend", "lcu", "--stats", str(path)]) == 0
    err = capsys.readouterr().err
    assert "fusion time budget of 1e-09 s spent: region left unfused" in err, err
