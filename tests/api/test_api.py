"""The Python API (``nessie.api.load``): NESL functions called on numpy arrays and Python values,
on the reference interpreter and on the flattened λcu program."""
from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest

from nessie.api import DataVal, Module, load
from nessie.diagnostics import CompileErrors, RuntimeNeslError

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "nesl_examples"
BACKENDS = ["interp", "lcu"]


@pytest.fixture(scope="module", params=BACKENDS)
def backend(request):
    return request.param


@pytest.fixture(scope="module")
def dotp(backend):
    return load(EXAMPLES / "dotp.nesl", backend=backend, run_toplevel=False)


@pytest.fixture(scope="module")
def qs(backend):
    return load(str(EXAMPLES / "quicksort.nesl"), backend=backend, run_toplevel=False)


@pytest.fixture(scope="module")
def smxv(backend):
    return load(EXAMPLES / "sparse_mxv.nesl", backend=backend, run_toplevel=False)


SRC = """
datatype complex(float, float);
function cadd(complex(a, b), complex(c, d)) = complex(a + c, b + d);
function swap(p) = let (x, y) = p in (y, x);
function trip(n) = (n, float(n), [n, n]);
function tri(n) = {[0:i] : i in [0:n]};
function words(n) = {"ab" : i in [0:n]};
function tagged(v) = {(x, `c, x > 1) : x in v};
function first3(a, b, c) = a;
function rowsums(m) = {sum(r) : r in m};
function shout(s) = let _ = print_string(s ++ "!") in #s;
function scale(v, k) : ([float], float) -> [float] = {x * k : x in v};
function bits(v) = {not(b) : b in v};
function upper(c) = c == `a;
function wrap(x) = x + max_int;
"""


@pytest.fixture(scope="module")
def misc(backend):
    return load(SRC, backend=backend)


# --------------------------------------------------------------------------- examples
def test_dotp_on_numpy_arrays(dotp):
    r = dotp.dotp(np.array([1, 2, 3]), np.array([4, 5, 6]))
    assert r == 32 and type(r) is int
    r = dotp.dotp(np.array([1.5, 2.5]), np.array([2.0, 4.0]))
    assert r == 13.0 and type(r) is float


def test_dotp_large_random(dotp):
    rng = np.random.default_rng(1)
    a, b = rng.random(5000), rng.random(5000)
    assert dotp.dotp(a, b) == pytest.approx(float(a @ b), rel=1e-12)
    ia, ib = rng.integers(-1000, 1000, 5000), rng.integers(-1000, 1000, 5000)
    assert dotp.dotp(ia, ib) == int(ia @ ib)


def test_dotp_lists_and_empty(dotp):
    assert dotp.dotp([1, 2], [3, 4]) == 11
    assert dotp.dotp([], []) == 0                      # element type defaults to int
    assert dotp.dotp([], np.array([], dtype=float)) == 0.0
    assert dotp.dotp(a=[2.0], b=[3.0]) == 6.0           # keyword arguments


def test_sparse_mxv_rows_of_index_value_pairs(smxv):
    mat = [[(0, 2.0), (1, -1.0)],
           [(0, -1.0), (1, 2.0), (2, -1.0)],
           [(1, -1.0), (2, 2.0), (3, -1.0)],
           [(2, -1.0), (3, 2.0)],
           []]
    vec = np.array([1.0, 2.0, 3.0, 4.0])
    r = smxv.sparse_mxv(mat, vec)
    assert isinstance(r, np.ndarray) and r.dtype == np.float64
    dense = np.zeros((5, 4))
    for i, row in enumerate(mat):
        for j, v in row:
            dense[i, j] = v
    np.testing.assert_allclose(r, dense @ vec)


def test_sparse_mxv_random_matrix(smxv):
    rng = np.random.default_rng(7)
    n = 300
    dense = np.where(rng.random((n, n)) < 0.02, rng.standard_normal((n, n)), 0.0)
    mat = [[(int(j), float(row[j])) for j in np.flatnonzero(row)] for row in dense]
    vec = rng.standard_normal(n)
    np.testing.assert_allclose(smxv.sparse_mxv(mat, vec), dense @ vec, rtol=1e-12, atol=1e-12)


def test_quicksort_polymorphic(qs):
    r = qs.qsort(np.array([8, 14, -8, -9, 5, -9, -3, 0, 17, 19]))
    assert r.dtype == np.int32
    np.testing.assert_array_equal(r, [-9, -9, -8, -3, 0, 5, 8, 14, 17, 19])
    f = qs.qsort(np.array([2.5, -1.0, 3.25, 0.0]))
    assert f.dtype == np.float64
    np.testing.assert_array_equal(f, [-1.0, 0.0, 2.5, 3.25])
    assert qs.qsort("the quick brown fox") == "   bcefhiknooqrtuwx"
    assert qs.qsort([]).tolist() == []
    assert qs.qsort([3, 1, 2]).tolist() == [1, 2, 3]


def test_quicksort_random_against_numpy(qs):
    rng = np.random.default_rng(3)
    a = rng.integers(-10**6, 10**6, 3000)
    np.testing.assert_array_equal(qs.qsort(a), np.sort(a))
    x = rng.standard_normal(2000)
    np.testing.assert_array_equal(qs.qsort(x), np.sort(x))


def test_instances_are_cached(qs):
    qs.qsort(np.array([2, 1]))
    qs.qsort(np.array([4, 3, 5]))
    fn = qs.qsort
    assert fn is qs.function("qsort") is qs["QSORT"]


# --------------------------------------------------------------------------- values
def test_tuples_strings_nested_results(misc):
    assert misc.swap((1, "ab")) == ("ab", 1)
    assert misc.swap((1, 2, 3)) == ((2, 3), 1)          # (a, b) with b = (int, int)
    n, x, v = misc.trip(3)
    assert (n, x) == (3, 3.0) and v.tolist() == [3, 3]
    tri = misc.tri(4)
    assert isinstance(tri, list) and [t.tolist() for t in tri] == [[], [0], [0, 1], [0, 1, 2]]
    assert misc.words(2) == ["ab", "ab"]
    assert misc.tagged(np.array([1, 2])) == [(1, "c", False), (2, "c", True)]
    assert misc.first3(1, (2, 3), [4]) == 1
    assert misc.bits(np.array([True, False])).tolist() == [False, True]
    assert misc.upper("a") is True


def test_nested_arguments(misc):
    assert misc.rowsums(np.arange(6).reshape(2, 3)).tolist() == [3, 12]
    assert misc.rowsums([np.array([1, 2]), np.array([3])]).tolist() == [3, 3]
    assert misc.rowsums([[1.5], [], [2.0, 2.0]]).tolist() == [1.5, 0.0, 4.0]
    assert misc.rowsums([]).tolist() == []


def test_ints_are_accepted_for_floats(misc):
    np.testing.assert_array_equal(misc.scale(np.array([1, 2]), 3), [3.0, 6.0])


def test_datatypes(misc):
    z = misc.cadd(DataVal("complex", (1.0, 2.0)), (3.0, 4.0))
    assert z == DataVal("complex", (4.0, 6.0))


def test_program_output_goes_to_stdout(backend):
    buf = io.StringIO()
    m = load(SRC, backend=backend, stdout=buf)
    assert m.shout("hey") == 3
    assert buf.getvalue() == m.output + "hey!"     # the top level's lines first


def test_top_level_output_goes_to_stdout_too(backend):
    """The top level's printed lines go to ``stdout`` as well as to ``m.output`` -- up to a
    runtime error's, once, before the calls' own output."""
    buf = io.StringIO()
    m = load('x = 1 + 2;\nprint_string("hi");\nfunction pr(s) = print_string(s);', backend=backend,
             stdout=buf)
    m.pr("yo")
    assert m.output == "x = 3 : int\nhi\nit = T : bool\npr = fn : [char] -> bool\n"
    assert buf.getvalue() == m.output + "yo"
    buf = io.StringIO()
    with pytest.raises(RuntimeNeslError):
        load('x = 1 + 2;\ny = [1][5];\nz = 3;', backend=backend, stdout=buf)
    assert buf.getvalue() == "x = 3 : int\n"


@pytest.mark.parametrize("bad", [5, io.BytesIO(), "out.txt"])
def test_stdout_must_be_a_text_stream(bad):
    with pytest.raises(TypeError, match="stdout must be a text stream"):
        load("x = 1;", stdout=bad)


def test_int_width(backend):
    m = load(SRC, run_toplevel=False)
    assert m.wrap(1) == -2147483648
    with pytest.raises(OverflowError, match="does not fit the 32-bit NESL int"):
        m.wrap(2**31)
    m64 = load(SRC, int64=True, run_toplevel=False)
    assert m64.wrap(1) == -(2**63)
    assert m64.wrap(2**31) == 2**31 + 2**63 - 1 - 2**64


def test_toplevel_values_and_output():
    m = load(EXAMPLES / "sparse_mxv.nesl")
    assert m.output.startswith("sparse_mxv = fn : ([[(int, float)]], [float]) -> [float]\n"
                               "mat = [[(0, 2.0), (1, -1.0)],")
    np.testing.assert_array_equal(m.values["vec"], [1.0, 2.0, 3.0, 4.0])
    assert m.values["mat"][0] == [(0, 2.0), (1, -1.0)]
    np.testing.assert_allclose(m.sparse_mxv(m.values["mat"], m.values["vec"]),
                               [0.0, 0.0, 0.0, 5.0])


def test_toplevel_on_lcu_backend():
    ref = load(EXAMPLES / "dotp.nesl")
    m = load(EXAMPLES / "dotp.nesl", backend="lcu")
    assert m.output == ref.output
    assert m.values.keys() == ref.values.keys()


def test_source_text_and_introspection():
    m = load("function inc(x) = x + 1;\nfunction twice(v) = v ++ v;")
    assert isinstance(m, Module) and m.functions == ["inc", "twice"]
    assert m.signature("twice") == "twice : [a] -> [a] :: (a in any)"
    assert repr(m.twice) == "<NESL function twice : [a] -> [a] :: (a in any)>"
    assert m.inc(41) == 42
    assert m.twice([(1, 2.0)]) == [(1, 2.0), (1, 2.0)]
    assert "inc" in dir(m)


def test_functions_using_toplevel_values(backend):
    src = ("k = 10;\n(lo, hi) = (2, [1.5, 2.5]);\nfunction addk(x) = x + k;\n"
           "function span(v) = {x * hi[lo - 2] + float(addk(0)) : x in v};")
    m = load(src, backend=backend)
    assert m.addk(1) == 11
    np.testing.assert_array_equal(m.span(np.array([1.0, 2.0])), [11.5, 13.0])
    with pytest.raises(RuntimeError, match="run_toplevel=True"):
        load(src, backend=backend, run_toplevel=False).addk(1)


def test_lcu_launch_counts(dotp, backend):
    dotp.dotp(np.array([1, 2]), np.array([3, 4]))
    if backend == "lcu":
        assert dotp.launches and sum(dotp.launches.values()) >= 1


def test_fused_dotp_same_result_fewer_launches():
    a, b = np.arange(10), np.arange(10, 20)
    unfused = load(EXAMPLES / "dotp.nesl", backend="lcu", run_toplevel=False)
    fused = load(EXAMPLES / "dotp.nesl", backend="lcu", fuse=True, run_toplevel=False)
    assert fused.dotp(a, b) == unfused.dotp(a, b) == int(a @ b)
    assert sum(fused.launches.values()) <= sum(unfused.launches.values())


def test_fused_lcu_gives_the_same_results():
    m = load(EXAMPLES / "quicksort.nesl", backend="lcu", fuse=True, run_toplevel=False)
    a = np.random.default_rng(0).integers(0, 100, 500)
    np.testing.assert_array_equal(m.qsort(a), np.sort(a))
    s = load(EXAMPLES / "sparse_mxv.nesl", backend="lcu", fuse=True)
    assert s.output == load(EXAMPLES / "sparse_mxv.nesl").output
    np.testing.assert_allclose(s.sparse_mxv([[(0, 1.0), (1, 2.0)], []], [1.0, 1.0]), [3.0, 0.0])


# --------------------------------------------------------------------------- errors
def test_argument_type_errors_name_parameter_and_type(dotp, smxv, qs):
    with pytest.raises(TypeError) as e:
        dotp.dotp(np.array([1, 2]), np.array([1.0, 2.0]))
    assert str(e.value).startswith("dotp: argument 2 (b) must be [int] (the earlier arguments "
                                   "fix the type variables); got numpy array of float64")
    assert "dotp : ([a], [a]) -> a :: (a in number)" in str(e.value)
    with pytest.raises(TypeError, match=r"argument 1 \(a\) must be \[a\] :: \(a in number\); "
                                        r"got int 3"):
        dotp.dotp(3, 4)
    with pytest.raises(TypeError, match=r"argument 2 \(vec\) must be \[float\]; got str 'abc'"):
        smxv.sparse_mxv([[(0, 1.0)]], "abc")
    with pytest.raises(TypeError) as e:
        smxv.sparse_mxv([[(0, 1.0, 3)]], [1.0])
    assert ("argument 1 (mat) must be [[(int, float)]]; got list of 1 list; mat[0][0] is "
            "tuple of 3 (int, float, int), where (int, float) is expected") in str(e.value)


def test_type_class_errors(dotp, qs):
    with pytest.raises(TypeError, match=r"qsort: type variable a must be in ordinal .* "
                                        r"make it bool"):
        qs.qsort([True, False])
    with pytest.raises(TypeError, match="must be in number .* make it \\[char\\]"):
        dotp.dotp(["a"], ["b"])


def test_arity_errors(dotp):
    with pytest.raises(TypeError, match=r"dotp\(\) missing argument: b"):
        dotp.dotp([1])
    with pytest.raises(TypeError, match=r"dotp\(\) takes 2 arguments \(a, b\), 3 given"):
        dotp.dotp([1], [2], [3])
    with pytest.raises(TypeError, match=r"dotp\(\) has no parameter 'c'"):
        dotp.dotp([1], c=[2])


def test_int_range_error(dotp):
    with pytest.raises(OverflowError, match=r"argument 1 \(a\): 1099511627776 does not fit"):
        dotp.dotp(np.array([2**40]), np.array([1]))


def test_runtime_error_is_located(smxv):
    with pytest.raises(RuntimeNeslError) as e:
        smxv.sparse_mxv([[(5, 1.0)]], [1.0])
    assert str(e.value).endswith("RUNTIME ERROR: Sequence reference (a[i]) out of bounds.")
    assert "sparse_mxv.nesl:7:" in str(e.value)


def test_unknown_function(dotp):
    with pytest.raises(AttributeError, match="defines no NESL function 'nosuch'"):
        dotp.nosuch


def test_compile_errors():
    with pytest.raises(CompileErrors) as e:
        load("x = 1 + `c;\ny = [1] ++ [t];")
    assert len(e.value.errors) == 2
    assert "<string>:1:9: error: type mismatch" in e.value.format()


def test_missing_file_and_bad_backend():
    with pytest.raises(FileNotFoundError):
        load("no_such_file.nesl")
    with pytest.raises(ValueError, match="backend"):
        load("x = 1;", backend="gpu")
