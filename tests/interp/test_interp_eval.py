"""End-to-end tests of the evaluator: NESL source -> parse -> typecheck -> mono -> run."""
from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from nessie.diagnostics import RuntimeNeslError
from nessie.interp.eval import call_function, run_source
from nessie.interp.values import Semantics, Seq

EXAMPLES = Path(__file__).resolve().parents[2] / "nesl_examples"


def run(text: str, **kwargs) -> str:
    out = io.StringIO()
    run_source(text, "<test>", out=out, **kwargs)
    return out.getvalue()


def lines(text: str, **kwargs) -> list[str]:
    return run(text, **kwargs).splitlines()


def results(text: str, **kwargs) -> list[str]:
    """The values of the ``it = VALUE : TYPE`` lines."""
    return [re.match(r"it = (.*) : .*$", line).group(1)
            for line in lines(text, **kwargs) if line.startswith("it = ")]


def test_nesl_md_printing_examples_end_to_end():
    program = """
    function add1(x) = x + 1;
    function dotp(a, b) = sum({x * y : x in a; y in b});
    function fst(a, b) = a;
    z = 4;
    (p, q) = (1, 2);
    [(1, 2.5), (3, 4.0)];
    ((1, 2), 3);
    (1, 2, 3);
    [[1, 2], [3]];
    [] int;
    `a;
    [t, f];
    "abc";
    1.0 / 3.0;
    1.0e20;
    2.5e-7;
    1.0e10;
    [0:200];
    """
    assert lines(program) == [
        "add1 = fn : int -> int",
        "dotp = fn : ([a], [a]) -> a :: (a in number)",
        "fst = fn : (a, b) -> a :: (a in any; b in any)",
        "z = 4 : int",
        "(p, q) = (1, 2) : int, int",
        "it = [(1, 2.5), (3, 4.0)] : [(int, float)]",
        "it = ((1, 2), 3) : (int, int), int",
        "it = (1, 2, 3) : int, int, int",
        "it = [[1, 2], [3]] : [[int]]",
        "it = [] : [int]",
        "it = `a : char",
        "it = [T, F] : [bool]",
        'it = "abc" : [char]',
        "it = 0.333333333333333 : float",
        "it = 1.0E20 : float",
        "it = 2.5E-7 : float",
        "it = 1.0E10 : float",
        # longer than the original's 120 columns: wrapped as it wraps it
        "it = ",
        "  [" + ", ".join(str(i) for i in range(100)) + ",...]",
        "   : [int]",
    ]


def test_let_if_and_patterns():
    assert results("""
    let (a, b, c) = (1, 2.5, `x); d = a + 1 in (d, c);
    let x = 1; x = x + 10 in x;
    if 3 > 2 then "yes" else "no";
    let _ = 5; (u, (v, w)) = (1, (2, 3)) in u + v * w;
    """) == ["(2, `x)", "11", '"yes"', "7"]


def test_apply_to_each_forms():
    assert results("""
    {a + b : a in [1, 2, 3]; b in [10, 20, 30]};
    {a + b : a in [1, 2, 3]; b in [10, 20, 30] | a /= 2};
    {x in [1, 2, 3, 4] | evenp(x)};
    let x = [1, 2, 3]; y = [4, 5, 6] in {x + y : x; y};
    {(i, c) : i in [0:3]; c in "abc"};
    {{x * y : x in [1:y]} : y in [1:4]};
    {x : (x, y) in [(1, 2.0), (3, 4.0)]};
    {10 / x : x in [0, 1, 2] | x > 0};
    {x : x in [] int};
    """) == ["[11, 22, 33]", "[11, 33]", "[2, 4]", "[5, 7, 9]",
             "[(0, `a), (1, `b), (2, `c)]", "[[], [2], [3, 6]]", "[1, 3]", "[10, 5]", "[]"]


def test_sequences_and_ranges():
    assert results("""
    [[1], [] int, [2]];
    [0:10:3];
    [5:0:-2];
    [3:3];
    [1, 2] ++ [3];
    #[4, 5, 6];
    [4, 5, 6][1];
    "length " ++ @(#"abc");
    """) == ["[[1], [], [2]]", "[0, 3, 6, 9]", "[5, 3, 1]", "[]", "[1, 2, 3]", "3", "5",
             '"length 3"']


def test_user_functions_recursion_and_globals():
    assert results("""
    function fib(n) = if n < 2 then n else fib(n - 1) + fib(n - 2);
    {fib(n) : n in [0:10]};
    k = 3;
    function addk(x) = x + k;
    addk(1);
    function ackermann(m, n) =
      if m == 0 then n + 1
      else if n == 0 then ackermann(m - 1, 1)
      else ackermann(m - 1, ackermann(m, n - 1));
    ackermann(2, 3);
    """) == ["[0, 1, 1, 2, 3, 5, 8, 13, 21, 34]", "4", "9"]


def test_polymorphic_functions_at_several_instances():
    assert results("""
    function dotp(a, b) = sum({x * y : x in a; y in b});
    dotp([1, 2, 3], [4, 5, 6]);
    dotp([1.5, 2.5], [2.0, 4.0]);
    dotp([] int, [] int);
    dotp([] float, [] float);
    function biggest(s) = max_val(s);
    (biggest([] int), biggest([] float), biggest("nesl"));
    """) == ["32", "13.0", "0", "0.0", "(-2147483648, -inf, `s)"]


def test_datatypes_and_constructor_patterns():
    out = lines("""
    datatype complex(float, float);
    function cadd(complex(a, b), complex(c, d)) = complex(a + c, b + d);
    cadd(complex(1.0, 2.0), complex(0.5, 0.5));
    c = complex(1.0, 2.0);
    [c, c];
    @c;
    let complex(re, im) = c in re * im;
    """)
    assert out == [
        "complex = fn : (float, float) -> complex",     # the constructor's line (issue 10)
        "cadd = fn : (complex, complex) -> complex",
        "it = complex(1.5, 2.5) : complex",
        "c = complex(1.0, 2.0) : complex",
        "it = [complex(1.0, 2.0), complex(1.0, 2.0)] : [complex]",
        'it = "complex(1.0, 2.0)" : [char]',
        "it = 2.0 : float",
    ]


def test_parametric_datatypes():
    assert lines("""
    datatype pt(a, a) :: (a in number);
    function norm1(pt(x, y)) = abs(x) + abs(y);
    norm1(pt(3, -4));
    norm1(pt(1.5, 2.0));
    {pt(x, x * 2) : x in [1:4]};
    """) == [
        "pt = fn : (a, a) -> pt(a) :: (a in number)",
        "norm1 = fn : pt(a) -> a :: (a in number)",
        "it = 7 : int",
        "it = 3.5 : float",
        "it = [pt(1, 2), pt(2, 4), pt(3, 6)] : [pt(int)]",
    ]


def test_time_returns_value_and_seconds():
    (line,) = results("time(sum([0:1000]));")
    m = re.fullmatch(r"\(499500, (.*)\)", line)
    assert m and float(m.group(1).replace("E", "e")) >= 0.0


def test_output_is_interleaved_with_result_lines():
    assert lines("""
    1;
    print_string("hello");
    print_string("one" ++ [newline] ++ "two" ++ [newline]);
    2;
    """) == ["it = 1 : int", "hello", "it = T : bool", "one", "two", "it = T : bool",
             "it = 2 : int"]


def test_set_print_length():
    assert results("set print_length 3; [1, 2, 3, 4]; [1, 2, 3];") == ["[1, 2, 3,...]", "[1, 2, 3]"]


def test_int_wraps_to_the_word_size():
    assert results("max_int + 1; 65536 * 65536;") == ["-2147483648", "0"]
    assert results("max_int + 1; 65536 * 65536;", sem=Semantics(int_bits=64)) == \
        ["-9223372036854775808", "4294967296"]


def _error(text: str):
    out = io.StringIO()
    with pytest.raises(RuntimeNeslError) as info:
        run_source(text, "<test>", out=out)
    return info.value, out.getvalue().splitlines()


def test_runtime_error_stops_after_the_lines_printed():
    err, printed = _error("1;\n2;\n[1, 2, 3][5];\n4;\n")
    assert printed == ["it = 1 : int", "it = 2 : int"]
    assert err.message == "RUNTIME ERROR: Sequence reference (a[i]) out of bounds."
    assert (err.span.line, err.span.col) == (3, 1)


def test_length_mismatch_in_apply_to_each_has_its_span():
    err, _ = _error("x = 1;\n  {a + b : a in [1, 2]; b in [1, 2, 3]};\n")
    assert err.message == "RUNTIME ERROR: Length mismatch in an apply-to-each."
    assert (err.span.line, err.span.col) == (2, 3)


def test_divide_by_zero_inside_a_function():
    err, printed = _error("function g(x) = 10 / x;\n{g(x) : x in [2, 1, 0]};\n")
    assert printed == ["g = fn : int -> int"]
    assert err.message == "RUNTIME ERROR: Divide by zero."
    assert (err.span.line, err.span.col) == (1, 17)


def test_zero_stride_range_is_an_error():
    err, _ = _error("[0:10:0];")
    assert err.message == "RUNTIME ERROR: Divide by zero."


def test_deep_recursion():
    # count_down(n) is n + 1 calls: exactly the limit of active calls (NESSIE_MAX_CALL_DEPTH)
    from nessie.limits import MAX_CALL_DEPTH
    n = MAX_CALL_DEPTH - 1
    assert results(f"""
    function count_down(n) = if n == 0 then 0 else 1 + count_down(n - 1);
    count_down({n});
    """) == [str(n)]


def test_quicksort_of_ten_thousand_elements():
    out = results("""
    function qsort(a) =
      if (#a < 2) then a
      else
        let pivot   = a[#a / 2];
            lesser  = {e in a | e < pivot};
            equal   = {e in a | e == pivot};
            greater = {e in a | e > pivot};
            result  = {qsort(v) : v in [lesser, greater]}
        in result[0] ++ equal ++ result[1];
    data = {rand(i) : i in dist(1000000, 10000)};
    s = qsort(data);
    (#s, all({x <= y : x in take(s, #s - 1); y in drop(s, 1)}), eql(s, sort(data)));
    """)
    assert out == ["(10000, T, T)"]


def test_rand_is_deterministic_across_runs():
    program = "{rand(i) : i in dist(100, 20)}; {rand(x) : x in dist(1.0, 3)};"
    assert run(program) == run(program)


def test_call_function_after_a_run():
    interp = run_source("function sq(x) : int -> int = x * x;", "<test>", out=io.StringIO())
    assert call_function(interp, "sq", 7) == 49
    assert interp.globals == {}


EXPECTED_EXAMPLE_LINES = {
    "dotp.nesl": ["it = 32 : int", "it = 13.0 : float", "it = 0 : int", "it = 2.49975E7 : float"],
    "primes.nesl": ["it = [2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47] : [int]",
                    "it = 9592 : int"],
    "nested.nesl": ["it = [0, 0, 1, 3, 6, 10] : [int]", "it = [[2, 4], [], [6], []] : [[int]]",
                    "it = 161700 : int"],
    "sparse_mxv.nesl": ["it = [0.0, 0.0, 0.0, 5.0] : [float]", "it = [6.0, 0.0, 10.0] : [float]"],
    "mxv.nesl": ["it = [-2, -2, -2, -2] : [int]", "it = [5, 4, 3, 2, 1] : [int]"],
    "quicksort.nesl": ["it = [-9, -9, -8, -3, 0, 5, 8, 14, 17, 19] : [int]", "it = [] : [int]"],
    "strings.nesl": ['it = ["nested", "data", "parallelism", "is", "fun"] : [[char]]',
                     "it = [4, 3, 2, 0, 1] : [int]", 'it = "desserts" : [char]'],
    "histogram.nesl": ["it = [0, 2, 1, 2, 1, 3, 1, 0, 0, 1] : [int]", "it = T : bool",
                       "it = 500 : int"],
    "fib_map.nesl": ["it = [144, 0, 2, 1, 13] : [int]"],
}


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.nesl")), ids=lambda p: p.name)
def test_nesl_examples_run(path):
    out = io.StringIO()
    run_source(path.read_text(), str(path), out=out)
    # a long result wraps as the original's does (whitespace around the break is not
    # significant): join its lines
    printed = re.sub(r" *\n +", " ", out.getvalue()).splitlines()
    assert printed and all(" = " in line for line in printed)
    for expected in EXPECTED_EXAMPLE_LINES.get(path.name, []):
        assert expected in printed
