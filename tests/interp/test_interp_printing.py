"""Printing of values and result lines, against NESL.md's "Printing" section."""
from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

from interp_helpers import S, V
from nessie.interp.printing import (format_binding, format_float, format_function,
                                    format_value)
from nessie.interp.values import DataVal, SegDes
from nessie.interp.vtypes import (BOOL, CHAR, FLOAT, INT, Datatypes, TData, TFun, TPair, TSeq,
                                  TVar, format_type, parse_type)
from nessie.types.types import Scheme

#: a copy of ../shared/NESL.md kept in the checkout (CI has no ../shared)
NESL_MD = Path(__file__).resolve().parents[1] / "data" / "NESL.md"   # a copy of shared/NESL.md

A, B = TVar(0), TVar(1)

# Every line of NESL.md's printing block, produced by the printer.
PRINTING_EXAMPLES = {
    "add1 = fn : int -> int": lambda: format_function("add1", TFun(INT, INT)),
    "dotp = fn : ([a], [a]) -> a :: (a in number)":
        lambda: format_function("dotp", Scheme((0,), ("number",), TFun(TPair(TSeq(A), TSeq(A)), A))),
    "fst = fn : (a, b) -> a :: (a in any; b in any)":
        lambda: format_function("fst", Scheme((0, 1), ("any", "any"), TFun(TPair(A, B), A))),
    "z = 4 : int": lambda: format_binding("z", 4, INT),
    "(p, q) = (1, 2) : int, int": lambda: format_binding("(p, q)", (1, 2), "int, int"),
    "it = [(1, 2.5), (3, 4.0)] : [(int, float)]":
        lambda: format_binding("it", V([(1, 2.5), (3, 4.0)]), "[(int, float)]"),
    "it = ((1, 2), 3) : (int, int), int":
        lambda: format_binding("it", ((1, 2), 3), TPair(TPair(INT, INT), INT)),
    "it = (1, 2, 3) : int, int, int": lambda: format_binding("it", V((1, 2, 3)), "int, int, int"),
    "it = [[1, 2], [3]] : [[int]]": lambda: format_binding("it", V([[1, 2], [3]]), "[[int]]"),
    "it = [] : [int]": lambda: format_binding("it", V([]), "[int]"),
    "it = `a : char": lambda: format_binding("it", "a", CHAR),
    "it = [T, F] : [bool]": lambda: format_binding("it", V([True, False]), "[bool]"),
    'it = "abc" : [char]': lambda: format_binding("it", S("abc"), "[char]"),
    "it = 0.333333333333333 : float": lambda: format_binding("it", 1.0 / 3.0, FLOAT),
    "it = 1.0E20 : float": lambda: format_binding("it", 1e20, FLOAT),
    "it = 2.5E-7 : float": lambda: format_binding("it", 2.5e-7, FLOAT),
    "it = 1.0E10 : float": lambda: format_binding("it", 1e10, FLOAT),
}

LONG_LINE = "it = [0, 1, 2, 3, (all of the first 100 elements) 98, 99,...] : [int]"


def _nesl_md_printing_block() -> list[str]:
    text = NESL_MD.read_text()
    section = text[text.index("## Printing"):]
    block = section[section.index("```") + 3:]
    block = block[block.index("\n") + 1:block.index("```")]
    lines = []
    for line in block.splitlines():
        line = re.sub(r"\s+%.*$", "", line).rstrip()
        if line:
            lines.append(line)
    return lines


@pytest.mark.parametrize("expected", sorted(PRINTING_EXAMPLES))
def test_printing_examples(expected):
    assert PRINTING_EXAMPLES[expected]() == expected


def test_every_nesl_md_printing_line_is_covered():
    lines = _nesl_md_printing_block()
    assert LONG_LINE in lines
    assert sorted(set(lines) - {LONG_LINE}) == sorted(PRINTING_EXAMPLES)


def test_long_sequence_is_cut_after_print_length():
    text = format_binding("it", V(list(range(200))), "[int]")
    value = "[" + ", ".join(str(i) for i in range(100)) + ",...]"
    # NESL.md's long line, wrapped as the original wraps it (whitespace is not significant)
    assert text == "it = \n  " + value + "\n   : [int]"
    assert " ".join(text.split()) == " ".join(LONG_LINE.split()).replace(
        "(all of the first 100 elements)", ", ".join(str(i) for i in range(4, 98)) + ",")


def test_print_length_boundaries():
    assert format_value(V(list(range(100))), "[int]") == "[" + ", ".join(map(str, range(100))) + "]"
    assert format_value(V([1, 2, 3]), "[int]", print_length=2) == "[1, 2,...]"
    assert format_value(V([[1, 2, 3]]), "[[int]]", print_length=2) == "[[1, 2,...]]"
    assert format_value(V(list(range(300))), "[int]", print_length=None).count(",") == 299
    assert format_value(S("abcdef"), "[char]", print_length=3) == '"abc..."'


@pytest.mark.parametrize("x,text", [
    (0.0, "0.0"), (-0.0, "-0.0"), (1.0, "1.0"), (2.5, "2.5"), (4.0, "4.0"), (-4.0, "-4.0"),
    (1.0 / 3.0, "0.333333333333333"), (2.0 / 3.0, "0.666666666666667"),
    (0.1, "0.1"), (100.0, "100.0"), (123.456, "123.456"), (1234567.0, "1234567.0"),
    (9999999.0, "9999999.0"), (1e7, "1.0E7"), (1.5e7, "1.5E7"), (1e20, "1.0E20"),
    (1e10, "1.0E10"), (-1e10, "-1.0E10"), (0.001, "0.001"), (0.00099, "9.9E-4"),
    (2.5e-7, "2.5E-7"), (1e-300, "1.0E-300"), (math.pi, "3.14159265358979"),
    (1e100, "1.0E100"), (123456789.0, "1.23456789E8"), (5e-324, "4.94065645841247E-324"),
    (math.inf, "inf"), (-math.inf, "-inf"), (math.nan, "nan"),
])
def test_format_float(x, text):
    assert format_float(x) == text


def test_scalars_and_nesting():
    assert format_value(-5, INT) == "-5"
    assert format_value(True, BOOL) == "T"
    assert format_value(" ", CHAR) == "` "
    assert format_value(V([S("ab"), S("")]), "[[char]]") == '["ab", ""]'
    assert format_value(V([(1, (2.0, "c"))]), "[(int, float, char)]") == "[(1, 2.0, `c)]"
    assert format_value(V([[]]), "[[bool]]") == "[[]]"
    assert format_value(((1, 2), (3, 4)), "(int, int), int, int") == "((1, 2), 3, 4)"
    assert format_value(SegDes(3), "segdes") == "segdes(3)"


def test_datatype_values():
    complex_ty = TData("complex")
    dts = Datatypes({
        "complex": Scheme((), (), TFun(TPair(FLOAT, FLOAT), complex_ty)),
        "box": Scheme((0,), ("any",), TFun(TSeq(A), TData("box", (A,)))),
        "triple": Scheme((), (), TFun(TPair(TPair(INT, INT), TPair(CHAR, BOOL)), TData("triple"))),
    })
    assert format_value(DataVal("complex", (1.0, 2.0)), complex_ty, datatypes=dts) == "complex(1.0, 2.0)"
    assert format_binding("c", DataVal("complex", (1.0, -0.5)), complex_ty, datatypes=dts) == \
        "c = complex(1.0, -0.5) : complex"
    assert format_value(V([DataVal("complex", (0.0, 1.0))]), TSeq(complex_ty), datatypes=dts) == \
        "[complex(0.0, 1.0)]"
    boxed = TData("box", (INT,))
    assert format_binding("it", DataVal("box", (V([1]),)), boxed, datatypes=dts) == "it = box([1]) : box(int)"
    assert dts.fields(TData("triple")) == (TPair(INT, INT), CHAR, BOOL)
    assert format_value(DataVal("triple", ((1, 2), "x", True)), TData("triple"), datatypes=dts) == \
        "triple((1, 2), `x, T)"
    with pytest.raises(TypeError):
        format_value(DataVal("complex", (1.0, 2.0)), complex_ty)


def test_type_printing_and_parsing():
    for text in ["int", "[int]", "[(int, float)]", "(int, int), int", "int, int, int",
                 "[[char]]", "([a], [a]) -> a", "(a, b) -> a", "[int] -> ([int], [int])"]:
        assert format_type(parse_type(text)) == text
    assert parse_type("(int, (int, int))") == parse_type("int, int, int")
    assert format_type(parse_type("[(int, int)]"), top=False) == "[(int, int)]"


def test_value_does_not_match_type():
    with pytest.raises(TypeError):
        format_value(1, FLOAT)
    with pytest.raises(TypeError):
        format_value(True, INT)
