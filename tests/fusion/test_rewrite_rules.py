"""The fusion rewrite rules as data (``lambda_cu.fusion.rewrite.RULES``, issue 13): every rule of
the table, applied alone by the engine to a small hand-written λcu kernel (parsed from text with
``lambda_cu.parser``), gives the expected printed kernel and the same results on the numpy
runner; and each has a case where its pattern matches but its side condition refuses, leaving
the kernel as it was.  A rule without both kinds of test fails ``test_every_rule_has_tests``."""
import os
from dataclasses import dataclass

import numpy as np
import pytest

from lambda_cu.check import check_kernel
from lambda_cu.fusion.rewrite import (RULES, Horizontal, Vertical, candidates, fuse_kernel, rule,
                                      table_text)
from lambda_cu.interp import NumpyRunner
from lambda_cu.parser import parse_kernel
from lambda_cu.values import SegDes

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def lines(node) -> list[str]:
    return str(node).strip("\n").split("\n")


def ints(*xs):
    return np.array(xs, dtype=np.int32)


@dataclass(frozen=True)
class Case:
    rule: str
    source: str                 # the kernel, printed λcu
    expected: tuple = ()        # the fused kernel's printed lines; () when the rule refuses
    applied: tuple = ()         # the rule instances applied, in order
    args: tuple = ()            # arguments for the numpy runner (fired cases)

    @property
    def fires(self) -> bool:
        return bool(self.expected)


CASES = [
    # ---------------------------------------------------------------- FILTER-REDUCE (Fig. 5)
    Case("FILTER-REDUCE",
         "kernel K (xs : [int], n : int) -> int {\n"
         "  let a = FILTER { i => xs[i] using xs } { x => x > 0 } (n)\n"
         "  let b = REDUCE { i => a[i] * 2 using a } (0) { (x, y) => x + y } (#a)\n"
         "  return b\n"
         "}",
         ("kernel K (xs : [int], n : int) -> int {",
          "  let b = REDUCE { i_0 => let a_3 = xs[i_0] in if a_3 > 0 then a_3 * 2 else 0 using xs }"
          " (0) { (x, y) => x + y } (n)",
          "  return b",
          "}"),
         ("FILTER-REDUCE",), (ints(3, -1, 4, 0, 5), 5)),
    # refused: the consumer reads A at a position other than its index (A[0])
    Case("FILTER-REDUCE",
         "kernel K (xs : [int], n : int) -> int {\n"
         "  let a = FILTER { i => xs[i] using xs } { x => x > 0 } (n)\n"
         "  let b = REDUCE { i => a[i] * a[0] using a } (0) { (x, y) => x + y } (#a)\n"
         "  return b\n"
         "}"),
    # ---------------------------------------------------------------- FILTER-FILTER (Fig. 5)
    Case("FILTER-FILTER",
         "kernel K (xs : [int], n : int) -> [int] {\n"
         "  let a = FILTER { i => xs[i] using xs } { x => x != 0 } (n)\n"
         "  let b = FILTER { i => a[i] using a } { y => 10 / y > 1 } (#a)\n"
         "  return b\n"
         "}",
         ("kernel K (xs : [int], n : int) -> [int] {",
          "  let (b, b_kept) = FILTER { i_1 => let a_4 = xs[i_1] in if a_4 != 0 then (a_4, true)"
          " else (0, false) using xs } { (y_6, keep) => if keep then 10 / y_6 > 1 else false } (n)",
          "  return b",
          "}"),
         ("FILTER-FILTER",), (ints(0, 3, 20, -4, 0, 1), 6)),
    # refused: the consumer also reads xs at its index, which lives in A's index space
    Case("FILTER-FILTER",
         "kernel K (xs : [int], n : int) -> [int] {\n"
         "  let a = FILTER { i => xs[i] using xs } { x => x != 0 } (n)\n"
         "  let b = FILTER { i => a[i] + xs[i] using a, xs } { y => 10 / y > 1 } (#a)\n"
         "  return b\n"
         "}"),
    # refused: the consumer uses its index itself (an index of A's output, not of A's input:
    # fused, ``a[i] * i`` summed 26 for 5 * 1 + 7 * 3 where the filtered sum is 7)
    Case("FILTER-REDUCE",
         "kernel K (xs : [int], n : int) -> int {\n"
         "  let a = FILTER { i => xs[i] using xs } { x => x > 0 } (n)\n"
         "  let b = REDUCE { i => a[i] * i using a } (0) { (x, y) => x + y } (#a)\n"
         "  return b\n"
         "}"),
    # fires: a gather at A's value (``ws[a[i]]``) reads ws at the fused element's value
    Case("FILTER-REDUCE",
         "kernel K (ws : [int], xs : [int], n : int) -> int {\n"
         "  let a = FILTER { i => xs[i] using xs } { x => x >= 0 && x < #ws using ws } (n)\n"
         "  let b = REDUCE { i => ws[a[i]] using ws, a } (0) { (x, y) => x + y } (#a)\n"
         "  return b\n"
         "}",
         ("kernel K (ws : [int], xs : [int], n : int) -> int {",
          "  let b = REDUCE { i_0 => let a_3 = xs[i_0] in if a_3 >= 0 && a_3 < #ws then ws[a_3] else 0"
          " using ws, xs } (0) { (x, y) => x + y } (n)",
          "  return b",
          "}"),
         ("FILTER-REDUCE",), (ints(10, 20, 30), ints(2, -1, 7, 0, 2), 5)),
    # ---------------------------------------------------------------- FILTER-MAP (Robinson et al.)
    # the flattener's filter (kept indices, then a gather): the gather reads a vector of the
    # filter's size at the element's index, computed beside the flag for every element
    Case("FILTER-MAP",
         "kernel K (ws : [int], fl : [bool], n : int) -> [int] {\n"
         "  let a = FILTER { i => i } { x => fl[x] using fl } (#ws)\n"
         "  let b = MAP { i => ws[a[i]] using ws, a } (#a)\n"
         "  return b\n"
         "}",
         ("kernel K (ws : [int], fl : [bool], n : int) -> [int] {",
          "  let (b, b_kept) = FILTER { i_0 => (ws[i_0], fl[i_0]) using ws, fl } { (y, keep) => keep } (#ws)",
          "  return b",
          "}"),
         ("FILTER-MAP",), (ints(5, 6, 7, 8), np.array([True, False, False, True]), 4)),
    # a consumer that can fail is evaluated only where A keeps the element
    Case("FILTER-MAP",
         "kernel K (xs : [int], n : int) -> [int] {\n"
         "  let a = FILTER { i => xs[i] using xs } { x => x != 0 } (n)\n"
         "  let b = MAP { i => 100 / a[i] using a } (#a)\n"
         "  return b\n"
         "}",
         ("kernel K (xs : [int], n : int) -> [int] {",
          "  let (b, b_kept) = FILTER { i_5 => let a_8 = xs[i_5] in if a_8 != 0 then (100 / a_8, true)"
          " else (0, false) using xs } { (y_10, keep) => keep } (n)",
          "  return b",
          "}"),
         ("FILTER-MAP",), (ints(0, 3, 0, -7, 50), 5)),
    # refused: A is needed beside B (returned, or read by another binding: fused, the kernel
    # would filter twice)
    Case("FILTER-MAP",
         "kernel K (ws : [int], fl : [bool]) -> ([int], [int]) {\n"
         "  let a = FILTER { i => i } { x => fl[x] using fl } (#ws)\n"
         "  let b = MAP { i => ws[a[i]] using ws, a } (#a)\n"
         "  return (b, a)\n"
         "}"),
    # refused: the consumer uses its index (a position in A's output)
    Case("FILTER-MAP",
         "kernel K (xs : [int], n : int) -> [int] {\n"
         "  let a = FILTER { i => xs[i] using xs } { x => x > 0 } (n)\n"
         "  let b = MAP { i => a[i] + i using a } (#a)\n"
         "  return b\n"
         "}"),
    # ---------------------------------------------------------------- SEG_FILTER-SEG_REDUCE
    Case("SEG_FILTER-SEG_REDUCE",
         "kernel K (xs : [int], sd : sd) -> [int] {\n"
         "  let (a, asd) = SEG_FILTER { i => xs[i] using xs } { x => x > 0 } (sd)\n"
         "  let b = SEG_REDUCE { i => a[i] using a } (0) { (x, y) => x + y } (asd)\n"
         "  return b\n"
         "}",
         ("kernel K (xs : [int], sd : sd) -> [int] {",
          "  let b = SEG_REDUCE { i_0 => let a_3 = xs[i_0] in if a_3 > 0 then a_3 else 0 using xs }"
          " (0) { (x, y) => x + y } (sd)",
          "  return b",
          "}"),
         ("SEG_FILTER-SEG_REDUCE",), (ints(1, -2, 3, -4, 5, 6), SegDes([2, 0, 3, 1]))),
    # refused: the consumer's thunk reads A's descriptor
    Case("SEG_FILTER-SEG_REDUCE",
         "kernel K (xs : [int], sd : sd) -> [int] {\n"
         "  let (a, asd) = SEG_FILTER { i => xs[i] using xs } { x => x > 0 } (sd)\n"
         "  let b = SEG_REDUCE { i => a[i] + seg_lengths(asd)[0] using a, asd } (0)"
         " { (x, y) => x + y } (asd)\n"
         "  return b\n"
         "}"),
    # ---------------------------------------------------------------- PERMUTE-PERMUTE
    Case("PERMUTE-PERMUTE",
         "kernel K (xs : [int], n : int) -> [int] {\n"
         "  let a = PERMUTE { i => xs[i] * 2 using xs } { i => n - 1 - i using n } (n)\n"
         "  let b = PERMUTE { i => a[i] + 1 using a } { i => rem(i + 1, n) using n } (n)\n"
         "  return b\n"
         "}",
         ("kernel K (xs : [int], n : int) -> [int] {",
          "  let b = PERMUTE { j => let a_4 = xs[j] * 2 in let i_0 = n - 1 - j in"
          " if 0 <= i_0 && i_0 < n then a_4 + 1 else 0 using xs, n }"
          " { j => let i_1 = n - 1 - j in if 0 <= i_1 && i_1 < n then rem(i_1 + 1, n) else -1"
          " using n } (n)",
          "  return b",
          "}"),
         ("PERMUTE-PERMUTE",), (ints(5, 6, 7, 8), 4)),
    # refused: the consumer reads A in its index thunk (data-dependent targets)
    Case("PERMUTE-PERMUTE",
         "kernel K (xs : [int], n : int) -> [int] {\n"
         "  let a = PERMUTE { i => xs[i] * 2 using xs } { i => n - 1 - i using n } (n)\n"
         "  let b = PERMUTE { i => xs[i] using xs } { i => a[i] using a } (n)\n"
         "  return b\n"
         "}"),
    # ---------------------------------------------------------------- MAP-X (Fig. 5: MAP-MAP,
    # MAP-PERMUTE, MAP-REDUCE, and every other consumer but ONCE)
    Case("MAP-X",
         "kernel K (xs : [int], n : int) -> [int] {\n"
         "  let a = MAP { i => xs[i] * 2 using xs } (n)\n"
         "  let b = MAP { i => a[i] + 1 using a } (n)\n"
         "  return b\n"
         "}",
         ("kernel K (xs : [int], n : int) -> [int] {",
          "  let b = MAP { i_0 => let a_2 = xs[i_0] * 2 in a_2 + 1 using xs } (n)",
          "  return b",
          "}"),
         ("MAP-MAP",), (ints(1, 2, 3), 3)),
    Case("MAP-X",
         "kernel K (xs : [int], n : int) -> [int] {\n"
         "  let a = MAP { i => xs[i] * 2 using xs } (n)\n"
         "  let b = PERMUTE { i => a[i] + 1 using a } { i => n - 1 - i using n } (n)\n"
         "  return b\n"
         "}",
         ("kernel K (xs : [int], n : int) -> [int] {",
          "  let b = PERMUTE { i_0 => let a_2 = xs[i_0] * 2 in a_2 + 1 using xs }"
          " { i => n - 1 - i using n } (n)",
          "  return b",
          "}"),
         ("MAP-PERMUTE",), (ints(1, 2, 3), 3)),
    Case("MAP-X",
         "kernel K (xs : [int], n : int) -> int {\n"
         "  let a = MAP { i => xs[i] * 2 using xs } (n)\n"
         "  let b = REDUCE { i => a[i] + 1 using a } (0) { (x, y) => x + y } (n)\n"
         "  return b\n"
         "}",
         ("kernel K (xs : [int], n : int) -> int {",
          "  let b = REDUCE { i_0 => let a_2 = xs[i_0] * 2 in a_2 + 1 using xs } (0)"
          " { (x, y) => x + y } (n)",
          "  return b",
          "}"),
         ("MAP-REDUCE",), (ints(1, 2, 3), 3)),
    # refused: the consumer reads A at a position other than its index (a reversal)
    Case("MAP-X",
         "kernel K (xs : [int], n : int) -> [int] {\n"
         "  let a = MAP { i => xs[i] * 2 using xs } (n)\n"
         "  let b = MAP { i => a[n - 1 - i] using a, n } (n)\n"
         "  return b\n"
         "}"),
    # ---------------------------------------------------------------- X+X (horizontal)
    Case("X+X",
         "kernel K (xs : [int], n : int) -> (int, int) {\n"
         "  let a = REDUCE { i => xs[i] using xs } (0) { (x, y) => x + y } (n)\n"
         "  let b = REDUCE { i => xs[i] * xs[i] using xs } (0) { (x, y) => max(x, y) } (n)\n"
         "  return (a, b)\n"
         "}",
         ("kernel K (xs : [int], n : int) -> (int, int) {",
          "  let (a, b) = REDUCE { i_0 => (xs[i_0], xs[i_0] * xs[i_0]) using xs } (0, 0)"
          " { (l, r) => (l.0 + r.0, max(l.1, r.1)) } (n)",
          "  return (a, b)",
          "}"),
         ("REDUCE+REDUCE",), (ints(3, -5, 2), 3)),
    Case("X+X",
         "kernel K (xs : [int], n : int) -> ([int], [int]) {\n"
         "  let a = MAP { i => xs[i] + 1 using xs } (n)\n"
         "  let b = MAP { i => xs[i] * 3 using xs } (n)\n"
         "  return (a, b)\n"
         "}",
         ("kernel K (xs : [int], n : int) -> ([int], [int]) {",
          "  let (a, b) = MAP { i_0 => (xs[i_0] + 1, xs[i_0] * 3) using xs } (n)",
          "  return (a, b)",
          "}"),
         ("MAP+MAP",), (ints(3, -5, 2), 3)),
    # refused: the two sizes are not known to be equal
    Case("X+X",
         "kernel K (xs : [int], ys : [int]) -> (int, int) {\n"
         "  let a = REDUCE { i => xs[i] using xs } (0) { (x, y) => x + y } (#xs)\n"
         "  let b = REDUCE { i => ys[i] using ys } (0) { (x, y) => x + y } (#ys)\n"
         "  return (a, b)\n"
         "}"),
]


def _id(c: Case) -> str:
    return f"{c.rule}:{'fires' if c.fires else 'refuses'}:{CASES.index(c)}"


def _same(x, y):
    if isinstance(x, tuple):
        assert isinstance(y, tuple) and len(x) == len(y)
        for a, b in zip(x, y):
            _same(a, b)
    else:
        assert np.array_equal(np.asarray(x), np.asarray(y)), (x, y)


@pytest.mark.parametrize("case", [c for c in CASES if c.fires], ids=_id)
def test_rule_fires(case):
    k = parse_kernel(case.source)
    fused, applied = fuse_kernel(k, rules=(rule(case.rule),))
    assert applied == case.applied
    assert lines(fused) == list(case.expected)
    check_kernel(fused)
    assert fused.params == k.params and fused.returns == k.returns
    runner = NumpyRunner()
    _same(runner.run_kernel(k, list(case.args)), runner.run_kernel(fused, list(case.args)))


@pytest.mark.parametrize("case", [c for c in CASES if not c.fires], ids=_id)
def test_side_condition_refuses(case):
    k = parse_kernel(case.source)
    # the pattern matches, the side condition says no ...
    seen = [(name, ok) for name, _, _, ok in candidates(k, (rule(case.rule),))]
    assert seen == [(case.rule, False)]
    # ... and the engine leaves the kernel as it was
    fused, applied = fuse_kernel(k, rules=(rule(case.rule),))
    assert applied == ()
    assert lines(fused) == lines(k)


def test_every_rule_has_tests():
    """A rule added to the table without a test that fires it and one that refuses it fails
    here."""
    names = [r.name for r in RULES]
    assert len(set(names)) == len(names), "rule names must be unique"
    fires = {c.rule for c in CASES if c.fires}
    refuses = {c.rule for c in CASES if not c.fires}
    assert set(names) - fires == set(), "rules without a test where they fire"
    assert set(names) - refuses == set(), "rules without a test where the side condition refuses"
    assert (fires | refuses) - set(names) == set(), "tests of rules not in the table"


def test_rules_are_values():
    for r in RULES:
        assert isinstance(r.pattern, (Vertical, Horizontal))
        assert r.condition_text, f"{r.name}: the side condition needs a docstring"
        assert r.replacement
        hash(r.pattern)     # frozen, structural patterns
    with pytest.raises(Exception):
        RULES[0].name = "X"


def test_engine_tries_the_rules_in_table_order():
    """A FILTER feeding a REDUCE through a MAP of its own index space: the table's earlier rule
    (FILTER-REDUCE, before MAP-X) is tried first over every pair, whatever the pairs' order."""
    k = parse_kernel(
        "kernel K (xs : [int], ys : [int], n : int) -> (int, [int]) {\n"
        "  let m = MAP { i => ys[i] + 1 using ys } (n)\n"
        "  let a = FILTER { i => xs[i] using xs } { x => x > 0 } (n)\n"
        "  let b = REDUCE { i => a[i] using a } (0) { (x, y) => x + y } (#a)\n"
        "  let c = MAP { i => m[i] * 2 using m } (n)\n"
        "  return (b, c)\n"
        "}")
    order = [name for name, _, _, ok in candidates(k) if ok]
    assert order[:2] == ["FILTER-REDUCE", "MAP-X"]
    _, applied = fuse_kernel(k)
    assert applied[:2] == ("FILTER-REDUCE", "MAP-MAP")


def test_horizontal_pattern_needs_independent_bindings():
    """Two MAPs of one size where the second reads the first: no X+X match (MAP-X's pair)."""
    k = parse_kernel("kernel K (xs : [int], n : int) -> ([int], [int]) {\n"
                     "  let a = MAP { i => xs[i] + 1 using xs } (n)\n"
                     "  let b = MAP { i => a[i] * 3 using a } (n)\n"
                     "  return (a, b)\n"
                     "}")
    assert candidates(k, (rule("X+X"),)) == ()
    assert [c[0] for c in candidates(k)] == ["MAP-X"]


def test_table_text_and_architecture_doc_list_every_rule():
    text = table_text()
    with open(os.path.join(ROOT, "docs", "architecture.md"), encoding="utf-8") as f:
        doc = f.read()
    for r in RULES:
        assert f"\n{r.name}\n" in f"\n{text}\n"
        assert f"`{r.name}`" in doc, f"docs/architecture.md does not list rule {r.name}"
