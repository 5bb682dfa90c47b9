"""Address-space inference: Algorithm 1 of the Lift paper.

``inferASExpr(expr, writeTo)``:

* program parameters: scalars in private memory, arrays in global memory;
* literals: private; parameters: the address space of the argument they are bound to;
* user functions: ``writeTo`` if given, otherwise the common address space of their
  arguments (global if they differ);
* ``toPrivate``/``toLocal``/``toGlobal`` set ``writeTo`` for the function they wrap;
* ``reduceSeq`` accumulates in the address space of its initial value (private for a
  literal);
* ``map*`` and ``iterate`` pass ``writeTo`` to their function; data-layout patterns take the
  address space of their argument (and pass ``writeTo`` to it, as line 10 of Algorithm 1).

Four refinements, documented because the paper leaves them open:

1. The program body is inferred with ``writeTo = global`` (the kernel's result must be in
   global memory), not ``null``.
2. The arguments of calls that are not data-layout patterns are inferred with
   ``writeTo = null``: a value consumed by a pattern is stored where its own producer
   (or a ``toX`` around it) says, not where the consumer's result goes.  Without this,
   ``toLocal(mapSeq(id)) o reduceSeq(f, 0)`` under ``toGlobal`` would move the accumulator to
   global memory.
3. A user-function call that is a direct argument of another user-function call is a
   private value (passed in registers: ``add(acc, mult(x, y))``).
4. ``iterate`` without ``writeTo`` writes in the address space of its input: its output
   buffer is swapped with the input buffer after each iteration (this lets the
   rewrite-rules paper's ``iterate(join o mapLcl(reduceSeq(+, 0)) o split 2)`` work on local
   memory without a ``toLocal``).

``reduceSeq`` always accumulates in a private variable for value types; when the call's
address space (its ``writeTo``) differs from the accumulator's, the final value is stored
there after the loop (``toLocal(mapLcl(reduceSeq(f, 0)))`` of the rewrite-rules paper).
"""
from __future__ import annotations

from enum import Enum
from types import MappingProxyType
from typing import Dict, Mapping, Optional

from ..errors import LiftCompileError
from ..ir import patterns as P
from ..ir.expr import Expr, FunCall, FunDecl, Lambda, Literal, Param, UserFun, extend
from ..types import ScalarType, TupleType, VectorType
from ..types.infer import TypedProgram


class AddressSpace(Enum):
    GLOBAL = "global"
    LOCAL = "local"
    PRIVATE = "private"

    def __str__(self):
        return self.value


GLOBAL, LOCAL, PRIVATE = AddressSpace.GLOBAL, AddressSpace.LOCAL, AddressSpace.PRIVATE


class _ASInfer:
    def __init__(self, typed: TypedProgram):
        self.typed = typed
        self.spaces: Dict[int, AddressSpace] = {}
        # True while inferring what becomes the program's result (written to the kernel's
        # global output buffer, whatever a toLocal/toPrivate around it says)
        self.on_result = True

    def expr(self, e: Expr, write_to: Optional[AddressSpace], env, in_userfun_arg=False) -> AddressSpace:
        if isinstance(e, Literal):
            a = PRIVATE
        elif isinstance(e, Param):
            a = env[e.name]
        elif isinstance(e, FunCall):
            a = self.call(e, write_to, env, in_userfun_arg)
        else:  # pragma: no cover
            raise TypeError(e)
        self.spaces[id(e)] = a
        return a

    def call(self, c: FunCall, write_to, env, in_userfun_arg) -> AddressSpace:
        f = c.f
        layout = isinstance(f, P.LayoutPattern)
        is_uf = isinstance(f, (UserFun, P.Id, P.MapVec))
        on_result = self.on_result
        self.on_result = on_result and layout
        arg_spaces = [self.expr(a, write_to if layout else None, env,
                                in_userfun_arg=is_uf or (isinstance(f, (P.At, P.AtIf)) and k >= 1)
                                or isinstance(f, P.FailIf))
                      for k, a in enumerate(c.args)]
        self.on_result = on_result
        if is_uf and in_userfun_arg:
            return PRIVATE
        return self.fun(f, arg_spaces, write_to, env, c)

    def fun(self, f: FunDecl, arg_spaces, write_to, env, call) -> AddressSpace:
        if isinstance(f, (UserFun, P.Id, P.MapVec)):
            if write_to is not None:
                return write_to
            if arg_spaces and all(a == arg_spaces[0] for a in arg_spaces):
                return arg_spaces[0]
            return GLOBAL
        if isinstance(f, Lambda):
            for p, a in zip(f.params, arg_spaces):
                self.spaces[id(p)] = a
            return self.expr(f.body, write_to, extend(env, {p.name: a for p, a in zip(f.params, arg_spaces)}))
        if isinstance(f, (P.ToPrivate, P.ToLocal)) and self.on_result:
            # refinement 1: the program's result is the kernel's output, in global memory
            raise LiftCompileError(
                f"{f.name} around what becomes the program's result: a kernel's result is written "
                f"to global memory; drop the {f.name} (or copy the value to global memory after it, "
                f"e.g. with toGlobal(mapSeq(id)) or toGlobal(mapLcl(0)(id)))", call.span)
        if isinstance(f, P.ToPrivate):
            return self.fun(f.f, arg_spaces, PRIVATE, env, call)
        if isinstance(f, P.ToLocal):
            return self.fun(f.f, arg_spaces, LOCAL, env, call)
        if isinstance(f, P.ToGlobal):
            on_result, self.on_result = self.on_result, False
            try:
                return self.fun(f.f, arg_spaces, GLOBAL, env, call)
            finally:
                self.on_result = on_result
        if isinstance(f, P.Reduce):
            # the accumulator is not the result: the reduction stores it where write_to says
            on_result, self.on_result = self.on_result, False
            try:
                init_space = self.expr(f.init, None, env)
                acc = init_space if init_space == PRIVATE else init_space
                self.fun(f.f, [acc, arg_spaces[0]], acc, env, call)
            finally:
                self.on_result = on_result
            return write_to if write_to is not None else acc
        if isinstance(f, P.RadixSeq):
            # the digit and the counters are private; the histogram or the positions go where
            # write_to says
            on_result, self.on_result = self.on_result, False
            try:
                self.fun(f.f, [arg_spaces[0]], PRIVATE, env, call)
            finally:
                self.on_result = on_result
            return write_to if write_to is not None else GLOBAL
        if isinstance(f, P.FilterSeq):
            # the predicate's value is a private flag; the kept elements go where write_to says
            on_result, self.on_result = self.on_result, False
            try:
                self.fun(f.f, [arg_spaces[0]], PRIVATE, env, call)
            finally:
                self.on_result = on_result
            target = write_to if write_to is not None else GLOBAL
            self.fun(f.value, [arg_spaces[0]], target, env, call)
            return target
        if isinstance(f, P.Iterate):
            # the two buffers are swapped: the body writes where its input lives
            target = write_to if write_to is not None else (arg_spaces[0] if arg_spaces[0] != PRIVATE else None)
            return self.fun(f.f, arg_spaces, target, env, call)
        if isinstance(f, P.Map):
            return self.fun(f.f, arg_spaces, write_to, env, call)
        if isinstance(f, (P.At, P.AtIf)):
            return arg_spaces[0]
        if isinstance(f, P.FailIf):
            return arg_spaces[1]        # an element of the array, where the array lives
        if isinstance(f, P.LayoutPattern):
            return arg_spaces[-1] if arg_spaces else GLOBAL
        raise LiftCompileError(f"address spaces: unknown function {f!r}")  # pragma: no cover


def infer_address_spaces(typed: TypedProgram) -> Mapping[int, AddressSpace]:
    """Address space of every expression node (keyed by node identity)."""
    inf = _ASInfer(typed)
    env = {}
    for p in typed.program.params:
        a = PRIVATE if isinstance(p.type, (ScalarType, VectorType, TupleType)) else GLOBAL
        env[p.name] = a
        inf.spaces[id(p)] = a
    inf.expr(typed.program.body, GLOBAL, env)
    return MappingProxyType(inf.spaces)
