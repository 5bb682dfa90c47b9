"""Parser of the printed λcu IR (the concrete syntax of ``lambda_cu.printer``), so that pass tests
can be written as "this IR in, these lines out".

``parse_program(text)`` reads what ``str(program)`` prints (kernels, functions, main bindings) and
returns an ``ir.Program``; ``parse_kernel``, ``parse_function``, ``parse_exp`` and ``parse_type``
read one kernel / function / expression / type.  Bad input raises :class:`LcuParseError`, whose
message starts with ``line:col``.

Hand-written: a small tokenizer and a recursive-descent parser whose precedences are the
printer's (``||`` < ``&&`` < comparisons (non-associative) < ``+ -`` < ``* /`` < ``^``
(right-associative) < prefix ``- ! #`` < subscript / projection / call; ``if``, ``let``,
``[..] : t``, ``error(..) : t`` and ``extern f (..) : t`` extend as far right as possible).

What the printed form does not show, and how the parser fills it in
-------------------------------------------------------------------
* thunk parameter types (printed only with ``pretty(..., thunk_types=True)``, which the parser
  also reads) are *inferred* from the SOAC: pull and index thunks take ``int``; ``ONCE`` thunks
  their printed parameters (none) or ``unit``; a monoid operator takes two values of the pull
  thunk's result type τ (or the 2k components of τ when it has 2k parameters); a predicate takes
  τ (or its k components).  τ is computed with ``lambda_cu.check`` in the kernel's environment.
  This gives back the original types for everything the flattener and fusion produce (pull
  thunks over 64-bit indices would come back as ``int``);
* a kernel's result list ``(t1, t2)`` is one tuple-typed result when the kernel returns one
  variable;
* **not recoverable** (the parser leaves the dataclass default): the source locations ``loc`` of
  ``PrimOp``, ``Index``, ``MakeSegDes``, ``Extern``, ``Permute``, ``Scatter`` and ``SegPermute``
  (parsed as ``None``); the width ``ity`` of ``Length`` and ``SegVec`` (parsed as ``int``); the
  width of an integer ``Const`` (parsed as ``int``); a ``PrimOp.ty`` equal to ``int`` (printed
  like ``None``, parsed as ``None``); a ``None`` message of ``Check``/``Error`` (printed ``""``),
  the end of a ``Check``/``Error`` location whose end is ``(0, 0)`` (printed without it, read
  back ending at its start).  The locations of ``Check`` and ``Error`` are printed
  (``printer.loc_text``) and read back into a ``lambda_cu.loc.Loc`` (``?``: ``None``).
  Ambiguous prints are read one way: ``-3`` is the constant -3 (not ``neg`` of 3), ``(e)`` is
  ``e`` (not a one-tuple), ``()`` the unit constant (not the empty tuple), ``code_char(n)`` the primitive applied to
  ``n`` (the printer also writes an unprintable or white-space character constant that way;
  flattened programs use the primitive).
  :func:`strip_unprinted` maps a node to its printable content (these fields reset) so that
  tests can compare ``parse_program(str(p)) == strip_unprinted(p)``.

This module imports only ``lambda_cu`` (never the ``nessie`` front end).
"""

from __future__ import annotations

import dataclasses
import re
from typing import Callable, Optional

from . import ir
from .loc import Loc
from .prims import INFIX, PREFIX, PRIMS
from .types import (BOOL, CHAR, FLOAT, INT, INT64, SD, UNIT, IntT, TupleT, Type, VecT,
                    flat_components, tuple_of)


class LcuParseError(Exception):
    """Syntax error in printed λcu; ``line``/``col`` are 1-based, the message starts with them."""

    def __init__(self, line: int, col: int, problem: str) -> None:
        super().__init__(f"{line}:{col}: {problem}")
        self.line = line
        self.col = col
        self.problem = problem


# ============================================================================================
# tokens

_TOKEN_RE = re.compile(r"""
    (?P<ws>[ \t\r\n]+)
  | (?P<num>\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)
  | (?P<ident>[A-Za-z_][A-Za-z0-9_']*)
  | (?P<str>"(?:[^"\\]|\\.)*")
  | (?P<char>`[^\s])
  | (?P<op>=>|->|==|!=|<=|>=|&&|\|\||[-+*/^<>!#=(){}\[\],:.])
""", re.VERBOSE)

_INT_RE = re.compile(r"\d+")
#: a printed location (``Loc.range_str``); the file name may itself contain colons
_LOC_RE = re.compile(r"(?P<file>.*):(?P<line>\d+):(?P<col>\d+)(?:-(?P<end_line>\d+):(?P<end_col>\d+))?")


@dataclasses.dataclass(frozen=True)
class _Tok:
    kind: str      # "num", "ident", "str", "char", "op", "eof"
    text: str
    line: int
    col: int
    space: bool    # preceded by white space (distinguishes ``f (x)`` calls from ``sqrt(x)``)


def tokenize(text: str) -> list[_Tok]:
    toks: list[_Tok] = []
    pos, line, lstart, space = 0, 1, 0, True
    while pos < len(text):
        # after a projection dot, a number is an integer index only (``e.0.1``)
        if toks and toks[-1].text == "." and toks[-1].kind == "op" and not space:
            m = _INT_RE.match(text, pos)
            if m:
                toks.append(_Tok("num", m.group(), line, pos - lstart + 1, False))
                pos = m.end()
                continue
        if toks and toks[-1].kind == "ident" and toks[-1].text == "extern" and space:
            m = re.compile(r"[^\s(]+").match(text, pos)
            if m:
                toks.append(_Tok("ident", m.group(), line, pos - lstart + 1, True))
                pos = m.end()
                space = False
                continue
        m = _TOKEN_RE.match(text, pos)
        if m is None:
            raise LcuParseError(line, pos - lstart + 1, f"unexpected character {text[pos]!r}")
        kind = m.lastgroup
        s = m.group()
        if kind == "ws":
            space = True
        else:
            toks.append(_Tok(kind, s, line, pos - lstart + 1, space))
            space = False
        nl = s.count("\n")
        if nl:
            line += nl
            lstart = pos + s.rindex("\n") + 1
        pos = m.end()
    toks.append(_Tok("eof", "", line, pos - lstart + 1, True))
    return toks


# ============================================================================================
# the parser

_BINOPS: dict[str, tuple[str, int]] = {sym: (name, p) for name, (sym, p) in INFIX.items()}
_PREFIXOPS: dict[str, str] = {sym: name for name, sym in PREFIX.items()}
_SOACS: dict[str, type] = {c.NAME: c for c in ir.SOAC_CLASSES}
_SEGVEC = {"seg_" + f: f for f in ir.SegVec.FIELDS}
_BASE_TYPES = {"int": INT, "int64": INT64, "float": FLOAT, "bool": BOOL, "char": CHAR,
               "unit": UNIT, "sd": SD}
_KEYWORDS = frozenset({"let", "in", "if", "then", "else", "return", "kernel", "function", "using",
                       "run", "extern", "error", "check", "make_sd", "true", "false",
                       "speculate", "replay"})


class _Parser:
    def __init__(self, text: str) -> None:
        self.toks = tokenize(text)
        self.i = 0

    # ---------------------------------------------------------------- helpers

    @property
    def tok(self) -> _Tok:
        return self.toks[self.i]

    def peek(self, k: int = 1) -> _Tok:
        return self.toks[min(self.i + k, len(self.toks) - 1)]

    def fail(self, problem: str, tok: Optional[_Tok] = None) -> LcuParseError:
        t = tok or self.tok
        return LcuParseError(t.line, t.col, problem)

    def _desc(self, t: _Tok) -> str:
        return "end of input" if t.kind == "eof" else repr(t.text)

    def at(self, text: str) -> bool:
        t = self.tok
        return t.text == text and t.kind in ("op", "ident")

    def accept(self, text: str) -> bool:
        if self.at(text):
            self.i += 1
            return True
        return False

    def expect(self, text: str, what: str = "") -> _Tok:
        t = self.tok
        if not self.at(text):
            raise self.fail(f"expected '{text}'{' ' + what if what else ''}, found {self._desc(t)}")
        self.i += 1
        return t

    def ident(self, what: str = "a name") -> str:
        t = self.tok
        if t.kind != "ident" or t.text in _KEYWORDS:
            raise self.fail(f"expected {what}, found {self._desc(t)}")
        self.i += 1
        return t.text

    def int_lit(self, what: str = "an integer") -> int:
        t = self.tok
        if t.kind != "num" or not _INT_RE.fullmatch(t.text):
            raise self.fail(f"expected {what}, found {self._desc(t)}")
        self.i += 1
        return int(t.text)

    def string(self) -> str:
        t = self.tok
        if t.kind != "str":
            raise self.fail(f"expected a string, found {self._desc(t)}")
        self.i += 1
        return re.sub(r"\\(.)", r"\1", t.text[1:-1])

    def loc(self) -> Optional[Loc]:
        """The location string of a ``check``/``error`` as the printer writes it
        (``printer.loc_text``): ``FILE:LINE:COL``, ``FILE:LINE:COL-END_LINE:END_COL`` or ``?``."""
        t = self.tok
        text = self.string()
        if text == "?":
            return None
        m = _LOC_RE.fullmatch(text)
        if m is None:
            raise self.fail(f"expected a location FILE:LINE:COL[-LINE:COL] or \"?\", found {text!r}", t)
        line, col = int(m["line"]), int(m["col"])
        if m["end_line"] is None:
            return Loc.point(m["file"], line, col)
        return Loc(m["file"], line, col, int(m["end_line"]), int(m["end_col"]))

    def comma_list(self, item: Callable[[], object], close: str) -> list:
        out: list = []
        if self.accept(close):
            return out
        while True:
            out.append(item())
            if self.accept(close):
                return out
            if not self.accept(","):
                raise self.fail(f"expected ',' or '{close}', found {self._desc(self.tok)}")

    def end(self) -> None:
        if self.tok.kind != "eof":
            raise self.fail(f"unexpected {self._desc(self.tok)} after the end")

    # ---------------------------------------------------------------- types

    def type(self) -> Type:
        t = self.tok
        if self.accept("["):
            elem = self.type()
            self.expect("]", "closing the vector type")
            try:
                return VecT(elem)
            except ValueError as exc:
                raise self.fail(str(exc), t) from None
        if self.accept("("):
            elems = self.comma_list(self.type, ")")
            return TupleT(tuple(elems))
        if t.kind == "ident" and t.text in _BASE_TYPES:
            self.i += 1
            return _BASE_TYPES[t.text]
        raise self.fail(f"expected a type, found {self._desc(t)}")

    def param(self) -> ir.Param:
        name = self.ident("a parameter name")
        self.expect(":", "before the parameter's type")
        return ir.Param(ir.Var(name), self.type())

    def params(self) -> tuple[ir.Param, ...]:
        self.expect("(", "opening the parameter list")
        return tuple(self.comma_list(self.param, ")"))

    def var_group(self) -> tuple[ir.Var, ...]:
        if self.accept("("):
            return tuple(ir.Var(n) for n in self.comma_list(self.ident, ")"))
        return (ir.Var(self.ident()),)

    # ---------------------------------------------------------------- program level

    def program(self) -> ir.Program:
        kernels, functions, main = [], [], []
        while self.tok.kind != "eof":
            if self.at("kernel"):
                if functions or main:
                    raise self.fail("kernels come before functions and main bindings")
                kernels.append(self.kernel())
            elif self.at("function"):
                if main:
                    raise self.fail("functions come before the main bindings")
                functions.append(self.function())
            elif self.at("let"):
                main.append(self.bind())
            else:
                raise self.fail(f"expected 'kernel', 'function' or 'let', found {self._desc(self.tok)}")
        widths = _Widths({k.name: k for k in kernels}, {f.name: f for f in functions})
        return ir.Program(tuple(kernels), tuple(widths.function(f) for f in functions),
                          widths.main(tuple(main)))

    def kernel(self) -> ir.Kernel:
        start = self.expect("kernel")
        name = self.ident("a kernel name")
        params = self.params()
        self.expect("->", "before the kernel's result types")
        rt = self.tok
        if self.accept("("):
            results = tuple(self.comma_list(self.type, ")"))
        else:
            results = (self.type(),)
        self.expect("{", "opening the kernel body")
        binds = []
        while self.at("let"):
            binds.append(self.kbind())
        self.expect("return", "or 'let' in the kernel body")
        returns = self.var_group()
        self.expect("}", "closing the kernel body")
        if len(returns) == 1 and len(results) > 1:
            results = (TupleT(results),)
        elif len(returns) != len(results):
            raise self.fail(f"kernel {name} returns {len(returns)} value(s) but declares "
                            f"{len(results)} result type(s)", rt)
        k = ir.Kernel(name, params, results, tuple(binds), returns)
        try:
            return _infer_thunk_types(k)
        except _InferFail as exc:
            raise self.fail(f"kernel {name}: {exc}", start) from None

    def kbind(self) -> ir.KBind:
        self.expect("let")
        vs = self.var_group()
        self.expect("=")
        return ir.KBind(vs, self.soac())

    def soac(self) -> ir.Soac:
        t = self.tok
        name = t.text if t.kind == "ident" else ""
        descending = name.endswith("_DOWN") and name[:-5] in ("RANK", "SEG_RANK")
        cls = _SOACS.get(name[:-5] if descending else name)
        if cls is None:
            raise self.fail(f"expected a SOAC (MAP, REDUCE, ...), found {self._desc(t)}")
        self.i += 1
        kw: dict = {}
        if cls is ir.Scatter:
            self.expect("(", "opening the SCATTER destinations")
            kw["dsts"] = tuple(ir.Var(n) for n in self.comma_list(self.ident, ")"))
        if cls in (ir.Reduce, ir.Scan, ir.SegReduce, ir.SegScan):
            kw["f"] = self.thunk()
            self.expect("(", "opening the initial value")
            kw["init"] = tuple(self.comma_list(self.exp, ")"))
            kw["op"] = self.thunk()
        else:
            for f in cls.THUNK_FIELDS:
                kw[f] = self.thunk()
        if cls is not ir.Once:
            self.expect("(", f"opening the {'segment descriptor' if cls.SEGMENTED else 'size'} of {name}")
            shape = self.exp()
            self.expect(")", f"closing the {'segment descriptor' if cls.SEGMENTED else 'size'} of {name}")
            kw["sd" if cls.SEGMENTED else "size"] = shape
        if descending:
            kw["descending"] = True
        return cls(**kw)

    def thunk(self) -> ir.Thunk:
        self.expect("{", "opening a thunk")
        ps: list[ir.Param] = []
        if self.accept("("):
            def tparam() -> ir.Param:
                n = self.ident("a thunk parameter")
                ty = self.type() if self.accept(":") else _UNKNOWN
                return ir.Param(ir.Var(n), ty)
            ps = self.comma_list(tparam, ")")
        else:
            ps = [ir.Param(ir.Var(self.ident("a thunk parameter")), _UNKNOWN)]
        self.expect("=>", "after the thunk's parameters")
        body = self.exp()
        using: tuple[ir.Var, ...] = ()
        if self.accept("using"):
            names = [self.ident("a variable of the using list")]
            while self.accept(","):
                names.append(self.ident("a variable of the using list"))
            using = tuple(ir.Var(n) for n in names)
        self.expect("}", "closing the thunk")
        return ir.Thunk(tuple(ps), body, using)

    def function(self) -> ir.Function:
        self.expect("function")
        name = self.ident("a function name")
        params = self.params()
        self.expect("->", "before the function's result type")
        result = self.type()
        return ir.Function(name, params, result, self.block())

    def function_alone(self) -> ir.Function:
        return _Widths({}, {}).function(self.function())

    def bind(self) -> ir.Bind:
        self.expect("let")
        if self.accept("_"):
            ps: tuple[ir.Param, ...] = ()
        elif self.accept("("):
            ps = tuple(self.comma_list(self.param, ")"))
        else:
            ps = (self.param(),)
        self.expect("=")
        return ir.Bind(ps, self.exp())

    def block(self) -> ir.Block:
        self.expect("{", "opening a block")
        binds = []
        while self.at("let"):
            binds.append(self.bind())
        self.expect("return", "or 'let' in the block")
        result = self.exp()
        self.expect("}", "closing the block")
        return ir.Block(tuple(binds), result)

    # ---------------------------------------------------------------- expressions

    def exp(self) -> ir.Exp:
        """An expression at the lowest precedence (``if``, ``let``, annotated forms, operators)."""
        if self.accept("if"):
            cond = self.exp()
            self.expect("then")
            then = self.exp()
            self.expect("else")
            return ir.If(cond, then, self.exp())
        if self.accept("speculate"):
            self.expect("(", "before the size of 'speculate'")
            size = self.exp()
            self.expect(")", "after the size of 'speculate'")
            fast = self.block()
            self.expect("else", "after the block of 'speculate'")
            self.expect("replay", "after 'else' of 'speculate'")
            return ir.Speculate(size, fast, self.block())
        if self.at("let"):
            self.i += 1
            vs = self.var_group()
            self.expect("=")
            rhs = self.exp()
            self.expect("in", "after the right-hand side of a 'let' expression")
            return ir.Let(vs, rhs, self.exp())
        if self.at("["):
            t = self.tok
            self.i += 1
            elems = self.comma_list(self.exp, "]")
            self.expect(":", "before the type of a vector literal")
            vt = self.type()
            if not isinstance(vt, VecT):
                raise self.fail(f"a vector literal has a vector type, not {vt}", t)
            return ir.VecLit(tuple(elems), vt.elem)
        if self.accept("error"):
            self.expect("(")
            loc = self.loc()
            self.expect(",")
            msg = self.string()
            self.expect(")")
            self.expect(":", "before the type of 'error'")
            return ir.Error(self.type(), loc, msg)
        if self.accept("extern"):
            name = self.ident("an extern name")
            self.expect("(")
            args = self.comma_list(self.exp, ")")
            self.expect(":", "before the type of an extern call")
            return ir.Extern(name, tuple(args), self.type())
        return self.binary(1)

    def binary(self, level: int) -> ir.Exp:
        if level > 6:
            return self.prefix()
        lhs = self.binary(level + 1)
        while True:
            t = self.tok
            op = _BINOPS.get(t.text) if t.kind == "op" else None
            if op is None or op[1] != level:
                return lhs
            self.i += 1
            if level == 6:          # ^ is right-associative
                rhs = self.binary(level)
            else:
                rhs = self.binary(level + 1)
            lhs = ir.PrimOp(op[0], (lhs, rhs))
            if level == 3:          # comparisons do not associate
                nt = self.tok
                nop = _BINOPS.get(nt.text) if nt.kind == "op" else None
                if nop is not None and nop[1] == 3:
                    raise self.fail("comparisons do not associate: parenthesise", nt)
                return lhs

    def prefix(self) -> ir.Exp:
        t = self.tok
        nt = self.peek()
        if t.kind == "op" and t.text == "-" and not nt.space:
            if nt.kind == "num":
                self.i += 1
                return self.number(negate=True)
            if nt.kind == "ident" and nt.text in ("inf", "nan"):
                self.i += 2
                return ir.Const(-float(nt.text), FLOAT)
        if t.kind == "op" and t.text in _PREFIXOPS:
            self.i += 1
            return ir.PrimOp(_PREFIXOPS[t.text], (self.prefix(),))
        if self.accept("#"):
            return ir.Length(self.postfix(self.atom()))
        return self.postfix(self.atom())

    def postfix(self, e: ir.Exp) -> ir.Exp:
        while True:
            if self.tok.text == "." and self.tok.kind == "op" and not self.tok.space:
                self.i += 1
                e = ir.Proj(e, self.int_lit("a projection index"))
            elif self.tok.text == "[" and self.tok.kind == "op" and not self.tok.space:
                self.i += 1
                idx = self.exp()
                self.expect("]", "closing the subscript")
                e = ir.Index(e, idx)
            else:
                return e

    def number(self, negate: bool = False) -> ir.Const:
        t = self.tok
        self.i += 1
        s = ("-" if negate else "") + t.text
        if _INT_RE.fullmatch(t.text):
            try:
                return ir.Const(int(s), INT)
            except ValueError:
                return ir.Const(int(s), INT64)
        return ir.Const(float(s), FLOAT)

    def args(self) -> list[ir.Exp]:
        self.expect("(", "opening the argument list")
        return self.comma_list(self.exp, ")")

    def atom(self) -> ir.Exp:
        t = self.tok
        if t.kind == "num":
            return self.number()
        if t.kind == "char":
            self.i += 1
            return ir.Const(t.text[1], CHAR)
        if t.kind == "op":
            if t.text == "(":
                self.i += 1
                if self.accept(")"):
                    return ir.Const(None, UNIT)
                elems = self.comma_list(self.exp, ")")
                return elems[0] if len(elems) == 1 else ir.Tuple(tuple(elems))
            if t.text == "{":
                return self.block()
            raise self.fail(f"expected an expression, found {self._desc(t)}")
        if t.kind != "ident":
            raise self.fail(f"expected an expression, found {self._desc(t)}")
        name = t.text
        nxt = self.peek()
        tight = nxt.text == "(" and nxt.kind == "op" and not nxt.space
        if name in ("true", "false"):
            self.i += 1
            return ir.Const(name == "true", BOOL)
        if name in ("inf", "nan"):
            self.i += 1
            return ir.Const(float(name), FLOAT)
        if name == "run":
            self.i += 1
            k = self.ident("a kernel name")
            return ir.Run(k, tuple(self.args()))
        if name == "check" and tight:
            self.i += 1
            self.expect("(")
            cond = self.exp()
            self.expect(",")
            loc = self.loc()
            self.expect(",")
            msg = self.string()
            self.expect(")")
            return ir.Check(cond, loc, msg)
        if name == "make_sd" and tight:
            self.i += 1
            self.expect("(")
            e = self.exp()
            self.expect(")")
            return ir.MakeSegDes(e)
        if name in _SEGVEC and tight:
            self.i += 1
            self.expect("(")
            e = self.exp()
            self.expect(")")
            return ir.SegVec(e, _SEGVEC[name])
        if name in _KEYWORDS:
            raise self.fail(f"expected an expression, found {self._desc(t)}")
        if name in PRIMS and (tight or (nxt.text == ":" and not nxt.space)):
            self.i += 1
            ty = None
            if self.accept(":"):
                ty = self.type()
            tt = self.tok
            if tt.text != "(" or tt.space:
                raise self.fail(f"expected '(' right after primitive '{name}', found {self._desc(tt)}")
            args = self.args()
            return ir.PrimOp(name, tuple(args), ty)
        self.i += 1
        if nxt.text == "(" and nxt.kind == "op":
            return ir.Call(name, tuple(self.args()))
        return ir.Var(name)


# ============================================================================================
# thunk parameter types (not printed): inferred with the checker

class _Unknown(Type):
    """Placeholder type of a thunk parameter whose type was not printed."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "_UNKNOWN"


_UNKNOWN = _Unknown()


class _InferFail(Exception):
    pass


def _fill(t: ir.Thunk, types: tuple[Type, ...] | Callable[[int], tuple[Type, ...]]) -> ir.Thunk:
    if all(not isinstance(p.ty, _Unknown) for p in t.params):
        return t
    want = types(len(t.params)) if callable(types) else types
    if len(want) != len(t.params):
        raise _InferFail(f"thunk {{ ({', '.join(p.name for p in t.params)}) => ... }} cannot take "
                         f"{len(want)} parameter(s) here")
    ps = tuple(p if not isinstance(p.ty, _Unknown) else ir.Param(p.var, w)
               for p, w in zip(t.params, want))
    return dataclasses.replace(t, params=ps)


def _infer_thunk_types(k: ir.Kernel) -> ir.Kernel:
    """``k`` with the thunk parameter types and the integer literal widths filled in."""
    from .check import LcuTypeError, _Fail, soac_result_types, thunk_type

    widths = _Widths({}, {})
    env: dict[str, Type] = {p.name: p.ty for p in k.params}
    rets = {r.name: t for r, t in zip(k.returns, k.results)}
    binds = []
    for b in k.binds:
        s = b.soac
        kw: dict = {}
        want: Optional[Type] = None
        if all(v.name in rets for v in b.vars):
            comps = [rets[v.name] for v in b.vars]
            if isinstance(s, (ir.Once, ir.Reduce)):
                want = tuple_of(comps)
            elif isinstance(s, (ir.Map, ir.Scan, ir.SegReduce, ir.SegScan, ir.Permute,
                                ir.SegPermute, ir.Scatter)) and all(isinstance(c, VecT) for c in comps):
                want = tuple_of([c.elem for c in comps])
        if isinstance(s, ir.Once):
            kw["f"] = widths.thunk(_fill(s.f, lambda n: (UNIT,) * n), env, want)
        else:
            kw["f"] = f = widths.thunk(_fill(s.f, (INT,)), env, want)
            if "idx" in s.THUNK_FIELDS:
                kw["idx"] = widths.thunk(_fill(s.idx, (INT,)), env)
            if "op" in s.THUNK_FIELDS or "pred" in s.THUNK_FIELDS:
                try:
                    tau = thunk_type(f, env)[1]
                except _Fail as exc:
                    raise _InferFail(f"cannot type the pull thunk of {', '.join(b.names)}: "
                                     f"{exc.problem}") from None
                whole = tuple_of(tau)

                def monoid(n: int) -> tuple[Type, ...]:
                    return (whole, whole) if n == 2 else tau + tau

                def pred(n: int) -> tuple[Type, ...]:
                    return (whole,) if n == 1 else tau

                if "op" in s.THUNK_FIELDS:
                    kw["op"] = widths.thunk(_fill(s.op, monoid), env, whole)
                    iw = tau if len(s.init) == len(tau) else (None,) * len(s.init)
                    kw["init"] = tuple(widths.fix(e, env, w)[0] for e, w in zip(s.init, iw))
                else:
                    kw["pred"] = widths.thunk(_fill(s.pred, pred), env)
        s = dataclasses.replace(s, **kw)
        binds.append(ir.KBind(b.vars, s))
        try:
            res = soac_result_types(s, env)
        except LcuTypeError as exc:
            raise _InferFail(f"binding {', '.join(b.names)}: {exc}") from None
        for v, t in zip(b.vars, res):
            env[v.name] = t
    return dataclasses.replace(k, binds=tuple(binds))


# ============================================================================================
# widths of integer literals (``0`` prints the same for int and int64): recovered from context

_FLEX = object()        # the type of an expression made only of integer literals: any width
_SAME = frozenset({"add", "sub", "mul", "div", "rem", "mod", "min", "max", "neg", "abs", "not",
                   "and", "or", "xor", "nand", "nor"})
_CMP = frozenset({"eq", "ne", "lt", "le", "gt", "ge"})


class _Widths:
    """Gives integer literals the width their context needs: an operand of an operator whose
    other operand is ``int64``, a component of an ``int64`` binding / argument / result.  Types
    are computed leniently (``None`` when unknown); nothing is checked here."""

    def __init__(self, kernels: dict[str, ir.Kernel], funcs: dict[str, ir.Function]) -> None:
        self.kernels = kernels
        self.funcs = funcs

    def fix(self, e: ir.Exp, env: dict, want: Optional[Type] = None) -> tuple[ir.Exp, object]:
        if isinstance(e, ir.Const):
            if isinstance(e.ty, IntT) and e.ty == INT:
                if want == INT64:
                    return ir.Const(e.value, INT64), INT64
                return e, _FLEX
            return e, e.ty
        if isinstance(e, ir.Var):
            return e, env.get(e.name)
        if isinstance(e, ir.Tuple):
            wants = want.elems if isinstance(want, TupleT) and len(want.elems) == len(e.elems) \
                else (None,) * len(e.elems)
            out = [self.fix(x, env, w) for x, w in zip(e.elems, wants)]
            ts = [INT if t is _FLEX else t for _, t in out]
            return ir.Tuple(tuple(x for x, _ in out)), (None if None in ts else TupleT(tuple(ts)))
        if isinstance(e, ir.Proj):
            tup, t = self.fix(e.tup, env)
            return ir.Proj(tup, e.index), (t.elems[e.index] if isinstance(t, TupleT)
                                           and e.index < len(t.elems) else None)
        if isinstance(e, ir.Index):
            idx, _ = self.fix(e.idx, env)
            vec, vt = self.fix(e.vec, env)
            return dataclasses.replace(e, vec=vec, idx=idx), (vt.elem if isinstance(vt, VecT) else None)
        if isinstance(e, ir.SegVec):
            return e, VecT(e.ity)
        if isinstance(e, ir.Length):
            vec, _ = self.fix(e.vec, env)
            return dataclasses.replace(e, vec=vec), e.ity
        if isinstance(e, ir.If):
            cond, _ = self.fix(e.cond, env)
            then, tt = self.fix(e.then, env, want)
            else_, et = self.fix(e.else_, env, want)
            if want is None and tt is _FLEX and et not in (_FLEX, None):
                then, tt = self.fix(e.then, env, et)
            elif want is None and et is _FLEX and tt not in (_FLEX, None):
                else_, et = self.fix(e.else_, env, tt)
            return ir.If(cond, then, else_), (tt if tt not in (_FLEX, None) else et)
        if isinstance(e, ir.Let):
            rhs, rt = self.fix(e.rhs, env)
            inner = dict(env)
            inner.update(self._destructure(e.vars, rt))
            body, bt = self.fix(e.body, inner, want)
            return ir.Let(e.vars, rhs, body), bt
        if isinstance(e, ir.PrimOp):
            return self.primop(e, env, want)
        if isinstance(e, ir.Block):
            inner = dict(env)
            binds = []
            for b in e.binds:
                bw = b.params[0].ty if len(b.params) == 1 else (
                    TupleT(tuple(p.ty for p in b.params)) if b.params else None)
                rhs, _ = self.fix(b.rhs, inner, bw)
                binds.append(ir.Bind(b.params, rhs))
                inner.update({p.name: p.ty for p in b.params})
            res, rt = self.fix(e.result, inner, want)
            return ir.Block(tuple(binds), res), rt
        if isinstance(e, ir.Speculate):
            size, _ = self.fix(e.size, env)
            fast, ft = self.fix(e.fast, env, want)
            slow, st = self.fix(e.slow, env, want)
            return ir.Speculate(size, fast, slow), (ft if ft not in (_FLEX, None) else st)
        if isinstance(e, ir.Run):
            k = self.kernels.get(e.kernel)
            wants = [p.ty for p in k.params] if k and len(k.params) == len(e.args) else [None] * len(e.args)
            args = tuple(self.fix(a, env, w)[0] for a, w in zip(e.args, wants))
            return ir.Run(e.kernel, args), (tuple_of(k.results) if k else None)
        if isinstance(e, ir.Call):
            f = self.funcs.get(e.func)
            wants = [p.ty for p in f.params] if f and len(f.params) == len(e.args) else [None] * len(e.args)
            args = tuple(self.fix(a, env, w)[0] for a, w in zip(e.args, wants))
            return ir.Call(e.func, args), (f.result if f else None)
        if isinstance(e, ir.Extern):
            return dataclasses.replace(e, args=tuple(self.fix(a, env)[0] for a in e.args)), e.ty
        if isinstance(e, ir.VecLit):
            return ir.VecLit(tuple(self.fix(x, env, e.elem)[0] for x in e.elems), e.elem), VecT(e.elem)
        if isinstance(e, ir.MakeSegDes):
            return dataclasses.replace(e, lengths=self.fix(e.lengths, env)[0]), SD
        if isinstance(e, ir.Check):
            return dataclasses.replace(e, cond=self.fix(e.cond, env)[0]), UNIT
        if isinstance(e, ir.Error):
            return e, e.ty
        return e, None

    @staticmethod
    def _destructure(vs: tuple[ir.Var, ...], t: object) -> dict:
        if len(vs) == 1:
            return {vs[0].name: INT if t is _FLEX else t}
        if isinstance(t, TupleT) and len(t.elems) == len(vs):
            return {v.name: c for v, c in zip(vs, t.elems)}
        if isinstance(t, Type) and len(flat_components(t)) == len(vs):
            return {v.name: c for v, c in zip(vs, flat_components(t))}
        return {v.name: None for v in vs}

    def primop(self, e: ir.PrimOp, env: dict, want: Optional[Type]) -> tuple[ir.Exp, object]:
        op = e.op
        if op in _SAME or op in _CMP or op == "select" or op == "pow":
            lo = 1 if op == "select" else 0
            hi = 1 if op == "pow" else len(e.args)
            out = [self.fix(a, env) for a in e.args]
            concrete = [t for _, t in out[lo:hi] if t not in (_FLEX, None)]
            target = concrete[0] if concrete else (want if op not in _CMP else None)
            if target == INT64:
                out = [self.fix(a, env, INT64) if lo <= k < hi and t is _FLEX else (a2, t)
                       for k, (a, (a2, t)) in enumerate(zip(e.args, out))]
            args = tuple(a for a, _ in out)
            if op in _CMP:
                rt: object = BOOL
            elif concrete or target is not None:
                rt = target
            else:
                rt = _FLEX if all(t is _FLEX for _, t in out[lo:hi]) else None
            return dataclasses.replace(e, args=args), rt
        out = [self.fix(a, env) for a in e.args]
        args = tuple(a for a, _ in out)
        try:
            rt = PRIMS[op].typing(tuple(INT if t is _FLEX else t for _, t in out), e.ty) \
                if op in PRIMS and all(isinstance(t, Type) or t is _FLEX for _, t in out) else None
        except (TypeError, IndexError):
            rt = None
        return dataclasses.replace(e, args=args), rt

    def thunk(self, t: ir.Thunk, env: dict, want: Optional[Type] = None) -> ir.Thunk:
        inner = {u.name: env.get(u.name) for u in t.using}
        inner.update({p.name: (None if isinstance(p.ty, _Unknown) else p.ty) for p in t.params})
        return dataclasses.replace(t, body=self.fix(t.body, inner, want)[0])

    def function(self, f: ir.Function) -> ir.Function:
        env = {p.name: p.ty for p in f.params}
        body, _ = self.fix(f.body, env, f.result)
        return dataclasses.replace(f, body=body)

    def main(self, binds: tuple[ir.Bind, ...]) -> tuple[ir.Bind, ...]:
        blk, _ = self.fix(ir.Block(binds, ir.Const(None, UNIT)), {})
        return blk.binds


# ============================================================================================
# entry points

def _run(text: str, what: Callable[[_Parser], object]):
    p = _Parser(text)
    out = what(p)
    p.end()
    return out


def parse_program(text: str) -> ir.Program:
    """The ``ir.Program`` printed as ``text`` (``str(program)``)."""
    return _run(text, _Parser.program)


def parse_kernel(text: str) -> ir.Kernel:
    """One printed kernel."""
    return _run(text, _Parser.kernel)


def parse_function(text: str) -> ir.Function:
    """One printed function."""
    return _run(text, _Parser.function_alone)


def parse_exp(text: str) -> ir.Exp:
    """One printed expression (CPU or GPU level; thunk parameter types are not inferred here)."""
    return _run(text, _Parser.exp)


def parse_type(text: str) -> Type:
    """One printed type."""
    return _run(text, _Parser.type)


# ============================================================================================
# what the printed form keeps

_LOC_NODES = (ir.PrimOp, ir.Index, ir.MakeSegDes, ir.Extern, ir.Permute, ir.Scatter, ir.SegPermute)


def strip_unprinted(node):
    """``node`` with the information the printer does not show reset to what the parser gives
    back (see the module docstring): locations to ``None``, ``Length``/``SegVec`` widths to
    ``int``, a ``PrimOp.ty`` of ``int`` to ``None``, a ``None`` message
    of ``Check``/``Error`` to ``""`` and a location of theirs ending at ``(0, 0)`` to the point
    at its start, one-tuples to their element, the empty tuple and ``neg``
    of a literal to constants, a character constant printed ``code_char(n)`` to the primitive."""
    if isinstance(node, tuple):
        return tuple(strip_unprinted(x) for x in node)
    if not (isinstance(node, ir.Node) and dataclasses.is_dataclass(node)):
        return node
    kw = {f.name: strip_unprinted(getattr(node, f.name)) for f in dataclasses.fields(node)}
    if isinstance(node, _LOC_NODES):
        kw["loc"] = None
    if isinstance(node, (ir.Length, ir.SegVec)):
        kw["ity"] = INT
    if isinstance(node, ir.PrimOp) and kw["ty"] == INT:
        kw["ty"] = None
    if isinstance(node, (ir.Check, ir.Error)):
        loc = kw["loc"]
        if loc is not None and (loc.end_line, loc.end_col) == (0, 0):
            kw["loc"] = Loc.point(loc.file, loc.line, loc.col)   # printed without its end
        kw["message"] = kw["message"] or ""
    out = type(node)(**kw)
    if isinstance(out, ir.Const) and out.ty == CHAR and (not out.value.isprintable()
                                                        or out.value.isspace()):
        return ir.PrimOp("code_char", (ir.Const(ord(out.value), INT),))
    if isinstance(out, ir.Tuple) and len(out.elems) == 1:
        return out.elems[0]
    if isinstance(out, ir.Tuple) and not out.elems:
        return ir.Const(None, UNIT)
    if (isinstance(out, ir.PrimOp) and out.op == "neg" and len(out.args) == 1
            and isinstance(out.args[0], ir.Const) and not isinstance(out.args[0].value, bool)
            and isinstance(out.args[0].value, (int, float)) and out.args[0].value >= 0):
        return ir.Const(-out.args[0].value, out.args[0].ty)
    return out


__all__ = ["LcuParseError", "tokenize", "parse_program", "parse_kernel", "parse_function",
           "parse_exp", "parse_type", "strip_unprinted"]
