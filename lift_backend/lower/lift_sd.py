"""Segment descriptors made from lengths on the device, as Lift programs compiled by the Lift
compiler's own stages (once per OpenCL context, :func:`sd_programs`).

A descriptor of ``N`` int32 lengths is its ``N + 1`` int32 offsets (the exclusive scan, the
total last: the segments as ``splitOffsets`` rows), its total (a ``long``: a total beyond
``INT_MAX`` is reported when read back) and its longest segment; a negative length reports the
descriptor's error code (``failIf``, the runner's error base).  Every program reads the lengths
padded by one zero, ``pad(0, 1, 0) $ lens`` (``N + 1`` elements), so that the exclusive scan of
the padded lengths *is* the ``N + 1`` offsets (``offs[N]``, the accumulator after the last
length, is the total) -- a view, no memory -- and the chunks are those of the ``M = N + 1``
padded elements, ``partition(P, \\c -> (c + 1) * M / P - c * M / P)``:

* ``sd_small`` (few segments, one launch on one work-item): the exclusive scan with a tuple
  accumulator (offset, total, longest), ``toGlobal(scanSeq(uf_sd_step, (0, 0L, 0))) o pad(0, 1,
  0) $ lens``, written as three buffers of ``N + 1`` (offsets; running totals; running maxima):
  the total and the longest segment are their elements ``N``;
* ``sd_chunks`` (many segments, first pass): each chunk's sum and longest segment, one fold with a
  tuple accumulator, ``join o mapGlb(0)(toGlobal(mapSeq(id)) o reduceSeq(\\a l -> uf_sd_fold(a,
  failIf(uf_sd_neg(l), l)), (0L, 0))) o partition(P, ...) o pad(0, 1, 0) $ lens`` (two buffers of
  ``P``: the sums, read back and added on the host for the total, and the maxima);
* ``sd_offsets_self`` (few chunks: no scan launch): each chunk's offsets, scanned from its carry-in
  -- the chunk sums before it, ``reduceSeq(\\a s -> uf_sd_before(a, s._0, s._1, c), 0L) $ zip(sums,
  generate(P))`` --, ``join o mapGlb(0)(\\t -> toGlobal(scanSeq(uf_sd_addi, init)) $ t._0) $
  zip(partition(P, ...) o pad(0, 1, 0) $ lens, generate(P))``;
* ``sd_offsets`` (many chunks, after the scan of the chunk sums in place -- the GPU's
  ``_scan_longs``): the same, the carry-in read from the scanned sums, ``zip(rows, sums)``;
* ``sd_cast_l2i`` / ``sd_cast_i2l``: ``mapGlb(0)(toGlobal(uf)) $ a`` (``int64`` lengths made
  ``int32``; a descriptor field read as ``int64``).

The offsets are accumulated as ``int`` (wrapping, as the template's ``(int)`` casts: a total
beyond ``INT_MAX`` is an error reported from the exact ``long`` total).
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass
class SdProgram:
    """One compiled program: the Lift program, its kernel (``kernel.source``; the runner's
    built ``cl.Kernel`` is looked up by ``kernel.name``), and its parameters' names in order
    (buffers and scalars by name, ``N``/``P`` sizes, ``lift_err``/``lift_errbase``)."""
    program: object
    kernel: object
    params: tuple

    @property
    def name(self) -> str:
        return self.kernel.name


def _build(strategy: str) -> dict:
    from .. import arith as A
    from .. import compile_program
    from ..arith import size_var
    from ..ir.builders import (id_, join, lam, lit, mapGlb, mapSeq, pad, partition, program,
                               reduceSeq, scanSeq, toGlobal, toPrivate, userfun, zip_)
    from ..ir.expr import FunCall
    from ..ir.patterns import At, FailIf, Generate, Get
    from ..types import ArrayType, ScalarType, TupleType, c_type_name
    from .lift_map import CPU_LOCAL
    I, L, B = ScalarType("int"), ScalarType("long"), ScalarType("bool")
    N, P = size_var("N"), size_var("P")
    M = A.add(N, 1)
    LI = TupleType((L, I))
    ILI = TupleType((I, L, I))

    def ufs(key: str):
        # the user functions of one program (their names its own: the programs share one
        # cl.Program)
        neg = userfun(f"uf_sd_{key}_neg", [("l", I)], B, "\n  return l < 0;\n")
        id = userfun(f"uf_sd_{key}_id", [("l", I)], I, "\n  return l;\n")
        fold = userfun(f"uf_sd_{key}_fold", [("a", LI), ("l", I)], LI,
                       f"\n  return ({c_type_name(LI)}){{a._0 + l, max(a._1, l)}};\n")
        zero2 = userfun(f"uf_sd_{key}_zero2", [], LI, f"\n  return ({c_type_name(LI)}){{0L, 0}};\n")
        step = userfun(f"uf_sd_{key}_step", [("a", ILI), ("l", I)], ILI,
                       f"\n  return ({c_type_name(ILI)}){{(int)((uint)a._0 + (uint)l), a._1 + l, max(a._2, l)}};\n")
        zero3 = userfun(f"uf_sd_{key}_zero3", [], ILI, f"\n  return ({c_type_name(ILI)}){{0, 0L, 0}};\n")
        addi = userfun(f"uf_sd_{key}_addi", [("a", I), ("l", I)], I, "\n  return (int)((uint)a + (uint)l);\n")
        before = userfun(f"uf_sd_{key}_before", [("a", L), ("s", L), ("k", I), ("c", I)], L,
                         "\n  return k < c ? a + s : a;\n")
        l2i = userfun(f"uf_sd_{key}_l2i", [("a", L)], I, "\n  return (int)a;\n")
        i2l = userfun(f"uf_sd_{key}_i2l", [("a", I)], L, "\n  return (long)a;\n")
        return locals()

    def padded(lens):
        return pad(0, 1, lit("0", I))(lens)

    def chunks_of(lens):
        return partition(P, lambda c: A.sub(A.div(A.mul(A.add(c, 1), M), P), A.div(A.mul(c, M), P)))(
            padded(lens))

    def checked(u, l, f):
        # f(a length read once into a private value, failing where it is negative)
        return FunCall(lam(lambda v: f(FunCall(FailIf(0), (FunCall(u["neg"], (v,)), v))), ["v"]),
                       (FunCall(toPrivate(u["id"]), (l,)),))

    def small(lens):
        u = ufs("small")
        f = lam(lambda a, l: checked(u, l, lambda v: FunCall(u["step"], (a, v))), ["a", "l"])
        return toGlobal(scanSeq(f, FunCall(toPrivate(u["zero3"]), ())))(padded(lens))

    def chunk_sums(lens):
        u = ufs("chunks")
        f = lam(lambda a, l: checked(u, l, lambda v: FunCall(u["fold"], (a, v))), ["a", "l"])
        row = lam(lambda r: toGlobal(mapSeq(id_()))(reduceSeq(f, FunCall(toPrivate(u["zero2"]), ()))(r)), ["r"])
        return join()(mapGlb(row)(chunks_of(lens)))

    def offsets_self(lens, sums):
        u = ufs("offself")
        before, addi, l2i = u["before"], u["addi"], u["l2i"]

        def scan_row(r, init):
            # the row's offsets, scanned from its carry-in (a private int)
            w = FunCall(toPrivate(mapSeq(l2i)), (init,))
            return FunCall(lam(lambda w: toGlobal(scanSeq(addi, FunCall(At(), (w, lit("0", I)))))(r), ["w"]),
                           (w,))

        def row(t):
            r, c = FunCall(Get(0), (t,)), FunCall(Get(1), (t,))
            red = lam(lambda a, s: FunCall(before, (a, FunCall(Get(0), (s,)), FunCall(Get(1), (s,)), c)),
                      ["a", "s"])
            return scan_row(r, FunCall(reduceSeq(red, lit("0L", L)), (zip_(sums, FunCall(Generate(P), ())),)))
        return join()(mapGlb(lam(row, ["t"]))(zip_(chunks_of(lens), FunCall(Generate(P), ()))))

    def offsets(lens, sums):
        u = ufs("offsets")
        addi, l2i = u["addi"], u["l2i"]

        def row(t):
            r, s = FunCall(Get(0), (t,)), FunCall(Get(1), (t,))
            return toGlobal(scanSeq(addi, FunCall(toPrivate(l2i), (s,))))(r)
        return join()(mapGlb(lam(row, ["t"]))(zip_(chunks_of(lens), sums)))

    one = {"global_size": 1, "local_size": 1}
    ch = {"global_size": P, "local_size": 1} if strategy == "cpu" else {}
    el = {"global_size": A.add(N, CPU_LOCAL - 1)} if strategy == "cpu" else {}
    lens_t, sums_t = ArrayType(I, N), ArrayType(L, P)
    progs = {
        "small": (program("sd_small", [("lens", lens_t)], small), one),
        "chunks": (program("sd_chunks", [("lens", lens_t)], chunk_sums), ch),
        "offsets_self": (program("sd_offsets_self", [("lens", lens_t), ("sums", sums_t)], offsets_self), ch),
        "offsets": (program("sd_offsets", [("lens", lens_t), ("sums", sums_t)], offsets), ch),
        "cast_l2i": (program("sd_cast_l2i", [("a", ArrayType(L, N))], lambda a: mapGlb(toGlobal(ufs("l2i")["l2i"]))(a)), el),
        "cast_i2l": (program("sd_cast_i2l", [("a", ArrayType(I, N))], lambda a: mapGlb(toGlobal(ufs("i2l")["i2l"]))(a)), el),
    }
    out = {}
    for key, (prog, launch) in progs.items():
        kern = compile_program(prog, error_base=True, soa_output=True, **launch)
        out[key] = SdProgram(prog, kern, tuple(kp.name for kp in kern.params))
    return out


_CACHE: dict = {}


def sd_programs(strategy: str) -> dict:
    """The descriptor programs of a loop strategy (``cpu``/``gpu``), compiled once per process:
    key -> :class:`SdProgram`."""
    p = _CACHE.get(strategy)
    if p is None:
        p = _CACHE[strategy] = _build(strategy)
    return p


def sd_source(strategy: str) -> str:
    """The OpenCL source of every descriptor program (one ``cl.Program``)."""
    return "\n".join(p.kernel.source for p in sd_programs(strategy).values())
