"""Symbolic natural-number arithmetic (``lift_backend.arith``).

Expressions are immutable canonical values built with smart constructors::

    from lift_backend.arith import size_var, VarSupply, ite, sum_over
    N = size_var("N")                       # opaque size variable, N >= 1
    vs = VarSupply()                        # the fresh variables of one computation
    i = vs.fresh("i", 0, N - 1)             # loop variable, 0 <= i <= N - 1
    (i * N + 3) // N                        # -> i + 3 / N   (C division)
    (i + N) % N                             # -> i

Division ``//`` (and ``/``) is C division (truncation), ``%`` the C remainder.
See :mod:`lift_backend.arith.core` for the rules and their sign conditions and
:mod:`lift_backend.arith.ranges` for range analysis.
"""
from .core import (Cond, Cst, Div, Expr, IfThenElse, Lookup, Mod, Pow, Prod, Sum, SumOver, Var,
                   add, cmp, contains, cst, decide, div, free_vars, fresh_var, ite, mod, mul, neg,
                   pow_, rebuild, simplify, size_var, subst, sub, sum_over, to_expr, c_div, c_mod,
                   iter_nodes, uids_in, VarSupply, ZERO, ONE)
from .ranges import (int_bounds, lower_bound, num_bounds, prove_eq, prove_le, prove_lt, prove_nonneg,
                     prove_nonpos, prove_pos, sym_bounds, upper_bound)
from .printer import to_c, to_text, cond_to_c, cond_to_text
from .evaluate import evaluate, eval_cond, evaluate_all

from . import core as _core, printer as _printer, ranges as _ranges  # noqa: E402

# the functions core.py calls from the modules above it (core.py's _LATE)
_core._LATE.update(to_text=_printer.to_text, evaluate=evaluate, **{
    n: getattr(_ranges, n) for n in ("prove_pos", "prove_nonneg", "prove_nonpos", "prove_lt",
                                     "prove_le", "int_bounds")})
