"""FILTERs and PARTITIONs whose phases the Lift compiler writes (lift_backend/lower/lift_filter.py):
the count phase is the REDUCE chunk program counting the kept elements of each chunk

    join o mapGlb(0)(toGlobal(mapSeq(id)) o reduceSeq(\\acc t -> acc + uf(t...), 0L))
      o partition(P, \\c -> (c + 1) * N / P - c * N / P) $ zip(inputs)

and the write phase compacts each chunk with ``filterSeq`` to its row of the output,

    join o mapGlb(0)(\\r -> toGlobal(filterSeq(p, keep))(r._0, r._1))
      $ zip(partition(P, ...) $ zip(inputs), splitOffsets(offs, generate(K)))

(a PARTITION's rejected elements a second such program, the predicate negated).  Which filters
qualify, that the printed programs are Lift, that they are what runs, and that results and
errors equal the numpy runner's and the reference interpreter's."""

import numpy as np
import pytest

from lambda_cu.ir import Filter, Index, Partition, Program, Proj, Tuple
from lambda_cu.types import BOOL, CHAR, FLOAT, INT, TupleT
from lift_backend import compile_program, parse
from lift_backend.lower.runner import OpenCLRunner, lower_kernel

from .ocl_helpers import QSORT_NESL, cpu_plan_runner, interp_output, nesl_outputs, BIG, ODD_SIZES, L, VecT, check, const, kernel, length, prim, th, var

pytestmark = pytest.mark.opencl

i, x = var("i"), var("x")


def filters():
    """One kernel of independent FILTERs and PARTITIONs (their counts read in one
    synchronisation): floats above a scalar, indices of set flags (the predicate reads a
    vector at the thunk's value), chars that are not blanks, pairs kept whole, a partition by
    a scalar pivot and one of indices."""
    xs, fl, cs, ps = var("xs"), var("fl"), var("cs"), var("ps")
    above = Filter(th(("i", INT), Index(xs, i)), th(("x", FLOAT), prim("gt", x, var("k"))), length("xs"))
    flags = Filter(th(("i", INT), i), th(("x", INT), Index(fl, x, L("f:2:3"))), length("fl"))
    words = Filter(th(("i", INT), Index(cs, i)), th(("x", CHAR), prim("ne", x, const(" ", CHAR))), length("cs"))
    p = var("p")
    pairs = Filter(th(("i", INT), Tuple((Index(xs, i), Index(ps, i)))),
                   th(("p", TupleT((FLOAT, INT))), prim("lt", Proj(p, 1), const(0))), length("xs"))
    piv = Partition(th(("i", INT), Index(ps, i)), th(("x", INT), prim("lt", x, var("m"))), length("ps"))
    idx = Partition(th(("i", INT), i), th(("x", INT), Index(fl, x, L("f:6:3"))), length("fl"))
    binds = [("a", above), ("b", flags), ("c", words), (("d0", "d1"), pairs), (("e0", "e1"), piv),
             (("g0", "g1"), idx)]
    rs = ["a", "b", "c", "d0", "d1", "e0", "e1", "g0", "g1"]
    return Program((kernel("K", [("xs", VecT(FLOAT)), ("fl", VecT(BOOL)), ("cs", VecT(CHAR)),
                                 ("ps", VecT(INT)), ("k", FLOAT), ("m", INT)], binds, rs),))


def lowered(prog, strategy="cpu"):
    return [ls for k in prog.kernels for ls in lower_kernel(k, strategy=strategy)]


def test_filters_are_lift_programs():
    prog = filters()
    ls = lowered(prog)
    assert len(ls) == 6
    for x_ in ls:
        assert {"lift_count", "lift_write"} <= set(x_.info), x_.soac
        assert ("lift_reject" in x_.info) == isinstance(x_.soac, Partition)
        for key in ("lift_count", "lift_write", "lift_reject"):
            lm = x_.info.get(key)
            if lm is None:
                continue
            text = lm.text()
            assert "partition(P, " in text
            assert ("filterSeq(" in text) == (key != "lift_count"), text
            if key != "lift_count":
                assert "splitOffsets(offs, generate(K))" in text and "offs: [int](P + 1)" in text
            # the printed program is Lift: parsed back, it compiles (with Lift's own error
            # protocol where it has checked accesses: the site codes are the runner's)
            launch = dict(global_size=lm.kernel.launch.global_size, local_size=lm.kernel.launch.local_size)
            if "arrayAccess(" in text:
                compile_program(parse(text).program(lm.name), **launch)
            else:
                again = compile_program(parse(text).program(lm.name), error_base=True, soa_output=True, **launch)
                assert again.source == lm.kernel.source
            # one work-item per chunk on a CPU
            assert "for (int gl_id" not in lm.kernel.source
    # the predicate's read of the flags at the thunk's value is a zipped input (no check)
    flags = ls[1].info
    assert "arrayAccess(" not in flags["lift_count"].text()
    assert "arrayAccess(" not in flags["lift_write"].text()


def test_filters_whose_write_phase_is_the_template():
    xs = var("xs")
    # a predicate with a checked primitive (rem by a variable; by a nonzero constant it cannot
    # fail): the count is a Lift program (failIf in its fold reports the site), the write phase
    # the template
    rem = Filter(th(("i", INT), Index(xs, i)),
                 th(("x", INT), prim("eq", prim("rem", x, var("m"), loc=L("r:1:1")), const(0))), length("xs"))
    # a computed value: the count is a Lift program, the write phase the template
    twice = Filter(th(("i", INT), prim("mul", Index(xs, i), const(2))), th(("x", INT), prim("gt", x, const(0))),
                   length("xs"))
    prog = Program((kernel("K", [("xs", VecT(INT)), ("m", INT)], [("a", rem), ("b", twice)], ["a", "b"]),))
    a, b = lowered(prog)
    assert "lift_count" in a.info and "lift_write" not in a.info
    assert "failIf(" in a.info["lift_count"].text()
    assert "lift_count" in b.info and "lift_write" not in b.info
    rng = np.random.default_rng(2)
    for n in (0, 1, 4097):
        check(prog, [OpenCLRunner()], rng.integers(-5, 5, n).astype(np.int32), np.int32(2), expect_error=False)
        if n:
            got = check(prog, [OpenCLRunner()], rng.integers(-5, 5, n).astype(np.int32), np.int32(0),
                        expect_error=True)
            assert got[0] == L("r:1:1")


def _inputs(rng, n, keep="some"):
    xs = rng.standard_normal(n)
    fl = rng.random(n) < 0.4
    cs = rng.choice(np.frombuffer(b"ab  c\xe9 ", np.uint8), n)
    ps = rng.integers(-9, 9, n).astype(np.int32)
    if keep == "all":
        fl[:] = True
        cs[cs == 32] = 97
        ps = -np.abs(ps) - 1
        return xs, fl, cs, ps, np.float64(-np.inf), np.int32(100)
    if keep == "none":
        fl[:] = False
        cs[:] = 32
        ps = np.abs(ps)
        return xs, fl, cs, ps, np.float64(np.inf), np.int32(-100)
    return xs, fl, cs, ps, np.float64(0.25), np.int32(0)


NAMES = ["a", "b", "c", "d0", "d1", "e0", "e1", "g0", "g1"]


@pytest.mark.parametrize("n", ODD_SIZES + (BIG,))
def test_lift_filters_equal_numpy(runners, n):
    rng = np.random.default_rng(n)
    check(filters(), runners if n < BIG else runners[:1], *_inputs(rng, n), expect_error=False, names=NAMES)


@pytest.mark.parametrize("keep", ["all", "none"])
@pytest.mark.parametrize("n", (1, 2049, 6149))
def test_all_or_none_kept(runners, n, keep):
    rng = np.random.default_rng(n)
    check(filters(), runners, *_inputs(rng, n, keep), expect_error=False, names=NAMES)


def test_many_chunks_scan_their_counts_on_the_device(runners):
    """More chunks than the runner scans on the host: the Lift count phase, the device's scan of
    the counts and the template write phase (the Lift write needs the offsets on the host)."""
    many = OpenCLRunner(runners[0].device, strategy="cpu")
    many.max_chunks, many.min_chunk = 1 << 12, 16
    rng = np.random.default_rng(9)
    n = 40000
    assert many.chunks(n) > many.host_scan
    check(filters(), [many], *_inputs(rng, n), expect_error=False, names=NAMES)


def test_a_failing_predicate_reports_its_site(runners):
    """The flags shorter than the filter (the predicate's subscript out of bounds): the template
    phases run (the inputs do not fit the Lift kernels) and report the subscript's site, as the
    numpy runner does."""
    xs, fl = var("xs"), var("fl")
    flags = Filter(th(("i", INT), i), th(("x", INT), Index(fl, x, L("f:9:4"))), length("xs"))
    prog = Program((kernel("K", [("xs", VecT(FLOAT)), ("fl", VecT(BOOL))], [("b", flags)], ["b"]),))
    check(prog, runners, np.zeros(5000), np.ones(4000, bool), expect_error=True)


def test_the_lift_kernels_are_what_run():
    """The runner launches the Lift count and write phases (and a PARTITION's reject phase), not
    the template ``count``/``write`` phases: this fails if the runner's choice is reverted."""
    r = cpu_plan_runner()
    rng = np.random.default_rng(5)
    check(filters(), [r], *_inputs(rng, 10000), expect_error=False, names=NAMES)
    r.finish_stats()
    names = set(r.stats.by_kernel)
    for j in range(6):
        assert f"v_K_{j}_lift" in names and f"v_K_{j}_liftwrite" in names, names
        assert f"v_K_{j}_count" not in names and f"v_K_{j}_write" not in names, names
    assert {"v_K_4_liftreject", "v_K_5_liftreject"} <= names


# ------------------------------------------------------------------------------------------------
# NESL programs: the reference interpreter, the numpy λcu runner and OpenCL print the same


NESL = QSORT_NESL + r"""
function lcg(n, seed) = {mod(i * 1103515245 + seed, 1000000) : i in [0:n]};
xs = lcg(N, 12345);
s = qsort(xs);
take(s, min(8, #s));
all({s[i] <= s[i + 1] : i in [0:max(#s, 1) - 1]});
{x : x in xs | x > 999999};
#{x : x in xs | x >= 0};
#{x : x in xs | mod(x, 7) == 3};
{c : c in "the quick brown fox" | c >= `a};
{(x, i) : x in xs; i in [0:#xs] | i < 3};
{x : x in [] int | x > 0};
qsort([5]);
qsort("nessie");
"""


def _nesl(n: int) -> str:
    return NESL.replace("lcg(N, 12345)", f"lcg({n}, 12345)")


def _outputs(src: str):
    c, lcu, ocl = nesl_outputs(src, "filters.nesl")
    return interp_output(c), lcu, ocl


@pytest.mark.parametrize("n", [0, 1, 7, 5000])
def test_nesl_filters_equal_the_interpreter(n):
    ref, lcu, ocl = _outputs(_nesl(n))
    assert lcu == ref
    assert ocl == ref


def test_nesl_filters_large():
    """More than 2^20 elements: the λcu runner and OpenCL (the interpreter is too slow)."""
    src = _nesl(2 ** 20 + 3).replace("qsort(xs)", "qsort(take(xs, 20000))")
    _, lcu, ocl = nesl_outputs(src, "filters.nesl")
    assert ocl == lcu


def test_the_printed_reject_program_runs_standalone(tmp_path, capsys):
    """``--emit lift`` prints quicksort's PARTITION's rejected-elements program as a ``.lift``
    file that ``python -m lift_backend run`` runs (the chunk offsets and ``K`` given)."""
    import re
    from pathlib import Path
    from lift_backend.cli import main
    from nessie.cli import main as nessie_main
    root = Path(__file__).resolve().parents[2]
    assert nessie_main(["compile", str(root / "nesl_examples" / "quicksort.nesl"), "--emit", "lift"]) in (0, None)
    text = capsys.readouterr().out
    m = re.compile(r"    (\w+_liftreject): compiled by the Lift compiler from\n((?:      (?!where ).*\n)+)").search(text)
    assert m, text
    name, body = m.group(1), "\n".join(line[6:] for line in m.group(2).splitlines()) + "\n"
    assert "filterSeq(" in body and "splitOffsets(offs, generate(K))" in body
    f = tmp_path / "rej.lift"
    f.write_text(body)
    v = np.array([1, 0, 0, 1, 1, 0, 1, 0, 0, 0], bool)
    np.save(tmp_path / "v0.npy", v)
    P, n = 3, len(v)
    b = [c * n // P for c in range(P + 1)]
    rej = [int((~v[s:e]).sum()) for s, e in zip(b, b[1:])]
    np.save(tmp_path / "offs.npy", np.concatenate([[0], np.cumsum(rej)]).astype(np.int32))
    rc = main(["run", str(f), "--program", name, "--arg", f"v0={tmp_path / 'v0.npy'}",
               "--arg", f"offs={tmp_path / 'offs.npy'}", "--size", f"P={P},K={sum(rej)}", "--global", str(P),
               "--out", str(tmp_path / "o.npy")])
    assert rc == 0, capsys.readouterr().err
    np.testing.assert_array_equal(np.load(tmp_path / "o.npy"), np.nonzero(~v)[0])


# ------------------------------------------------------------------------------------------------
# fusion's guarded form of FILTER-MAP: if c then (v[i], ..., true) else (0, ..., false)


def guarded():
    """``FILTER { i => if fl[i] then (xs[i], ps[i], true) else (0.0, 0, false) } { (y, z, keep)
    => keep }`` -- what FILTER-MAP fuses where it cannot show that xs and ps have the filter's
    length (quickhull's filters of points)."""
    from lambda_cu.ir import If
    xs, fl, ps = var("xs"), var("fl"), var("ps")
    body = If(Index(fl, i), Tuple((Index(xs, i), Index(ps, i), const(True))),
              Tuple((const(0.0), const(0), const(False))))
    keep = var("keep")
    f = Filter(th(("i", INT), body),
               th((("y", FLOAT), ("z", INT), ("keep", BOOL)), keep), length("fl"))
    return Program((kernel("K", [("xs", VecT(FLOAT)), ("fl", VecT(BOOL)), ("ps", VecT(INT))],
                           [(("a", "b", "c"), f)], ["a", "b", "c"]),))


def test_the_guarded_form_has_a_lift_write_phase():
    (ls,) = lowered(guarded())
    assert "lift_count" in ls.info and "lift_write" in ls.info
    text = ls.info["lift_write"].text()
    assert "filterSeq(" in text, text


@pytest.mark.parametrize("n", (1, 2, 4097, 10000))
def test_the_guarded_form_equals_numpy(n):
    """Equal lengths: the Lift write phase runs (it reads xs and ps for every element, the
    runner having checked they have the filter's length) and keeps what the guard keeps."""
    rng = np.random.default_rng(n)
    r = cpu_plan_runner()
    check(guarded(), [r, OpenCLRunner()], rng.standard_normal(n), rng.random(n) < 0.4,
          rng.integers(-9, 9, n).astype(np.int32), expect_error=False, names=["a", "b", "c"])
    if n >= 4097:
        r.finish_stats()
        assert "v_K_0_liftwrite" in r.stats.by_kernel and "v_K_0_write" not in r.stats.by_kernel, \
            set(r.stats.by_kernel)


def test_the_guarded_form_with_shorter_vectors_keeps_the_guard():
    """Vectors shorter than the filter (fusion's guard is what kept their reads in range): the
    runner does not launch the Lift write phase, which would read them everywhere; the template
    reads them only where the flag keeps the element, as the numpy runner does."""
    n = 10000
    rng = np.random.default_rng(7)
    fl = np.zeros(n, bool)
    fl[rng.choice(3000, 700, replace=False)] = True       # kept indices all below 3000
    xs, ps = rng.standard_normal(3000), rng.integers(-9, 9, 3000).astype(np.int32)
    r = cpu_plan_runner()
    check(guarded(), [r, OpenCLRunner()], xs, fl, ps, expect_error=False, names=["a", "b", "c"])
    r.finish_stats()
    assert "v_K_0_liftwrite" not in r.stats.by_kernel, set(r.stats.by_kernel)
