"""Front-end checks added after the third hostile-input campaign (issue 11): float literals
beyond the largest double, tokens spanning lines in syntax errors, a leading byte order mark,
and the integer range check of the parsed program (``nessie compile --emit ast``)."""
from __future__ import annotations

import pytest

from nessie.diagnostics import CompileErrors, Span, format_error
from nessie.syntax import parse_text
from nessie.syntax.lexer import tokenize
from nessie.types.literals import ast_int_literal_errors


def errors_of(text):
    with pytest.raises(CompileErrors) as ei:
        parse_text(text, "t.nesl")
    return ei.value.errors


@pytest.mark.parametrize("lit", ["1e400", "1.0e309", "2.e999", ".5e99999999999999999999"])
def test_float_literal_overflow_is_a_located_error(lit):
    (e,) = errors_of(f"x = {lit};\n")
    assert (e.span.line, e.span.col, e.span.end_col) == (1, 5, 4 + len(lit))
    assert e.message.startswith(f"float literal {lit} out of range")


@pytest.mark.parametrize("lit,value", [("1e-400", 0.0), ("4.9e-324", 5e-324),
                                       ("1.7976931348623157e308", 1.7976931348623157e308)])
def test_float_literal_underflow_and_largest_are_values(lit, value):
    assert tokenize(lit) == [("FLOAT", value)]


def test_token_spanning_lines_is_shown_on_one_line():
    (e,) = errors_of('x = 1 "line one\nline two\nline three";\n')
    assert e.message == "syntax error at '\"line one...'"
    assert "\n" not in e.message


def test_long_token_is_cut():
    (e,) = errors_of('x = 1 "' + "a" * 500 + '";\n')
    assert e.message.startswith("syntax error at '\"aaa") and e.message.endswith("...'")
    assert len(e.message) < 100


def test_juxtaposed_multiline_string_is_shown_on_one_line():
    errs = errors_of('z = [1 "a\nb"];\n')
    assert any(e.message == "syntax error at '\"a...'" for e in errs)
    assert all("\n" not in e.message for e in errs)


def test_leading_bom_is_skipped():
    prog = parse_text("\ufeffx = 1;\n", "t.nesl")
    assert prog.items[0].span.col == 1
    assert prog.sources["t.nesl"] == "x = 1;\n"
    (e,) = errors_of("\ufeffx = $;\n")
    assert (e.span.line, e.span.col) == (1, 5)
    # a BOM anywhere else is still an illegal character
    (e,) = errors_of("x = 1;\ufeff\n")
    assert "illegal character" in e.message


def test_format_error_does_not_count_a_bom_as_a_column():
    text = format_error(Span("t.nesl", 1, 5, 1, 5), "m", "\ufeffx = $;\n")
    assert text.splitlines()[1:] == ["    x = $;", "        ^"]


def test_ast_int_literal_check():
    items = parse_text("x = 2147483648;\ny = -2147483648;\nz = 1 - 2147483648;\n"
                       "w = -2147483649;\n", "t.nesl").items
    errs = ast_int_literal_errors(items)
    assert [(e.span.line, e.span.col) for e in errs] == [(1, 5), (3, 9), (4, 5)]
    assert "-2147483649" in errs[2].message
    assert ast_int_literal_errors(items, 64) == []
