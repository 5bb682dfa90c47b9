"""Bug hunt s40, the Python API (``nessie.load``, ``nessie.convert``).

* ``bytes`` (``bytearray``, a 0-d ``S`` array, in lists, tuples and ``Segmented``) were refused
  for ``[char]`` and ``char``: now each byte is a char's code (NESL chars are 8-bit latin-1,
  as a ``str``'s characters are).
* A list of Python ints that numpy reads as floats (one of 2**63 .. 2**64 - 1 among others)
  was a ``TypeError`` saying only "got list of 2 int": now the ``OverflowError`` of any int
  beyond the NESL int.  An int too large for a float said "int too large to convert to float".
* An empty float array (``np.array([])``) was refused for ``[int]``/``[bool]``.
* A sliced Arrow list array or awkward array whose hidden part (outside the slice) holds
  nulls was refused; an empty Arrow array of the null type (``pa.array([])``, the values of
  ``pa.array([[], []])``) was refused; Arrow/awkward string arrays (how ``results="arrow"``/
  ``"awkward"`` write a char column) were refused where chars are expected.
* A U1/S1 numpy char column holding the char of code 0 (numpy shows it as ``''``; a
  ``results="numpy"`` result) was refused with a TypeError naming nothing; a character beyond
  latin-1 in such an array now says which.
* The names ``inspect.signature`` shows (``arg1``, ``lambda_``) were refused as keywords.
* A function parameter (``twice(func, x)``) said "must be a -> a; got int 1": now that the API
  cannot pass functions.
* ``Segmented`` lengths whose int64 sum wraps round were accepted (nonsense segments).
* ``nessie.Module(b"...")`` / ``Module(None)`` leaked AttributeError; a closed ``stdout=``
  stream failed after compiling with "I/O operation on closed file".
* The Lift runtime's argument shape check was two functions with two message styles
  (``(16)`` against ``(16,)``, the "or a flat array" clause for one dimension): one now.
"""
from __future__ import annotations

import inspect

import numpy as np
import pytest

import nessie
from nessie import Segmented

from api_values import plain

BACKENDS = ["interp", "lcu", pytest.param("opencl", marks=pytest.mark.opencl)]

PROG = """
function slen(s) = #s;
function up(s) : [char] -> [char] = {if c == `a then `b else c : c in s};
function code(c) : char -> int = char_code(c);
function idd(x) = x;
function isum(v) : [int] -> int = sum(v);
function fsum(v) : [float] -> float = sum(v);
function bnot(v) : [bool] -> [bool] = {not(b) : b in v};
function nest(v) : [[int]] -> [[int]] = v;
function fl(x) : float -> float = x * 2.0;
function h((a, b), c) = a + b + c;
function k(lambda, def) = lambda - def;
function twice(func, x) = func(func(x));
function inc(x) = x + 1;
"""




@pytest.fixture(scope="module", params=BACKENDS)
def mod(request):
    return nessie.load(PROG, backend=request.param, run_toplevel=False)


@pytest.fixture(scope="module")
def ref():
    return nessie.load(PROG, backend="interp", run_toplevel=False)


# ------------------------------------------------------------------ bytes for [char]
@pytest.mark.parametrize("arg,text", [
    (b"aab", "bbb"), (bytearray(b"xa"), "xb"), (b"", ""), (b"\xe9a\xff", "\xe9b\xff"),
    (np.array(b"ab"), "bb"), ([b"a", b"c"], "bc"), (np.array([b"a", b"z"]), "bz"),
])
def test_bytes_are_a_string(mod, arg, text):
    assert mod.up(arg) == text
    assert mod.slen(arg) == len(text)


def test_bytes_in_nested_values_and_for_a_char(mod, ref):
    assert mod.code(b"a") == 97 == mod.code("a")
    assert mod.code(b"\xff") == 255
    for v in ([b"ab", b"cd"], (1, b"xy"), [b"ab", "c"], Segmented(b"abcd", lengths=[1, 3])):
        assert plain(mod.idd(v)) == plain(ref.idd(v))
    assert mod.idd([b"ab", b"cd"]) == ["ab", "cd"]
    assert mod.idd((1, b"xy")) == (1, "xy")
    assert mod.idd(Segmented(b"abcd", lengths=[1, 3])) == ["a", "bcd"]


def test_bytes_are_not_taken_where_no_string_is_expected(mod):
    with pytest.raises(TypeError, match=r"isum: argument 1 \(v\) must be \[int\]; got bytes"):
        mod.isum(b"ab")
    with pytest.raises(TypeError, match=r"code: argument 1 \(c\) must be char; got bytes b'ab'"):
        mod.code(b"ab")


# ------------------------------------------------------------------ ints and floats
@pytest.mark.parametrize("v", [[1, 2 ** 63], [2 ** 63, 1], [1, 2 ** 64 - 1]])
def test_ints_numpy_reads_as_floats_overflow(mod, v):
    with pytest.raises(OverflowError, match=rf"isum: argument 1 \(v\): {max(v)} does not fit the "
                                            rf"32-bit NESL int"):
        mod.isum(v)
    with pytest.raises(OverflowError, match=rf"nest: argument 1 \(v\): {max(v)} does not fit"):
        mod.nest([v])
    with pytest.raises(OverflowError, match=rf"idd: argument 1 \(x\): {max(v)} does not fit"):
        mod.idd(v)
    assert mod.fsum(v) == float(sum(v))          # where floats are expected they are floats


def test_int_too_large_for_a_float(mod):
    with pytest.raises(OverflowError) as e:
        mod.fl(10 ** 400)
    assert str(e.value) == ("fl: argument 1 (x): an int of 401 digits does not fit the NESL "
                            "float (a 64-bit double, at most about 1.8e308)")
    with pytest.raises(OverflowError, match=r"fsum: argument 1 \(v\): an int of 401 digits"):
        mod.fsum([1.0, 10 ** 400])


def test_empty_float_arrays_are_empty_sequences_of_any_scalar(mod):
    assert mod.isum(np.array([])) == 0
    assert mod.bnot(np.array([])).tolist() == []
    assert mod.bnot(np.array([])).dtype == np.bool_
    assert plain(mod.nest(np.zeros((2, 0)))) == [[], []]
    assert plain(mod.nest([np.array([])])) == [[]]
    assert mod.up(np.array([])) == ""
    with pytest.raises(TypeError, match=r"isum: argument 1 \(v\) must be \[int\]; got numpy "
                                        r"array of float64 with shape \(1,\)"):
        mod.isum(np.array([1.0]))       # a float element is still no int


# ------------------------------------------------------------------ Arrow and awkward slices
def test_sliced_arrow_list_array_with_nulls_outside_the_slice(mod):
    pa = pytest.importorskip("pyarrow")
    assert plain(mod.nest(pa.array([[None], [2, 3]]).slice(1))) == [[2, 3]]
    assert plain(mod.nest(pa.array([[1], [2, None]]).slice(0, 1))) == [[1]]
    assert plain(mod.idd(pa.array([["a", None], ["b"]]).slice(1))) == [["b"]]
    assert plain(mod.idd(pa.array([[[1, None]], [[2]]]).slice(1))) == [[[2]]]
    assert plain(mod.nest(pa.array([[1], [2, 3]]).slice(1, 0))) == []
    with pytest.raises(ValueError, match=r"nest: argument 1 \(v\) must be \[\[int\]\]: "
                                         r"v.values: the Arrow array has 1 missing values"):
        mod.nest(pa.array([[1], [2, None], [3]]).slice(1))      # a null inside the slice


def test_sliced_awkward_array_with_none_outside_the_slice(mod):
    ak = pytest.importorskip("awkward")
    assert plain(mod.nest(ak.Array([[1, None], [2, 3]])[1:])) == [[2, 3]]
    assert plain(mod.nest(ak.Array([[1], [2, 3], [None]])[:2])) == [[1], [2, 3]]
    assert plain(mod.idd(ak.Array([["a"], ["b", None]])[:1])) == [["a"]]
    with pytest.raises(ValueError, match="the awkward array has 1 missing values"):
        mod.nest(ak.Array([[1], [2, None]])[1:])


# ------------------------------------------------------------------ keywords and functions
def test_signature_names_are_keywords(mod):
    assert str(inspect.signature(mod.h)) == "(arg1, c)"
    assert mod.h(arg1=(1, 2), c=3) == 6
    assert mod.k(lambda_=5, def_=2) == 3
    assert mod.k(**{"lambda": 5, "def": 2}) == 3
    bound = inspect.signature(mod.k).bind(lambda_=7, def_=1)
    assert mod.k(*bound.args, **bound.kwargs) == 6
    with pytest.raises(TypeError, match=r"k\(\) got two values for parameter 'lambda_'"):
        mod.k(1, lambda_=2)
    with pytest.raises(TypeError, match=r"k\(\) has no parameter 'lambda__'"):
        mod.k(lambda__=1, def_=2)


@pytest.mark.parametrize("arg", ["inc", None, 1])
def test_function_parameter_is_refused_clearly(mod, arg):
    with pytest.raises(TypeError) as e:
        mod.twice(arg if arg is not None else mod.inc, 1)
    msg = str(e.value)
    assert msg.startswith("twice: argument 1 (func) is a function, which the Python API cannot "
                          "pass (got ")
    assert msg.endswith("call a NESL function that calls twice with a function named in NESL "
                        "(signature twice : (b -> b, b) -> b :: (a in any; b in any))")


# ------------------------------------------------------------------ the Lift runtime's shape check
@pytest.mark.opencl
def test_lift_shape_check_has_one_message_style():
    from lift_backend import LiftArgumentError, compile_program, parse
    from lift_backend.runtime import get_runtime
    rt = get_runtime()
    add = "userfun add(a: float, b: float): float { return a + b; }\n"
    k = compile_program(parse(add + "program t(x: [float]N, m: [i -> [float](i + 1)]K) = join o "
                                    "mapGlb(0)(toGlobal(mapSeq(id)) o reduceSeq(add, 0.0f)) $ m")
                        .program("t"))
    x = np.ones((2, 8), np.float32)
    # K undetermined (7 elements make no triangle): checked before the sizes are all known
    with pytest.raises(LiftArgumentError) as e:
        rt.run(k, {"x": x, "m": np.ones(7, np.float32)}, global_size=4)
    assert e.value.message == ("argument x: the shape (2, 8) does not fit the type [float]N: "
                               "expected the shape (16,) (with N=16)")
    # every size known: checked as the argument is read, in the same words
    with pytest.raises(LiftArgumentError) as e:
        rt.run(k, {"x": x, "m": np.ones(10, np.float32)}, global_size=4)
    assert e.value.message == ("argument x: the shape (2, 8) does not fit the type [float]N: "
                               "expected the shape (16,) (with K=4, N=16)")
    rows = compile_program(parse(add + "program r(x: [[float]M]N) = join o mapGlb(0)("
                                       "toGlobal(mapSeq(id)) o reduceSeq(add, 0.0f)) $ x").program("r"))
    with pytest.raises(LiftArgumentError) as e:
        rt.run(rows, {"x": np.ones((2, 3, 1), np.float32)}, global_size=2)
    assert e.value.message == ("argument x: the shape (2, 3, 1) does not fit the type [[float]M]N: "
                               "expected the shape (N, M) or a flat array of its elements")
    with pytest.raises(LiftArgumentError) as e:
        rt.run(rows, {"x": np.ones((8, 2), np.float32)}, sizes={"M": 8, "N": 2}, global_size=2)
    assert e.value.message == ("argument x: the shape (8, 2) does not fit the type [[float]M]N: "
                               "expected the shape (2, 8) (with M=8, N=2) or a flat array of its "
                               "elements")


# ------------------------------------------------------------------ Arrow null type, char columns
def test_empty_arrow_arrays_of_the_null_type_are_empty_sequences(mod):
    pa = pytest.importorskip("pyarrow")
    assert mod.isum(pa.array([])) == 0
    assert plain(mod.nest(pa.array([[], []]))) == [[], []]
    assert mod.up(pa.array([])) == ""
    with pytest.raises(ValueError, match="the Arrow array has 2 missing values"):
        mod.isum(pa.array([None, None]))


CHARS = """
function tc(v) : [(int, char)] -> [(int, char)] = {(a + 1, if c == `a then `b else c) : (a, c) in v};
function cs(v) : [char] -> [char] = v;
function idd(v) = v;
"""


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fmt", ["arrow", "awkward"])
def test_arrow_and_awkward_char_columns_go_back_in(backend, fmt):
    """Arrow and awkward have no char type: a char column comes out as strings of one
    character, and goes back in where chars are expected."""
    pytest.importorskip("pyarrow" if fmt == "arrow" else "awkward")
    m = nessie.load(CHARS, backend=backend, run_toplevel=False)
    f = m.function("tc", results=fmt)
    out = f([(1, "a"), (2, "\xe9")])
    assert m.tc(out) == [(3, "b"), (4, "\xe9")]
    again = f(out)
    rows = again.to_pylist() if fmt == "arrow" else again.to_list()
    assert [tuple(r.values()) if isinstance(r, dict) else tuple(r) for r in rows] == \
        [(3, "b"), (4, "\xe9")]
    assert m.cs(m.function("cs", results=fmt)("ab")) == "ab"


def test_string_arrays_for_chars(mod):
    pa = pytest.importorskip("pyarrow")
    ak = pytest.importorskip("awkward")
    assert mod.up(pa.array(["a", "x", "a"])) == "bxb"
    assert mod.up(pa.array(["c", "a"]).slice(1)) == "b"
    assert mod.up(ak.Array(["a", "y"])) == "by"
    assert mod.idd(pa.array(["a", "b"])) == ["a", "b"]       # a type variable: strings
    with pytest.raises(TypeError, match=r"up: argument 1 \(s\) must be \[char\]; got pyarrow "
                                        r"StringArray"):
        mod.up(pa.array(["a", "bc"]))                        # not one character each


def test_closed_stdout_is_refused_before_compiling():
    import io
    s = io.StringIO()
    s.close()
    with pytest.raises(ValueError, match=r"^stdout is a closed StringIO: pass an open text "
                                         r"stream$"):
        nessie.load("1;", backend="interp", stdout=s)


def test_segment_lengths_whose_sum_wraps_round_are_refused(mod):
    big = 2 ** 63 - 1
    with pytest.raises(ValueError, match=r"^Segmented: the lengths add up to 18446744073709551616, "
                                         r"more than there can be values \(2\*\*63 - 1\)$"):
        Segmented([], lengths=[big, big, 2])          # wrapped to 0, the number of values
    with pytest.raises(ValueError, match=r"the lengths add up to 18446744073709551619"):
        Segmented(np.arange(3), lengths=np.array([big, big, 2, 3]))
    assert plain(mod.nest(Segmented(np.arange(3), lengths=[0, 3, 0]))) == [[], [0, 1, 2], []]


@pytest.mark.parametrize("source", [b"1;", None, 3, ["1;"]])
def test_module_of_something_that_is_not_source_text(source):
    with pytest.raises(TypeError, match=rf"^Module\(\) wants NESL source text \(a str\), not "
                                         rf"{type(source).__name__}: nessie.load\(path\) reads a "
                                         rf"file$"):
        nessie.Module(source, backend="interp")
    assert nessie.Module("1;", backend="interp").output == "it = 1 : int\n"


def test_numpy_char_column_with_code_0_goes_back_in(mod):
    """numpy shows the char of code 0 as '' in a U1/S1 array: a results="numpy" char column
    holding it was refused as an argument (a TypeError naming nothing)."""
    src = ("function tc(v) : [(int, char)] -> [(int, char)] = v;\n"
           "function mk(n) = {(i, code_char(i)) : i in [0:n]};\n")
    m = nessie.load(src, backend="interp", run_toplevel=False)
    col = m.function("mk", results="numpy")(3)
    assert col["f1"].tolist() == ["", "\x01", "\x02"]
    assert m.tc(col) == [(0, "\x00"), (1, "\x01"), (2, "\x02")]
    assert mod.up(np.array(["a", "\x00", "b"])) == "b\x00b"
    assert mod.up(np.array([b"a", b""])) == "b\x00"
    with pytest.raises(ValueError) as e:
        mod.up(np.array(["a", "\u0100"]))
    assert str(e.value) == ("up: argument 1 (s) must be [char]: s: the array has the character "
                            "'\u0100' (U+0100), which a NESL char (8 bits, latin-1: codes 0..255) "
                            "cannot hold")


@pytest.mark.parametrize("path", ["prog.NESL", "no/such/dir/prog", "no_such_dir/prog.txt"])
def test_a_missing_file_is_said_to_be_one(path):
    """A one-line string no NESL program can be, naming a file, was compiled as source
    (``prog.NESL``: ``illegal character '.'``)."""
    with pytest.raises(FileNotFoundError, match=rf"no such NESL file: '{path}'"):
        nessie.load(path, backend="interp")
    for source, out in [("3;", "it = 3 : int\n"), ("% c %", ""), ("1 $", "it = 1 : int\n")]:
        assert nessie.load(source, backend="interp").output == out
    with pytest.raises(nessie.CompileErrors, match="unexpected end of input"):
        nessie.load("1.5", backend="interp")             # no file name: source text
