"""Type inference, type printing, classes, signatures, datatypes, builtins table, REPL API."""
import pytest

from nessie.diagnostics import CompileErrors
from nessie.syntax import parse_text
from nessie.types import (BUILTIN_SCHEMES, BUILTIN_TYPES, CONSTANT_TYPES, initial_env,
                          parse_scheme, parse_type, scheme_to_str, type_summary,
                          typecheck_item, type_to_str)
from nessie.types import typed_ast as T
from nessie.types.types import FLOAT, INT, TPair, TSeq

from fe_helpers import check


def summary(text):
    return type_summary(check(text)).splitlines()


@pytest.mark.parametrize("src,expected", [
    ("function add1(x) = x + 1;", "add1 = fn : int -> int"),
    ("function dotp(a, b) = sum({x*y : x in a; y in b});",
     "dotp = fn : ([a], [a]) -> a :: (a in number)"),
    ("function fst(a, b) = a;", "fst = fn : (a, b) -> a :: (a in any; b in any)"),
    ("function swap(a, b) = (b, a);", "swap = fn : (a, b) -> (b, a) :: (a in any; b in any)"),
    ("function mx(a) = max_val(a) + 1.0;", "mx = fn : [float] -> float"),
    ("function lt(a, b) = a < b;", "lt = fn : (a, a) -> bool :: (a in ordinal)"),
    ("function bits(a, b) = a and b;", "bits = fn : (a, a) -> a :: (a in logical)"),
    ("function both(a, b) = (a and b) + 1;", "both = fn : (int, int) -> int"),
    ("function ls(a, b) = (a + b) < b;", "ls = fn : (a, a) -> bool :: (a in number)"),
    ("function cnt(s) = count({c == `a : c in s});", "cnt = fn : [char] -> int"),
    ("function nest2(n) = {[0:i] : i in [0:n]};", "nest2 = fn : int -> [[int]]"),
    ("function tm(x) = time(x + 1.0);", "tm = fn : float -> (float, float)"),
    ("function fl(s) = {x in s | x > 0};", "fl = fn : [int] -> [int]"),
    ("function fl2(s) = {x in s | plusp(x)};", "fl2 = fn : [a] -> [a] :: (a in number)"),
    ("function pr(s) = {(i, x) in zip(index(#s), s) | x};", "pr = fn : [bool] -> [(int, bool)]"),
    ("function e1(x) = [] [int];", "e1 = fn : a -> [[int]] :: (a in any)"),
    ("function sv(v, w) = {a + b : a in v; b in w};",
     "sv = fn : ([a], [a]) -> [a] :: (a in number)"),
    ("function short(a, b) = {a + b : a; b};",
     "short = fn : ([a], [a]) -> [a] :: (a in number)"),
])
def test_inferred_function_types(src, expected):
    assert summary(src) == [expected]


def test_value_types_print_like_nesl():
    lines = summary("z = 4;\n(p, q) = (1, 2);\n[(1, 2.5), (3, 4.0)];\n((1, 2), 3);\n"
                    "(1, 2, 3);\n[[1, 2], [3]];\n[] int;\n`a;\n[T, F];\n\"abc\";\n1.0E20;\n"
                    "pi;\nmax_int;\n(space, newline, tab);\n[]; [[]];")
    assert lines == ["z : int", "(p, q) : int, int", "it : [(int, float)]",
                     "it : (int, int), int", "it : int, int, int", "it : [[int]]",
                     "it : [int]", "it : char", "it : [bool]", "it : [char]", "it : float",
                     "it : float", "it : int", "it : char, char, char", "it : [int]",
                     "it : [[int]]"]


def test_it_and_globals_are_visible_later():
    assert summary("[1, 2, 3];\nfunction addall(x) = x + sum(it);\naddall(1);")[1:] == [
        "addall = fn : int -> int", "it : int"]


def test_recursion_is_allowed():
    assert summary("function fact(n) = if n <= 1 then 1 else n * fact(n - 1);") == [
        "fact = fn : int -> int"]
    assert summary("function fib(n) = if n < 2 then float(n) else fib(n-1) + fib(n-2);") == [
        "fib = fn : int -> float"]


def test_polymorphic_recursion_through_declared_signature():
    src = ("function depth(x) : [a] -> int :: (a in any) = 1;\n"
           "function d2(s) : [a] -> int :: (a in any) = if #s == 0 then 0 "
           "else d2({[e] : e in s}) + depth(s);")
    assert summary(src)[1] == "d2 = fn : [a] -> int :: (a in any)"


def test_redefinition_uses_latest_definition():
    src = "function g1(x) = x + 1;\nfunction g1(x) = x + 1.0;\ny = g1(2.0);"
    assert summary(src) == ["g1 = fn : int -> int", "g1 = fn : float -> float", "y : float"]


def test_let_polymorphism_at_top_level_functions():
    src = ("function id2(x) = x;\n"
           "function use(a, b) = (id2(a) + 1, id2(b) + 1.5, id2(\"s\"));")
    assert summary(src)[1] == "use = fn : (int, float) -> (int, float, [char])"


def test_declared_signature_specialises_more_general_body():
    src = "function dp(a, b) : ([float], [float]) -> float = sum({x*y : x in a; y in b});"
    assert summary(src) == ["dp = fn : ([float], [float]) -> float"]
    src = "function mm(a) : [a] -> a :: (a in number) = max_val(a);"
    assert summary(src) == ["mm = fn : [a] -> a :: (a in number)"]
    src = "function f2(a, b) : [a], [b] -> a = a[0];"
    assert summary(src) == ["f2 = fn : ([a], [b]) -> a :: (a in any; b in any)"]


def test_class_meets():
    # number meets logical only at int
    assert summary("function q(a) = (a + a) and a;") == ["q = fn : int -> int"]
    assert summary("function q(a) = (a < a, a + a);") == [
        "q = fn : a -> (bool, a) :: (a in number)"]


def test_datatypes():
    src = ("datatype complex(float, float);\n"
           "function cadd(complex(a, b), complex(c, d)) = complex(a + c, b + d);\n"
           "function re(z) = let complex(r, _) = z in r;\n"
           "c = cadd(complex(1.0, 2.0), complex(0.5, 0.5));\n"
           "re(c);\n"
           "datatype pt(a, a) :: (a in number);\n"
           "function norm1(pt(x, y)) = abs(x) + abs(y);\n"
           "norm1(pt(1, -2));\n"
           "[complex(1.0, 0.0)];")
    assert summary(src) == [
        "datatype complex : (float, float) -> complex",
        "cadd = fn : (complex, complex) -> complex",
        "re = fn : complex -> float",
        "c : complex",
        "it : float",
        "datatype pt : (a, a) -> pt(a) :: (a in number)",
        "norm1 = fn : pt(a) -> a :: (a in number)",
        "it : int",
        "it : [complex]",
    ]


def test_datatype_errors():
    from fe_helpers import errors_of
    assert errors_of("datatype complex(float, float);\nx = complex(1, 2.0);") == [
        "t.nesl:2:13: error: type mismatch: expected float but got int"]
    assert errors_of("datatype pt(a, a) :: (a in number);\nx = pt(t, f);") == [
        "t.nesl:2:8: error: type mismatch: expected number but got bool"]


def test_typed_ast_desugaring():
    prog = check("function g1(a, i) = -a[i] + #a;\nx = [3];\n{y in [1, 2] | y > 1};\n"
                 "{x + 1 : x};\n[2:9];")
    plus = prog.items[0].body
    assert isinstance(plus, T.Call) and plus.name == "+" and plus.kind == T.BUILTIN
    neg = plus.arg.fst
    assert neg.name == "negate" and neg.arg.name == "elt"
    assert plus.arg.snd.name == "#"
    assert type_to_str(plus.fun_type) == "(int, int) -> int"
    filt = prog.items[2].exp
    assert isinstance(filt, T.ApplyToEach) and isinstance(filt.body, T.Var)
    assert filt.body.name == "y" and filt.filter is not None
    short = prog.items[3].exp
    gen = short.gens[0]
    assert gen.pattern == T.PVar("x", INT) and gen.source == T.GlobalVar("x", TSeq(INT))
    assert short.type == TSeq(INT)
    rng = prog.items[4].exp
    assert isinstance(rng, T.Range) and rng.stride == T.Lit(1, INT)


def test_call_kinds_and_instance_types():
    prog = check("datatype cx(float, float);\nfunction h(x) = x;\nh(cx(1.0, 2.0));\n"
                 "h(pi);\nlength([1]);")
    call = prog.items[2].exp
    assert call.kind == T.USER and call.arg.kind == T.CONSTRUCTOR
    assert isinstance(prog.items[3].exp.arg, T.ConstRef)
    assert prog.items[4].exp.kind == T.BUILTIN
    assert type_to_str(prog.items[4].exp.fun_type) == "[int] -> int"


def test_spans_carried_into_typed_ast():
    prog = check("x = [1, 2];\ny = x[1] + 2;", "sp.nesl")
    call = prog.items[1].exp
    assert (call.span.file, call.span.line, call.span.col) == ("sp.nesl", 2, 5)
    assert call.arg.fst.span.col == 5    # the subscript x[1]


# ------------------------------------------------------------------ builtins table
NESL_MD_BUILTINS = """
+ - * / rem mod ^ negate abs diff max min == /= < > <= >= not and or xor nor nand plusp minusp
zerop oddp evenp lshift rshift sqrt isqrt ln log exp expt sin cos tan asin acos atan sinh cosh
tanh btoi code_char char_code float ceil floor trunc round rand rand_seed select identity
# dist elt rep zip unzip zip3 index iseq plus_scan mult_scan max_scan min_scan or_scan and_scan
xor_scan sum product max_val min_val any all count parity max_index min_index -> read permute
<- write put get rotate reverse pack ++ cons snoc subseq take drop odd_elts even_elts interleave
head_rest rest_tail partition flatten split bottop length_from_flags transpose sort rank
rank_down collect int_collect kth_smallest find search_for_subseqs remove_duplicates
mark_duplicates union intersection name eql hash length append first pack_index split_index
make_segdes nest print_line lowercase uppercase parse_int @ print_string print_char
write_string linify wordify string_eql parse_float exp_string || read_int_seq_from_file
read_float_seq_from_file write_string_to_file read_string_from_file
""".split()


def test_every_builtin_of_nesl_md_has_a_type():
    missing = [n for n in NESL_MD_BUILTINS if n not in BUILTIN_TYPES]
    assert missing == []
    assert set(BUILTIN_SCHEMES) == set(BUILTIN_TYPES)
    assert set(CONSTANT_TYPES) == {"pi", "max_int", "min_int", "space", "newline", "tab",
                                   # the original library's variables (issue 10)
                                   "nesl_path", "user", "stdin", "stdout", "stderr", "nullstr"}


@pytest.mark.parametrize("name,expected", [
    ("sum", "[a] -> a :: (a in number)"),
    ("dist", "(a, int) -> [a] :: (a in any)"),
    ("+", "(a, a) -> a :: (a in number)"),
    ("==", "(a, a) -> bool :: (a in ordinal)"),
    ("#", "[a] -> int :: (a in any)"),
    ("->", "([a], [int]) -> [a] :: (a in any)"),
    ("<-", "([a], [(int, a)]) -> [a] :: (a in any)"),
    ("@", "a -> [char] :: (a in any)"),
    ("rand", "a -> a :: (a in number)"),
    ("float", "int -> float"),
    ("round", "float -> int"),
    ("plus_scan", "[a] -> [a] :: (a in number)"),
    ("partition", "([a], [int]) -> [[a]] :: (a in any)"),
    ("flatten", "[[a]] -> [a] :: (a in any)"),
    ("make_segdes", "int -> segdes"),
    ("nest", "([a], [segdes]) -> [[a]] :: (a in any)"),
    ("first", "(a, b) -> a :: (a in any; b in any)"),
    ("^", "(a, int) -> a :: (a in number)"),
    ("split_index", "[bool] -> ([int], [int])"),
    ("parse_int", "[char] -> (int, bool)"),
    ("zip3", "([a], [b], [c]) -> [(a, b, c)] :: (a in any; b in any; c in any)"),
])
def test_builtin_schemes_print(name, expected):
    assert scheme_to_str(BUILTIN_SCHEMES[name]) == expected


def test_type_parser_and_printer():
    assert parse_type("[(int, float)]") == TSeq(TPair(INT, FLOAT))
    assert type_to_str(parse_type("(int, int), int")) == "(int, int), int"
    assert type_to_str(parse_type("int, (int, int)")) == "int, int, int"
    assert type_to_str(parse_type("[[int]]")) == "[[int]]"
    assert scheme_to_str(parse_scheme("b, [a] -> a :: (a in number)")) == \
        "(a, [b]) -> b :: (a in any; b in number)"


# ------------------------------------------------------------------ incremental API
def test_typecheck_item_incremental_environment():
    env = initial_env()
    prog = parse_text("function sq(x) = x * x;\ny = sq(3);\nbad = sq(t);\nz = y + 1;")
    env, typed = typecheck_item(env, prog.items[0])
    assert typed[0].name == "sq"
    env1, typed = typecheck_item(env, prog.items[1])
    with pytest.raises(CompileErrors):
        typecheck_item(env1, prog.items[2])
    env2, typed = typecheck_item(env1, prog.items[3])
    assert type_to_str(typed[0].exp.type) == "int"
    assert "z" in env2.globals and "z" not in env1.globals


def test_operators_always_denote_builtins():
    prog = check("function elt(s, i) = 0;\nfunction negate(x) = x;\nx = [5, 6][1];\ny = -2.5;")
    sub = prog.items[2].exp
    assert sub.name == "elt" and sub.kind == T.BUILTIN
    assert prog.items[3].exp.kind == T.BUILTIN
    assert check("function elt(s, i) = 0;\nelt([1.5], 0);").items[1].exp.kind == T.USER


def test_program_with_load(tmp_path):
    from nessie.syntax import parse_file
    from nessie.types import typecheck
    (tmp_path / "lib.nesl").write_text("function sq(x) = x * x;\n")
    (tmp_path / "main.nesl").write_text('load "lib.nesl";\nsq(3.0);\n')
    typed = typecheck(parse_file(str(tmp_path / "main.nesl")))
    assert type_summary(typed) == "sq = fn : a -> a :: (a in number)\nit : float\n"
