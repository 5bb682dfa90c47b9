"""Chained pad(clamp|mirror|wrap) copy the index below them into each case: the generated C
grew exponentially (12 clamp pads: > 120 s).  Beyond LIFT_MAX_INDEX_NODES operations in one
read's index it is a located compile error (issue 11); a few pads still compile."""
import pytest

from lift_backend import LiftCompileError, compile_program, parse


def chain(k, b="clamp"):
    pads = " o ".join([f"pad(1, 1, {b})"] * k)
    return parse(f"program p(x: [float]N) = mapGlb(0)(id) o {pads} $ x", "t.lift").program("p")


@pytest.mark.parametrize("b", ["clamp", "mirror", "wrap"])
def test_long_pad_chains_are_refused(b):
    with pytest.raises(LiftCompileError) as ei:
        compile_program(chain(12, b), {"N": 8}, global_size=(32,))
    e = ei.value
    assert e.span is not None and (e.span.line, e.span.col) == (1, 26)
    assert e.message.startswith(f"pad({b}): the index expression of this read has more than 20000 operations")


@pytest.mark.parametrize("b", ["clamp", "mirror", "wrap"])
def test_short_pad_chains_compile(b):
    assert "out[" in compile_program(chain(3, b), {"N": 8}, global_size=(14,)).source
