"""Run-time errors of NESL programs, as raised by the reference interpreter.

The error class is the front end's ``nessie.diagnostics.RuntimeNeslError(span, message)``
so that the driver reports interpreter errors like every other diagnostic.  The message texts
live in :mod:`lambda_cu.errors`, the one table of every backend, and are re-exported here.
"""

from __future__ import annotations

from nessie.diagnostics import RuntimeNeslError
from lambda_cu.errors import (DIVIDE_BY_ZERO, FILE_ERROR, FILE_FORMAT, LENGTH_MISMATCH,
                                MAX_SEQ_LENGTH, NEGATIVE_ISQRT, NOT_A_PERMUTATION,
                                PARTITION_COUNTS, SEQUENCE_TOO_LONG, SUBSCRIPT_OUT_OF_BOUNDS)

__all__ = [
    "RuntimeNeslError",
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
