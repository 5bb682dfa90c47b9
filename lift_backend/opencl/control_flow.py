"""Control-flow simplification (Lift paper §5.5).

For each map and reduce the shape of the generated code is decided from the types and
the launch configuration (when the work-group/global sizes are given at compile time):

* ``loop``: a ``for`` loop (the general case);
* ``if``: the loop runs at most once per work-item (``n <= threads``);
* ``once``: it runs exactly once per work-item (``n == threads``): straight-line code;
  for sequential loops: one iteration, the index is the constant 0;
* ``none``: the array is empty.
"""
from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Mapping, Optional, Tuple

from .. import arith as A
from ..ir import patterns as P
from ..ir.expr import FunCall, walk
from ..types import ArrayType
from ..types.infer import TypedProgram


@dataclass(frozen=True)
class LaunchConfig:
    """Global and local sizes known at compile time (``None``: unknown).  A global size may be
    an arithmetic expression of the program's size variables (``N + 255``: the host launches
    at least ``N`` work-items, so a ``mapGlb`` over ``N`` runs at most once per work-item)."""
    global_size: Optional[Tuple[object, ...]] = None
    local_size: Optional[Tuple[int, ...]] = None

    def threads(self, kind: str, dim: int) -> Optional[A.Expr]:
        g = self.global_size[dim] if self.global_size and dim < len(self.global_size) else None
        l = self.local_size[dim] if self.local_size and dim < len(self.local_size) else None
        if kind == "mapLcl":
            return None if l is None else A.Cst(l)
        if kind == "mapGlb":
            return None if g is None else (g if isinstance(g, A.Expr) else A.Cst(g))
        if kind == "mapWrg":
            if g is None or l is None or isinstance(g, A.Expr):
                return None
            return A.Cst(g // l)
        return None


def loop_shape(kind: str, n: A.Expr, threads: Optional[A.Expr]) -> str:
    if A.prove_le(n, 0):
        return "none"
    if kind in ("mapSeq", "map", "reduceSeq", "reduce", "scanSeq", "filterSeq", "radixHistSeq", "radixRankSeq"):
        return "once" if n == A.ONE else "loop"
    if threads is None:
        return "loop"
    if A.prove_eq(n, threads):
        return "once"
    if A.prove_le(n, threads):
        return "if"
    if kind == "mapLcl":
        rem = A.mod(n, threads)
        if isinstance(rem, A.Cst) and rem.value == 0:
            # every work-item of the group runs the loop the same number of times (n / threads):
            # a barrier inside it is reached by all of them alike
            return "uniform"
    return "loop"


def decide_shapes(typed: TypedProgram, launch: LaunchConfig) -> Mapping[int, str]:
    """Shape of every map/reduce of ``typed`` (keyed by pattern identity)."""
    out = {}
    for node in walk(typed.program.body):
        if isinstance(node, (P.Map, P.Reduce, P.FilterSeq, P.RadixSeq)) and id(node) in typed.loop_vars:
            var = typed.loop_vars[id(node)]
            n = A.add(var.hi, 1)
            dim = node.dim if isinstance(node, P.Map) else 0
            kind = node.name if isinstance(node, (P.FilterSeq, P.RadixSeq)) else node.kind
            out[id(node)] = loop_shape(kind, n, launch.threads(kind, dim))
    return MappingProxyType(out)
