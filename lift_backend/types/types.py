"""Lift data types with symbolic lengths.

``ArrayType(elem, length, index_var)`` is the position-dependent array ``[i -> elem]_length``
of the position-dependent arrays paper: ``elem`` may mention ``index_var``; when it does
not, the type is the classical ``[elem]_length``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Sequence, Tuple

from .. import arith as A
from ..arith import Expr, Var
from ..errors import LiftCompileError


class Type:
    """Base class of Lift types (immutable)."""

    def __str__(self) -> str:
        return type_to_text(self)


@dataclass(frozen=True)
class ScalarType(Type):
    name: str  # float | double | int | uint | long | bool | char

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class VectorType(Type):
    elem: ScalarType
    width: int

    def __str__(self) -> str:
        return f"{self.elem.name}{self.width}"


@dataclass(frozen=True)
class TupleType(Type):
    elems: Tuple[Type, ...]

    def __str__(self) -> str:
        return type_to_text(self)


@dataclass(frozen=True)
class ArrayType(Type):
    elem: Type
    length: Expr
    index_var: Optional[Var] = None

    def __post_init__(self):
        object.__setattr__(self, "length", A.to_expr(self.length))
        if self.index_var is not None and self.index_var not in type_free_vars(self.elem):
            object.__setattr__(self, "index_var", None)

    @property
    def dependent(self) -> bool:
        return self.index_var is not None

    def elem_at(self, k) -> Type:
        """The element type at position ``k``."""
        if self.index_var is None:
            return self.elem
        return subst_type(self.elem, {self.index_var: A.to_expr(k)})

    def __str__(self) -> str:
        return type_to_text(self)


Float = ScalarType("float")
Double = ScalarType("double")
Int = ScalarType("int")
Bool = ScalarType("bool")
SCALAR_NAMES = ("float", "double", "int", "uint", "long", "bool", "char")
VALUE_TYPES = (ScalarType, VectorType, TupleType)


def is_value(t: Type) -> bool:
    """Scalars, vectors and tuples of values (what user functions consume and produce)."""
    if isinstance(t, TupleType):
        return all(is_value(e) for e in t.elems)
    return isinstance(t, (ScalarType, VectorType))


def base_scalar(t: Type) -> Type:
    """The element stored in memory for ``t``: the innermost non-array type, with vectors
    reduced to their scalar (vectors are stored as consecutive scalars)."""
    while isinstance(t, ArrayType):
        t = t.elem
    if isinstance(t, VectorType):
        return t.elem
    return t


def type_free_vars(t: Type) -> frozenset:
    if isinstance(t, ArrayType):
        inner = type_free_vars(t.elem)
        if t.index_var is not None:
            inner = inner - {t.index_var}
        return inner | A.free_vars(t.length)
    if isinstance(t, TupleType):
        out = frozenset()
        for e in t.elems:
            out |= type_free_vars(e)
        return out
    return frozenset()


def subst_type(t: Type, m) -> Type:
    if not m:
        return t
    if isinstance(t, ArrayType):
        m2 = {k: v for k, v in m.items() if k != t.index_var}
        return ArrayType(subst_type(t.elem, m2), A.subst(t.length, m2), t.index_var)
    if isinstance(t, TupleType):
        return TupleType(tuple(subst_type(e, m) for e in t.elems))
    return t


def types_equal(a: Type, b: Type) -> bool:
    """Equality up to renaming of position variables, lengths compared symbolically."""
    if isinstance(a, ArrayType) and isinstance(b, ArrayType):
        if A.sub(a.length, b.length) != A.ZERO:
            return False
        if a.index_var is None and b.index_var is None:
            return types_equal(a.elem, b.elem)
        # a variable of none of the two types (no counter: the function stays pure)
        k = A.VarSupply.avoiding(*type_free_vars(a), *type_free_vars(b), a.length).fresh(
            "k", 0, A.sub(a.length, 1))
        return types_equal(a.elem_at(k), b.elem_at(k))
    if isinstance(a, TupleType) and isinstance(b, TupleType):
        return len(a.elems) == len(b.elems) and all(types_equal(x, y) for x, y in zip(a.elems, b.elems))
    return a == b


def size_in_elements(t: Type) -> Expr:
    """Number of memory elements (scalars or structs) occupied by a value of type ``t``."""
    if isinstance(t, ArrayType):
        if t.index_var is None:
            return A.mul(t.length, size_in_elements(t.elem))
        return A.sum_over(t.index_var, 0, t.length, size_in_elements(t.elem))
    if isinstance(t, VectorType):
        return A.Cst(t.width)
    return A.ONE


def flat_offset(t: Type, idxs: Sequence[Expr]) -> Expr:
    """Offset (in memory elements) of element ``idxs`` of a value of type ``t`` stored
    row-major; position-dependent rows use the sum of the preceding row sizes."""
    off = A.ZERO
    for i in idxs:
        if not isinstance(t, ArrayType):
            raise LiftCompileError(f"internal: too many indices for {t}")
        i = A.to_expr(i)
        if t.index_var is None:
            off = A.add(off, A.mul(i, size_in_elements(t.elem)))
        else:
            off = A.add(off, A.sum_over(t.index_var, 0, i, size_in_elements(t.elem)))
        t = t.elem_at(i)
    return off


def c_type_name(t: Type) -> str:
    """OpenCL C name of a value type (tuples become structs ``Tuple_float_int``)."""
    if isinstance(t, ScalarType):
        return "uchar" if t.name == "bool" else t.name
    if isinstance(t, VectorType):
        return f"{t.elem.name}{t.width}"
    if isinstance(t, TupleType):
        return "Tuple_" + "_".join(c_type_name(e) for e in t.elems)
    raise ValueError(f"no C value type for {t}")


def uses_double(t: Type) -> bool:
    if isinstance(t, ScalarType):
        return t.name == "double"
    if isinstance(t, VectorType):
        return t.elem.name == "double"
    if isinstance(t, TupleType):
        return any(uses_double(e) for e in t.elems)
    if isinstance(t, ArrayType):
        return uses_double(t.elem)
    return False


def _size_text(e: Expr) -> str:
    s = A.to_text(e)
    if isinstance(e, A.Cst) and e.value >= 0:
        return s
    if isinstance(e, A.Var) and e.name.isidentifier():
        return s
    return f"({s})"


def type_to_text(t: Type) -> str:
    if isinstance(t, (ScalarType, VectorType)):
        return str(t)
    if isinstance(t, TupleType):
        return "(" + ", ".join(type_to_text(e) for e in t.elems) + ")"
    if isinstance(t, ArrayType):
        if t.index_var is not None:
            return f"[{t.index_var.name} -> {type_to_text(t.elem)}]{_size_text(t.length)}"
        return f"[{type_to_text(t.elem)}]{_size_text(t.length)}"
    return repr(t)


_SCALAR_BYTES = {"float": 4, "double": 8, "int": 4, "uint": 4, "long": 8, "bool": 1, "char": 1}


def _layout(t: Type) -> tuple[int, int]:
    """(size, alignment) in bytes of a memory element of type ``t`` as the device lays it out
    (without numpy: the compiler does not import it)."""
    if isinstance(t, ScalarType):
        n = _SCALAR_BYTES[t.name]
        return n, n
    if isinstance(t, VectorType):
        n = _SCALAR_BYTES[t.elem.name] * (4 if t.width == 3 else t.width)
        return n, n
    if isinstance(t, TupleType):
        _, size, align = _struct_layout(t)
        return size, align
    raise ValueError(f"no memory layout for {t}")


def _struct_layout(t: TupleType) -> tuple[list, int, int]:
    """(field offsets, size, alignment) of the OpenCL struct of ``t``: C's layout with OpenCL's
    vector alignment -- a vector of ``n`` elements is aligned to its size, a 3-vector takes the
    room and the alignment of a 4-vector (OpenCL C 6.1.5) -- so ``(float2, float)`` is 16 bytes,
    its ``float`` at offset 8, as the device lays it out."""
    offsets, off, align = [], 0, 1
    for e in t.elems:
        size, al = _layout(e)
        off = -(-off // al) * al
        offsets.append(off)
        off += size
        align = max(align, al)
    return offsets, -(-off // align) * align, align


def elem_bytes(t: Type) -> int:
    """The bytes of one memory element of ``t`` (``numpy_dtype(t).itemsize``)."""
    return _layout(base_scalar(t))[0]


def numpy_dtype(t: Type):
    """numpy dtype of the memory elements of ``t``."""
    import numpy as np
    s = base_scalar(t)
    if isinstance(s, ScalarType):
        return np.dtype({"float": np.float32, "double": np.float64, "int": np.int32,
                         "uint": np.uint32, "long": np.int64, "bool": np.uint8,
                         "char": np.int8}[s.name])
    if isinstance(s, TupleType):
        return _struct_dtype(s)[0]
    raise ValueError(f"no numpy dtype for {t}")


def _struct_dtype(t: TupleType):
    """(numpy dtype, alignment) of the OpenCL struct of ``t`` (``_struct_layout``)."""
    import numpy as np
    offsets, size, align = _struct_layout(t)
    formats = [np.dtype((numpy_dtype(e.elem), (e.width,))) if isinstance(e, VectorType)
               else _struct_dtype(e)[0] if isinstance(e, TupleType) else numpy_dtype(e)
               for e in t.elems]
    names = [f"_{i}" for i in range(len(t.elems))]
    return np.dtype({"names": names, "formats": formats, "offsets": offsets, "itemsize": size}), align


def shape_of(t: Type):
    """numpy shape for a regular array type with constant lengths (``None`` otherwise)."""
    dims = []
    while isinstance(t, ArrayType):
        if t.index_var is not None or not isinstance(t.length, A.Cst):
            return None
        dims.append(t.length.value)
        t = t.elem
    if isinstance(t, VectorType):
        dims.append(t.width)
    return tuple(dims)
