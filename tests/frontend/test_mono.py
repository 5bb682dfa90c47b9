"""Monomorphisation: one instance per ground type, deterministic names, no variables left."""
import pytest

from nessie.diagnostics import InternalError
from nessie.mono import check_mono, monomorphise, print_mono
from nessie.types import typed_ast as T
from nessie.types.types import INT, FLOAT, TFun, TPair, TSeq, free_vars

from fe_helpers import check


def mono(text):
    return monomorphise(check(text))


def funs(m):
    return [(it.name, it.orig_name) for it in m.items if isinstance(it, T.FunDef)]


def test_one_instance_per_type():
    m = mono("function dotp(a, b) = sum({x*y : x in a; y in b});\n"
             "dotp([1, 2], [3, 4]);\ndotp([1.0], [2.0]);\ndotp([5], [6]);")
    assert funs(m) == [("dotp<int>", "dotp"), ("dotp<float>", "dotp")]
    calls = [it.exp for it in m.items if isinstance(it, T.ExpItem)]
    assert [c.name for c in calls] == ["dotp<int>", "dotp<float>", "dotp<int>"]
    assert all(c.orig_name == "dotp" for c in calls)


def test_instances_come_before_their_users_and_recursion_is_preserved():
    m = mono("function qs(a) = if #a < 2 then a else let p = a[0] in "
             "qs({x in a | x < p}) ++ {x in a | x == p} ++ qs({x in a | x > p});\n"
             "function twice(s) = qs(qs(s));\n"
             "twice(\"hello\");")
    names = [getattr(it, "name", None) for it in m.items]
    assert names == ["qs<char>", "twice<char>", None]
    body_calls = [n.name for n in T.iter_nodes(m.items[0]) if isinstance(n, T.Call)
                  and n.kind == T.USER]
    assert body_calls == ["qs<char>", "qs<char>"]


def test_monomorphic_functions_are_always_emitted():
    m = mono("function inc(x) = x + 1;\nfunction idf(x) = x;")
    assert funs(m) == [("inc", "inc")]


def test_builtin_calls_get_ground_instance_types_and_defaults():
    m = mono("function len(s) = #s;\nlen([] [float]);\n#[];")
    for it in m.items:
        for n in T.iter_nodes(it):
            for attr in ("type", "fun_type"):
                t = getattr(n, attr, None)
                if t is not None:
                    assert not free_vars(t)
    assert funs(m) == [("len<[float]>", "len")] or funs(m) == [("len<float>", "len")]
    last = m.items[-1].exp
    assert last.fun_type == TFun(TSeq(INT), INT)


def test_multiple_type_variables_and_names():
    m = mono("function fst2(a, b) = a;\nfst2(1, 2.5);\nfst2(\"x\", `c);")
    assert funs(m) == [("fst2<int, float>", "fst2"), ("fst2<[char], char>", "fst2")]
    assert m.items[0].type_args == (INT, FLOAT)
    assert m.items[0].fun_type == TFun(TPair(INT, FLOAT), INT)


def test_extra_instances_for_the_python_api():
    t = check("function dotp(a, b) = sum({x*y : x in a; y in b});")
    m = monomorphise(t, extra_instances=[("dotp", TFun(TPair(TSeq(FLOAT), TSeq(FLOAT)),
                                                        FLOAT))])
    assert funs(m) == [("dotp<float>", "dotp")]
    assert m.function("dotp<float>") is not None


def test_redefined_functions_get_versioned_names():
    m = mono("function g1(x) = x;\ng1(1);\nfunction g1(x) = (x, x);\ng1(2);")
    assert funs(m) == [("g1<int>", "g1"), ("g1~2<int>", "g1")]


def test_print_mono():
    out = print_mono(mono("function dotp(a, b) = sum({x*y : x in a; y in b});\n"
                          "dotp([1, 2], [3, 4]);"))
    assert out == ("function dotp<int>(a, b) : ([int], [int]) -> int = "
                   "sum({x * y : x in a; y in b});\n"
                   "dotp<int>([1, 2], [3, 4]);  % it : int %\n")


def test_check_mono_rejects_type_variables():
    t = check("function idf(x) = x;")
    bad = type("P", (), {"items": (t.items[0],)})()
    with pytest.raises(InternalError):
        check_mono(bad)


def test_incremental_monomorphiser():
    from nessie.mono import Monomorphiser
    t = check("function sq(x) = x * x;\nsq(2);\nsq(2.0);\nsq(3);")
    m = Monomorphiser()
    assert m.add(t.items[0]) == []
    new = m.add(t.items[1])
    assert [getattr(i, "name", None) for i in new] == ["sq<int>", None]
    new = m.add(t.items[2])
    assert [getattr(i, "name", None) for i in new] == ["sq<float>", None]
    new = m.add(t.items[3])
    assert [getattr(i, "name", None) for i in new] == [None]
    assert m.instantiate("sq", TFun(INT, INT)) == "sq<int>"
