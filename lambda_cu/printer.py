"""Printer of λcu in the paper's concrete syntax (§5 listings).

``pretty(node)`` accepts any node of ``lambda_cu.ir`` or a type, and returns text:

* types: ``int``, ``int64``, ``float``, ``bool``, ``char``, ``unit``, ``[b]``, ``sd``, ``(t1, t2)``;
* GPU expressions on one line, with operator precedence (``||`` < ``&&`` < comparisons < ``+ -`` <
  ``* /`` < ``^`` < prefix ``- ! #`` < subscript/projection/call); ``if``/``let`` extend as far
  right as possible and are parenthesised inside operators; constants: ``3``, ``2.5``, ``true``,
  ``` `a ```, ``()``; projections ``e.0``; int conversions with a non-default result width print
  the width, ``trunc:int64(x)``;
* thunks ``{ i => xs[i] using xs }``, ``{ (x, y) => x + y }``, ``{ () => e }`` (parameter types are
  shown with ``thunk_types=True``: ``{ (x : float, y : float) => x + y }``);
* SOACs ``REDUCE f (init) op (#xs)``, ``SCATTER (ds) f g (n)``, ``SEG_FILTER f p (sd)``,
  ``RANK_DOWN f (n)``...;
* kernels ``kernel K (xs : [float], s : float) -> [float] { ... return zs }``;
* CPU code: ``let x : t = e`` / ``let (a : t, b : u) = e`` / ``let _ = e`` bindings, blocks
  ``{ ... return e }`` (a function body prints its bindings directly inside the function's braces),
  ``run K (args)``, ``f (args)``, ``[1, 2] : [int]``, ``make_sd(lens)``,
  ``check(c, "loc", "msg")``, ``error("loc", "msg") : t``;
* a program: kernels, then functions, then the main bindings, separated by blank lines.

The printer is total on well-formed nodes and never consults the checker.
"""

from __future__ import annotations

from typing import Optional

from . import ir
from .loc import Loc
from .prims import INFIX, PREFIX
from .types import CharT, FloatT, IntT, BoolT, UnitT, Type, type_str, INT

IND = "  "
_P_LOW = 0      # if / let / annotated literals
_P_PREFIX = 7
_P_ATOM = 8


def pretty(node: object, thunk_types: bool = False) -> str:
    """Concrete syntax of a node, a type, or a tuple/list of nodes (one per line)."""
    return _Printer(thunk_types).node(node, 0)


class _Printer:
    def __init__(self, thunk_types: bool) -> None:
        self.thunk_types = thunk_types

    # ---------------------------------------------------------------- dispatch

    def node(self, n: object, ind: int) -> str:
        if isinstance(n, Type):
            return type_str(n)
        if isinstance(n, ir.Program):
            return self.program(n)
        if isinstance(n, ir.Kernel):
            return self.kernel(n, ind)
        if isinstance(n, ir.Function):
            return self.function(n, ind)
        if isinstance(n, ir.Bind):
            return self.bind(n, ind)
        if isinstance(n, ir.KBind):
            return self.kbind(n)
        if isinstance(n, ir.Soac):
            return self.soac(n)
        if isinstance(n, ir.Thunk):
            return self.thunk(n)
        if isinstance(n, ir.Param):
            return self.param(n)
        if isinstance(n, ir.Exp):
            return self.exp(n, _P_LOW, ind)
        if isinstance(n, (tuple, list)):
            return "\n".join(self.node(x, ind) for x in n)
        raise TypeError(f"cannot print {n!r}")

    # ---------------------------------------------------------------- top level

    def program(self, p: ir.Program) -> str:
        parts = [self.kernel(k, 0) for k in p.kernels]
        parts += [self.function(f, 0) for f in p.functions]
        if p.main:
            parts.append("\n".join(self.bind(b, 0) for b in p.main))
        return "\n\n".join(parts) + "\n"

    def param(self, p: ir.Param) -> str:
        return f"{p.var.name} : {type_str(p.ty)}"

    def params(self, ps: tuple[ir.Param, ...]) -> str:
        return "(" + ", ".join(self.param(p) for p in ps) + ")"

    @staticmethod
    def result_types(ts: tuple[Type, ...]) -> str:
        if len(ts) == 1:
            return type_str(ts[0])
        return "(" + ", ".join(type_str(t) for t in ts) + ")"

    def kernel(self, k: ir.Kernel, ind: int) -> str:
        pad = IND * ind
        lines = [f"{pad}kernel {k.name} {self.params(k.params)} -> {self.result_types(k.results)} {{"]
        for b in k.binds:
            lines.append(pad + IND + self.kbind(b))
        lines.append(pad + IND + "return " + self.var_group(k.returns))
        lines.append(pad + "}")
        return "\n".join(lines)

    def function(self, f: ir.Function, ind: int) -> str:
        pad = IND * ind
        head = f"{pad}function {f.name} {self.params(f.params)} -> {type_str(f.result)} "
        return head + self.block(f.body, ind)

    @staticmethod
    def var_group(vs: tuple[ir.Var, ...]) -> str:
        if len(vs) == 1:
            return vs[0].name
        return "(" + ", ".join(v.name for v in vs) + ")"

    def kbind(self, b: ir.KBind) -> str:
        return f"let {self.var_group(b.vars)} = {self.soac(b.soac)}"

    def bind(self, b: ir.Bind, ind: int) -> str:
        pad = IND * ind
        if not b.params:
            lhs = "_"
        elif len(b.params) == 1:
            lhs = self.param(b.params[0])
        else:
            lhs = "(" + ", ".join(self.param(p) for p in b.params) + ")"
        return f"{pad}let {lhs} = {self.exp(b.rhs, _P_LOW, ind)}"

    def block(self, blk: ir.Block, ind: int) -> str:
        pad = IND * ind
        lines = ["{"]
        for b in blk.binds:
            lines.append(self.bind(b, ind + 1))
        lines.append(pad + IND + "return " + self.exp(blk.result, _P_LOW, ind + 1))
        lines.append(pad + "}")
        return "\n".join(lines)

    # ---------------------------------------------------------------- kernels

    def thunk(self, t: ir.Thunk) -> str:
        if self.thunk_types:
            ps = [self.param(p) for p in t.params]
        else:
            ps = [p.var.name for p in t.params]
        if len(ps) == 1 and not self.thunk_types:
            head = ps[0]
        else:
            head = "(" + ", ".join(ps) + ")"
        body = self.exp(t.body, _P_LOW, 0)
        using = ""
        if t.using:
            using = " using " + ", ".join(v.name for v in t.using)
        return f"{{ {head} => {body}{using} }}"

    def soac(self, s: ir.Soac) -> str:
        name = s.NAME
        if isinstance(s, (ir.Rank, ir.SegRank)) and s.descending:
            name += "_DOWN"
        parts = [name]
        if isinstance(s, ir.Scatter):
            parts.append("(" + ", ".join(v.name for v in s.dsts) + ")")
        if isinstance(s, (ir.Reduce, ir.Scan, ir.SegReduce, ir.SegScan)):
            parts += [self.thunk(s.f), "(" + ", ".join(self.exp(e, _P_LOW, 0) for e in s.init) + ")",
                      self.thunk(s.op)]
        else:
            parts += [self.thunk(t) for t in s.thunks()]
        if s.shape is not None:
            parts.append("(" + self.exp(s.shape, _P_LOW, 0) + ")")
        return " ".join(parts)

    # ---------------------------------------------------------------- expressions

    def exp(self, e: ir.Exp, ctx: int, ind: int) -> str:
        s, p = self._exp(e, ind)
        return f"({s})" if p < ctx else s

    def _exp(self, e: ir.Exp, ind: int) -> tuple[str, int]:
        if isinstance(e, ir.Var):
            return e.name, _P_ATOM
        if isinstance(e, ir.Const):
            neg = isinstance(e.value, (int, float)) and not isinstance(e.value, bool) and e.value < 0
            return const_str(e), (_P_PREFIX if neg else _P_ATOM)
        if isinstance(e, ir.Tuple):
            return "(" + ", ".join(self.exp(x, _P_LOW, ind) for x in e.elems) + ")", _P_ATOM
        if isinstance(e, ir.Proj):
            return f"{self.exp(e.tup, _P_ATOM, ind)}.{e.index}", _P_ATOM
        if isinstance(e, ir.PrimOp):
            return self.primop(e, ind)
        if isinstance(e, ir.SegVec):
            return f"seg_{e.field}({self.exp(e.sd, _P_LOW, ind)})", _P_ATOM
        if isinstance(e, ir.Length):
            return "#" + self.exp(e.vec, _P_ATOM, ind), _P_PREFIX
        if isinstance(e, ir.Index):
            return f"{self.exp(e.vec, _P_ATOM, ind)}[{self.exp(e.idx, _P_LOW, ind)}]", _P_ATOM
        if isinstance(e, ir.If):
            c = self.exp(e.cond, _P_LOW, ind)
            t = self.exp(e.then, _P_LOW + 1, ind) if not isinstance(e.then, ir.Block) else self.block(e.then, ind)
            f = self.exp(e.else_, _P_LOW, ind) if not isinstance(e.else_, ir.Block) else self.block(e.else_, ind)
            return f"if {c} then {t} else {f}", _P_LOW
        if isinstance(e, ir.Speculate):
            return (f"speculate ({self.exp(e.size, _P_LOW, ind)}) {self.block(e.fast, ind)} "
                    f"else replay {self.block(e.slow, ind)}", _P_LOW)
        if isinstance(e, ir.Let):
            vs = self.var_group(e.vars)
            return f"let {vs} = {self.exp(e.rhs, _P_LOW, ind)} in {self.exp(e.body, _P_LOW, ind)}", _P_LOW
        if isinstance(e, ir.Block):
            return self.block(e, ind), _P_ATOM
        if isinstance(e, ir.Run):
            return f"run {e.kernel} (" + ", ".join(self.exp(a, _P_LOW, ind) for a in e.args) + ")", _P_ATOM
        if isinstance(e, ir.Call):
            return f"{e.func} (" + ", ".join(self.exp(a, _P_LOW, ind) for a in e.args) + ")", _P_ATOM
        if isinstance(e, ir.VecLit):
            items = ", ".join(self.exp(x, _P_LOW, ind) for x in e.elems)
            return f"[{items}] : [{type_str(e.elem)}]", _P_LOW
        if isinstance(e, ir.MakeSegDes):
            return f"make_sd({self.exp(e.lengths, _P_LOW, ind)})", _P_ATOM
        if isinstance(e, ir.Check):
            return (f"check({self.exp(e.cond, _P_LOW, ind)}, {_qstr(loc_text(e.loc))}, {_qstr(e.message)})",
                    _P_ATOM)
        if isinstance(e, ir.Error):
            return f"error({_qstr(loc_text(e.loc))}, {_qstr(e.message)}) : {type_str(e.ty)}", _P_LOW
        if isinstance(e, ir.Extern):
            args = ", ".join(self.exp(a, _P_LOW, ind) for a in e.args)
            return f"extern {e.name} ({args}) : {type_str(e.ty)}", _P_LOW
        raise TypeError(f"cannot print expression {e!r}")

    def primop(self, e: ir.PrimOp, ind: int) -> tuple[str, int]:
        if e.op in INFIX and len(e.args) == 2:
            sym, p = INFIX[e.op]
            if p == 3:          # comparisons: non-associative
                lp, rp = p + 1, p + 1
            elif e.op == "pow":  # right-associative
                lp, rp = p + 1, p
            else:
                lp, rp = p, p + 1
            return f"{self.exp(e.args[0], lp, ind)} {sym} {self.exp(e.args[1], rp, ind)}", p
        if e.op in PREFIX and len(e.args) == 1:
            return PREFIX[e.op] + self.exp(e.args[0], _P_PREFIX, ind), _P_PREFIX
        name = e.op
        if e.ty is not None and e.ty != INT:
            name += ":" + type_str(e.ty)
        return name + "(" + ", ".join(self.exp(a, _P_LOW, ind) for a in e.args) + ")", _P_ATOM


def const_str(c: ir.Const) -> str:
    """Concrete syntax of a constant."""
    t, v = c.ty, c.value
    if isinstance(t, IntT):
        return str(v)
    if isinstance(t, FloatT):
        return repr(v)
    if isinstance(t, BoolT):
        return "true" if v else "false"
    if isinstance(t, CharT):
        return "`" + v if v.isprintable() and not v.isspace() else f"code_char({ord(v)})"
    if isinstance(t, UnitT):
        return "()"
    raise TypeError(f"not a constant type: {t}")


def loc_text(loc: Optional[Loc]) -> str:
    """How ``check``/``error`` print a location: ``FILE:LINE:COL`` or ``FILE:LINE:COL-EL:EC``
    (``Loc.range_str``), ``?`` for none (read back by ``lambda_cu.parser``)."""
    return "?" if loc is None else loc.range_str()


def _qstr(s: Optional[str]) -> str:
    return '"' + (s or "").replace("\\", "\\\\").replace('"', '\\"') + '"'


__all__ = ["pretty", "const_str", "loc_text"]


#: ``str(node)`` of every λcu node is this printer's concrete syntax (``lambda_cu.ir.Node``)
ir.Node._pretty = staticmethod(pretty)
