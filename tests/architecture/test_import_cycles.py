"""The import graph of the repository has no cycles (issue 13): every import of a module of
nessie/, lambda_cu/ and lift_backend/ — at the top of a file or inside a function — is an edge,
and the graph of modules reads top-down.  Static (``ast``), so nothing is imported."""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("nessie", "lambda_cu", "lift_backend")


def modules() -> dict:
    out = {}
    for pkg in PACKAGES:
        for path in sorted((ROOT / pkg).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out[".".join(parts)] = path
    return out


def imports(mod: str, path: Path, known: dict) -> set:
    def resolve(name: str):
        while name and name not in known:
            name = name.rpartition(".")[0]
        return name or None

    package = mod if path.name == "__init__.py" else mod.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {resolve(a.name) for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[:len(package.split(".")) - (node.level - 1)]
                name = ".".join(base + ([node.module] if node.module else []))
            else:
                name = node.module or ""
            for a in node.names:            # ``from pkg import module`` names a module
                found.add(resolve(f"{name}.{a.name}"))
    found.discard(None)
    found.discard(mod)
    return found


def cycles(graph: dict) -> list:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index, low, on, stack, out, counter = {}, {}, set(), [], [], [0]
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        out.append(sorted(comp))
    return out


def test_the_detector_finds_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycles():
    known = modules()
    assert len(known) > 50
    graph = {m: imports(m, p, known) & set(known) for m, p in known.items()}
    assert cycles(graph) == []


def test_every_front_end_module_imports_first_without_hanging():
    """Each module of nessie/types and nessie/syntax (those that build tables at import) and the
    driver, imported first in a fresh interpreter, finishes: the builtin type table once
    parsed its types on a thread of its own while nessie.types was half imported, and
    `import nessie.types.convert` first hung forever (the thread waited for the import lock
    the importing thread held, which waited for the thread)."""
    import subprocess
    import sys
    mods = sorted(m for m in modules() if m.startswith(("nessie.types", "nessie.syntax")))
    mods += ["nessie.driver", "nessie.api", "nessie.repl"]
    code = "import importlib, sys; importlib.import_module(sys.argv[1])"
    for m in mods:
        p = subprocess.run([sys.executable, "-c", code, m], capture_output=True, text=True,
                           cwd=ROOT, timeout=60)
        assert p.returncode == 0, (m, p.stderr)
