"""Library functions whose definition overflowed int for extreme arguments (issue 11, found by a
hunt): ``rotate`` by a count near min_int (``i - r`` wrapped: wrong elements, not even a
permutation), ``group_by`` with a group size near max_int (``#s + n - 1`` wrapped: a spurious
"Counts of partition" error), and ``s || n`` on the interpreter (no sequence-length check: a
2^31-element string built until memory ran out).  Every backend now computes what the
interpreter does, and fails alike where it fails."""
import pytest

from diff_harness import assert_same, compare

PROGRAMS = [
    """rotate([1, 2, 3], -2147483648);
rotate([1.5, 2.5, 3.5], -2147483647);
{rotate([1, 2, 3, 4, 5, 6, 7], n) : n in [-2147483647, -2147483646, 2147483647, 5, -5, 0]};
rotate([] int, 5);
""",
    """group_by([1, 2, 3], 2147483647);
{group_by(s, n) : s in [[1, 2, 3], [4, 5, 6, 7, 8]]; n in [2147483647, 2]};
group_by([] int, 3);
group_by([1, 2, 3, 4, 5], 2);
""",
    "group_by([1, 2, 3], 0);\n",
    "group_by([1, 2, 3], -2);\n",
    """#("ab" || 5);
"ab" || -5;
"" || -2147483648;
"ab" || -2147483648;
""",
    '#("ab" || 268435460);\n',
]


@pytest.mark.opencl
@pytest.mark.parametrize("k", range(len(PROGRAMS)))
def test_backends_agree(k):
    assert_same(PROGRAMS[k], opencl=True)


def test_the_reference_values():
    out = [compare(p, fused=False, lcu=False).interp for p in PROGRAMS]
    assert out[0].out.startswith("it = [3, 1, 2] : [int]\nit = [2.5, 3.5, 1.5] : [float]\n")
    assert "[[2, 3, 4, 5, 6, 7, 1], [1, 2, 3, 4, 5, 6, 7], [7, 1, 2, 3, 4, 5, 6]," in out[0].out
    assert out[1].out.startswith("it = [[1, 2, 3]] : [[int]]\n"
                                 "it = [[[1, 2, 3]], [[4, 5], [6, 7], [8]]] : [[[int]]]\n")
    assert out[2].error is not None and "Divide by zero" in out[2].error
    assert out[3].error is not None and "Counts of partition" in out[3].error
    assert out[4].out == 'it = 5 : int\nit = "ab   " : [char]\nit = "" : [char]\n'
    assert out[4].error is not None and "Sequence too long" in out[4].error
    assert out[5].error is not None and "Sequence too long" in out[5].error
