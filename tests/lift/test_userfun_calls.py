"""A user function whose C body calls another user function defined before it (a hunt, session
33: the callee was not emitted unless the program used it too, and the OpenCL build failed with
``use of undeclared identifier``).  The callee is built before its caller, printed before it,
and used by the per-component form of ``mapVec``; a call to itself or to a function defined
later is a located error."""
import numpy as np
import pytest

from lift_backend import LiftError, compile_program, parse
from lift_backend.syntax import file_text

SRC = """userfun f(a: float): float { return a * 2.0f; }
userfun h(a: float, b: float): float { float t = f(a); return t > b ? t : b; }
userfun g(a: float): float { return f(a) + h(a, 1.0f); }
program p(x: [float]N) = mapGlb(0)(toGlobal(g)) $ x
program v(x: [float]N) = asScalar o mapGlb(0)(toGlobal(mapVec(g))) o asVector(4) $ x
"""


def want(x):
    f = x * 2
    return f + np.maximum(f, 1.0)


@pytest.mark.opencl
@pytest.mark.parametrize("name", ["p", "v"])
def test_calls_run(runtime, name):
    x = np.linspace(-2, 2, 16).astype(np.float32)
    k = compile_program(parse(SRC, "c.lift").program(name))
    assert k.source.index("float f(") < k.source.index("float h(") < k.source.index("float g(")
    np.testing.assert_allclose(runtime.run(k, {"x": x}, global_size=4), want(x), rtol=1e-6)


def test_printed_with_the_callees_first_and_parsed_back():
    p = parse(SRC, "c.lift").program("p")
    text = file_text([p])
    assert text.index("userfun f(") < text.index("userfun h(") < text.index("userfun g(")
    again = parse(text, "d.lift").program("p")
    assert file_text([again]) == text
    assert compile_program(again).source == compile_program(p).source


def test_a_call_to_itself_is_an_error():
    with pytest.raises(LiftError, match=r"r.lift:1:9: error: user function f calls itself"):
        parse("userfun f(a: int): int { return a > 0 ? f(a - 1) : 0; }\n"
              "program p(x: [int]N) = mapGlb(0)(toGlobal(f)) $ x", "r.lift")


def test_a_call_to_a_later_function_is_an_error():
    with pytest.raises(LiftError, match=r"user function g calls f, which is defined after it: "
                                        r"define f first"):
        parse("userfun g(a: int): int { return f(a) + 1; }\n"
              "userfun f(a: int): int { return a; }\n"
              "program p(x: [int]N) = mapGlb(0)(toGlobal(g)) $ x", "l.lift")


def test_a_member_or_a_longer_name_is_no_call():
    """``s.f(`` and ``ff(`` do not call ``f``."""
    m = parse("userfun f(a: int): int { return a; }\n"
              "userfun ff(a: int): int { return a + 1; }\n"
              "userfun g(a: int): int { return ff(a); }\n"
              "program p(x: [int]N) = mapGlb(0)(toGlobal(g)) $ x", "m.lift")
    assert [u.name for u in m.program("p").body.f.f.f.calls] == ["ff"]
