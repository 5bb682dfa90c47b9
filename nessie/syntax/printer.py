"""Printer of the untyped AST back to NESL source.

The output parses back to an equal AST (spans aside): parentheses are inserted from the
precedence table of the parser, ``if``/``let`` are parenthesised whenever something could follow
them, and sequence-literal elements / range bounds are printed in "no comma" context.
One item per line; long expressions are not wrapped.
"""
from __future__ import annotations

from nessie.syntax import ast as A
from nessie.syntax.lexer import KEYWORDS

# binding strength of binary operators (higher binds tighter); prefix = 9, postfix/atom = 10
BINOP_LEVEL = {
    "or": 1, "nor": 1, "xor": 1,
    "and": 2, "nand": 2,
    "==": 3, "/=": 3, "<": 3, ">": 3, "<=": 3, ">=": 3,
    "+": 4, "-": 4, "++": 4,
    "*": 5, "/": 5, "||": 5,
    "^": 6, "<-": 7, "->": 8,
}
PREFIX_LEVEL = 9
ATOM_LEVEL = 10
ARGS = -1      # context: inside call parentheses (a tuple needs no parentheses of its own)
EXP = 0        # context: a full expression (commas allowed)
NOCOMMA = 0.5  # context: sequence element / range bound (no top-level comma)

#: a string literal holds any character as itself (it may span lines); only ``"`` and ``\\``
#: need a backslash, which makes the next character part of the string (as the original reads)
_ESC = {"\\": "\\\\", '"': '\\"'}


def is_identifier(name: str) -> bool:
    return (bool(name) and (name[0].isalpha() or name[0] == "_")
            and all(c.isalnum() or c in "_'" for c in name)
            and name not in KEYWORDS and name not in ("t", "f"))


def fn_name(name: str) -> str:
    """A function name as it must be written in a call (backquoted when an operator)."""
    if is_identifier(name):
        return name
    if ("<" in name or "[" in name) and \
            is_identifier(name.split("<", 1)[0].split("[", 1)[0].split("~", 1)[0]):
        return name  # a monomorphised instance name: dotp<int>, twice<int>[inc] (--emit mono)
    return f"`{name}`"


def string_lit(s: str) -> str:
    return '"' + "".join(_ESC.get(c, c) for c in s) + '"'


def float_lit(v: float) -> str:
    r = repr(float(v))
    if "e" not in r and "." not in r:
        r += ".0"
    return r


# --------------------------------------------------------------------------- types
def type_str(t, top: bool = True) -> str:
    if isinstance(t, A.TName):
        if t.args:
            return f"{t.name}(" + ", ".join(type_str(a, True) for a in t.args) + ")"
        return t.name
    if isinstance(t, A.TSeqE):
        return "[" + type_str(t.elem, False) + "]"
    if isinstance(t, A.TPairE):
        def comp(c, top_):
            return type_str(c, "component") if isinstance(c, A.TFunE) else type_str(c, top_)
        s = comp(t.fst, False) + ", " + comp(t.snd, True)
        return s if top else f"({s})"
    if isinstance(t, A.TFunE):
        # a function parameter's type: parenthesised unless a tuple component (``(b -> b, b)``)
        s = type_str(t.arg, False) + " -> " + type_str(t.result, False)
        return s if top == "component" else f"({s})"
    raise TypeError(f"not a type expression: {t!r}")


def context_str(ctx) -> str:
    if not ctx:
        return ""
    return " :: (" + "; ".join(f"{v} in {c}" for v, c in ctx) + ")"


def sig_str(sig: A.FunSig) -> str:
    return type_str(sig.arg, False) + " -> " + type_str(sig.result, False) + context_str(sig.context)


# --------------------------------------------------------------------------- patterns
def pattern_str(p, top: bool = False) -> str:
    if isinstance(p, A.PVar):
        return p.name
    if isinstance(p, A.PPair):
        s = pattern_str(p.fst) + ", " + _pattern_tail(p.snd)
        return s if top else f"({s})"
    if isinstance(p, A.PCon):
        return f"{p.name}(" + pattern_str(p.arg, True) + ")"
    raise TypeError(f"not a pattern: {p!r}")


def _pattern_tail(p) -> str:
    if isinstance(p, A.PPair):
        return pattern_str(p.fst) + ", " + _pattern_tail(p.snd)
    return pattern_str(p)


# --------------------------------------------------------------------------- expressions
def exp_str(e, ctx: float = EXP) -> str:
    def paren(s, level):
        return f"({s})" if level < ctx else s

    if isinstance(e, A.IntLit):
        return str(e.value)
    if isinstance(e, A.FloatLit):
        return float_lit(e.value)
    if isinstance(e, A.BoolLit):
        return "t" if e.value else "f"
    if isinstance(e, A.CharLit):
        return "`" + e.value
    if isinstance(e, A.StringLit):
        return string_lit(e.value)
    if isinstance(e, A.Var):
        return fn_name(e.name)   # `+` passed as a function is backquoted
    if isinstance(e, A.Pair):
        parts = [exp_str(e.fst, 1)]
        rest = e.snd
        while isinstance(rest, A.Pair):
            parts.append(exp_str(rest.fst, 1))
            rest = rest.snd
        parts.append(exp_str(rest, EXP))
        s = ", ".join(parts)
        return s if ctx <= ARGS else f"({s})"
    if isinstance(e, A.BinOp):
        lv = BINOP_LEVEL[e.op]
        s = f"{exp_str(e.left, lv)} {e.op} {exp_str(e.right, lv + 1)}"
        return paren(s, lv)
    if isinstance(e, A.UnOp):
        s = e.op + exp_str(e.arg, PREFIX_LEVEL)
        return paren(s, PREFIX_LEVEL)
    if isinstance(e, A.Call):
        return f"{fn_name(e.name)}({exp_str(e.arg, ARGS)})"
    if isinstance(e, A.Subscript):
        seq = exp_str(e.seq, ATOM_LEVEL)
        if isinstance(e.seq, A.EmptySeq):
            seq = f"({seq})"
        return f"{seq}[{exp_str(e.index, EXP)}]"
    if isinstance(e, A.If):
        tail_ctx = NOCOMMA if ctx == NOCOMMA else EXP
        s = (f"if {exp_str(e.cond)} then {exp_str(e.then)} else "
             f"{exp_str(e.else_, tail_ctx)}")
        return s if ctx <= NOCOMMA else f"({s})"
    if isinstance(e, A.Let):
        tail_ctx = NOCOMMA if ctx == NOCOMMA else EXP
        binds = "; ".join(f"{pattern_str(b.pattern)} = {exp_str(b.exp)}" for b in e.bindings)
        s = f"let {binds} in {exp_str(e.body, tail_ctx)}"
        return s if ctx <= NOCOMMA else f"({s})"
    if isinstance(e, A.ApplyToEach):
        gens = "; ".join(_gen_str(g) for g in e.generators)
        filt = f" | {exp_str(e.filter)}" if e.filter is not None else ""
        if e.body is None:
            return "{" + gens + filt + "}"
        return "{" + exp_str(e.body) + " : " + gens + filt + "}"
    if isinstance(e, A.SeqLit):
        return "[" + ", ".join(exp_str(x, NOCOMMA) for x in e.elems) + "]"
    if isinstance(e, A.EmptySeq):
        if e.elem_type is None:
            return "[]"
        return "[] " + type_str(e.elem_type, False)
    if isinstance(e, A.Range):
        parts = [exp_str(e.start, NOCOMMA), exp_str(e.end, NOCOMMA)]
        if e.stride is not None:
            parts.append(exp_str(e.stride, NOCOMMA))
        return "[" + ":".join(parts) + "]"
    if isinstance(e, A.Time):
        return f"time({exp_str(e.exp, ARGS)})"
    raise TypeError(f"not an expression: {e!r}")


WIDTH = 100


def block_str(e, ctx: float = EXP, indent: int = 0) -> str:
    """Like :func:`exp_str`, but a long ``if``/``let`` is laid out over several lines
    (whitespace is not significant, so the result still parses back to the same tree)."""
    flat = exp_str(e, ctx)
    if indent + len(flat) <= WIDTH or ctx > NOCOMMA or not isinstance(e, (A.If, A.Let)):
        return flat
    tail_ctx = NOCOMMA if ctx == NOCOMMA else EXP
    pad = " " * indent
    if isinstance(e, A.If):
        return (f"if {exp_str(e.cond)}\n{pad}  then {block_str(e.then, EXP, indent + 7)}\n"
                f"{pad}  else {block_str(e.else_, tail_ctx, indent + 7)}")
    binds = [f"{pattern_str(b.pattern)} = {block_str(b.exp, EXP, indent + 4)}"
             for b in e.bindings]
    sep = ";\n" + pad + "    "
    return f"let {sep.join(binds)}\n{pad}in {block_str(e.body, tail_ctx, indent + 3)}"


def _gen_str(g: A.Generator) -> str:
    if g.source is None:
        return pattern_str(g.pattern)
    return f"{pattern_str(g.pattern)} in {exp_str(g.source)}"


# --------------------------------------------------------------------------- top level
def item_str(it) -> str:
    if isinstance(it, A.FunDef):
        s = f"function {it.name}({pattern_str(it.param, True)})"
        if it.sig is not None:
            s += " : " + sig_str(it.sig)
        if it.doc is not None:
            s += " " + string_lit(it.doc)
        flat = s + " = " + exp_str(it.body) + ";"
        if len(flat) <= WIDTH:
            return flat
        return s + " =\n  " + block_str(it.body, EXP, 2) + ";"
    if isinstance(it, A.DataDef):
        return f"datatype {it.name}({type_str(it.fields)}){context_str(it.context)};"
    if isinstance(it, A.TopBind):
        return f"{pattern_str(it.pattern)} = {exp_str(it.exp)};"
    if isinstance(it, A.TopExp):
        return exp_str(it.exp) + ";"
    if isinstance(it, A.Load):
        return f"load {string_lit(it.path)};"
    if isinstance(it, A.SetOption):
        return " ".join(["set", it.name, *it.args]) + ";"
    raise TypeError(f"not a top-level item: {it!r}")


def print_ast(node) -> str:
    """NESL source for a Program, a top-level item, an expression, a pattern or a type."""
    if isinstance(node, A.Program):
        return "".join(item_str(it) + "\n" for it in node.items)
    if isinstance(node, (A.FunDef, A.DataDef, A.TopBind, A.TopExp, A.Load, A.SetOption)):
        return item_str(node)
    if isinstance(node, (A.PVar, A.PPair, A.PCon)):
        return pattern_str(node, True)
    if isinstance(node, (A.TName, A.TSeqE, A.TPairE, A.TFunE)):
        return type_str(node)
    if isinstance(node, A.FunSig):
        return sig_str(node)
    return exp_str(node)
