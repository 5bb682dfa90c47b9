"""Golden OpenCL for the papers' programs, barrier counts as golden numbers, and the
structure of the partial dot product kernel (Figure 7 of the Lift paper).

Regenerate the golden files with ``LIFT_UPDATE_GOLDEN=1 pytest tests/lift/test_codegen.py``
(and review the diff)."""
import os
import re

import pytest

from lift_backend.opencl import compile_program
from .lift_helpers import GOLDEN, load

# (golden name, file, program, sizes, global size, local size, barriers)
CASES = [
    ("partialDot", "dot.lift", "partialDot", None, None, 64, 3),
    ("partialDot_N4096", "dot.lift", "partialDot", {"N": 4096}, 2048, 64, 2),
    ("transposeGather", "transpose.lift", "transposeGather", None, None, None, 0),
    ("transposeScatter", "transpose.lift", "transposeScatter", None, None, None, 0),
    ("transposeIndexFun", "transpose.lift", "transposeIndexFun", None, None, None, 0),
    ("transposeView", "transpose.lift", "transposeView", None, None, None, 0),
    ("asumNvidia", "asum.lift", "asumNvidia", None, None, 128, 3),
    ("asumAmd", "asum.lift", "asumAmd", None, None, 256, 3),
    ("asumIntel", "asum.lift", "asumIntel", None, None, 1, 0),
    ("sumPartials", "asum.lift", "sumPartials", None, 1, 1, 0),
    ("stencil3", "stencil.lift", "stencil3", None, None, None, 0),
    ("stencil3Zero", "stencil.lift", "stencil3Zero", None, None, None, 0),
    ("stencil5Wrap", "stencil.lift", "stencil5Wrap", None, None, None, 0),
    ("mv", "matvec.lift", "mv", None, None, None, 0),
    ("mvWrg", "matvec.lift", "mvWrg", None, None, 32, 3),
    ("trmv", "matvec.lift", "trmv", None, None, None, 0),
    ("trmvPartition", "matvec.lift", "trmvPartition", None, None, None, 0),
    ("segSum", "csr.lift", "segSum", None, None, None, 0),
    ("spmv", "csr.lift", "spmv", None, None, None, 0),
]


def compiled(file, program, sizes, gsz, lsz):
    return compile_program(load(file, program), sizes=sizes, global_size=gsz, local_size=lsz)


@pytest.mark.parametrize("golden,file,program,sizes,gsz,lsz,barriers", CASES, ids=[c[0] for c in CASES])
def test_golden_opencl(golden, file, program, sizes, gsz, lsz, barriers):
    k = compiled(file, program, sizes, gsz, lsz)
    path = GOLDEN / f"{golden}.cl"
    if os.environ.get("LIFT_UPDATE_GOLDEN"):
        path.write_text(k.source)
    assert k.source == path.read_text()
    assert k.barriers == barriers
    assert k.source.count("barrier(") == barriers


def _body(src: str) -> str:
    return src[src.index("kernel void"):]


def test_partial_dot_has_the_structure_of_figure_7():
    k = compiled("dot.lift", "partialDot", None, None, 64)
    src = _body(k.source)
    # local buffers: the first reduction's results (64) and the iterate's second buffer (32)
    assert "local float tmp1[64];" in src and "local float tmp2[32];" in src
    # one loop over the work-groups (their number is unknown), none for the mapLcl of
    # 64 elements on 64 work-items: straight-line code
    assert src.count("for (int wg_id = get_group_id(0); wg_id < N / 128; wg_id += get_num_groups(0))") == 1
    assert "get_local_size" not in src
    assert re.search(r"\{\n\s*int l_id = get_local_id\(0\);\n\s*float acc1 = 0.0f;", src)
    # the loops of the two reduceSeq (2 elements each) and of the iterate
    assert src.count("for (int i = 0; i < 2; i += 1)") == 2
    assert "for (int iter = 0; iter < 6; iter += 1)" in src
    # the mapLcl in the iterate runs at most once per work-item: an if; so does the copy-out
    assert "if (get_local_id(0) < size / 2) {" in src
    assert "if (get_local_id(0) < 1) {" in src
    # double buffering: two pointers swapped after each iteration, the size halved
    assert "local float* src1 = tmp1;" in src and "local float* dst1 = tmp2;" in src
    assert re.search(r"size = size / 2;\s*local float\* swap = src1;\s*src1 = dst1;\s*dst1 = swap;", src)
    # the simplified indices of Figure 7
    assert "multAndSumUp(acc1, x[i + 2 * l_id + 128 * wg_id], y[i + 2 * l_id + 128 * wg_id])" in src
    assert "acc2 = add(acc2, src1[i + 2 * l_id]);" in src
    assert "out[wg_id] = id(src1[0]);" in src
    # the barriers that are needed and no others: after the first mapLcl (the iterate reads
    # other work-items' results), in the iterate, at the end of the work-group iteration (it
    # guards the local buffers the next iteration reuses: a local-memory fence)
    fences = re.findall(r"barrier\((\w+)\)", src)
    assert fences == ["CLK_LOCAL_MEM_FENCE", "CLK_LOCAL_MEM_FENCE", "CLK_LOCAL_MEM_FENCE"]
    loop = src[src.index("for (int iter"):src.index("if (get_local_id(0) < 1)")]
    assert loop.count("barrier(") == 1
    # the user function with a tuple parameter gets its components
    assert "float multAndSumUp(float acc, float xy_0, float xy_1) {" in k.source


def test_last_barrier_goes_when_each_group_runs_once():
    k = compiled("dot.lift", "partialDot", {"N": 4096}, 2048, 64)
    assert "for (int wg_id" not in k.source
    assert k.barriers == 2


def test_transpose_indices_are_the_human_ones():
    assert "out[l_id + N * wg_id] = id(x[wg_id + M * l_id]);" in compiled(
        "transpose.lift", "transposeGather", None, None, None).source
    assert "out[wg_id + N * l_id] = id(x[l_id + M * wg_id]);" in compiled(
        "transpose.lift", "transposeScatter", None, None, None).source


def test_double_uses_fp64_pragma():
    from lift_backend.syntax import parse
    src = """
    userfun addd(a: double, b: double): double { return a + b; }
    program s(x: [double]N) = join o mapGlb(0)(toGlobal(mapSeq(id)) o reduceSeq(addd, 0.0)) o split(4) $ x
    """
    k = compile_program(parse(src).program("s"))
    assert k.source.startswith("#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n")
    assert "double acc1 = 0.0;" in k.source
    assert "#pragma" not in compiled("dot.lift", "partialDot", None, None, 64).source


def test_views_emission():
    k = compiled("csr.lift", "spmv", None, None, None)
    text = k.views_text()
    assert "read  x[lift_check(cols[i + offs[gl_id]], M, 0, lift_err)]" in text
    assert "GatherIdx[Mem(cols)]" in text and "splitOffsets(r -> offs[r])" in text
