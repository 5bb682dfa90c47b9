"""RANKs and SEG_RANKs as Lift programs, compiled by the Lift compiler's own stages.

A λcu ``RANK {i => e using vs} (n)`` (``SEG_RANK`` over a segment descriptor) is a stable LSD
radix sort of (key, index) pairs (see soacs.py).  Its ``keys`` phase, where the thunk qualifies
as a MAP's (lift_map.py), is the Lift program

    userfun uf(x0: t0, ...): t { <e as C> }
    userfun uf_key(x: t, i: int): (k, int) { <the order key of x>; return (k, i) }
    program K_liftkeys(v0: [t0]N, ...) =
      mapGlb(0)(toGlobal(\\t -> uf_key(uf(t._0, ...), t._j))) $ zip(v0, ..., generate(N))

(lift_map's ``order_key`` option: the map's machinery, its errors reporting the template's
sites), writing the keys and the indices as two buffers (``soa_output``).  The order key is the
template's (:func:`lift_backend.lower.lift_map.order_key_function`): ``uint`` for bool, char and
32-bit ints, the bits of a ``long`` for 64-bit ints and floats.

The runner launches it where the template ``keys`` phase ran when the inputs read at the index
have the rank's length ``0 < n <= INT_MAX`` (``OpenCLRunner._lift_fits``), the template
otherwise.
"""
from __future__ import annotations

from lambda_cu import ir

from .cgen import Sites
from .lift_map import lift_map


def lift_rank(kname: str, soac: ir.Soac, tenv: dict, ctx, sites: Sites, strategy: str,
              bits: int) -> dict:
    """The Lift programs of the RANK or SEG_RANK ``soac`` of kernel ``kname`` (``bits``: its
    key's width), by the info key the runner looks them up with: ``lift_keys`` where the
    thunk qualifies; empty where nothing does."""
    out: dict = {}
    if not isinstance(soac, (ir.Rank, ir.SegRank)):
        return out
    keys = lift_map(kname, soac, tenv, ctx, sites, strategy, order_key=(bits, soac.descending))
    if keys is not None:
        out["lift_keys"] = keys
    return out
