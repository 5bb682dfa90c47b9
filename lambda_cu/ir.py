"""The λcu intermediate representation (Reppy & Wingerter, Fig. 1, extended for flattened NESL).

λcu is an explicitly typed, monomorphic, three-level language:

* the **CPU level**: a :class:`Program` of kernels, functions and a main body.  Host code is
  sequential, may recurse, and dispatches data-parallel work with ``run K args``;
* the **kernel level**: a :class:`Kernel` is a sequence of SOAC applications
  (``let xs = SOAC args``) followed by ``return ys``;
* the **GPU level**: a :class:`Thunk` ``{ xs => e using ys }`` is a first-order function over
  scalars/tuples whose body may subscript the vectors named in its ``using`` list.

Every node is a frozen dataclass; sequences are tuples (constructors convert lists).  Nodes compare
and hash structurally, so passes can use them as dictionary keys and rebuild them with
``dataclasses.replace``.  ``str(node)`` gives the concrete syntax (``lambda_cu.printer``).
Types live in ``lambda_cu.types``, the scalar primitives in ``lambda_cu.prims``.

Variables and binders
---------------------
``Var(name)``            a variable occurrence (names are plain strings; shadowing is allowed
                         inside thunks, passes should generate unique names at the CPU level).
``Param(var, ty)``       a typed binder ``x : t`` (function/kernel/thunk parameters, CPU lets).

Expressions (class :class:`Exp`)
--------------------------------
Shared by the CPU and the GPU level:

``Const(value, ty)``     a base constant: ``int`` value for ``IntT``, ``float`` for ``FloatT``,
                         ``bool`` for ``BoolT``, a one-character ``str`` for ``CharT``, ``None``
                         for ``UnitT`` (printed ``()``).
``Tuple(elems)``         tuple construction ``(e1, ..., ek)``.
``Proj(tup, index)``     projection of component ``index`` (0-based), printed ``e.index``.
``PrimOp(op, args, ty, loc)``  a scalar primitive of ``lambda_cu.prims`` (``ty``: result integer
                         type of the int conversions; ``loc``: source location reported if the
                         operation fails, e.g. an integer division by zero).

Every ``loc`` field is a :class:`lambda_cu.loc.Loc` (the front end's source range) or ``None``;
``Check``/``Error`` print theirs as a string, ``"?"`` for ``None``.
``Length(vec, ity)``     ``#vec``, the number of elements of a vector, as an ``ity`` integer
                         (default ``int``).  At the GPU level ``vec`` is a ``Var`` in ``using`` or
                         a ``SegVec``; at the CPU level any vector-valued expression.
``SegVec(sd, field, ity)``  a vector derived from a segment descriptor, printed
                         ``seg_lengths(sd)``, ``seg_offsets(sd)`` or ``seg_ids(sd)``:
                         ``lengths`` has one entry per segment, ``offsets`` too (exclusive scan
                         of the lengths: start of each segment in the data), ``ids`` one entry per
                         *element* (the number of the segment holding it).  So
                         ``#seg_lengths(sd)`` is the number of segments and ``#seg_ids(sd)`` the
                         total number of elements.  Cost: the lengths are the descriptor itself;
                         offsets (O(#segments)) and ids (O(#elements)) are derived on first use
                         and cached in the descriptor, never recomputed.  At the GPU level
                         ``sd`` is a ``Var`` of type ``sd`` listed in ``using`` and a ``SegVec``
                         may only be subscripted or measured (``seg_ids(sd)[i]``,
                         ``#seg_lengths(sd)``); at the CPU level it is an ordinary vector value.

GPU level only (thunk bodies):

``Index(vec, idx, loc)`` ``vec[idx]``: element ``idx`` of a vector (a ``Var`` in ``using`` or a
                         ``SegVec``); out of range -> ``RUNTIME ERROR: Sequence reference (a[i])
                         out of bounds.`` at ``loc``.
``If(cond, then, else_)``  conditional; only the branch selected for each index is evaluated.
                         (Also used at the CPU level, see below.)
``Let(vars, rhs, body)`` ``let x = e in e'`` (one var) or ``let (x1, ..., xk) = e in e'``
                         (destructures a k-tuple).

CPU level only:

``Block(binds, result)`` ``{ let ... return e }``: a sequence of :class:`Bind` then a result.
                         Blocks are the *control regions* of the fusion pass.
``If(cond, then, else_)``  host conditional ``if e then blk else blk``; flattening puts Blocks in
                         both branches (any CPU expression is accepted by the checker).
``Run(kernel, args)``    ``run K (args)``: launch kernel ``K``; its value is the kernel's result
                         (a tuple when the kernel returns several values).
``Call(func, args)``     call of a CPU function (recursion allowed).
``VecLit(elems, elem)``  ``[e1, ..., ek] : [b]``: a vector built from host scalars (``elems``
                         may be empty: the empty-vector constant ``[] : [b]``).
``MakeSegDes(lengths, loc)``  ``make_sd(lengths)``: the segment descriptor whose segment lengths
                         are the ``[int]`` vector ``lengths`` (negative length -> runtime error).
``Check(cond, loc, message)``  ``check(cond, "loc", "message")`` of type ``unit``: aborts the run
                         with ``LcuRuntimeError(loc, message)`` when ``cond`` is false (length
                         mismatches, bounds checks decided on the host, ...).
``Error(ty, loc, message)``  ``error : t ("loc", "message")``: aborts unconditionally; has any type
                         ``ty`` (used in the branch of an ``if`` that cannot succeed).
``Extern(name, args, ty, loc)``  ``extern name (args) : t``: a call of a *host library function*
                         supplied by the runtime (``Interpreter(..., externs=...)``): I/O,
                         printing values as strings, the random-number generator, clocks —
                         operations that are sequential or stateful by nature.  Its arguments
                         and result are CPU values of the declared types; it may have effects,
                         so passes never remove, duplicate or reorder it.
``Speculate(size, fast, slow)``  ``speculate (size) blk else replay blk``: evaluates the Block
                         ``fast``; if it raises a NESL runtime error (an ``LcuRuntimeError``, a
                         kernel's error included, or a recursion too deep), its results are
                         discarded and the Block ``slow`` is evaluated instead; both have the
                         same type.  ``size`` (an int) is the largest context ``fast`` makes a
                         batched call in: the executor bounds the speculation with it (a
                         ``fast`` block whose work grows past the bound is given up, as failed).
                         The flattener's *speculative batching*: ``fast`` makes sibling calls
                         of a function that may fail (but has no effect) as one batched call,
                         ``slow`` makes them one after the other, in source order, so a failure
                         reports the error the source order raises first.  ``fast`` must have
                         no effect; each Block is a control region of its own (as a branch).

Normal form produced by flattening: ``Run``, ``Call``, ``If`` and ``Speculate`` appear as the right-hand side of
a ``Bind`` or as the result of a ``Block``, so that the fusion pass sees every kernel launch as a
binding of its control region.

Bindings, kernels, thunks, SOACs
--------------------------------
``Bind(params, rhs)``    CPU binding ``let x : t = e`` (one param: binds the whole value),
                         ``let (x1 : t1, ..., xk : tk) = e`` (k >= 2: destructures a k-tuple), or
                         ``let _ = e`` (no param: evaluates and discards, e.g. a ``Check``).
``Thunk(params, body, using)``  ``{ (x1, ..., xk) => e using y1, ..., ym }``.  ``params`` are typed
                         (GPU-level types); ``body`` may mention only the params, its own
                         let-bound variables and the variables in ``using`` (scalars, tuples,
                         vectors and segment descriptors of the enclosing kernel).
``KBind(vars, soac)``    kernel binding ``let (x1, ..., xk) = SOAC ...``: one variable per
                         component of the SOAC's result (τ↑ is a tuple of vectors: a MAP whose
                         thunk returns (int, float) binds two vectors).
``Kernel(name, params, results, binds, returns)``
                         ``kernel K (params) -> results { binds return (ys) }``; ``returns`` may
                         name SOAC results and parameters.

SOACs (class :class:`Soac`).  ``size`` is the iteration space of an unsegmented SOAC, an
integer-valued *size expression*: a ``Var``, an int ``Const`` or ``Length(v)`` of a vector
variable / ``SegVec`` (``#xs``), kept symbolic so that fusion can compare shapes.  ``sd`` is the
segment-descriptor ``Var`` of a segmented SOAC (its iteration space is ``#seg_ids(sd)``
elements in ``#seg_lengths(sd)`` segments).  ``f`` is the pull thunk ``int => τ`` (applied to the
indices ``0..n-1``); monoid thunks ``op`` have type ``τ × τ => τ`` and ``init`` (a tuple of
expressions over the kernel's scalars, one per component of τ) is combined *on the left*:
``REDUCE`` computes ``init ⊕ x0 ⊕ ... ⊕ x(n-1)`` (``init`` should be the identity of ``op``).

==================  ==================================================  ==============================
SOAC                signature                                           result
==================  ==================================================  ==============================
MAP f n             (int ⇒ τ) int → τ↑                                  ``Y[i] = f(i)``
PERMUTE f g n       (int ⇒ τ) (int ⇒ int) int → τ↑                      ``Y[g(i)] = f(i)``; g must be a
                                                                        permutation of 0..n-1 (else error)
SCATTER (ds) f g n  τ↑ (int ⇒ τ) (int ⇒ int) int → τ↑                   copy of ``ds`` then
                                                                        ``Y[g(i)] = f(i)``; indices in range
                                                                        (else error); on repeated indices an
                                                                        arbitrary writer wins (NESL ``<-``)
REDUCE f v op n     (int ⇒ τ) τ (τ × τ ⇒ τ) int → τ                     ``v ⊕ f(0) ⊕ ... ⊕ f(n-1)``
SCAN f v op n       (int ⇒ τ) τ (τ × τ ⇒ τ) int → τ↑                    exclusive: ``Y[i] = v ⊕ f(0) ⊕ ..
                                                                        ⊕ f(i-1)``
FILTER f p n        (int ⇒ τ) (τ ⇒ bool) int → τ↑                       the ``f(i)`` with ``p(f(i))``, in order
PARTITION f p n     (int ⇒ τ) (τ ⇒ bool) int → τ↑ × τ↑                  (kept, rejected), both in order
ONCE f              (unit ⇒ τ) → τ                                      ``f()`` on one GPU thread
RANK f n            (int ⇒ o) int → [int]                               ``Y[i]`` = position of ``f(i)`` in
                                                                        the stable sort of the keys (o ordinal;
                                                                        ``descending`` for NESL rank_down)
SEG_REDUCE f v op sd   (int ⇒ τ) τ (τ × τ ⇒ τ) sd → τ↑                  one reduction per segment (empty
                                                                        segment -> ``v``)
SEG_SCAN f v op sd     (int ⇒ τ) τ (τ × τ ⇒ τ) sd → τ↑                  exclusive scan restarted at ``v`` in
                                                                        each segment
SEG_FILTER f p sd      (int ⇒ τ) (τ ⇒ bool) sd → τ↑ × sd                kept values + descriptor of the kept
                                                                        counts per segment
SEG_PARTITION f p sd   (int ⇒ τ) (τ ⇒ bool) sd → τ↑ × sd × τ↑ × sd      kept, its sd, rejected, its sd
SEG_PERMUTE f g sd     (int ⇒ τ) (int ⇒ int) sd → τ↑                    ``g(i)`` is a position *within* the
                                                                        segment of ``i``; a permutation of each
                                                                        segment (else error)
SEG_RANK f sd          (int ⇒ o) sd → [int]                             rank within each segment
==================  ==================================================  ==============================

(``f``/``g``/``p`` are applied to the global element index ``i`` in ``0..#seg_ids(sd)-1`` in the
segmented forms; ``seg_ids(sd)[i]``, ``seg_offsets(sd)[...]`` give the segment structure.)  MAP has
no segmented form: a MAP over ``#seg_ids(sd)`` elements is the lifted map.  A gather ``v[idx[i]]``
(including segmented gathers computed with ``seg_offsets``) is a MAP whose thunk subscripts.
``RANK``/``SEG_RANK`` are the library sorting kernels the paper's footnote 3 mentions
(``sort(v) = permute(v, rank(v))``).

Program
-------
``Function(name, params, result, body)``  ``function f (params) -> t { body }``.
``Program(kernels, functions, main)``  ``main`` is a tuple of top-level :class:`Bind`, one per NESL
top-level item (``let it : t = e`` for an expression).  ``prog.kernel(name)`` and
``prog.function(name)`` look definitions up.

Helpers: :func:`free_vars` (free variable names of an expression), :func:`ordered_free_vars`
(the same in order of first occurrence, thunks allowed), :func:`thunk_free_vars`,
:func:`soac_reads` (variables a SOAC reads: the PDG's data edges) and small constructors
(:func:`var`, :func:`param`, :func:`const`, :func:`prim`, :func:`seg_count`, :func:`seg_total`,
...).
"""

from __future__ import annotations

import importlib

from dataclasses import dataclass, field
from typing import ClassVar, Iterable, Optional, Union

from .loc import Loc
from .types import (BOOL, CHAR, FLOAT, INT, UNIT, BoolT, CharT, FloatT, IntT, Type, UnitT,
                    is_base)


def _tup(x: Iterable) -> tuple:
    return x if isinstance(x, tuple) else tuple(x)


class Node:
    """Base class of all λcu nodes; ``str()`` prints concrete syntax: ``lambda_cu.printer``,
    which imports this module and installs its ``pretty`` as ``Node._pretty`` when it is loaded
    (so this module imports nothing above it).  A node printed before anything loaded the
    printer loads it by name -- the package's ``__init__`` does not import it, so that the
    modules every stage uses (``lambda_cu.loc``, ``lambda_cu.support``) load without the IR
    (``nessie check`` starts in under 0.3 s of CPU)."""

    __slots__ = ()

    _pretty = None

    def __str__(self) -> str:
        if Node._pretty is None:
            importlib.import_module("lambda_cu.printer")
        return type(self)._pretty(self)


# --------------------------------------------------------------------------------------------
# variables and binders


@dataclass(frozen=True)
class Exp(Node):
    """Base class of expressions (CPU and GPU level)."""


@dataclass(frozen=True)
class Var(Exp):
    """A variable occurrence ``x``."""

    name: str

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise ValueError(f"variable name must be a non-empty string, not {self.name!r}")


@dataclass(frozen=True)
class Param(Node):
    """A typed binder ``x : t``."""

    var: Var
    ty: Type

    def __post_init__(self) -> None:
        if isinstance(self.var, str):
            object.__setattr__(self, "var", Var(self.var))
        if not isinstance(self.ty, Type):
            raise TypeError(f"Param type must be a Type, not {self.ty!r}")

    @property
    def name(self) -> str:
        return self.var.name


# --------------------------------------------------------------------------------------------
# shared expressions


@dataclass(frozen=True)
class Const(Exp):
    """A base-type constant (see the module docstring for the Python value of each type)."""

    value: object
    ty: Type

    def __post_init__(self) -> None:
        t, v = self.ty, self.value
        if isinstance(t, IntT):
            if isinstance(v, bool) or not isinstance(v, int):
                raise TypeError(f"int constant needs a Python int, not {v!r}")
            lo, hi = -(1 << (t.width - 1)), (1 << (t.width - 1)) - 1
            if not lo <= v <= hi:
                raise ValueError(f"constant {v} does not fit in {t}")
        elif isinstance(t, FloatT):
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                raise TypeError(f"float constant needs a Python float, not {v!r}")
            object.__setattr__(self, "value", float(v))
        elif isinstance(t, BoolT):
            if not isinstance(v, bool):
                raise TypeError(f"bool constant needs a Python bool, not {v!r}")
        elif isinstance(t, CharT):
            if not (isinstance(v, str) and len(v) == 1 and ord(v) < 256):
                raise TypeError(f"char constant needs a one-character str (code < 256), not {v!r}")
        elif isinstance(t, UnitT):
            if v is not None:
                raise TypeError(f"unit constant has value None, not {v!r}")
        else:
            raise TypeError(f"constants have base types, not {t}")


@dataclass(frozen=True)
class Tuple(Exp):
    """Tuple construction ``(e1, ..., ek)``."""

    elems: tuple[Exp, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "elems", _tup(self.elems))


@dataclass(frozen=True)
class Proj(Exp):
    """Projection ``e.index`` (0-based) of a tuple."""

    tup: Exp
    index: int


@dataclass(frozen=True)
class PrimOp(Exp):
    """Application of a scalar primitive (``lambda_cu.prims.PRIMS``)."""

    op: str
    args: tuple[Exp, ...]
    ty: Optional[Type] = None
    loc: Optional[Loc] = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "args", _tup(self.args))


@dataclass(frozen=True)
class SegVec(Exp):
    """``seg_lengths(sd)`` / ``seg_offsets(sd)`` / ``seg_ids(sd)``: a vector derived from a
    segment descriptor (``field`` is ``"lengths"``, ``"offsets"`` or ``"ids"``)."""

    sd: Exp
    field: str
    ity: IntT = INT

    FIELDS: ClassVar[tuple[str, ...]] = ("lengths", "offsets", "ids")

    def __post_init__(self) -> None:
        if self.field not in self.FIELDS:
            raise ValueError(f"SegVec field must be one of {self.FIELDS}, not {self.field!r}")


@dataclass(frozen=True)
class Length(Exp):
    """``#vec``: number of elements of a vector, as an ``ity`` integer."""

    vec: Exp
    ity: IntT = INT


# --------------------------------------------------------------------------------------------
# GPU-level expressions


@dataclass(frozen=True)
class Index(Exp):
    """``vec[idx]``: subscript of a vector named in the thunk's ``using`` (or a ``SegVec``)."""

    vec: Exp
    idx: Exp
    loc: Optional[Loc] = None


@dataclass(frozen=True)
class If(Exp):
    """``if cond then e1 else e2`` (GPU: per-index selection; CPU: host branch over Blocks)."""

    cond: Exp
    then: Exp
    else_: Exp


@dataclass(frozen=True)
class Let(Exp):
    """GPU ``let x = rhs in body`` / ``let (x1, ..., xk) = rhs in body``."""

    vars: tuple[Var, ...]
    rhs: Exp
    body: Exp

    def __post_init__(self) -> None:
        vs = self.vars
        if isinstance(vs, Var):
            vs = (vs,)
        object.__setattr__(self, "vars", _tup(vs))
        if not self.vars:
            raise ValueError("Let binds at least one variable")


# --------------------------------------------------------------------------------------------
# CPU-level expressions and bindings


@dataclass(frozen=True)
class Bind(Node):
    """CPU binding ``let params = rhs`` (see the module docstring for 0/1/k params)."""

    params: tuple[Param, ...]
    rhs: Exp

    def __post_init__(self) -> None:
        ps = self.params
        if isinstance(ps, Param):
            ps = (ps,)
        object.__setattr__(self, "params", _tup(ps))

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.params)


@dataclass(frozen=True)
class Block(Exp):
    """``{ binds return result }`` — a control region."""

    binds: tuple[Bind, ...]
    result: Exp

    def __post_init__(self) -> None:
        object.__setattr__(self, "binds", _tup(self.binds))


@dataclass(frozen=True)
class Run(Exp):
    """``run K (args)``: launch a kernel."""

    kernel: str
    args: tuple[Exp, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "args", _tup(self.args))


@dataclass(frozen=True)
class Call(Exp):
    """``f (args)``: call of a CPU function (may be recursive)."""

    func: str
    args: tuple[Exp, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "args", _tup(self.args))


@dataclass(frozen=True)
class VecLit(Exp):
    """``[e1, ..., ek] : [elem]`` — a vector of host scalars; ``elems == ()`` is the empty vector."""

    elems: tuple[Exp, ...]
    elem: Type

    def __post_init__(self) -> None:
        object.__setattr__(self, "elems", _tup(self.elems))
        if not is_base(self.elem) or isinstance(self.elem, UnitT):
            raise TypeError(f"vector literal element type must be a non-unit base type, not {self.elem}")


@dataclass(frozen=True)
class MakeSegDes(Exp):
    """``make_sd(lengths)``: segment descriptor from an int vector of segment lengths."""

    lengths: Exp
    loc: Optional[Loc] = None


@dataclass(frozen=True)
class Check(Exp):
    """``check(cond, loc, message)`` : unit — runtime assertion on the host."""

    cond: Exp
    loc: Optional[Loc]
    message: str


@dataclass(frozen=True)
class Error(Exp):
    """``error : ty (loc, message)`` — unconditional runtime error of any type."""

    ty: Type
    loc: Optional[Loc]
    message: str


@dataclass(frozen=True)
class Speculate(Exp):
    """``speculate fast else replay slow``: ``fast``, or ``slow`` if ``fast`` fails (see the
    module docstring)."""

    size: Exp
    fast: Block
    slow: Block


@dataclass(frozen=True)
class Extern(Exp):
    """``extern name (args) : ty``: call of a host library function (see the module docstring)."""

    name: str
    args: tuple[Exp, ...]
    ty: Type
    loc: Optional[Loc] = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "args", _tup(self.args))


# --------------------------------------------------------------------------------------------
# kernels


@dataclass(frozen=True)
class Thunk(Node):
    """GPU thunk ``{ params => body using using }``."""

    params: tuple[Param, ...]
    body: Exp
    using: tuple[Var, ...] = ()

    def __post_init__(self) -> None:
        ps = self.params
        if isinstance(ps, Param):
            ps = (ps,)
        object.__setattr__(self, "params", _tup(ps))
        object.__setattr__(self, "using", _tup(self.using))


class Soac(Node):
    """Base class of the SOAC applications (see the signature table in the module docstring).

    Subclasses define ``NAME`` (printed keyword), ``SEGMENTED`` and the fields listed in the
    table.  Generic accessors for passes: :meth:`thunks`, :attr:`shape` (the size expression or
    the sd variable; ``None`` for ONCE), :attr:`init_exps`."""

    __slots__ = ()
    NAME: ClassVar[str] = ""
    SEGMENTED: ClassVar[bool] = False
    THUNK_FIELDS: ClassVar[tuple[str, ...]] = ()

    def thunks(self) -> tuple[Thunk, ...]:
        return tuple(getattr(self, f) for f in self.THUNK_FIELDS)

    @property
    def shape(self) -> Optional[Exp]:
        if self.SEGMENTED:
            return self.sd  # type: ignore[attr-defined]
        return getattr(self, "size", None)

    @property
    def init_exps(self) -> tuple[Exp, ...]:
        return getattr(self, "init", ())


@dataclass(frozen=True)
class Map(Soac):
    """``MAP f (n)``."""

    f: Thunk
    size: Exp
    NAME: ClassVar[str] = "MAP"
    THUNK_FIELDS: ClassVar[tuple[str, ...]] = ("f",)


@dataclass(frozen=True)
class Permute(Soac):
    """``PERMUTE f g (n)``: ``Y[g(i)] = f(i)``."""

    f: Thunk
    idx: Thunk
    size: Exp
    loc: Optional[Loc] = None
    NAME: ClassVar[str] = "PERMUTE"
    THUNK_FIELDS: ClassVar[tuple[str, ...]] = ("f", "idx")


@dataclass(frozen=True)
class Scatter(Soac):
    """``SCATTER (dsts) f g (n)``: copy of the vectors ``dsts`` with ``Y[g(i)] = f(i)``."""

    dsts: tuple[Var, ...]
    f: Thunk
    idx: Thunk
    size: Exp
    loc: Optional[Loc] = None
    NAME: ClassVar[str] = "SCATTER"
    THUNK_FIELDS: ClassVar[tuple[str, ...]] = ("f", "idx")

    def __post_init__(self) -> None:
        object.__setattr__(self, "dsts", _tup(self.dsts))


@dataclass(frozen=True)
class Reduce(Soac):
    """``REDUCE f (init) op (n)``."""

    f: Thunk
    init: tuple[Exp, ...]
    op: Thunk
    size: Exp
    NAME: ClassVar[str] = "REDUCE"
    THUNK_FIELDS: ClassVar[tuple[str, ...]] = ("f", "op")

    def __post_init__(self) -> None:
        object.__setattr__(self, "init", _tup(self.init))


@dataclass(frozen=True)
class Scan(Soac):
    """``SCAN f (init) op (n)`` — exclusive."""

    f: Thunk
    init: tuple[Exp, ...]
    op: Thunk
    size: Exp
    NAME: ClassVar[str] = "SCAN"
    THUNK_FIELDS: ClassVar[tuple[str, ...]] = ("f", "op")

    def __post_init__(self) -> None:
        object.__setattr__(self, "init", _tup(self.init))


@dataclass(frozen=True)
class Filter(Soac):
    """``FILTER f p (n)``."""

    f: Thunk
    pred: Thunk
    size: Exp
    NAME: ClassVar[str] = "FILTER"
    THUNK_FIELDS: ClassVar[tuple[str, ...]] = ("f", "pred")


@dataclass(frozen=True)
class Partition(Soac):
    """``PARTITION f p (n)`` -> (kept, rejected)."""

    f: Thunk
    pred: Thunk
    size: Exp
    NAME: ClassVar[str] = "PARTITION"
    THUNK_FIELDS: ClassVar[tuple[str, ...]] = ("f", "pred")


@dataclass(frozen=True)
class Once(Soac):
    """``ONCE f``: sequential code on one GPU thread (``f`` has no parameters)."""

    f: Thunk
    NAME: ClassVar[str] = "ONCE"
    THUNK_FIELDS: ClassVar[tuple[str, ...]] = ("f",)


@dataclass(frozen=True)
class Rank(Soac):
    """``RANK f (n)`` / ``RANK_DOWN f (n)``: stable sorting ranks of ordinal keys."""

    f: Thunk
    size: Exp
    descending: bool = False
    NAME: ClassVar[str] = "RANK"
    THUNK_FIELDS: ClassVar[tuple[str, ...]] = ("f",)


@dataclass(frozen=True)
class SegReduce(Soac):
    """``SEG_REDUCE f (init) op (sd)``: one result per segment."""

    f: Thunk
    init: tuple[Exp, ...]
    op: Thunk
    sd: Exp
    NAME: ClassVar[str] = "SEG_REDUCE"
    SEGMENTED: ClassVar[bool] = True
    THUNK_FIELDS: ClassVar[tuple[str, ...]] = ("f", "op")

    def __post_init__(self) -> None:
        object.__setattr__(self, "init", _tup(self.init))


@dataclass(frozen=True)
class SegScan(Soac):
    """``SEG_SCAN f (init) op (sd)``: exclusive scan within each segment."""

    f: Thunk
    init: tuple[Exp, ...]
    op: Thunk
    sd: Exp
    NAME: ClassVar[str] = "SEG_SCAN"
    SEGMENTED: ClassVar[bool] = True
    THUNK_FIELDS: ClassVar[tuple[str, ...]] = ("f", "op")

    def __post_init__(self) -> None:
        object.__setattr__(self, "init", _tup(self.init))


@dataclass(frozen=True)
class SegFilter(Soac):
    """``SEG_FILTER f p (sd)`` -> (kept values, their sd)."""

    f: Thunk
    pred: Thunk
    sd: Exp
    NAME: ClassVar[str] = "SEG_FILTER"
    SEGMENTED: ClassVar[bool] = True
    THUNK_FIELDS: ClassVar[tuple[str, ...]] = ("f", "pred")


@dataclass(frozen=True)
class SegPartition(Soac):
    """``SEG_PARTITION f p (sd)`` -> (kept, kept sd, rejected, rejected sd)."""

    f: Thunk
    pred: Thunk
    sd: Exp
    NAME: ClassVar[str] = "SEG_PARTITION"
    SEGMENTED: ClassVar[bool] = True
    THUNK_FIELDS: ClassVar[tuple[str, ...]] = ("f", "pred")


@dataclass(frozen=True)
class SegPermute(Soac):
    """``SEG_PERMUTE f g (sd)``: permutation within each segment (``g`` gives local positions)."""

    f: Thunk
    idx: Thunk
    sd: Exp
    loc: Optional[Loc] = None
    NAME: ClassVar[str] = "SEG_PERMUTE"
    SEGMENTED: ClassVar[bool] = True
    THUNK_FIELDS: ClassVar[tuple[str, ...]] = ("f", "idx")


@dataclass(frozen=True)
class SegRank(Soac):
    """``SEG_RANK f (sd)`` / ``SEG_RANK_DOWN``: stable ranks within each segment."""

    f: Thunk
    sd: Exp
    descending: bool = False
    NAME: ClassVar[str] = "SEG_RANK"
    SEGMENTED: ClassVar[bool] = True
    THUNK_FIELDS: ClassVar[tuple[str, ...]] = ("f",)


SOAC_CLASSES: tuple[type, ...] = (Map, Permute, Scatter, Reduce, Scan, Filter, Partition, Once, Rank,
                                  SegReduce, SegScan, SegFilter, SegPartition, SegPermute, SegRank)


@dataclass(frozen=True)
class KBind(Node):
    """Kernel binding ``let (x1, ..., xk) = SOAC ...``."""

    vars: tuple[Var, ...]
    soac: Soac

    def __post_init__(self) -> None:
        vs = self.vars
        if isinstance(vs, Var):
            vs = (vs,)
        object.__setattr__(self, "vars", _tup(vs))

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(v.name for v in self.vars)


@dataclass(frozen=True)
class Kernel(Node):
    """``kernel K (params) -> results { binds return (returns) }``."""

    name: str
    params: tuple[Param, ...]
    results: tuple[Type, ...]
    binds: tuple[KBind, ...]
    returns: tuple[Var, ...]

    def __post_init__(self) -> None:
        for f in ("params", "results", "binds", "returns"):
            object.__setattr__(self, f, _tup(getattr(self, f)))


# --------------------------------------------------------------------------------------------
# program


@dataclass(frozen=True)
class Function(Node):
    """``function f (params) -> result { body }``."""

    name: str
    params: tuple[Param, ...]
    result: Type
    body: Block

    def __post_init__(self) -> None:
        object.__setattr__(self, "params", _tup(self.params))


@dataclass(frozen=True)
class Program(Node):
    """Kernels, functions and the main body (top-level bindings, in order)."""

    kernels: tuple[Kernel, ...] = ()
    functions: tuple[Function, ...] = ()
    main: tuple[Bind, ...] = ()

    def __post_init__(self) -> None:
        for f in ("kernels", "functions", "main"):
            object.__setattr__(self, f, _tup(getattr(self, f)))

    def kernel(self, name: str) -> Kernel:
        for k in self.kernels:
            if k.name == name:
                return k
        raise KeyError(f"no kernel named {name!r}")

    def function(self, name: str) -> Function:
        for fn in self.functions:
            if fn.name == name:
                return fn
        raise KeyError(f"no function named {name!r}")


# --------------------------------------------------------------------------------------------
# traversal helpers


def free_vars(e: Exp) -> frozenset[str]:
    """Names of the variables occurring free in an expression (Let/Block binders respected)."""
    out: dict[str, None] = {}
    _fv(e, frozenset(), out)
    return frozenset(out)


def ordered_free_vars(*nodes: "Exp | Thunk", bound: frozenset[str] = frozenset()) -> list[str]:
    """Names of the variables occurring free in ``nodes`` (expressions or thunks, whose
    parameters are bound), in order of first occurrence: the flattener's lambda lifting names
    kernel parameters in this order."""
    out: dict[str, None] = {}
    for n in nodes:
        _fv(n, bound, out)
    return list(out)


def _fv(e: Exp, bound: frozenset[str], out: dict[str, None]) -> None:
    """The one free-variable walk over λcu expressions (CPU and GPU level) and thunks; ``out``
    is an insertion-ordered set."""
    if isinstance(e, Var):
        if e.name not in bound:
            out[e.name] = None
    elif isinstance(e, (Const, Error)):
        pass
    elif isinstance(e, Tuple):
        for x in e.elems:
            _fv(x, bound, out)
    elif isinstance(e, Proj):
        _fv(e.tup, bound, out)
    elif isinstance(e, (PrimOp, Run, Call, Extern)):
        for x in e.args:
            _fv(x, bound, out)
    elif isinstance(e, SegVec):
        _fv(e.sd, bound, out)
    elif isinstance(e, Length):
        _fv(e.vec, bound, out)
    elif isinstance(e, Index):
        _fv(e.vec, bound, out)
        _fv(e.idx, bound, out)
    elif isinstance(e, If):
        _fv(e.cond, bound, out)
        _fv(e.then, bound, out)
        _fv(e.else_, bound, out)
    elif isinstance(e, Speculate):
        _fv(e.size, bound, out)
        _fv(e.fast, bound, out)
        _fv(e.slow, bound, out)
    elif isinstance(e, Let):
        _fv(e.rhs, bound, out)
        _fv(e.body, bound | {v.name for v in e.vars}, out)
    elif isinstance(e, Block):
        # one set grown bind by bind (a copy per bind made a block of n bindings quadratic:
        # fusing a 120-deep nested literal spent 23 s here); a child only reads it
        b = set(bound)
        for bind in e.binds:
            _fv(bind.rhs, b, out)
            b.update(bind.names)
        _fv(e.result, b, out)
    elif isinstance(e, Thunk):
        _fv(e.body, bound | {p.name for p in e.params}, out)
    elif isinstance(e, VecLit):
        for x in e.elems:
            _fv(x, bound, out)
    elif isinstance(e, MakeSegDes):
        _fv(e.lengths, bound, out)
    elif isinstance(e, Check):
        _fv(e.cond, bound, out)
    else:
        raise TypeError(f"not an expression: {e!r}")


def thunk_free_vars(t: Thunk) -> frozenset[str]:
    """Free variables of a thunk body minus its parameters (must be a subset of ``using``)."""
    return frozenset(ordered_free_vars(t))


def soac_reads(s: Soac) -> frozenset[str]:
    """Every kernel-scope variable a SOAC reads: its thunks' ``using`` lists, the free variables
    of its size / sd / init expressions and its scatter destinations."""
    names: set[str] = set()
    for t in s.thunks():
        names.update(v.name for v in t.using)
    if s.shape is not None:
        names |= free_vars(s.shape)
    for e in s.init_exps:
        names |= free_vars(e)
    if isinstance(s, Scatter):
        names.update(v.name for v in s.dsts)
    return frozenset(names)


def kernel_runs(e: Exp) -> tuple[Run, ...]:
    """All ``Run`` nodes of a CPU expression, in evaluation order (for PDG construction)."""
    out: list[Run] = []

    def go(x: Exp) -> None:
        if isinstance(x, Run):
            for a in x.args:
                go(a)
            out.append(x)
        elif isinstance(x, Block):
            for b in x.binds:
                go(b.rhs)
            go(x.result)
        elif isinstance(x, If):
            go(x.cond); go(x.then); go(x.else_)
        elif isinstance(x, Speculate):
            go(x.size); go(x.fast); go(x.slow)
        elif isinstance(x, Tuple):
            for y in x.elems:
                go(y)
        elif isinstance(x, (PrimOp, Call, Extern)):
            for y in x.args:
                go(y)
        elif isinstance(x, VecLit):
            for y in x.elems:
                go(y)
        elif isinstance(x, Proj):
            go(x.tup)
        elif isinstance(x, Length):
            go(x.vec)
        elif isinstance(x, SegVec):
            go(x.sd)
        elif isinstance(x, MakeSegDes):
            go(x.lengths)
        elif isinstance(x, Check):
            go(x.cond)

    go(e)
    return tuple(out)


# --------------------------------------------------------------------------------------------
# small constructors


def var(name: str) -> Var:
    return Var(name)


def param(name: str, ty: Type) -> Param:
    return Param(Var(name), ty)


def const(value: object, ty: Optional[Type] = None) -> Const:
    """Constant with its type inferred from the Python value when ``ty`` is omitted
    (bool -> bool, int -> int, float -> float, one-char str -> char, None -> unit)."""
    if ty is None:
        if isinstance(value, bool):
            ty = BOOL
        elif isinstance(value, int):
            ty = INT
        elif isinstance(value, float):
            ty = FLOAT
        elif isinstance(value, str):
            ty = CHAR
        elif value is None:
            ty = UNIT
        else:
            raise TypeError(f"cannot infer the type of constant {value!r}")
    return Const(value, ty)


def prim(op: str, *args: Exp, ty: Optional[Type] = None, loc: Optional[Loc] = None) -> PrimOp:
    return PrimOp(op, tuple(args), ty, loc)


def seg_count(sd: Exp, ity: IntT = INT) -> Length:
    """``#seg_lengths(sd)``: number of segments."""
    return Length(SegVec(sd, "lengths", ity), ity)


def seg_total(sd: Exp, ity: IntT = INT) -> Length:
    """``#seg_ids(sd)``: total number of elements."""
    return Length(SegVec(sd, "ids", ity), ity)


def empty_vec(elem: Type) -> VecLit:
    return VecLit((), elem)


UNIT_CONST = Const(None, UNIT)

__all__ = [
    "Node", "Exp", "Var", "Param", "Const", "Tuple", "Proj", "PrimOp", "SegVec", "Length", "Index",
    "If", "Let", "Bind", "Block", "Run", "Call", "VecLit", "MakeSegDes", "Check", "Error", "Extern", "Speculate",
    "Thunk",
    "Soac", "Map", "Permute", "Scatter", "Reduce", "Scan", "Filter", "Partition", "Once", "Rank",
    "SegReduce", "SegScan", "SegFilter", "SegPartition", "SegPermute", "SegRank", "SOAC_CLASSES",
    "KBind", "Kernel", "Function", "Program", "free_vars", "ordered_free_vars",
    "thunk_free_vars", "soac_reads",
    "kernel_runs", "var", "param", "const", "prim", "seg_count", "seg_total", "empty_vec",
    "UNIT_CONST",
]
