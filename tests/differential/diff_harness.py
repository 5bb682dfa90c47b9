"""Run one NESL program on the reference interpreter and on flattened λcu (unfused, and fused
when kernel fusion exists) and compare what they print, including runtime errors."""
from __future__ import annotations

import io
import os
import re
import traceback
from dataclasses import dataclass
from typing import Optional

from nessie import driver
from nessie.diagnostics import RuntimeNeslError


@dataclass(frozen=True)
class Outcome:
    """What a backend did with a program: its output, and the runtime error (message and
    ``file:line:col``) or internal crash that ended it, if any."""
    out: str
    error: Optional[str] = None       # RuntimeNeslError message
    where: Optional[str] = None       # its span as file:line:col
    crash: Optional[str] = None       # any other exception (a bug in that backend)

    def describe(self) -> str:
        s = self.out
        if self.error is not None:
            s += f"<error> {self.error} at {self.where}\n"
        if self.crash is not None:
            s += f"<crash> {self.crash}\n"
        return s


def fusion_available() -> bool:
    """Always true: kernel fusion is part of the project, so a failing import of it fails the
    test instead of skipping it."""
    from lambda_cu.fusion import fuse_program  # noqa: F401
    return True


def _run(fn) -> Outcome:
    buf = io.StringIO()
    try:
        fn(buf)
    except RuntimeNeslError as e:
        return Outcome(buf.getvalue(), e.message, str(e.span) if e.span else None)
    except RecursionError as e:
        return Outcome(buf.getvalue(), crash=f"RecursionError: {e}")
    except Exception as e:  # noqa: BLE001 - any other exception is a backend bug
        tb = traceback.extract_tb(e.__traceback__)
        last = tb[-1] if tb else None
        at = f" [{last.filename.split('/')[-1]}:{last.lineno} in {last.name}]" if last else ""
        return Outcome(buf.getvalue(), crash=f"{type(e).__name__}: {e}{at}")
    return Outcome(buf.getvalue())


def run_interp(c) -> Outcome:
    return _run(lambda out: driver.run_interp(c, out))


def run_flat(c, flat) -> Outcome:
    return _run(lambda out: driver.run_lcu(c, flat, out))


def run_opencl(c, flat) -> Outcome:
    """The flattened program lowered to OpenCL and run on the default device (PoCL in CI)."""
    return _run(lambda out: driver.run_lcu(c, flat, out, runner=driver.make_runner("opencl")))


#: Relative tolerance for floating-point numbers printed by the OpenCL backend: its reductions
#: and scans regroup sums by chunk (a parallel tree), so the last digits of a float sum may differ
#: from the sequential order of the reference interpreter.  Everything else must be identical.
FLOAT_REL_TOL = 1e-9
_FLOAT = re.compile(r"(-?\d+\.\d+(?:E-?\d+)?|-?inf|nan)")


def same_text(a: str, b: str, rel: float = FLOAT_REL_TOL) -> bool:
    """``a == b`` except that printed floats may differ by ``rel`` (relative)."""
    if a == b:
        return True
    pa, pb = _FLOAT.split(a), _FLOAT.split(b)
    if len(pa) != len(pb):
        return False
    for k, (x, y) in enumerate(zip(pa, pb)):
        if k % 2 == 0 or x == y:
            if x != y:
                return False
            continue
        try:
            fx, fy = float(x), float(y)
        except ValueError:
            return False
        if not abs(fx - fy) <= rel * max(abs(fx), abs(fy)) + 1e-300:
            return False
    return True


def same_outcome(a: "Outcome", b: "Outcome") -> bool:
    return (a.error, a.where, a.crash) == (b.error, b.where, b.crash) and same_text(a.out, b.out)


@dataclass
class Comparison:
    source: str
    interp: Outcome
    lcu: Optional[Outcome] = None
    fused: Optional[Outcome] = None
    flatten_error: Optional[str] = None
    fused_skipped: Optional[str] = None
    opencl: Optional[Outcome] = None
    opencl_fused: Optional[Outcome] = None

    def mismatches(self) -> list[str]:
        """The backends whose outcome differs from the interpreter's (empty when all agree)."""
        bad = []
        if self.flatten_error is not None:
            bad.append("flatten")
        for name, o in (("lcu", self.lcu), ("fused", self.fused)):
            if o is not None and o != self.interp:
                bad.append(name)
        for name, o in (("opencl", self.opencl), ("opencl-fused", self.opencl_fused)):
            if o is not None and not same_outcome(o, self.interp):
                bad.append(name)
        return bad

    def report(self) -> str:
        lines = ["--- program:", self.source.rstrip(), "--- reference interpreter:",
                 self.interp.describe().rstrip()]
        if self.flatten_error is not None:
            lines += ["--- flatten raised:", self.flatten_error]
        if self.lcu is not None:
            lines += ["--- flattened λcu (unfused):", self.lcu.describe().rstrip()]
        if self.fused is not None:
            lines += ["--- flattened λcu (fused):", self.fused.describe().rstrip()]
        if self.opencl is not None:
            lines += ["--- OpenCL (unfused):", self.opencl.describe().rstrip()]
        if self.opencl_fused is not None:
            lines += ["--- OpenCL (fused):", self.opencl_fused.describe().rstrip()]
        return "\n".join(lines)


#: ILP time limit for fusing generated programs (fusion's default is tuned for real programs; a
#: generated program can have a few hundred kernel launches in one region, see the report).
FUSE_TIME_LIMIT = float(os.environ.get("NESSIE_DIFF_FUSE_TIME_LIMIT", "1.0"))


def kernel_launches(flat) -> int:
    """Number of ``run K (...)`` sites in a flattened program (what fusion has to schedule)."""
    return len(re.findall(r"\brun K", str(flat.program)))


def compare(source: str, *, fused: bool = True, filename: str = "gen.nesl",
            max_fused_launches: Optional[int] = None, opencl: bool = False,
            lcu: bool = True) -> Comparison:
    """Compile ``source`` and run it on every backend.  Compile errors propagate (a generated
    program that does not compile is a generator bug).  ``FlattenUnsupported`` and crashes of
    the flattener are recorded as ``flatten_error``.  With ``max_fused_launches``, programs with
    more kernel launch sites are not fused (fusion time grows quickly with their number; see
    the report), and ``fused_skipped`` says so."""
    c = driver.compile_source(source, filename)
    cmp = Comparison(source, run_interp(c))
    try:
        flat = driver.flatten(c)
    except Exception as e:  # noqa: BLE001
        cmp.flatten_error = f"{type(e).__name__}: {e}"
        return cmp
    if lcu:
        cmp.lcu = run_flat(c, flat)
    if opencl:
        cmp.opencl = run_opencl(c, flat)
    if fused and max_fused_launches is not None and kernel_launches(flat) > max_fused_launches:
        cmp.fused_skipped = f"{kernel_launches(flat)} kernel launch sites"
        fused = False
    if fused and fusion_available():
        try:
            ff, _ = driver.fuse(flat, time_limit=FUSE_TIME_LIMIT)
        except Exception as e:  # noqa: BLE001
            cmp.fused = Outcome("", crash=f"fuse raised {type(e).__name__}: {e}")
        else:
            if lcu:
                cmp.fused = run_flat(c, ff)
            if opencl:
                cmp.opencl_fused = run_opencl(c, ff)
    return cmp


def assert_same(source: str, *, fused: bool = True, opencl: bool = False) -> Comparison:
    """``compare`` (on OpenCL too with ``opencl``), asserting that the interpreter did not
    crash and every backend printed what it printed; returns the comparison."""
    cmp = compare(source, fused=fused, opencl=opencl)
    assert cmp.interp.crash is None, "reference interpreter crashed\n" + cmp.report()
    assert not cmp.mismatches(), "backends disagree\n" + cmp.report()
    return cmp
