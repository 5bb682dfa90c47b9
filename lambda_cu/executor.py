"""The host executor of λcu's CPU level, written once and shared by every backend.

λcu has three levels (``lambda_cu.ir``).  The CPU level — functions, ``let``, ``if``, recursion,
``run K args``, checks, externs, vector literals, segment descriptors — is walked here, by
:class:`Executor`.  Everything that touches vector *data* is delegated to a **kernel runner**:

=========================================  ==============================================================
runner method                              meaning
=========================================  ==============================================================
``run_kernel(kernel, args) -> value``      launch one λcu kernel (``args``: runtime values of its params);
                                           one value, or a tuple for several results.  Scalars it returns
                                           are host scalars (numpy scalars).
``length(vec) -> int``                     number of elements of a vector value
``sd_field(sd, field, dtype) -> vec``      ``seg_lengths/offsets/ids(sd)`` as a vector value
``sd_field_length(sd, field) -> int``      the length of that vector without building it
``vec_from_host(array) -> vec``            a vector value holding a 1-d numpy array
``make_sd(lengths, loc) -> sd``            a segment descriptor (negative length: ``LcuRuntimeError``)
``to_host(value) -> value``                numpy arrays / ``SegDes`` / host scalars, tuples recursively
``from_host(value, ty) -> value``          the inverse, for a value of λcu type ``ty``
``host_prim(op, args, ty, loc)``           a scalar primitive on host scalars
``sync()``                                 wait for the device; raise the first pending kernel error
``discard_errors()``                       forget the kernel errors not yet reported (a failed
                                           speculative block's: the block is replayed)
=========================================  ==============================================================

The numpy runner (``lambda_cu.interp.NumpyRunner``) keeps vectors as numpy arrays; the OpenCL runner
(``lift_backend.lower.runner``) keeps them on the device.  ``lambda_cu`` never imports a runner of
another package: the runner is passed in.

Ordering of effects and errors: before an ``extern`` (which may print or read), before a host-side
error is raised (``check``, ``error``), and at the end of every top-level binding the executor calls
``runner.sync()``, so a runner that launches kernels asynchronously reports an earlier kernel's
error first, exactly where the numpy runner would have raised it.

Speculation (``speculate (size) fast else replay slow``, the flattener's speculative batching):
the executor evaluates ``fast``; at its end it calls ``runner.sync()``, so that an error of a kernel
launched inside ``fast`` is raised there; if ``fast`` raised a NESL runtime error
(``LcuRuntimeError``) or recursed too deep (``RecursionError``: a call past the depth limit
below, or the stack exhausted), its values are dropped, the
runner forgets its unreported errors (``discard_errors()``) and ``slow`` is evaluated instead.
Nothing else is caught (a ``MemoryError`` or an internal error propagates).  Only the outermost
speculation replays: a ``speculate`` met while evaluating a ``fast`` block evaluates its own
``fast`` only (a failure goes up to the outermost one, whose ``slow`` replays it), so a failure
costs one more pass per level, not one per speculation.  After a recursion too deep or a
speculation given up (below), ``slow`` is evaluated with every nested ``speculate`` taking its
``slow`` block: the source order exactly, the cost of the program without speculation (a
nested speculation could fail the same way again, at every level of a deep recursion).  The
runner is synchronised before an outermost ``fast`` starts, so an error of an earlier kernel is
reported as it is without speculation, never replayed.  A speculation is bounded: a batched
context larger than ``speculation_limit`` instances (``NESSIE_SPECULATION_LIMIT``, default 2^20)
is not speculated on, and one met inside a ``fast`` block gives that block up (replayed as a
failure): batching evaluates every call breadth-first, so without a bound a call the source
order never reaches (after an earlier call's error) could double its instances at each level of
an unbounded recursion and exhaust the memory before the stack.

Call depth: the executor counts its active ``Call`` frames (``self.depth``); one past
``lambda_cu.support.MAX_CALL_DEPTH`` (``NESSIE_MAX_CALL_DEPTH``, default 10,000) raises
``CallTooDeep``, a ``RecursionError``, reported as ``MSG_RECURSION`` like the stack's exhaustion.
The flattener makes one λcu function per NESL function and form, so this is the count of NESL
calls the reference interpreter makes (``nessie.limits``).  A failed speculation replays to the
same depth, so an unbounded recursion costs at most two passes to the limit.
"""
from __future__ import annotations

from collections import Counter
from typing import Any, Callable, Optional

import numpy as np

from . import ir
from .errors import MSG_RECURSION, LcuRuntimeError
from .loc import Loc
from .support import CallDepth, CallTooDeep, env_positive, run_deep
from .values import dtype_of

#: a program whose recursion exhausts the big stack fails with ``MSG_RECURSION`` (the driver
#: locates it at the top-level expression being evaluated, as the reference interpreter does)


#: the largest batched context the executor speculates on (see the module docstring)
SPECULATION_LIMIT = int(env_positive("NESSIE_SPECULATION_LIMIT", 1 << 20))


class _GiveUp(Exception):
    """A speculative block grew past the speculation limit (replayed, never reported)."""


def on_big_stack(fn: Callable[[], Any]) -> Any:
    """Run ``fn`` on a big stack (``lambda_cu.support.run_deep``) with numpy's floating-point
    warnings off; a program whose recursion exhausts it fails with ``MSG_RECURSION``."""
    def guarded() -> Any:
        deep = False
        try:
            with np.errstate(all="ignore"):
                return fn()
        except RecursionError:
            deep = True       # raised once the traceback's frames are freed
        if deep:
            raise LcuRuntimeError(None, MSG_RECURSION)
    return run_deep(guarded, "lcu-exec")


class Executor:
    """Executes the CPU level of one λcu program with a kernel runner (see the module docstring).

    ``run_main()`` evaluates the main bindings (values in ``globals``); ``call(name, *args)``
    calls a CPU function; ``run_kernel(name, *args)`` runs one kernel; ``launches`` counts kernel
    launches by kernel name.  Results are runner values: ``runner.to_host`` converts them."""

    def __init__(self, prog: ir.Program, runner: Any, check: bool = True,
                 externs: Optional[dict[str, Callable[..., Any]]] = None) -> None:
        if check:
            from .check import check_program
            check_program(prog)
        self.prog = prog
        self.runner = runner
        #: host library functions for ``Extern`` nodes: name -> f(*host values) -> host value
        self.externs = dict(externs or {})
        self.kernels = {k.name: k for k in prog.kernels}
        self.functions = {f.name: f for f in prog.functions}
        self.globals: dict[str, Any] = {}
        self.launches: Counter[str] = Counter()
        #: evaluating a ``fast`` block of ``speculate`` (nested ones do not replay)
        self._speculating = False
        #: replaying after a recursion too deep: every ``speculate`` takes its ``slow`` block
        self._replaying = False
        #: speculative blocks that failed and were replayed (by the error that stopped them)
        self.replays: Counter[str] = Counter()
        #: the largest batched context speculated on
        self.speculation_limit = SPECULATION_LIMIT
        #: the ``Call`` frames active (``lambda_cu.support.MAX_CALL_DEPTH``: one more is
        #: ``CallTooDeep``, a recursion too deep)
        self.depth = CallDepth()
        #: ``id(block)`` -> (the block, whether its last binding is in tail position:
        #: ``_returns_last``); the entry keeps the block alive, so its id is not reused
        self._tails: dict[int, tuple] = {}
        prepare = getattr(runner, "prepare", None)
        if prepare is not None:
            prepare(prog)

    # -------------------------------------------------------------- entry points

    def run_main(self) -> list:
        def go() -> list:
            results = []
            for b in self.prog.main:
                v = self.exp(b.rhs, self.globals)
                self.runner.sync()
                results.append(v)
                self.bind(b, v, self.globals)
            return results
        return on_big_stack(go)

    def call(self, name: str, *args: Any) -> Any:
        f = self.functions[name]
        if len(args) != len(f.params):
            raise TypeError(f"function {name} takes {len(f.params)} argument(s), given {len(args)}")
        vals = [self.runner.from_host(self.runner.coerce(a, p.ty), p.ty)
                for a, p in zip(args, f.params)]

        def go() -> Any:
            v = self._call(f, vals)
            self.runner.sync()
            return v
        return on_big_stack(go)

    def run_kernel(self, name: str, *args: Any) -> Any:
        k = self.kernels[name]
        if len(args) != len(k.params):
            raise TypeError(f"kernel {name} takes {len(k.params)} argument(s), given {len(args)}")
        vals = [self.runner.from_host(self.runner.coerce(a, p.ty), p.ty)
                for a, p in zip(args, k.params)]
        v = self._run(k, vals)
        self.runner.sync()
        return v

    # -------------------------------------------------------------- evaluation

    def _run(self, k: ir.Kernel, args: list) -> Any:
        self.launches[k.name] += 1
        return self.runner.run_kernel(k, args)

    def _call(self, f: ir.Function, args: list) -> Any:
        """A ``Call`` of ``f``: one more active call (see ``lambda_cu.support.CallDepth``)."""
        depth = self.depth
        depth.enter()
        try:
            return self.exp(f.body, {p.name: a for p, a in zip(f.params, args)})
        finally:
            depth.leave()

    @staticmethod
    def bind(b: ir.Bind, v: Any, env: dict[str, Any]) -> None:
        if len(b.params) == 1:
            env[b.params[0].name] = v
        elif len(b.params) > 1:
            for p, x in zip(b.params, v):
                env[p.name] = x

    _bind = bind   # the name the driver used before the executor was split out

    def _fail(self, loc: Optional[Loc], message: str) -> None:
        self.runner.sync()          # an earlier kernel's error comes first
        raise LcuRuntimeError(loc, message)

    def _speculate(self, e: ir.Speculate, env: dict[str, Any]) -> Any:
        """``speculate fast else replay slow`` (see the module docstring)."""
        if self._replaying:
            return self.exp(e.slow, env)
        big = int(self.exp(e.size, env)) > self.speculation_limit
        if self._speculating:
            if big:
                raise _GiveUp()
            return self.exp(e.fast, env)     # the outermost speculation replays a failure
        if big:
            self.replays["too large"] += 1
            return self.exp(e.slow, env)
        r = self.runner
        r.sync()                             # an earlier kernel's error is not speculative
        failed = None
        self._speculating = True
        try:
            v = self.exp(e.fast, env)
            r.sync()                         # errors of the kernels launched in ``fast``
            return v
        except LcuRuntimeError as err:
            failed = err.message
        except RecursionError:
            failed = MSG_RECURSION           # (the traceback's frames are freed on leaving)
        except _GiveUp:
            failed = "too large"
        finally:
            self._speculating = False
        r.discard_errors()
        self.replays[failed] += 1
        if failed not in (MSG_RECURSION, "too large"):
            return self.exp(e.slow, env)
        self._replaying = True
        try:
            return self.exp(e.slow, env)
        finally:
            self._replaying = False

    def exp(self, e: ir.Exp, env: dict[str, Any]) -> Any:
        """Evaluate a CPU-level expression.

        Tail positions -- a block's result, or its last binding where the result only returns
        what that binding binds (``let x = e; return x``, ``let (a, b) = e; return (a, b)``);
        both branches of an ``if``; a called function's body -- are evaluated in this loop, not
        by a nested call, and a call there replaces the environment instead of stacking one:
        a loop written as tail recursion holds the vectors of its current step only (those of
        the steps before are freed as the step's environment is dropped), as it runs on every
        runner.  Such a call is still one more active call until the loop returns
        (``self.depth``), so the recursion limit counts the calls the interpreter counts."""
        entered = 0
        tupled = False          # a tail binding of several names: the value is a tuple
        try:
            while True:
                # variables and runs first: most nodes evaluated are these
                if isinstance(e, ir.Var):
                    v = env[e.name]
                elif isinstance(e, ir.Run):
                    v = self._run(self.kernels[e.kernel], [self.exp(a, env) for a in e.args])
                elif isinstance(e, ir.Block):
                    env = dict(env)
                    binds = e.binds
                    hit = self._tails.get(id(e))
                    if hit is None or hit[0] is not e:
                        hit = self._tails[id(e)] = (e, bool(binds) and _returns_last(e))
                    if hit[1]:
                        for b in binds[:-1]:
                            self.bind(b, self.exp(b.rhs, env), env)
                        tupled = tupled or len(binds[-1].params) > 1
                        e = binds[-1].rhs
                    else:
                        for b in binds:
                            self.bind(b, self.exp(b.rhs, env), env)
                        e = e.result
                    continue
                elif isinstance(e, ir.If):
                    e = e.then if bool(self.exp(e.cond, env)) else e.else_
                    continue
                elif isinstance(e, ir.Call):
                    f = self.functions[e.func]
                    args = [self.exp(a, env) for a in e.args]
                    self.depth.enter()
                    entered += 1
                    # the caller's environment is dropped here: its vectors live on only where
                    # they are arguments
                    env = {p.name: a for p, a in zip(f.params, args)}
                    args = None
                    e = f.body
                    continue
                else:
                    v = self._exp_node(e, env)
                return tuple(v) if tupled and not isinstance(v, tuple) else v
        finally:
            depth = self.depth
            for _ in range(entered):
                depth.leave()

    def _exp_node(self, e: ir.Exp, env: dict[str, Any]) -> Any:
        """Evaluate a CPU-level expression that is no variable, run, block, ``if`` or call
        (those are ``exp``'s)."""
        r = self.runner
        if isinstance(e, ir.Speculate):
            return self._speculate(e, env)
        if isinstance(e, ir.Const):
            from .values import scalar
            return scalar(e.value, e.ty)
        if isinstance(e, ir.PrimOp):
            args = [self.exp(a, env) for a in e.args]
            try:
                return r.host_prim(e.op, args, e.ty, e.loc)
            except LcuRuntimeError as err:
                self._fail(err.location, err.message)
        if isinstance(e, ir.Tuple):
            return tuple(self.exp(x, env) for x in e.elems)
        if isinstance(e, ir.Proj):
            return self.exp(e.tup, env)[e.index]
        if isinstance(e, ir.Length):
            if isinstance(e.vec, ir.SegVec):
                n = r.sd_field_length(self.exp(e.vec.sd, env), e.vec.field)
            else:
                n = r.length(self.exp(e.vec, env))
            dt = dtype_of(e.ity)
            if n > np.iinfo(dt).max:
                raise MemoryError(f"a vector of {n} elements ({dt} lengths)")
            return dt.type(n)
        if isinstance(e, ir.SegVec):
            return r.sd_field(self.exp(e.sd, env), e.field, dtype_of(e.ity))
        if isinstance(e, ir.VecLit):
            dt = dtype_of(e.elem)
            return r.vec_from_host(np.asarray([self.exp(x, env) for x in e.elems],
                                              dtype=dt).reshape(-1))
        if isinstance(e, ir.MakeSegDes):
            lengths = self.exp(e.lengths, env)
            try:
                return r.make_sd(lengths, e.loc)
            except LcuRuntimeError as err:
                self._fail(err.location, err.message)
        if isinstance(e, ir.Check):
            if not bool(self.exp(e.cond, env)):
                self._fail(e.loc, e.message)
            return None
        if isinstance(e, ir.Error):
            self._fail(e.loc, e.message)
        if isinstance(e, ir.Extern):
            fn = self.externs.get(e.name)
            if fn is None:
                self._fail(e.loc, f"no host function '{e.name}' was supplied")
            args = [self.exp(a, env) for a in e.args]
            r.sync()                 # effects happen after every earlier kernel succeeded
            return r.from_host(fn(*[r.to_host(a) for a in args]), e.ty)
        raise TypeError(f"cannot evaluate {type(e).__name__} on the host: {e}")


def _returns_last(b: ir.Block) -> bool:
    """Whether block ``b``'s result is what its last binding binds, returned as it is: ``let x
    = e; return x`` or ``let (x, y) = e; return (x, y)`` (the value of ``e`` is the block's)."""
    names = [p.name for p in b.binds[-1].params]
    r = b.result
    if isinstance(r, ir.Var):
        return names == [r.name]
    return (isinstance(r, ir.Tuple) and len(names) > 1 and len(r.elems) == len(names)
            and all(isinstance(x, ir.Var) and x.name == n for x, n in zip(r.elems, names)))


__all__ = ["Executor", "on_big_stack", "LcuRuntimeError"]
