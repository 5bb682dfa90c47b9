"""SCATTERs that the Lift compiler writes (lift_backend/lower/lift_scatter.py): a SCATTER whose
index thunk is ``{i => p[i]}`` and whose value thunk qualifies as a MAP's is two Lift programs,

    scatterMaxIdx(M)(ix, mapGlb(0)(toGlobal(\\k -> k)) $ generate(N))          (the claim)
    scatterLastIdx(ix, win, mapGlb(0)(toGlobal(\\t -> uf(t._0, ...))) $ zip(...)) (the write)

the last writer of each position winning.  Which SCATTERs become Lift programs, that the printed
programs parse and compile, that they are what runs, and that results and runtime errors
(out-of-range positions, destinations of different lengths, errors of the value thunk, which
come first) equal the numpy runner's; NESL programs using ``<-`` print the same on
``--backend opencl`` and ``--backend lcu``, a failing one after the same output."""
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from lambda_cu.errors import MSG_BOUNDS, MSG_DIV0, MSG_SCATTER, MSG_SCATTER_LENGTHS
from lambda_cu.ir import Index, Program, Scatter, Tuple
from lift_backend import compile_program, parse
from lift_backend.lower import print_lift
from lift_backend.lower.runner import OpenCLRunner, lower_kernel

from .ocl_helpers import cpu_plan_runner, run_nesl, BIG, FLOAT, INT, INT64, ODD_SIZES, L, VecT, check, const, kernel, length, prim, th, var

pytestmark = pytest.mark.opencl

i = var("i")
ROOT = Path(__file__).resolve().parents[2]


def scatters():
    """Kernel S: a SCATTER of a pair (an int read at the index, a quotient whose divisor is
    checked) into two int destinations at the positions p[i]; kernel F: a float value into a
    float destination."""
    xs, p, ys = var("xs"), var("p"), var("ys")
    f = th(("i", INT), Tuple((Index(xs, i), prim("div", const(1000), Index(xs, i), loc=L("sc:1:5")))))
    g = th(("i", INT), Index(p, i, L("sc:1:9")))
    s = Scatter((var("d0"), var("d1")), f, g, length("xs"), L("sc:1:1"))
    fl = Scatter((var("e"),), th(("i", INT), prim("mul", Index(ys, i), const(0.5))),
                 th(("i", INT), Index(p, i, L("sc:2:9"))), length("p"), L("sc:2:1"))
    ps = [("d0", VecT(INT)), ("d1", VecT(INT)), ("xs", VecT(INT)), ("p", VecT(INT))]
    return Program((kernel("S", ps, [(["a", "b"], s)], ["a", "b"]),
                    kernel("F", [("e", VecT(FLOAT)), ("ys", VecT(FLOAT)), ("p", VecT(INT))], [(["c"], fl)], ["c"])))


SCATTERS = scatters()


def lifted(prog, strategy="cpu"):
    return [ls for k in prog.kernels for ls in lower_kernel(k, strategy=strategy) if "lift_scatter" in ls.info]


def test_scatters_are_lift_programs():
    ls = lifted(SCATTERS)
    assert [x.soac for x in ls] == [k.binds[0].soac for k in SCATTERS.kernels]
    for x in ls:
        claim, write = x.info["lift_claim"], x.info["lift_scatter"]
        assert "lift_pos" not in x.info          # the positions are read: p[i]
        assert "scatterMaxIdx(M)(ix, mapGlb(0)(toGlobal(" in claim.text()
        assert "scatterLastIdx(ix, win, mapGlb(0)(toGlobal(" in write.text()
        for lm in (claim, write):
            launch = dict(global_size=lm.kernel.launch.global_size, local_size=lm.kernel.launch.local_size)
            # the printed programs are Lift: parsed back, they compile
            again = compile_program(parse(lm.text()).program(lm.name), soa_output=True, **launch)
            assert {c.kind for c in again.checks} >= {"scatterMaxIdx" if lm is claim else "scatterLastIdx"}
            assert lm.name in print_lift(SCATTERS)
        assert ("win",) in claim.args and ("win",) in write.args and ("dstlen",) in write.args
        assert "atomic_max(&" in claim.kernel.source
        assert next(p for p in claim.kernel.params if p.kind == "output").fill == -1


def test_not_lift_programs():
    xs, p = var("xs"), var("p")
    f = th(("i", INT), Index(xs, i))
    # a computed position that is not a Lift MAP's (it reads a length as a value): templates
    # (computed positions a MAP can write: tests/opencl/test_lift_positions.py)
    comp = Scatter((var("d"),), f, th(("i", INT), prim("add", Index(p, i), length("p"))), length("xs"), L("n:1:1"))
    prog = Program((kernel("A", [("xs", VecT(INT)), ("p", VecT(INT)), ("d", VecT(INT))], [(["a"], comp)], ["a"]),))
    assert lifted(prog) == []


def test_a_gpu_strides():
    for x in lifted(SCATTERS, strategy="gpu"):
        for key in ("lift_claim", "lift_scatter"):
            assert "for (int gl_id = get_global_id(0); gl_id < N; gl_id += get_global_size(0))" in \
                x.info[key].kernel.source


def _args(n, m, seed=0):
    rng = np.random.default_rng(seed)
    xs = rng.integers(1, 100, n).astype(np.int32) * rng.choice([-1, 1], n).astype(np.int32)
    p = rng.integers(0, max(m, 1), n).astype(np.int32)
    return (rng.integers(-5, 5, m).astype(np.int32), rng.integers(-5, 5, m).astype(np.int32), xs, p)


def test_lift_kernels_are_what_run():
    r = cpu_plan_runner()
    n, m = 5000, 300
    check(SCATTERS, [r], *_args(n, m), name="S", expect_error=False)
    r._collect_events()
    ks = r.stats.by_kernel
    assert any(k.endswith("S_0_liftclaim") for k in ks) and any(k.endswith("S_0_lift") for k in ks), ks
    assert not any(k.endswith("_claim") or k.endswith("_write") for k in ks), ks


@pytest.mark.parametrize("n,m", [(0, 0), (0, 3), (1, 1), (1, 5), (2, 1), (3, 7), (7, 2), (2047, 3000), (2049, 100),
                                 (4097, 4097), (6149, 1), (257, 63), (BIG, 1000), (BIG, BIG + 2)])
def test_lift_scatters_equal_numpy(runners, n, m):
    rs = runners if n < BIG else runners[:1]
    d0, d1, xs, p = _args(n, m, n + m)
    check(SCATTERS, rs, d0, d1, xs, p, name="S", expect_error=False)
    rng = np.random.default_rng(m)
    check(SCATTERS, rs, rng.standard_normal(m), rng.standard_normal(n), p, name="F", expect_error=False)


@pytest.mark.parametrize("p", [[1, 1], [0, 0, 0, 0, 0], [2, 1, 2, 1, 2], [3] * 2049], ids=lambda p: str(p)[:20])
def test_duplicates_last_writer_wins(runners, p):
    n = len(p)
    xs = np.arange(1, n + 1, dtype=np.int32)
    ref = check(SCATTERS, runners, np.zeros(4, np.int32), np.zeros(4, np.int32), xs, np.asarray(p, np.int32),
                name="S", expect_error=False)
    last = max(k for k in range(n) if p[k] == p[-1])
    assert ref[0][p[-1]] == last + 1


@pytest.mark.parametrize("p", [[4], [0, 4], [-1, 0], [0, 1, 2**31 - 1], [3] * 2048 + [-2]], ids=lambda p: str(p)[:20])
def test_out_of_range(runners, p):
    n = len(p)
    xs = np.arange(1, n + 1, dtype=np.int32)
    assert check(SCATTERS, runners, np.zeros(4, np.int32), np.zeros(4, np.int32), xs, np.asarray(p, np.int32),
                 name="S", expect_error=True) == (L("sc:1:1"), MSG_SCATTER)


def test_out_of_range_big(runners):
    d0, d1, xs, p = _args(BIG, 777, 3)
    p[BIG // 2] = 777
    assert check(SCATTERS, runners[:1], d0, d1, xs, p, name="S", expect_error=True) == (L("sc:1:1"), MSG_SCATTER)


def test_value_thunk_error_comes_first(runners):
    xs = np.array([3, 0, 5, 7], np.int32)
    for p in ([0, 1, 2, 3], [0, 0, 9, -1]):
        assert check(SCATTERS, runners, np.zeros(4, np.int32), np.zeros(4, np.int32), xs, np.asarray(p, np.int32),
                     name="S", expect_error=True) == (L("sc:1:5"), MSG_DIV0)


def test_lengths_differ_runs_the_template(runners):
    xs = np.array([3, 1, 5], np.int32)
    for n in (3, 0):
        assert check(SCATTERS, runners, np.zeros(4, np.int32), np.zeros(5, np.int32), xs[:n],
                     np.zeros(n, np.int32), name="S", expect_error=True) == (L("sc:1:1"), MSG_SCATTER_LENGTHS)


def test_shorter_index_runs_the_template(runners):
    for k in (0, 2):
        assert check(SCATTERS, runners, np.zeros(4, np.int32), np.zeros(4, np.int32),
                     np.arange(1, 4, dtype=np.int32), np.arange(k, dtype=np.int32), name="S",
                     expect_error=True) == (L("sc:1:9"), MSG_BOUNDS)


def test_long_positions(runners):
    q = Scatter((var("d"),), th(("i", INT), Index(var("xs"), i)), th(("i", INT), Index(var("p"), i, L("lp:1:9"))),
                length("xs"), L("lp:1:1"))
    prog = Program((kernel("K", [("d", VecT(FLOAT)), ("xs", VecT(FLOAT)), ("p", VecT(INT64))], [(["e"], q)], ["e"]),))
    assert len(lifted(prog)) == 1 and "ix: [long]N" in lifted(prog)[0].info["lift_claim"].text()
    d = np.zeros(3)
    check(prog, runners, d, np.array([1.0, 2.0, 3.0]), np.array([2, 0, 2], np.int64), expect_error=False)
    for p in ([2, 0, 3], [2**40, 0, 1], [2**32 + 1, 0, 2], [-2**40, 0, 1]):
        assert check(prog, runners, d, np.array([1.0, 2.0, 3.0]), np.array(p, np.int64),
                     expect_error=True) == (L("lp:1:1"), MSG_SCATTER)


# ------------------------------------------------------------------------------------------------
# NESL programs using <- (the sequence put, which flattens to SCATTER)

NESL = """[0, 0, 0, 0] <- [(1, 5), (1, 7)];
v = [10, 20, 30, 40, 50];
v <- [(4, 1), (0, 2), (4, 3)];
v <- {(rem(i * 3, 5), i * 100) : i in index(9)};
{(x, float(x)) : x in [1, 2, 3]} <- [(2, (9, 0.5)), (0, (8, 1.5)), (2, (7, 2.5))];
"abc" <- [(1, `z)];
[] int <- [] (int, int);
[1, 2] <- [] (int, int);
{a <- b : a in [[1, 2, 3], [4], []]; b in [[(0, 9), (0, 8)], [(0, 7)], [] (int, int)]};
"""


@pytest.mark.parametrize("tail", ["", "v <- [(0, 1), (5, 2)];\n", "v <- [(-1, 1)];\n",
                                  "function k(v, i) = v <- {(j, 10 / j) : j in i};\nk([1, 2, 3], [1, 0, 7]);\n"],
                         ids=["ok", "out-of-range", "negative", "div0-first"])
def test_nesl_put_same_as_lcu(tmp_path, tail):
    src = NESL + tail
    want = run_nesl(tmp_path, src, "lcu")
    got = run_nesl(tmp_path, src, "opencl")
    assert got == want
    assert want[0] == (0 if not tail else 1), want
    if tail:
        assert want[1].count("\n") >= 9          # the output before the error


def test_nesl_puts_are_lift_programs(tmp_path):
    f = tmp_path / "p.nesl"
    f.write_text("v = [10, 20, 30, 40, 50];\nv <- [(4, 1), (0, 2), (4, 3)];\n"
                 "{(x, float(x)) : x in [1, 2, 3]} <- [(2, (9, 0.5)), (0, (8, 1.5)), (2, (7, 2.5))];\n")
    r = subprocess.run([sys.executable, "-m", "nessie", "compile", "--emit", "lift", str(f)],
                       capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert r.returncode == 0, r.stderr
    assert r.stdout.count("= SCATTER") == r.stdout.count("scatterMaxIdx(M)(ix, ") == \
        r.stdout.count("scatterLastIdx(ix, win, ") == 2
