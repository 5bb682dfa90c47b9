"""Lowering of fused λcu kernels to OpenCL through Lift-style patterns, and the OpenCL runner.

* :mod:`.cgen` — thunk bodies as OpenCL C (checked subscripts, wrapping integer arithmetic,
  errors reported through the error buffer);
* :mod:`.soacs` — each SOAC as one or more kernels (phases), each printed as the Lift expression
  it implements;
* :mod:`.lift_map` — a MAP also as a real Lift program (reads at the map's index, at computed
  indices and in branches, several results, checked primitives), compiled by the Lift
  compiler's own stages (the runner launches it where the inputs read at the map's index have
  its length);
* :mod:`.runner` — :class:`OpenCLRunner`, the kernel runner of ``lambda_cu.executor`` that keeps
  vectors on the device.

``lower_program(program)`` lowers every kernel of a λcu program (a :class:`LoweredProgram`: the
``lower`` pass of ``nessie.passes``); ``print_lift(lowered)`` and ``print_opencl(lowered)`` show,
per λcu kernel, the Lift expressions and the generated OpenCL C (``nessie compile F --emit
lift|opencl``; both also take a λcu program and lower it first).
"""
from __future__ import annotations

from dataclasses import dataclass

from lambda_cu import ir


@dataclass(frozen=True)
class LoweredProgram:
    """Every kernel of a λcu program with its lowered SOACs (``runner.LoweredSoac``), in order."""
    program: ir.Program
    kernels: tuple          # ((ir.Kernel, (LoweredSoac, ...)), ...)


def lower_program(prog: ir.Program) -> LoweredProgram:
    from .device_scalars import device_scalars
    from .kernels import lower_kernel
    d = device_scalars(prog)        # as the runner lowers them (OpenCLRunner.prepare)
    return LoweredProgram(prog, tuple((k, tuple(lower_kernel(k, dev_params=d.params_of(k.name))))
                                      for k in prog.kernels))


def _lowered(prog) -> LoweredProgram:
    return prog if isinstance(prog, LoweredProgram) else lower_program(prog)


def print_lift(prog) -> str:
    """Per λcu kernel and SOAC: the phases (OpenCL kernels) and the Lift expression of each."""
    out = []
    for k, lowered in _lowered(prog).kernels:
        out.append(f"kernel {k.name}")
        for b, ls in zip(k.binds, lowered):
            out.append(f"  let ({', '.join(b.names)}) = {ls.soac.NAME}   "
                       f"-- {len(ls.phases)} OpenCL kernel{'s' if len(ls.phases) != 1 else ''} "
                       f"(the plan launches those its sizes need)")
            for p in ls.phases:
                if p.compiled:         # a whole .lift program (lift_map.py)
                    out.append(f"    {p.name}: compiled by the Lift compiler from")
                    out += [f"      {line}".rstrip() for line in p.lift.splitlines()]
                else:
                    out.append(f"    {p.name}: {p.lift}")
            names = {"f": "f", "op": "op", "pred": "p", "idx": "g"}
            for fld in ls.soac.THUNK_FIELDS:
                out.append(f"      where {names.get(fld, fld)} = {getattr(ls.soac, fld)}")
            for j, e in enumerate(ls.soac.init_exps):
                out.append(f"      where init{j} = {e}")
        out.append("")
    return "\n".join(out)


def print_opencl(prog) -> str:
    """The OpenCL C of every λcu kernel (one program per kernel, prelude shown once)."""
    from .cgen import math_source, prelude
    out = ["// prelude (every program starts with it)", prelude("cpu").strip(), ""]
    kernels = []
    for k, lowered in _lowered(prog).kernels:
        kernels.append(f"// ===== λcu kernel {k.name}")
        for ls in lowered:
            kernels.append(ls.source)
    body = "\n".join(kernels)
    lib = math_source(body)
    if lib:
        out += ["// the portable math library (lambda_cu/fmath.py), in the programs that call it",
                lib.strip(), ""]
    return "\n".join(out + kernels)


__all__ = ["LoweredProgram", "lower_program", "print_lift", "print_opencl"]
