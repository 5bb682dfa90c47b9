"""``radixHistSeq(bits, f)(xs)`` and ``radixRankSeq(bits, f)(xs, starts)``: the sequential passes
of an LSD radix sort over a row of elements, the digit of each ``f(x) & (2^bits - 1)`` (here
``\\k -> dg(k, sh)``, the key's bits from ``sh`` on, read unsigned: one program serves every
pass), one work-item a row.  One pass of the OpenCL lowering's RANK
(lift_backend/lower/lift_rank.py) over balanced chunks of the keys:

    hist  = join o mapGlb(0)(\\row -> toGlobal(radixHistSeq(b, \\k -> dg(k, sh)))(row)) o partition(P, ...) $ k
    starts = scanSeq(add, 0) $ join(transpose(split(2^b)(hist)))           (digit-major)
    pos   = join o mapGlb(0)(\\r -> toGlobal(radixRankSeq(b, \\k -> dg(k, sh)))(r._0, r._1))
              $ zip(partition(P, ...)(k), transpose(split(P)(starts)))
    scatterIdx(pos, mapGlb(0)(toGlobal(\\t -> cp(t._0, t._1))) $ zip(k, ix))

which is numpy's stable sort by the digit.  Edge cases: one element, a row count that does not
divide the length, all-equal keys, 32- and 64-bit keys, every digit position, stability."""
import numpy as np
import pytest

from lift_backend import compile_program, parse
from lift_backend.errors import LiftError
from lift_backend.syntax import file_text

ROWS = r"\c -> (c + 1) * N / P - c * N / P"


WIDE = {"uint": "uint", "int": "uint", "long": "ulong"}


def src(kt: str, bits: int) -> str:
    d = 1 << bits
    return rf"""
userfun add(a: int, b: int): int {{ return a + b; }}
userfun dg(k: {kt}, sh: int): int {{ return (int)((({WIDE[kt]})k) >> sh); }}
userfun cp(k: {kt}, i: int): ({kt}, int) {{ return (Tuple_{kt}_int){{k, i}}; }}
program hist(k: [{kt}]N, sh: int) =
  join(mapGlb(0)(\row -> toGlobal(radixHistSeq({bits}, \k -> dg(k, sh)))(row))(partition(P, {ROWS})(k)))
program starts(h: [int](P * {d})) =
  join(mapGlb(0)(\r -> toGlobal(scanSeq(add, 0))(r))(split(P * {d})(join(transpose(split({d})(h))))))
program pos(k: [{kt}]N, s: [int](P * {d}), sh: int) =
  join(mapGlb(0)(\r -> toGlobal(radixRankSeq({bits}, \k -> dg(k, sh)))(r._0, r._1))(zip(partition(P, {ROWS})(k),
    transpose(split(P)(s)))))
program perm(k: [{kt}]N, ix: [int]N, pos: [int]N) =
  scatterIdx(pos, mapGlb(0)(toGlobal(\t -> cp(t._0, t._1)))(zip(k, ix)))
"""


def programs(kt, bits):
    lf = parse(src(kt, bits), "radix.lift")
    return {name: lf.program(name) for name in ("hist", "starts", "pos", "perm")}


DT = {"uint": np.uint32, "int": np.int32, "long": np.int64}


def one_pass(runtime, progs, keys, p, shift, bits):
    n = len(keys)
    d = 1 << bits
    hist = runtime.run(compile_program(progs["hist"]), {"k": keys, "sh": shift}, sizes={"P": p},
                       global_size=p)
    starts = runtime.run(compile_program(progs["starts"], global_size=1, local_size=1), {"h": hist},
                         sizes={"P": p}, global_size=1, local_size=1)
    pos = runtime.run(compile_program(progs["pos"]), {"k": keys, "s": starts, "sh": shift}, sizes={"P": p},
                      global_size=p)
    out = runtime.run(compile_program(progs["perm"]),
                      {"k": keys, "ix": np.arange(n, dtype=np.int32), "pos": pos}, global_size=n)
    return np.asarray(hist).reshape(p, d), np.asarray(starts), np.asarray(pos), (out["_0"], out["_1"])


def digits(keys, shift, bits):
    u = keys.astype(np.uint64) if keys.dtype == np.int64 else keys.astype(np.uint32)
    return ((u >> u.dtype.type(shift)) & u.dtype.type((1 << bits) - 1)).astype(np.int64)


@pytest.mark.parametrize("kt,shift,bits", [("uint", 0, 8), ("uint", 24, 8), ("int", 8, 8), ("int", 28, 4),
                                           ("long", 0, 8), ("long", 56, 8), ("long", 32, 3), ("uint", 5, 1)])
@pytest.mark.parametrize("n,p", [(1, 1), (2, 1), (7, 3), (1000, 7), (2049, 4), (6149, 16)])
def test_one_pass_is_a_stable_sort_by_the_digit(runtime, kt, shift, bits, n, p):
    rng = np.random.default_rng(n * 31 + shift + bits)
    info = np.iinfo(DT[kt])
    keys = rng.integers(info.min, info.max, n, dtype=DT[kt], endpoint=True)
    keys[: n // 3] = keys[0]            # duplicates: their order must stay
    progs = programs(kt, bits)
    hist, starts, pos, out = one_pass(runtime, progs, keys, p, shift, bits)
    dg = digits(keys, shift, bits)
    bounds = [c * n // p for c in range(p + 1)]
    want_hist = np.stack([np.bincount(dg[a:b], minlength=1 << bits) for a, b in zip(bounds, bounds[1:])])
    assert np.array_equal(hist, want_hist)
    assert np.array_equal(starts, np.concatenate([[0], np.cumsum(want_hist.T.ravel())[:-1]]))
    order = np.argsort(dg, kind="stable")
    want_pos = np.empty(n, np.int64)
    want_pos[order] = np.arange(n)
    assert np.array_equal(pos, want_pos)
    ks, ix = out
    assert np.array_equal(ix, order) and np.array_equal(ks, keys[order])


@pytest.mark.parametrize("kt", ["uint", "long"])
def test_all_equal_keys(runtime, kt):
    keys = np.full(5000, 77, DT[kt])
    _, _, pos, (ks, ix) = one_pass(runtime, programs(kt, 8), keys, 5, 0, 8)
    assert np.array_equal(pos, np.arange(5000)) and np.array_equal(ix, np.arange(5000))


def test_full_sort_of_32_and_64_bit_keys(runtime):
    rng = np.random.default_rng(5)
    for kt, width in (("uint", 32), ("long", 64)):
        info = np.iinfo(DT[kt])
        keys = rng.integers(info.min, info.max, 3001, dtype=DT[kt], endpoint=True)
        keys[::7] = keys[3]
        ks, ix = keys, np.arange(len(keys), dtype=np.int32)
        progs = programs(kt, 8)
        for shift in range(0, width, 8):
            _, _, pos, (ks2, ix2) = one_pass(runtime, progs, ks, 6, shift, 8)
            # the pass permutes (key, index) pairs: carry the original indices along
            perm = np.empty_like(pos)
            perm[pos] = np.arange(len(pos))
            ix = np.asarray(ix)[perm]
            ks = ks2
        u = keys.view(np.uint64) if kt == "long" else keys
        assert np.array_equal(ix, np.argsort(u, kind="stable"))


def test_printed_programs_parse_again():
    for name, prog in programs("long", 8).items():
        again = parse(file_text([prog]), "again.lift").program(name)
        assert file_text([again]) == file_text([prog])
        if name in ("hist", "pos"):
            assert f"radix{'Hist' if name == 'hist' else 'Rank'}Seq(8, \\k -> dg(k, sh))" in file_text([prog])


@pytest.mark.parametrize("bad", [
    "userfun dg(k: uint): int { return (int)k; }\nprogram b(k: [uint]N) = toGlobal(radixHistSeq(9, dg))(k)",
    "userfun dg(k: uint): int { return (int)k; }\nprogram b(k: [uint]N) = toGlobal(radixHistSeq(0, dg))(k)",
    "userfun dg(k: uint): float { return (float)k; }\nprogram b(k: [uint]N) = toGlobal(radixHistSeq(8, dg))(k)",
    "userfun dg(k: uint): uint { return k; }\nprogram b(k: [uint]N) = toGlobal(radixHistSeq(8, dg))(k)",
    "userfun dg(k: uint): int { return (int)k; }\nprogram b(k: [[uint]4]N) = toGlobal(radixHistSeq(8, dg))(k)",
    "userfun dg(k: uint): int { return (int)k; }\n"
    "program b(k: [uint]N, s: [int]16) = toGlobal(radixRankSeq(8, dg))(k, s)",
    "userfun dg(k: uint): int { return (int)k; }\n"
    "program b(k: [uint]N, s: [float]256) = toGlobal(radixRankSeq(8, dg))(k, s)",
])
def test_refused(bad):
    with pytest.raises(LiftError):
        compile_program(parse(bad, "bad.lift").program("b"))


def test_the_counters_are_private_and_unrolled_by_nobody():
    k = compile_program(programs("uint", 8)["hist"])
    assert "int cnt" in k.source and "[256]" in k.source


def test_builders_and_gather_codes():
    """The builders make the patterns; ``gatherIdx(idx, v, code)`` reports ``code`` from a kernel
    compiled with an error base (the SEG_RANK passes read their keys through it)."""
    from lift_backend import arith as A
    from lift_backend.ir import patterns as P
    from lift_backend.ir.builders import gatherIdx, lam, mapGlb, program, radixHistSeq, radixRankSeq, toGlobal, userfun
    from lift_backend.ir.expr import FunCall
    from lift_backend.types import ArrayType, ScalarType
    N = A.size_var("N")
    I = ScalarType("int")
    dg = userfun("dg", [("k", I)], I, "return k;")
    assert radixHistSeq(8, dg) == P.RadixSeq(8, dg) and radixRankSeq(4, dg) == P.RadixSeq(4, dg, rank=True)
    pr = program("q", [("ix", ArrayType(I, N)), ("ids", ArrayType(I, N))],
                 lambda ix, ids: toGlobal(radixHistSeq(8, lam(lambda k: FunCall(dg, (k,)), ["k"])))(
                     gatherIdx(ix, ids, code=7)))
    k = compile_program(pr, error_base=True)
    assert "lift_errbase + 7" in k.source
    with pytest.raises(LiftError):
        compile_program(program("q", [("ix", ArrayType(I, N)), ("ids", ArrayType(I, N))],
                                lambda ix, ids: mapGlb(toGlobal(dg))(gatherIdx(ix, ids))), error_base=True)
