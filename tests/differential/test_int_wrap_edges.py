"""Int operations whose exact result leaves the int range (issue 11, found by a hunt): every
backend wraps the same way.  ``diff(x, y)`` is ``abs`` of the wrapped difference (as C and the
device compute it), and ``x ^ -n`` is ``1 / x^n`` of the exact power: 0 unless ``x`` is 1 or -1,
a division by zero for 0, never a division by a power that wrapped to 0."""
import pytest

from diff_harness import assert_same, compare

PROGRAMS = [
    """diff(max_int, -2);
{diff(x, -2) : x in [max_int]};
{diff(x, y) : x in [min_int, 5, max_int]; y in [31, -7, min_int]};
diff(min_int, 0);
""",
    """65536 ^ -2;
{x ^ -2 : x in [65536, 2, 1, -1, 7]};
{(-1) ^ y : y in [-3, -4]};
{2 ^ y : y in [-32, -33, 31, 32]};
2 ^ min_int;
""",
    """{x ^ -1 : x in [3, 0, 1]};
""",
]


@pytest.mark.opencl
@pytest.mark.parametrize("k", range(len(PROGRAMS)))
def test_backends_agree(k):
    assert_same(PROGRAMS[k], opencl=True)


def test_the_reference_values():
    cmp = compare(PROGRAMS[0] + PROGRAMS[1], fused=False, lcu=False)
    out = cmp.interp.out
    assert "it = 2147483647 : int" in out
    assert "it = [0, 0, 1, 1, 0] : [int]" in out
    assert "it = [-1, 1] : [int]" in out
