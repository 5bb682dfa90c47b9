"""The layering of the repository (issue 13): each stage imports only the stages below it.

* ``lambda_cu`` (the λcu IR, executor, numpy runner, fusion) imports neither ``nessie`` nor
  ``lift_backend`` — kernel runners are passed in;
* ``nessie/interp`` (the reference interpreter, the semantic oracle) imports neither
  ``nessie/flatten`` nor ``lambda_cu`` — so differential tests compare two implementations;
* ``lift_backend`` imports no ``nessie`` module.

Every import counts, also those inside functions."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

RULES = [
    ("lambda_cu", ("nessie", "lift_backend")),
    ("nessie/interp", ("nessie.flatten", "lambda_cu", "lift_backend")),
    ("lift_backend", ("nessie",)),
]


def imports_of(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            out.append((node.lineno, node.module))
    return out


@pytest.mark.parametrize("folder,forbidden", RULES, ids=[r[0] for r in RULES])
def test_layering(folder, forbidden):
    files = sorted((ROOT / folder).rglob("*.py"))
    assert files, f"no Python files under {folder}"
    bad = []
    for f in files:
        for line, mod in imports_of(f):
            if any(mod == p or mod.startswith(p + ".") for p in forbidden):
                bad.append(f"{f.relative_to(ROOT)}:{line}: imports {mod}")
    assert not bad, "layering violated:\n" + "\n".join(bad)
