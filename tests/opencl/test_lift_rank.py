"""RANKs and SEG_RANKs that the Lift compiler writes (lift_backend/lower/lift_rank.py): the
``keys`` phase, where the thunk qualifies as a MAP's, is the Lift program

    mapGlb(0)(toGlobal(\\t -> uf_key(uf(t._0, ...), t._j))) $ zip(..., generate(N))

(the order key and the element's index, two buffers).  Which RANKs become Lift programs, that the
printed programs parse and compile, that they are what runs, and that results (int, int64,
float with -0.0, NaN and inf, char; descending; segmented; duplicates in their stable order;
empty vectors and segments; 2^20 + 1 elements) and runtime errors of the thunk (its sites) equal
the numpy runner's; NESL programs using ``rank`` print the same on ``--backend opencl`` and
``--backend lcu``."""
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from lambda_cu.errors import MSG_BOUNDS, MSG_DIV0
from lambda_cu.ir import Index, Program, Rank, SegRank
from lambda_cu.values import SegDes
from lift_backend import compile_program, parse
from lift_backend.lower import print_lift
from lift_backend.lower.runner import OpenCLRunner, lower_kernel

from .ocl_helpers import (cpu_plan_runner, BIG, CHAR, FLOAT, INT, INT64, ODD_SIZES, SD, L, VecT, check, const, kernel, length,
                          prim, pull, th, var)

pytestmark = pytest.mark.opencl

ROOT = Path(__file__).resolve().parents[2]
i = var("i")
TYPES = {"int": (INT, np.int32), "int64": (INT64, np.int64), "float": (FLOAT, np.float64), "char": (CHAR, np.uint8)}


def ranks(t):
    """R: rank of xs; D: descending; SR, SD: segmented (ascending, descending); Q: the rank of
    ``100 / xs[p[i]]`` (a checked subscript and a checked division in the thunk)."""
    ps = [("xs", VecT(t)), ("sd", SD)]
    f = pull("xs")
    ks = [kernel("R", ps, [("r", Rank(f, length("xs")))], ["r"]),
          kernel("D", ps, [("r", Rank(f, length("xs"), descending=True))], ["r"]),
          kernel("SR", ps, [("r", SegRank(f, var("sd")))], ["r"]),
          kernel("SD", ps, [("r", SegRank(f, var("sd"), descending=True))], ["r"])]
    if t == INT:
        q = th(("i", INT), prim("div", const(100), Index(var("xs"), Index(var("p"), i), L("q:1:9")), loc=L("q:1:5")))
        ks.append(kernel("Q", [("xs", VecT(INT)), ("p", VecT(INT))], [("r", Rank(q, length("p")))], ["r"]))
    return Program(tuple(ks))


PROGS = {name: ranks(t) for name, (t, _) in TYPES.items()}


def lowered(prog, strategy="cpu"):
    return [ls for k in prog.kernels for ls in lower_kernel(k, strategy=strategy)]


@pytest.mark.parametrize("tname", sorted(TYPES))
def test_ranks_are_lift_programs(tname):
    prog = PROGS[tname]
    for ls in lowered(prog):
        lk = ls.info["lift_keys"]
        assert lk.name.endswith("_liftkeys")
        assert "mapGlb(0)(toGlobal(" in lk.text() and "generate(N)" in lk.text()
        launch = dict(global_size=lk.kernel.launch.global_size, local_size=lk.kernel.launch.local_size)
        # the printed program is Lift: parsed back, it compiles
        compile_program(parse(lk.text()).program(lk.name), soa_output=True, **launch)
        assert lk.name in print_lift(prog)
        assert [kp.kind for kp in lk.kernel.params].count("output") == 2


RADIX = ("hist", "starts", "pos", "perm")
SEGRADIX = ("seghist", "segpos", "segperm", "segout")


def test_radix_programs():
    for tname in TYPES:
        for ls in lowered(PROGS[tname]):
            seg = isinstance(ls.soac, SegRank)
            names = RADIX + (SEGRADIX if seg else ("out",))
            assert {k for k in ls.info if k.startswith("lift_")} == {"lift_keys"} | {f"lift_{x}" for x in names}
            for x in names:
                lm = ls.info[f"lift_{x}"]
                assert lm.name.endswith(f"_lift{x}")
                launch = dict(global_size=lm.kernel.launch.global_size, local_size=lm.kernel.launch.local_size)
                compile_program(parse(lm.text()).program(lm.name), soa_output=True, **launch)
            assert "radixHistSeq(8, \\k -> " in ls.info["lift_hist"].text()
            assert "radixRankSeq(8, \\k -> " in ls.info["lift_pos"].text()
            assert "scanSeq(" in ls.info["lift_starts"].text()
            assert "transpose(split(P)(s))" in ls.info["lift_pos"].text()
            assert "scatterIdx(pos, " in ls.info["lift_perm"].text()
            kt = "[long]N" if tname in ("int64", "float") else "[uint]N"
            assert f"k: {kt}" in ls.info["lift_hist"].text()
            if seg:
                assert "gatherIdx(ix, ids)" in ls.info["lift_seghist"].text()
                assert "gatherIdx(gatherIdx(ix, ids), so)" in ls.info["lift_segout"].text()


def test_lift_kernels_are_what_run():
    r = cpu_plan_runner()
    xs = np.array([3.0, -0.0, 0.0, np.nan, -1.0, 2.0] * 500)
    for k in ("R", "D", "SR", "SD"):
        check(PROGS["float"], [r], xs, SegDes([500] * 6), name=k, expect_error=False)
    r._collect_events()
    ks = r.stats.by_kernel
    for k in ("R", "D", "SR", "SD"):
        names = ("keys",) + RADIX + (SEGRADIX if k in ("SR", "SD") else ("out",))
        for x in names:
            assert any(y.endswith(f"_{k}_0_lift{x}") for y in ks), (x, ks)
    assert not any(x.endswith("_keys") or x.startswith("nz_radix") or x.startswith("nz_exscan")
                   or x.endswith("rank_out") for x in ks), ks


def test_an_int64_index_type_writes_longs():
    prog = Program((kernel("R", [("xs", VecT(INT))], [("r", Rank(pull("xs", INT64), length("xs", INT64)))], ["r"]),))
    (ls,) = lowered(prog)
    assert "(long)p" in ls.info["lift_out"].kernel.source
    r = cpu_plan_runner()
    got = check(prog, [r], np.array([5, -1, 5, 2] * 1000, np.int32), name="R", expect_error=False)
    assert np.asarray(got).dtype == np.int64
    r._collect_events()
    assert not any(x.startswith("nz_cast") for x in r.stats.by_kernel)


def _keys(tname, n, seed):
    rng = np.random.default_rng(seed)
    if tname == "float":
        xs = rng.choice([-0.0, 0.0, np.nan, np.inf, -np.inf, 1.5, -2.25, 1e300, -1e-300, 3.0], n)
    elif tname == "char":
        xs = rng.integers(0, 256, n)
    elif tname == "int64":
        xs = rng.choice([-2**63, 2**63 - 1, -1, 0, 1, 2**40, -2**40, 7], n)
    else:
        xs = rng.choice([-2**31, 2**31 - 1, -1, 0, 1, 5, 5, 5, -300], n)
    return np.asarray(xs).astype(TYPES[tname][1])


def _lengths(n, seed):
    rng = np.random.default_rng(seed)
    out = []
    while sum(out) < n:
        out.append(int(min(rng.choice([0, 1, 2, 5, 300, 3000]), n - sum(out))))
    return out + [0]


@pytest.mark.parametrize("tname", sorted(TYPES))
@pytest.mark.parametrize("n", ODD_SIZES)
def test_lift_ranks_equal_numpy(runners, tname, n):
    xs = _keys(tname, n, n)
    sd = SegDes(_lengths(n, n))
    for k in ("R", "D", "SR", "SD"):
        check(PROGS[tname], runners, xs, sd, name=k, expect_error=False)


@pytest.mark.parametrize("tname", ["int", "float"])
def test_lift_ranks_big(runners, tname):
    xs = _keys(tname, BIG, 7)
    sd = SegDes(_lengths(BIG, 7))
    for k in ("R", "D", "SR", "SD"):
        check(PROGS[tname], runners[:1], xs, sd, name=k, expect_error=False)


def test_all_equal_keys_keep_their_order(runners):
    for k in ("R", "D", "SR", "SD"):
        got = check(PROGS["int"], runners, np.full(5000, 3, np.int32), SegDes([2000, 0, 3000]), name=k,
                    expect_error=False)
        want = np.arange(5000) if k in ("R", "D") else np.concatenate([np.arange(2000), np.arange(3000)])
        assert np.array_equal(np.asarray(got), want)


def test_thunk_errors_report_the_template_sites(runners):
    xs = np.array([5, 0, 7], np.int32)
    assert check(PROGS["int"], runners, xs, np.array([0, 2, 0] * 1000, np.int32), name="Q",
                 expect_error=False) is not None
    assert check(PROGS["int"], runners, xs, np.array([0, 2, 3, 1] * 1000, np.int32), name="Q",
                 expect_error=True) == (L("q:1:9"), MSG_BOUNDS)
    assert check(PROGS["int"], runners, xs, np.array([0, 1, 2] * 1000, np.int32), name="Q",
                 expect_error=True) == (L("q:1:5"), MSG_DIV0)


# ------------------------------------------------------------------------------------------------
# NESL programs using rank, rank_down and sort (RANK and SEG_RANK after flattening; bool is not
# ordinal in NESL: the checker refuses its ranks)

NESL = """rank([3, 1, 2, 1, 3, 0]);
rank_down([3, 1, 2, 1, 3, 0]);
rank([2.5, -0.0, 0.0, 0.0 / 0.0, -1.0, 0.0, 1.0 / 0.0, -(1.0 / 0.0), -0.0]);
rank_down([2.5, -0.0, 0.0, 0.0 / 0.0, -1.0, 0.0, 1.0 / 0.0, -(1.0 / 0.0), -0.0]);
rank("banana");
rank_down("banana");
rank([] int);
rank([7]);
rank([2147483647, -2147483647, 0, 1, -2147483647 - 1]);
sort([5, -3, 5, 0, -3, 2147483647, -2147483648]);
sort([1.5, -0.0, 0.0, -2.0]);
sort("hello world");
v = [40, 10, 30, 10, 20];
permute(v, rank(v));
{rank(x) : x in [[3, 1, 2], [] int, [5, 5, 5], [9]]};
{rank_down(x) : x in [[3.0, 1.0, 2.0], [] float, [0.0, -0.0, 0.0]]};
{sort(x) : x in ["zyx", "", "banana", "a"]};
{rank(x) : x in [[] int, [] int]};
{{rank(y) : y in x} : x in [[[2, 1], [] int], [[4, 4, 3]]]};
"""

BIG_NESL = """v = {rem(i * 7919, 100003) - 50000 : i in [0:1048577]};
r = rank(v);
(r[0], r[1048576], r[524288], sum({rem(x * (i + 1), 1000003) : x in r; i in [0:#r]}));
d = rank_down({float(x) / 3.0 : x in v});
(d[0], d[1048576], sum({rem(x * (i + 1), 1000003) : x in d; i in [0:#d]}));
s = {rank(x) : x in partition(v, [1048000, 0, 577])};
{(#x, sum(x), sum({rem(y * (i + 1), 1000003) : y in x; i in [0:#x]})) : x in s};
"""


def run_nesl(tmp_path, src, backend, cmd="run", *extra):
    f = tmp_path / "p.nesl"
    f.write_text(src)
    args = [sys.executable, "-m", "nessie", cmd] + (["--backend", backend] if backend else []) + list(extra) + [str(f)]
    r = subprocess.run(args, capture_output=True, text=True, cwd=ROOT, timeout=600)
    return r.returncode, r.stdout, r.stderr


@pytest.mark.parametrize("src", [NESL, BIG_NESL], ids=["small", "big"])
def test_nesl_ranks_same_as_lcu(tmp_path, src):
    want = run_nesl(tmp_path, src, "lcu")
    got = run_nesl(tmp_path, src, "opencl")
    assert want[0] == 0, want
    assert got == want


def test_nesl_ranks_are_lift_programs(tmp_path):
    rc, out, err = run_nesl(tmp_path, NESL, None, "compile", "--emit", "lift")
    assert rc == 0, err
    ranks = out.count("= RANK") + out.count("= SEG_RANK")
    assert ranks > 0
    # every pass is a Lift program (a SEG_RANK's over the segment ids too); the keys phase where
    # the thunk qualifies as a MAP's (not where, fused, it reads segment ids a CPU walks)
    assert out.count("radixHistSeq(8, ") == out.count("radixRankSeq(8, ") == ranks + out.count("= SEG_RANK")
    assert out.count("_liftout(") + out.count("_liftsegout(") == ranks
    assert 0 < out.count("_liftkeys(") <= ranks
