"""Dead-code elimination on flattened λcu (a pure function from program to program).

Flattening emits some bookkeeping that a particular program does not use (segment ids of a
context whose body only needed the lengths, index maps of variables a branch never reads).  A
binding is removed when none of its variables is used afterwards and evaluating it cannot fail or
have an effect: host arithmetic without a failure location, lengths, descriptor vectors, literals,
and runs of kernels that are *total* (no checked subscript, no checked division, no permutation
check).  Kernels no longer run anywhere are dropped.  Anything that could raise a NESL runtime
error is kept, so error behaviour is unchanged.
"""
from __future__ import annotations

import dataclasses

from lambda_cu import ir


def _has_loc(node) -> bool:
    if isinstance(node, (ir.Index, ir.PrimOp)) and node.loc is not None:
        return True
    if isinstance(node, tuple):
        return any(_has_loc(x) for x in node)
    if isinstance(node, ir.Node) and dataclasses.is_dataclass(node):
        return any(_has_loc(getattr(node, f.name)) for f in dataclasses.fields(node))
    return False


def _total(k: ir.Kernel) -> bool:
    for kb in k.binds:
        s = kb.soac
        if isinstance(s, (ir.Permute, ir.Scatter, ir.SegPermute, ir.Once)):
            return False
        if _has_loc(s):
            return False
    return True


_PURE_HOST = (ir.Length, ir.SegVec, ir.Var, ir.Const, ir.Tuple, ir.Proj, ir.VecLit)


def _removable(rhs, total: dict) -> bool:
    if isinstance(rhs, _PURE_HOST):
        return True
    if isinstance(rhs, ir.PrimOp):
        return rhs.loc is None and all(_removable(a, total) for a in rhs.args)
    if isinstance(rhs, ir.MakeSegDes):
        return rhs.loc is None and False  # negative lengths fail: keep
    if isinstance(rhs, ir.Run):
        return total.get(rhs.kernel, False)
    return False


def _block(blk: ir.Block, total: dict) -> ir.Block:
    used = set(ir.free_vars(blk.result))
    kept = []
    for bd in reversed(blk.binds):
        rhs = bd.rhs
        if isinstance(rhs, ir.Block):
            rhs = _block(rhs, total)
        elif isinstance(rhs, ir.If):
            rhs = ir.If(rhs.cond, _exp(rhs.then, total), _exp(rhs.else_, total))
        names = {p.var.name for p in bd.params}
        if bd.params and not (names & used) and _removable(rhs, total):
            continue
        kept.append(ir.Bind(bd.params, rhs) if rhs is not bd.rhs else bd)
        used |= ir.free_vars(rhs)
    return ir.Block(tuple(reversed(kept)), blk.result)


def _exp(e, total):
    if isinstance(e, ir.Block):
        return _block(e, total)
    return e


def eliminate_dead_code(prog: ir.Program) -> ir.Program:
    total = {k.name: _total(k) for k in prog.kernels}
    funcs = tuple(dataclasses.replace(f, body=_block(f.body, total)) for f in prog.functions)
    main = tuple(ir.Bind(b.params, _exp(b.rhs, total)) for b in prog.main)
    runs = set()
    for f in funcs:
        runs.update(r.kernel for r in ir.kernel_runs(f.body))
    for b in main:
        runs.update(r.kernel for r in ir.kernel_runs(b.rhs))
    kernels = [k for k in prog.kernels if k.name in runs]
    names = {k.name: f"K{i + 1}" for i, k in enumerate(kernels)}
    kernels = tuple(dataclasses.replace(k, name=names[k.name]) for k in kernels)
    funcs = tuple(dataclasses.replace(f, body=_rename_runs(f.body, names)) for f in funcs)
    main = tuple(ir.Bind(b.params, _rename_runs(b.rhs, names)) for b in main)
    return ir.Program(kernels, funcs, main)


def _rename_runs(e, names: dict):
    """Renumber kernels densely after removals (``run K7`` -> ``run K5``)."""
    if isinstance(e, ir.Run):
        return ir.Run(names[e.kernel], e.args)
    if isinstance(e, ir.Block):
        return ir.Block(tuple(ir.Bind(b.params, _rename_runs(b.rhs, names)) for b in e.binds),
                        _rename_runs(e.result, names))
    if isinstance(e, ir.If):
        return ir.If(e.cond, _rename_runs(e.then, names), _rename_runs(e.else_, names))
    return e
