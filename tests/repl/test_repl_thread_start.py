"""The REPL evaluates each item on a thread with a big stack; when that thread cannot start (an
address-space limit: a hostile-input hunt saw "can't start new thread" tracebacks under
``ulimit -v``), the item is out of memory and the session goes on."""
from __future__ import annotations

import threading

import pytest

from nessie import repl as R


def test_a_thread_that_cannot_start_is_out_of_memory(monkeypatch):
    def cannot_start(self):
        raise RuntimeError("can't start new thread")
    with monkeypatch.context() as m:
        m.setattr(threading.Thread, "start", cannot_start)
        with pytest.raises(MemoryError):
            R._run_interruptibly(lambda: 1)
    assert R._run_interruptibly(lambda: 2) == 2       # the next item runs
