"""Abstract values of the flattener: what a NESL expression denotes while it is being flattened.

Flattening evaluates each expression either on the host (no parallel context) or in a flat
*context* of ``n`` parallel instances (the elements of an apply-to-each, the active instances of
a lifted function, the instances that took one branch of a conditional).  In a context, an
expression's value is one of

* :class:`U` — **uniform**: the same value for every instance, held once on the host (a free
  variable of the apply-to-each, a constant, anything computed only from such values).  Uniform
  values are never replicated unless an operation needs one copy per instance; indexing a uniform
  sequence from a context is a gather (``v[i]`` with ``v`` free costs O(1) per instance).
* :class:`L` — **lifted**: a sequence representation ``rep`` of the per-instance values, read
  through an optional index ``map`` (instance ``k`` has value ``rep[map[k]]``).  Entering an inner
  context or a branch composes the map instead of copying data; the data is gathered only when an
  operation needs it contiguous (:func:`materialise`).
* :class:`VT` — a pair whose components are values of either kind.

On the host (no context) every value is a :class:`U`.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from lambda_cu import ir
from lambda_cu.types import INT

from . import reps as R
from .builder import Builder


@dataclass(frozen=True)
class U:
    rep: R.Rep


@dataclass(frozen=True)
class L:
    rep: R.Rep
    map: Optional[ir.Exp] = None


@dataclass(frozen=True)
class VT:
    fst: object
    snd: object


@dataclass(frozen=True)
class Ctx:
    """A flat parallel context of ``n`` (> 0 whenever code runs in it) instances."""
    n: ir.Exp


def is_uniform(v) -> bool:
    if isinstance(v, U):
        return True
    if isinstance(v, VT):
        return is_uniform(v.fst) and is_uniform(v.snd)
    return False


def uniform_rep(v) -> R.Rep:
    if isinstance(v, U):
        return v.rep
    return R.Tup((uniform_rep(v.fst), uniform_rep(v.snd)))


def split_pair(v):
    """The two components of a pair value."""
    if isinstance(v, VT):
        return v.fst, v.snd
    if isinstance(v, U):
        a, b = v.rep.items
        return U(a), U(b)
    a, b = v.rep.items
    return L(a, v.map), L(b, v.map)


def pair(a, b):
    if isinstance(a, U) and isinstance(b, U):
        return U(R.Tup((a.rep, b.rep)))
    return VT(a, b)


def compose(b: Builder, m: Optional[ir.Exp], p: ir.Exp, n: ir.Exp) -> ir.Exp:
    """The map ``k -> m[p[k]]`` (``p`` when ``m`` is the identity)."""
    if m is None:
        return p
    return R.map_vec(b, R.idx(m, R.idx(p, R.I)), n, INT, "map")


def reindex_env(b: Builder, env: dict, p: ir.Exp, n: ir.Exp) -> dict:
    """The environment seen by a sub-context whose instance ``k`` is instance ``p[k]`` of the
    current one (a conditional branch, a filter, an inner apply-to-each).  Lifted values get a
    composed map (one small int vector per distinct map, no data copied); uniform ones stay."""
    memo: dict = {}

    def go(v):
        if isinstance(v, U):
            return v
        if isinstance(v, VT):
            return VT(go(v.fst), go(v.snd))
        key = v.map
        if key not in memo:
            memo[key] = compose(b, v.map, p, n)
        return L(v.rep, memo[key])

    return {k: go(v) for k, v in env.items()}


def materialise(b: Builder, v, ctx: Ctx, tm: R.TypeMap, ty) -> R.Rep:
    """The contiguous sequence representation (length ``ctx.n``) of a value in a context;
    ``ty`` is the NESL type of one instance's value."""
    if isinstance(v, L):
        if v.map is None:
            return v.rep
        return R.gather(b, v.rep, v.map, ctx.n)
    if isinstance(v, U):
        return R.replicate(b, v.rep, ctx.n, tm, ty)
    t = tm.unfold(ty)
    return R.Tup((materialise(b, v.fst, ctx, tm, t.fst), materialise(b, v.snd, ctx, tm, t.snd)))


def scalar_at(v, i: ir.Exp) -> ir.Exp:
    """GPU expression for instance ``i``'s value of a base-typed value."""
    if isinstance(v, U):
        return v.rep.e
    if v.map is None:
        return R.idx(v.rep.e, i)
    return R.idx(v.rep.e, R.idx(v.map, i))


def instance_index(v: L, i: ir.Exp) -> ir.Exp:
    return i if v.map is None else R.idx(v.map, i)
