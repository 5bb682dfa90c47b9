"""``sort``, ``rank`` and ``rank_down`` of elements that are not scalars (issue 10): NESL's types
admit only ordinal elements, but the flattener orders any element type lexicographically (the
order-preserving ids of ``nessie/flatten/builtins.py``: successive stable rank passes for tuples,
prefix doubling for sequences), as the reference interpreter orders Python tuples.  The calls are
built directly in the typed program (the type checker would reject them), then run on the
interpreter and on flattened λcu."""
from __future__ import annotations

import dataclasses
import io

import pytest

from nessie import driver
from nessie.mono import MonoProgram
from nessie.types import typed_ast as T
from nessie.types import types as nt

CASES = [
    ("sort", "[(2, 1), (1, 5), (2, 0), (1, 5), (-3, 9)]"),
    ("rank", "[(2, 1), (1, 5), (2, 0), (1, 5), (-3, 9)]"),
    ("rank_down", "[(2, 1), (1, 5), (2, 0), (1, 5), (-3, 9)]"),
    ("sort", "[(`b, (1.5, T)), (`a, (2.0, F)), (`b, (1.5, F)), (`a, (-0.0, T)), (`a, (0.0, F))]"),
    ("rank", "[(T, 2), (F, 3), (T, 1)]"),
    ("sort", "[] (int, float)"),
]


def _with_call(src: str, name: str):
    c = driver.compile_source(src + ";", "order.nesl")
    item = c.mono.items[-1]
    arg = item.exp
    res = arg.type if name == "sort" else nt.TSeq(nt.TBase("int"))
    call = T.Call(name, T.BUILTIN, arg, nt.TFun(arg.type, res), res, arg.span)
    mono = MonoProgram(c.mono.items[:-1] + (dataclasses.replace(item, exp=call),))
    typed = T.TypedProgram(c.typed.items[:-1] + (dataclasses.replace(item, exp=call),),
                           c.typed.env)
    return driver.Compiled(c.filename, typed, mono)


@pytest.mark.parametrize("name,src", CASES)
def test_nonscalar_order(name, src):
    c = _with_call(src, name)
    ref = io.StringIO()
    driver.run_interp(c, ref)
    flat = driver.flatten(c)
    assert not flat.externs, "no host call: a data-parallel sort"
    for prog in (flat, driver.fuse(flat)[0]):
        out = io.StringIO()
        driver.run_lcu(c, prog, out)
        assert out.getvalue() == ref.getvalue()


def test_expected_order():
    c = _with_call("[(2, 1), (1, 5), (2, 0), (1, 5), (-3, 9)]", "sort")
    out = io.StringIO()
    driver.run_lcu(c, driver.flatten(c), out)
    assert out.getvalue() == "it = [(-3, 9), (1, 5), (1, 5), (2, 0), (2, 1)] : [(int, int)]\n"


@pytest.mark.parametrize("name,src,expected", [
    # sequences: lexicographic, a sequence before its extensions (the interpreter has no order
    # of sequences: expected values)
    ("rank_down", "[(1, [2, 3]), (1, [2]), (0, [9]), (1, [2, 3])]", "[0, 2, 3, 1] : [int]"),
    ("sort", '["b", "ab", "", "abc", "a", "ab"]', '["", "a", "ab", "ab", "abc", "b"] : [[char]]'),
    ("rank", "[[[1], []], [[1]], [], [[0, 5]]]", "[3, 2, 0, 1] : [int]"),
])
def test_sequence_order(name, src, expected):
    c = _with_call(src, name)
    for prog in (driver.flatten(c), driver.fuse(driver.flatten(c))[0]):
        out = io.StringIO()
        driver.run_lcu(c, prog, out)
        assert out.getvalue() == f"it = {expected}\n"
