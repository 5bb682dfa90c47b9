"""OpenCL C generation (Lift paper §5.5).

The generator traverses the typed program following the data flow, builds the views of
data-layout patterns (input views along the data flow, output views from each result's
destination), consumes them into simplified index expressions and emits a C syntax tree.
All decisions come from the earlier passes: address spaces and buffers
(:mod:`lift_backend.memory`), loop shapes (:mod:`.control_flow`) and barriers
(:mod:`.barriers`).  The printer (:mod:`.cast`) only prints.
"""
from __future__ import annotations

import itertools
import re
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Dict, List, Mapping, Optional, Set, Tuple

from .. import arith as A
from ..arith import Expr as AExpr, Var
from ..errors import LiftCompileError, Span
from ..limits import INT_MAX
from ..ir import patterns as P
from ..ir.expr import Expr, FunCall, FunDecl, Lambda, Literal, Param, UserFun, extend
from ..memory.address_space import GLOBAL, LOCAL, PRIVATE
from ..memory.alloc import Allocation, Memory
from ..types import (ArrayType, ScalarType, TupleType, Type, VectorType, c_type_name, is_value,
                     uses_double)
from ..types.infer import ArrayRef, TypedProgram
from ..views import (CondAccess, ConstAccess, IndexAccess, MemAccess, MemView, TupleBuild, ValueAccess, ValueView, VectorBuild, ZipView,
                     View, access, consume, layout_view, output_view, view_text)
from ..views.views import BoundsCheck, FailAccess, ValueIndex, WideIndex
from . import cast as C
from .names import unique, user_names

SEQ_KINDS = ("map", "mapSeq", "reduce", "reduceSeq", "scanSeq", "filterSeq", "radixHistSeq", "radixRankSeq")
THREAD_FUNS = {"mapLcl": ("get_local_id", "get_local_size"),
               "mapWrg": ("get_group_id", "get_num_groups"),
               "mapGlb": ("get_global_id", "get_global_size")}


@dataclass(frozen=True)
class KernelParam:
    """One kernel argument: ``kind`` is input, scalar, output, temp (global buffer),
    local (local buffer sized at launch), size (an ``int`` size variable) or errors (the
    ``int`` error buffer of the bounds checks: ``size`` ints)."""
    name: str
    kind: str
    elem: Optional[Type] = None
    size: Optional[AExpr] = None   # number of elements of buffers
    #: an output the host fills with this value before the launch (a ``scatterMaxIdx``'s
    #: claims: -1 where no element claims the position; 0 where a pattern may leave positions
    #: unwritten: ``scatterIdx``, ``permuteIdx``, ``scatterLastIdx``, ``filterSeq``)
    fill: Optional[int] = None


@dataclass(frozen=True)
class CheckSite:
    """A run-time bounds check of the kernel: site ``k`` of the error buffer (``code``: the
    error code it reports in a kernel compiled with ``error_base``)."""
    kind: str
    span: Optional[Span]
    code: Optional[int] = None


@dataclass(frozen=True)
class OffsetsCheck:
    """The offsets of a ``splitOffsets``, an input of the kernel, checked by the host before
    the launch: non-decreasing, between 0 and ``length`` (the data's length)."""
    param: str
    length: AExpr
    span: Optional[Span]


@dataclass(frozen=True)
class GeneratedKernel:
    unit: C.Unit
    source: str
    params: Tuple[KernelParam, ...]
    barriers: int
    accesses: Tuple[str, ...]
    checks: Tuple[CheckSite, ...] = ()
    offset_checks: Tuple[OffsetsCheck, ...] = ()
    #: the local buffers declared in the kernel with a size known at compile time
    local_static: Tuple[KernelParam, ...] = ()


#: the error buffer of the bounds checks: ``err[0]`` is the first failing site (``INT_MAX``
#: when none failed), ``err[1 + 2 * k]`` and ``err[2 + 2 * k]`` the index and the length of
#: site ``k``, written by the one work-item that lowered ``err[0]`` to ``k``
ERROR_BUFFER = "lift_err"
CHECK_FUNCTION = "lift_check"
ERROR_BASE = "lift_errbase"
#: the per-position counters of a ``permuteIdx`` (zeroed by the host before the launch)
MARKS_BUFFER = "lift_marks"
#: the check of a ``permuteIdx`` position: in range and the first to reach it
ONCE_BODY_CODED = """if ((uint)i < (uint)n && atomic_inc(&marks[i]) == 0) return i;
atomic_min(err, site);
return 0;"""
ONCE_BODY_CODED_LONG = """if (i >= 0 && i < n && atomic_inc(&marks[i]) == 0) return (int)i;
atomic_min(err, site);
return 0;"""
ONCE_BODY = """if ((uint)i < (uint)n && atomic_inc(&marks[i]) == 0) return i;
if (atomic_min(err, site) > site) { err[1 + 2 * site] = i; err[2 + 2 * site] = n; }
return 0;"""
ONCE_BODY_LONG = """if (i >= 0 && i < n && atomic_inc(&marks[i]) == 0) return (int)i;
if (atomic_min(err, site) > site) { err[1 + 2 * site] = i > 2147483647L ? 2147483647 : (i < -2147483647L ? -2147483647 : (int)i); err[2 + 2 * site] = n; }
return 0;"""
#: the checks of a kernel compiled with ``error_base``: the smallest code wins, no details
CHECK_BODY_CODED = """if ((uint)i < (uint)n) return i;
atomic_min(err, site);
return 0;"""
CHECK_BODY_CODED_LONG = """if (i >= 0 && i < n) return (int)i;
atomic_min(err, site);
return 0;"""
CHECK_BODY = """if ((uint)i < (uint)n) return i;
if (atomic_min(err, site) > site) { err[1 + 2 * site] = i; err[2 + 2 * site] = n; }
return 0;"""
#: the same for an index computed in ``long`` (a user index function, ``WideIndex``)
CHECK_BODY_LONG = """if (i >= 0 && i < n) return (int)i;
if (atomic_min(err, site) > site) { err[1 + 2 * site] = i > 2147483647L ? 2147483647 : (i < -2147483647L ? -2147483647 : (int)i); err[2 + 2 * site] = n; }
return 0;"""


def _overflows_between(e: AExpr) -> bool:
    """Whether ``e`` divides a product of variables (a position-dependent array's row offset
    ``(i * i - i) / 2``) that the ranges of its variables do not keep within ``int``: such a
    numerator can pass ``INT_MAX`` while the index itself, and the array, are in range (a
    triangle of 46,400 rows, 1.08e9 elements, overflowed), so the expression is computed in
    ``long``."""
    def product(n) -> bool:
        return isinstance(n, A.Pow) or (isinstance(n, A.Prod) and
                                        sum(not isinstance(f, A.Cst) for f in n.factors) >= 2)

    def fits(x) -> bool:
        try:
            lo, hi = A.int_bounds(x)
        except (ZeroDivisionError, ValueError, TypeError):
            return False
        return lo >= -INT_MAX - 1 and hi <= INT_MAX
    return any(isinstance(n, (A.Div, A.Mod)) and any(product(m) for m in A.iter_nodes(n.a))
               and not all(fits(m) for m in A.iter_nodes(n.a))
               for n in A.iter_nodes(e))


def c_literal(l: Literal) -> str:
    if isinstance(l.type, VectorType):
        return f"({c_type_name(l.type)})({l.value})"
    return l.value


def _holds_barrier(stmt: C.Stmt) -> bool:
    """Whether ``stmt`` has a barrier in it (in a nested block too)."""
    if isinstance(stmt, C.Barrier):
        return True
    if isinstance(stmt, C.Block):
        return any(_holds_barrier(s) for s in stmt.stmts)
    return isinstance(stmt, (C.For, C.If)) and _holds_barrier(stmt.body)


class CodeGen:
    def __init__(self, typed: TypedProgram, spaces, alloc: Allocation, shapes, barriers,
                 error_base: bool = False, soa_output: bool = False):
        self.typed = typed
        self.types = typed.types
        #: the fresh variables of this code generation (views' row variables, iterate
        #: counters), after the type inference's
        self.vars = A.VarSupply(typed.next_uid)
        self.spaces = spaces
        self.alloc = alloc
        self.shapes = shapes
        self.barriers = barriers
        self.views: Dict[int, View] = {}
        self.accesses: List[str] = []
        self.names: Dict[Var, str] = {}
        self.scopes: List[Set[str]] = []
        self.subst: Dict[Var, AExpr] = {}
        self.divergent = 0
        self.thread_vars: Set[Var] = set()
        self.functions: Dict[str, C.Function] = {}
        self.structs: Dict[str, str] = {}
        self.declared: Set[int] = set()
        self.id_names: Dict[str, str] = {}
        self.doubles = False
        self.block = C.Block(braces=False)
        self._parents: List[C.Block] = []
        self._kinds: List[str] = []
        self.span: Optional[Span] = typed.program.span
        self.check_sites: Dict[BoundsCheck, int] = {}
        self.checks: List[CheckSite] = []
        self.offset_checks: List["OffsetsCheck"] = []
        self.err_name = ERROR_BUFFER
        #: the user names that reach the C: the generator's own names avoid them
        self.c_taken: Set[str] = user_names(typed.program)
        self.vector_names: Dict[tuple, str] = {}
        self.check_name = CHECK_FUNCTION
        #: the error protocol of a host that numbers the sites itself (the NESL lowering): each
        #: check reports ``errbase + code`` (its ``arrayAccess``'s code) to ``err[0]`` only
        self.error_base = error_base
        self.errbase_name = ERROR_BASE
        #: the ``permuteIdx`` check of the kernel and its marks buffer (one per kernel)
        self.marks: Optional[BoundsCheck] = None
        self.marks_name = MARKS_BUFFER
        #: the destinations of a ``scatterMaxIdx`` (the host fills the result with -1 first)
        self.filled: set = set()
        #: whether a pattern may leave positions of its destination unwritten (a ``scatterIdx``,
        #: ``permuteIdx`` or ``scatterLastIdx`` writing fewer elements than positions, a
        #: ``filterSeq`` keeping fewer than its slots): the host zeroes the outputs first
        self.partial = False
        #: a result array of flat tuples is written as one buffer per component
        self.soa_output = soa_output
        if error_base:
            # such a kernel is built with the host's other kernels: its helpers are its own
            self.check_name = f"{typed.program.name}_check"

    # ------------------------------------------------------------------ helpers
    def error(self, msg: str) -> LiftCompileError:
        return LiftCompileError(msg, self.span)

    @contextmanager
    def inside(self, blk: C.Block, divergent: bool = False):
        """Generate into ``blk`` (a new scope); ``parent_add`` reaches the enclosing block."""
        self._parents.append(self.block)
        self.block = blk
        self.scopes.append(set())
        self.divergent += 1 if divergent else 0
        try:
            yield
        finally:
            self.block = self._parents.pop()
            self.scopes.pop()
            self.divergent -= 1 if divergent else 0

    def bind_name(self, var: Var, base: str) -> str:
        cands = itertools.chain([base], ["j", "k"] if base == "i" else [],
                                (f"{base}_{n}" for n in range(1, 100)))
        for c in cands:
            if not any(c in sc for sc in self.scopes):   # no copy: the outer scope is large
                self.scopes[-1].add(c)
                self.names[var] = c
                return c
        raise self.error("internal: out of names")  # pragma: no cover

    def var_name(self, v: Var) -> str:
        return self.names.get(v, v.name)

    def ctype(self, t: Type) -> str:
        if uses_double(t):
            self.doubles = True
        if isinstance(t, TupleType):
            self.struct(t)
        return c_type_name(t)

    def struct(self, t: TupleType) -> str:
        name = c_type_name(t)
        if name not in self.structs:
            fields = []
            for i, e in enumerate(t.elems):
                fields.append(f"{self.ctype(e)} _{i};")
            text = f"typedef struct {{ {' '.join(fields)} }} {name};"
            if self.error_base:
                # built with the host's other kernels, which may define the same tuple type
                text = f"#ifndef LIFT_{name}\n#define LIFT_{name}\n{text}\n#endif"
            self.structs[name] = text
        return name

    # ------------------------------------------------------------------ arithmetic
    def resolve_refs(self, e: AExpr) -> AExpr:
        """Replace the array references of types (``offsets[i]``) by memory reads."""
        refs = [n for n in A.iter_nodes(e) if isinstance(n, A.Lookup) and isinstance(n.array, ArrayRef)]
        if not refs:
            return e

        def go(x):
            if isinstance(x, A.Lookup) and isinstance(x.array, ArrayRef):
                v = self.views.get(x.array.node_id)
                if v is None:
                    raise self.error(f"internal: no view for {x.array.name}")
                acc = consume(v, (go(x.index),))
                if not isinstance(acc, MemAccess):
                    raise self.error(f"{x.array.name}: must be read from memory")
                return A.Lookup(acc.mem, acc.mem.name, acc.index, x.lo, x.hi)
            return A.rebuild(x, go)

        return go(e)

    def finalize(self, e: AExpr) -> AExpr:
        e = self.resolve_refs(A.to_expr(e))
        m = dict(self.subst)
        for v in A.free_vars(e):
            # a variable whose range is a single point is that constant (mapLcl over 1 element)
            if v not in m and not v.opaque and isinstance(v.lo, A.Cst) and v.lo == v.hi:
                m[v] = v.lo
        if m:
            e = A.subst(e, m)
        return e

    def c(self, e: AExpr) -> str:
        e = self.finalize(e)
        for n in A.iter_nodes(e):
            v = n.value if isinstance(n, A.Cst) else (n.coef if isinstance(n, A.Prod) else 0)
            if not -INT_MAX - 1 <= v <= INT_MAX:
                raise self.error(f"the index or size expression {A.to_text(_unchecked(e))} has the constant {v}, "
                                 f"beyond the int arithmetic of the kernels")
        try:
            if _overflows_between(e):
                return f"(int)({A.to_c(e, self.var_name, self.lookup_text, wide=True)})"
            return A.to_c(e, self.var_name, self.lookup_text)
        except ValueError as ex:
            raise self.error(str(ex))

    def lookup_text(self, l: A.Lookup) -> str:
        mem = l.array
        index = A.to_c(self.finalize(l.index), self.var_name, self.lookup_text)
        if isinstance(mem, WideIndex):
            return self.wide_text(mem, index)
        if isinstance(mem, ValueIndex):
            return self.access_text(mem.access)
        if isinstance(mem, BoundsCheck):
            site = self.check_site(mem)
            name = self.check_name
            wide = isinstance(l.index, A.Lookup) and isinstance(l.index.array, ValueIndex) and l.index.array.wide
            if mem.once:
                name = self.once_check(mem, wide)
                base = A.ZERO if mem.base is None else self.finalize(mem.base)
                marks = self.marks_name if base == A.ZERO else f"{self.marks_name} + {self.c(base)}"
                return (f"{name}({index}, {self.c(mem.length)}, {self.site_text(site)}, {self.err_name}, "
                        f"{marks})")
            if wide:
                name = self.long_check()
            return f"{name}({index}, {self.c(mem.length)}, {self.site_text(site)}, {self.err_name})"
        return f"{mem.name}[{index}]"

    def long_check(self) -> str:
        """The bounds check of a ``long`` index (an ``arrayAccess`` at a ``long`` value)."""
        name = self.check_name + "_long"
        if name not in self.functions:
            body = CHECK_BODY_CODED_LONG if self.error_base else CHECK_BODY_LONG
            self.functions[name] = C.Function("int", name, ["long i", "int n", "int site", "global int* err"], body)
        return name

    def once_check(self, chk: BoundsCheck, wide: bool) -> str:
        """The check of a ``permuteIdx`` position (``wide``: a ``long`` index): in range and
        the first write of it (the kernel's marks buffer, ``chk.length`` counters)."""
        if self.marks is not None and self.marks.key != chk.key:
            raise self.error("a kernel has at most one permuteIdx (its marks buffer)")
        self.marks = chk
        name = self.check_name + ("_once_long" if wide else "_once")
        if name not in self.functions:
            body = (ONCE_BODY_CODED_LONG if wide else ONCE_BODY_CODED) if self.error_base else \
                (ONCE_BODY_LONG if wide else ONCE_BODY)
            self.functions[name] = C.Function("int", name, [f"{'long' if wide else 'int'} i", "int n", "int site",
                                                            "global int* err", "global int* marks"], body)
        return name

    def site_text(self, site: int) -> str:
        """The error code of check site ``site`` as the kernel reports it."""
        if not self.error_base:
            return str(site)
        code = self.checks[site].code
        return f"{self.errbase_name} + {code}"

    def wide_text(self, w: WideIndex, arg: str) -> str:
        """A user index function evaluated in ``long`` at ``arg`` (an ``int`` index): converted
        back to ``int``, through the ``long`` bounds check where it is not proven in range."""
        body = self.finalize(w.body)
        names = lambda v: f"({arg})" if v == w.param else self.var_name(v)
        try:
            text = A.to_c(body, names, self.lookup_text, wide=True)
        except ValueError as ex:
            raise self.error(str(ex))
        if w.check is None:
            return f"(int)({text})"
        site = self.check_site(w.check)
        name = self.long_check()
        return f"{name}({text}, {self.c(w.check.length)}, {self.site_text(site)}, {self.err_name})"

    def check_site(self, chk: BoundsCheck) -> int:
        site = self.check_sites.get(chk)
        if site is None:
            if self.error_base and chk.code is None:
                raise self.error(f"internal: a {chk.kind} check without an error code in a kernel that "
                                 f"reports error codes")
            site = self.check_sites[chk] = len(self.checks)
            self.checks.append(CheckSite(chk.kind, chk.span, chk.code))
            if self.check_name not in self.functions and chk.kind != "failIf" and not chk.once:
                self.functions[self.check_name] = C.Function(
                    "int", self.check_name, ["int i", "int n", "int site", f"global int* err"],
                    CHECK_BODY_CODED if self.error_base else CHECK_BODY)
        return site

    def cond_c(self, cnd: A.Cond) -> str:
        cnd = cnd.map(self.finalize)
        # computed in long where a side divides a product that can pass INT_MAX (a pad's
        # bound at a chunk's start ``c * (N + 1) / P``), as an index expression is (``c``)
        wide = _overflows_between(cnd.lhs) or _overflows_between(cnd.rhs)
        return A.cond_to_c(cnd, self.var_name, self.lookup_text, wide=wide)

    def thread_dependent(self, e: AExpr) -> bool:
        e = self.finalize(e)
        for n in A.iter_nodes(e):
            if isinstance(n, Var) and n in self.thread_vars:
                return True
        return False

    # ------------------------------------------------------------------ reads and writes
    def access_text(self, acc, who: str = "") -> str:
        if isinstance(acc, MemAccess):
            mem: Memory = acc.mem
            fields = "".join(f"._{k}" for k in acc.fields)
            if mem.kind in ("variable", "scalar"):
                return mem.name + fields
            idx = self.finalize(acc.index)
            if acc.width > 1:
                return self.vector_ref(mem, idx, acc.width) + fields
            return f"{mem.name}[{self.c(idx)}]{fields}"
        if isinstance(acc, ValueAccess):
            base = acc.mem.name if acc.mem is not None else acc.expr
            if acc.fields and acc.mem is None and not re.fullmatch(r"[A-Za-z_]\w*", base):
                base = f"({base})"
            return base + "".join(f"._{k}" for k in acc.fields)
        if isinstance(acc, CondAccess):
            return f"({self.cond_c(acc.cond)} ? {self.access_text(acc.then)} : {self.access_text(acc.els)})"
        if isinstance(acc, FailAccess):
            site = self.check_site(acc.check)
            name = self.check_name + "_fail"
            if name not in self.functions:
                body = ("if (c) atomic_min(err, site);\nreturn 0;" if self.error_base else
                        "if (c && atomic_min(err, site) > site) { err[1 + 2 * site] = 0; err[2 + 2 * site] = 0; }\n"
                        "return 0;")
                self.functions[name] = C.Function("int", name, ["int c", "int site", "global int* err"], body)
            cond = self.cond_c(A.Cond("!=", acc.cond, A.ZERO))
            return f"({name}({cond}, {self.site_text(site)}, {self.err_name}), {self.access_text(acc.inner)})"
        if isinstance(acc, ConstAccess):
            return c_literal(acc.literal)
        if isinstance(acc, IndexAccess):
            return f"((int)({self.c(self.finalize(acc.index))}))"
        if isinstance(acc, TupleBuild):
            name = self.ctype(acc.type)
            return f"({name}){{{', '.join(self.access_text(p) for p in acc.parts)}}}"
        if isinstance(acc, VectorBuild):
            return f"({self.ctype(acc.type)})({', '.join(self.access_text(p) for p in acc.parts)})"
        raise self.error(f"internal: unknown access {acc!r}")  # pragma: no cover

    def vector_ref(self, mem: Memory, idx: AExpr, w: int, store_value: Optional[str] = None) -> str:
        q = A.div(idx, w)
        if A.mul(q, w) == idx:
            args = (self.c(q), mem.name)
        else:
            args = ("0", f"{mem.name} + {self.c(idx)}")
        if store_value is None:
            return f"vload{w}({args[0]}, {args[1]})"
        return f"vstore{w}({store_value}, {args[0]}, {args[1]})"

    def consume(self, v: View, tup: Tuple[int, ...] = ()):
        """``consume`` of the view, its errors located at the pattern being generated."""
        try:
            return consume(v, (), tup)
        except LiftCompileError as ex:
            if ex.span is None:
                raise self.error(ex.message) from None
            raise

    def read(self, v: View, tup: Tuple[int, ...] = ()) -> str:
        acc = self.consume(v, tup)
        text = self.access_text(acc)
        if not isinstance(acc, ValueAccess):
            self.accesses.append(f"read  {text}\n      view: {view_text(v)}")
        return text

    def write_parts(self, v: View, acc, value: str, stem: str, component, writable) -> None:
        """Store ``value`` (a vector or a tuple) through a view that gives each component its own
        place: the value in a temporary, then one store per component (``component(k)`` is the
        C suffix selecting component ``k``; ``writable`` says which places may be stored to)."""
        if not all(isinstance(p, MemAccess) and writable(p) for p in acc.parts):
            raise self.error("cannot write through this view (the destination is not memory)")
        tmp = self.bind_name(self.vars.fresh(stem, 0, 0), stem)
        self.block.add(C.Decl(self.ctype(acc.type), tmp, value))
        indices = [self.c(self.finalize(p.index)) for p in acc.parts]
        last = any(_scatter_mode(p.index) == "last" for p in acc.parts)
        if any(_scatter_mode(p.index) == "max" for p in acc.parts):
            raise self.error("scatterMaxIdx: the claims are ints, not tuples or vectors")
        if last or any(_once_checked(p.index) for p in acc.parts):
            # a permuteIdx position is checked (and marked written) once for all components
            if len(set(indices)) != 1:
                raise self.error("internal: the components of a permuteIdx element at distinct positions")
            pos = self.bind_name(self.vars.fresh("pos", 0, 0), "pos")
            self.block.add(C.Decl("int", pos, indices[0]))
            indices = [pos] * len(indices)
        block = self.block
        if last:
            # scatterLastIdx: written where the position is not -1 (the claim is this element's)
            block = C.Block()
            self.block.add(C.If(f"{indices[0]} >= 0", block))
        for k, p in enumerate(acc.parts):
            target = f"{p.mem.name}[{indices[k]}]{''.join(f'._{f}' for f in p.fields)}"
            block.add(C.Assign(target, tmp + component(k)))
            self.accesses.append(f"write {target}\n      view: {view_text(v)}")

    def write(self, v: View, value: str) -> None:
        acc = self.consume(v)
        if isinstance(acc, VectorBuild):
            # a vector stored through a view that is not contiguous: component by component
            self.write_parts(v, acc, value, "vec", lambda k: f".s{k:x}",
                             lambda p: p.mem.kind not in ("input", "scalar", "variable"))
            return
        if isinstance(acc, TupleBuild):
            # a tuple stored into one buffer per component (``soa_output``)
            self.write_parts(v, acc, value, "tup", lambda k: f"._{k}",
                             lambda p: p.mem.kind == "output" and p.width == 1 and not p.fields)
            return
        if isinstance(acc, ValueAccess) and acc.mem is not None:
            acc = MemAccess(acc.mem, A.ZERO, acc.fields)
        if not isinstance(acc, MemAccess):
            raise self.error("cannot write through this view (the destination is not memory)")
        mem: Memory = acc.mem
        fields = "".join(f"._{k}" for k in acc.fields)
        if mem.kind in ("input", "scalar"):
            raise self.error(f"cannot write into the input {mem.name}")
        if mem.kind == "variable":
            if id(mem) not in self.declared and not acc.fields:
                self.declared.add(id(mem))
                self.block.add(C.Decl(self.ctype(mem.value_type), mem.name, value))
            else:
                self.block.add(C.Assign(mem.name + fields, value))
            return
        idx = self.finalize(acc.index)
        if acc.width > 1:
            self.block.add(C.ExprStmt(self.vector_ref(mem, idx, acc.width, value)))
            target = self.vector_ref(mem, idx, acc.width, "...")
        else:
            target = f"{mem.name}[{self.c(idx)}]{fields}"
            mode = _scatter_mode(idx)
            if mode == "max":
                # scatterMaxIdx: the claim combines with the others at its position
                self.block.add(C.ExprStmt(f"atomic_max(&{target}, {value})"))
            elif mode == "last":
                # scatterLastIdx: written where the position is not -1 (the claim is this element's)
                # (its value computed first, by every element: a failing one reports its site)
                if not fields:
                    tmp = self.bind_name(self.vars.fresh("val", 0, 0), "val")
                    self.block.add(C.Decl(self.ctype(mem.elem), tmp, value))
                    value = tmp
                pos = self.bind_name(self.vars.fresh("pos", 0, 0), "pos")
                self.block.add(C.Decl("int", pos, self.c(idx)))
                target = f"{mem.name}[{pos}]{fields}"
                self.block.add(C.If(f"{pos} >= 0", C.Block([C.Assign(target, value)])))
            else:
                self.block.add(C.Assign(target, value))
        self.accesses.append(f"write {target}\n      view: {view_text(v)}")

    # ------------------------------------------------------------------ user functions
    def flatten_param(self, uf: UserFun, k: int) -> bool:
        t = uf.param_types[k]
        if not isinstance(t, TupleType) or any(isinstance(e, TupleType) for e in t.elems):
            return False
        name = uf.param_names[k]
        # the components become parameters name_0, name_1, ...: not where those names are taken
        for j in range(len(t.elems)):
            flat = f"{name}_{j}"
            if flat in uf.param_names or re.search(rf"\b{re.escape(flat)}\b", uf.body):
                return False
        for m in re.finditer(rf"\b{re.escape(name)}\b", uf.body):
            rest = uf.body[m.end():]
            mm = re.match(r"\s*\.\s*_(\d+)\b", rest)
            if not mm or int(mm.group(1)) >= len(t.elems):
                return False
        return True

    def register_userfun(self, uf: UserFun) -> None:
        if uf.name in self.functions:
            return
        for callee in uf.calls:          # defined before it in the kernel's source
            self.register_userfun(callee)
        params = []
        body = uf.body
        for n, t in list(zip(uf.param_names, uf.param_types)) + [("the result", uf.ret_type)]:
            if not is_value(t):
                raise LiftCompileError(f"user function {uf.name}: {'parameter ' if n != 'the result' else ''}{n} "
                                       f"has the array type {t}: user functions take and return scalars, "
                                       f"vectors and tuples of them", uf.span or self.span)
        names = []
        for k, (n, t) in enumerate(zip(uf.param_names, uf.param_types)):
            if self.flatten_param(uf, k):
                for j, et in enumerate(t.elems):
                    params.append(f"{self.uf_ctype(et)} {n}_{j}")
                    names.append(f"{n}_{j}")
                body = re.sub(rf"\b{re.escape(n)}\s*\.\s*_(\d+)\b", lambda m: f"{n}_{m.group(1)}", body)
            else:
                params.append(f"{self.uf_ctype(t)} {n}")
                names.append(n)
        fields = _bool_fields(uf.ret_type)
        if fields:
            # a tuple with bool components, built by the user's C: each is made 0 or 1 (as a
            # scalar bool result is by C's bool) by a wrapper around the body
            raw = unique(f"{uf.name}_raw", self.c_taken | set(self.functions))
            self.c_taken.add(raw)
            ct = self.ctype(uf.ret_type)
            self.functions[raw] = C.Function(ct, raw, params, body)
            body = "\n".join([f"{ct} r = {raw}({', '.join(names)});"] +
                             [f"r{f} = (uchar)(r{f} != 0);" for f in fields] + ["return r;"])
        self.functions[uf.name] = C.Function(self.uf_ctype(uf.ret_type), uf.name, params, body)

    def uf_ctype(self, t: Type) -> str:
        """The C type of a user function's parameter or result: a ``bool`` is C's bool (any
        non-zero value the user's C gives is true, 1 in memory), stored as ``uchar``."""
        return "bool" if t == ScalarType("bool") else self.ctype(t)

    def id_function(self, t: Type) -> str:
        ct = self.ctype(t)
        if ct not in self.id_names:
            name = unique("id" if not self.id_names else f"id_{ct}", self.c_taken | set(self.functions))
            self.id_names[ct] = name
            self.functions[name] = C.Function(ct, name, [f"{ct} x"], "return x;")
        return self.id_names[ct]

    def vector_function(self, uf: UserFun, width: int) -> str:
        key = (uf.name, width)
        name = self.vector_names.get(key)
        if name is None:
            name = self.vector_names[key] = unique(f"{uf.name}_{uf.ret_type}{width}",
                                                   self.c_taken | set(self.functions))
            params = [f"{self.ctype(VectorType(t, width))} {n}" for n, t in zip(uf.param_names, uf.param_types)]
            body = uf.body
            if not _vectorisable(uf):
                # statements (locals of the scalar type, ifs, loops): the scalar function applied
                # to each component (issue 11: the body kept its float locals, a failed build)
                self.register_userfun(uf)
                comps = ", ".join(f"{uf.name}({', '.join(f'{n}.s{k:x}' for n in uf.param_names)})"
                                  for k in range(width))
                body = f"return ({self.ctype(VectorType(uf.ret_type, width))})({comps});"
            self.functions[name] = C.Function(self.ctype(VectorType(uf.ret_type, width)), name, params, body)
        return name

    def call_text(self, f: FunDecl, argvs: List[View]) -> str:
        if isinstance(f, UserFun):
            self.register_userfun(f)
            parts = []
            for k, (t, v) in enumerate(zip(f.param_types, argvs)):
                if self.flatten_param(f, k):
                    parts.extend(self.read(v, (j,)) for j in range(len(t.elems)))
                else:
                    parts.append(self.read(v))
            return f"{f.name}({', '.join(parts)})"
        if isinstance(f, P.Id):
            return f"{self.id_function(argvs[0].type)}({self.read(argvs[0])})"
        if isinstance(f, P.MapVec):
            t = argvs[0].type
            if isinstance(f.f, P.Id):
                return f"{self.id_function(t)}({self.read(argvs[0])})"
            name = self.vector_function(f.f, t.width)
            return f"{name}({', '.join(self.read(v) for v in argvs)})"
        raise self.error(f"internal: not a user function {f!r}")  # pragma: no cover

    # ------------------------------------------------------------------ memories
    def alloc_view(self, c: FunCall, t: Type) -> View:
        m = self.alloc.of_call.get(id(c))
        if m is None:
            raise self.error("internal: no memory allocated for this result")
        if m.kind == "variable":
            return ValueView(t, mem=m)
        return MemView(m, self.alloc.outer_of_call[id(c)], t)

    # ------------------------------------------------------------------ expressions
    def emit(self, e: Expr, env, dest: Optional[View] = None) -> View:
        if isinstance(e, Literal):
            text = c_literal(e)
            if uses_double(e.type):
                self.doubles = True
            v = ValueView(e.type, expr=text)
            if dest is not None:
                self.write(dest, text)
                v = dest
        elif isinstance(e, Param):
            v = env[e.name]
            if dest is not None:
                self.write(dest, self.read(v))
                v = dest
        else:
            saved = self.span
            if e.span is not None:
                self.span = e.span
            try:
                v = self.emit_call(e, env, dest)
            finally:
                self.span = saved
        self.views[id(e)] = v
        return v

    def emit_call(self, c: FunCall, env, dest: Optional[View]) -> View:
        f = c.f
        if isinstance(f, P.LayoutPattern):
            if dest is not None:
                # scatterIdx(idx, xs): the indices are read, the data written through them
                index = None
                claims = None
                if isinstance(f, P.ScatterIdx):
                    index = self.emit(c.args[0], env)
                    if f.mode == "last":
                        claims = self.emit(c.args[1], env)
                    if f.mode == "max":
                        self.filled.add(id(dest))
                    else:
                        self.partial = True
                argd = output_view(f, dest, self.types[id(c.args[-1])], self.typed.static.get(id(f), {}),
                                   self.vars, self.span, index, claims)
                self.emit(c.args[-1], env, argd)
                return dest
            argvs = [self.emit(a, env) for a in c.args]
            return self.layout(f, argvs)
        while isinstance(f, (P.ToGlobal, P.ToLocal, P.ToPrivate)) and \
                isinstance(f.f, (UserFun, P.Id, P.MapVec, P.ToGlobal, P.ToLocal, P.ToPrivate)):
            f = f.f     # toPrivate(uf)(x): see memory.alloc
        if isinstance(f, (UserFun, P.Id, P.MapVec)):
            argvs = [self.emit(a, env) for a in c.args]
            text = self.call_text(f, argvs)
            t = self.types[id(c)]
            if dest is not None:
                self.write(dest, text)
                return dest
            if id(c) in self.alloc.inline_calls:
                return ValueView(t, expr=text)
            m = self.alloc_view(c, t)
            self.write(m, text)
            return m
        argvs = [self.emit(a, env) for a in c.args]
        return self.apply(f, c, argvs, env, dest)

    def layout(self, f: P.LayoutPattern, argvs: List[View]) -> View:
        v = layout_view(f, argvs, self.typed.app_types[id(f)], self.typed.static.get(id(f), {}),
                        self.vars, self.span)
        if isinstance(f, P.SplitOffsets) and getattr(v, "check", None) is None:
            # offsets read from an input as they are: the runtime checks them before the launch
            self.offset_checks.append(OffsetsCheck(argvs[0].mem.name, argvs[1].type.length, self.span))
        return v

    def apply(self, f: FunDecl, c: FunCall, argvs: List[View], env, dest: Optional[View]) -> View:
        if isinstance(f, Lambda):
            for p, v in zip(f.params, argvs):
                self.views[id(p)] = v
            return self.emit(f.body, extend(env, {p.name: v for p, v in zip(f.params, argvs)}), dest)
        if isinstance(f, (P.ToGlobal, P.ToLocal, P.ToPrivate)):
            return self.apply(f.f, c, argvs, env, dest)
        if isinstance(f, (UserFun, P.Id, P.MapVec)):
            text = self.call_text(f, argvs)
            if dest is None:
                raise self.error("internal: user function applied without destination")
            self.write(dest, text)
            return dest
        if isinstance(f, P.LayoutPattern):
            if dest is not None:
                raise self.error(f"{f.name}: a data-layout pattern cannot produce the result of the "
                                 f"enclosing pattern: copy the data with a user function (e.g. mapSeq(id))")
            return self.layout(f, argvs)
        if isinstance(f, P.Map):
            return self.emit_map(f, c, argvs[0], env, dest)
        if isinstance(f, P.Reduce):
            return self.emit_reduce(f, c, argvs[0], env, dest)
        if isinstance(f, P.Iterate):
            return self.emit_iterate(f, c, argvs[0], env, dest)
        if isinstance(f, P.FilterSeq):
            return self.emit_filter(f, c, argvs, env, dest)
        if isinstance(f, P.RadixSeq):
            return self.emit_radix(f, c, argvs, env, dest)
        raise self.error(f"cannot generate code for {f!r}")  # pragma: no cover

    # ------------------------------------------------------------------ loops
    def loop(self, kind: str, dim: int, var: Var, n: AExpr, shape: str, body_fn) -> None:
        if shape == "none":
            return
        if kind in SEQ_KINDS:
            if shape == "once":
                self.subst[var] = A.ZERO
                try:
                    body_fn()
                finally:
                    del self.subst[var]
                return
            nc = self.c(n)
            blk = C.Block()
            with self.inside(blk, self.thread_dependent(n)):
                name = self.bind_name(var, var.name)
                self.parent_add(C.For(f"int {name} = 0", f"{name} < {nc}", f"{name} += 1", blk))
                body_fn()
            return
        if kind not in THREAD_FUNS:  # pragma: no cover
            raise self.error(f"unknown map {kind}")
        get_id, get_size = THREAD_FUNS[kind]
        base = {"mapLcl": "l_id", "mapWrg": "wg_id", "mapGlb": "gl_id"}[kind] + (f"{dim}" if dim else "")
        if kind in ("mapLcl", "mapGlb"):
            self.thread_vars.add(var)
        divergent = kind != "mapWrg" and shape not in ("once", "uniform")
        nc = self.c(n)
        blk = C.Block()
        with self.inside(blk, divergent):
            name = self.bind_name(var, base)
            if shape == "once":
                blk.add(C.Decl("int", name, f"{get_id}({dim})"))
                self.parent_add(blk)
            elif shape == "if":
                blk.add(C.Decl("int", name, f"{get_id}({dim})"))
                self.parent_add(C.If(f"{get_id}({dim}) < {nc}", blk))
            else:
                loop = C.For(f"int {name} = {get_id}({dim})", f"{name} < {nc}",
                             f"{name} += {get_size}({dim})", blk)
                self.parent_add(loop)
                rounds = self.bind_name(self.vars.fresh("rnd", 0, 0), "rnd") if shape == "uniform" else None
            body_fn()
            if shape == "uniform" and _holds_barrier(blk):
                # every work-item runs the loop n / local size times; counted by a round number
                # all of them share, the loop's exit does not depend on the work-item: PoCL (3.1)
                # aborted the build of such a loop with a barrier inside whose exit compared
                # the work-item's index ("Could not find a dominating alternative variable")
                loop.init = f"int {rounds} = 0"
                loop.cond = f"{rounds} < ({nc}) / (int){get_size}({dim})"
                loop.step = f"{rounds} += 1"
                blk.stmts.insert(0, C.Decl("int", name, f"{get_id}({dim}) + {rounds} * (int){get_size}({dim})"))

    def parent_add(self, stmt: C.Stmt) -> None:
        """Add ``stmt`` to the block enclosing the one being generated."""
        self._parents[-1].add(stmt)

    def barrier(self, fence: str, after: str) -> None:
        if self.divergent:
            raise self.error(f"{after} needs a barrier inside control flow that not every work-item of "
                             f"the group executes (every barrier must be reached by all work-items); "
                             f"make the enclosing map run exactly once per work-item (compile with the "
                             f"global and local sizes that make it so: --global and --local on the command "
                             f"line) or restructure")
        self.block.add(C.Barrier(fence))

    # ------------------------------------------------------------------ patterns
    def emit_map(self, f: P.Map, c: FunCall, argv: View, env, dest: Optional[View]) -> View:
        var = self.typed.loop_vars[id(f)]
        n = A.add(var.hi, 1)
        d = dest if dest is not None else self.alloc_view(c, self.typed.app_types[id(f)])
        shape = self.shapes[id(f)]
        elem_in = access(argv, var)
        elem_out = access(d, var)
        if f.kind == "mapLcl" and self.divergent_kind("mapGlb"):
            raise self.error("mapLcl cannot be nested in mapGlb (use mapWrg)")
        self._kinds.append(f.kind)
        try:
            self.loop(f.kind, f.dim, var, n, shape,
                      lambda: self.apply(f.f, c, [elem_in], env, elem_out))
        finally:
            self._kinds.pop()
        fence = self.barriers.get(id(f)) if f.kind == "mapLcl" else None
        if fence:
            self.barrier(fence, f"mapLcl({f.dim})")
        return d

    def divergent_kind(self, kind: str) -> bool:
        return kind in self._kinds

    def emit_reduce(self, f: P.Reduce, c: FunCall, argv: View, env, dest: Optional[View]) -> View:
        acc: Memory = self.alloc.acc_of[id(f)]
        init_v = self.emit(f.init, env, None)
        it = self.types[id(f.init)]
        self.block.add(C.Decl(self.ctype(it), acc.name, self.read(init_v)))
        self.declared.add(id(acc))
        accv = ValueView(it, mem=acc)
        var = self.typed.loop_vars[id(f)]
        n = A.add(var.hi, 1)
        shape = self.shapes[id(f)]
        rt = self.typed.app_types[id(f)]
        if f.kind == "scanSeq":
            # each element's output is the accumulator before it (an exclusive scan)
            out = dest if dest is not None else self.alloc_view(c, rt)

            def step():
                self.write(access(out, var), acc.name)
                self.apply(f.f, c, [accv, access(argv, var)], env, accv)
            self.loop(f.kind, 0, var, n, shape, step)
            return out
        self.loop(f.kind, 0, var, n, shape,
                  lambda: self.apply(f.f, c, [accv, access(argv, var)], env, accv))
        if dest is not None:
            self.write(access(dest, 0), acc.name)
            return dest
        m = self.alloc.of_call.get(id(c))
        if m is not None and self._owns(c, f):
            mv = self.alloc_view(c, rt)
            self.write(access(mv, 0), acc.name)
            return mv
        return ValueView(rt, mem=acc)

    def emit_filter(self, f: P.FilterSeq, c: FunCall, argvs: List[View], env, dest: Optional[View]) -> View:
        """``filterSeq(p, v)(xs, slots)``: a position counter (a ``long``) from 0; each value is stored at it
        while it is below the number of slots ``k`` (no branch on the predicate), and it advances
        by the predicate's flag (0 or 1)."""
        flag: Memory = self.alloc.acc_of[id(f)]
        self.partial = True
        var = self.typed.loop_vars[id(f)]
        n = A.add(var.hi, 1)
        shape = self.shapes[id(f)]
        rt = self.typed.app_types[id(f)]
        out = dest if dest is not None else self.alloc_view(c, rt)
        k = rt.length
        pos = self.vars.fresh("pos", 0, A.sub(k, 1))
        pname = self.bind_name(pos, "pos")
        lim = self.bind_name(self.vars.fresh("lim", 0, 0), "lim")
        # a long position (x86-64 CPUs index with it without a sign extension per store: a fifth
        # faster on PoCL than an int one, the template's speed)
        self.block.add(C.Decl("long", pname, "0"))
        self.block.add(C.Decl("const long", lim, self.c(k)))
        flagv = ValueView(ScalarType("bool"), mem=flag)

        def step():
            elem = access(argvs[0], var)
            self.apply(f.f, c, [elem], env, flagv)
            blk = C.Block()
            with self.inside(blk, True):
                self.apply(f.value, c, [elem], env, access(out, pos))
            self.block.add(C.If(f"{pname} < {lim}", blk))
            self.block.add(C.Assign(pname, f"{pname} + ({flag.name} ? 1 : 0)"))
        self.loop("filterSeq", 0, var, n, shape, step)
        # the store after the last kept element wrote a rejected one there: where fewer than k
        # are kept, that slot is zeroed (the host zeroed the others, KernelParam.fill), so the
        # positions past the kept values are 0
        tail = C.Block()
        with self.inside(tail, True):
            et = rt.elem
            zero = f"(({self.ctype(et)})(0))" if isinstance(et, VectorType) else \
                f"(({self.ctype(et)}){{0}})"
            self.write(access(out, pos), zero)
        self.block.add(C.If(f"{pname} < {lim}", tail))
        return out

    def emit_radix(self, f: P.RadixSeq, c: FunCall, argvs: List[View], env, dest: Optional[View]) -> View:
        """``radixHistSeq(b, f)(xs)``: the private counters zeroed, one increment an element at
        its digit ``f(x) & (2^b - 1)`` (a private variable), then copied to the result;
        ``radixRankSeq(b, f)(xs, starts)``: the counters start at ``starts``, and each element's
        result is its digit's counter, incremented after."""
        cnt: Memory = self.alloc.acc_of[id(f)]
        dig: Memory = self.alloc.acc_of[id(c)]
        var = self.typed.loop_vars[id(f)]
        n = A.add(var.hi, 1)
        shape = self.shapes[id(f)]
        rt = self.typed.app_types[id(f)]
        out = dest if dest is not None else self.alloc_view(c, rt)
        size = A.cst(1 << f.bits)
        mask = f"{(1 << f.bits) - 1}"

        def digit_loop(body):
            d = self.vars.fresh("d", 0, A.sub(size, 1))
            self.loop("mapSeq", 0, d, size, "loop", lambda: body(d))

        if f.rank:
            digit_loop(lambda d: self.block.add(C.Assign(f"{cnt.name}[{self.c(d)}]", self.read(access(argvs[1], d)))))
        else:
            digit_loop(lambda d: self.block.add(C.Assign(f"{cnt.name}[{self.c(d)}]", "0")))
        digv = ValueView(ScalarType("int"), mem=dig)

        def step():
            self.apply(f.f, c, [access(argvs[0], var)], env, digv)
            self.block.add(C.Assign(dig.name, f"{dig.name} & {mask}"))
            if f.rank:
                self.write(access(out, var), f"{cnt.name}[{dig.name}]")
            self.block.add(C.Assign(f"{cnt.name}[{dig.name}]", f"{cnt.name}[{dig.name}] + 1"))
        self.loop(f.name, 0, var, n, shape, step)
        if not f.rank:
            digit_loop(lambda d: self.write(access(out, d), f"{cnt.name}[{self.c(d)}]"))
        return out

    def _owns(self, c: FunCall, f: FunDecl) -> bool:
        g = c.f
        while isinstance(g, (P.ToGlobal, P.ToLocal, P.ToPrivate)):
            g = g.f
        return g is f

    def emit_iterate(self, f: P.Iterate, c: FunCall, argv: View, env, dest: Optional[View]) -> View:
        info = self.typed.iterate_info[id(f)]
        k = len(info.lengths) - 1
        if k == 0:
            return argv
        if k == 1:
            d = dest if dest is not None else self.alloc_view(c, self.typed.app_types[id(f)])
            return self.apply(f.f, c, [argv], env, d)
        bufs = self.alloc.iterate[id(f)]
        elem = self.typed.app_types[id(f)].elem
        space = bufs.dst.space
        qual = "local " if space == LOCAL else ("global " if space == GLOBAL else "")
        pt = f"{qual}{self.ctype(bufs.dst.elem)}*"
        size_var = info.size_var
        size_name = None
        if size_var is not None:
            size_name = self.bind_name(size_var, "size")
            self.block.add(C.Decl("int", size_name, self.c(info.lengths[0])))
        src_init = bufs.first_src.name + ("" if bufs.src_base == A.ZERO else f" + {self.c(bufs.src_base)}")
        dst_init = bufs.first_dst.name + ("" if bufs.dst_base == A.ZERO else f" + {self.c(bufs.dst_base)}")
        self.block.add(C.Decl(pt, bufs.src.name, src_init))
        self.block.add(C.Decl(pt, bufs.dst.name, dst_init))
        cur_len = size_var if size_var is not None else info.lengths[0]
        in_view = MemView(bufs.src, (), ArrayType(elem, cur_len))
        out_t = ArrayType(elem, info.step if size_var is not None else info.lengths[0])
        out_view = MemView(bufs.dst, (), out_t)
        blk = C.Block()
        with self.inside(blk):
            it_name = self.bind_name(self.vars.fresh("iter", 0, k - 1), "iter")
            self.parent_add(C.For(f"int {it_name} = 0", f"{it_name} < {k}", f"{it_name} += 1", blk))
            self.apply(f.f, c, [in_view], env, out_view)
            if size_var is not None:
                blk.add(C.Assign(size_name, self.c(info.step)))
            tmp = self.bind_name(self.vars.fresh("swap", 0, 0), "swap")
            blk.add(C.Decl(pt, tmp, bufs.src.name))
            blk.add(C.Assign(bufs.src.name, bufs.dst.name))
            blk.add(C.Assign(bufs.dst.name, tmp))
        return MemView(bufs.src, (), ArrayType(elem, info.lengths[-1]))

    # ------------------------------------------------------------------ kernel
    def generate(self) -> GeneratedKernel:
        prog = self.typed.program
        top = C.Block(braces=False)
        env = {}
        reserved = {p.name for p in prog.params} | {v.name for v in self.typed.size_vars} | \
                   {m.name for m in self.alloc.memories} | self.c_taken
        taken = reserved | {u.name for u in _userfuns(prog.body)}
        while self.err_name in taken:
            self.err_name = "_" + self.err_name
        while self.check_name in taken:
            self.check_name = "_" + self.check_name
        while self.errbase_name in taken:
            self.errbase_name = "_" + self.errbase_name
        reserved |= {self.err_name, self.check_name, self.errbase_name}
        self.scopes.append(set(reserved))
        for p in prog.params:
            m = self.alloc.params[p.name]
            if m.kind == "scalar":
                env[p.name] = ValueView(p.type, mem=m)
            else:
                env[p.name] = MemView(m, (), p.type)
            self.views[id(p)] = env[p.name]
        rt = self.typed.result_type
        outputs = [self.alloc.output]
        out = MemView(self.alloc.output, (), rt)
        if (self.soa_output and isinstance(rt, ArrayType) and not rt.dependent
                and isinstance(rt.elem, TupleType) and all(isinstance(e, ScalarType) for e in rt.elem.elems)):
            o = self.alloc.output
            outputs = []
            for k, e in enumerate(rt.elem.elems):
                name = f"{o.name}{k}"
                while name in taken or name in reserved:
                    name = "_" + name
                reserved.add(name)
                self.scopes[-1].add(name)
                outputs.append(Memory(name, GLOBAL, e, o.size, "output"))
            out = ZipView(tuple(MemView(m, (), ArrayType(m.elem, rt.length)) for m in outputs), rt)
        self.block = top
        self.emit(prog.body, env, out)

        # declarations and parameters
        decls: List[C.Stmt] = []
        params: List[KernelParam] = []
        local_static: List[KernelParam] = []
        cparams: List[str] = []
        for p in prog.params:
            m = self.alloc.params[p.name]
            if m.kind == "scalar":
                cparams.append(f"{self.ctype(p.type)} {m.name}")
                params.append(KernelParam(m.name, "scalar", p.type))
            else:
                cparams.append(f"const global {self.ctype(m.elem)}* restrict {m.name}")
                params.append(KernelParam(m.name, "input", m.elem, m.size))
        for o in outputs:
            cparams.append(f"global {self.ctype(o.elem)}* {o.name}")
            params.append(KernelParam(o.name, "output", o.elem, o.size,
                                      -1 if self.filled else 0 if self.partial else None))
        for m in self.alloc.memories:
            if m.kind == "temp" and m.space == GLOBAL:
                cparams.append(f"global {self.ctype(m.elem)}* {m.name}")
                params.append(KernelParam(m.name, "temp", m.elem, m.size))
            elif m.kind == "local_arg":
                cparams.append(f"local {self.ctype(m.elem)}* {m.name}")
                params.append(KernelParam(m.name, "local", m.elem, m.size))
            elif m.kind == "temp" and m.space == LOCAL:
                decls.append(C.Decl(self.ctype(m.elem), m.name, array=self.c(m.size), qualifier="local"))
                local_static.append(KernelParam(m.name, "local", m.elem, m.size))
            elif m.kind == "temp" and m.space == PRIVATE:
                decls.append(C.Decl(self.ctype(m.elem), m.name, array=self.c(m.size)))
        for v in self.typed.size_vars:
            cparams.append(f"int {v.name}")
            params.append(KernelParam(v.name, "size"))
        if self.marks is not None:
            # one counter per position of the result
            cparams.append(f"global int* {self.marks_name}")
            params.append(KernelParam(self.marks_name, "marks", ScalarType("int"), outputs[0].size))
        if self.checks and self.error_base:
            cparams.append(f"global int* {self.err_name}")
            params.append(KernelParam(self.err_name, "errors", size=A.Cst(1)))
            cparams.append(f"const int {self.errbase_name}")
            params.append(KernelParam(self.errbase_name, "errbase"))
        elif self.checks:
            cparams.append(f"global int* {self.err_name}")
            params.append(KernelParam(self.err_name, "errors", size=A.Cst(1 + 2 * len(self.checks))))
        body = C.Block(decls + top.stmts, braces=False)
        pragmas = ["#pragma OPENCL EXTENSION cl_khr_fp64 : enable"] if self.doubles else []
        unit = C.Unit(pragmas, list(self.structs.values()), list(self.functions.values()),
                      C.Kernel(prog.name, cparams, body))
        src = C.print_unit(unit)
        return GeneratedKernel(unit, src, tuple(params), C.count_barriers(body), tuple(self.accesses),
                               tuple(self.checks), tuple(self.offset_checks), tuple(local_static))


def _scatter_mode(e: AExpr) -> str:
    """The mode (``"max"``, ``"last"``) of a ``scatterMaxIdx``/``scatterLastIdx`` position
    check in ``e``, or ``""``."""
    for n in A.iter_nodes(e):
        if isinstance(n, A.Lookup) and isinstance(n.array, BoundsCheck) and n.array.mode:
            return n.array.mode
    return ""


def _once_checked(e: AExpr) -> bool:
    """Whether ``e`` holds the check of a ``permuteIdx`` position (evaluated once a write)."""
    return any(isinstance(n, A.Lookup) and isinstance(n.array, BoundsCheck) and n.array.once
               for n in A.iter_nodes(e))


def _unchecked(e: AExpr) -> AExpr:
    """``e`` without its bounds checks (for messages)."""
    if isinstance(e, A.Lookup) and isinstance(e.array, BoundsCheck):
        return _unchecked(e.index)
    if isinstance(e, (A.Cst, A.Var)):
        return e
    return A.rebuild(e, _unchecked)


def _userfuns(node):
    from ..ir.expr import walk
    return [n for n in walk(node) if isinstance(n, UserFun)]


def _bool_fields(t: Type, path: str = "") -> list:
    """The C access paths (``._1._0``) of the bool components of a tuple type."""
    if not isinstance(t, TupleType):
        return []
    out = []
    for k, e in enumerate(t.elems):
        if e == ScalarType("bool"):
            out.append(f"{path}._{k}")
        else:
            out += _bool_fields(e, f"{path}._{k}")
    return out


#: OpenCL built-ins overloaded on float vectors with the meaning they have on scalars
_VECTOR_MATH = frozenset("""sqrt rsqrt cbrt exp exp2 exp10 expm1 log log2 log10 log1p sin cos tan
asin acos atan atan2 sinh cosh tanh fabs fmin fmax fma mad pow pown hypot floor ceil round trunc
copysign min max clamp mix step smoothstep native_sqrt native_rsqrt native_exp native_log
native_sin native_cos native_recip native_divide""".split())


#: the largest value of the element types whose vectors ``mapVec`` may apply a body to
_INT_MAX = {"int": 2**31 - 1, "long": 2**63 - 1}


def _int_literal_fits(tok: str, elem: str) -> bool:
    """Whether the unsuffixed C integer literal ``tok`` (decimal, or octal with a leading 0) has
    the type ``elem`` (``int``, ``long``), i.e. is at most its largest value: C gives a larger
    decimal literal the next wider type, a larger octal one an unsigned type."""
    try:
        value = int(tok, 8) if len(tok) > 1 and tok[0] == "0" else int(tok)
    except ValueError:          # ``09``: not a C literal, left to the scalar function
        return False
    return value <= _INT_MAX[elem]


def _vectorisable(uf) -> bool:
    """Whether ``mapVec(uf)`` may apply ``uf``'s body retyped to vectors (Lift's vectorised user
    function): a single ``return`` of arithmetic (``+ - * /``, parentheses) on the parameters,
    numbers and float built-ins overloaded on vectors, all parameters and the result of one float
    or int type.  Anything else -- a comparison, ``!``, ``&&``, ``?:``, a cast, a char or bool
    operand -- means something else on vectors (a vector comparison is -1 where true, a vector
    ``?:`` selects on the sign bit) or does not build, so the scalar function is applied to
    each component instead."""
    m = re.fullmatch(r"\s*return\b([^;{}]*);\s*", uf.body)
    if m is None:
        return False
    ts = set(map(str, uf.param_types)) | {str(uf.ret_type)}
    if len(ts) != 1 or next(iter(ts)) not in ("float", "double", "int", "long"):
        return False
    elem = next(iter(ts))
    expr = m.group(1)
    names = set(uf.param_names)
    for tok in re.findall(r"[A-Za-z_][A-Za-z_0-9]*|\d[\w.]*|\S", expr):
        if tok in "+-*/(),":
            continue
        if tok[0].isdigit():
            if elem in ("int", "long"):
                # an unsuffixed decimal (or octal) literal of the element type: a larger one is
                # a ``long``/``ulong`` (or ``unsigned``), which OpenCL does not convert to a
                # narrower vector element (``int4 - 2147483648`` does not build)
                if not re.fullmatch(r"\d+", tok) or not _int_literal_fits(tok, elem):
                    return False
            elif elem == "float" and not re.fullmatch(r"\d+|(\d+\.\d*|\d*\.\d+)(e[+-]?\d+)?f", tok, re.I):
                return False
            continue
        if tok in names:
            continue
        if elem in ("float", "double") and tok in _VECTOR_MATH:
            continue
        return False
    return True
