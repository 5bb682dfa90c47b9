"""NESL types, builtin signatures and type inference.

Public API::

    typecheck(program, env=None) -> TypedProgram     # raises CompileErrors with every error
    typecheck_item(env, item) -> (env', [typed items])  # incremental (REPL); raises CompileErrors
    initial_env() -> TypeEnv                          # builtins (implicit), library datatypes
    print_typed(typed_program) -> str                 # --emit typed
    type_summary(typed_program) -> str                # "dotp = fn : ([a], [a]) -> a :: ..."
    parse_type(text) -> Type  / parse_scheme(text) -> Scheme

See :mod:`nessie.types.typed_ast` for the typed tree (the contract for later stages) and
:mod:`nessie.types.builtins` for the builtin table.
"""
from __future__ import annotations

from nessie.diagnostics import Diagnostics
from nessie.syntax import ast as A
from nessie.types import typed_ast
from nessie.types.builtins import BUILTIN_CONSTANTS, BUILTIN_SCHEMES, BUILTIN_TYPES, \
    CONSTANT_TYPES
from nessie.types.infer import TypeEnv, check_item
from nessie.types.printer import item_summary, print_typed, type_summary
from nessie.types.types import (BOOL, CHAR, FLOAT, INT, SEGDES, Scheme, TBase, TData, TFun,
                                TPair, TSeq, TVar, Type, type_to_str)
from nessie.types.lettering import scheme_to_str

__all__ = [
    "typecheck", "typecheck_item", "initial_env", "TypeEnv", "print_typed", "type_summary",
    "item_summary", "typed_ast", "BUILTIN_TYPES", "BUILTIN_SCHEMES", "BUILTIN_CONSTANTS",
    "CONSTANT_TYPES", "parse_type", "parse_scheme", "Type", "TBase", "TSeq", "TPair", "TData",
    "TVar", "TFun", "Scheme", "INT", "FLOAT", "BOOL", "CHAR", "SEGDES", "type_to_str",
    "scheme_to_str",
]


def initial_env() -> TypeEnv:
    """The environment a program starts in: the builtins (implicit) and the library's
    datatypes ``stream`` and ``bound_box`` (:mod:`nessie.types.library`)."""
    from nessie.types.library import library_env
    return library_env()


def typecheck(program: A.Program, env: TypeEnv | None = None) -> typed_ast.TypedProgram:
    """Type-check a whole program; every error of every item is collected."""
    env = env or initial_env()
    diags = Diagnostics()
    diags.sources.update(program.sources)     # its errors quote the program's lines
    out = []
    for item in program.items:
        env, typed = check_item(env, item, diags)
        out.extend(typed)
    diags.raise_if_errors()
    from nessie.types.library import library_datadefs
    out = library_datadefs(out) + out     # the library datatypes the program uses
    return typed_ast.TypedProgram(tuple(out), env)


def typecheck_item(env: TypeEnv, item) -> tuple:
    """Check one top-level item against ``env``; returns ``(new_env, typed_items)``.

    A ``load`` item yields the typed items of the loaded file.  Raises CompileErrors (the
    environment passed in stays valid: it is never mutated)."""
    diags = Diagnostics()
    env2, typed = check_item(env, item, diags)
    diags.raise_if_errors()
    return env2, typed


def parse_scheme(text: str) -> Scheme:
    """``"[a] -> a :: (a in number)"`` or a value type ``"[(int, float)]"`` as a Scheme."""
    from nessie.syntax import parse_type_signature, parse_value_type
    from nessie.types.convert import scheme_from_sig, scheme_from_value_type
    if "->" in text.replace("<-", ""):
        return scheme_from_sig(parse_type_signature(text))
    texp, ctx = parse_value_type(text)
    return scheme_from_value_type(texp, ctx)


def parse_type(text: str) -> Type:
    return parse_scheme(text).type
