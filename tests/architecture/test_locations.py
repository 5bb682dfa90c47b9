"""Locations are values, not strings (issue 13): every ``loc`` of a λcu node of the compiled
examples, flattened and fused, is a ``lambda_cu.loc.Loc`` (the front end's ``Span``) or None,
and so are the locations that the OpenCL lowering keeps in its error-site tables and those of
the host library calls (``extern_locs``).  Nothing downstream of the parser turns a location into
text and back: the λcu printer writes one, only the λcu parser reads it."""
from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

import pytest

from lambda_cu import ir
from lambda_cu.loc import Loc
from nessie import driver
from nessie.diagnostics import Span

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "nesl_examples").glob("*.nesl"))


def located_nodes(node, out: list) -> list:
    """Every dataclass node under ``node`` that has a ``loc`` field (iteratively: deep IR)."""
    stack = [node]
    while stack:
        x = stack.pop()
        if isinstance(x, (tuple, list)):
            stack.extend(x)
        elif dataclasses.is_dataclass(x) and not isinstance(x, type):
            if isinstance(x, ir.Node) and any(f.name == "loc" for f in dataclasses.fields(x)):
                out.append(x)
            stack.extend(getattr(x, f.name) for f in dataclasses.fields(x))
    return out


def test_span_is_loc():
    assert Span is Loc
    s = Span("f.nesl", 2, 3, 2, 9)
    assert str(s) == "f.nesl:2:3" and s.range_str() == "f.nesl:2:3-2:9"
    assert Loc.point("f.nesl", 2, 3).range_str() == "f.nesl:2:3"


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_no_location_of_a_compiled_example_is_a_string(path):
    from lift_backend.lower import lower_program

    c = driver.compile_file(str(path))
    flat = driver.flatten(c)
    fused, _ = driver.fuse(flat)
    seen = 0
    for name, prog in (("flattened", flat.program), ("fused", fused.program)):
        nodes = located_nodes(prog, [])
        bad = [n for n in nodes if n.loc is not None and not isinstance(n.loc, Loc)]
        assert not bad, f"{name}: locations that are not Loc values: " + \
            ", ".join(f"{type(n).__name__}.loc={n.loc!r}" for n in bad[:5])
        seen += sum(n.loc is not None for n in nodes)
        for _kernel, soacs in lower_program(prog).kernels:
            for ls in soacs:
                for loc, _msg in ls.sites.table:
                    assert loc is None or isinstance(loc, Loc), (name, loc)
                    seen += loc is not None
    for ename, loc in (flat.extern_locs or {}).items():
        assert loc is None or isinstance(loc, Loc), (ename, loc)
    # every example indexes, divides or checks a length somewhere: the walk saw locations
    assert seen > 0, f"{path.name}: no located node found (the walk missed the IR)"


def test_no_location_string_is_parsed_back():
    """The error path takes the ``Loc`` of a runtime error as it is: no module of the compiler
    parses a location string (the old ``Span.from_loc``), except the λcu parser of printed IR."""
    bad = []
    for folder in ("nessie", "lambda_cu", "lift_backend"):
        for f in sorted((ROOT / folder).rglob("*.py")):
            tree = ast.parse(f.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if isinstance(node, ast.Attribute) and node.attr == "from_loc":
                    bad.append(f"{f.relative_to(ROOT)}:{node.lineno}")
    assert not bad, bad
