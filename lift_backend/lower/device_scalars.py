"""Scalars that stay on the device between kernels (issue 9: norm2's round trip).

A kernel that returns a scalar (a ``REDUCE``'s sum) normally has it read back to the host: the
read is a synchronisation, and a later kernel then receives the value as a host argument.  When
the host never looks at the value — every use of the variable is an argument of a ``run`` — the
value can stay in its one-element device buffer (a ``DScalar``) and the later kernel can read it
there, as the SOACs of one kernel already read the scalars of earlier SOACs.  norm2 is the
model: ``let (s1, s2) = run KF3 (a); ... run KF4 (a, s1, n, s2)`` synchronised between its two
kernels only to move the two sums to the host and back.

:func:`device_scalars` finds, for a whole λcu program, which kernel parameters are read from
device buffers and which returned scalars are left on the device.  It is a static analysis of
the CPU level (a fixpoint, because the two sets depend on each other):

* a **returned scalar stays** when the variable it is bound to at every ``run`` of its kernel
  is used only as ``run`` arguments, each of a parameter that is read from the device;
* a **parameter is read from the device** when every ``run`` of its kernel passes a variable
  whose value stays on the device.

Anything else — a variable the host computes with, tests, returns from a function or prints,
a variable bound twice in one function, a top-level binding, a tuple-typed scalar — keeps the
host path.  The runner still accepts a host value for a device parameter (it uploads it), so a
kernel run directly (``Executor.run_kernel``) works whatever the analysis decided.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field, fields, is_dataclass

from lambda_cu import ir
from lambda_cu.types import SegDesT, TupleT, VecT


@dataclass(frozen=True)
class DeviceScalars:
    #: kernel name -> names of the scalar parameters read from device buffers
    params: dict = field(default_factory=dict)
    #: kernel name -> indices of the returned scalars left on the device
    keep: dict = field(default_factory=dict)

    def params_of(self, kernel: str) -> frozenset:
        return self.params.get(kernel, frozenset())

    def keep_of(self, kernel: str) -> frozenset:
        return self.keep.get(kernel, frozenset())


def _is_scalar(t) -> bool:
    return not isinstance(t, (VecT, SegDesT, TupleT))


def _host_read(k: ir.Kernel) -> set:
    """The variables of kernel ``k`` the runner reads on the host: sizes, initial values."""
    out: set = set()
    for b in k.binds:
        s = b.soac
        if s.shape is not None:
            out |= ir.free_vars(s.shape)
        for e in s.init_exps:
            out |= ir.free_vars(e)
    return out


def device_scalars(prog: ir.Program) -> DeviceScalars:
    kernels = {k.name: k for k in prog.kernels}
    #: (kernel, param index) of the plain scalar parameters that only thunks read (a size or
    #: an initial value is needed on the host: it would be read back there anyway)
    scalar_params = {(k.name, j) for k in prog.kernels for j, p in enumerate(k.params)
                     if _is_scalar(p.ty) and p.name not in _host_read(k)}
    defs: dict = {}                       # (scope, var) -> (kernel, return index)
    uses: dict = defaultdict(list)        # (scope, var) -> [(kernel, param index) | None]
    sites: dict = defaultdict(list)       # (kernel, param index) -> [(scope, var) | None]
    bound_twice: set = set()
    kernel_defs: dict = defaultdict(list)   # (kernel, return index) -> [(scope, var) | None]

    def walk(node, scope) -> None:
        if isinstance(node, ir.Var):
            uses[(scope, node.name)].append(None)           # the host reads it
        elif isinstance(node, ir.Run):
            for j, a in enumerate(node.args):
                if isinstance(a, ir.Var):
                    uses[(scope, a.name)].append((node.kernel, j))
                    sites[(node.kernel, j)].append((scope, a.name))
                else:
                    sites[(node.kernel, j)].append(None)
                    walk(a, scope)
        elif isinstance(node, ir.Bind):
            bind(node, scope)
        elif isinstance(node, (tuple, list)):
            for x in node:
                walk(x, scope)
        elif is_dataclass(node) and isinstance(node, ir.Node):
            for f in fields(node):
                if f.name != "loc":
                    walk(getattr(node, f.name), scope)

    def bind(b: ir.Bind, scope, top: bool = False) -> None:
        rhs = b.rhs
        k = kernels.get(rhs.kernel) if isinstance(rhs, ir.Run) else None
        for p in b.params:
            if (scope, p.name) in seen_names:
                bound_twice.add((scope, p.name))
            seen_names.add((scope, p.name))
        if k is not None and not top and len(b.params) == len(k.returns):
            for i, p in enumerate(b.params):
                if _is_scalar(p.ty):
                    defs[(scope, p.name)] = (k.name, i)
                    kernel_defs[(k.name, i)].append((scope, p.name))
                else:
                    kernel_defs[(k.name, i)].append(None)
        elif k is not None:
            for i in range(len(k.returns)):
                kernel_defs[(k.name, i)].append(None)
        walk(rhs, scope)

    seen_names: set = set()
    for f in prog.functions:
        walk(f.body, f.name)
    for n, b in enumerate(prog.main):
        # a top-level binding is printed (the host reads it); the block computing it is a
        # scope of its own
        bind(b, ("main", n), top=True)

    dev_vars = {v for v in defs if v not in bound_twice and None not in uses[v]}
    dev_params = {kj for kj in scalar_params if sites[kj] and None not in sites[kj]}
    changed = True
    while changed:
        changed = False
        for v in list(dev_vars):
            kernel_i = defs[v]
            if (not all(u in dev_params for u in uses[v])
                    or not all(d in dev_vars for d in kernel_defs[kernel_i])):
                dev_vars.discard(v)
                changed = True
        for kj in list(dev_params):
            if not all(s in dev_vars for s in sites[kj]):
                dev_params.discard(kj)
                changed = True

    params: dict = defaultdict(set)
    for kname, j in dev_params:
        params[kname].add(kernels[kname].params[j].name)
    keep: dict = defaultdict(set)
    for v in dev_vars:
        kname, i = defs[v]
        keep[kname].add(i)
    return DeviceScalars({k: frozenset(v) for k, v in params.items()},
                         {k: frozenset(v) for k, v in keep.items()})


__all__ = ["DeviceScalars", "device_scalars"]
