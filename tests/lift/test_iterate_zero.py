"""iterate(0) is the identity (issue 11): its body, which never runs, is typed with an
unbounded length; the launch checks (a parallel map's int loop) looked at it and refused
the program ("mapLcl(0) over size / 2 = 2147483647 elements ... would overflow int")."""
import numpy as np
import pytest

from lift_backend import compile_program, parse

SRC = """userfun add(a: float, b: float): float { return a + b; }
program p(x: [float]N) = join o mapWrg(0)(toGlobal(mapLcl(0)(id)) o iterate(0)(join o mapLcl(0)(toLocal(mapSeq(id)) o reduceSeq(add, 0.0f)) o split(2)) o toLocal(mapLcl(0)(id))) o split(4) $ x
"""


@pytest.mark.opencl
@pytest.mark.parametrize("sizes", [None, {"N": 8}])
def test_iterate_zero_is_the_identity(runtime, sizes):
    x = np.arange(8, dtype=np.float32)
    k = compile_program(parse(SRC, "t.lift").program("p"), sizes)
    np.testing.assert_array_equal(runtime.run(k, {"x": x}, global_size=4, local_size=2), x)
