"""Function parameters (issue 10): typing, printing, located errors, and monomorphisation that
specialises higher-order functions away (one copy per function passed)."""
import pytest

from nessie.diagnostics import InternalError
from nessie.mono import check_mono, monomorphise, print_mono
from nessie.syntax import parse_text, print_ast
from nessie.syntax import ast as A
from nessie.types import print_typed, type_summary
from nessie.types import typed_ast as T
from nessie.types.types import INT, TFun, TPair, free_vars

from fe_helpers import check, errors_of

TWICE = "function twice(func, x) = func(func(x));\nfunction inc(x) = x + 1;\n"


def summary(text):
    return type_summary(check(text)).splitlines()


# ----------------------------------------------------------------------------- typing
def test_the_issue_example_types_as_the_original_prints_it():
    assert summary(TWICE + "twice(inc, 3);") == [
        "twice = fn : (b -> b, b) -> b :: (a in any; b in any)",
        "inc = fn : int -> int",
        "it : int",
    ]


@pytest.mark.parametrize("src, expected", [
    # the binding variable of a function parameter's type is lettered where the original's walk
    # (binding, result, argument) meets it, and listed although it is not printed
    ("function app(g, x) = g(x);", "app = fn : (c -> b, c) -> b :: (a in any; b in any; c in any)"),
    ("function map_f(g, xs) = {g(x) : x in xs};",
     "map_f = fn : (c -> b, [c]) -> [b] :: (a in any; b in any; c in any)"),
    ("function iter(g, x, n) = if n == 0 then x else iter(g, g(x), n - 1);",
     "iter = fn : (b -> b, b, int) -> b :: (a in any; b in any)"),
    ("function compose(g, h, x) = g(h(x));",
     "compose = fn : (d -> b, e -> d, e) -> b :: (a in any; b in any; c in any; d in any; "
     "e in any)"),
    ("function red(op, z, s) = if #s == 0 then z else op(s[0], red(op, z, drop(s, 1)));",
     "red = fn : ((c, b) -> b, b, [c]) -> b :: (a in any; b in any; c in any)"),
    ("function a3(g) = g(3) + 1;", "a3 = fn : (int -> int) -> int :: (a in any)"),
    # a declared function parameter's type prints like an inferred one
    ("function tw(func, x) : (b -> b, b) -> b = func(func(x));",
     "tw = fn : (b -> b, b) -> b :: (a in any; b in any)"),
    ("function a3(g) : (int -> int) -> int = g(3);",
     "a3 = fn : (int -> int) -> int :: (a in any)"),
])
def test_function_parameter_types(src, expected):
    assert summary(src)[-1] == expected


def test_passing_on_a_function_parameter_and_builtins_by_name():
    s = summary(TWICE + "function four(g, x) = twice(g, twice(g, x));\n"
                "function zw(op, a, b) = {op(x, y) : x in a; y in b};\n"
                "zw(`+`, [1], [2]);\nzw(max, [1.5], [2.5]);\nfour(inc, 0);\n"
                "datatype pt(int, int);\nfunction mk(c, v) = c(v, v);\nmk(pt, 1);")
    assert s[2] == "four = fn : (b -> b, b) -> b :: (a in any; b in any)"
    assert s[4:7] == ["it : [int]", "it : [float]", "it : int"]
    assert s[-1] == "it : pt"


def test_a_parameter_not_called_is_a_value_and_builtin_names_win():
    # a parameter only passed on as a value, or named like a function (which the call means,
    # as before), is no function parameter
    assert summary("function k(g, x) = (g, x);")[-1] == \
        "k = fn : (a, b) -> (a, b) :: (a in any; b in any)"
    assert summary("function s(sum, xs) = sum(xs) + sum;")[-1] == \
        "s = fn : (a, [a]) -> a :: (a in number)"


def test_signatures_with_function_types_parse_and_print():
    prog = parse_text("function tw(func, x) : (b -> b, b) -> b = func(func(x));\n"
                      "function a3(g) : (int -> int) -> int = g(3);\n"
                      "function h(g, x) : ((int, int) -> int, int) -> int = g(x, x);")
    sigs = [it.sig for it in prog.items]
    assert sigs[0].arg == A.TPairE(A.TFunE(A.TName("b"), A.TName("b")), A.TName("b"))
    assert sigs[1].arg == A.TFunE(A.TName("int"), A.TName("int"))
    assert print_ast(prog) == (
        "function tw(func, x) : (b -> b, b) -> b = func(func(x));\n"
        "function a3(g) : (int -> int) -> int = g(3);\n"
        "function h(g, x) : ((int, int) -> int, int) -> int = g(x, x);\n")
    assert parse_text(print_ast(prog)) == prog


def test_typed_printout_round_trips():
    src = TWICE + "function zw(op, a, b) = {op(x, y) : x in a; y in b};\nzw(`+`, [1], [2]);"
    typed = check(src)
    out = print_typed(typed)
    assert "function twice(func, x) : (b -> b, b) -> b :: (b in any) = func(func(x));" in out
    assert "zw(`+`, [1], [2]);  % it : [int] %" in out
    assert type_summary(check(out)) == type_summary(typed)


def test_function_arguments_in_the_typed_tree():
    typed = check(TWICE + "function k(g, x) = twice(g, x);\nk(inc, 3);")
    k = typed.items[2]
    refs = [n for n in T.iter_nodes(k.body) if isinstance(n, T.FunRef)]
    assert [(r.name, r.kind) for r in refs] == [("g", T.PARAM)]
    calls = [n for n in T.iter_nodes(typed.items[0].body) if isinstance(n, T.Call)]
    assert [(c.name, c.kind) for c in calls] == [("func", T.PARAM), ("func", T.PARAM)]
    top = typed.items[3].exp
    assert isinstance(top.arg.fst, T.FunRef) and top.arg.fst.kind == T.USER
    assert top.arg.fst.type == TFun(INT, INT)


# ----------------------------------------------------------------------------- errors
@pytest.mark.parametrize("src, error", [
    ("y = inc;", "3:5: error: function inc cannot be used as a value (NESL functions are "
                 "first-order: a function is called, or passed by name as the argument of a "
                 "function parameter)"),
    ("y = [inc, inc];", "3:5: error: a sequence cannot hold functions"),
    ("y = (inc, 3);", "3:5: error: a tuple cannot hold functions, except the argument tuple "
                      "of a call"),
    ("y = twice((if t then inc else negate), 3);",
     "3:11: error: a function argument must be the name of a function, not an expression "
     "computing one"),
    ("function idf(x) = x;\ny = idf(inc);",
     "4:9: error: idf takes no function as this argument: function inc cannot be passed here"),
    ("y = sum(inc);", "3:9: error: type mismatch: expected [a] but got int -> int: a function "
                      "cannot be used as a value"),
    ("y = twice(3, 3);", "3:11: error: type mismatch: expected a function of type a -> a (the "
                         "name of a function) but got int"),
    ("y = twice(float, 3);", "3:11: error: type mismatch: expected int -> int but got "
                             "int -> float"),
    ("function bad(g, x) = (g(x), g);", "3:22: error: a tuple cannot hold functions"),
    ("function bad(g, x) = g(x) + #{g : y in [1]};",
     "3:30: error: a sequence cannot hold functions"),
    ("function bad(g, xs) = {g(x) : x in xs} ++ [g];",
     "3:43: error: type mismatch: expected [a] but got [b -> a]: a function cannot be used as "
     "a value"),
    ("function bad(g, x) = g(x) + g;", "3:22: error: type mismatch: expected number but got "
                                       "a -> b: a function cannot be used as a value"),
    ("function bad(g, x) = let h = g in h(x);",
     "3:35: error: h is a variable, not a function (only a parameter of the function being "
     "defined can be called)"),
    ("function bad(g, xs) = {g(x) : g in xs};",
     "3:24: error: g is a variable, not a function"),
    ("function bad(g, x) = x + 1;\ny = bad(inc, 2);",
     "4:9: error: bad takes no function as this argument: function inc cannot be passed here"),
    ("function app2(h, g, x) = h(g, x);\ny = app2(twice, inc, 3);",
     "4:17: error: app2 takes no function as this argument"),
    ("function bad(p) : (a -> a, int) -> int = 3;",
     "3:14: error: parameter p would hold a function inside a value; a function parameter must "
     "be a component of the parameter tuple of its own, as in function twice(func, x)"),
    ("y = [] (int -> int);", "3:9: error: a function type can only be the type of a function "
                             "parameter (a component of a function's argument type, as in "
                             "(b -> b, b) -> b)"),
    ("function bad(x) : int -> (int -> int) = x;",
     "3:27: error: a function type can only be the type of a function parameter"),
    ("function bad(x) = x(1) + x(1.5);", "3:28: error: type mismatch: expected int but got float"),
])
def test_misuses_of_functions_are_located_errors(src, error):
    errs = errors_of(TWICE + src)
    assert len(errs) == 1
    assert errs[0].startswith("t.nesl:" + error.split(":", 2)[0] + ":")
    assert error.split(": ", 1)[1] in errs[0], errs[0]


# ----------------------------------------------------------------------------- monomorphisation
def funs(m):
    return [it.name for it in m.items if isinstance(it, T.FunDef)]


def test_one_copy_per_function_passed_and_per_type():
    m = monomorphise(check(TWICE + "function dec(x) = x - 1;\nfunction idf(x) = x;\n"
                           "twice(inc, 3);\ntwice(dec, 3);\ntwice(inc, 4);\n"
                           "twice(idf, 2.5);\ntwice(idf, 2);\ntwice(negate, 1.5);"))
    assert funs(m) == ["inc", "dec", "twice<int>[inc]", "twice<int>[dec]", "idf<float>",
                       "twice<float>[idf]", "idf<int>", "twice<int>[idf]",
                       "twice<float>[negate]"]
    tw = m.function("twice<int>[inc]")
    # the function parameter is gone: the copy takes x alone and calls inc directly
    assert isinstance(tw.param, T.PVar) and tw.param.name == "x"
    assert tw.fun_type == TFun(INT, INT)
    assert [(c.name, c.kind) for c in T.iter_nodes(tw.body) if isinstance(c, T.Call)] == \
        [("inc", T.USER), ("inc", T.USER)]
    neg = m.function("twice<float>[negate]")
    assert {(c.name, c.kind) for c in T.iter_nodes(neg.body) if isinstance(c, T.Call)} == \
        {("negate", T.BUILTIN)}
    calls = [it.exp for it in m.items if isinstance(it, T.ExpItem)]
    assert calls[0].name == "twice<int>[inc]" and calls[0].orig_name == "twice"
    assert calls[0].arg == T.Lit(3, INT) and calls[0].fun_type == TFun(INT, INT)
    check_mono(m)


def test_recursion_and_passing_on_make_copies_recursively():
    src = (TWICE + "function iter(g, x, n) = if n == 0 then x else iter(g, g(x), n - 1);\n"
           "function both(g, x) = twice(g, x) + iter(g, x, 3);\n"
           "function mf(g, xs) = {g(x) : x in xs};\n"
           "function qs(lt, a) = if #a < 2 then a else let p = a[0] in "
           "{qs(lt, v) : v in [{x in a | lt(x, p)}, {x in a | lt(p, x)}]}[0];\n"
           "both(inc, 1);\nmf(inc, [1]);\nqs(`<`, [2, 1]);\nqs(`>`, [2, 1]);")
    out = print_mono(monomorphise(check(src)))
    assert out == (
        "function inc(x) : int -> int = x + 1;\n"
        "function twice<int>[inc](x) : int -> int = inc(inc(x));\n"
        "function iter<int>[inc](x, n) : (int, int) -> int =\n"
        "  if n == 0 then x else iter<int>[inc](inc(x), n - 1);\n"
        "function both<int>[inc](x) : int -> int = twice<int>[inc](x) + iter<int>[inc](x, 3);\n"
        "both<int>[inc](1);  % it : int %\n"
        "function mf<int, int>[inc](xs) : [int] -> [int] = {inc(x) : x in xs};\n"
        "mf<int, int>[inc]([1]);  % it : [int] %\n"
        "function qs<int>[lt](a) : [int] -> [int] =\n"
        "  if #a < 2\n"
        "    then a\n"
        "    else let p = elt(a, 0)\n"
        "         in elt({qs<int>[lt](v) : v in [{x : x in a | x < p}, "
        "{x : x in a | p < x}]}, 0);\n"
        "qs<int>[lt]([2, 1]);  % it : [int] %\n"
        "function qs<int>[gt](a) : [int] -> [int] =\n"
        "  if #a < 2\n"
        "    then a\n"
        "    else let p = elt(a, 0)\n"
        "         in elt({qs<int>[gt](v) : v in [{x : x in a | x > p}, "
        "{x : x in a | p > x}]}, 0);\n"
        "qs<int>[gt]([2, 1]);  % it : [int] %\n")


def test_only_functions_as_arguments_leaves_a_dummy_parameter():
    m = monomorphise(check(TWICE + "function a3(g) = g(3);\na3(inc);"))
    a3 = m.function("a3<int>[inc]")
    assert isinstance(a3.param, T.PWild) and a3.param.type == INT
    call = m.items[-1].exp
    assert call.arg == T.Lit(0, INT)


def test_copies_have_names_distinct_for_the_flattener():
    # a user function named lt and the builtin `<`: the flattener keeps only [A-Za-z0-9_]
    m = monomorphise(check("function lt(a, b) = a < b;\n"
                           "function ap(g, x) = g(x, x);\nap(lt, 1);\nap(`<`, 1);"))
    assert funs(m) == ["lt<int>", "ap<int, bool>[lt]", "ap<int, bool>[lt]~2"]


def test_redefined_functions_passed_are_distinct():
    m = monomorphise(check(TWICE + "twice(inc, 1);\nfunction inc(x) = x + 2;\ntwice(inc, 1);"))
    assert funs(m) == ["inc", "twice<int>[inc]", "inc~2", "twice<int>[inc~2]"]


def test_keep_function_args_instantiates_per_type_only():
    m = monomorphise(check(TWICE + "function idf(x) = x;\ntwice(inc, 3);\ntwice(idf, 2);"),
                     keep_function_args=True)
    assert funs(m) == ["inc", "twice<int>", "idf<int>"]
    tw = m.function("twice<int>")
    assert tw.fun_type == TFun(TPair(TFun(INT, INT), INT), INT)
    assert all(not free_vars(n.type) for n in T.iter_nodes(tw) if hasattr(n, "type"))
    refs = [n for it in m.items for n in T.iter_nodes(it) if isinstance(n, T.FunRef)]
    assert [(r.name, r.orig_name) for r in refs] == [("inc", "inc"), ("idf<int>", "idf")]
    with pytest.raises(InternalError, match="function argument"):
        check_mono(m)          # not first-order: only for the reference interpreter
    check_mono(m, first_order=False)


def test_the_repl_monomorphiser_does_not_instantiate_a_higher_order_function_alone():
    from nessie.mono import Monomorphiser
    typed = check(TWICE + "function a3(g) : (int -> int) -> int = g(3);\na3(inc);")
    m = Monomorphiser()
    assert m.add(typed.items[0]) == [] and [f.name for f in m.add(typed.items[1])] == ["inc"]
    assert m.add(typed.items[2]) == []
    assert [getattr(i, "name", None) for i in m.add(typed.items[3])] == ["a3[inc]", None]
    with pytest.raises(TypeError, match="takes a function as an argument"):
        m.instantiate("a3", TFun(TFun(INT, INT), INT))
