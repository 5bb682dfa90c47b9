"""A λcu kernel lowered SOAC by SOAC (``soacs.lower_soac``), and the OpenCL source of a
program's kernels: what ``nessie compile --emit lift/opencl`` prints and the OpenCL runner
builds (no numpy, no OpenCL driver needed)."""
from __future__ import annotations

from lambda_cu import ir
from lambda_cu.types import SegDesT, VecT

from .cgen import math_source, prelude
from .soacs import LoweredSoac, cname, lower_soac


def lower_kernel(k: ir.Kernel, strategy: str = "cpu",
                 dev_params: frozenset = frozenset()) -> list[LoweredSoac]:
    """Every SOAC of a λcu kernel, lowered (scalars bound by SOACs live on the device, and so do
    the scalar parameters ``dev_params``: see ``device_scalars.py``)."""
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
