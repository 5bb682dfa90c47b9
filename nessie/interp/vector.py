"""Vector-wise evaluation of the apply-to-each bodies that draw random numbers.

The original NESL is flattened: an apply-to-each evaluates its body once for all its
elements together, operation by operation.  With ``rand`` the order shows:
``{rand(j) + rand(j) : j in js}`` draws the first call's numbers for every element (element
order), then the second call's.  And an operation whose argument is the same for every element
is performed once: ``{rand(100) + i : i in s}`` draws a single number (the original's
documented behaviour; its results are equal).  Element-by-element evaluation (the evaluator's
usual way, ``nessie.interp.eval``) gives other numbers, so an apply-to-each whose body, filter
or sources may draw (they call ``rand`` or ``rand_seed``, directly or through user functions)
is evaluated here instead, with the order and the sharing rules of flattening:

* **Contexts.**  An apply-to-each evaluates its generators' sources, checks their lengths, then
  its filter for all its elements at once, then its body for all the kept elements at once
  (a *context* of ``n`` instances; an inner apply-to-each's context is the concatenation of
  every instance's elements).  Nothing is evaluated in an empty context.
* **Uniform values.**  In a context a value is *uniform* (``U``: the same for every instance,
  held once) or *lifted* (``L``: a list, one value per instance), or a pair of such values
  (``("P", a, b)``) or a datatype value over such a pair (``("C", name, fields, s)``).
  Constants, the variables bound outside the apply-to-each and everything computed only from
  uniform values are uniform; the generators' variables are lifted.  Whether a value is uniform
  is decided from the program text (as a compiler decides it), not from the data.
* **Operations.**  A builtin or user function applied to a uniform argument is applied *once*
  (``rand(100)`` draws one number; a user function runs once, evaluated as usual), with a
  uniform result — except the printing builtins and ``error``, which run once per instance.
  Applied to a lifted argument, a builtin runs once per instance in instance order (``rand``:
  one draw each, in order), and a user function that may draw runs vector-wise on the whole
  context (its *lifted* form, one per pattern of uniform/lifted parameters); ``first`` keeps
  its component as it is.
* **Evaluation order.**  Sub-expressions left to right (a tuple's components, a function's
  arguments, ``let`` bindings before the body, a sequence literal's elements, a range's
  start, end and stride).  A conditional whose condition is uniform evaluates one branch for
  the whole context (its result is uniform when both branches are); one whose condition varies
  splits the context: the ``then`` branch on the instances where it holds, then the ``else``
  branch on the others (each only if non-empty), and the results are merged in instance order.

These are the rules of the flattener (``nessie.flatten``) that the flattening backends run,
stated on the source language; they are the NESL semantics of ``rand`` that every backend
implements.  Evaluation of everything else is unchanged: where a sub-computation cannot draw
it is evaluated per instance by the usual closures.
"""
from __future__ import annotations

import time
from typing import Any, Callable

from lambda_cu.support import CallTooDeep
from nessie.types import typed_ast as T

from . import errors as E
from .builtins import BUILTINS, CallContext
from .values import DataVal, Seq, pair, unpair

U = "U"
L = "L"

#: builtins that run once per instance even on a uniform argument (output and errors; the
#: flattener's ``_PER_INSTANCE``)
PER_INSTANCE = frozenset({"print_string", "print_line", "print_char", "write_string",
                          "write_string_to_file", "print", "error", "prompt"})

#: the builtins that draw random numbers (or reseed the generator)
RANDOM_BUILTINS = frozenset({"rand", "rand_seed"})
#: the builtins whose output shows the order of evaluation (PER_INSTANCE less ``error``)
OUTPUT_BUILTINS = PER_INSTANCE - {"error"}

VCode = Callable[[dict, int], Any]


# ------------------------------------------------------------------------------ shapes
def mk_pair(a, b):
    return U if a == U and b == U else ("P", a, b)


def materialise(s, v, n: int) -> list:
    """The ``n`` per-instance values of a value of shape ``s``."""
    if s == U:
        return [v] * n
    if s == L:
        return v
    if s[0] == "P":
        return list(zip(materialise(s[1], v[0], n), materialise(s[2], v[1], n)))
    _, name, nf, inner = s
    return [DataVal(name, (x,) if nf == 1 else unpair(x, nf)) for x in materialise(inner, v, n)]


def at_indices(s, v, idx: list):
    """The value of shape ``s`` seen from a sub-context whose instance ``k`` is ``idx[k]``."""
    if s == U:
        return v
    if s == L:
        return [v[i] for i in idx]
    if s[0] == "P":
        return (at_indices(s[1], v[0], idx), at_indices(s[2], v[1], idx))
    return at_indices(s[3], v, idx)


def split(s, v):
    """The components ``((sa, va), (sb, vb))`` of a pair value of shape ``s``."""
    if s == U:
        return (U, v[0]), (U, v[1])
    if s == L:
        return (L, [x[0] for x in v]), (L, [x[1] for x in v])
    return (s[1], v[0]), (s[2], v[1])


def split_shape(s):
    if s == U:
        return U, U
    if s == L:
        return L, L
    return s[1], s[2]


def reindex(env: dict, lifted: list, idx: list) -> dict:
    """``env`` for a sub-context (``lifted``: the names of its non-uniform values and their
    shapes)."""
    out = dict(env)
    for name, s in lifted:
        out[name] = at_indices(s, env[name], idx)
    return out


def instance_envs(env: dict, lifted: list, n: int) -> list:
    """The ``n`` plain environments (one per instance) of a context's environment."""
    mats = [(name, materialise(s, env[name], n)) for name, s in lifted]
    out = []
    for k in range(n):
        d = dict(env)
        for name, vs in mats:
            d[name] = vs[k]
        out.append(d)
    return out


def pattern_components(p) -> list:
    """The parameter components of a function (its pattern split at tuples)."""
    if isinstance(p, T.PPair):
        return pattern_components(p.fst) + pattern_components(p.snd)
    return [p]


def split_by_pattern(p, s, v, out: list) -> None:
    if isinstance(p, T.PPair):
        (sa, va), (sb, vb) = split(s, v)
        split_by_pattern(p.fst, sa, va, out)
        split_by_pattern(p.snd, sb, vb, out)
    else:
        out.append((s, v))


def shapes_by_pattern(p, s, out: list) -> None:
    if isinstance(p, T.PPair):
        sa, sb = split_shape(s)
        shapes_by_pattern(p.fst, sa, out)
        shapes_by_pattern(p.snd, sb, out)
    else:
        out.append(s)


# ------------------------------------------------------------------------------ what draws
def draws_directly(node) -> bool:
    """A call of ``rand``/``rand_seed`` or of an output builtin (``OUTPUT_BUILTINS``) — or of a
    function parameter (with functions as values, ``keep_function_args``), which may be one.

    Output is ordered like the draws: ``{print_string(@x) and print_string("-") : x in [1, 2]}``
    prints ``12--`` (each call for every element before the next call), a varying conditional
    prints its ``then`` branch's output first, and a recursive function prints level by level,
    as the flattening backends (and the original, a flattening implementation) do."""
    return isinstance(node, T.Call) and (
        (node.kind == T.BUILTIN and node.name in RANDOM_BUILTINS | OUTPUT_BUILTINS)
        or node.kind == T.PARAM)


class DrawAnalysis:
    """Which expressions and functions may draw random numbers (call ``rand``/``rand_seed``,
    directly or through user functions)."""

    def __init__(self, fundefs: dict) -> None:
        self.fundefs = fundefs
        self.memo: dict = {}

    def function(self, name: str) -> bool:
        if name not in self.memo:
            seen, todo, found = set(), [name], False
            while todo and not found:
                f = todo.pop()
                if f in seen:
                    continue
                seen.add(f)
                if self.memo.get(f):
                    found = True
                    break
                fd = self.fundefs.get(f)
                if fd is None:
                    continue
                for node in T.iter_nodes(fd.body):
                    if draws_directly(node):
                        found = True
                        break
                    if isinstance(node, T.Call) and node.kind == T.USER:
                        todo.append(node.name)
            self.memo[name] = found
        return self.memo[name]

    def expression(self, node) -> bool:
        for x in T.iter_nodes(node):
            if draws_directly(x):
                return True
            if isinstance(x, T.Call) and x.kind == T.USER and self.function(x.name):
                return True
        return False


class EveryExpression:
    """The analysis that says every expression and function "draws": everything vector-wise."""

    @staticmethod
    def function(name: str) -> bool:
        return True

    @staticmethod
    def expression(node) -> bool:
        return True


# ------------------------------------------------------------------------------ compiler
class LiftedCell:
    """The lifted form of a user function for one pattern of uniform/lifted parameters:
    ``cell(args, n)`` (``args``: one value per parameter component) returns the list of the
    ``n`` instances' results."""

    __slots__ = ("run",)

    def __init__(self) -> None:
        self.run = None

    def __call__(self, args: list, n: int) -> list:
        return self.run(args, n)


class VectorCompiler:
    """Compiles typed-AST nodes into vector closures ``code(env, n)`` over a context of ``n``
    instances, deciding each value's shape at compile time (``compile`` returns
    ``(shape, code)``).  ``base`` is the evaluator's ``Compiler``: its closures evaluate the
    parts that cannot draw, its function cells the calls on uniform arguments."""

    def __init__(self, base: Any, everything: bool = False) -> None:
        self.base = base
        #: ``everything``: every apply-to-each and user function is evaluated vector-wise (the
        #: order of errors, see ``eval.Compiler._drawing_or``), not only those that draw
        self.draws = EveryExpression() if everything else DrawAnalysis(base.fundefs)
        self.lifted: dict = {}

    # ---------------------------------------------------------------- entry point
    def apply_to_each(self, node: T.ApplyToEach) -> Callable[[dict], Seq]:
        """The evaluator's apply-to-each ``node`` (outside any context) as a function of the
        environment: every variable in scope is uniform, the generators open a context."""
        _, code = self.compile_ate(node, {})
        return lambda env: code(env, 1)[0]

    # ---------------------------------------------------------------- expressions
    def compile(self, node, senv: dict):
        method = getattr(self, "c_" + type(node).__name__, None)
        if method is None:
            raise TypeError(f"cannot evaluate {type(node).__name__}")
        return method(node, senv)

    def _plain(self, node, senv):
        code = self.base.exp(node)
        return U, lambda env, n: code(env)

    c_Lit = c_StringLit = c_GlobalVar = c_ConstRef = c_EmptySeq = c_FunRef = _plain

    def c_Var(self, node, senv):
        name = node.name
        return senv.get(name, U), lambda env, n: env[name]

    def c_Pair(self, node, senv):
        sa, a = self.compile(node.fst, senv)
        sb, b = self.compile(node.snd, senv)
        return mk_pair(sa, sb), lambda env, n: (a(env, n), b(env, n))

    def c_Let(self, node, senv):
        sb, bound = self.compile(node.bound, senv)
        names, bind = self.pattern(node.pattern, sb)
        s, body = self.compile(node.body, {**senv, **dict(names)})

        def let(env, n):
            v = bound(env, n)
            inner = dict(env)
            bind(v, inner)
            return body(inner, n)
        return s, let

    def c_If(self, node, senv):
        sc, cond = self.compile(node.cond, senv)
        st, then = self.compile(node.then, senv)
        se, else_ = self.compile(node.else_, senv)
        if sc == U:
            s = U if st == U and se == U else L

            def if_uniform(env, n):
                if cond(env, n):
                    v, sv = then(env, n), st
                else:
                    v, sv = else_(env, n), se
                return v if s == U else materialise(sv, v, n)
            return s, if_uniform
        lifted = [(k, v) for k, v in senv.items() if v != U]

        def if_split(env, n):
            flags = materialise(sc, cond(env, n), n)
            kept = [k for k in range(n) if flags[k]]
            rej = [k for k in range(n) if not flags[k]]
            out = [None] * n
            for idx, code, sv in ((kept, then, st), (rej, else_, se)):
                if idx:
                    m = len(idx)
                    vals = materialise(sv, code(reindex(env, lifted, idx), m), m)
                    for k, x in zip(idx, vals):
                        out[k] = x
            return out
        return L, if_split

    def c_Call(self, node, senv):
        sa, arg = self.compile(node.arg, senv)
        if node.kind == T.BUILTIN:
            return self._builtin(node, sa, arg)
        if node.kind == T.USER:
            return self._user(node, sa, arg, senv)
        if node.kind == T.CONSTRUCTOR:
            name = node.name
            nf = len(self.base.datatypes.fields(node.type))
            make = (lambda x: DataVal(name, (x,))) if nf == 1 else \
                (lambda x: DataVal(name, unpair(x, nf)))
            if sa == U:
                return U, lambda env, n: make(arg(env, n))
            if sa == L:
                return L, lambda env, n: [make(x) for x in arg(env, n)]
            return ("C", name, nf, sa), arg
        if node.kind == T.PARAM:
            # a function parameter (functions as values, ``keep_function_args``): once on a
            # uniform argument, else once per instance (not vector-wise: the function is only
            # known at run time; the specialised program that ``nessie run`` executes has
            # direct calls instead)
            name, span = node.name, node.span
            sf = senv.get(name, U)
            if sa == U and sf == U:
                return U, lambda env, n: env[name](arg(env, n), span)
            return L, lambda env, n: [f(a, span) for f, a in zip(
                materialise(sf, env[name], n), materialise(sa, arg(env, n), n))]
        raise TypeError(f"unknown call kind {node.kind!r}")

    def _builtin(self, node, sa, arg):
        fn = BUILTINS[node.name]
        ctx = CallContext(self.base.rt, node.span, node.fun_type.arg, node.fun_type.result)
        if sa == U and node.name not in PER_INSTANCE:
            return U, lambda env, n: fn(arg(env, n), ctx)
        if node.name == "first":
            s0, _ = split_shape(sa)
            return s0, lambda env, n: split(sa, arg(env, n))[0][1]
        return L, lambda env, n: [fn(a, ctx) for a in materialise(sa, arg(env, n), n)]

    def _user(self, node, sa, arg, senv):
        cell = self.base.cell(node.name)
        if sa == U:
            return U, lambda env, n: cell(arg(env, n))
        param = self.base.fundefs[node.name].param
        shapes: list = []
        shapes_by_pattern(param, sa, shapes)
        mask = tuple(U if s == U else L for s in shapes)

        def lifted_call(lifted, v, n):
            parts: list = []
            split_by_pattern(param, sa, v, parts)
            return lifted([x if m == U else materialise(s, x, n)
                           for (s, x), m in zip(parts, mask)], n)

        if not self.draws.function(node.name):
            name = node.name

            def per_instance(env, n):
                v = arg(env, n)
                try:
                    return [cell(a) for a in materialise(sa, v, n)]
                except E.RuntimeNeslError as first:
                    failed = first
                except CallTooDeep as first:    # (see eval.Compiler._drawing_or)
                    failed = first.with_traceback(None)
                # the function has no effects: run it again lifted, to report the error the
                # flattened order meets first (see eval.Compiler._drawing_or)
                base = self.base
                was, base._replaying = base._replaying, True
                try:
                    lifted_call(base.vector(errors=True).lifted_function(name, mask), v, n)
                except E.RuntimeNeslError as err:
                    failed = err
                except (RecursionError, MemoryError):
                    raise
                except Exception:       # noqa: BLE001 - keep the element-wise error
                    pass
                finally:
                    base._replaying = was
                raise failed
            return L, per_instance
        lifted = self.lifted_function(node.name, mask)
        return L, lambda env, n: lifted_call(lifted, arg(env, n), n)

    def lifted_function(self, name: str, mask: tuple) -> LiftedCell:
        key = (name, mask)
        cell = self.lifted.get(key)
        if cell is not None:
            return cell
        cell = self.lifted[key] = LiftedCell()
        fd = self.base.fundefs[name]
        senv: dict = {}
        binders = []
        for pat, m in zip(pattern_components(fd.param), mask):
            names, bind = self.pattern(pat, m)
            senv.update(names)
            binders.append(bind)
        s, body = self.compile(fd.body, senv)

        depth = self.base.depth

        def run(args, n):
            # one lifted call: one more active call, as the λcu executor counts its ``Call``
            depth.enter()
            try:
                env: dict = {}
                for bind, a in zip(binders, args):
                    bind(a, env)
                return materialise(s, body(env, n), n)
            finally:
                depth.leave()
        cell.run = run
        return cell

    def c_ApplyToEach(self, node, senv):
        if not self.draws.expression(node):
            code = self.base.exp(node)
            lifted = [(k, v) for k, v in senv.items() if v != U]
            return L, lambda env, n: [code(e) for e in instance_envs(env, lifted, n)]
        return self.compile_ate(node, senv)

    def compile_ate(self, node, senv):
        sources = [self.compile(g.source, senv) for g in node.gens]
        lifted = [(k, v) for k, v in senv.items() if v != U]
        inner_senv = dict(senv)
        binders = []
        for g in node.gens:
            names, bind = self.pattern(g.pattern, L)
            inner_senv.update(names)
            binders.append(bind)
        filt = self.compile(node.filter, inner_senv) if node.filter is not None else None
        sb, body = self.compile(node.body, inner_senv)
        inner_lifted = [(k, v) for k, v in inner_senv.items() if v != U]
        span = node.span

        def apply_to_each(env, n):
            per = []
            for s, src in sources:
                v = src(env, n)
                per.append([v.items] * n if s == U else [x.items for x in materialise(s, v, n)])
            lens = [len(x) for x in per[0]]
            for p in per[1:]:
                if any(len(x) != m for x, m in zip(p, lens)):
                    raise E.RuntimeNeslError(span, E.LENGTH_MISMATCH)
            owners = [k for k in range(n) for _ in range(lens[k])]
            total = len(owners)
            results: list = []
            if total:
                inner = reindex(env, lifted, owners)
                for bind, p in zip(binders, per):
                    bind([x for items in p for x in items], inner)
                if filt is not None:
                    sf, fcode = filt
                    flags = materialise(sf, fcode(inner, total), total)
                    keep = [i for i in range(total) if flags[i]]
                    if len(keep) < total:
                        inner = reindex(inner, inner_lifted, keep)
                        owners = [owners[i] for i in keep]
                m = len(owners)
                if m:
                    results = materialise(sb, body(inner, m), m)
            out: list = [[] for _ in range(n)]
            for o, r in zip(owners, results):
                out[o].append(r)
            return [Seq(x) for x in out]
        return L, apply_to_each

    def c_SeqLit(self, node, senv):
        elems = [self.compile(e, senv) for e in node.elems]
        if all(s == U for s, _ in elems):
            return U, lambda env, n: Seq(tuple(c(env, n) for _, c in elems))

        def seq_lit(env, n):
            cols = [materialise(s, c(env, n), n) for s, c in elems]
            return [Seq(tuple(col[k] for col in cols)) for k in range(n)]
        return L, seq_lit

    def c_Range(self, node, senv):
        parts = [self.compile(x, senv) for x in (node.start, node.end, node.stride)]
        make = self.base.make_range
        span = node.span
        if all(s == U for s, _ in parts):
            return U, lambda env, n: make(*(c(env, n) for _, c in parts), span)

        def range_lifted(env, n):
            cols = [materialise(s, c(env, n), n) for s, c in parts]
            return [make(a, b, d, span) for a, b, d in zip(*cols)]
        return L, range_lifted

    def c_Time(self, node, senv):
        s, inner = self.compile(node.exp, senv)

        def timed(env, n):
            t0 = time.perf_counter()
            v = inner(env, n)
            return (v, time.perf_counter() - t0)
        return mk_pair(s, U), timed

    # ---------------------------------------------------------------- patterns
    def pattern(self, p, s):
        """``(names, bind)``: the shapes of the variables ``p`` binds to a value of shape
        ``s``, and ``bind(value, env)``."""
        if isinstance(p, T.PVar):
            name = p.name

            def bind_var(v, env):
                env[name] = v
            return [(name, s)], bind_var
        if isinstance(p, T.PWild):
            return [], lambda v, env: None
        if isinstance(p, T.PPair):
            sa, sb = split_shape(s)
            na, ba = self.pattern(p.fst, sa)
            nb, bb = self.pattern(p.snd, sb)

            def bind_pair(v, env):
                (_, va), (_, vb) = split(s, v)
                ba(va, env)
                bb(vb, env)
            return na + nb, bind_pair
        if isinstance(p, T.PCon):
            def fields(d):
                f = d.fields
                return f[0] if len(f) == 1 else pair(*f)
            if s == U:
                names, bind = self.pattern(p.arg, U)
                return names, lambda v, env: bind(fields(v), env)
            if s == L:
                names, bind = self.pattern(p.arg, L)
                return names, lambda v, env: bind([fields(d) for d in v], env)
            return self.pattern(p.arg, s[3])
        raise TypeError(f"not a pattern: {p!r}")


__all__ = ["VectorCompiler", "DrawAnalysis", "PER_INSTANCE", "RANDOM_BUILTINS", "OUTPUT_BUILTINS"]
