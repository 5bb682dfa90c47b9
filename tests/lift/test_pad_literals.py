"""``pad(l, r, v)`` with a constant boundary ``v``: the language writes ``int``, ``float`` and
``double`` literals only, so an ``int`` literal is also accepted for ``long``, ``uint`` and
``char`` elements within their ranges (and, since session 40, for ``float`` and ``double``
elements that hold it exactly: test_hunt_s40), and a ``float`` literal for ``double`` elements
(C converts them exactly); anything else is a located type error (a hunt, session 33: constant
padding of a ``[long]`` or ``[char]`` array could not be written at all)."""
import numpy as np
import pytest

from lift_backend import LiftError, compile_program, parse


def prog(elem: str, boundary: str):
    return parse(f"program p(x: [{elem}]N) = mapGlb(0)(toGlobal(id)) $ pad(1, 2, {boundary}) $ x",
                 "pad.lift").program("p")


@pytest.mark.opencl
@pytest.mark.parametrize("elem,dtype,boundary,value", [
    ("long", np.int64, "5", 5), ("long", np.int64, "-7", -7), ("uint", np.uint32, "7", 7),
    ("char", np.int8, "127", 127), ("char", np.int8, "-128", -128), ("double", np.float64, "0.5f", 0.5), ("int", np.int32, "-3", -3)])
def test_literal_boundaries(runtime, elem, dtype, boundary, value):
    x = np.array([1, 2, 3], dtype)
    out = runtime.run(compile_program(prog(elem, boundary)), {"x": x}, global_size=8)
    assert out.dtype == dtype
    assert out.tolist() == [value, 1, 2, 3, value, value]


@pytest.mark.parametrize("elem,boundary", [("long", "1.5f"), ("float", "2.0"), ("int", "2.0f")])
def test_literals_that_do_not_convert_exactly_are_type_errors(elem, boundary):
    with pytest.raises(LiftError, match=f"pad: the boundary value has type .*, the elements have "
                                        f"type {elem}"):
        compile_program(prog(elem, boundary))


@pytest.mark.parametrize("elem,boundary", [("char", "128"), ("char", "-129"), ("uint", "-1")])
def test_int_literals_beyond_the_element_type_are_out_of_range(elem, boundary):
    # (test_hunt_s39b: said "has type int", located at the pad)
    with pytest.raises(LiftError, match=f"pad: the boundary value {boundary} is out of range for the "
                                        f"elements of type {elem}"):
        compile_program(prog(elem, boundary))
