"""``@`` of a sequence of scalars on the compiled path is printed by the host library straight
from the vector, a block at a time (issue 11: ``@`` of 50 million floats no longer needs 8 GB);
its float formatter is its own, compared here with the interpreter's printer."""
from __future__ import annotations

import io
import math

from hypothesis import given, settings
from hypothesis import strategies as st

from nessie import driver
from nessie.hostlib import strings as H
from nessie.interp import printing as P

EDGE = [0.0, -0.0, 0.1, 1e-3, 1e-4, 999999.9, 1234567.0, -2.5e-7, 5e300, 1e-310, math.inf,
        -math.inf, math.nan, 1 / 3, 2.0 ** 53, -1.5]


@settings(max_examples=3000, deadline=None, database=None)
@given(st.floats(allow_nan=True, allow_infinity=True))
def test_float_formatter_agrees_with_the_interpreter(x):
    assert H.format_float(x) == P.format_float(x)


def test_float_formatter_edges():
    for x in EDGE:
        assert H.format_float(x) == P.format_float(x), x


PROGRAM = """x = {float(i) * 1.5 - 7.0 : i in [0:70000]};
#(@x);
@{x : x in x | x < 20.0};
@[1, 2, -3];
@[T, F];
@"ab\\"c";
@[] float;
@[1.0e10, 0.0001, -0.0, 1.0 / 0.0, 0.0 / 0.0];
{@v : v in [[1, 2], [3], [] int]};
"""


def _run(fn) -> str:
    buf = io.StringIO()
    fn(buf)
    return buf.getvalue()


def test_at_of_scalar_sequences_on_every_backend():
    c = driver.compile_source(PROGRAM, "at.nesl")
    flat = driver.flatten(c)
    ref = _run(lambda o: driver.run_interp(c, o))
    assert "it = 625905 : int" in ref        # 70,000 floats: more than one block of 65,536
    assert _run(lambda o: driver.run_lcu(c, flat, o)) == ref
    assert _run(lambda o: driver.run_lcu(c, driver.fuse(flat)[0], o)) == ref
    assert _run(lambda o: driver.run_lcu(c, flat, o, runner=driver.make_runner("opencl"))) == ref
