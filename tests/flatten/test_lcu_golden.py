"""Golden tests of the flattened λcu of real programs (FileCheck-style: the whole printed form).

Regenerate after an intended change with ``NESSIE_UPDATE_GOLDEN=1 pytest tests/flatten`` and
review the diff."""
import os
import pathlib

import pytest

from lambda_cu import ir
from lambda_cu.check import check_program
from nessie import driver

ROOT = pathlib.Path(__file__).resolve().parents[2]
GOLDEN = pathlib.Path(__file__).parent / "golden"

NORM2 = """
function norm2(xs) : [int] -> ([int], [int]) =
  let sum1 = sum(xs);
      gts = {x : x in xs | x > 0};
      sum2 = sum(gts)
  in ({x / sum1 : x in xs}, {x / sum2 : x in xs});
"""

DOTP = "function dotp(a, b) : ([float], [float]) -> float = sum({x * y : x in a; y in b});\n"

SPARSE = """
function sparse_mxv(mat, vec) : ([[(int, float)]], [float]) -> [float] =
  {sum({v * vec[i] : (i, v) in row}) : row in mat};
"""

CASES = {"norm2": NORM2, "dotp": DOTP, "sparse_mxv": SPARSE}


def flat_of(src, name):
    return driver.flatten(driver.compile_source(src, f"{name}.nesl")).program


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden(name):
    prog = flat_of(CASES[name], name)
    check_program(prog)
    text = str(prog) + "\n"
    path = GOLDEN / f"{name}.lcu"
    if os.environ.get("NESSIE_UPDATE_GOLDEN"):
        path.write_text(text)
    assert path.exists(), f"golden file {path} is missing (NESSIE_UPDATE_GOLDEN=1 writes it)"
    assert text == path.read_text()


def _runs(prog, fname):
    return [b for b in prog.function(fname).body.binds if isinstance(b.rhs, ir.Run)]


def test_norm2_is_the_papers_listing():
    """Section 5 of the λcu paper: a sum kernel, a filter kernel, division kernels; five runs."""
    prog = flat_of(NORM2, "norm2")
    runs = _runs(prog, "norm2")
    assert len(runs) == 5
    kinds = [prog.kernel(b.rhs.kernel).binds[0].soac.NAME for b in runs]
    assert kinds == ["REDUCE", "FILTER", "REDUCE", "MAP", "MAP"]
    assert runs[0].rhs.kernel == runs[2].rhs.kernel      # the sum kernel is shared


def test_dotp_is_map_then_reduce():
    prog = flat_of(DOTP, "dotp")
    kinds = [prog.kernel(b.rhs.kernel).binds[0].soac.NAME for b in _runs(prog, "dotp")]
    assert kinds == ["MAP", "REDUCE"]


def test_sparse_mxv_gathers_and_never_replicates_the_vector():
    prog = flat_of(SPARSE, "sparse_mxv")
    text = str(prog)
    assert "SEG_REDUCE" in text
    # the dense vector is a kernel argument that is only subscripted: no kernel copies it
    fn = prog.function("sparse_mxv")
    vec = fn.params[-1].var.name
    for b in fn.body.binds:
        if isinstance(b.rhs, ir.Run) and ir.Var(vec) in b.rhs.args:
            k = prog.kernel(b.rhs.kernel)
            assert [kb.soac.NAME for kb in k.binds] == ["MAP"]
            assert "[xs" in str(k)        # subscripted through an index vector
