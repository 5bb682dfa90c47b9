"""Helpers of the OpenCL lowering tests: building λcu kernels by hand and running them on the
numpy runner (the reference) and on the OpenCL runners, comparing results or errors.

Comparison: integers, bools, chars and segment descriptors exactly (dtype included); floats bit
for bit (NaN equals NaN, -0.0 differs from 0.0) unless the caller passes ``rtol`` — only for
floating-point sums and scans, which the OpenCL runner regroups by chunk (see ``FLOAT_SUM_RTOL``):
then each element within ``rtol`` of itself or of the largest magnitude of its vector (a scan's
partial sums cancel: an element near 0 carries the absolute rounding of the sums before it,
which a GPU's 131,072 chunks regroup differently from the sequential order).
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any, Iterable, Optional, Sequence

import numpy as np
from hypothesis import HealthCheck, settings

from lambda_cu import ir
from lambda_cu.check import soac_result_types
from lambda_cu.errors import LcuRuntimeError
from lambda_cu.executor import Executor
from lambda_cu.interp import NumpyRunner
from lambda_cu.ir import Index, Length, SegVec, Thunk, const, param, prim, var
from lambda_cu.loc import Loc
from lambda_cu.types import BOOL, CHAR, FLOAT, INT, INT64, SD, Type, VecT
from lambda_cu.values import SegDes

#: relative tolerance of floating-point sums/scans (the OpenCL runner folds each chunk
#: sequentially, then combines the chunk results: the sequential order regrouped by chunk)
FLOAT_SUM_RTOL = 1e-9

#: few examples, no deadline: every example launches OpenCL kernels on PoCL
FEW = settings(max_examples=12, deadline=None,
               suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])

BIG = 2**20 + 1          # "2^20 + 1 elements"
#: lengths around the chunking of the default runner on a CPU (min chunk 2048): 1 chunk, 2, 3 ...
ODD_SIZES = (0, 1, 2, 3, 7, 2047, 2049, 4097, 6149)


# ------------------------------------------------------------------------------------------------
# building kernels


def L(tag: str) -> Loc:
    """The source location that stands for ``tag`` in these tests (``tag`` as its file name), for
    the ``loc`` of a λcu node that can fail: a runtime error must report that node's ``Loc``."""
    return Loc.point(tag, 1, 1)


def th(params: Sequence[tuple[str, Type]] | tuple[str, Type], body: ir.Exp) -> Thunk:
    """A thunk whose ``using`` list is its free variables."""
    if params and isinstance(params[0], str):
        params = (params,)  # type: ignore[assignment]
    ps = tuple(param(n, t) for n, t in params)  # type: ignore[misc]
    t = Thunk(ps, body, ())
    return Thunk(ps, body, tuple(var(n) for n in sorted(ir.thunk_free_vars(t))))


def pull(vec: str, ity: Type = INT) -> Thunk:
    """``{ i => vec[i] }``."""
    return th(("i", ity), Index(var(vec), var("i")))


def op2(name: str, t: Type) -> Thunk:
    """``{ (x, y) => name(x, y) }``."""
    return th((("x", t), ("y", t)), prim(name, var("x"), var("y")))


def length(vec: str, ity: Type = INT) -> Length:
    return Length(var(vec), ity)


def seg(sd: str, field: str, idx: ir.Exp) -> Index:
    """``seg_<field>(sd)[idx]``."""
    return Index(SegVec(var(sd), field), idx)


def kernel(name: str, params: Sequence[tuple[str, Type]], binds: Sequence[tuple[Any, ir.Soac]],
           returns: Sequence[str]) -> ir.Kernel:
    """A kernel; ``binds`` are ``(var name or names, SOAC)``; result types are inferred."""
    env: dict[str, Type] = {n: t for n, t in params}
    kbinds = []
    for names, soac in binds:
        names = (names,) if isinstance(names, str) else tuple(names)
        for n, t in zip(names, soac_result_types(soac, env)):
            env[n] = t
        kbinds.append(ir.KBind(tuple(var(n) for n in names), soac))
    return ir.Kernel(name, tuple(param(n, t) for n, t in params), tuple(env[r] for r in returns),
                     tuple(kbinds), tuple(var(r) for r in returns))


def one(soac: ir.Soac, params: Sequence[tuple[str, Type]], nres: int = 1, name: str = "K") -> ir.Program:
    """A program of one kernel running one SOAC with ``nres`` results ``r0, r1, ...``."""
    names = [f"r{j}" for j in range(nres)]
    return ir.Program((kernel(name, params, [(names, soac)], names),))


# ------------------------------------------------------------------------------------------------
# running and comparing

_EXECUTORS: dict = {}
#: the reference runner
NUMPY = NumpyRunner()


def executor(prog: ir.Program, runner: Any) -> Executor:
    """One executor per (program, runner), kept for the session (each OpenCL kernel is built
    once; hypothesis examples reuse it)."""
    key = (id(prog), id(runner))
    hit = _EXECUTORS.get(key)
    if hit is None or hit[0] is not prog:
        hit = _EXECUTORS[key] = (prog, Executor(prog, runner))
    return hit[1]


def outcome(prog: ir.Program, runner: Any, call: tuple) -> tuple[str, Any]:
    """``("ok", host value)`` or ``("error", (location, message))`` of ``call`` =
    ``("kernel" | "function", name, *args)`` on ``runner``."""
    what, name, *args = call
    ex = executor(prog, runner)
    try:
        v = ex.run_kernel(name, *args) if what == "kernel" else ex.call(name, *args)
        return "ok", runner.to_host(v)
    except LcuRuntimeError as e:
        return "error", (e.location, e.message)


def assert_same(a: Any, b: Any, rtol: Optional[float] = None, where: str = "result",
                ulps: int = 0) -> None:
    """``b`` (OpenCL) equals ``a`` (numpy): see the module docstring.  ``ulps``: finite floats may
    differ by that many units in the last place (non-finite values and zeros still exactly)."""
    if isinstance(a, tuple):
        assert isinstance(b, tuple) and len(a) == len(b), f"{where}: {b!r} is not like {a!r}"
        for j, (x, y) in enumerate(zip(a, b)):
            assert_same(x, y, rtol, f"{where}[{j}]", ulps)
        return
    if isinstance(a, SegDes):
        assert isinstance(b, SegDes), f"{where}: {b!r} is not a SegDes"
        np.testing.assert_array_equal(b.lengths.astype(np.int64), a.lengths.astype(np.int64),
                                      err_msg=f"{where}: segment lengths")
        return
    if a is None:
        assert b is None, f"{where}: {b!r} is not None"
        return
    x, y = np.asarray(a), np.asarray(b)
    assert x.dtype == y.dtype, f"{where}: dtype {y.dtype}, expected {x.dtype}"
    assert x.shape == y.shape, f"{where}: shape {y.shape}, expected {x.shape}"
    if x.dtype.kind == "f":
        if rtol is not None:
            fin = np.abs(x[np.isfinite(x)]) if x.ndim else np.abs(x[np.isfinite(x)][None])
            atol = rtol * float(fin.max()) if fin.size else 0.0
            np.testing.assert_allclose(y, x, rtol=rtol, atol=atol, equal_nan=True, err_msg=where)
            return
        nx, ny = np.isnan(x), np.isnan(y)
        xi, yi = np.atleast_1d(x).view(np.int64), np.atleast_1d(y).view(np.int64)
        if ulps:
            # same sign and finite: the distance of the bit patterns is the distance in ulps
            near = (np.isfinite(x) & np.isfinite(y) & (np.signbit(x) == np.signbit(y)) & (x != 0)
                    & (np.abs(xi - yi) <= ulps))
        else:
            near = np.zeros(np.shape(xi), dtype=bool)
        bad = (nx != ny) | (~nx & (xi != yi) & ~near)
        if np.any(bad):
            k = np.flatnonzero(np.atleast_1d(bad))[:5]
            xa, ya = np.atleast_1d(x), np.atleast_1d(y)
            raise AssertionError(f"{where}: differs at {k.tolist()}: got {ya[k].tolist()}, "
                                 f"expected {xa[k].tolist()} (n={xa.size})")
        return
    if not np.array_equal(x, y):
        xa, ya = np.atleast_1d(x), np.atleast_1d(y)
        k = np.flatnonzero(xa != ya)[:5]
        raise AssertionError(f"{where}: differs at {k.tolist()}: got {ya[k].tolist()}, "
                             f"expected {xa[k].tolist()} (n={xa.size})")


def check(prog: ir.Program, runners: Iterable[Any], *args: Any, name: str = "K",
          rtol: Optional[float] = None, function: bool = False, expect_error: Optional[bool] = None,
          names: Optional[Sequence[str]] = None, ulps: Optional[dict] = None) -> Any:
    """Run kernel (or function) ``name`` of ``prog`` on the numpy runner and on every OpenCL
    runner; results (or ``(location, message)`` of the runtime error) must agree.  Returns the
    numpy outcome's value (or error pair).  ``expect_error`` asserts which kind of outcome the
    reference had, so that a test cannot silently test nothing; ``names`` label the components
    of a tuple result in failure messages, and ``ulps`` maps some of those names to the ulps
    their finite float values may differ by."""
    call = ("function" if function else "kernel", name) + tuple(args)
    kind, ref = outcome(prog, NUMPY, call)
    if expect_error is not None:
        assert (kind == "error") == expect_error, f"numpy runner gave {kind}: {ref!r}"
    for r in runners:
        k2, got = outcome(prog, r, call)
        tag = f"OpenCL ({r.c.strategy}, max_chunks={r.max_chunks}, min_chunk={r.min_chunk})"
        if kind == "error":
            assert k2 == "error", f"{tag}: no error, numpy raised {ref}"
            assert got == ref, f"{tag}: error {got}, numpy raised {ref}"
        else:
            assert k2 == "ok", f"{tag}: error {got}, numpy gave a result"
            if names is not None:
                assert isinstance(got, tuple) and len(got) == len(ref) == len(names)
                for nm, x, y in zip(names, ref, got):
                    assert_same(x, y, rtol, f"{tag} {nm}", (ulps or {}).get(nm, 0))
            else:
                assert_same(ref, got, rtol, tag)
    return ref


def rows_to_sd(rows: Sequence[Sequence[Any]]) -> tuple[SegDes, list]:
    """(descriptor, flat data) of a list of rows."""
    return SegDes([len(r) for r in rows]), [x for r in rows for x in r]


__all__ = ["th", "pull", "op2", "length", "seg", "kernel", "one", "check", "assert_same", "outcome",
           "executor", "rows_to_sd", "cpu_plan_runner", "run_nesl", "FEW", "BIG", "ODD_SIZES", "FLOAT_SUM_RTOL",
           "INT", "INT64", "FLOAT", "BOOL", "CHAR", "SD", "VecT", "const", "prim", "var", "Index",
           "Length", "SegVec"]


ROOT = Path(__file__).resolve().parents[2]


def cpu_plan_runner(device: Any = None, profile: bool = True) -> Any:
    """An OpenCL runner with the CPU strategy and the chunking a 2-core CPU gets (64 chunks of at
    least 2,048 elements), whatever the device: the tests that check which kernels of a plan
    run (its Lift programs, not its templates) pick their sizes for it, and a GPU's (or a big
    CPU's) own chunk count would pick another plan (``OpenCLRunner._rows``)."""
    from lift_backend.lower.runner import OpenCLRunner
    r = OpenCLRunner(device, profile=profile, strategy="cpu")
    r.max_chunks, r.min_chunk, r.map_items = 64, 2048, 64
    return r


def run_nesl(tmp_path: Path, src: str, backend: str, name: str = "p.nesl") -> tuple[int, str, str]:
    """``nessie run --backend BACKEND`` of the NESL source ``src`` (written to ``tmp_path/name``):
    (exit status, stdout, stderr)."""
    f = tmp_path / name
    f.write_text(src)
    r = subprocess.run([sys.executable, "-m", "nessie", "run", "--backend", backend, str(f)],
                       capture_output=True, text=True, cwd=ROOT, timeout=600)
    return r.returncode, r.stdout, r.stderr


#: the NESL distribution's quicksort (its filters are FILTERs and, under an apply-to-each,
#: SEG_FILTERs): the NESL-program tests of the filters prepend it to their programs
QSORT_NESL = r"""
function qsort(a) =
  if (#a < 2) then a
  else
    let pivot   = a[#a / 2];
        lesser  = {e in a | e < pivot};
        equal   = {e in a | e == pivot};
        greater = {e in a | e > pivot};
        result  = {qsort(v) : v in [lesser, greater]}
    in result[0] ++ equal ++ result[1];
"""


def nesl_outputs(src: str, name: str, runner: Any = None) -> tuple:
    """The NESL source ``src`` compiled and fused: ``(compiled program, what the numpy λcu runner
    prints, what the OpenCL runner prints)`` (``runner``: an OpenCL runner, by default the
    driver's); the reference interpreter's output is :func:`interp_output` of the program."""
    import io
    from nessie import driver

    def run(fn):
        buf = io.StringIO()
        fn(buf)
        return buf.getvalue()
    c = driver.compile_source(src, name)
    fused = driver.fuse(driver.flatten(c))[0]
    lcu = run(lambda o: driver.run_lcu(c, fused, o))
    ocl = run(lambda o: driver.run_lcu(c, fused, o, runner=runner or driver.make_runner("opencl")))
    return c, lcu, ocl


def outputs_with_errors(src: str, name: str = "prog.nesl") -> tuple:
    """(interpreter, numpy runner, OpenCL runner) outputs of the NESL source ``src`` (fused),
    each followed by the located error it stopped with, and the OpenCL runner (a CPU-plan
    runner, :func:`cpu_plan_runner`)."""
    import io
    from nessie import driver
    from nessie.diagnostics import RuntimeNeslError
    c = driver.compile_source(src, name)
    fused = driver.fuse(driver.flatten(c))[0]
    r = cpu_plan_runner()

    def run(fn):
        buf = io.StringIO()
        try:
            fn(buf)
        except RuntimeNeslError as e:
            buf.write(f"error: {e}\n")
        return buf.getvalue()
    interp = run(lambda o: driver.run_interp(c, o))
    lcu = run(lambda o: driver.run_lcu(c, fused, o))
    ocl = run(lambda o: driver.run_lcu(c, fused, o, runner=r))
    return interp, lcu, ocl, r


def interp_output(c: Any) -> str:
    """What the reference interpreter prints for the compiled NESL program ``c``."""
    import io
    from nessie import driver
    buf = io.StringIO()
    driver.run_interp(c, buf)
    return buf.getvalue()
