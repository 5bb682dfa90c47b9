"""Small, pure utilities over λcu GPU expressions and thunks used by the fusion pass:
fresh names, capture-free substitution, α-renaming of thunk binders, and the "identity access"
analysis (does a thunk read vector ``v`` only as ``v[i]`` for its index parameter ``i``?)."""
from __future__ import annotations

import dataclasses
import itertools
from typing import Optional, Callable, Iterable, Mapping

from .. import ir
from ..types import BoolT, CharT, FloatT, IntT, Type, flat_components


_EXTERN = getattr(ir, "Extern", None)


def effectful(e: ir.Exp) -> bool:
    """Does evaluating a CPU expression have effects whose order matters (host library calls,
    checks, errors, function calls)?"""
    kinds = (ir.Check, ir.Error, ir.Call) + ((_EXTERN,) if _EXTERN is not None else ())
    return any(isinstance(x, kinds) for x in walk(e))


class NameSupply:
    """Fresh names that avoid a given set of taken names."""

    def __init__(self, taken: Iterable[str] = ()):
        self.taken = set(taken)
        self._n = itertools.count()

    def fresh(self, base: str) -> str:
        if base and base not in self.taken:
            self.taken.add(base)
            return base
        base = base.rstrip("0123456789_") or "v"
        while True:
            name = f"{base}_{next(self._n)}"
            if name not in self.taken:
                self.taken.add(name)
                return name


def _same(new: tuple, old: tuple) -> bool:
    return all(x is y for x, y in zip(new, old))


def _mc_leaf(e, f):
    return e


def _mc_tuple(e, f):
    xs = tuple(f(x) for x in e.elems)
    return e if _same(xs, e.elems) else ir.Tuple(xs)


def _mc_proj(e, f):
    t = f(e.tup)
    return e if t is e.tup else ir.Proj(t, e.index)


def _mc_primop(e, f):
    xs = tuple(f(x) for x in e.args)
    return e if _same(xs, e.args) else dataclasses.replace(e, args=xs)


def _mc_length(e, f):
    v = f(e.vec)
    return e if v is e.vec else dataclasses.replace(e, vec=v)


def _mc_index(e, f):
    v, i = f(e.vec), f(e.idx)
    return e if v is e.vec and i is e.idx else dataclasses.replace(e, vec=v, idx=i)


def _mc_if(e, f):
    c, t, x = f(e.cond), f(e.then), f(e.else_)
    return e if c is e.cond and t is e.then and x is e.else_ else ir.If(c, t, x)


def _mc_let(e, f):
    r, b = f(e.rhs), f(e.body)
    return e if r is e.rhs and b is e.body else ir.Let(e.vars, r, b)


def _inherited(table: dict, cls: type):
    """The entry of ``table`` for the nearest base class of ``cls`` that has one, or None."""
    for c in cls.__mro__[1:]:
        h = table.get(c)
        if h is not None:
            return h
    return None


#: node class -> its :func:`map_children` (found by the exact class, without a chain of
#: isinstance tests; a subclass uses its base's, ``_inherited``)
_MAP_CHILDREN: dict = {
    ir.Var: _mc_leaf, ir.Const: _mc_leaf, ir.Error: _mc_leaf,
    ir.Tuple: _mc_tuple, ir.Proj: _mc_proj, ir.PrimOp: _mc_primop, ir.Length: _mc_length,
    ir.Index: _mc_index, ir.If: _mc_if, ir.Let: _mc_let,
}


def map_children(e: ir.Exp, f: Callable[[ir.Exp], ir.Exp]) -> ir.Exp:
    """Rebuild ``e`` with ``f`` applied to its direct sub-expressions (no binder handling);
    ``e`` itself when ``f`` returns every sub-expression unchanged (the IR is immutable, so the
    rewrites that change nothing allocate nothing)."""
    h = _MAP_CHILDREN.get(type(e)) or _inherited(_MAP_CHILDREN, type(e))
    if h is not None:
        return h(e, f)
    if isinstance(e, ir.SegVec):
        sd = f(e.sd)
        return e if sd is e.sd else dataclasses.replace(e, sd=sd)
    if isinstance(e, (ir.Run, ir.Call)) or (_EXTERN is not None and isinstance(e, _EXTERN)):
        xs = tuple(f(x) for x in e.args)
        return e if _same(xs, e.args) else dataclasses.replace(e, args=xs)
    if isinstance(e, ir.VecLit):
        xs = tuple(f(x) for x in e.elems)
        return e if _same(xs, e.elems) else dataclasses.replace(e, elems=xs)
    if isinstance(e, ir.MakeSegDes):
        v = f(e.lengths)
        return e if v is e.lengths else dataclasses.replace(e, lengths=v)
    if isinstance(e, ir.Check):
        c = f(e.cond)
        return e if c is e.cond else dataclasses.replace(e, cond=c)
    if isinstance(e, ir.Block):
        rhs = tuple(f(b.rhs) for b in e.binds)
        res = f(e.result)
        if res is e.result and all(r is b.rhs for r, b in zip(rhs, e.binds)):
            return e
        return ir.Block(tuple(ir.Bind(b.params, r) for b, r in zip(e.binds, rhs)), res)
    if isinstance(e, ir.Speculate):
        z, a, b = f(e.size), f(e.fast), f(e.slow)
        return e if z is e.size and a is e.fast and b is e.slow else ir.Speculate(z, a, b)
    raise TypeError(f"not an expression: {e!r}")


def _no_children(e) -> tuple:
    return ()


#: node class -> its :func:`children` (the classes whose children are fields read directly;
#: every other class goes through ``_children``)
_CHILDREN: dict = {
    ir.Var: _no_children, ir.Const: _no_children, ir.Error: _no_children,
    ir.Tuple: lambda e: e.elems,
    ir.Proj: lambda e: (e.tup,),
    ir.PrimOp: lambda e: e.args,
    ir.Length: lambda e: (e.vec,),
    ir.Index: lambda e: (e.vec, e.idx),
    ir.If: lambda e: (e.cond, e.then, e.else_),
    ir.Let: lambda e: (e.rhs, e.body),
}


def children(e: ir.Exp) -> tuple:
    """The direct sub-expressions of ``e`` (those :func:`map_children` visits, in its order)."""
    f = _CHILDREN.get(type(e))
    if f is not None:
        return f(e)
    return _children(e)


def _children(e: ir.Exp) -> tuple:
    """:func:`children` of a node whose exact class is not in ``_CHILDREN``."""
    h = _inherited(_CHILDREN, type(e))
    if h is not None:
        return h(e)
    if isinstance(e, ir.SegVec):
        return (e.sd,)
    if isinstance(e, (ir.Run, ir.Call)) or (_EXTERN is not None and isinstance(e, _EXTERN)):
        return e.args
    if isinstance(e, ir.VecLit):
        return e.elems
    if isinstance(e, ir.MakeSegDes):
        return (e.lengths,)
    if isinstance(e, ir.Check):
        return (e.cond,)
    if isinstance(e, ir.Block):
        return tuple(b.rhs for b in e.binds) + (e.result,)
    if isinstance(e, ir.Speculate):
        return (e.size, e.fast, e.slow)
    raise TypeError(f"not an expression: {e!r}")


def walk(e: ir.Exp):
    """Every sub-expression of ``e``, ``e`` included (pre-order), without rebuilding anything:
    the traversal of the queries below (a rewrite that changes nothing visits the same nodes)."""
    stack = [e]
    pop, push = stack.pop, stack.extend
    get = _CHILDREN.get
    while stack:
        x = pop()
        yield x
        f = get(type(x))
        cs = f(x) if f is not None else _children(x)
        if cs:
            push(reversed(cs))


def subst(e: ir.Exp, mapping: Mapping[str, ir.Exp]) -> ir.Exp:
    """Replace free variables by expressions.  Let binders shadow; the caller guarantees that
    the free variables of the replacements are not captured (use :func:`freshen` first)."""
    if not mapping:
        return e
    if isinstance(e, ir.Var):
        return mapping.get(e.name, e)
    if isinstance(e, ir.Let):
        inner = {k: v for k, v in mapping.items() if k not in {x.name for x in e.vars}}
        return ir.Let(e.vars, subst(e.rhs, mapping), subst(e.body, inner))
    if isinstance(e, ir.Block):
        m = dict(mapping)
        binds = []
        for b in e.binds:
            binds.append(ir.Bind(b.params, subst(b.rhs, m)))
            for n in b.names:
                m.pop(n, None)
        return ir.Block(tuple(binds), subst(e.result, m))
    return map_children(e, lambda x: subst(x, mapping))


def rewrite(e: ir.Exp, f: Callable[[ir.Exp], ir.Exp | None]) -> ir.Exp:
    """Bottom-up rewrite: ``f`` returns a replacement or None (keep)."""
    e2 = map_children(e, lambda x: rewrite(x, f))
    r = f(e2)
    return e2 if r is None else r


def bound_names(e: ir.Exp) -> set[str]:
    return {v.name for x in walk(e) if isinstance(x, ir.Let) for v in x.vars}


def freshen(t: ir.Thunk, supply: NameSupply, carry: Optional[dict] = None) -> ir.Thunk:
    """α-rename the thunk's parameters and every let-bound variable of its body to fresh names.
    ``carry`` (name -> information about the variable, e.g. the fusion engine's pulled
    producers) gets the new name of each renamed variable it has, with the same information."""
    ren = {p.name: supply.fresh(p.name) for p in t.params}
    params = tuple(ir.Param(ir.Var(ren[p.name]), p.ty) for p in t.params)
    return ir.Thunk(params, _freshen_exp(t.body, ren, supply, carry), t.using)


def _freshen_exp(e: ir.Exp, ren: dict, supply: NameSupply, carry: Optional[dict] = None) -> ir.Exp:
    if isinstance(e, ir.Var):
        return ir.Var(ren[e.name]) if e.name in ren else e
    if isinstance(e, ir.Let):
        rhs = _freshen_exp(e.rhs, ren, supply, carry)
        inner = dict(ren)
        vs = []
        for v in e.vars:
            inner[v.name] = supply.fresh(v.name)
            if carry is not None and v.name in carry:
                carry[inner[v.name]] = carry[v.name]
            vs.append(ir.Var(inner[v.name]))
        return ir.Let(tuple(vs), rhs, _freshen_exp(e.body, inner, supply, carry))
    return map_children(e, lambda x: _freshen_exp(x, ren, supply, carry))


def rename_kernel_vars(t: ir.Thunk, ren: Mapping[str, str]) -> ir.Thunk:
    """Rename kernel-scope variables (the ``using`` list and their free occurrences)."""
    shadow = {p.name for p in t.params}
    m = {k: ir.Var(v) for k, v in ren.items() if k not in shadow}
    using = _dedup(ir.Var(ren.get(u.name, u.name)) for u in t.using)
    return ir.Thunk(t.params, subst(t.body, m), using)


def rename_exp(e: ir.Exp, ren: Mapping[str, str]) -> ir.Exp:
    return subst(e, {k: ir.Var(v) for k, v in ren.items()})


def _dedup(vs: Iterable[ir.Var]) -> tuple:
    return tuple(dict.fromkeys(vs))


def union_using(*lists: Iterable[ir.Var], drop: Iterable[str] = ()) -> tuple:
    d = set(drop)
    return _dedup(v for l in lists for v in l if v.name not in d)


def exp_size(e: ir.Exp) -> int:
    return sum(1 for _ in walk(e))


def uses_of(e: ir.Exp, name: str) -> int:
    """Number of free occurrences of ``name`` in ``e``."""
    if isinstance(e, ir.Var):
        return int(e.name == name)
    if isinstance(e, ir.Let):
        inner = 0 if name in {v.name for v in e.vars} else uses_of(e.body, name)
        return uses_of(e.rhs, name) + inner
    total = [0]

    def child(x):
        total[0] += uses_of(x, name)
        return x
    map_children(e, child)
    return total[0]


def identity_only(body: ir.Exp, vec: str, index: str, allow_length: bool = True) -> bool:
    """True when every free occurrence of ``vec`` in ``body`` is ``vec[index]`` (``index`` being
    free, i.e. the thunk's own index parameter) or, if allowed, ``#vec``."""
    def ok(e: ir.Exp, shadowed: frozenset) -> bool:
        if isinstance(e, ir.Var):
            return e.name != vec or vec in shadowed
        if isinstance(e, ir.Index) and isinstance(e.vec, ir.Var) and e.vec.name == vec \
                and vec not in shadowed:
            return (isinstance(e.idx, ir.Var) and e.idx.name == index and index not in shadowed)
        if allow_length and isinstance(e, ir.Length) and isinstance(e.vec, ir.Var) \
                and e.vec.name == vec:
            return True
        if isinstance(e, ir.Let):
            return ok(e.rhs, shadowed) and ok(e.body, shadowed | {v.name for v in e.vars})
        res = [True]

        def child(x):
            res[0] = res[0] and ok(x, shadowed)
            return x
        map_children(e, child)
        return res[0]
    return ok(body, frozenset())


def index_dependent_reads(body: ir.Exp, index: str) -> set[str]:
    """Vectors subscripted (or measured) with an expression that depends on ``index``, and
    vectors whose subscripts we cannot analyse."""
    out: set[str] = set()

    def dep(e: ir.Exp, tainted: frozenset) -> bool:
        return bool(ir.free_vars(e) & tainted)

    def go(e: ir.Exp, tainted: frozenset) -> None:
        if isinstance(e, ir.Index):
            if isinstance(e.vec, ir.Var) and dep(e.idx, tainted):
                out.add(e.vec.name)
            go(e.idx, tainted)
            if not isinstance(e.vec, ir.Var):
                go(e.vec, tainted)
            return
        if isinstance(e, ir.Let):
            go(e.rhs, tainted)
            t2 = tainted | {v.name for v in e.vars} if dep(e.rhs, tainted) else \
                tainted - {v.name for v in e.vars}
            go(e.body, frozenset(t2))
            return
        map_children(e, lambda x: (go(x, tainted), x)[1])
    go(body, frozenset({index}))
    return out


def zero_of(t: Type) -> ir.Const:
    if isinstance(t, IntT):
        return ir.Const(0, t)
    if isinstance(t, FloatT):
        return ir.Const(0.0, t)
    if isinstance(t, BoolT):
        return ir.Const(False, t)
    if isinstance(t, CharT):
        return ir.Const("\0", t)
    raise TypeError(f"no default value of type {t}")


def simplify(e: ir.Exp, keep: frozenset = frozenset()) -> ir.Exp:
    """Local clean-ups: ``(e1, ..., ek).j`` -> ``ej``; ``let x = y in b`` (y a variable or a
    constant) -> ``b[y/x]``; ``let x = e in x`` -> ``e`` unless ``x`` is in ``keep`` and ``e``
    can fail (a pulled producer's ``let``, which the rewrite engine orders by the producer's
    position: dissolved, its check would move to the consumer's place); single-use lets of pure
    scalars are left alone.  Nothing that can fail (:func:`can_fail`) is dropped: a check must
    survive fusion."""
    def step(x: ir.Exp):
        if isinstance(x, ir.Proj) and isinstance(x.tup, ir.Tuple) and x.index < len(x.tup.elems) \
                and not any(can_fail(c) for j, c in enumerate(x.tup.elems) if j != x.index):
            return x.tup.elems[x.index]
        if isinstance(x, ir.Let):
            if len(x.vars) == 1 and isinstance(x.body, ir.Var) and x.body.name == x.vars[0].name \
                    and not (x.body.name in keep and can_fail(x.rhs)):
                return x.rhs
            if len(x.vars) == 1 and isinstance(x.rhs, (ir.Var, ir.Const)):
                return simplify(subst(x.body, {x.vars[0].name: x.rhs}), keep)
            if len(x.vars) > 1 and isinstance(x.rhs, ir.Tuple) and len(x.rhs.elems) == len(x.vars) \
                    and all(isinstance(c, (ir.Var, ir.Const)) for c in x.rhs.elems):
                return simplify(subst(x.body, {v.name: c for v, c in zip(x.vars, x.rhs.elems)}), keep)
            if len(x.vars) == 1 and uses_of(x.body, x.vars[0].name) == 0 and not can_fail(x.rhs):
                return x.body
        return None
    return rewrite(e, step)


def can_fail(e: ir.Exp) -> bool:
    """May evaluating ``e`` raise a runtime error (subscript, integer division, ...)?"""
    from ..prims import PRIMS
    return any(isinstance(x, (ir.Index, ir.Error)) or (isinstance(x, ir.PrimOp) and PRIMS[x.op].can_fail)
               for x in walk(e))


def fails_located(e: ir.Exp) -> bool:
    """Does ``e`` contain a *check*: a subscript or primitive with a source location (the NESL
    runtime errors), or an error?  Subscripts without a location are the flattener's own
    gathers, in range by construction (the convention of ``lambda_cu.dead_code``)."""
    return any(isinstance(x, ir.Error) or (isinstance(x, (ir.Index, ir.PrimOp)) and x.loc is not None)
               for x in walk(e))


def soac_can_fail(s: ir.Soac) -> bool:
    """Does SOAC ``s`` perform a check: a located subscript or primitive in one of its thunks,
    or the permutation / write-index check of a located PERMUTE or SCATTER?"""
    if isinstance(s, (ir.Permute, ir.SegPermute, ir.Scatter)) and s.loc is not None:
        return True
    return any(fails_located(t.body) for t in s.thunks()) or any(fails_located(e) for e in s.init_exps)


def kernel_can_fail(k: ir.Kernel) -> bool:
    return any(soac_can_fail(b.soac) for b in k.binds)


def cpu_can_fail(e: ir.Exp, kernels: Mapping[str, ir.Kernel]) -> bool:
    """May evaluating a CPU expression fail or have an effect: a host library call, a check, an
    error, a function call, a located primitive or subscript, a segment descriptor built from
    lengths (negative ones fail), or a run of a kernel that can fail (in a nested block)?"""
    found = [False]

    def go(x):
        if isinstance(x, (ir.Check, ir.Error, ir.Call)) \
                or (isinstance(x, ir.MakeSegDes) and x.loc is not None) \
                or (_EXTERN is not None and isinstance(x, _EXTERN)) \
                or (isinstance(x, (ir.PrimOp, ir.Index)) and x.loc is not None) \
                or (isinstance(x, ir.Run) and x.kernel in kernels
                    and kernel_can_fail(kernels[x.kernel])):
            found[0] = True
        return None
    rewrite(e, go)
    return found[0]


def components(t: Type) -> tuple:
    return flat_components(t)
