"""The range check of integer literals, done where the int width is known (before a program
runs on any backend): the front end accepts 64-bit literals."""
from __future__ import annotations

from dataclasses import fields

from nessie.types import typed_ast as T


def int_literal_errors(items, int_bits: int = 32) -> list:
    """``CompileError``\\ s for the integer literals of typed ``items`` outside the range of a
    ``int_bits``-bit NESL int (the front end checks 64 bits; ``-2147483648`` is one literal).
    Called where the width is known: before a program runs on any backend."""
    def literal(node):
        return node.value if isinstance(node, T.Lit) and type(node.value) is int else None

    def children(node):
        return [getattr(node, name) for name in _CHILD_FIELDS.setdefault(type(node), tuple(
            f.name for f in fields(node)
            if f.name not in ("type", "fun_type", "arg_type", "scheme", "span", "params",
                              "type_args")))]
    return _range_errors(items, int_bits, lambda n: isinstance(n, T._NODE_TYPES), literal,
                         children, lambda v: isinstance(v, (tuple,) + T._NODE_TYPES))


def _range_errors(items, int_bits: int, is_node, literal, children, is_child) -> list:
    """The out-of-range errors of the integer literals of a tree (typed or parsed): walked
    iteratively, as the tree may be MAX_EXPR_DEPTH deep; ``literal(node)`` is a node's integer
    value if it is a literal (None otherwise), ``children(node)`` its sub-trees in order."""
    lo, hi = -(1 << (int_bits - 1)), (1 << (int_bits - 1)) - 1
    errors = []
    stack = list(reversed(items))
    while stack:
        node = stack.pop()
        if isinstance(node, tuple):
            stack.extend(reversed(node))
            continue
        if not is_node(node):
            continue
        value = literal(node)
        if value is not None:
            if not lo <= value <= hi:
                errors.append(_out_of_range(node.span, value, int_bits))
            continue
        stack.extend(v for v in children(node) if is_child(v))
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

    def literal(node):
        if isinstance(node, A.IntLit):
            return node.value
        if isinstance(node, A.UnOp) and node.op == "-" and isinstance(node.arg, A.IntLit):
            return -node.arg.value
        return None

    def is_tree(v):
        return is_dataclass(v) and not isinstance(v, type)
    return _range_errors(items, int_bits, is_tree, literal,
                         lambda node: [getattr(node, f.name) for f in fields(node)
                                       if f.name != "span"],
                         lambda v: isinstance(v, tuple) or is_tree(v))
