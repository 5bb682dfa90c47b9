"""Flat representations of NESL values, and the data-parallel operations flattening builds on.

A NESL value is represented on the λcu CPU level by a tree of *leaves* (host scalars, vectors
and segment descriptors):

* a scalar of base type: :class:`Scalar` (a host expression);
* a tuple value ``(a, b)``: :class:`Tup` of the two component representations;
* a sequence ``[t]``: a *sequence representation* of element type ``t``:

  - ``t`` base: :class:`Vec` — one flat vector;
  - ``t`` a pair: :class:`Tup` of the components' sequence representations (sequences of tuples
    are tuples of sequences, all of the same length);
  - ``t`` a sequence ``[u]``: :class:`Seg` — a segment descriptor (one segment per element) and
    the sequence representation of the concatenated elements (segmented arrays; recursively for
    deeper nesting).

Datatypes are represented by their constructor's argument type; ``segdes`` by its length.

The operations here (gather, combine, replicate, concatenation …) work on sequence
representations of any depth and are the building blocks of flattening: each emits host code and
single-SOAC kernels through a :class:`~nessie.flatten.builder.Builder`.  Their cost is linear in
the sizes of their inputs and outputs (segment offsets and ids are derived from descriptors,
never recomputed quadratically).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence, Union

from lambda_cu import ir
from lambda_cu.types import (BOOL, CHAR, FLOAT, INT, SD, IntT, Type, VecT)
from nessie.types import types as nt

from .builder import Builder, thunk


# ----------------------------------------------------------------------------- representations
@dataclass(frozen=True)
class Scalar:
    e: ir.Exp
    ty: Type


@dataclass(frozen=True)
class Vec:
    e: ir.Exp
    elem: Type


@dataclass(frozen=True)
class Seg:
    sd: ir.Exp
    data: "Rep"


@dataclass(frozen=True)
class Tup:
    items: tuple


Rep = Union[Scalar, Vec, Seg, Tup]


class FlattenUnsupported(NotImplementedError):
    """A construct the flattener does not handle (reported to the user, never silently wrong;
    to the Python API's caller who asked for ``backend="lcu"`` or ``"opencl"``, a
    ``NotImplementedError`` whose message names the construct and ``backend="interp"``)."""


# ----------------------------------------------------------------------------- NESL types
class TypeMap:
    """Maps NESL (monomorphic) types to λcu leaf types."""

    def __init__(self, datatypes: dict, int_type: IntT = INT) -> None:
        self.datatypes = datatypes      # name -> (params, arg_type)
        self.int_type = int_type
        #: the datatypes whose values contain values of themselves (trees): their flat
        #: representation would be nested without bound
        self.recursive = frozenset(n for n in datatypes if n in self._reachable(n))

    def _reachable(self, name: str) -> set:
        """The datatype names a value of the datatype ``name`` contains (through its
        constructor argument, sequences, tuples and other datatypes)."""
        seen: set = set()
        todo = [self.datatypes[name][1]]
        while todo:
            t = todo.pop()
            if isinstance(t, nt.TData):
                for a in t.args:
                    todo.append(a)
                if t.name not in seen and t.name in self.datatypes:
                    seen.add(t.name)
                    todo.append(self.datatypes[t.name][1])
            elif isinstance(t, nt.TPair):
                todo += [t.fst, t.snd]
            elif isinstance(t, nt.TSeq):
                todo.append(t.elem)
            elif isinstance(t, nt.TFun):
                todo += [t.arg, t.result]
        return seen

    def unfold(self, t):
        """A datatype's representation type (its constructor argument), else ``t``."""
        while isinstance(t, nt.TData):
            if t.name in self.recursive:
                raise FlattenUnsupported(
                    f"the recursive datatype {t.name} is not supported by the flattening "
                    f"backends (its values nest without bound)")
            params, arg = self.datatypes[t.name]
            t = nt.subst_type(arg, dict(zip(params, t.args))) if params else arg
        return t

    def base(self, t) -> Type:
        t = self.unfold(t)
        if isinstance(t, nt.TBase):
            return {"int": self.int_type, "float": FLOAT, "bool": BOOL, "char": CHAR,
                    "segdes": self.int_type}[t.name]
        raise TypeError(f"not a base type: {t!r}")

    def is_base(self, t) -> bool:
        return isinstance(self.unfold(t), nt.TBase)

    def value_leaf_types(self, t) -> list:
        t = self.unfold(t)
        if isinstance(t, nt.TBase):
            return [self.base(t)]
        if isinstance(t, nt.TPair):
            return self.value_leaf_types(t.fst) + self.value_leaf_types(t.snd)
        if isinstance(t, nt.TSeq):
            return self.seq_leaf_types(t.elem)
        raise TypeError(f"unexpected type {t!r}")

    def seq_leaf_types(self, elem) -> list:
        t = self.unfold(elem)
        if isinstance(t, nt.TBase):
            return [VecT(self.base(t))]
        if isinstance(t, nt.TPair):
            return self.seq_leaf_types(t.fst) + self.seq_leaf_types(t.snd)
        if isinstance(t, nt.TSeq):
            return [SD] + self.seq_leaf_types(t.elem)
        raise TypeError(f"unexpected type {t!r}")

    def value_from_leaves(self, t, leaves: list) -> Rep:
        """Rebuild a value representation from its leaves (consumes ``leaves`` from the front)."""
        t = self.unfold(t)
        if isinstance(t, nt.TBase):
            return Scalar(leaves.pop(0), self.base(t))
        if isinstance(t, nt.TPair):
            a = self.value_from_leaves(t.fst, leaves)
            return Tup((a, self.value_from_leaves(t.snd, leaves)))
        return self.seq_from_leaves(t.elem, leaves)

    def seq_from_leaves(self, elem, leaves: list) -> Rep:
        t = self.unfold(elem)
        if isinstance(t, nt.TBase):
            return Vec(leaves.pop(0), self.base(t))
        if isinstance(t, nt.TPair):
            a = self.seq_from_leaves(t.fst, leaves)
            return Tup((a, self.seq_from_leaves(t.snd, leaves)))
        sd = leaves.pop(0)
        return Seg(sd, self.seq_from_leaves(t.elem, leaves))


def leaves(r: Rep) -> list:
    if isinstance(r, Scalar):
        return [r.e]
    if isinstance(r, Vec):
        return [r.e]
    if isinstance(r, Seg):
        return [r.sd] + leaves(r.data)
    return [x for it in r.items for x in leaves(it)]


# ----------------------------------------------------------------------------- helpers
I = ir.Var("i")
J = ir.Var("j")


def idx(v: ir.Exp, i: ir.Exp, loc=None) -> ir.Index:
    return ir.Index(v, i, loc)


def p(op: str, *args, ty=None, loc=None) -> ir.PrimOp:
    return ir.PrimOp(op, tuple(args), ty, loc)


def c_int(n: int) -> ir.Const:
    return ir.Const(n, INT)


def lens_of(sd: ir.Exp) -> ir.SegVec:
    return ir.SegVec(sd, "lengths")


def offs_of(sd: ir.Exp) -> ir.SegVec:
    return ir.SegVec(sd, "offsets")


def ids_of(sd: ir.Exp) -> ir.SegVec:
    return ir.SegVec(sd, "ids")


def length(b: Builder, r: Rep) -> ir.Exp:
    """Host expression: the number of elements of a sequence representation."""
    if isinstance(r, Vec):
        return ir.Length(r.e)
    if isinstance(r, Seg):
        return ir.Length(lens_of(r.sd))
    return length(b, r.items[0])


def length_var(b: Builder, r: Rep) -> ir.Exp:
    return b.bind(length(b, r), INT, "n")


def elem_types(r: Rep) -> list:
    """Element types of the vectors of a flat (Vec or Tup-of-Vec) representation."""
    if isinstance(r, Vec):
        return [r.elem]
    return [t for it in r.items for t in elem_types(it)]


def map_vec(b: Builder, body: ir.Exp, n: ir.Exp, ty: Type, hint="m") -> ir.Var:
    """``MAP { i => body } n`` as a kernel; returns the result vector."""
    return b.soac(ir.Map(thunk([("i", INT)], body), n), [VecT(ty)], hint)[0]


def make_sd(b: Builder, lens: ir.Exp, loc=None) -> ir.Var:
    return b.bind(ir.MakeSegDes(lens, loc), SD, "sd")


def sum_int(b: Builder, v: ir.Exp, n: ir.Exp) -> ir.Var:
    add = thunk([("a", INT), ("b", INT)], p("add", ir.Var("a"), ir.Var("b")))
    return b.soac(ir.Reduce(thunk([("i", INT)], idx(v, I)), (c_int(0),), add, n), [INT], "tot")[0]


# ----------------------------------------------------------------------------- gather
def gather(b: Builder, r: Rep, ix: ir.Exp, n: ir.Exp) -> Rep:
    """``result[k] = r[ix[k]]`` for ``k < n`` (``ix`` an int vector, indices known in range)."""
    if isinstance(r, Vec):
        return Vec(map_vec(b, idx(r.e, idx(ix, I)), n, r.elem, "g"), r.elem)
    if isinstance(r, Tup):
        return Tup(tuple(gather(b, it, ix, n) for it in r.items))
    # segmented: gather whole segments
    lens = map_vec(b, idx(lens_of(r.sd), idx(ix, I)), n, INT, "glen")
    sd2 = make_sd(b, lens)
    total = b.bind(ir.Length(ids_of(sd2)), INT, "tot")
    seg = idx(ids_of(sd2), I)
    inner = p("add", idx(offs_of(r.sd), idx(ix, seg)),
              p("sub", I, idx(offs_of(sd2), seg)))
    ix2 = map_vec(b, inner, total, INT, "gix")
    return Seg(sd2, gather(b, r.data, ix2, total))


# ----------------------------------------------------------------------------- combine
def _select_chain(which: ir.Exp, alts: Sequence[ir.Exp]) -> ir.Exp:
    """``if which == 0 then alts[0] else if which == 1 then alts[1] ... else alts[-1]``."""
    e = alts[-1]
    for k in range(len(alts) - 2, -1, -1):
        e = ir.If(p("eq", which, c_int(k)), alts[k], e)
    return e


def combine(b: Builder, which: ir.Exp, src: ir.Exp, n: ir.Exp, reps: Sequence[Rep]) -> Rep:
    """``result[k] = reps[which[k]][src[k]]`` for ``k < n`` — merges (and interleaves) sequences
    of the same element type; the basis of ``++``, conditionals and sequence literals."""
    if len(reps) == 1:
        return gather(b, reps[0], src, n)
    r0 = reps[0]
    if isinstance(r0, Vec):
        w = idx(which, I)
        s = idx(src, I)
        body = _select_chain(w, [idx(r.e, s) for r in reps])
        return Vec(map_vec(b, body, n, r0.elem, "cmb"), r0.elem)
    if isinstance(r0, Tup):
        return Tup(tuple(combine(b, which, src, n, [r.items[k] for r in reps])
                         for k in range(len(r0.items))))
    w = idx(which, I)
    s = idx(src, I)
    lens = map_vec(b, _select_chain(w, [idx(lens_of(r.sd), s) for r in reps]), n, INT, "clen")
    sd2 = make_sd(b, lens)
    total = b.bind(ir.Length(ids_of(sd2)), INT, "tot")
    seg = idx(ids_of(sd2), I)
    w2 = idx(which, seg)
    s2 = idx(src, seg)
    pos = p("sub", I, idx(offs_of(sd2), seg))
    src2 = _select_chain(w2, [p("add", idx(offs_of(r.sd), s2), pos) for r in reps])
    which2 = map_vec(b, w2, total, INT, "cw")
    src2v = map_vec(b, src2, total, INT, "cs")
    return Seg(sd2, combine(b, which2, src2v, total, [r.data for r in reps]))


def concat(b: Builder, reps: Sequence[Rep]) -> Rep:
    """Concatenation of sequences (``a ++ b ++ ...``) at the host level."""
    if len(reps) == 1:
        return reps[0]
    ns = [length_var(b, r) for r in reps]
    starts = [c_int(0)]
    for nk in ns[:-1]:
        starts.append(b.bind(p("add", starts[-1], nk), INT, "st"))
    total = b.bind(p("add", starts[-1], ns[-1]), INT, "tot")
    # which: the last k with starts[k] <= i
    w = c_int(len(reps) - 1)
    for k in range(len(reps) - 2, -1, -1):
        w = ir.If(p("lt", I, starts[k + 1]), c_int(k), w)
    which = map_vec(b, w, total, INT, "cw")
    s = _select_chain(idx(which, I), [p("sub", I, st) for st in starts])
    src = map_vec(b, s, total, INT, "cs")
    return combine(b, which, src, total, reps)


# ----------------------------------------------------------------------------- replicate
def replicate(b: Builder, v: Rep, n: ir.Exp, tm: TypeMap, ty) -> Rep:
    """The sequence representation of ``dist(v, n)`` for a host value ``v`` of NESL type ``ty``."""
    t = tm.unfold(ty)
    if isinstance(v, Scalar):
        return Vec(map_vec(b, v.e, n, v.ty, "dist"), v.ty)
    if isinstance(t, nt.TPair):
        return Tup((replicate(b, v.items[0], n, tm, t.fst), replicate(b, v.items[1], n, tm, t.snd)))
    # v is a sequence: n copies as one segmented array
    m = length_var(b, v)
    lens = map_vec(b, m, n, INT, "dlen")
    sd = make_sd(b, lens)
    total = b.bind(ir.Length(ids_of(sd)), INT, "tot")
    ix = map_vec(b, p("sub", I, idx(offs_of(sd), idx(ids_of(sd), I))), total, INT, "dix")
    return Seg(sd, gather(b, v, ix, total))


def empty_seq(b: Builder, tm: TypeMap, elem) -> Rep:
    """The representation of an empty sequence of element type ``elem``."""
    t = tm.unfold(elem)
    if isinstance(t, nt.TBase):
        bt = tm.base(t)
        return Vec(b.bind(ir.VecLit((), bt), VecT(bt), "empty"), bt)
    if isinstance(t, nt.TPair):
        return Tup((empty_seq(b, tm, t.fst), empty_seq(b, tm, t.snd)))
    sd = make_sd(b, b.bind(ir.VecLit((), INT), VecT(INT), "empty"))
    return Seg(sd, empty_seq(b, tm, t.elem))
