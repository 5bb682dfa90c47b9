"""Types of λcu (the paper's Fig. 2, extended).

The type language is stratified exactly as in the paper, with one representation for vectors.

Base types ``b`` (usable at every level)
    ``IntT(width)``   two's-complement integer; ``width`` is 32 (the default, NESL 3.1's ``int``,
                      printed ``int``) or 64 (printed ``int64``).  Arithmetic wraps modulo 2^width.
    ``FloatT()``      IEEE double (printed ``float``).
    ``BoolT()``       printed ``bool``.
    ``CharT()``       an 8-bit character code 0..255 (printed ``char``).
    ``UnitT()``       the one-value type (printed ``unit``; its only value is written ``()``).

GPU-level types ``τ`` (values manipulated by thunk bodies)
    a base type, or a *flat* ``TupleT`` of base types.  The paper's tuple operator is associative:
    ``(int, (float, bool))`` and ``(int, float, bool)`` denote the same GPU value shape; the
    checker compares GPU-level types through :func:`flat_components`.  Thunk bodies may build and
    project tuples, but every component is a base value.

Kernel-level types ``θ`` (kernel parameters and SOAC results)
    a GPU-level type, ``VecT(b)`` (a flat vector of a *base* type) or ``SegDesT()`` (a segment
    descriptor, printed ``sd``).

CPU-level types ``χ`` (host variables, function parameters and results)
    any of the above, plus ``TupleT`` nested arbitrarily (host tuples may hold vectors, segment
    descriptors and other tuples).

Vector representation (the paper's ``[b]`` / ``&[b]``).  λcu has ONE vector type, ``VecT(b)``,
printed ``[b]``.  A vector value always lives in device (GPU) memory; a host variable of type
``[b]`` holds a *reference* to it (the paper's ``&[b]``).  The host never indexes a vector
element-wise: host-side vector operations are limited to the whole-vector operations of the CPU
level (length, segment-descriptor construction, literals), everything else goes through a
kernel.  The numpy interpreter represents a vector value by a 1-d numpy array.

Segment descriptors.  ``SegDesT()`` (``sd``) describes how a flat vector of ``total`` elements is
cut into ``count`` consecutive segments.  Its value is the vector of segment lengths; segment
offsets (exclusive scan of the lengths) and per-element segment ids are derived from it lazily
and cached (see ``lambda_cu.values.SegDes``).

Nested NESL sequences.  λcu has no nested vectors: flattening represents a NESL sequence by its
*representation type*, computed by :func:`rep_type` from a source-level descriptor built with
:class:`SeqOf`:

    rep_seq(b)            = [b]
    rep_seq((t1, ..., tk)) = (rep_seq(t1), ..., rep_seq(tk))       -- sequences of tuples: tuples of vectors
    rep_seq([t])          = (sd, rep_seq(t))                        -- segmented array: descriptor + flat data

so ``[[int]]`` is represented by ``(sd, [int])`` and ``[[(int, float)]]`` by ``(sd, ([int], [float]))``.
``SeqOf`` itself is *not* a λcu type — it never appears in a program.  It exists so that the value
conversion helpers (``lambda_cu.values``) know how to turn flat values back into nested Python lists
(a pair of vectors and a vector of pairs have the same representation).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Union


class Type:
    """Base class of all λcu types (frozen dataclasses, compared structurally)."""

    __slots__ = ()

    def __str__(self) -> str:
        return type_str(self)


@dataclass(frozen=True)
class IntT(Type):
    """Integer type; ``width`` is 32 (``int``) or 64 (``int64``)."""

    width: int = 32

    def __post_init__(self) -> None:
        if self.width not in (32, 64):
            raise ValueError(f"IntT width must be 32 or 64, not {self.width!r}")


@dataclass(frozen=True)
class FloatT(Type):
    """IEEE double precision float (``float``)."""


@dataclass(frozen=True)
class BoolT(Type):
    """Booleans (``bool``)."""


@dataclass(frozen=True)
class CharT(Type):
    """Characters, 8-bit codes (``char``)."""


@dataclass(frozen=True)
class UnitT(Type):
    """The unit type (``unit``), the result of ``check`` and the argument of ``ONCE`` thunks."""


@dataclass(frozen=True)
class TupleT(Type):
    """Tuple type ``(t1, ..., tk)``, k >= 2 in programs (k = 0/1 are tolerated by the helpers).

    Flat (base components only) at the GPU level; arbitrarily nested at the CPU level."""

    elems: tuple[Type, ...]

    def __post_init__(self) -> None:
        if not isinstance(self.elems, tuple):
            object.__setattr__(self, "elems", tuple(self.elems))


@dataclass(frozen=True)
class VecT(Type):
    """A flat, device-resident vector ``[b]`` of a base type (see the module docstring)."""

    elem: Type

    def __post_init__(self) -> None:
        if not is_base(self.elem) or isinstance(self.elem, UnitT):
            raise ValueError(f"vector element type must be a non-unit base type, not {self.elem}")


@dataclass(frozen=True)
class SegDesT(Type):
    """The segment-descriptor type ``sd``."""


@dataclass(frozen=True)
class SeqOf(Type):
    """Source-level descriptor "NESL sequence of ``elem``" — NOT a λcu type.

    Used only by :func:`rep_type` and the value-conversion helpers; ``elem`` is a base type, a
    ``TupleT`` of descriptors or another ``SeqOf``."""

    elem: Type


BaseType = Union[IntT, FloatT, BoolT, CharT, UnitT]

INT = IntT(32)
INT64 = IntT(64)
FLOAT = FloatT()
BOOL = BoolT()
CHAR = CharT()
UNIT = UnitT()
SD = SegDesT()


def is_base(t: Type) -> bool:
    """True for the base types int/int64/float/bool/char/unit."""
    return isinstance(t, (IntT, FloatT, BoolT, CharT, UnitT))


def is_int(t: Type) -> bool:
    return isinstance(t, IntT)


def is_vec(t: Type) -> bool:
    return isinstance(t, VecT)


def is_gpu_type(t: Type) -> bool:
    """GPU-level type τ: a base type or a tuple (possibly written nested) of base types."""
    if is_base(t):
        return True
    if isinstance(t, TupleT):
        return all(is_gpu_type(e) for e in t.elems)
    return False


def is_kernel_type(t: Type) -> bool:
    """Kernel-level type θ: τ, [b] or sd (kernel parameters / SOAC results)."""
    return is_gpu_type(t) or isinstance(t, (VecT, SegDesT))


def is_cpu_type(t: Type) -> bool:
    """CPU-level type χ: base, [b], sd, or tuples of those nested arbitrarily."""
    if is_base(t) or isinstance(t, (VecT, SegDesT)):
        return True
    if isinstance(t, TupleT):
        return all(is_cpu_type(e) for e in t.elems)
    return False


def flat_components(t: Type) -> tuple[Type, ...]:
    """The components of a type under the associative tuple operator.

    ``flat_components((int, (float, bool))) == (int, float, bool)``; a non-tuple type is its own
    single component; ``unit`` alone is one component (it is a value) but the empty tuple has
    none."""
    if isinstance(t, TupleT):
        out: list[Type] = []
        for e in t.elems:
            out.extend(flat_components(e))
        return tuple(out)
    return (t,)


def tuple_of(ts: tuple[Type, ...] | list[Type]) -> Type:
    """``ts[0]`` when there is one component, else ``TupleT(ts)``."""
    ts = tuple(ts)
    return ts[0] if len(ts) == 1 else TupleT(ts)


def lift(t: Type) -> tuple[Type, ...]:
    """The paper's τ↑ as a tuple of components: ``b↑ = [b]``, ``(τ1 × τ2)↑ = τ1↑ × τ2↑``."""
    out = []
    for c in flat_components(t):
        if not is_base(c) or isinstance(c, UnitT):
            raise ValueError(f"cannot lift {c} into a vector type")
        out.append(VecT(c))
    return tuple(out)


def rep_type(t: Type) -> Type:
    """λcu representation type of a source-level type descriptor (see the module docstring).

    Base types and tuples are represented by themselves (recursively); ``SeqOf(e)`` by
    :func:`rep_seq_type` of ``e``."""
    if is_base(t) or isinstance(t, (VecT, SegDesT)):
        return t
    if isinstance(t, TupleT):
        return TupleT(tuple(rep_type(e) for e in t.elems))
    if isinstance(t, SeqOf):
        return rep_seq_type(t.elem)
    raise TypeError(f"not a source type descriptor: {t!r}")


def rep_seq_type(elem: Type) -> Type:
    """Representation of a sequence whose elements have source type ``elem``."""
    if is_base(elem):
        if isinstance(elem, UnitT):
            raise TypeError("sequences of unit are not representable")
        return VecT(elem)
    if isinstance(elem, TupleT):
        return TupleT(tuple(rep_seq_type(e) for e in elem.elems))
    if isinstance(elem, SeqOf):
        return TupleT((SD, rep_seq_type(elem.elem)))
    raise TypeError(f"not a source type descriptor: {elem!r}")


def type_str(t: Type) -> str:
    """Concrete syntax of a type: ``int``, ``int64``, ``float``, ``bool``, ``char``, ``unit``,
    ``[b]``, ``sd``, ``(t1, t2)``; source descriptors print as ``seq(t)``."""
    if isinstance(t, IntT):
        return "int" if t.width == 32 else "int64"
    if isinstance(t, FloatT):
        return "float"
    if isinstance(t, BoolT):
        return "bool"
    if isinstance(t, CharT):
        return "char"
    if isinstance(t, UnitT):
        return "unit"
    if isinstance(t, TupleT):
        return "(" + ", ".join(type_str(e) for e in t.elems) + ")"
    if isinstance(t, VecT):
        return "[" + type_str(t.elem) + "]"
    if isinstance(t, SegDesT):
        return "sd"
    if isinstance(t, SeqOf):
        return "seq(" + type_str(t.elem) + ")"
    raise TypeError(f"not a type: {t!r}")


__all__ = [
    "Type", "IntT", "FloatT", "BoolT", "CharT", "UnitT", "TupleT", "VecT", "SegDesT", "SeqOf",
    "BaseType", "INT", "INT64", "FLOAT", "BOOL", "CHAR", "UNIT", "SD",
    "is_base", "is_int", "is_vec", "is_gpu_type", "is_kernel_type", "is_cpu_type",
    "flat_components", "tuple_of", "lift", "rep_type", "rep_seq_type", "type_str",
]
