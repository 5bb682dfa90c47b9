"""Make the generator and the harness (``nesl_gen``, ``diff_harness``) importable, and print the
generated programs' seed (``diff_seed.DIFF_SEED``: a new one on every run) in the header."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))

from diff_seed import DIFF_SEED  # noqa: E402


def pytest_report_header(config):
    return f"nessie differential seed: {DIFF_SEED} (NESSIE_DIFF_SEED={DIFF_SEED} repeats it)"
