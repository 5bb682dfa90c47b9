"""Error reporting: exact positions and messages; several errors per file; formatting."""
import pytest

from nessie.diagnostics import (CompileError, CompileErrors, RuntimeNeslError, Span,
                                format_error, InternalError)
from nessie.syntax import parse_text

from fe_helpers import errors_of


def syntax_errors(text, filename="s.nesl"):
    with pytest.raises(CompileErrors) as info:
        parse_text(text, filename)
    return [str(e) for e in info.value.errors]


def test_syntax_error_position_and_message():
    assert syntax_errors("x = 1 +;\n") == ["s.nesl:1:8: error: syntax error at ';'"]


def test_several_syntax_errors_are_all_reported():
    src = ("function ok(x) = x;\n"
           "function bad(x) = x + * 2;\n"
           "y = [1 2];\n"
           "z = 3;\n"
           "w = (1, ;\n")
    assert syntax_errors(src) == [
        "s.nesl:2:23: error: syntax error at '*'",
        "s.nesl:3:8: error: syntax error at '2'",
        "s.nesl:5:9: error: syntax error at ';'",
    ]


def test_missing_terminator_at_end_of_file():
    errs = syntax_errors("x = 1;\ny = 2")
    assert errs == ["s.nesl:2:5: error: syntax error: unexpected end of input (missing ';'?)"]


def test_booleans_cannot_name_functions():
    errs = syntax_errors("function f(x) = x;")
    assert errs == ["s.nesl:1:10: error: syntax error at 'f': in NESL 'f' is the boolean false "
                    "(t and f are the boolean literals), so it cannot name a function or a "
                    "variable"]
    assert syntax_errors("t = 1;") == [
        "s.nesl:1:1: error: in NESL 't' is the boolean true (t and f are the boolean "
        "literals), so it cannot name a variable; choose another name"]


def test_invalid_pattern():
    assert syntax_errors("1 + x = 3;") == [
        "s.nesl:1:1: error: invalid pattern: expected a variable, a tuple or a "
        "constructor pattern"]


def test_type_errors_are_located_at_the_offending_subexpression():
    assert errors_of("function g(a) : [int] -> int = sum(a) + 1.5;") == [
        "t.nesl:1:41: error: type mismatch: expected int but got float"]
    assert errors_of("w = [1, 2.0];") == [
        "t.nesl:1:9: error: type mismatch: expected int but got float"]
    assert errors_of("v = if 1 then 2 else 3;") == [
        "t.nesl:1:8: error: type mismatch: expected bool but got int"]
    assert errors_of("u = sum(3.0);") == [
        "t.nesl:1:9: error: type mismatch: expected [a] but got float"]
    assert errors_of("u = dist(1, 2.0);") == [
        "t.nesl:1:13: error: type mismatch: expected int but got float"]
    assert errors_of("b = t + t;") == [
        "t.nesl:1:5: error: type mismatch: expected number but got bool"]
    assert errors_of("c = [1, 2][t];") == [
        "t.nesl:1:12: error: type mismatch: expected int but got bool"]
    assert errors_of("d = {x : x in 5};") == [
        "t.nesl:1:15: error: type mismatch: expected [a] but got int"]
    # a type outside the class a sequence's elements need: the class is named
    assert errors_of('s = sum("abc");') == [
        "t.nesl:1:9: error: type mismatch: expected [a] but got [char] (char is not a number)"]
    assert errors_of("m = max_val([] bool);") == [
        "t.nesl:1:13: error: type mismatch: expected [a] but got [bool] (bool is not an ordinal)"]


def test_scope_errors():
    assert errors_of("y = foo + 1;") == ["t.nesl:1:5: error: unbound variable foo"]
    assert errors_of("function h(x) = later(x);\nfunction later(x) = x;") == [
        "t.nesl:1:17: error: unbound function later"]
    # a called parameter is a function parameter (higher-order functions, issue 10); a let-
    # or generator-bound variable cannot be called
    assert errors_of("function h(x) = let y = x in y(1);") == [
        "t.nesl:1:30: error: y is a variable, not a function (only a parameter of the "
        "function being defined can be called)"]
    assert errors_of("function h(x) = x;\ny = h;") == [
        "t.nesl:2:5: error: function h cannot be used as a value (NESL functions are "
        "first-order: a function is called, or passed by name as the argument of a function "
        "parameter)"]
    assert errors_of("function h(x, x) = x;") == [
        "t.nesl:1:15: error: variable x is bound twice"]
    assert errors_of("function h(x) = let nope(a) = x in a;") == [
        "t.nesl:1:21: error: nope is not a datatype constructor"]


def test_signature_errors():
    assert errors_of("function k(x) : a -> a = x + 1;") == [
        "t.nesl:1:26: error: type mismatch: expected number but got a (the declared type "
        "variable a is in class any, which is more general than number)"]
    assert errors_of("function k(x) : a -> int :: (a in number) = x;") == [
        "t.nesl:1:45: error: type mismatch: expected int but got a (the declared type is "
        "more general than the definition)"]
    assert errors_of("function k(x) : int -> int :: (a in numbr) = x;")[0].endswith(
        "unknown type class numbr (expected one of any, number, ordinal, logical)")


def test_several_type_errors_one_per_item_without_cascades():
    src = ("function g1(a) = a + 1.5;\n"
           "function bad(x) = x + t;\n"      # error
           "y = bad(1);\n"                   # uses a failed function: no second error
           "z = g1(2);\n"                    # error
           "w = undefined_thing;\n")         # error
    assert errors_of(src) == [
        "t.nesl:2:23: error: type mismatch: expected number but got bool",
        "t.nesl:4:8: error: type mismatch: expected float but got int",
        "t.nesl:5:5: error: unbound variable undefined_thing",
    ]


def test_formatting_with_source_line_and_caret():
    with pytest.raises(CompileErrors) as info:
        parse_text("x = 1;\nfunction g(a) = a +\n   * 2;\n", "fmt.nesl")
    assert info.value.format() == (
        "fmt.nesl:3:4: error: syntax error at '*'\n"
        "       * 2;\n"
        "       ^")
    from fe_helpers import check
    with pytest.raises(CompileErrors) as info:
        check("y = [1, 2.25];", "fmt2.nesl")
    assert info.value.format() == (
        "fmt2.nesl:1:9: error: type mismatch: expected int but got float\n"
        "    y = [1, 2.25];\n"
        "            ^~~~")


def test_diagnostic_classes():
    sp = Span("a.nesl", 3, 5, 3, 9)
    assert str(CompileError(sp, "boom")) == "a.nesl:3:5: error: boom"
    r = RuntimeNeslError(sp, "Sequence reference (a[i]) out of bounds.")
    assert r.message == "RUNTIME ERROR: Sequence reference (a[i]) out of bounds."
    assert str(r) == "a.nesl:3:5: RUNTIME ERROR: Sequence reference (a[i]) out of bounds."
    assert str(RuntimeNeslError(None, "RUNTIME ERROR: Divide by zero.")) == \
        "RUNTIME ERROR: Divide by zero."
    assert "internal compiler error" in str(InternalError("oops"))
    assert format_error(Span("nofile.nesl", 1, 2, 1, 2), "m") == "nofile.nesl:1:2: error: m"


def test_source_texts_are_values_not_a_registry():
    """Two programs under one file name: each error quotes its own program's line, compile
    and runtime errors alike (issue 13: the texts travel with the compilation, there is no
    registry of the process)."""
    import io

    import nessie.diagnostics as D
    from nessie import driver
    with pytest.raises(CompileErrors) as first:
        driver.compile_source("x = 1 + `c;\n", "same.nesl")
    with pytest.raises(CompileErrors) as second:
        driver.compile_source("y = 2;\nz = [1] ++ [t];\n", "same.nesl")
    assert first.value.format().split("\n")[1] == "    x = 1 + `c;"
    assert second.value.format().split("\n")[1] == "    z = [1] ++ [t];"
    c = driver.compile_source("v = 1;\n[1, 2][5];\n", "rt.nesl")
    driver.compile_source("w = 3;\n", "rt.nesl")
    with pytest.raises(RuntimeNeslError) as rt:
        driver.run_interp(c, io.StringIO())
    assert rt.value.format() == ("rt.nesl:2:1: error: RUNTIME ERROR: Sequence reference (a[i]) "
                                 "out of bounds.\n    [1, 2][5];\n    ^~~~~~~~~")
    # an explicit text wins over the texts the error was given
    assert second.value.format("y = 2;\nz = [0];\n").split("\n")[1] == "    z = [0];"
    assert not hasattr(D, "SOURCES") and not hasattr(D, "register_source")
