"""Symbolic natural-number expressions in canonical form.

Every expression is an immutable, hashable value built by *smart constructors*
(:func:`add`, :func:`mul`, :func:`div`, :func:`mod`, :func:`pow_`, :func:`ite`,
:func:`sum_over`) that keep it in a canonical form and apply the simplification rules
of the Lift paper, guarded by range analysis (:mod:`lift_backend.arith.ranges`).

Semantics are those of OpenCL C ``int`` arithmetic: ``/`` truncates towards zero and
``%`` takes the sign of the dividend.  Intermediate values may be negative (``i - 3``);
every rule below states the sign conditions under which it holds for truncated
division, and the hypothesis tests in ``tests/lift/test_arith_soundness.py`` check them.

Canonical form
--------------
* ``Sum``: flat, at least two terms, like terms collected (``2*x + 3*x -> 5*x``),
  at most one constant, terms sorted by a total order on monomials.
* ``Prod``: an integer coefficient and at least one non-constant factor, factors sorted;
  products distribute over sums (polynomial normal form).
* ``Div``/``Mod``/``Pow``/``IfThenElse``/``SumOver``/``Lookup`` are atoms of that polynomial.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Callable, Dict, Iterable, Optional, Tuple, Union

#: functions of the modules above this one (``printer.to_text``, ``ranges.prove_*``), which
#: import this module: the package's ``__init__`` installs them here once both are loaded, so
#: the folder's imports point one way (issue 13)
_LATE: Dict[str, Callable] = {}


def _late(*names: str):
    """The installed functions ``names`` (one, or a tuple of several)."""
    return _LATE[names[0]] if len(names) == 1 else tuple(_LATE[n] for n in names)

__all__ = [
    "Expr", "Cst", "Var", "Sum", "Prod", "Div", "Mod", "Pow", "IfThenElse", "SumOver",
    "Lookup", "Cond", "add", "sub", "mul", "neg", "div", "mod", "pow_", "ite", "sum_over",
    "cst", "to_expr", "size_var", "fresh_var", "VarSupply", "subst", "free_vars", "contains", "cmp",
]

class Expr:
    """Base class of arithmetic expressions (immutable, hashable, canonical)."""

    __slots__ = ("_key", "_hash")

    def _compute_key(self) -> tuple:  # pragma: no cover - abstract
        raise NotImplementedError

    @property
    def key(self) -> tuple:
        try:
            return self._key
        except AttributeError:
            k = self._compute_key()
            object.__setattr__(self, "_key", k)
            object.__setattr__(self, "_hash", hash(k))
            return k

    def __hash__(self) -> int:
        try:
            return self._hash
        except AttributeError:
            self.key
            return self._hash

    def __eq__(self, other) -> bool:
        if self is other:
            return True
        if isinstance(other, int) and not isinstance(other, bool):
            return isinstance(self, Cst) and self.value == other
        if not isinstance(other, Expr):
            return NotImplemented
        return hash(self) == hash(other) and self.key == other.key

    def __ne__(self, other) -> bool:
        r = self.__eq__(other)
        return r if r is NotImplemented else not r

    def __setattr__(self, name, value):
        raise AttributeError("arithmetic expressions are immutable")

    # -- pickling (the compiler's disk cache, lambda_cu.diskcache) ------------------
    # the fields of every class of the hierarchy, without the cached key and hash: the hash
    # of a key holding names differs from one process to the next
    def __getstate__(self) -> dict:
        return {n: getattr(self, n) for c in type(self).__mro__
                for n in getattr(c, "__slots__", ()) if n not in ("_key", "_hash")}

    def __setstate__(self, state: dict) -> None:
        _init(self, **state)

    # -- operators -------------------------------------------------------------------
    def __add__(self, o): return add(self, to_expr(o))
    def __radd__(self, o): return add(to_expr(o), self)
    def __sub__(self, o): return add(self, neg(to_expr(o)))
    def __rsub__(self, o): return add(to_expr(o), neg(self))
    def __mul__(self, o): return mul(self, to_expr(o))
    def __rmul__(self, o): return mul(to_expr(o), self)
    def __floordiv__(self, o): return div(self, to_expr(o))   # C (truncating) division
    def __rfloordiv__(self, o): return div(to_expr(o), self)
    def __truediv__(self, o): return div(self, to_expr(o))    # also C division
    def __rtruediv__(self, o): return div(to_expr(o), self)
    def __mod__(self, o): return mod(self, to_expr(o))
    def __rmod__(self, o): return mod(to_expr(o), self)
    def __neg__(self): return neg(self)
    def __pow__(self, o): return pow_(self, to_expr(o))

    # -- comparisons building conditions (used by ite) -------------------------------
    def lt(self, o): return Cond("<", self, to_expr(o))
    def le(self, o): return Cond("<=", self, to_expr(o))
    def eq(self, o): return Cond("==", self, to_expr(o))
    def ne(self, o): return Cond("!=", self, to_expr(o))
    def gt(self, o): return Cond("<", to_expr(o), self)
    def ge(self, o): return Cond("<=", to_expr(o), self)

    @property
    def is_const(self) -> bool:
        return isinstance(self, Cst)

    def __repr__(self) -> str:
        to_text = _late("to_text")
        return to_text(self)

    __str__ = __repr__


def _init(obj, **fields):
    for k, v in fields.items():
        object.__setattr__(obj, k, v)


class Cst(Expr):
    __slots__ = ("value",)

    def __init__(self, value: int):
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"Cst expects an int, got {value!r}")
        _init(self, value=value)

    def _compute_key(self):
        return (0, self.value)


class Var(Expr):
    """A variable with an inclusive range ``lo <= v <= hi`` (``None``: unbounded).

    Size variables (``N``) are *opaque*: ``hi is None``; they stay symbolic in range
    analysis.  Loop variables have finite (possibly symbolic) bounds which range analysis
    substitutes.  Identity is ``(name, uid)``; size variables of the same name are equal.
    """

    __slots__ = ("name", "lo", "hi", "uid")

    def __init__(self, name: str, lo: Optional[Expr] = None, hi: Optional[Expr] = None, uid: int = 0):
        _init(self, name=name, lo=None if lo is None else to_expr(lo),
              hi=None if hi is None else to_expr(hi), uid=uid)

    def _compute_key(self):
        # the range is part of the identity: cached simplifications depend on it
        return (1, self.name, self.uid,
                None if self.lo is None else self.lo.key,
                None if self.hi is None else self.hi.key)

    @property
    def opaque(self) -> bool:
        return self.hi is None


class Lookup(Expr):
    """An opaque value read from memory, e.g. ``offsets[i + 1]``.

    ``array`` is a hashable reference (whatever the producer of the expression needs to
    resolve it at code generation); ``name`` is used for printing; ``lo``/``hi`` bound
    the values stored in the array (inclusive, ``None``: unbounded).
    """

    __slots__ = ("array", "name", "index", "lo", "hi")

    def __init__(self, array, name: str, index: Expr, lo=0, hi=None):
        _init(self, array=array, name=name, index=to_expr(index),
              lo=None if lo is None else to_expr(lo), hi=None if hi is None else to_expr(hi))

    def _compute_key(self):
        return (2, self.name, repr(self.array), self.index.key)


class Pow(Expr):
    __slots__ = ("base", "exp")

    def __init__(self, base: Expr, exp: Expr):
        _init(self, base=base, exp=exp)

    def _compute_key(self):
        return (3, self.base.key, self.exp.key)


class Div(Expr):
    __slots__ = ("a", "b")

    def __init__(self, a: Expr, b: Expr):
        _init(self, a=a, b=b)

    def _compute_key(self):
        return (4, self.a.key, self.b.key)


class Mod(Expr):
    __slots__ = ("a", "b")

    def __init__(self, a: Expr, b: Expr):
        _init(self, a=a, b=b)

    def _compute_key(self):
        return (5, self.a.key, self.b.key)


class Cond:
    """A comparison ``lhs op rhs`` with op in ``< <= == !=``."""

    __slots__ = ("op", "lhs", "rhs")
    OPS = ("<", "<=", "==", "!=")

    def __init__(self, op: str, lhs, rhs):
        if op == ">":
            op, lhs, rhs = "<", rhs, lhs
        elif op == ">=":
            op, lhs, rhs = "<=", rhs, lhs
        if op not in self.OPS:
            raise ValueError(f"unknown comparison {op!r}")
        object.__setattr__(self, "op", op)
        object.__setattr__(self, "lhs", to_expr(lhs))
        object.__setattr__(self, "rhs", to_expr(rhs))

    @property
    def key(self):
        return (self.op, self.lhs.key, self.rhs.key)

    def __eq__(self, other):
        return isinstance(other, Cond) and self.key == other.key

    def __hash__(self):
        return hash(self.key)

    def __setattr__(self, name, value):
        raise AttributeError("immutable")

    def __getstate__(self) -> dict:
        return {"op": self.op, "lhs": self.lhs, "rhs": self.rhs}

    def __setstate__(self, state: dict) -> None:
        _init(self, **state)

    def negate(self) -> "Cond":
        if self.op == "<":
            return Cond("<=", self.rhs, self.lhs)
        if self.op == "<=":
            return Cond("<", self.rhs, self.lhs)
        if self.op == "==":
            return Cond("!=", self.lhs, self.rhs)
        return Cond("==", self.lhs, self.rhs)

    def map(self, f: Callable[[Expr], Expr]) -> "Cond":
        return Cond(self.op, f(self.lhs), f(self.rhs))

    def __repr__(self):
        to_text = _late("to_text")
        return f"{to_text(self.lhs)} {self.op} {to_text(self.rhs)}"


def cmp(op: str, lhs, rhs) -> Cond:
    return Cond(op, lhs, rhs)


class IfThenElse(Expr):
    __slots__ = ("cond", "then", "els")

    def __init__(self, cond: Cond, then: Expr, els: Expr):
        _init(self, cond=cond, then=then, els=els)

    def _compute_key(self):
        return (6, self.cond.key, self.then.key, self.els.key)


class SumOver(Expr):
    """``sum_{var = start}^{stop - 1} body`` (zero when ``stop <= start``)."""

    __slots__ = ("var", "start", "stop", "body")

    def __init__(self, var: Var, start: Expr, stop: Expr, body: Expr):
        _init(self, var=var, start=start, stop=stop, body=body)

    def _compute_key(self):
        return (7, self.var.key, self.start.key, self.stop.key, self.body.key)


class Prod(Expr):
    __slots__ = ("coef", "factors")

    def __init__(self, coef: int, factors: Tuple[Expr, ...]):
        _init(self, coef=coef, factors=factors)

    def _compute_key(self):
        return (8, tuple(f.key for f in self.factors), self.coef)


class Sum(Expr):
    __slots__ = ("terms",)

    def __init__(self, terms: Tuple[Expr, ...]):
        _init(self, terms=terms)

    def _compute_key(self):
        return (9, tuple(t.key for t in self.terms))


# ---------------------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------------------

ZERO = Cst(0)
ONE = Cst(1)


def cst(v: int) -> Cst:
    return Cst(v)


def to_expr(x) -> Expr:
    if isinstance(x, Expr):
        return x
    if isinstance(x, bool):
        raise TypeError("booleans are not arithmetic expressions")
    if isinstance(x, int):
        return Cst(x)
    try:  # numpy integers
        import numbers
        if isinstance(x, numbers.Integral):
            return Cst(int(x))
    except Exception:  # pragma: no cover
        pass
    raise TypeError(f"cannot convert {x!r} to an arithmetic expression")


def size_var(name: str, lo: int = 1) -> Var:
    """A size variable (natural number > 0 by default), opaque in range analysis."""
    return Var(name, Cst(lo), None, 0)


class VarSupply:
    """A supply of fresh variables, owned by the pass (or the compilation) that makes them:
    uids ``start``, ``start + 1``, ... (the reserved uids of size, position and index
    variables are 0 or negative).  There is no process-wide counter: a program compiled twice
    gets the same variables (issue 13)."""

    __slots__ = ("next_uid",)

    def __init__(self, start: int = 1):
        self.next_uid = max(start, 1)

    @classmethod
    def avoiding(cls, *exprs: Expr) -> "VarSupply":
        """A supply whose variables are distinct from every variable of ``exprs`` (those of
        their ranges included): for a variable bound within one computation."""
        return cls(max(uids_in(*exprs), default=0) + 1)

    def uid(self) -> int:
        u = self.next_uid
        self.next_uid += 1
        return u

    def fresh(self, name: str, lo, hi) -> Var:
        """A fresh variable with inclusive range ``[lo, hi]``, distinct from the supply's
        others."""
        return Var(name, to_expr(lo), to_expr(hi), self.uid())


def fresh_var(name: str, lo, hi, supply: VarSupply) -> Var:
    """A fresh variable of ``supply`` with inclusive range ``[lo, hi]``."""
    return supply.fresh(name, lo, hi)


def uids_in(*exprs: Expr) -> set:
    """The uids of the variables of ``exprs``, those in the ranges of variables and of
    lookups included."""
    out: set = set()
    todo = [e for e in exprs if isinstance(e, Expr)]
    seen: set = set()
    while todo:
        for n in iter_nodes(todo.pop()):
            if isinstance(n, (Var, Lookup)):
                if isinstance(n, Var):
                    out.add(n.uid)
                for b in (n.lo, n.hi):
                    if isinstance(b, Expr) and id(b) not in seen:
                        seen.add(id(b))
                        todo.append(b)
            elif isinstance(n, SumOver):
                todo.append(n.var)
    return out


def c_div(a: int, b: int) -> int:
    """C division (truncation toward zero)."""
    if b == 0:
        raise ZeroDivisionError("division by zero in arithmetic expression")
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def c_mod(a: int, b: int) -> int:
    """C remainder (sign of the dividend)."""
    return a - b * c_div(a, b)


def _split_term(t: Expr) -> Tuple[int, Tuple[Expr, ...]]:
    if isinstance(t, Cst):
        return t.value, ()
    if isinstance(t, Prod):
        return t.coef, t.factors
    return 1, (t,)


def _make_term(coef: int, factors: Tuple[Expr, ...]) -> Expr:
    if coef == 0:
        return ZERO
    if not factors:
        return Cst(coef)
    if coef == 1 and len(factors) == 1:
        return factors[0]
    return Prod(coef, factors)


def _mono_key(factors: Tuple[Expr, ...]) -> tuple:
    return tuple(f.key for f in factors)


def _term_order(t: Expr):
    c, fs = _split_term(t)
    # constants last, then by degree, then structurally
    return (0 if fs else 1, len(fs), _mono_key(fs), c)


# ---------------------------------------------------------------------------------------
# smart constructors
# ---------------------------------------------------------------------------------------

def neg(a) -> Expr:
    return mul(Cst(-1), to_expr(a))


def sub(a, b) -> Expr:
    return add(to_expr(a), neg(to_expr(b)))


def add(*xs) -> Expr:
    flat = []
    for x in xs:
        x = to_expr(x)
        if isinstance(x, Sum):
            flat.extend(x.terms)
        else:
            flat.append(x)
    if len(flat) == 1:
        return flat[0]
    acc: Dict[tuple, list] = {}
    for t in flat:
        c, fs = _split_term(t)
        if c == 0:
            continue
        k = _mono_key(fs)
        if k in acc:
            acc[k][0] += c
        else:
            acc[k] = [c, fs]
    changed = True
    # rule: (x/y)*y + x%y = x  (C identity for y != 0, any signs)
    while changed:
        changed = False
        for k, (c, fs) in list(acc.items()):
            if k not in acc or c == 0:
                continue
            for idx, f in enumerate(fs):
                if not isinstance(f, Mod):
                    continue
                other = fs[:idx] + fs[idx + 1:]
                partner = mul(_make_term(c, other), Div(f.a, f.b), f.b)
                pc, pfs = _split_term(partner)
                pk = _mono_key(pfs)
                if pk in acc and pk != k and acc[pk][0] == pc:
                    del acc[pk]
                    del acc[k]
                    replacement = mul(_make_term(c, other), f.a)
                    for t in (replacement.terms if isinstance(replacement, Sum) else (replacement,)):
                        rc, rfs = _split_term(t)
                        rk = _mono_key(rfs)
                        if rk in acc:
                            acc[rk][0] += rc
                        else:
                            acc[rk] = [rc, rfs]
                    changed = True
                    break
            if changed:
                break
    terms = [_make_term(c, fs) for c, fs in acc.values() if c != 0]
    if not terms:
        return ZERO
    if len(terms) == 1:
        return terms[0]
    terms.sort(key=_term_order)
    return Sum(tuple(terms))


def mul(*xs) -> Expr:
    coef = 1
    factors = []
    sums = []
    for x in xs:
        x = to_expr(x)
        if isinstance(x, Cst):
            coef *= x.value
        elif isinstance(x, Prod):
            coef *= x.coef
            factors.extend(x.factors)
        elif isinstance(x, Sum):
            sums.append(x)
        else:
            factors.append(x)
    if coef == 0:
        return ZERO
    if sums:
        base = _make_term(coef, tuple(sorted(factors, key=lambda f: f.key))) if factors else Cst(coef)
        result_terms = [base]
        for s in sums:
            result_terms = [mul(a, b) for a in result_terms for b in s.terms]
        return add(*result_terms)
    # combine powers with the same base: b^x * b^y = b^(x+y)
    pows: Dict[tuple, list] = {}
    rest = []
    for f in factors:
        if isinstance(f, Pow):
            pows.setdefault(f.base.key, [f.base, []])[1].append(f.exp)
        else:
            rest.append(f)
    for base, exps in pows.values():
        if len(exps) == 1:
            rest.append(Pow(base, exps[0]))
        else:
            p = pow_(base, add(*exps))
            if isinstance(p, Cst):
                coef *= p.value
            elif isinstance(p, Prod):
                coef *= p.coef
                rest.extend(p.factors)
            else:
                rest.append(p)
    rest.sort(key=lambda f: f.key)
    return _make_term(coef, tuple(rest))


def _exact_quotient(a: Expr, b: Expr) -> Optional[Expr]:
    """``a / b`` when every term of ``a`` is a multiple of ``b`` (exact, sign-independent)."""
    if a == b:
        return ONE
    if isinstance(b, Sum):
        return None
    bc, bfs = _split_term(b)
    if bc == 0:
        return None
    out = []
    for t in (a.terms if isinstance(a, Sum) else (a,)):
        c, fs = _split_term(t)
        if c % bc != 0:
            return None
        remaining = list(fs)
        for bf in bfs:
            for i, f in enumerate(remaining):
                if f == bf:
                    del remaining[i]
                    break
            else:
                return None
        out.append(_make_term(c // bc, tuple(remaining)))
    return add(*out)


def _split_multiples(a: Sum, b: Expr):
    """Partition the terms of ``a`` into multiples of ``b`` (with quotient) and the rest."""
    mult_q, rest = [], []
    for t in a.terms:
        q = _exact_quotient(t, b)
        if q is not None:
            mult_q.append(q)
        else:
            rest.append(t)
    return mult_q, rest


def _same_sign(x: Expr, y: Expr) -> bool:
    prove_nonneg, prove_nonpos = _late("prove_nonneg", "prove_nonpos")
    return (prove_nonneg(x) and prove_nonneg(y)) or (prove_nonpos(x) and prove_nonpos(y))


@lru_cache(maxsize=200000)
def div(a, b) -> Expr:
    """C division ``a / b`` (truncating), simplified."""
    prove_pos, prove_nonneg, prove_nonpos, prove_lt = _late(
        "prove_pos", "prove_nonneg", "prove_nonpos", "prove_lt")
    a, b = to_expr(a), to_expr(b)
    if isinstance(b, Cst):
        if b.value == 0:
            raise ZeroDivisionError("division by zero in arithmetic expression")
        if b.value == 1:
            return a
        if b.value == -1:
            return neg(a)
        if isinstance(a, Cst):
            return Cst(c_div(a.value, b.value))
        if b.value < 0:
            return neg(div(a, Cst(-b.value)))          # a/(-b) = -(a/b) under truncation
    if a == ZERO:
        return ZERO
    q = _exact_quotient(a, b)
    if q is not None:
        return q
    if not prove_pos(b):
        return Div(a, b)
    # rule 1: x / y = 0 if |x| < y
    if (prove_nonneg(a) and prove_lt(a, b)) or (prove_nonpos(a) and prove_lt(neg(a), b)):
        return ZERO
    # rule 2: (k*y + r) / y = k + r / y   when k*y + r and r have the same sign
    if isinstance(a, Sum):
        mult_q, rest = _split_multiples(a, b)
        if mult_q and rest:
            r = add(*rest)
            if _same_sign(a, r):
                return add(add(*mult_q), div(r, b))
    # (x / y) / z = x / (y * z)  for y, z > 0 (holds for truncation as well), where the product
    # is known to fit in 64 bits (i / N / N / N stays: N * N * N may not, and the kernel would
    # compute it)
    if isinstance(a, Div) and prove_pos(a.b):
        prod = mul(a.b, b)
        if _late("int_bounds")(prod)[1] <= 2 ** 63 - 1:
            return div(a.a, prod)
    # (x % (k*y)) / y  stays; (x % y) / y = 0 is covered by rule 1 through ranges
    return Div(a, b)


@lru_cache(maxsize=200000)
def mod(a, b) -> Expr:
    """C remainder ``a % b`` (sign of the dividend), simplified."""
    prove_pos, prove_nonneg, prove_nonpos, prove_lt = _late(
        "prove_pos", "prove_nonneg", "prove_nonpos", "prove_lt")
    a, b = to_expr(a), to_expr(b)
    if isinstance(b, Cst):
        if b.value == 0:
            raise ZeroDivisionError("modulo by zero in arithmetic expression")
        if b.value in (1, -1):
            return ZERO
        if isinstance(a, Cst):
            return Cst(c_mod(a.value, b.value))
        if b.value < 0:
            return mod(a, Cst(-b.value))               # a % (-b) = a % b in C
    if a == ZERO:
        return ZERO
    # rule 6: (x * y) % y = 0
    if _exact_quotient(a, b) is not None:
        return ZERO
    if not prove_pos(b):
        return Mod(a, b)
    # rule 3: x % y = x if |x| < y (the result keeps the sign of x)
    if (prove_nonneg(a) and prove_lt(a, b)) or (prove_nonpos(a) and prove_lt(neg(a), b)):
        return a
    # rule 4 (specialised): (k*y + r) % y = r % y  when k*y + r and r have the same sign
    if isinstance(a, Sum):
        mult_q, rest = _split_multiples(a, b)
        if mult_q and rest:
            r = add(*rest)
            if _same_sign(a, r):
                return mod(r, b)
    if isinstance(a, Mod):
        if a.b == b:
            return a                                      # (x % y) % y = x % y
        if _exact_quotient(a.b, b) is not None:
            return mod(a.a, b)                            # (x % (k*y)) % y = x % y
    return Mod(a, b)


#: the largest constant power computed exactly (in bits): sizes and indices are at most 64-bit,
#: and a larger power (``pow(2, pow(2, 40))``) would take the process's memory and time
MAX_POW_BITS = 4096


def _const_pow(b: int, e: int) -> "Cst":
    if e < 0:
        raise ValueError("negative exponent in natural-number arithmetic")
    if abs(b) > 1 and e * abs(b).bit_length() > MAX_POW_BITS:
        raise ValueError(f"pow({b}, {e}) is too large (over {MAX_POW_BITS} bits)")
    return Cst(b ** e)


def pow_(base, exp) -> Expr:
    base, exp = to_expr(base), to_expr(exp)
    if isinstance(exp, Cst):
        if exp.value < 0:
            raise ValueError("negative exponent in natural-number arithmetic")
        if exp.value == 0:
            return ONE
        if exp.value == 1:
            return base
        if isinstance(base, Cst):
            return _const_pow(base.value, exp.value)
        return mul(*([base] * exp.value)) if exp.value <= 4 else Pow(base, exp)
    if isinstance(base, Cst) and base.value in (0, 1):
        return base if base.value == 1 else Pow(base, exp)
    # b^(x + c) = b^c * b^x for constant c > 0
    if isinstance(exp, Sum) and isinstance(base, Cst):
        consts = [t for t in exp.terms if isinstance(t, Cst)]
        if consts and consts[0].value > 0:
            rest = add(*[t for t in exp.terms if not isinstance(t, Cst)])
            return mul(_const_pow(base.value, consts[0].value), Pow(base, rest))
    return Pow(base, exp)


def decide(cond: Cond) -> Optional[bool]:
    """Decide a comparison by range analysis; ``None`` when undecided."""
    prove_lt, prove_le = _late("prove_lt", "prove_le")
    l, r = cond.lhs, cond.rhs
    if cond.op == "<":
        if prove_lt(l, r):
            return True
        if prove_le(r, l):
            return False
    elif cond.op == "<=":
        if prove_le(l, r):
            return True
        if prove_lt(r, l):
            return False
    elif cond.op in ("==", "!="):
        d = sub(l, r)
        res = None
        if d == ZERO:
            res = True
        elif prove_lt(l, r) or prove_lt(r, l):
            res = False
        if res is not None:
            return res if cond.op == "==" else not res
    return None


def ite(cond: Cond, then, els) -> Expr:
    """``cond ? then : els``, eliminated when range analysis decides the condition."""
    then, els = to_expr(then), to_expr(els)
    if then == els:
        return then
    d = decide(cond)
    if d is True:
        return then
    if d is False:
        return els
    return IfThenElse(cond, then, els)


# ---------------------------------------------------------------------------------------
# sums over ranges (position-dependent arrays)
# ---------------------------------------------------------------------------------------

def sum_over(var: Var, start, stop, body, _nonneg: bool = False) -> Expr:
    """``sum_{var=start}^{stop-1} body`` with the closed forms of the position-dependent
    arrays paper (indexed from 0, upper bound exclusive):

    * constant body ``c``:        ``(stop - start) * c``
    * ``i``:                       ``(stop*(stop-1) - start*(start-1)) / 2``
    * ``2^i``:                     ``2^stop - 2^start``
    * linearity:                   sums of terms, constant factors pulled out
    * case splits on ``i`` (loop peeling): ``i < c``, ``i <= c``, ``i == c`` conditions

    The closed forms need ``stop >= start`` (proved by range analysis, or known by
    construction for the pieces of a case split); otherwise the ``SumOver`` node is kept
    (and evaluated literally).
    """
    prove_nonneg, prove_le = _late("prove_nonneg", "prove_le")
    start, stop, body = to_expr(start), to_expr(stop), to_expr(body)
    if prove_le(stop, start):
        return ZERO
    count = sub(stop, start)
    if not _nonneg and not prove_nonneg(count):
        return SumOver(var, start, stop, body)
    if not contains(body, var):
        return mul(count, body)
    if isinstance(body, Sum):
        tel = telescope(body.terms, var)
        if tel is not None:
            # sum_{var} h(var + 1) - h(var) = h(stop) - h(start)  (a balanced split's rows
            # (c + 1) * n / p - c * n / p start at c * n / p)
            h, rest = tel
            return add(sub(subst(h, {var: stop}), subst(h, {var: start})),
                       sum_over(var, start, stop, add(*rest), True))
        return add(*[sum_over(var, start, stop, t, True) for t in body.terms])
    if isinstance(body, Prod):
        free = [f for f in body.factors if not contains(f, var)]
        dep = [f for f in body.factors if contains(f, var)]
        if free or body.coef != 1:
            return mul(Cst(body.coef), *free, sum_over(var, start, stop, _make_term(1, tuple(dep)), True))
        if all(f == var for f in dep) and len(dep) in _POWER_SUMS:
            # sum_{var} var^k = S_k(stop) - S_k(start) (Faulhaber)
            s_k = _POWER_SUMS[len(dep)]
            return sub(s_k(stop), s_k(start))
        return SumOver(var, start, stop, body)
    if body == var:
        return div(sub(mul(stop, sub(stop, ONE)), mul(start, sub(start, ONE))), Cst(2))
    if isinstance(body, Div) and isinstance(body.b, Cst) and _divides_everywhere(body.a, body.b.value, var):
        # an exact division of every term (a nested triangle's (i + i * i) / 2): the sum of
        # the numerators, divided
        inner = sum_over(var, start, stop, body.a, True)
        if not any(isinstance(n, SumOver) for n in iter_nodes(inner)):
            return div(inner, body.b)
    if isinstance(body, Pow) and isinstance(body.base, Cst) and body.exp == var and body.base.value == 2:
        return sub(pow_(Cst(2), stop), pow_(Cst(2), start))
    if isinstance(body, IfThenElse):
        c = body.cond
        t, e = body.then, body.els
        if c.op in ("<", "<=") and (c.lhs == var) != (c.rhs == var):
            if c.lhs == var and not contains(c.rhs, var):
                # var < p  (or var <= p  ==  var < p + 1): [start, split) takes `then`
                p = c.rhs if c.op == "<" else add(c.rhs, ONE)
                split = _clamp(p, start, stop)
                # start <= split <= stop by construction
                return add(sum_over(var, start, split, t, True), sum_over(var, split, stop, e, True))
            if c.rhs == var and not contains(c.lhs, var):
                # p < var  (or p <= var == p - 1 < var): [start, split) takes `else`
                p = add(c.lhs, ONE) if c.op == "<" else c.lhs
                split = _clamp(p, start, stop)
                return add(sum_over(var, start, split, e, True), sum_over(var, split, stop, t, True))
        if c.op in ("==", "!=") and (c.lhs == var or c.rhs == var):
            p = c.rhs if c.lhs == var else c.lhs
            if not contains(p, var):
                hit, miss = (t, e) if c.op == "==" else (e, t)
                # loop peeling: the iteration var == p (if inside the range) takes `hit`
                peeled = sub(subst(hit, {var: p}), subst(miss, {var: p}))
                inside = ite(Cond("<=", start, p), ite(Cond("<", p, stop), peeled, ZERO), ZERO)
                return add(inside, sum_over(var, start, stop, miss, True))
    return SumOver(var, start, stop, body)


# S_k(n) = sum_{i=0}^{n-1} i^k, each an exact division
_POWER_SUMS = {
    2: lambda n: div(mul(n, sub(n, ONE), sub(mul(Cst(2), n), ONE)), Cst(6)),
    3: lambda n: div(mul(n, n, sub(n, ONE), sub(n, ONE)), Cst(4)),
}


def _divides_everywhere(a: Expr, c: int, var: Var) -> bool:
    """Whether ``c > 0`` divides ``a`` for every integer value of ``var``, ``a`` a polynomial in
    ``var`` alone whose divisions by constants are exact too (``(i + i * i) / 2``): such a
    polynomial is ``P / D``, ``P`` with integer coefficients and ``D`` the product of the
    divisors, so ``a(v + c * D) = a(v)`` modulo ``c`` and the values ``v = 0 .. c * D - 1``
    decide."""
    evaluate = _late("evaluate")
    if c <= 0 or free_vars(a) != frozenset([var]):
        return False
    divs = [a]
    period = c
    for n in iter_nodes(a):
        if isinstance(n, Div) and isinstance(n.b, Cst) and n.b.value > 0:
            divs.append(n.a)
            period *= n.b.value
        elif not (isinstance(n, (Cst, Var, Sum, Prod)) or (isinstance(n, Pow) and isinstance(n.exp, Cst)
                                                          and n.exp.value >= 0)):
            return False
    if period > 4096:
        return False
    quotients = [c] + [n.b.value for n in iter_nodes(a) if isinstance(n, Div)]
    return all(evaluate(x, {var: v}) % q == 0 for v in range(period) for x, q in zip(divs, quotients))


def telescope(terms, var: Var) -> Optional[Tuple[Expr, list]]:
    """``(h, rest)`` where ``terms`` hold ``h(var + 1)`` and ``-h(var)`` (``h`` depending on
    ``var``) and ``rest`` are the other terms; None where no such pair is found."""
    if len(terms) < 2:
        return None
    nxt = add(var, ONE)
    for j, u in enumerate(terms):
        if not contains(u, var):
            continue
        h = neg(u)
        hp = subst(h, {var: nxt})
        for k, t in enumerate(terms):
            if k != j and t == hp:
                return h, [x for m, x in enumerate(terms) if m != j and m != k]
    return None


def _clamp(p: Expr, lo: Expr, hi: Expr) -> Expr:
    """``min(max(p, lo), hi)`` as if-then-else expressions (eliminated by ranges)."""
    x = ite(Cond("<", p, lo), lo, p)
    return ite(Cond("<", hi, x), hi, x)


# ---------------------------------------------------------------------------------------
# traversals
# ---------------------------------------------------------------------------------------

def free_vars(e: Expr) -> frozenset:
    return _free_vars(e)


@lru_cache(maxsize=100000)
def _free_vars(e: Expr) -> frozenset:
    if isinstance(e, Cst):
        return frozenset()
    if isinstance(e, Var):
        return frozenset([e])
    if isinstance(e, Lookup):
        return _free_vars(e.index)
    if isinstance(e, (Div, Mod)):
        return _free_vars(e.a) | _free_vars(e.b)
    if isinstance(e, Pow):
        return _free_vars(e.base) | _free_vars(e.exp)
    if isinstance(e, Prod):
        return frozenset().union(*[_free_vars(f) for f in e.factors])
    if isinstance(e, Sum):
        return frozenset().union(*[_free_vars(t) for t in e.terms])
    if isinstance(e, IfThenElse):
        return (_free_vars(e.cond.lhs) | _free_vars(e.cond.rhs) | _free_vars(e.then)
                | _free_vars(e.els))
    if isinstance(e, SumOver):
        return (_free_vars(e.start) | _free_vars(e.stop) | (_free_vars(e.body) - {e.var}))
    raise TypeError(e)


def contains(e: Expr, v: Var) -> bool:
    return v in _free_vars(e)


def subst(e: Expr, mapping: Dict[Var, Expr]) -> Expr:
    """Substitute variables, re-simplifying with the smart constructors."""
    if not mapping:
        return e
    mapping = {k: to_expr(v) for k, v in mapping.items()}
    if not (free_vars(e) & set(mapping)):
        return e
    return _subst(e, mapping)


def _subst(e: Expr, m: Dict[Var, Expr]) -> Expr:
    if isinstance(e, Cst):
        return e
    if isinstance(e, Var):
        return m.get(e, e)
    if not (free_vars(e) & set(m)):
        return e
    return rebuild(e, lambda x: _subst(x, m))


def rebuild(e: Expr, f: Callable[[Expr], Expr]) -> Expr:
    """Apply ``f`` to the direct children of ``e`` and rebuild it with smart constructors."""
    if isinstance(e, (Cst, Var)):
        return e
    if isinstance(e, Lookup):
        # an array that holds expressions of its own (a user index function evaluated in
        # long, lift_backend.views.WideIndex) is rebuilt with them
        arr = e.array.rebuild_with(f) if hasattr(e.array, "rebuild_with") else e.array
        return Lookup(arr, e.name, f(e.index), e.lo, e.hi)
    if isinstance(e, Div):
        return div(f(e.a), f(e.b))
    if isinstance(e, Mod):
        return mod(f(e.a), f(e.b))
    if isinstance(e, Pow):
        return pow_(f(e.base), f(e.exp))
    if isinstance(e, Prod):
        return mul(Cst(e.coef), *[f(x) for x in e.factors])
    if isinstance(e, Sum):
        return add(*[f(t) for t in e.terms])
    if isinstance(e, IfThenElse):
        return ite(e.cond.map(f), f(e.then), f(e.els))
    if isinstance(e, SumOver):
        return sum_over(e.var, f(e.start), f(e.stop), f(e.body))
    raise TypeError(e)


def simplify(e: Expr) -> Expr:
    """Re-run the smart constructors bottom-up (useful after variable ranges changed)."""
    if isinstance(e, (Cst, Var)):
        return e
    return rebuild(e, simplify)


def iter_nodes(e: Expr) -> Iterable[Expr]:
    """Pre-order traversal of the nodes of ``e`` (iterative: any depth, linear time)."""
    stack = [e]
    while stack:
        e = stack.pop()
        yield e
        if isinstance(e, Lookup):
            kids = (e.index,)
        elif isinstance(e, (Div, Mod)):
            kids = (e.a, e.b)
        elif isinstance(e, Pow):
            kids = (e.base, e.exp)
        elif isinstance(e, Prod):
            kids = e.factors
        elif isinstance(e, Sum):
            kids = e.terms
        elif isinstance(e, IfThenElse):
            kids = (e.cond.lhs, e.cond.rhs, e.then, e.els)
        elif isinstance(e, SumOver):
            kids = (e.start, e.stop, e.body)
        else:
            continue
        stack.extend(reversed(kids))
