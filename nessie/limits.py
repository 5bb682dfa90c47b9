"""Nessie's documented size limits, and running deep recursions safely.

Every stage of the compiler (type checker, monomorphiser, flattener, fusion, printers, the
reference interpreter's closure compiler) walks expressions recursively, a few Python frames per
level of nesting.  Rather than rewriting each of them iteratively, Nessie

* bounds the nesting of a program: an expression nested more than :data:`MAX_EXPR_DEPTH` levels
  deep is a located compile error, ``expression too deep`` (checked iteratively right after
  parsing, see :func:`depth_errors`); and
* runs the stages under :func:`run_deep` (``lambda_cu.support``, the one big-stack runner of
  every package): on a thread with a large stack (:data:`STACK_SIZE`) and a raised recursion
  limit (:data:`RECURSION_LIMIT`), so that every stage handles the
  documented depth with a wide margin (measured: each stage takes fewer than 20 frames a level,
  so a depth of 1000 needs well under 5% of the recursion limit).

What counts as a level: each node of the syntax tree below a top-level item (an operator, an
application, a subscript, a tuple component, a sequence literal, a conditional branch, a type
constructor in a type expression, a pattern component, ...), and each binding of a ``let`` and
each generator of an apply-to-each counts as one more level for what follows it (they are
scopes nested in each other).  Parentheses do not count.  So ``1+1+...+1`` may have 1000
terms, ``[[...[1]...]]`` 999 pairs of brackets, and a ``let`` 998 bindings (in one ``let`` or
in ``let`` nested in ``let``).  The limit is
``NESSIE_MAX_EXPR_DEPTH`` in the environment (default 1000).

The parser itself (PLY's LALR automaton) is iterative: it reads a program of any nesting, so
the error is reported at the first sub-expression past the limit, with the others of the file.

Run-time recursion is bounded by :data:`MAX_CALL_DEPTH` (``NESSIE_MAX_CALL_DEPTH`` in the
environment, default 10,000; defined in ``lambda_cu.support``): at most that many NESL
user-function calls may be active at once, counted the same way on every backend.  The reference
interpreter counts the user-function calls on its stack, element-wise or lifted (the vector-wise
evaluation of ``nessie.interp.vector`` counts one call per lifted call, for its whole context);
the λcu executor (``--backend lcu`` and ``--backend opencl``) counts its active ``Call`` frames.
The flattener makes one λcu function per NESL function and form (unlifted, lifted), and
sibling calls batched into one lifted call are at the same depth as each of them in source
order, so the counts agree: ``function g(n) = if n == 0 then 0 else 1 + g(n - 1)`` runs
``g(9999)`` (10,000 calls active) and fails on ``g(10000)``; a recursion through an
apply-to-each counts one call per level.  A top-level expression starts at depth 0; the
Python API's call of a function is its first call.  One call past the limit is
``RUNTIME ERROR: recursion too deep.`` (:data:`RECURSION_TOO_DEEP`) at the top-level expression
being evaluated (at the function's definition for a call from the Python API), after the output
of the items before it, on every backend.  An unbounded recursion through an apply-to-each
fails within seconds (about 14 s on OpenCL with PoCL on 2 cores, against minutes when only the
stack bounded it).  Each backend still runs programs on a big stack, and a recursion of
Python frames that exhausts it first (not expected below the limit) is the same error.

Memory is not bounded either: a program whose values do not fit (Python's ``MemoryError`` on the
interpreter, a failed allocation on λcu or the device, or a nested sequence whose flattened
representation would hold more than 2^31 - 1 elements, the int32 segment descriptors' limit) is
reported by every backend as ``RUNTIME ERROR: out of memory.`` (:data:`OUT_OF_MEMORY`) at the
top-level expression being evaluated.  Where a backend runs out first depends on its
representation (the interpreter builds Python tuples, the others flat vectors), so this is the
one runtime error whose occurrence may differ between backends.
"""
from __future__ import annotations

import dataclasses
from typing import Optional

from lambda_cu.errors import MSG_OUT_OF_MEMORY, MSG_RECURSION
from lambda_cu.support import (MAX_CALL_DEPTH, RECURSION_LIMIT, STACK_SIZE, env_positive,
                               run_deep)
from nessie.diagnostics import Span

__all__ = ["MAX_EXPR_DEPTH", "MAX_CALL_DEPTH", "STACK_SIZE", "RECURSION_LIMIT",
           "RECURSION_TOO_DEEP", "OUT_OF_MEMORY", "run_deep", "depth_errors", "expression_too_deep"]


#: the deepest nesting of an expression (see the module docstring)
MAX_EXPR_DEPTH = env_positive("NESSIE_MAX_EXPR_DEPTH", 1000)
#: the runtime error every backend reports when a program's recursion exhausts the stack (the
#: text of ``lambda_cu.errors``, which the λcu executor raises)
RECURSION_TOO_DEEP = MSG_RECURSION
#: the runtime error every backend reports when a program's values do not fit in memory (the
#: text of ``lambda_cu.errors``)
OUT_OF_MEMORY = MSG_OUT_OF_MEMORY

def expression_too_deep(limit: Optional[int] = None) -> str:
    limit = MAX_EXPR_DEPTH if limit is None else limit
    return (f"expression too deep: nested more than {limit} levels (Nessie's limit, "
            f"NESSIE_MAX_EXPR_DEPTH)")


# fields of each AST class that hold sub-trees, computed once per class
_FIELDS: dict = {}


def _subtree_fields(cls) -> tuple:
    names = _FIELDS.get(cls)
    if names is None:
        names = tuple(f.name for f in dataclasses.fields(cls)
                      if f.name not in ("span", "name", "op", "value", "path", "resolved",
                                        "doc", "items"))
        _FIELDS[cls] = names
    return names


def _is_node(x) -> bool:
    return dataclasses.is_dataclass(x) and not isinstance(x, type)


def depth_errors(items, limit: Optional[int] = None) -> list:
    """``(span, message)`` for each top-level item (or expression, for the parser's other
    entry points) of ``items`` nested deeper than ``limit``: the span is the first
    sub-expression past it.  Iterative, so any depth is measured.  The items of loaded files
    are not visited (they are checked when parsed)."""
    from nessie.syntax import ast as A

    limit = MAX_EXPR_DEPTH if limit is None else limit
    out = []
    for item in items if isinstance(items, (list, tuple)) else (items,):
        if not _is_node(item) or isinstance(item, A.Load):
            continue
        stack = [(item, 0, getattr(item, "span", None))]
        while stack:
            node, depth, where = stack.pop()
            span = getattr(node, "span", None) or where
            if depth > limit:
                if span is not None:
                    span = Span(span.file, span.line, span.col, span.line, span.col)
                out.append((span, expression_too_deep(limit)))
                break
            children: list = []
            if isinstance(node, A.Let):
                # each binding is a scope around the next one and the body
                for i, b in enumerate(node.bindings):
                    children.append((b, depth + 1 + i))
                children.append((node.body, depth + len(node.bindings)))
            elif isinstance(node, A.ApplyToEach):
                k = len(node.generators)
                for i, g in enumerate(node.generators):
                    children.append((g, depth + 1 + i))
                for x in (node.body, node.filter):
                    if x is not None:
                        children.append((x, depth + k))
            else:
                for name in _subtree_fields(type(node)):
                    x = getattr(node, name, None)
                    if isinstance(x, (tuple, list)):
                        children.extend((y, depth + 1) for y in x if _is_node(y))
                    elif _is_node(x):
                        children.append((x, depth + 1))
            # visit in source order: the first sub-expression past the limit is reported
            for child, d in reversed(children):
                stack.append((child, d, span))
    return out
