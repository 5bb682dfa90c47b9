"""Dead-code elimination on λcu (pure functions from bindings / programs to the same).

The one implementation, used by the flattener (``nessie/flatten`` calls
:func:`eliminate_dead_code` on the program it built) and by fusion (``lambda_cu.fusion`` calls
:func:`drop_dead_bindings` on each region it rewrote and :func:`drop_unused_kernels` on the
fused program).

Flattening emits some bookkeeping that a particular program does not use (segment ids of a
context whose body only needed the lengths, index maps of variables a branch never reads), and
fusion leaves some behind (``n = #xs`` once the size is taken from the producer).  A binding is
removed when none of its variables is used afterwards and evaluating it cannot fail or have an
effect: host arithmetic without a failure location, lengths, descriptor vectors, literals,
tuples and projections of such, and runs of kernels that are *total* (no checked subscript, no
checked division, no permutation check, no ``ONCE``).  Kernels no longer run anywhere are
dropped.  Anything that could raise a NESL runtime error is kept, so error behaviour is
unchanged.
"""
from __future__ import annotations

import dataclasses
from typing import Callable, Optional

from . import ir


def _has_loc(node) -> bool:
    if isinstance(node, (ir.Index, ir.PrimOp)) and node.loc is not None:
        return True
    if isinstance(node, tuple):
        return any(_has_loc(x) for x in node)
    if isinstance(node, ir.Node) and dataclasses.is_dataclass(node):
        return any(_has_loc(getattr(node, f.name)) for f in dataclasses.fields(node))
    return False


def is_total(k: ir.Kernel) -> bool:
    """Can a run of ``k`` neither fail nor have an effect (so an unused run may be dropped)?"""
    for kb in k.binds:
        s = kb.soac
        if isinstance(s, (ir.Permute, ir.Scatter, ir.SegPermute, ir.Once)):
            return False
        if _has_loc(s):
            return False
    return True


#: by kernel name, whether a run of it may be dropped (:func:`is_total` of its definition)
Totality = Callable[[str], bool]


def removable(rhs: ir.Exp, total: Totality) -> bool:
    """May an unused binding of ``rhs`` be removed?"""
    if isinstance(rhs, (ir.Var, ir.Const, ir.Length, ir.SegVec)):
        return True
    if isinstance(rhs, ir.Tuple):
        return all(removable(x, total) for x in rhs.elems)
    if isinstance(rhs, ir.Proj):
        return removable(rhs.tup, total)
    if isinstance(rhs, ir.VecLit):
        return all(removable(x, total) for x in rhs.elems)
    if isinstance(rhs, ir.PrimOp):
        return rhs.loc is None and all(removable(a, total) for a in rhs.args)
    if isinstance(rhs, ir.Run):
        return total(rhs.kernel)
    return False            # MakeSegDes (negative lengths fail), Call, Extern, Check, Error, ...


def drop_dead_bindings(binds: tuple, result: Optional[ir.Exp], total: Totality,
                       nested: bool = True) -> tuple:
    """The bindings of a straight-line region (read by ``result``) without the removable ones
    whose variables nothing later reads; with ``nested`` the blocks and branches on their
    right-hand sides are cleaned too.  One backward pass (a binding read only by dead bindings
    is dead)."""
    used = set(ir.free_vars(result)) if result is not None else set()
    kept = []
    for bd in reversed(binds):
        rhs = _exp(bd.rhs, total) if nested else bd.rhs
        if bd.params and used.isdisjoint(bd.names) and removable(rhs, total):
            continue
        kept.append(ir.Bind(bd.params, rhs) if rhs is not bd.rhs else bd)
        used |= ir.free_vars(rhs)
    return tuple(reversed(kept))


def _exp(e: ir.Exp, total) -> ir.Exp:
    if isinstance(e, ir.Block):
        return ir.Block(drop_dead_bindings(e.binds, e.result, total), e.result)
    if isinstance(e, ir.If):
        return ir.If(e.cond, _exp(e.then, total), _exp(e.else_, total))
    if isinstance(e, ir.Speculate):
        return ir.Speculate(e.size, _exp(e.fast, total), _exp(e.slow, total))
    return e


def used_kernels(prog: ir.Program) -> set[str]:
    """The names of the kernels ``prog``'s functions and main bindings run."""
    used: set[str] = set()
    for f in prog.functions:
        used.update(r.kernel for r in ir.kernel_runs(f.body))
    for b in prog.main:
        used.update(r.kernel for r in ir.kernel_runs(b.rhs))
    return used


def drop_unused_kernels(prog: ir.Program, renumber: bool = False) -> ir.Program:
    """``prog`` without the kernels nothing runs; with ``renumber`` the rest are renamed
    ``K1, K2, ...`` densely in their order (``run K7`` -> ``run K5``)."""
    used = used_kernels(prog)
    kernels = tuple(k for k in prog.kernels if k.name in used)
    if not renumber:
        return dataclasses.replace(prog, kernels=kernels)
    names = {k.name: f"K{i + 1}" for i, k in enumerate(kernels)}
    kernels = tuple(dataclasses.replace(k, name=names[k.name]) for k in kernels)
    funcs = tuple(dataclasses.replace(f, body=_rename_runs(f.body, names))
                  for f in prog.functions)
    main = tuple(ir.Bind(b.params, _rename_runs(b.rhs, names)) for b in prog.main)
    return ir.Program(kernels, funcs, main)


def _rename_runs(e, names: dict):
    if isinstance(e, ir.Run):
        return ir.Run(names[e.kernel], e.args)
    if isinstance(e, ir.Block):
        return ir.Block(tuple(ir.Bind(b.params, _rename_runs(b.rhs, names)) for b in e.binds),
                        _rename_runs(e.result, names))
    if isinstance(e, ir.If):
        return ir.If(e.cond, _rename_runs(e.then, names), _rename_runs(e.else_, names))
    if isinstance(e, ir.Speculate):
        return ir.Speculate(e.size, _rename_runs(e.fast, names),
                            _rename_runs(e.slow, names))
    return e


def eliminate_dead_code(prog: ir.Program, renumber: bool = True) -> ir.Program:
    """Dead bindings removed from every function body and main binding (the main bindings
    themselves are the program's results and stay), then the kernels nothing runs dropped
    (and the rest renumbered ``K1, K2, ...``, as the flattener names them)."""
    totals = {k.name: is_total(k) for k in prog.kernels}

    def total(name: str) -> bool:
        return totals.get(name, False)
    funcs = tuple(dataclasses.replace(f, body=_exp(f.body, total)) for f in prog.functions)
    main = tuple(ir.Bind(b.params, _exp(b.rhs, total)) for b in prog.main)
    return drop_unused_kernels(ir.Program(prog.kernels, funcs, main), renumber)


__all__ = ["Totality", "is_total", "removable", "drop_dead_bindings", "used_kernels", "drop_unused_kernels",
           "eliminate_dead_code"]
