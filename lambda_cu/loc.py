"""The source location value of every Nessie stage (issue 13).

A :class:`Loc` is a 1-based ``(file, line, col, end_line, end_col)`` range of a NESL source file
(``end_col`` is the column of the last character, inclusive).  The front end makes them (the
parser gives every syntax node one; ``nessie.diagnostics.Span`` is this class, re-exported), the
flattener copies them into the ``loc`` field of the λcu nodes that can fail, every backend
reports a runtime error with the ``Loc`` of the failing node (``LcuRuntimeError.location``; the
OpenCL runner keeps it in the table that maps a kernel's error code back to its site) and the
driver formats it with the source line and a caret under the range.  Nothing reads a location
back from text except the parser of printed λcu (``lambda_cu.parser``), whose job that is.

``str(loc)`` is ``FILE:LINE:COL``; :meth:`Loc.range_str` adds ``-END_LINE:END_COL`` when the range
is longer than its start (the form the λcu printer writes in ``check``/``error``).

This module imports nothing of Nessie: ``lambda_cu`` sits below the front end.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

__all__ = ["Loc"]


@dataclass(frozen=True, order=True)
class Loc:
    file: str
    line: int
    col: int
    end_line: int
    end_col: int

    @staticmethod
    def point(file: str, line: int, col: int) -> "Loc":
        """The location of the one character at ``line:col``."""
        return Loc(file, line, col, line, col)

    def merge(self, other: Optional["Loc"]) -> "Loc":
        """The smallest range covering ``self`` and ``other`` (same file assumed)."""
        if other is None:
            return self
        start = min((self.line, self.col), (other.line, other.col))
        end = max((self.end_line, self.end_col), (other.end_line, other.end_col))
        return Loc(self.file, start[0], start[1], end[0], end[1])

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"

    def range_str(self) -> str:
        """``FILE:LINE:COL``, and ``-END_LINE:END_COL`` when the range is longer than its start."""
        if (self.end_line, self.end_col) in ((self.line, self.col), (0, 0)):
            return str(self)
        return f"{self}-{self.end_line}:{self.end_col}"
