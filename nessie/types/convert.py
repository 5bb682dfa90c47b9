"""Conversion of syntactic type expressions (:mod:`nessie.syntax.ast`) to type values.

Names resolve as: base types (``int float bool char segdes``), then known datatypes, then --
where allowed -- type variables (any other name).  Used for the builtin table, function
signatures, datatype declarations and typed empty sequences ``[] T``.
"""
from __future__ import annotations

from typing import Callable, Optional

from nessie.diagnostics import CompileError
from nessie.syntax import ast as A
from nessie.types.types import BASE_TYPES, CLASSES, Scheme, TData, TPair, TSeq, TVar, TFun


FUNCTION_TYPE_PLACE = ("a function type can only be the type of a function parameter (a "
                       "component of a function's argument type, as in (b -> b, b) -> b)")


def resolve_type_expr(t, var_for: Optional[Callable[[str, object], TVar]],
                      datatypes: Optional[dict] = None, functions: bool = False):
    """``var_for(name, span)`` returns the variable for a type-variable name (None: no vars).
    ``functions``: ``t`` is a function's argument type, whose tuple components may be function
    types ``a -> b`` (function parameters); anywhere else a function type is an error."""
    datatypes = datatypes or {}
    if isinstance(t, A.TFunE):
        if not functions:
            raise CompileError(t.span, FUNCTION_TYPE_PLACE)
        return TFun(resolve_type_expr(t.arg, var_for, datatypes, True),
                    resolve_type_expr(t.result, var_for, datatypes))
    if isinstance(t, A.TName):
        if t.name in BASE_TYPES and not t.args:
            return BASE_TYPES[t.name]
        if t.name in datatypes:
            info = datatypes[t.name]
            nparams = len(info.params)
            args = tuple(resolve_type_expr(a, var_for, datatypes) for a in t.args)
            if len(args) != nparams:
                raise CompileError(t.span, f"datatype {t.name} expects {nparams} type "
                                           f"argument{'s' if nparams != 1 else ''}, "
                                           f"got {len(args)}")
            return TData(t.name, args)
        if t.args:
            raise CompileError(t.span, f"unknown datatype {t.name}")
        if var_for is None:
            raise CompileError(t.span, f"unknown type {t.name}")
        return var_for(t.name, t.span)
    if isinstance(t, A.TSeqE):
        return TSeq(resolve_type_expr(t.elem, var_for, datatypes))
    if isinstance(t, A.TPairE):
        return TPair(resolve_type_expr(t.fst, var_for, datatypes, functions),
                     resolve_type_expr(t.snd, var_for, datatypes, functions))
    raise TypeError(f"not a type expression: {t!r}")


def check_context(context, var_names, span=None):
    for v, c in context:
        if c not in CLASSES:
            raise CompileError(span, f"unknown type class {c} (expected one of "
                                     f"{', '.join(CLASSES)})")


class _Numbering:
    def __init__(self):
        self.ids: dict = {}

    def __call__(self, name, span):
        if name not in self.ids:
            self.ids[name] = TVar(len(self.ids))
        return self.ids[name]


def scheme_from_sig(sig: A.FunSig, datatypes: Optional[dict] = None) -> Scheme:
    """A closed scheme for a signature; variables are numbered 0, 1, ... by first appearance."""
    num = _Numbering()
    arg = resolve_type_expr(sig.arg, num, datatypes, functions=True)
    res = resolve_type_expr(sig.result, num, datatypes)
    check_context(sig.context, num.ids, sig.span)
    ctx = dict(sig.context)
    names = list(num.ids)
    return Scheme(tuple(num.ids[n].id for n in names), tuple(ctx.get(n, "any") for n in names),
                  TFun(arg, res))


def scheme_from_value_type(texp, context=(), datatypes: Optional[dict] = None) -> Scheme:
    num = _Numbering()
    t = resolve_type_expr(texp, num, datatypes)
    ctx = dict(context)
    names = list(num.ids)
    return Scheme(tuple(num.ids[n].id for n in names), tuple(ctx.get(n, "any") for n in names), t)
