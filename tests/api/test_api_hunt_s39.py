"""Bug hunt s39.  The Python API: an n-d numpy array with a zero-length inner dimension after
a non-zero one (``np.zeros((2, 3, 0))`` crashed in numpy's reshape), ``inspect.signature`` of a
function whose parameter is a tuple pattern or a Python keyword (``ValueError: '(a, b)' is not
a valid parameter name``), and 1-d numpy object arrays of sequences, of floats and of bools
(accepted by the typing, then refused by the conversion with a TypeError)."""
from __future__ import annotations

import inspect

import numpy as np
import pytest

import nessie

from api_values import plain

BACKENDS = ["interp", "lcu", pytest.param("opencl", marks=pytest.mark.opencl)]

PROG = """
function idd(x) = x;
function segsum(s) = {sum(r) : r in s};
function strs(ss) = {reverse(s) : s in ss};
function fl(s) = {x * 2.0 : x in s};
function neg(b) = {not(x) : x in b};
function h((a, b), c) = a + b + c;
function k(lambda, def) = lambda - def;
"""




@pytest.fixture(scope="module", params=BACKENDS)
def mod(request):
    return nessie.load(PROG, backend=request.param)


@pytest.mark.parametrize("shape", [(2, 3, 0), (2, 2, 0, 1), (1, 0), (0, 3, 0)])
def test_nd_array_with_an_empty_inner_dimension(mod, shape):
    a = np.zeros(shape, np.int64)
    assert plain(mod.idd(a)) == a.tolist()
    assert plain(mod.function("idd", results="numpy")(a)) == a.tolist()


def test_signature_of_tuple_pattern_and_keyword_parameters(mod):
    assert str(inspect.signature(mod.h)) == "(arg1, c)"
    assert str(inspect.signature(mod.k)) == "(lambda_, def_)"
    assert mod.h.params == ["(a, b)", "c"]
    assert mod.h((1, 2), c=3) == 6
    assert mod.k(**{"lambda": 5, "def": 2}) == 3       # still passed by the NESL names
    assert str(inspect.signature(mod.segsum)) == "(s)"


def test_object_arrays_of_sequences(mod):
    rag = np.empty(2, object)
    rag[0], rag[1] = [1, 2], [3]
    assert mod.segsum(rag).tolist() == [3, 3]
    rag[0], rag[1] = np.array([1, 2]), np.array([3, 4, 5])
    assert mod.segsum(rag).tolist() == [3, 12]
    assert mod.segsum(np.array([[1, 2], [3, 4]], dtype=object)).tolist() == [3, 7]
    assert plain(mod.strs(np.array(["ab", "", "c"], dtype=object))) == ["ba", "", "c"]
    assert plain(mod.idd(np.array([[1, 2.0], [3, 4.0]], dtype=object))) == [[1.0, 2.0],
                                                                             [3.0, 4.0]]


def test_object_arrays_of_floats_and_bools(mod):
    assert mod.fl(np.array([1.0, 2], dtype=object)).tolist() == [2.0, 4.0]
    assert mod.fl(np.array([np.float32(1.5), np.int8(2)], dtype=object)).tolist() == [3.0, 4.0]
    r = mod.neg(np.array([True, False], dtype=object))
    assert r.dtype == np.bool_ and r.tolist() == [False, True]


def test_object_arrays_still_checked(mod):
    with pytest.raises(TypeError, match=r"fl: argument 1 \(s\) must be \[float\].*s\[1\] is "
                                        r"bool True"):
        mod.fl(np.array([1.0, True], dtype=object))
    with pytest.raises(TypeError, match=r"s\[1\] is str '2'"):
        mod.fl(np.array([1.0, "2"], dtype=object))
    with pytest.raises(TypeError, match=r"b\[1\] is int 1, where bool is expected"):
        mod.neg(np.array([True, 1], dtype=object))
    rag = np.empty(2, object)
    rag[0], rag[1] = [1], None
    with pytest.raises(TypeError, match=r"x\[1\] is NoneType None"):
        mod.idd(rag)
