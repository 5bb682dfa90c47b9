"""Common-subexpression elimination on λcu (a pure function from a program to a program).

Flattening gives each use of a value its own copy of the bookkeeping that derives it (the
lengths of a context's segments, a descriptor built from them, its segment ids), and fusion
puts copies that were computed by separate kernels into one: quicksort's lifted body computes
the lengths of its segments three times in one ``MAP`` (once per filter) and builds three
descriptors of them, each with its own vector of segment ids on the device.  This pass removes
such copies:

* **Kernel level.**  A ``MAP`` whose thunk returns a tuple with equal components computes each
  distinct component once; the kernel returns the kept result in the place of each copy (its
  signature is unchanged).
* **CPU level.**  Within a block (and the branches nested in it), a binding whose right-hand
  side equals an earlier one's — after replacing variables known to be equal — is dropped and
  its variables are replaced by the earlier ones.  Candidates are the expressions that are
  deterministic and have no effect but a runtime error: kernel runs (kernels are pure; host
  library calls such as ``rand`` are ``Extern`` nodes, never candidates), ``make_sd`` (its
  failure location is not part of the key: the earlier binding fails first, with its own
  location), descriptor vectors and lengths.  Two results of one kernel run that the kernel
  returns from the same variable are the same value.

An eliminated expression could only have failed where the earlier equal one fails first, so
runtime errors, their locations and the results printed before them are unchanged.
"""
from __future__ import annotations

import dataclasses
from typing import Any, Optional

from .. import ir
from .exprs import rename_exp, rename_kernel_vars, subst


# ------------------------------------------------------------------------------------------
# kernels


def _rename_field(x: Any, ren: dict) -> Any:
    if isinstance(x, ir.Thunk):
        return rename_kernel_vars(x, ren)
    if isinstance(x, ir.Exp):
        return rename_exp(x, ren)
    if isinstance(x, tuple):
        return tuple(_rename_field(y, ren) for y in x)
    return x


def _rename_soac(s: ir.Soac, ren: dict) -> ir.Soac:
    if not ren:
        return s
    return dataclasses.replace(s, **{f.name: _rename_field(getattr(s, f.name), ren)
                                     for f in dataclasses.fields(s)})


def cse_kernel(k: ir.Kernel) -> ir.Kernel:
    """``k`` with the equal components of each tuple-valued ``MAP`` computed once."""
    ren: dict[str, str] = {}
    binds = []
    for kb in k.binds:
        s = _rename_soac(kb.soac, ren)
        if (isinstance(s, ir.Map) and isinstance(s.f.body, ir.Tuple)
                and len(s.f.body.elems) == len(kb.vars) > 1):
            first: dict = {}
            keep_e, keep_v = [], []
            for e, v in zip(s.f.body.elems, kb.vars):
                if e in first:
                    ren[v.name] = first[e].name
                else:
                    first[e] = v
                    keep_e.append(e)
                    keep_v.append(v)
            if len(keep_v) < len(kb.vars):
                body = ir.Tuple(tuple(keep_e)) if len(keep_e) > 1 else keep_e[0]
                s = dataclasses.replace(s, f=ir.Thunk(s.f.params, body, s.f.using))
                binds.append(ir.KBind(tuple(keep_v), s))
                continue
        binds.append(ir.KBind(kb.vars, s))
    if not ren:
        return k
    returns = tuple(ir.Var(ren.get(v.name, v.name)) for v in k.returns)
    return dataclasses.replace(k, binds=tuple(binds), returns=returns)


# ------------------------------------------------------------------------------------------
# CPU level


def _key(rhs: ir.Exp) -> Optional[Any]:
    """The CSE key of a right-hand side, or None when it is not a candidate."""
    if isinstance(rhs, ir.Run):
        return rhs
    if isinstance(rhs, ir.MakeSegDes):
        return ("make_sd", rhs.lengths)
    if isinstance(rhs, ir.SegVec) and isinstance(rhs.sd, ir.Var):
        return rhs
    if isinstance(rhs, ir.Length) and isinstance(rhs.vec, (ir.Var, ir.SegVec)):
        return rhs
    return None


class _Scope:
    """What is known at a point of a block: equal variables and the bindings seen."""

    def __init__(self, kernels: dict, ren: dict, table: dict, bound: set) -> None:
        self.kernels, self.ren, self.table, self.bound = kernels, ren, table, bound

    def child(self) -> "_Scope":
        return _Scope(self.kernels, dict(self.ren), dict(self.table), set(self.bound))

    def sub(self, e: ir.Exp) -> ir.Exp:
        return subst(e, self.ren) if self.ren else e

    def exp(self, e: ir.Exp) -> ir.Exp:
        e = self.sub(e)
        if isinstance(e, ir.Block):
            return self.child().block(e)
        if isinstance(e, ir.If):
            # what a branch learns stays in it
            return ir.If(e.cond, self.child().exp(e.then), self.child().exp(e.else_))
        if isinstance(e, ir.Speculate):
            # each block on its own: what the fast one computed is gone when it fails
            return ir.Speculate(e.size, self.child().exp(e.fast), self.child().exp(e.slow))
        return e

    def block(self, b: ir.Block) -> ir.Block:
        binds = self.binds(b.binds)
        return ir.Block(binds, self.sub(b.result))

    def binds(self, binds: tuple) -> tuple:
        out = []
        for b in binds:
            rhs = self.exp(b.rhs)
            names = b.names
            if any(n in self.bound for n in names):
                # a name bound again: what was known about the old one no longer holds
                self.table.clear()
                self.ren = {k: v for k, v in self.ren.items()
                            if k not in names and v.name not in names}
            self.bound.update(names)
            key = _key(rhs)
            hit = self.table.get(key) if key is not None else None
            if hit is not None and len(hit) == len(names):
                for n, h in zip(names, hit):
                    self.ren[n] = ir.Var(h)
                continue
            out.append(ir.Bind(b.params, rhs))
            if key is not None:
                self.table[key] = names
            if isinstance(rhs, ir.Run) and len(names) > 1:
                k = self.kernels.get(rhs.kernel)
                if k is not None and len(k.returns) == len(names):
                    first: dict = {}
                    for n, r in zip(names, k.returns):
                        if r.name in first:
                            self.ren[n] = ir.Var(first[r.name])
                        else:
                            first[r.name] = n
        return tuple(out)


def cse_program(prog: ir.Program) -> ir.Program:
    """``prog`` with common subexpressions eliminated (see the module docstring)."""
    kernels = tuple(cse_kernel(k) for k in prog.kernels)
    kmap = {k.name: k for k in kernels}
    functions = tuple(dataclasses.replace(f, body=_Scope(kmap, {}, {}, {p.name for p in f.params})
                                          .block(f.body))
                      for f in prog.functions)
    # the main bindings are the program's top-level values (printed by name): kept as they are
    return ir.Program(kernels, functions, prog.main)


__all__ = ["cse_program", "cse_kernel"]
