"""RANKs and SEG_RANKs as Lift programs, compiled by the Lift compiler's own stages.

A λcu ``RANK {i => e using vs} (n)`` (``SEG_RANK`` over a segment descriptor) is a stable LSD
radix sort of (key, index) pairs (see soacs.py).  Its ``keys`` phase, where the thunk qualifies
as a MAP's (lift_map.py), is the Lift program

    userfun uf(x0: t0, ...): t { <e as C> }
    userfun uf_key(x: t, i: int): (k, int) { <the order key of x>; return (k, i) }
    program K_liftkeys(v0: [t0]N, ...) =
      mapGlb(0)(toGlobal(\\t -> uf_key(uf(t._0, ...), t._j))) $ zip(v0, ..., generate(N))

(lift_map's ``order_key`` option: the map's machinery, its errors reporting the template's
sites), writing the keys and the indices as two buffers (``soa_output``).  The order key is the
template's (:func:`lift_backend.lower.lift_map.order_key_function`): ``uint`` for bool, char and
32-bit ints, the bits of a ``long`` for 64-bit ints and floats.

The radix passes, 8 bits each, and the ranks are Lift programs too, with the patterns
``radixHistSeq``/``radixRankSeq`` (``lift_backend.ir.patterns.RadixSeq``; the digit a function,
``\\k -> dg(k, sh)``, the shift ``sh`` a scalar parameter: one program serves every pass):

    program K_lifthist(k: [kt]N, sh: int) =          (each chunk's histogram, chunk-major)
      join(mapGlb(0)(\\row -> toGlobal(radixHistSeq(8, \\k -> dg(k, sh)))(row))
        (partition(P, \\c -> (c + 1) * N / P - c * N / P)(k)))
    program K_liftstarts(h: [int](256 * P)) =        (their digit-major exclusive scan)
      join(mapGlb(0)(\\row -> toGlobal(scanSeq(add, 0))(row))(split(256 * P)(join(transpose(split(256)(h))))))
    program K_liftpos(k: [kt]N, s: [int](256 * P), sh: int) =      (each key's position)
      join(mapGlb(0)(\\r -> toGlobal(radixRankSeq(8, \\k -> dg(k, sh)))(r._0, r._1))
        (zip(partition(P, ...)(k), transpose(split(P)(s)))))
    program K_liftperm(k: [kt]N, ix: [int]N, pos: [int]N) =        (the pairs moved)
      scatterIdx(pos, mapGlb(0)(toGlobal(\\t -> cp(t._0, t._1)))(zip(k, ix)))
    program K_liftout(ix: [int]N) =                  (element ix[p] of the ranks is p)
      scatterIdx(ix, mapGlb(0)(toGlobal(r))(generate(N)))

A SEG_RANK then sorts stably by segment: ``K_liftseghist``/``K_liftsegpos`` read the keys
``gatherIdx(ix, ids)`` (the segment ids of the sorted indices), ``K_liftsegperm`` moves the
indices alone, and ``K_liftsegout`` writes ``p - so[ids[ix[p]]]`` (``gatherIdx(gatherIdx(ix,
ids), so)``, ``so`` the descriptor's offsets).  The chunks and the scan order are the
templates', so every step computes what its template computes; the ranks are written in the
index type (no cast kernel for an ``int64`` one).  The position checks of ``scatterIdx`` and
``gatherIdx`` report :data:`MSG_RADIX` (they cannot fail: the positions are a permutation).

The runner (``OpenCLRunner._rank``) launches the keys program where the template ``keys``
phase ran when the inputs read at the index have the rank's length ``0 < n <= INT_MAX``
(``_lift_fits``), the radix and rank programs where the templates ran when ``n <= INT_MAX -
1024``; the templates otherwise.
"""
from __future__ import annotations

from typing import Optional

from lambda_cu import ir

from .cgen import LowerError, Sites
from .lift_map import CPU_LOCAL, LiftMap, kernel_args, lift_map

#: the message of the position checks of the radix programs (``scatterIdx``, ``gatherIdx``): the
#: positions are a permutation by construction, so it never shows unless the sort is wrong
from lambda_cu.errors import MSG_RADIX  # noqa: E402

#: the bits of a digit: 256 counters a row, as the templates
DIGIT = 8


def lift_rank(kname: str, soac: ir.Soac, tenv: dict, ctx, sites: Sites, strategy: str,
              bits: int) -> dict:
    """The Lift programs of the RANK or SEG_RANK ``soac`` of kernel ``kname`` (``bits``: its
    key's width), by the info key the runner looks them up with: ``lift_keys`` where the thunk
    qualifies; ``lift_hist``/``lift_pos`` (every pass: the shift is a parameter),
    ``lift_starts``, ``lift_perm`` and ``lift_out``; for a SEG_RANK ``lift_seghist``,
    ``lift_segpos`` and ``lift_segperm`` (the passes over the segment ids) and ``lift_segout``
    instead of ``lift_out``.  A
    program the Lift compiler refuses is left out (the runner then runs the templates)."""
    out: dict = {}
    if not isinstance(soac, (ir.Rank, ir.SegRank)):
        return out
    keys = lift_map(kname, soac, tenv, ctx, sites, strategy, order_key=(bits, soac.descending))
    if keys is not None:
        out["lift_keys"] = keys
    code = sites.of("radix", None, MSG_RADIX)
    kt = "uint" if bits <= 32 else "long"
    index_t = soac.f.params[0].ty
    rt = "long" if getattr(index_t, "width", 32) == 64 else "int"
    progs = {}
    progs["lift_hist"] = _hist(kname, "hist", kt, False)
    progs["lift_pos"] = _pos(kname, "pos", kt, False)
    progs["lift_starts"] = _starts(kname)
    progs["lift_perm"] = _perm(kname, "perm", kt, code)
    if isinstance(soac, ir.SegRank):
        progs["lift_seghist"] = _hist(kname, "seghist", "int", True, code)
        progs["lift_segpos"] = _pos(kname, "segpos", "int", True, code)
        progs["lift_segperm"] = _perm(kname, "segperm", None, code)
        progs["lift_segout"] = _out(kname, rt, code, True)
    else:
        progs["lift_out"] = _out(kname, rt, code, False)
    for key, build in progs.items():
        lm = _compiled(build, strategy)
        if lm is not None:
            out[key] = lm
    return out


def _rows(PV, N):
    from ..ir.builders import partition
    from .. import arith as A
    return partition(PV, lambda c: A.sub(A.div(A.mul(A.add(c, 1), N), PV), A.div(A.mul(c, N), PV)))


def _keys_of(ps, seg: bool, code: Optional[int]):
    """The keys a pass reads: ``k``, or a SEG_RANK's segment ids of the sorted indices
    ``gatherIdx(ix, ids)``."""
    from ..ir.builders import gatherIdx
    if seg:
        return gatherIdx(ps[0], ps[1], code=code), ps[2:]
    return ps[0], ps[1:]


def _digit(kname: str, suffix: str, kt: str):
    """``\\k -> dg(k, sh)``'s user function: the key's bits from ``sh`` on, read unsigned (the
    pattern keeps the low 8)."""
    from ..ir.builders import userfun
    from ..types import ScalarType
    wide = "ulong" if kt == "long" else "uint"
    return userfun(f"uf_{kname}_{suffix}dg", [("k", ScalarType(kt)), ("sh", ScalarType("int"))], ScalarType("int"),
                   f"\n  return (int)((({wide})k) >> sh);\n")


def _key_params(kt: str, seg: bool):
    from ..arith import size_var
    from ..types import ArrayType, ScalarType
    N = size_var("N")
    if seg:
        return [("ix", ArrayType(ScalarType("int"), N)), ("ids", ArrayType(ScalarType("int"), N))]
    return [("k", ArrayType(ScalarType(kt), N))]


def _hist(kname, suffix, kt, seg, code=None):
    """``join o mapGlb(0)(\\row -> toGlobal(radixHistSeq(8, \\k -> dg(k, sh)))(row)) o
    partition(P, ...) $ keys``: each chunk's histogram of the digits at shift ``sh``,
    chunk-major (``[int]_{256 P}``)."""
    from ..arith import size_var
    from ..ir.builders import join, lam, mapGlb, program, radixHistSeq, toGlobal
    from ..ir.expr import FunCall
    from ..types import ScalarType
    dg = _digit(kname, suffix, kt)

    def body(*ps):
        keys, rest = _keys_of(ps, seg, code)
        sh = rest[0]
        digit = lam(lambda k: FunCall(dg, (k, sh)), ["k"])
        row = lam(lambda r: toGlobal(radixHistSeq(DIGIT, digit))(r), ["row"])
        return join()(mapGlb(row)(_rows(size_var("P"), size_var("N"))(keys)))
    return "chunks", program(f"{kname}_lift{suffix}", _key_params(kt, seg) + [("sh", ScalarType("int"))], body)


def _starts(kname):
    """``scanSeq(add, 0) $ join(transpose(split(256)(h)))``: the exclusive scan of the chunk
    histograms in digit-major order (one work-item): where each chunk's keys of each digit go."""
    from .. import arith as A
    from ..arith import size_var
    from ..ir.builders import join, lam, mapGlb, program, scanSeq, split, toGlobal, transpose, userfun
    from ..ir.expr import Literal
    from ..types import ArrayType, ScalarType
    I = ScalarType("int")
    PV = size_var("P")
    add = userfun(f"uf_{kname}_radd", [("a", I), ("b", I)], I, "\n  return a + b;\n")
    d = 1 << DIGIT

    def body(h):
        row = lam(lambda r: toGlobal(scanSeq(add, Literal("0", I)))(r), ["row"])
        return join()(mapGlb(row)(split(A.mul(PV, d))(join()(transpose()(split(d)(h))))))
    return "single", program(f"{kname}_liftstarts", [("h", ArrayType(I, A.mul(PV, d)))], body)


def _pos(kname, suffix, kt, seg, code=None):
    """``join o mapGlb(0)(\\r -> toGlobal(radixRankSeq(8, \\k -> dg(k, sh)))(r._0, r._1)) $ zip(partition(P,
    ...)(keys), transpose(split(P)(starts)))``: each key's position after the pass (row ``c``
    of the transposed starts: chunk ``c``'s start of each digit)."""
    from .. import arith as A
    from ..arith import size_var
    from ..ir.builders import join, lam, mapGlb, program, radixRankSeq, split, toGlobal, transpose, zip_
    from ..ir.expr import FunCall
    from ..ir.patterns import Get
    from ..types import ArrayType, ScalarType
    PV = size_var("P")
    dg = _digit(kname, suffix, kt)

    def body(*ps):
        keys, rest = _keys_of(ps, seg, code)
        st, sh = rest
        digit = lam(lambda k: FunCall(dg, (k, sh)), ["k"])
        row = lam(lambda r: toGlobal(radixRankSeq(DIGIT, digit))(FunCall(Get(0), (r,)), FunCall(Get(1), (r,))),
                  ["r"])
        return join()(mapGlb(row)(zip_(_rows(PV, size_var("N"))(keys), transpose()(split(PV)(st)))))
    params = _key_params(kt, seg) + [("s", ArrayType(ScalarType("int"), A.mul(PV, 1 << DIGIT))),
                                     ("sh", ScalarType("int"))]
    return "chunks", program(f"{kname}_lift{suffix}", params, body)


def _perm(kname, suffix, kt, code):
    """``scatterIdx(pos, mapGlb(0)(toGlobal(\\t -> cp(t._0, t._1))) $ zip(k, ix))``: the (key,
    index) pairs moved to their positions (two buffers); a SEG_RANK's segment passes move the
    indices alone, ``scatterIdx(pos, mapGlb(0)(toGlobal(cp)) $ ix)``."""
    from ..arith import size_var
    from ..ir.builders import lam, mapGlb, program, scatterIdx, toGlobal, userfun, zip_
    from ..ir.expr import FunCall
    from ..ir.patterns import Get
    from ..types import ArrayType, ScalarType, TupleType, c_type_name
    N = size_var("N")
    I = ScalarType("int")
    if kt is None:
        cp = userfun(f"uf_{kname}_{suffix}", [("i", I)], I, "\n  return i;\n")
        params = [("ix", ArrayType(I, N)), ("pos", ArrayType(I, N))]
        return "elements", program(f"{kname}_lift{suffix}", params,
                                   lambda ix, pos: scatterIdx(pos, mapGlb(toGlobal(cp))(ix), code=code))
    K = ScalarType(kt)
    ret = TupleType((K, I))
    cp = userfun(f"uf_{kname}_{suffix}", [("k", K), ("i", I)], ret,
                 f"\n  return ({c_type_name(ret)}){{k, i}};\n")
    params = [("k", ArrayType(K, N)), ("ix", ArrayType(I, N)), ("pos", ArrayType(I, N))]
    fn = lam(lambda t: FunCall(cp, (FunCall(Get(0), (t,)), FunCall(Get(1), (t,)))), ["t"])
    return "elements", program(f"{kname}_lift{suffix}", params,
                               lambda k, ix, pos: scatterIdx(pos, mapGlb(toGlobal(fn))(zip_(k, ix)), code=code))


def _out(kname, rt, code, seg):
    """The ranks: element ``ix[p]`` of the result is ``p`` -- ``scatterIdx(ix, mapGlb(0)(toGlobal(r))
    $ generate(N))`` --, a SEG_RANK's ``p`` less the offset of its segment, ``scatterIdx(ix,
    mapGlb(0)(toGlobal(\\t -> r(t._0, t._1))) $ zip(generate(N), gatherIdx(gatherIdx(ix, ids),
    so)))`` (``so`` the descriptor's offsets); ``r`` returns the index type (``int`` or ``long``)."""
    from ..arith import size_var
    from ..ir.builders import gatherIdx, lam, mapGlb, program, scatterIdx, toGlobal, userfun, zip_
    from ..ir.expr import FunCall
    from ..ir.patterns import Generate, Get
    from ..types import ArrayType, ScalarType
    N, M = size_var("N"), size_var("M")
    I = ScalarType("int")
    if not seg:
        r = userfun(f"uf_{kname}_rank", [("p", I)], ScalarType(rt), f"\n  return ({rt})p;\n")
        return "elements", program(f"{kname}_liftout", [("ix", ArrayType(I, N))],
                                   lambda ix: scatterIdx(ix, mapGlb(toGlobal(r))(FunCall(Generate(N), ())), code=code))
    r = userfun(f"uf_{kname}_rank", [("p", I), ("off", I)], ScalarType(rt), f"\n  return ({rt})(p - off);\n")
    params = [("ix", ArrayType(I, N)), ("ids", ArrayType(I, N)), ("so", ArrayType(I, M))]
    fn = lam(lambda t: FunCall(r, (FunCall(Get(0), (t,)), FunCall(Get(1), (t,)))), ["t"])

    def body(ix, ids, so):
        offs = gatherIdx(gatherIdx(ix, ids, code=code), so, code=code)
        return scatterIdx(ix, mapGlb(toGlobal(fn))(zip_(FunCall(Generate(N), ()), offs)), code=code)
    return "elements", program(f"{kname}_liftsegout", params, body)


def _compiled(build, strategy: str) -> Optional[LiftMap]:
    """Compile one radix program for the runner: ``args`` name what it passes (``("size",)``,
    ``("chunks",)``, ``("nsegs1",)`` for ``N``, ``P``, ``M``; ``(name,)`` for the buffer or scalar
    parameter ``name`` (``sh``: a pass's shift); ``("out", j)``; the error buffer and base); ``inputs`` is empty (the runner gives the
    buffers)."""
    from .. import arith as A
    from .. import compile_program
    from ..arith import size_var
    from ..errors import LiftError
    how, prog = build
    if how == "single":
        launch = {"global_size": 1, "local_size": 1}
    elif strategy != "cpu":
        launch = {}
    elif how == "chunks":
        launch = {"global_size": size_var("P"), "local_size": 1}
    else:
        launch = {"global_size": A.add(size_var("N"), CPU_LOCAL - 1)}
    try:
        kern = compile_program(prog, error_base=True, soa_output=True, **launch)
    except LiftError:
        return None
    args = kernel_args(kern, prog.name, {"N": ("size",), "P": ("chunks",), "M": ("nsegs1",)},
                       {k: (k,) for k in ("k", "ix", "ids", "h", "s", "pos", "so", "sh")})
    return LiftMap(prog, kern, (), args)
