"""Errors of the Lift backend.

Every user-facing error carries an optional source span so that the command line can
print ``FILE:LINE:COL: error: MESSAGE`` followed by the source line and a caret.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional


@dataclass(frozen=True)
class Span:
    line: int
    col: int
    file: str = "<input>"

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


class LiftError(Exception):
    """Base class: a user error with an optional source position."""

    def __init__(self, message: str, span: Optional[Span] = None):
        super().__init__(message)
        self.message = message
        self.span = span

    def with_span(self, span: Optional[Span]) -> "LiftError":
        if self.span is None and span is not None:
            self.span = span
        return self

    def __str__(self) -> str:
        if self.span is not None:
            return f"{self.span}: error: {self.message}"
        return self.message


class LiftSyntaxError(LiftError):
    pass


class LiftTypeError(LiftError):
    pass


class LiftCompileError(LiftError):
    pass


class LiftRuntimeError(LiftError):
    pass


class LiftArgumentError(LiftRuntimeError):
    """An argument of a launch that does not fit its parameter (``param`` names it, so that
    the command line can name the file it came from)."""

    def __init__(self, param: str, message: str):
        super().__init__(f"argument {param}: {message}")
        self.param = param
        self.detail = message


def format_error(err: LiftError, source: Optional[str] = None) -> str:
    """``FILE:LINE:COL: error: MESSAGE`` plus the source line and a caret under the column."""
    if err.span is None:
        return f"error: {err.message}"
    out = f"{err.span}: error: {err.message}"
    if source is not None:
        lines = source.splitlines()
        if 1 <= err.span.line <= len(lines):
            # one column per character (as the lexer counts them, and nessie.diagnostics
            # quotes lines): a tab is shown as one space so that the caret lines up under it
            text = lines[err.span.line - 1].rstrip("\n").expandtabs(1)
            out += "\n" + text + "\n" + " " * max(err.span.col - 1, 0) + "^"
    return out
