"""Evaluation of arithmetic expressions with C semantics (the oracle of the soundness tests)."""
from __future__ import annotations

from typing import Callable, Dict, Optional

from .core import (Cond, Cst, Div, Expr, IfThenElse, Lookup, Mod, Pow, Prod, Sum, SumOver, Var,
                   c_div, c_mod)


def eval_cond(c: Cond, env, lookup=None) -> bool:
    a = evaluate(c.lhs, env, lookup)
    b = evaluate(c.rhs, env, lookup)
    return {"<": a < b, "<=": a <= b, "==": a == b, "!=": a != b}[c.op]


def evaluate(e: Expr, env: Dict, lookup: Optional[Callable[[Lookup, int], int]] = None) -> int:
    """Value of ``e``; ``env`` maps variables (or their names) to ints."""
    if isinstance(e, Cst):
        return e.value
    if isinstance(e, Var):
        if e in env:
            return env[e]
        if e.name in env:
            return env[e.name]
        raise KeyError(f"no value for variable {e.name}")
    if isinstance(e, Lookup):
        if lookup is None:
            raise KeyError(f"no lookup for {e.name}")
        return lookup(e, evaluate(e.index, env, lookup))
    if isinstance(e, Sum):
        return sum(evaluate(t, env, lookup) for t in e.terms)
    if isinstance(e, Prod):
        r = e.coef
        for f in e.factors:
            r *= evaluate(f, env, lookup)
        return r
    if isinstance(e, Div):
        return c_div(evaluate(e.a, env, lookup), evaluate(e.b, env, lookup))
    if isinstance(e, Mod):
        return c_mod(evaluate(e.a, env, lookup), evaluate(e.b, env, lookup))
    if isinstance(e, Pow):
        from .core import _const_pow
        return _const_pow(evaluate(e.base, env, lookup), evaluate(e.exp, env, lookup)).value
    if isinstance(e, IfThenElse):
        return evaluate(e.then if eval_cond(e.cond, env, lookup) else e.els, env, lookup)
    if isinstance(e, SumOver):
        s = evaluate(e.start, env, lookup)
        t = evaluate(e.stop, env, lookup)
        total = 0
        inner = dict(env)
        for i in range(s, t):
            inner[e.var] = i
            total += evaluate(e.body, inner, lookup)
        return total
    raise TypeError(e)


def evaluate_all(e: Expr, env: Dict, var: Var, values):
    """Values of ``e`` for every value of ``var`` in the numpy array ``values`` (int64, C
    semantics), the other variables from ``env``; ``KeyError`` for what cannot be evaluated
    so (a lookup, a sum over a range, a missing variable)."""
    import numpy as np

    def go(x):
        if isinstance(x, Cst):
            return np.int64(x.value)
        if isinstance(x, Var):
            if x == var:
                return values
            return np.int64(evaluate(x, env))
        if isinstance(x, Sum):
            r = np.int64(0)
            for t in x.terms:
                r = r + go(t)
            return r
        if isinstance(x, Prod):
            r = np.int64(x.coef)
            for f in x.factors:
                r = r * go(f)
            return r
        if isinstance(x, (Div, Mod)):
            a, b = go(x.a), go(x.b)
            if np.any(b == 0):
                raise ZeroDivisionError("division by zero")
            q = (np.abs(a) // np.abs(b)) * np.sign(a) * np.sign(b)
            return q if isinstance(x, Div) else a - b * q
        if isinstance(x, Pow):
            return go(x.base) ** go(x.exp)
        if isinstance(x, IfThenElse):
            c = x.cond
            a, b = go(c.lhs), go(c.rhs)
            ok = {"<": a < b, "<=": a <= b, "==": a == b, "!=": a != b}[c.op]
            return np.where(ok, go(x.then), go(x.els))
        raise KeyError(f"cannot evaluate {type(x).__name__} for all indices")

    out = go(e)
    return np.broadcast_to(np.asarray(out, dtype=np.int64), np.shape(values))
