"""Type inference with symbolic lengths, following the data flow (Lift paper §5.1).

``infer_program(program)`` returns a :class:`TypedProgram`: the (freshened) program plus
immutable tables keyed by node identity: the type of every expression, the index variable
of every map/reduce (its range is the array's index range), the resolved static
arguments of patterns and the size constraints to check once sizes are known.
"""
from __future__ import annotations

import re
import struct
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Dict, List, Mapping, Optional, Tuple

from .. import arith as A
from ..arith import Expr as AExpr, Var
from ..errors import LiftTypeError, Span
from ..limits import INT_MAX, MAX_ITERATE_UNROLL
from ..ir.expr import (field_names, Expr, FunCall, FunDecl, Lambda, Literal, Param, Program, UserFun, extend,
                       freshen)
from ..ir import patterns as P
from .types import (ArrayType, Int, ScalarType, TupleType, Type, VectorType, is_value,
                    size_in_elements, subst_type, type_free_vars, types_equal)

LEN_UID = -7  # uid of the variables standing for ``len(x)`` in the text syntax


def len_var(param_name: str) -> Var:
    return Var(f"len({param_name})", A.Cst(0), None, LEN_UID)


LOOP_VAR_NAMES = {"mapGlb": "gl_id", "mapWrg": "wg_id", "mapLcl": "l_id", "mapSeq": "i",
                  "map": "i", "reduceSeq": "i", "reduce": "i", "scanSeq": "i",
                  "filterSeq": "i", "radixHistSeq": "i", "radixRankSeq": "i"}


class Repeated(tuple):
    """``(value,) * count`` without storing ``count`` items: the lengths of a length-preserving
    ``iterate(count - 1)`` (up to 2^31 iterations).  Indexing and ``len`` work as for the
    tuple; slices give another ``Repeated``."""

    def __new__(cls, value, count: int):
        self = super().__new__(cls, (value,) if count else ())
        self._value, self._count = value, count
        return self

    def __len__(self):
        return self._count

    def __getitem__(self, i):
        if isinstance(i, slice):
            return Repeated(self._value, len(range(*i.indices(self._count))))
        if -self._count <= i < self._count:
            return self._value
        raise IndexError(i)

    def __iter__(self):
        for _ in range(self._count):
            yield self._value

    def __repr__(self):
        return f"Repeated({self._value!r}, {self._count})"


@dataclass(frozen=True)
class IterateInfo:
    """``size_var`` is ``None`` when the body preserves the length; ``lengths[j]`` is the input
    length of iteration ``j`` (``lengths[n]`` the final one); ``step`` gives the output length
    of one iteration in terms of ``size_var``."""
    size_var: Optional[Var]
    step: AExpr
    lengths: Tuple[AExpr, ...]


@dataclass(frozen=True)
class Constraint:
    """A condition on the sizes, checked once they are known (at compile time when they are
    constants, else before each launch): ``expr == 0`` (``kind`` ``"zero"``), ``expr >= 0``
    (``"nonneg"``) or ``expr != 0`` (``"nonzero"``, a divisor).  ``message`` says what is
    required, ``span`` where."""
    expr: AExpr
    message: str
    span: Optional[Span] = None
    kind: str = "zero"

    def violated(self, value: int) -> bool:
        if self.kind == "zero":
            return value != 0
        if self.kind == "nonneg":
            return value < 0
        return value == 0


@dataclass(frozen=True)
class TypedProgram:
    """Types keyed by expression identity; ``loop_vars``, ``iterate_info``, ``static`` and
    ``app_types`` (result type of each application of a function) keyed by the identity of
    the pattern object (a nested pattern such as the ``mapSeq`` of ``mapLcl(mapSeq(id))``
    is applied without a FunCall node of its own)."""
    program: Program
    types: Mapping[int, Type]
    loop_vars: Mapping[int, Var]
    iterate_info: Mapping[int, IterateInfo]
    static: Mapping[int, Mapping[str, object]]
    constraints: Tuple[Constraint, ...]
    size_vars: Tuple[Var, ...]
    app_types: Mapping[int, Type] = field(default_factory=dict)
    #: the first uid the inference's variable supply did not give: the code generator's
    #: fresh variables start there, distinct from the types' (issue 13: no global counter)
    next_uid: int = 1

    def type_of(self, node) -> Type:
        return self.types[id(node)]

    @property
    def result_type(self) -> Type:
        return self.types[id(self.program.body)]


def _err(msg: str, span: Optional[Span]) -> LiftTypeError:
    return LiftTypeError(msg, span)


class _Inferer:
    def __init__(self):
        self.types: Dict[int, Type] = {}
        self.loop_vars: Dict[int, Var] = {}
        self.iterate_info: Dict[int, IterateInfo] = {}
        self.static: Dict[int, Dict[str, object]] = {}
        self.constraints: List[Constraint] = []
        self.app_types: Dict[int, Type] = {}
        self.divisible_by: set = set()   # (n, k): n % k == 0 is required (checked at launch)
        self.spans: List[Optional[Span]] = [None]
        self.vars = A.VarSupply()        # the fresh variables of this run (loop, size, k)

    # ------------------------------------------------------------------ helpers
    @property
    def span(self) -> Optional[Span]:
        for s in reversed(self.spans):
            if s is not None:
                return s
        return None

    def error(self, msg: str) -> LiftTypeError:
        return _err(msg, self.span)

    def resolve(self, e: AExpr, env) -> AExpr:
        """Replace ``len(x)`` variables by the length of ``x``'s type."""
        e = A.to_expr(e)
        m = {}
        for v in A.free_vars(e):
            if v.uid == LEN_UID:
                pname = v.name[4:-1]
                t = env.get(pname)
                if t is None:
                    raise self.error(f"len({pname}): no parameter named {pname} in scope")
                if not isinstance(t, ArrayType):
                    raise self.error(f"len({pname}): {pname} has type {t}, not an array")
                m[v] = t.length
        return A.subst(e, m) if m else e

    def array(self, t: Type, who: str, argno: Optional[int] = None) -> ArrayType:
        if not isinstance(t, ArrayType):
            where = f" (argument {argno})" if argno is not None else ""
            raise self.error(f"{who}: expects an array{where}, got {t}")
        return t

    def regular(self, t: ArrayType, who: str) -> ArrayType:
        if t.dependent:
            raise self.error(f"{who}: expects a regular array, got the position-dependent {t}")
        return t

    def same_len(self, who: str, a: AExpr, b: AExpr, what: str = "lengths"):
        d = A.sub(a, b)
        if d == A.ZERO:
            return
        if isinstance(d, A.Cst):
            raise self.error(f"{who}: {what} differ: {A.to_text(a)} and {A.to_text(b)}")
        raise self.error(f"{who}: cannot show that the {what} {A.to_text(a)} and {A.to_text(b)} are equal")

    def divisible(self, who: str, n: AExpr, k: AExpr):
        r = A.mod(n, k)
        self.divisible_by.add((n, A.to_expr(k)))
        if r == A.ZERO:
            return
        if isinstance(r, A.Cst):
            raise self.error(f"{who}: the length {A.to_text(n)} is not divisible by {A.to_text(k)}")
        self.constraints.append(Constraint(r, f"{who}: the length {A.to_text(n)} must be divisible by "
                                              f"{A.to_text(k)}", self.span))

    def at_least(self, who: str, a: AExpr, b: AExpr, what: str, subject_b: bool = False):
        """Require ``a >= b``: an error now when it is false for constants, else checked
        once the sizes are known (unless provable).  The message shows the failing comparison
        with its subject (the thing ``what`` talks about) first: ``b`` when ``subject_b``."""
        d = A.sub(a, b)
        if isinstance(d, A.Cst):
            if d.value < 0:
                shown = f"{A.to_text(b)} > {A.to_text(a)}" if subject_b else f"{A.to_text(a)} < {A.to_text(b)}"
                raise self.error(f"{who}: {what} ({shown})")
            return
        if A.prove_nonneg(d):
            return
        self.constraints.append(Constraint(d, f"{who}: {what}", self.span, "nonneg"))

    def divisors(self, who: str, e: AExpr, local_vars=()):
        """Every divisor of ``e`` must be non-zero: those over sizes only are checked once the
        sizes are known, the others (over index variables) must be provably non-zero."""
        for node in A.iter_nodes(e):
            if not isinstance(node, (A.Div, A.Mod)):
                continue
            b = node.b
            if isinstance(b, A.Cst):
                continue
            if A.prove_pos(b) or A.prove_lt(b, 0):
                continue
            if any(v in A.free_vars(b) for v in local_vars):
                raise self.error(f"{who}: cannot show that the divisor {A.to_text(b)} is not zero")
            self.constraints.append(Constraint(b, f"{who}: the divisor {A.to_text(b)} must not be zero",
                                               self.span, "nonzero"))

    def times(self, outer: AExpr, inner: AExpr) -> AExpr:
        """``outer * inner``, with ``(n / k) * k = n`` when ``n % k == 0`` is a recorded
        requirement (of a split or asVector, checked once the sizes are known)."""
        if isinstance(outer, A.Div) and outer.b == inner and (outer.a, outer.b) in self.divisible_by:
            return outer.a
        if isinstance(inner, A.Div) and inner.b == outer and (inner.a, inner.b) in self.divisible_by:
            return inner.a
        return A.mul(outer, inner)

    def positive_const(self, who: str, v: AExpr, what: str) -> AExpr:
        if isinstance(v, A.Cst) and v.value <= 0:
            raise self.error(f"{who}: {what} must be positive, got {v.value}")
        return v

    # ------------------------------------------------------------------ expressions
    def expr(self, e: Expr, env) -> Type:
        if isinstance(e, Literal):
            t = e.type
        elif isinstance(e, Param):
            if e.name not in env:
                raise self.error(f"unbound parameter {e.name}")
            t = env[e.name]
        elif isinstance(e, FunCall):
            self.spans.append(e.span)
            try:
                argts = [self.expr(a, env) for a in e.args]
                t = self.fun(e.f, argts, e, env)
            finally:
                self.spans.pop()
        else:
            raise self.error(f"not an expression: {e!r}")
        self.types[id(e)] = t
        return t

    def fun(self, f: FunDecl, argts: List[Type], call: FunCall, env) -> Type:
        t = self._fun(f, argts, call, env)
        self.app_types[id(f)] = t
        return t

    def _fun(self, f: FunDecl, argts: List[Type], call: FunCall, env) -> Type:
        arity = f.arity
        if len(argts) != arity:
            name = getattr(f, "name", type(f).__name__)
            raise self.error(f"{name}: expects {arity} argument(s), got {len(argts)}")
        if isinstance(f, Lambda):
            for p, t in zip(f.params, argts):
                self.types[id(p)] = t
            return self.expr(f.body, extend(env, {p.name: t for p, t in zip(f.params, argts)}))
        if isinstance(f, UserFun):
            for k, (pt, at) in enumerate(zip(f.param_types, argts)):
                if not types_equal(pt, at):
                    raise self.error(f"user function {f.name}: argument {k + 1} has type {at}, expected {pt}")
            return f.ret_type
        if isinstance(f, P.Id):
            t = argts[0]
            if not is_value(t):
                raise self.error(f"id: copies a single value, got {t} (use mapSeq(id) to copy an array)")
            return t
        if isinstance(f, P.MapVec):
            return self.mapvec(f, argts)
        if isinstance(f, P.ADDRESS_PATTERNS):
            return self.fun(f.f, argts, call, env)
        if isinstance(f, P.Map):
            return self.map(f, argts[0], call, env)
        if isinstance(f, P.Reduce):
            return self.reduce(f, argts[0], call, env)
        if isinstance(f, P.Iterate):
            return self.iterate(f, argts[0], call, env)
        if isinstance(f, P.FilterSeq):
            return self.filter_seq(f, argts, call, env)
        if isinstance(f, P.RadixSeq):
            return self.radix_seq(f, argts, call, env)
        if isinstance(f, P.LayoutPattern):
            return self.layout(f, argts, call, env)
        raise self.error(f"unknown function {f!r}")

    # ------------------------------------------------------------------ algorithmic patterns
    def map(self, f: P.Map, t: Type, call: FunCall, env) -> Type:
        if f.parallel and (type(f.dim) is not int or f.dim not in (0, 1, 2)):
            # the parser reads 0, 1 or 2 only; a program built through the Python API
            raise self.error(f"{f.kind}: the dimension must be 0, 1 or 2, got {f.dim!r}")
        at = self.array(t, f.kind)
        k = self.vars.fresh(LOOP_VAR_NAMES[f.kind], 0, A.sub(at.length, 1))
        self.loop_vars[id(f)] = k
        bt = self.fun(f.f, [at.elem_at(k)], call, env)
        return ArrayType(bt, at.length, k)

    def reduce(self, f: P.Reduce, t: Type, call: FunCall, env) -> Type:
        at = self.array(t, f.kind)
        it = self.expr(f.init, env)
        acc = _accumulator_type(f.f)
        if isinstance(f.init, Literal) and acc is not None and not types_equal(it, acc):
            # the initial value is of the accumulator's type T (``reduce: ((T, T) -> T, T, [T]n)``):
            # a literal that is exactly a value of T stands for it, as C's initialisation
            # converts it -- an ``int`` literal for a ``float``, ``double``, ``long``, ``uint`` or
            # ``char`` accumulator, a ``float`` one for a ``double`` (the language has no literals
            # of the other types)
            if _literal_converts(f.init, acc):
                it = acc
                self.types[id(f.init)] = it
            else:
                inexact = _inexact_float(f.init, acc)
                if inexact is not None:
                    raise _err(f"{f.kind}: the initial value {inexact[0]} is not a {acc} value (as a {acc} "
                               f"it would be {inexact[1]}); write the {acc} literal you mean",
                               f.init.span or self.span)
        if not is_value(it):
            raise self.error(f"{f.kind}: the initial value must be a scalar, vector or tuple, got {it}")
        k = self.vars.fresh(LOOP_VAR_NAMES[f.kind], 0, A.sub(at.length, 1))
        self.loop_vars[id(f)] = k
        if f.f.arity != 2:
            raise self.error(f"{f.kind}: the function must take 2 arguments (accumulator, element)")
        rt = self.fun(f.f, [it, at.elem_at(k)], call, env)
        if not types_equal(rt, it):
            raise self.error(f"{f.kind}: the function returns {rt} but the accumulator has type {it}")
        if f.kind == "scanSeq":
            # the accumulator before each element: an exclusive scan, one value per element
            return ArrayType(it, at.length)
        return ArrayType(it, 1)

    def filter_seq(self, f: P.FilterSeq, argts: List[Type], call: FunCall, env) -> Type:
        """``filterSeq(p, v)(xs, slots)``: ``[s]_m, [u]_k -> [t]_k`` (the values ``v(x)`` of ``k``
        elements of ``xs``, in order: the predicate decides which, the length of ``slots`` how
        many)."""
        at = self.array(argts[0], "filterSeq", 1)
        st = self.array(argts[1], "filterSeq", 2)
        k = self.vars.fresh(LOOP_VAR_NAMES["filterSeq"], 0, A.sub(at.length, 1))
        self.loop_vars[id(f)] = k
        if f.f.arity != 1:
            raise self.error("filterSeq: the predicate must take 1 argument (the element)")
        elem = at.elem_at(k)
        if not is_value(elem) or k in type_free_vars(elem):
            raise self.error(f"filterSeq: the elements must be scalars, vectors or tuples, got {elem}")
        rt = self.fun(f.f, [elem], call, env)
        if rt != ScalarType("bool"):
            raise self.error(f"filterSeq: the predicate must return a bool, got {rt}")
        if f.value.arity != 1:
            raise self.error("filterSeq: the value function must take 1 argument (the element)")
        vt = self.fun(f.value, [elem], call, env)
        if not is_value(vt):
            raise self.error(f"filterSeq: the values kept must be scalars, vectors or tuples, got {vt}")
        if st.dependent:
            raise self.error(f"filterSeq: the slots must be a regular array, got the position-dependent {st}")
        return ArrayType(vt, st.length)

    def radix_seq(self, f: P.RadixSeq, argts: List[Type], call: FunCall, env) -> Type:
        """``radixHistSeq(b, f)(xs)``: ``[t]_m -> [int]_{2^b}``; ``radixRankSeq(b, f)(xs, starts)``:
        ``[t]_m, [int]_{2^b} -> [int]_m``, for a digit function ``f: t -> int`` and
        ``1 <= b <= 8``."""
        at = self.array(argts[0], f.name, 1)
        k = self.vars.fresh(LOOP_VAR_NAMES[f.name], 0, A.sub(at.length, 1))
        self.loop_vars[id(f)] = k
        if not 1 <= f.bits <= 8:
            raise self.error(f"{f.name}: a digit has 1 to 8 bits, got {f.bits}")
        if f.f.arity != 1:
            raise self.error(f"{f.name}: the digit function must take 1 argument (the element)")
        elem = at.elem_at(k)
        if not is_value(elem) or k in type_free_vars(elem):
            raise self.error(f"{f.name}: the elements must be scalars, vectors or tuples, got {elem}")
        rt = self.fun(f.f, [elem], call, env)
        if rt != ScalarType("int"):
            raise self.error(f"{f.name}: the digit function must return an int, got {rt}")
        size = A.cst(1 << f.bits)
        if not f.rank:
            return ArrayType(ScalarType("int"), size)
        st = self.array(argts[1], f.name, 2)
        if st.dependent or st.elem != ScalarType("int"):
            raise self.error(f"{f.name}: the starts must be a regular array of ints, got {st}")
        self.same_len(f.name, st.length, size, "lengths (the starts, one a digit)")
        return ArrayType(ScalarType("int"), at.length)

    def iterate(self, f: P.Iterate, t: Type, call: FunCall, env) -> Type:
        at = self.regular(self.array(t, "iterate"), "iterate")
        n = self.resolve(f.n, env)
        if not isinstance(n, A.Cst) or n.value < 0:
            raise self.error(f"iterate: the number of iterations must be a constant natural, got {A.to_text(n)}")
        k = n.value
        if k > INT_MAX:
            raise self.error(f"iterate: {k} iterations, more than {INT_MAX} (the loop counter is an int)")
        self.static[id(f)] = {"n": k}
        probe = A.Var("size", A.Cst(0), None, -8)
        bt = self.fun(f.f, [ArrayType(at.elem, probe)], call, env)
        bt = self.array(bt, "iterate", None)
        if not types_equal(bt.elem, at.elem) or bt.dependent:
            raise self.error(f"iterate: the body must map [{at.elem}]n to [{at.elem}]m, got {bt}")
        step = bt.length
        if step == probe:
            self.iterate_info[id(f)] = IterateInfo(None, step, Repeated(at.length, k + 1))
            if k > 0:
                self.fun(f.f, [at], call, env)
            return at
        if k > MAX_ITERATE_UNROLL:
            raise self.error(f"iterate: the body changes the length, so the lengths of its {k} iterations are "
                             f"computed at compile time: at most {MAX_ITERATE_UNROLL} (the Lift backend's "
                             f"limit, LIFT_MAX_ITERATE_UNROLL)")
        lengths = [at.length]
        for _ in range(k):
            lengths.append(A.subst(step, {probe: lengths[-1]}))
        body_lengths = lengths[:-1] if k > 0 else lengths
        lo, hi = _extremes(body_lengths)
        size = self.vars.fresh("size", lo if lo is not None else 0, hi) if hi is not None else \
            A.Var("size", A.Cst(0), None, self.vars.uid())
        real_step = A.subst(step, {probe: size})
        self.iterate_info[id(f)] = IterateInfo(size, real_step, tuple(lengths))
        if k > 0:
            before = len(self.constraints)
            self.fun(f.f, [ArrayType(at.elem, size)], call, env)
            self.iteration_constraints(size, body_lengths, before)
            for i, length in enumerate(lengths[1:], 1):
                self.at_least("iterate", length, A.ONE,
                              f"iteration {i} of {k} makes the array empty: the lengths must stay at least 1")
        return ArrayType(at.elem, lengths[-1])

    def iteration_constraints(self, size: A.Var, body_lengths, before: int) -> None:
        """The constraints the body of an iterate put on its length variable ``size`` (``split``
        divisibility, bounds), checked for the length of each iteration: now when it is a
        constant, else with the sizes at launch."""
        new = self.constraints[before:]
        del self.constraints[before:]
        for c in new:
            if size not in A.free_vars(c.expr):
                self.constraints.append(c)
                continue
            for i, length in enumerate(body_lengths, 1):
                e = A.subst(c.expr, {size: length})
                msg = c.message.replace(f"the length {A.to_text(size)} ", f"the length {A.to_text(length)} ")
                msg += f" (in iteration {i} of iterate)"
                if isinstance(e, A.Cst):
                    if c.violated(e.value):
                        raise LiftTypeError(msg.replace("must be divisible", "is not divisible"), c.span or self.span)
                    continue
                self.constraints.append(Constraint(e, msg, c.span, c.kind))

    def mapvec(self, f: P.MapVec, argts: List[Type]) -> Type:
        width = None
        scal = []
        for k, t in enumerate(argts):
            if not isinstance(t, VectorType):
                raise self.error(f"mapVec: argument {k + 1} must be a vector, got {t}")
            if width is not None and t.width != width:
                raise self.error(f"mapVec: vector widths differ: {width} and {t.width}")
            width = t.width
            scal.append(t.elem)
        inner = f.f
        if isinstance(inner, P.Id):
            return argts[0]
        if not isinstance(inner, UserFun):
            raise self.error("mapVec: expects a user function")
        for k, (pt, st) in enumerate(zip(inner.param_types, scal)):
            if pt != st:
                raise self.error(f"mapVec({inner.name}): argument {k + 1} has element type {st}, expected {pt}")
        if not isinstance(inner.ret_type, ScalarType):
            raise self.error(f"mapVec({inner.name}): the function must return a scalar")
        if inner.ret_type.name == "bool":
            raise self.error(f"mapVec({inner.name}): the function returns a bool, and OpenCL has no "
                             f"bool vectors (return a char or an int)")
        return VectorType(inner.ret_type, width)

    def resolve_index_fun(self, f: P.IndexFun, env) -> P.IndexFun:
        """``f`` with its ``len(x)`` replaced by the lengths (``f`` itself when it has none)."""
        if isinstance(f, P.IndexLambda):
            body = self.resolve(f.body, env)
            return f if body == f.body else P.IndexLambda(f.param, body)
        if isinstance(f, P.ReorderStride):
            s = self.resolve(f.stride, env)
            return f if s == f.stride else P.ReorderStride(s)
        if isinstance(f, P.TransposeIdx):
            n, m = self.resolve(f.n, env), self.resolve(f.m, env)
            return f if (n, m) == (f.n, f.m) else P.TransposeIdx(n, m)
        return f

    def index_function(self, who: str, f: P.IndexFun, n: AExpr):
        """Size requirements of the index function of gather/scatter over ``n`` elements: the
        built-in permutations are permutations under them (no run-time check is then needed,
        see views.index_fun_in_range); user functions get theirs from the code generator."""
        if isinstance(f, P.ReorderStride):
            s = f.stride
            self.at_least(f"{who}(reorderStride)", s, A.ONE, "the stride must be positive")
            # with s >= 1 dividing n >= 1, the chunk n / s is at least 1: no zero divisor
            self.divisible(f"{who}(reorderStride({A.to_text(s)}))", n, s)
        elif isinstance(f, P.TransposeIdx):
            self.at_least(f"{who}(transpose)", f.n, A.ONE, "the number of rows must be positive")
            self.at_least(f"{who}(transpose)", f.m, A.ONE, "the number of columns must be positive")
            d = A.sub(n, A.mul(f.n, f.m))
            msg = (f"{who}(transpose({A.to_text(f.n)}, {A.to_text(f.m)})): the length {A.to_text(n)} "
                   f"must be {A.to_text(A.mul(f.n, f.m))}")
            if isinstance(d, A.Cst):
                if d.value != 0:
                    raise self.error(msg)
            elif d != A.ZERO:
                self.constraints.append(Constraint(d, msg, self.span))
        elif isinstance(f, P.IndexLambda):
            # the index variable shown as the user named it
            k = self.vars.fresh(getattr(f.param, "name", None) or "k", 0, A.sub(n, 1))
            self.divisors(who, f.apply(k, n), (k,))

    # ------------------------------------------------------------------ layout patterns
    def layout(self, f: P.LayoutPattern, argts: List[Type], call: FunCall, env) -> Type:
        st = self.static.setdefault(id(f), {})
        if isinstance(f, P.Split):
            at = self.regular(self.array(argts[0], "split"), f"split({A.to_text(f.n)})")
            n = self.positive_const("split", self.resolve(f.n, env), "the chunk size")
            self.at_least(f"split({A.to_text(n)})", n, A.ONE, "the chunk size must be positive")
            st["n"] = n
            self.divisible(f"split({A.to_text(n)})", at.length, n)
            return ArrayType(ArrayType(at.elem, n), A.div(at.length, n))
        if isinstance(f, P.Join):
            at = self.array(argts[0], "join")
            k = at.index_var or self.vars.fresh("k", 0, A.sub(at.length, 1))
            inner = self.array(at.elem_at(k), "join")
            if inner.dependent or k in type_free_vars(inner.elem):
                raise self.error(f"join: cannot flatten {at}: the element type depends on the position")
            if A.contains(inner.length, k):
                return ArrayType(inner.elem, A.sum_over(k, 0, at.length, inner.length))
            return ArrayType(inner.elem, self.times(at.length, inner.length))
        if isinstance(f, (P.Gather, P.Scatter)):
            at = self.array(argts[0], f.name)
            if at.dependent:
                raise self.error(f"{f.name}: cannot permute the position-dependent array {at}")
            idx = self.resolve_index_fun(f.idx, env)
            if idx is not f.idx:
                st["idx"] = idx
            self.index_function(f.name, idx, at.length)
            return at
        if isinstance(f, P.Zip):
            ats = [self.array(t, "zip", k + 1) for k, t in enumerate(argts)]
            for a in ats[1:]:
                self.same_len("zip", ats[0].length, a.length, "array lengths")
            k = self.vars.fresh("k", 0, A.sub(ats[0].length, 1))
            elems = tuple(a.elem_at(k) for a in ats)
            return ArrayType(TupleType(elems), ats[0].length, k)
        if isinstance(f, P.Get):
            t = argts[0]
            if not isinstance(t, TupleType):
                raise self.error(f"get({f.i}): expects a tuple, got {t}")
            if not 0 <= f.i < len(t.elems):
                raise self.error(f"get({f.i}): the tuple {t} has {len(t.elems)} components")
            return t.elems[f.i]
        if isinstance(f, P.Slide):
            at = self.regular(self.array(argts[0], "slide"), "slide")
            size = self.positive_const("slide", self.resolve(f.size, env), "the window size")
            step = self.positive_const("slide", self.resolve(f.step, env), "the step")
            st.update(size=size, step=step)
            who = f"slide({A.to_text(size)}, {A.to_text(step)})"
            self.at_least(who, size, A.ONE, "the window size must be positive")
            self.at_least(who, step, A.ONE, "the step must be positive")
            count = A.add(A.div(A.sub(at.length, size), step), 1)
            if A.prove_lt(at.length, size):
                raise self.error(f"{who}: the array of length "
                                 f"{A.to_text(at.length)} is shorter than the window")
            self.at_least(who, at.length, size, "the array must not be shorter than the window")
            return ArrayType(ArrayType(at.elem, size), count)
        if isinstance(f, P.Pad):
            at = self.regular(self.array(argts[0], "pad"), "pad")
            l = self.resolve(f.left, env)
            r = self.resolve(f.right, env)
            st.update(left=l, right=r)
            if isinstance(f.boundary, Literal):
                inexact = None if types_equal(f.boundary.type, at.elem) else _inexact_float(f.boundary, at.elem)
                if inexact is not None:
                    raise _err(f"pad: the boundary value {inexact[0]} is not a {at.elem} value (as a "
                               f"{at.elem} it would be {inexact[1]}); write the {at.elem} literal you mean",
                               f.boundary.span or self.span)
                if not types_equal(f.boundary.type, at.elem) and \
                        not _literal_converts(f.boundary, at.elem):
                    v = _int_literal_value(f.boundary)
                    if v is not None and isinstance(at.elem, ScalarType) and at.elem.name in _INT_RANGES:
                        lo, hi = _INT_RANGES[at.elem.name]
                        raise _err(f"pad: the boundary value {v} is out of range for the elements of "
                                   f"type {at.elem} ({lo} .. {hi})", f.boundary.span or self.span)
                    raise _err(f"pad: the boundary value has type {f.boundary.type}, "
                               f"the elements have type {at.elem}", f.boundary.span or self.span)
            elif f.boundary not in P.BOUNDARIES:
                raise self.error(f"pad: unknown boundary {f.boundary!r}")
            who = f"pad({A.to_text(l)}, {A.to_text(r)})"
            self.at_least(who, l, A.ZERO, "the left padding must not be negative")
            self.at_least(who, r, A.ZERO, "the right padding must not be negative")
            if f.boundary in ("mirror", "wrap"):
                self.at_least(who, at.length, l, f"{f.boundary}: the left padding must not exceed "
                                                 f"the length {A.to_text(at.length)}", subject_b=True)
                self.at_least(who, at.length, r, f"{f.boundary}: the right padding must not exceed "
                                                 f"the length {A.to_text(at.length)}", subject_b=True)
            elif f.boundary == "clamp":
                self.at_least(who, at.length, A.ONE, "clamp: the array must not be empty")
            return ArrayType(at.elem, A.add(at.length, l, r))
        if isinstance(f, P.Transpose):
            at = self.regular(self.array(argts[0], "transpose"), "transpose")
            inner = self.regular(self.array(at.elem, "transpose"), "transpose")
            return ArrayType(ArrayType(inner.elem, at.length), inner.length)
        if isinstance(f, P.AsVector):
            at = self.regular(self.array(argts[0], "asVector"), "asVector")
            if not isinstance(at.elem, ScalarType):
                raise self.error(f"asVector({f.width}): expects an array of scalars, got {at}")
            if at.elem.name == "bool":
                raise self.error(f"asVector({f.width}): OpenCL has no bool vectors (use char or int "
                                 f"elements)")
            self.divisible(f"asVector({f.width})", at.length, A.Cst(f.width))
            return ArrayType(VectorType(at.elem, f.width), A.div(at.length, f.width))
        if isinstance(f, P.AsScalar):
            at = self.regular(self.array(argts[0], "asScalar"), "asScalar")
            if not isinstance(at.elem, VectorType):
                raise self.error(f"asScalar: expects an array of vectors, got {at}")
            return ArrayType(at.elem.elem, self.times(at.length, A.Cst(at.elem.width)))
        if isinstance(f, P.Slice):
            at = self.regular(self.array(argts[0], "slice"), "slice")
            start = self.resolve(f.start, env)
            stop = self.resolve(f.stop, env)
            st.update(start=start, stop=stop)
            if A.prove_le(stop, start):
                raise self.error(f"slice: the end {A.to_text(stop)} is not after the start {A.to_text(start)} "
                                 f"(a slice has at least one element: arrays are never empty)")
            if A.prove_lt(at.length, stop):
                raise self.error(f"slice: the end {A.to_text(stop)} is beyond the length {A.to_text(at.length)}")
            self.at_least("slice", start, A.ZERO, f"the start {A.to_text(start)} must not be negative")
            self.at_least("slice", stop, A.add(start, A.Cst(1)),
                          f"the end {A.to_text(stop)} must be after the start {A.to_text(start)} "
                          f"(a slice has at least one element)")
            self.at_least("slice", at.length, stop, f"the end {A.to_text(stop)} must not be beyond the "
                                                    f"length {A.to_text(at.length)}", subject_b=True)
            return ArrayType(at.elem, A.sub(stop, start))
        if isinstance(f, P.Generate):
            n = self.resolve(f.n, env)
            st["n"] = n
            self.at_least(f"generate({A.to_text(n)})", n, A.Cst(1),
                          "the length must be at least 1 (arrays are never empty)")
            return ArrayType(Int, n)
        if isinstance(f, P.FailIf):
            if argts[0] != ScalarType("bool"):
                raise self.error(f"failIf: the condition must be a bool, got {argts[0]}")
            if not is_value(argts[1]):
                raise self.error(f"failIf: the value must be a scalar, vector or tuple, got {argts[1]}")
            return argts[1]
        if isinstance(f, (P.At, P.AtIf)):
            vt = self.regular(self.array(argts[0], f.name, 1), f.name)
            if argts[1] not in (Int, ScalarType("long")):
                raise self.error(f"{f.name}: the index must be an int or a long, got {argts[1]}")
            if isinstance(f, P.AtIf):
                if argts[2] != ScalarType("bool"):
                    raise self.error(f"arrayAccessIf: the condition must be a bool, got {argts[2]}")
                if not isinstance(vt.elem, ScalarType):
                    raise self.error(f"arrayAccessIf: the elements must be scalars (the value where "
                                     f"the condition does not hold is their zero), got {vt.elem}")
            return vt.elem
        if isinstance(f, P.GatherIdx):
            it = self.array(argts[0], "gatherIdx", 1)
            vt = self.regular(self.array(argts[1], "gatherIdx", 2), "gatherIdx")
            if it.elem != Int:
                raise self.error(f"gatherIdx: the index array must have type [int]n, got {it}")
            return ArrayType(vt.elem, it.length)
        if isinstance(f, P.ScatterIdx):
            it = self.array(argts[0], f.name, 1)
            vt = self.regular(self.array(argts[-1], f.name, len(argts)), f.name)
            if it.elem not in (Int, ScalarType("long")):
                raise self.error(f"{f.name}: the index array must have type [int]n or [long]n, got {it}")
            # (rows of two splitOffsets of the same offsets: equal lengths, printed alike)
            if not A.prove_eq(it.length, vt.length) and A.to_text(it.length) != A.to_text(vt.length):
                raise self.error(f"{f.name}: the index array has {A.to_text(it.length)} elements and the "
                                 f"data {A.to_text(vt.length)}: one index per element")
            if f.mode == "max":
                if vt.elem != Int:
                    raise self.error(f"{f.name}: the claims are ints ([int]n), got {vt}")
                return ArrayType(Int, f.length)
            if f.mode == "last":
                wt = self.array(argts[1], f.name, 2)
                if wt.elem != Int:
                    raise self.error(f"{f.name}: the claims array must have type [int]m, got {wt}")
                return ArrayType(vt.elem, wt.length)
            return vt
        if isinstance(f, P.SplitOffsets):
            ot = self.array(argts[0], "splitOffsets", 1)
            vt = self.regular(self.array(argts[1], "splitOffsets", 2), "splitOffsets")
            if ot.elem != Int:
                raise self.error(f"splitOffsets: the offsets must have type [int]n, got {ot}")
            if A.prove_lt(ot.length, 1):
                raise self.error("splitOffsets: the offsets array must not be empty")
            offs = call.args[0]
            name = offs.name if isinstance(offs, Param) else "offsets"
            ref = ArrayRef(id(offs), name)
            rows = A.sub(ot.length, 1)
            k = self.vars.fresh("k", 0, A.sub(rows, 1))
            length = A.sub(A.Lookup(ref, name, A.add(k, 1), 0, vt.length),
                           A.Lookup(ref, name, k, 0, vt.length))
            st["ref"] = ref
            return ArrayType(ArrayType(vt.elem, length), rows, k)
        if isinstance(f, P.Partition):
            at = self.regular(self.array(argts[0], "partition"), "partition")
            n = self.resolve(f.n, env)
            st["n"] = n
            self.at_least("partition", n, A.ZERO, "the number of rows must not be negative")
            k = self.vars.fresh("k", 0, A.sub(n, 1))
            length = self.resolve(f.f.apply(k, n), env)
            self.divisors("partition", length, (k,))
            if not A.prove_nonneg(length):
                raise self.error(f"partition: cannot show that the row lengths {A.to_text(length)} "
                                 f"are not negative")
            total = A.sum_over(k, 0, n, length)
            d = A.sub(total, at.length)
            if isinstance(d, A.Cst) and d.value != 0:
                raise self.error(f"partition: the row lengths add up to {A.to_text(total)}, "
                                 f"the array has length {A.to_text(at.length)}")
            if d != A.ZERO:
                self.constraints.append(Constraint(d, f"partition: the row lengths must add up to "
                                                      f"{A.to_text(at.length)}", self.span))
            return ArrayType(ArrayType(at.elem, length), n, k)
        raise self.error(f"unknown layout pattern {f!r}")


@dataclass(frozen=True)
class ArrayRef:
    """Reference from a ``Lookup`` in a type to the expression holding the array."""
    node_id: int
    name: str

    def __repr__(self):
        return f"ArrayRef({self.name}#{self.node_id})"


def _extremes(vals: List[AExpr]):
    """Symbolic minimum and maximum of a list of lengths (``None`` when not comparable)."""
    lo = hi = vals[0]
    for v in vals[1:]:
        if lo is not None:
            lo = v if A.prove_le(v, lo) else (lo if A.prove_le(lo, v) else None)
        if hi is not None:
            hi = v if A.prove_le(hi, v) else (hi if A.prove_le(v, hi) else None)
    return lo, hi


def program_size_vars(program: Program) -> Tuple[Var, ...]:
    """The size variables of ``program``: those of its parameter types, then those used only
    in its body (``split(K)``), each by name."""
    seen = {}
    for p in program.params:
        if p.type is None:
            continue
        for v in sorted(type_free_vars(p.type), key=lambda v: v.name):
            seen.setdefault(v.name, v)
    for v in sorted(_body_size_vars(program.body), key=lambda v: v.name):
        seen.setdefault(v.name, v)
    return tuple(seen.values())


def _body_size_vars(body) -> set:
    """The size variables (uid 0) of the arithmetic in the patterns of ``body``."""
    import dataclasses
    from ..ir.expr import walk
    out = set()

    def scan(x, depth=0):
        if isinstance(x, A.Expr):
            out.update(v for v in A.free_vars(x) if v.uid == 0 and v.opaque)
        elif isinstance(x, tuple):
            for y in x:
                scan(y, depth)
        elif isinstance(x, P.IndexFun) and dataclasses.is_dataclass(x) and depth < 8:
            for fname in field_names(x):
                scan(getattr(x, fname), depth + 1)

    for node in walk(body):
        if isinstance(node, (UserFun, Param, Literal)) or not dataclasses.is_dataclass(node):
            continue
        for fname in field_names(node):
            v = getattr(node, fname)
            if not isinstance(v, (Expr, FunDecl)):
                scan(v)
    return out


def infer_program(program: Program) -> TypedProgram:
    """Infer the types of every expression of ``program`` (a fresh copy of it is annotated),
    on a big stack (see :mod:`lift_backend.limits`)."""
    from ..limits import run_deep
    return run_deep(lambda: _infer_program(program))


def _rows_not_negative(inf: "_Inferer", t: Type, name: str) -> None:
    """The row lengths of a position-dependent array parameter (``[i -> [float](3 - i)]N``)
    must not be negative for any row: required as ``partition``'s are, checked for every row
    once the sizes are known where it cannot be shown (a negative row made the input-length
    check accept too few elements, and the kernel read past the buffer)."""
    if isinstance(t, ArrayType):
        if any(not v.opaque for v in A.free_vars(t.length)):
            inf.at_least(f"parameter {name}", t.length, A.ZERO,
                         "a row length must not be negative")
        _rows_not_negative(inf, t.elem, name)
    elif isinstance(t, TupleType):
        for e in t.elems:
            _rows_not_negative(inf, e, name)


def _infer_program(program: Program) -> TypedProgram:
    program = freshen(program)
    inf = _Inferer()
    inf.spans.append(program.span)
    env = {}
    for p in program.params:
        if p.type is None:
            raise LiftTypeError(f"program {program.name}: parameter {p.name} has no type", program.span)
        env[p.name] = p.type
        inf.types[id(p)] = p.type
        _rows_not_negative(inf, p.type, p.name)
    inf.expr(program.body, env)
    return TypedProgram(
        program=program,
        types=MappingProxyType(inf.types),
        loop_vars=MappingProxyType(inf.loop_vars),
        iterate_info=MappingProxyType(inf.iterate_info),
        static=MappingProxyType({k: MappingProxyType(v) for k, v in inf.static.items()}),
        constraints=tuple(inf.constraints),
        size_vars=program_size_vars(program),
        app_types=MappingProxyType(inf.app_types),
        next_uid=inf.vars.next_uid,
    )


def substitute_sizes(program: Program, sizes: Mapping[str, int]) -> Program:
    """Replace size variables of the parameter types by constants."""
    if not sizes:
        return program
    vs = {v: A.Cst(int(sizes[v.name])) for v in program_size_vars(program) if v.name in sizes}
    unknown = set(sizes) - {v.name for v in program_size_vars(program)}
    if unknown:
        raise LiftTypeError(f"program {program.name}: unknown size(s) {', '.join(sorted(unknown))}",
                            program.span)
    return _subst_program(program, vs)


def _subst_program(program: Program, m) -> Program:
    import dataclasses

    def go(node):
        if isinstance(node, Param) and node.type is not None:
            return Param(node.name, subst_type(node.type, m))
        if not dataclasses.is_dataclass(node) or isinstance(node, (UserFun, type)):
            return node
        if not isinstance(node, (Expr, FunDecl, Program)):
            return node
        if isinstance(node, FunCall) and node.span is not None:
            # a size that makes a divisor of the call's sizes or index functions zero: located
            # at the innermost call (the pattern whose expression it is)
            try:
                return fields(node)
            except ZeroDivisionError:
                shown = ", ".join(f"{v.name}={c.value}" for v, c in sorted(m.items(), key=lambda kv: kv[0].name))
                raise LiftTypeError(f"division by zero in a size or index expression of this pattern "
                                    f"(with {shown})", node.span) from None
        return fields(node)

    def fields(node):
        changes = {}
        for fname in field_names(node):
            v = getattr(node, fname)
            if isinstance(v, (Expr, FunDecl)):
                changes[fname] = go(v)
            elif isinstance(v, tuple) and any(isinstance(x, (Expr, FunDecl)) for x in v):
                changes[fname] = tuple(go(x) for x in v)
            elif isinstance(v, A.Expr):
                changes[fname] = A.subst(v, m)
            elif isinstance(v, P.IndexLambda):
                changes[fname] = P.IndexLambda(v.param, A.subst(v.body, m))
            elif isinstance(v, P.ReorderStride):
                changes[fname] = P.ReorderStride(A.subst(v.stride, m))
            elif isinstance(v, P.TransposeIdx):
                changes[fname] = P.TransposeIdx(A.subst(v.n, m), A.subst(v.m, m))
        return dataclasses.replace(node, **changes)

    return go(program)


#: the values of the integer element types an ``int`` literal may stand for (C converts it)
_INT_RANGES = {"long": (-2**63, 2**63 - 1), "uint": (0, 2**32 - 1), "char": (-128, 127)}


def _literal_converts(lit: Literal, t: Type) -> bool:
    """Whether the literal ``lit`` (the language writes ``int``, ``float`` and ``double``
    literals only) is also a value of the scalar type ``t`` that C converts it to exactly: an
    ``int`` literal for a ``long``, ``uint`` or ``char`` (within its range: OpenCL's ``char`` is
    signed, -128 .. 127) or for a ``float`` or ``double`` that holds it exactly (every ``int``
    is a ``double``; a ``float`` holds the integers up to 2^24 and some beyond), a ``float``
    literal for a ``double`` (``pad(1, 1, 5)`` of a ``[long]N``, ``reduceSeq(add, 0)`` of
    floats)."""
    if not isinstance(t, ScalarType) or not isinstance(lit.type, ScalarType):
        return False
    if lit.type.name == "int" and t.name in _INT_RANGES:
        v = _int_literal_value(lit)
        lo, hi = _INT_RANGES[t.name]
        return v is not None and lo <= v <= hi
    if lit.type.name == "int" and t.name in ("float", "double"):
        return _int_literal_value(lit) is not None and _inexact_float(lit, t) is None
    return lit.type.name == "float" and t.name == "double"


def _inexact_float(lit: Literal, t: Type) -> Optional[Tuple[int, str]]:
    """For an ``int`` literal that a ``float`` (``t``) does not hold exactly, its value and the
    ``float`` C would round it to (``16777217`` becomes ``16777216.0f``); ``None`` otherwise."""
    if not (isinstance(t, ScalarType) and t.name == "float"):
        return None
    v = _int_literal_value(lit)
    if v is None:
        return None
    r = int(struct.unpack("f", struct.pack("f", float(v)))[0])
    return None if r == v else (v, f"{r}.0f")


def _accumulator_type(f: FunDecl) -> Optional[Type]:
    """The accumulator type a reduction's function declares: a user function's first parameter,
    or for ``\\acc x -> ... g(.., acc, ..) ...`` the parameter of the (first) user function
    ``g`` that takes ``acc`` as it is."""
    if isinstance(f, P.ADDRESS_PATTERNS):
        return _accumulator_type(f.f)
    if isinstance(f, UserFun):
        return f.param_types[0] if f.param_types else None
    if not (isinstance(f, Lambda) and f.params):
        return None
    acc = f.params[0].name

    def find(e: Expr) -> Optional[Type]:
        # the calls of the body, inner ones first (``g(g(acc, x), x)``), not under a lambda
        # that binds the name again
        if not isinstance(e, FunCall):
            return None
        for a in e.args:
            t = find(a)
            if t is not None:
                return t
        g = e.f
        while isinstance(g, P.ADDRESS_PATTERNS):
            g = g.f
        if isinstance(g, UserFun):
            for a, pt in zip(e.args, g.param_types):
                if isinstance(a, Param) and a.name == acc:
                    return pt
        if isinstance(g, Lambda) and all(p.name != acc for p in g.params):
            return find(g.body)
        return None

    return find(f.body)


def _int_literal_value(lit: Literal) -> Optional[int]:
    """The value of an ``int`` literal (``-2147483648`` is written ``(-2147483647 - 1)``)."""
    if not isinstance(lit.type, ScalarType) or lit.type.name != "int":
        return None
    text = lit.value.strip()
    m = re.fullmatch(r"\(\s*(-?[0-9]+)\s*-\s*([0-9]+)\s*\)", text)
    if m:
        return int(m.group(1)) - int(m.group(2))
    try:
        return int(text.strip("()").rstrip("uUlL"), 0)
    except ValueError:
        return None
