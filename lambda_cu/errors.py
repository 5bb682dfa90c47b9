"""λcu runtime errors and NESL's runtime error texts, shared by every kernel runner."""
from __future__ import annotations

from typing import Optional

from .loc import Loc

MSG_BOUNDS = "RUNTIME ERROR: Sequence reference (a[i]) out of bounds."
MSG_DIV0 = "RUNTIME ERROR: Divide by zero."
MSG_PERMUTE = "RUNTIME ERROR: Index sequence of permute is not a permutation."
MSG_SCATTER = "RUNTIME ERROR: Sequence reference (a[i]) out of bounds."
MSG_SCATTER_LENGTHS = "RUNTIME ERROR: Write (<-): destination sequences of different lengths."
MSG_NEG_LENGTH = "RUNTIME ERROR: Negative segment length."
MSG_ISQRT = "RUNTIME ERROR: isqrt of a negative number."
#: every backend's error when a program's recursion exhausts the big stack
MSG_RECURSION = "RUNTIME ERROR: recursion too deep."


class LcuRuntimeError(Exception):
    """A λcu runtime error: ``location`` (the :class:`~lambda_cu.loc.Loc` of the failing node, or
    None) and NESL ``message``."""

    def __init__(self, location: Optional[Loc], message: str) -> None:
        super().__init__(f"{location}: {message}" if location else message)
        self.location = location
        self.message = message
