"""Subscripts whose index is computed with a checked primitive (``a[mod(i - 1, n)]``, the NESL
rotate idiom), and path conditions computed with one, in MAPs compiled by the Lift compiler
(lift_backend/lower/lift_map.py): the index's user function returns the index and a flag per
failing site, which ``failIf`` reports before the read; under a branch it computes the index
only where the branch's (lazily evaluated) path condition holds.  Results and located errors
equal the reference interpreter's and the numpy runner's, and the Lift kernel is what ran."""
import pytest

from .ocl_helpers import cpu_plan_runner, outputs_with_errors

pytestmark = pytest.mark.opencl


def _outputs(src: str):
    return outputs_with_errors(src, "ix.nesl")


def _lift_ran(r) -> bool:
    r._collect_events()
    return any(k.endswith("_lift") for k in r.stats.by_kernel)


ROT = "function rot(a, n) = {a[mod(i - 1, n)] : i in [0:#a]};\n"


@pytest.mark.parametrize("call, fails", [
    ("rot([10, 20, 30, 40], 4);", False),
    ("rot([10, 20, 30, 40], 3);", False),
    ("rot([10, 20, 30, 40], -3);", True),                # mod(-1, -3) = -1: out of bounds
    ("rot([10, 20, 30, 40], 0);", True),                 # mod by zero: the division's error
    ("rot([10, 20, 30, 40], 9);", True),                 # index 8: out of bounds
    ("take(rot({i * 3 : i in [0:5000]}, 5000), 3);", False),
])
def test_rotate_by_mod(call, fails):
    interp, lcu, ocl, r = _outputs(ROT + call)
    assert ocl == lcu == interp
    assert ("error:" in interp) == fails
    assert _lift_ran(r)


@pytest.mark.parametrize("n, fails", [(0, False), (3, False), (-2, False), (7, True)])
def test_an_index_under_a_branch_is_computed_only_where_it_is_read(n, fails):
    """``rem(i, n)`` with ``n = 0`` is never computed (the branch is not taken); with ``n = 7``
    the subscript is out of bounds."""
    src = (f"n = {n};\n"
           "{if n == 0 then -1 else [5, 6, 7][rem(i, n)] : i in [0:6]};\n")
    interp, lcu, ocl, r = _outputs(src)
    assert ocl == lcu == interp
    assert ("error:" in interp) == fails
    assert _lift_ran(r)


@pytest.mark.parametrize("n", [0, 1, 2, 3])
def test_nested_branches_evaluate_inner_conditions_only_on_their_path(n):
    """The inner condition ``rem(i, n) == 0`` divides by ``n``: evaluated only where ``n > 0``,
    as its read's index ``rem(i + 1, n)``."""
    src = (f"n = {n};\n"
           "a = [1, 2, 3, 4, 5, 6];\n"
           "{if n > 0 then (if rem(i, n) == 0 then a[rem(i + 1, n)] else 7) else 8 : i in [0:6]};\n")
    interp, lcu, ocl, r = _outputs(src)
    assert ocl == lcu == interp
    assert "error:" not in interp
    assert _lift_ran(r)


@pytest.mark.parametrize("n, what", [(0, "division"), (1, "bounds"), (-60, None)])
def test_a_failing_condition_is_reported_before_the_reads_it_guards(n, what):
    """With ``n = 0`` the condition divides by zero (its error, not the out-of-bounds read the
    wrong condition would let through); with ``n = 1`` every element but the first reads
    ``a[i + 100]``; with ``n = -60`` none does."""
    src = (f"n = {n};\n"
           "a = {i : i in [0:50]};\n"
           "{if rem(i, n) == 0 and i > 0 then a[i + 100] else a[i] : i in [0:50]};\n")
    interp, lcu, ocl, r = _outputs(src)
    assert ocl == lcu == interp
    if what is None:
        assert "error:" not in interp
    else:
        assert "error:" in interp
    assert _lift_ran(r)


def test_the_division_fails_before_the_read_of_its_index():
    """``a[rem(i, n) + 10]``: with ``n = 0`` the error is the division's (its site comes first),
    with ``n = 20`` the read's."""
    for n in (0, 20):
        src = f"n = {n};\na = [1, 2, 3];\n{{a[rem(i, n) + 10] : i in [0:3]}};\n"
        interp, lcu, ocl, r = _outputs(src)
        assert ocl == lcu == interp
        assert "error:" in interp
        assert _lift_ran(r)


# ------------------------------------------------------------------------------------------------
# λcu kernels built by hand: indices computed inline (no ``let``, so only the index's own user
# function computes the primitive), under branches of the element's values

def _map(body, params):
    from lambda_cu.ir import Map
    from .ocl_helpers import INT, Length, one, th, var
    return one(Map(th(("i", INT), body), Length(var("ks"), INT)), params)


def _lifted(prog) -> bool:
    from lift_backend.lower import lower_program
    return any("lift" in ls.info for _, soacs in lower_program(prog).kernels for ls in soacs)


_OTHERS: list = []


def _check_lift(prog, ks, xs, expect_error):
    """The kernel on the numpy runner and on the OpenCL runners (the CPU plan's, and the GPU
    strategy's on the same device): the same result or located error, and on the CPU plan the
    Lift kernel is what ran."""
    import numpy as np
    from lift_backend.lower.runner import OpenCLRunner
    from .ocl_helpers import check
    r = cpu_plan_runner()
    if not _OTHERS:
        _OTHERS.append(OpenCLRunner(r.device, strategy="gpu"))
    assert _lifted(prog)
    check(prog, [r] + _OTHERS, np.asarray(ks, np.int32), np.asarray(xs, np.int32),
          expect_error=expect_error)
    r._collect_events()
    assert any(k.endswith("_lift") for k in r.stats.by_kernel), r.stats.by_kernel


KS_ZERO = [3, 0, 2, 5, 1, 4]
KS_POS = [3, 6, 2, 5, 1, 4]
XS = [10, 11, 12, 13, 14, 15]


def test_an_inline_index_reports_its_division():
    """``xs[rem(i, ks[i])]``: a zero divisor is the division's error (the result's function
    computes no division: only the index's reports it)."""
    from .ocl_helpers import INT, Index, L, VecT, prim, var
    i = var("i")
    body = Index(var("xs"), prim("rem", i, Index(var("ks"), i), loc=L("ix:rem")), L("ix:read"))
    prog = _map(body, [("ks", VecT(INT)), ("xs", VecT(INT))])
    _check_lift(prog, KS_ZERO, XS, True)
    _check_lift(prog, KS_POS, XS, False)


def test_a_guarded_index_is_computed_only_where_its_branch_runs():
    """``if ks[i] == 0 then -1 else xs[rem(i, ks[i])]``: no division by the zeros."""
    from lambda_cu.ir import If
    from .ocl_helpers import INT, Index, L, VecT, const, prim, var
    i = var("i")
    k = Index(var("ks"), i)
    body = If(prim("eq", k, const(0)), const(-1),
              Index(var("xs"), prim("rem", i, k, loc=L("g:rem")), L("g:read")))
    prog = _map(body, [("ks", VecT(INT)), ("xs", VecT(INT))])
    _check_lift(prog, KS_ZERO, XS, False)
    _check_lift(prog, [0, 0, 0, 0, 0, 9], XS, False)
    _check_lift(prog, [0, 0, 0, 0, 0, 9], XS[:3], True)  # rem(5, 9) = 5: out of bounds


def test_an_inner_condition_runs_only_on_its_path():
    """``if ks[i] > 0 then (if rem(i, ks[i]) == 0 then xs[rem(i + 1, ks[i])] else 7) else 8``:
    the read's path condition is a conjunction whose right side divides by ``ks[i]``, evaluated
    only where the left holds."""
    from lambda_cu.ir import If
    from .ocl_helpers import INT, Index, L, VecT, const, prim, var
    i = var("i")
    k = Index(var("ks"), i)
    inner = If(prim("eq", prim("rem", i, k, loc=L("n:rem1")), const(0)),
               Index(var("xs"), prim("rem", prim("add", i, const(1)), k, loc=L("n:rem2")), L("n:read")),
               const(7))
    body = If(prim("gt", k, const(0)), inner, const(8))
    prog = _map(body, [("ks", VecT(INT)), ("xs", VecT(INT))])
    _check_lift(prog, KS_ZERO, XS, False)
    _check_lift(prog, KS_POS, XS, False)


def test_a_condition_that_fails_is_reported_not_the_read_it_lets_through():
    """``if rem(i + 1, ks[i]) == 0 then xs[i + 100] else xs[i]``: where ``ks[i]`` is 0 the path
    condition is computed silently (a wrong value, here true: the kernel reads ``xs[i + 100]``,
    out of bounds) and the condition's own division reports first (its site is numbered before
    the branch's read)."""
    from lambda_cu.ir import If
    from .ocl_helpers import INT, Index, L, VecT, const, prim, var
    i = var("i")
    k = Index(var("ks"), i)
    body = If(prim("eq", prim("rem", prim("add", i, const(1)), k, loc=L("c:rem")), const(0)),
              Index(var("xs"), prim("add", i, const(100)), L("c:far")),
              Index(var("xs"), i, L("c:near")))
    prog = _map(body, [("ks", VecT(INT)), ("xs", VecT(INT))])
    from .ocl_helpers import NUMPY, outcome
    import numpy as np
    kind, ref = outcome(prog, NUMPY, ("kernel", "K", np.asarray(KS_ZERO, np.int32), np.asarray(XS, np.int32)))
    assert kind == "error" and ref[0].file == "c:rem", ref
    _check_lift(prog, KS_ZERO, XS, True)
    _check_lift(prog, [7, 7, 7, 7, 7, 7], XS, False)
    _check_lift(prog, [7, 1, 7, 7, 7, 7], XS, True)      # xs[101]: the read's error


@pytest.mark.parametrize("name", ["caesar_cipher", "convex_hull", "jacobi_iteration",
                                  "run_length_encoding", "bfs_levels"])
def test_every_map_of_these_programs_is_a_lift_program(name):
    """NESL programs whose MAPs compute subscripts with ``mod``/``rem`` (rotations, circular
    neighbours), guard them with conditions computed with one, or branch 11 ways over segment
    descriptors (bfs_levels: 45 distinct reads, within ``MAX_ACCESSES``): every MAP is a Lift
    program."""
    from pathlib import Path
    from lambda_cu.ir import Map
    from lift_backend.lower.device_scalars import device_scalars
    from lift_backend.lower.runner import lower_kernel
    from nessie import driver
    path = Path(__file__).resolve().parents[1] / "cmu_style" / f"{name}.nesl"
    flat, _ = driver.fuse(driver.flatten(driver.compile_file(str(path))))
    d = device_scalars(flat.program)
    maps = [(k.name, "lift" in ls.info) for k in flat.program.kernels
            for ls in lower_kernel(k, "cpu", d.params_of(k.name)) if isinstance(ls.soac, Map)]
    assert maps and all(ok for _, ok in maps), [k for k, ok in maps if not ok]
