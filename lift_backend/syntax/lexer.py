"""Tokenizer of the ``.lift`` text syntax (hand-written, tracks line and column)."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import List, Optional

from ..errors import LiftSyntaxError, Span


@dataclass(frozen=True)
class Token:
    kind: str    # NAME INT FLOAT OP EOF
    text: str
    pos: int     # offset in the source
    line: int
    col: int

    def span(self, file: str) -> Span:
        return Span(self.line, self.col, file)


_TOKEN_RE = re.compile(r"""
    (?P<ws>[ \t\r\n]+)
  | (?P<comment>//[^\n]*|/\*.*?\*/|\#[^\n]*)
  | (?P<FLOAT>(?:\d+\.\d*|\.\d+|\d+)(?:[eE][+-]?\d+)?[fF]|\d+\.\d*(?:[eE][+-]?\d+)?|\d+[eE][+-]?\d+)
  | (?P<INT>\d+)
  | (?P<NAME>[A-Za-z_][A-Za-z_0-9]*)
  | (?P<OP>->|==|!=|<=|>=|[()\[\]{},:;=$\\.+\-*/%<>?])
""", re.VERBOSE | re.DOTALL)


#: the byte order mark, as UTF-8 text decodes it
BOM = "\ufeff"


def strip_bom(text: str) -> str:
    """``text`` without a leading byte order mark."""
    return text[1:] if text.startswith(BOM) else text


class Lexer:
    def __init__(self, source: str, file: str = "<input>"):
        # a byte order mark (editors write one) is no character of the program: columns are
        # counted without it
        self.source = source = strip_bom(source)
        self.file = file
        self.pos = 0
        self.braced_code = ""
        self._line_starts = [0] + [m.end() for m in re.finditer("\n", source)]
        self._peeked: List[Token] = []

    def linecol(self, pos: int):
        import bisect
        i = bisect.bisect_right(self._line_starts, pos) - 1
        return i + 1, pos - self._line_starts[i] + 1

    def _scan(self) -> Token:
        while True:
            if self.pos >= len(self.source):
                line, col = self.linecol(self.pos)
                return Token("EOF", "", self.pos, line, col)
            if self.source.startswith("/*", self.pos) and self.source.find("*/", self.pos + 2) < 0:
                line, col = self.linecol(self.pos)
                raise LiftSyntaxError("unterminated comment: '/*' without a closing '*/'",
                                      Span(line, col, self.file))
            m = _TOKEN_RE.match(self.source, self.pos)
            if not m:
                line, col = self.linecol(self.pos)
                raise LiftSyntaxError(f"unexpected character {self.source[self.pos]!r}",
                                      Span(line, col, self.file))
            start = self.pos
            self.pos = m.end()
            kind = m.lastgroup
            if kind in ("ws", "comment"):
                continue
            line, col = self.linecol(start)
            return Token(kind, m.group(kind), start, line, col)

    def peek(self, k: int = 0) -> Token:
        while len(self._peeked) <= k:
            self._peeked.append(self._scan())
        return self._peeked[k]

    def next(self) -> Token:
        tok = self.peek()
        self._peeked.pop(0)
        return tok

    def raw_braced(self, open_tok: Token) -> str:
        """The raw text after the ``{`` token ``open_tok`` up to its matching ``}``; its code
        alone, comments and literals made blanks (same offsets), is left in ``braced_code``."""
        assert not self._peeked, "raw_braced must be called right after consuming '{'"
        depth = 1
        i = open_tok.pos + 1
        src = self.source
        code = list(src)
        while i < len(src):
            ch = src[i]
            if src.startswith("//", i):
                # to the end of the line; a backslash before the newline continues the comment
                # on the next line (C's line splicing)
                j = src.find("\n", i)
                while j > 0 and src[j - 1 - (src[j - 1] == "\r")] == "\\":
                    j = src.find("\n", j + 1)
                j = len(src) if j < 0 else j
                code[i:j] = " " * (j - i)
                i = j
                continue
            if src.startswith("/*", i):
                j = src.find("*/", i + 2)
                j = len(src) if j < 0 else j + 2
                code[i:j] = " " * (j - i)
                i = j
                continue
            if ch in "\"'":
                j = i + 1
                while j < len(src) and src[j] != ch:
                    j += 2 if src[j] == "\\" else 1
                code[i:j + 1] = " " * (min(j + 1, len(src)) - i)
                i = j + 1
                continue
            if ch == "#":
                # a preprocessor directive would apply to the rest of the generated kernel
                # (``#define get_global_size(d) 100`` rewrote its loops)
                line, col = self.linecol(i)
                raise LiftSyntaxError("a user function body is C statements: preprocessor "
                                      "directives and '#' are not allowed in it (they would "
                                      "change the generated kernel's own code)",
                                      Span(line, col, self.file))
            if ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
                if depth == 0:
                    self.pos = i + 1
                    self.braced_code = "".join(code[open_tok.pos + 1:i])
                    return src[open_tok.pos + 1:i]
            i += 1
        raise LiftSyntaxError("unterminated user function body", open_tok.span(self.file))
