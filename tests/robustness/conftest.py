"""The robustness suite's seed, worker process and verdict counts (see test_mutations.py)."""
from __future__ import annotations

import collections
import os
import random
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))

#: one seed per run (drawn and printed in the header by tests/conftest.py, for every process of
#: the run); NESSIE_ROBUSTNESS_SEED=N repeats a run
SEED = int(os.environ.get("NESSIE_ROBUSTNESS_SEED") or random.SystemRandom().randrange(2**32))

#: (mutation class, backend) -> Counter of verdicts, printed at the end of the run
COUNTS: dict = collections.defaultdict(collections.Counter)


def pytest_terminal_summary(terminalreporter):
    if not COUNTS:
        return
    tr = terminalreporter
    tr.section(f"robustness: inputs per mutation class (seed {SEED})")
    for (cls, backend), c in sorted(COUNTS.items()):
        tr.write_line(f"{backend:6} {cls:9} {sum(c.values()):4} inputs: "
                      + ", ".join(f"{n} {v}" for v, n in sorted(c.items())))


@pytest.fixture(scope="session")
def worker():
    from runner import Worker
    w = Worker()
    yield w
    w.close()
