"""SEG_PERMUTEs whose index thunk computes the local positions (anything but ``{i => p[i]}``):
the index thunk is its own Lift MAP, ``K_liftpos`` (lift_permute.computed_positions, a MAP over
the descriptor's elements; the rows of the descriptor where it reads the walked segment ids),
writing the positions into a buffer that the SEG_PERMUTE's rows program (``permuteIdx`` per
segment, ``splitOffsets(offs, ix)``) reads as its ``ix``.  Which SEG_PERMUTEs get it, that the
Lift kernels are what runs (and where the templates still run), and that results and runtime
errors equal the reference's: a position outside its segment, a position written twice, a
failing subscript of the index thunk, and the value thunk's error, whose site comes first.
NESL programs (``{permute(v, {#v - 1 - x : x in v}) : v in vs}`` fuses to such a SEG_PERMUTE)
print the same on ``--backend opencl`` as on the reference interpreter, fused and unfused, a
failing one after the same output with the same located message."""
import io
import re
import subprocess
import sys

import numpy as np
import pytest

from lambda_cu.errors import MSG_BOUNDS, MSG_DIV0, MSG_PERMUTE
from lambda_cu.ir import Index, Program, SegPermute, Tuple
from lambda_cu.values import SegDes
from lift_backend.lower.runner import lower_kernel

from .ocl_helpers import (BIG, INT, ROOT, SD, L, VecT, check, const, cpu_plan_runner, interp_output, kernel,
                          nesl_outputs, prim, run_nesl, seg, th, var)

pytestmark = pytest.mark.opencl

i = var("i")


def programs():
    """Kernel V: each segment reversed, ``lens[id] - 1 - (i - offs[id])`` (``id`` the walked
    segment id ``seg_ids(sd)[i]``), of the tuple (xs[i], 2 * i); kernel G: the local positions
    ``p[q[i]]`` (a checked subscript of p) of (xs[i], 1000 / xs[i]) (a checked division); kernel
    T: each segment rotated, ``rem(p[i] + 1, lens[id])`` (a checked primitive in the positions)."""
    xs, p, q = var("xs"), var("p"), var("q")
    sid = seg("sd", "ids", i)
    rev = prim("sub", prim("sub", seg("sd", "lengths", sid), const(1)), prim("sub", i, seg("sd", "offsets", sid)))
    v = SegPermute(th(("i", INT), Tuple((Index(xs, i), prim("mul", i, const(2))))), th(("i", INT), rev),
                   var("sd"), L("sv:1:1"))
    g = SegPermute(th(("i", INT), Tuple((Index(xs, i), prim("div", const(1000), Index(xs, i), loc=L("sg:1:5"))))),
                   th(("i", INT), Index(p, Index(q, i), L("sg:1:9"))), var("sd"), L("sg:1:1"))
    rot = prim("rem", prim("add", Index(p, i), const(1)), seg("sd", "lengths", sid), loc=L("st:1:9"))
    t = SegPermute(th(("i", INT), Index(xs, i)), th(("i", INT), rot), var("sd"), L("st:1:1"))
    ps = [("xs", VecT(INT)), ("p", VecT(INT)), ("q", VecT(INT)), ("sd", SD)]
    return Program((kernel("V", ps, [(["a", "b"], v)], ["a", "b"]),
                    kernel("G", ps, [(["c", "d"], g)], ["c", "d"]),
                    kernel("T", ps, [(["e"], t)], ["e"])))


PROGS = programs()


def lowered(name, strategy="cpu"):
    k = next(k for k in PROGS.kernels if k.name == name)
    (ls,) = lower_kernel(k, strategy=strategy)
    return ls


def test_computed_local_positions_are_lift_programs():
    for name in ("V", "G", "T"):
        for strategy in ("cpu", "gpu"):
            ls = lowered(name, strategy)
            assert {"lift", "lift_pos"} <= set(ls.info), (name, sorted(ls.info))
            lm, pos = ls.info["lift"], ls.info["lift_pos"]
            assert pos.name.endswith("_liftpos") and lm.name.endswith("_lift")
            # the SEG_PERMUTE's rows read the positions' buffer
            text = lm.text()
            assert "permuteIdx(r._1, toGlobal(mapSeq(" in text and "splitOffsets(offs, ix)" in text, text
            assert ("pos",) in lm.args and ("marks",) in lm.args and ("offs",) in lm.args
            assert "lift_marks + offs[gl_id] - offs[0]" in lm.kernel.source
    # positions reading the walked segment ids are the descriptor's rows (the id: the row's index)
    for name in ("V", "T"):
        pos = lowered(name).info["lift_pos"]
        assert pos.rows == "sd" and "splitOffsets(offs, " in pos.text() and "generate(M - 1)" in pos.text()
    assert "failIf(" in lowered("T").info["lift_pos"].text()      # rem's check, with its site
    # the others are a plain MAP; the gather's subscript is checked there, with the template's site
    pos = lowered("G").info["lift_pos"]
    assert pos.rows is None and "mapGlb(0)(toGlobal(" in pos.text() and "arrayAccess(" in pos.text()


# ------------------------------------------------------------------------------------------------
# results: the same as the numpy runner's

#: no segment, empty segments, one element, lengths around a CPU work-group (256) and a chunk
#: (2048), many short segments
SHAPES = [[], [0], [0, 0, 0], [1], [3], [0, 2], [2, 0], [0, 1, 0, 0, 3, 0], [1] * 7, [5, 0, 0, 0, 4],
          [255, 257, 0, 513, 1], [2049, 0, 0, 2048, 3, 0], [1, 2, 0, 3] * 300]


def _local_perm(lengths, seed):
    rng = np.random.default_rng(seed)
    return np.concatenate([rng.permutation(m) for m in lengths] + [np.zeros(0)]).astype(np.int32)


def _args(lengths, seed=0, identity=False):
    """(xs, p, q, sd): xs nonzero; p a local permutation of each segment (``identity``: each
    segment's 0, 1, ...) read through the global permutation q (``p[q[i]]``, G's positions); T
    reads it at ``i``: :func:`_args_of`."""
    n = sum(lengths)
    rng = np.random.default_rng(seed + n)
    xs = (rng.integers(1, 100, n) * rng.choice([-1, 1], n)).astype(np.int32)
    local = np.concatenate([np.arange(m) for m in lengths] + [np.zeros(0)]).astype(np.int32) if identity \
        else _local_perm(lengths, seed)
    q = rng.permutation(n).astype(np.int32)
    p = np.zeros(n, np.int32)
    p[q] = local
    return xs, p, q, SegDes(lengths)


def _args_of(name, lengths, seed=0):
    """The arguments of kernel ``name``: T's ``p`` is the local permutation itself."""
    xs, p, q, sd = _args(lengths, seed)
    return (xs, p[q], q, sd) if name == "T" else (xs, p, q, sd)


@pytest.mark.parametrize("lengths", SHAPES, ids=lambda s: str(s)[:40])
def test_equal_numpy(runners, lengths):
    for name in ("V", "G", "T"):
        check(PROGS, runners, *_args_of(name, lengths), name=name, expect_error=False)


def test_one_segment_of_2_20_plus_1():
    """One segment of 2^20 + 1 elements: no rows plan (one work-item would walk it all), the
    template's per-element plan runs, with the same results."""
    r = cpu_plan_runner()
    for name in ("V", "G"):
        check(PROGS, [r], *_args_of(name, [BIG]), name=name, expect_error=False)
    r._collect_events()
    assert any(k.endswith("_permute") for k in r.stats.by_kernel), r.stats.by_kernel


@pytest.mark.parametrize("strategy", ["cpu", "gpu"])
def test_lift_kernels_are_what_run(strategy):
    """Many short segments: the positions' MAP (the descriptor's rows for V, T) then the
    SEG_PERMUTE's rows, no template (a GPU's rows want 4,096 segments or more)."""
    from lift_backend.lower.runner import OpenCLRunner
    lengths = [1, 2, 0, 3, 1] * (400 if strategy == "cpu" else 1000)
    for name in ("V", "G", "T"):
        r = cpu_plan_runner() if strategy == "cpu" else OpenCLRunner(profile=True, strategy="gpu")
        check(PROGS, [r], *_args_of(name, lengths, 1), name=name, expect_error=False)
        r._collect_events()
        ks = r.stats.by_kernel
        assert any(k.endswith(f"{name}_0_liftpos") for k in ks) and any(k.endswith(f"{name}_0_lift") for k in ks), ks
        assert not any(k.endswith("_permute") for k in ks), ks


def test_longer_segments_keep_the_template_where_positions_read_the_ids():
    """Segments of 40 elements, 20,000 in all: the SEG_PERMUTE's rows would run (``_rows``) but
    positions reading the walked segment ids run as rows only for short segments
    (``_map_rows``): V keeps the template; G's positions are a plain MAP, its pair runs."""
    lengths = [40] * 500
    for name, lifted in (("V", False), ("G", True)):
        r = cpu_plan_runner()
        check(PROGS, [r], *_args_of(name, lengths, 2), name=name, expect_error=False)
        r._collect_events()
        ks = r.stats.by_kernel
        assert any(k.endswith(f"{name}_0_liftpos") for k in ks) == lifted, ks
        assert any(k.endswith("_permute") for k in ks) != lifted, ks


# ------------------------------------------------------------------------------------------------
# errors: the template's located messages

@pytest.mark.parametrize("lengths, k, value", [
    ([3], 0, 3), ([3], 2, -1), ([2, 2], 2, 1), ([2, 2], 0, 1), ([0, 4, 0], 3, 0), ([1, 1, 1], 1, 1),
    ([2049, 3], 2050, 7), ([2, 1, 0, 3] * 300, 5, 0), ([2, 1, 0, 3] * 300, 1197, 3)], ids=lambda s: str(s)[:30])
def test_position_outside_its_segment_or_twice(runners, lengths, k, value):
    """A local position out of its segment (a position of the next segment is not one of this
    one's), or twice in a segment: the SEG_PERMUTE's message, at its location."""
    xs, p, q, sd = _args(lengths, 3, identity=True)
    p = p.copy()
    p[q[k]] = value
    assert check(PROGS, runners, xs, p, q, sd, name="G", expect_error=True) == (L("sg:1:1"), MSG_PERMUTE)


def test_errors_come_from_the_lift_kernels():
    """The Lift pair reports them (many short segments: no template launched)."""
    lengths = [2, 1, 0, 3] * 300
    xs, p, q, sd = _args(lengths, 5, identity=True)
    r = cpu_plan_runner()
    p2 = p.copy()
    p2[q[5]] = 0                                  # twice
    assert check(PROGS, [r], xs, p2, q, sd, name="G", expect_error=True) == (L("sg:1:1"), MSG_PERMUTE)
    q2 = q.copy()
    q2[7] = len(xs)                               # the index thunk's subscript
    assert check(PROGS, [r], xs, p, q2, sd, name="G", expect_error=True) == (L("sg:1:9"), MSG_BOUNDS)
    r._collect_events()
    ks = r.stats.by_kernel
    assert any(k.endswith("G_0_liftpos") for k in ks) and not any(k.endswith("_permute") for k in ks), ks


@pytest.mark.parametrize("lengths", [[3], [0, 4, 0], [2, 1, 0, 3] * 300], ids=lambda s: str(s)[:30])
def test_index_thunk_error(runners, lengths):
    """The index thunk's own subscript p[q[i]] out of bounds: its site, not the permutation's
    (whatever the positions of the other elements); the value thunk's error comes first."""
    xs, p, q, sd = _args(lengths, 4)
    n = len(xs)
    for bad in ([n], [-1], [n + 5, 0]):
        q2 = q.copy()
        q2[n - 1] = bad[0]
        if len(bad) > 1:
            q2[0] = q2[-1]            # and a duplicate position
        assert check(PROGS, runners, xs, p, q2, sd, name="G", expect_error=True) == (L("sg:1:9"), MSG_BOUNDS)
        xs2 = xs.copy()
        xs2[n // 2] = 0
        assert check(PROGS, runners, xs2, p, q2, sd, name="G", expect_error=True) == (L("sg:1:5"), MSG_DIV0)


# ------------------------------------------------------------------------------------------------
# NESL programs

NESL = """function rev(vs) = {permute(v, {#v - 1 - x : x in v}) : v in vs};
function rot(vs) = {permute(v, {if x + 1 == #v then 0 else x + 1 : x in v}) : v in vs};
vs = [[2, 0, 1], [] int, [0], [4, 3, 2, 1, 0], [1, 0]];
rev(vs);
rot(vs);
rev([] [int]);
rev([[] int, [] int]);
rev([[0]]);
short = {index(rem(i, 4)) : i in [0:3000]};
sum({sum({x * (i + 1) : x in x; i in index(#x)}) : x in rev(short)});
take(rot(short), 9);
rot(take(short, 9));
odd = [index(255), index(257), [] int, index(513), index(1), index(2049)];
{sum({x * (i + 1) : x in x; i in index(#x)}) : x in rev(odd)};
{sum({x * (i + 1) : x in x; i in index(#x)}) : x in rot(odd)};
{take(x, min(5, #x)) : x in rot(odd)};
"""

BIG_NESL = """r = {permute(v, {#v - 1 - x : x in v}) : v in [index(1048577)]};
{#x : x in r};
{take(x, 3) : x in r};
{x[1048576] : x in r};
{sum({x * (i + 1) : x in x; i in index(#x)}) : x in r};
"""


def _emit(tmp_path, src, *flags):
    f = tmp_path / "s.nesl"
    f.write_text(src)
    r = subprocess.run([sys.executable, "-m", "nessie", "compile", *flags, str(f)],
                       capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert r.returncode == 0, r.stderr
    return r.stdout


def _seg_permute_blocks(lift_text):
    """The ``--emit lift`` block of each SEG_PERMUTE (its kernels' names and programs)."""
    blocks = lift_text.split("= SEG_PERMUTE")[1:]
    return [b.split("\n  let ")[0].split("\nkernel ")[0] for b in blocks]


def test_nesl_seg_permutes_with_computed_positions_are_lift_programs(tmp_path):
    fused = _emit(tmp_path, NESL, "--emit", "lcu-fused")
    # the positions are fused into the SEG_PERMUTE's index thunk (rev's read the segment ids)
    segp = [ln for ln in fused.splitlines() if "= SEG_PERMUTE" in ln]
    computed = [ln for ln in segp if not re.search(r"\{ i => (\w+)\[i\] using \1 \} \(", ln)]
    assert len(computed) == 2 and any("seg_ids(" in ln for ln in computed), segp
    blocks = _seg_permute_blocks(_emit(tmp_path, NESL, "--emit", "lift"))
    with_pos = [b for b in blocks if "_liftpos: compiled by the Lift compiler" in b]
    assert len(with_pos) == 2, blocks
    for b in blocks:
        assert "_lift: compiled by the Lift compiler" in b and "permuteIdx(r._1, " in b, b
    for b in with_pos:
        assert "splitOffsets(offs, ix)" in b, b
    # unfused: the positions are a MAP of their own, the SEG_PERMUTE reads them (p[i]): Lift too
    blocks = _seg_permute_blocks(_emit(tmp_path, NESL, "--emit", "lift", "--no-fuse"))
    assert blocks and all("_lift: compiled by the Lift compiler" in b and "permuteIdx(r._1, " in b
                          for b in blocks), blocks


def _unfused_output(c, runner):
    from nessie import driver
    buf = io.StringIO()
    driver.run_lcu(c, driver.flatten(c), buf, runner=runner)
    return buf.getvalue()


def test_nesl_same_as_the_interpreter():
    r = cpu_plan_runner()
    c, lcu, ocl = nesl_outputs(NESL, "segperm.nesl", r)
    ref = interp_output(c)
    assert ocl == lcu == ref
    r._collect_events()
    ks = r.stats.by_kernel
    assert any(k.endswith("_liftpos") for k in ks), ks
    assert not any(k.endswith("_permute") for k in ks), ks
    assert _unfused_output(c, cpu_plan_runner()) == ref


def test_nesl_one_segment_of_2_20_plus_1():
    c, lcu, ocl = nesl_outputs(BIG_NESL, "big.nesl", cpu_plan_runner())
    ref = interp_output(c)
    assert ocl == lcu == ref
    assert "[[1048576, 1048575, 1048574]]" in ocl
    assert _unfused_output(c, cpu_plan_runner()) == ref


@pytest.mark.parametrize("src", [
    # a position outside its segment (#v for x = 0)
    "vs = [[2, 0, 1], [] int, [0], [4, 3, 2, 1, 0]];\n{permute(v, {#v - x : x in v}) : v in vs};\n",
    # a position written twice
    "vs = [[2, 0, 1], [] int, [0, 0]];\nrev = {permute(v, {#v - 1 - x : x in v}) : v in vs};\n",
    # the same in many short segments (the Lift pair runs)
    "vs = {if i == 2500 then [1, 1, 0] else index(rem(i, 4)) : i in [0:3000]};\n"
    "{permute(v, {#v - 1 - x : x in v}) : v in vs};\n",
    # a subscript out of bounds in the positions (a MAP of its own after fusion: a kernel that
    # can fail does not move after the lengths check, so it is not fused into the SEG_PERMUTE;
    # such a SEG_PERMUTE's thunk failing is test_index_thunk_error's)
    "ws = [2, 1, 0, 4];\nvs = [[2, 0, 1], [] int, [3, 2], [4]];\n{permute(v, {ws[x] - 1 : x in v}) : v in vs};\n",
], ids=["outside", "twice", "twice-short", "position-subscript"])
def test_nesl_errors_same_as_the_interpreter(tmp_path, src):
    src = "[1, 2];\n" + src + "1 + 1;\n"
    for flags in ((), ("--no-fuse",)):
        got = _run(tmp_path, src, "opencl", *flags)
        ref = _run(tmp_path, src, "interp")
        assert got == ref
        assert got[0] != 0 and "RUNTIME ERROR" in got[2] and "Traceback" not in got[2]


def _run(tmp_path, src, backend, *flags):
    if not flags:
        return run_nesl(tmp_path, src, backend)
    f = tmp_path / "p.nesl"
    f.write_text(src)
    r = subprocess.run([sys.executable, "-m", "nessie", "run", *flags, "--backend", backend, str(f)],
                       capture_output=True, text=True, cwd=ROOT, timeout=600)
    return r.returncode, r.stdout, r.stderr
