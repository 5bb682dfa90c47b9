"""Golden tests of the lowering's printed forms (issue 8): for the λcu kernels of dotp, norm2 and
sparse_mxv (fused), the Lift expression of each OpenCL kernel (``--emit lift``) and the
generated OpenCL C (``--emit opencl``).

A missing or different golden file fails the test; regenerate deliberately with
``NESSIE_UPDATE_GOLDEN=1 pytest tests/opencl/test_golden_lowering.py`` and review the diff."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from lambda_cu import ir
from lift_backend.lower import print_lift, print_opencl
from nessie import driver

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = Path(__file__).resolve().parent / "golden"

#: example -> the function instance whose kernels are shown
CASES = {"dotp": "dotp_float_", "norm2": "norm2", "sparse_mxv": "sparse_mxv"}


def function_kernels(example: str, function: str) -> ir.Program:
    c = driver.compile_file(str(ROOT / "nesl_examples" / f"{example}.nesl"))
    prog = driver.fuse(driver.flatten(c))[0].program
    names = [r.kernel for r in ir.kernel_runs(prog.function(function).body)]
    # with the function, whose runs decide which scalars stay on the device (device_scalars.py)
    return ir.Program(tuple(prog.kernel(n) for n in dict.fromkeys(names)),
                      (prog.function(function),), ())


def check_golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if os.environ.get("NESSIE_UPDATE_GOLDEN"):
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"golden file {path} is missing (NESSIE_UPDATE_GOLDEN=1 makes it)"
    assert text == path.read_text(encoding="utf-8"), f"{name} differs from its golden file"


@pytest.mark.parametrize("example", sorted(CASES))
def test_lift_golden(example):
    check_golden(f"{example}.lift.txt", print_lift(function_kernels(example, CASES[example])))


@pytest.mark.parametrize("example", sorted(CASES))
def test_opencl_golden(example):
    check_golden(f"{example}.cl", print_opencl(function_kernels(example, CASES[example])))


def test_shapes():
    """dotp is one REDUCE (two launches), norm2 two fused kernels, sparse_mxv one SEG_REDUCE."""
    dotp = function_kernels("dotp", "dotp_float_")
    assert [b.soac.NAME for k in dotp.kernels for b in k.binds] == ["REDUCE"]
    assert print_lift(dotp).count("_chunks:") == 1 and print_lift(dotp).count("_carry:") == 1
    norm2 = function_kernels("norm2", "norm2")
    assert len(norm2.kernels) == 2
    smvm = function_kernels("sparse_mxv", "sparse_mxv")
    assert [b.soac.NAME for k in smvm.kernels for b in k.binds] == ["SEG_REDUCE"]
