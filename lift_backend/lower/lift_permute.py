"""PERMUTEs as Lift programs, compiled by the Lift compiler's own stages.

A λcu ``PERMUTE {i => e using vs} {i => p[i]} (n)`` -- ``Y[p[i]] = e(i)``, ``p`` an int vector
read at the permutation's own index (what NESL's ``permute(v, i)`` and the library's uses of it
fuse to) -- whose value thunk qualifies as a MAP's does (lift_map.py: reads at its index, at
computed indices, checked primitives reported with their sites) is the Lift program

    program K_lift(v0: [t0]N, ..., ix: [int]N, ...) =
      permuteIdx(ix, mapGlb(0)(toGlobal(\\t -> uf(t._0, ...))) $ zip(v0, ..., generate(N)))

``permuteIdx(ix, xs)`` (``lift_backend.ir.patterns.ScatterIdx`` with ``once``) is the writing
counterpart of ``gatherIdx``: the map writes its element ``k`` through an output view at the
position ``ix[k]``, checked against the result's length and against a second write of the same
position (an ``atomic_inc`` per position on the kernel's ``marks`` buffer, which the runner
zeroes, as the template's ``seen``).  Both checks report the template's ``target`` site (its
code in the SOAC), so a failing permutation is the numpy runner's located message; the value
thunk's sites have the template's codes too, so the first failing site is the same whatever
the order of the work-items.  Several result components are one buffer each (``soa_output``);
one check and mark per element serves them all.

A SEG_PERMUTE of that kind (``p`` the local positions) gets the rows plan of a SEG_REDUCE, one
work-item a segment:

    join o mapGlb(0)(\\r -> permuteIdx(r._1, toGlobal(mapSeq(\\t -> uf(...))) $ r._0))
      $ zip(splitOffsets(offs, zip(v0, ..., generate(N))), splitOffsets(offs, ix))

each local position checked against its segment's length and marked at its place in the result
(the row's start added to the marks).

The runner launches it where the template ``permute`` phase ran, when the inputs read at the
index and the index vector have the permutation's length ``n`` and ``0 < n <= INT_MAX``
(``OpenCLRunner._lift_fits``) -- a SEG_PERMUTE's where a segmented reduction would take its rows
plan (``_rows``: many short segments) --; otherwise, and for every PERMUTE that does not
qualify, the template runs.

A PERMUTE whose index thunk computes the position (anything but ``p[i]``: ``rem(i + k, n)``,
``p[q[i]]``, ...) and qualifies as a MAP's gets the thunk as its own Lift MAP first,
``K_liftpos`` (:func:`computed_positions`), writing the positions into a buffer of the
permutation's length that ``permuteIdx`` reads as its ``ix`` (the kernel argument ``("pos",)``).
The thunk's subscripts keep the template's sites, numbered before the ``target`` site, so the
failing site reported (the smallest code of the SOAC) is the template's: a failing position
computation comes before a position out of range.

A SEG_PERMUTE whose index thunk computes the local positions (NESL's ``{permute(v, {#v - 1 - x :
x in v}) : v in vs}`` fuses to ``{i => lens[seg_ids(sd)[i]] - 1 - v[i]}``) is the same two
programs: the positions MAP ``K_liftpos`` over the descriptor's elements (a MAP of the
descriptor's total, ``#seg_ids(sd)``), then the SEG_PERMUTE's rows above reading the local
positions from its buffer (``splitOffsets(offs, ix)``, ``ix`` the kernel argument ``("pos",)``),
with the same checks: each position against its segment's length and marked once, both
reporting the ``target`` site.  Positions that read the walked segment ids of a descriptor
(``lens[seg_ids(sd)[i]]``, ``seg_offsets(sd)[seg_ids(sd)[i]]``) are that descriptor's rows, as
a MAP's (lift_map.py, ``LiftMap.rows``): the runner launches the pair where the SEG_PERMUTE's
rows run (``_rows``) and the positions' rows do too (``_map_rows``: many segments of about 2
elements or fewer, or few elements in all); otherwise the template, which computes and checks
each position in one pass.  What does not qualify: an index or value thunk that does not
qualify as a MAP's.  A SCATTER of that kind (the last writer wins: a claim pass first) is two
Lift programs: see lift_scatter.py.
"""
from __future__ import annotations

from typing import Optional

from lambda_cu import ir
from lambda_cu.errors import MSG_PERMUTE
from lambda_cu.types import IntT, VecT

from .cgen import Sites
from .lift_map import POSITIONS, LiftMap, lift_map


def permute_index(soac, tenv: dict) -> Optional[str]:
    """The int vector ``p`` of an index thunk ``{i => p[i]}``, or None."""
    g = soac.idx
    if len(g.params) != 1:
        return None
    b = g.body
    if not (isinstance(b, ir.Index) and isinstance(b.vec, ir.Var) and isinstance(b.idx, ir.Var)
            and b.idx.name == g.params[0].name):
        return None
    t = tenv.get(b.vec.name)
    if not isinstance(t, VecT) or not isinstance(t.elem, IntT):
        return None
    return b.vec.name


def _target_code(soac, sites: Sites, msg: str) -> Optional[int]:
    """The code of the template's ``target`` site of ``soac`` (message ``msg``: the position
    checks of its phases), or None where the template numbered none."""
    return sites.memo.get(("target", soac.loc, msg))


def indexed_target(soac, tenv: dict, sites: Sites, msg: str) -> Optional[tuple]:
    """``(p, code)`` for a PERMUTE/SCATTER whose index thunk is ``{i => p[i]}``: the int vector
    ``p`` and the code of the template's ``target`` site (message ``msg``), the site of every
    position check of its Lift programs; None where the SOAC is not of that kind."""
    vec = permute_index(soac, tenv)
    if vec is None:
        return None
    code = _target_code(soac, sites, msg)
    if code is None:
        return None
    return vec, code


def computed_positions(kname: str, soac, tenv: dict, ctx, sites: Sites, msg: str,
                       strategy: str) -> Optional[tuple]:
    """For a PERMUTE, SEG_PERMUTE or SCATTER whose index thunk computes its positions (anything
    but ``{i => p[i]}``): ``(LiftMap, tenv', code)``, the index thunk as its own Lift MAP
    ``{kname}_liftpos`` writing the positions (an int vector of the SOAC's length -- a
    SEG_PERMUTE's: its descriptor's total, the local positions --, with the
    template's sites: a failing subscript of the thunk reports the same located message),
    ``tenv`` extended with the positions' type under :data:`~.lift_map.POSITIONS`, and the
    ``target`` site's code; None where the thunk is not a Lift MAP's (or is ``p[i]``).  The
    template computes a position and checks it in one pass; here the positions pass runs
    first, and the failing site reported is still the smallest code of the SOAC's failing
    sites (the thunk's come before the ``target`` check's), as in the template."""
    if permute_index(soac, tenv) is not None or len(soac.idx.params) != 1:
        return None
    code = _target_code(soac, sites, msg)
    if code is None:
        return None
    from lambda_cu.check import LcuTypeError, soac_result_types
    # a SEG_PERMUTE's positions: a MAP over its descriptor's elements (the local positions)
    it = soac.idx.params[0].ty
    if isinstance(soac, ir.SegPermute):
        if not isinstance(it, IntT):
            return None
        size = ir.Length(ir.SegVec(soac.sd, "ids", it), it)
    else:
        size = soac.size
    positions = ir.Map(soac.idx, size)
    try:
        rt = soac_result_types(positions, tenv)
    except LcuTypeError:        # pragma: no cover - the kernel was checked before lowering
        return None
    if len(rt) != 1 or not isinstance(rt[0], VecT) or not isinstance(rt[0].elem, IntT):
        return None
    pos = lift_map(kname, positions, tenv, ctx, sites, strategy, suffix="liftpos")
    if pos is None:
        return None
    return pos, {**tenv, POSITIONS: rt[0]}, code


def lift_permute(kname: str, soac: ir.Soac, tenv: dict, ctx, sites: Sites,
                 strategy: str = "cpu") -> Optional[tuple]:
    """The PERMUTE ``soac`` of kernel ``kname`` as compiled Lift programs ``(permute,
    positions)``, or None where it is not (see the module's docstring).  ``positions`` is the
    Lift MAP of an index thunk that computes the positions (:func:`computed_positions`; a
    SEG_PERMUTE's local positions), launched first, or None where the thunk reads them
    (``p[i]``).  ``sites``: the template phase's sites (its ``target`` site is the code of both
    position checks)."""
    if not isinstance(soac, (ir.Permute, ir.SegPermute)):
        return None
    target = indexed_target(soac, tenv, sites, MSG_PERMUTE)
    if target is not None:
        lm = lift_map(kname, soac, tenv, ctx, sites, strategy, permute=target)
        return None if lm is None else (lm, None)
    computed = computed_positions(kname, soac, tenv, ctx, sites, MSG_PERMUTE, strategy)
    if computed is None:
        return None
    pos, tenv2, code = computed
    lm = lift_map(kname, soac, tenv2, ctx, sites, strategy, permute=(POSITIONS, code))
    return None if lm is None else (lm, pos)
