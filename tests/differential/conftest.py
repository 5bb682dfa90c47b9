"""Make the generator and the harness (``nesl_gen``, ``diff_harness``) importable.  The generated
programs' seed (``diff_seed.DIFF_SEED``: a new one on every run) is drawn, and printed in the
header, by ``tests/conftest.py``."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
