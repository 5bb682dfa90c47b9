"""A λcu kernel lowered SOAC by SOAC (``soacs.lower_soac``), and the OpenCL source of a
program's kernels: what ``nessie compile --emit lift/opencl`` prints and the OpenCL runner
builds (no numpy, no OpenCL driver needed)."""
from __future__ import annotations

import dataclasses
import functools
import numbers

from lambda_cu import ir
from lambda_cu.types import SegDesT, VecT

from .cgen import math_source, prelude
from .soacs import LoweredSoac, cname, lower_soac


def lower_kernel(k: ir.Kernel, strategy: str = "cpu",
                 dev_params: frozenset = frozenset()) -> list[LoweredSoac]:
    """Every SOAC of a λcu kernel, lowered (scalars bound by SOACs live on the device, and so do
    the scalar parameters ``dev_params``: see ``device_scalars.py``).

    A pure function of its arguments, memoised for the process (:func:`_lowered`): a second
    runner, a second run of a program or another program with an equal kernel (the REPL, the
    Python API, the benchmarks) does not lower and compile it through Lift again -- on PoCL that
    was most of a whole run of the examples (sort_by: ~0.3 s of ~0.7 s), and more for a fused
    program, whose kernels are larger.  The lowered SOACs are never modified after lowering.
    Across processes the disk cache (``lambda_cu.diskcache``) keeps them the same way."""
    try:
        return list(_lowered(k, _numbers(k), strategy, frozenset(dev_params)))
    except TypeError:            # an unhashable kernel (not one the pipeline makes)
        return _lower_kernel(k, strategy, dev_params)


@functools.lru_cache(maxsize=2048)
def _lowered(k: ir.Kernel, numbers: tuple, strategy: str, dev_params: frozenset) -> tuple:
    # and across processes, through the disk cache (the kernel's pickle holds its numbers as
    # they are: ``-0.0``, ``1.0`` and ``True`` pickle differently)
    from lambda_cu import diskcache
    return diskcache.cached("lower", (k, strategy, tuple(sorted(dev_params))),
                            lambda: tuple(_lower_kernel(k, strategy, dev_params)))[0]


def _numbers(x, out=None) -> tuple:
    """The numeric leaves of an IR value, each as (type name, repr), in order: part of the memo's
    key, since equal IR values may hold numbers that compare equal but lower differently
    (``-0.0 == 0.0``, ``1 == 1.0 == True``)."""
    top = out is None
    if top:
        out = []
    if isinstance(x, (tuple, list)):
        for y in x:
            _numbers(y, out)
    elif dataclasses.is_dataclass(x) and not isinstance(x, type):
        for f in dataclasses.fields(x):
            _numbers(getattr(x, f.name), out)
    elif isinstance(x, numbers.Number):
        out.append((type(x).__name__, repr(x)))
    return tuple(out) if top else ()


def forget_lowered() -> None:
    """Empty the memo of :func:`lower_kernel` (for a test that changes what lowering does)."""
    _lowered.cache_clear()


def _lower_kernel(k: ir.Kernel, strategy: str, dev_params: frozenset) -> list[LoweredSoac]:
    from lambda_cu.check import check_kernel
    tenv = check_kernel(k)
    dev_scalars: set[str] = set(dev_params)
    out = []
    for b in k.binds:
        ls = lower_soac(f"{cname(k.name)}_{len(out)}", b.soac, tenv, frozenset(dev_scalars),
                        strategy)
        out.append(ls)
        for v, t in zip(b.vars, ls.out_types):
            if not isinstance(t, (VecT, SegDesT)):
                dev_scalars.add(v.name)
    return out


def kernel_source(soacs: list[LoweredSoac], strategy: str = "cpu") -> str:
    body = "\n".join(s.source for s in soacs)
    return prelude(strategy) + "\n" + math_source(body) + body
