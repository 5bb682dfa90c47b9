"""``filterSeq(p, v)(xs, slots)``: sequential compaction -- the values ``v(x)`` of the elements
``x`` of ``xs`` for which ``p`` holds, in order, as many as ``slots`` has elements (``[s]_m, [u]_k
-> [t]_k``: the number kept is data, given by the length of the second argument).  The OpenCL lowering's FILTER write phase:
balanced chunks of the input, each compacted to its row of the output, the rows cut by the
exclusive scan of the chunk counts (``splitOffsets(offs, generate(K))``)."""
import numpy as np
import pytest

from lift_backend import compile_program, parse
from lift_backend.errors import LiftError
from lift_backend.syntax import file_text

SRC = r"""
userfun pos(x: int): bool { return x > 0; }
userfun odd(x: int): bool { return (x & 1) == 1; }
userfun big(a: float, b: int): bool { return a > 0.5f && b != 3; }
userfun never(x: int): bool { return false; }
userfun always(x: int): bool { return true; }
program flt(x: [int]N, offs: [int](P + 1)) =
  join(mapGlb(0)(\r -> toGlobal(filterSeq(pos, id))(r._0, r._1))(zip(partition(P, \c -> (c + 1) * N / P - c * N / P)(x),
    splitOffsets(offs, generate(K)))))
program idx(offs: [int](P + 1)) =
  join(mapGlb(0)(\r -> toGlobal(filterSeq(\i -> odd(i), id))(r._0, r._1))(zip(partition(P, \c -> (c + 1) * N / P - c * N / P)(generate(N)),
    splitOffsets(offs, generate(K)))))
program tup(a: [float]N, b: [int]N, offs: [int](P + 1)) =
  join(mapGlb(0)(\r -> toGlobal(filterSeq(\t -> big(t._0, t._1), \t -> id(t._1)))(r._0, r._1))(zip(partition(P, \c -> (c + 1) * N / P - c * N / P)(zip(a, b)),
    splitOffsets(offs, generate(K)))))
program none(x: [int]N, offs: [int](P + 1)) =
  join(mapGlb(0)(\r -> toGlobal(filterSeq(never, id))(r._0, r._1))(zip(partition(P, \c -> (c + 1) * N / P - c * N / P)(x),
    splitOffsets(offs, generate(K)))))
program every(x: [int]N, offs: [int](P + 1)) =
  join(mapGlb(0)(\r -> toGlobal(filterSeq(always, id))(r._0, r._1))(zip(partition(P, \c -> (c + 1) * N / P - c * N / P)(x),
    splitOffsets(offs, generate(K)))))
program both(a: [float]N, b: [int]N, offs: [int](P + 1)) =
  join(mapGlb(0)(\r -> toGlobal(filterSeq(\t -> big(t._0, t._1), id))(r._0, r._1))(zip(partition(P, \c -> (c + 1) * N / P - c * N / P)(zip(a, b)),
    splitOffsets(offs, generate(K)))))
program one(x: [int]N) = toGlobal(filterSeq(pos, id))(x, generate(K))
"""


def lf():
    return parse(SRC, "filter.lift")


def chunk_offsets(keep: np.ndarray, p: int) -> np.ndarray:
    """The exclusive scan of the chunk counts, the total last (``p + 1`` ints)."""
    n = len(keep)
    b = [c * n // p for c in range(p + 1)]
    counts = [int(keep[s:e].sum()) for s, e in zip(b, b[1:])]
    return np.concatenate([[0], np.cumsum(counts)]).astype(np.int32)


def run_chunks(runtime, prog, inputs, keep, p, global_size=None):
    offs = chunk_offsets(keep, p)
    k = int(offs[-1])
    args = dict(inputs)
    args["offs"] = offs
    sizes = {"P": p, "K": k} if inputs else {"P": p, "K": k, "N": len(keep)}
    return runtime.run(compile_program(lf().program(prog)), args, sizes=sizes,
                       global_size=global_size or p)


def test_types_and_printing():
    f = lf()
    for name in ("flt", "idx", "tup", "both", "one"):
        text = file_text([f.program(name)])
        assert "filterSeq(" in text
        assert file_text([parse(text).program(name)]) == text
    k = compile_program(f.program("flt"))
    src = k.source
    # no branch on the predicate: the store is bounded by the row's length, the position
    # advances by the predicate's flag
    assert "long pos_1 = 0;" in src and "if (pos_1 < lim)" in src and "pos_1 = pos_1 + (keep1 ? 1 : 0);" in src, src
    assert "const long lim = offs[gl_id + 1] - offs[gl_id];" in src, src


def test_the_predicate_must_return_a_bool():
    with pytest.raises(LiftError, match="filterSeq: the predicate must return a bool, got int"):
        compile_program(parse("userfun f(a: int): int { return a; }\n"
                              "program p(x: [int]N) = toGlobal(filterSeq(f, id))(x, generate(K))\n").program("p"))


def test_the_slots_are_the_second_argument():
    with pytest.raises(LiftError, match="the program body must be a value, found a function"):
        compile_program(parse("userfun f(a: int): bool { return a > 0; }\n"
                              "program p(x: [int]N) = toGlobal(filterSeq(f, id))(x)\n").program("p"))


@pytest.mark.opencl
@pytest.mark.parametrize("n,p", [(1, 1), (2, 1), (7, 3), (10, 3), (5, 8), (1001, 7), (4096, 16), (2 ** 20 + 3, 48)])
def test_positive_elements_over_chunks(runtime, n, p):
    # p > n: chunks without elements (empty rows of the input and of the output)
    rng = np.random.default_rng(n + p)
    x = rng.integers(-5, 5, n).astype(np.int32)
    keep = x > 0
    if not keep.any():
        x[0] = 1
        keep = x > 0
    out = run_chunks(runtime, "flt", {"x": x}, keep, p)
    np.testing.assert_array_equal(out, x[keep])


@pytest.mark.opencl
@pytest.mark.parametrize("n,p", [(1, 1), (9, 4), (1000, 16)])
def test_all_kept(runtime, n, p):
    x = np.arange(n, dtype=np.int32) - 3
    out = run_chunks(runtime, "every", {"x": x}, np.ones(n, bool), p)
    np.testing.assert_array_equal(out, x)


def test_none_kept_is_an_empty_output():
    # K = 0 (nothing kept) is an empty array, which a Lift size cannot be: the OpenCL runner
    # launches no write phase then
    from lift_backend.errors import LiftCompileError
    from lift_backend.runtime import get_runtime
    x = np.arange(9, dtype=np.int32)
    with pytest.raises(LiftCompileError, match="size K=0 is out of range"):
        get_runtime().run(compile_program(lf().program("none")), {"x": x, "offs": np.zeros(5, np.int32)},
                          sizes={"P": 4, "K": 0}, global_size=4)


@pytest.mark.opencl
@pytest.mark.parametrize("n,p", [(9, 4), (1000, 16), (1000, 1000)])
def test_rows_that_keep_none(runtime, n, p):
    # every chunk but the last keeps nothing: empty rows of the output before a full one
    x = np.zeros(n, np.int32)
    x[-1] = 5
    out = run_chunks(runtime, "flt", {"x": x}, x > 0, p)
    np.testing.assert_array_equal(out, [5])
    x = np.zeros(n, np.int32)
    x[0] = 5
    out = run_chunks(runtime, "flt", {"x": x}, x > 0, p)
    np.testing.assert_array_equal(out, [5])


@pytest.mark.opencl
@pytest.mark.parametrize("n,p", [(8, 3), (17, 5), (10000, 32)])
def test_index_space_and_tuples(runtime, n, p):
    idx = np.arange(n)
    out = run_chunks(runtime, "idx", {}, (idx & 1) == 1, p)
    np.testing.assert_array_equal(out, idx[(idx & 1) == 1])
    a = (np.arange(n) % 7 / 6).astype(np.float32)
    b = (np.arange(n) % 5).astype(np.int32)
    keep = (a > 0.5) & (b != 3)
    out = run_chunks(runtime, "both", {"a": a, "b": b}, keep, p)
    np.testing.assert_array_equal(out["_0"], a[keep])
    np.testing.assert_array_equal(out["_1"], b[keep])
    # one component kept, the other read by the predicate only
    out = run_chunks(runtime, "tup", {"a": a, "b": b}, keep, p)
    np.testing.assert_array_equal(out, b[keep])


@pytest.mark.opencl
def test_one_row(runtime):
    x = np.array([3, -1, 0, 4, 5, -2, 7], np.int32)
    out = runtime.run(compile_program(lf().program("one")), {"x": x}, sizes={"K": 4}, global_size=1)
    np.testing.assert_array_equal(out, [3, 4, 5, 7])
