"""Shape analysis of fusion: the one place where sizes of λcu values are canonicalised.

A *shape* is a structured, hashable value (the frozen dataclasses below) standing for an integer
known only symbolically: an iteration size, the length of a vector, the number of elements or
segments of a segment descriptor.  Equal shapes mean equal numbers at run time; different
shapes mean "not known to be equal".  Fusion decides with shapes only (PDG node sizes and
horizontal pairs in ``pdg``, rule applicability in ``rewrite``), never with printed IR: the
opaque parts of a shape are λcu expressions themselves (compared structurally, after dropping
what does not change their value: source locations and the integer type of lengths;
:func:`value_exp`).  ``str(shape)`` is for display only (DOT labels).

Two scopes, one analysis:

* :class:`RegionShapes` — the CPU level of one control region: a name bound by the region is
  followed to its definition (``n = #xs``, aliases, ``make_sd``, the results of single-SOAC
  kernel runs); a parameter or an opaque binding is a symbol of its own.
* :class:`KernelShapes` — the kernel level: SOAC iteration sizes and result lengths inside one
  kernel, the kernel's parameters resolved by ``param_shapes`` (region shapes of the
  arguments).  The region analysis computes the iteration size of a run through this same
  kernel analysis (:meth:`RegionShapes.iteration`), so the SOAC rules are written once
  (:func:`_result_len`).

Shape values:
  ``Known(v)``                an integer constant
  ``IntOf(e, scope)``         the value of an int expression (a parameter ``Var`` or opaque)
  ``LenOf(e, scope)``         the length of a vector expression (a parameter ``Var`` or opaque)
  ``ResultLen(k, j)``         the length of result ``j`` of region binding ``k``, not known
  ``Filtered(at, part)``      the fresh output length of a transducer (FILTER, PARTITION part;
                              ``at``: region binding index or kernel variable name)
  ``SegDes(e, scope)``        a segment descriptor known only by name/expression
  ``MadeSegDes(e, segs)``     a descriptor made by ``make_sd``: only its segment count known
  ``FilteredSegDes(at)``      the descriptor output of a SEG_FILTER
  ``Elems(sd)``, ``Segs(sd)`` the element / segment counts of a descriptor shape
"""
from __future__ import annotations

import dataclasses
import enum
from dataclasses import dataclass
from typing import Callable, Mapping, Optional, Union

from .. import ir
from ..types import INT, IntT, SegDesT, VecT

#: SOACs whose results have the SOAC's iteration size
SIZE_PRESERVING = frozenset({"MAP", "SCAN", "PERMUTE", "RANK", "SEG_SCAN", "SEG_PERMUTE",
                             "SEG_RANK"})


class Scope(enum.Enum):
    """Where a name in a shape is bound: the region's CPU code or a kernel."""
    CPU = "cpu"
    KERNEL = "kernel"


class Shape:
    """Base class of shape values (frozen dataclasses, compared and hashed structurally)."""
    __slots__ = ()


@dataclass(frozen=True)
class Known(Shape):
    value: object

    def __str__(self) -> str:
        return str(self.value)


@dataclass(frozen=True)
class IntOf(Shape):
    exp: ir.Exp
    scope: Scope = Scope.CPU

    def __str__(self) -> str:
        if self.scope is Scope.KERNEL:
            return f"kint({self.exp})"
        return self.exp.name if isinstance(self.exp, ir.Var) else f"exp({self.exp})"


@dataclass(frozen=True)
class LenOf(Shape):
    vec: ir.Exp
    scope: Scope = Scope.CPU

    def __str__(self) -> str:
        return ("#" if self.scope is Scope.CPU else "klen #") + str(self.vec)


@dataclass(frozen=True)
class ResultLen(Shape):
    bind: int
    part: int

    def __str__(self) -> str:
        return f"len({self.bind}, {self.part})"


@dataclass(frozen=True)
class Filtered(Shape):
    at: Union[int, str]
    part: Optional[int] = None
    scope: Scope = Scope.CPU

    def __str__(self) -> str:
        tag = "filt" if self.scope is Scope.CPU else "kfilt"
        return f"{tag}({self.at}" + ("" if self.part is None else f", {self.part}") + ")"


@dataclass(frozen=True)
class SegDes(Shape):
    exp: ir.Exp
    scope: Scope = Scope.CPU

    def __str__(self) -> str:
        return ("sd" if self.scope is Scope.CPU else "ksd") + f"({self.exp})"


@dataclass(frozen=True)
class MadeSegDes(Shape):
    exp: ir.Exp
    segs: Shape

    def __str__(self) -> str:
        return f"mksd({self.exp}, {self.segs})"


@dataclass(frozen=True)
class FilteredSegDes(Shape):
    at: Union[int, str]
    scope: Scope = Scope.CPU

    def __str__(self) -> str:
        return ("sdout" if self.scope is Scope.CPU else "ksdout") + f"({self.at})"


@dataclass(frozen=True)
class Elems(Shape):
    sd: Shape

    def __str__(self) -> str:
        return f"elems({self.sd})"


@dataclass(frozen=True)
class Segs(Shape):
    sd: Shape

    def __str__(self) -> str:
        return f"segs({self.sd})"


# --------------------------------------------------------------------------------------------
# opaque expressions
# --------------------------------------------------------------------------------------------

def value_exp(e):
    """``e`` without what does not change its value: source locations (``loc``) and the integer
    type of lengths / descriptor vectors.  Two opaque size expressions are the same shape iff
    these are equal."""
    if isinstance(e, tuple):
        xs = tuple(value_exp(x) for x in e)
        return e if all(a is b for a, b in zip(xs, e)) else xs
    if not isinstance(e, ir.Node) or not dataclasses.is_dataclass(e):
        return e
    changes = {}
    for f in dataclasses.fields(e):
        v = getattr(e, f.name)
        if f.name == "loc" and not isinstance(e, (ir.Check, ir.Error)):
            nv = None
        elif f.name == "ity" and isinstance(e, (ir.Length, ir.SegVec)):
            nv = INT
        else:
            nv = value_exp(v)
        if nv is not v:
            changes[f.name] = nv
    return dataclasses.replace(e, **changes) if changes else e


# --------------------------------------------------------------------------------------------
# the SOAC rules (both scopes)
# --------------------------------------------------------------------------------------------

def _result_len(soac: ir.Soac, j: int, at, scope: Scope, an, fallback: Shape) -> Shape:
    """Length of result ``j`` of ``soac`` (bound at ``at``: a region binding index or a kernel
    variable), ``an`` the analysis seeing the SOAC's operands."""
    kind = soac.NAME
    if kind in ("FILTER", "SEG_FILTER") or (kind == "PARTITION" and j == 0):
        return Filtered(at, None, scope)
    if kind in ("PARTITION", "SEG_PARTITION"):
        return Filtered(at, j, scope)
    if kind in SIZE_PRESERVING:
        it = an.soac_iteration(soac)
        return it if it is not None else fallback
    if kind == "SCATTER" and soac.dsts:
        n = an.len_shape(soac.dsts[0])           # a copy of its destination
        return n if n is not None else fallback
    if kind == "SEG_REDUCE":
        sd = an.sd_shape(soac.sd)
        return an.segs(sd) if sd is not None else fallback
    return fallback


# --------------------------------------------------------------------------------------------
# kernel level
# --------------------------------------------------------------------------------------------

class KernelShapes:
    """Canonical sizes inside a kernel with bindings ``binds``.

    ``param_shapes`` gives, for kernel parameters, the region-level shape (int parameter: its
    value; vector: its length; descriptor: the descriptor); ``elems``/``segs`` build the
    element/segment counts of a region descriptor shape.  With ``opaque=True`` (the default) a
    name or expression not resolved is a kernel-scope symbol of its own; with ``opaque=False``
    the answer is None (the kernel's own names mean nothing outside one run)."""

    def __init__(self, binds=(), param_shapes: Mapping[str, Shape] | None = None,
                 elems: Callable | None = None, segs: Callable | None = None,
                 opaque: bool = True):
        self.param_shapes = dict(param_shapes or {})
        self._elems = elems or Elems
        self._segs = segs or Segs
        self.opaque = opaque
        self.def_of = {}
        for b in binds:
            for j, v in enumerate(b.vars):
                self.def_of[v.name] = (b, j)

    def _sym(self, cls, e):
        return cls(value_exp(e), Scope.KERNEL) if self.opaque else None

    def int_shape(self, e: ir.Exp):
        if isinstance(e, ir.Const):
            return Known(e.value)
        if isinstance(e, ir.Var):
            s = self.param_shapes.get(e.name)
            return s if s is not None else self._sym(IntOf, e)
        if isinstance(e, ir.Length):
            return self.len_shape(e.vec)
        return self._sym(IntOf, e)

    def len_shape(self, v: ir.Exp):
        if isinstance(v, ir.SegVec):
            sd = self.sd_shape(v.sd)
            if sd is None:
                return None
            return self.elems(sd) if v.field == "ids" else self.segs(sd)
        if isinstance(v, ir.Var):
            if v.name in self.def_of:
                b, j = self.def_of[v.name]
                return _result_len(b.soac, j, b.vars[0].name, Scope.KERNEL, self,
                                   LenOf(v, Scope.KERNEL))
            s = self.param_shapes.get(v.name)
            return s if s is not None else self._sym(LenOf, v)
        return self._sym(LenOf, v)

    def sd_shape(self, e: ir.Exp):
        if isinstance(e, ir.Var):
            if e.name in self.def_of:
                b, j = self.def_of[e.name]
                if b.soac.NAME == "SEG_FILTER":
                    return FilteredSegDes(b.vars[0].name, Scope.KERNEL)
                return SegDes(e, Scope.KERNEL)
            s = self.param_shapes.get(e.name)
            return s if s is not None else self._sym(SegDes, e)
        return self._sym(SegDes, e)

    def elems(self, sd: Shape) -> Shape:
        if isinstance(sd, FilteredSegDes) and sd.scope is Scope.KERNEL:
            return Filtered(sd.at, None, Scope.KERNEL)
        return self._elems(sd)

    def segs(self, sd: Shape) -> Shape:
        return self._segs(sd)

    def soac_iteration(self, s: ir.Soac):
        """Iteration size of SOAC ``s`` (None for ONCE, or when not resolved)."""
        if s.SEGMENTED:
            sd = self.sd_shape(s.sd)
            return None if sd is None else self.elems(sd)
        if isinstance(s, ir.Once):
            return None
        return self.int_shape(s.size)

    # the name the rewrite rules use
    iteration = soac_iteration

    def filtered(self, var: ir.Var) -> Shape:
        """The output length of the FILTER binding ``var`` (its first result)."""
        return Filtered(var.name, None, Scope.KERNEL)


# --------------------------------------------------------------------------------------------
# region level
# --------------------------------------------------------------------------------------------

class RegionShapes:
    """Canonical shapes of the CPU expressions of one region (bindings ``binds``).

    ``run_soacs`` maps a binding index to ``(soac, kernel parameter -> CPU argument)`` for the
    runs of single-SOAC kernels.  Equalities asserted by ``check`` bindings are *not* used:
    they hold only once the check has passed, and using them would let kernels before the
    check (or a failing one) be fused as if their sizes were equal."""

    def __init__(self, binds: tuple, run_soacs: Mapping[int, tuple]):
        self.binds = binds
        self.run_soacs = run_soacs
        self.defs: dict[str, tuple[int, int]] = {}
        for k, b in enumerate(binds):
            for j, p in enumerate(b.params):
                self.defs[p.name] = (k, j)
        #: shapes already found, by (question, expression): the analysis follows definitions
        #: back through the region, and without this a deeply nested literal (300 levels of
        #: ``[[...]]``) asked the same questions again at every level (fusion took minutes)
        self._memo: dict = {}
        self._views: dict = {}

    def _single_def(self, name):
        d = self.defs.get(name)
        if d is None:
            return None
        k, j = d
        return k, j, self.binds[k]

    # CPU expressions ----------------------------------------------------------------------
    def int_shape(self, e: ir.Exp) -> Shape:
        key = ("int_shape", e)
        if key not in self._memo:
            self._memo[key] = self._int_shape(e)
        return self._memo[key]

    def _int_shape(self, e: ir.Exp) -> Shape:
        if isinstance(e, ir.Const):
            return Known(e.value)
        if isinstance(e, ir.Length):
            return self.len_shape(e.vec)
        if isinstance(e, ir.Var):
            d = self._single_def(e.name)
            if d and len(d[2].params) == 1 and not isinstance(d[2].rhs, (ir.Run, ir.Call, ir.If, ir.Block,
                                                                              ir.Speculate)):
                return self.int_shape(d[2].rhs)
            return IntOf(e)
        return IntOf(value_exp(e))

    def len_shape(self, e: ir.Exp) -> Shape:
        key = ("len_shape", e)
        if key not in self._memo:
            self._memo[key] = self._len_shape(e)
        return self._memo[key]

    def _len_shape(self, e: ir.Exp) -> Shape:
        if isinstance(e, ir.SegVec):
            sd = self.sd_shape(e.sd)
            return self.elems(sd) if e.field == "ids" else self.segs(sd)
        if isinstance(e, ir.VecLit):
            return Known(len(e.elems))
        if isinstance(e, ir.Var):
            d = self._single_def(e.name)
            if d:
                k, j, b = d
                if isinstance(b.rhs, ir.Run) and k in self.run_soacs:
                    return self.result_len(k, j)
                if len(b.params) == 1 and isinstance(b.rhs, (ir.Var, ir.SegVec, ir.VecLit)):
                    return self.len_shape(b.rhs)
            return LenOf(e)
        return LenOf(value_exp(e))

    def sd_shape(self, e: ir.Exp) -> Shape:
        key = ("sd_shape", e)
        if key not in self._memo:
            self._memo[key] = self._sd_shape(e)
        return self._memo[key]

    def _sd_shape(self, e: ir.Exp) -> Shape:
        if isinstance(e, ir.Var):
            d = self._single_def(e.name)
            if d:
                k, j, b = d
                if isinstance(b.rhs, ir.Run) and k in self.run_soacs:
                    soac, _ = self.run_soacs[k]
                    if isinstance(soac, ir.SegFilter) and j == 1:
                        return FilteredSegDes(k)
                if len(b.params) == 1 and isinstance(b.rhs, ir.Var):
                    return self.sd_shape(b.rhs)
                if len(b.params) == 1 and isinstance(b.rhs, ir.MakeSegDes):
                    # a descriptor of its own: only its number of segments is known
                    return MadeSegDes(e, self.len_shape(b.rhs.lengths))
            return SegDes(e)
        if isinstance(e, ir.MakeSegDes):
            return MadeSegDes(value_exp(e), self.len_shape(e.lengths))
        return SegDes(value_exp(e))

    def elems(self, sd: Shape) -> Shape:
        if isinstance(sd, FilteredSegDes) and sd.scope is Scope.CPU:
            return Filtered(sd.at)
        return Elems(sd)

    def segs(self, sd: Shape) -> Shape:
        if isinstance(sd, FilteredSegDes) and sd.scope is Scope.CPU:
            return self.segs(self.run_view(sd.at).sd_shape(self.run_soacs[sd.at][0].sd))
        if isinstance(sd, MadeSegDes):
            return sd.segs
        return Segs(sd)

    def param_shape(self, ty, arg: ir.Exp) -> Shape | None:
        """The shape a kernel parameter of type ``ty`` gets from the CPU argument ``arg``:
        an int its value, a vector its length, a descriptor the descriptor."""
        if isinstance(ty, IntT):
            return self.int_shape(arg)
        if isinstance(ty, VecT):
            return self.len_shape(arg)
        if isinstance(ty, SegDesT):
            return self.sd_shape(arg)
        return None

    # runs ---------------------------------------------------------------------------------
    def run_view(self, k: int) -> KernelShapes:
        """The kernel-level analysis of run ``k``'s SOAC, its parameters seen through the
        run's arguments (no kernel-scope symbols: unresolved means unknown)."""
        v = self._views.get(k)
        if v is None:
            v = self._views[k] = _RunView(self, self.run_soacs[k][1])
        return v

    def iteration(self, k: int):
        """Iteration size of run node ``k`` (None if unknown)."""
        info = self.run_soacs.get(k)
        if info is None:
            return None
        return self.run_view(k).soac_iteration(info[0])

    def kernel_sd(self, k: int):
        """The descriptor shape of run ``k``'s segmented SOAC (None if unknown)."""
        soac, _ = self.run_soacs[k]
        return self.run_view(k).sd_shape(soac.sd)

    def result_len(self, k: int, j: int) -> Shape:
        key = ("result_len", k, j)
        if key not in self._memo:
            soac, _ = self.run_soacs[k]
            self._memo[key] = _result_len(soac, j, k, Scope.CPU, self.run_view(k), ResultLen(k, j))
        return self._memo[key]


class _RunView(KernelShapes):
    """A single-SOAC kernel seen from the region: a parameter is its argument's region shape
    (by how it is used: ``#p`` a length, ``p`` an int, ``seg_*(p)`` a descriptor)."""

    def __init__(self, region: RegionShapes, args: Mapping[str, ir.Exp]):
        super().__init__((), None, region.elems, region.segs, opaque=False)
        self.region = region
        self.args = args

    def int_shape(self, e):
        if isinstance(e, ir.Var) and e.name in self.args:
            return self.region.int_shape(self.args[e.name])
        return super().int_shape(e)

    def len_shape(self, v):
        if isinstance(v, ir.Var) and v.name in self.args:
            return self.region.len_shape(self.args[v.name])
        return super().len_shape(v)

    def sd_shape(self, e):
        if isinstance(e, ir.Var) and e.name in self.args:
            return self.region.sd_shape(self.args[e.name])
        return super().sd_shape(e)

    def elems(self, sd):
        return self.region.elems(sd)
