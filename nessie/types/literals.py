"""The range check of integer literals, done where the int width is known (before a program
runs on any backend): the front end accepts 64-bit literals."""
from __future__ import annotations

from dataclasses import fields

from nessie.types import typed_ast as T


def int_literal_errors(items, int_bits: int = 32) -> list:
    """``CompileError``\\ s for the integer literals of typed ``items`` outside the range of a
    ``int_bits``-bit NESL int (the front end checks 64 bits; ``-2147483648`` is one literal).
    Called where the width is known: before a program runs on any backend."""
    lo, hi = -(1 << (int_bits - 1)), (1 << (int_bits - 1)) - 1
    errors = []
    stack = list(reversed(items))
    while stack:                       # iterative: the tree may be MAX_EXPR_DEPTH deep
        node = stack.pop()
        if isinstance(node, tuple):
            stack.extend(reversed(node))
            continue
        if not isinstance(node, T._NODE_TYPES):
            continue
        if isinstance(node, T.Lit) and type(node.value) is int and not lo <= node.value <= hi:
            errors.append(_out_of_range(node.span, node.value, int_bits))
            continue
        for name in _CHILD_FIELDS.setdefault(type(node), tuple(
                f.name for f in fields(node)
                if f.name not in ("type", "fun_type", "arg_type", "scheme", "span", "params",
                                  "type_args"))):
            v = getattr(node, name)
            if isinstance(v, (tuple,) + T._NODE_TYPES):
                stack.append(v)
    return errors


_CHILD_FIELDS: dict = {}


def _out_of_range(span, value: int, int_bits: int):
    from nessie.diagnostics import CompileError
    lo, hi = -(1 << (int_bits - 1)), (1 << (int_bits - 1)) - 1
    return CompileError(span, f"integer literal {value} does not fit in a {int_bits}-bit NESL "
                              f"int ({lo} .. {hi})"
                        + ("; nessie run --int64 has 64-bit ints" if int_bits == 32 else ""))


def ast_int_literal_errors(items, int_bits: int = 32) -> list:
    """The errors of :func:`int_literal_errors` found on the parsed (untyped) ``items``, for
    the forms printed before type inference (``nessie compile --emit ast``): a minus sign
    directly before an integer literal makes one negative literal, as type inference reads it."""
    from dataclasses import is_dataclass

    from nessie.syntax import ast as A

    lo, hi = -(1 << (int_bits - 1)), (1 << (int_bits - 1)) - 1
    errors = []
    stack = list(reversed(items))
    while stack:                       # iterative: the tree may be MAX_EXPR_DEPTH deep
        node = stack.pop()
        if isinstance(node, tuple):
            stack.extend(reversed(node))
            continue
        if not is_dataclass(node) or isinstance(node, type):
            continue
        value = None
        if isinstance(node, A.IntLit):
            value = node.value
        elif isinstance(node, A.UnOp) and node.op == "-" and isinstance(node.arg, A.IntLit):
            value = -node.arg.value
        if value is not None:
            if not lo <= value <= hi:
                errors.append(_out_of_range(node.span, value, int_bits))
            continue
        for f in fields(node):
            if f.name != "span":
                v = getattr(node, f.name)
                if isinstance(v, tuple) or (is_dataclass(v) and not isinstance(v, type)):
                    stack.append(v)
    return errors
