"""The texts of NESL's run-time errors, shared by every backend (the reference interpreter in
``nessie/interp``, the flattener's checks in ``nessie/flatten`` and the host library in
``nessie/hostlib``), so that a failing program reports the same message on all of them.

Messages are the text after ``RUNTIME ERROR:`` in the original NESL system; the ones the original
system prints are copied verbatim, the others follow their style.  ``nessie.interp.errors``
re-exports them (with the interpreter's error class).
"""

from __future__ import annotations

import os

# Messages of the original system (NESL.md, "Runtime errors").
SUBSCRIPT_OUT_OF_BOUNDS = "Sequence reference (a[i]) out of bounds."
LENGTH_MISMATCH = "Length mismatch in an apply-to-each."
DIVIDE_BY_ZERO = "Divide by zero."

# Messages for the other errors NESL.md requires, in the same style.
NOT_A_PERMUTATION = "Index sequence of permute is not a permutation."
PARTITION_COUNTS = "Counts of partition do not sum to the length of the sequence."
NEGATIVE_ISQRT = "isqrt of a negative number."
FILE_ERROR = "Could not access file {name}: {reason}."
FILE_FORMAT = "Could not read {kind} from file {name}: {token!r}."

#: The longest sequence a program may build from a count (``index``, ``dist``, ranges), on every
#: backend: past it the operation fails with SEQUENCE_TOO_LONG (at its place) before anything is
#: allocated, instead of exhausting memory.  2^28 elements is 1 GiB of ints on the flattening
#: backends; the environment variable NESSIE_MAX_SEQ_LENGTH changes it.
MAX_SEQ_LENGTH = int(os.environ.get("NESSIE_MAX_SEQ_LENGTH", str(2**28)))
SEQUENCE_TOO_LONG = f"Sequence too long (more than {MAX_SEQ_LENGTH} elements)."

__all__ = [
    "SUBSCRIPT_OUT_OF_BOUNDS",
    "LENGTH_MISMATCH",
    "DIVIDE_BY_ZERO",
    "NOT_A_PERMUTATION",
    "PARTITION_COUNTS",
    "NEGATIVE_ISQRT",
    "FILE_ERROR",
    "FILE_FORMAT",
    "MAX_SEQ_LENGTH",
    "SEQUENCE_TOO_LONG",
]
