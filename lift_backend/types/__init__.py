"""Lift types with symbolic lengths (``[float]_N``, ``[[float]_M]_N``, ``[i -> [float]_{i+1}]_N``)
and type inference through programs (:func:`lift_backend.types.infer.infer_program`)."""
from .types import (ArrayType, Bool, Double, Float, Int, ScalarType, TupleType, Type, VectorType,
                    base_scalar, c_type_name, is_value, numpy_dtype, shape_of, size_in_elements,
                    subst_type, type_free_vars, type_to_text, types_equal, uses_double)
