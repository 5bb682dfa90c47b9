"""Lexer: literals, operators, backquotes, comments, case folding, lexical errors."""
import pytest

from nessie.diagnostics import CompileErrors
from nessie.syntax.lexer import tokenize


def types(text):
    return [t for t, _ in tokenize(text)]


def values(text):
    return [v for _, v in tokenize(text)]


@pytest.mark.parametrize("text,value", [
    ("1.5", 1.5), ("2.", 2.0), ("1e-3", 1e-3), ("2e4", 2e4), ("1.0E20", 1e20),
    ("2.5E-7", 2.5e-7), ("1e+20", 1e20), ("0.333333333333333", 0.333333333333333),
])
def test_floats(text, value):
    assert tokenize(text) == [("FLOAT", value)]


def test_ints_and_ranges():
    assert tokenize("[1:10:2]") == [("LBRACKET", "["), ("INT", 1), ("COLON", ":"), ("INT", 10),
                                    ("COLON", ":"), ("INT", 2), ("RBRACKET", "]")]


def test_operators_longest_match():
    assert types("++ + -> - /= / || | <- <= < >= > == = :: : , ; $") == [
        "PLUSPLUS", "PLUS", "RARROW", "MINUS", "NE", "DIV", "BARBAR", "BAR", "LARROW", "LE",
        "LT", "GE", "GT", "EQEQ", "EQ", "DCOLON", "COLON", "COMMA", "SEMI", "DOLLAR"]


def test_case_folding_keywords_and_identifiers():
    assert tokenize("FUNCTION Foo IF Then LET x_1 AND") == [
        ("FUNCTION", "function"), ("ID", "foo"), ("IF", "if"), ("THEN", "then"), ("LET", "let"),
        ("ID", "x_1"), ("AND", "and")]


def test_booleans():
    assert tokenize("t f T F true") == [("BOOL", True), ("BOOL", False), ("BOOL", True),
                                        ("BOOL", False), ("ID", "true")]


def test_strings_are_not_folded():
    assert tokenize('"AbC" "a\\"b" "x\\ny"') == [("STRING", "AbC"), ("STRING", 'a"b'),
                                                 ("STRING", "xny")]


def test_backslash_takes_the_next_character_as_the_original_reads_strings():
    # src/tokens.lisp ctoken-string: no escape sequences, "good\n" is goodn
    assert tokenize('"good\\n" "a\\\\b" "\\t"') == [("STRING", "goodn"), ("STRING", "a\\b"),
                                                    ("STRING", "t")]


def test_a_string_may_span_lines():
    assert tokenize('"two\nlines" x') == [("STRING", "two\nlines"), ("ID", "x")]


def test_unterminated_string_is_reported_at_its_quote():
    with pytest.raises(CompileErrors) as info:
        tokenize('x "abc\ndef')
    assert "1:3: error: unterminated string literal" in info.value.format()


def test_characters_versus_backquoted_operators():
    assert tokenize("`a `A `+` `<-` `and` `  `,") == [
        ("CHAR", "a"), ("CHAR", "A"), ("BACKOP", "+"), ("BACKOP", "<-"), ("BACKOP", "and"),
        ("CHAR", " "), ("CHAR", ",")]
    assert tokenize("[`a, `b]") == [("LBRACKET", "["), ("CHAR", "a"), ("COMMA", ","),
                                    ("CHAR", "b"), ("RBRACKET", "]")]


def test_comments_span_lines():
    assert types("1 % a comment\n that goes on %  2") == ["INT", "INT"]


def test_spans_are_one_based():
    from nessie.diagnostics import Diagnostics
    from nessie.syntax.lexer import make_lexer
    lx = make_lexer("f.nesl", "a\n  bc + 1.5", Diagnostics())
    toks = []
    while (t := lx.token()) is not None:
        toks.append(t.value.span)
    assert [(s.line, s.col, s.end_line, s.end_col) for s in toks] == [
        (1, 1, 1, 1), (2, 3, 2, 4), (2, 6, 2, 6), (2, 8, 2, 10)]


@pytest.mark.parametrize("text,msg", [
    ("a ? b", "illegal character '?'"),
    ('"abc', "unterminated string literal"),
    ("1 % never closed", "unterminated comment"),
])
def test_lexical_errors(text, msg):
    with pytest.raises(CompileErrors) as info:
        tokenize(text, "l.nesl")
    assert msg in str(info.value)
