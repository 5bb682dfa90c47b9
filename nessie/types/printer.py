"""Printing of the typed AST (``--emit typed``) and of NESL-style type summaries.

The typed tree is converted back to an untyped AST (:func:`to_source_ast`) and printed with the
syntax printer, so the output is NESL source showing the desugared program: nested single
``let``\\ s, explicit generators (``x in x``), the filter form's body, explicit range strides,
``elt`` for subscripts and ``negate`` for prefix minus.  Binary operator calls are printed infix
again for readability.  Functions carry their inferred signature; value items are followed by a
comment with their type.  :func:`item_summary` gives the lines the NESL REPL prints
(``dotp = fn : ([a], [a]) -> a :: (a in number)``, ``z : int``).
"""
from __future__ import annotations

from nessie.syntax import ast as A
from nessie.syntax.printer import exp_str, item_str, pattern_str
from nessie.types import typed_ast as T
from nessie.types.builtins import BINARY_OPERATORS
from nessie.types.lettering import scheme_to_str
from nessie.types.types import Namer, TBase, TData, TFun, TPair, TSeq, TVar, display_name, type_to_str


def type_to_texp(t, namer: Namer):
    if isinstance(t, TBase):
        return A.TName(t.name)
    if isinstance(t, TSeq):
        return A.TSeqE(type_to_texp(t.elem, namer))
    if isinstance(t, TPair):
        return A.TPairE(type_to_texp(t.fst, namer), type_to_texp(t.snd, namer))
    if isinstance(t, TData):
        return A.TName(display_name(t.name), tuple(type_to_texp(a, namer) for a in t.args))
    if isinstance(t, TVar):
        return A.TName(namer(t.id))
    if isinstance(t, TFun):           # a function parameter's type
        return A.TFunE(type_to_texp(t.arg, namer), type_to_texp(t.result, namer))
    raise TypeError(t)


def scheme_to_sig(scheme) -> A.FunSig:
    from nessie.types.lettering import original_namer
    namer = original_namer(scheme)     # the letters of the function's result line
    arg = type_to_texp(scheme.type.arg, namer)
    res = type_to_texp(scheme.type.result, namer)
    ctx = tuple((namer.names[v], scheme.class_of(v)) for v in namer.order if v in scheme.vars)
    return A.FunSig(arg, res, ctx)


def pattern_to_source(p):
    if isinstance(p, T.PVar):
        return A.PVar(p.name, span=p.span)
    if isinstance(p, T.PWild):
        return A.PVar("_", span=p.span)
    if isinstance(p, T.PPair):
        return A.PPair(pattern_to_source(p.fst), pattern_to_source(p.snd), span=p.span)
    if isinstance(p, T.PCon):
        return A.PCon(p.name, pattern_to_source(p.arg), span=p.span)
    raise TypeError(p)


def to_source_ast(e, namer=None):
    """Untyped AST for a typed expression (for printing)."""
    namer = namer or Namer()
    r = lambda x: to_source_ast(x, namer)  # noqa: E731
    if isinstance(e, T.Lit):
        v = e.value
        if isinstance(v, bool):
            return A.BoolLit(v, span=e.span)
        if isinstance(v, int):
            return A.IntLit(v, span=e.span) if v >= 0 else \
                A.UnOp("-", A.IntLit(-v, span=e.span), span=e.span)
        if isinstance(v, float):
            return A.FloatLit(v, span=e.span) if v >= 0 else \
                A.UnOp("-", A.FloatLit(-v, span=e.span), span=e.span)
        return A.CharLit(v, span=e.span)
    if isinstance(e, T.StringLit):
        return A.StringLit(e.value, span=e.span)
    if isinstance(e, (T.Var, T.GlobalVar, T.ConstRef, T.FunRef)):
        return A.Var(e.name, span=e.span)
    if isinstance(e, T.Call):
        if e.kind == T.BUILTIN and e.name in BINARY_OPERATORS and isinstance(e.arg, T.Pair):
            return A.BinOp(e.name, r(e.arg.fst), r(e.arg.snd), span=e.span)
        if e.kind == T.BUILTIN and e.name in ("#", "@"):
            return A.UnOp(e.name, r(e.arg), span=e.span)
        return A.Call(e.name, r(e.arg), span=e.span)
    if isinstance(e, T.Pair):
        return A.Pair(r(e.fst), r(e.snd), span=e.span)
    if isinstance(e, T.If):
        return A.If(r(e.cond), r(e.then), r(e.else_), span=e.span)
    if isinstance(e, T.Let):
        # a chain of single lets prints as one `let` with several bindings (same meaning)
        binds = []
        while isinstance(e, T.Let):
            binds.append(A.Binding(pattern_to_source(e.pattern), r(e.bound)))
            e = e.body
        return A.Let(tuple(binds), r(e))
    if isinstance(e, T.ApplyToEach):
        gens = tuple(A.Generator(pattern_to_source(g.pattern), r(g.source)) for g in e.gens)
        return A.ApplyToEach(r(e.body), gens, r(e.filter) if e.filter is not None else None,
                             span=e.span)
    if isinstance(e, T.SeqLit):
        return A.SeqLit(tuple(r(x) for x in e.elems), span=e.span)
    if isinstance(e, T.EmptySeq):
        return A.EmptySeq(type_to_texp(e.type.elem, namer), span=e.span)
    if isinstance(e, T.Range):
        return A.Range(r(e.start), r(e.end), r(e.stride), span=e.span)
    if isinstance(e, T.Time):
        return A.Time(r(e.exp), span=e.span)
    raise TypeError(f"not a typed expression: {e!r}")


def value_type_str(t) -> str:
    return type_to_str(t, True)


def item_summary(item) -> str:
    """What the NESL REPL prints for an item, without values."""
    if isinstance(item, T.FunDef):
        return f"{item.name} = fn : {scheme_to_str(item.scheme)}"
    if isinstance(item, T.DataDef):
        return f"datatype {item.name} : {scheme_to_str(item.scheme)}"
    if isinstance(item, T.ValBind):
        return f"{pattern_str(pattern_to_source(item.pattern), False)} : " \
               f"{value_type_str(item.exp.type)}"
    if isinstance(item, T.ExpItem):
        return f"it : {value_type_str(item.exp.type)}"
    if isinstance(item, T.SetItem):
        return " ".join(["set", item.name, *item.args])
    raise TypeError(item)


def type_summary(prog) -> str:
    items = prog.items if isinstance(prog, T.TypedProgram) else prog
    return "".join(item_summary(it) + "\n" for it in items)


def typed_item_str(item) -> str:
    if isinstance(item, T.FunDef):
        sig = scheme_to_sig(item.scheme)
        body = to_source_ast(item.body)
        d = A.FunDef(item.name, pattern_to_source(item.param), sig, item.doc, body)
        return item_str(d)
    if isinstance(item, T.DataDef):
        namer = Namer()
        fields = type_to_texp(item.arg_type, namer)
        ctx = tuple((namer.names[v.id], item.scheme.class_of(v.id)) for v in item.params
                    if v.id in namer.names)
        return item_str(A.DataDef(item.name, fields, ctx))
    if isinstance(item, T.ValBind):
        s = item_str(A.TopBind(pattern_to_source(item.pattern), to_source_ast(item.exp)))
        return f"{s}  % : {value_type_str(item.exp.type)} %"
    if isinstance(item, T.ExpItem):
        s = exp_str(to_source_ast(item.exp)) + ";"
        return f"{s}  % it : {value_type_str(item.exp.type)} %"
    if isinstance(item, T.SetItem):
        return " ".join(["set", item.name, *item.args]) + ";"
    raise TypeError(item)


def print_typed(prog) -> str:
    """NESL source of a typed (or monomorphic) program, one item per line."""
    items = prog.items if hasattr(prog, "items") else prog
    return "".join(typed_item_str(it) + "\n" for it in items)
