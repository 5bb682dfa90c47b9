"""Source locations and compiler diagnostics shared by every Nessie stage.

A :class:`Span` is a 1-based ``(file, line, col, end_line, end_col)`` range (``end_col`` is the
column of the last character, inclusive): the one location value of every stage,
``lambda_cu.loc.Loc``, re-exported here under the front end's name.  Errors carry a span and a
message and are formatted exactly as::

    FILE:LINE:COL: error: MESSAGE
        <the source line>
        <spaces>^~~~

The source texts are values, never a registry of the process: a parse records the text of every
file it reads (the main one and those it loads) in its :class:`Diagnostics` (``sources``, file
name -> text), the parsed program keeps them (``ast.Program.sources``, ``driver.Compiled``), and an
error leaving a compilation or a run is given them on its way out (:func:`with_sources`: the
passes, the driver, the REPL and the API do it), so that ``err.format()`` quotes the line.
``format`` also takes the text, or a mapping of texts, explicitly.

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

from typing import Iterable, Mapping, Optional, Union

from lambda_cu import errors
from lambda_cu.loc import Loc

__all__ = [
    "Span", "Loc", "NO_SPAN", "Sources", "with_sources", "CompileError", "CompileErrors",
    "Diagnostics", "RuntimeNeslError", "InternalError", "format_error",
]

#: what a message quotes its line from: the text of the error's file, or file name -> text
Sources = Union[str, Mapping[str, str]]


#: the source location value, defined in λcu (below the front end) so that every stage and
#: backend carries the same value: ``(file, line, col, end_line, end_col)``, ``str`` gives
#: ``FILE:LINE:COL``
Span = Loc


NO_SPAN = Span("<unknown>", 0, 0, 0, 0)


def _source_line(span: Span, source: Optional[Sources]) -> Optional[str]:
    text = source if source is None or isinstance(source, str) else source.get(span.file)
    if text is None or span.line <= 0:
        return None
    lines = text.split("\n")
    if span.line > len(lines):
        return None
    line = lines[span.line - 1].rstrip("\r")
    # a byte order mark starting the text is no character of the program (the parser skips it)
    return line[1:] if span.line == 1 and line.startswith("\ufeff") else line


def format_error(span: Optional[Span], message: str, source: Optional[Sources] = None,
                 kind: str = "error") -> str:
    """``FILE:LINE:COL: error: MESSAGE`` plus the quoted source line and a caret line (when
    ``source``, the text of the span's file or a mapping file name -> text, has it)."""
    if span is None or span.line <= 0:
        where = span.file if span is not None else "<unknown>"
        return f"{where}: {kind}: {message}"
    head = f"{span.file}:{span.line}:{span.col}: {kind}: {message}"
    line = _source_line(span, source)
    if line is None:
        return head
    line = line.expandtabs(1)  # keep columns aligned: one column per character
    # a byte that is not UTF-8 (read with surrogateescape, as the REPL reads) shows as U+FFFD,
    # one column, as the CLI shows it
    # a control character shows as its Unicode control picture (one column: the caret stays
    # aligned), so that a quoted escape sequence cannot act on the terminal
    line = "".join("\ufffd" if "\udc80" <= ch <= "\udcff" else
                   chr(0x2400 + ord(ch)) if ch < " " else "\u2421" if ch == "\x7f" else
                   "\ufffd" if "\x80" <= ch <= "\x9f" else ch for ch in line)
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


def _texts(err: Exception, source: Optional[Sources]) -> Sources:
    """What ``err.format(source)`` quotes from: ``source`` if it is one text, else the texts
    given to the error (:func:`with_sources`) updated with those of ``source``."""
    if isinstance(source, str):
        return source
    own = getattr(err, "sources", None) or {}
    return {**own, **source} if source else own


def with_sources(err: Exception, sources: Optional[Mapping[str, str]]) -> Exception:
    """Give ``err`` (a :class:`CompileError`, :class:`CompileErrors` or
    :class:`RuntimeNeslError`) the source texts ``sources`` (file name -> text) for its message;
    texts it already has win (they are those of the compilation that raised it).  Returns
    ``err``, to be re-raised."""
    if sources:
        err.sources = {**sources, **(getattr(err, "sources", None) or {})}
    return err


class CompileError(Exception):
    """A located compile-time error."""

    #: file name -> source text, for the quoted line (see :func:`with_sources`)
    sources: Mapping[str, str] = {}

    def __init__(self, span: Optional[Span], message: str):
        super().__init__(message)
        self.span = span
        self.message = message

    def format(self, source: Optional[Sources] = None) -> str:
        return format_error(self.span, self.message, _texts(self, source))

    def __str__(self) -> str:
        if self.span is None:
            return self.message
        return f"{self.span}: error: {self.message}"


class CompileErrors(Exception):
    """Several compile errors, in source order (as reported)."""

    def __init__(self, errors: Iterable[CompileError],
                 sources: Optional[Mapping[str, str]] = None):
        self.errors = list(errors)
        #: file name -> source text of the compilation (see :func:`with_sources`)
        self.sources: Mapping[str, str] = dict(sources or {})
        super().__init__("\n".join(str(e) for e in self.errors))

    def format(self, source: Optional[Sources] = None) -> str:
        texts = _texts(self, source)
        return "\n".join(e.format(texts) for e in self.errors)

    def __str__(self) -> str:
        return "\n".join(str(e) for e in self.errors)


class Diagnostics:
    """Collects errors; ``raise_if_errors`` turns them into one :class:`CompileErrors`."""

    def __init__(self) -> None:
        self.errors: list[CompileError] = []
        #: file name -> text of every file parsed with this collector (the parser fills it)
        self.sources: dict[str, str] = {}

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

    def format(self, source: Optional[Sources] = None) -> str:
        texts = source if isinstance(source, str) else {**self.sources, **(source or {})}
        return "\n".join(e.format(texts) for e in self.errors)

    def raise_if_errors(self) -> None:
        if self.errors:
            raise CompileErrors(self.errors, self.sources)


class RuntimeNeslError(Exception):
    """A NESL runtime error, e.g. ``RUNTIME ERROR: Divide by zero.`` at an operation's span.

    ``message`` may be given with or without the ``RUNTIME ERROR: `` prefix; ``str()`` always
    shows it once.
    """

    PREFIX = errors.PREFIX
    #: file name -> source text, for the quoted line (see :func:`with_sources`)
    sources: Mapping[str, str] = {}

    def __init__(self, span: Optional[Span], message: str):
        if not message.startswith(self.PREFIX):
            message = self.PREFIX + message
        super().__init__(message)
        self.span = span
        self.message = message

    def format(self, source: Optional[Sources] = None) -> str:
        return format_error(self.span, self.message, _texts(self, source)) \
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
