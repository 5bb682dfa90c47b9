"""Code emission for flattening: fresh names, CPU blocks, and kernels created per operation.

The flattener writes λcu CPU code into a stack of open blocks (:meth:`Builder.bind`), and creates
one single-SOAC kernel per data-parallel operation (:meth:`Builder.soac`).  A SOAC is written as if
its thunks could name host variables directly; :meth:`Builder.soac` then *lambda-lifts* it into a
kernel: the host variables it reads become kernel parameters with canonical names (``xs0``,
``s1``, ``sd2`` … in order of first occurrence), and structurally equal kernels are defined once
(the same operation run several times shares one kernel, as in the λcu paper's §5).

The builder is the flattener's private, mutable workspace; what it produces (kernels, functions,
blocks) are immutable λcu values.
"""
from __future__ import annotations

import dataclasses
from typing import Sequence

from lambda_cu import ir
from lambda_cu.types import INT, SD, IntT, SegDesT, Type, VecT, tuple_of


# ----------------------------------------------------------------------------- GPU expressions
def thunk(params: Sequence[tuple[str, Type]], body: ir.Exp) -> ir.Thunk:
    """A thunk whose ``using`` list is exactly its free variables (in order of occurrence)."""
    ps = tuple(ir.Param(ir.Var(n), t) for n, t in params)
    using = ir.ordered_free_vars(body, bound=frozenset(n for n, _ in params))
    return ir.Thunk(ps, body, tuple(ir.Var(u) for u in using))


def rename(node, mapping: dict):
    """Copy of a λcu node with the variables named in ``mapping`` renamed (no capture: the
    flattener never reuses host names as thunk binders)."""
    if isinstance(node, ir.Var):
        return ir.Var(mapping.get(node.name, node.name))
    if isinstance(node, tuple):
        return tuple(rename(x, mapping) for x in node)
    if isinstance(node, ir.Node) and dataclasses.is_dataclass(node):
        changes = {}
        for f in dataclasses.fields(node):
            v = getattr(node, f.name)
            if isinstance(v, (ir.Node, tuple)):
                nv = rename(v, mapping)
                if nv != v:
                    changes[f.name] = nv
        return dataclasses.replace(node, **changes) if changes else node
    return node


def _soac_free_vars(s: ir.Soac) -> list:
    """The host variables a SOAC reads, in order of first occurrence (its thunks, its size /
    descriptor / init expressions, field by field)."""
    nodes: list = []
    for f in dataclasses.fields(s):
        v = getattr(s, f.name)
        if isinstance(v, (ir.Thunk, ir.Exp)):
            nodes.append(v)
        elif isinstance(v, tuple):
            nodes.extend(x for x in v if isinstance(x, ir.Exp))
    return ir.ordered_free_vars(*nodes)


def _param_prefix(t: Type) -> str:
    if isinstance(t, VecT):
        return "xs"
    if isinstance(t, SegDesT):
        return "sd"
    return "s"


# ----------------------------------------------------------------------------- the builder
class Builder:
    """Mutable emission state of one flattening run (names, open blocks, kernels, functions)."""

    def __init__(self, int_type: IntT = INT) -> None:
        self.int_type = int_type
        self.types: dict[str, Type] = {}
        self._counter = 0
        self._blocks: list[list[ir.Bind]] = []
        self.kernels: list[ir.Kernel] = []
        self._kernel_keys: dict = {}
        self.functions: dict[str, ir.Function] = {}

    # names ------------------------------------------------------------------------------
    def fresh(self, hint: str, ty: Type) -> ir.Var:
        self._counter += 1
        hint = "".join(c if c.isalnum() or c == "_" else "_" for c in hint) or "v"
        name = f"{hint}_{self._counter}"
        self.types[name] = ty
        return ir.Var(name)

    def type_of(self, e: ir.Exp) -> Type:
        """Type of a host expression built by the flattener (variables, constants, lengths)."""
        if isinstance(e, ir.Var):
            return self.types[e.name]
        if isinstance(e, ir.Const):
            return e.ty
        if isinstance(e, ir.Length):
            return e.ity
        if isinstance(e, ir.SegVec):
            return VecT(e.ity)
        if isinstance(e, ir.PrimOp):
            from lambda_cu.prims import result_type
            return result_type(e.op, [self.type_of(a) for a in e.args], e.ty)
        if isinstance(e, ir.MakeSegDes):
            return SD
        if isinstance(e, ir.VecLit):
            return VecT(e.elem)
        if isinstance(e, ir.Tuple):
            return tuple_of([self.type_of(x) for x in e.elems])
        if isinstance(e, ir.Proj):
            t = self.type_of(e.tup)
            return t.elems[e.index]
        raise TypeError(f"cannot type host expression {e!r}")

    # blocks -----------------------------------------------------------------------------
    def open_block(self) -> None:
        self._blocks.append([])

    def close_block(self, result: ir.Exp) -> ir.Block:
        binds = self._blocks.pop()
        return ir.Block(tuple(binds), result)

    def emit(self, bind: ir.Bind) -> None:
        self._blocks[-1].append(bind)

    def bind(self, rhs: ir.Exp, ty: Type, hint: str = "v") -> ir.Var:
        """``let v : ty = rhs`` in the current block; returns ``v`` (atoms are returned as is)."""
        if isinstance(rhs, (ir.Var, ir.Const)):
            return rhs
        v = self.fresh(hint, ty)
        self.emit(ir.Bind((ir.Param(v, ty),), rhs))
        return v

    def bind_many(self, rhs: ir.Exp, tys: Sequence[Type], hint: str = "v") -> list[ir.Var]:
        """``let (v1, ..., vk) = rhs`` (k >= 2) or ``let v = rhs`` (k = 1)."""
        if len(tys) == 1:
            return [self.bind(rhs, tys[0], hint)]
        vs = [self.fresh(hint, t) for t in tys]
        if not vs:
            self.emit(ir.Bind((), rhs))
            return []
        self.emit(ir.Bind(tuple(ir.Param(v, t) for v, t in zip(vs, tys)), rhs))
        return vs

    def effect(self, rhs: ir.Exp) -> None:
        """``let _ = rhs`` (checks)."""
        self.emit(ir.Bind((), rhs))

    # kernels ----------------------------------------------------------------------------
    def soac(self, s: ir.Soac, result_types: Sequence[Type], hint: str = "r") -> list[ir.Var]:
        """Lambda-lift one SOAC into a (shared) kernel and run it; returns the result variables."""
        free = _soac_free_vars(s)
        ptypes = [self.types[n] for n in free]
        pnames = [f"{_param_prefix(t)}{k}" for k, t in enumerate(ptypes)]
        body = rename(s, dict(zip(free, pnames)))
        rvars = tuple(ir.Var(f"r{k}") for k in range(len(result_types)))
        params = tuple(ir.Param(ir.Var(n), t) for n, t in zip(pnames, ptypes))
        key = (params, body, tuple(result_types))
        name = self._kernel_keys.get(key)
        if name is None:
            name = f"K{len(self.kernels) + 1}"
            self._kernel_keys[key] = name
            self.kernels.append(ir.Kernel(name, params, tuple(result_types),
                                          (ir.KBind(rvars, body),), rvars))
        run = ir.Run(name, tuple(ir.Var(n) for n in free))
        return self.bind_many(run, list(result_types), hint)
