"""One call of a function where both branches of a varying conditional call it.

Flattened, ``if c then E1[f(a1)] else E2[f(a2)]`` with a condition that varies between the
instances of a context splits the context and makes one lifted call of ``f`` per branch.  When
``f`` recurses through such a conditional (collatz: ``if evenp(n) then 1 + collatz(n / 2) else
1 + collatz(3 * n + 1)``), every level doubles the number of lifted calls: their number grows
with 2^depth instead of with the depth, although every instance makes one call per level.

:func:`hoist_call` rewrites the conditional into::

    let r = f(if c then a1 else a2) in if c then E1[r] else E2[r]

one lifted call over all the instances per level.  It applies only where that is unobservable:

* the conditional cannot fail nor have an effect (the flattener's ``expr_safe``: ``f`` too), so
  evaluating ``f``'s call before the rest of a branch changes no error and no output;
* each branch holds exactly one call of ``f``, in a *strict* position: evaluated exactly once
  whenever the branch is (not under an ``if`` or in the body or filter of an apply-to-each), so
  every instance makes the same one call, with the same argument, before and after;
* the argument ``a1`` (``a2``) reads no variable bound inside its branch.

The condition ``c`` is already evaluated; the rewritten expression reads it as a variable.
"""
from __future__ import annotations

import dataclasses
from typing import Callable, Optional

from nessie.types import typed_ast as T

#: fields of typed-AST nodes that hold no sub-expressions
_SKIP = ("type", "fun_type", "span", "scheme", "params", "type_args", "orig_name")


def _children(node, strict_only: bool) -> list:
    """The sub-expressions of ``node``; with ``strict_only``, those evaluated exactly once
    whenever ``node`` is (not the branches of an ``if``, not the body or filter of an
    apply-to-each)."""
    if isinstance(node, T.If):
        return [node.cond] if strict_only else [node.cond, node.then, node.else_]
    if isinstance(node, T.ApplyToEach):
        srcs = [g.source for g in node.gens]
        if strict_only:
            return srcs
        return srcs + [node.body] + ([node.filter] if node.filter is not None else [])
    out = []
    for fl in dataclasses.fields(node):
        if fl.name in _SKIP:
            continue
        v = getattr(node, fl.name)
        if isinstance(v, tuple):
            out.extend(x for x in v if dataclasses.is_dataclass(x))
        elif dataclasses.is_dataclass(v):
            out.append(v)
    return out


def _bound_names(node) -> set:
    """Variables a node binds for its sub-expressions (a ``let``'s pattern)."""
    names: set = set()
    if isinstance(node, T.Let):
        for p in T.iter_nodes(node.pattern):
            if isinstance(p, T.PVar):
                names.add(p.name)
    return names


def _calls_of(e, name: str) -> list:
    return [x for x in T.iter_nodes(e) if isinstance(x, T.Call) and x.kind == T.USER
            and x.name == name]


def _strict_call(branch, name: str):
    """The one call of ``name`` in ``branch`` if there is exactly one and it is in a strict
    position with an argument that reads no variable bound inside the branch; else None."""
    calls = _calls_of(branch, name)
    if len(calls) != 1:
        return None
    target = calls[0]
    # walk the strict positions only, with the names bound on the way
    stack = [(branch, frozenset())]
    while stack:
        node, bound = stack.pop()
        if node is target:
            free = {x.name for x in T.iter_nodes(target.arg) if isinstance(x, T.Var)}
            return target if not (free & bound) else None
        if not dataclasses.is_dataclass(node) or isinstance(node, T.Gen):
            continue
        inner = bound | _bound_names(node)
        for c in _children(node, strict_only=True):
            if isinstance(node, T.Let) and c is node.bound:
                stack.append((c, bound))
            else:
                stack.append((c, inner))
    return None


def _replace(e, target, repl):
    """``e`` with the node ``target`` (by identity) replaced by ``repl``."""
    if e is target:
        return repl
    if isinstance(e, tuple):
        new = tuple(_replace(x, target, repl) for x in e)
        return new if any(a is not b for a, b in zip(new, e)) else e
    if not dataclasses.is_dataclass(e) or isinstance(e, type):
        return e
    changes = {}
    for fl in dataclasses.fields(e):
        if fl.name in _SKIP:
            continue
        v = getattr(e, fl.name)
        if isinstance(v, tuple) or dataclasses.is_dataclass(v):
            nv = _replace(v, target, repl)
            if nv is not v:
                changes[fl.name] = nv
    return dataclasses.replace(e, **changes) if changes else e


def hoist_call(e: T.If, cond_var: str, result_var: str,
               safe: Callable[[object], bool]) -> Optional[object]:
    """The rewritten form of the conditional ``e`` (see the module), reading its condition from
    the variable ``cond_var`` and binding the call's result to ``result_var``; None where the
    rewrite does not apply.  ``safe(exp)``: can ``exp`` neither fail nor have an effect?"""
    if not safe(e):
        return None
    names = {x.name for x in T.iter_nodes(e.then) if isinstance(x, T.Call) and x.kind == T.USER}
    for name in sorted(names):
        c1 = _strict_call(e.then, name)
        if c1 is None:
            continue
        c2 = _strict_call(e.else_, name)
        if c2 is None or c1.arg.type != c2.arg.type or c1.type != c2.type:
            continue
        cv = T.Var(cond_var, e.cond.type, e.cond.span)
        arg = T.If(cv, c1.arg, c2.arg, c1.arg.type, e.span)
        call = dataclasses.replace(c1, arg=arg)
        r = T.Var(result_var, c1.type, c1.span)
        body = T.If(cv, _replace(e.then, c1, r), _replace(e.else_, c2, r), e.type, e.span)
        return T.Let(T.PVar(result_var, c1.type, c1.span), call, body, e.type, e.span)
    return None


__all__ = ["hoist_call"]
