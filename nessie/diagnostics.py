"""Source locations and compiler diagnostics shared by every Nessie stage.

A :class:`Span` is a 1-based ``(file, line, col, end_line, end_col)`` range (``end_col`` is the
column of the last character, inclusive).  Errors carry a span and a message and are formatted
exactly as::

    FILE:LINE:COL: error: MESSAGE
        <the source line>
        <spaces>^~~~

The source text of every parsed file is remembered in :data:`SOURCES` (filled by the parser), so
errors can quote the offending line without the caller passing the text around.

Exceptions:

* :class:`CompileError` -- one located error (syntax, scope, type, ...).
* :class:`CompileErrors` -- several errors found in one compilation (``.errors`` holds them);
  raised by the front end after it has recovered and reported everything it could.
* :class:`Diagnostics` -- a collector used while compiling (``error()``, ``raise_if_errors()``).
* :class:`RuntimeNeslError` -- a NESL runtime error (``RUNTIME ERROR: ...``) with the span of the
  operation that failed; raised by interpreters/backends.
* :class:`InternalError` -- a compiler bug (an invariant broken), never the user's fault.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Optional

__all__ = [
    "Span", "NO_SPAN", "SOURCES", "register_source", "CompileError", "CompileErrors",
    "Diagnostics", "RuntimeNeslError", "InternalError", "format_error",
]

#: file name -> source text, filled by the parser so messages can quote lines.
SOURCES: dict[str, str] = {}


def register_source(filename: str, text: str) -> None:
    SOURCES[filename] = text


@dataclass(frozen=True, order=True)
class Span:
    file: str
    line: int
    col: int
    end_line: int
    end_col: int

    def merge(self, other: Optional["Span"]) -> "Span":
        """The smallest span covering ``self`` and ``other`` (same file assumed)."""
        if other is None:
            return self
        start = min((self.line, self.col), (other.line, other.col))
        end = max((self.end_line, self.end_col), (other.end_line, other.end_col))
        return Span(self.file, start[0], start[1], end[0], end[1])

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"

    def loc(self) -> str:
        """The span as the location string of a λcu node: ``FILE:LINE:COL`` and, when the span
        is longer than its start, ``-END_LINE:END_COL`` (read back by :meth:`from_loc`, so a
        compiled backend's runtime error underlines what the interpreter's does)."""
        if (self.end_line, self.end_col) in ((self.line, self.col), (0, 0)):
            return str(self)
        return f"{self}-{self.end_line}:{self.end_col}"

    @staticmethod
    def from_loc(loc: Optional[str]) -> Optional["Span"]:
        """The span of a location string of :meth:`loc`'s forms; None if it is not one."""
        if not loc:
            return None
        head, _, end = loc.rpartition("-")
        if head and ":" in end and end.replace(":", "").isdigit():
            try:
                file, line, col = head.rsplit(":", 2)
                el, ec = end.split(":")
                return Span(file, int(line), int(col), int(el), int(ec))
            except ValueError:
                pass
        try:
            file, line, col = loc.rsplit(":", 2)
            return Span(file, int(line), int(col), int(line), int(col))
        except ValueError:
            return None


NO_SPAN = Span("<unknown>", 0, 0, 0, 0)


def _source_line(span: Span, source: Optional[str]) -> Optional[str]:
    text = source if source is not None else SOURCES.get(span.file)
    if text is None or span.line <= 0:
        return None
    lines = text.split("\n")
    if span.line > len(lines):
        return None
    return lines[span.line - 1].rstrip("\r")


def format_error(span: Optional[Span], message: str, source: Optional[str] = None,
                 kind: str = "error") -> str:
    """``FILE:LINE:COL: error: MESSAGE`` plus the quoted source line and a caret line."""
    if span is None or span.line <= 0:
        where = span.file if span is not None else "<unknown>"
        return f"{where}: {kind}: {message}"
    head = f"{span.file}:{span.line}:{span.col}: {kind}: {message}"
    line = _source_line(span, source)
    if line is None:
        return head
    line = line.expandtabs(1)  # keep columns aligned: one column per character
    col = max(span.col, 1)
    if span.end_line == span.line and span.end_col >= col:
        width = span.end_col - col + 1
    else:
        width = max(len(line) - col + 1, 1)
    width = max(1, min(width, max(len(line) - col + 1, 1)))
    if len(line) > MAX_QUOTED_LINE:
        # a window of the line around the column (a generated program may have one line of
        # megabytes): "..." marks what is left out on either side
        start = max(0, min(col - 1 - MAX_QUOTED_LINE // 4, len(line) - MAX_QUOTED_LINE))
        end = start + MAX_QUOTED_LINE
        pre = "..." if start > 0 else ""
        line = pre + line[start:end] + ("..." if end < len(line) else "")
        width = max(1, min(width, end - col + 1))
        col = col - start + len(pre)
    caret = " " * (col - 1) + "^" + "~" * (width - 1)
    return f"{head}\n    {line}\n    {caret}"


#: the longest source line quoted whole under an error message
MAX_QUOTED_LINE = 160


class CompileError(Exception):
    """A located compile-time error."""

    def __init__(self, span: Optional[Span], message: str):
        super().__init__(message)
        self.span = span
        self.message = message

    def format(self, source: Optional[str] = None) -> str:
        return format_error(self.span, self.message, source)

    def __str__(self) -> str:
        if self.span is None:
            return self.message
        return f"{self.span}: error: {self.message}"


class CompileErrors(Exception):
    """Several compile errors, in source order (as reported)."""

    def __init__(self, errors: Iterable[CompileError]):
        self.errors = list(errors)
        super().__init__("\n".join(str(e) for e in self.errors))

    def format(self) -> str:
        return "\n".join(e.format() for e in self.errors)

    def __str__(self) -> str:
        return "\n".join(str(e) for e in self.errors)


class Diagnostics:
    """Collects errors; ``raise_if_errors`` turns them into one :class:`CompileErrors`."""

    def __init__(self) -> None:
        self.errors: list[CompileError] = []

    def error(self, span: Optional[Span], message: str) -> CompileError:
        err = CompileError(span, message)
        self.errors.append(err)
        return err

    def add(self, err: CompileError) -> None:
        if isinstance(err, CompileErrors):
            self.errors.extend(err.errors)
        else:
            self.errors.append(err)

    def extend(self, errs: Iterable[CompileError]) -> None:
        for e in errs:
            self.add(e)

    def __bool__(self) -> bool:
        return bool(self.errors)

    def __len__(self) -> int:
        return len(self.errors)

    def format(self) -> str:
        return "\n".join(e.format() for e in self.errors)

    def raise_if_errors(self) -> None:
        if self.errors:
            raise CompileErrors(self.errors)


class RuntimeNeslError(Exception):
    """A NESL runtime error, e.g. ``RUNTIME ERROR: Divide by zero.`` at an operation's span.

    ``message`` may be given with or without the ``RUNTIME ERROR: `` prefix; ``str()`` always
    shows it once.
    """

    PREFIX = "RUNTIME ERROR: "

    def __init__(self, span: Optional[Span], message: str):
        if not message.startswith(self.PREFIX):
            message = self.PREFIX + message
        super().__init__(message)
        self.span = span
        self.message = message

    def format(self, source: Optional[str] = None) -> str:
        return format_error(self.span, self.message, source) \
            if self.span is not None else self.message

    def __str__(self) -> str:
        if self.span is None or self.span.line <= 0:
            return self.message
        return f"{self.span}: {self.message}"


class InternalError(Exception):
    """A Nessie bug: an invariant that a previous stage should have established is broken."""

    def __init__(self, message: str, span: Optional[Span] = None):
        super().__init__(f"internal compiler error: {message}")
        self.span = span
