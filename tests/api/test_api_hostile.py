"""Hostile inputs to the Python API (issue 11): every bad input is a clear TypeError/ValueError
(or OSError/CompileErrors for a bad file) naming the function, the parameter and its NESL type;
no raw internal exception (RecursionError, AttributeError, FlattenUnsupported, MemoryError,
UnicodeDecodeError) leaks."""
from __future__ import annotations

import functools
import re
import os

import pytest

import nessie
from nessie import api
from nessie.convert import MAX_ARG_DEPTH
from nessie.diagnostics import CompileErrors, RuntimeNeslError
from nessie.limits import OUT_OF_MEMORY, RECURSION_TOO_DEEP

IDENT = ("function ident(v) = v;\nfunction total(v) = sum(v);\n"
         "function first(v) = v[0] + 1;")
TREE = ("datatype tree(int, [tree]);\n"
        "function size(tr) = let tree(x, c) = tr in 1 + sum({size(d) : d in c});")


@pytest.fixture(scope="module")
def ident():
    return nessie.load(IDENT, backend="interp", run_toplevel=False)


def nested(depth):
    return functools.reduce(lambda a, _: [a], range(depth), [1])


# ------------------------------------------------------------------ 1: cycles and deep values
def test_self_referential_list(ident):
    lst = []
    lst.append(lst)
    with pytest.raises(ValueError, match=r"ident: argument 1 \(v\) .*v\[0\] is v itself"):
        ident.ident(lst)


@pytest.mark.parametrize("depth", [500, 5000])
def test_value_deeper_than_type_variable(ident, depth):
    with pytest.raises(ValueError, match=r"ident: argument 1 \(v\) must be a: .*nested more "
                                         r"than 100 levels"):
        ident.ident(nested(depth))


def test_value_deeper_than_known_type(ident):
    # first : [int] -> int: a list nested deeper is a type error at the first level beyond
    with pytest.raises(TypeError, match=r"first: argument 1 \(v\) must be \[int\]; got list"):
        ident.first(nested(5000))
    # total : [a] -> a :: number: deeper than the limit where a type variable is open
    with pytest.raises(ValueError, match=r"total: argument 1 \(v\)"):
        ident.total(nested(5000))


def test_moderate_nesting_still_converts(ident):
    v = nested(20)
    out = ident.ident(v)
    for _ in range(20):
        assert isinstance(out, list) and len(out) == 1
        out = out[0]
    assert list(out) == [1]
    assert MAX_ARG_DEPTH >= 50


def test_self_referencing_tuple_for_recursive_datatype():
    m = nessie.load(TREE, backend="interp", run_toplevel=False)
    children = []
    node = (1, children)
    children.append(node)
    with pytest.raises(ValueError, match=r"size: argument 1 \(tr\) must be tree: .*tr\[1\]\[0\] "
                                         r"is tr itself"):
        m.size(node)
    d = nessie.DataVal("tree", (0, []))
    loop = [d]
    d2 = nessie.DataVal("tree", (1, loop))
    loop.append(d2)
    with pytest.raises(ValueError, match="itself"):
        m.size(d2)


def test_deep_recursive_datatype_value_converts():
    # a legitimately deep value of a recursive datatype (deeper than Python's usual stack)
    m = nessie.load(TREE, backend="interp", run_toplevel=False)
    d = nessie.DataVal("tree", (0, []))
    for i in range(400):
        d = nessie.DataVal("tree", (i, [d]))
    assert m.size(d) == 401
    assert m.size((1, [(2, []), (3, [(4, [])])])) == 4


# ------------------------------------------------------------------ 2: malformed DataVal
@pytest.mark.parametrize("backend", ["interp", "lcu"])
def test_malformed_dataval(backend):
    m = nessie.load("datatype point(float, float);\nfunction px(p) = let point(x, y) = p in x;",
                    backend=backend, run_toplevel=False)
    for bad in (1.0, None, ()):
        with pytest.raises(TypeError, match=r"px: argument 1 \(p\) must be point: .*DataVal"):
            m.px(nessie.DataVal("point", bad))
    assert m.px(nessie.DataVal("point", (1.5, 2.0))) == 1.5
    assert m.px(nessie.DataVal("point", [1.5, 2.0])) == 1.5


# ------------------------------------------------------------------ 3: options
def test_function_name_must_be_str(ident):
    for bad in (123, None, 1.5):
        with pytest.raises(TypeError, match="function.*must be a str"):
            ident.function(bad)
        with pytest.raises(TypeError, match="must be a str"):
            ident[bad]
    with pytest.raises(ValueError, match="results"):
        ident.function("ident", results=5)


def test_device_must_be_str():
    with pytest.raises(TypeError, match=r"device must be a str"):
        nessie.load(IDENT, backend="opencl", device=123)


@pytest.mark.parametrize("backend", ["lcu", "opencl"])
def test_int64_on_flattening_backend(backend):
    with pytest.raises(ValueError, match=r'int64=True .*backend="interp" only'):
        nessie.load(IDENT, backend=backend, int64=True)


def test_int64_auto_runs_on_interp():
    m = nessie.load(IDENT, int64=True, run_toplevel=False)
    assert m.backend == "interp"
    assert m.total([2 ** 40, 1]) == 2 ** 40 + 1


@pytest.mark.parametrize("kw", [{"fuse": "yes"}, {"fuse": 1}, {"int64": "x"}, {"int64": 1},
                                {"run_toplevel": "no"}, {"filename": 3}])
def test_options_must_have_their_type(kw):
    name = next(iter(kw))
    with pytest.raises(TypeError, match=f"{name} must be a"):
        nessie.load(IDENT, backend="interp", **kw)


def test_backend_and_results_values():
    for kw in ({"backend": 3}, {"backend": ["lcu"]}, {"results": None}, {"results": ["numpy"]}):
        with pytest.raises(ValueError, match=next(iter(kw))):
            nessie.load(IDENT, **kw)


# ------------------------------------------------------------------ 4: paths
def test_load_directory(tmp_path):
    with pytest.raises(IsADirectoryError, match="is a directory") as e:
        nessie.load(str(tmp_path))
    assert str(tmp_path) in str(e.value)
    with pytest.raises(IsADirectoryError):
        nessie.load(tmp_path)


def test_load_not_utf8(tmp_path):
    p = tmp_path / "bad.nesl"
    p.write_bytes(b"x = 1;\ny = \xd0\xff;\n")
    for src in (str(p), p):
        with pytest.raises(CompileErrors, match=r"bad\.nesl:2:5: error: not UTF-8 text") as e:
            nessie.load(src)
        assert not isinstance(e.value, UnicodeDecodeError)
    q = tmp_path / "binary"                  # no .nesl suffix: an existing file is still a path
    q.write_bytes(b"\x7fELF\x02\x01\x01\x00\xd0\xff\xfe")
    with pytest.raises(CompileErrors, match="binary:1:.*not UTF-8 text"):
        nessie.load(str(q))


def test_load_missing_file_and_source_text(tmp_path):
    with pytest.raises(FileNotFoundError, match="missing.nesl"):
        nessie.load(str(tmp_path / "missing.nesl"))
    m = nessie.load("x = 1;\ny = x + 1;", backend="interp")
    assert m.values["y"] == 2
    m = nessie.load("function inc(x) = x + 1;", backend="interp")
    assert m.inc(1) == 2
    p = tmp_path / "prog.nesl"
    p.write_text("function dbl(x) = 2 * x;\n")
    assert nessie.load(str(p), backend="interp").dbl(4) == 8
    assert nessie.load(os.fspath(p), backend="interp").dbl(5) == 10


# ------------------------------------------------------------------ 5: memory and recursion
SRC = ("function fl(n) = #flatten({index(j) : j in [0:n]});\n"
       "function down(n) = if n == 0 then 0 else 1 + down(n - 1);")


@pytest.mark.parametrize("backend", ["interp", "lcu"])
def test_memory_error_is_runtime_error(backend, monkeypatch):
    m = nessie.load(SRC, backend=backend, run_toplevel=False)
    assert m.fl(10) == 45

    def boom(*a, **k):
        raise MemoryError("Unable to allocate 5.96 GiB")
    # the run itself fails for memory, as numpy does for fl(40000) under a memory limit
    if backend == "lcu":
        from lambda_cu.executor import Executor
        monkeypatch.setattr(Executor, "_call", boom)
    else:
        from nessie.interp import eval as ev
        monkeypatch.setattr(ev, "call_function", boom)
    with pytest.raises(RuntimeNeslError) as e:
        m.fl(40000)
    assert OUT_OF_MEMORY in str(e.value)
    assert "<string>:1:" in str(e.value)        # located at the function's definition


def test_oom_lcu_subprocess():
    """The hostile-input repro itself: numpy's MemoryError under a 4 GB address-space limit."""
    import subprocess
    import sys
    code = ("import resource, nessie, nessie.api\n"
            "resource.setrlimit(resource.RLIMIT_AS, (4_000_000_000, 4_000_000_000))\n"
            f"m = nessie.load({SRC!r}, backend='lcu', run_toplevel=False)\n"
            "try:\n    m.fl(40000)\n"
            "except nessie.api.RuntimeNeslError as e:\n    print('OK', e)\n"
            "except BaseException as e:\n    print('LEAK', type(e).__name__, e)\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       timeout=300, cwd=os.path.dirname(os.path.dirname(os.path.dirname(
                           os.path.abspath(__file__)))))
    assert "OK" in r.stdout and OUT_OF_MEMORY in r.stdout, r.stdout + r.stderr


@pytest.mark.parametrize("backend", ["interp", "lcu"])
def test_recursion_too_deep_is_located(backend):
    m = nessie.load(SRC, backend=backend, run_toplevel=False)
    assert m.down(100) == 100
    with pytest.raises(RuntimeNeslError) as e:
        m.down(10 ** 7)
    assert RECURSION_TOO_DEEP in str(e.value)
    assert "<string>:2:" in str(e.value)


def test_a_character_beyond_latin1_is_named():
    m = nessie.load("function slen(s) : [char] -> int = #s;", backend="interp", run_toplevel=False)
    for s, c in (("\u0100", "U+0100"), ("ab\u65e5", "U+65E5")):
        with pytest.raises(ValueError, match=rf"slen: argument 1 \(s\) must be \[char\]: .*{re.escape(c)}.*"
                                             rf"codes 0\.\.255"):
            m.slen(s)
    assert m.slen("\xe9t\xe9") == 3


def test_beyond_the_flattener_is_not_implemented_error():
    """A program the flattening backends do not cover, asked for explicitly, raises a
    ``NotImplementedError`` naming the construct (``backend="auto"`` falls back to the
    interpreter with a warning instead)."""
    src = "datatype tree(int, [tree]);\nfunction mk(n) : int -> tree = tree(n, [] tree);\n"
    with pytest.raises(NotImplementedError, match="recursive datatype tree"):
        nessie.load(src, backend="lcu")
