"""Columnar arguments and results of the Python API (issue 9): sequences of tuples as structured
arrays, tuples of columns and (n, k) arrays; nested sequences as ``nessie.Segmented``,
``scipy.sparse`` CSR matrices, Arrow and awkward arrays.  Every form gives byte-identical results
to the nested-list form on the interpreter, lcu and OpenCL (PoCL) backends; results come back in
columnar form with ``results="numpy"|"arrow"|"awkward"``; malformed input is refused with an
error naming the parameter and its NESL type."""
from __future__ import annotations

from pathlib import Path

import awkward as ak
import numpy as np
import pyarrow as pa
import pytest
import scipy.sparse as sp

import nessie
from nessie import Segmented
from nessie.api import load

ROOT = Path(__file__).resolve().parents[2]
EX = ROOT / "nesl_examples"

SRC = """
function shift(p) : [(float, float)] -> [(float, float)] = {(x + 1.0, y * 2.0) : (x, y) in p};
function sxy(p) : [(float, float)] -> float = sum({x * y : (x, y) in p});
function smxv(mat, vec) : ([[(int, float)]], [float]) -> [float] =
  {sum({v * vec[i] : (i, v) in row}) : row in mat};
function rows(mat) : [[(int, float)]] -> [[(int, float)]] =
  {{(i + 1, v * 0.5) : (i, v) in row} : row in mat};
function deep(x) : [[[int]]] -> [[[int]]] = {{{y + 1 : y in b} : b in a} : a in x};
function deepsum(x) : [[[int]]] -> [int] = {sum({sum(b) : b in a}) : a in x};
function tseq(x) : [(int, [float])] -> [(int, [float])] =
  {(i * 2, {v + float(i) : v in vs}) : (i, vs) in x};
function words(ws) : [[char]] -> [[char]] =
  {{if c == `a then `b else c : c in w} : w in ws};
function wlen(ws) : [[char]] -> [int] = {#w : w in ws};
function trip(x) : [(int, bool, float)] -> [(int, bool, float)] =
  {(i + 1, not(b), g * 3.0) : (i, b, g) in x};
function tsum(x) : [(int, bool, float)] -> float =
  sum({if b then g else float(i) : (i, b, g) in x});
"""

BACKENDS = ["interp", "lcu", pytest.param("opencl", marks=pytest.mark.opencl)]


@pytest.fixture(scope="module", params=BACKENDS)
def m(request):
    return load(SRC, backend=request.param, run_toplevel=False)


def same(a, b) -> bool:
    """Byte-identical Python results: same types, numpy arrays of the same dtype, shape and
    bytes, floats of the same bits."""
    if type(a) is not type(b):
        return False
    if isinstance(a, np.ndarray):
        return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, float):
        return np.float64(a).tobytes() == np.float64(b).tobytes()
    return a == b


# ------------------------------------------------------------------------------- data
def points(n):
    rng = np.random.default_rng(n)
    return rng.normal(size=(n, 2))


def _struct(a):
    return pa.StructArray.from_arrays([pa.array(a[:, 0]), pa.array(a[:, 1])], names=["x", "y"])


POINT_FORMS = {
    "2d": lambda a: a,
    "structured": lambda a: np.rec.fromarrays([a[:, 0], a[:, 1]],
                                              names="x,y").view(np.ndarray),
    "tuple": lambda a: (a[:, 0].copy(), a[:, 1].copy()),
    "list of columns": lambda a: [a[:, 0].copy(), a[:, 1].copy()],
    "arrow": _struct,
    "arrow chunked": lambda a: pa.chunked_array(
        [_struct(a[:len(a) // 2]), _struct(a[len(a) // 2:])], type=_struct(a).type),
    "awkward": lambda a: ak.zip({"x": a[:, 0], "y": a[:, 1]}),
}


@pytest.mark.parametrize("n", [0, 1, 7])
@pytest.mark.parametrize("form", list(POINT_FORMS))
def test_points_forms(m, form, n):
    a = points(n)
    ref_in = [tuple(p) for p in a.tolist()]
    v = POINT_FORMS[form](a)
    assert same(m.shift(v), m.shift(ref_in))
    assert same(m.sxy(v), m.sxy(ref_in))


def matrix():
    """A sparse matrix with empty rows (first, middle, last), its nested lists and vector."""
    rng = np.random.default_rng(3)
    lens = np.array([0, 3, 1, 0, 0, 4, 2, 0])
    cols = rng.integers(0, 6, lens.sum()).astype(np.int64)
    vals = rng.normal(size=lens.sum())
    off = np.concatenate(([0], np.cumsum(lens)))
    nested = [[(int(c), float(x)) for c, x in zip(cols[a:b], vals[a:b])]
              for a, b in zip(off[:-1], off[1:])]
    return lens, cols, vals, off, nested, rng.normal(size=6)


def matrix_forms(lens, cols, vals, off):
    st = np.empty(len(cols), [("col", np.int32), ("val", np.float64)])
    st["col"], st["val"] = cols, vals
    pa_rows = pa.ListArray.from_arrays(pa.array(off.astype(np.int32)),
                                       pa.StructArray.from_arrays([pa.array(cols), pa.array(vals)],
                                                                  names=["c", "v"]))
    return {
        "segmented lengths": Segmented((cols, vals), lengths=lens),
        "segmented offsets": Segmented((cols, vals), offsets=off),
        "segmented slack": Segmented((np.concatenate(([5], cols, [4])),
                                      np.concatenate(([9.0], vals, [8.0]))), offsets=off + 1),
        "segmented structured": Segmented(st, lengths=lens),
        "segmented 2 columns list": Segmented([cols, vals], lengths=lens),
        "csr": sp.csr_matrix((vals, cols, off), shape=(len(lens), 6)),
        "csr_array": sp.csr_array((vals, cols.astype(np.int32), off), shape=(len(lens), 6)),
        "arrow list": pa_rows,
        "arrow large_list": pa.LargeListArray.from_arrays(pa.array(off), pa_rows.values),
        "arrow sliced": pa.ListArray.from_arrays(
            pa.array(np.concatenate(([0], off + 1)).astype(np.int32)),
            pa.StructArray.from_arrays([pa.array(np.concatenate(([1], cols))),
                                        pa.array(np.concatenate(([1.0], vals)))],
                                       names=["c", "v"]))[1:],
        "awkward": ak.Array(pa_rows),
        "awkward tuples": ak.unflatten(ak.zip((cols, vals)), lens),
        "list of structured rows": [st[a:b] for a, b in zip(off[:-1], off[1:])],
        "list of column tuples": [(cols[a:b], vals[a:b]) for a, b in zip(off[:-1], off[1:])],
    }


def test_matrix_forms(m):
    lens, cols, vals, off, nested, vec = matrix()
    ref = m.smxv(nested, vec)
    ref_rows = m.rows(nested)
    for name, form in matrix_forms(lens, cols, vals, off).items():
        assert same(m.smxv(form, vec), ref), name
        assert same(m.rows(form), ref_rows), name


@pytest.mark.parametrize("lens", [[], [0], [1], [0, 0, 0], [2]])
def test_matrix_edge_shapes(m, lens):
    lens = np.array(lens, np.int64)
    cols = np.arange(lens.sum(), dtype=np.int64) % 2
    vals = np.arange(lens.sum(), dtype=np.float64) + 0.5
    off = np.concatenate(([0], np.cumsum(lens)))
    nested = [[(int(c), float(x)) for c, x in zip(cols[a:b], vals[a:b])]
              for a, b in zip(off[:-1], off[1:])]
    vec = np.array([1.5, -2.0])
    ref = m.smxv(nested, vec)
    for name, form in matrix_forms(lens, cols, vals, off).items():
        if name == "arrow sliced" and not len(lens):
            continue                          # slicing [1:] of one list: covered by n >= 1
        assert same(m.smxv(form, vec), ref), name
        assert same(m.rows(form), m.rows(nested)), name


def test_sparse_mxv_example_with_csr(m):
    ex = load(EX / "sparse_mxv.nesl", backend=m.backend, run_toplevel=False)
    A = sp.random(50, 40, density=0.1, format="csr", random_state=1)
    v = np.random.default_rng(2).normal(size=40)
    assert np.allclose(ex.sparse_mxv(A, v), A @ v, rtol=1e-12, atol=1e-12)
    nested = [list(zip(A.indices[a:b].tolist(), A.data[a:b].tolist()))
              for a, b in zip(A.indptr[:-1], A.indptr[1:])]
    assert same(ex.sparse_mxv(A, v), ex.sparse_mxv(nested, v))


def deep_data():
    nested = [[[1, 2], [], [3]], [], [[4, 5, 6]], [[], []]]
    inner_lens = [2, 0, 1, 3, 0, 0]
    outer_lens = [3, 0, 1, 2]
    flat = np.array([1, 2, 3, 4, 5, 6], np.int32)
    return nested, flat, inner_lens, outer_lens


def test_three_levels(m):
    nested, flat, il, ol = deep_data()
    ref, ref_s = m.deep(nested), m.deepsum(nested)
    seg = Segmented(Segmented(flat, lengths=il), lengths=ol)
    arrow = pa.array(nested, type=pa.list_(pa.list_(pa.int32())))
    forms = {
        "segmented": seg,
        "segmented offsets": Segmented(Segmented(flat, offsets=np.concatenate(([0], np.cumsum(il)))),
                                       offsets=np.concatenate(([0], np.cumsum(ol)))),
        "arrow": arrow,
        "awkward": ak.Array(nested),
        "list of segmented": [Segmented(flat[:3], lengths=[2, 0, 1]),
                              Segmented(np.zeros(0, np.int32), lengths=[]),
                              Segmented(flat[3:], lengths=[3]),
                              Segmented(np.zeros(0, np.int32), lengths=[0, 0])],
    }
    for name, form in forms.items():
        assert same(m.deep(form), ref), name
        assert same(m.deepsum(form), ref_s), name


def test_three_levels_regular_ndarray(m):
    a = np.arange(24, dtype=np.int64).reshape(2, 3, 4)
    assert same(m.deep(a), m.deep(a.tolist()))
    assert same(m.deepsum(a), m.deepsum(a.tolist()))
    e = np.zeros((0, 3, 4), np.int64)
    assert same(m.deep(e), m.deep([]))


def test_tuples_containing_sequences(m):
    ids = np.array([3, 1, 2], np.int64)
    lens = [2, 0, 3]
    vals = np.arange(5, dtype=np.float64) / 4
    nested = [(3, [0.0, 0.25]), (1, []), (2, [0.5, 0.75, 1.0])]
    ref = m.tseq(nested)
    forms = {
        "tuple of columns": (ids, Segmented(vals, lengths=lens)),
        "tuple with nested list": (ids, [vals[:2], vals[2:2], vals[2:]]),
        "arrow struct": pa.StructArray.from_arrays(
            [pa.array(ids), pa.array([[0.0, 0.25], [], [0.5, 0.75, 1.0]])], names=["i", "v"]),
        "awkward": ak.zip({"i": ids, "v": ak.unflatten(vals, lens)}, depth_limit=1),
    }
    for name, form in forms.items():
        assert same(m.tseq(form), ref), name


def test_strings(m):
    ws = ["banana", "", "a", "été", "xyz"]
    ref, ref_len = m.words(ws), m.wlen(ws)
    text = "".join(ws)
    forms = {
        "segmented str": Segmented(text, lengths=[len(w) for w in ws]),
        "arrow string": pa.array(ws),
        "arrow large_string": pa.array(ws, type=pa.large_string()),
        "awkward": ak.Array(ws),
    }
    for name, form in forms.items():
        assert same(m.words(form), ref), name
        assert same(m.wlen(form), ref_len), name


def test_three_component_tuples(m):
    i = np.array([1, 2, 3, 4], np.int32)
    b = np.array([True, False, False, True])
    f = np.array([0.5, 1.5, -2.0, 3.25])
    nested = list(zip(i.tolist(), b.tolist(), f.tolist()))
    st = np.empty(4, [("i", np.int64), ("b", np.bool_), ("f", np.float64)])
    st["i"], st["b"], st["f"] = i, b, f
    ref, ref_s = m.trip(nested), m.tsum(nested)
    for name, form in {"structured": st, "tuple": (i, b, f), "list": [i, b, f],
                       "arrow": pa.StructArray.from_arrays([pa.array(i), pa.array(b),
                                                            pa.array(f)], names="ibf"),
                       "awkward": ak.zip((i, b, f))}.items():
        assert same(m.trip(form), ref), name
        assert same(m.tsum(form), ref_s), name


def test_flat_arrow_and_awkward():
    d = load(EX / "dotp.nesl", backend="lcu", run_toplevel=False)
    x = np.arange(10, dtype=np.int64)
    assert d.dotp(pa.array(x), ak.Array(x)) == d.dotp(x, x)
    assert d.dotp(pa.chunked_array([x[:4], x[4:]]), x) == d.dotp(x, x)


def test_polymorphic_quickhull_on_points(m):
    q = load(EX / "quickhull.nesl", backend=m.backend, run_toplevel=False)
    a = points(200)
    ref = q.quickhull([tuple(p) for p in a.tolist()])
    assert same(q.quickhull(a), ref)
    ints = np.random.default_rng(5).integers(-100, 100, (50, 2))
    assert same(q.quickhull(ints), q.quickhull([tuple(p) for p in ints.tolist()]))


# ------------------------------------------------------------------------------- results
def test_results_numpy(m):
    f = m.function("shift", results="numpy")
    a = points(5)
    r = f(a)
    assert isinstance(r, np.ndarray) and r.dtype.names == ("f0", "f1")
    assert list(zip(r["f0"].tolist(), r["f1"].tolist())) == m.shift(a)
    again = m.function("shift", results="numpy")(r)            # round trip
    assert same(m.shift(r), m.shift(m.shift(a)))
    assert list(zip(again["f0"].tolist(), again["f1"].tolist())) == m.shift(m.shift(a))

    lens, cols, vals, off, nested, vec = matrix()
    rr = m.function("rows", results="numpy")(Segmented((cols, vals), lengths=lens))
    assert isinstance(rr, Segmented) and rr.values.dtype.names == ("f0", "f1")
    assert rr.lengths.tolist() == lens.tolist()
    assert rr.to_list() == m.rows(nested)
    assert same(m.rows(rr), m.rows(m.rows(nested)))

    nested3, *_ = deep_data()
    d = m.function("deep", results="numpy")(nested3)
    assert isinstance(d, Segmented) and isinstance(d.values, Segmented)
    assert d.to_list() == [[x.tolist() for x in row] for row in m.deep(nested3)]

    t = m.function("tseq", results="numpy")([(3, [0.0, 0.25]), (1, [])])
    assert isinstance(t, tuple) and t[0].tolist() == [6, 2]
    assert isinstance(t[1], Segmented) and t[1].to_list() == [[3.0, 3.25], []]

    w = m.function("words", results="numpy")(["ab", "", "é"])
    assert isinstance(w, Segmented) and w.values == "bbé" and w.lengths.tolist() == [2, 0, 1]

    tr = m.function("trip", results="numpy")([(1, True, 0.5)])
    assert tr.dtype == np.dtype([("f0", m._conv.int_dtype), ("f1", np.bool_),
                                 ("f2", np.float64)])
    assert m.function("sxy", results="numpy")(points(3)) == m.sxy(points(3))
    assert same(m.function("smxv", results="numpy")(nested, vec), m.smxv(nested, vec))


def test_results_arrow_and_awkward(m):
    lens, cols, vals, off, nested, vec = matrix()
    want = [[{"f0": c + 1, "f1": v * 0.5} for c, v in row] for row in nested]
    ra = m.function("rows", results="arrow")(nested)
    assert isinstance(ra, pa.LargeListArray) and ra.to_pylist() == want
    rk = m.function("rows", results="awkward")(nested)
    assert isinstance(rk, ak.Array)
    assert ak.to_list(rk) == [[(c + 1, v * 0.5) for c, v in row] for row in nested]
    assert same(m.rows(ra), m.rows(m.rows(nested)))          # round trips
    assert same(m.rows(rk), m.rows(m.rows(nested)))
    ws = ["ab", "", "été"]
    assert m.function("words", results="arrow")(ws).to_pylist() == m.words(ws)
    assert ak.to_list(m.function("words", results="awkward")(ws)) == m.words(ws)
    assert m.function("smxv", results="arrow")(nested, vec).to_numpy().tolist() == \
        m.smxv(nested, vec).tolist()


def test_results_module_default():
    s = load(SRC, backend="lcu", run_toplevel=False, results="numpy")
    assert isinstance(s.rows([[(0, 1.0)], []]), Segmented)
    assert isinstance(s.function("rows", results="python")([[(0, 1.0)]]), list)
    with pytest.raises(ValueError, match="results must be one of"):
        load(SRC, backend="lcu", run_toplevel=False, results="pandas")
    with pytest.raises(ValueError, match="results must be one of"):
        s.function("rows", results="list")


# ------------------------------------------------------------------------------- errors
@pytest.fixture(scope="module")
def e():
    return load(SRC, backend="lcu", run_toplevel=False)


def test_error_wrong_dtype(e):
    with pytest.raises(TypeError, match=r"smxv: argument 1 \(mat\) must be \[\[\(int, float\)\]\]"
                                        r".*mat\.values\[0\]"):
        e.smxv(Segmented((np.array([0.5]), np.array([1.0])), lengths=[1]), np.ones(2))
    with pytest.raises(TypeError, match=r"shift: argument 1 \(p\) must be \[\(float, float\)\]"
                                        r".*p\[1\].*numpy array of <U1"):
        e.shift((np.ones(2), np.array(["a", "b"])))


def test_error_field_count(e):
    st = np.zeros(3, [("a", "f8"), ("b", "f8"), ("c", "f8")])
    with pytest.raises(TypeError, match=r"shift: argument 1 \(p\) must be \[\(float, float\)\]"):
        e.shift(st)
    with pytest.raises(TypeError, match=r"argument 1 \(p\) must be \[\(float, float\)\]; got "
                                        r"numpy array of float64 with shape \(4, 3\)"):
        e.shift(np.zeros((4, 3)))
    with pytest.raises(TypeError, match=r"must be \[\(float, float\)\]"):
        e.shift(pa.StructArray.from_arrays([pa.array([1.0])], names=["x"]))


def test_error_segmented_construction():
    with pytest.raises(ValueError, match="negative segment length -1 at index 1"):
        Segmented(np.arange(3), lengths=[2, -1, 2])
    with pytest.raises(ValueError, match=r"offsets are not monotone \(offsets\[1\] = 3 > "
                                         r"offsets\[2\] = 1\)"):
        Segmented(np.arange(3), offsets=[0, 3, 1])
    with pytest.raises(ValueError, match="lengths add up to 4 but there are 3 values"):
        Segmented(np.arange(3), lengths=[2, 2])
    with pytest.raises(ValueError, match="offsets reach 5 but there are only 3 values"):
        Segmented(np.arange(3), offsets=[0, 5])
    with pytest.raises(ValueError, match="negative offset"):
        Segmented(np.arange(3), offsets=[-1, 2])
    with pytest.raises(TypeError, match="give exactly one of lengths and offsets"):
        Segmented(np.arange(3))
    with pytest.raises(TypeError, match="lengths must be integers"):
        Segmented(np.arange(3), lengths=[1.0, 2.0])
    with pytest.raises(ValueError, match="offsets needs at least one entry"):
        Segmented(np.arange(3), offsets=[])
    with pytest.raises(TypeError, match="masked array"):
        Segmented(np.ma.masked_array([1, 2], mask=[0, 1]), lengths=[2])


def test_error_tuple_columns_of_different_lengths(e):
    with pytest.raises(ValueError, match=r"shift: argument 1 \(p\) must be \[\(float, float\)\]: "
                                         r"p: the tuple columns have different lengths "
                                         r"\(p\[0\]: 3, p\[1\]: 2\)"):
        e.shift((np.ones(3), np.ones(2)))


def test_error_int_range(e):
    big = np.array([0, 2 ** 40], np.int64)
    with pytest.raises(OverflowError, match=r"smxv: argument 1 \(mat\): 1099511627776 does not "
                                            r"fit the 32-bit NESL int"):
        e.smxv(Segmented((big, np.ones(2)), lengths=[2]), np.ones(2))
    e64 = load(SRC, backend="interp", int64=True, run_toplevel=False)
    assert e64.rows(Segmented((big, np.ones(2)), lengths=[2])) == [[(1, 0.5), (2 ** 40 + 1, 0.5)]]


def test_error_missing_values(e):
    with pytest.raises(ValueError, match=r"argument 1 \(mat\) must be \[\[\(int, float\)\]\]: "
                                         r"mat: the Arrow array has 1 missing values"):
        e.rows(pa.array([[{"c": 1, "v": 1.0}], None]))
    with pytest.raises(ValueError, match=r"deep: argument 1 \(x\) .*1 missing values \(None\)"):
        e.deep(ak.Array([[[1]], None]))
    with pytest.raises(TypeError, match="masked array"):
        e.sxy(np.ma.masked_array(np.zeros((2, 2))))


def test_error_sparse_format_and_strings(e):
    A = sp.random(3, 3, density=0.5, format="csc", random_state=0)
    with pytest.raises(TypeError, match=r"smxv: argument 1 \(mat\) .*'csc' format is not "
                                        r"accepted: convert it with \.tocsr\(\)"):
        e.smxv(A, np.ones(3))
    with pytest.raises(ValueError, match=r"wlen: argument 1 \(ws\) .*above U\+00FF"):
        e.wlen(pa.array(["ok", "€"]))
    with pytest.raises(TypeError, match=r"Arrow type .* has no NESL counterpart"):
        e.wlen(pa.array([1, 2]).dictionary_encode())


def test_error_segments_beyond_values(e):
    s = Segmented([1, 2, 3], offsets=[0, 2, 3])
    assert e.deepsum(Segmented(s, lengths=[2])) == [6]
    with pytest.raises(TypeError, match=r"deepsum: argument 1 \(x\) must be \[\[\[int\]\]\]"):
        e.deepsum(Segmented(np.arange(3), lengths=[3]))


def test_nested_lists_still_accepted(e):
    assert same(e.smxv([[(0, 2.0), (1, -1.0)], [], [(1, 3.0)]], np.array([1.0, 2.0])),
                np.array([0.0, 0.0, 6.0]))
    assert e.shift([(1.0, 2.0)]) == [(2.0, 4.0)]


def test_exports():
    assert nessie.Segmented is Segmented
    assert "Segmented" in dir(nessie)


def test_segmented_helpers():
    inner = Segmented(np.arange(6), lengths=[2, 0, 1, 3])
    s = Segmented(inner, lengths=[3, 1])
    assert len(s) == 2 and s.lengths.tolist() == [3, 1] and s.offsets.tolist() == [0, 3, 4]
    assert s.to_list() == [[[0, 1], [], [2]], [[3, 4, 5]]]
    assert s[1].to_list() == [[3, 4, 5]] and s[-2].to_list() == [[0, 1], [], [2]]
    t = Segmented((np.array([1, 2, 3]), np.array([0.5, 1.5, 2.5])), offsets=[0, 1, 3])
    assert [c.tolist() for c in t[1]] == [[2, 3], [1.5, 2.5]]
    assert t.to_list() == [[(1, 0.5)], [(2, 1.5), (3, 2.5)]]
    assert t == Segmented((np.array([1, 2, 3]), np.array([0.5, 1.5, 2.5])), lengths=[1, 2])
    assert "lengths=[1, 2]" in repr(t)
    with pytest.raises(IndexError):
        t[2]
    assert not s.lengths.flags.writeable


DATA_SRC = """
datatype cloud([(float, float)]);
function size(cloud(ps)) = #ps;
function tag(x) : [(char, int)] -> [(char, int)] = {(c, i + 1) : (c, i) in x};
"""


def test_datatype_field_and_char_tuples(m):
    d = load(DATA_SRC, backend=m.backend, run_toplevel=False)
    assert d.size(nessie.DataVal("cloud", (points(9),))) == 9
    assert d.size(nessie.DataVal("cloud", (points(0),))) == 0
    codes = np.array(["a", "é", "z"])
    ints = np.array([1, 2, 3], np.int32)
    ref = d.tag(list(zip(codes.tolist(), ints.tolist())))
    assert same(d.tag((codes, ints)), ref)
    r = d.function("tag", results="numpy")((codes, ints))
    assert r.dtype.names == ("f0", "f1") and r["f0"].tolist() == ["a", "é", "z"]
    assert same(d.tag(r), d.tag(ref))
    assert d.function("tag", results="arrow")((codes, ints)).to_pylist() == \
        [{"f0": c, "f1": i} for c, i in ref]
    assert ak.to_list(d.function("tag", results="awkward")((codes, ints))) == ref


def test_arrow_tables_and_regular_awkward(m):
    a = points(6)
    ref = m.shift([tuple(p) for p in a.tolist()])
    table = pa.table({"x": a[:, 0], "y": a[:, 1]})
    assert same(m.shift(table), ref)
    assert same(m.shift(pa.record_batch([pa.array(a[:, 0]), pa.array(a[:, 1])],
                                        names=["x", "y"])), ref)
    assert same(m.shift(ak.Array(a)), ref)             # a regular (6, 2) awkward array
    with pytest.raises(TypeError, match=r"must be \[\(float, float\)\]; got awkward Array of "
                                        r"type 6 \* var \* float64"):
        m.shift(ak.from_regular(ak.Array(a)))          # variable-length rows are not tuples
    d = np.arange(24, dtype=np.int32).reshape(2, 3, 4)
    assert same(m.deep(ak.Array(d)), m.deep(d.tolist()))


def test_masked_columns_refused(e):
    with pytest.raises(TypeError, match=r"shift: argument 1 \(p\) must be \[\(float, float\)\]: "
                                        r"p\[0\]: a numpy masked array is not accepted"):
        e.shift((np.ma.masked_array([1.0, 2.0], mask=[0, 1]), np.ones(2)))
    with pytest.raises(ValueError, match=r"wlen: argument 1 \(ws\) .*not valid UTF-8"):
        e.wlen(pa.Array.from_buffers(pa.string(), 1, [None, pa.py_buffer(
            np.array([0, 2], np.int32)), pa.py_buffer(b"a\xc3")]))


def test_compiled_backends_get_flat_vectors_without_copies():
    """A CSR matrix reaches the λcu program as one segment descriptor and two flat vectors, the
    latter the matrix's own arrays (read-only views), with no Python element objects."""
    from lambda_cu.values import SegDes as LSegDes
    s = load(EX / "sparse_mxv.nesl", backend="lcu", run_toplevel=False)
    A = sp.random(40, 30, density=0.2, format="csr", random_state=4)
    A.indices = A.indices.astype(np.int32)
    v = np.ones(30)
    f = s.sparse_mxv
    memo: dict = {}
    fun, ground = f.instance_type([A, v], memo)
    norm = f.convert_args([A, v], ground, memo)
    leaves: list = []
    for a, t in zip(norm, ground):
        s._conv.to_leaves(a, t, leaves)
    sd, cols, vals, vec = leaves
    assert isinstance(sd, LSegDes) and sd.lengths.tolist() == np.diff(A.indptr).tolist()
    assert np.shares_memory(cols, A.indices) and np.shares_memory(vals, A.data)
    assert np.shares_memory(vec, v)
    assert not cols.flags.writeable and A.indices.flags.writeable
    assert np.allclose(f(A, v), A @ v)
    assert A.indices.flags.writeable                   # the caller's arrays are untouched


def test_segmented_indexing_and_slices():
    from nessie.convert import Segmented
    s = Segmented(np.arange(6), lengths=[1, 2, 0, 3])
    assert s[1].tolist() == [1, 2] and s[-1].tolist() == [3, 4, 5]
    assert s[1:3].to_list() == [[1, 2], []] and s[3:1].to_list() == [] and len(s[2:]) == 2
    assert s[np.int64(0)].tolist() == [0]
    for bad in ("a", 1.5, True, None):
        with pytest.raises(TypeError, match="integers or slices"):
            s[bad]
    with pytest.raises(ValueError, match="step 1"):
        s[::2]
    with pytest.raises(IndexError, match="segment 4 of 4"):
        s[4]
