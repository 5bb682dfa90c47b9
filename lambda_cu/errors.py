"""NESL's run-time error texts, in one table for every backend (issue 13): the reference
interpreter (``nessie/interp``), the flattener's checks (``nessie/flatten``), the host library
of the flattening backends (``nessie/hostlib``), the λcu numpy runner and the OpenCL lowering's
error-buffer decoder (``lift_backend/lower``) all take their messages from here, so that a
failing program reports the same message on all of them.  This module is one of the bottom
modules every stage may import (it imports only ``loc`` and ``support``).

The texts are what follows ``RUNTIME ERROR:`` in the original NESL system; those the original
prints are copied verbatim (NESL.md, "Runtime errors"), the others follow their style.  The
``MSG_`` names are the whole messages, prefix included.
"""
from __future__ import annotations

from typing import Optional

from .loc import Loc
from .support import env_positive

#: what every run-time error message begins with
PREFIX = "RUNTIME ERROR: "

# Messages of the original system.
SUBSCRIPT_OUT_OF_BOUNDS = "Sequence reference (a[i]) out of bounds."
LENGTH_MISMATCH = "Length mismatch in an apply-to-each."
DIVIDE_BY_ZERO = "Divide by zero."

# Messages for the other errors NESL.md requires, in the same style.
NOT_A_PERMUTATION = "Index sequence of permute is not a permutation."
PARTITION_COUNTS = "Counts of partition do not sum to the length of the sequence."
NEGATIVE_ISQRT = "isqrt of a negative number."
FILE_ERROR = "Could not access file {name}: {reason}."
FILE_FORMAT = "Could not read {kind} from file {name}: {token!r}."
RECURSION_TOO_DEEP = "recursion too deep."
OUT_OF_MEMORY = "out of memory."

#: The longest sequence a program may build from a count (``index``, ``dist``, ranges), on every
#: backend: past it the operation fails with SEQUENCE_TOO_LONG (at its place) before anything is
#: allocated, instead of exhausting memory.  2^28 elements is 1 GiB of ints on the flattening
#: backends; the environment variable NESSIE_MAX_SEQ_LENGTH changes it.
MAX_SEQ_LENGTH = env_positive("NESSIE_MAX_SEQ_LENGTH", 2**28)
SEQUENCE_TOO_LONG = f"Sequence too long (more than {MAX_SEQ_LENGTH} elements)."

# Errors of λcu operations that the flattener's own checks normally precede.
SCATTER_LENGTHS = "Write (<-): destination sequences of different lengths."
NEGATIVE_SEGMENT_LENGTH = "Negative segment length."
#: a radix sort's position out of range (an internal error of the OpenCL backend's RANK: the
#: positions are a permutation by construction)
RADIX_POSITION = "internal error: a radix-sort position is out of range."
#: a λcu iteration over a negative size (an internal error: sizes come from lengths)
NEGATIVE_SIZE = "negative iteration size {n} in {op}"

MSG_BOUNDS = PREFIX + SUBSCRIPT_OUT_OF_BOUNDS
MSG_LENGTH = PREFIX + LENGTH_MISMATCH
MSG_DIV0 = PREFIX + DIVIDE_BY_ZERO
MSG_PERMUTE = PREFIX + NOT_A_PERMUTATION
MSG_PARTITION = PREFIX + PARTITION_COUNTS
MSG_SCATTER = MSG_BOUNDS
MSG_SCATTER_LENGTHS = PREFIX + SCATTER_LENGTHS
MSG_NEG_LENGTH = PREFIX + NEGATIVE_SEGMENT_LENGTH
MSG_RADIX = PREFIX + RADIX_POSITION
MSG_ISQRT = PREFIX + NEGATIVE_ISQRT
MSG_TOO_LONG = PREFIX + SEQUENCE_TOO_LONG
#: every backend's error when a program's recursion exhausts the big stack
MSG_RECURSION = PREFIX + RECURSION_TOO_DEEP
#: every backend's error when a program's values do not fit in memory
MSG_OUT_OF_MEMORY = PREFIX + OUT_OF_MEMORY


class LcuRuntimeError(Exception):
    """A λcu runtime error: ``location`` (the :class:`~lambda_cu.loc.Loc` of the failing node, or
    None) and NESL ``message``."""

    def __init__(self, location: Optional[Loc], message: str) -> None:
        super().__init__(f"{location}: {message}" if location else message)
        self.location = location
        self.message = message
