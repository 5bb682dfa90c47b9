"""Running one NESL source through ``nessie.cli.main`` in a worker process, with a time budget.

The worker imports Nessie once and calls the CLI in-process for each input (``cli.main([...])``
with ``sys.stdout``/``sys.stderr`` captured), so an input costs what the command costs, not a
Python start-up.  The parent waits at most ``budget`` seconds for each answer; a worker that does
not answer in time is killed (the input *hung*) and a fresh one is started for the next input.
A worker that dies (a crash of the interpreter, the kernel's OOM killer) is reported as such.

:func:`classify` turns an answer into a verdict:

``ok``          exit status 0, no traceback
``error``       exit status 1 and a located ``FILE:LINE:COL: error:`` message, no traceback
``traceback``   a Python traceback or "internal compiler error" anywhere in the output
``status``      any other exit status (2 is the CLI's internal-error status)
``unlocated``   exit status 1 without a located error message
``hang``        no answer within the budget
``crash``       the worker process died

(and :func:`run_backends` adds ``slow`` and ``unbounded recursion``, see there)

and :func:`disagreement` compares the backends' answers to one input (exit status, output and
messages must be the same).
"""
from __future__ import annotations

import multiprocessing as mp
import os
import re
import time
from dataclasses import dataclass
from typing import Optional

#: sequences longer than this fail with "Sequence too long" in the worker (every backend), so a
#: mutation that turns ``1000`` into ``10001000`` does not make a minute-long computation
WORKER_MAX_SEQ_LENGTH = 1 << 20

#: address space of the worker process (NESSIE_ROBUSTNESS_MEMORY bytes; default 4 GiB)
WORKER_MEMORY = int(os.environ.get("NESSIE_ROBUSTNESS_MEMORY", str(4 << 30)))

_LOCATED = re.compile(r"^\S.*:\d+:\d+: error: ", re.M)
_BAD = ("Traceback (most recent call last)", "internal compiler error", "internal error")


def _worker(conn) -> None:  # pragma: no cover - runs in the child process
    import contextlib
    import io
    import traceback

    os.environ.setdefault("NESSIE_MAX_SEQ_LENGTH", str(WORKER_MAX_SEQ_LENGTH))
    # bounded memory: a program whose values do not fit fails with MemoryError (every backend
    # reports "RUNTIME ERROR: out of memory." at the top-level expression) instead of waking
    # the kernel's OOM killer
    import resource
    resource.setrlimit(resource.RLIMIT_AS, (WORKER_MEMORY, WORKER_MEMORY))
    from nessie import cli

    while True:
        try:
            msg = conn.recv()
        except EOFError:
            return
        if msg is None:
            return
        out, err = io.StringIO(), io.StringIO()
        start = time.perf_counter()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                rc = cli.main(list(msg))
            except SystemExit as e:          # argparse
                rc = e.code if isinstance(e.code, int) else 2
            except BaseException:  # noqa: BLE001 - reported as a traceback
                traceback.print_exc()
                rc = "raised"
        elapsed = time.perf_counter() - start
        # the tail is enough to classify; a traceback of a million frames is not sent whole
        conn.send((rc, out.getvalue()[-20000:], err.getvalue()[-20000:], elapsed))


@dataclass
class Answer:
    rc: object
    out: str
    err: str
    seconds: float
    hung: bool = False
    died: bool = False


class Worker:
    """A process running ``nessie.cli.main`` on request (see the module docstring)."""

    def __init__(self) -> None:
        self._ctx = mp.get_context("spawn")
        self._proc = None
        self._conn = None

    def _start(self) -> None:
        parent, child = self._ctx.Pipe()
        self._proc = self._ctx.Process(target=_worker, args=(child,), daemon=True)
        self._proc.start()
        child.close()
        self._conn = parent

    def run(self, argv: list, budget: float) -> Answer:
        if self._proc is None or not self._proc.is_alive():
            self._start()
        start = time.perf_counter()
        self._conn.send(list(argv))
        try:
            ready = self._conn.poll(budget)
        except (EOFError, OSError):
            ready = False
        if ready:
            try:
                rc, out, err, secs = self._conn.recv()
                return Answer(rc, out, err, secs)
            except (EOFError, OSError):
                pass
        elapsed = time.perf_counter() - start
        died = not self._proc.is_alive()
        self.kill()
        return Answer(None, "", "", elapsed, hung=not died, died=died)

    def kill(self) -> None:
        if self._proc is not None:
            self._proc.kill()
            self._proc.join(5)
        self._proc = None
        self._conn = None

    def close(self) -> None:
        if self._proc is not None and self._proc.is_alive():
            try:
                self._conn.send(None)
                self._proc.join(5)
            except (OSError, EOFError):
                pass
        self.kill()


def classify(a: Answer) -> str:
    if a.hung:
        return "hang"
    if a.died:
        return "crash"
    text = a.out + a.err
    if any(b in text for b in _BAD):
        return "traceback"
    if a.rc == 0:
        return "ok"
    if a.rc == 1:
        return "error" if _LOCATED.search(a.err) else "unlocated"
    return "status"


#: verdicts that are defects
DEFECTS = ("traceback", "status", "unlocated", "hang", "crash")


_CARET = re.compile(r"^(\s*\^)~+$")


def normalised(a: Answer, exact_carets: bool = False) -> tuple:
    """What must be the same on every backend: exit status, output, and the error messages
    (notes that a backend adds, ``nessie: note: ...``, left out).  Unless ``exact_carets``,
    a caret line's underline (``^~~~``) counts as its ``^`` alone: λcu's runtime errors
    carry a position, not a span, so they print one ``^`` (issue 11 has an item of its own
    for that)."""
    lines = [line for line in a.err.splitlines() if not line.startswith("nessie: note:")]
    if not exact_carets:
        lines = [_CARET.sub(r"\1", line) for line in lines]
    return a.rc, a.out, "\n".join(lines)


def disagreement(answers: dict, exact_carets: bool = False) -> Optional[str]:
    """None if every backend of ``answers`` (backend -> Answer) ended alike, else a report."""
    items = list(answers.items())
    first_b, first = items[0]
    for b, a in items[1:]:
        if normalised(a, exact_carets) != normalised(first, exact_carets):
            return (f"{first_b} and {b} disagree\n=== {first_b}: {describe(first)}\n"
                    f"=== {b}: {describe(a)}")
    return None


def describe(a: Answer, verdict: Optional[str] = None) -> str:
    verdict = verdict or classify(a)
    return (f"verdict {verdict}, exit status {a.rc}, {a.seconds:.1f} s\n"
            f"--- stdout (tail)\n{a.out[-3000:]}\n--- stderr (tail)\n{a.err[-3000:]}")


BACKENDS = ("interp", "lcu", "opencl")
#: the text of every backend's runtime error for a recursion that exhausted the stack
RECURSION_TOO_DEEP = "RUNTIME ERROR: recursion too deep."
#: ... and for values that do not fit in memory (the worker's WORKER_MEMORY)
OUT_OF_MEMORY = "RUNTIME ERROR: out of memory."


@dataclass
class Outcome:
    verdicts: dict          # backend -> verdict
    answers: dict           # backend -> Answer
    argvs: dict             # backend -> argv
    diff: Optional[str]     # the backends' disagreement, if any

    def defects(self, strict: bool = False) -> list:
        """(backend, verdict) of each defect; ``strict``: ``slow`` is one."""
        bad = DEFECTS + (("slow",) if strict else ())
        out = [(b, v) for b, v in self.verdicts.items() if v in bad]
        if self.diff is not None:
            out.append(("both", "disagree"))
        return out


#: the other backends may take this many times the interpreter's time (at least
#: MIN_RELATIVE_BUDGET seconds, at most the budget) before they count as slow
RELATIVE_BUDGET = 20.0
MIN_RELATIVE_BUDGET = 20.0


def run_backends(worker: Worker, path: str, budget: float, unbounded_budget: float,
                 lcu_unfused: bool = False, exact_carets: bool = False) -> Outcome:
    """``nessie run --backend B path`` for B in BACKENDS (interp first), verdicts and the
    comparison of the answers.

    * A program that recursed too deep on the interpreter (depth first) may run for ever when
      flattened (breadth first: a branching recursion does twice the work at each level before
      it is deep enough to fail), so the other backends then get ``unbounded_budget``; running
      out of it is the verdict ``unbounded recursion``, and the answers are not compared: they
      only have to give up without a traceback.
    * A program whose values do not fit in the worker's memory (``OUT_OF_MEMORY``) ends with
      that located error on a backend, the verdict ``out of memory``: where a backend runs
      out depends on its representation (Python tuples or flat vectors), so the answers are
      not compared, and after the interpreter ran out the others get ``unbounded_budget``
      (running out of it is ``out of memory`` as well); no traceback is allowed.
    * A program the interpreter ran within its budget gets ``RELATIVE_BUDGET`` times the
      interpreter's time on the other backends (at least ``MIN_RELATIVE_BUDGET`` s); running
      out of it is the verdict ``slow`` (a known gap of flattening: a recursion in both
      branches of a conditional makes a lifted call per branch and level where the branches
      can fail or have an effect -- where they cannot, ``nessie/flatten/hoist.py`` makes one
      call per level), a defect only in strict runs.
    """
    verdicts, answers, argvs = {}, {}, {}
    unbounded = False
    relative = None
    for b in BACKENDS:
        argv = ["run", "--backend", b] + (["--no-fuse"] if b != "interp" and lcu_unfused else [])
        argv.append(str(path))
        if unbounded:
            limit = unbounded_budget
        elif relative is not None:
            limit = relative
        else:
            limit = budget
        a = worker.run(argv, limit)
        v = classify(a)
        if v == "error" and OUT_OF_MEMORY in a.err:
            v = "out of memory"
        if unbounded == "memory" and v == "hang":
            v = "out of memory"
        elif unbounded and v == "hang":
            v = "unbounded recursion"
        elif relative is not None and v == "hang" and relative < budget:
            v = "slow"
        verdicts[b], answers[b], argvs[b] = v, a, argv
        unbounded = unbounded or (RECURSION_TOO_DEEP in a.err and "recursion") or \
            (OUT_OF_MEMORY in a.err and "memory")
        if relative is None and v in ("ok", "error"):
            relative = min(budget, max(MIN_RELATIVE_BUDGET, RELATIVE_BUDGET * a.seconds))
    diff = None
    if not unbounded and not any(v in DEFECTS + ("slow", "out of memory")
                                 for v in verdicts.values()):
        diff = disagreement(answers, exact_carets)
    return Outcome(verdicts, answers, argvs, diff)
