"""The simplifier's special cases as golden strings (rules of the Lift paper, closed forms
and if-elimination of the position-dependent arrays paper)."""
import pytest

from lift_backend import arith as A
from lift_backend.arith import VarSupply, ite, pow_, size_var, sum_over, to_c, to_text

N = size_var("N")
M = size_var("M")
n = size_var("n")
fresh_var = VarSupply().fresh     # the fresh variables of these tests (no global counter)
wg = fresh_var("wg_id", 0, M - 1)
l = fresh_var("l_id", 0, N - 1)
i = fresh_var("i", 0, 10)
j = fresh_var("i", 3, 10)        # same name, range [3, 10]
k = fresh_var("k", 0, N)
neg = fresh_var("d", -5, 5)

GOLDEN = [
    # rule 1: x / y = 0 if 0 <= x < y
    ("i / 11", lambda: i // 11, "0"),
    ("l / N", lambda: l // N, "0"),
    # rule 2: (x * y + z) / y = x + z / y (z, x*y + z of the same sign)
    ("(wg * N + l) / N", lambda: (wg * N + l) // N, "wg_id"),
    ("(2N + i) / N", lambda: (2 * N + i) // N, "i / N + 2"),
    ("(i + 3) / 3", lambda: (i + 3) // 3, "i / 3 + 1"),
    ("(j - 3) / 3  (j >= 3)", lambda: (j - 3) // 3, "i / 3 - 1"),
    ("(i - 3) / 3  (i may be < 3: unchanged)", lambda: (i - 3) // 3, "(i - 3) / 3"),
    ("(i - 5 + 2N) / N  (mixed signs: unchanged)", lambda: (i - 5 + 2 * N) // N, "(2 * N + i - 5) / N"),
    # rule 3: x % y = x if 0 <= x < y
    ("l % N", lambda: l % N, "l_id"),
    ("i % 11", lambda: i % 11, "i"),
    # rule 4 (terms that are multiples of y drop out, sign conditions as rule 2)
    ("(wg * N + l) % N", lambda: (wg * N + l) % N, "l_id"),
    # rule 5: (x / y) * y + x % y = x
    ("(i / 4) * 4 + i % 4", lambda: (i // 4) * 4 + i % 4, "i"),
    ("3 * (i / 7) * 7 + 3 * (i % 7)", lambda: (i // 7) * 7 * 3 + 3 * (i % 7), "3 * i"),
    # rule 6: (x * y) % y = 0
    ("(i * N) % N", lambda: (i * N) % N, "0"),
    ("(6 * i + 4) / 2  (exact)", lambda: (6 * i + 4) // 2, "3 * i + 2"),
    # nested division / modulo
    ("(i / 2) / 3", lambda: (i // 2) // 3, "i / 6"),
    ("(l % (4 * N)) % N", lambda: (l % (4 * N)) % N, "l_id"),
    ("i / -3  (C: -(i / 3))", lambda: i // -3, "-(i / 3)"),
    ("i % -3  (C: i % 3)", lambda: i % -3, "i % 3"),
    # the known bug of the original Lift: must NOT become (i - 3) % 3 when i may be < 3
    ("(3 + (i - 3) % 3) % 3", lambda: (3 + ((i - 3) % 3)) % 3, "((i - 3) % 3 + 3) % 3"),
    ("(3 + (j - 3) % 3) % 3  (j >= 3)", lambda: (3 + ((j - 3) % 3)) % 3, "i % 3"),
    ("(d + 5) % 5  (d in [-5, 5])", lambda: (neg + 5) % 5, "(d + 5) % 5"),
    # matrix transposition (Figure 6): the index a human writes
    ("transpose read index", lambda: ((wg * N + l) % N) * M + (wg * N + l) // N, "wg_id + M * l_id"),
    # closed forms of sums (0-indexed, exclusive upper bound)
    ("sum_{k<n} 5", lambda: sum_over(k, 0, n, 5), "5 * n"),
    ("sum_{k<n} k", lambda: sum_over(k, 0, n, k), "(n * n - n) / 2"),
    ("sum_{k<n} (k + 1)", lambda: sum_over(k, 0, n, k + 1), "n + (n * n - n) / 2"),
    ("sum_{k<n} 2^k", lambda: sum_over(k, 0, n, pow_(2, k)), "pow(2, n) - 1"),
    # (x / y) / z = x / (y * z) only where y * z fits in 64 bits (the kernel computes it)
    ("k / N / M", lambda: k // N // M, "k / (M * N)"),
    ("k / N / N / N", lambda: k // N // N // N, "k / (N * N) / N"),
    ("k / 4 / 8", lambda: k // 4 // 8, "k / 32"),
    # telescoping: the rows (k + 1) * N / M - k * N / M of a balanced split start at k * N / M
    ("sum_{k<M} (k+1)N/M - kN/M", lambda: sum_over(k, 0, M, (k + 1) * N // M - k * N // M), "N"),
    ("sum_{k<l} (k+1)N/M - kN/M", lambda: sum_over(k, 0, l, (k + 1) * N // M - k * N // M),
     "N * l_id / M"),
    ("sum_{k<M} 1 + (k+1)N/M - kN/M", lambda: sum_over(k, 0, M, 1 + (k + 1) * N // M - k * N // M),
     "M + N"),
    ("sum_{k=2}^{n+1} k", lambda: sum_over(k, 2, n + 2, k), "(3 * n + n * n) / 2"),
    ("sum_{k<n} 3 * k * N", lambda: sum_over(k, 0, n, 3 * k * N), "3 * N * ((n * n - n) / 2)"),
    # loop peeling of case splits
    ("sum_{k<n} (k == 0 ? 2 : 1)", lambda: sum_over(k, 0, n, ite(k.eq(0), 2, 1)), "n + 1"),
    ("sum_{k<l} (k == 0 ? 2 : 1)", lambda: sum_over(k, 0, l, ite(k.eq(0), 2, 1)), "l_id + (0 < l_id ? 1 : 0)"),
    ("sum_{k<n} (k < 1 ? 2 : 1)", lambda: sum_over(k, 0, n, ite(k.lt(1), 2, 1)), "n + 1"),
    # if-elimination by ranges
    ("l < N ? l : 0", lambda: ite(l.lt(N), l, 0), "l_id"),
    ("i >= 11 ? 1 : 2", lambda: ite(i.ge(11), 1, 2), "2"),
    ("i < 5 ? 1 : 2  (undecided)", lambda: ite(i.lt(5), 1, 2), "(i < 5 ? 1 : 2)"),
    ("wg < M ? wg * N : N * M", lambda: ite(wg.lt(M), wg * N, N * M), "N * wg_id"),
    # powers
    ("2^(n + 1)", lambda: pow_(2, n + 1), "2 * pow(2, n)"),
    ("2^n * 2^n", lambda: pow_(2, n) * pow_(2, n), "pow(2, 2 * n)"),
    # canonical form
    ("(N + 1) * (N - 1)", lambda: (N + 1) * (N - 1), "N * N - 1"),
    ("2 * l + 128 * wg + i - l", lambda: 2 * l + 128 * wg + i - l, "i + l_id + 128 * wg_id"),
]


@pytest.mark.parametrize("label,build,expected", GOLDEN, ids=[g[0] for g in GOLDEN])
def test_golden(label, build, expected):
    assert to_text(build()) == expected


def test_c_printing():
    assert to_c(pow_(2, n) - 1) == "(1 << n) - 1"
    assert to_c(ite(i.lt(5), i, 5 - i)) == "(i < 5 ? i : 5 - i)"
    assert to_c(-(i // 3)) == "-(i / 3)"
    assert to_c(2 * (i % 3)) == "2 * (i % 3)"
    assert to_c((i + 1) // (N * 2)) == "(i + 1) / (2 * N)"


def test_no_closed_form_is_an_error_in_c():
    unknown = A.Lookup("f", "f", k)
    s = sum_over(k, 0, n, unknown)
    assert isinstance(s, A.SumOver)
    with pytest.raises(ValueError, match="no closed form"):
        to_c(s)


def test_ranges():
    assert A.num_bounds(l % 7) == (0, 6)
    assert A.num_bounds(neg // 2) == (-2, 2)
    assert A.prove_lt(l, N)
    assert not A.prove_lt(l, N - 1)
    assert A.prove_le(wg * N + l, M * N - 1)
    assert A.upper_bound(wg * N + l) == M * N - 1
    assert A.decide((i - 3).lt(0)) is None
    assert A.decide((j - 3).lt(0)) is False


def test_immutable_and_hashable():
    e = i + 1
    assert e == i + 1 and hash(e) == hash(i + 1)
    with pytest.raises(AttributeError):
        e.terms = ()
    assert {e: 1}[i + 1] == 1


def test_division_by_zero():
    with pytest.raises(ZeroDivisionError):
        i // 0


def test_a_balanced_splits_row_lengths_are_not_negative():
    """``(k + 1) * N / M - k * N / M`` is ``h(k + 1) - h(k)`` with ``h`` non-decreasing: never
    negative; ``k * N / M - (k + 1) * N / M`` may be."""
    from lift_backend.arith.ranges import prove_nonneg
    assert prove_nonneg((k + 1) * N // M - k * N // M)
    assert prove_nonneg((k + 1) * N // M - k * N // M + l)
    assert not prove_nonneg(k * N // M - (k + 1) * N // M)
    # h(k + 1) - h(k) with h decreasing in k
    assert not prove_nonneg((N - k - 1) // M - (N - k) // M)
