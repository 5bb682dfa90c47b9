"""One seed per test run for the generated programs (``tests/differential``) and the mutated ones
(``tests/robustness``), shared by every process of the run: the suite runs in one process per
core (pytest-xdist, README), and each process reads its seeds from the environment, which the
controlling process sets here before it starts them.  ``NESSIE_DIFF_SEED=N`` /
``NESSIE_ROBUSTNESS_SEED=N`` repeat a run.  The compiler's disk cache is off unless
``NESSIE_CACHE=1`` is set for the run."""
from __future__ import annotations

import os
import random

SEED_VARIABLES = ("NESSIE_DIFF_SEED", "NESSIE_ROBUSTNESS_SEED")


def pytest_configure(config):
    # the compiler's disk cache (lambda_cu.diskcache) is off for the suite, in this process and
    # those it starts: tests that change what fusion or lowering does (a bound, a threshold)
    # must see their change; tests/fusion/test_diskcache.py turns it on in a directory of its own
    os.environ.setdefault("NESSIE_CACHE", "0")
    for var in SEED_VARIABLES:
        if not os.environ.get(var):
            os.environ[var] = str(random.SystemRandom().randrange(2**32))


def pytest_report_header(config):
    return "nessie seeds: " + " ".join(f"{v}={os.environ[v]}" for v in SEED_VARIABLES)
