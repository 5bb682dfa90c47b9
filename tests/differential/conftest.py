"""Make the generator and the harness (``nesl_gen``, ``diff_harness``) importable."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
