"""Numpy interpreter of λcu — the second semantic oracle (flatten + interp == nessie.interp).

Entry points
------------
``Interpreter(prog, check=True)``   (type-checks the program first unless ``check=False``)
    ``.run_main() -> list``         evaluates the main bindings in order; returns the value of
                                    each binding's right-hand side; ``.globals`` maps the bound
                                    names to their values afterwards.
    ``.call(name, *args)``          calls a CPU function.
    ``.run_kernel(name, *args)``    runs one kernel (one value, or a tuple for several results).
    ``.launches``                   ``collections.Counter`` of kernel launches by kernel name.
``run_program(prog, check=True) -> list``  ``Interpreter(prog).run_main()``.
``call_function(prog, name, args, check=True)``  ``Interpreter(prog).call(name, *args)``.
``eval_soac(soac, env) -> tuple``   evaluates one SOAC application in a kernel environment
                                    (name -> runtime value); one value per bound variable.
``apply_prim(op, args, ty=None, loc=None)``  one scalar primitive on runtime scalars/arrays.

Arguments of ``call``/``run_kernel`` are coerced to the parameter types (Python ints, lists,
length vectors for ``sd`` are accepted; see :func:`coerce`).  Runtime values are described in
``lambda_cu.values``, which also provides ``from_nested`` / ``to_nested`` (re-exported here) to
convert nested Python values (as the reference interpreter produces them) to and from λcu values.

Runtime errors raise :class:`LcuRuntimeError` ``(location, message)`` with NESL's message text
(:data:`MSG_BOUNDS`, :data:`MSG_DIV0`, ...); ``location`` is the ``loc`` of the failing node.

How the GPU level is evaluated
------------------------------
Every SOAC runs as whole-array numpy operations — there is no Python loop per element.  A thunk
``{ i => e }`` applied to ``n`` indices is evaluated ONCE with ``i = arange(n)``: each
sub-expression's value is either *uniform* (a numpy scalar: constants, ``using`` scalars, anything
computed only from them) or *per-element* (a 1-d array of the active length).  ``x[e]`` is fancy
indexing, primitives are numpy ufuncs.  ``if c then a else b`` with a per-element ``c`` evaluates
``a`` only on the indices where ``c`` holds and ``b`` only on the others (the per-element
variables are restricted to each subset) and merges the results, so an untaken branch can never
raise (division by zero, out-of-bounds subscript).  An error is raised only if some *active*
element fails; on an empty index space nothing is active and nothing raises.

Monoids.  ``REDUCE``/``SCAN``/``SEG_*`` recognise an operator thunk whose result components are
``+ * max min && || xor`` of the corresponding components of its two arguments (tuples of those
included) and use the numpy ufunc (``reduce``, ``accumulate``, ``reduceat`` on the non-empty
segments only — ``reduceat`` is wrong on empty segments).  A general operator thunk is applied
vectorised in a log-depth pairwise scheme: a tree reduction, and an O(n)-work inclusive scan
(combine pairs, scan the half-size array recursively, fix up the odd positions).  Segmented scans
use the same scan with the segmented lifting of the operator on (segment-start flag, value)
pairs, or — for integer ``+`` and ``xor``, which are invertible — one global ``accumulate``
corrected by the value at each segment start.  All of these are O(n) work and O(log n) numpy
passes; empty vectors and empty segments are handled (an empty segment reduces to ``init``).
``init`` is combined on the left (``REDUCE`` = ``init ⊕ x0 ⊕ ... ⊕ x(n-1)``).

Integers are int32 (or int64) arrays and wrap; ``/`` truncates toward zero, ``rem`` has the
dividend's sign, ``mod`` the divisor's (see ``lambda_cu.prims``).  CPU-level function calls are
ordinary Python calls, run on a thread with a large stack and a raised recursion limit so that
deeply recursive NESL programs work.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Callable, Optional, Sequence

import numpy as np

from . import fmath, ir
from .loc import Loc
from .prims import COMMUTATIVE, MONOID_PRIMS, PRIMS, recognise_monoid
from .types import (INT, BoolT, CharT, FloatT, IntT, SegDesT, TupleT, Type, UnitT, VecT,
                    flat_components)
from .values import SegDes, dtype_of, from_nested, scalar, to_nested, values_close

from .errors import (PREFIX, NEGATIVE_SIZE, MSG_BOUNDS, MSG_DIV0, MSG_ISQRT, MSG_NEG_LENGTH, MSG_PERMUTE, MSG_SCATTER,
                     MSG_SCATTER_LENGTHS, LcuRuntimeError)
from .executor import Executor, on_big_stack as _on_big_stack


# =============================================================================================
# scalar primitives (vectorised)


def _norm(x: Any) -> Any:
    """0-d arrays -> numpy scalars."""
    if isinstance(x, np.ndarray) and x.ndim == 0:
        return x[()]
    return x


def _dt(x: Any) -> np.dtype:
    return x.dtype if hasattr(x, "dtype") else np.asarray(x).dtype


def _nonzero_divisor(b: Any, loc: Optional[Loc], quiet: bool) -> Any:
    z = b == 0
    if np.any(z):
        if not quiet:
            raise LcuRuntimeError(loc, MSG_DIV0)
        b = np.where(z, _dt(b).type(1), b)
    return b


def _tdiv(a: Any, b: Any) -> Any:
    """Integer division truncating toward zero (b != 0)."""
    q = np.floor_divide(a, b)
    r = a - q * b
    fix = (r != 0) & ((a < 0) != (b < 0))
    return q + np.asarray(fix).astype(_dt(q))


def _p_div(a, b, ty, loc, quiet):
    if _dt(a).kind == "f":
        return np.true_divide(a, b)
    return _tdiv(a, _nonzero_divisor(b, loc, quiet))


def _p_rem(a, b, ty, loc, quiet):
    b = _nonzero_divisor(b, loc, quiet)
    return a - _tdiv(a, b) * b


def _p_mod(a, b, ty, loc, quiet):
    return np.mod(a, _nonzero_divisor(b, loc, quiet))


def _p_pow(a, e, ty, loc, quiet):
    if _dt(a).kind == "f":
        return fmath.np_pow(a, np.asarray(e).astype(np.float64))
    e = np.asarray(e).astype(_dt(a))
    neg = e < 0
    if not np.any(neg):
        return np.power(a, e)
    if np.any(neg & (a == 0)) and not quiet:
        raise LcuRuntimeError(loc, MSG_DIV0)
    t = _dt(a).type
    pos = np.power(a, np.where(neg, t(0), e))
    negres = np.where(a == 1, t(1), np.where(a == -1, np.where(e % 2 == 0, t(1), t(-1)), t(0)))
    return np.where(neg, negres, pos).astype(_dt(a))


def _p_isqrt(a, ty, loc, quiet):
    x = np.asarray(a).astype(np.int64)
    r = np.floor(np.sqrt(np.maximum(x, 0).astype(np.float64))).astype(np.int64)
    r = r - (r * r > x)
    r = r + ((r + 1) * (r + 1) <= x)
    if loc is not None and not quiet and np.any(x < 0):
        raise LcuRuntimeError(loc, MSG_ISQRT)
    return np.where(x < 0, 0, r).astype(_dt(a))


def _to_int_dtype(ty: Optional[Type]) -> np.dtype:
    return dtype_of(ty if ty is not None else INT)


def _float_to_int(x, ty):
    """An integral float to an integer of type ``ty``: finite values wrap modulo 2^width (the
    float is reduced exactly with fmod first), inf/nan give the smallest integer — as the
    reference interpreter."""
    dt = _to_int_dtype(ty)
    x = np.asarray(x, dtype=np.float64)
    bits = dt.itemsize * 8
    finite = np.isfinite(x)
    red = np.fmod(np.where(finite, x, 0.0), 2.0 ** 64 if bits == 64 else 2.0 ** 32)
    if bits == 64:
        wrapped = np.where(np.abs(red) >= 2.0 ** 63, red - np.sign(red) * 2.0 ** 64, red)
        out = wrapped.astype(np.int64)
    else:
        out = red.astype(np.int64).astype(np.int32)
    return np.where(finite, out, np.iinfo(dt).min).astype(dt)


def _p_round(a, ty, loc, quiet):
    # halves to even (IEEE rint), as NESL's round (Common Lisp ROUND) and nessie/interp
    return _float_to_int(np.rint(a), ty)


# the transcendental functions of the portable library (fmath.py): the same bits on every
# machine and on the OpenCL devices (numpy's own routines differ by CPU); sqrt is exact anyway
_UNARY_F = {"sqrt": np.sqrt, **{k: v for k, v in fmath.NUMPY.items() if k not in ("expt", "log")}}

_PRIM_IMPL: dict[str, Callable[..., Any]] = {
    "add": lambda a, b, ty, loc, q: np.add(a, b),
    "sub": lambda a, b, ty, loc, q: np.subtract(a, b),
    "mul": lambda a, b, ty, loc, q: np.multiply(a, b),
    "div": _p_div,
    "rem": _p_rem,
    "mod": _p_mod,
    "neg": lambda a, ty, loc, q: np.negative(a),
    "abs": lambda a, ty, loc, q: np.abs(a),
    "min": lambda a, b, ty, loc, q: np.minimum(a, b),
    "max": lambda a, b, ty, loc, q: np.maximum(a, b),
    "pow": _p_pow,
    "eq": lambda a, b, ty, loc, q: np.equal(a, b),
    "ne": lambda a, b, ty, loc, q: np.not_equal(a, b),
    "lt": lambda a, b, ty, loc, q: np.less(a, b),
    "le": lambda a, b, ty, loc, q: np.less_equal(a, b),
    "gt": lambda a, b, ty, loc, q: np.greater(a, b),
    "ge": lambda a, b, ty, loc, q: np.greater_equal(a, b),
    "not": lambda a, ty, loc, q: np.invert(a),
    "and": lambda a, b, ty, loc, q: np.bitwise_and(a, b),
    "or": lambda a, b, ty, loc, q: np.bitwise_or(a, b),
    "xor": lambda a, b, ty, loc, q: np.bitwise_xor(a, b),
    "nand": lambda a, b, ty, loc, q: np.invert(np.bitwise_and(a, b)),
    "nor": lambda a, b, ty, loc, q: np.invert(np.bitwise_or(a, b)),
    # the count modulo the width (its low 5/6 bits), as C on x86 in CMU NESL's runtime
    "lshift": lambda a, b, ty, loc, q: np.left_shift(
        a, np.asarray(b).astype(_dt(a)) & (_dt(a).itemsize * 8 - 1)),
    "rshift": lambda a, b, ty, loc, q: np.right_shift(
        a, np.asarray(b).astype(_dt(a)) & (_dt(a).itemsize * 8 - 1)),
    "log": lambda a, b, ty, loc, q: fmath.np_log(a, b),
    "expt": lambda a, b, ty, loc, q: fmath.np_pow(a, b),
    "isqrt": _p_isqrt,
    "to_float": lambda a, ty, loc, q: np.asarray(a).astype(np.float64),
    "trunc": lambda a, ty, loc, q: _float_to_int(np.trunc(a), ty),
    "floor": lambda a, ty, loc, q: _float_to_int(np.floor(a), ty),
    "ceil": lambda a, ty, loc, q: _float_to_int(np.ceil(a), ty),
    "round": _p_round,
    "to_int": lambda a, ty, loc, q: np.asarray(a).astype(_to_int_dtype(ty)),
    "btoi": lambda a, ty, loc, q: np.asarray(a).astype(_to_int_dtype(ty)),
    "char_code": lambda a, ty, loc, q: np.asarray(a).astype(_to_int_dtype(ty)),
    "code_char": lambda a, ty, loc, q: np.bitwise_and(a, _dt(a).type(255)).astype(np.uint8),
    "select": lambda c, a, b, ty, loc, q: np.where(c, a, b).astype(_dt(a)),
}
for _name, _f in _UNARY_F.items():
    _PRIM_IMPL[_name] = (lambda f: (lambda a, ty, loc, q: f(a)))(_f)

assert set(_PRIM_IMPL) == set(PRIMS), set(PRIMS) ^ set(_PRIM_IMPL)


def apply_prim(op: str, args: Sequence[Any], ty: Optional[Type] = None, loc: Optional[Loc] = None,
               quiet: bool = False) -> Any:
    """Apply a primitive to runtime scalars or equal-length arrays (``quiet``: never raise)."""
    with np.errstate(all="ignore"):
        return _norm(_PRIM_IMPL[op](*args, ty, loc, quiet))


# =============================================================================================
# vectorised thunk evaluation


@lru_cache(maxsize=None)
def _ncomps(t: Type) -> int:
    return len(flat_components(t))


def _components(v: Any) -> list:
    if isinstance(v, tuple):
        out: list = []
        for x in v:
            out.extend(_components(x))
        return out
    return [v]


def _rebuild(t: Type, comps: Sequence[Any]) -> Any:
    if isinstance(t, TupleT):
        out, pos = [], 0
        for e in t.elems:
            k = _ncomps(e)
            out.append(_rebuild(e, comps[pos:pos + k]))
            pos += k
        return tuple(out)
    return comps[0]


def _restrict(v: Any, idx: np.ndarray) -> Any:
    if isinstance(v, np.ndarray):
        return v[idx]
    if isinstance(v, tuple):
        return tuple(_restrict(x, idx) for x in v)
    return v


def _merge(a: Any, b: Any, t_idx: np.ndarray, f_idx: np.ndarray, m: int) -> Any:
    """Per-element merge of the two branch values of an ``if`` (``a`` on ``t_idx``, ``b`` on
    ``f_idx``); tuples are merged component-wise (× is associative, so the branches may nest
    their tuples differently) and take the then-branch's structure."""
    if isinstance(a, tuple) or isinstance(b, tuple):
        merged = iter([_merge(x, y, t_idx, f_idx, m) for x, y in zip(_components(a), _components(b))])
        return _shape_like(a, merged)
    if a is None:
        return None
    out = np.empty(m, dtype=np.result_type(_dt(a), _dt(b)))
    out[t_idx] = a
    out[f_idx] = b
    return out


def _shape_like(template: Any, comps: Any) -> Any:
    if isinstance(template, tuple):
        return tuple(_shape_like(t, comps) for t in template)
    return next(comps)


def _broadcast(c: Any, m: int) -> np.ndarray:
    if isinstance(c, np.ndarray) and c.ndim == 1 and c.shape[0] == m:
        return c
    return np.full(m, c, dtype=_dt(c))


class _Eval:
    """Evaluation of one GPU expression over an index space of ``m`` active elements.

    ``env``: thunk parameters, let-bound variables and ``using`` scalars (uniform numpy scalars /
    tuples, or per-element 1-d arrays of length ``m``); ``vecs``: ``using`` vectors and segment
    descriptors (never restricted).  ``quiet`` (no active element): errors are not raised."""

    __slots__ = ("vecs",)

    def __init__(self, vecs: dict[str, Any]) -> None:
        self.vecs = vecs

    def vector(self, e: ir.Exp) -> np.ndarray:
        if isinstance(e, ir.Var):
            return self.vecs[e.name]
        assert isinstance(e, ir.SegVec)
        return self.vecs[e.sd.name].field(e.field, dtype_of(e.ity))

    def ev(self, e: ir.Exp, env: dict[str, Any], m: int, quiet: bool) -> Any:
        if isinstance(e, ir.Var):
            return env[e.name]
        if isinstance(e, ir.Index):
            vec = self.vector(e.vec)
            idx = self.ev(e.idx, env, m, quiet)
            n = vec.shape[0]
            bad = (idx < 0) | (idx >= n)
            if np.any(bad):
                if not quiet:
                    raise LcuRuntimeError(e.loc, MSG_BOUNDS)
                if n == 0:
                    return np.zeros(np.shape(idx), dtype=vec.dtype) if np.ndim(idx) else vec.dtype.type(0)
                idx = np.where(bad, 0, idx)
            return vec[idx]
        if isinstance(e, ir.PrimOp):
            args = [self.ev(a, env, m, quiet) for a in e.args]
            return _norm(_PRIM_IMPL[e.op](*args, e.ty, e.loc, quiet))
        if isinstance(e, ir.Const):
            return scalar(e.value, e.ty)
        if isinstance(e, ir.If):
            return self.ev_if(e, env, m, quiet)
        if isinstance(e, ir.Let):
            v = self.ev(e.rhs, env, m, quiet)
            inner = dict(env)
            if len(e.vars) == 1:
                inner[e.vars[0].name] = v
            else:
                parts = v if isinstance(v, tuple) and len(v) == len(e.vars) else _components(v)
                for var, x in zip(e.vars, parts):
                    inner[var.name] = x
            return self.ev(e.body, inner, m, quiet)
        if isinstance(e, ir.Tuple):
            return tuple(self.ev(x, env, m, quiet) for x in e.elems)
        if isinstance(e, ir.Proj):
            return self.ev(e.tup, env, m, quiet)[e.index]
        if isinstance(e, ir.Length):
            if isinstance(e.vec, ir.SegVec):
                n = self.vecs[e.vec.sd.name].field_length(e.vec.field)
            else:
                n = self.vector(e.vec).shape[0]
            return dtype_of(e.ity).type(n)
        raise TypeError(f"cannot evaluate {type(e).__name__} in a thunk: {e}")

    def ev_if(self, e: ir.If, env: dict[str, Any], m: int, quiet: bool) -> Any:
        c = self.ev(e.cond, env, m, quiet)
        if not isinstance(c, np.ndarray):
            return self.ev(e.then if bool(c) else e.else_, env, m, quiet)
        t_idx = np.flatnonzero(c)
        if t_idx.shape[0] == m and m > 0:
            return self.ev(e.then, env, m, quiet)
        f_idx = np.flatnonzero(~c)
        if f_idx.shape[0] == m and m > 0:
            return self.ev(e.else_, env, m, quiet)
        mt, mf = t_idx.shape[0], f_idx.shape[0]
        a = self.ev(e.then, {k: _restrict(v, t_idx) for k, v in env.items()}, mt, quiet or mt == 0)
        b = self.ev(e.else_, {k: _restrict(v, f_idx) for k, v in env.items()}, mf, quiet or mf == 0)
        return _merge(a, b, t_idx, f_idx, m)


def apply_thunk(th: ir.Thunk, kenv: dict[str, Any], args: Sequence[Any], m: int,
                broadcast: bool = True) -> list:
    """Apply a thunk to ``args`` (flat components, per-element arrays of length ``m`` or
    uniform scalars) in kernel environment ``kenv``; returns the flat result components
    (broadcast to length ``m`` unless ``broadcast=False``)."""
    env: dict[str, Any] = {}
    vecs: dict[str, Any] = {}
    for u in th.using:
        v = kenv[u.name]
        if isinstance(v, (np.ndarray, SegDes)):
            vecs[u.name] = v
        else:
            env[u.name] = v
    pos = 0
    for p in th.params:
        k = _ncomps(p.ty)
        env[p.name] = _rebuild(p.ty, args[pos:pos + k]) if k != 1 else args[pos]
        pos += k
    val = _Eval(vecs).ev(th.body, env, m, m == 0)
    comps = _components(val)
    return [_broadcast(c, m) for c in comps] if broadcast else [_norm(c) for c in comps]


def _pull(th: ir.Thunk, kenv: dict[str, Any], n: int) -> list[np.ndarray]:
    it = dtype_of(th.params[0].ty)
    return apply_thunk(th, kenv, [np.arange(n, dtype=it)], n)


# =============================================================================================
# monoids


_MONOID_UFUNCS = {"add": np.add, "mul": np.multiply, "max": np.maximum, "min": np.minimum,
                  "and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}
assert set(_MONOID_UFUNCS) == set(MONOID_PRIMS)


class _Monoid:
    """``combine(L, R, m)`` on flat component lists; ``ufuncs`` when recognised."""

    def __init__(self, op: ir.Thunk, kenv: dict[str, Any], k: int) -> None:
        names = recognise_monoid(op, k)
        self.names = names
        self.ufuncs = [_MONOID_UFUNCS[n] for n in names] if names is not None else None
        self.op, self.kenv = op, kenv

    def combine(self, left: Sequence[Any], right: Sequence[Any], m: int) -> list:
        if self.ufuncs is not None:
            return [_broadcast(_norm(u(l, r)), m) for u, l, r in zip(self.ufuncs, left, right)]
        out = apply_thunk(self.op, self.kenv, list(left) + list(right), m)
        return [o.astype(_dt(l), copy=False) for o, l in zip(out, left)]


def _order_sensitive(mon: "_Monoid", xs: list[np.ndarray]) -> bool:
    """Float sums and products: their rounding depends on the order of the operations.  They
    are evaluated left to right, as the reference interpreter does, so that every backend
    prints the same digits (the other recognised monoids are exact in any order)."""
    return mon.ufuncs is not None and any(u in (np.add, np.multiply) and x.dtype.kind == "f"
                                          for u, x in zip(mon.ufuncs, xs))


def _seq_segmented(u, init: Any, x: np.ndarray, sd: SegDes, scan: bool) -> np.ndarray:
    """Left-to-right ``init ⊕ x0 ⊕ x1 ⊕ ...`` in every segment (exclusive scan or reduction),
    vectorised: one pass per segment when segments are few and long, else one pass per
    position within the segments — min(#segments, longest segment) numpy steps, O(n) work."""
    lens, offs = sd.lengths, sd.offsets
    count = lens.shape[0]
    acc = np.full(count, init, dtype=x.dtype)
    out = np.empty(sd.total, dtype=x.dtype) if scan else None
    longest = int(lens.max()) if count else 0
    if count <= longest:
        for s in np.flatnonzero(lens):
            a, b = int(offs[s]), int(offs[s] + lens[s])
            run = u.accumulate(np.concatenate((np.asarray([init], dtype=x.dtype), x[a:b])), dtype=x.dtype)
            if scan:
                out[a:b] = run[:-1]
            acc[s] = run[-1]
    else:
        active = np.flatnonzero(lens)
        for k in range(longest):
            active = active[lens[active] > k]
            pos = offs[active] + k
            if scan:
                out[pos] = acc[active]
            acc[active] = u(acc[active], x[pos])
    return out if scan else acc


def _reduce(xs: list[np.ndarray], init: list[Any], mon: _Monoid, n: int) -> list[Any]:
    if n == 0:
        return list(init)
    if _order_sensitive(mon, xs):
        return [_norm(u.accumulate(np.concatenate((np.asarray([i], dtype=x.dtype), x)), dtype=x.dtype)[-1])
                for u, i, x in zip(mon.ufuncs, init, xs)]
    if mon.ufuncs is not None:
        return [_norm(u(i, u.reduce(x, dtype=x.dtype))) for u, i, x in zip(mon.ufuncs, init, xs)]
    vals = xs
    while n > 1:
        h = n // 2
        comb = mon.combine([v[0:2 * h:2] for v in vals], [v[1:2 * h:2] for v in vals], h)
        if n % 2:
            comb = [np.concatenate([c, v[n - 1:n]]) for c, v in zip(comb, vals)]
        vals, n = comb, h + n % 2
    res = mon.combine([np.full(1, i, dtype=v.dtype) for i, v in zip(init, vals)], [v[0:1] for v in vals], 1)
    return [_norm(r[0]) for r in res]


def _incl_scan(vals: list[np.ndarray], n: int, combine: Callable[[list, list, int], list]) -> list[np.ndarray]:
    """Inclusive scan with an associative ``combine`` (no identity needed): O(n) work,
    O(log n) vectorised passes."""
    if n <= 1:
        return [v.copy() for v in vals]
    h = n // 2
    pairs = combine([v[0:2 * h:2] for v in vals], [v[1:2 * h:2] for v in vals], h)
    P = _incl_scan(pairs, h, combine)
    out = [np.empty(n, dtype=v.dtype) for v in vals]
    for o, v, p in zip(out, vals, P):
        o[0] = v[0]
        o[1:2 * h:2] = p
    k = (n - 1) // 2
    if k:
        tail = combine([p[0:k] for p in P], [v[2:n:2] for v in vals], k)
        for o, t in zip(out, tail):
            o[2:n:2] = t
    return out


def _excl_scan(xs: list[np.ndarray], init: list[Any], mon: _Monoid, n: int) -> list[np.ndarray]:
    out = [np.empty(n, dtype=x.dtype) for x in xs]
    if n == 0:
        return out
    if mon.ufuncs is not None:
        for o, u, i, x in zip(out, mon.ufuncs, init, xs):
            o[0] = i
            if n > 1:
                o[1:] = u(i, u.accumulate(x[:-1], dtype=x.dtype))
        return out
    incl = _incl_scan(xs, n, mon.combine)
    for o, i in zip(out, init):
        o[0] = i
    if n > 1:
        rest = mon.combine([np.full(n - 1, i, dtype=x.dtype) for i, x in zip(init, xs)],
                           [c[:-1] for c in incl], n - 1)
        for o, r in zip(out, rest):
            o[1:] = r
    return out


def _seg_lifted(combine: Callable[[list, list, int], list]) -> Callable[[list, list, int], list]:
    """Segmented lifting: on (flag, values), ``(f1, a) ⊕ (f2, b) = (f1 | f2, b if f2 else a ⊕ b)``
    (associative); the base operator is applied only where ``f2`` is false."""
    def lifted(left: list, right: list, m: int) -> list:
        fl, fr = left[0], right[0]
        out = [np.array(r, copy=True) for r in right[1:]]
        idx = np.flatnonzero(~fr)
        if idx.shape[0]:
            sub = combine([c[idx] for c in left[1:]], [c[idx] for c in right[1:]], idx.shape[0])
            for o, s in zip(out, sub):
                o[idx] = s
        return [fl | fr] + out
    return lifted


def _starts(sd: SegDes) -> np.ndarray:
    flags = np.zeros(sd.total, dtype=bool)
    flags[sd.offsets[sd.lengths > 0]] = True
    return flags


def _seg_reduce(xs: list[np.ndarray], init: list[Any], mon: _Monoid, sd: SegDes) -> list[np.ndarray]:
    nz = sd.lengths > 0
    out = [np.full(sd.count, i, dtype=x.dtype) for i, x in zip(init, xs)]
    if not np.any(nz):
        return out
    if _order_sensitive(mon, xs):
        return [_seq_segmented(u, i, x, sd, False) for u, i, x in zip(mon.ufuncs, init, xs)]
    if mon.ufuncs is not None:
        starts = sd.offsets[nz]
        for o, u, i, x in zip(out, mon.ufuncs, init, xs):
            o[nz] = u(i, u.reduceat(x, starts, dtype=x.dtype))
        return out
    incl = _incl_scan([_starts(sd)] + xs, sd.total, _seg_lifted(mon.combine))[1:]
    ends = (sd.offsets + sd.lengths - 1)[nz]
    cnt = int(nz.sum())
    last = mon.combine([np.full(cnt, i, dtype=x.dtype) for i, x in zip(init, xs)], [c[ends] for c in incl], cnt)
    for o, l in zip(out, last):
        o[nz] = l
    return out


def _seg_scan(xs: list[np.ndarray], init: list[Any], mon: _Monoid, sd: SegDes) -> list[np.ndarray]:
    n = sd.total
    if n == 0:
        return [np.empty(0, dtype=x.dtype) for x in xs]
    if _order_sensitive(mon, xs):
        return [_seq_segmented(u, i, x, sd, True) for u, i, x in zip(mon.ufuncs, init, xs)]
    if mon.names is not None and all(nm in ("add", "xor") and x.dtype.kind in "ib"
                                     for nm, x in zip(mon.names, xs)):
        out = []
        for u, i, x in zip(mon.ufuncs, init, xs):
            g = np.empty(n, dtype=x.dtype)        # global exclusive scan from the identity 0
            g[0] = 0
            if n > 1:
                u.accumulate(x[:-1], dtype=x.dtype, out=g[1:])
            start_val = g[sd.offsets[sd.ids]]
            rel = g - start_val if u is np.add else np.bitwise_xor(g, start_val)
            out.append(u(i, rel).astype(x.dtype, copy=False))
        return out
    flags = _starts(sd)
    w = []
    for i, x in zip(init, xs):
        a = np.empty(n, dtype=x.dtype)
        a[1:] = x[:-1]
        a[flags] = i
        w.append(a)
    return _incl_scan([flags] + w, n, _seg_lifted(mon.combine))[1:]


# =============================================================================================
# SOACs


def _size(e: ir.Exp, kenv: dict[str, Any]) -> int:
    if isinstance(e, ir.Var):
        return int(kenv[e.name])
    if isinstance(e, ir.Const):
        return int(e.value)
    if isinstance(e, ir.Length):
        if isinstance(e.vec, ir.SegVec):
            return kenv[e.vec.sd.name].field_length(e.vec.field)
        return int(kenv[e.vec.name].shape[0])
    raise TypeError(f"not a size expression: {e}")


def _init(s: ir.Soac, kenv: dict[str, Any]) -> list[Any]:
    ev = _Eval({k: v for k, v in kenv.items() if isinstance(v, (np.ndarray, SegDes))})
    env = {k: v for k, v in kenv.items() if not isinstance(v, (np.ndarray, SegDes))}
    out: list[Any] = []
    for e in s.init_exps:
        out.extend(_norm(c) for c in _components(ev.ev(e, env, 1, False)))
    return out


def _check_permutation(target: np.ndarray, n: int, loc: Optional[Loc]) -> None:
    if target.shape[0] and (target.min() < 0 or target.max() >= n):
        raise LcuRuntimeError(loc, MSG_PERMUTE)
    if target.shape[0] and np.bincount(target, minlength=n).max() > 1:
        raise LcuRuntimeError(loc, MSG_PERMUTE)


def _ranks(keys: np.ndarray, descending: bool, groups: Optional[np.ndarray] = None) -> np.ndarray:
    if descending:
        # order-reversing maps: ~k for signed ints (-k overflows on the smallest int64)
        keys = ~keys if keys.dtype.kind == "i" else (-keys.astype(np.int64) if keys.dtype.kind == "u" else -keys)
    order = np.lexsort((keys, groups)) if groups is not None else np.argsort(keys, kind="stable")
    ranks = np.empty(keys.shape[0], dtype=np.int64)
    ranks[order] = np.arange(keys.shape[0], dtype=np.int64)
    return ranks


def eval_soac(s: ir.Soac, kenv: dict[str, Any]) -> tuple:
    """Evaluate one SOAC in kernel environment ``kenv``; one value per bound variable."""
    with np.errstate(all="ignore"):
        return tuple(_soac(s, kenv))


def _soac(s: ir.Soac, kenv: dict[str, Any]) -> list:
    if isinstance(s, ir.Once):
        return apply_thunk(s.f, kenv, [None] * _ncomps_params(s.f), 1, broadcast=False)
    if s.SEGMENTED:
        sd: SegDes = kenv[s.sd.name]
        n = sd.total
    else:
        n = _size(s.size, kenv)
    if n < 0:
        raise LcuRuntimeError(None, PREFIX + NEGATIVE_SIZE.format(n=n, op=s.NAME))
    xs = _pull(s.f, kenv, n)
    if isinstance(s, ir.Map):
        return xs
    if isinstance(s, ir.Permute):
        target = apply_thunk(s.idx, kenv, [np.arange(n, dtype=dtype_of(s.idx.params[0].ty))], n)[0]
        _check_permutation(target, n, s.loc)
        out = [np.empty(n, dtype=x.dtype) for x in xs]
        for o, x in zip(out, xs):
            o[target] = x
        return out
    if isinstance(s, ir.SegPermute):
        local = apply_thunk(s.idx, kenv, [np.arange(n, dtype=dtype_of(s.idx.params[0].ty))], n)[0]
        ids = sd.ids
        if n and (local.min() < 0 or np.any(local >= sd.lengths[ids])):
            raise LcuRuntimeError(s.loc, MSG_PERMUTE)
        target = sd.offsets[ids] + local
        _check_permutation(target, n, s.loc)
        out = [np.empty(n, dtype=x.dtype) for x in xs]
        for o, x in zip(out, xs):
            o[target] = x
        return out
    if isinstance(s, ir.Scatter):
        target = apply_thunk(s.idx, kenv, [np.arange(n, dtype=dtype_of(s.idx.params[0].ty))], n)[0]
        dsts = [kenv[d.name] for d in s.dsts]
        m = dsts[0].shape[0]
        if any(d.shape[0] != m for d in dsts):
            raise LcuRuntimeError(s.loc, MSG_SCATTER_LENGTHS)
        if n and (target.min() < 0 or target.max() >= m):
            raise LcuRuntimeError(s.loc, MSG_SCATTER)
        out = [d.copy() for d in dsts]
        for o, x in zip(out, xs):
            o[target] = x
        return out
    if isinstance(s, (ir.Reduce, ir.Scan, ir.SegReduce, ir.SegScan)):
        mon = _Monoid(s.op, kenv, len(xs))
        init = [np.asarray(i).astype(x.dtype)[()] for i, x in zip(_init(s, kenv), xs)]
        if isinstance(s, ir.Reduce):
            return _reduce(xs, init, mon, n)
        if isinstance(s, ir.Scan):
            return _excl_scan(xs, init, mon, n)
        if isinstance(s, ir.SegReduce):
            return _seg_reduce(xs, init, mon, sd)
        return _seg_scan(xs, init, mon, sd)
    if isinstance(s, (ir.Filter, ir.Partition, ir.SegFilter, ir.SegPartition)):
        flags = apply_thunk(s.pred, kenv, xs, n)[0].astype(bool, copy=False)
        kept = [x[flags] for x in xs]
        if isinstance(s, ir.Filter):
            return kept
        if isinstance(s, ir.Partition):
            return kept + [x[~flags] for x in xs]
        kept_sd = _seg_counts(flags, sd)
        if isinstance(s, ir.SegFilter):
            return kept + [kept_sd]
        rejected_sd = SegDes(sd.lengths - kept_sd.lengths)
        return kept + [kept_sd] + [x[~flags] for x in xs] + [rejected_sd]
    if isinstance(s, ir.Rank):
        ity = dtype_of(s.f.params[0].ty)
        return [_ranks(xs[0], s.descending).astype(ity)]
    if isinstance(s, ir.SegRank):
        ity = dtype_of(s.f.params[0].ty)
        r = _ranks(xs[0], s.descending, sd.ids)      # global position in (segment, key) order
        return [(r - sd.offsets[sd.ids]).astype(ity)]
    raise TypeError(f"unknown SOAC {type(s).__name__}")


def _ncomps_params(th: ir.Thunk) -> int:
    return sum(_ncomps(p.ty) for p in th.params)


def _seg_counts(flags: np.ndarray, sd: SegDes) -> SegDes:
    counts = np.zeros(sd.count, dtype=np.int64)
    nz = sd.lengths > 0
    if np.any(nz):
        counts[nz] = np.add.reduceat(flags.astype(np.int64), sd.offsets[nz])
    return SegDes(counts)


# =============================================================================================
# CPU level


def coerce(value: Any, t: Type) -> Any:
    """Coerce a Python/numpy value to the runtime representation of λcu type ``t``
    (ints/floats/bools/one-char strings, lists or arrays for vectors, a ``SegDes`` or a lengths
    list for ``sd``, tuples for tuples)."""
    if isinstance(t, UnitT):
        return None
    if isinstance(t, (IntT, FloatT, BoolT, CharT)):
        return scalar(value, t)
    if isinstance(t, VecT):
        if isinstance(value, np.ndarray) and value.dtype == dtype_of(t.elem):
            return value
        if isinstance(t.elem, CharT) and not isinstance(value, np.ndarray):
            return np.asarray([ord(c) if isinstance(c, str) else c for c in value], dtype=np.uint8)
        return np.asarray(value).astype(dtype_of(t.elem)).reshape(-1)
    if isinstance(t, SegDesT):
        return value if isinstance(value, SegDes) else SegDes(value)
    if isinstance(t, TupleT):
        return tuple(coerce(v, e) for v, e in zip(value, t.elems))
    raise TypeError(f"cannot coerce to {t}")


class NumpyRunner:
    """The numpy kernel runner of the λcu executor (``lambda_cu.executor``): vectors are 1-d numpy
    arrays, segment descriptors :class:`SegDes`, scalars numpy scalars; every kernel is evaluated
    by :func:`eval_soac`, one SOAC after another."""

    name = "numpy"

    def run_kernel(self, k: ir.Kernel, args: list) -> Any:
        with np.errstate(all="ignore"):
            kenv = {p.name: a for p, a in zip(k.params, args)}
            for b in k.binds:
                vals = _soac(b.soac, kenv)
                for v, x in zip(b.vars, vals):
                    kenv[v.name] = x
        res = [kenv[r.name] for r in k.returns]
        return res[0] if len(res) == 1 else tuple(res)

    @staticmethod
    def length(v: np.ndarray) -> int:
        return int(v.shape[0])

    @staticmethod
    def sd_field(sd: SegDes, field: str, dtype: np.dtype) -> np.ndarray:
        return sd.field(field, dtype)

    @staticmethod
    def sd_field_length(sd: SegDes, field: str) -> int:
        return sd.field_length(field)

    @staticmethod
    def vec_from_host(a: np.ndarray) -> np.ndarray:
        return a

    @staticmethod
    def make_sd(lengths: np.ndarray, loc: Optional[Loc]) -> SegDes:
        if lengths.shape[0] and lengths.min() < 0:
            raise LcuRuntimeError(loc, MSG_NEG_LENGTH)
        sd = SegDes(lengths)
        if sd.total > _INT32_MAX:
            # int32 segment offsets (as on the device): reported as values that do not fit
            raise MemoryError("a nested sequence of more than 2^31 - 1 elements")
        return sd

    @staticmethod
    def to_host(v: Any) -> Any:
        return v

    @staticmethod
    def from_host(v: Any, ty: Type) -> Any:
        return v

    @staticmethod
    def coerce(v: Any, ty: Type) -> Any:
        return coerce(v, ty)

    @staticmethod
    def host_prim(op: str, args: list, ty: Optional[Type], loc: Optional[Loc]) -> Any:
        return _norm(_PRIM_IMPL[op](*args, ty, loc, False))

    @staticmethod
    def sync() -> None:
        pass

    @staticmethod
    def discard_errors() -> None:
        """Nothing to forget: every error was raised where it happened."""


_INT32_MAX = 2**31 - 1


class Interpreter(Executor):
    """Interpreter of one λcu program: the executor with the numpy runner (see the module
    docstring)."""

    def __init__(self, prog: ir.Program, check: bool = True,
                 externs: Optional[dict[str, Callable[..., Any]]] = None) -> None:
        super().__init__(prog, NumpyRunner(), check, externs)


def run_program(prog: ir.Program, check: bool = True) -> list:
    """Run the main body of ``prog``; one value per main binding."""
    return Interpreter(prog, check).run_main()


def call_function(prog: ir.Program, name: str, args: Sequence[Any], check: bool = True) -> Any:
    """Call function ``name`` of ``prog`` with ``args``."""
    return Interpreter(prog, check).call(name, *args)


__all__ = ["LcuRuntimeError", "Interpreter", "run_program", "call_function", "eval_soac",
           "apply_prim", "apply_thunk", "recognise_monoid", "coerce", "from_nested", "to_nested",
           "values_close", "SegDes", "MSG_BOUNDS", "MSG_DIV0", "MSG_PERMUTE", "MSG_SCATTER",
           "MSG_SCATTER_LENGTHS", "MSG_NEG_LENGTH"]
