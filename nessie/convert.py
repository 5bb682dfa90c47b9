"""Conversions between Python/numpy values and NESL values, in both directions, for every
backend (issue 13): the Python API (``nessie.api``), the driver (``nessie.driver``: printing λcu
results, the host library's ``to_value``) and the REPL use this module and no copy of it.

A NESL value of a ground type has three representations here:

* **Python/numpy** (the API's arguments and results): ``int``/``float``/``bool``/one-character
  ``str``; ``[char]`` a ``str``; flat sequences of scalars numpy arrays; other sequences lists;
  tuples flat Python tuples; datatype values ``DataVal`` (``nessie.api``'s docstring has the
  table of accepted values);
* **interpreter values** (``nessie.interp.values``: ``Seq``, right-nested pairs, ``DataVal``,
  ``SegDes(length)``), what the reference interpreter computes and its printer prints;
* **λcu leaves** (``lambda_cu.values``): the flat list of numpy scalars, 1-d numpy vectors and
  segment descriptors (``lambda_cu.values.SegDes``) of a value's representation, in the order of
  ``TypeMap.value_leaf_types``.

What converts what:

=====================================  =============================================================
``TypeOf(Unifier(), datadefs).check``  the NESL type of a Python value (guided by an expected type;
                                       ``Mismatch`` names the offending part; ``describe`` words
                                       a value for error messages)
``PyConv(datadefs, int_bits)``         ``norm``: Python value -> normalised value of a ground type
                                       (range-checked); ``to_interp``: normalised -> interpreter
                                       value; ``to_leaves``: normalised -> λcu leaves;
                                       ``from_interp``: interpreter value -> Python value;
                                       ``from_leaves``: λcu leaves -> Python value
``leaves_to_value``                    λcu leaves -> interpreter value (printing, ``to_value``)
``value_to_leaves``                    interpreter value -> λcu leaves (top-level values read by a
                                       compiled function)
``truncate_leaves``                    the leaves of the part of a value that printing shows
``datatypes``                          the printer's ``Datatypes`` of a program's items
=====================================  =============================================================

``datadefs`` is ``{name: typed DataDef}``; ``tm`` a flattened program's ``TypeMap``
(``flat.typemap``).
"""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from lambda_cu.values import SegDes as LSegDes, dtype_of
from nessie.interp.values import DataVal, Seq, SegDes, unpair
from nessie.interp.vtypes import Datatypes
from nessie.types import typed_ast as T
from nessie.types import types as nt
from nessie.types.types import (BOOL, CHAR, FLOAT, INT, SEGDES, TBase, TData, TPair, TSeq, TVar,
                                Type, free_vars, subst_type, tuple_components)

__all__ = ["Mismatch", "Unifier", "TypeOf", "describe", "PyConv", "datatypes", "unfold_once",
           "leaves_to_value", "value_to_leaves", "truncate_leaves"]


# ============================================================================== Python value types
class Mismatch(Exception):
    """A Python value does not fit the expected type: where (``path``), what was expected."""

    def __init__(self, path: str = "", expected: Optional[Type] = None, value: Any = None,
                 has_value: bool = False) -> None:
        super().__init__(path)
        self.path = path
        self.expected = expected
        self.value = value
        self.has_value = has_value


class Unifier:
    """Substitution over type variables: scheme variables and fresh unknowns (negative ids)."""

    def __init__(self) -> None:
        self.s: dict = {}
        self._next = -1

    def fresh(self) -> TVar:
        v = TVar(self._next)
        self._next -= 1
        return v

    def resolve(self, t: Type) -> Type:
        while isinstance(t, TVar) and t.id in self.s:
            t = self.s[t.id]
        return t

    def zonk(self, t: Type) -> Type:
        t = self.resolve(t)
        if isinstance(t, TSeq):
            return TSeq(self.zonk(t.elem))
        if isinstance(t, TPair):
            return TPair(self.zonk(t.fst), self.zonk(t.snd))
        if isinstance(t, TData):
            return TData(t.name, tuple(self.zonk(a) for a in t.args))
        return t

    def unify(self, a: Type, b: Type) -> None:
        a, b = self.resolve(a), self.resolve(b)
        if a == b:
            return
        if isinstance(a, TVar):
            if a.id in free_vars(self.zonk(b)):
                raise Mismatch()
            self.s[a.id] = b
        elif isinstance(b, TVar):
            self.unify(b, a)
        elif isinstance(a, TSeq) and isinstance(b, TSeq):
            self.unify(a.elem, b.elem)
        elif isinstance(a, TPair) and isinstance(b, TPair):
            self.unify(a.fst, b.fst)
            self.unify(a.snd, b.snd)
        elif isinstance(a, TData) and isinstance(b, TData) and a.name == b.name \
                and len(a.args) == len(b.args):
            for x, y in zip(a.args, b.args):
                self.unify(x, y)
        else:
            raise Mismatch()


def _is_int(v: Any) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


def _is_float(v: Any) -> bool:
    return isinstance(v, (float, np.floating))


def _is_bool(v: Any) -> bool:
    return isinstance(v, (bool, np.bool_))


def _plain_array(a: np.ndarray, path: str) -> None:
    """Refuse array types whose elements are not simply the array's data: a masked array (its
    mask would be ignored), a ``np.matrix`` (2-d only, its rows are matrices) and any other
    ``ndarray`` subclass but ``np.memmap`` (plain data on disk)."""
    if type(a) is np.ndarray or isinstance(a, np.memmap):
        return
    if isinstance(a, np.ma.MaskedArray):
        raise TypeError(f"{path or 'argument'}: a numpy masked array is not accepted (NESL "
                        f"sequences have no mask): pass a.compressed() or a.filled(value)")
    raise TypeError(f"{path or 'argument'}: a {type(a).__module__}.{type(a).__name__} is not "
                    f"accepted: pass a plain numpy array (np.asarray(a))")


def describe(v: Any) -> str:
    """A short description of a Python value for error messages."""
    if isinstance(v, np.ndarray):
        return f"numpy array of {v.dtype} with shape {v.shape}"
    if _is_bool(v):
        return f"bool {v!r}"
    if _is_int(v):
        return f"int {int(v)}"
    if _is_float(v):
        return f"float {float(v)!r}"
    if isinstance(v, str):
        return f"str {v[:20]!r}" + ("..." if len(v) > 20 else "")
    if isinstance(v, list):
        if not v:
            return "empty list"
        kinds = sorted({type(x).__name__ for x in v})
        return f"list of {len(v)} {'/'.join(kinds)}"
    if isinstance(v, tuple):
        return f"tuple of {len(v)} ({', '.join(type(x).__name__ for x in v)})"
    if isinstance(v, DataVal):
        return f"DataVal {v.name}"
    return f"{type(v).__name__} {v!r}"[:80]


class TypeOf:
    """Infers the NESL type of a Python value, guided by the expected type (hints resolve
    ``str`` as ``char`` vs ``[char]``, ints given for floats, the tuple shape), and unifies it
    with the expected type.  A mismatch names the innermost offending part (``mat[0][1]``)."""

    def __init__(self, u: Unifier, datadefs: dict) -> None:
        self.u = u
        self.datadefs = datadefs

    def check(self, v: Any, hint: Type, path: str) -> Type:
        """The type of ``v``, unified with ``hint``."""
        try:
            t = self.infer(v, hint, path)
            self.u.unify(hint, t)
            return t
        except Mismatch as m:
            if m.has_value:
                raise
            raise Mismatch(path, self.u.zonk(hint), v, True) from None

    def infer(self, v: Any, hint: Type, path: str) -> Type:
        h = self.u.zonk(hint)
        if isinstance(h, TData):
            return self.data(v, h, path)
        if isinstance(v, DataVal):
            return self.data(v, None, path)
        if _is_bool(v):
            return BOOL
        if _is_int(v):
            if h == FLOAT:
                return FLOAT
            if h == SEGDES:
                return SEGDES
            return INT
        if _is_float(v):
            return FLOAT
        if isinstance(v, str):
            if h == CHAR and len(v) == 1:
                return CHAR
            return TSeq(CHAR)
        if isinstance(v, np.ndarray):
            _plain_array(v, path)
            return self.array(v, h, path)
        if isinstance(v, (list, range)):
            elem = h.elem if isinstance(h, TSeq) else self.u.fresh()
            for i, x in enumerate(v):
                self.check(x, elem, f"{path}[{i}]")
            return TSeq(elem)
        if isinstance(v, tuple):
            return self.tuple(v, h, path)
        raise Mismatch()

    def array(self, a: np.ndarray, h: Type, path: str) -> Type:
        if a.ndim == 0:
            return self.infer(a.item(), h, path)
        if a.ndim > 1:
            elem = h.elem if isinstance(h, TSeq) else self.u.fresh()
            row = a[0] if a.shape[0] else np.empty(a.shape[1:], a.dtype)
            return TSeq(self.check(row, elem, f"{path}[0]"))
        eh = self.u.zonk(h.elem) if isinstance(h, TSeq) else None
        kind = a.dtype.kind
        if kind == "b":
            return TSeq(BOOL)
        if kind in "iu":
            return TSeq(FLOAT if eh == FLOAT else INT)
        if kind == "f":
            return TSeq(FLOAT)
        if kind in "US" and (a.dtype.itemsize <= (4 if kind == "U" else 1)):
            return TSeq(CHAR)
        if kind == "O":
            return self.infer(list(a), h, path)
        raise Mismatch()

    def tuple(self, v: tuple, h: Type, path: str) -> Type:
        if len(v) < 2:
            raise Mismatch()
        if isinstance(h, TPair):
            comps = tuple_components(h)
            if len(v) == len(comps):
                types = [self.check(x, c, f"{path}[{i}]")
                         for i, (x, c) in enumerate(zip(v, comps))]
            elif len(v) == 2:                       # (a, (b, c)) given as a nested pair
                types = [self.check(v[0], h.fst, f"{path}[0]"),
                         self.check(v[1], h.snd, f"{path}[1]")]
            elif len(v) > len(comps) and isinstance(comps[-1], TVar):
                k = len(comps) - 1                  # the last component takes the rest
                types = [self.check(x, c, f"{path}[{i}]")
                         for i, (x, c) in enumerate(zip(v[:k], comps[:k]))]
                types.append(self.tuple(v[k:], comps[-1], f"{path}[{k}:]"))
            else:
                raise Mismatch()
        elif isinstance(h, TVar):
            types = [self.check(x, self.u.fresh(), f"{path}[{i}]") for i, x in enumerate(v)]
        else:
            raise Mismatch()
        t = types[-1]
        for c in reversed(types[:-1]):
            t = TPair(c, t)
        return t

    def data(self, v: Any, h: Optional[TData], path: str) -> Type:
        name = v.name if isinstance(v, DataVal) else (h.name if h is not None else None)
        if name not in self.datadefs:
            raise Mismatch()
        dd = self.datadefs[name]
        sub = {p.id: self.u.fresh() for p in dd.params}
        arg = subst_type(dd.arg_type, sub)
        result = TData(name, tuple(sub[p.id] for p in dd.params))
        if h is not None:
            self.u.unify(h, result)
        if isinstance(v, DataVal):
            fields = v.fields
            value = fields[0] if len(fields) == 1 else tuple(fields)
        else:
            value = v
        self.check(value, arg, f"{path}.fields" if isinstance(v, DataVal) else path)
        return result


# ============================================================================== Python <-> NESL
class _Data:
    """A normalised datatype value: constructor name and the normalised constructor argument."""

    __slots__ = ("name", "arg")

    def __init__(self, name: str, arg: Any) -> None:
        self.name = name
        self.arg = arg


class PyConv:
    """Conversions between Python values and NESL values of ground types."""

    def __init__(self, datadefs: dict, int_bits: int) -> None:
        self.datadefs = datadefs
        self.int_bits = int_bits
        self.int_dtype = np.dtype(np.int32 if int_bits == 32 else np.int64)
        self.lo, self.hi = -(1 << (int_bits - 1)), (1 << (int_bits - 1)) - 1

    def arg_type(self, t: TData) -> Type:
        dd = self.datadefs[t.name]
        return subst_type(dd.arg_type, {p.id: a for p, a in zip(dd.params, t.args)})

    def nfields(self, t: TData) -> int:
        return len(tuple_components(self.arg_type(t)))

    # ---------------------------------------------------------------- Python -> normalised
    def check_int(self, x: int) -> int:
        x = int(x)
        if not self.lo <= x <= self.hi:
            raise OverflowError(f"{x} does not fit the {self.int_bits}-bit NESL int")
        return x

    def norm(self, v: Any, t: Type) -> Any:
        """Normalise a Python value already known to have ground NESL type ``t``: base
        sequences become numpy arrays of the NESL dtype ([char] a str), tuples right-nested
        pairs, datatypes ``_Data``."""
        if isinstance(t, TBase):
            if isinstance(v, np.ndarray):
                v = v.item()
            n = t.name
            if n in ("int", "segdes"):
                return self.check_int(v)
            if n == "float":
                return float(v)
            if n == "bool":
                return bool(v)
            if n == "char":
                if not isinstance(v, str) or len(v) != 1 or ord(v) > 255:
                    raise Mismatch()
                return v
        if isinstance(t, TSeq):
            return self.norm_seq(v, t.elem)
        if isinstance(t, TPair):
            if not isinstance(v, tuple):
                raise Mismatch()
            comps = tuple_components(t)
            if len(v) == 2:
                return (self.norm(v[0], t.fst), self.norm(v[1], t.snd))
            if len(v) != len(comps):
                raise Mismatch()
            out = self.norm(v[-1], comps[-1])
            for x, c in zip(reversed(v[:-1]), reversed(comps[:-1])):
                out = (self.norm(x, c), out)
            return out
        if isinstance(t, TData):
            at = self.arg_type(t)
            if isinstance(v, DataVal):
                value = v.fields[0] if len(v.fields) == 1 else tuple(v.fields)
            else:
                value = v
            return _Data(t.name, self.norm(value, at))
        raise Mismatch()

    def norm_seq(self, v: Any, elem: Type) -> Any:
        if isinstance(elem, TBase):
            n = elem.name
            if n == "char":
                if isinstance(v, str):
                    if any(ord(c) > 255 for c in v):
                        raise Mismatch()
                    return v
                return "".join(self.norm(x, elem) for x in v)
            if isinstance(v, np.ndarray):
                arr = v
            elif isinstance(v, (list, range)):
                try:
                    arr = np.asarray(v)
                except (ValueError, TypeError):
                    raise Mismatch() from None
            else:
                raise Mismatch()
            if arr.size == 0:
                arr = arr.reshape(-1)
            if arr.ndim != 1:
                raise Mismatch()
            if n in ("int", "segdes"):
                if arr.size == 0:
                    return np.zeros(0, self.int_dtype)
                if arr.dtype.kind not in "iu":
                    if arr.dtype == object:
                        return np.asarray([self.check_int(x) for x in arr], self.int_dtype)
                    raise Mismatch()
                if int(arr.min()) < self.lo or int(arr.max()) > self.hi:
                    bad = int(arr.min()) if int(arr.min()) < self.lo else int(arr.max())
                    raise OverflowError(f"{bad} does not fit the {self.int_bits}-bit NESL int")
                return arr.astype(self.int_dtype)
            if n == "float":
                if arr.size and arr.dtype.kind not in "iuf":
                    raise Mismatch()
                return arr.astype(np.float64)
            if n == "bool":
                if arr.size and arr.dtype.kind != "b":
                    raise Mismatch()
                return arr.astype(np.bool_)
        if isinstance(v, np.ndarray):
            if v.ndim < 2 and v.size:
                raise Mismatch()
            v = list(v)
        if not isinstance(v, (list, range)):
            raise Mismatch()
        return [self.norm(x, elem) for x in v]

    # ---------------------------------------------------------------- normalised -> interp
    def to_interp(self, nv: Any, t: Type) -> Any:
        if isinstance(t, TBase):
            return SegDes(nv) if t.name == "segdes" else nv
        if isinstance(t, TSeq):
            e = t.elem
            if isinstance(e, TBase):
                if e.name == "char":
                    return Seq(tuple(nv))
                if e.name == "segdes":
                    return Seq(tuple(SegDes(int(x)) for x in nv.tolist()))
                return Seq(tuple(nv.tolist()))
            return Seq(tuple(self.to_interp(x, e) for x in nv))
        if isinstance(t, TPair):
            return (self.to_interp(nv[0], t.fst), self.to_interp(nv[1], t.snd))
        if isinstance(t, TData):
            inner = self.to_interp(nv.arg, self.arg_type(t))
            n = self.nfields(t)
            return DataVal(t.name, (inner,) if n == 1 else unpair(inner, n))
        raise TypeError(t)

    # ---------------------------------------------------------------- normalised -> λcu leaves
    def unfold(self, t: Type) -> Type:
        while isinstance(t, TData):
            t = self.arg_type(t)
        return t

    def to_leaves(self, nv: Any, t: Type, out: list) -> None:
        while isinstance(t, TData):
            nv, t = nv.arg, self.arg_type(t)
        if isinstance(t, TBase):
            out.append(nv)
        elif isinstance(t, TPair):
            self.to_leaves(nv[0], t.fst, out)
            self.to_leaves(nv[1], t.snd, out)
        else:
            self.seq_leaves(nv, t.elem, out)

    def seq_leaves(self, items: Any, elem: Type, out: list) -> None:
        """Leaves of a sequence (normalised) with element type ``elem``."""
        while isinstance(elem, TData):
            items = [x.arg for x in items]
            elem = self.arg_type(elem)
        if isinstance(elem, TBase):
            out.append(self.base_vector(items, elem))
        elif isinstance(elem, TPair):
            items = list(items)
            self.seq_leaves([x[0] for x in items], elem.fst, out)
            self.seq_leaves([x[1] for x in items], elem.snd, out)
        else:
            items = list(items)
            out.append(LSegDes(np.asarray([len(x) for x in items], dtype=np.int64)))
            inner = self.unfold(elem.elem)
            if isinstance(inner, TBase):
                parts = [self.base_vector(x, inner) for x in items]
                if parts:
                    out.append(np.concatenate(parts))
                else:
                    out.append(self.base_vector([], inner))
            else:
                flat: list = []
                for x in items:
                    flat.extend(x)
                self.seq_leaves(flat, elem.elem, out)

    def base_vector(self, items: Any, elem: TBase) -> np.ndarray:
        n = elem.name
        if n == "char":
            s = items if isinstance(items, str) else "".join(items)
            return np.frombuffer(s.encode("latin-1"), dtype=np.uint8).copy()
        dt = {"int": self.int_dtype, "segdes": self.int_dtype, "float": np.dtype(np.float64),
              "bool": np.dtype(np.bool_)}[n]
        if isinstance(items, np.ndarray):
            return items.astype(dt, copy=False).reshape(-1)
        return np.asarray(list(items), dtype=dt).reshape(-1)

    # ---------------------------------------------------------------- results
    def from_interp(self, v: Any, t: Type) -> Any:
        if isinstance(t, TBase):
            if t.name == "segdes":
                return v.length if isinstance(v, SegDes) else int(v)
            return v
        if isinstance(t, TSeq):
            e = t.elem
            items = v.items
            if isinstance(e, TBase):
                if e.name == "char":
                    return "".join(items)
                if e.name == "int":
                    return np.asarray(items, dtype=self.int_dtype).reshape(-1)
                if e.name == "float":
                    return np.asarray(items, dtype=np.float64).reshape(-1)
                if e.name == "bool":
                    return np.asarray(items, dtype=np.bool_).reshape(-1)
                return np.asarray([x.length for x in items], dtype=np.int64)
            return [self.from_interp(x, e) for x in items]
        if isinstance(t, TPair):
            comps = tuple_components(t)
            vals = unpair(v, len(comps))
            return tuple(self.from_interp(x, c) for x, c in zip(vals, comps))
        if isinstance(t, TData):
            fts = tuple_components(self.arg_type(t))
            return DataVal(t.name, tuple(self.from_interp(x, ft) for x, ft in zip(v.fields, fts)))
        raise TypeError(t)

    def from_leaves(self, t: Type, ls: list) -> Any:
        """Python result of NESL type ``t`` from λcu leaves (consumed from the front)."""
        if isinstance(t, TData):
            at = self.arg_type(t)
            inner = self.from_leaves(at, ls)
            n = len(tuple_components(at))
            return DataVal(t.name, (inner,) if n == 1 else tuple(inner))
        if isinstance(t, TBase):
            return self.scalar(ls.pop(0), t)
        if isinstance(t, TPair):
            return tuple(self.from_leaves(c, ls) for c in tuple_components(t))
        col = self.column(t.elem, ls)
        return self.finish(col, t.elem)

    def scalar(self, x: Any, t: TBase) -> Any:
        n = t.name
        if n in ("int", "segdes"):
            return int(x)
        if n == "float":
            return float(x)
        if n == "bool":
            return bool(x)
        return x if isinstance(x, str) else chr(int(x))

    def column(self, elem: Type, ls: list) -> Any:
        """The elements of a sequence as a 'column': a numpy array (base elements), a str
        ([char] elements are chars), or a list of Python element values."""
        if isinstance(elem, TData):
            at = self.arg_type(elem)
            n = len(tuple_components(at))
            inner = self.elements(self.column(at, ls), at)
            return [DataVal(elem.name, (x,) if n == 1 else tuple(x)) for x in inner]
        if isinstance(elem, TBase):
            v = np.asarray(ls.pop(0))
            n = elem.name
            if n == "char":
                return bytes(v.astype(np.uint8).tolist()).decode("latin-1")
            dt = {"int": self.int_dtype, "segdes": self.int_dtype, "float": np.float64,
                  "bool": np.bool_}[n]
            return v.astype(dt).reshape(-1)
        if isinstance(elem, TPair):
            comps = tuple_components(elem)
            cols = [self.elements(self.column(c, ls), c) for c in comps]
            return list(zip(*cols)) if cols else []
        sd = ls.pop(0)
        lens = np.asarray(sd.lengths if hasattr(sd, "lengths") else sd, dtype=np.int64)
        data = self.column(elem.elem, ls)
        bounds = np.concatenate([[0], np.cumsum(lens)]).tolist()
        return [self.finish(data[bounds[i]:bounds[i + 1]], elem.elem)
                for i in range(len(lens))]

    def elements(self, col: Any, elem: Type) -> list:
        """A column as a list of Python element values."""
        if isinstance(col, np.ndarray):
            return col.tolist()
        return list(col)

    def finish(self, col: Any, elem: Type) -> Any:
        """The Python value of a sequence given its column."""
        if isinstance(col, (np.ndarray, str)):
            return col.copy() if isinstance(col, np.ndarray) else col
        return list(col)


# ============================================================================== λcu <-> interp
def datatypes(items) -> Any:
    """The ``Datatypes`` (``nessie.interp.vtypes``: what the printer needs) of the ``DataDef``
    items of a typed program."""
    dts = Datatypes()
    for it in items:
        if isinstance(it, T.DataDef):
            dts.add(it.name, it.scheme)
    return dts


def unfold_once(tm, t):
    """A datatype's constructor argument type (which may be a datatype itself)."""
    params, arg = tm.datatypes[t.name]
    return nt.subst_type(arg, dict(zip(params, t.args))) if params else arg


def leaves_to_value(tm, ty, leaves: list, dts) -> Any:
    """Convert λcu leaf values (numpy arrays, segment descriptors, scalars) of a value of NESL
    type ``ty`` to the reference interpreter's value representation."""
    def scalar(x, t):
        name = tm.unfold(t).name
        if name == "int" or name == "segdes":
            return int(x)
        if name == "float":
            return float(x)
        if name == "bool":
            return bool(x)
        if name == "char":
            return x if isinstance(x, str) else chr(int(x))
        raise TypeError(name)

    def value(t, ls):
        if isinstance(t, nt.TData):
            inner = value(unfold_once(tm, t), ls)
            n = len(dts.fields(t))
            return DataVal(t.name, (inner,) if n == 1 else unpair(inner, n))
        if isinstance(t, nt.TBase):
            return scalar(ls.pop(0), t)
        if isinstance(t, nt.TPair):
            a = value(t.fst, ls)
            return (a, value(t.snd, ls))
        return Seq(seq(t.elem, ls))

    def seq(t, ls):
        """List of the elements of a sequence representation of element type t."""
        if isinstance(t, nt.TData):
            items = seq(unfold_once(tm, t), ls)
            n = len(dts.fields(t))
            return [DataVal(t.name, (x,) if n == 1 else unpair(x, n)) for x in items]
        if isinstance(t, nt.TBase):
            v = ls.pop(0)
            return [scalar(x, t) for x in list(v)]
        if isinstance(t, nt.TPair):
            a = seq(t.fst, ls)
            b = seq(t.snd, ls)
            return list(zip(a, b))
        sd = ls.pop(0)
        lens = [int(n) for n in sd.field("lengths")] if hasattr(sd, "field") else list(sd)
        data = seq(t.elem, ls)
        out, k = [], 0
        for n in lens:
            out.append(Seq(data[k:k + n]))
            k += n
        return out

    return value(ty, list(leaves))


def truncate_leaves(tm, ty, leaves: list, limit: int) -> list:
    """Leaves of the value of NESL type ``ty`` with every sequence cut to its first
    ``limit + 1`` elements — all that printing with ``print_length = limit`` shows (it prints
    ``...`` after ``limit`` elements), so results of millions of elements print without being
    converted whole."""
    keep = limit + 1
    ls = list(leaves)
    out: list = []

    def value(t):
        t = tm.unfold(t)
        if isinstance(t, nt.TBase):
            out.append(ls.pop(0))
        elif isinstance(t, nt.TPair):
            value(t.fst)
            value(t.snd)
        else:
            n = _seq_len(t.elem)
            seq(t.elem, np.arange(min(n, keep)))

    def _seq_len(t):
        t = tm.unfold(t)
        while isinstance(t, nt.TPair):
            t = tm.unfold(t.fst)
        first = ls[0]
        if isinstance(t, nt.TSeq):
            return len(first.field("lengths"))
        return len(first)

    def seq(t, idx):
        """Append the leaves of the elements ``idx`` of the next sequence representation."""
        t = tm.unfold(t)
        if isinstance(t, nt.TBase):
            out.append(np.asarray(ls.pop(0))[idx])
        elif isinstance(t, nt.TPair):
            seq(t.fst, idx)
            seq(t.snd, idx)
        else:
            sd = ls.pop(0)
            lens = sd.field("lengths")[idx]
            offs = sd.field("offsets")[idx]
            kept = np.minimum(lens, keep)
            out.append(LSegDes(kept.astype(np.int64)))
            starts = np.repeat(offs - np.concatenate(([0], np.cumsum(kept)[:-1])), kept)
            inner = starts + np.arange(int(kept.sum()))
            seq(t.elem, inner.astype(np.int64))

    value(ty)
    return out


def value_to_leaves(tm, ty, v) -> list:
    """The λcu leaves (numpy scalars/arrays, segment descriptors) of an interpreter value of
    NESL type ``ty`` — the inverse of :func:`leaves_to_value`."""
    def unfold_value(t, x):
        if isinstance(t, nt.TData):
            f = x.fields
            out = f[-1]
            for y in reversed(f[:-1]):
                out = (y, out)
            return unfold_once(tm, t), out
        return t, x

    def scalar(t, x):
        bt = tm.base(t)
        if isinstance(x, str):
            x = ord(x)
        return dtype_of(bt).type(x)

    def value(t, x, out):
        while isinstance(t, nt.TData):
            t, x = unfold_value(t, x)
        if isinstance(t, nt.TBase):
            out.append(scalar(t, x))
        elif isinstance(t, nt.TPair):
            value(t.fst, x[0], out)
            value(t.snd, x[1], out)
        else:
            seq(t.elem, list(x.items), out)

    def seq(t, items, out):
        while isinstance(t, nt.TData):
            items = [unfold_value(t, x)[1] for x in items]
            t = unfold_once(tm, t)
        if isinstance(t, nt.TBase):
            bt = tm.base(t)
            out.append(np.asarray([ord(x) if isinstance(x, str) else x for x in items],
                                  dtype=dtype_of(bt)).reshape(-1))
        elif isinstance(t, nt.TPair):
            seq(t.fst, [x[0] for x in items], out)
            seq(t.snd, [x[1] for x in items], out)
        else:
            out.append(LSegDes(np.asarray([len(x.items) for x in items], dtype=np.int64)))
            seq(t.elem, [y for x in items for y in x.items], out)

    out: list = []
    value(ty, v, out)
    return out
