"""Documentation and source text of NESL definitions, read back from their source.

``doc_comment(span)`` is the ``% ... %`` comment (or several, separated only by white space)
written just before the definition at ``span``; ``definition_text(span)`` is the definition's
source, up to and including its terminating ``;`` (or ``$``).  Both read the text given to them
(``source``: the text of the span's file, or a mapping file name -> text such as
``driver.Compiled.sources``) and return None when it does not have the span's file.
"""
from __future__ import annotations

import re
from typing import Optional

from nessie.diagnostics import Sources, Span

__all__ = ["comment_ranges", "doc_comment", "definition_text", "offset_of"]

_BACKOP = re.compile(r"`(\+\+|<-|->|<=|>=|==|/=|\|\||[-+*/^#@<>]|[A-Za-z][A-Za-z0-9_]+)`")


def comment_ranges(text: str) -> list:
    """``[(start, end)]`` offsets of the ``% ... %`` comments of ``text`` (``end`` exclusive),
    skipping ``%`` inside string and character literals."""
    out = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == "%":
            j = text.find("%", i + 1)
            if j < 0:
                break                       # unterminated: not a comment to show
            out.append((i, j + 1))
            i = j + 1
        elif ch == '"':
            i += 1
            while i < n and text[i] not in '"\n':
                i += 2 if text[i] == "\\" else 1
            i += 1
        elif ch == "`":                     # a backquoted operator or a character literal
            m = _BACKOP.match(text, i)
            i = m.end() if m else i + 2
        else:
            i += 1
    return out


def offset_of(text: str, line: int, col: int) -> int:
    """The offset of 1-based ``line``:``col`` in ``text``."""
    pos = 0
    for _ in range(line - 1):
        nl = text.find("\n", pos)
        if nl < 0:
            return len(text)
        pos = nl + 1
    return min(pos + col - 1, len(text))


def _dedent_comment(body: str) -> str:
    lines = [ln.rstrip() for ln in body.strip("\n").split("\n")]
    while lines and not lines[0].strip():
        lines.pop(0)
    while lines and not lines[-1].strip():
        lines.pop()
    if not lines:
        return ""
    first = lines[0].strip()
    rest = [ln for ln in lines[1:]]
    indent = min((len(ln) - len(ln.lstrip()) for ln in rest if ln.strip()), default=0)
    return "\n".join([first] + [ln[indent:] for ln in rest])


def _text(span: Span, source: Optional[Sources]) -> Optional[str]:
    return source if source is None or isinstance(source, str) else source.get(span.file)


def doc_comment(span: Optional[Span], source: Optional[Sources] = None) -> Optional[str]:
    """The comment(s) just before the definition at ``span`` (only white space between them
    and the definition), without the ``%`` signs; None if there is none."""
    if span is None:
        return None
    text = _text(span, source)
    if text is None:
        return None
    start = offset_of(text, span.line, span.col)
    ranges = [r for r in comment_ranges(text[:start]) if r[1] <= start]
    parts = []
    pos = start
    for a, b in reversed(ranges):
        if text[b:pos].strip():
            break
        parts.append(_dedent_comment(text[a + 1:b - 1]))
        pos = a
    parts = [p for p in reversed(parts) if p]
    return "\n".join(parts) if parts else None


def definition_text(span: Optional[Span], source: Optional[Sources] = None) -> Optional[str]:
    """The source of the definition at ``span`` through its terminating ``;`` or ``$``."""
    if span is None:
        return None
    text = _text(span, source)
    if text is None:
        return None
    start = offset_of(text, span.line, span.col)
    end = offset_of(text, span.end_line, span.end_col) + 1
    comments = comment_ranges(text)
    i = end
    while i < len(text):
        inside = next((b for a, b in comments if a == i), None)
        if inside is not None:
            i = inside
        elif text[i].isspace():
            i += 1
        else:
            if text[i] in ";$":
                end = i + 1
            break
    return text[start:end]
