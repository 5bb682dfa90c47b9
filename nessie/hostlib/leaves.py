"""λcu leaves of NESL values, as the host library sees them.

A NESL value reaches the host as its *leaves* (``nessie.flatten.reps``): a host scalar (numpy
scalar) per base component, and for a sequence its *sequence representation* — a vector per base
component of its elements, tuples of elements as one representation per component, and nested
sequences as a :class:`~lambda_cu.values.SegDes` (one segment per element) over the
representation of all their elements.  Datatypes are represented by their constructor's argument
type, ``segdes`` by an int.

Here: the type-directed structure of those leaves (:func:`seq_tree`, a tree of ``Vec``/``Tup``/
``Seg`` nodes over the numpy vectors and segment descriptors, sliced and concatenated without
copying element by element), the split of a lifted call's arguments into one argument per
instance and the stacking of per-instance results into a sequence representation
(:func:`split_instances`, :func:`stack_instances`), and ``[char]`` <-> ``str`` conversions.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Union

import numpy as np

from lambda_cu.values import SegDes, dtype_of
from nessie.types import types as nt


# ------------------------------------------------------------------------------ strings
def text(chars: Any) -> str:
    """The Python string of a ``[char]`` vector (character codes 0..255)."""
    return np.asarray(chars, dtype=np.uint8).tobytes().decode("latin-1")


def chars(s: str) -> np.ndarray:
    """The ``[char]`` vector of a Python string of 8-bit characters."""
    return np.frombuffer(s.encode("latin-1"), dtype=np.uint8).copy()


# ------------------------------------------------------------------------------ trees
@dataclass(frozen=True)
class Vec:
    """A vector of base elements."""
    v: np.ndarray


@dataclass(frozen=True)
class Tup:
    """Sequences of tuples: one representation per component (all of the same length)."""
    items: tuple


@dataclass(frozen=True)
class Seg:
    """Sequences of sequences: a descriptor over the representation of all the elements."""
    sd: SegDes
    data: "Tree"


Tree = Union[Vec, Tup, Seg]


def _sd(x: Any) -> SegDes:
    return x if isinstance(x, SegDes) else SegDes(np.asarray(x))


def seq_tree(tm, elem, ls: list) -> Tree:
    """The tree of the sequence representation of element type ``elem`` whose leaves start
    ``ls`` (consumed from the front)."""
    t = tm.unfold(elem)
    if isinstance(t, nt.TBase):
        return Vec(np.asarray(ls.pop(0)))
    if isinstance(t, nt.TPair):
        a = seq_tree(tm, t.fst, ls)
        return Tup((a, seq_tree(tm, t.snd, ls)))
    sd = _sd(ls.pop(0))
    return Seg(sd, seq_tree(tm, t.elem, ls))


def tree_leaves(tr: Tree) -> list:
    if isinstance(tr, Vec):
        return [tr.v]
    if isinstance(tr, Tup):
        return [x for it in tr.items for x in tree_leaves(it)]
    return [tr.sd] + tree_leaves(tr.data)


def tree_len(tr: Tree) -> int:
    while isinstance(tr, Tup):
        tr = tr.items[0]
    return int(tr.v.shape[0]) if isinstance(tr, Vec) else tr.sd.count


def slice_tree(tr: Tree, lo: int, hi: int) -> Tree:
    """Elements ``lo .. hi-1`` of a sequence representation."""
    if isinstance(tr, Vec):
        return Vec(tr.v[lo:hi])
    if isinstance(tr, Tup):
        return Tup(tuple(slice_tree(x, lo, hi) for x in tr.items))
    lens = tr.sd.lengths[lo:hi]
    start = int(tr.sd.offsets[lo]) if lo < tr.sd.count else tr.sd.total
    return Seg(SegDes(lens), slice_tree(tr.data, start, start + int(lens.sum())))


def empty_tree(tm, elem) -> Tree:
    t = tm.unfold(elem)
    if isinstance(t, nt.TBase):
        return Vec(np.zeros(0, dtype=dtype_of(tm.base(t))))
    if isinstance(t, nt.TPair):
        return Tup((empty_tree(tm, t.fst), empty_tree(tm, t.snd)))
    return Seg(SegDes(np.zeros(0, dtype=np.int64)), empty_tree(tm, t.elem))


def concat_trees(tm, elem, trees: list) -> Tree:
    """The concatenation of sequence representations of element type ``elem``."""
    if not trees:
        return empty_tree(tm, elem)
    t = tm.unfold(elem)
    if isinstance(t, nt.TBase):
        return Vec(np.concatenate([x.v for x in trees]).astype(dtype_of(tm.base(t)), copy=False))
    if isinstance(t, nt.TPair):
        return Tup((concat_trees(tm, t.fst, [x.items[0] for x in trees]),
                    concat_trees(tm, t.snd, [x.items[1] for x in trees])))
    sd = SegDes(np.concatenate([x.sd.lengths for x in trees]))
    return Seg(sd, concat_trees(tm, t.elem, [x.data for x in trees]))


# ------------------------------------------------------------------------------ values
def value_leaf_count(tm, ty) -> int:
    return len(tm.value_leaf_types(ty))


def split_value(tm, ty, leaves: list) -> tuple:
    """The leaves of the two components of a value of pair type ``ty``."""
    t = tm.unfold(ty)
    k = value_leaf_count(tm, t.fst)
    return list(leaves[:k]), list(leaves[k:])


def elements(tm, elem, tr: Tree) -> list:
    """The value leaves of every element of a sequence representation."""
    t = tm.unfold(elem)
    if isinstance(tr, Vec):
        return [[x] for x in tr.v]
    if isinstance(tr, Tup):
        a = elements(tm, t.fst, tr.items[0])
        b = elements(tm, t.snd, tr.items[1])
        return [x + y for x, y in zip(a, b)]
    offs, lens = tr.sd.offsets, tr.sd.lengths
    return [tree_leaves(slice_tree(tr.data, int(o), int(o + n))) for o, n in zip(offs, lens)]


def split_instances(tm, ty, leaves: list) -> list:
    """A lifted call's argument (the sequence representation of its instances' arguments, of
    NESL type ``ty``) as one list of value leaves per instance."""
    return elements(tm, ty, seq_tree(tm, ty, list(leaves)))


def stack_instances(tm, ty, values: list) -> list:
    """The leaves of the sequence representation of the values (value leaves) of type ``ty``:
    a lifted call's result."""
    return tree_leaves(_stack(tm, ty, values))


def _stack(tm, ty, values: list) -> Tree:
    t = tm.unfold(ty)
    if isinstance(t, nt.TBase):
        return Vec(np.asarray([v[0] for v in values], dtype=dtype_of(tm.base(t))).reshape(-1))
    if isinstance(t, nt.TPair):
        k = value_leaf_count(tm, t.fst)
        return Tup((_stack(tm, t.fst, [v[:k] for v in values]),
                    _stack(tm, t.snd, [v[k:] for v in values])))
    trees = [seq_tree(tm, t.elem, list(v)) for v in values]
    sd = SegDes(np.asarray([tree_len(x) for x in trees], dtype=np.int64))
    return Seg(sd, concat_trees(tm, t.elem, trees))


def scalar(tm, ty, x: Any) -> Any:
    """The host scalar of base NESL type ``ty`` for the Python value ``x``."""
    return dtype_of(tm.base(ty)).type(x)


__all__ = ["text", "chars", "Vec", "Tup", "Seg", "seq_tree", "tree_leaves", "tree_len",
           "slice_tree", "concat_trees", "empty_tree", "split_value", "elements",
           "split_instances", "stack_instances", "scalar", "value_leaf_count"]
