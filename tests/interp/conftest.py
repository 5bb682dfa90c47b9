"""Make ``interp_helpers`` importable from the interpreter tests."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
