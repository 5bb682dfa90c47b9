"""Fused kernels are shared like the flattener's kernels (issue 12): a cluster equal to an
earlier one up to the CPU names of its arguments (the same code in two lifted variants of a
function) reuses that fused kernel.  Before, quickhull's λcu kernels went from 52 to 55 with
fusion; now no example has more kernel definitions fused than unfused."""
from __future__ import annotations

from pathlib import Path

import pytest

from lambda_cu import ir
from lambda_cu.fusion import fuse_program

EXAMPLES = Path(__file__).resolve().parents[2] / "nesl_examples"


def _flat(name):
    from nessie import driver
    path = EXAMPLES / f"{name}.nesl"
    return driver.flatten(driver.compile_source(path.read_text(), str(path))).program


def _shape(k: ir.Kernel):
    return (k.params, k.results, k.binds, k.returns)


@pytest.mark.parametrize("name", sorted(p.stem for p in EXAMPLES.glob("*.nesl")))
def test_fusion_does_not_add_kernel_definitions(name):
    prog = _flat(name)       # every example is within the flattener's coverage
    fused = fuse_program(prog).program
    shapes = [_shape(k) for k in fused.kernels if k.name.startswith("KF")]
    assert len(shapes) == len(set(shapes)), "two fused kernels differ only in their name"
    assert len(fused.kernels) <= len(prog.kernels)


def test_quickhull_variants_share_fused_kernels():
    prog = _flat("quickhull")
    res = fuse_program(prog)
    # hsplit is lifted twice (hsplit_float__LLL and hsplit_float__ULL); their common clusters
    # are one kernel each
    lll = {k.name for k in res.report.function("hsplit_float__LLL").fused_kernels}
    ull = {k.name for k in res.report.function("hsplit_float__ULL").fused_kernels}
    assert lll & ull
    assert len(res.program.kernels) < len(prog.kernels)
