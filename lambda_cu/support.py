"""Process helpers shared by every package (issue 13): the one big-stack runner and the one
reader of numeric limits from the environment.

They live here because ``lambda_cu`` is the lowest layer that both ``nessie`` and
``lift_backend`` may import (``tests/architecture/test_layering.py``: ``lambda_cu`` imports
neither; ``lift_backend`` imports no ``nessie``).  This module imports nothing of the project.

:func:`run_deep` runs a recursive computation (a compiler stage, the λcu executor, the Lift
compiler) on a thread with a large stack (:data:`STACK_SIZE`) and a raised recursion limit
(:data:`RECURSION_LIMIT`), so that walking deeply nested programs, or running deeply recursive
ones, does not crash the interpreter.  Called from such a thread it just calls ``fn``.

:func:`env_positive` reads a positive number (``NESSIE_MAX_EXPR_DEPTH``,
``LIFT_MAX_EXPR_DEPTH``, ``NESSIE_FUSION_BUDGET``, ...) with a default for a value that is
missing, malformed or not positive.

:data:`MAX_CALL_DEPTH` bounds the depth of NESL user-function calls at run time, counted the
same way on every backend (issue 11): the reference interpreter counts the user-function calls
active on its stack (lifted or not), the λcu executor its active ``Call`` frames (one λcu
function per NESL function and form, so the counts agree).  One call past the limit raises
:class:`CallTooDeep`, a ``RecursionError``: every backend already reports a recursion that
exhausts the stack as ``RUNTIME ERROR: recursion too deep.`` at the top-level expression, and
the stack's own exhaustion stays the backstop.  The count lives on the interpreter or executor
(a :class:`CallDepth`), never in a global.
"""
from __future__ import annotations

import ctypes
import os
import sys
import threading
from typing import Any, Callable

__all__ = ["STACK_SIZE", "RECURSION_LIMIT", "MAX_CALL_DEPTH", "CallTooDeep", "CallDepth",
           "run_deep", "in_deep_thread", "env_positive"]

#: stack of the threads :func:`run_deep` starts (address space; pages are used as touched)
STACK_SIZE = 512 * 1024 * 1024
#: Python recursion limit while a deep computation runs
RECURSION_LIMIT = 1_000_000

_local = threading.local()


def in_deep_thread() -> bool:
    """Is the current thread one :func:`run_deep` started?"""
    return getattr(_local, "deep", False)


def run_deep(fn: Callable[[], Any], name: str = "deep") -> Any:
    """``fn()`` on a thread (called ``name``) with a large stack and a raised recursion limit;
    its result is returned and its exception re-raised here.  Called from such a thread it
    just calls ``fn``.  If no thread with the big stack can be started, ``fn`` runs here with
    the usual limit.  Ctrl-C while waiting raises KeyboardInterrupt in ``fn`` and here."""
    if in_deep_thread():
        return fn()
    box: dict = {}

    def target() -> None:
        _local.deep = True
        try:
            box["value"] = fn()
        except BaseException as exc:  # noqa: BLE001 - re-raised in the calling thread
            box["error"] = exc

    old_limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old_limit, RECURSION_LIMIT))
    try:
        old_size = threading.stack_size()
        threading.stack_size(STACK_SIZE)
        try:
            thread = threading.Thread(target=target, name=name, daemon=True)
            thread.start()
        except RuntimeError:          # no room for the big stack: run here, with the usual limit
            sys.setrecursionlimit(old_limit)
            return fn()
        finally:
            threading.stack_size(old_size)
        try:
            thread.join()
        except KeyboardInterrupt:
            # stop fn where it is (between two bytecodes); a thread blocked in C (waiting
            # for a thread of its own) is left behind: it is a daemon, gone at exit
            ctypes.pythonapi.PyThreadState_SetAsyncExc(
                ctypes.c_ulong(thread.ident), ctypes.py_object(KeyboardInterrupt))
            thread.join(1.0)
            raise
    finally:
        sys.setrecursionlimit(old_limit)
    if "error" in box:
        raise box.pop("error")
    return box.get("value")


def env_positive(name: str, default, convert: Callable[[str], Any] = int):
    """``convert`` of the environment variable ``name`` if it is set, well formed and
    positive; ``default`` otherwise."""
    try:
        value = convert(os.environ.get(name, default))
    except (TypeError, ValueError):
        return default
    return value if value > 0 else default


#: the most NESL user-function calls active at once (``NESSIE_MAX_CALL_DEPTH``; see the module
#: docstring).  At the default, an unbounded recursion through an apply-to-each fails in about
#: 14 s on the OpenCL backend (PoCL, 2 cores; minutes when only the stack bounded it).
MAX_CALL_DEPTH = env_positive("NESSIE_MAX_CALL_DEPTH", 10_000)


class CallTooDeep(RecursionError):
    """More than :data:`MAX_CALL_DEPTH` NESL calls active: handled as a stack exhaustion
    (``RUNTIME ERROR: recursion too deep.`` at the top-level expression)."""


class CallDepth:
    """The NESL calls active in one interpreter or executor: ``enter()`` before a call (raises
    :class:`CallTooDeep` past ``limit``), ``leave()`` after it."""

    __slots__ = ("active", "limit")

    def __init__(self, limit: int | None = None) -> None:
        self.active = 0
        self.limit = MAX_CALL_DEPTH if limit is None else limit

    def enter(self) -> None:
        if self.active >= self.limit:
            raise CallTooDeep(f"more than {self.limit} NESL calls active "
                              f"(NESSIE_MAX_CALL_DEPTH)")
        self.active += 1

    def leave(self) -> None:
        self.active -= 1
