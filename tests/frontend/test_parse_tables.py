"""The parser's LALR tables are built once and cached on disk, keyed by a hash of the grammar
(nessie/syntax/tables.py): a cached table is used without running PLY's generator, a stale or
damaged one is rebuilt, and an unwritable cache (or package) directory still parses."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import types
from pathlib import Path

import ply.yacc as yacc
import pytest

from nessie.syntax import parser as nesl_parser
from nessie.syntax import tables

ROOT = Path(__file__).resolve().parents[2]

PROGRAM = "function g(x) = x + 1;\ng(2);\n"


def _items(parser):
    """Parse PROGRAM with ``parser`` (the same entry the real front end uses)."""
    saved = nesl_parser._PARSER
    nesl_parser._PARSER = parser
    try:
        from nessie.syntax import parse_text, print_ast
        return print_ast(parse_text(PROGRAM))
    finally:
        nesl_parser._PARSER = saved


EXPECTED = "function g(x) = x + 1;\ng(2);\n"


def _table_files(d):
    return sorted(p.name for p in Path(d).glob("nesl_parsetab_*.json"))


def test_first_build_writes_a_table_and_later_builds_read_it(tmp_path, monkeypatch):
    monkeypatch.setenv("NESSIE_CACHE_DIR", str(tmp_path))
    key = tables.grammar_key(nesl_parser, "start")
    p1 = tables.build_parser(nesl_parser, "start")
    assert _table_files(tmp_path) == [f"nesl_parsetab_{key}.json"]
    assert _items(p1).strip() == EXPECTED.strip()

    def no_generator(*a, **k):
        raise AssertionError("the table generator ran although a cached table exists")
    monkeypatch.setattr(yacc, "yacc", no_generator)
    p2 = tables.build_parser(nesl_parser, "start")
    assert p2.action == p1.action and p2.goto == p1.goto
    assert _items(p2).strip() == EXPECTED.strip()


def test_stale_or_damaged_table_is_rebuilt(tmp_path, monkeypatch):
    monkeypatch.setenv("NESSIE_CACHE_DIR", str(tmp_path))
    key = tables.grammar_key(nesl_parser, "start")
    path = tmp_path / tables.table_filename(key)
    for bad in ("{not json", json.dumps({"format": tables.FORMAT, "key": "0" * 24,
                                         "action": {}, "goto": {}, "productions": []})):
        path.write_text(bad)
        parser = tables.build_parser(nesl_parser, "start")
        assert _items(parser).strip() == EXPECTED.strip()
        assert json.loads(path.read_text())["key"] == key


def test_the_key_changes_with_the_grammar():
    def p_a(p):
        "a : B"

    def p_a2(p):
        "a : B C"
    m1 = types.SimpleNamespace(tokens=["B", "C"], precedence=(), p_a=p_a)
    m2 = types.SimpleNamespace(tokens=["B", "C"], precedence=(), p_a=p_a2)
    m3 = types.SimpleNamespace(tokens=["B", "C"], precedence=(("left", "B"),), p_a=p_a)
    keys = {tables.grammar_key(m, "a") for m in (m1, m2, m3)}
    assert len(keys) == 3
    assert tables.grammar_key(m1, "a") == tables.grammar_key(m1, "a")


def test_unwritable_cache_dir_still_parses(tmp_path, monkeypatch):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv("NESSIE_CACHE_DIR", str(blocker / "cache"))   # cannot be created
    parser = tables.build_parser(nesl_parser, "start")
    assert _items(parser).strip() == EXPECTED.strip()


def test_package_dir_is_never_written(tmp_path, monkeypatch):
    pkg = Path(tables.__file__).parent
    before = sorted(os.listdir(pkg))
    monkeypatch.setenv("NESSIE_CACHE_DIR", str(tmp_path))
    tables.build_parser(nesl_parser, "start")
    assert sorted(os.listdir(pkg)) == before


@pytest.mark.parametrize("cache", ["fresh", "unwritable"])
def test_nessie_check_in_a_fresh_process(tmp_path, cache):
    d = tmp_path / "c"
    if cache == "unwritable":
        (tmp_path / "f").write_text("")
        d = tmp_path / "f" / "c"
    env = dict(os.environ, NESSIE_CACHE_DIR=str(d))
    src = tmp_path / "t.nesl"
    src.write_text("function add1(x) = x + 1;\nadd1(2);\n")
    for _ in range(2):
        r = subprocess.run([sys.executable, "-m", "nessie", "run", "--backend", "interp",
                            str(src)], capture_output=True, text=True, env=env, cwd=ROOT)
        assert r.returncode == 0, r.stderr
        assert r.stdout == "add1 = fn : int -> int\nit = 3 : int\n"
        assert r.stderr == ""
    if cache == "fresh":
        assert len(_table_files(d)) == 1
