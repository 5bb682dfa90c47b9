"""The layering of the repository (issue 13): each stage imports only the stages below it.

* ``lambda_cu`` (the λcu IR, executor, numpy runner, fusion) imports neither ``nessie`` nor
  ``lift_backend`` — kernel runners are passed in;
* ``nessie/interp`` (the reference interpreter, the semantic oracle) imports neither
  ``nessie/flatten`` nor ``lambda_cu`` — so differential tests compare two implementations —
  but the bottom modules every stage shares (``INTERP_SHARED``: the location value, the
  big-stack runner, the one table of run-time error texts), directly or through the front end;
* ``lift_backend`` imports no ``nessie`` module;
* ``lambda_cu/support.py`` (the big-stack runner and the environment reader that every package
  uses: ``lambda_cu`` is the lowest layer ``nessie`` and ``lift_backend`` may both import)
  and ``lambda_cu/loc.py`` (the source location value of every stage, the front end's ``Span``)
  import nothing of the project.

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
            if any(mod == p or mod.startswith(p + ".") for p in forbidden) \
                    and not (folder == "nessie/interp" and mod in INTERP_SHARED):
                bad.append(f"{f.relative_to(ROOT)}:{line}: imports {mod}")
    assert not bad, "layering violated:\n" + "\n".join(bad)


@pytest.mark.parametrize("module", ["support.py", "loc.py"])
def test_support_is_the_bottom_layer(module):
    path = ROOT / "lambda_cu" / module
    tree = ast.parse(path.read_text(encoding="utf-8"))
    relative = [n.lineno for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.level]
    project = [(line, mod) for line, mod in imports_of(path)
               if mod.split(".")[0] in ("nessie", "lambda_cu", "lift_backend")]
    assert not relative and not project, (relative, project)


#: the one big-stack runner is ``lambda_cu.support.run_deep``; the REPL keeps its own thread
#: (it waits for an interrupted computation to stop before the next input)
BIG_STACK_FILES = {"lambda_cu/support.py", "nessie/repl.py"}


def test_one_big_stack_runner():
    found = set()
    for pkg in ("nessie", "lambda_cu", "lift_backend"):
        for f in sorted((ROOT / pkg).rglob("*.py")):
            if "threading.stack_size(" in f.read_text(encoding="utf-8"):
                found.add(str(f.relative_to(ROOT)))
    assert found == BIG_STACK_FILES


# ------------------------------------------------------------------------------------------------
# Issue 10: the compiled path has implementations of its own.  The flattening backends serve the
# builtins without a data-parallel form from the host library ``nessie/hostlib`` (and ``rand``
# from ``nessie/glibc_random``), never from the reference interpreter's builtins: a differential
# test then compares two implementations, not one with itself.

#: what the host library may use of the interpreter's package: the value printer (``@`` and
#: ``print`` print as the result lines do)
HOSTLIB_MAY_IMPORT = ("nessie.interp.printing",)


def test_hostlib_uses_no_interpreter_builtin():
    files = sorted((ROOT / "nessie" / "hostlib").rglob("*.py"))
    assert files
    bad = []
    for f in files:
        for line, mod in imports_of(f):
            if (mod == "nessie.interp" or mod.startswith("nessie.interp.")) \
                    and mod not in HOSTLIB_MAY_IMPORT:
                bad.append(f"{f.relative_to(ROOT)}:{line}: imports {mod}")
    assert not bad, "the host library must not use the interpreter:\n" + "\n".join(bad)


def _function_imports(path: Path, name: str) -> list:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    defs = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == name]
    assert len(defs) == 1, f"{path.name} defines {name} {len(defs)} times"
    out = []
    for node in ast.walk(defs[0]):
        if isinstance(node, ast.Import):
            out += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            out.append(node.module)
    return out


def test_make_externs_uses_no_interpreter_builtin():
    driver = ROOT / "nessie" / "driver.py"
    mods = _function_imports(driver, "make_externs") + [m for _, m in imports_of(driver)
                                                        if m.startswith("nessie.interp.builtins")]
    bad = [m for m in mods if m in ("nessie.interp.builtins", "nessie.interp.eval",
                                    "nessie.interp.library")]
    assert not bad, f"make_externs reaches the interpreter's builtins through {bad}"


def test_compiled_path_never_calls_interpreter_builtins(monkeypatch, tmp_path):
    """Every builtin the host library or the flattener now implements, run on flattened λcu
    with every function of ``nessie.interp.builtins.BUILTINS`` (and its
    runtime classes) replaced by one that fails the test."""
    import io
    import sys

    sys.path.insert(0, str(ROOT / "tests" / "differential"))
    import test_diff_moved_builtins as moved

    from nessie import driver
    from nessie.interp import builtins as IB

    def forbidden(*args, **kw):
        raise AssertionError("the compiled path called into nessie.interp.builtins")

    for name in list(IB.BUILTINS):
        monkeypatch.setitem(IB.BUILTINS, name, forbidden)
    monkeypatch.setattr(IB, "Runtime", forbidden)
    monkeypatch.setattr(IB, "CallContext", forbidden)
    moved._files(tmp_path)
    programs = dict(moved.PROGRAMS, files=moved.FILES)
    from nessie.hostlib import host_names
    for name, src in sorted(programs.items()):
        c = driver.compile_source(src, str(tmp_path / f"{name}.nesl"))
        flat = driver.flatten(c)
        called = {b for b, _, _ in (flat.externs or {}).values()}
        if name in ("output", "files", "library"):
            assert called and called <= host_names(), (name, called)
        else:       # data-parallel forms only: no host code at all
            assert not called, (name, called)
        out = io.StringIO()
        driver.run_lcu(c, flat, out)
        assert "it = " in out.getvalue()


# ------------------------------------------------------------------------------------------------
# The interpreter's whole import closure (not only its own files' imports): what it reaches
# through the front end (``nessie.diagnostics``, ``nessie.limits``, ...) counts too.  Of
# ``lambda_cu`` it may reach only the bottom modules every stage shares — the location value,
# the big-stack runner and NESL's runtime error texts (issue 13: one table of texts for every
# backend) — which import nothing but each other.  The front end it shares with the compiled
# path (syntax, types, ``nessie.mono``: the interpreter runs monomorphised programs) is allowed.

#: the modules of lambda_cu the reference interpreter may reach, directly or not; ``fmath`` is
#: the portable math library (exp, ln, sin, ..., pow) every backend computes with, as it would
#: share a libm: the OpenCL backend runs its C version, so the differential tests still compare
#: two implementations of it (numpy and the device), and it imports nothing of the project
INTERP_SHARED = {"lambda_cu.loc", "lambda_cu.support", "lambda_cu.errors", "lambda_cu.fmath"}


def import_closure(start: str) -> set[str]:
    """The project modules ``start`` reaches through imports (also those inside functions; the
    import graph of test_import_cycles.py).  Packages above ``start``'s top-level package are
    not followed: ``nessie/__init__`` is the public API, which loads every stage, and is not
    what a module's code depends on."""
    from test_import_cycles import imports, modules
    known = modules()
    seen: set[str] = set()
    todo = [start]
    while todo:
        mod = todo.pop()
        if mod in seen or mod not in known:
            continue
        seen.add(mod)
        parts = mod.split(".")
        todo += [".".join(parts[:i]) for i in range(2, len(parts))]   # enclosing packages
        todo += imports(mod, known[mod], known)
    return seen


def test_interpreter_closure_reaches_no_compiled_path():
    closure = set().union(*(import_closure(f"nessie.interp.{f.stem}")
                            for f in (ROOT / "nessie" / "interp").glob("*.py")))
    assert "nessie.interp.eval" in closure and "nessie.diagnostics" in closure   # it walked
    compiled = sorted(m for m in closure
                      if (m.split(".")[0] == "lambda_cu" and m not in INTERP_SHARED | {"lambda_cu"})
                      or m.split(".")[0] == "lift_backend"
                      or m.startswith(("nessie.flatten", "nessie.driver",
                                       "nessie.api", "nessie.hostlib", "nessie.passes")))
    assert not compiled, f"the reference interpreter reaches the compiled path: {compiled}"
    for mod in INTERP_SHARED:
        below = {m for m in import_closure(mod) if m.split(".")[0] != "lambda_cu"}
        assert not below and import_closure(mod) <= INTERP_SHARED | {"lambda_cu"}, mod
