"""Flattening: monomorphic typed NESL -> λcu over segmented arrays (see ``translate``)."""
from .reps import FlattenUnsupported
from .translate import FlatProgram, TopItem, flatten_program

__all__ = ["flatten_program", "FlatProgram", "TopItem", "FlattenUnsupported"]
