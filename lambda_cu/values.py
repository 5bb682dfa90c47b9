"""Runtime values of the λcu numpy interpreter, and conversions to/from nested Python values.

Representation
--------------
==================  ===========================================================================
λcu type            Python value
==================  ===========================================================================
``int`` / ``int64``  numpy scalar ``np.int32`` / ``np.int64``
``float``            ``np.float64``
``bool``             ``np.bool_``
``char``             ``np.uint8`` (the character code)
``unit``             ``None``
``(t1, ..., tk)``    a Python tuple of the component values
``[b]``              a 1-d numpy array of dtype :func:`dtype_of` ``(b)`` (never mutated in place)
``sd``               a :class:`SegDes`
==================  ===========================================================================

:class:`SegDes` holds the segment lengths (int64); ``offsets`` (exclusive scan of the lengths,
O(#segments)) and ``ids`` (segment number of each element, O(#elements)) are computed on first use
and cached; casts of those vectors to the program's int type are cached too.

Conversions (for differential tests against the reference interpreter)
----------------------------------------------------------------------
``from_nested(value, ty)``  a nested Python value -> λcu runtime value of ``rep_type(ty)``.
``to_nested(value, ty, seq=list)``  the inverse; sequences are built with ``seq`` (``list`` by
    default; pass e.g. the reference interpreter's ``Seq`` class).

``ty`` is a *source type descriptor*: a base type, ``TupleT`` of descriptors, or ``SeqOf(elem)``
(``lambda_cu.types``).  Python side: ints, floats, bools, one-character strings (chars), tuples,
and for sequences any iterable (list, tuple, numpy array, or an object with an ``items``
attribute such as the reference interpreter's ``Seq``).  ``[[1, 2], [], [3]]`` of type
``SeqOf(SeqOf(INT))`` becomes ``(SegDes([2, 0, 1]), array([1, 2, 3], int32))``; a sequence of
pairs becomes a pair of vectors.

``values_close(a, b, rel=1e-9, abs_=1e-12)`` compares two nested Python values, floats with a
tolerance (reduction order differs between backends).
"""

from __future__ import annotations

import math
from itertools import chain
from typing import Any, Callable, Iterable

import numpy as np

from .types import (BoolT, CharT, FloatT, IntT, SegDesT, SeqOf, TupleT, Type, UnitT, VecT,
                    is_base)


def dtype_of(t: Type) -> np.dtype:
    """numpy dtype of a non-unit base type."""
    if isinstance(t, IntT):
        return np.dtype(np.int32 if t.width == 32 else np.int64)
    if isinstance(t, FloatT):
        return np.dtype(np.float64)
    if isinstance(t, BoolT):
        return np.dtype(np.bool_)
    if isinstance(t, CharT):
        return np.dtype(np.uint8)
    raise TypeError(f"no numpy dtype for {t}")


class SegDes:
    """A segment descriptor: ``count`` segments of the given ``lengths`` over ``total`` elements."""

    __slots__ = ("lengths", "total", "_offsets", "_ids", "_cast")

    def __init__(self, lengths: Iterable[int] | np.ndarray) -> None:
        arr = np.asarray(lengths)
        if arr.ndim != 1:
            raise ValueError("segment lengths must be a 1-d vector")
        arr = arr.astype(np.int64, copy=True)
        if arr.size and arr.min() < 0:
            raise ValueError("negative segment length")
        arr.flags.writeable = False
        self.lengths = arr
        self.total = int(arr.sum()) if arr.size else 0
        self._offsets: np.ndarray | None = None
        self._ids: np.ndarray | None = None
        self._cast: dict[tuple[str, np.dtype], np.ndarray] = {}

    @property
    def count(self) -> int:
        return int(self.lengths.shape[0])

    @property
    def offsets(self) -> np.ndarray:
        """Start of each segment (exclusive scan of the lengths), cached."""
        if self._offsets is None:
            off = np.zeros(self.count, dtype=np.int64)
            if self.count > 1:
                np.cumsum(self.lengths[:-1], out=off[1:])
            off.flags.writeable = False
            self._offsets = off
        return self._offsets

    @property
    def ids(self) -> np.ndarray:
        """Segment number of every element, cached (O(total + count))."""
        if self._ids is None:
            ids = np.repeat(np.arange(self.count, dtype=np.int64), self.lengths)
            ids.flags.writeable = False
            self._ids = ids
        return self._ids

    def field(self, name: str, dtype: np.dtype | type = np.int64) -> np.ndarray:
        """``lengths`` / ``offsets`` / ``ids`` as a vector of ``dtype`` (cast cached)."""
        dtype = np.dtype(dtype)
        key = (name, dtype)
        hit = self._cast.get(key)
        if hit is None:
            base = getattr(self, name)
            hit = base if base.dtype == dtype else base.astype(dtype)
            if hit is not base:
                hit.flags.writeable = False
            self._cast[key] = hit
        return hit

    def field_length(self, name: str) -> int:
        """Length of a derived vector without materialising it."""
        return self.total if name == "ids" else self.count

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SegDes) and np.array_equal(self.lengths, other.lengths)

    def __hash__(self) -> int:
        return hash(self.lengths.tobytes())

    def __repr__(self) -> str:
        return f"SegDes({self.lengths.tolist()})"


# ---------------------------------------------------------------------------------------------
# scalars


def scalar(value: Any, t: Type) -> Any:
    """A Python scalar (or numpy scalar) as the λcu runtime scalar of base type ``t``."""
    if isinstance(t, UnitT):
        return None
    if isinstance(t, CharT):
        if isinstance(value, str):
            value = ord(value)
        return np.uint8(int(value))
    if isinstance(t, IntT):
        return dtype_of(t).type(_wrap_int(int(value), t.width))
    return dtype_of(t).type(value)


def _wrap_int(v: int, width: int) -> int:
    lo, span = -(1 << (width - 1)), 1 << width
    return (v - lo) % span + lo


def _py_scalar(value: Any, t: Type) -> Any:
    if isinstance(t, UnitT):
        return None
    if isinstance(t, CharT):
        return chr(int(value))
    if isinstance(t, IntT):
        return int(value)
    if isinstance(t, FloatT):
        return float(value)
    if isinstance(t, BoolT):
        return bool(value)
    raise TypeError(f"not a base type: {t}")


# ---------------------------------------------------------------------------------------------
# conversions


def _items(v: Any) -> list:
    if isinstance(v, np.ndarray):
        return v.tolist() if v.dtype != np.uint8 else [chr(c) for c in v.tolist()]
    if isinstance(v, str):
        return list(v)
    if hasattr(v, "items") and not isinstance(v, dict) and not callable(getattr(v, "items")):
        return list(v.items)
    return list(v)


def from_nested(value: Any, ty: Type) -> Any:
    """Nested Python value of source type ``ty`` -> λcu runtime value (see the module docstring)."""
    if is_base(ty):
        return scalar(value, ty)
    if isinstance(ty, TupleT):
        if not isinstance(value, tuple) or len(value) != len(ty.elems):
            raise ValueError(f"expected a {len(ty.elems)}-tuple for {ty}, got {value!r}")
        return tuple(from_nested(v, t) for v, t in zip(value, ty.elems))
    if isinstance(ty, SeqOf):
        return _seq_from(_items(value) if not isinstance(value, np.ndarray) or not is_base(ty.elem)
                         else value, ty.elem)
    if isinstance(ty, (VecT, SegDesT)):
        raise TypeError(f"use a source descriptor (SeqOf) rather than the λcu type {ty}")
    raise TypeError(f"not a source type descriptor: {ty!r}")


def _seq_from(items: Any, elem: Type) -> Any:
    if is_base(elem):
        if isinstance(elem, UnitT):
            raise TypeError("sequences of unit are not representable")
        if isinstance(elem, CharT):
            codes = [ord(c) if isinstance(c, str) else int(c) for c in items]
            return np.asarray(codes, dtype=np.uint8).reshape(-1)
        dt = dtype_of(elem)
        if isinstance(items, np.ndarray):
            return items.astype(dt).reshape(-1)
        if isinstance(elem, IntT):
            items = list(items)
            try:
                return np.asarray(items, dtype=np.int64).reshape(-1).astype(dt)
            except OverflowError:
                return np.asarray([_wrap_int(int(x), elem.width) for x in items], dtype=dt).reshape(-1)
        return np.asarray(list(items), dtype=dt).reshape(-1)
    if isinstance(elem, TupleT):
        items = list(items)
        for it in items:
            if not isinstance(it, tuple) or len(it) != len(elem.elems):
                raise ValueError(f"expected {len(elem.elems)}-tuples in a sequence of {elem}, got {it!r}")
        return tuple(_seq_from([it[k] for it in items], t) for k, t in enumerate(elem.elems))
    if isinstance(elem, SeqOf):
        subs = [_items(x) for x in items]
        lengths = np.fromiter((len(s) for s in subs), dtype=np.int64, count=len(subs))
        return (SegDes(lengths), _seq_from(list(chain.from_iterable(subs)), elem.elem))
    raise TypeError(f"not a source type descriptor: {elem!r}")


def to_nested(value: Any, ty: Type, seq: Callable[[list], Any] = list) -> Any:
    """λcu runtime value -> nested Python value of source type ``ty``."""
    if is_base(ty):
        return _py_scalar(value, ty)
    if isinstance(ty, TupleT):
        return tuple(to_nested(v, t, seq) for v, t in zip(value, ty.elems))
    if isinstance(ty, SeqOf):
        return seq(_seq_to(value, ty.elem, seq))
    raise TypeError(f"not a source type descriptor: {ty!r}")


def _seq_to(rep: Any, elem: Type, seq: Callable[[list], Any]) -> list:
    """The elements (a Python list) of a flat sequence representation."""
    if is_base(elem):
        arr = np.asarray(rep)
        if isinstance(elem, CharT):
            return [chr(c) for c in arr.tolist()]
        if isinstance(elem, BoolT):
            return [bool(x) for x in arr.tolist()]
        if isinstance(elem, FloatT):
            return [float(x) for x in arr.tolist()]
        return [int(x) for x in arr.tolist()]
    if isinstance(elem, TupleT):
        cols = [_seq_to(r, t, seq) for r, t in zip(rep, elem.elems)]
        n = len(cols[0]) if cols else 0
        if any(len(c) != n for c in cols):
            raise ValueError("components of a sequence of tuples have different lengths")
        return list(zip(*cols)) if cols else []
    if isinstance(elem, SeqOf):
        sd, data = rep
        flat = _seq_to(data, elem.elem, seq)
        if len(flat) != sd.total:
            raise ValueError(f"segment descriptor covers {sd.total} elements but the data has {len(flat)}")
        offs = sd.offsets.tolist()
        lens = sd.lengths.tolist()
        return [seq(flat[o:o + l]) for o, l in zip(offs, lens)]
    raise TypeError(f"not a source type descriptor: {elem!r}")


def values_close(a: Any, b: Any, rel: float = 1e-9, abs_: float = 1e-12) -> bool:
    """Structural equality of nested Python values, floats compared with a tolerance."""
    if isinstance(a, float) or isinstance(b, float):
        if isinstance(a, bool) or isinstance(b, bool):
            return a == b
        try:
            fa, fb = float(a), float(b)
        except (TypeError, ValueError):
            return False
        if math.isnan(fa) or math.isnan(fb):
            return math.isnan(fa) and math.isnan(fb)
        return math.isclose(fa, fb, rel_tol=rel, abs_tol=abs_)
    if isinstance(a, str) or isinstance(b, str):
        return a == b
    ia = a.items if hasattr(a, "items") and not isinstance(a, dict) and not callable(a.items) else a
    ib = b.items if hasattr(b, "items") and not isinstance(b, dict) and not callable(b.items) else b
    if isinstance(ia, (list, tuple)) and isinstance(ib, (list, tuple)):
        return len(ia) == len(ib) and all(values_close(x, y, rel, abs_) for x, y in zip(ia, ib))
    return a == b


__all__ = ["dtype_of", "SegDes", "scalar", "from_nested", "to_nested", "values_close"]
