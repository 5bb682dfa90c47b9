"""Memory allocation (Lift paper §5.2).

Only user-function results get memory; data-layout patterns allocate nothing (they become
views).  A map's result is the memory of its function's user-function results: it is
allocated once, at the outermost map call whose result is not written into an enclosing
destination, with the size given by the map's type.  Private and local memory is not
replicated across the work-items/work-groups that own a copy each:

============  =================================================
address space  enclosing maps whose length multiplies the size
============  =================================================
global         all maps (mapGlb, mapWrg, mapLcl, mapSeq)
local          mapLcl, mapSeq (not mapWrg: one copy per group)
private        mapSeq only (one copy per work-item)
============  =================================================

``reduceSeq`` accumulates in a private variable; ``iterate(n)`` with ``n >= 2`` gets a
second buffer and swaps it with its input (double buffering, Figure 7).
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Dict, List, Mapping, Optional, Tuple

from .. import arith as A
from ..arith import Expr as AExpr, Var
from ..errors import LiftCompileError, Span
from ..ir import patterns as P
from ..ir.expr import Expr, FunCall, FunDecl, Lambda, Literal, Param, UserFun
from ..types import (ArrayType, ScalarType, TupleType, Type, VectorType, base_scalar, is_value,
                     size_in_elements)
from ..types.infer import TypedProgram
from ..types.types import flat_offset
from .address_space import GLOBAL, LOCAL, PRIVATE, AddressSpace

INVERTIBLE_LAYOUTS = (P.Join, P.Split, P.Scatter, P.ScatterIdx, P.Transpose, P.AsVector, P.AsScalar)



def _layout_only(f) -> Optional[str]:
    """The name of the data-layout pattern that a map's function ``f`` only applies to its
    element (``split`` for ``map(split(4))``, ``map(\\r -> transpose $ r)``, ``map(map(join))``),
    else None."""
    if isinstance(f, P.LayoutPattern):
        return f.name
    if isinstance(f, P.Map) and f.kind == "map":
        return _layout_only(f.f)
    if isinstance(f, Lambda) and len(f.params) == 1:
        e, name = f.body, None
        while isinstance(e, FunCall) and isinstance(e.f, P.LayoutPattern) and len(e.args) == 1:
            name, e = e.f.name, e.args[0]
        if name is not None and isinstance(e, Param) and e.name == f.params[0].name:
            return name
    return None

class Memory:
    """A piece of memory of the kernel (identity semantics).

    ``kind``: ``input`` (kernel parameter, read-only), ``output`` (kernel result),
    ``scalar`` (scalar kernel parameter), ``temp`` (global temporary passed by the host,
    local array or private array), ``local_arg`` (local buffer whose size is only known
    at launch), ``variable`` (a private scalar/vector/tuple variable), ``pointer``
    (the swapped pointers of ``iterate``).
    """

    __slots__ = ("name", "space", "elem", "size", "kind", "value_type")

    def __init__(self, name: str, space: AddressSpace, elem: Type, size: AExpr, kind: str,
                 value_type: Optional[Type] = None):
        self.name = name
        self.space = space
        self.elem = elem
        self.size = A.to_expr(size)
        self.kind = kind
        self.value_type = value_type

    def __repr__(self):
        return f"Memory({self.name})"

    def describe(self) -> str:
        return f"{self.space} {self.name}: {self.elem}[{A.to_text(self.size)}] ({self.kind})"


@dataclass(frozen=True)
class OuterDim:
    """An enclosing map loop at an allocation: its index variable, its length and whether
    the memory has one copy per iteration (``replicated``)."""
    var: Var
    length: AExpr
    replicated: bool


@dataclass(frozen=True)
class IterateBuffers:
    src: Memory      # pointer variables swapped after each iteration
    dst: Memory
    first_src: Memory  # the input buffer (reused as the second buffer)
    first_dst: Memory  # the buffer allocated for the iterate
    src_base: AExpr    # offset of this work-item's part in the buffers
    dst_base: AExpr


@dataclass(frozen=True)
class Allocation:
    memories: Tuple[Memory, ...]
    params: Mapping[str, Memory]
    output: Memory
    of_call: Mapping[int, Memory]
    outer_of_call: Mapping[int, Tuple[OuterDim, ...]]
    acc_of: Mapping[int, Memory]
    iterate: Mapping[int, IterateBuffers]
    inline_calls: frozenset

    def describe(self) -> str:
        return "\n".join(m.describe() for m in self.memories)


@dataclass(frozen=True)
class Loop:
    var: Var
    length: AExpr
    kind: str


def replicated(kind: str, space: AddressSpace) -> bool:
    if space == GLOBAL:
        return True
    if space == LOCAL:
        return kind in ("mapLcl", "mapSeq", "map")
    return kind in ("mapSeq", "map")


def memory_type(outer: Tuple[OuterDim, ...], t: Type) -> Type:
    """The logical type of a memory: ``t`` nested in the replicated enclosing loops."""
    for d in reversed(outer):
        if d.replicated:
            t = ArrayType(t, d.length, d.var)
    return t


def _bound_loop_vars(e: AExpr, outer_vars) -> AExpr:
    """Replace loop variables (non-opaque) by their upper bound, for buffer sizes."""
    vs = [v for v in A.free_vars(e) if not v.opaque]
    if not vs:
        return e
    ub = A.upper_bound(e)
    if ub is None:
        raise LiftCompileError(f"cannot bound the buffer size {A.to_text(e)}")
    return ub


class _Allocator:
    def __init__(self, typed: TypedProgram, spaces: Mapping[int, AddressSpace]):
        self.typed = typed
        self.spaces = spaces
        self.memories: List[Memory] = []
        self.of_call: Dict[int, Memory] = {}
        self.outer_of_call: Dict[int, Tuple[OuterDim, ...]] = {}
        self.acc_of: Dict[int, Memory] = {}
        self.iterate: Dict[int, IterateBuffers] = {}
        self.inline: set = set()
        self.counters: Dict[str, itertools.count] = {}
        self.taken: frozenset = frozenset()
        self.span: Optional[Span] = typed.program.span

    def fresh_name(self, prefix: str) -> str:
        """``prefix<n>``, unlike every user name of the program (``taken``)."""
        c = self.counters.setdefault(prefix, itertools.count(1))
        while True:
            name = f"{prefix}{next(c)}"
            if name not in self.taken:
                return name

    def error(self, msg: str) -> LiftCompileError:
        return LiftCompileError(msg, self.span)

    # ------------------------------------------------------------------ allocation
    def allocate(self, call: FunCall, depth: Tuple[Loop, ...], t: Type, space: AddressSpace,
                 what: str, per_iteration: bool = False) -> Memory:
        """``per_iteration``: the memory holds a value used only within the iteration of the
        enclosing loops that computes it (a private user-function result bound by a lambda or
        passed to a call): one variable, not replicated over the enclosing ``mapSeq``s."""
        outer = []
        for lp in depth:
            if space == LOCAL and lp.kind == "mapGlb":
                raise self.error(f"{what}: local memory cannot be used inside mapGlb (use mapWrg/mapLcl)")
            outer.append(OuterDim(lp.var, lp.length, replicated(lp.kind, space) and not per_iteration))
        outer = tuple(outer)
        mt = memory_type(outer, t)
        size = _bound_loop_vars(size_in_elements(mt), [d.var for d in outer])
        elem = base_scalar(t)
        kind = "temp"
        if space in (LOCAL, PRIVATE) and not isinstance(size, A.Cst):
            if space == PRIVATE:
                raise self.error(f"{what}: private memory needs a size known at compile time, "
                                 f"got {A.to_text(size)} (give the sizes with --size)")
            kind = "local_arg"
        if space == PRIVATE and isinstance(size, A.Cst) and is_value(t) and not any(d.replicated for d in outer):
            m = Memory(self.fresh_name("v"), PRIVATE, elem, size, "variable", value_type=t)
        else:
            m = Memory(self.fresh_name("tmp"), space, elem, size, kind)
        self.memories.append(m)
        self.of_call[id(call)] = m
        self.outer_of_call[id(call)] = outer
        if space == PRIVATE:
            self.check_private(m, what)
        return m

    def check_private(self, m: Memory, what: str) -> None:
        """The private memory of a work-item stays within ``LIFT_MAX_PRIVATE_BYTES`` (issue 11:
        a private array of 1M floats crashed PoCL): counted over the private buffers and
        variables allocated so far (each is declared once per work-item)."""
        from ..limits import MAX_PRIVATE_BYTES
        from ..types.types import elem_bytes

        def nbytes(x: Memory) -> int:
            return int(x.size.value) * elem_bytes(x.elem) if isinstance(x.size, A.Cst) else 0

        total = sum(nbytes(x) for x in self.memories if x.space == PRIVATE)
        if total > MAX_PRIVATE_BYTES:
            raise self.error(f"{what}: the private memory of a work-item would be {total} bytes "
                             f"(this array: {nbytes(m)} bytes), more than {MAX_PRIVATE_BYTES} "
                             f"(LIFT_MAX_PRIVATE_BYTES; OpenCL private memory is registers and a small "
                             f"per-work-item stack): use local or global memory (toLocal, toGlobal) or "
                             f"smaller chunks")

    # ------------------------------------------------------------------ traversal
    def visit(self, e: Expr, depth, has_dest: bool, inline: bool = False):
        if isinstance(e, Literal):
            return
        if isinstance(e, Param):
            if has_dest and not is_value(self.typed.types[id(e)]):
                raise self.error(f"the result is the array {e.name} itself: nothing computes it "
                                 f"(copy it with mapSeq(id) or mapGlb(id))")
            return
        assert isinstance(e, FunCall)
        saved = self.span
        if e.span is not None:
            self.span = e.span
        try:
            self._visit_call(e, depth, has_dest, inline)
        finally:
            self.span = saved

    def _visit_call(self, c: FunCall, depth, has_dest, inline):
        f = c.f
        if isinstance(f, P.LayoutPattern):
            if has_dest:
                if not isinstance(f, INVERTIBLE_LAYOUTS):
                    raise self.error(f"{f.name}: a data-layout pattern cannot write the result of the "
                                     f"enclosing pattern (copy the data with a user function, e.g. mapSeq(id))")
                if isinstance(f, P.ScatterIdx):
                    # the indices (and a scatterLastIdx's claims) are read where the data is
                    # written through them
                    for a in c.args[:-1]:
                        self.visit(a, depth, False)
                self.visit(c.args[-1], depth, True)
            elif isinstance(f, P.FailIf):
                # the condition and the value are used where they are computed
                for a in c.args:
                    self.visit(a, depth, False, inline=True)
            elif isinstance(f, (P.At, P.AtIf)):
                # the index (and condition) are values used where they are computed (as a user
                # function's arguments are)
                self.visit(c.args[0], depth, False)
                for a in c.args[1:]:
                    self.visit(a, depth, False, inline=True)
            else:
                for a in c.args:
                    self.visit(a, depth, False)
            return
        while isinstance(f, (P.ToGlobal, P.ToLocal, P.ToPrivate)) and \
                isinstance(f.f, (UserFun, P.Id, P.MapVec, P.ToGlobal, P.ToLocal, P.ToPrivate)):
            f = f.f     # toPrivate(uf)(x): the user function's value, in the space inferred for it
        if isinstance(f, (UserFun, P.Id, P.MapVec)):
            for a in c.args:
                self.visit(a, depth, False, inline=True)
            if inline:
                self.inline.add(id(c))
            elif not has_dest:
                # a private value with no destination (an argument of a call, a lambda's bound
                # value) is used in the iteration that computes it: a variable, even inside a
                # mapSeq (replicating it over the loop would need the loop's length at compile
                # time, unknown for a splitOffsets row)
                t = self.typed.types[id(c)]
                space = self.spaces[id(c)]
                self.allocate(c, depth, t, space, f"the result of {getattr(f, 'name', 'a user function')}",
                              per_iteration=space == PRIVATE and is_value(t))
            return
        for a in c.args:
            self.visit(a, depth, False)
        self.apply(f, c, depth, has_dest)

    def apply(self, f: FunDecl, c: FunCall, depth, has_dest: bool):
        types = self.typed.types
        if isinstance(f, Lambda):
            self.visit(f.body, depth, has_dest)
            return
        if isinstance(f, (P.ToGlobal, P.ToLocal, P.ToPrivate)):
            self.apply(f.f, c, depth, has_dest)
            return
        if isinstance(f, (UserFun, P.Id, P.MapVec)):
            if not has_dest:  # pragma: no cover - maps and reduces always give a destination
                raise self.error("internal: user function without destination")
            return
        if isinstance(f, P.LayoutPattern):
            raise self.error(f"{f.name}: a data-layout pattern cannot produce the result of "
                             f"{'the enclosing pattern'}: copy the data with a user function (e.g. mapSeq(id))")
        if isinstance(f, P.Map):
            lay = _layout_only(f.f)
            if lay is not None:
                raise self.error(f"{f.kind}({lay}): a map of a data-layout pattern is not supported yet: apply "
                                 f"the {lay} in the map that consumes the rows (mapGlb(0)(g o {lay}) for "
                                 f"mapGlb(0)(g) o map({lay})), or copy the rows with a user function "
                                 f"(e.g. mapSeq(id))")
            if not has_dest:
                self.allocate(c, depth, self.typed.app_types[id(f)], self.spaces[id(c)], f.kind)
            var = self.typed.loop_vars[id(f)]
            self.apply(f.f, c, depth + (Loop(var, A.add(var.hi, 1), f.kind),), True)
            return
        if isinstance(f, P.Reduce):
            self.visit(f.init, depth, False)
            it = types[id(f.init)]
            acc = Memory(self.fresh_name("acc"), PRIVATE, base_scalar(it), A.ONE, "variable", value_type=it)
            self.memories.append(acc)
            self.acc_of[id(f)] = acc
            self.apply(f.f, c, depth, True)
            if not has_dest and (self.spaces[id(c)] != PRIVATE or f.kind == "scanSeq"):
                # a scan's result is an array in every space; a reduction's in private
                # memory is its accumulator
                self.allocate(c, depth, self.typed.app_types[id(f)], self.spaces[id(c)], f.kind)
            return
        if isinstance(f, P.RadixSeq):
            # the counters, one a digit: a private array
            cnt = Memory(self.fresh_name("cnt"), PRIVATE, ScalarType("int"), A.cst(1 << f.bits), "temp")
            self.memories.append(cnt)
            self.check_private(cnt, f.name)
            self.acc_of[id(f)] = cnt
            # the digit of each element: a private variable (keyed by the call: the pattern
            # holds the counters)
            dig = Memory(self.fresh_name("dig"), PRIVATE, ScalarType("int"), A.ONE, "variable",
                         value_type=ScalarType("int"))
            self.memories.append(dig)
            self.acc_of[id(c)] = dig
            self.apply(f.f, c, depth, True)
            if not has_dest:
                self.allocate(c, depth, self.typed.app_types[id(f)], self.spaces[id(c)], f.name)
            return
        if isinstance(f, P.FilterSeq):
            # the predicate's value: a private flag, set for each element
            flag = Memory(self.fresh_name("keep"), PRIVATE, base_scalar(ScalarType("bool")), A.ONE,
                          "variable", value_type=ScalarType("bool"))
            self.memories.append(flag)
            self.acc_of[id(f)] = flag
            self.apply(f.f, c, depth, True)
            self.apply(f.value, c, depth, True)   # each value written where it is kept
            if not has_dest:
                self.allocate(c, depth, self.typed.app_types[id(f)], self.spaces[id(c)], f.name)
            return
        if isinstance(f, P.Iterate):
            info = self.typed.iterate_info[id(f)]
            k = len(info.lengths) - 1
            if k == 0:
                if has_dest:
                    raise self.error("iterate(0) is the identity: it cannot write a result")
                return
            if k == 1:
                if not has_dest:
                    self.allocate(c, depth, self.typed.app_types[id(f)], self.spaces[id(c)], "iterate")
                self.apply(f.f, c, depth, True)
                return
            if has_dest:
                raise self.error("iterate: the result of an iterate(n >= 2) stays in its swap buffers; "
                                 "copy it where it is needed (e.g. toGlobal(mapSeq(id)) after it, or "
                                 "toGlobal(mapLcl(mapSeq(id))) inside a mapWrg)")
            bufs = self.iterate_buffers(f, c, depth, info)
            # after the loop the result is behind the swapped `src` pointer
            self.of_call[id(c)] = bufs.src
            self.outer_of_call[id(c)] = ()
            self.apply(f.f, c, depth, True)
            return
        raise self.error(f"cannot allocate memory for {f!r}")  # pragma: no cover

    def iterate_buffers(self, f: P.Iterate, c: FunCall, depth, info):
        types = self.typed.types
        space = self.spaces[id(c)]
        elem_t = self.typed.app_types[id(f)].elem
        # the input must be a buffer of this kernel in the same address space (reused)
        src_call = c.args[0]
        while isinstance(src_call, FunCall) and isinstance(src_call.f, (P.Join, P.Split)):
            src_call = src_call.args[0]
        src_mem = self.of_call.get(id(src_call)) if isinstance(src_call, FunCall) else None
        if src_mem is None or src_mem.kind not in ("temp", "local_arg", "pointer") or src_mem.space != space:
            raise self.error(
                f"iterate: the input must be produced in {space} memory by the same kernel, so that its "
                f"buffer can be swapped with the iterate's own (copy it first, e.g. with "
                f"to{str(space).capitalize()}(mapLcl(mapSeq(id))))")
        if info.size_var is None:          # length-preserving: every length is the input's
            outs = ins = [info.lengths[0]]
        else:
            outs = list(info.lengths[1:])
            ins = list(info.lengths[:-1])
        biggest_out = outs[0]
        for l in outs[1:]:
            if A.prove_le(biggest_out, l):
                biggest_out = l
            elif not A.prove_le(l, biggest_out):
                raise self.error(f"iterate: cannot bound the buffer sizes {', '.join(map(A.to_text, outs))}")
        for l in ins + outs:
            if not A.prove_le(l, info.lengths[0]):
                raise self.error("iterate: the array must not grow beyond the input length "
                                 "(the input buffer is reused)")
        dst = self.allocate(c, depth, ArrayType(elem_t, biggest_out), space, "iterate")
        outer_dst = self.outer_of_call[id(c)]
        outer_src = self.outer_of_call[id(src_call)]
        dst_base = flat_offset(memory_type(outer_dst, ArrayType(elem_t, biggest_out)),
                               [d.var for d in outer_dst if d.replicated])
        src_t = types[id(src_call)]
        src_base = flat_offset(memory_type(outer_src, src_t), [d.var for d in outer_src if d.replicated]) \
            if outer_src else A.ZERO
        p_src = Memory(self.fresh_name("src"), space, src_mem.elem, src_mem.size, "pointer")
        p_dst = Memory(self.fresh_name("dst"), space, dst.elem, dst.size, "pointer")
        self.memories.extend([p_src, p_dst])
        bufs = IterateBuffers(p_src, p_dst, src_mem, dst, src_base, dst_base)
        self.iterate[id(f)] = bufs
        return bufs


def allocate(typed: TypedProgram, spaces: Mapping[int, AddressSpace], taken=frozenset()) -> Allocation:
    """Allocate the memory of ``typed``; pure (returns a new :class:`Allocation`).  The
    buffers' names avoid ``taken`` (the user names of the program that reach the C)."""
    al = _Allocator(typed, spaces)
    al.taken = frozenset(taken)
    params: Dict[str, Memory] = {}
    for p in typed.program.params:
        t = p.type
        if is_value(t):
            m = Memory(p.name, PRIVATE, base_scalar(t), A.ONE, "scalar", value_type=t)
        else:
            m = Memory(p.name, GLOBAL, base_scalar(t), size_in_elements(t), "input")
        params[p.name] = m
        al.memories.append(m)
    rt = typed.result_type
    if is_value(rt):
        raise LiftCompileError(f"program {typed.program.name}: the result must be an array, got {rt}",
                               typed.program.span)
    out_name = "out"
    k = 0
    while out_name in al.taken:
        k += 1
        out_name = f"out_{k}"
    out = Memory(out_name, GLOBAL, base_scalar(rt), size_in_elements(rt), "output")
    al.memories.append(out)
    if any(v for v in A.free_vars(out.size) if not v.opaque):
        raise LiftCompileError("the output size depends on loop variables", typed.program.span)
    al.visit(typed.program.body, (), True)
    return Allocation(
        memories=tuple(al.memories), params=MappingProxyType(params), output=out,
        of_call=MappingProxyType(al.of_call), outer_of_call=MappingProxyType(al.outer_of_call),
        acc_of=MappingProxyType(al.acc_of), iterate=MappingProxyType(al.iterate),
        inline_calls=frozenset(al.inline))
