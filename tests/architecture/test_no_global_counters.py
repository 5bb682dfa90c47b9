"""No process-global name counters (issue 13): the supplies of fresh names are values owned
by a pass or a compilation (``TypeEnv.next_var`` for type variables, ``arith.VarSupply`` for
the Lift backend's variables, structural names in ``lift_backend.ir`` builders), so compiling
the same program twice in one process gives the same result, whatever was compiled between.

* an AST scan: no module of ``nessie``, ``lambda_cu``, ``lift_backend`` defines a module-level
  ``itertools.count``, nor a function that counts in a module global (``global x; x += 1``);
* the printed forms of every IR, and the type-variable ids and Lift variable uids themselves,
  are the same for a program compiled twice with another compiled in between."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("nessie", "lambda_cu", "lift_backend")


def _sources():
    for pkg in PACKAGES:
        yield from sorted((ROOT / pkg).rglob("*.py"))


def _where(path: Path, node) -> str:
    return f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path.name}:{node.lineno}"


def _module_level(tree: ast.Module):
    """The statements run at import time: the module's own, and those inside its top-level
    ``if``/``try``/``with`` blocks (not inside functions or classes)."""
    todo = list(tree.body)
    while todo:
        node = todo.pop()
        yield node
        if isinstance(node, (ast.If, ast.Try, ast.With)):
            for field in ("body", "orelse", "finalbody", "handlers"):
                todo.extend(getattr(node, field, []) or [])
        elif isinstance(node, ast.ExceptHandler):
            todo.extend(node.body)


def _is_count_call(node, count_names: set) -> bool:
    if not isinstance(node, ast.Call):
        return False
    f = node.func
    if isinstance(f, ast.Attribute) and f.attr == "count" and isinstance(f.value, ast.Name) \
            and f.value.id == "itertools":
        return True
    return isinstance(f, ast.Name) and f.id in count_names


def module_counters(path: Path) -> list:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    # ``from itertools import count [as c]``
    count_names = {a.asname or a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)
                   and n.module == "itertools" for a in n.names if a.name == "count"}
    found = []
    for stmt in _module_level(tree):
        value = getattr(stmt, "value", None)
        if isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and value is not None:
            if any(_is_count_call(n, count_names) for n in ast.walk(value)):
                found.append(_where(path, stmt))
    return found


def global_counters(path: Path) -> list:
    """Functions that declare ``global x`` and then count with it (``x += ...``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    found = []
    for fn in ast.walk(tree):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        names = {n for g in ast.walk(fn) if isinstance(g, ast.Global) for n in g.names}
        for node in ast.walk(fn):
            if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name) \
                    and node.target.id in names:
                found.append(_where(path, node))
    return found


def test_the_scan_sees_a_counter(tmp_path):
    """The scan itself finds the forms it looks for."""
    p = tmp_path / "probe.py"
    text = ("import itertools\nfrom itertools import count as c\n_A = itertools.count()\n"
            "if True:\n    _B = c(5)\n_N = 0\ndef f():\n    global _N\n    _N += 1\n"
            "def g():\n    k = itertools.count()\n    return k\n")
    p.write_text(text, encoding="utf-8")
    assert sorted(module_counters(p)) == ["probe.py:3", "probe.py:5"]
    assert global_counters(p) == ["probe.py:9"]


def test_no_module_level_itertools_count():
    found = [hit for path in _sources() for hit in module_counters(path)]
    assert not found, f"module-level itertools.count (a process-global name counter): {found}"


def test_no_counter_in_a_module_global():
    found = [hit for path in _sources() for hit in global_counters(path)]
    assert not found, f"a function counting in a module global: {found}"


# ------------------------------------------------------------------ compiling twice
EXAMPLES = ["dotp", "quicksort", "higher_order"]
SHOWN = ["typed", "mono", "lcu", "lcu-fused", "lift", "opencl"]


def _compile(example: str) -> dict:
    from nessie import passes
    path = ROOT / "nesl_examples" / f"{example}.nesl"
    values = passes.run(path.read_text(encoding="utf-8"), passes.Options(str(path)),
                        until="opencl")
    out = {ir: passes.show(ir, values[ir]) for ir in SHOWN}
    # the type-variable ids themselves (the printed types letter them afresh)
    out["typed-ids"] = repr(values["typed"].items)
    return out


@pytest.mark.parametrize("example", EXAMPLES)
def test_compiling_twice_gives_the_same_output(example):
    first = _compile(example)
    other = "norm2" if example != "norm2" else "dotp"
    _compile(other)                     # names drawn in between must not matter
    second = _compile(example)
    for ir in first:
        assert first[ir] == second[ir], f"{example}: --emit {ir} differs on the second compile"


def test_type_environment_carries_the_type_variable_supply():
    """The ids of an item's type variables follow those of the items before it, from the
    environment's ``next_var``; checking the same items again gives the same ids."""
    from nessie.diagnostics import Diagnostics
    from nessie.syntax import parse_text
    from nessie.types.infer import FIRST_VAR_ID, TypeEnv, check_item

    items = parse_text("function ident(x) = x; function swap(x, y) = (y, x); v = swap(1, 2.5);", "<t>").items

    def check():
        env, out = TypeEnv(), []
        for item in items:
            env, typed = check_item(env, item, Diagnostics())
            out += typed
        return env, out
    env1, out1 = check()
    env2, out2 = check()
    assert repr(out1) == repr(out2)
    assert env1.next_var == env2.next_var > FIRST_VAR_ID


@pytest.mark.parametrize("file,program", [("asum.lift", "asumNvidia"), ("csr.lift", "spmv"),
                                          ("dot.lift", "partialDot")])
def test_lift_inference_and_codegen_variables_restart_per_program(file, program):
    """The Lift type inference draws its variables from a supply of its own run (the code
    generator's continue it): a program inferred twice has equal variables (same uids), and
    its OpenCL is the same."""
    from lift_backend.opencl import compile_program
    from lift_backend.syntax import parse_file
    from lift_backend.types.infer import infer_program

    prog = parse_file(str(ROOT / "tests" / "lift" / "programs" / file)).program(program)
    t1 = infer_program(prog)
    compile_program(parse_file(str(ROOT / "tests" / "lift" / "programs" / "matvec.lift"))
                    .program("mv"))             # another program's variables in between
    t2 = infer_program(prog)
    assert [repr(v) for v in t1.loop_vars.values()] == [repr(v) for v in t2.loop_vars.values()]
    assert [v.uid for v in t1.loop_vars.values()] == [v.uid for v in t2.loop_vars.values()]
    assert t1.next_uid == t2.next_uid > 1
    assert compile_program(prog).source == compile_program(prog).source


def test_builders_name_parameters_structurally():
    """``lam`` and ``compose`` name the parameters they make from what they enclose: the same
    program built twice is equal, and a lambda's parameter is not captured by one inside it."""
    from lift_backend.arith import size_var
    from lift_backend.ir.builders import compose, lam, mapGlb, mapSeq, program, userfun
    from lift_backend.ir.expr import Lambda, walk
    from lift_backend.types import ArrayType, Float

    n = size_var("N")
    add = userfun("add", [("a", Float), ("b", Float)], Float, "return a + b;")

    def build():
        return program("p", [("x", ArrayType(ArrayType(Float, n), n))], lambda x: compose(
            mapGlb(lam(lambda row: mapSeq(lam(lambda a: add(a, a)))(row))),
            mapGlb(lam(lambda r: r)))(x))
    p1, p2 = build(), build()
    assert p1 == p2
    lams = [n for n in walk(p1.body) if isinstance(n, Lambda)]
    outer = next(f for f in lams if any(isinstance(g, Lambda) for g in walk(f.body)))
    inner = next(g for g in walk(outer.body) if isinstance(g, Lambda))
    assert outer.params[0].name != inner.params[0].name
    assert [f.params[0].name for f in lams] == ["_c0", "_l1", "_l0", "_l0"]
