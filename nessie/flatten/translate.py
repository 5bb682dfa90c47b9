"""Blelloch flattening of monomorphic typed NESL into λcu.

Entry point: :func:`flatten_program`.  The translation is *context-directed*: each expression is
translated either on the host (``ctx is None``) or in a flat parallel context
(:class:`~nessie.flatten.values.Ctx`), producing an abstract value (:mod:`nessie.flatten.values`).

* An apply-to-each opens a context whose instances are the elements of its generators: on the
  host, the elements of a sequence; inside a context, the elements of every instance's sequence,
  concatenated (a segmented array), so that contexts never nest — the depth of nesting lives in
  segment descriptors.  Free variables enter the new context through an index map (their
  data is not copied); uniform values stay on the host.
* A conditional whose condition varies across the context partitions the context, evaluates
  each branch only on its part and only if that part is non-empty, and merges the results
  (:func:`nessie.flatten.reps.combine`).  This is what makes recursion terminate.
* A user function called in a context is called in its *lifted* form: one CPU-level λcu function
  per (function, which-arguments-are-uniform) pair, taking the context size and the arguments'
  representations.  Recursion stays on the CPU: the lifted function calls itself on smaller
  contexts.
* Sibling calls (components of a tuple or of a call's arguments, elements of a sequence
  literal) of one user function that can neither fail nor have an effect are made as ONE lifted
  call on the instances of all of them (:meth:`Flattener.tr_siblings`), so tree recursion
  (``fib(n-1) + fib(n-2)``) makes lifted calls linear in its depth, not exponential in it.
  Sibling calls of a function that may fail but has no effect are batched *speculatively*: a
  λcu ``speculate`` whose fast block is the batched call and whose replay block the calls in
  source order, run by the executor only if the batched call failed
  (:meth:`Flattener.call_speculated`).
* Builtins have a host form and a lifted (segmented) form (:mod:`nessie.flatten.builtins`).
* Every code path runs only in non-empty contexts, so computations on uniform values can be done
  once on the host ("hoisted") without raising errors the source program would not raise.

One single-SOAC kernel is created per data-parallel operation (shared when identical); fusion is
a later, separate stage.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from lambda_cu import ir
from lambda_cu.errors import MSG_LENGTH
from lambda_cu.loc import Loc
from lambda_cu.types import BOOL, INT, SD, IntT, VecT, tuple_of
from nessie.types import typed_ast as T
from nessie.types import types as nt

from . import reps as R
from .builder import Builder, thunk
from lambda_cu.fusion.exprs import kernel_can_fail

from .hoist import hoist_call
from .values import (L, U, Ctx, is_uniform, materialise, pair, reindex_env, split_pair,
                     uniform_rep)


@dataclass(frozen=True)
class TopItem:
    """How a λcu main binding maps back to a NESL top-level item (for printing results)."""
    kind: str              # "fun", "val", "exp", "data", "set"
    names: tuple           # bound names (val), function name (fun), () otherwise
    type: object           # NESL type of the value (val/exp) or function type (fun)
    leaves: tuple          # λcu variable names holding the value's leaves (val/exp)
    item: object           # the typed item


@dataclass(frozen=True)
class FlatProgram:
    """A flattened program: the λcu program plus the map from its main bindings to the NESL
    top-level items."""
    program: ir.Program
    items: tuple
    typemap: object
    #: host library calls used by the program: extern name -> (builtin name, NESL function type,
    #: lifted?) — a lifted extern takes the context size and the arguments' sequence
    #: representations and applies the builtin to each instance in order.
    externs: dict = None
    #: extern name -> source location ``file:line:col`` of its call site (one extern per call
    #: site: the place a host builtin's run-time error reports)
    extern_locs: dict = None


def loc_of(node) -> Optional[Loc]:
    """The source location (the syntax node's span, a ``lambda_cu.loc.Loc``) of a typed node."""
    return getattr(node, "span", None)


class Flattener:
    def __init__(self, mono: T.TypedProgram, int_bits: int = 32) -> None:
        self.mono = mono
        self.b = Builder(IntT(int_bits))
        datatypes = {}
        self.fundefs: dict[str, T.FunDef] = {}
        for it in mono.items:
            if isinstance(it, T.DataDef):
                datatypes[it.name] = (tuple(getattr(p, "id", p) for p in it.params), it.arg_type)
            elif isinstance(it, T.FunDef):
                self.fundefs[it.name] = it
        self.tm = R.TypeMap(datatypes, IntT(int_bits))
        self.fun_globals = self._globals_used()
        self._safe_memo: dict = {}
        self.safe_funs = self._safe_functions()
        self.pure_funs = self._pure_functions()
        self.globals: dict[str, U] = {}
        self._hoists = 0                  # names of the variables hoist_call introduces
        #: the variables bound by the kernel runs of builtins applied once on the host for a
        #: context (their arguments uniform): a run that can fail is no longer harmless on an
        #: empty context (``_safe_on_empty``), its data not being the context's
        self.hoisted_runs: set[str] = set()
        self.functions: dict[str, ir.Function] = {}
        self._in_progress: set[str] = set()
        self.externs: dict = {}
        self.extern_locs: dict = {}
        from . import builtins as B
        self.B = B

    # ------------------------------------------------------------------------- program
    def run(self) -> FlatProgram:
        main: list[ir.Bind] = []
        items: list[TopItem] = []
        for it in self.mono.items:
            if isinstance(it, T.FunDef):
                self.unlifted(it.name)
                items.append(TopItem("fun", (it.orig_name or it.name,), it.fun_type, (), it))
            elif isinstance(it, (T.ValBind, T.ExpItem)):
                self.b.open_block()
                v = self.tr(it.exp, {}, None)
                rep = uniform_rep(v)
                lv = R.leaves(rep)
                tys = self.tm.value_leaf_types(it.exp.type)
                blk = self.b.close_block(lv[0] if len(lv) == 1 else ir.Tuple(tuple(lv)))
                names = T.pattern_vars(it.pattern) if isinstance(it, T.ValBind) else ["it"]
                gvars = [self.b.fresh("it" if isinstance(it, T.ExpItem) else "g", t) for t in tys]
                main.append(ir.Bind(tuple(ir.Param(v_, t) for v_, t in zip(gvars, tys)), blk))
                grep = self.tm.value_from_leaves(it.exp.type, list(gvars))
                if isinstance(it, T.ValBind):
                    env: dict = {}
                    self.bind_pattern(it.pattern, U(grep), env)
                    self.globals.update(env)
                else:
                    self.globals["it"] = U(grep)
                items.append(TopItem("val" if isinstance(it, T.ValBind) else "exp", tuple(names),
                                     it.exp.type, tuple(g.name for g in gvars), it))
            elif isinstance(it, T.DataDef):
                items.append(TopItem("data", (it.name,), None, (), it))
            else:
                items.append(TopItem("set", (), None, (), it))
        from lambda_cu.dead_code import eliminate_dead_code
        prog = eliminate_dead_code(
            ir.Program(tuple(self.b.kernels), tuple(self.functions.values()), tuple(main)))
        return FlatProgram(prog, tuple(items), self.tm, dict(self.externs),
                           dict(self.extern_locs))

    def extern_name(self, name: str, fun_type, lifted: bool, loc: Optional[Loc] = None) -> str:
        """The extern of a host library call (one per builtin instance and call site)."""
        key = (name, fun_type, lifted)
        for k, v in self.externs.items():
            if v == key and self.extern_locs.get(k) == loc:
                return k
        ename = f"{name}#{len(self.externs) + 1}" + ("^" if lifted else "")
        self.externs[ename] = key
        self.extern_locs[ename] = loc
        return ename

    # ------------------------------------------------------------------------- functions
    def _globals_used(self) -> dict:
        """For each function, the top-level values it reads, directly or through the functions
        it calls (sorted, with their types).  λcu functions see only their parameters, so these
        become extra parameters, passed at every call."""
        direct: dict = {}
        calls: dict = {}
        for name, fd in self.fundefs.items():
            gs, cs = {}, set()
            for node in T.iter_nodes(fd.body):
                if isinstance(node, T.GlobalVar):
                    gs[node.name] = node.type
                elif isinstance(node, T.Call) and node.kind == T.USER:
                    cs.add(node.name)
            direct[name], calls[name] = gs, cs
        used = {n: dict(g) for n, g in direct.items()}
        changed = True
        while changed:
            changed = False
            for n in used:
                for c in calls[n]:
                    for g, t in used.get(c, {}).items():
                        if g not in used[n]:
                            used[n][g] = t
                            changed = True
        return {n: sorted(g.items()) for n, g in used.items()}

    def _global_params(self, name: str, env: dict) -> list:
        """Parameters for the globals function ``name`` reads; binds them in ``env``."""
        params = []
        for g, ty in self.fun_globals.get(name, []):
            tys = self.tm.value_leaf_types(ty)
            vs = [self.b.fresh("g_" + g, t) for t in tys]
            params += [ir.Param(v, t) for v, t in zip(vs, tys)]
            env["%global:" + g] = U(self.tm.value_from_leaves(ty, list(vs)))
        return params

    def _global_args(self, name: str, env: dict) -> list:
        args = []
        for g, _ in self.fun_globals.get(name, []):
            args += R.leaves(uniform_rep(self._global(g, env)))
        return args

    def _global(self, g: str, env: dict):
        return env.get("%global:" + g) or self.globals[g]

    def fname(self, name: str, suffix: str = "") -> str:
        base = "".join(c if c.isalnum() or c == "_" else "_" for c in name)
        return base + suffix

    def unlifted(self, name: str) -> str:
        fn = self.fname(name)
        if fn in self.functions or fn in self._in_progress:
            return fn
        fd = self.fundefs[name]
        self._in_progress.add(fn)
        ptype = fd.fun_type.arg
        ptys = self.tm.value_leaf_types(ptype)
        pvars = [self.b.fresh("a", t) for t in ptys]
        env: dict = {}
        gparams = self._global_params(name, env)
        self.bind_pattern(fd.param, U(self.tm.value_from_leaves(ptype, list(pvars))), env)
        self.b.open_block()
        v = self.tr(fd.body, env, None)
        lv = R.leaves(uniform_rep(v))
        rtys = self.tm.value_leaf_types(fd.fun_type.result)
        blk = self.b.close_block(lv[0] if len(lv) == 1 else ir.Tuple(tuple(lv)))
        self.functions[fn] = ir.Function(
            fn, tuple(gparams) + tuple(ir.Param(p, t) for p, t in zip(pvars, ptys)),
            tuple_of(rtys), blk)
        self._in_progress.discard(fn)
        return fn

    @staticmethod
    def pattern_components(p) -> list:
        if isinstance(p, T.PPair):
            return Flattener.pattern_components(p.fst) + Flattener.pattern_components(p.snd)
        return [p]

    def split_by_pattern(self, p, v) -> list:
        if isinstance(p, T.PPair):
            a, b = split_pair(v)
            return self.split_by_pattern(p.fst, a) + self.split_by_pattern(p.snd, b)
        return [v]

    def lifted(self, name: str, mask: str) -> str:
        fn = self.fname(name, "_" + mask)
        if fn in self.functions or fn in self._in_progress:
            return fn
        fd = self.fundefs[name]
        self._in_progress.add(fn)
        comps = self.pattern_components(fd.param)
        n = self.b.fresh("n", INT)
        params = [ir.Param(n, INT)]
        env: dict = {}
        params += self._global_params(name, env)
        for pat, m in zip(comps, mask):
            if m == "U":
                tys = self.tm.value_leaf_types(pat.type)
                vs = [self.b.fresh("a", t) for t in tys]
                val = U(self.tm.value_from_leaves(pat.type, list(vs)))
            else:
                tys = self.tm.seq_leaf_types(pat.type)
                vs = [self.b.fresh("as", t) for t in tys]
                val = L(self.tm.seq_from_leaves(pat.type, list(vs)), None)
            params += [ir.Param(v, t) for v, t in zip(vs, tys)]
            self.bind_pattern(pat, val, env)
        ctx = Ctx(n)
        self.b.open_block()
        v = self.tr(fd.body, env, ctx)
        rep = materialise(self.b, v, ctx, self.tm, fd.fun_type.result)
        lv = R.leaves(rep)
        rtys = self.tm.seq_leaf_types(fd.fun_type.result)
        blk = self.b.close_block(lv[0] if len(lv) == 1 else ir.Tuple(tuple(lv)))
        self.functions[fn] = ir.Function(fn, tuple(params), tuple_of(rtys), blk)
        self._in_progress.discard(fn)
        return fn

    def call_user(self, e: T.Call, argv, ctx: Optional[Ctx], env: dict):
        fd = self.fundefs[e.name]
        if ctx is None or is_uniform(argv):
            fn = self.unlifted(e.name)
            args = self._global_args(e.name, env) + R.leaves(uniform_rep(argv))
            rtys = self.tm.value_leaf_types(e.type)
            outs = self.b.bind_many(ir.Call(fn, tuple(args)), rtys, "call")
            return U(self.tm.value_from_leaves(e.type, list(outs)))
        comps = self.pattern_components(fd.param)
        vals = self.split_by_pattern(fd.param, argv)
        mask = "".join("U" if is_uniform(v) else "L" for v in vals)
        fn = self.lifted(e.name, mask)
        args: list = [ctx.n] + self._global_args(e.name, env)
        for pat, v in zip(comps, vals):
            if is_uniform(v):
                args += R.leaves(uniform_rep(v))
            else:
                args += R.leaves(materialise(self.b, v, ctx, self.tm, pat.type))
        rtys = self.tm.seq_leaf_types(e.type)
        outs = self.b.bind_many(ir.Call(fn, tuple(args)), rtys, "lcall")
        return L(self.tm.seq_from_leaves(e.type, list(outs)), None)

    # ------------------------------------------------------------------------- sibling calls
    def _safe_functions(self) -> frozenset:
        """The user functions that can neither fail nor have an effect, transitively (greatest
        fixpoint: a recursive call is safe unless something else in the body is not)."""
        return self._functions_where(_node_safe)

    def _pure_functions(self) -> frozenset:
        """The user functions that have no effect (no output, input, random draw or clock read,
        see :func:`_node_pure`), transitively; they may fail.  A superset of the safe ones."""
        return self._functions_where(_node_pure)

    def _functions_where(self, node_ok) -> frozenset:
        ok = set(self.fundefs)
        changed = True
        while changed:
            changed = False
            for name in sorted(ok):
                if not all(node_ok(nd, ok) for nd in T.iter_nodes(self.fundefs[name].body)):
                    ok.discard(name)
                    changed = True
        return frozenset(ok)

    def expr_safe(self, e) -> bool:
        """Can evaluating ``e`` neither raise a runtime error nor have an effect?"""
        hit = self._safe_memo.get(id(e))
        if hit is None or hit[0] is not e:
            hit = (e, all(_node_safe(nd, self.safe_funs) for nd in T.iter_nodes(e)))
            self._safe_memo[id(e)] = hit
        return hit[1]

    def tr_siblings(self, exps: list, env: dict, ctx: Optional[Ctx]) -> list:
        """Translate independent expressions (the components of a tuple, hence the arguments of
        a call; the elements of a sequence literal) in order.

        In a context, two or more calls among them to the same *safe* user function (one that
        cannot fail nor have an effect, see :meth:`_safe_functions`) become ONE lifted call over
        the instances of all of them (:meth:`call_batched`): a function with two recursive calls
        then makes a number of lifted calls linear in its recursion depth, not exponential.
        Deferring a safe call is unobservable as long as what is evaluated in between cannot
        fail nor have an effect either; before anything that can, the deferred calls are made.

        Calls of a function that may fail but has no effect (:meth:`_pure_functions`) are
        deferred the same way and made *speculatively* (:meth:`call_speculated`): batched, and
        if that fails, again one after the other in source order, which reports the error the
        interpreter reports first."""
        counts: dict = {}
        for x in exps:
            if isinstance(x, T.Call) and x.kind == T.USER and x.name in self.pure_funs:
                counts[x.name] = counts.get(x.name, 0) + 1
        if not any(c >= 2 for c in counts.values()):
            return [self.tr(x, env, ctx) for x in exps]
        if ctx is None:
            return self.host_siblings(exps, env, counts)
        vals: list = [None] * len(exps)
        pending: dict = {}

        def flush():
            for i, v in self.make_held(pending, ctx, env).items():
                vals[i] = v
            pending.clear()

        for i, x in enumerate(exps):
            if isinstance(x, T.Call) and x.kind == T.USER and counts.get(x.name, 0) >= 2:
                if not self.expr_safe(x.arg):
                    flush()
                argv = self.tr(x.arg, env, ctx)
                if is_uniform(argv):
                    if x.name not in self.safe_funs:
                        flush()             # it may fail: after the calls before it
                    vals[i] = self.call_user(x, argv, ctx, env)
                else:
                    pending.setdefault(x.name, []).append((i, x, argv))
            else:
                if not self.expr_safe(x):
                    flush()
                vals[i] = self.tr(x, env, ctx)
        flush()
        return vals

    def make_held(self, groups: dict, ctx: Ctx, env: dict) -> dict:
        """Make the held calls ``(i, call, argv)``, grouped by function, in ``ctx``: a safe
        function's calls as one batched call (:meth:`call_batched`); the calls of functions
        that may fail together, speculatively (:meth:`call_speculated`) where one function is
        called twice or more, else one by one in source order.  Returns the results by ``i``."""
        out: dict = {}
        failing = []
        for name, calls in groups.items():
            if name not in self.safe_funs:
                failing += calls
            elif len(calls) == 1:
                i, x, argv = calls[0]
                out[i] = self.call_user(x, argv, ctx, env)
            else:
                for (i, _, _), v in zip(calls, self.call_batched(calls, ctx, env)):
                    out[i] = v
        failing.sort(key=lambda c: c[0])
        if len({c[1].name for c in failing}) < len(failing):
            for (i, _, _), v in zip(failing, self.call_speculated(failing, ctx, env)):
                out[i] = v
        else:                               # no two calls of one function: in order
            for i, x, argv in failing:
                out[i] = self.call_user(x, argv, ctx, env)
        return out

    def host_siblings(self, exps: list, env: dict, counts: dict) -> list:
        """:meth:`tr_siblings` outside any context (host code): the calls of one function that
        the ``k`` siblings make are made as ONE lifted call over ``k`` instances, their
        arguments lifted into a context of one instance, then batched as in a context
        (:meth:`call_batched`, or :meth:`call_speculated` for functions that may fail) --
        ``sumrec(take(s, h)) + sumrec(drop(s, h))`` makes lifted calls in number the depth of
        the recursion, not host calls in number its leaves.  The same rules of order: a held
        call is made before anything that could fail or have an effect."""
        b = self.b
        one = Ctx(R.c_int(1))
        vals: list = [None] * len(exps)
        pending: list = []

        def flush():
            if not pending:
                return
            groups: dict = {}
            for c in pending:
                groups.setdefault(c[1].name, []).append(c)
            if all(len(cs) == 1 for cs in groups.values()):
                # nothing to batch: the host calls, in order
                for i, x, argv in pending:
                    vals[i] = self.call_user(x, argv, None, env)
                pending.clear()
                return
            # the arguments lifted into the context of one instance
            pending[:] = [(i, x, L(materialise(b, argv, one, self.tm, x.arg.type), None))
                          for i, x, argv in pending]
            groups = {}
            for c in pending:
                groups.setdefault(c[1].name, []).append(c)
            out = self.make_held(groups, one, env)
            for i, x, _ in pending:
                # the one instance's value, as a host value
                rep = materialise(b, out[i], one, self.tm, x.type)
                vals[i] = U(self.B._host_elt(self, rep, R.c_int(0), None))
            pending.clear()

        for i, x in enumerate(exps):
            if isinstance(x, T.Call) and x.kind == T.USER and counts.get(x.name, 0) >= 2:
                if not self.expr_safe(x.arg):
                    flush()
                argv = self.tr(x.arg, env, None)
                pending.append((i, x, argv))
            else:
                if not self.expr_safe(x):
                    flush()
                vals[i] = self.tr(x, env, None)
        flush()
        return vals

    def call_batched(self, calls: list, ctx: Ctx, env: dict, maps=None):
        """``k`` calls ``(i, call, argv)`` of one user function in ``ctx`` (``n`` instances) as
        one lifted call on ``k*n`` instances, interleaved (instance ``m`` of call ``j`` is
        instance ``m*k + j``); an argument component the same uniform value in every call stays
        uniform.  Returns the ``k`` results, read through index maps (no copy) -- or, given the
        interleaving ``maps`` (:meth:`_interleaving`), the lifted call's result itself."""
        b = self.b
        e0 = calls[0][1]
        fd = self.fundefs[e0.name]
        comps = self.pattern_components(fd.param)
        k = len(calls)
        per_call = [self.split_by_pattern(fd.param, argv) for _, _, argv in calls]
        total, which, src = maps or self._interleaving(ctx, k)
        new_vals = []
        for j, pat in enumerate(comps):
            vs = [pc[j] for pc in per_call]
            if all(is_uniform(v) for v in vs) and all(uniform_rep(v) == uniform_rep(vs[0])
                                                     for v in vs[1:]):
                new_vals.append(vs[0])
            else:
                reps = [materialise(b, v, ctx, self.tm, pat.type) for v in vs]
                new_vals.append(L(R.combine(b, which, src, total, reps), None))
        argv = _rebuild_pattern(fd.param, iter(new_vals))
        res = self.call_user(e0, argv, Ctx(total), env)
        if maps is not None:
            return res
        return self._deinterleave(res.rep, ctx, k)

    def _interleaving(self, ctx: Ctx, k: int) -> tuple:
        """``(k*n, which, src)``: instance ``m*k + j`` of ``k`` interleaved calls in ``ctx``
        (``n`` instances) is instance ``m`` (``src``) of call ``j`` (``which``)."""
        b = self.b
        total = b.bind(R.p("mul", ctx.n, R.c_int(k)), INT, "bn")
        which = R.map_vec(b, R.p("rem", R.I, R.c_int(k)), total, INT, "bw")
        src = R.map_vec(b, R.p("div", R.I, R.c_int(k)), total, INT, "bs")
        return total, which, src

    def _deinterleave(self, rep, ctx: Ctx, k: int) -> list:
        """The ``k`` calls' results in ``rep`` (their interleaving), read through index maps."""
        outs = []
        for j in range(k):
            m = R.map_vec(self.b, R.p("add", R.p("mul", R.I, R.c_int(k)), R.c_int(j)), ctx.n,
                          INT, "bsel")
            outs.append(L(rep, m))
        return outs

    def call_speculated(self, calls: list, ctx: Ctx, env: dict) -> list:
        """Calls ``(i, call, argv)`` (in source order, their arguments already evaluated) of
        user functions that may fail but have no effect, as one λcu ``speculate``: its fast
        block makes the calls of each function as one batched call (:meth:`call_batched`), its
        replay block makes them one after the other, in order, and interleaves each function's
        results the same way; the executor runs the replay block only if the fast one raised a
        runtime error, so the error reported is the one the calls in order raise first.
        Returns the calls' results (lifted, read through index maps)."""
        b = self.b
        groups: dict = {}
        for c in calls:
            groups.setdefault(c[1].name, []).append(c)
        maps = {}
        for cs in groups.values():
            if len(cs) >= 2 and len(cs) not in maps:
                maps[len(cs)] = self._interleaving(ctx, len(cs))
        size = maps[max(maps)][0]           # the largest batched context
        tys = []
        for cs in groups.values():
            tys += self.tm.seq_leaf_types(cs[0][1].type)

        def block(reps: list) -> ir.Block:
            lv = [x for r in reps for x in R.leaves(r)]
            return b.close_block(lv[0] if len(lv) == 1 else ir.Tuple(tuple(lv)))

        b.open_block()
        fast = []
        for cs in groups.values():
            if len(cs) == 1:
                fast.append(self.call_user(cs[0][1], cs[0][2], ctx, env).rep)
            else:
                fast.append(self.call_batched(cs, ctx, env, maps[len(cs)]).rep)
        fast_blk = block(fast)
        b.open_block()
        res = {c[0]: self.call_user(c[1], c[2], ctx, env).rep for c in calls}
        slow = []
        for cs in groups.values():
            if len(cs) == 1:
                slow.append(res[cs[0][0]])
            else:
                total, which, src = maps[len(cs)]
                slow.append(R.combine(b, which, src, total, [res[c[0]] for c in cs]))
        slow_blk = block(slow)
        outs = iter(b.bind_many(ir.Speculate(size, fast_blk, slow_blk), tys, "spec"))
        vals = {}
        for cs in groups.values():
            ty = cs[0][1].type
            rep = self.tm.seq_from_leaves(ty, [next(outs) for _ in self.tm.seq_leaf_types(ty)])
            if len(cs) == 1:
                vals[cs[0][0]] = L(rep, None)
            else:
                for c, v in zip(cs, self._deinterleave(rep, ctx, len(cs))):
                    vals[c[0]] = v
        return [vals[c[0]] for c in calls]

    # ------------------------------------------------------------------------- patterns
    def bind_pattern(self, p, v, env: dict) -> None:
        if isinstance(p, T.PVar):
            env[p.name] = v
        elif isinstance(p, T.PWild):
            pass
        elif isinstance(p, T.PPair):
            a, b = split_pair(v)
            self.bind_pattern(p.fst, a, env)
            self.bind_pattern(p.snd, b, env)
        elif isinstance(p, T.PCon):
            self.bind_pattern(p.arg, v, env)
        else:
            raise TypeError(f"unknown pattern {p!r}")

    # ------------------------------------------------------------------------- expressions
    def tr(self, e, env: dict, ctx: Optional[Ctx]):
        m = getattr(self, "tr_" + type(e).__name__)
        return m(e, env, ctx)

    def tr_Lit(self, e, env, ctx):
        t = self.tm.base(e.type)
        return U(R.Scalar(ir.Const(e.value, t), t))

    def tr_ConstRef(self, e, env, ctx):
        return self.B.constant(self, e)

    def tr_StringLit(self, e, env, ctx):
        from lambda_cu.types import CHAR
        elems = tuple(ir.Const(ch, CHAR) for ch in e.value)
        v = self.b.bind(ir.VecLit(elems, CHAR), VecT(CHAR), "str")
        return U(R.Vec(v, CHAR))

    def tr_Var(self, e, env, ctx):
        return env[e.name]

    def tr_GlobalVar(self, e, env, ctx):
        return self._global(e.name, env)

    def tr_Pair(self, e, env, ctx):
        parts = _pair_leaves(e)
        vals = iter(self.tr_siblings(parts, env, ctx))
        return _rebuild_pair(e, vals)

    def tr_Let(self, e, env, ctx):
        v = self.tr(e.bound, env, ctx)
        env2 = dict(env)
        self.bind_pattern(e.pattern, v, env2)
        return self.tr(e.body, env2, ctx)

    def tr_Call(self, e, env, ctx):
        if ctx is not None and e.kind == T.BUILTIN and e.name in ("++", "append"):
            parts = _append_chain(e)
            if len(parts) > 2:              # a ++ b ++ c: one pass, no intermediate sequence
                return self.B.append_all(self, self.tr_siblings(parts, env, ctx), ctx)
        argv = self.tr(e.arg, env, ctx)
        if e.kind == T.USER:
            return self.call_user(e, argv, ctx, env)
        if e.kind == T.CONSTRUCTOR:
            return argv
        return self.B.apply(self, e, argv, env, ctx)

    def tr_Time(self, e, env, ctx):
        """``time(e)``: host clock reads around ``e``; the second read takes ``e``'s value as
        an argument, so no pass can move it before the computation.  In a context every
        instance gets the time of the whole (parallel) evaluation."""
        from lambda_cu.types import FLOAT
        t0 = self.b.bind(ir.Extern("clock", (), FLOAT), FLOAT, "t0")
        v = self.tr(e.exp, env, ctx)
        deps = R.leaves(uniform_rep(v)) if is_uniform(v) else R.leaves(
            materialise(self.b, v, ctx, self.tm, e.exp.type))
        t1 = self.b.bind(ir.Extern("clock", tuple(deps), FLOAT), FLOAT, "t1")
        dt = self.b.bind(R.p("sub", t1, t0), FLOAT, "dt")
        if not is_uniform(v):
            v = L(self.tm.seq_from_leaves(e.exp.type, list(deps)), None)
        return pair(v, U(R.Scalar(dt, FLOAT)))

    def tr_SeqLit(self, e, env, ctx):
        vals = self.tr_siblings(list(e.elems), env, ctx)
        elem = e.type.elem
        if ctx is None or all(is_uniform(v) for v in vals):
            reps = [uniform_rep(v) for v in vals]
            if all(_scalars_only(r) for r in reps):
                return U(self.host_vector(reps, elem))
            reps = [self.single(r, elem) for r in reps]
            return U(R.concat(self.b, reps))
        # lifted: every instance builds a sequence of len(vals) elements (interleaved)
        k = len(vals)
        reps = [materialise(self.b, v, ctx, self.tm, elem) for v in vals]
        lens = R.map_vec(self.b, R.c_int(k), ctx.n, INT, "llen")
        sd = R.make_sd(self.b, lens)
        total = self.b.bind(ir.Length(R.ids_of(sd)), INT, "tot")
        which = R.map_vec(self.b, R.p("rem", R.I, R.c_int(k)), total, INT, "lw")
        src = R.map_vec(self.b, R.p("div", R.I, R.c_int(k)), total, INT, "ls")
        return L(R.Seg(sd, R.combine(self.b, which, src, total, reps)), None)

    def host_vector(self, reps, elem) -> R.Rep:
        """A sequence literal of host scalars (or tuples of them): one vector literal per leaf."""
        t = self.tm.unfold(elem)
        if isinstance(t, nt.TPair):
            return R.Tup((self.host_vector([r.items[0] for r in reps], t.fst),
                          self.host_vector([r.items[1] for r in reps], t.snd)))
        bt = self.tm.base(t)
        v = self.b.bind(ir.VecLit(tuple(r.e for r in reps), bt), VecT(bt), "lit")
        return R.Vec(v, bt)

    def single(self, rep: R.Rep, elem) -> R.Rep:
        """The one-element sequence ``[v]`` of a host value."""
        return R.replicate(self.b, rep, R.c_int(1), self.tm, elem)

    def tr_EmptySeq(self, e, env, ctx):
        return U(R.empty_seq(self.b, self.tm, e.type.elem))

    def tr_Range(self, e, env, ctx):
        s = self.tr(e.start, env, ctx)
        en = self.tr(e.end, env, ctx)
        st = self.tr(e.stride, env, ctx)
        return self.B.range_(self, s, en, st, ctx, loc_of(e))

    # ------------------------------------------------------------------------- if
    def _branch(self, e, env, ctx):
        """Translate ``e`` in a fresh block; returns (value, binds)."""
        self.b.open_block()
        v = self.tr(e, env, ctx)
        blk = self.b.close_block(ir.Tuple(()))
        return v, blk.binds

    def host_if(self, cond: ir.Exp, then_fn, else_fn, ty, ctx: Optional[Ctx]):
        """``if cond then ... else ...`` on the host; ``then_fn``/``else_fn`` produce values.
        Results are uniform if both are (else materialised in ``ctx``)."""
        self.b.open_block()
        v1 = then_fn()
        b1 = self.b.close_block(ir.Tuple(())).binds
        return self._host_if(cond, v1, b1, else_fn, ty, ctx)

    def _host_if(self, cond, v1, b1, else_fn, ty, ctx):
        self.b.open_block()
        v2 = else_fn()
        b2 = self.b.close_block(ir.Tuple(())).binds
        uniform = ctx is None or (is_uniform(v1) and is_uniform(v2))

        def finish(v, binds):
            self.b._blocks.append(list(binds))
            if uniform:
                lv = R.leaves(uniform_rep(v))
            else:
                lv = R.leaves(materialise(self.b, v, ctx, self.tm, ty))
            return self.b.close_block(lv[0] if len(lv) == 1 else ir.Tuple(tuple(lv)))

        blk1 = finish(v1, b1)
        blk2 = finish(v2, b2)
        if uniform:
            tys = self.tm.value_leaf_types(ty)
            outs = self.b.bind_many(ir.If(cond, blk1, blk2), tys, "ifv")
            return U(self.tm.value_from_leaves(ty, list(outs)))
        tys = self.tm.seq_leaf_types(ty)
        outs = self.b.bind_many(ir.If(cond, blk1, blk2), tys, "ifv")
        return L(self.tm.seq_from_leaves(ty, list(outs)), None)

    def guarded(self, n: ir.Exp, run_fn, ty, ctx: Ctx):
        """Run ``run_fn`` (code for a context of ``n`` instances) only when ``n > 0`` — unless
        the code it emits is harmless on an empty context (kernels only, no host-side
        operation that can fail or recurse), in which case it runs unguarded so that its
        kernels stay in the enclosing control region (fusion works per region)."""
        self.b.open_block()
        v1 = run_fn()
        b1 = self.b.close_block(ir.Tuple(())).binds
        if self._safe_on_empty(b1):
            self.b._blocks[-1].extend(b1)
            return v1
        return self._host_if(R.p("gt", n, R.c_int(0)), v1, b1,
                             lambda: L(R.empty_seq(self.b, self.tm, ty), None), ty, ctx)

    def _safe_on_empty(self, binds) -> bool:
        kernels = {k.name: k for k in self.b.kernels}
        for bd in binds:
            rhs = bd.rhs
            if isinstance(rhs, ir.Run):
                k = kernels[rhs.kernel]
                if any(isinstance(kb.soac, ir.Once) for kb in k.binds):
                    return False
                if any(p.name in self.hoisted_runs for p in bd.params) and kernel_can_fail(k):
                    # a builtin's kernel over uniform data (``[1, 2] <- [(7, 1)]`` in a
                    # context): its size is not the context's, so it fails on an empty one
                    return False
            elif isinstance(rhs, ir.PrimOp):
                if _located(rhs):
                    return False
            elif isinstance(rhs, ir.Check):
                # a check that passes on an empty context (``check(n == 0 || ok)``, emitted
                # by the builtins for the instances of a context)
                c = rhs.cond
                if not (isinstance(c, ir.PrimOp) and c.op == "or" and isinstance(c.args[0], ir.PrimOp)
                        and c.args[0].op == "eq" and isinstance(c.args[0].args[0], (ir.Var, ir.Const))
                        and c.args[0].args[1] == R.c_int(0) and not _located(c)):
                    return False
            elif isinstance(rhs, ir.MakeSegDes):
                if rhs.loc is not None:
                    return False
            elif isinstance(rhs, (ir.Length, ir.SegVec, ir.VecLit, ir.Var, ir.Const, ir.Tuple,
                                  ir.Proj)):
                pass
            else:
                return False
        return True

    def tr_If(self, e, env, ctx):
        c = self.tr(e.cond, env, ctx)
        if ctx is None or is_uniform(c):
            ce = uniform_rep(c).e
            return self.host_if(ce, lambda: self.tr(e.then, env, ctx),
                                lambda: self.tr(e.else_, env, ctx), e.type, ctx)
        # the condition varies: a call of one function in both branches is made once, over
        # the instances of both (hoist.py), instead of once per branch
        self._hoists += 1
        cv, rv = f"%cond{self._hoists}", f"%call{self._hoists}"
        hoisted = hoist_call(e, cv, rv, self.expr_safe)
        if hoisted is not None:
            return self.tr(hoisted, {**env, cv: c}, ctx)
        # split the context
        b = self.b
        flags = materialise(b, c, ctx, self.tm, e.cond.type).e
        kept, rej = b.soac(ir.Partition(thunk([("i", INT)], R.I),
                                        thunk([("x", INT)], R.idx(flags, ir.Var("x"))), ctx.n),
                           [VecT(INT), VecT(INT)], "part")
        nt_ = b.bind(ir.Length(kept), INT, "nt")
        nf_ = b.bind(ir.Length(rej), INT, "nf")
        rep_t = self.branch_on(e.then, env, kept, nt_, e.type)
        rep_f = self.branch_on(e.else_, env, rej, nf_, e.type)
        # merge: instance k takes its value from the branch it went to
        bt = R.p("btoi", R.idx(flags, R.I), ty=INT)
        ranks = b.soac(ir.Scan(thunk([("i", INT)], bt), (R.c_int(0),),
                               thunk([("a", INT), ("b", INT)], R.p("add", ir.Var("a"), ir.Var("b"))),
                               ctx.n), [VecT(INT)], "rank")[0]

        def merged():
            which = R.map_vec(b, ir.If(R.idx(flags, R.I), R.c_int(0), R.c_int(1)), ctx.n, INT, "which")
            src = R.map_vec(b, ir.If(R.idx(flags, R.I), R.idx(ranks, R.I),
                                     R.p("sub", R.I, R.idx(ranks, R.I))), ctx.n, INT, "src")
            return L(R.combine(b, which, src, ctx.n, [rep_t, rep_f]), None)

        if not _has_segments(rep_t):
            return merged()
        # sequences: where every instance went the same way, that branch's result is already
        # in instance order, and the merge (a copy of every element) is skipped -- quicksort's
        # upper levels, where no instance has finished yet
        return self._host_if(
            R.p("eq", nf_, R.c_int(0)), L(rep_t, None), (),
            lambda: self._host_if(R.p("eq", nt_, R.c_int(0)), L(rep_f, None), (), merged,
                                  e.type, ctx),
            e.type, ctx)

    def branch_on(self, e, env, sel: ir.Exp, n: ir.Exp, ty) -> R.Rep:
        """Evaluate ``e`` on the sub-context selected by ``sel`` (``n`` instances), only if
        ``n > 0``; returns the contiguous result (length ``n``)."""
        sub = Ctx(n)

        def run():
            env2 = reindex_env(self.b, env, sel, n)
            return self.tr(e, env2, sub)

        v = self.guarded(n, run, ty, sub)
        return materialise(self.b, v, sub, self.tm, ty)

    # ------------------------------------------------------------------------- apply-to-each
    def tr_ApplyToEach(self, e, env, ctx):
        b = self.b
        srcs = [self.tr(g.source, env, ctx) for g in e.gens]
        loc = loc_of(e)
        direct = self.direct_filter(e, srcs, env, ctx)
        if direct is not None:
            return direct
        if ctx is None:
            reps = [uniform_rep(v) for v in srcs]
            n = R.length_var(b, reps[0])
            for r in reps[1:]:
                b.effect(ir.Check(R.p("eq", n, R.length(b, r)), loc,
                                  MSG_LENGTH))
            inner = Ctx(n)
            env2 = dict(env)
            for g, r in zip(e.gens, reps):
                self.bind_pattern(g.pattern, L(r, None), env2)
            data = self.body_in(e, env2, inner)
            return U(data[1])
        # lifted: each instance iterates over its own sequence(s)
        segs = []
        for g, v in zip(e.gens, srcs):
            segs.append(self.seq_instances(v, ctx, g.source.type))
        sd0 = segs[0][0]
        for sd, _ in segs[1:]:
            self.B._check_same_lengths(b, sd0, sd, ctx, loc,
                                       MSG_LENGTH)
        total = b.bind(ir.Length(R.ids_of(sd0)), INT, "tot")
        segids = R.ids_of(sd0)
        inner = Ctx(total)
        env2 = reindex_env(b, env, segids, total)
        for g, (sd, data) in zip(e.gens, segs):
            self.bind_pattern(g.pattern, L(data, None), env2)
        counts, data = self.body_in(e, env2, inner, sd0)
        sd_out = sd0 if counts is None else R.make_sd(b, counts)
        return L(R.Seg(sd_out, data), None)

    def direct_filter(self, e, srcs, env, ctx):
        """``{x : x in xs | p(x)}`` over scalars with a predicate that is a scalar expression of
        ``x`` and host values: one FILTER (SEG_FILTER in a context) whose predicate thunk is
        ``p`` — the paper's filter kernel — instead of flags, an index filter and a gather."""
        if e.filter is None or len(e.gens) != 1:
            return None
        g = e.gens[0]
        if not (isinstance(g.pattern, T.PVar) and isinstance(e.body, T.Var)
                and e.body.name == g.pattern.name and self.tm.is_base(g.pattern.type)):
            return None
        bt = self.tm.base(g.pattern.type)
        pred = self.B.scalar_gpu(self, e.filter, {g.pattern.name: ir.Var("x")}, env)
        if pred is None:
            return None
        v = srcs[0]
        pth = thunk([("x", bt)], pred)
        if ctx is None or is_uniform(v):
            if ctx is not None:
                return None
            rep = uniform_rep(v)
            r = self.b.soac(ir.Filter(thunk([("i", INT)], R.idx(rep.e, R.I)), pth,
                                      R.length(self.b, rep)), [VecT(bt)], "filt")[0]
            return U(R.Vec(r, bt))
        seg = materialise(self.b, v, ctx, self.tm, g.source.type)
        r, sd = self.b.soac(ir.SegFilter(thunk([("i", INT)], R.idx(seg.data.e, R.I)), pth, seg.sd),
                            [VecT(bt), SD], "filt")
        return L(R.Seg(sd, R.Vec(r, bt)), None)

    def seq_instances(self, v, ctx: Ctx, seqty):
        """(sd, data) of the per-instance sequences of a sequence-valued value in ``ctx``."""
        b = self.b
        if is_uniform(v):
            rep = uniform_rep(v)
            m = R.length_var(b, rep)
            lens = R.map_vec(b, m, ctx.n, INT, "len")
            sd = R.make_sd(b, lens)
            total = b.bind(ir.Length(R.ids_of(sd)), INT, "tot")
            ix = R.map_vec(b, R.p("sub", R.I, R.idx(R.offs_of(sd), R.idx(R.ids_of(sd), R.I))),
                           total, INT, "pos")
            return sd, R.gather(b, rep, ix, total)
        rep = materialise(b, v, ctx, self.tm, seqty)
        return rep.sd, rep.data

    def body_in(self, e, env, inner: Ctx, sd=None):
        """Filter and body of an apply-to-each in its context.  Returns (counts, data):
        ``data`` the contiguous results, ``counts`` the per-segment numbers of kept elements
        when a filter dropped some (``sd`` given), else None."""
        b = self.b
        elem_ty = e.type.elem
        counts = None
        n = inner.n
        sel = None
        if e.filter is not None:
            # like the body, the filter runs only for existing elements
            fv = self.guarded(n, lambda: self.tr(e.filter, env, inner), e.filter.type, inner)
            if is_uniform(fv):
                fl = R.map_vec(b, uniform_rep(fv).e, n, BOOL, "flag")
            else:
                fl = materialise(b, fv, inner, self.tm, e.filter.type).e
            sel = b.soac(ir.Filter(thunk([("i", INT)], R.I),
                                   thunk([("x", INT)], R.idx(fl, ir.Var("x"))), n),
                         [VecT(INT)], "keep")[0]
            if sd is not None:
                counts = b.soac(ir.SegReduce(thunk([("i", INT)],
                                                   R.p("btoi", R.idx(fl, R.I), ty=INT)),
                                             (R.c_int(0),),
                                             thunk([("a", INT), ("b", INT)],
                                                   R.p("add", ir.Var("a"), ir.Var("b"))), sd),
                                [VecT(INT)], "cnt")[0]
            n = b.bind(ir.Length(sel), INT, "nk")
        sub = Ctx(n)

        def run():
            env2 = env if sel is None else reindex_env(b, env, sel, n)
            return self.tr(e.body, env2, sub)

        v = self.guarded(n, run, elem_ty, sub)
        return counts, materialise(b, v, sub, self.tm, elem_ty)


def _located(e: ir.Exp) -> bool:
    """Does the host expression contain a located (failing) primitive or subscript?"""
    if isinstance(e, (ir.PrimOp, ir.Index)) and e.loc is not None:
        return True
    if isinstance(e, ir.PrimOp):
        return any(_located(a) for a in e.args)
    if isinstance(e, ir.Index):
        return _located(e.vec) or _located(e.idx)
    if isinstance(e, ir.If):
        return _located(e.cond) or _located(e.then) or _located(e.else_)
    if isinstance(e, ir.Let):
        return _located(e.rhs) or _located(e.body)
    if isinstance(e, (ir.Tuple,)):
        return any(_located(a) for a in e.elems)
    if isinstance(e, ir.Proj):
        return _located(e.tup)
    return False


#: builtins that can neither fail nor have an effect (whatever their arguments)
_SAFE_BUILTINS = frozenset({
    "+", "-", "*", "max", "min", "==", "/=", "<", ">", "<=", ">=", "and", "or", "xor", "nor",
    "nand", "not", "negate", "abs", "float", "btoi", "diff", "plusp", "minusp", "zerop", "oddp",
    "evenp", "select", "identity", "#", "length", "sum", "product", "any", "all", "parity",
    "plus_scan", "mult_scan", "or_scan", "and_scan", "xor_scan"})
#: builtins that cannot fail when their second argument is a positive literal
_DIV_BUILTINS = frozenset({"/", "rem", "mod"})
_SAFE_NODES = (T.Lit, T.StringLit, T.Var, T.GlobalVar, T.ConstRef, T.Pair, T.If, T.Let, T.Gen,
               T.SeqLit, T.EmptySeq, T.PVar, T.PWild, T.PPair, T.PCon)


#: builtins with an effect (output, input, files, the random generator's state): never in a
#: speculative block, which may run twice
_EFFECT_BUILTINS = frozenset({
    "rand", "rand_seed", "print_string", "write_string", "print_char", "print_line", "print",
    "read_string_from_file", "read_int_seq_from_file", "read_float_seq_from_file",
    "write_string_to_file", "next_char", "read_string", "prompt"})
_PURE_BUILTINS: list = []


def _pure_builtins() -> frozenset:
    """The builtins without an effect (they may fail): the data-parallel ones the flattener
    implements (``flatten/builtins.py``), ``error`` and the pure host functions."""
    if not _PURE_BUILTINS:
        from . import builtins as B
        names = (set(B._SCALAR_NAMES) | set(B._REDUCTIONS) | set(B._SCANS) | set(B._EXPANDED)
                 | _SAFE_BUILTINS | _DIV_BUILTINS
                 | {"first", "max_index", "min_index", "#", "length", "elt", "dist", "++",
                    "append", "flatten", "partition", "zip", "unzip", "permute", "rank",
                    "rank_down", "sort", "<-", "write", "error",
                    "@", "exp_string", "parse_int", "parse_float", "hash"})
        _PURE_BUILTINS.append(frozenset(names - _EFFECT_BUILTINS))
    return _PURE_BUILTINS[0]


def _node_pure(nd, pure_funs) -> bool:
    """Can this node itself have no effect (it may fail)?  Conservative: a clock read
    (``time``), a function value or anything not known is an effect."""
    if isinstance(nd, T.Call):
        if nd.kind == T.USER:
            return nd.name in pure_funs
        if nd.kind == T.CONSTRUCTOR:
            return True
        if nd.kind == T.BUILTIN:
            return nd.name in _pure_builtins()
        return False
    if isinstance(nd, (T.ApplyToEach, T.Range)):
        return True
    return isinstance(nd, _SAFE_NODES)


def _node_safe(nd, safe_funs) -> bool:
    """Can this node itself (not its children) neither fail nor have an effect?  Conservative:
    anything not known to be safe is not."""
    if isinstance(nd, T.Call):
        if nd.kind == T.USER:
            return nd.name in safe_funs
        if nd.kind == T.CONSTRUCTOR:
            return True
        if nd.kind == T.BUILTIN:
            if nd.name in _SAFE_BUILTINS:
                return True
            if nd.name in _DIV_BUILTINS and isinstance(nd.arg, T.Pair):
                d = nd.arg.snd
                return (isinstance(d, T.Lit) and isinstance(d.value, (int, float))
                        and not isinstance(d.value, bool) and d.value > 0)
        return False
    if isinstance(nd, T.ApplyToEach):
        return len(nd.gens) == 1        # several generators: their lengths may differ
    return isinstance(nd, _SAFE_NODES)


def _has_segments(r) -> bool:
    """Whether a representation holds a segmented array (a value with sequences in it)."""
    if isinstance(r, R.Seg):
        return True
    return isinstance(r, R.Tup) and any(_has_segments(x) for x in r.items)


def _append_chain(e) -> list:
    """The operands of a chain of appends, ``(a ++ b) ++ c`` or ``a ++ (b ++ c)``: ``[a, b, c]``
    (appending is associative and never fails, and the operands are evaluated in this order
    either way)."""
    if (isinstance(e, T.Call) and e.kind == T.BUILTIN and e.name in ("++", "append")
            and isinstance(e.arg, T.Pair)):
        return _append_chain(e.arg.fst) + _append_chain(e.arg.snd)
    return [e]


def _pair_leaves(e) -> list:
    """The components of a (nested) pair expression, left to right."""
    out, stack = [], [e]
    while stack:
        x = stack.pop()
        if isinstance(x, T.Pair):
            stack.append(x.snd)
            stack.append(x.fst)
        else:
            out.append(x)
    return out


def _rebuild_pair(e, vals):
    if isinstance(e, T.Pair):
        a = _rebuild_pair(e.fst, vals)
        return pair(a, _rebuild_pair(e.snd, vals))
    return next(vals)


def _rebuild_pattern(p, vals):
    if isinstance(p, T.PPair):
        a = _rebuild_pattern(p.fst, vals)
        return pair(a, _rebuild_pattern(p.snd, vals))
    return next(vals)


def _scalars_only(r) -> bool:
    if isinstance(r, R.Scalar):
        return True
    return isinstance(r, R.Tup) and all(_scalars_only(x) for x in r.items)


def flatten_program(mono: T.TypedProgram, int_bits: int = 32) -> FlatProgram:
    """Flatten a monomorphic typed NESL program into λcu (a pure function of its input)."""
    if int_bits != 32:
        raise R.FlattenUnsupported(
            "64-bit NESL ints (--int64) are supported by the reference interpreter only; the "
            "flattening backends use 32-bit ints")
    return Flattener(mono, int_bits).run()
