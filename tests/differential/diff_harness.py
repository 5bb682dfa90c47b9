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
    try:
        from lambda_cu.fusion import fuse_program  # noqa: F401
    except ImportError:
        return False
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


@dataclass
class Comparison:
    source: str
    interp: Outcome
    lcu: Optional[Outcome] = None
    fused: Optional[Outcome] = None
    flatten_error: Optional[str] = None
    fused_skipped: Optional[str] = None

    def mismatches(self) -> list[str]:
        """The backends whose outcome differs from the interpreter's (empty when all agree)."""
        bad = []
        if self.flatten_error is not None:
            bad.append("flatten")
        for name, o in (("lcu", self.lcu), ("fused", self.fused)):
            if o is not None and o != self.interp:
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
        return "\n".join(lines)


#: ILP time limit for fusing generated programs (fusion's default is tuned for real programs; a
#: generated program can have a few hundred kernel launches in one region, see the report).
FUSE_TIME_LIMIT = float(os.environ.get("NESSIE_DIFF_FUSE_TIME_LIMIT", "1.0"))


def kernel_launches(flat) -> int:
    """Number of ``run K (...)`` sites in a flattened program (what fusion has to schedule)."""
    return len(re.findall(r"\brun K", str(flat.program)))


def compare(source: str, *, fused: bool = True, filename: str = "gen.nesl",
            max_fused_launches: Optional[int] = None) -> Comparison:
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
    cmp.lcu = run_flat(c, flat)
    if fused and max_fused_launches is not None and kernel_launches(flat) > max_fused_launches:
        cmp.fused_skipped = f"{kernel_launches(flat)} kernel launch sites"
        fused = False
    if fused and fusion_available():
        try:
            ff, _ = driver.fuse(flat, time_limit=FUSE_TIME_LIMIT)
        except Exception as e:  # noqa: BLE001
            cmp.fused = Outcome("", crash=f"fuse raised {type(e).__name__}: {e}")
        else:
            cmp.fused = run_flat(c, ff)
    return cmp


def assert_same(source: str, *, fused: bool = True) -> Comparison:
    cmp = compare(source, fused=fused)
    assert cmp.interp.crash is None, "reference interpreter crashed\n" + cmp.report()
    assert not cmp.mismatches(), "backends disagree\n" + cmp.report()
    return cmp
