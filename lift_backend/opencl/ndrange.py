"""The NDRange checks a launch of a compiled Lift kernel needs, numpy-free so that ``compile``
can make them too where the sizes and the NDRange are fixed at compile time."""
from __future__ import annotations

from .. import arith as A
from ..errors import LiftRuntimeError
from ..limits import INT_MAX


def _check_strides(kernel, env, gsz, lsz, known_only: bool = False) -> None:
    """A parallel map over ``n`` elements is a loop ``i += stride`` (the global size for
    mapGlb, the number of groups for mapWrg, the local size for mapLcl) in ``int``: refuse the
    NDRange when ``n - 1 + stride`` would overflow (the loop would wrap around to negative
    indices).  ``known_only`` (at compile time): only the maps whose length the fixed sizes
    ``env`` determine are checked, the others are left to the launch."""
    from ..ir import patterns as P
    for node in _live_nodes(kernel.typed):
        if not (isinstance(node, P.Map) and node.parallel and id(node) in kernel.typed.loop_vars):
            continue
        d = node.dim
        g = gsz[d] if d < len(gsz) else 1
        l = (lsz[d] if d < len(lsz) else 1) if lsz is not None else g
        stride = {"mapGlb": g, "mapLcl": l, "mapWrg": g // l if lsz is not None else g}[node.kind]
        n = A.add(kernel.typed.loop_vars[id(node)].hi, 1)
        try:
            value = A.evaluate(n, env)
        except (KeyError, ZeroDivisionError):
            if known_only:
                continue
            hi = A.sym_bounds(n)[1]
            try:
                value = A.evaluate(hi, env) if hi is not None else INT_MAX
            except (KeyError, ZeroDivisionError):
                value = INT_MAX
        if value - 1 + stride > INT_MAX:
            what = {"mapGlb": "global size", "mapLcl": "local size", "mapWrg": "number of work-groups"}
            raise LiftRuntimeError(f"{node.kind}({d}) over {A.to_text(n)} = {value} elements with a "
                                   f"{what[node.kind]} of {stride}: its work-item loop would overflow int "
                                   f"(give an NDRange of at most {max(INT_MAX - value + 1, 1)} in "
                                   f"dimension {d})", kernel.program.span)


def _live_nodes(typed):
    """The nodes of the program's body that the kernel runs: not the body of an
    ``iterate(0)`` (the identity), which is typed with an unbounded length (issue 11: its maps
    were checked against int overflow with that length)."""
    from ..ir import patterns as P
    from ..ir.expr import ir_children
    stack = [typed.program.body]
    while stack:
        n = stack.pop()
        yield n
        if isinstance(n, P.Iterate):
            info = typed.iterate_info.get(id(n))
            if info is not None and len(info.lengths) == 1:
                continue
        stack.extend(reversed(ir_children(n)))
