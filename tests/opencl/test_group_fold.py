"""A GPU's grouped folds of many chunk results (``fold``/``spread`` of the chunked SEG_REDUCE,
SEG_SCAN and SCAN plans, ``nz_fold_long``/``nz_spread_long`` of the filters' chunk counts and the
descriptor scans): one work-group a group of chunk results, its work-items copying them into
local memory a tile at a time, one combining each tile in order -- the order of one work-item
walking the group, so the results are unchanged bit for bit.  Run with the GPU strategy on the
default device (PoCL in CI), with enough chunks that the groups exist (more than 512 chunks),
tiles that end inside a group, and segments that start and end anywhere among them; results and
errors against the numpy runner, and that the grouped kernels are what ran."""
import os
import subprocess
import sys

import numpy as np
import pytest

from lambda_cu.ir import Index, Program, Scan, SegReduce, SegScan, Tuple
from lambda_cu.types import SD, TupleT
from lambda_cu.values import SegDes
from lift_backend.lower.runner import OpenCLRunner

from .ocl_helpers import FLOAT, INT, INT64, L, VecT, check, const, kernel, op2, prim, th, var

pytestmark = pytest.mark.opencl

i = var("i")


def _gpu_runner():
    r = OpenCLRunner(profile=True, strategy="gpu")
    assert r._groups(r.chunks(300_000)), "the sizes below must make grouped folds"
    return r


def _program():
    ps, xs, sd = var("ps"), var("xs"), var("sd")
    pair_t = TupleT((INT, INT64))
    pair_op = th((("l", pair_t), ("r", pair_t)),
                 Tuple((prim("max", prim_proj("l", 0), prim_proj("r", 0)),
                        prim("add", prim_proj("l", 1), prim_proj("r", 1)))))
    binds = [
        ("a", SegReduce(th(("i", INT), Index(ps, i)), (const(0),), op2("add", INT), sd)),
        (("b", "c"), SegReduce(th(("i", INT), Tuple((Index(ps, i), prim("to_int", Index(ps, i), ty=INT64)))),
                               (const(-7), const(0, INT64)), pair_op, sd)),
        ("d", SegScan(th(("i", INT), Index(ps, i)), (const(3),), op2("add", INT), sd)),
        ("e", SegScan(th(("i", INT), Index(xs, i)), (const(0.5),), op2("add", FLOAT), sd)),
        ("f", Scan(th(("i", INT), Index(ps, i)), (const(1),), op2("max", INT), L_len("ps"))),
        ("g", SegReduce(th(("i", INT), Index(ps, Index(ps, i), L("p:1:1"))), (const(0),), op2("add", INT), sd)),
    ]
    return Program((kernel("K", [("ps", VecT(INT)), ("xs", VecT(FLOAT)), ("sd", SD)], binds,
                           ["a", "b", "c", "d", "e", "f", "g"]),))


def prim_proj(v, j):
    from lambda_cu.ir import Proj
    return Proj(var(v), j)


def L_len(v):
    from .ocl_helpers import length
    return length(v)


def _lengths(rng, n_long):
    """A long segment, short and empty ones, another long one: segments straddle chunks and
    the groups of chunk results."""
    short = rng.integers(0, 5, 40_000)
    return np.concatenate([[n_long], short, [0, 0], [n_long // 3 + 17], short[:999]]).astype(np.int64)


@pytest.mark.parametrize("seed", [0, 1])
def test_grouped_folds_equal_numpy(seed):
    rng = np.random.default_rng(seed)
    lens = _lengths(rng, 200_000 + seed * 12_345)
    n = int(lens.sum())
    ps = rng.integers(0, n, n).astype(np.int32)     # also valid subscripts (g)
    xs = rng.standard_normal(n)
    r = _gpu_runner()
    check(_program(), [r], ps, xs, SegDes(list(lens)), expect_error=False,
          names=["a", "b", "c", "d", "e", "f", "g"], rtol=1e-9)
    r._collect_events()
    ran = set(r.stats.by_kernel)
    assert any(k.endswith("_fold") for k in ran), ran
    assert any(k.endswith("_spread") for k in ran), ran


def test_grouped_folds_report_the_error():
    """A subscript out of bounds in a segment's element: the same error as numpy's."""
    rng = np.random.default_rng(5)
    lens = _lengths(rng, 150_000)
    n = int(lens.sum())
    ps = rng.integers(0, n, n).astype(np.int32)
    ps[n - 3] = n + 4
    check(_program(), [_gpu_runner()], ps, rng.standard_normal(n), SegDes(list(lens)),
          expect_error=True)


SRC = """
function counts(xss) = {#{x in xs | x > 1} : xs in xss};
function offs(xss) = {plus_scan({rem(x, 3) : x in xs}) : xs in xss};
let xss = {{rem(i * 7 + j, 5) : j in [0:rem(i * 13, 7)]} : i in [0:150000]};
    cs = counts(xss);
    os = offs(xss)
in (sum(cs), #cs, sum({sum(o) : o in os}), cs[149999], os[149998]);
"""


def test_grouped_long_scans_in_a_program(tmp_path):
    """A NESL program whose descriptors (150,000 segments) and filters (more than 256 chunks)
    take the grouped scans of longs (``nz_fold_long``/``nz_spread_long``) on the GPU strategy:
    the interpreter's output."""
    f = tmp_path / "p.nesl"
    f.write_text(SRC)
    outs = {}
    for backend, strategy in (("interp", ""), ("opencl", "gpu")):
        env = dict(os.environ, NESSIE_OPENCL_STRATEGY=strategy) if strategy else dict(os.environ)
        p = subprocess.run([sys.executable, "-m", "nessie", "run", "--backend", backend, "--stats",
                            str(f)], capture_output=True, text=True, env=env, timeout=600)
        assert p.returncode == 0, p.stderr
        outs[backend] = p.stdout
    assert outs["opencl"] == outs["interp"]


@pytest.mark.parametrize("lens", [
    [0, 3, 0, 0, 1, 2048 * 3 + 5, 0, 7, 1, 1, 0],          # tiles inside one long segment
    [1] * 5000 + [0] * 300 + [2] * 4000 + [0],              # thousands of segments a tile
    [0] * 17 + [1],                                         # empty segments before the only element
    [5000] + [0] * 3 + list(range(0, 300)) + [0] * 2,
])
def test_tiled_segment_ids_equal_numpy(lens):
    """A MAP reading ``seg_ids(sd)[i]`` at its own index: on the GPU strategy the id vector is
    written by work-groups of tiles (``nz_sd_ids_tiles``); empty segments, long ones, thousands
    in one tile, tiles ending anywhere."""
    from lambda_cu.ir import Map, SegVec
    from .ocl_helpers import length
    sd, ws = var("sd"), var("ws")
    ids = Index(SegVec(sd, "ids"), i)
    m = Map(th(("i", INT), prim("add", prim("mul", ids, const(3)), Index(ws, ids, L("w:1:1")))),
            var("n"))
    prog = Program((kernel("K", [("ws", VecT(INT)), ("sd", SD), ("n", INT)], [("a", m)], ["a"]),))
    r = _gpu_runner()
    n = int(sum(lens))
    check(prog, [r], np.arange(len(lens), dtype=np.int32) * 5 - 3, SegDes(list(lens)), np.int32(n),
          expect_error=False)
    r._collect_events()
    assert "nz_sd_ids_tiles" in r.stats.by_kernel, set(r.stats.by_kernel)
