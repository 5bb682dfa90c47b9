"""PERMUTEs and SCATTERs whose index thunk computes the positions (anything but ``{i => p[i]}``):
the index thunk is its own Lift MAP, ``K_liftpos``, writing the positions into a buffer that the
permute (``permuteIdx``) or the scatter's claim and write (``scatterMaxIdx``,
``scatterLastIdx``) read as their ``ix`` (lift_backend/lower/lift_permute.py,
``computed_positions``).  Which SOACs get it, that the Lift kernels are what runs, and that
results and runtime errors equal the numpy runner's: positions out of range, a permutation
writing a position twice, a failing subscript of the index thunk, and the value thunk's
error, whose site comes first; NESL programs print the same on ``--backend opencl`` and on the
reference interpreter, a failing one after the same output."""
import numpy as np
import pytest

from lambda_cu.errors import MSG_BOUNDS, MSG_DIV0, MSG_PERMUTE, MSG_SCATTER
from lambda_cu.ir import Index, Permute, Program, Scatter, Tuple
from lift_backend.lower.runner import lower_kernel

from .ocl_helpers import BIG, INT, INT64, ODD_SIZES, L, VecT, check, const, cpu_plan_runner, kernel, length, prim, \
    run_nesl, th, var

pytestmark = pytest.mark.opencl

i = var("i")


def programs():
    """Kernel P: PERMUTE of (xs[i], 1000 / xs[i]) to the positions p[i] + q[i]; kernel S:
    SCATTER of xs[i] into d at the positions p[q[i]] (a gather: q's values are checked
    subscripts of p); kernel W: SCATTER at long positions p[i] - 1."""
    xs, p, q = var("xs"), var("p"), var("q")
    f = th(("i", INT), Tuple((Index(xs, i), prim("div", const(1000), Index(xs, i), loc=L("pp:1:5")))))
    pm = Permute(f, th(("i", INT), prim("add", Index(p, i), Index(q, i))), length("xs"), L("pp:1:1"))
    sc = Scatter((var("d"),), th(("i", INT), prim("div", const(1000), Index(xs, i), loc=L("ps:1:5"))),
                 th(("i", INT), Index(p, Index(q, i), L("ps:1:9"))), length("xs"), L("ps:1:1"))
    wl = Scatter((var("e"),), th(("i", INT), Index(xs, i)),
                 th(("i", INT), prim("sub", Index(var("r"), i), const(1, INT64))), length("xs"), L("pw:1:1"))
    ps = [("xs", VecT(INT)), ("p", VecT(INT)), ("q", VecT(INT))]
    return Program((kernel("P", ps, [(["a", "b"], pm)], ["a", "b"]),
                    kernel("S", [("d", VecT(INT))] + ps, [(["c"], sc)], ["c"]),
                    kernel("W", [("e", VecT(INT)), ("xs", VecT(INT)), ("r", VecT(INT64))], [(["g"], wl)], ["g"])))


PROGS = programs()


def lowered(name):
    k = next(k for k in PROGS.kernels if k.name == name)
    return lower_kernel(k, strategy="cpu")[0]


def test_computed_positions_are_a_lift_map():
    for name, keys in (("P", ("lift", "lift_pos")), ("S", ("lift_claim", "lift_scatter", "lift_pos")),
                       ("W", ("lift_claim", "lift_scatter", "lift_pos"))):
        ls = lowered(name)
        assert set(keys) <= set(ls.info), (name, sorted(ls.info))
        pos = ls.info["lift_pos"]
        assert pos.name.endswith("_liftpos")
        assert ("pos",) in (ls.info["lift"] if name == "P" else ls.info["lift_claim"]).args
        assert "mapGlb(0)(toGlobal(" in pos.text()
    # the gather's subscript is checked in the positions' program, with the template's site
    assert "arrayAccess(" in lowered("S").info["lift_pos"].text()
    assert "ix: [long]N" in lowered("W").info["lift_claim"].text()


def _perm(n, seed=0):
    rng = np.random.default_rng(seed)
    xs = rng.integers(1, 100, n).astype(np.int32) * rng.choice([-1, 1], n).astype(np.int32)
    target = rng.permutation(n).astype(np.int32)
    q = rng.integers(-3, 4, n).astype(np.int32)
    return xs, target - q, q


@pytest.mark.parametrize("n", ODD_SIZES + (BIG,))
def test_permute_equals_numpy(runners, n):
    rs = runners if n < BIG else runners[:1]
    check(PROGS, rs, *_perm(n, n), name="P", expect_error=False)


@pytest.mark.parametrize("n,m", [(1, 1), (3, 7), (7, 2), (2049, 100), (6149, 1), (BIG, 1000)])
def test_scatter_equals_numpy(runners, n, m):
    rs = runners if n < BIG else runners[:1]
    rng = np.random.default_rng(n + m)
    xs = rng.integers(1, 100, n).astype(np.int32)
    p = rng.integers(0, m, 50).astype(np.int32)
    q = rng.integers(0, 50, n).astype(np.int32)
    check(PROGS, rs, rng.integers(-5, 5, m).astype(np.int32), xs, p, q, name="S", expect_error=False)
    r = rng.integers(1, m + 1, n).astype(np.int64)
    check(PROGS, rs, np.zeros(m, np.int32), xs, r, name="W", expect_error=False)


def test_lift_kernels_are_what_run():
    r = cpu_plan_runner()
    check(PROGS, [r], *_perm(5000), name="P", expect_error=False)
    rng = np.random.default_rng(1)
    check(PROGS, [r], np.zeros(300, np.int32), rng.integers(1, 9, 5000).astype(np.int32),
          rng.integers(0, 300, 50).astype(np.int32), rng.integers(0, 50, 5000).astype(np.int32),
          name="S", expect_error=False)
    r._collect_events()
    ks = r.stats.by_kernel
    for k in ("P_0_liftpos", "P_0_lift", "S_0_liftpos", "S_0_liftclaim", "S_0_lift"):
        assert any(x.endswith(k) for x in ks), (k, ks)
    assert not any(x.endswith(("_permute", "_claim", "_write")) for x in ks), ks


@pytest.mark.parametrize("delta", [(0, 1), (5, -9), (2048, 1)], ids=str)
def test_permute_errors(runners, delta):
    """A position out of range, and one written twice, report the permutation's message."""
    n = 2049
    xs, p, q = _perm(n, 3)
    k, d = delta
    p = p.copy()
    p[k] += d
    assert check(PROGS, runners, xs, p, q, name="P", expect_error=True) == (L("pp:1:1"), MSG_PERMUTE)


def test_scatter_errors(runners):
    xs = np.array([3, 1, 5, 7], np.int32)
    d = np.zeros(4, np.int32)
    # a position out of range
    assert check(PROGS, runners, d, xs, np.array([0, 9], np.int32), np.array([0, 1, 0, 0], np.int32),
                 name="S", expect_error=True) == (L("ps:1:1"), MSG_SCATTER)
    # the index thunk's own subscript p[q[i]] out of bounds: its site, not the scatter's
    assert check(PROGS, runners, d, xs, np.array([0, 1], np.int32), np.array([0, 1, 2, 0], np.int32),
                 name="S", expect_error=True) == (L("ps:1:9"), MSG_BOUNDS)
    # the value thunk's error comes first, whatever the positions
    for q in ([0, 1, 0, 0], [0, 7, 0, 0]):
        assert check(PROGS, runners, d, np.array([3, 0, 5, 7], np.int32), np.array([0, 9], np.int32),
                     np.array(q, np.int32), name="S", expect_error=True) == (L("ps:1:5"), MSG_DIV0)
    # long positions r[i] - 1
    check(PROGS, runners, d, xs, np.array([1, 2, 4, 4], np.int64), name="W", expect_error=False)
    for r in ([0, 1, 2, 3], [1, 2, 2**40, 1], [1, -2**40, 1, 1], [2**32 + 1, 1, 1, 1]):
        assert check(PROGS, runners, d, xs, np.array(r, np.int64), name="W",
                     expect_error=True) == (L("pw:1:1"), MSG_SCATTER)


# ------------------------------------------------------------------------------------------------
# NESL programs: permute and <- with computed positions

NESL = """function rot(xs, k) = permute(xs, {rem(i + k, #xs) : i in [0:#xs]});
rot([10, 20, 30, 40, 50], 2);
rot("nessie", 1);
{rot(x, 1) : x in [[1, 2, 3], [4], [5, 6]]};
[1, 2, 3, 4] <- {(rem(i, 2), 10 * i) : i in [0:4]};
{x <- {(2 * i, i) : i in [0:3]} : x in [[0, 0, 0, 0, 0, 0], [1, 1, 1, 1, 1, 1, 1]]};
[0, 0, 0, 0, 0, 0, 0, 0] <- {(i * i, i) : i in [0:3]};
"""


@pytest.mark.parametrize("tail", ["", "permute([1, 2, 3], {rem(i, 2) : i in [0:3]});\n",
                                  "[1, 2, 3, 4] <- {(i + 2, 10 * i) : i in [0:4]};\n"],
                         ids=["ok", "permute-twice", "put-out-of-range"])
def test_nesl_same_as_the_interpreter(tmp_path, tail):
    src = NESL + tail + "1 + 1;\n"
    got = run_nesl(tmp_path, src, "opencl")
    ref = run_nesl(tmp_path, src, "interp")
    assert got == ref
    assert (got[0] != 0) == (tail != "")
    assert "Traceback" not in got[2]


def test_positions_reading_segment_ids_run_as_rows():
    """A put under an apply-to-each: the positions read the segment ids of the pairs' descriptor
    (a guarded segment offset), a MAP's rows (lift_map.py) launched for many short segments."""
    from .ocl_helpers import interp_output, nesl_outputs
    src = """r = {x <- [(rem(i, 3), i)] : x in {[0, 0, 0] : i in [0:2000]}; i in [0:2000]};
sum({sum(x) : x in r});
take(r, 4);
"""
    r = cpu_plan_runner()
    c, lcu, ocl = nesl_outputs(src, "rows.nesl", r)
    assert ocl == lcu == interp_output(c)
    r._collect_events()
    ks = r.stats.by_kernel
    assert any(k.endswith("_liftpos") for k in ks) and any(k.endswith("_liftclaim") for k in ks), ks
    assert not any(k.endswith(("_claim", "_write")) for k in ks), ks
