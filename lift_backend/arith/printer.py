"""Printing arithmetic expressions as text (the ``.lift`` notation) and as OpenCL C."""
from __future__ import annotations

from typing import Callable, Optional

from .core import (Cond, Cst, Div, Expr, IfThenElse, Lookup, Mod, Pow, Prod, Sum, SumOver, Var)

# precedence levels: 0 = conditional, 1 = additive, 2 = multiplicative, 3 = atom
_ADD, _MUL, _ATOM = 1, 2, 3


class _Printer:
    def __init__(self, var_name: Callable[[Var], str], lookup: Callable[[Lookup, "_Printer"], str],
                 c_mode: bool, wide: bool = False):
        self.var_name = var_name
        self.lookup = lookup
        self.c = c_mode
        #: C in 64 bits: every operand is a long (constants ``5L``, the others converted)
        self.wide = wide

    def cond(self, c: Cond) -> str:
        return f"{self.p(c.lhs, _ADD)} {c.op} {self.p(c.rhs, _ADD)}"

    def p(self, e: Expr, ctx: int = 0) -> str:
        s, prec = self.raw(e)
        return f"({s})" if prec < ctx else s

    def raw(self, e: Expr):
        if isinstance(e, Cst):
            return (str(e.value) + ("L" if self.wide else ""), _ATOM if e.value >= 0 else _ADD)
        if isinstance(e, Var):
            return (f"((long){self.var_name(e)})" if self.wide else self.var_name(e), _ATOM)
        if isinstance(e, Lookup):
            return (f"((long){self.lookup(e, self)})" if self.wide else self.lookup(e, self), _ATOM)
        if isinstance(e, Sum):
            pos = [t for t in e.terms if _coef(t) > 0]
            negs = [t for t in e.terms if _coef(t) < 0]
            parts = []
            for t in pos + negs:
                c = _coef(t)
                if not parts:
                    parts.append(self.p(t, _ADD) if c > 0 else "-" + self.p(_negate(t), _MUL))
                elif c > 0:
                    parts.append(" + " + self.p(t, _ADD))
                else:
                    parts.append(" - " + self.p(_negate(t), _MUL))
            return ("".join(parts), _ADD)
        if isinstance(e, Prod):
            fs = [self.p(f, _ATOM) for f in e.factors]
            if e.coef == -1:
                return ("-" + " * ".join(fs), _ADD)
            if e.coef != 1:
                c = f"{e.coef}L" if self.wide else str(e.coef)
                fs.insert(0, c if e.coef > 0 else f"({c})")
            return (" * ".join(fs), _MUL)
        if isinstance(e, Div):
            return (f"{self.p(e.a, _MUL)} / {self.p(e.b, _ATOM)}", _MUL)
        if isinstance(e, Mod):
            return (f"{self.p(e.a, _MUL)} % {self.p(e.b, _ATOM)}", _MUL)
        if isinstance(e, Pow):
            if self.c:
                if isinstance(e.base, Cst) and e.base.value == 2:
                    return (f"({'1L' if self.wide else '1'} << {self.p(e.exp, _ADD)})", _ATOM)
                raise ValueError(f"no OpenCL form for the power {e!r}")
            return (f"pow({self.p(e.base)}, {self.p(e.exp)})", _ATOM)
        if isinstance(e, IfThenElse):
            return (f"({self.cond(e.cond)} ? {self.p(e.then, _ADD)} : {self.p(e.els, _ADD)})", _ATOM)
        if isinstance(e, SumOver):
            if self.c:
                raise ValueError(f"no closed form for the sum {to_text(e, self.var_name)}")
            return self.sum_over(e)
        raise TypeError(e)

    def sum_over(self, e: SumOver):
        """``sum(k, start, stop, body)``, the bound variable named unlike every other variable
        of ``e``: the limits may hold a variable of the same name, or the bound one itself (the
        rows before row ``gl_id``, summed over a variable ``gl_id``)."""
        from .core import iter_nodes
        others = {self.var_name(n) for n in iter_nodes(e.body) if isinstance(n, Var) and n != e.var}
        others |= {self.var_name(n) for lim in (e.start, e.stop) for n in iter_nodes(lim)
                   if isinstance(n, Var)}
        name = self.var_name(e.var)
        if name in others:
            base, k = name, 1
            while f"{base}_{k}" in others:
                k += 1
            name = f"{base}_{k}"
        outer = self.var_name
        self.var_name = lambda v: name if v == e.var else outer(v)
        try:
            body = self.p(e.body)
        finally:
            self.var_name = outer
        return (f"sum({name}, {self.p(e.start)}, {self.p(e.stop)}, {body})", _ATOM)


def _coef(t: Expr) -> int:
    if isinstance(t, Cst):
        return t.value
    if isinstance(t, Prod):
        return t.coef
    return 1


def _negate(t: Expr) -> Expr:
    from .core import neg
    return neg(t)


def _default_lookup(e: Lookup, pr: _Printer) -> str:
    return f"{e.name}[{pr.p(e.index)}]"


def to_text(e: Expr, var_name: Optional[Callable[[Var], str]] = None) -> str:
    """Readable text; parses back in the ``.lift`` size syntax for the common forms."""
    return _Printer(var_name or (lambda v: v.name), _default_lookup, False).p(e)


def cond_to_text(c: Cond) -> str:
    return _Printer(lambda v: v.name, _default_lookup, False).cond(c)


def to_c(e: Expr, var_name: Optional[Callable[[Var], str]] = None,
         lookup: Optional[Callable[[Lookup], str]] = None, wide: bool = False) -> str:
    """OpenCL C text of ``e``; ``lookup`` renders memory reads (``Lookup`` nodes); ``wide``:
    computed in ``long`` (every variable, read and constant a ``long`` operand)."""
    lk = (lambda l, pr: lookup(l)) if lookup is not None else _default_lookup
    return _Printer(var_name or (lambda v: v.name), lk, True, wide).p(e)


def cond_to_c(c: Cond, var_name=None, lookup=None, wide: bool = False) -> str:
    """OpenCL C text of the comparison ``c``; ``wide``: both sides computed in ``long``."""
    lk = (lambda l, pr: lookup(l)) if lookup is not None else _default_lookup
    return _Printer(var_name or (lambda v: v.name), lk, True, wide).cond(c)
