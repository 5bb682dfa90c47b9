"""NESL's run-time error texts are one table (issue 13): ``lambda_cu/errors.py``.  No other
module of the project spells a ``RUNTIME ERROR:`` message out (docstrings and comments aside):
every backend, the flattener's checks, the host library and the OpenCL error decoder take the
texts from the table, so they cannot drift apart."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

from lambda_cu import errors as E

ROOT = Path(__file__).resolve().parents[2]
TABLE = ROOT / "lambda_cu" / "errors.py"


def _docstrings(tree) -> set:
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = getattr(node, "body", [])
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                ids.add(id(body[0].value))
    return ids


def spelled_out_messages(path: Path) -> list:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    docs = _docstrings(tree)
    return [f"{path.relative_to(ROOT)}:{node.lineno}: {node.value!r}" for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str)
            and id(node) not in docs and "RUNTIME ERROR" in node.value]


def test_no_message_text_outside_the_table():
    files = [f for pkg in ("nessie", "lambda_cu", "lift_backend")
             for f in sorted((ROOT / pkg).rglob("*.py")) if f != TABLE]
    assert len(files) > 50
    found = [m for f in files for m in spelled_out_messages(f)]
    assert not found, "run-time error texts spelled outside lambda_cu/errors.py:\n" + "\n".join(found)


@pytest.mark.parametrize("name", [n for n in dir(E) if n.startswith("MSG_")])
def test_whole_messages_are_the_prefix_and_a_text(name):
    msg = getattr(E, name)
    assert msg.startswith(E.PREFIX) and msg.endswith(".") and msg[len(E.PREFIX):] in vars(E).values()


def test_the_interpreter_and_the_compiled_path_read_the_same_table():
    from nessie.flatten import builtins as FB
    from nessie.interp import errors as IE
    assert IE.SUBSCRIPT_OUT_OF_BOUNDS is E.SUBSCRIPT_OUT_OF_BOUNDS
    assert FB._MSG_BOUNDS is E.MSG_BOUNDS and FB._MSG_PERMUTE is E.MSG_PERMUTE
