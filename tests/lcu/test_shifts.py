"""``lshift``/``rshift`` by any count, on every backend (issue 11: ``rshift(8, -1)`` was 16 on
the interpreter and 0 on λcu).

The definition is CMU NESL's: its VCODE/CVL runtime does C's ``a << b`` / ``a >> b`` on ints, and
on x86 the count is taken modulo the width (its low 5 bits; 6 for 64-bit ints).  The right shift
is arithmetic.  Checked against a model of that, and against hand-computed values, on the
reference interpreter (32 and 64-bit), flattened λcu (unfused and fused, on the numpy runner) and
the λcu primitive itself; host scalars, uniform and lifted operands.
"""
from __future__ import annotations

import io

import numpy as np
import pytest

from lambda_cu.interp import apply_prim
from nessie import driver

XS = [8, -8, 1, -1, 123456789, -123456789, 2**31 - 1, -2**31]
COUNTS = [-1, -33, 31, 32, 33, 0, 1, -32, 63, 64, -65]


def model(op: str, x: int, n: int, bits: int = 32) -> int:
    k = n % bits                      # the low log2(bits) bits of the two's-complement count
    if op == "rshift":
        return x >> k
    r = (x << k) % 2**bits
    return r - 2**bits if r >= 2**(bits - 1) else r


HAND = [  # (op, x, n, 32-bit result)
    ("rshift", 8, -1, 0), ("lshift", 8, -1, 0), ("rshift", 8, 33, 4), ("lshift", 1, 33, 2),
    ("rshift", -8, 33, -4), ("lshift", 1, -1, -2**31), ("rshift", -1, 31, -1),
    ("rshift", -2**31, 31, -1), ("lshift", -1, 32, -1), ("rshift", 5, 32, 5),
    ("lshift", 3, -33, -2**31), ("rshift", -8, -33, -1), ("lshift", 5, 0, 5), ("rshift", -5, 0, -5),
    ("rshift", 2**31 - 1, 31, 0), ("lshift", 123456789, 31, -2**31),
]


@pytest.mark.parametrize("op,x,n,want", HAND)
def test_model_matches_hand_computed_values(op, x, n, want):
    assert model(op, x, n) == want


def lit(v: int) -> str:
    if v == -2**31:
        return "min_int"
    return f"({v})" if v < 0 else str(v)


def seq(vs) -> str:
    return "[" + ", ".join(lit(v) for v in vs) + "]"


def program() -> tuple[str, str]:
    """A program applying both shifts to every (x, n) pair three ways (host scalars, a uniform
    operand in an apply-to-each, both lifted), and the output it must print."""
    src, out = [], []
    pairs = [(x, n) for x in XS for n in COUNTS]
    # host scalars
    for op, x, n, _ in HAND:
        src.append(f"{op}({lit(x)}, {lit(n)});")
        out.append(f"it = {model(op, x, n)} : int")
    # uniform x, lifted n
    for x in XS:
        src.append(f"{{(lshift({lit(x)}, n), rshift({lit(x)}, n)) : n in {seq(COUNTS)}}};")
        out.append("it = [" + ", ".join(f"({model('lshift', x, n)}, {model('rshift', x, n)})"
                                        for n in COUNTS) + "] : [(int, int)]")
    # both lifted
    xs, ns = [p[0] for p in pairs], [p[1] for p in pairs]
    src.append(f"{{(lshift(x, n), rshift(x, n)) : x in {seq(xs)}; n in {seq(ns)}}};")
    out.append("it = [" + ", ".join(f"({model('lshift', x, n)}, {model('rshift', x, n)})"
                                    for x, n in pairs) + "] : [(int, int)]")
    # nested, with the count computed per element
    src.append(f"{{{{rshift(x, n - 40) : n in {seq(COUNTS)}}} : x in {seq(XS)}}};")
    out.append("it = [" + ", ".join("[" + ", ".join(str(model("rshift", x, n - 40)) for n in COUNTS) + "]"
                                    for x in XS) + "] : [[int]]")
    return "\n".join(src) + "\n", "\n".join(out) + "\n"


def _run(fn) -> str:
    """The printed results with white space normalised: long result lines wrap as the
    original wraps them (width 120), which is not what this test is about."""
    buf = io.StringIO()
    fn(buf)
    return _ws(buf.getvalue())


def _ws(text: str) -> str:
    return " ".join(text.split())


@pytest.fixture(scope="module")
def compiled():
    src, want = program()
    return driver.compile_source(src, "shifts.nesl"), want


def test_interp(compiled):
    c, want = compiled
    assert _run(lambda o: driver.run_interp(c, o, print_length=1000)) == _ws(want)


def test_lcu_unfused(compiled):
    c, want = compiled
    flat = driver.flatten(c)
    assert _run(lambda o: driver.run_lcu(c, flat, o, print_length=1000)) == _ws(want)


def test_lcu_fused(compiled):
    c, want = compiled
    fused, _ = driver.fuse(driver.flatten(c))
    assert _run(lambda o: driver.run_lcu(c, fused, o, print_length=1000)) == _ws(want)


def test_interp_int64():
    def lit(v):
        return f"({v})" if v < 0 else str(v)
    src = "\n".join(f"({op}({lit(x)}, {lit(n)}), {op}({lit(x)} * 4294967296, {lit(n)}));"
                    for op in ("lshift", "rshift") for x in XS for n in COUNTS) + "\n"
    want = "".join(f"it = ({model(op, x, n, 64)}, {model(op, x * 2**32, n, 64)}) : int, int\n"
                   for op in ("lshift", "rshift") for x in XS for n in COUNTS)
    c = driver.compile_source(src, "shifts64.nesl")
    assert _run(lambda o: driver.run_interp(c, o, int_bits=64)) == _ws(want)


@pytest.mark.parametrize("dt,bits", [(np.int32, 32), (np.int64, 64)])
def test_lcu_primitive(dt, bits):
    xs = np.array([x for x in XS for _ in COUNTS], dtype=dt)
    ns = np.array([n for _ in XS for n in COUNTS], dtype=dt)
    for op in ("lshift", "rshift"):
        got = apply_prim(op, [xs, ns])
        assert [int(v) for v in got] == [model(op, int(x), int(n), bits) for x, n in zip(xs, ns)]
        # scalars, and a count of the other width
        assert int(apply_prim(op, [dt(8), dt(-1)])) == model(op, 8, -1, bits)
        other = np.int64 if dt == np.int32 else np.int32
        assert int(apply_prim(op, [dt(-8), other(33)])) == model(op, -8, 33, bits)
