"""``hash(v, n)``: a structural hash of any value, computed on its leaves.

The hash of a value (all arithmetic modulo 2^64), each one finished by SplitMix64's finaliser
``mix`` (``z ^= z >> 30; z *= 0xBF58476D1CE4E5B9; z ^= z >> 27; z *= 0x94D049BB133111EB;
z ^= z >> 31``), so that small ranges are used evenly:

* ``bool``: ``2 + b``; ``int``: its two's-complement bits; ``float``: its IEEE bits (``-0.0``
  as ``0.0``); ``char``: its code; ``segdes``: its length;
* a sequence of ``k`` elements: ``h = 0x345678 + k``, then ``h = h * 1000003 ^ hash(x)`` for
  each element ``x``;
* a pair ``(a, b)``: ``hash(a) * 1000003 ^ hash(b) ^ 0x9E37``;
* a datatype value: ``h = hash(name as a string)``, then ``h = h * 1000003 ^ hash(f)`` for each
  field ``f`` (the components of the constructor's argument).

``hash(v, n) = hash(v) mod n`` (the sign of ``n``; ``n = 0`` divides by zero).
"""
from __future__ import annotations

import numpy as np

from lambda_cu import errors as E
from nessie.types import types as nt

from . import host_builtin
from .leaves import elements, seq_tree, value_leaf_count

_MASK = (1 << 64) - 1
_M = 1000003


def _mix(h: int) -> int:
    h = ((h ^ (h >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    h = ((h ^ (h >> 27)) * 0x94D049BB133111EB) & _MASK
    return h ^ (h >> 31)


def _scalar(name: str, x) -> int:
    if name == "bool":
        h = 2 + int(bool(x))
    elif name == "float":
        f = np.float64(x)
        h = int(np.float64(0.0 if f == 0.0 else f).view(np.uint64))
    else:                   # int, char (its code), segdes (its length)
        h = int(x) & _MASK
    return _mix(h)


def _fold(h: int, parts) -> int:
    for p in parts:
        h = ((h * _M) ^ p) & _MASK
    return h


def _unfold_once(tm, t: nt.TData):
    params, arg = tm.datatypes[t.name]
    return nt.subst_type(arg, dict(zip(params, t.args))) if params else arg


def _text_hash(s: str) -> int:
    return _mix(_fold((0x345678 + len(s)) & _MASK, (_mix(ord(c)) for c in s)))


def hash_value(tm, ty, leaves: list) -> int:
    """The structural hash of the value of NESL type ``ty`` with the given leaves."""
    if isinstance(ty, nt.TData):
        fields = nt.tuple_components(_unfold_once(tm, ty))
        parts, rest = [], list(leaves)
        for ft in fields:
            k = value_leaf_count(tm, ft)
            parts.append(hash_value(tm, ft, rest[:k]))
            rest = rest[k:]
        return _mix(_fold(_text_hash(ty.name), parts))
    if isinstance(ty, nt.TBase):
        return _scalar(ty.name, leaves[0])
    if isinstance(ty, nt.TPair):
        k = value_leaf_count(tm, ty.fst)
        a, b = hash_value(tm, ty.fst, leaves[:k]), hash_value(tm, ty.snd, leaves[k:])
        return _mix((((a * _M) & _MASK) ^ b ^ 0x9E37) & _MASK)
    tree = seq_tree(tm, ty.elem, list(leaves))
    items = elements(tm, ty.elem, tree)
    return _mix(_fold((0x345678 + len(items)) & _MASK,
                      (hash_value(tm, ty.elem, x) for x in items)))


@host_builtin("hash")
def hash_(args, call):
    """``hash(v, n)``: the structural hash of ``v`` in ``[0, n)`` (``mod n``)."""
    vt = call.arg_type.fst
    k = value_leaf_count(call.tm, vt)
    n = int(args[k])
    if n == 0:
        raise call.error(E.DIVIDE_BY_ZERO)
    from lambda_cu.values import dtype_of
    return [dtype_of(call.tm.int_type).type(hash_value(call.tm, vt, list(args[:k])) % n)]
