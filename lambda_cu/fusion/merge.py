"""Merging a cluster of kernel invocations into one kernel (λcu paper §4.4, first step).

``merge_cluster`` collects the SOAC bindings of the member kernels, in execution order, into one
kernel.  Bookkeeping:
  * every member's kernel-scope variables are renamed apart;
  * a member parameter whose argument is a result of an earlier member becomes that member's
    (internal) SOAC variable — the vector is no longer passed through global memory;
  * the remaining arguments become the new kernel's parameters, deduplicated (the same CPU
    argument is passed once);
  * results used outside the cluster (later in the region, by the CPU, or by the region's
    result) are returned; internal ones are not.
The merged kernel may contain several SOACs; ``rewrite.fuse_kernel`` then fuses them.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

from .. import ir
from ..types import SegDesT, VecT
from .exprs import NameSupply, bound_names, rename_exp, rename_kernel_vars, subst
from .pdg import RegionPDG
from .shapes import Shape


@dataclass(frozen=True)
class MergedCluster:
    kernel: ir.Kernel
    bind: ir.Bind                        # the CPU binding ``let (...) = run K (args)``
    members: tuple                       # bind indices of the merged invocations
    param_shapes: Mapping[str, Shape]    # kernel parameter -> its region shape


def _rename_soac(s: ir.Soac, ren: Mapping[str, str]) -> ir.Soac:
    changes = {f: rename_kernel_vars(getattr(s, f), ren) for f in s.THUNK_FIELDS}
    if s.SEGMENTED:
        changes["sd"] = rename_exp(s.sd, ren)
    elif hasattr(s, "size"):
        changes["size"] = rename_exp(s.size, ren)
    if hasattr(s, "init"):
        changes["init"] = tuple(rename_exp(e, ren) for e in s.init)
    if isinstance(s, ir.Scatter):
        changes["dsts"] = tuple(ir.Var(ren.get(v.name, v.name)) for v in s.dsts)
    return dataclasses.replace(s, **changes)


def merge_cluster(pdg: RegionPDG, members: Sequence[int], live: Iterable[str],
                  name: str) -> MergedCluster:
    """Merge the run nodes ``members`` (in execution order) of ``pdg`` into kernel ``name``.
    ``live`` are the CPU names read outside the cluster."""
    live = set(live)
    runs = [pdg.runs[m] for m in members]
    reserved = set()
    for r in runs:
        for b in r.kernel.binds:
            for t in b.soac.thunks():
                reserved |= {p.name for p in t.params} | bound_names(t.body)
    supply = NameSupply(reserved)
    ext: dict = {}                   # CPU argument expression -> new parameter
    out_var: dict[str, str] = {}     # CPU name of a member result -> kernel variable
    binds: list[ir.KBind] = []
    returns, results, cpu_params = [], [], []
    for r in runs:
        k = r.kernel
        ren: dict[str, str] = {}
        sizes: dict[str, ir.Exp] = {}    # a size parameter -> #(an earlier member's result)
        for p in k.params:
            arg = r.args[p.name]
            if isinstance(arg, ir.Var) and arg.name in out_var:
                ren[p.name] = out_var[arg.name]
                continue
            if isinstance(arg, ir.Length) and isinstance(arg.vec, ir.Var) and arg.vec.name in out_var:
                # ``#F`` of a filter's result as a size (pdg: only the SOAC's size reads it)
                ren[p.name] = supply.fresh(p.name)
                sizes[ren[p.name]] = dataclasses.replace(arg, vec=ir.Var(out_var[arg.vec.name]))
                continue
            if arg not in ext:
                base = arg.name if isinstance(arg, ir.Var) else p.name
                ext[arg] = ir.Param(ir.Var(supply.fresh(base)), p.ty)
            ren[p.name] = ext[arg].name
        for b in k.binds:
            for v in b.vars:
                ren[v.name] = supply.fresh(v.name)
        for b in k.binds:
            soac = _rename_soac(b.soac, ren)
            if sizes:
                soac = dataclasses.replace(soac, size=subst(soac.size, sizes))
            binds.append(ir.KBind(tuple(ir.Var(ren[v.name]) for v in b.vars), soac))
        for j, (cpu, ret) in enumerate(zip(r.outputs, k.returns)):
            out_var[cpu] = ren[ret.name]
            if cpu in live:
                returns.append(ir.Var(ren[ret.name]))
                results.append(k.results[j])
                cpu_params.append(r.bind.params[j])
    if not returns:  # a dead cluster still runs (it may fail): keep its last result
        r = runs[-1]
        returns.append(ir.Var(out_var[r.outputs[0]]))
        results.append(r.kernel.results[0])
        cpu_params.append(r.bind.params[0])
    params = tuple(ext.values())
    kernel = ir.Kernel(name, params, tuple(results), tuple(binds), tuple(returns))
    bind = ir.Bind(tuple(cpu_params), ir.Run(name, tuple(ext.keys())))
    shapes = {}
    for arg, p in ext.items():
        s = pdg.shapes.param_shape(p.ty, arg)
        if s is not None:
            shapes[p.name] = s
    return MergedCluster(kernel, bind, tuple(members), shapes)


def prune_params(kernel: ir.Kernel, bind: ir.Bind) -> tuple[ir.Kernel, ir.Bind]:
    """Drop kernel parameters (and their arguments) that the kernel no longer reads."""
    used = {r.name for r in kernel.returns}
    for b in kernel.binds:
        used |= ir.soac_reads(b.soac)
    keep = [j for j, p in enumerate(kernel.params) if p.name in used]
    if len(keep) == len(kernel.params):
        return kernel, bind
    k2 = dataclasses.replace(kernel, params=tuple(kernel.params[j] for j in keep))
    run = bind.rhs
    b2 = ir.Bind(bind.params, ir.Run(run.kernel, tuple(run.args[j] for j in keep)))
    return k2, b2


def _prefix(t) -> str:
    if isinstance(t, SegDesT):
        return "sd"
    if isinstance(t, VecT):
        return "v"
    return "n"


def canonical_names(kernel: ir.Kernel) -> ir.Kernel:
    """``kernel`` with its kernel-scope names (parameters, then SOAC result variables) renamed
    by position (``v0``, ``sd1``, ``n2``, ..., ``t0``, ``t1``, ...), so that two clusters that
    differ only in the CPU names of their arguments (one cluster in two lifted variants of a
    function) give equal kernels and are defined once."""
    taken = set()
    for b in kernel.binds:
        for t in b.soac.thunks():
            taken |= {p.name for p in t.params} | bound_names(t.body)
    ren: dict[str, str] = {}

    def fresh(base: str) -> str:
        name = base
        while name in taken:
            name += "_"
        taken.add(name)
        return name
    for k, p in enumerate(kernel.params):
        ren[p.name] = fresh(f"{_prefix(p.ty)}{k}")
    k = 0
    for b in kernel.binds:
        for v in b.vars:
            ren[v.name] = fresh(f"t{k}")
            k += 1
    params = tuple(ir.Param(ir.Var(ren[p.name]), p.ty) for p in kernel.params)
    binds = tuple(ir.KBind(tuple(ir.Var(ren[v.name]) for v in b.vars), _rename_soac(b.soac, ren))
                  for b in kernel.binds)
    returns = tuple(ir.Var(ren.get(r.name, r.name)) for r in kernel.returns)
    return dataclasses.replace(kernel, params=params, binds=binds, returns=returns)
