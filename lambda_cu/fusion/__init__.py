"""Kernel fusion for λcu (placeholder while the IR is written; see ilp.py)."""
