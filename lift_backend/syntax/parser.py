"""Recursive-descent parser of ``.lift`` files.

Grammar (``$`` loosest and right-associative, ``o`` composition, application by
juxtaposition with parentheses)::

    file     ::= (userfun | program)*
    userfun  ::= 'userfun' NAME '(' [NAME ':' type {',' NAME ':' type}] ')' ':' type '{' C-text '}'
    program  ::= 'program' NAME '(' [NAME ':' type {',' ...}] ')' '=' expr [';']
    expr     ::= comp ['$' expr]
    comp     ::= app {'o' app}
    app      ::= atom {'(' [expr {',' expr}] ')' | '.' '_'INT}
    atom     ::= NAME | literal | '(' expr ')' | '\\' NAME+ '->' expr | pattern | 'generate' '(' arith ')'
    type     ::= scalar | scalarN | '(' type ',' type {',' type} ')' | '[' type ']' size
               | '[' NAME '->' type ']' size
    size     ::= INT | NAME | '(' arith ')'
    arith    ::= usual + - * / % with parentheses, names, len(x), pow(a, b)
    indexfun ::= '\\' NAME '->' arith | reverse | reorderStride(arith) | transpose(arith, arith)
"""
from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple, Union

from .. import arith as A
from ..errors import LiftSyntaxError, Span
from ..reserved import why_reserved
from ..limits import MAX_EXPR_DEPTH, MAX_TYPE_DEPTH, expression_too_deep, type_too_deep
from ..ir import patterns as P
from ..ir.expr import Expr, FunCall, FunDecl, Lambda, Literal, Param, Program, UserFun, compose, extend
from ..types import ArrayType, ScalarType, TupleType, Type, VectorType, is_value, type_free_vars
from ..types.infer import len_var
from ..types.types import SCALAR_NAMES
from .cflow import can_fall_off_end
from .lexer import Lexer, Token

INDEX_LAMBDA_UID = -1
POSITION_VAR_UID = -3

KEYWORDS = {"userfun", "program", "o"}
# names the generated OpenCL C cannot use for parameters and user functions
VALUE_PATTERNS = {"zip", "gatherIdx", "scatterIdx", "permuteIdx", "scatterLastIdx", "splitOffsets", "arrayAccess", "arrayAccessIf", "failIf"}
FUNCTION_PATTERNS = {
    "map", "mapSeq", "mapGlb", "mapWrg", "mapLcl", "reduce", "reduceSeq", "scanSeq", "filterSeq", "radixHistSeq", "radixRankSeq", "iterate", "split",
    "join", "gather", "scatter", "zip", "get", "slide", "pad", "transpose", "id", "toGlobal",
    "toLocal", "toPrivate", "asVector", "asScalar", "mapVec", "slice", "gatherIdx", "scatterIdx", "permuteIdx",
    "scatterMaxIdx", "scatterLastIdx",
    "splitOffsets", "partition", "generate", "arrayAccess", "arrayAccessIf", "failIf",
}


def vector_type_name(name: str) -> Optional[VectorType]:
    for s in SCALAR_NAMES:
        if name.startswith(s) and name[len(s):] in ("2", "3", "4", "8", "16"):
            return VectorType(ScalarType(s), int(name[len(s):]))
    return None


@dataclass
class LiftFile:
    """The contents of a ``.lift`` file."""
    userfuns: Dict[str, UserFun] = field(default_factory=dict)
    programs: Dict[str, Program] = field(default_factory=dict)
    source: str = ""
    file: str = "<input>"

    def program(self, name: Optional[str] = None) -> Program:
        if name is None:
            if not self.programs:
                raise LiftSyntaxError(f"{self.file} defines no program")
            return list(self.programs.values())[-1]
        if name not in self.programs:
            raise LiftSyntaxError(f"no program named {name} in {self.file} "
                                  f"(programs: {', '.join(self.programs) or 'none'})")
        return self.programs[name]


class Parser:
    def __init__(self, source: str, file: str = "<input>", userfuns: Optional[Dict[str, UserFun]] = None):
        self.lx = Lexer(source, file)
        self.file = file
        self.userfuns: Dict[str, UserFun] = dict(userfuns or {})
        self.body_code: Dict[str, str] = {}     # user function -> its body without comments
        self._fresh = itertools.count()
        self.depth = 0                  # nesting of the construct being parsed (limits.py)
        self.max_depth = MAX_EXPR_DEPTH
        self.type_depth = 0             # nesting of array and tuple types
        self.max_type_depth = MAX_TYPE_DEPTH

    def deeper(self, tok: Optional[Token] = None, levels: int = 1) -> None:
        """Enter ``levels`` more levels of nesting (``self.depth -= levels`` on the way out);
        past the limit, a located ``expression too deep`` error."""
        self.depth += levels
        if self.depth > self.max_depth:
            raise self.error(expression_too_deep(self.max_depth), tok)

    # ------------------------------------------------------------------ token helpers
    def span(self, tok: Optional[Token] = None) -> Span:
        return (tok or self.lx.peek()).span(self.file)

    def error(self, msg: str, tok: Optional[Token] = None) -> LiftSyntaxError:
        return LiftSyntaxError(msg, self.span(tok))

    def at(self, text: str, k: int = 0) -> bool:
        t = self.lx.peek(k)
        return t.text == text and t.kind in ("OP", "NAME")

    def expect(self, text: str) -> Token:
        t = self.lx.next()
        if t.text != text or t.kind not in ("OP", "NAME"):
            shown = "end of input" if t.kind == "EOF" else repr(t.text)
            raise self.error(f"expected {text!r}, found {shown}", t)
        return t

    def name(self, what: str = "a name") -> Token:
        t = self.lx.next()
        if t.kind != "NAME":
            shown = "end of input" if t.kind == "EOF" else repr(t.text)
            raise self.error(f"expected {what}, found {shown}", t)
        return t

    def param_name(self, seen) -> Token:
        """A parameter name: not reserved, not given twice."""
        pn = self.name("a parameter name")
        why = "a Lift keyword" if pn.text in KEYWORDS else why_reserved(pn.text, builtins=False)
        if why:
            raise self.error(f"{pn.text} is a reserved name ({why})", pn)
        if pn.text in seen:
            raise self.error(f"parameter {pn.text} is declared twice", pn)
        return pn

    def fresh(self, prefix: str) -> Param:
        return Param(f"_{prefix}{next(self._fresh)}")

    # ------------------------------------------------------------------ file level
    def parse_file(self) -> LiftFile:
        out = LiftFile(source=self.lx.source, file=self.file)
        while self.lx.peek().kind != "EOF":
            t = self.lx.peek()
            if t.text == "userfun":
                uf = self.parse_userfun()
                # an earlier user function of this file calling this one, not yet defined then
                for other in out.userfuns.values():
                    if other.name != uf.name and _calls(self.body_code.get(other.name, other.body), uf.name):
                        raise self.error(f"user function {other.name} calls {uf.name}, which is defined "
                                         f"after it: define {uf.name} first", t)
                if uf.name in self.userfuns and uf.name in out.userfuns:
                    raise self.error(f"user function {uf.name} is defined twice", t)
                self.userfuns[uf.name] = uf
                out.userfuns[uf.name] = uf
            elif t.text == "program":
                prog = self.parse_program()
                if prog.name in out.programs:
                    raise self.error(f"program {prog.name} is defined twice", t)
                out.programs[prog.name] = prog
            else:
                raise self.error(f"expected 'userfun' or 'program', found {t.text!r}", t)
        return out

    def parse_userfun(self) -> UserFun:
        start = self.expect("userfun")
        name = self.name("a function name")
        why = ("a Lift pattern" if name.text in FUNCTION_PATTERNS else
               "a Lift keyword" if name.text in KEYWORDS else why_reserved(name.text))
        if why:
            raise self.error(f"{name.text} is a reserved name ({why})", name)
        self.expect("(")
        pnames, ptypes = [], []
        if not self.at(")"):
            while True:
                pn = self.param_name(pnames)
                self.expect(":")
                pnames.append(pn.text)
                ty = self.lx.peek()
                ptypes.append(self.parse_type({}))
                if not is_value(ptypes[-1]):
                    raise self.error(f"user function {name.text}: parameter {pn.text} has the array type "
                                     f"{ptypes[-1]}: user functions take scalars, vectors and tuples of them "
                                     f"(apply them to the elements with a map or a reduce)", ty)
                if not self.at(","):
                    break
                self.expect(",")
        self.expect(")")
        self.expect(":")
        rt = self.lx.peek()
        ret = self.parse_type({})
        if not is_value(ret):
            raise self.error(f"user function {name.text}: the result type {ret} is an array: user functions "
                             f"return scalars, vectors and tuples of them", rt)
        brace = self.expect("{")
        body = self.lx.raw_braced(brace)
        code = self.lx.braced_code      # the body without its comments and literals
        if _calls(code, name.text):
            raise self.error(f"user function {name.text} calls itself: OpenCL C has no recursion", name)
        if not re.search(r"(?<![\w.])return(?!\w)", code):
            # C lets a non-void function end without a value: its result would be garbage
            raise self.error(f"user function {name.text} returns {ret} but its body has no return "
                             f"statement", name)
        if can_fall_off_end(code):
            # a return in some branches only: the others would give the caller garbage
            line, col = self.lx.linecol(self.lx.pos - 1)
            raise LiftSyntaxError(f"user function {name.text} returns {ret} but control can reach the "
                                  f"end of its body without a return statement (a path that "
                                  f"returns no value)", Span(line, col, self.file))
        calls = tuple(u for n, u in self.userfuns.items() if _calls(code, n))
        self.body_code[name.text] = code
        return UserFun(name.text, tuple(pnames), tuple(ptypes), ret, body.strip(), span=start.span(self.file),
                       calls=calls)

    def parse_program(self) -> Program:
        start = self.expect("program")
        name = self.name("a program name")
        self.expect("(")
        params = []
        if not self.at(")"):
            while True:
                pn = self.param_name([p.name for p in params])
                self.expect(":")
                params.append(Param(pn.text, self.parse_type({})))
                if not self.at(","):
                    break
                self.expect(",")
        self.expect(")")
        sizes = {v.name for p in params for v in type_free_vars(p.type)}
        for p in params:
            if p.name in sizes:
                raise self.error(f"parameter {p.name} has the name of a size variable of the parameter types",
                                 start)
        self.expect("=")
        scope = {p.name: p for p in params}
        body_start = self.lx.peek()
        body = self.parse_expr(scope)
        body = self.as_expr(body, "the program body", body_start)
        if self.at(";"):
            self.lx.next()
        return Program(name.text, tuple(params), body, span=start.span(self.file))

    # ------------------------------------------------------------------ types and sizes
    def parse_type(self, avars: Dict[str, A.Var]) -> Type:
        self.deeper()
        try:
            return self._parse_type(avars)
        finally:
            self.depth -= 1

    def _type_deeper(self, tok: Token):
        self.type_depth += 1
        if self.type_depth > self.max_type_depth:
            raise self.error(type_too_deep(self.max_type_depth), tok)

    def _parse_type(self, avars: Dict[str, A.Var]) -> Type:
        t = self.lx.peek()
        if t.kind == "NAME":
            self.lx.next()
            if t.text in SCALAR_NAMES:
                return ScalarType(t.text)
            vt = vector_type_name(t.text)
            if vt is not None:
                return vt
            raise self.error(f"unknown type {t.text!r}", t)
        if t.text == "(":
            self.lx.next()
            self._type_deeper(t)
            try:
                elems = [self.parse_type(avars)]
                while self.at(","):
                    self.lx.next()
                    elems.append(self.parse_type(avars))
            finally:
                self.type_depth -= 1
            self.expect(")")
            if len(elems) == 1:
                return elems[0]
            return TupleType(tuple(elems))
        if t.text == "[":
            self.lx.next()
            self._type_deeper(t)
            try:
                return self._array_type(avars)
            finally:
                self.type_depth -= 1
        raise self.error(f"expected a type, found {t.text or 'end of input'!r}", t)

    def _array_type(self, avars) -> Type:
        if self.lx.peek().kind == "NAME" and self.at("->", 1):
            iname = self.lx.next().text
            self.expect("->")
            # the position variable's range needs the length, parsed after the element:
            # parse the element with a placeholder then rebuild once the length is known
            placeholder = A.Var(iname, A.Cst(0), None, POSITION_VAR_UID)
            elem = self.parse_type({**avars, iname: placeholder})
            self.expect("]")
            length = self.parse_size(avars)
            ivar = A.Var(iname, A.Cst(0), A.sub(length, 1), POSITION_VAR_UID)
            from ..types import subst_type
            return ArrayType(subst_type(elem, {placeholder: ivar}), length, ivar)
        elem = self.parse_type(avars)
        self.expect("]")
        return ArrayType(elem, self.parse_size(avars))

    def parse_size(self, avars) -> A.Expr:
        t = self.lx.peek()
        if t.kind == "INT":
            self.lx.next()
            return A.Cst(int(t.text))
        if t.kind == "NAME":
            self.lx.next()
            return self.arith_name(t, avars)
        if t.text == "(":
            self.lx.next()
            e = self.parse_arith(avars)
            self.expect(")")
            return e
        raise self.error(f"expected an array length, found {t.text or 'end of input'!r}", t)

    def arith_name(self, t: Token, avars) -> A.Expr:
        if t.text in avars:
            return avars[t.text]
        if t.text in KEYWORDS:
            raise self.error(f"{t.text} is a reserved name", t)
        return A.size_var(t.text)

    # arithmetic: cond ? a : b is not supported in sizes; + - * / % and calls
    def parse_arith(self, avars) -> A.Expr:
        base = self.depth
        self.deeper()
        try:
            e = self.arith_term(avars)
            while self.at("+") or self.at("-"):
                op = self.lx.next()
                self.deeper(op)
                r = self.arith_term(avars)
                e = A.add(e, r) if op.text == "+" else A.sub(e, r)
            return e
        finally:
            self.depth = base

    def arith_term(self, avars) -> A.Expr:
        base = self.depth
        try:
            e = self.arith_unary(avars)
            while self.at("*") or self.at("/") or self.at("%"):
                op = self.lx.next()
                self.deeper(op)
                r = self.arith_unary(avars)
                try:
                    e = A.mul(e, r) if op.text == "*" else (A.div(e, r) if op.text == "/" else A.mod(e, r))
                except ZeroDivisionError as ex:
                    raise self.error(str(ex), op)
            return e
        finally:
            self.depth = base

    def arith_unary(self, avars) -> A.Expr:
        if self.at("-"):
            op = self.lx.next()
            self.deeper(op)
            try:
                return A.neg(self.arith_unary(avars))
            finally:
                self.depth -= 1
        t = self.lx.next()
        if t.kind == "INT":
            return A.Cst(int(t.text))
        if t.kind == "NAME":
            if t.text == "len" and self.at("("):
                self.lx.next()
                pn = self.name("a parameter name")
                self.expect(")")
                return len_var(pn.text)
            if t.text == "pow" and self.at("("):
                self.lx.next()
                b = self.parse_arith(avars)
                self.expect(",")
                x = self.parse_arith(avars)
                self.expect(")")
                try:
                    return A.pow_(b, x)
                except ValueError as ex:
                    raise self.error(f"pow: {ex}", t)
            return self.arith_name(t, avars)
        if t.text == "(":
            e = self.parse_arith(avars)
            self.expect(")")
            return e
        raise self.error(f"expected an arithmetic expression, found {t.text or 'end of input'!r}", t)

    def parse_indexfun(self, avars) -> P.IndexFun:
        t = self.lx.peek()
        if t.text == "\\":
            self.lx.next()
            pn = self.name("an index parameter")
            self.expect("->")
            v = A.Var(pn.text, A.Cst(0), None, INDEX_LAMBDA_UID)
            body = self.parse_arith({**avars, pn.text: v})
            return P.IndexLambda(v, body)
        if t.text == "reverse":
            self.lx.next()
            return P.Reverse()
        if t.text == "reorderStride":
            self.lx.next()
            self.expect("(")
            s = self.parse_arith(avars)
            self.expect(")")
            return P.ReorderStride(s)
        if t.text == "transpose":
            self.lx.next()
            self.expect("(")
            n = self.parse_arith(avars)
            self.expect(",")
            m = self.parse_arith(avars)
            self.expect(")")
            return P.TransposeIdx(n, m)
        raise self.error(f"expected an index function (\\i -> ..., reverse, reorderStride(s), "
                         f"transpose(n, m)), found {t.text or 'end of input'!r}", t)

    # ------------------------------------------------------------------ expressions
    def as_expr(self, x, what: str, tok: Optional[Token] = None) -> Expr:
        if isinstance(x, Expr):
            return x
        raise self.error(f"{what} must be a value, found a function", tok)

    def as_fun(self, x, what: str, tok: Optional[Token] = None) -> FunDecl:
        if isinstance(x, FunDecl):
            return x
        raise self.error(f"{what} must be a function, found a value", tok)

    def parse_expr(self, scope):
        start = self.lx.peek()
        self.deeper(start)
        try:
            return self._parse_expr(scope, start)
        finally:
            self.depth -= 1

    def _parse_expr(self, scope, start):
        left = self.parse_comp(scope)
        if self.at("$"):
            dollar = self.lx.next()
            f = self.as_fun(left, "the left operand of $", start)
            arg = self.as_expr(self.parse_expr(scope), "the right operand of $", dollar)
            return self.apply(f, [arg], start)
        return left

    def parse_comp(self, scope):
        start = self.lx.peek()
        toks = [start]
        items = [self.parse_app(scope)]
        base = self.depth
        try:
            while self.at("o"):
                self.lx.next()
                toks.append(self.lx.peek())
                self.deeper(toks[-1])    # f o g o h is f(g(h(x))): each operand one level deeper
                items.append(self.parse_app(scope))
        finally:
            self.depth = base
        if len(items) == 1:
            return items[0]
        fs = [self.as_fun(x, "an operand of o", t) for x, t in zip(items, toks)]
        return compose_named(fs, self.fresh("c"), [self.span(t) for t in toks])

    def parse_app(self, scope):
        start = self.lx.peek()
        x = self.parse_atom(scope)
        base = self.depth
        try:
            return self._postfix(scope, start, x)
        finally:
            self.depth = base

    def _postfix(self, scope, start, x):
        while True:
            if self.at("("):
                tok = self.lx.next()
                args = []
                if not self.at(")"):
                    while True:
                        a = self.parse_expr(scope)
                        args.append(self.as_expr(a, "an argument", tok))
                        if not self.at(","):
                            break
                        self.lx.next()
                self.expect(")")
                f = self.as_fun(x, "a called expression", start)
                x = self.apply(f, args, start)
            elif self.at(".") and self.lx.peek(1).kind == "NAME" and self.lx.peek(1).text.startswith("_") \
                    and self.lx.peek(1).text[1:].isdigit():
                self.deeper(self.lx.next())     # x._0._1 nests
                comp = self.lx.next()
                x = FunCall(P.Get(int(comp.text[1:])), (self.as_expr(x, "a tuple", start),),
                            span=self.span(start))
            else:
                return x

    def apply(self, f: FunDecl, args: List[Expr], tok: Token) -> FunCall:
        if isinstance(f, P.Zip) and len(args) != f.n:
            f = P.Zip(len(args)) if len(args) >= 2 else f
        arity = f.arity
        if len(args) > arity:
            raise self.error(f"{describe(f)} expects {arity} argument(s), got {len(args)}", tok)
        if len(args) < arity:
            if not args:
                raise self.error(f"{describe(f)} expects {arity} argument(s), got none", tok)
            rest = [self.fresh("a") for _ in range(arity - len(args))]
            return Lambda(tuple(rest), FunCall(f, tuple(args) + tuple(rest), span=self.span(tok)))
        return FunCall(f, tuple(args), span=self.span(tok))

    def parse_atom(self, scope):
        t = self.lx.peek()
        if t.kind in ("INT", "FLOAT"):
            return self.parse_literal()
        if t.text == "-" and self.lx.peek(1).kind in ("INT", "FLOAT"):
            return self.parse_literal()
        if t.text == "(":
            self.lx.next()
            e = self.parse_expr(scope)
            self.expect(")")
            return e
        if t.text == "\\":
            self.lx.next()
            names = [self.name("a lambda parameter")]
            while self.lx.peek().kind == "NAME" and not self.at("->"):
                n = self.name("a lambda parameter")
                if any(m.text == n.text for m in names):
                    # \\a a -> f(a): which a the body means is ambiguous
                    raise self.error(f"lambda parameter {n.text} is declared twice", n)
                names.append(n)
            self.expect("->")
            params = tuple(Param(n.text) for n in names)
            inner = extend(scope, {p.name: p for p in params})
            body = self.as_expr(self.parse_expr(inner), "a lambda body", t)
            return Lambda(params, body)
        if t.kind != "NAME":
            raise self.error(f"unexpected {t.text or 'end of input'!r}", t)
        if t.text in scope:
            self.lx.next()
            return scope[t.text]
        if t.text in self.userfuns:
            self.lx.next()
            return self.userfuns[t.text]
        vt = vector_type_name(t.text)
        if vt is not None and self.at("(", 1):
            self.lx.next()
            self.expect("(")
            lit = self.parse_literal()
            self.expect(")")
            if not isinstance(lit, Literal) or lit.type != vt.elem:
                raise self.error(f"{t.text}(...) expects a {vt.elem} literal", t)
            return Literal(lit.value, vt)
        if t.text in FUNCTION_PATTERNS:
            return self.parse_pattern(scope)
        if t.text in KEYWORDS:
            raise self.error(f"unexpected {t.text!r}", t)
        if t.text in ("reverse", "reorderStride"):
            # the papers' reorder-stride pattern: here an index function of gather and scatter
            arg = "(s)" if t.text == "reorderStride" else ""
            raise self.error(f"{t.text} is an index function, not a pattern: write gather({t.text}{arg}) "
                             f"to read (scatter({t.text}{arg}) to write) through it", t)
        raise self.error(f"unknown name {t.text!r}", t)

    def parse_literal(self) -> Literal:
        neg = ""
        start = self.lx.peek()
        if self.at("-"):
            self.lx.next()
            neg = "-"
        t = self.lx.next()
        span = start.span(self.file)
        if t.kind == "INT":
            value = int(neg + t.text)
            if not -2 ** 31 <= value <= 2 ** 31 - 1:
                raise self.error(f"literal out of range: {neg}{t.text} does not fit the type int "
                                 f"({-2 ** 31} .. {2 ** 31 - 1})", t)
            # the value in decimal: C would read a leading zero as octal (012 is 10 there)
            text = str(value) if value != -2 ** 31 else "(-2147483647 - 1)"
            return Literal(text, ScalarType("int"), span=span)
        if t.kind == "FLOAT":
            single = t.text[-1] in "fF"
            try:
                value = float(t.text.rstrip("fF"))
            except ValueError:
                value = 0.0
            infinite = value == float("inf")
            if single and not infinite:
                import struct
                try:        # rounded to the nearest float (3.4028235e38 is FLT_MAX)
                    infinite = struct.unpack("f", struct.pack("f", value))[0] == float("inf")
                except OverflowError:
                    infinite = True
            if infinite:
                raise self.error(f"literal out of range: {neg}{t.text} does not fit the type "
                                 f"{'float' if single else 'double'} (it would be infinite)", t)
            text = t.text
            mant = text.rstrip("fF")
            if not any(c in mant for c in ".eE"):
                # 5f is not C: a float constant needs a point or an exponent
                text = mant + ".0" + text[len(mant):]
            return Literal(neg + text, ScalarType("float" if single else "double"), span=span)
        raise self.error(f"expected a number, found {t.text!r}", t)

    def static_args(self, parse_one, n: int):
        self.expect("(")
        out = []
        for k in range(n):
            if k:
                self.expect(",")
            out.append(parse_one())
        self.expect(")")
        return out

    def fun_arg(self, scope, what):
        tok = self.lx.peek()
        return self.as_fun(self.parse_expr(scope), what, tok)

    def parse_pattern(self, scope):
        t = self.lx.next()
        n = t.text
        ar = lambda: self.parse_arith({})
        if n in ("map", "mapSeq"):
            (f,) = self.static_args(lambda: self.fun_arg(scope, f"the argument of {n}"), 1)
            return P.Map(n, f)
        if n in ("mapGlb", "mapWrg", "mapLcl"):
            dim = 0
            if self.at("-", 1) and self.lx.peek(2).kind == "INT" and self.at(")", 3):
                # mapGlb(-1)(f): a dimension, not a function argument
                raise self.error(f"{n}: the dimension must be 0, 1 or 2, got -{self.lx.peek(2).text}",
                                 self.lx.peek(1))
            if self.lx.peek(1).kind == "INT" and self.at(")", 2):
                self.expect("(")
                dtok = self.lx.next()
                dim = int(dtok.text)
                if dim not in (0, 1, 2):
                    raise self.error(f"{n}: the dimension must be 0, 1 or 2, got {dim}", dtok)
                self.expect(")")
            (f,) = self.static_args(lambda: self.fun_arg(scope, f"the argument of {n}"), 1)
            return P.Map(n, f, dim)
        if n in ("reduce", "reduceSeq", "scanSeq"):
            self.expect("(")
            f = self.fun_arg(scope, f"the function of {n}")
            self.expect(",")
            itok = self.lx.peek()
            init = self.as_expr(self.parse_expr(scope), f"the initial value of {n}", itok)
            self.expect(")")
            return P.Reduce(n, f, init)
        if n == "filterSeq":
            self.expect("(")
            f = self.fun_arg(scope, "the predicate of filterSeq")
            self.expect(",")
            v = self.fun_arg(scope, "the value function of filterSeq")
            self.expect(")")
            return P.FilterSeq(f, v)
        if n in ("radixHistSeq", "radixRankSeq"):
            self.expect("(")
            btok = self.lx.next()
            if btok.kind != "INT":
                raise self.error(f"{n}: the digit's bits are an integer constant", btok)
            self.expect(",")
            f = self.fun_arg(scope, f"the digit function of {n}")
            self.expect(")")
            return P.RadixSeq(int(btok.text), f, rank=n == "radixRankSeq")
        if n == "iterate":
            (k,) = self.static_args(ar, 1)
            (f,) = self.static_args(lambda: self.fun_arg(scope, "the argument of iterate"), 1)
            return P.Iterate(k, f)
        if n == "split":
            (k,) = self.static_args(ar, 1)
            return P.Split(k)
        if n == "join":
            return P.Join()
        if n in ("gather", "scatter"):
            (fi,) = self.static_args(lambda: self.parse_indexfun({}), 1)
            return P.Gather(fi) if n == "gather" else P.Scatter(fi)
        if n == "zip":
            return P.Zip(2)
        if n == "get":
            self.expect("(")
            it = self.lx.next()
            if it.kind != "INT":
                raise self.error("get expects a constant component number", it)
            self.expect(")")
            return P.Get(int(it.text))
        if n == "slide":
            size, step = self.static_args(ar, 2)
            return P.Slide(size, step)
        if n == "pad":
            self.expect("(")
            l = ar()
            self.expect(",")
            r = ar()
            self.expect(",")
            bt = self.lx.peek()
            if bt.kind == "NAME" and bt.text in P.BOUNDARIES:
                self.lx.next()
                b = bt.text
            elif bt.kind in ("INT", "FLOAT") or bt.text == "-":
                b = self.parse_literal()
            else:
                raise self.error(f"pad: expected clamp, mirror, wrap or a constant, found {bt.text!r}", bt)
            self.expect(")")
            return P.Pad(l, r, b)
        if n == "transpose":
            return P.Transpose()
        if n == "id":
            return P.Id()
        if n in ("toGlobal", "toLocal", "toPrivate"):
            (f,) = self.static_args(lambda: self.fun_arg(scope, f"the argument of {n}"), 1)
            return {"toGlobal": P.ToGlobal, "toLocal": P.ToLocal, "toPrivate": P.ToPrivate}[n](f)
        if n == "asVector":
            (w,) = self.static_args(ar, 1)
            if not isinstance(w, A.Cst) or w.value not in (2, 3, 4, 8, 16):
                raise self.error("asVector: the width must be 2, 3, 4, 8 or 16", t)
            return P.AsVector(w.value)
        if n == "asScalar":
            return P.AsScalar()
        if n == "mapVec":
            (f,) = self.static_args(lambda: self.fun_arg(scope, "the argument of mapVec"), 1)
            return P.MapVec(f)
        if n == "slice":
            a, b = self.static_args(ar, 2)
            return P.Slice(a, b)
        if n == "gatherIdx":
            return P.GatherIdx()
        if n in ("scatterIdx", "permuteIdx"):
            return P.ScatterIdx(once=n == "permuteIdx")
        if n == "scatterMaxIdx":
            (k,) = self.static_args(ar, 1)
            return P.ScatterIdx(mode="max", length=k)
        if n == "scatterLastIdx":
            return P.ScatterIdx(mode="last")
        if n == "splitOffsets":
            return P.SplitOffsets()
        if n == "arrayAccess":
            return P.At()
        if n == "arrayAccessIf":
            return P.AtIf()
        if n == "failIf":
            return P.FailIf()
        if n == "generate":
            # a value (an array without memory), not a function: generate(N) is the array
            (k,) = self.static_args(ar, 1)
            return FunCall(P.Generate(k), (), span=self.span(t))
        if n == "partition":
            self.expect("(")
            k = ar()
            self.expect(",")
            fi = self.parse_indexfun({})
            self.expect(")")
            return P.Partition(k, fi)
        raise self.error(f"unknown pattern {n}", t)  # pragma: no cover


def compose_named(fs: List[FunDecl], p: Param, spans=None) -> Lambda:
    body: Expr = p
    spans = spans or [None] * len(fs)
    for f, sp in zip(reversed(fs), reversed(spans)):
        body = FunCall(f, (body,), span=sp)
    return Lambda((p,), body)


def describe(f: FunDecl) -> str:
    if isinstance(f, UserFun):
        return f"user function {f.name}"
    if isinstance(f, Lambda):
        return "the lambda"
    return getattr(f, "name", type(f).__name__)


def parse(source: str, file: str = "<input>", userfuns: Optional[Dict[str, UserFun]] = None) -> LiftFile:
    """Parse the text of a ``.lift`` file (on a big stack: see :mod:`lift_backend.limits`)."""
    from ..limits import run_deep
    if not isinstance(source, str):
        raise LiftSyntaxError(f"parse: expected the program text as a str, got {type(source).__name__}"
                              + (" (decode it first, e.g. data.decode('utf-8'))"
                                 if isinstance(source, (bytes, bytearray)) else ""))
    return run_deep(lambda: Parser(source, file, userfuns).parse_file())


def parse_file(path: str) -> LiftFile:
    with open(path, encoding="utf-8") as fh:
        return parse(fh.read(), path)


def parse_expr(source: str, params: Dict[str, Param], userfuns: Optional[Dict[str, UserFun]] = None):
    """Parse a single expression with the given parameters in scope."""
    p = Parser(source, "<expr>", userfuns)
    e = p.parse_expr(dict(params))
    if p.lx.peek().kind != "EOF":
        raise p.error(f"unexpected {p.lx.peek().text!r}")
    return e


def _calls(body: str, name: str) -> bool:
    """Whether the C ``body`` of a user function calls the function ``name``."""
    return re.search(rf"(?<![\w.]){re.escape(name)}\s*\(", body) is not None
