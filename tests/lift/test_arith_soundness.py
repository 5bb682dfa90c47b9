"""Soundness of the simplifier: every expression built with the smart constructors is
evaluated against the unsimplified expression (C semantics: truncating division, remainder
with the sign of the dividend) on random values of its variables within their ranges.
Intermediate values may be negative (``i - 3``), the known bug class of the original Lift."""
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lift_backend import arith as A
from lift_backend.arith import c_div, c_mod

N = A.size_var("N")
M = A.size_var("M")
_VARS = A.VarSupply()                 # the fresh variables of these tests (no global counter)
I = A.fresh_var("i", 0, 10, _VARS)
J = A.fresh_var("j", 3, 10, _VARS)
D = A.fresh_var("d", -6, 6, _VARS)
L = A.fresh_var("l", 0, N - 1, _VARS)
W = A.fresh_var("w", 0, M - 1, _VARS)
S = A.fresh_var("s", 0, 24, _VARS)  # summation variable
LEAVES = [N, M, I, J, D, L, W]


def c_eval(raw, env):
    op = raw[0]
    if op == "var":
        return env[raw[1]]
    if op == "cst":
        return raw[1]
    if op == "sum_over":
        _, start, stop, body = raw
        a, b = c_eval(start, env), c_eval(stop, env)
        total = 0
        for s in range(a, b):
            total += c_eval(body, {**env, S: s})
        return total
    if op == "ite":
        _, cop, x, y, t, e = raw
        xv, yv = c_eval(x, env), c_eval(y, env)
        ok = {"<": xv < yv, "<=": xv <= yv, "==": xv == yv, "!=": xv != yv}[cop]
        return c_eval(t if ok else e, env)
    if op == "pow":
        return c_eval(raw[1], env) ** c_eval(raw[2], env)
    a = c_eval(raw[1], env)
    b = c_eval(raw[2], env)
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    if op == "/":
        return c_div(a, b)
    if op == "%":
        return c_mod(a, b)
    raise ValueError(op)


def build(raw):
    op = raw[0]
    if op == "var":
        return raw[1]
    if op == "cst":
        return A.Cst(raw[1])
    if op == "sum_over":
        return A.sum_over(S, build(raw[1]), build(raw[2]), build(raw[3]))
    if op == "ite":
        return A.ite(A.Cond(raw[1], build(raw[2]), build(raw[3])), build(raw[4]), build(raw[5]))
    if op == "pow":
        return A.pow_(build(raw[1]), build(raw[2]))
    a, b = build(raw[1]), build(raw[2])
    return {"+": A.add, "-": A.sub, "*": A.mul, "/": A.div, "%": A.mod}[op](a, b)


leaf = st.one_of(st.sampled_from([("var", v) for v in LEAVES]), st.integers(-8, 12).map(lambda c: ("cst", c)))
# divisors are never zero: positive or negative constants, size variables, N + c
divisor = st.one_of(st.sampled_from([1, 2, 3, 4, 5, 7, 8, -2, -3]).map(lambda c: ("cst", c)),
                    st.sampled_from([("var", N), ("var", M), ("+", ("var", N), ("cst", 2)),
                                     ("*", ("cst", 2), ("var", M))]))


def extend(children):
    return st.one_of(
        st.tuples(st.sampled_from(["+", "-", "*"]), children, children),
        st.tuples(st.sampled_from(["/", "%"]), children, divisor),
        st.tuples(st.just("ite"), st.sampled_from(["<", "<=", "==", "!="]), children, children, children, children),
    )


exprs = st.recursive(leaf, extend, max_leaves=10)

# sums over S in [0, 24]: bounds within that range, bodies may use S
sum_bound = st.one_of(st.integers(0, 6).map(lambda c: ("cst", c)), st.just(("var", I)), st.just(("var", J)),
                      st.just(("+", ("var", I), ("cst", 2))))
sum_body_leaf = st.one_of(leaf, st.just(("var", S)), st.just(("pow", ("cst", 2), ("var", S))))
sum_body = st.recursive(sum_body_leaf, lambda ch: st.one_of(
    st.tuples(st.sampled_from(["+", "-", "*"]), ch, ch),
    st.tuples(st.just("ite"), st.sampled_from(["<", "<=", "==", "!="]), st.just(("var", S)),
              st.integers(0, 8).map(lambda c: ("cst", c)), ch, ch)), max_leaves=6)
sums = st.tuples(st.just("sum_over"), sum_bound, sum_bound, sum_body)


@st.composite
def envs(draw):
    n = draw(st.integers(1, 20))
    m = draw(st.integers(1, 20))
    return {N: n, M: m, I: draw(st.integers(0, 10)), J: draw(st.integers(3, 10)),
            D: draw(st.integers(-6, 6)), L: draw(st.integers(0, n - 1)), W: draw(st.integers(0, m - 1))}


def check(raw, env_list):
    simplified = build(raw)
    for env in env_list:
        expected = c_eval(raw, env)
        got = A.evaluate(simplified, env)
        assert got == expected, (f"{A.to_text(simplified)} = {got} but the original gives {expected} "
                                 f"for {{{', '.join(f'{k.name}={v}' for k, v in env.items())}}}: {raw}")


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(exprs, st.lists(envs(), min_size=8, max_size=8))
def test_simplification_is_sound(raw, env_list):
    check(raw, env_list)


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sums, st.lists(envs(), min_size=6, max_size=6))
def test_sum_closed_forms_are_sound(raw, env_list):
    check(raw, env_list)


def test_known_lift_bug():
    raw = ("%", ("+", ("cst", 3), ("%", ("-", ("var", I), ("cst", 3)), ("cst", 3))), ("cst", 3))
    check(raw, [{I: v} for v in range(0, 11)])
    assert A.to_text(build(raw)) != "(i - 3) % 3"
