"""SOAC fusion inside one kernel: the rewrite rules of the λcu paper's Fig. 5 (and the project's
additions) as a table of values, :data:`RULES`, applied by one small engine until none applies
(:func:`fuse_kernel`).

A rule (:class:`Rule`) is a name, a *pattern* over two bindings A, B of the kernel (structured
IR, never printed text), a *side condition* and a *builder* of the replacement bindings:
  * :class:`Vertical` (producer A, consumer B): A's SOAC kind, B's SOAC kind, and how B reads A
    (:class:`ReadsResult`, :class:`SegDesOf`); the replacement takes B's place and A stays
    until the clean-up drops it (its results count as *absorbed*: its checks now run in B);
  * :class:`Horizontal`: A and B have the same SOAC kind and no dependence path between them;
    the replacement takes B's place and A goes.
The engine (:func:`rewrite_step`) tries the rules in table order, each over the pairs (A, B) of
bindings, A before B, in binding order, and applies the first whose pattern matches and whose
side condition holds.  :func:`fuse_kernel` repeats it to a fixed point; before the first step
and after each, ``#v`` sizes of size-preserving results are replaced by the producer's size,
dead bindings are removed (a binding that may fail only if it was absorbed), every thunk's
``using`` list is recomputed to be exactly its free kernel variables and the bindings are put in
dependence order.  The kernel's parameters and returns are unchanged.

The table (``python -m lambda_cu.fusion`` prints it with patterns and conditions: :func:`table_text`):
  FILTER-REDUCE          b = REDUCE { i => let a = e1 in if p(a) then [a/A[i]]e2 else id } id op n
  FILTER-FILTER          the consumer runs over the producer's index space; its pull thunk also
                         yields the producer's predicate (a dead, never-returned flag vector) that
                         its predicate conjoins (the IR's predicates see values, not indices)
  FILTER-MAP             B, B_kept = FILTER { i => let a = e1 in ([a/A[i]]e2, p(a)) } { (y, keep) => keep } n
                         (B's value guarded by p(a) where it has a check or reads what p guards)
  SEG_FILTER-SEG_REDUCE  FILTER-REDUCE within each segment, over the producer's descriptor
  PERMUTE-PERMUTE        the index maps compose: Y[g2(g1(j))] = f1(j)
  MAP-X                  (X = any SOAC but ONCE: MAP-MAP, MAP-PERMUTE, MAP-REDUCE, MAP-SEG_SCAN, ...)
                         B = X { i => let a = e1 in [a/A[i]] e2 using xs ∪ (ys \\ A) } ...
  X+X                    (X = MAP, REDUCE, SCAN, SEG_REDUCE, SEG_SCAN; horizontal) one SOAC
                         producing the tuple of both results
Equal iteration sizes are equal shapes of the one shape analysis (``shapes.KernelShapes``).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Callable, Mapping

from .. import ir
from ..check import check_kernel
from ..types import BOOL, INT, TupleT, VecT, flat_components
from .exprs import (NameSupply, bound_names, can_fail, exp_size, fails_located, freshen, identity_only,
                    index_dependent_reads, rewrite, simplify, soac_can_fail, subst, walk, zero_of)
from .shapes import KernelShapes, Shape

INLINE_LIMIT = 40   # a MAP still needed elsewhere is inlined only when its body is this small


# --------------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------------

def exact_using(t: ir.Thunk) -> ir.Thunk:
    """The thunk with ``using`` = exactly its free variables (in the old order, then sorted)."""
    fv = ir.thunk_free_vars(t)
    old = [u.name for u in t.using if u.name in fv]
    rest = sorted(fv - set(old))
    return ir.Thunk(t.params, t.body, tuple(ir.Var(n) for n in dict.fromkeys(old + rest)))


def _map_thunks(s: ir.Soac, f) -> ir.Soac:
    """``s`` with ``f`` applied to each of its thunks; ``s`` itself when ``f`` returns every
    thunk unchanged (the IR is immutable: a rewrite that changes nothing allocates nothing)."""
    changes = {}
    same = True
    for name in s.THUNK_FIELDS:
        old = getattr(s, name)
        new = f(old)
        changes[name] = new
        if new is not old:
            same = False
    return s if same else dataclasses.replace(s, **changes)


def _reads(b: ir.KBind) -> frozenset:
    return ir.soac_reads(b.soac)


def _replace_index(body: ir.Exp, vecs: Mapping[str, ir.Exp], index: str) -> ir.Exp:
    """``[a/A[i]]``: replace ``A[index]`` by ``vecs[A]``."""
    def f(e):
        if isinstance(e, ir.Index) and isinstance(e.vec, ir.Var) and e.vec.name in vecs \
                and isinstance(e.idx, ir.Var) and e.idx.name == index:
            return vecs[e.vec.name]
        return None
    return rewrite(body, f)


def _tuple_or_single(es):
    es = tuple(es)
    return es[0] if len(es) == 1 else ir.Tuple(es)


def _bind_params(params, values):
    """``let (params) = values in ...`` as a Let header: (vars, rhs)."""
    vs = tuple(p.var for p in params)
    if len(vs) == 1:
        return vs, _tuple_or_single(values)
    if len(vs) == len(values):
        return vs, ir.Tuple(tuple(values))
    raise ValueError("parameter/value arity mismatch")


def _body_parts(e: ir.Exp) -> tuple:
    return e.elems if isinstance(e, ir.Tuple) else (e,)


@dataclass(frozen=True)
class _Ctx:
    """What the side conditions and builders of one rewrite step see: the kernel, its types
    (``env``), its shapes, the names it returns, and the pass's name supply."""
    kernel: ir.Kernel
    supply: NameSupply
    env: Mapping
    shapes: KernelShapes
    returned: frozenset
    #: the variables a pulled producer's ``let`` binds in a consumer thunk -> the producer's
    #: position among the kernel's original bindings (``_pull_with`` keeps those ``let``s in
    #: that order, the order in which the unfused kernels run and fail)
    pulled: dict = dataclasses.field(default_factory=dict, compare=False)
    #: variable of a binding of the original kernel -> its position
    order: Mapping = dataclasses.field(default_factory=dict, compare=False)

    def position(self, vars_) -> int:
        return min((self.order.get(v.name, len(self.order)) for v in vars_),
                   default=len(self.order))

    def uses_elsewhere(self, names, skip: set) -> bool:
        if set(names) & self.returned:
            return True
        for b in self.kernel.binds:
            if id(b) in skip:
                continue
            if set(names) & _reads(b):
                return True
        return False

    def elem_types(self, vars_) -> tuple:
        out = []
        for v in vars_:
            t = self.env[v.name]
            out.append(t.elem if isinstance(t, VecT) else t)
        return tuple(out)


def _context(kernel: ir.Kernel, supply: NameSupply, shapes_args, pulled=None,
             order=None) -> _Ctx:
    return _Ctx(kernel, supply, check_kernel(kernel), KernelShapes(kernel.binds, *shapes_args),
                frozenset(r.name for r in kernel.returns),
                {} if pulled is None else pulled, {} if order is None else order)


def _strip_pulled(body: ir.Exp, ctx: _Ctx, before: int | None = None) -> tuple:
    """The leading ``let``s of pulled producers (``_pull_with``) of a thunk body (those of
    producers at positions before ``before`` only, if given), and the rest."""
    lets = []
    while (isinstance(body, ir.Let) and body.vars and body.vars[0].name in ctx.pulled
           and (before is None or ctx.pulled[body.vars[0].name] < before)):
        lets.append(body)
        body = body.body
    return lets, body


def _pull_with(prod_f: ir.Thunk, avars: tuple, cons_body: ir.Exp, index: str, ctx: _Ctx,
               wrap: Callable[[tuple, ir.Exp], ir.Exp] | None = None) -> ir.Exp:
    """``let (a..) = e1[index] in [a/A[index]] cons_body`` (``wrap`` may guard the consumer)."""
    pf = freshen(prod_f, ctx.supply, ctx.pulled)
    e1 = subst(pf.body, {pf.params[0].name: ir.Var(index)})
    locals_ = tuple(ir.Var(ctx.supply.fresh("a")) for _ in avars)
    body = _replace_index(cons_body, {A.name: a for A, a in zip(avars, locals_)}, index)
    if wrap is not None:
        return ir.Let(locals_, e1, wrap(locals_, body))
    # The producer's value is computed before the consumer's own body, after the values of the
    # producers pulled in earlier that precede it in the kernel (and before those that follow
    # it): the unfused kernels run in binding order, so the first of them to fail is the one
    # whose error an unfused run reports, and a fused thunk fails at its first failing site.
    # The producer's own pulled producers that precede it (its leading pulled ``let``s at
    # positions before its own) are floated out beside the consumer's, every one at its own
    # position: left nested in the producer's value they would be ordered at the producer's
    # position, after a check of a producer between them.  (A producer merged from two
    # bindings has its first one's position and may hold producers of the second, after it:
    # those stay in its value, which reads them.)
    pos = ctx.position(avars)
    inner, e1 = _strip_pulled(e1, ctx, pos)
    prefix, body = _strip_pulled(body, ctx, pos)
    for v in locals_:
        ctx.pulled[v.name] = pos
    out = ir.Let(locals_, e1, body)
    for let in reversed(sorted(prefix + inner, key=lambda x: ctx.pulled[x.vars[0].name])):
        out = dataclasses.replace(let, body=out)
    return out


# --------------------------------------------------------------------------------------------
# patterns: what a rule matches, over the structured IR of two kernel bindings
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Match:
    """Two bindings of a kernel that a rule's pattern matched: ``a`` before ``b`` in ``binds``
    (vertically, ``a`` is the producer A and ``b`` the consumer B)."""
    binds: tuple
    a: ir.KBind
    b: ir.KBind


@dataclass(frozen=True)
class SoacIs:
    """A binding whose SOAC is an instance of one of ``kinds`` (all SOACs if empty) and of none
    of ``but``."""
    kinds: tuple = ()
    but: tuple = ()

    def __call__(self, b: ir.KBind) -> bool:
        s = b.soac
        return (not self.kinds or isinstance(s, self.kinds)) and not isinstance(s, self.but)

    def __str__(self) -> str:
        if not self.kinds:
            return "any SOAC" + "".join(f" but {k.NAME}" for k in self.but)
        return "|".join(k.NAME for k in self.kinds)


@dataclass(frozen=True)
class ReadsResult:
    """B reads a result variable of A: anywhere in its SOAC (``fields`` None) or in the
    ``using`` lists of its thunks ``fields``."""
    fields: tuple | None = None

    def __call__(self, a: ir.KBind, b: ir.KBind) -> bool:
        names = {v.name for v in a.vars}
        if self.fields is None:
            return bool(names & _reads(b))
        return any(names & {u.name for u in getattr(b.soac, f).using} for f in self.fields)

    def __str__(self) -> str:
        return "B reads A" + ("" if self.fields is None else f" in its {'/'.join(self.fields)} thunk")


@dataclass(frozen=True)
class SegDesOf:
    """B's segment descriptor is A's descriptor result (the last result of a SEG_FILTER)."""

    def __call__(self, a: ir.KBind, b: ir.KBind) -> bool:
        sd = b.soac.sd
        return isinstance(sd, ir.Var) and sd.name == a.vars[-1].name

    def __str__(self) -> str:
        return "B's descriptor is A's"


@dataclass(frozen=True)
class Vertical:
    """Producer A (``producer``), a later consumer B (``consumer``) linked by ``link``.  The
    replacement takes B's place; A stays (the clean-up drops it when nothing else reads it, and
    its checks are then evaluated by the replacement: A's results count as *absorbed*)."""
    producer: SoacIs
    consumer: SoacIs
    link: Callable[[ir.KBind, ir.KBind], bool]

    def match(self, binds: tuple, a: ir.KBind, b: ir.KBind) -> Match | None:
        if self.producer(a) and self.consumer(b) and self.link(a, b):
            return Match(binds, a, b)
        return None

    def splice(self, m: Match, new: tuple) -> tuple[tuple, frozenset]:
        out = list(m.binds)
        pos = _at(out, m.b)
        out[pos:pos + 1] = new
        return tuple(out), frozenset(v.name for v in m.a.vars)

    def __str__(self) -> str:
        return f"A = {self.producer}; B = {self.consumer}; {self.link}"


@dataclass(frozen=True)
class Horizontal:
    """Two bindings with the same SOAC, one of ``kinds``, and no dependence path between them
    (either way).  The replacement takes B's place and A goes."""
    kinds: tuple

    def match(self, binds: tuple, a: ir.KBind, b: ir.KBind) -> Match | None:
        if _path(binds, a, b):
            return None
        if type(a.soac) is not type(b.soac) or not isinstance(a.soac, self.kinds):
            return None
        return Match(binds, a, b)

    def splice(self, m: Match, new: tuple) -> tuple[tuple, frozenset]:
        out = [c for c in m.binds if c is not m.a]
        pos = _at(out, m.b)
        out[pos:pos + 1] = new
        return tuple(out), frozenset()

    def __str__(self) -> str:
        return f"A, B = the same SOAC, one of {'|'.join(k.NAME for k in self.kinds)}; no path A ~ B"


@dataclass(frozen=True)
class Rule:
    """One rewrite rule: ``pattern`` (a :class:`Vertical` or :class:`Horizontal` pattern over two
    bindings of the kernel), ``condition(match, ctx)`` the side condition (its docstring says
    what it requires), ``build(match, ctx)`` the replacement bindings; ``replacement`` shows the
    replacement in the paper's notation.  ``instance(match)`` names the rule as applied (the
    name the fusion report lists: ``MAP-SCAN`` for an instance of ``MAP-X``)."""
    name: str
    pattern: Vertical | Horizontal
    condition: Callable[[Match, "_Ctx"], bool]
    build: Callable[[Match, "_Ctx"], tuple]
    replacement: str
    instance: Callable[[Match], str] | None = None

    def instance_name(self, m: Match) -> str:
        return self.name if self.instance is None else self.instance(m)

    @property
    def condition_text(self) -> str:
        return " ".join((self.condition.__doc__ or "").split())


# --------------------------------------------------------------------------------------------
# vertical rules: side conditions and replacements
# --------------------------------------------------------------------------------------------

def _consumer_ok(a: ir.KBind, b: ir.KBind, fields=("f", "idx")) -> bool:
    """B reads A's results only as A[i] in the index thunks ``fields`` (and nowhere else)."""
    names = {v.name for v in a.vars}
    s = b.soac
    if not names & _reads(b):
        return False
    for fname in s.THUNK_FIELDS:
        t = getattr(s, fname)
        used = names & {u.name for u in t.using}
        if not used:
            continue
        if fname not in fields or len(t.params) != 1:
            return False
        if not all(identity_only(t.body, n, t.params[0].name, allow_length=False) for n in used):
            return False
    if s.shape is not None and names & ir.free_vars(s.shape):
        return False
    for e in s.init_exps:
        if names & ir.free_vars(e):
            return False
    if isinstance(s, ir.Scatter) and names & {v.name for v in s.dsts}:
        return False
    return True


def _map_x_when(m: Match, ctx: _Ctx) -> bool:
    """B reads A only as A[i] in its pull/index thunks; equal iteration sizes; A is read
    elsewhere (or returned) only if its body is small (INLINE_LIMIT)."""
    a, b = m.a, m.b
    sa, sb = a.soac, b.soac
    if not _consumer_ok(a, b):
        return False
    if ctx.shapes.iteration(sa) != ctx.shapes.iteration(sb):
        return False
    if not _thunk_order_kept(a, b, ctx):
        return False
    return not (ctx.uses_elsewhere([v.name for v in a.vars], {id(a), id(b)})
                and exp_size(sa.f.body) > INLINE_LIMIT)


def _thunk_order_kept(a: ir.KBind, b: ir.KBind, ctx: _Ctx) -> bool:
    """Whether pulling the MAP ``a``, which can fail, into the thunks of ``b`` that read it keeps
    the first failure the unfused kernels report.  ``b``'s thunks run one after the other over
    all elements, in ``THUNK_FIELDS`` order (a SCATTER's values, then its indices), so ``a``'s
    checks must not land in a thunk after one that can fail (that one's checks would come
    first), nor before one holding a pulled producer's check (which may precede ``a``): a hunt
    found `[0] <- {(10 / x, [1][x + 1]) : x in [0]}` reporting the subscript fused, the
    division unfused.  Within one thunk `_pull_with` orders the checks."""
    sa, sb = a.soac, b.soac
    if len(sb.THUNK_FIELDS) < 2 or not soac_can_fail(sa):
        return True
    names = {v.name for v in a.vars}
    thunks = sb.thunks()
    reads = [bool(names & {u.name for u in t.using}) for t in thunks]
    for k, t in enumerate(thunks):
        if not reads[k]:
            continue
        if any(can_fail(u.body) for u in thunks[:k]):
            return False
        for u in thunks[k + 1:]:
            if can_fail(u.body) and any(isinstance(x, ir.Let) and x.vars and x.vars[0].name in ctx.pulled
                                        for x in walk(u.body)):
                return False
    return True


def _map_x(m: Match, ctx: _Ctx) -> tuple:
    a, b = m.a, m.b
    sa, sb = a.soac, b.soac
    names = {v.name for v in a.vars}

    def fix(t: ir.Thunk) -> ir.Thunk:
        if not names & {u.name for u in t.using}:
            return t
        t = freshen(t, ctx.supply, ctx.pulled)
        i = t.params[0].name
        body = _pull_with(sa.f, a.vars, t.body, i, ctx)
        return ir.Thunk(t.params, body, t.using + sa.f.using)
    return (ir.KBind(b.vars, _map_thunks(sb, fix)),)


def _filter_guarded_pull(sa, a_vals, tb: ir.Thunk, ctx: _Ctx, else_value):
    """Pull thunk over A's index space: ``let a = e1 in if p(a) then [a/A[i]]e2 else else_value``."""
    tb = freshen(tb, ctx.supply, ctx.pulled)
    i = tb.params[0].name
    pred = freshen(sa.pred, ctx.supply, ctx.pulled)

    def wrap(locals_, body):
        vs, rhs = _bind_params(pred.params, locals_)
        return ir.If(ir.Let(vs, rhs, pred.body), body, else_value)
    body = _pull_with(sa.f, a_vals, tb.body, i, ctx, wrap)
    return ir.Thunk(tb.params, body, tb.using + sa.f.using + pred.using)


def _filter_consumer_ok(a_vals, b, index_thunk: ir.Thunk) -> bool:
    names = {v.name for v in a_vals}
    s = b.soac
    for fname in s.THUNK_FIELDS:
        if fname != "f" and names & {u.name for u in getattr(s, fname).using}:
            return False
    for e in s.init_exps:
        if names & ir.free_vars(e):
            return False
    t = index_thunk
    i = t.params[0].name
    if not all(identity_only(t.body, n, i, allow_length=False) for n in names):
        return False
    # the index lives in A's output space: once A[i] is replaced by A's value, nothing may use
    # it (a subscript W[i] of another vector, or i itself, would be read at the index of A's
    # input); a subscript W[A[i]] is W at A's value, which the fused thunk has
    marker = {n: ir.Var(f"{n}$at") for n in names}
    if i in ir.free_vars(_replace_index(t.body, marker, i)):
        return False
    if any(isinstance(x, ir.SegVec) for x in _subexps(t.body)):
        return False
    return True


def _subexps(e):
    return list(walk(e))


def _filter_x_when(m: Match, ctx: _Ctx) -> bool:
    """B iterates over A's output (#A); B's pull thunk reads A only as A[i] and reads nothing
    else at a position depending on i; no segment descriptor vectors in it."""
    a, b = m.a, m.b
    if ctx.shapes.iteration(b.soac) != ctx.shapes.filtered(a.vars[0]):
        return False
    return _filter_consumer_ok(a.vars, b, b.soac.f)


def _filter_map_when(m: Match, ctx: _Ctx) -> bool:
    """As FILTER-REDUCE's; and A's result is read by no other binding nor returned (the fused
    FILTER would filter a second time beside A)."""
    return _filter_x_when(m, ctx) and not ctx.uses_elsewhere([v.name for v in m.a.vars],
                                                              {id(m.a), id(m.b)})


def _filter_reduce(m: Match, ctx: _Ctx) -> tuple:
    a, b = m.a, m.b
    sa, sb = a.soac, b.soac
    f2 = _filter_guarded_pull(sa, a.vars, sb.f, ctx, _tuple_or_single(sb.init))
    return (ir.KBind(b.vars, ir.Reduce(f2, sb.init, sb.op, sa.size)),)


def _filter_filter(m: Match, ctx: _Ctx) -> tuple:
    a, b = m.a, m.b
    sa, sb = a.soac, b.soac
    btys = ctx.elem_types(b.vars)
    zeros = tuple(zero_of(t) for t in btys)
    tb = freshen(sb.f, ctx.supply, ctx.pulled)
    # pull: (e2 components..., true) when A keeps the element, (zeros..., false) otherwise
    tb2 = ir.Thunk(tb.params, ir.Tuple(_value_parts(tb.body, len(btys), ctx) + (ir.Const(True, BOOL),)),
                   tb.using)
    f2 = _filter_guarded_pull(sa, a.vars, tb2, ctx, ir.Tuple(zeros + (ir.Const(False, BOOL),)))
    pb = freshen(sb.pred, ctx.supply, ctx.pulled)
    ys = tuple(ir.Param(ir.Var(ctx.supply.fresh("y")), t) for t in btys)
    flag = ir.Param(ir.Var(ctx.supply.fresh("keep")), BOOL)
    vs, rhs = _bind_params(pb.params, tuple(p.var for p in ys))
    # the consumer's predicate sees only the elements A keeps (``&&`` would also evaluate it on
    # the placeholder zeros, where it may fail: ``10 / y``)
    if isinstance(pb.body, ir.Const) and pb.body.value is True:
        pred2 = ir.Thunk(ys + (flag,), flag.var, ())      # FILTER-MAP: B keeps what A keeps
    else:
        pred2 = ir.Thunk(ys + (flag,), ir.If(flag.var, ir.Let(vs, rhs, pb.body), ir.Const(False, BOOL)),
                         pb.using)
    dead = ir.Var(ctx.supply.fresh(b.vars[0].name + "_kept"))
    return (ir.KBind(b.vars + (dead,), ir.Filter(f2, pred2, sa.size)),)


def _filter_map(m: Match, ctx: _Ctx) -> tuple:
    """FILTER-MAP.  Where B's value, A's read replaced, has no check and reads only vectors of
    A's iteration size at the element's index (nothing A's predicate guards), it is computed for every element beside
    A's predicate, the flag: ``B, B_kept = FILTER { i => let a = e1 in ([a/A[i]]e2, p(a)) }
    { (y, keep) => keep } n``; otherwise as FILTER-FILTER with a consumer predicate that keeps
    every element (B's value computed only where A keeps it)."""
    a, b = m.a, m.b
    sa, sb = a.soac, b.soac
    btys = ctx.elem_types(b.vars)
    ys = tuple(ir.Param(ir.Var(ctx.supply.fresh("y")), t) for t in btys)
    tb = freshen(sb.f, ctx.supply, ctx.pulled)
    i = tb.params[0].name
    pred = freshen(sa.pred, ctx.supply, ctx.pulled)

    def wrap(locals_, body):
        vs, rhs = _bind_params(pred.params, locals_)
        return ir.Tuple(_value_parts(body, len(btys), ctx) + (ir.Let(vs, rhs, pred.body),))
    body = simplify(_pull_with(sa.f, a.vars, tb.body, i, ctx, wrap))
    value = body.elems[:-1] if isinstance(body, ir.Tuple) else None
    n = ctx.shapes.iteration(sa)
    reads = [x for e in value for x in walk(e) if isinstance(x, ir.Index)] if value is not None else []
    if value is not None and n is not None and not any(fails_located(e) for e in value) and all(
            isinstance(x.idx, ir.Var) and x.idx.name == i and isinstance(x.vec, ir.Var)
            and ctx.shapes.len_shape(x.vec) == n for x in reads):
        flag = ir.Param(ir.Var(ctx.supply.fresh("keep")), BOOL)
        f2 = ir.Thunk(tb.params, body, tb.using + sa.f.using + pred.using)
        dead = ir.Var(ctx.supply.fresh(b.vars[0].name + "_kept"))
        return (ir.KBind(b.vars + (dead,), ir.Filter(f2, ir.Thunk(ys + (flag,), flag.var, ()), sa.size)),)
    keep_all = ir.Thunk(ys, ir.Const(True, BOOL), ())
    mb = ir.KBind(b.vars, ir.Filter(sb.f, keep_all, sb.size))
    return _filter_filter(Match(m.binds, m.a, mb), ctx)


def _value_parts(body: ir.Exp, k: int, ctx: _Ctx) -> tuple:
    """The k components of a GPU value as expressions (destructuring with a let if needed)."""
    if k == 1:
        return (body,)
    if isinstance(body, ir.Tuple) and len(body.elems) == k:
        return body.elems
    return tuple(ir.Proj(body, j) for j in range(k))


def _segfilter_segreduce_when(m: Match, ctx: _Ctx) -> bool:
    """B's thunks do not read A's descriptor; B's pull thunk reads A's values only as A[i] and
    reads nothing else at a position depending on i; no segment descriptor vectors in it."""
    a, b = m.a, m.b
    vals, sd_out = a.vars[:-1], a.vars[-1]
    if sd_out.name in {u.name for t in b.soac.thunks() for u in t.using}:
        return False
    return _filter_consumer_ok(vals, b, b.soac.f)


def _segfilter_segreduce(m: Match, ctx: _Ctx) -> tuple:
    a, b = m.a, m.b
    sa, sb = a.soac, b.soac
    f2 = _filter_guarded_pull(sa, a.vars[:-1], sb.f, ctx, _tuple_or_single(sb.init))
    return (ir.KBind(b.vars, ir.SegReduce(f2, sb.init, sb.op, sa.sd)),)


def _permute_permute_when(m: Match, ctx: _Ctx) -> bool:
    """B reads A only as A[i] in its value thunk; equal iteration sizes; the same source
    location (one PERMUTE checks one permutation: A's failure must not be reported at B's)."""
    a, b = m.a, m.b
    sa, sb = a.soac, b.soac
    if not _consumer_ok(a, b, fields=("f",)):
        return False
    if ctx.shapes.iteration(sa) != ctx.shapes.iteration(sb):
        return False
    return sa.loc == sb.loc


def _permute_permute(m: Match, ctx: _Ctx) -> tuple:
    a, b = m.a, m.b
    sa, sb = a.soac, b.soac
    fb, gb = freshen(sb.f, ctx.supply, ctx.pulled), freshen(sb.idx, ctx.supply, ctx.pulled)
    ga = freshen(sa.idx, ctx.supply, ctx.pulled)
    j = ir.Var(ctx.supply.fresh("j"))
    target = subst(ga.body, {ga.params[0].name: j})
    ity = fb.params[0].ty

    def in_range(x):
        return ir.PrimOp("and", (ir.PrimOp("le", (ir.Const(0, ity), x)),
                                 ir.PrimOp("lt", (x, _as_ty(sa.size, ity)))))
    # f: i = gA(j); A[i] = fA(j).  B's thunks are evaluated only where gA(j) is in range, and
    # the composed target is -1 elsewhere, so that the fused permutation check fails exactly
    # when one of the two would have (gA out of range or not injective, or gB not a permutation)
    fa = freshen(sa.f, ctx.supply, ctx.pulled)
    e1 = subst(fa.body, {fa.params[0].name: j})
    locals_ = tuple(ir.Var(ctx.supply.fresh("a")) for _ in a.vars)
    i = fb.params[0].name
    zeros = _tuple_or_single(zero_of(t) for t in ctx.elem_types(b.vars))
    body_f = ir.Let(locals_, e1, ir.Let((ir.Var(i),), target, ir.If(in_range(ir.Var(i)), _replace_index(
        fb.body, {A.name: x for A, x in zip(a.vars, locals_)}, i), zeros)))
    ig = gb.params[0].name
    ga2 = freshen(sa.idx, ctx.supply, ctx.pulled)
    body_g = ir.Let((ir.Var(ig),), subst(ga2.body, {ga2.params[0].name: j}),
                    ir.If(in_range(ir.Var(ig)), gb.body, ir.Const(-1, ity)))
    jp = ir.Param(j, fb.params[0].ty)
    f2 = ir.Thunk((jp,), body_f, fb.using + fa.using + ga.using)
    g2 = ir.Thunk((jp,), body_g, gb.using + ga2.using)
    return (ir.KBind(b.vars, dataclasses.replace(sb, f=f2, idx=g2, size=sa.size)),)


def _as_ty(e: ir.Exp, ity) -> ir.Exp:
    """An int size expression at int type ``ity``."""
    if isinstance(e, ir.Length):
        return dataclasses.replace(e, ity=ity)
    if isinstance(e, ir.Const):
        return ir.Const(e.value, ity)
    return e if ity == INT else ir.PrimOp("to_int", (e,), ity)


# --------------------------------------------------------------------------------------------
# horizontal rule
# --------------------------------------------------------------------------------------------

def _merge_pulls(fa: ir.Thunk, fb: ir.Thunk, ctx: _Ctx, pos_a: int = -1, pos_b: int = -1) -> ir.Thunk:
    """One thunk computing both thunks' values (``(a.., b..)``).  The producers each pulled in,
    and each one's own computation, are evaluated in the order of the kernel's original
    bindings (``pos_a``, ``pos_b``: the positions of the two bindings): a fused thunk fails at
    its first failing site, and unfused the first kernel in binding order to fail reports."""
    fa, fb = freshen(fa, ctx.supply, ctx.pulled), freshen(fb, ctx.supply, ctx.pulled)
    i = fa.params[0]
    bb = subst(fb.body, {fb.params[0].name: i.var})
    la, ra = _strip_pulled(fa.body, ctx)
    lb, rb = _strip_pulled(bb, ctx)
    plain = ir.Tuple(_body_parts(fa.body) + _body_parts(bb))
    early = [x for x in lb if ctx.pulled[x.vars[0].name] < pos_a and fails_located(x.rhs)]
    if pos_a < 0 or not early or not (fails_located(ra) or any(fails_located(x.rhs) for x in la)):
        # no check of b's producers comes before a check of a's: a's value first keeps the order
        return ir.Thunk((i,), plain, fa.using + fb.using)
    parts_a, parts_b = _body_parts(ra), _body_parts(rb)
    va = tuple(ir.Var(ctx.supply.fresh("h")) for _ in parts_a)
    vb = tuple(ir.Var(ctx.supply.fresh("h")) for _ in parts_b)
    steps = [(ctx.pulled[x.vars[0].name], 0, x) for x in la + lb]
    steps += [(pos_a, 1, (va, ra)), (pos_b, 1, (vb, rb))]
    body: ir.Exp = ir.Tuple(va + vb)
    for _, kind, x in sorted(steps, key=lambda st: (st[0], st[1]), reverse=True):
        if kind == 0:
            body = dataclasses.replace(x, body=body)
        else:
            vs, rhs = x
            body = ir.Let(vs, rhs, body)
    return ir.Thunk((i,), body, fa.using + fb.using)


def _merge_ops(opa: ir.Thunk, opb: ir.Thunk, ta: tuple, tb: tuple, ctx: _Ctx) -> ir.Thunk:
    tau = ta + tb
    l = ir.Param(ir.Var(ctx.supply.fresh("l")), TupleT(tau))
    r = ir.Param(ir.Var(ctx.supply.fresh("r")), TupleT(tau))

    def instantiate(op: ir.Thunk, n: int, offset: int):
        op = freshen(op, ctx.supply, ctx.pulled)
        comps = [ir.Proj(l.var, offset + j) for j in range(n)] + \
                [ir.Proj(r.var, offset + j) for j in range(n)]
        mapping, pos = {}, 0
        for p in op.params:
            c = len(flat_components(p.ty))
            mapping[p.name] = _tuple_or_single(comps[pos:pos + c])
            pos += c
        return simplify(subst(op.body, mapping)), op.using
    ba, ua = instantiate(opa, len(ta), 0)
    bb, ub = instantiate(opb, len(tb), len(ta))
    return ir.Thunk((l, r), ir.Tuple(_body_parts(ba) + _body_parts(bb)), ua + ub)


def _horizontal_when(m: Match, ctx: _Ctx) -> bool:
    """Equal iteration sizes (segmented: the same descriptor)."""
    sa, sb = m.a.soac, m.b.soac
    if ctx.shapes.iteration(sa) != ctx.shapes.iteration(sb):
        return False
    return not (sa.SEGMENTED and sa.sd != sb.sd)


def _horizontal(m: Match, ctx: _Ctx) -> tuple:
    a, b = m.a, m.b
    sa, sb = a.soac, b.soac
    f = _merge_pulls(sa.f, sb.f, ctx, ctx.position(a.vars), ctx.position(b.vars))
    vars_ = a.vars + b.vars
    if isinstance(sa, ir.Map):
        return (ir.KBind(vars_, ir.Map(f, sa.size)),)
    op = _merge_ops(sa.op, sb.op, ctx.elem_types(a.vars), ctx.elem_types(b.vars), ctx)
    return (ir.KBind(vars_, dataclasses.replace(sa, f=f, init=sa.init + sb.init, op=op)),)


# --------------------------------------------------------------------------------------------
# the rule table
# --------------------------------------------------------------------------------------------

#: The rewrite rules, in the order the engine tries them (each rule over every pair of bindings
#: before the next rule).  Vertical: producer A, consumer B; horizontal: A and B independent.
RULES: tuple[Rule, ...] = (
    Rule("FILTER-REDUCE",
         Vertical(SoacIs((ir.Filter,)), SoacIs((ir.Reduce,)), ReadsResult(("f",))),
         _filter_x_when, _filter_reduce,
         "b = REDUCE { i => let a = e1 in if p(a) then [a/A[i]]e2 else id } id op n"),
    Rule("FILTER-FILTER",
         Vertical(SoacIs((ir.Filter,)), SoacIs((ir.Filter,)), ReadsResult(("f",))),
         _filter_x_when, _filter_filter,
         "B, B_kept = FILTER { i => let a = e1 in if p1(a) then ([a/A[i]]e2, true) else (0, false) }"
         " { (y, keep) => keep && p2(y) } n"),
    Rule("FILTER-MAP",
         Vertical(SoacIs((ir.Filter,)), SoacIs((ir.Map,)), ReadsResult(("f",))),
         _filter_map_when, _filter_map,
         "B, B_kept = FILTER { i => let a = e1 in ([a/A[i]]e2, p(a)) } { (y, keep) => keep } n  (B's value"
         " guarded, if p(a) then ([a/A[i]]e2, true) else (0, false), where it has a check or reads"
         " what p guards)"),
    Rule("SEG_FILTER-SEG_REDUCE",
         Vertical(SoacIs((ir.SegFilter,)), SoacIs((ir.SegReduce,)), SegDesOf()),
         _segfilter_segreduce_when, _segfilter_segreduce,
         "b = SEG_REDUCE { i => let a = e1 in if p(a) then [a/A[i]]e2 else id } id op sd_A"),
    Rule("PERMUTE-PERMUTE",
         Vertical(SoacIs((ir.Permute,)), SoacIs((ir.Permute,)), ReadsResult()),
         _permute_permute_when, _permute_permute,
         "B = PERMUTE { j => let i = gA(j) in if 0 <= i < n then [fA(j)/A[i]]fB(i) else 0 }"
         " { j => let i = gA(j) in if 0 <= i < n then gB(i) else -1 } n"),
    Rule("MAP-X",
         Vertical(SoacIs((ir.Map,)), SoacIs(but=(ir.Once,)), ReadsResult()),
         _map_x_when, _map_x,
         "B = X { i => let a = e1 in [a/A[i]]e2 using xs ∪ (ys \\ A) } ...  (X: any SOAC but ONCE)",
         lambda m: f"MAP-{m.b.soac.NAME}"),
    Rule("X+X",
         Horizontal((ir.Map, ir.Reduce, ir.Scan, ir.SegReduce, ir.SegScan)),
         _horizontal_when, _horizontal,
         "(A, B) = X { i => (e1, e2) } (idA, idB) (opA × opB) n  (X: MAP, REDUCE, SCAN, SEG_REDUCE, "
         "SEG_SCAN)",
         lambda m: f"{m.a.soac.NAME}+{m.b.soac.NAME}"),
)


def rule(name: str) -> Rule:
    """The rule of the table named ``name``."""
    for r in RULES:
        if r.name == name:
            return r
    raise KeyError(name)


def table_text(rules: tuple[Rule, ...] = RULES) -> str:
    """The rule table, readable (``python -m lambda_cu.fusion.rewrite`` prints it)."""
    lines = []
    for r in rules:
        lines.append(f"{r.name}")
        lines.append(f"    match  {r.pattern}")
        lines.append(f"    when   {r.condition_text}")
        lines.append(f"    then   {r.replacement}")
    return "\n".join(lines)


# --------------------------------------------------------------------------------------------
# the engine
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Step:
    """One rewrite: the kernel's new bindings, the rule applied (its instance name) and the
    variables of a producer the replacement absorbed."""
    binds: tuple
    rule: str
    absorbed: frozenset


def rewrite_step(rules: tuple[Rule, ...], binds: tuple, ctx: _Ctx, memo: dict | None = None
                 ) -> Step | None:
    """The first rewrite that applies: the rules in table order, each over the pairs (A, B) of
    bindings with A before B, in binding order; None if no rule applies.  ``memo``: see
    :func:`_memo` (one :func:`fuse_kernel` call's)."""
    binds = tuple(binds)
    # The kernel's SOACs run (and fail) in binding order: two bindings are not combined across
    # a binding between them that can fail when either of them can (one of their checks would
    # move past its check; a hunt found a filter fused into a later reduction reporting after
    # a MAP between them)
    fails = [_memo(memo, "fail", b.soac, soac_can_fail) for b in binds]
    for r in rules:
        for x, a in enumerate(binds):
            for y in range(x + 1, len(binds)):
                b = binds[y]
                if (fails[x] or fails[y]) and any(fails[x + 1:y]):
                    continue
                m = r.pattern.match(binds, a, b)
                if m is None or not r.condition(m, ctx):
                    continue
                new_binds, absorbed = r.pattern.splice(m, r.build(m, ctx))
                return Step(new_binds, r.instance_name(m), absorbed)
    return None


def candidates(kernel: ir.Kernel, rules: tuple[Rule, ...] = RULES, param_shapes=None, elems=None,
               segs=None) -> tuple[tuple[str, tuple, tuple, bool], ...]:
    """What the engine's first step sees in ``kernel`` (after the same clean-up as
    :func:`fuse_kernel`'s first): for every rule and pair (A, B) its pattern matches, in the
    engine's order, ``(rule name, A's variable names, B's variable names, side condition
    holds)``.  Nothing is rewritten (for tests and for explaining why a rule did not apply)."""
    k = dataclasses.replace(kernel, binds=_clean(_normalise_sizes(kernel.binds), kernel.returns))
    ctx = _context(k, NameSupply(), (param_shapes, elems, segs))
    out = []
    for r in rules:
        for x, a in enumerate(k.binds):
            for b in k.binds[x + 1:]:
                m = r.pattern.match(k.binds, a, b)
                if m is not None:
                    out.append((r.name, tuple(v.name for v in a.vars), tuple(v.name for v in b.vars),
                                bool(r.condition(m, ctx))))
    return tuple(out)


def _memo(memo: dict | None, what: str, node, fn):
    """``fn(node)`` for an immutable IR ``node``, computed once per ``memo`` (a dict that lives
    for one :func:`fuse_kernel` call; None: no memo, computed now): keyed by the node's
    identity, the node kept alive in the entry so that its id is not reused while the memo
    lives.  ``fn`` is a pure function of the node, so the value is the one a call would
    compute."""
    if memo is None:
        return fn(node)
    key = (what, id(node))
    hit = memo.get(key)
    if hit is not None:
        return hit[1]
    value = fn(node)
    memo[key] = (node, value)
    return value


def _length_names(body: ir.Exp) -> frozenset:
    """The names ``v`` of the ``#v`` (``Length`` of a variable) anywhere in ``body``."""
    return frozenset(x.vec.name for x in walk(body)
                     if isinstance(x, ir.Length) and isinstance(x.vec, ir.Var))


def _normalise_sizes(binds, memo: dict | None = None) -> tuple:
    """Replace ``#v`` sizes by the size of v's size-preserving producer (a kernel-level fact)."""
    prod = {}
    for b in binds:
        if isinstance(b.soac, (ir.Map, ir.Scan, ir.Permute, ir.Rank)):
            for v in b.vars:
                prod[v.name] = b.soac.size
    out = []
    for b in binds:
        s = b.soac
        size = getattr(s, "size", None)
        seen = set()
        while isinstance(size, ir.Length) and isinstance(size.vec, ir.Var) \
                and size.vec.name in prod and size.vec.name not in seen:
            seen.add(size.vec.name)
            size = prod[size.vec.name]
        if size is not getattr(s, "size", None):
            s = dataclasses.replace(s, size=size)
        s = _map_thunks(s, lambda t: _thunk_lengths(t, prod, memo))
        out.append(ir.KBind(b.vars, s))
    return tuple(out)


def _thunk_lengths(t: ir.Thunk, prod: Mapping[str, ir.Exp], memo: dict | None = None) -> ir.Thunk:
    """``#v`` inside a thunk body -> the size of v's size-preserving producer."""
    if not any(n in prod for n in _memo(memo, "lengths", t.body, _length_names)):
        return t
    local = {p.name for p in t.params} | bound_names(t.body)

    def resolve(name):
        size, seen = prod[name], {name}
        while isinstance(size, ir.Length) and isinstance(size.vec, ir.Var) \
                and size.vec.name in prod and size.vec.name not in seen:
            seen.add(size.vec.name)
            size = prod[size.vec.name]
        return size

    def f(e):
        if isinstance(e, ir.Length) and isinstance(e.vec, ir.Var) and e.vec.name in prod \
                and e.vec.name not in local:
            size = resolve(e.vec.name)
            if ir.free_vars(size) & local:
                return None
            if isinstance(size, ir.Length):
                return dataclasses.replace(size, ity=e.ity)
            if e.ity == INT:
                return size
            return ir.PrimOp("to_int", (size,), e.ity)
        return None
    body = rewrite(t.body, f)
    if body == t.body:
        return t
    return exact_using(ir.Thunk(t.params, body, t.using))


def _clean(binds, returns, absorbed: frozenset = frozenset(), keep: frozenset = frozenset(),
           memo: dict | None = None) -> tuple:
    """Dead-binding elimination, exact using lists, simplified thunk bodies, topological order.

    A binding whose results are unused is removed only if evaluating it cannot fail, or if it
    was *absorbed* (``absorbed``: variables of producers whose thunks a vertical rule copied into
    a consumer that evaluates them over the same index space).  Every check of the unfused
    kernel is therefore still evaluated by the fused one (issue 11).  ``memo``: see
    :func:`_memo` (one :func:`fuse_kernel` call's)."""
    def tidy(t: ir.Thunk, keep: frozenset = keep) -> ir.Thunk:
        body = simplify(t.body, keep)
        new = exact_using(ir.Thunk(t.params, body, t.using))
        # an equal thunk (Var holds only its name) is returned as the same object, so that
        # the memo below recognises it at the next step
        return t if body is t.body and new.using == t.using else new
    if memo is None:
        binds = [ir.KBind(b.vars, _map_thunks(b.soac, tidy)) for b in binds]
    else:
        def tidy_memo(t: ir.Thunk) -> ir.Thunk:
            # simplify reads ``keep`` only for the let-bound names of the body (its
            # substitutions bring in variables and constants, never a let): the memo's key
            # holds only those, so a thunk is not redone when unrelated names join ``keep``
            k = keep & _memo(memo, "bound", t.body, bound_names) if keep else keep
            return _memo(memo, ("tidy", k), t, lambda x: tidy(x, k))
        binds = [ir.KBind(b.vars, _map_thunks(b.soac, tidy_memo)) for b in binds]
    live = {r.name for r in returns}
    kept = []
    for b in reversed(binds):
        if any(v.name in live for v in b.vars) or (
                not all(v.name in absorbed for v in b.vars) and
                _memo(memo, "fail", b.soac, soac_can_fail)):
            kept.append(b)
            live |= _memo(memo, "reads", b.soac, ir.soac_reads)
    kept.reverse()
    return _toposort(kept)


def _toposort(binds) -> tuple:
    defs = {v.name: k for k, b in enumerate(binds) for v in b.vars}
    deps = {k: {defs[n] for n in _reads(b) if n in defs and defs[n] != k} for k, b in enumerate(binds)}
    done, out = set(), []
    while len(out) < len(binds):
        progress = False
        for k, b in enumerate(binds):
            if k not in done and deps[k] <= done:
                done.add(k)
                out.append(b)
                progress = True
                break
        if not progress:
            raise ValueError("cyclic kernel bindings")
    return tuple(out)


def _path(binds, a: ir.KBind, b: ir.KBind) -> bool:
    """Is there a dependence path between a and b (either way)?"""
    defs = {v.name: k for k, x in enumerate(binds) for v in x.vars}
    succ = {k: set() for k in range(len(binds))}
    for k, x in enumerate(binds):
        for n in _reads(x):
            if n in defs and defs[n] != k:
                succ[defs[n]].add(k)

    def reach(s, t):
        stack, seen = [s], {s}
        while stack:
            u = stack.pop()
            if u == t:
                return True
            for w in succ[u]:
                if w not in seen:
                    seen.add(w)
                    stack.append(w)
        return False
    ka, kb = _at(binds, a), _at(binds, b)
    return reach(ka, kb) or reach(kb, ka)


def fuse_kernel(kernel: ir.Kernel, param_shapes: Mapping[str, Shape] | None = None,
                elems: Callable | None = None, segs: Callable | None = None,
                max_steps: int = 1000, rules: tuple[Rule, ...] = RULES
                ) -> tuple[ir.Kernel, tuple[str, ...]]:
    """Apply ``rules`` (the table :data:`RULES`) to ``kernel`` until none applies, one
    :func:`rewrite_step` at a time, cleaning the bindings up before the first and after each
    (``#v`` sizes, dead bindings, exact ``using`` lists, order: see the module docstring).  Returns the new kernel and the
    names of the rules applied, in order.  ``param_shapes``, ``elems``, ``segs``: the region's
    shapes of the kernel's parameters and descriptor counts (see ``shapes.KernelShapes``;
    without them, parameters are kernel-scope symbols)."""
    taken = {p.name for p in kernel.params} | {v.name for b in kernel.binds for v in b.vars}
    for b in kernel.binds:
        for t in b.soac.thunks():
            taken |= {p.name for p in t.params} | bound_names(t.body)
    supply = NameSupply(taken)
    applied = []
    absorbed: frozenset = frozenset()
    # pure per-node results (clean-ups, failure and read queries) of this call, by node
    # identity: the bindings a step does not touch come back as the same objects
    memo: dict = {}
    k = dataclasses.replace(kernel, binds=_clean(_normalise_sizes(kernel.binds, memo), kernel.returns,
                                                 memo=memo))
    pulled: dict = {}
    order = {v.name: n for n, b in enumerate(k.binds) for v in b.vars}
    for _ in range(max_steps):
        step = rewrite_step(rules, k.binds, _context(k, supply, (param_shapes, elems, segs),
                                                     pulled, order), memo)
        if step is None:
            break
        applied.append(step.rule)
        absorbed |= step.absorbed
        k = dataclasses.replace(k, binds=_clean(_normalise_sizes(step.binds, memo), k.returns, absorbed,
                                                frozenset(pulled), memo))
    if pulled:
        # the pulled producers' lets kept for the engine's ordering are not needed any more:
        # `let a = e in a` -> `e` (the order of evaluation is the same)
        k = dataclasses.replace(k, binds=_clean(k.binds, k.returns, absorbed, memo=memo))
    return k, tuple(applied)


def _at(seq, x) -> int:
    return next(k for k, c in enumerate(seq) if c is x)
