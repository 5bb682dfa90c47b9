"""Flattening: monomorphic typed NESL -> λcu over segmented arrays (see ``translate``).

The flattened program's last clean-ups: dead code (``lambda_cu.dead_code``, in ``translate``),
then common subexpressions (``lambda_cu.fusion.cse``: each context's copies of its bookkeeping,
such as the segment lengths and descriptors every filter of quicksort's body rebuilt, become
one value), so that the unfused and the fused program start from the same λcu."""
from dataclasses import replace as _replace

from lambda_cu.fusion.cse import cse_program as _cse_program

from .reps import FlattenUnsupported
from .translate import FlatProgram, TopItem
from .translate import flatten_program as _flatten_program


def flatten_program(mono, int_bits: int = 32) -> FlatProgram:
    """The flattened λcu of a monomorphic program (see the module docstring)."""
    flat = _flatten_program(mono, int_bits)
    return _replace(flat, program=_cse_program(flat.program))


__all__ = ["flatten_program", "FlatProgram", "TopItem", "FlattenUnsupported"]
