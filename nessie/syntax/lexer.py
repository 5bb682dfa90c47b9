"""PLY lexer for NESL.

Design notes:

* Every token's ``value`` is a :class:`Tok` ``(value, span)`` so grammar actions can build spans
  from their first and last symbols without PLY's position tracking.
* Identifiers and keywords are case-folded to lower case; string and character contents are not.
* ``t``/``f`` (any case) are the boolean literals (token ``BOOL``).
* A backquote starts either a backquoted operator name (```+```, ```<-```, ```and```) or a
  character literal (```a``, backquote then exactly one character).  The operator form is tried
  first and only matches a known operator symbol, or an identifier of two or more letters, that is
  closed by a second backquote, so ```a`` followed by anything but ``...`` is a character.
* Comments are ``% ... %`` and may span lines.
* Lexical errors are reported through the ``diags`` collector attached to the lexer and the
  offending character is skipped.
"""
from __future__ import annotations

import bisect
import math
import sys
from dataclasses import dataclass

import ply.lex as lex

from nessie.diagnostics import Span

KEYWORDS = {
    "function": "FUNCTION", "datatype": "DATATYPE", "if": "IF", "then": "THEN", "else": "ELSE",
    "let": "LET", "in": "IN", "load": "LOAD", "set": "SET", "time": "TIME",
    "and": "AND", "or": "OR", "nor": "NOR", "xor": "XOR", "nand": "NAND",
}

tokens = [
    "ID", "INT", "FLOAT", "STRING", "CHAR", "BOOL", "BACKOP",
    "PLUSPLUS", "PLUS", "RARROW", "MINUS", "TIMES", "NE", "DIV", "CARET", "HASH", "AT",
    "BARBAR", "BAR", "LARROW", "LE", "LT", "GE", "GT", "EQEQ", "EQ", "DCOLON", "COLON",
    "COMMA", "SEMI", "DOLLAR", "LPAREN", "RPAREN", "LBRACKET", "RBRACKET", "LBRACE", "RBRACE",
    # markers injected by the parser front-end to select an entry point
    "TYPEMARK", "VTYPEMARK", "EXPMARK",
] + sorted(set(KEYWORDS.values()))

#: operator symbols that may be written in backquotes as function names
BACKQUOTABLE = ["++", "<-", "->", "<=", ">=", "==", "/=", "||", "+", "-", "*", "/", "^", "#",
                "@", "<", ">"]


@dataclass(frozen=True)
class Tok:
    value: object
    span: Span


class _LexState:
    def __init__(self, filename: str, text: str, diags):
        self.filename = filename
        self.diags = diags
        self.line_starts = [0]
        for i, ch in enumerate(text):
            if ch == "\n":
                self.line_starts.append(i + 1)

    def pos(self, offset: int) -> tuple[int, int]:
        line = bisect.bisect_right(self.line_starts, offset)
        return line, offset - self.line_starts[line - 1] + 1

    def span(self, start: int, end: int) -> Span:
        """Span of text[start:end] (end exclusive)."""
        l1, c1 = self.pos(start)
        l2, c2 = self.pos(max(end - 1, start))
        return Span(self.filename, l1, c1, l2, c2)


def _tok(t, value):
    st: _LexState = t.lexer.state
    t.value = Tok(value, st.span(t.lexpos, t.lexpos + len(t.value)))
    return t


t_ignore = " \t\r\f\v"


def t_newline(t):
    r"\n+"


def t_COMMENT(t):
    r"%[^%]*%"


def t_unterminated_comment(t):
    r"%[^%]*$"
    st: _LexState = t.lexer.state
    st.diags.error(st.span(t.lexpos, t.lexpos + 1), "unterminated comment")


def t_BACKOP(t):
    r"`(\+\+|<-|->|<=|>=|==|/=|\|\||[-+*/^\#@<>]|[A-Za-z][A-Za-z0-9_]+)`"
    return _tok(t, t.value[1:-1].lower())


#: the largest character code of a NESL char (chars are 8-bit; text is read as UTF-8 and a
#: character of code 128-255 is that Latin-1 character)
MAX_CHAR_CODE = 255


def _not_utf8(ch: str) -> str:
    """The message for a character that stands for a byte that is not UTF-8 (text read with
    Python's ``surrogateescape``, as the REPL reads its input: U+DC80-U+DCFF), as the CLI
    says it for a file (``nessie/sources.py``); '' for any other character."""
    if 0xDC80 <= ord(ch) <= 0xDCFF:
        return (f"not UTF-8 text (byte 0x{ord(ch) - 0xDC00:02x}): NESL programs are read as "
                f"UTF-8")
    return ""


def _check_chars(t, text: str, offset: int) -> None:
    """A located error for each character of ``text`` (the contents of a string or character
    literal starting ``offset`` characters into the token) that is not a NESL char."""
    st: _LexState = t.lexer.state
    for i, ch in enumerate(text):
        if ord(ch) > MAX_CHAR_CODE:
            at = t.lexpos + offset + i
            st.diags.error(st.span(at, at + 1),
                           _not_utf8(ch) or
                           f"character {ch!r} (U+{ord(ch):04X}) is not a NESL char: chars are "
                           f"8-bit (codes 0 to {MAX_CHAR_CODE})")


def t_CHAR(t):
    r"`(.|\n)"
    _check_chars(t, t.value[1], 1)
    return _tok(t, t.value[1] if ord(t.value[1]) <= MAX_CHAR_CODE else "?")


def t_FLOAT(t):
    r"[0-9]+\.[0-9]*([eE][-+]?[0-9]+)?|\.[0-9]+([eE][-+]?[0-9]+)?|[0-9]+[eE][-+]?[0-9]+"
    value = float(t.value)
    if value == math.inf:
        # as the Common Lisp reader of the original, which signals a floating-point overflow on
        # a literal beyond the largest double (underflow reads as 0.0 or a denormal, as there)
        st: _LexState = t.lexer.state
        shown = t.value if len(t.value) <= 40 else t.value[:20] + "..." + t.value[-10:]
        st.diags.error(st.span(t.lexpos, t.lexpos + len(t.value)),
                       f"float literal {shown} out of range: larger than the largest NESL float "
                       f"({sys.float_info.max!r})")
        return _tok(t, 0.0)
    return _tok(t, value)


#: digits of the longest integer literal converted (2^63 has 19 digits; longer literals are
#: errors in any case, and Python refuses to convert more than 4300 digits)
MAX_INT_DIGITS = 20


def t_INT(t):
    r"[0-9]+"
    digits = t.value.lstrip("0") or "0"
    if len(digits) > MAX_INT_DIGITS:
        st: _LexState = t.lexer.state
        shown = digits if len(digits) <= 40 else digits[:20] + "..." + digits[-10:]
        st.diags.error(st.span(t.lexpos, t.lexpos + len(t.value)),
                       f"integer literal {shown} ({len(digits)} digits) does not fit in a "
                       f"NESL int (64 bits at most)")
        return _tok(t, 0)
    return _tok(t, int(digits))


def t_STRING(t):
    r'"([^"\\]|\\(.|\n))*"'
    # As the original reads a string (``ctoken-string`` in src/tokens.lisp): a backslash makes
    # the next character, whatever it is, part of the string (``"a\"b"`` is a"b, ``"good\n"``
    # is goodn: there are no escape sequences), and a string may span lines.
    raw = t.value[1:-1]
    if not raw.isascii():
        _check_chars(t, raw, 1)
        raw = "".join(ch if ord(ch) <= MAX_CHAR_CODE else "?" for ch in raw)
    out = []
    i = 0
    while i < len(raw):
        ch = raw[i]
        if ch == "\\" and i + 1 < len(raw):
            out.append(raw[i + 1])
            i += 2
        else:
            out.append(ch)
            i += 1
    return _tok(t, "".join(out))


def t_unterminated_string(t):
    r'"([^"\\]|\\(.|\n))*'
    st: _LexState = t.lexer.state
    st.diags.error(st.span(t.lexpos, t.lexpos + 1),
                   "unterminated string literal (no closing \" before the end of the input)")


def t_ID(t):
    r"[A-Za-z][A-Za-z0-9_']*|_[A-Za-z0-9_']*"
    name = t.value.lower()
    if name in KEYWORDS:
        t.type = KEYWORDS[name]
        return _tok(t, name)
    if name in ("t", "f"):
        t.type = "BOOL"
        return _tok(t, name == "t")
    return _tok(t, name)


_OPERATORS = {
    "++": "PLUSPLUS", "+": "PLUS", "->": "RARROW", "-": "MINUS", "*": "TIMES", "/=": "NE",
    "/": "DIV", "^": "CARET", "#": "HASH", "@": "AT", "||": "BARBAR", "|": "BAR",
    "<-": "LARROW", "<=": "LE", "<": "LT", ">=": "GE", ">": "GT", "==": "EQEQ", "=": "EQ",
    "::": "DCOLON", ":": "COLON", ",": "COMMA", ";": "SEMI", "$": "DOLLAR", "(": "LPAREN",
    ")": "RPAREN", "[": "LBRACKET", "]": "RBRACKET", "{": "LBRACE", "}": "RBRACE",
}


def t_OP(t):
    r"\+\+|\+|->|-|\*|/=|/|\^|\#|@|\|\||\||<-|<=|<|>=|>|==|=|::|:|,|;|\$|\(|\)|\[|\]|\{|\}"
    t.type = _OPERATORS[t.value]
    return _tok(t, t.value)


def t_error(t):
    st: _LexState = t.lexer.state
    ch = t.value[0]
    st.diags.error(st.span(t.lexpos, t.lexpos + 1), _not_utf8(ch) or f"illegal character {ch!r}")
    t.lexer.skip(1)


_LEXER = None


def make_lexer(filename: str, text: str, diags):
    """A fresh lexer (cloned from a prototype built once) positioned on ``text``."""
    global _LEXER
    if _LEXER is None:
        import sys
        _LEXER = lex.lex(module=sys.modules[__name__], debug=False, optimize=False)
    lx = _LEXER.clone()
    lx.state = _LexState(filename, text, diags)
    lx.lineno = 1
    lx.input(text)
    return lx


def tokenize(text: str, filename: str = "<input>"):
    """List of ``(type, value)`` pairs; raises CompileErrors on lexical errors (for tests)."""
    from nessie.diagnostics import Diagnostics
    d = Diagnostics()
    lx = make_lexer(filename, text, d)
    out = []
    while True:
        t = lx.token()
        if t is None:
            break
        out.append((t.type, t.value.value))
    d.raise_if_errors()
    return out
