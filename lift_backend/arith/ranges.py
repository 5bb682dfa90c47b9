"""Range analysis of arithmetic expressions.

Two analyses, both sound for C (truncating) semantics:

* :func:`num_bounds` — a numeric interval ``(lo, hi)`` (``±inf`` when unbounded);
  variables contribute the numeric bounds of their (possibly symbolic) ranges.
* :func:`sym_bounds` — symbolic bounds in terms of *opaque* variables (size variables such
  as ``N``, whose range has no upper bound): loop variables are replaced by their range
  bounds, recursively, so that ``M - l`` with ``0 <= l <= M - 1`` has lower bound ``1``.

``prove_*`` combine both: a fact is proved if the numeric lower bound of the expression,
or the numeric lower bound of its symbolic lower bound, establishes it.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Optional, Tuple

from .core import (Cst, Div, Expr, IfThenElse, Lookup, Mod, Pow, Prod, Sum, SumOver, Var,
                   contains, free_vars, subst, telescope,
                   add, c_div, div, mul, neg, pow_, sub, to_expr, ONE, ZERO, decide)

INF = float("inf")
Num = float  # int or +-inf


def _mul_b(x, y):
    if x == 0 or y == 0:
        return 0
    return x * y


def _imul(a: Tuple[Num, Num], b: Tuple[Num, Num]) -> Tuple[Num, Num]:
    cands = [_mul_b(a[0], b[0]), _mul_b(a[0], b[1]), _mul_b(a[1], b[0]), _mul_b(a[1], b[1])]
    return min(cands), max(cands)


def _tdiv(x, y):
    """Truncating division on ints/infinities (y != 0)."""
    if x in (INF, -INF):
        if y in (INF, -INF):
            return 0  # only used as a bound candidate; |x/y| unbounded handled by callers
        return x if y > 0 else -x
    if y in (INF, -INF):
        return 0
    return c_div(int(x), int(y))


def _bounds(e: Expr, num_bounds, open_lo: Num, open_hi: Num) -> Tuple[Num, Num]:
    """Inclusive numeric interval of ``e``; ``num_bounds`` bounds its children, and a variable or
    lookup without a lower (upper) bound contributes ``open_lo`` (``open_hi``)."""
    if isinstance(e, Cst):
        return (e.value, e.value)
    if isinstance(e, (Var, Lookup)):
        lo = num_bounds(e.lo)[0] if e.lo is not None else open_lo
        hi = num_bounds(e.hi)[1] if e.hi is not None else open_hi
        return (lo, hi)
    if isinstance(e, Sum):
        lo = hi = 0
        for t in e.terms:
            a, b = num_bounds(t)
            lo += a
            hi += b
        return (lo, hi)
    if isinstance(e, Prod):
        r = (e.coef, e.coef)
        seen = {}
        for f in e.factors:
            seen[f] = seen.get(f, 0) + 1
        for f, k in seen.items():
            fb = num_bounds(f)
            if k % 2 == 0 and k > 0:
                # even power: non-negative
                p = fb
                for _ in range(k - 1):
                    p = _imul(p, fb)
                lo = 0 if fb[0] <= 0 <= fb[1] else min(abs(fb[0]), abs(fb[1])) ** k
                r = _imul(r, (max(lo, 0), p[1]))
            else:
                for _ in range(k):
                    r = _imul(r, fb)
        return r
    if isinstance(e, Div):
        a = num_bounds(e.a)
        b = num_bounds(e.b)
        if b[0] > 0:
            cands = [_tdiv(x, y) for x in a for y in b]
            lo, hi = min(cands), max(cands)
            # truncation towards zero: 0 lies between when a straddles 0
            if a[0] <= 0 <= a[1]:
                lo, hi = min(lo, 0), max(hi, 0)
            if a[0] == -INF:
                lo = -INF
            if a[1] == INF:
                hi = INF
            return (lo, hi)
        return (-INF, INF)
    if isinstance(e, Mod):
        a = num_bounds(e.a)
        b = num_bounds(e.b)
        if b[0] > 0:
            m = b[1] - 1
            if a[0] >= 0:
                return (0, min(a[1], m))
            if a[1] <= 0:
                return (max(a[0], -m), 0)
            return (max(a[0], -m), min(a[1], m))
        return (-INF, INF)
    if isinstance(e, Pow):
        bb = num_bounds(e.base)
        eb = num_bounds(e.exp)
        if bb[0] >= 1 and eb[0] >= 0:
            lo = bb[0] ** eb[0]
            hi = INF if (bb[1] == INF or eb[1] == INF) else bb[1] ** eb[1]
            return (lo, hi)
        return (-INF, INF)
    if isinstance(e, IfThenElse):
        t = num_bounds(e.then)
        f = num_bounds(e.els)
        return (min(t[0], f[0]), max(t[1], f[1]))
    if isinstance(e, SumOver):
        body = num_bounds(e.body)
        s = num_bounds(e.start)
        t = num_bounds(e.stop)
        cnt = (max(0, t[0] - s[1]) if t[0] != -INF and s[1] != INF else 0,
               max(0, t[1] - s[0]) if t[1] != INF and s[0] != -INF else INF)
        r = _imul(cnt, body)
        return (min(r[0], 0), max(r[1], 0))
    raise TypeError(e)


@lru_cache(maxsize=200000)
def num_bounds(e: Expr) -> Tuple[Num, Num]:
    """Inclusive numeric interval containing every value of ``e``."""
    return _bounds(e, num_bounds, -INF, INF)


#: the bounds of the kernels' ``int`` (sizes, array lengths and NDRange dimensions are at most
#: ``INT_MAX``, values read from memory are ``int``s)
INT32_MIN, INT32_MAX = -2 ** 31, 2 ** 31 - 1


@lru_cache(maxsize=200000)
def int_bounds(e: Expr) -> Tuple[Num, Num]:
    """Like :func:`num_bounds`, with the documented limits of the kernels: every variable (a
    size, a loop or index variable: an ``int`` of the generated C) and every value read from
    memory is an ``int``.  So a finite interval for every program of the backend: what the generated C
    must be able to hold when it evaluates ``e`` (issue 11: index functions of gather and
    scatter whose intermediate values exceed ``int``)."""
    if isinstance(e, Var):
        # every variable of a kernel is an int (sizes, loop and index variables)
        lo, hi = _bounds(e, int_bounds, INT32_MIN, INT32_MAX)
        return (max(lo, INT32_MIN), min(hi, INT32_MAX))
    r = _bounds(e, int_bounds, INT32_MIN, INT32_MAX)
    if isinstance(e, (Div, Mod)) and INF in (abs(r[0]), abs(r[1])):
        # a divisor of unknown sign (a zero one is an error of its own): the quotient and the
        # remainder are no larger than the dividend
        a = int_bounds(e.a)
        m = max(abs(a[0]), abs(a[1]))
        r = (-m, m)
    return r


SymB = Optional[Expr]


@lru_cache(maxsize=200000)
def sym_bounds(e: Expr) -> Tuple[SymB, SymB]:
    """Inclusive symbolic bounds in terms of opaque variables (``None``: unknown)."""
    if isinstance(e, Cst):
        return (e, e)
    if isinstance(e, Var):
        if e.opaque:
            return (e, e)
        lo = sym_bounds(e.lo)[0] if e.lo is not None else None
        hi = sym_bounds(e.hi)[1] if e.hi is not None else None
        return (lo, hi)
    if isinstance(e, Lookup):
        lo = sym_bounds(e.lo)[0] if e.lo is not None else None
        hi = sym_bounds(e.hi)[1] if e.hi is not None else None
        return (lo, hi)
    if isinstance(e, Sum):
        los, his = [], []
        for t in e.terms:
            a, b = sym_bounds(t)
            los.append(a)
            his.append(b)
        lo = None if any(x is None for x in los) else add(*los)
        hi = None if any(x is None for x in his) else add(*his)
        return (lo, hi)
    if isinstance(e, Prod):
        if len(e.factors) == 1:
            a, b = sym_bounds(e.factors[0])
            c = e.coef
            if c > 0:
                return (None if a is None else mul(c, a), None if b is None else mul(c, b))
            return (None if b is None else mul(c, b), None if a is None else mul(c, a))
        # several factors: only when all are provably non-negative
        bs = [sym_bounds(f) for f in e.factors]
        if all(num_bounds(f)[0] >= 0 for f in e.factors):
            los = [b[0] for b in bs]
            his = [b[1] for b in bs]
            lo = None if any(x is None for x in los) else mul(*los)
            hi = None if any(x is None for x in his) else mul(*his)
            if e.coef > 0:
                return (None if lo is None else mul(e.coef, lo), None if hi is None else mul(e.coef, hi))
            return (None if hi is None else mul(e.coef, hi), None if lo is None else mul(e.coef, lo))
        return (None, None)
    if isinstance(e, Div):
        if prove_nonneg(e.a) and prove_pos(e.b):
            alo, ahi = sym_bounds(e.a)
            blo, bhi = sym_bounds(e.b)
            lo = ZERO if (alo is None or bhi is None) else div(alo, bhi)
            hi = None if (ahi is None or blo is None or num_bounds(blo)[0] <= 0) else div(ahi, blo)
            return (lo, hi)
        return (None, None)
    if isinstance(e, Mod):
        if prove_pos(e.b):
            _, bhi = sym_bounds(e.b)
            m = None if bhi is None else sub(bhi, ONE)
            if prove_nonneg(e.a):
                ahi = sym_bounds(e.a)[1]
                hi = m
                if ahi is not None and (m is None or prove_le(ahi, m)):
                    hi = ahi
                return (ZERO, hi)
            if prove_nonpos(e.a):
                return (None if m is None else neg(m), ZERO)
            return (None if m is None else neg(m), m)
        return (None, None)
    if isinstance(e, Pow):
        if isinstance(e.base, Cst) and e.base.value >= 1:
            elo, ehi = sym_bounds(e.exp)
            return (None if elo is None else pow_(e.base, elo), None if ehi is None else pow_(e.base, ehi))
        return (None, None)
    if isinstance(e, IfThenElse):
        tlo, thi = sym_bounds(e.then)
        flo, fhi = sym_bounds(e.els)
        return (_sym_min(tlo, flo), _sym_max(thi, fhi))
    if isinstance(e, SumOver):
        if prove_nonneg(e.body):
            return (ZERO, None)
        return (None, None)
    raise TypeError(e)


def _sym_min(a: SymB, b: SymB) -> SymB:
    if a is None or b is None:
        return None
    if prove_le(a, b):
        return a
    if prove_le(b, a):
        return b
    return None


def _sym_max(a: SymB, b: SymB) -> SymB:
    if a is None or b is None:
        return None
    if prove_le(a, b):
        return b
    if prove_le(b, a):
        return a
    return None


@lru_cache(maxsize=200000)
def prove_nonneg(e) -> bool:
    """Is ``e >= 0`` for every valuation of its variables within their ranges?"""
    e = to_expr(e)
    if num_bounds(e)[0] >= 0:
        return True
    lo = sym_bounds(e)[0]
    if lo is not None and lo != e and num_bounds(lo)[0] >= 0:
        return True
    if isinstance(e, Sum):
        # h(v + 1) - h(v) + rest with h non-decreasing in the loop variable v (the row
        # lengths (c + 1) * n / p - c * n / p of a balanced split)
        for v in sorted((x for x in free_vars(e) if isinstance(x, Var) and not x.opaque),
                        key=lambda x: (x.name, x.uid)):
            tel = telescope(e.terms, v)
            if tel is not None and _non_decreasing(tel[0], v) and prove_nonneg(add(*tel[1])):
                return True
    return False


def _non_decreasing(h: Expr, v: Var) -> bool:
    """Is ``h(v + 1) >= h(v)`` for every ``v`` in its range?  A quotient by a positive divisor
    that does not depend on ``v`` is where its dividend is (C's truncating division is
    monotone)."""
    if isinstance(h, Div) and not contains(h.b, v) and prove_pos(h.b):
        return _non_decreasing(h.a, v)
    d = sub(subst(h, {v: add(v, ONE)}), h)
    if isinstance(d, Sum) and telescope(d.terms, v) is not None:
        return False        # the difference does not simplify: nothing more is known
    return prove_nonneg(d)


def prove_nonpos(e) -> bool:
    return prove_nonneg(neg(to_expr(e)))


def prove_pos(e) -> bool:
    return prove_nonneg(sub(to_expr(e), ONE))


def prove_le(a, b) -> bool:
    return prove_nonneg(sub(to_expr(b), to_expr(a)))


def prove_lt(a, b) -> bool:
    return prove_nonneg(sub(sub(to_expr(b), to_expr(a)), ONE))


def prove_eq(a, b) -> bool:
    return sub(to_expr(a), to_expr(b)) == ZERO


def upper_bound(e: Expr) -> Optional[Expr]:
    """A symbolic upper bound (inclusive) of ``e`` in terms of opaque variables."""
    return sym_bounds(e)[1]


def lower_bound(e: Expr) -> Optional[Expr]:
    return sym_bounds(e)[0]
