"""Python lists given to the API: the fast paths of argument conversion (issue 9).

Once a list's element type is ground, ``TypeOf`` checks the other elements a level of the type
at a time (``_fits_all``) and the conversion takes a list of flat tuples as columns
(``_list_columns``) and a list of lists as one segmented form.  These are fast paths only:
every value gets the result and every misfit the message (with the path of the offending
element) that the element-by-element check gives."""
from __future__ import annotations

import numpy as np
import pytest

from nessie import Segmented
from nessie.api import load
from test_columnar import same     # byte-identical results (floats bit for bit)

SRC = """
function shift(p) : [(float, float)] -> [(float, float)] = {(x + 1.0, y * 2.0) : (x, y) in p};
function smxv(mat, vec) : ([[(int, float)]], [float]) -> [float] =
  {sum({v * vec[i] : (i, v) in row}) : row in mat};
function deep(x) : [[[int]]] -> [[[int]]] = {{{y + 1 : y in b} : b in a} : a in x};
function trip(x) : [(int, bool, float)] -> [(int, bool, float)] =
  {(i + 1, not(b), g * 3.0) : (i, b, g) in x};
function pairs(x) : [(int, (float, bool))] -> [(int, (float, bool))] = x;
function idf(x) = x;
function words(ws) : [[char]] -> [[char]] =
  {{if c == `a then `b else c : c in w} : w in ws};
"""

BACKENDS = ["interp", "lcu", pytest.param("opencl", marks=pytest.mark.opencl)]


@pytest.fixture(scope="module", params=BACKENDS)
def m(request):
    return load(SRC, backend=request.param, run_toplevel=False)


@pytest.fixture(scope="module")
def e():
    return load(SRC, backend="lcu", run_toplevel=False)


def test_list_of_tuples_as_the_array(m):
    a = np.random.default_rng(3).normal(size=(1001, 2))
    assert same(m.shift([tuple(p) for p in a.tolist()]), m.shift(a))


def test_list_of_tuples_mixed_scalar_kinds(m):
    # ints and numpy scalars where floats are expected, numpy bools where bools are
    got = m.shift([(1.0, 2.0), (1, 2), (np.float32(1.5), np.int8(3))])
    assert got == [(2.0, 4.0), (2.0, 4.0), (2.5, 6.0)]
    got = m.trip([(1, True, 2.0), (2, np.bool_(False), 3), (np.int64(5), False, np.float64(1))])
    assert got == [(2, False, 6.0), (3, True, 9.0), (6, True, 3.0)]


def test_list_of_lists_as_the_segmented_form(m):
    rng = np.random.default_rng(4)
    lens = rng.integers(0, 6, 300)
    rows = [[(int(c), float(v)) for c, v in zip(rng.integers(0, 50, k), rng.random(k))]
            for k in lens]
    cols = np.array([c for r in rows for c, _ in r], np.int32)
    vals = np.array([v for r in rows for _, v in r])
    vec = rng.random(50)
    assert same(m.smxv(rows, vec.tolist()), m.smxv(Segmented((cols, vals), lengths=lens), vec))
    assert same(m.smxv([[], []], [1.0]), m.smxv(Segmented((np.zeros(0, np.int32),
                                                            np.zeros(0)), lengths=[0, 0]),
                                                 np.ones(1)))


def test_three_levels_and_empty_lists(m):
    x = [[[1, 2], []], [[3]], [], [[]]]
    assert same(m.deep(x), m.deep(Segmented(Segmented(np.array([1, 2, 3]), lengths=[2, 0, 1, 0]),
                                         lengths=[2, 1, 0, 1])))
    assert [[list(b) for b in a] for a in m.deep(x)] == [[[2, 3], []], [[4]], [], [[]]]


def test_nested_pairs_and_strings(m):
    want = [(1, 2.0, True), (2, 3.0, False)]
    assert m.pairs([(1, (2.0, True)), (2, (3.0, False))]) == want
    assert m.pairs([(1, 2.0, True), (2, (3.0, False))]) == want     # shapes mixed
    assert m.words(["abc", "", "xa"]) == ["bbc", "", "xb"]
    assert m.words([["a", "b"], "cd"]) == ["bb", "cd"]


@pytest.mark.parametrize("fn, arg, where", [
    ("shift", [(1.0, 2.0)] * 5 + [(1.0, "a")], r"p\[5\]\[1\] is str 'a', where float"),
    ("shift", [(1.0, 2.0), (True, 2.0)], r"p\[1\]\[0\] is bool True, where float"),
    ("shift", [(1.0, 2.0), (1.0, 2.0, 3.0)], r"p\[1\] is tuple of 3"),
    ("shift", [(1.0, 2.0), [1.0, 2.0]], r"p\[1\] is list of 2 float"),
    ("shift", [(1.0, 2.0), None], r"p\[1\] is NoneType None"),
    ("trip", [(1, True, 2.0), (2, 1, 3)], r"x\[1\]\[1\] is int 1, where bool"),
    ("deep", [[[1, 2], []], [[3, 4.0]]], r"x\[1\]\[0\]\[1\] is float 4.0, where int"),
    ("deep", [[[1, 2], []], [[3, [4]]]], r"x\[1\]\[0\]\[1\] is list of 1 int, where int"),
    ("words", [["a", "bb"], ["c"]], r"ws\[0\]\[1\] is str 'bb', where char"),
    # (ints and floats mixed are floats: tests/api/test_hunt_s38.py; bools never mix)
    ("idf", [1, True], r"x\[1\] is bool True, where int"),
    ("idf", [[1], [True]], r"x\[1\]\[0\] is bool True, where int"),
])
def test_misfit_names_the_element(e, fn, arg, where):
    with pytest.raises(TypeError, match=where):
        getattr(e, fn)(arg)


def test_misfit_in_a_matrix_row(e):
    with pytest.raises(TypeError, match=r"mat\[2\]\[1\]\[1\] is bool True, where float"):
        e.smxv([[(0, 1.0), (1, 2.0)], [], [(1, 3.5), (0, True)]], [1.0, 2.0])
    with pytest.raises(TypeError, match=r"mat\[1\]\[0\]\[0\] is float 1.5, where int"):
        e.smxv([[(0, 1.0)], [(1.5, 2.0)]], [1.0, 2.0])


def test_int_range_in_a_list_of_tuples(e):
    with pytest.raises(OverflowError, match=r"smxv: argument 1 \(mat\): 1099511627776 does not "
                                            r"fit the 32-bit NESL int"):
        e.smxv([[(0, 1.0)], [(2 ** 40, 2.0)]], [1.0, 2.0])
    with pytest.raises(OverflowError, match=r"1180591620717411303424 does not fit"):
        e.smxv([[(0, 1.0)], [(2 ** 70, 2.0)]], [1.0, 2.0])


def test_self_containing_lists(e):
    a: list = []
    a.append(a)
    with pytest.raises(ValueError, match=r"x\[0\] is x itself"):
        e.idf(a)
    with pytest.raises(ValueError, match=r"x\[1\]\[0\] is x\[1\] itself"):
        e.idf([[1], a])
