"""SCATTERs as Lift programs, compiled by the Lift compiler's own stages.

A λcu ``SCATTER (d0, ...) {i => e using vs} {i => p[i]} (n)`` -- the destinations copied, then
``Y[p[i]] = e(i)``, the last writer (the largest ``i``) winning -- whose index thunk reads an int
vector ``p`` at its index (as a PERMUTE's, lift_permute.py; NESL's ``<-`` flattens to it) and
whose value thunk qualifies as a MAP's (lift_map.py) is two Lift programs, the template's two
phases:

    program K_liftclaim(ix: [int]N) =
      scatterMaxIdx(M)(ix, mapGlb(0)(toGlobal(\\k -> k)) $ generate(N))

    program K_lift(v0: [t0]N, ..., ix: [int]N, win: [int]M, ...) =
      scatterLastIdx(ix, win, mapGlb(0)(toGlobal(\\t -> uf(t._0, ...))) $ zip(v0, ..., generate(N)))

``scatterMaxIdx`` (``lift_backend.ir.patterns.ScatterIdx`` with ``mode="max"``) is the claim: each
element ``k`` writes ``k`` at ``ix[k]`` with ``atomic_max`` into the ``M`` claims (``M`` the
destinations' length) that the host fills with -1 first -- the runner's ``win`` buffer, as the
template's --, so ``win[j]`` is the last element aiming at ``j``.  ``scatterLastIdx`` (``mode="last"``)
is the conditional write: every element computes its value, and element ``k`` stores it at
``ix[k]`` only where ``win[ix[k]] == k`` (into the copies of the destinations, one buffer per
component).  Both programs check each position against ``M`` and report the template's
``target`` site (its code in the SOAC); the value thunk's sites have the template's codes too,
so the failing site the runner reports (the smallest code) is the numpy runner's located
message whatever the order of the work-items.

The runner launches them where the template ``claim`` and ``write`` phases ran, after the
destinations' copies, when the destinations have one length ``m`` with ``0 < m <= INT_MAX``, the
inputs read at the index and ``p`` have the scatter's length ``n``, ``0 < n <= INT_MAX``
(``OpenCLRunner._lift_fits``); otherwise -- destinations of different lengths (the template
reports them), an empty destination or scatter --, and for every SCATTER that does not qualify
(an index or value thunk that is not a MAP's), the templates run.  An index thunk that
computes the position (``{i => 2 * i}``, ``{i => p[q[i]]}``) is its own Lift MAP ``K_liftpos``
first, as a PERMUTE's (lift_permute.computed_positions): the claim and the write read its
positions buffer as their ``ix``.
"""
from __future__ import annotations

from typing import Optional

from lambda_cu import ir
from lambda_cu.errors import MSG_SCATTER
from lambda_cu.types import IntT, VecT

from .cgen import Sites
from .lift_map import CPU_LOCAL, POSITIONS, LiftMap, _lift_scalar, kernel_args, lift_map
from .lift_permute import computed_positions, indexed_target


def lift_scatter(kname: str, soac: ir.Soac, tenv: dict, ctx, sites: Sites,
                 strategy: str = "cpu") -> Optional[tuple]:
    """The SCATTER ``soac`` of kernel ``kname`` as compiled Lift programs ``(claim, write,
    positions)``, or None where it is not (see the module's docstring); ``positions`` is the
    Lift MAP of an index thunk that computes the positions (lift_permute.computed_positions),
    launched first, or None where the thunk reads them (``p[i]``).  ``sites``: the template phases'
    sites (their ``target`` site is the code of the position checks)."""
    if not isinstance(soac, ir.Scatter):
        return None
    target = indexed_target(soac, tenv, sites, MSG_SCATTER)
    pos = None
    if target is None:
        computed = computed_positions(kname, soac, tenv, ctx, sites, MSG_SCATTER, strategy)
        if computed is None:
            return None
        pos, tenv, code = computed
        target = (POSITIONS, code)
    vec, code = target
    write = lift_map(kname, soac, tenv, ctx, sites, strategy, permute=(vec, code, "last"))
    if write is None:
        return None
    claim = _claim_program(kname, vec, code, tenv, ctx, strategy)
    if claim is None:
        return None
    return claim, write, pos


def _claim_program(kname: str, vec: str, code: int, tenv: dict, ctx, strategy: str) -> Optional[LiftMap]:
    from .. import compile_program
    from .. import arith as A
    from ..arith import size_var
    from ..errors import LiftError
    from ..ir.builders import mapGlb, program, scatterMaxIdx, toGlobal, userfun
    from ..ir.expr import FunCall
    from ..ir.patterns import Generate
    from ..types import ArrayType, ScalarType
    where: dict = {}
    for j, p in enumerate(ctx.params):
        if p.kind == "vecbuf":
            where.setdefault(p.name, [None, None])[0] = j
        elif p.kind == "veclen":
            where.setdefault(p.name, [None, None])[1] = j
    t = tenv.get(vec)
    if not isinstance(t, VecT) or not isinstance(t.elem, IntT) or \
            (vec != POSITIONS and (vec not in where or None in where[vec])):
        return None
    N, M = size_var("N"), size_var("M")
    I = ScalarType("int")
    me = userfun(f"uf_{kname}_claim", [("k", I)], I, "\n  return k;\n")
    prog = program(f"{kname}_liftclaim", [("ix", ArrayType(ScalarType(_lift_scalar(t.elem)), N))],
                   lambda ix: scatterMaxIdx(M, ix, mapGlb(toGlobal(me))(FunCall(Generate(N), ())), code=code))
    launch = {"global_size": A.add(N, CPU_LOCAL - 1)} if strategy == "cpu" else {}
    try:
        kern = compile_program(prog, error_base=True, soa_output=True, **launch)
    except LiftError:
        return None
    computed = vec == POSITIONS       # the positions pass's buffer (the scatter's length)
    args = kernel_args(kern, prog.name, {"N": ("size",), "M": ("dstlen",)},
                       {"ix": ("pos",) if computed else ("host", where[vec][0])}, output=("win",))
    return LiftMap(prog, kern, () if computed else (where[vec][1],), args)
