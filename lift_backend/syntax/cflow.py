"""Whether control can reach the end of a user function's C body (C lets a non-void function
fall off its end; the caller then reads an indeterminate value, which OpenCL compilers only
warn about).

A small statement-level analysis of C (the body with its comments and literals blanked):
blocks, ``if``/``else``, ``while``, ``for``, ``do``/``while``, ``switch`` with ``case`` and
``default``, ``return``, ``break``, ``continue``, ``goto`` and labels; expressions and
declarations are skipped to their ``;``.  A loop whose condition is a non-zero integer
constant (``while (1)``, ``for (;;)``) ends only through a ``break``.  It answers
``None`` (no verdict: the OpenCL compiler judges the body) for text it does not parse."""
import re
from dataclasses import dataclass
from typing import List, Optional

_TOKEN = re.compile(r"\s*([A-Za-z_]\w*|[0-9][\w.]*|\.[0-9][\w.]*|\S)")


class _Unparsed(Exception):
    pass


@dataclass(frozen=True)
class _Flow:
    completes: bool          # control can go on after the statement
    breaks: bool = False     # a break leaves the enclosing loop or switch
    continues: bool = False  # a continue of the enclosing loop


def _tokens(code: str) -> List[str]:
    out, pos = [], 0
    while True:
        m = _TOKEN.match(code, pos)
        if not m:
            return out
        out.append(m.group(1))
        pos = m.end()


def _constant_true(cond: List[str]) -> bool:
    """Whether a loop condition is a non-zero integer constant (``1``, ``(1)``, ``true``)."""
    text = "".join(t for t in cond if t not in "()")
    if text in ("true",):
        return True
    m = re.fullmatch(r"(0[xX][0-9a-fA-F]+|[0-9]+)[uUlL]*", text)
    return m is not None and m.group(1).strip("0xX") != ""


def _constant_false(cond: List[str]) -> bool:
    """Whether a condition is the constant ``0`` (``(0)``, ``false``)."""
    text = "".join(t for t in cond if t not in "()")
    return text == "false" or re.fullmatch(r"(0[xX]0+|0+)[uUlL]*", text) is not None


class _Parser:
    def __init__(self, toks: List[str]):
        self.toks = toks
        self.i = 0

    def peek(self, k: int = 0) -> Optional[str]:
        j = self.i + k
        return self.toks[j] if j < len(self.toks) else None

    def take(self, want: Optional[str] = None) -> str:
        t = self.peek()
        if t is None or (want is not None and t != want):
            raise _Unparsed()
        self.i += 1
        return t

    def balanced(self, close: str) -> List[str]:
        """The tokens up to the ``close`` matching an already taken opening bracket."""
        out: List[str] = []
        pairs = {"(": ")", "[": "]", "{": "}"}
        stack: List[str] = []
        while True:
            t = self.take()
            if not stack and t == close:
                return out
            if t in pairs:
                stack.append(pairs[t])
            elif t in (")", "]", "}"):
                if not stack or stack.pop() != t:
                    raise _Unparsed()
            out.append(t)

    def to_semicolon(self):
        stack: List[str] = []
        pairs = {"(": ")", "[": "]", "{": "}"}
        while True:
            t = self.take()
            if not stack and t == ";":
                return
            if t in pairs:
                stack.append(pairs[t])
            elif t in (")", "]", "}"):
                if not stack or stack.pop() != t:
                    raise _Unparsed()

    def is_label(self) -> bool:
        t = self.peek()
        if t in ("case", "default"):
            return True
        return t is not None and re.fullmatch(r"[A-Za-z_]\w*", t) is not None and self.peek(1) == ":"

    def label(self):
        t = self.take()
        if t == "case":
            # to the ':' that is no part of a conditional expression
            depth = 0
            while True:
                u = self.take()
                if u == "?":
                    depth += 1
                elif u == ":":
                    if depth == 0:
                        return
                    depth -= 1
        self.take(":")

    def sequence(self, close: Optional[str], in_switch: bool = False) -> tuple:
        """The statements up to ``close`` (``None``: the end): whether their end is reachable,
        whether a break or continue is reached in them, and (in a switch) a ``default``."""
        reachable, breaks, continues, default = True, False, False, False
        while self.peek() != close:
            if self.peek() is None:
                raise _Unparsed()
            if self.is_label():
                if self.peek() == "default":
                    default = True
                elif self.peek() == "case" and not in_switch:
                    raise _Unparsed()
                self.label()
                reachable = True
                continue
            f = self.statement()
            if reachable:
                breaks |= f.breaks
                continues |= f.continues
                reachable = f.completes
        if close is not None:
            self.take(close)
        return reachable, breaks, continues, default

    def statement(self) -> _Flow:
        t = self.peek()
        if t is None:
            raise _Unparsed()
        while self.is_label():
            if self.peek() in ("case", "default"):
                raise _Unparsed()      # a case label outside a switch's block
            self.label()
            t = self.peek()
        if t == "{":
            self.take()
            reachable, breaks, continues, _ = self.sequence("}")
            return _Flow(reachable, breaks, continues)
        if t == ";":
            self.take()
            return _Flow(True)
        if t == "if":
            self.take()
            self.take("(")
            cond = self.balanced(")")
            then = self.statement()
            if self.peek() == "else":
                self.take()
                other = self.statement()
                if _constant_true(cond):
                    return then
                if _constant_false(cond):
                    return other
                return _Flow(then.completes or other.completes, then.breaks or other.breaks,
                             then.continues or other.continues)
            completes = then.completes if _constant_true(cond) else True
            return _Flow(completes, then.breaks, then.continues)
        if t in ("while", "for"):
            self.take()
            self.take("(")
            head = self.balanced(")")
            if t == "for":
                parts = " ".join(head).split(";")
                if len(parts) != 3:
                    raise _Unparsed()
                cond = parts[1].split()
                forever = not cond or _constant_true(cond)
            else:
                forever = _constant_true(head)
            body = self.statement()
            return _Flow(not forever or body.breaks)
        if t == "do":
            self.take()
            body = self.statement()
            self.take("while")
            self.take("(")
            cond = self.balanced(")")
            self.take(";")
            return _Flow(body.breaks or (not _constant_true(cond) and (body.completes or body.continues)))
        if t == "switch":
            self.take()
            self.take("(")
            self.balanced(")")
            if self.peek() != "{":
                return _Flow(True)
            self.take("{")
            reachable, breaks, continues, default = self.sequence("}", in_switch=True)
            return _Flow(reachable or breaks or not default, False, continues)
        if t == "return" or t == "goto":
            self.take()
            self.to_semicolon()
            return _Flow(False)
        if t == "break":
            self.take()
            self.take(";")
            return _Flow(False, breaks=True)
        if t == "continue":
            self.take()
            self.take(";")
            return _Flow(False, continues=True)
        if t in ("else", "}", ")", "]"):
            raise _Unparsed()
        self.to_semicolon()
        return _Flow(True)


def can_fall_off_end(code: str) -> Optional[bool]:
    """Whether control can reach the end of the C function body ``code`` (its comments and
    literals blanked); ``None`` where the body is not C this analysis parses."""
    p = _Parser(_tokens(code))
    try:
        reachable, _, _, _ = p.sequence(None)
    except (_Unparsed, RecursionError):
        return None
    return reachable


def userfun_body_problem(name: str, body: str) -> Optional[str]:
    """What is wrong with the C ``body`` (without its braces) of the user function ``name``, as
    the parser refuses it in a ``.lift`` file, for user functions built through the Python
    API: a preprocessor directive, braces that close the function early or never, no
    ``return`` (or a path without one), a call of itself; ``None`` if nothing is."""
    from ..errors import LiftSyntaxError
    from .lexer import Lexer
    lx = Lexer("{" + body + "\n}")        # a // comment may end the body
    try:
        raw = lx.raw_braced(lx.next())
    except LiftSyntaxError as ex:
        if "unterminated" in ex.message:
            return "its body opens a brace (or a comment or string literal) it does not close"
        return ex.message
    if len(raw) != len(body) + 1:
        # ``return a; } float evil(float a) { return a;``: C outside the function
        return "its body closes a brace it did not open (the C after it would be outside the function)"
    code = lx.braced_code
    if re.search(rf"(?<![\w.]){re.escape(name)}\s*\(", code):
        return "it calls itself: OpenCL C has no recursion"
    if not re.search(r"(?<![\w.])return(?!\w)", code):
        return "its body has no return statement"
    if can_fall_off_end(code):
        return "control can reach the end of its body without a return statement (a path that returns no value)"
    return None
