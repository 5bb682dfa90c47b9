"""Conversions between Python/numpy values and NESL values, in both directions, for every
backend (issue 13): the Python API (``nessie.api``), the driver (``nessie.driver``: printing λcu
results, the host library's ``to_value``) and the REPL use this module and no copy of it.

A NESL value of a ground type has three representations here:

* **Python/numpy** (the API's arguments and results): ``int``/``float``/``bool``/one-character
  ``str``; ``[char]`` a ``str``; flat sequences of scalars numpy arrays; other sequences lists
  or columnar forms (``Segmented``, structured arrays, tuples of columns, Arrow, awkward);
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
``Segmented``, ``as_columnar``         columnar forms of sequences (``Segmented``, structured
                                       arrays, tuples of columns, (n, k) arrays, scipy CSR,
                                       Arrow, awkward), read with numpy only; ``norm`` makes
                                       them a ``_Column`` whose leaves are its vectors as they
                                       are (issue 9)
``PyConv.result``/``interp_result``    λcu leaves / interpreter value -> Python value in a
                                       result format (``RESULT_FORMATS``: ``"python"``;
                                       columnar ``"numpy"``, ``"arrow"``, ``"awkward"``)
``leaves_to_value``                    λcu leaves -> interpreter value (printing, ``to_value``)
``value_to_leaves``                    interpreter value -> λcu leaves (top-level values read by a
                                       compiled function)
``truncate_leaves``                    the leaves of the part of a value that printing shows
``datatypes``                          the printer's ``Datatypes`` of a program's items
=====================================  =============================================================

``datadefs`` is ``{name: typed DataDef}``, a datatype defined again at another type under the
monomorphiser's name of each definition (``pt``, ``pt~2``); ``tm`` a flattened program's ``TypeMap``
(``flat.typemap``).
"""
from __future__ import annotations

import itertools
import operator
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
           "leaves_to_value", "value_to_leaves", "truncate_leaves", "HostLeaves", "Segmented", "as_columnar",
           "ArgTypeError", "ArgValueError", "RESULT_FORMATS"]


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


def _scalar_type_fits(ty: type, name: str) -> bool:
    """Whether every value of Python type ``ty`` is a NESL ``name`` (int, float or bool) as
    ``TypeOf.infer`` types scalars (ints are floats where floats are expected)."""
    is_bool = issubclass(ty, (bool, np.bool_))
    is_int = issubclass(ty, (int, np.integer)) and not is_bool
    if name == "float":
        return is_int or issubclass(ty, (float, np.floating))
    if name == "int":
        return is_int
    if name == "bool":
        return is_bool
    return False


def _mixed_number_depth(xs: list) -> Optional[int]:
    """``d`` where ``xs`` are plain Python lists nested ``d`` deep (0: scalars) whose leaves are
    all ints and floats (no bools), both kinds present; else None."""
    kinds = set(map(type, xs))
    if kinds != {list}:
        # every kind a float (ints included, bools not), some an int and some not
        ints = [_scalar_type_fits(k, "int") for k in kinds]
        return 0 if all(_scalar_type_fits(k, "float") for k in kinds) and any(ints) \
            and not all(ints) else None
    inner = [y for x in xs for y in x]
    d = _mixed_number_depth(inner) if inner else None
    return None if d is None else d + 1


def _fits_all(xs: list, t: Type) -> bool:
    """Whether every element of ``xs``, made of Python/numpy scalars, ``str``, tuples and lists
    only, has the ground type ``t`` as ``TypeOf.check`` would find it.  False for anything else
    (arrays, columnar forms, datatypes, segment descriptors, nested pairs), which
    ``TypeOf.check`` then handles: a fast path, never a different answer.  Works a level of
    the type at a time over all the elements (types, lengths and columns by C-level loops);
    as deep as the type, whatever ``xs`` contains."""
    if isinstance(t, TBase):
        if t.name == "char":
            return all(type(x) is str and len(x) == 1 for x in xs)
        return all(_scalar_type_fits(ty, t.name) for ty in set(map(type, xs)))
    kinds = set(map(type, xs))
    if not kinds:
        return True
    if isinstance(t, TPair):
        comps = tuple_components(t)
        if kinds != {tuple} or set(map(len, xs)) != {len(comps)}:
            return False
        return all(_fits_all(list(map(operator.itemgetter(j), xs)), c)
                   for j, c in enumerate(comps))
    if isinstance(t, TSeq):
        if kinds == {str}:
            return t.elem == CHAR
        if kinds != {list}:
            return False
        return _fits_all(list(itertools.chain.from_iterable(xs)), t.elem)
    return False


def _plain_array(a: np.ndarray, path: str) -> None:
    """Refuse array types whose elements are not simply the array's data: a masked array (its
    mask would be ignored), a ``np.matrix`` (2-d only, its rows are matrices) and any other
    ``ndarray`` subclass but ``np.memmap`` (plain data on disk)."""
    if type(a) is np.ndarray or isinstance(a, np.memmap):
        return
    if isinstance(a, np.ma.MaskedArray):
        raise ArgTypeError(f"{path or 'argument'}: a numpy masked array is not accepted (NESL "
                        f"sequences have no mask): pass a.compressed() or a.filled(value)")
    raise ArgTypeError(f"{path or 'argument'}: a {type(a).__module__}.{type(a).__name__} is not "
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
    if isinstance(v, Segmented):
        return f"Segmented of {len(v)} segments over {describe(v.values)}"
    mod = type(v).__module__ or ""
    if mod.startswith("pyarrow") and hasattr(v, "type"):
        return f"pyarrow {type(v).__name__} of type {v.type} and length {len(v)}"
    if mod.startswith("awkward") and hasattr(v, "type"):
        return f"awkward Array of type {str(v.type)[:60]}"
    if mod.startswith("scipy.sparse"):
        return f"scipy.sparse {getattr(v, 'format', '?')} matrix of shape {v.shape}"
    return f"{type(v).__name__} {v!r}"[:80]


# ============================================================================== columnar forms
class ArgTypeError(TypeError):
    """A columnar argument of the wrong kind (``nessie.api`` adds the function and parameter)."""


class ArgValueError(ValueError):
    """A columnar argument of the right kind but an impossible content (negative lengths,
    offsets not monotone, columns of different lengths, missing values)."""


def _index_vector(x: Any, what: str, int64: bool = True) -> np.ndarray:
    """A 1-d integer vector (lengths/offsets) (as int64 with ``int64``), or a clear error."""
    a = np.asarray(x)
    if a.ndim != 1:
        raise ArgTypeError(f"Segmented: {what} must be a 1-d integer vector, not {a.ndim}-d")
    if a.size == 0:
        return np.zeros(0, np.int64)
    if a.dtype.kind not in "iu":
        raise ArgTypeError(f"Segmented: {what} must be integers, not {a.dtype}")
    if a.dtype.kind == "u" and a.dtype.itemsize == 8 and a.size and int(a.max()) > 2 ** 62:
        raise ArgValueError(f"Segmented: {what} too large ({int(a.max())})")
    return a.astype(np.int64, copy=False) if int64 or a.dtype.kind == "u" else a


class Segmented:
    """A nested sequence in columnar form: the sequence of ``len(lengths)`` segments that cut
    ``values`` (the elements of all segments, one after the other) into pieces.

    ``Segmented(values, lengths=...)`` or ``Segmented(values, offsets=...)``: ``lengths[i]`` is
    the length of segment ``i`` (``sum(lengths) == len(values)``); ``offsets`` has one entry
    more than there are segments, segment ``i`` being ``values[offsets[i]:offsets[i+1]]``
    (non-decreasing; ``offsets[0]`` may be above 0 and ``offsets[-1]`` below ``len(values)``,
    as in Arrow).  ``values`` is any accepted sequence form of the element type: a numpy array,
    a structured array or a tuple of columns (sequences of tuples), a ``str`` (``[[char]]``),
    another ``Segmented`` (deeper nesting), an Arrow/awkward array, or a list.

    A ``[[(int, float)]]`` sparse matrix of 2 rows::

        Segmented((np.array([0, 1, 1]), np.array([2.0, -1.0, 3.0])), lengths=[2, 1])

    ``len(s)`` is the number of segments, ``s[i]`` segment ``i`` (sliced from ``values``, which
    must then support slicing), ``s.to_list()`` the nested Python lists."""

    __slots__ = ("values", "lengths", "offsets", "_exact")

    def __init__(self, values: Any, lengths: Any = None, *, offsets: Any = None) -> None:
        if (lengths is None) == (offsets is None):
            raise TypeError("Segmented(values, lengths=...) or Segmented(values, offsets=...): "
                            "give exactly one of lengths and offsets")
        if isinstance(values, np.ndarray):
            _plain_array(values, "Segmented values")
        n = _form_len(values)
        if lengths is not None:
            ln = _index_vector(lengths, "lengths")
            if ln.size and int(ln.min()) < 0:
                i = int(np.argmin(ln))
                raise ArgValueError(f"Segmented: negative segment length {int(ln[i])} at "
                                    f"index {i}")
            off = np.zeros(ln.size + 1, np.int64)
            np.cumsum(ln, out=off[1:])
            if ln.size and (off[1:] < off[:-1]).any():
                # the int64 sum wrapped round: no such number of values
                raise ArgValueError(f"Segmented: the lengths add up to {sum(ln.tolist())}, "
                                    f"more than there can be values (2**63 - 1)")
            if n is not None and int(off[-1]) != n:
                raise ArgValueError(f"Segmented: the lengths add up to {int(off[-1])} but "
                                    f"there are {n} values")
        else:
            off = _index_vector(offsets, "offsets", False)
            if off.size == 0:
                raise ArgValueError("Segmented: offsets needs at least one entry (n segments "
                                    "have n + 1 offsets)")
            down = off[1:] < off[:-1]
            if down.any():
                i = int(np.argmax(down))
                raise ArgValueError(f"Segmented: offsets are not monotone (offsets[{i}] = "
                                    f"{int(off[i])} > offsets[{i + 1}] = {int(off[i + 1])})")
            ln = np.diff(off)                 # in the offsets' dtype (no overflow: monotone)
            if int(off[0]) < 0:
                raise ArgValueError(f"Segmented: negative offset {int(off[0])}")
            if n is not None and int(off[-1]) > n:
                raise ArgValueError(f"Segmented: offsets reach {int(off[-1])} but there are "
                                    f"only {n} values")
        ln = ln.view()
        off = off.view()
        ln.flags.writeable = False
        off.flags.writeable = False
        self.values = values
        self.lengths = ln
        self.offsets = off
        self._exact = lengths is not None         # the segments cover all values

    def __len__(self) -> int:
        return int(self.lengths.shape[0])

    def __getitem__(self, i: Any) -> Any:
        n = len(self)
        if isinstance(i, slice):
            # a slice of segments: a Segmented over the same values (consecutive segments:
            # their offsets, a step of 1 only)
            start, stop, step = i.indices(n)
            if step != 1:
                raise ValueError(f"Segmented: a slice of segments takes step 1, not {step} "
                                 "(slice s.to_list() for other steps)")
            stop = max(stop, start)
            return Segmented(self.values, offsets=self.offsets[start:stop + 1])
        if isinstance(i, (bool, np.bool_)) or not isinstance(i, (int, np.integer)):
            raise TypeError(f"Segmented indices are integers or slices, not {type(i).__name__}")
        i = int(i)
        if not -n <= i < n:
            raise IndexError(f"segment {i} of {n}")
        i %= n
        return _slice_form(self.values, int(self.offsets[i]), int(self.offsets[i + 1]))

    def to_list(self) -> list:
        """The nested Python lists (tuples for structured/tuple values)."""
        def items(v):
            if isinstance(v, Segmented):
                return v.to_list()
            if isinstance(v, tuple):
                return list(zip(*[items(c) for c in v]))
            if isinstance(v, np.ndarray) and v.dtype.names:
                return list(zip(*[items(v[f]) for f in v.dtype.names]))
            if isinstance(v, np.ndarray):
                return v.tolist()
            if isinstance(v, str):
                return v
            return list(v)
        vals = items(self.values)
        off = self.offsets.tolist()
        return [vals[off[i]:off[i + 1]] for i in range(len(self))]

    def __eq__(self, other: Any) -> bool:
        if not isinstance(other, Segmented):
            return NotImplemented
        return np.array_equal(self.lengths, other.lengths) and self.to_list() == other.to_list()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        """The constructor call of the same value: ``lengths=`` when the segments cover all
        the values, else ``offsets=`` (a window of the values, as in Arrow)."""
        n = _form_len(self.values)
        off = self.offsets
        if self._exact or (int(off[0]) == 0 and n is not None and int(off[-1]) == n):
            return f"Segmented({_short(self.values)}, lengths={_short(self.lengths)})"
        return f"Segmented({_short(self.values)}, offsets={_short(self.offsets)})"


class _Strings(Segmented):
    """An Arrow or awkward string array: a sequence of strings (``values`` a ``str``), or,
    where chars are expected, of chars when every string has one character: Arrow and awkward
    have no char type, so ``results="arrow"``/``"awkward"`` write a char column as strings of
    one character, and a result is taken back as an argument of its type."""

    __slots__ = ()

    def chars(self) -> Optional[str]:
        """The chars, one a string; None if a string does not have exactly one character."""
        if self.lengths.size and (int(self.lengths.min()) != 1 or int(self.lengths.max()) != 1):
            return None
        return self.values[int(self.offsets[0]):int(self.offsets[-1])]


def _slice_form(v: Any, a: int, b: int) -> Any:
    """Elements ``a:b`` of a sequence value in a form that ``Segmented`` returns or takes."""
    if isinstance(v, Segmented):
        return Segmented(v.values, offsets=v.offsets[a:b + 1])
    if isinstance(v, tuple):
        return tuple(_slice_form(c, a, b) for c in v)
    return v[a:b]


def _short(v: Any) -> str:
    if isinstance(v, np.ndarray):
        return np.array2string(v, threshold=8, edgeitems=3, separator=", ")
    if isinstance(v, tuple):
        return "(" + ", ".join(_short(x) for x in v) + ")"
    r = repr(v)
    return r if len(r) < 60 else r[:57] + "..."


class _Tup:
    """Columns of a sequence of tuples (one per component, equal lengths); ``names`` for error
    messages (structured array fields, Arrow struct fields)."""

    __slots__ = ("cols", "names")

    def __init__(self, cols: list, names: list) -> None:
        self.cols = cols
        self.names = names


def _sub(path: str, name: str) -> str:
    return path + (name if name.startswith("[") else "." + name)


def _has_data(t: Type) -> bool:
    """Whether a datatype occurs in ``t``."""
    if isinstance(t, TData):
        return True
    if isinstance(t, TSeq):
        return _has_data(t.elem)
    if isinstance(t, TPair):
        return _has_data(t.fst) or _has_data(t.snd)
    return False


def _module_of(v: Any) -> str:
    return type(v).__module__ or ""


def _is_arrow(v: Any) -> bool:
    return _module_of(v).startswith("pyarrow")


def _is_awkward(v: Any) -> bool:
    return _module_of(v).startswith("awkward")


def _is_sparse(v: Any) -> bool:
    return _module_of(v).startswith("scipy.sparse")


def _form_len(v: Any) -> Optional[int]:
    """The number of elements of a sequence value in any accepted form (None: unknown)."""
    if isinstance(v, Segmented):
        return len(v)
    if isinstance(v, _Tup):
        return _form_len(v.cols[0]) if v.cols else None
    if _is_arrow(v) and hasattr(v, "num_rows"):
        return int(v.num_rows)
    if isinstance(v, np.ndarray):
        return int(v.shape[0]) if v.ndim else None
    if isinstance(v, tuple):
        return _form_len(v[0]) if v else None
    if isinstance(v, list) and len(v) >= 2 and all(is_column_object(x) for x in v):
        return None                 # k columns of tuples, or k rows: the type decides
    if _is_sparse(v):
        return int(v.shape[0])
    try:
        return len(v)
    except TypeError:
        return None


def is_column_object(v: Any) -> bool:
    """A value that can only be a whole column (not one element of a sequence)."""
    return (isinstance(v, (Segmented, np.ndarray)) and (not isinstance(v, np.ndarray) or v.ndim >= 1)
            or _is_arrow(v) or _is_awkward(v) or _is_sparse(v))


def _utf8_to_latin1(data: np.ndarray, offsets: np.ndarray, path: str) -> tuple:
    """UTF-8 bytes (with string offsets) -> latin-1 codes and offsets, vectorised; a character
    above U+00FF is refused (NESL chars are 8-bit)."""
    data = np.asarray(data, np.uint8)
    if not data.size or int(data.max()) < 0x80:
        return data, offsets
    lead = (data & 0xC0) != 0x80
    if np.any(data[lead] > 0xC3):
        raise ArgValueError(f"{path}: a string has a character above U+00FF, which a NESL char "
                            f"(8 bits, latin-1) cannot hold")
    if np.any((data >= 0xC0) & (data < 0xC2)):
        raise ArgValueError(f"{path}: the string data is not valid UTF-8")
    cont = ~lead
    two = np.flatnonzero(data >= 0xC2)                   # lead bytes of 2-byte sequences
    if (two.size and int(two[-1]) + 1 >= data.size) or not np.all(cont[two + 1]) \
            or int(cont.sum()) != two.size:
        raise ArgValueError(f"{path}: the string data is not valid UTF-8")
    out = data.copy()
    out[two] = (((data[two].astype(np.int64) & 0x1F) << 6)
                | (data[two + 1].astype(np.int64) & 0x3F)).astype(np.uint8)
    keep = lead
    removed = np.concatenate(([0], np.cumsum(cont)))
    return out[keep], offsets - removed[offsets]


def _latin1_to_utf8(codes: np.ndarray, offsets: np.ndarray) -> tuple:
    """Latin-1 codes with offsets -> UTF-8 bytes and offsets, vectorised."""
    codes = np.asarray(codes, np.uint8)
    high = codes >= 0x80
    if not high.any():
        return codes, offsets
    width = 1 + high.astype(np.int64)
    pos = np.concatenate(([0], np.cumsum(width)))
    out = np.empty(int(pos[-1]), np.uint8)
    start = pos[:-1]
    out[start] = np.where(high, 0xC0 | (codes >> 6), codes)
    hs = start[high]
    out[hs + 1] = 0x80 | (codes[high] & 0x3F)
    return out, pos[offsets]


def _arrow_form(a: Any, path: str) -> Any:
    """An Arrow array as numpy arrays, ``Segmented`` and ``_Tup`` (no per-element work)."""
    import pyarrow as pa
    if isinstance(a, pa.ChunkedArray):
        a = a.combine_chunks()
    if not isinstance(a, pa.Array):
        raise ArgTypeError(f"{path}: a {type(a).__name__} is not accepted: pass a pyarrow "
                           f"Array or ChunkedArray")
    if a.null_count:
        raise ArgValueError(f"{path}: the Arrow array has {a.null_count} missing values "
                            f"(nulls); NESL sequences have none (drop or fill them)")
    t = a.type
    if pa.types.is_null(t):
        return []           # no element (a null one was refused above): pa.array([]), [[], []]'s
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        # only the values the lists reach: a sliced array's ``values`` are all its parent's,
        # whose nulls outside the slice are none of this sequence's
        off = np.asarray(a.offsets)
        lo, hi = (int(off[0]), int(off[-1])) if off.size else (0, 0)
        return Segmented(_arrow_form(a.values.slice(lo, hi - lo), path + ".values"),
                         offsets=off - lo)
    if pa.types.is_fixed_size_list(t):
        return Segmented(_arrow_form(a.flatten(), path + ".values"),
                         lengths=np.full(len(a), t.list_size, np.int64))
    if pa.types.is_struct(t):
        names = [t.field(i).name for i in range(t.num_fields)]
        return _Tup([_arrow_form(c, f"{path}.{n}") for c, n in zip(a.flatten(), names)], names)
    if pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_binary(t) \
            or pa.types.is_large_binary(t):
        bufs = a.buffers()
        odt = np.int64 if (pa.types.is_large_string(t) or pa.types.is_large_binary(t)) \
            else np.int32
        off = np.frombuffer(bufs[1], odt)[a.offset:a.offset + len(a) + 1].astype(np.int64)
        data = np.frombuffer(bufs[2], np.uint8) if bufs[2] is not None and len(a) \
            else np.zeros(0, np.uint8)
        data = data[int(off[0]):int(off[-1])] if off.size else data[:0]
        off = off - (off[0] if off.size else 0)
        if pa.types.is_string(t) or pa.types.is_large_string(t):
            data, off = _utf8_to_latin1(data, off, path)
        return _Strings(data.tobytes().decode("latin-1"), offsets=off)
    if pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_boolean(t):
        return np.asarray(a.to_numpy(zero_copy_only=False))
    raise ArgTypeError(f"{path}: Arrow type {t} has no NESL counterpart (accepted: integer, "
                       f"floating, boolean, string, list, large_list, fixed_size_list, struct)")


def _awkward_form(x: Any, path: str) -> Any:
    """An awkward Array (its layout: offsets over flat data) as numpy arrays, ``Segmented`` and
    ``_Tup`` (no per-element work)."""
    import awkward as ak
    if isinstance(x, ak.Array):
        layout = x.layout
    elif isinstance(x, ak.contents.Content):
        layout = x
    else:
        raise ArgTypeError(f"{path}: an awkward {type(x).__name__} is not accepted: pass an "
                           f"awkward Array")
    return _awkward_layout(layout, path)


def _awkward_layout(lay: Any, path: str) -> Any:
    import awkward as ak
    C = ak.contents
    if isinstance(lay, C.UnmaskedArray):
        return _awkward_layout(lay.content, path)
    if isinstance(lay, (C.IndexedOptionArray, C.ByteMaskedArray, C.BitMaskedArray)):
        kept = lay.project()                  # the elements that are not None
        if kept.length != lay.length:
            raise ArgValueError(f"{path}: the awkward array has {lay.length - kept.length} "
                                f"missing values (None); NESL sequences have none "
                                f"(ak.drop_none or ak.fill_none)")
        return _awkward_layout(kept, path)
    if isinstance(lay, C.IndexedArray):
        return _awkward_layout(lay.project(), path)
    if isinstance(lay, C.EmptyArray):
        return []
    if isinstance(lay, C.NumpyArray):
        data = np.asarray(lay.data)
        if lay.parameter("__array__") == "char":
            return data.tobytes().decode("latin-1")
        return data
    if isinstance(lay, (C.ListOffsetArray, C.ListArray)):
        lo = lay.to_ListOffsetArray64(False)
        off = np.asarray(lo.offsets)
        # only the content the lists reach (a sliced array's content is all its parent's,
        # whose None outside the slice are none of this sequence's)
        a, b = int(off[0]), int(off[-1])
        off = off - a
        if lay.parameter("__array__") in ("string", "bytestring"):
            data = np.asarray(lo.content.data, np.uint8)[a:b]
            if lay.parameter("__array__") == "string":
                data, off = _utf8_to_latin1(data, off, path)
            return _Strings(data.tobytes().decode("latin-1"), offsets=off)
        return Segmented(_awkward_layout(lo.content[a:b], path + ".values"), offsets=off)
    if isinstance(lay, C.RegularArray):
        n = lay.length
        return Segmented(_awkward_layout(lay.content[:n * lay.size], path + ".values"),
                         lengths=np.full(n, lay.size, np.int64))
    if isinstance(lay, C.RecordArray):
        n = lay.length
        names = list(lay.fields)
        return _Tup([_awkward_layout(lay.content(f)[:n], f"{path}.{f}") for f in names], names)
    raise ArgTypeError(f"{path}: awkward layout {type(lay).__name__} has no NESL counterpart")


def _sparse_form(m: Any, path: str) -> Segmented:
    """A scipy.sparse CSR matrix as the sequence of its rows, each the (column, value) pairs of
    its stored entries in stored order (explicit zeros and duplicates included)."""
    fmt = getattr(m, "format", None)
    if fmt != "csr":
        raise ArgTypeError(f"{path}: a scipy.sparse matrix in {fmt!r} format is not accepted: "
                           f"convert it with .tocsr() (rows are the segments of (column, value) "
                           f"pairs)")
    return Segmented(_Tup([np.asarray(m.indices), np.asarray(m.data)], ["indices", "data"]),
                     offsets=np.asarray(m.indptr))


def as_columnar(v: Any, path: str, memo: Optional[dict] = None) -> Any:
    """A columnar form of a sequence value, independent of the expected type: ``Segmented``
    (nested sequences: Segmented, CSR matrices, Arrow lists/strings, awkward lists), ``_Tup``
    (sequences of tuples: structured arrays, Arrow structs, awkward records), numpy arrays
    (flat Arrow/awkward arrays), a ``str``; ``None`` for the other values.  ``memo`` (a dict
    for one call) keeps the conversions, so that typing and normalising convert once."""
    if memo is not None:
        hit = memo.get(id(v))
        if hit is not None and hit[0] is v:
            return hit[1]
        out = as_columnar(v, path)
        memo[id(v)] = (v, out)
        return out
    if isinstance(v, (Segmented, _Tup)):
        return v
    if isinstance(v, np.ndarray) and v.dtype.names:
        _plain_array(v, path)
        if v.ndim != 1:
            raise ArgTypeError(f"{path}: a structured array must be 1-d (one record per "
                               f"element), not of shape {v.shape}")
        names = list(v.dtype.names)
        return _Tup([v[n] for n in names], names)
    if _is_sparse(v):
        return _sparse_form(v, path)
    if _is_arrow(v) and hasattr(v, "column_names") and hasattr(v, "columns"):
        names = list(v.column_names)          # a Table / RecordBatch: a sequence of tuples
        return _Tup([_arrow_form(c, f"{path}.{n}") for c, n in zip(v.columns, names)], names)
    if _is_arrow(v):
        return _arrow_form(v, path)
    if _is_awkward(v):
        return _awkward_form(v, path)
    return None


def _tuple_columns(v: Any, h: Type, u: Optional["Unifier"]) -> Optional[_Tup]:
    """The type-directed columnar forms of a sequence of tuples ``h = [(t1, ..., tk)]``: a
    Python tuple of k columns, a list of k column objects (arrays), a 2-d array (n, k)."""
    if u is not None:
        h = u.zonk(h)
    if not isinstance(h, TSeq):
        return None
    e = h.elem
    k = len(tuple_components(e)) if isinstance(e, TPair) else None
    if isinstance(v, tuple) and len(v) >= 2:
        return _Tup(list(v), [f"[{i}]" for i in range(len(v))])
    if k is None:
        return None
    if isinstance(v, list) and len(v) == k and all(is_column_object(x) for x in v):
        return _Tup(list(v), [f"[{i}]" for i in range(k)])
    if isinstance(v, np.ndarray) and not v.dtype.names and v.ndim == 2 and v.shape[1] == k:
        return _Tup([v[:, i] for i in range(k)], [f"[:, {i}]" for i in range(k)])
    return None


def _list_columns(v: list, elem: TPair) -> Optional[_Tup]:
    """A non-empty list of flat tuples of ints, floats and bools (``elem``'s components) as
    the columns the columnar path converts with numpy, instead of a Python pair per element;
    None when an element is another shape (a nested pair), left to the element-wise path."""
    comps = tuple_components(elem)
    if not all(isinstance(c, TBase) and c.name in ("int", "float", "bool") for c in comps):
        return None
    k = len(comps)
    if set(map(type, v)) != {tuple} or set(map(len, v)) != {k}:
        return None
    return _Tup([list(map(operator.itemgetter(j), v)) for j in range(k)],
                [f"[:, {i}]" for i in range(k)])


#: the deepest nesting of containers (lists, tuples, ``DataVal`` s, arrays) in an argument where
#: the parameter's type is a type variable, so that the value's nesting makes its type: a
#: ``[[...[int]...]]`` of this many levels is far beyond what the flattening backends compile
#: in reasonable time.  Where the type is known, a value deeper than it is a type error at the
#: first level beyond (a recursive datatype's values may be deeper)
MAX_ARG_DEPTH = 100

_CONTAINERS = (list, tuple, DataVal, np.ndarray)

#: the Python values of a NESL string (``[char]``, or a ``char`` when of length 1): a ``str``
#: of latin-1 characters, or ``bytes``/``bytearray``, each byte the code of a char (NESL's
#: chars are 8 bits, codes 0..255: every byte is one)
_STRINGS = (str, bytes, bytearray)


class TypeOf:
    """Infers the NESL type of a Python value, guided by the expected type (hints resolve
    ``str`` as ``char`` vs ``[char]``, ints given for floats, the tuple shape), and unifies it
    with the expected type.  A mismatch names the innermost offending part (``mat[0][1]``)."""

    def __init__(self, u: Unifier, datadefs: dict, memo: Optional[dict] = None) -> None:
        self.u = u
        self.datadefs = datadefs
        self.memo = memo            # as_columnar's results, shared with PyConv.norm (one call)
        self._open: dict = {}       # id -> (path, free) of the containers being checked
        self._free = 0              # how many of them were checked against a type variable

    def check(self, v: Any, hint: Type, path: str, same: bool = False) -> Type:
        """The type of ``v``, unified with ``hint``.  A container (list, tuple, ``DataVal``,
        array) that contains itself raises ``ArgValueError``, and so do containers nested more
        than :data:`MAX_ARG_DEPTH` levels where the type does not say how deep (a type
        variable): the nesting is checked level by level, never by deep Python recursion.
        ``same``: ``v`` is the container being checked, seen again (a datatype's fields)."""
        key = id(v) if isinstance(v, _CONTAINERS) and not same else None
        if key is not None:
            if key in self._open:
                raise ArgValueError(f"{path} is {self._open[key][0]} itself: a value that "
                                    f"contains itself has no NESL type")
            free = isinstance(self.u.resolve(hint), TVar)
            self._open[key] = (path, free)
            if free:
                self._free += 1
                if self._free > MAX_ARG_DEPTH:
                    root = next(p for p, f in self._open.values() if f)
                    raise ArgValueError(f"{root} is nested more than {MAX_ARG_DEPTH} levels deep "
                                        f"(lists, tuples, DataVals, arrays) where the "
                                        f"parameter's type leaves the depth open (a type "
                                        f"variable): the API's limit, MAX_ARG_DEPTH")
        try:
            t = self.infer(v, hint, path)
            self.u.unify(hint, t)
            return t
        except Mismatch as m:
            if m.has_value:
                raise
            raise Mismatch(path, self.u.zonk(hint), v, True) from None
        finally:
            if key is not None:
                if self._open.pop(key)[1]:
                    self._free -= 1

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
        if isinstance(v, _STRINGS):
            if h == CHAR and len(v) == 1:
                return CHAR
            return TSeq(CHAR)
        c = as_columnar(v, path, self.memo)
        if c is None:
            c = _tuple_columns(v, h, None)
        if c is not None:
            return self.columnar(c, h, path)
        if isinstance(v, np.ndarray):
            _plain_array(v, path)
            return self.array(v, h, path)
        if isinstance(v, (list, range)):
            if not isinstance(h, (TSeq, TVar)):
                raise Mismatch()            # deeper than the type: found at this level
            elem = h.elem if isinstance(h, TSeq) else self.u.fresh()
            if type(v) is list and len(v) > 1 and free_vars(self.u.zonk(elem)):
                # ints and floats at the same place of a list whose element type is open are
                # floats, whichever comes first (as numpy reads them): the element type is
                # fixed to float there before the elements are checked (a type that cannot be
                # float -- the function's own, or an earlier argument's -- keeps the checks'
                # message)
                d = _mixed_number_depth(v)
                if d is not None:
                    w = FLOAT
                    for _ in range(d):
                        w = TSeq(w)
                    try:
                        self.u.unify(elem, w)
                    except Exception:  # noqa: BLE001 - no widening: the checks report
                        pass
            for i, x in enumerate(v):
                self.check(x, elem, f"{path}[{i}]")
                # once the elements' type is ground (the first element's, or the hint's), the
                # others need no inference when they are plain Python values that fit it;
                # else (arrays, misfits, for their messages) each takes the full check
                if i == 0 and len(v) > 1 and type(v) is list:
                    g = self.u.zonk(elem)
                    if not free_vars(g) and _fits_all(v[1:], g):
                        break
            return TSeq(elem)
        if isinstance(v, tuple):
            return self.tuple(v, h, path)
        raise Mismatch()

    def columnar(self, c: Any, h: Type, path: str) -> Type:
        """The type of a columnar form (``as_columnar``, ``_tuple_columns``)."""
        if isinstance(c, _Strings) and isinstance(h, TSeq) and self.u.zonk(h.elem) == CHAR:
            if c.chars() is None:
                raise Mismatch()      # strings of other lengths, where chars are expected
            return TSeq(CHAR)
        if isinstance(c, Segmented):
            elem = h.elem if isinstance(h, TSeq) else self.u.fresh()
            inner = self.u.fresh()
            self.u.unify(elem, TSeq(inner))
            self.check(c.values, TSeq(inner), f"{path}.values")
            return TSeq(TSeq(self.u.zonk(inner)))
        if isinstance(c, _Tup):
            elem = self.u.zonk(h.elem) if isinstance(h, TSeq) else self.u.fresh()
            k = len(c.cols)
            if k < 2:
                raise Mismatch()
            if isinstance(elem, TPair):
                comps = tuple_components(elem)
                if len(comps) != k:
                    if k != 2:
                        raise Mismatch()
                    comps = [elem.fst, elem.snd]
            elif isinstance(elem, TVar):
                comps = [self.u.fresh() for _ in range(k)]
            else:
                raise Mismatch()
            for col, ct, name in zip(c.cols, comps, c.names):
                self.check(col, TSeq(ct), _sub(path, name))
            t = self.u.zonk(comps[-1])
            for ct in reversed(comps[:-1]):
                t = TPair(self.u.zonk(ct), t)
            return TSeq(t)
        return self.infer(c, h, path)

    def array(self, a: np.ndarray, h: Type, path: str) -> Type:
        if a.ndim == 0:
            return self.infer(a.item(), h, path)
        if a.ndim > 1:
            elem = h.elem if isinstance(h, TSeq) else self.u.fresh()
            row = a[0] if a.shape[0] else np.empty(a.shape[1:], a.dtype)
            return TSeq(self.check(row, elem, f"{path}[0]"))
        eh = self.u.zonk(h.elem) if isinstance(h, TSeq) else None
        kind = a.dtype.kind
        if a.size == 0 and kind in "biuf" and isinstance(eh, TBase) and eh.name != "segdes":
            return TSeq(eh)     # no element to disagree: np.array([]) (float64) is an empty [int]
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

    def definition(self, v: Any, h: Optional[TData], path: str) -> Optional[str]:
        """The datatype definition (its name in ``datadefs``, ``pt~2`` for the second
        definition of ``pt`` at another type) of ``v``, a value where ``h`` (None: any datatype)
        is expected: ``h``'s, which a ``DataVal`` must be named as (by hand, or made by another
        definition of the same datatype, ``ArgTypeError``); else the one a ``DataVal`` returned
        by a function remembers, or the latest definition of its name."""
        if h is not None:
            if isinstance(v, DataVal):
                if v.name not in (h.name, nt.display_name(h.name)):
                    return None
                made = v.definition
                if made is not None and made != h.name and made in self.datadefs \
                        and nt.display_name(made) == nt.display_name(h.name):
                    raise ArgTypeError(self._other_definition(path, made, h.name))
            return h.name
        if not isinstance(v, DataVal):
            return None
        if v.definition in self.datadefs and nt.display_name(v.definition) == v.name:
            return v.definition
        if v.name in self.datadefs and v.name != nt.display_name(v.name):
            return v.name                   # the compiler's name, given by hand
        same = [n for n in self.datadefs if nt.display_name(n) == v.name]
        return same[-1] if same else None

    def _other_definition(self, path: str, made: str, expected: str) -> str:
        def order(n: str) -> int:
            return int(n.split("~", 1)[1]) if "~" in n else 1

        def line(n: str) -> str:
            span = getattr(self.datadefs[n], "span", None)
            return f" (line {span.line})" if span is not None else ""
        later = order(made) > order(expected)
        return (f"{path} is a value of the {'later' if later else 'earlier'} definition of "
                f"datatype {nt.display_name(made)}{line(made)}, where one of the "
                f"{'earlier' if later else 'later'} definition{line(expected)} is expected "
                f"(a datatype defined again at another type is another datatype)")

    def data(self, v: Any, h: Optional[TData], path: str) -> Type:
        name = self.definition(v, h, path)
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
            if not isinstance(fields, (tuple, list)) or not fields:
                raise ArgTypeError(f"{path}: DataVal({nt.display_name(name)!r}, fields) wants "
                                   f"the tuple of the constructor's arguments as fields, not "
                                   f"{describe(fields)}")
            value = fields[0] if len(fields) == 1 else tuple(fields)
        else:
            value = v
        if isinstance(v, DataVal):
            self.check(value, arg, f"{path}.fields")
        else:
            self.check(value, arg, path, same=True)
        return result


# ============================================================================== Python <-> NESL
def _result_data(name: str, fields: tuple) -> DataVal:
    """The API's value of datatype ``name`` (the compiler's name, ``pt~2`` for a datatype
    defined again at another type): named as the source does, remembering its definition."""
    return DataVal(nt.display_name(name), fields, name)


class _Data:
    """A normalised datatype value: constructor name and the normalised constructor argument."""

    __slots__ = ("name", "arg")

    def __init__(self, name: str, arg: Any) -> None:
        self.name = name
        self.arg = arg


def _readonly(arr: np.ndarray, dt: Any) -> np.ndarray:
    """``arr`` as a contiguous vector of dtype ``dt``, read-only: the caller's memory itself
    when it already is one (no copy: a compiled function reads its arguments, never writes
    them), else a converted copy."""
    out = np.ascontiguousarray(arr, dtype=dt).reshape(-1).view()
    out.flags.writeable = False
    return out


class _Column:
    """A normalised sequence given in columnar form: ``n`` elements, ``col`` the column of the
    element type (datatypes unfolded): a numpy vector of the NESL dtype for a base type (chars
    as uint8 codes), ``(column of fst, column of snd)`` for a pair, ``(lengths, column of the
    inner elements)`` for a sequence.  What a compiled function's λcu leaves are made of."""

    __slots__ = ("n", "col")

    def __init__(self, n: int, col: Any) -> None:
        self.n = n
        self.col = col

    def __len__(self) -> int:
        return self.n


RESULT_FORMATS = ("python", "numpy", "arrow", "awkward")


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

    def norm(self, v: Any, t: Type, path: str = "argument", memo: Optional[dict] = None) -> Any:
        """Normalise a Python value already known to have ground NESL type ``t``: base
        sequences become numpy arrays of the NESL dtype ([char] a str), sequences given in a
        columnar form a ``_Column``, other sequences lists, tuples right-nested pairs,
        datatypes ``_Data``.  A 0-d numpy array stands for its element (as
        ``TypeOf.array`` reads it): ``np.array("ab")`` is the string ``"ab"``."""
        if isinstance(v, np.ndarray) and v.ndim == 0:
            v = v.item()
        if isinstance(t, TSeq):
            return self.norm_seq(v, t.elem, path, memo)
        if isinstance(t, TBase):
            if isinstance(v, np.ndarray):
                v = v.item()
            n = t.name
            if n in ("int", "segdes"):
                return self.check_int(v)
            if n == "float":
                try:
                    return float(v)
                except OverflowError:
                    digits = len(str(abs(int(v))))
                    raise OverflowError(f"an int of {digits} digits does not fit the NESL float "
                                        f"(a 64-bit double, at most about 1.8e308)") from None
            if n == "bool":
                return bool(v)
            if n == "char":
                if isinstance(v, (bytes, bytearray)) and len(v) == 1:
                    return v.decode("latin-1")
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

    def norm_seq(self, v: Any, elem: Type, path: str = "argument",
                 memo: Optional[dict] = None) -> Any:
        c = as_columnar(v, path, memo)
        if isinstance(c, _Strings) and self.unfold(elem) == CHAR:
            c = c.chars()                     # strings of one character each, for chars
            if c is None:
                raise Mismatch()
        if c is not None and not isinstance(c, (Segmented, _Tup)):
            v, c = c, None                    # an Arrow/awkward array as numpy, a str, a list
        if c is None:
            c = _tuple_columns(v, TSeq(elem), None)
        if c is None and type(v) is list and v and isinstance(elem, TPair):
            c = _list_columns(v, elem)
        if c is None and type(v) is list and v and isinstance(elem, TSeq) \
                and set(map(type, v)) == {list}:
            # a list of lists: one segmented form over all the elements, not a column per list
            c = Segmented(list(itertools.chain.from_iterable(v)),
                          lengths=np.fromiter(map(len, v), np.int64, len(v)))
        if c is None and isinstance(v, np.ndarray) and v.ndim >= 2 and isinstance(elem, TSeq):
            _plain_array(v, path)                  # rows of an n-d array: no per-row work
            c = Segmented(v.reshape((v.shape[0] * v.shape[1],) + v.shape[2:]),
                          lengths=np.full(v.shape[0], v.shape[1], np.int64))
        if c is not None:
            return _Column(*self.norm_col(c, elem, path, memo))
        if isinstance(elem, TBase):
            n = elem.name
            if n == "char":
                if isinstance(v, (bytes, bytearray)):
                    return bytes(v).decode("latin-1")      # a byte is a NESL char's code
                if isinstance(v, str):
                    bad = next((c for c in v if ord(c) > 255), None)
                    if bad is not None:
                        raise ArgValueError(f"{path}: the string has the character {bad!r} (U+{ord(bad):04X}), "
                                            f"which a NESL char (8 bits, latin-1: codes 0..255) cannot hold")
                    return v
                if isinstance(v, np.ndarray) and v.ndim == 1 and v.dtype.kind in "US" \
                        and v.dtype.itemsize == (4 if v.dtype.kind == "U" else 1):
                    codes = np.ascontiguousarray(v).view(
                        np.uint32 if v.dtype.kind == "U" else np.uint8)
                    # code 0 is the char code_char(0): numpy shows it as '' (a U1 or S1 array
                    # cannot tell it from an empty string), as a results="numpy" char column
                    if codes.size and int(codes.max()) > 255:
                        bad = int(codes.max())
                        raise ArgValueError(f"{path}: the array has the character "
                                            f"{chr(bad)!r} (U+{bad:04X}), which a NESL char "
                                            f"(8 bits, latin-1: codes 0..255) cannot hold")
                    return codes.astype(np.uint8).tobytes().decode("latin-1")
                return "".join(self.norm(x, elem) for x in v)
            if isinstance(v, np.ndarray):
                arr = v
            elif isinstance(v, (list, range)):
                try:
                    arr = np.asarray(v)
                except (ValueError, TypeError):
                    raise Mismatch() from None
                if n in ("int", "segdes") and arr.dtype.kind == "f":
                    # Python ints that numpy reads as floats (one of 2**63 .. 2**64 - 1 among
                    # others): each checked against the int's range, as ints beyond it are
                    arr = np.asarray(v, dtype=object)
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
                if not np.can_cast(arr.dtype, self.int_dtype, "safe") and (
                        int(arr.min()) < self.lo or int(arr.max()) > self.hi):
                    bad = int(arr.min()) if int(arr.min()) < self.lo else int(arr.max())
                    raise OverflowError(f"{bad} does not fit the {self.int_bits}-bit NESL int")
                return _readonly(arr, self.int_dtype)
            if arr.size and arr.dtype == object:     # element by element, as the ints
                return np.asarray([self.norm(x, elem) for x in arr],
                                  np.float64 if n == "float" else np.bool_)
            if n == "float":
                if arr.size and arr.dtype.kind not in "iuf":
                    raise Mismatch()
                return _readonly(arr, np.float64)
            if n == "bool":
                if arr.size and arr.dtype.kind != "b":
                    raise Mismatch()
                return _readonly(arr, np.bool_)
        if isinstance(v, np.ndarray):
            if v.ndim < 2 and v.size and v.dtype != object:
                raise Mismatch()
            v = list(v)        # rows of an n-d array; an object array's items (as TypeOf.array)
        if not isinstance(v, (list, range)):
            raise Mismatch()
        return [self.norm(x, elem) for x in v]

    # ---------------------------------------------------------------- columns
    def norm_col(self, c: Any, elem: Type, path: str, memo: Optional[dict] = None) -> tuple:
        """``(n, column)`` of a ``Segmented``/``_Tup`` form of a sequence of ``elem``s."""
        elem = self.unfold(elem)
        if isinstance(c, Segmented):
            if not isinstance(elem, TSeq):
                raise Mismatch()
            sub = f"{path}.values"
            nv, vcol = self.seq_column(c.values, elem.elem, sub, memo)
            a, b = int(c.offsets[0]), int(c.offsets[-1])
            if b > nv or (c._exact and b != nv):
                raise ArgValueError(f"{path}: the segment lengths add up to {b}, but {sub} has "
                                    f"{nv} elements" if c._exact else
                                    f"{path}: the segments reach element {b} of {sub}, which "
                                    f"has {nv}")
            if a != 0 or b != nv:
                vcol = self.col_slice(vcol, elem.elem, a, b)
            return len(c), (c.lengths, vcol)
        if not isinstance(elem, TPair):
            raise Mismatch()
        comps = tuple_components(elem)
        k = len(c.cols)
        if k != len(comps):
            if k != 2:
                raise Mismatch()
            comps = [elem.fst, elem.snd]
        parts = [self.seq_column(col, ct, _sub(path, name), memo)
                 for col, ct, name in zip(c.cols, comps, c.names)]
        if len({n for n, _ in parts}) > 1:
            raise ArgValueError(f"{path}: the tuple columns have different lengths (" + ", ".join(
                f"{_sub(path, name)}: {n}" for (n, _), name in zip(parts, c.names)) + ")")
        col = parts[-1][1]
        for _, pc in reversed(parts[:-1]):
            col = (pc, col)
        return parts[0][0], col

    def seq_column(self, v: Any, elem: Type, path: str, memo: Optional[dict] = None) -> tuple:
        """``(n, column)`` of a sequence of ``elem``s in any accepted form."""
        return self.as_column(self.norm_seq(v, elem, path, memo), elem)

    def as_column(self, nv: Any, elem: Type) -> tuple:
        """``(n, column)`` of a normalised sequence."""
        if isinstance(nv, _Column):
            return nv.n, nv.col
        if isinstance(nv, (str, np.ndarray)):
            return len(nv), self.base_vector(nv, self.unfold(elem))
        return len(nv), self.elems_column(list(nv), elem)

    def elems_column(self, items: list, elem: Type) -> Any:
        """The column of a list of normalised elements."""
        while isinstance(elem, TData):
            items = [x.arg for x in items]
            elem = self.arg_type(elem)
        if isinstance(elem, TBase):
            return self.base_vector(items, elem)
        if isinstance(elem, TPair):
            return (self.elems_column([x[0] for x in items], elem.fst),
                    self.elems_column([x[1] for x in items], elem.snd))
        parts = [self.as_column(x, elem.elem) for x in items]
        return (np.asarray([n for n, _ in parts], np.int64).reshape(-1),
                self.concat_cols([c for _, c in parts], elem.elem))

    def concat_cols(self, cols: list, elem: Type) -> Any:
        elem = self.unfold(elem)
        if isinstance(elem, TBase):
            return np.concatenate(cols) if cols else self.base_vector([], elem)
        if isinstance(elem, TPair):
            return (self.concat_cols([c[0] for c in cols], elem.fst),
                    self.concat_cols([c[1] for c in cols], elem.snd))
        lens = np.concatenate([c[0] for c in cols]) if cols else np.zeros(0, np.int64)
        return lens, self.concat_cols([c[1] for c in cols], elem.elem)

    def col_slice(self, col: Any, elem: Type, a: int, b: int) -> Any:
        """Elements ``a:b`` of a column."""
        elem = self.unfold(elem)
        if isinstance(elem, TBase):
            return col[a:b]
        if isinstance(elem, TPair):
            return (self.col_slice(col[0], elem.fst, a, b),
                    self.col_slice(col[1], elem.snd, a, b))
        lens, inner = col
        start = int(lens[:a].sum())
        stop = start + int(lens[a:b].sum())
        return lens[a:b], self.col_slice(inner, elem.elem, start, stop)

    def col_leaves(self, col: Any, elem: Type, out: list) -> None:
        """The λcu leaves of a column: its vectors and segment descriptors, as they are."""
        elem = self.unfold(elem)
        if isinstance(elem, TBase):
            out.append(col)
        elif isinstance(elem, TPair):
            self.col_leaves(col[0], elem.fst, out)
            self.col_leaves(col[1], elem.snd, out)
        else:
            out.append(LSegDes(col[0]))
            self.col_leaves(col[1], elem.elem, out)

    def col_values(self, col: Any, elem: Type) -> list:
        """The interpreter values of a column's elements (for the reference interpreter)."""
        if isinstance(elem, TData):
            n = self.nfields(elem)
            return [DataVal(elem.name, (x,) if n == 1 else unpair(x, n))
                    for x in self.col_values(col, self.arg_type(elem))]
        if isinstance(elem, TBase):
            if elem.name == "char":
                return list(np.asarray(col, np.uint8).tobytes().decode("latin-1"))
            if elem.name == "segdes":
                return [SegDes(int(x)) for x in col.tolist()]
            return col.tolist()
        if isinstance(elem, TPair):
            return list(zip(self.col_values(col[0], elem.fst),
                            self.col_values(col[1], elem.snd)))
        lens, inner = col
        vals = self.col_values(inner, elem.elem)
        offs = np.concatenate(([0], np.cumsum(lens))).tolist()
        return [Seq(tuple(vals[offs[i]:offs[i + 1]])) for i in range(len(lens))]

    # ---------------------------------------------------------------- normalised -> interp
    def to_interp(self, nv: Any, t: Type) -> Any:
        if isinstance(t, TBase):
            return SegDes(nv) if t.name == "segdes" else nv
        if isinstance(t, TSeq) and isinstance(nv, _Column):
            return Seq(tuple(self.col_values(nv.col, t.elem)))
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
        if isinstance(items, _Column):
            self.col_leaves(items.col, elem, out)
            return
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
            self.col_leaves(self.elems_column(list(items), elem), elem, out)

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
            return _result_data(t.name, tuple(self.from_interp(x, ft)
                                              for x, ft in zip(v.fields, fts)))
        raise TypeError(t)

    def from_leaves(self, t: Type, ls: list) -> Any:
        """Python result of NESL type ``t`` from λcu leaves (consumed from the front)."""
        if isinstance(t, TData):
            at = self.arg_type(t)
            inner = self.from_leaves(at, ls)
            n = len(tuple_components(at))
            return _result_data(t.name, (inner,) if n == 1 else tuple(inner))
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
            return [_result_data(elem.name, (x,) if n == 1 else tuple(x)) for x in inner]
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

    # ---------------------------------------------------------------- columnar results
    def result(self, t: Type, ls: list, fmt: str = "python") -> Any:
        """The Python result of NESL type ``t`` from λcu leaves, in result format ``fmt``
        (``RESULT_FORMATS``): ``"python"`` as :meth:`from_leaves`; ``"numpy"``, ``"arrow"``,
        ``"awkward"`` columnar (:meth:`col_result`)."""
        if fmt == "python":
            return self.from_leaves(t, list(ls))
        return self.col_result(t, list(ls), fmt)

    def interp_result(self, v: Any, t: Type, fmt: str = "python") -> Any:
        """The Python result of an interpreter value, in result format ``fmt``."""
        if fmt == "python":
            return self.from_interp(v, t)
        out: list = []
        self.interp_leaves(v, t, out)
        return self.col_result(t, out, fmt)

    def interp_leaves(self, v: Any, t: Type, out: list) -> None:
        """The λcu-style leaves of an interpreter value (so that the reference interpreter's
        columnar results are built by the same code as the compiled backends')."""
        while isinstance(t, TData):
            f = v.fields
            v = f[-1]
            for x in reversed(f[:-1]):
                v = (x, v)
            t = self.arg_type(t)
        if isinstance(t, TBase):
            out.append(v.length if isinstance(v, SegDes) else v)
        elif isinstance(t, TPair):
            self.interp_leaves(v[0], t.fst, out)
            self.interp_leaves(v[1], t.snd, out)
        else:
            self.interp_seq_leaves(list(v.items), t.elem, out)

    def interp_seq_leaves(self, items: list, e: Type, out: list) -> None:
        while isinstance(e, TData):
            nested = []
            for x in items:
                f = x.fields
                y = f[-1]
                for z in reversed(f[:-1]):
                    y = (z, y)
                nested.append(y)
            items, e = nested, self.arg_type(e)
        if isinstance(e, TBase):
            if e.name == "char":
                out.append(np.frombuffer("".join(items).encode("latin-1"), np.uint8).copy())
            elif e.name == "segdes":
                out.append(np.asarray([x.length for x in items], self.int_dtype))
            else:
                out.append(self.base_vector(items, e))
        elif isinstance(e, TPair):
            self.interp_seq_leaves([x[0] for x in items], e.fst, out)
            self.interp_seq_leaves([x[1] for x in items], e.snd, out)
        else:
            out.append(LSegDes(np.asarray([len(x.items) for x in items], np.int64)))
            self.interp_seq_leaves([y for x in items for y in x.items], e.elem, out)

    def col_result(self, t: Type, ls: list, fmt: str) -> Any:
        """A columnar result from λcu leaves (consumed from the front): scalars and tuples as
        by default; a sequence as its column in format ``fmt`` (:meth:`out_seq`); a ``[char]``
        as a ``str``; a value containing a datatype as by default."""
        if isinstance(t, TBase):
            return self.scalar(ls.pop(0), t)
        if isinstance(t, TPair):
            return tuple(self.col_result(c, ls, fmt) for c in tuple_components(t))
        if isinstance(t, TData) or _has_data(t):
            return self.from_leaves(t, ls)
        col = self.leaves_column(t.elem, ls)
        if isinstance(t.elem, TBase) and t.elem.name == "char":
            return col.tobytes().decode("latin-1")
        return self.out_seq(col, t.elem, fmt)

    def leaves_column(self, e: Type, ls: list) -> Any:
        """The column of a sequence of ``e``s from λcu leaves (consumed from the front)."""
        if isinstance(e, TBase):
            v = np.asarray(ls.pop(0)).reshape(-1)
            dt = {"int": self.int_dtype, "segdes": self.int_dtype, "float": np.float64,
                  "bool": np.bool_, "char": np.uint8}[e.name]
            return v.astype(dt)                   # a copy: the result owns its memory
        if isinstance(e, TPair):
            a = self.leaves_column(e.fst, ls)
            return a, self.leaves_column(e.snd, ls)
        sd = ls.pop(0)
        lens = np.asarray(sd.lengths if hasattr(sd, "lengths") else sd, np.int64).reshape(-1)
        return lens, self.leaves_column(e.elem, ls)

    def out_seq(self, col: Any, e: Type, fmt: str) -> Any:
        """A column as the sequence value of result format ``fmt``."""
        if fmt == "numpy":
            return self._out_numpy(col, e)
        if fmt == "arrow":
            return self._out_arrow(col, e)
        import awkward as ak
        return ak.Array(self._out_awkward(col, e))

    @staticmethod
    def _split(col: Any, e: Type) -> tuple:
        """The k component columns and types of a column of k-tuples."""
        comps = tuple_components(e)
        cols = []
        for _ in comps[:-1]:
            cols.append(col[0])
            col = col[1]
        cols.append(col)
        return cols, comps

    def _out_numpy(self, col: Any, e: Type) -> Any:
        if isinstance(e, TBase):
            if e.name == "char":                  # chars as elements: a 'U1' array
                return col.astype(np.uint32).view("U1")
            return col
        if isinstance(e, TPair):
            cols, comps = self._split(col, e)
            if all(isinstance(c, TBase) for c in comps):
                outs = [self._out_numpy(c, ct) for c, ct in zip(cols, comps)]
                arr = np.empty(len(outs[0]), [(f"f{i}", o.dtype) for i, o in enumerate(outs)])
                for i, o in enumerate(outs):
                    arr[f"f{i}"] = o
                return arr
            return tuple(self._out_numpy(c, ct) for c, ct in zip(cols, comps))
        lens, inner = col
        if isinstance(e.elem, TBase) and e.elem.name == "char":
            return Segmented(inner.tobytes().decode("latin-1"), lengths=lens)
        return Segmented(self._out_numpy(inner, e.elem), lengths=lens)

    def _out_arrow(self, col: Any, e: Type) -> Any:
        import pyarrow as pa
        if isinstance(e, TBase):
            if e.name == "char":                  # chars as elements: one-character strings
                return self._arrow_strings(col, np.arange(len(col) + 1, dtype=np.int64))
            return pa.array(col)
        if isinstance(e, TPair):
            cols, comps = self._split(col, e)
            return pa.StructArray.from_arrays([self._out_arrow(c, ct)
                                               for c, ct in zip(cols, comps)],
                                              names=[f"f{i}" for i in range(len(comps))])
        lens, inner = col
        offs = np.zeros(len(lens) + 1, np.int64)
        np.cumsum(lens, out=offs[1:])
        if isinstance(e.elem, TBase) and e.elem.name == "char":
            return self._arrow_strings(inner, offs)
        return pa.LargeListArray.from_arrays(pa.array(offs), self._out_arrow(inner, e.elem))

    @staticmethod
    def _arrow_strings(codes: np.ndarray, offs: np.ndarray) -> Any:
        import pyarrow as pa
        data, offs = _latin1_to_utf8(codes, offs)
        return pa.LargeStringArray.from_buffers(len(offs) - 1, pa.py_buffer(
            np.ascontiguousarray(offs, np.int64)), pa.py_buffer(np.ascontiguousarray(data)))

    def _out_awkward(self, col: Any, e: Type) -> Any:
        import awkward as ak
        C = ak.contents
        if isinstance(e, TBase):
            if e.name == "char":                  # chars as elements: one-character strings
                return self._awkward_strings(col, np.arange(len(col) + 1, dtype=np.int64))
            return C.NumpyArray(col)
        if isinstance(e, TPair):
            cols, comps = self._split(col, e)
            n = len(self._first_len(cols[0], comps[0]))
            return C.RecordArray([self._out_awkward(c, ct) for c, ct in zip(cols, comps)],
                                 None, length=n)
        lens, inner = col
        offs = np.zeros(len(lens) + 1, np.int64)
        np.cumsum(lens, out=offs[1:])
        if isinstance(e.elem, TBase) and e.elem.name == "char":
            return self._awkward_strings(inner, offs)
        return C.ListOffsetArray(ak.index.Index64(offs), self._out_awkward(inner, e.elem))

    def _first_len(self, col: Any, e: Type) -> Any:
        """A vector as long as the column (its first leaf or lengths)."""
        e = self.unfold(e)
        while isinstance(e, TPair):
            col, e = col[0], e.fst
        return col if isinstance(e, TBase) else col[0]

    @staticmethod
    def _awkward_strings(codes: np.ndarray, offs: np.ndarray) -> Any:
        import awkward as ak
        data, offs = _latin1_to_utf8(codes, offs)
        chars = ak.contents.NumpyArray(np.ascontiguousarray(data, np.uint8),
                                       parameters={"__array__": "char"})
        return ak.contents.ListOffsetArray(ak.index.Index64(np.asarray(offs, np.int64)), chars,
                                           parameters={"__array__": "string"})


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
        if name == "int":
            return int(x)
        if name == "segdes":            # a segment descriptor is its length on the device
            return SegDes(int(x))
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


class HostLeaves:
    """How :func:`truncate_leaves` reads leaves that are host values (numpy arrays,
    ``SegDes``, scalars).  A kernel runner whose values live elsewhere gives an object with the
    same four methods (the OpenCL runner's ``prefix_reader()``), so that only the elements
    printing shows are copied back."""

    @staticmethod
    def value(leaf):
        """A scalar leaf, as a host value."""
        return leaf

    @staticmethod
    def length(leaf, nested: bool) -> int:
        """The number of elements of a vector leaf, or of segments of a descriptor."""
        return len(leaf.field("lengths")) if nested else len(leaf)

    @staticmethod
    def elems(leaf, idx: np.ndarray) -> np.ndarray:
        """Elements ``idx`` (increasing) of a vector leaf, as a numpy array."""
        return np.asarray(leaf)[idx]

    @staticmethod
    def segments(leaf, idx: np.ndarray) -> tuple:
        """(lengths, offsets) of segments ``idx`` (increasing) of a descriptor leaf."""
        return leaf.field("lengths")[idx], leaf.field("offsets")[idx]


def truncate_leaves(tm, ty, leaves: list, limit: int, reader=HostLeaves) -> list:
    """Leaves of the value of NESL type ``ty`` with every sequence cut to its first
    ``limit + 1`` elements — all that printing with ``print_length = limit`` shows (it prints
    ``...`` after ``limit`` elements), so results of millions of elements print without being
    converted whole.  ``reader`` reads the leaves (:class:`HostLeaves`: host values); the
    result's leaves are host values."""
    keep = limit + 1
    ls = list(leaves)
    out: list = []

    def value(t):
        t = tm.unfold(t)
        if isinstance(t, nt.TBase):
            out.append(reader.value(ls.pop(0)))
        elif isinstance(t, nt.TPair):
            value(t.fst)
            value(t.snd)
        else:
            n = _seq_len(t.elem)
            seq(t.elem, np.arange(min(n, keep), dtype=np.int64))

    def _seq_len(t):
        t = tm.unfold(t)
        while isinstance(t, nt.TPair):
            t = tm.unfold(t.fst)
        return int(reader.length(ls[0], isinstance(t, nt.TSeq)))

    def seq(t, idx):
        """Append the leaves of the elements ``idx`` of the next sequence representation."""
        t = tm.unfold(t)
        if isinstance(t, nt.TBase):
            out.append(reader.elems(ls.pop(0), idx))
        elif isinstance(t, nt.TPair):
            seq(t.fst, idx)
            seq(t.snd, idx)
        else:
            sd = ls.pop(0)
            lens, offs = reader.segments(sd, idx)
            lens = np.asarray(lens, np.int64)
            offs = np.asarray(offs, np.int64)
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
