"""Printing Lift programs in the ``.lift`` notation (the output parses back to the same
program up to the names of generated lambda parameters)."""
from __future__ import annotations

import re

from typing import Callable, Dict, Iterable, Optional

from .. import arith as A
from ..ir import patterns as P
from ..ir.expr import Expr, FunCall, FunDecl, Lambda, Literal, Param, Program, UserFun
from ..types import ArrayType, Type, VectorType, type_to_text


# free parameter names of each node, memoised by identity; each entry keeps its node alive so
# that its id is not reused while cached (cleared when large).  Without it, printing or
# eliminating the barriers of deeply nested lambdas took cubic time.
_FREE: Dict[int, tuple] = {}
_FREE_MAX = 200_000


def free_names(node) -> frozenset:
    """Names of the parameters free in an expression or function."""
    hit = _FREE.get(id(node))
    if hit is not None and hit[0] is node:
        return hit[1]
    if isinstance(node, Param):
        out = frozenset((node.name,))
    elif isinstance(node, FunCall):
        out = free_names(node.f).union(*[free_names(a) for a in node.args])
    elif isinstance(node, Lambda):
        out = free_names(node.body) - {p.name for p in node.params}
    else:
        out = frozenset()
        g = getattr(node, "f", None)
        if isinstance(g, FunDecl):
            out = free_names(g)
        if isinstance(node, P.Reduce):
            out = out | free_names(node.init)
        if isinstance(node, P.FilterSeq):
            out = out | free_names(node.value)
    if len(_FREE) >= _FREE_MAX:
        _FREE.clear()
    _FREE[id(node)] = (node, out)
    return out


def _free_params(e, bound=frozenset()) -> set:
    return set(free_names(e) - bound)


def _free_params_fun(f, bound) -> set:
    return set(free_names(f) - bound)


def composition_chain(lam: Lambda):
    """``[f1, ..., fn]`` if ``lam`` is ``\\p -> f1(...(fn(p)))`` (p used once), else None."""
    if len(lam.params) != 1:
        return None
    p = lam.params[0]
    chain = []
    e = lam.body
    while isinstance(e, FunCall) and len(e.args) == 1:
        if p.name in _free_params_fun(e.f, frozenset()):
            return None
        chain.append(e.f)
        e = e.args[0]
    if e != p or len(chain) < 1:
        return None
    return chain


def partial_application(lam: Lambda):
    """``(g, args)`` if ``lam`` is ``\\ps -> g(args, ps)`` with ``ps`` not free in ``args``."""
    body = lam.body
    if not isinstance(body, FunCall):
        return None
    n = len(lam.params)
    if len(body.args) <= n:
        return None
    tail = body.args[-n:]
    if any(not isinstance(t, Param) or t.name != p.name for t, p in zip(tail, lam.params)):
        return None
    head = body.args[:-n]
    names = {p.name for p in lam.params}
    for a in head:
        if _free_params(a) & names:
            return None
    if _free_params_fun(body.f, frozenset()) & names:
        return None
    return body.f, head


def arith_text(e: A.Expr) -> str:
    return A.to_text(e)


def indexfun_text(f: P.IndexFun) -> str:
    if isinstance(f, P.IndexLambda):
        return f"\\{f.param.name} -> {arith_text(f.body)}"
    if isinstance(f, P.Reverse):
        return "reverse"
    if isinstance(f, P.ReorderStride):
        return f"reorderStride({arith_text(f.stride)})"
    if isinstance(f, P.TransposeIdx):
        return f"transpose({arith_text(f.n)}, {arith_text(f.m)})"
    raise TypeError(f)


def literal_text(l: Literal) -> str:
    v = l.value
    # the least int/long is kept as C writes it, (-2147483647 - 1); Lift's syntax reads -2147483648
    m = re.fullmatch(r"\((-\d+)(L?) - 1\)", v)
    if m is not None:
        v = f"{int(m.group(1)) - 1}{m.group(2)}"
    if isinstance(l.type, VectorType):
        return f"{l.type}({v})"
    return v


# precedence: 0 = `$` allowed, 1 = composition operand, 2 = application head / atom
def fun_text(f: FunDecl, prec: int = 0) -> str:
    if isinstance(f, UserFun):
        return f.name
    if isinstance(f, Lambda):
        chain = composition_chain(f)
        if chain is not None and len(chain) >= 2:
            s = " o ".join(fun_text(g, 2) for g in chain)
            return f"({s})" if prec >= 2 else s
        pa = partial_application(f)
        if pa is not None:
            g, head = pa
            return f"{fun_text(g, 2)}({', '.join(expr_text(a) for a in head)})"
        s = "\\" + " ".join(p.name for p in f.params) + " -> " + expr_text(f.body)
        return f"({s})" if prec >= 1 else s
    if isinstance(f, P.Map):
        if f.kind in ("mapGlb", "mapWrg", "mapLcl"):
            return f"{f.kind}({f.dim})({fun_text(f.f)})"
        return f"{f.kind}({fun_text(f.f)})"
    if isinstance(f, P.Reduce):
        return f"{f.kind}({fun_text(f.f)}, {expr_text(f.init)})"
    if isinstance(f, P.RadixSeq):
        return f"{f.name}({f.bits}, {fun_text(f.f)})"
    if isinstance(f, P.FilterSeq):
        return f"filterSeq({fun_text(f.f)}, {fun_text(f.value)})"
    if isinstance(f, P.Iterate):
        return f"iterate({arith_text(f.n)})({fun_text(f.f)})"
    if isinstance(f, P.Split):
        return f"split({arith_text(f.n)})"
    if isinstance(f, P.ScatterIdx) and f.mode == "max":
        return f"scatterMaxIdx({arith_text(f.length)})"
    if isinstance(f, (P.Gather, P.Scatter)):
        return f"{f.name}({indexfun_text(f.idx)})"
    if isinstance(f, P.Get):
        return f"get({f.i})"
    if isinstance(f, P.Slide):
        return f"slide({arith_text(f.size)}, {arith_text(f.step)})"
    if isinstance(f, P.Pad):
        b = f.boundary if isinstance(f.boundary, str) else literal_text(f.boundary)
        return f"pad({arith_text(f.left)}, {arith_text(f.right)}, {b})"
    if isinstance(f, P.AsVector):
        return f"asVector({f.width})"
    if isinstance(f, P.Slice):
        return f"slice({arith_text(f.start)}, {arith_text(f.stop)})"
    if isinstance(f, P.Partition):
        return f"partition({arith_text(f.n)}, {indexfun_text(f.f)})"
    if isinstance(f, P.Generate):
        return f"generate({arith_text(f.n)})"
    if isinstance(f, (P.ToGlobal, P.ToLocal, P.ToPrivate, P.MapVec)):
        return f"{f.name}({fun_text(f.f)})"
    if isinstance(f, (P.Join, P.Zip, P.Transpose, P.AsScalar, P.Id, P.GatherIdx, P.ScatterIdx, P.SplitOffsets, P.At, P.AtIf, P.FailIf)):
        return f.name
    raise TypeError(f"cannot print {f!r}")


def expr_text(e: Expr, prec: int = 1) -> str:
    if isinstance(e, Param):
        return e.name
    if isinstance(e, Literal):
        return literal_text(e)
    if isinstance(e, FunCall):
        f = e.f
        if isinstance(f, P.Get) and len(e.args) == 1:
            inner = expr_text(e.args[0], 2)
            return f"{inner}._{f.i}"
        if isinstance(f, P.Generate) and not e.args:
            return f"generate({arith_text(f.n)})"
        if isinstance(f, Lambda) and len(e.args) == 1:
            chain = composition_chain(f)
            if chain is not None and len(chain) >= 2 and prec == 0:
                return f"{fun_text(f, 1)} $ {expr_text(e.args[0], 0)}"
        head = fun_text(f, 2)
        return f"{head}({', '.join(expr_text(a, 0) for a in e.args)})"
    raise TypeError(f"cannot print {e!r}")


def userfun_text(u: UserFun) -> str:
    ps = ", ".join(f"{n}: {type_to_text(t)}" for n, t in zip(u.param_names, u.param_types))
    return f"userfun {u.name}({ps}): {type_to_text(u.ret_type)} {{ {u.body} }}"


def program_text(p: Program, annotate: Optional[Callable[[Expr], Optional[str]]] = None) -> str:
    ps = ", ".join(f"{q.name}: {type_to_text(q.type)}" for q in p.params)
    if annotate is None:
        return f"program {p.name}({ps}) =\n  {expr_text(p.body, 0)}"
    return f"program {p.name}({ps}) =\n{annotated_text(p.body, annotate)}"


def _add_userfun(out: Dict[str, UserFun], u: UserFun) -> None:
    """``u`` after the user functions it calls (a file defines a callee before its caller)."""
    if u.name in out:
        return
    for c in u.calls:
        _add_userfun(out, c)
    out[u.name] = u


def used_userfuns(node) -> Dict[str, UserFun]:
    from ..ir.expr import walk
    out: Dict[str, UserFun] = {}
    for n in walk(node):
        if isinstance(n, UserFun):
            _add_userfun(out, n)
    return out


def file_text(programs: Iterable[Program], userfuns: Iterable[UserFun] = ()) -> str:
    """A whole ``.lift`` file: the user functions used (each after those it calls), then the
    programs.  ``programs`` may also be a parsed file (a ``LiftFile``: all its user functions and
    programs)."""
    if isinstance(getattr(programs, "programs", None), dict):
        userfuns = [*programs.userfuns.values(), *userfuns]
        programs = programs.programs.values()
    ufs: Dict[str, UserFun] = {}
    for u in userfuns:
        _add_userfun(ufs, u)
    progs = list(programs)
    for p in progs:
        for name, u in used_userfuns(p.body).items():
            _add_userfun(ufs, u)
    parts = [userfun_text(u) for u in ufs.values()] + [program_text(p) for p in progs]
    return "\n".join(parts) + "\n"


def annotated_text(e: Expr, annotate: Callable[[Expr], Optional[str]], indent: int = 2) -> str:
    """One line per function call, nested by data flow, with ``annotate(call)`` (e.g. its
    type) after it: the ``--emit typed`` view of a program."""
    lines = []

    def go(x, depth):
        pad = " " * (indent + 2 * depth)
        note = annotate(x)
        suffix = f"  : {note}" if note else ""
        if isinstance(x, FunCall):
            f = x.f
            if isinstance(f, Lambda):
                lines.append(f"{pad}(\\{' '.join(p.name for p in f.params)} ->{suffix}")
                go(f.body, depth + 1)
                lines.append(f"{pad})(")
                for a in x.args:
                    go(a, depth + 1)
                lines.append(f"{pad})")
                return
            name = fun_text(f, 2) if not _has_body(f) else _head(f)
            lines.append(f"{pad}{name}{suffix}")
            for sub in _bodies(f):
                lines.append(f"{pad}  {{")
                go_fun(sub, depth + 2)
                lines.append(f"{pad}  }}")
            for a in x.args:
                go(a, depth + 1)
        else:
            lines.append(f"{pad}{expr_text(x)}{suffix}")

    def go_fun(f, depth):
        pad = " " * (indent + 2 * depth)
        if isinstance(f, Lambda):
            lines.append(f"{pad}\\{' '.join(p.name for p in f.params)} ->")
            go(f.body, depth + 1)
        else:
            lines.append(f"{pad}{fun_text(f, 2)}")

    go(e, 0)
    return "\n".join(lines)


def _has_body(f) -> bool:
    return isinstance(getattr(f, "f", None), Lambda)


def _bodies(f):
    g = getattr(f, "f", None)
    if isinstance(g, Lambda):
        return [g]
    return []


def _head(f) -> str:
    if isinstance(f, P.Map):
        return f"{f.kind}({f.dim})" if f.parallel else f.kind
    if isinstance(f, P.Reduce):
        return f"{f.kind}(.., {expr_text(f.init)})"
    if isinstance(f, P.Iterate):
        return f"iterate({arith_text(f.n)})"
    return f.name
