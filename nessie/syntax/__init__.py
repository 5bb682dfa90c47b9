"""NESL syntax: lexer, parser, AST and printer.

Public API::

    parse_text(text, filename="<input>", expand_loads=True) -> ast.Program
    parse_file(path) -> ast.Program
    parse_expression(text, filename="<expr>") -> ast.Exp
    parse_type_signature(text) -> ast.FunSig            # "[a] -> a :: (a in number)"
    parse_value_type(text) -> (ast.TypeExpr, context)    # "float", "[a] :: (a in any)"
    print_ast(program_or_node) -> str                    # NESL source that parses back equal

All raise :class:`nessie.diagnostics.CompileErrors` holding every error found (the parser
recovers at the next top-level ``;``/``$``).  ``load "f";`` is resolved relative to the
directory of the including file; the loaded items are stored in ``Load.items``.
"""
from __future__ import annotations

import os

from nessie.diagnostics import CompileErrors, Diagnostics
from nessie.syntax import ast
from nessie.syntax.parser import run_parser
from nessie.syntax.printer import print_ast

__all__ = ["ast", "parse_text", "parse_file", "parse_expression", "parse_type_signature",
           "parse_value_type", "print_ast", "parse_items"]


#: the byte order mark, as UTF-8 text decodes it
BOM = "\ufeff"


def parse_items(text: str, filename: str, diags: Diagnostics, expand_loads: bool = True,
                _loading: tuple = ()) -> tuple:
    """Parse ``text`` adding errors to ``diags`` (never raises for syntax errors); the text of
    ``filename`` and of every file it loads go to ``diags.sources``."""
    from nessie.limits import depth_errors, run_deep
    if text.startswith(BOM):
        # a byte order mark (editors write one) is no character of the program: columns are
        # counted, and lines quoted, without it
        text = text[1:]
    diags.sources[filename] = text
    # on a big stack: the parser's actions recurse over patterns, and later stages over the
    # expressions whose depth is checked here (nessie.limits)
    items = run_deep(lambda: run_parser(text, filename, diags))
    for span, message in depth_errors(items):
        diags.error(span, message)
    if expand_loads:
        items = tuple(_expand(it, filename, diags, _loading) for it in items)
    return items


def _expand(item, filename, diags, loading):
    if not isinstance(item, ast.Load):
        return item
    if not item.path:
        # joined to the including file's directory, an empty name would name that directory
        diags.error(item.span, 'cannot load "": the file name is empty')
        return item
    base = os.path.dirname(filename) if filename and not filename.startswith("<") else "."
    target = item.path if os.path.isabs(item.path) else os.path.join(base, item.path)
    candidates = [target]
    if not os.path.splitext(target)[1]:
        candidates.append(target + ".nesl")
    found = next((c for c in candidates if os.path.isfile(c)), None)
    if found is None:
        what = "is a directory" if any(os.path.isdir(c) for c in candidates) else \
            "not a regular file" if any(os.path.exists(c) for c in candidates) else \
            "file not found"
        diags.error(item.span, f'cannot load "{item.path}": {what}')
        return item
    real = os.path.realpath(found)
    if real in loading:
        diags.error(item.span, f'cannot load "{item.path}": circular load')
        return item
    try:
        with open(found, encoding="utf-8") as fh:
            text = fh.read()
    except OSError as e:
        why = e.strerror or str(e)      # lower case, as the reasons above ("permission denied")
        diags.error(item.span, f'cannot load "{item.path}": {why[:1].lower() + why[1:]}')
        return item
    except UnicodeDecodeError as e:
        diags.error(item.span, f'cannot load "{item.path}": not UTF-8 text (byte '
                               f'0x{e.object[e.start]:02x} at offset {e.start})')
        return item
    items = parse_items(text, found, diags, True, loading + (real,))
    return ast.Load(item.path, items, found, span=item.span)


def parse_text(text: str, filename: str = "<input>", expand_loads: bool = True) -> ast.Program:
    diags = Diagnostics()
    loading = (os.path.realpath(filename),) if not filename.startswith("<") else ()
    items = parse_items(text, filename, diags, expand_loads, loading)
    diags.raise_if_errors()
    return ast.Program(items, filename, sources=dict(diags.sources))


def parse_file(path: str) -> ast.Program:
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    return parse_text(text, path)


def _parse_marked(text, filename, marker, shallow=False):
    diags = Diagnostics()
    from nessie.limits import depth_errors, run_deep
    diags.sources[filename] = text

    def parse():
        return run_parser(text, filename, diags, marker=marker)
    # shallow: a short text of the compiler's own (the builtin types), parsed on this thread:
    # a thread started while a module is being imported deadlocks if it imports that module
    result = parse() if shallow else run_deep(parse)
    if not diags:
        for span, message in depth_errors(result):
            diags.error(span, message)
    diags.raise_if_errors()
    if result is None:  # pragma: no cover - PLY returns None only after an error
        raise CompileErrors([])
    return result


def parse_expression(text: str, filename: str = "<expr>") -> ast.Exp:
    return _parse_marked(text, filename, "EXPMARK")


def parse_type_signature(text: str, filename: str = "<type>", shallow: bool = False) -> ast.FunSig:
    return _parse_marked(text, filename, "TYPEMARK", shallow)


def parse_value_type(text: str, filename: str = "<type>", shallow: bool = False):
    return _parse_marked(text, filename, "VTYPEMARK", shallow)
