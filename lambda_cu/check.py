"""Type checker of λcu (the paper's §3.3 rules, Figs. 2-4, plus this project's extensions).

Entry points
------------
``check_program(prog) -> ProgramTypes``  checks every kernel, function and the main body;
    returns the types of every variable of every kernel (``.kernels[K][x]``), of the functions'
    and main's CPU variables (``.functions[f][x]``, ``.main[x]``), and the kernel signatures.
``check_kernel(kernel) -> dict[str, Type]``  one kernel in isolation (its variable types).
``soac_result_types(soac, env) -> tuple[Type, ...]``  the types a SOAC application produces, one
    per variable it binds, in the kernel environment ``env`` (name -> type).
``thunk_type(thunk, env) -> (param component types, result component types)``.

Every error is a :class:`LcuTypeError` whose message starts with the place — ``kernel K2,
binding ys, pull thunk`` / ``function norm2, binding sum1`` / ``main, binding it`` — followed by the
problem.  The attributes ``where`` (that place) and ``problem`` are also available.

Rules implemented
-----------------
* Types are stratified (``lambda_cu.types``): thunk parameters and results are GPU types (base
  values and tuples, compared through :func:`flat_components`: × is associative); kernel
  parameters and results are kernel types (τ, ``[b]``, ``sd``); CPU variables any CPU type
  (compared structurally).
* Thunks: ``(Γ|ys)[x_i ↦ τ_i] ⊢ e : τ`` — the body is typed in an environment holding ONLY the
  ``using`` variables and the parameters; a free variable missing from ``using`` is reported by
  name.  Every ``using`` variable must be bound in the kernel.  Vectors and segment descriptors may
  only be subscripted (``x[i]``, ``seg_ids(sd)[i]``) or measured (``#x``), never used as values.
* SOAC applications follow the signature table of ``lambda_cu.ir``; sizes are size expressions
  (an int variable or constant, ``#x`` of a vector or ``SegVec``), segmented SOACs take an ``sd``
  variable; ``let (x1..xk) = SOAC`` must bind exactly one variable per result component; a variable
  is bound at most once per kernel.
* Kernels: distinct parameter names, kernel-level parameter types; ``returns`` has the declared
  result types.
* CPU level: ``run K args`` and function calls check arity and argument types (functions may be
  recursive: all signatures are known before bodies are checked); ``if`` branches agree; bindings
  with k >= 2 params destructure a k-tuple; ``check`` conditions are bool; GPU-only forms
  (``x[i]``, ``let ... in``) are rejected on the host.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from . import ir
from .prims import result_type as prim_result_type
from .types import (BOOL, INT, SD, UNIT, CharT, FloatT, IntT, SegDesT, TupleT, Type, UnitT, VecT,
                    flat_components, is_base, is_cpu_type, is_gpu_type, is_kernel_type, lift,
                    tuple_of, type_str)


class LcuTypeError(Exception):
    """A λcu type error; ``where`` names the kernel/function and binding, ``problem`` the error."""

    def __init__(self, where: str, problem: str) -> None:
        super().__init__(f"{where}: {problem}" if where else problem)
        self.where = where
        self.problem = problem


class _Fail(Exception):
    """Internal: a problem found below the current place; converted to LcuTypeError."""

    def __init__(self, problem: str) -> None:
        super().__init__(problem)
        self.problem = problem


@dataclass
class ProgramTypes:
    """Result of :func:`check_program`."""

    kernels: dict[str, dict[str, Type]] = field(default_factory=dict)
    kernel_sigs: dict[str, tuple[tuple[Type, ...], tuple[Type, ...]]] = field(default_factory=dict)
    functions: dict[str, dict[str, Type]] = field(default_factory=dict)
    main: dict[str, Type] = field(default_factory=dict)


# =============================================================================================
# GPU-level expressions


def _vec_operand(e: ir.Exp, env: dict[str, Type]) -> Type:
    """Type of the vector operand of ``x[i]`` / ``#x`` inside a thunk: a vector Var or a SegVec."""
    if isinstance(e, ir.Var):
        t = env.get(e.name)
        if t is None:
            raise _Fail(f"unbound variable '{e.name}'")
        if not isinstance(t, VecT):
            raise _Fail(f"'{e.name}' has type {t}, not a vector, and cannot be subscripted")
        return t
    if isinstance(e, ir.SegVec):
        if not isinstance(e.sd, ir.Var):
            raise _Fail(f"{e} : the descriptor of a SegVec in a thunk must be a variable")
        t = env.get(e.sd.name)
        if t is None:
            raise _Fail(f"unbound variable '{e.sd.name}'")
        if not isinstance(t, SegDesT):
            raise _Fail(f"seg_{e.field}({e.sd.name}) : '{e.sd.name}' has type {t}, not sd")
        return VecT(e.ity)
    raise _Fail(f"only a vector variable or seg_lengths/seg_offsets/seg_ids(sd) can be subscripted "
                f"in a thunk, not {e}")


def _same_gpu(a: Type, b: Type) -> bool:
    return flat_components(a) == flat_components(b)


def gpu_exp_type(e: ir.Exp, env: dict[str, Type]) -> Type:
    """Type of a GPU-level expression in ``env`` (raises ``_Fail``)."""
    if isinstance(e, ir.Var):
        t = env.get(e.name)
        if t is None:
            raise _Fail(f"unbound variable '{e.name}'")
        if isinstance(t, (VecT, SegDesT)):
            raise _Fail(f"'{e.name}' has type {t}: vectors and segment descriptors can only be "
                        f"subscripted or measured with # inside a thunk")
        return t
    if isinstance(e, ir.Const):
        return e.ty
    if isinstance(e, ir.Tuple):
        return TupleT(tuple(gpu_exp_type(x, env) for x in e.elems))
    if isinstance(e, ir.Proj):
        t = gpu_exp_type(e.tup, env)
        return _proj_type(t, e)
    if isinstance(e, ir.PrimOp):
        args = tuple(gpu_exp_type(a, env) for a in e.args)
        try:
            return prim_result_type(e.op, args, e.ty)
        except TypeError as exc:
            raise _Fail(f"in {e}: {exc}") from None
    if isinstance(e, ir.Length):
        _vec_operand(e.vec, env)
        return e.ity
    if isinstance(e, ir.Index):
        vt = _vec_operand(e.vec, env)
        it = gpu_exp_type(e.idx, env)
        if not isinstance(it, IntT):
            raise _Fail(f"in {e}: index has type {it}, not int")
        return vt.elem
    if isinstance(e, ir.If):
        ct = gpu_exp_type(e.cond, env)
        if ct != BOOL:
            raise _Fail(f"condition of '{e}' has type {ct}, not bool")
        tt = gpu_exp_type(e.then, env)
        et = gpu_exp_type(e.else_, env)
        if not _same_gpu(tt, et):
            raise _Fail(f"branches of '{e}' disagree: {tt} vs {et}")
        return tt
    if isinstance(e, ir.Let):
        rt = gpu_exp_type(e.rhs, env)
        inner = dict(env)
        for v, t in zip(e.vars, _destructure(rt, len(e.vars), e)):
            inner[v.name] = t
        return gpu_exp_type(e.body, inner)
    if isinstance(e, ir.SegVec):
        raise _Fail(f"'{e}' is a vector: it can only be subscripted or measured with # in a thunk")
    raise _Fail(f"'{e}' ({type(e).__name__}) is not allowed in a thunk body")


def _proj_type(t: Type, e: ir.Proj) -> Type:
    if not isinstance(t, TupleT):
        raise _Fail(f"projection '{e}' of a non-tuple of type {t}")
    if not 0 <= e.index < len(t.elems):
        raise _Fail(f"projection '{e}' out of range for {t}")
    return t.elems[e.index]


def _destructure(t: Type, k: int, where: object) -> tuple[Type, ...]:
    if k == 1:
        return (t,)
    if isinstance(t, TupleT) and len(t.elems) == k:
        return t.elems
    comps = flat_components(t)
    if len(comps) == k:
        return comps
    raise _Fail(f"'{where}' binds {k} variables but its value has type {t}")


# =============================================================================================
# thunks and SOACs


def thunk_type(t: ir.Thunk, env: dict[str, Type]) -> tuple[tuple[Type, ...], tuple[Type, ...]]:
    """``(param components, result components)`` of a thunk typed in kernel environment ``env``.

    Implements ``(Γ|ys)[x_i ↦ τ_i] ⊢ e : τ``."""
    restricted: dict[str, Type] = {}
    for u in t.using:
        ut = env.get(u.name)
        if ut is None:
            raise _Fail(f"using list names '{u.name}', which is not bound in the kernel")
        restricted[u.name] = ut
    pnames = [p.name for p in t.params]
    if len(set(pnames)) != len(pnames):
        raise _Fail(f"thunk has duplicate parameters {pnames}")
    for p in t.params:
        if not is_gpu_type(p.ty):
            raise _Fail(f"thunk parameter '{p.name}' has type {p.ty}, not a GPU (scalar/tuple) type")
        restricted[p.name] = p.ty
    missing = sorted(ir.thunk_free_vars(t) - {u.name for u in t.using})
    if missing:
        raise _Fail("thunk uses " + ", ".join(f"'{m}'" for m in missing)
                    + " which " + ("is" if len(missing) == 1 else "are") + " not in its using list")
    body = gpu_exp_type(t.body, restricted)
    pcomps: list[Type] = []
    for p in t.params:
        pcomps.extend(flat_components(p.ty))
    return tuple(pcomps), flat_components(body)


def _size_type(e: ir.Exp, env: dict[str, Type]) -> None:
    if isinstance(e, ir.Var):
        t = env.get(e.name)
        if t is None:
            raise _Fail(f"size '{e.name}' is not bound in the kernel")
        if not isinstance(t, IntT):
            raise _Fail(f"size '{e.name}' has type {t}, not int")
        return
    if isinstance(e, ir.Const):
        if not isinstance(e.ty, IntT) or e.value < 0:
            raise _Fail(f"size constant {e} must be a non-negative int")
        return
    if isinstance(e, ir.Length):
        _vec_operand(e.vec, env)
        return
    raise _Fail(f"size '{e}' must be an int variable, an int constant or #x")


def _sd_type(e: ir.Exp, env: dict[str, Type]) -> None:
    if not isinstance(e, ir.Var):
        raise _Fail(f"segment descriptor argument '{e}' must be a variable")
    t = env.get(e.name)
    if t is None:
        raise _Fail(f"segment descriptor '{e.name}' is not bound in the kernel")
    if not isinstance(t, SegDesT):
        raise _Fail(f"'{e.name}' has type {t}, not sd")


def _pull(t: ir.Thunk, env: dict[str, Type]) -> tuple[tuple[Type, ...], IntT]:
    try:
        params, res = thunk_type(t, env)
    except _Fail as f:
        raise _Fail(f"pull thunk: {f.problem}") from None
    if len(t.params) != 1 or not isinstance(t.params[0].ty, IntT):
        raise _Fail(f"pull thunk must take one int index, not ({', '.join(map(str, params))})")
    return res, t.params[0].ty


def _liftable(tau: tuple[Type, ...], what: str) -> tuple[Type, ...]:
    for c in tau:
        if not is_base(c) or isinstance(c, UnitT):
            raise _Fail(f"{what} produces {type_str(tuple_of(tau))}, which cannot be stored in vectors")
    return lift(tuple_of(tau))


def _monoid(op: ir.Thunk, init: tuple[ir.Exp, ...], tau: tuple[Type, ...], env: dict[str, Type]) -> None:
    scalars = {k: v for k, v in env.items() if not isinstance(v, (VecT, SegDesT))}
    icomps: list[Type] = []
    for e in init:
        try:
            icomps.extend(flat_components(gpu_exp_type(e, scalars)))
        except _Fail as f:
            raise _Fail(f"initial value: {f.problem}") from None
    if tuple(icomps) != tau:
        raise _Fail(f"initial value has type {type_str(tuple_of(tuple(icomps)))} but the pull thunk "
                    f"produces {type_str(tuple_of(tau))}")
    try:
        params, res = thunk_type(op, env)
    except _Fail as f:
        raise _Fail(f"operator thunk: {f.problem}") from None
    if params != tau + tau or res != tau:
        raise _Fail(f"operator thunk has type {type_str(tuple_of(params))} => {type_str(tuple_of(res))}, "
                    f"expected {type_str(tuple_of(tau + tau))} => {type_str(tuple_of(tau))}")


def _pred(p: ir.Thunk, tau: tuple[Type, ...], env: dict[str, Type]) -> None:
    try:
        params, res = thunk_type(p, env)
    except _Fail as f:
        raise _Fail(f"predicate thunk: {f.problem}") from None
    if params != tau or res != (BOOL,):
        raise _Fail(f"predicate thunk has type {type_str(tuple_of(params))} => {type_str(tuple_of(res))}, "
                    f"expected {type_str(tuple_of(tau))} => bool")


def _index_thunk(g: ir.Thunk, env: dict[str, Type]) -> None:
    try:
        params, res = thunk_type(g, env)
    except _Fail as f:
        raise _Fail(f"index thunk: {f.problem}") from None
    if len(params) != 1 or not isinstance(params[0], IntT) or len(res) != 1 or not isinstance(res[0], IntT):
        raise _Fail(f"index thunk has type {type_str(tuple_of(params))} => {type_str(tuple_of(res))}, "
                    f"expected int => int")


def soac_result_types(s: ir.Soac, env: dict[str, Type]) -> tuple[Type, ...]:
    """Result types of a SOAC application (one per bound variable); raises ``LcuTypeError``
    (without a place) when ill-typed."""
    try:
        return _soac(s, env)
    except _Fail as f:
        raise LcuTypeError("", f.problem) from None


def _soac(s: ir.Soac, env: dict[str, Type]) -> tuple[Type, ...]:
    if isinstance(s, ir.Once):
        try:
            params, res = thunk_type(s.f, env)
        except _Fail as f:
            raise _Fail(f"ONCE thunk: {f.problem}") from None
        if params not in ((), (UNIT,)):
            raise _Fail(f"ONCE thunk must take no argument (or unit), not {type_str(tuple_of(params))}")
        return res
    if s.SEGMENTED:
        _sd_type(s.sd, env)
    else:
        _size_type(s.size, env)
    tau, ity = _pull(s.f, env)
    if isinstance(s, ir.Map):
        return _liftable(tau, "MAP")
    if isinstance(s, (ir.Permute, ir.SegPermute)):
        _index_thunk(s.idx, env)
        return _liftable(tau, s.NAME)
    if isinstance(s, ir.Scatter):
        _index_thunk(s.idx, env)
        lifted = _liftable(tau, "SCATTER")
        dts = []
        for d in s.dsts:
            t = env.get(d.name)
            if t is None:
                raise _Fail(f"SCATTER destination '{d.name}' is not bound in the kernel")
            dts.append(t)
        if tuple(dts) != lifted:
            raise _Fail(f"SCATTER destinations have types ({', '.join(map(str, dts))}) but the values "
                        f"are {type_str(tuple_of(tau))}")
        return lifted
    if isinstance(s, (ir.Reduce, ir.SegReduce)):
        _monoid(s.op, s.init, tau, env)
        return _liftable(tau, s.NAME) if s.SEGMENTED else tau
    if isinstance(s, (ir.Scan, ir.SegScan)):
        _monoid(s.op, s.init, tau, env)
        return _liftable(tau, s.NAME)
    if isinstance(s, ir.Filter):
        _pred(s.pred, tau, env)
        return _liftable(tau, "FILTER")
    if isinstance(s, ir.Partition):
        _pred(s.pred, tau, env)
        lifted = _liftable(tau, "PARTITION")
        return lifted + lifted
    if isinstance(s, ir.SegFilter):
        _pred(s.pred, tau, env)
        return _liftable(tau, "SEG_FILTER") + (SD,)
    if isinstance(s, ir.SegPartition):
        _pred(s.pred, tau, env)
        lifted = _liftable(tau, "SEG_PARTITION")
        return lifted + (SD,) + lifted + (SD,)
    if isinstance(s, (ir.Rank, ir.SegRank)):
        if len(tau) != 1 or not isinstance(tau[0], (IntT, FloatT, CharT)):
            raise _Fail(f"{s.NAME} keys must be one ordinal (int, float or char), not {type_str(tuple_of(tau))}")
        return (VecT(ity),)
    raise _Fail(f"unknown SOAC {type(s).__name__}")


# =============================================================================================
# kernels


def _check_kernel(k: ir.Kernel) -> dict[str, Type]:
    where = f"kernel {k.name}"
    env: dict[str, Type] = {}
    for p in k.params:
        if p.name in env:
            raise LcuTypeError(where, f"duplicate parameter '{p.name}'")
        if not is_kernel_type(p.ty):
            raise LcuTypeError(where, f"parameter '{p.name}' has type {p.ty}, not a kernel type "
                                      f"(scalar, flat tuple, [b] or sd)")
        env[p.name] = p.ty
    for b in k.binds:
        bwhere = f"{where}, binding {', '.join(b.names)}"
        if not b.vars:
            raise LcuTypeError(bwhere, "a SOAC binding binds at least one variable")
        try:
            res = _soac(b.soac, env)
        except _Fail as f:
            raise LcuTypeError(bwhere, f"{b.soac.NAME}: {f.problem}") from None
        if len(res) != len(b.vars):
            raise LcuTypeError(bwhere, f"{b.soac.NAME} produces {len(res)} result(s) "
                                       f"({', '.join(map(str, res))}) but {len(b.vars)} variable(s) are bound")
        for v, t in zip(b.vars, res):
            if v.name in env:
                raise LcuTypeError(bwhere, f"variable '{v.name}' is bound twice in the kernel")
            env[v.name] = t
    if not k.results:
        raise LcuTypeError(where, "a kernel returns at least one value")
    if len(k.returns) != len(k.results):
        raise LcuTypeError(where, f"returns {len(k.returns)} value(s) but declares {len(k.results)} result type(s)")
    for r, t in zip(k.returns, k.results):
        rt = env.get(r.name)
        if rt is None:
            raise LcuTypeError(where, f"returns '{r.name}', which is not bound")
        if rt != t:
            raise LcuTypeError(where, f"returns '{r.name}' of type {rt} where the result type is {t}")
    return env


def check_kernel(k: ir.Kernel) -> dict[str, Type]:
    """Check one kernel; returns the types of its parameters and SOAC-bound variables."""
    return _check_kernel(k)


# =============================================================================================
# CPU level


class _Cpu:
    def __init__(self, kernels: dict[str, ir.Kernel], funcs: dict[str, ir.Function]) -> None:
        self.kernels = kernels
        self.funcs = funcs
        self.where = ""

    def exp(self, e: ir.Exp, env: dict[str, Type], record: dict[str, Type]) -> Type:
        if isinstance(e, ir.Var):
            t = env.get(e.name)
            if t is None:
                raise _Fail(f"unbound variable '{e.name}'")
            return t
        if isinstance(e, ir.Const):
            return e.ty
        if isinstance(e, ir.Tuple):
            return TupleT(tuple(self.exp(x, env, record) for x in e.elems))
        if isinstance(e, ir.Proj):
            return _proj_type(self.exp(e.tup, env, record), e)
        if isinstance(e, ir.PrimOp):
            args = tuple(self.exp(a, env, record) for a in e.args)
            try:
                return prim_result_type(e.op, args, e.ty)
            except TypeError as exc:
                raise _Fail(f"in {e}: {exc}") from None
        if isinstance(e, ir.SegVec):
            st = self.exp(e.sd, env, record)
            if st != SD:
                raise _Fail(f"'{e}': argument has type {st}, not sd")
            return VecT(e.ity)
        if isinstance(e, ir.Length):
            vt = self.exp(e.vec, env, record)
            if not isinstance(vt, VecT):
                raise _Fail(f"'{e}': argument has type {vt}, not a vector")
            return e.ity
        if isinstance(e, ir.If):
            ct = self.exp(e.cond, env, record)
            if ct != BOOL:
                raise _Fail(f"condition of if has type {ct}, not bool")
            tt = self.exp(e.then, env, record)
            et = self.exp(e.else_, env, record)
            if tt != et:
                raise _Fail(f"if branches disagree: {tt} vs {et}")
            return tt
        if isinstance(e, ir.Block):
            return self.block(e, env, record)
        if isinstance(e, ir.Speculate):
            zt = self.exp(e.size, env, record)
            if not isinstance(zt, IntT):
                raise _Fail(f"speculate size has type {zt}, not an integer")
            ft = self.block(e.fast, env, record)
            st = self.block(e.slow, env, record)
            if ft != st:
                raise _Fail(f"speculate blocks disagree: {ft} vs {st}")
            return ft
        if isinstance(e, ir.Run):
            k = self.kernels.get(e.kernel)
            if k is None:
                raise _Fail(f"run of unknown kernel '{e.kernel}'")
            self.args(f"kernel {e.kernel}", k.params, e.args, env, record)
            return tuple_of(k.results)
        if isinstance(e, ir.Call):
            f = self.funcs.get(e.func)
            if f is None:
                raise _Fail(f"call of unknown function '{e.func}'")
            self.args(f"function {e.func}", f.params, e.args, env, record)
            return f.result
        if isinstance(e, ir.VecLit):
            for x in e.elems:
                xt = self.exp(x, env, record)
                if xt != e.elem:
                    raise _Fail(f"vector literal element {x} has type {xt}, not {e.elem}")
            return VecT(e.elem)
        if isinstance(e, ir.MakeSegDes):
            lt = self.exp(e.lengths, env, record)
            if not (isinstance(lt, VecT) and isinstance(lt.elem, IntT)):
                raise _Fail(f"make_sd takes an int vector of lengths, not {lt}")
            return SD
        if isinstance(e, ir.Check):
            ct = self.exp(e.cond, env, record)
            if ct != BOOL:
                raise _Fail(f"check condition has type {ct}, not bool")
            return UNIT
        if isinstance(e, ir.Error):
            if not is_cpu_type(e.ty):
                raise _Fail(f"error has type {e.ty}, not a CPU type")
            return e.ty
        if isinstance(e, ir.Extern):
            for a in e.args:
                self.exp(a, env, record)
            if not is_cpu_type(e.ty):
                raise _Fail(f"extern {e.name} has type {e.ty}, not a CPU type")
            return e.ty
        if isinstance(e, (ir.Index, ir.Let)):
            raise _Fail(f"'{e}' is GPU-level code and cannot appear on the host (use a kernel)")
        raise _Fail(f"'{e!r}' is not a CPU-level expression")

    def args(self, what: str, params: tuple[ir.Param, ...], args: tuple[ir.Exp, ...],
             env: dict[str, Type], record: dict[str, Type]) -> None:
        if len(params) != len(args):
            raise _Fail(f"{what} takes {len(params)} argument(s), given {len(args)}")
        for k, (p, a) in enumerate(zip(params, args)):
            at = self.exp(a, env, record)
            if at != p.ty:
                raise _Fail(f"argument {k + 1} of {what} ('{p.name}') has type {at}, expected {p.ty}")

    def bind(self, b: ir.Bind, env: dict[str, Type], record: dict[str, Type], where: str) -> None:
        bwhere = f"{where}, binding {', '.join(b.names) or '_'}"
        try:
            t = self.exp(b.rhs, env, record)
        except _Fail as f:   # (an LcuTypeError from a nested block keeps its innermost place)
            raise LcuTypeError(bwhere, f.problem) from None
        ps = b.params
        for p in ps:
            if not is_cpu_type(p.ty):
                raise LcuTypeError(bwhere, f"'{p.name}' has type {p.ty}, not a CPU type")
        if len(ps) == 1:
            if t != ps[0].ty:
                raise LcuTypeError(bwhere, f"'{ps[0].name}' is declared {ps[0].ty} but the value has type {t}")
        elif len(ps) >= 2:
            if not (isinstance(t, TupleT) and len(t.elems) == len(ps)):
                raise LcuTypeError(bwhere, f"binds {len(ps)} variables but the value has type {t}")
            for p, et in zip(ps, t.elems):
                if p.ty != et:
                    raise LcuTypeError(bwhere, f"'{p.name}' is declared {p.ty} but the value has type {et}")
        for p in ps:
            env[p.name] = p.ty
            record[p.name] = p.ty

    def block(self, blk: ir.Block, env: dict[str, Type], record: dict[str, Type],
              where: Optional[str] = None) -> Type:
        inner = dict(env)
        w = where or self.where
        for b in blk.binds:
            self.bind(b, inner, record, w)
        try:
            return self.exp(blk.result, inner, record)
        except _Fail as f:
            raise LcuTypeError(f"{w}, result", f.problem) from None


def check_program(prog: ir.Program) -> ProgramTypes:
    """Type-check a whole program; returns the variable types (see the module docstring)."""
    out = ProgramTypes()
    kernels: dict[str, ir.Kernel] = {}
    for k in prog.kernels:
        if k.name in kernels:
            raise LcuTypeError(f"kernel {k.name}", "kernel defined twice")
        kernels[k.name] = k
        out.kernels[k.name] = _check_kernel(k)
        out.kernel_sigs[k.name] = (tuple(p.ty for p in k.params), k.results)
    funcs: dict[str, ir.Function] = {}
    for f in prog.functions:
        if f.name in funcs:
            raise LcuTypeError(f"function {f.name}", "function defined twice")
        funcs[f.name] = f
    cpu = _Cpu(kernels, funcs)
    for f in prog.functions:
        where = f"function {f.name}"
        env: dict[str, Type] = {}
        for p in f.params:
            if p.name in env:
                raise LcuTypeError(where, f"duplicate parameter '{p.name}'")
            if not is_cpu_type(p.ty):
                raise LcuTypeError(where, f"parameter '{p.name}' has type {p.ty}, not a CPU type")
            env[p.name] = p.ty
        if not is_cpu_type(f.result):
            raise LcuTypeError(where, f"result type {f.result} is not a CPU type")
        record = dict(env)
        cpu.where = where
        rt = cpu.block(f.body, env, record, where)
        if rt != f.result:
            raise LcuTypeError(f"{where}, result", f"body has type {rt}, declared {f.result}")
        out.functions[f.name] = record
    env = {}
    cpu.where = "main"
    for b in prog.main:
        cpu.bind(b, env, out.main, "main")
    return out


__all__ = ["LcuTypeError", "ProgramTypes", "check_program", "check_kernel", "soac_result_types",
           "thunk_type", "gpu_exp_type"]
