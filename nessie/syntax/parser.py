"""LALR(1) parser for NESL (PLY; tables cached on disk by a grammar hash, see ``tables.py``).

Grammar design:

* Patterns (left of ``=`` in ``let`` and top-level bindings, left of ``in`` in generators,
  function parameters) are parsed as expressions and converted by :func:`exp_to_pattern`; this
  keeps the grammar LALR(1) (``x = e`` vs ``e``, ``{p in e | f}`` vs ``{e : ...}``).
* ``exp`` allows a top-level tuple comma; ``expnc`` ("no comma") is used for the elements of a
  sequence literal and the bounds of a range, where ``,`` and ``:`` are separators.
  ``if`` and ``let`` extend as far right as possible: in ``exp`` their tail is an ``exp``.
* Binary operators use PLY precedences (loosest first): ``or nor xor`` ; ``and nand`` ;
  comparisons ; ``+ - ++`` ; ``* / ||`` ; ``^`` ; ``<-`` ; ``->`` -- all left associative.  Prefix
  ``# @ -`` and postfix subscripts/calls are separate, tighter nonterminals.
* Error recovery: ``item : error SEMI | error DOLLAR`` resynchronises at the next top-level
  terminator; every syntax error goes to the :class:`~nessie.diagnostics.Diagnostics` collector.
  Completed items are collected as they are reduced, so an error at end of file loses nothing.
* Application is juxtaposition, as in the original: ``f(x)``, ``(float)n``, ``not x`` (see
  ``p_postfix_apply``); ``{s; x in d | p}`` is the filter form whose first generator is bare.
* Marker tokens injected in front of the token stream select other entry points: ``TYPEMARK``
  (a function type ``A -> B :: ctx``, used for the builtin table), ``VTYPEMARK`` (a value type
  ``T :: ctx``) and ``EXPMARK`` (a single expression).
"""
from __future__ import annotations

import copy
import functools
import re
import sys

from nessie.diagnostics import CompileError, Span
from nessie.syntax import ast as A
from nessie.syntax.lexer import Tok, tokens  # noqa: F401  (PLY reads `tokens`)

precedence = (
    ("left", "OR", "NOR", "XOR"),
    ("left", "AND", "NAND"),
    ("left", "EQEQ", "NE", "LT", "GT", "LE", "GE"),
    ("left", "PLUS", "MINUS", "PLUSPLUS"),
    ("left", "TIMES", "DIV", "BARBAR"),
    ("left", "CARET"),
    ("left", "LARROW"),
    ("left", "RARROW"),
    ("nonassoc", "EMPTYSEQ"),
    ("nonassoc", "JUXT"),
    ("nonassoc", "ID"),              # `[] int`, `[] pair(int, int)`: the type, not an argument
    ("left", "LBRACKET", "LPAREN"),
)


class _ParseState:
    def __init__(self, diags, filename):
        self.diags = diags
        self.filename = filename
        self.items: list = []
        self.result = None
        self.last_span: Span | None = None


# The state of one parse (its diagnostics, the items read so far) is a value: run_parser makes
# a _ParseState, the token stream carries it, and grammar actions reach it as
# ``p.lexer.state`` (PLY's ``p.lexer`` is the stream passed to ``parse``).  Nothing of a parse
# lives in this module, so parses on several threads (the REPL's, the driver's) are independent.


def _sp(x) -> Span | None:
    if isinstance(x, (list, tuple)):
        if not x:
            return None
        return _sp(x[0]).merge(_sp(x[-1])) if _sp(x[0]) else None
    return getattr(x, "span", None)


def span_of(p, i, j=None) -> Span:
    """Span from symbol i to symbol j (inclusive) of production p."""
    j = len(p) - 1 if j is None else j
    first = None
    for k in range(i, j + 1):
        first = _sp(p[k])
        if first is not None:
            break
    last = None
    for k in range(j, i - 1, -1):
        last = _sp(p[k])
        if last is not None:
            break
    if first is None:
        return None
    return first.merge(last)


def exp_to_pattern(e) -> A.Pattern:
    """Convert an expression parsed in pattern position to a pattern (or raise CompileError)."""
    if isinstance(e, A.Var) and _is_ident(e.name):
        return A.PVar(e.name, span=e.span)
    if isinstance(e, A.Pair):
        return A.PPair(exp_to_pattern(e.fst), exp_to_pattern(e.snd), span=e.span)
    if isinstance(e, A.Call) and _is_ident(e.name):
        return A.PCon(e.name, exp_to_pattern(e.arg), span=e.span)
    if isinstance(e, A.BoolLit):
        name = "t" if e.value else "f"
        raise CompileError(e.span, f"{BOOL_NAME_HINT[name]}, so it cannot name a variable; "
                                   f"choose another name")
    raise CompileError(e.span, "invalid pattern: expected a variable, a tuple or a "
                               "constructor pattern")


#: why ``t`` / ``f`` cannot be names (NESL reads them as the booleans)
BOOL_NAME_HINT = {"t": "in NESL 't' is the boolean true (t and f are the boolean literals)",
                  "f": "in NESL 'f' is the boolean false (t and f are the boolean literals)"}


def _is_ident(name: str) -> bool:
    return name[:1].isalpha() or name[:1] == "_"


def _append(p, k):
    """``list : elem | list SEP elem`` in linear time: the list built for the left symbol is
    extended in place (``p[1] + [p[k]]`` copied it for every element, so a sequence literal of
    n elements took O(n^2) time: 100,000 elements, 42 s)."""
    if len(p) == 2:
        return [p[1]]
    p[1].append(p[k])
    return p[1]


def _pattern(p, e):
    try:
        return exp_to_pattern(e)
    except CompileError as err:
        p.lexer.state.diags.add(err)
        return A.PVar("_", span=e.span)


# --------------------------------------------------------------------------- entry points
def p_start_program(p):
    "start : items"
    p[0] = tuple(p.lexer.state.items)


def p_start_type(p):
    "start : TYPEMARK typesig"
    p[0] = p[2]


def p_start_vtype(p):
    "start : VTYPEMARK typeexp ctxopt"
    p[0] = (p[2], p[3])


def p_start_exp(p):
    "start : EXPMARK exp"
    p[0] = p[2]


def p_items(p):
    """items : items item
             | empty"""


def p_item(p):
    """item : topdecl SEMI
            | topdecl DOLLAR"""
    if p[1] is not None:
        p.lexer.state.items.append(p[1])


def p_item_error(p):
    """item : error SEMI
            | error DOLLAR"""


def p_empty(p):
    "empty :"
    p[0] = None


# --------------------------------------------------------------------------- top level
def p_topdecl_function(p):
    "topdecl : FUNCTION ID LPAREN exp RPAREN sigopt docopt EQ exp"
    p[0] = A.FunDef(p[2].value, _pattern(p, p[4]), p[6],
                    p[7].value if p[7] is not None else None, p[9], span=span_of(p, 1))


def p_sigopt(p):
    """sigopt : COLON typesig
              | empty"""
    p[0] = p[2] if len(p) == 3 else None


def p_docopt(p):
    """docopt : STRING
              | empty"""
    p[0] = p[1]


def p_typesig(p):
    "typesig : typeexp RARROW typeexp ctxopt"
    p[0] = A.FunSig(p[1], p[3], p[4] or (), span=span_of(p, 1))


def p_ctxopt(p):
    """ctxopt : DCOLON LPAREN ctxs RPAREN
              | DCOLON ctx
              | empty"""
    if len(p) == 5:
        p[0] = tuple(p[3])
    elif len(p) == 3:
        p[0] = (p[2],)
    else:
        p[0] = ()


def p_ctxs(p):
    """ctxs : ctx
            | ctxs SEMI ctx"""
    p[0] = _append(p, 3)


def p_ctx(p):
    "ctx : ID IN ID"
    p[0] = (p[1].value, p[3].value)


def p_typeexp(p):
    """typeexp : typeatom
               | typeatom COMMA typeexp"""
    p[0] = p[1] if len(p) == 2 else A.TPairE(p[1], p[3], span=span_of(p, 1))


def p_typeatom_name(p):
    """typeatom : ID
                | ID LPAREN typeexp RPAREN"""
    if len(p) == 2:
        p[0] = A.TName(p[1].value, (), span=p[1].span)
    else:
        args = []
        t = p[3]
        while isinstance(t, A.TPairE):
            args.append(t.fst)
            t = t.snd
        args.append(t)
        p[0] = A.TName(p[1].value, tuple(args), span=span_of(p, 1))


def p_typeatom_seq(p):
    "typeatom : LBRACKET typeexp RBRACKET"
    p[0] = A.TSeqE(p[2], span=span_of(p, 1))


def p_typeatom_paren(p):
    "typeatom : LPAREN ptypeexp RPAREN"
    p[0] = p[2]


# inside parentheses a tuple component may be a function type, the type of a function
# parameter: ``function twice(func, x) : (b -> b, b) -> b``; ``(int -> int) -> int``
def p_ptypeexp(p):
    """ptypeexp : ptypecomp
                | ptypecomp COMMA ptypeexp"""
    p[0] = p[1] if len(p) == 2 else A.TPairE(p[1], p[3], span=span_of(p, 1))


def p_ptypecomp(p):
    """ptypecomp : typeatom
                 | typeatom RARROW typeatom"""
    p[0] = p[1] if len(p) == 2 else A.TFunE(p[1], p[3], span=span_of(p, 1))


def p_topdecl_datatype(p):
    "topdecl : DATATYPE ID LPAREN typeexp RPAREN ctxopt"
    p[0] = A.DataDef(p[2].value, p[4], p[6], span=span_of(p, 1))


def p_topdecl_bind(p):
    "topdecl : exp EQ exp"
    p[0] = A.TopBind(_pattern(p, p[1]), p[3], span=span_of(p, 1))


def p_topdecl_exp(p):
    "topdecl : exp"
    p[0] = A.TopExp(p[1], span=p[1].span)


def p_topdecl_load(p):
    "topdecl : LOAD STRING"
    p[0] = A.Load(p[2].value, span=span_of(p, 1))


def p_topdecl_set(p):
    "topdecl : SET ID setargs"
    args = tuple(p[3])
    p[0] = A.SetOption(p[2].value, tuple(_set_arg_text(a) for a in args),
                       span=span_of(p, 1, 2).merge(_sp(args[-1]) if args else None))


def _set_arg_text(tok) -> str:
    """An option's argument as written (a string with its quotes, see ``p_setarg``), a
    boolean as ``t``/``f``."""
    if isinstance(tok.value, bool):
        return "t" if tok.value else "f"
    return str(tok.value)


def p_setargs(p):
    """setargs : setargs setarg
               | empty"""
    p[0] = [] if len(p) == 2 else _append(p, 2)


def p_setarg(p):
    """setarg : ID
              | INT
              | FLOAT
              | STRING
              | BOOL"""
    if p.slice[1].type == "STRING":
        # a string keeps its quotes: ``set print_length "10"`` is not ``set print_length 10``
        import dataclasses
        p[0] = dataclasses.replace(p[1], value='"' + str(p[1].value) + '"')
    else:
        p[0] = p[1]


# --------------------------------------------------------------------------- expressions
def p_exp(p):
    """exp : opexp
       expnc : opexp"""
    p[0] = p[1]


def p_exp_pair(p):
    "exp : opexp COMMA exp"
    p[0] = A.Pair(p[1], p[3], span=span_of(p, 1))


def p_exp_if(p):
    """exp : IF exp THEN exp ELSE exp
       expnc : IF exp THEN exp ELSE expnc"""
    p[0] = A.If(p[2], p[4], p[6], span=span_of(p, 1))


def p_exp_let(p):
    """exp : LET binds IN exp
           | LET binds SEMI IN exp
       expnc : LET binds IN expnc
             | LET binds SEMI IN expnc"""
    p[0] = A.Let(tuple(p[2]), p[len(p) - 1], span=span_of(p, 1))


def p_binds(p):
    """binds : bind
             | binds SEMI bind"""
    p[0] = _append(p, 3)


def p_bind(p):
    "bind : exp EQ exp"
    p[0] = A.Binding(_pattern(p, p[1]), p[3], span=span_of(p, 1))


def p_opexp_binop(p):
    """opexp : opexp OR opexp
             | opexp NOR opexp
             | opexp XOR opexp
             | opexp AND opexp
             | opexp NAND opexp
             | opexp EQEQ opexp
             | opexp NE opexp
             | opexp LT opexp
             | opexp GT opexp
             | opexp LE opexp
             | opexp GE opexp
             | opexp PLUS opexp
             | opexp MINUS opexp
             | opexp PLUSPLUS opexp
             | opexp TIMES opexp
             | opexp DIV opexp
             | opexp BARBAR opexp
             | opexp CARET opexp
             | opexp LARROW opexp
             | opexp RARROW opexp"""
    p[0] = A.BinOp(p[2].value, p[1], p[3], span=span_of(p, 1))


def p_opexp_unary(p):
    "opexp : unary"
    p[0] = p[1]


def p_unary(p):
    """unary : MINUS unary
             | HASH unary
             | AT unary"""
    p[0] = A.UnOp(p[1].value, p[2], span=span_of(p, 1))


def p_unary_postfix(p):
    "unary : postfix"
    p[0] = p[1]


def p_postfix_subscript(p):
    "postfix : postfix LBRACKET exp RBRACKET"
    p[0] = A.Subscript(p[1], p[3], span=span_of(p, 1))


def p_postfix_atom(p):
    "postfix : atom"
    p[0] = p[1]


def p_atom_var(p):
    "atom : ID"
    p[0] = A.Var(p[1].value, span=p[1].span)


def p_atom_backop(p):
    "atom : BACKOP"
    p[0] = A.Var(p[1].value, span=p[1].span)


# Application is juxtaposition, as in the original NESL: ``f(x)`` is ``f`` applied to the
# parenthesised ``(x)``, and ``(float)n``, ``not x``, ``f (a, b)`` are applications too.  The
# argument is parenthesised or simple (a name or a literal); a simple argument takes its own
# subscripts (``(float)a[i]`` is ``float(a[i])``), a parenthesised one does not (``f(x)[i]`` is
# ``(f(x))[i]``).  Application is left associative and binds tighter than every operator
# (``not x, x`` is ``(not(x), x)``; ``-f x`` is ``-(f(x))``).  NESL is first order, so the
# function must be a name (possibly parenthesised).
def p_postfix_apply(p):
    "postfix : postfix jarg"
    fn, (arg, first, whole) = p[1], p[2]
    if isinstance(fn, A.Var):
        p[0] = A.Call(fn.name, arg, span=fn.span.merge(whole) if fn.span else whole)
    else:
        # what precedes the argument is no function name: as before juxtaposition existed,
        # this is a syntax error at the argument (``[1 2]``, ``x[i] y``)
        sp = whole
        at = Span(sp.file, sp.line, sp.col, sp.line, sp.col) if sp is not None else None
        hint = ""
        if isinstance(fn, A.BoolLit):
            # ``f(x)``: the user meant a function named f or t
            hint = (f": {BOOL_NAME_HINT['t' if fn.value else 'f']}, so it cannot name a "
                    f"function")
        p.lexer.state.diags.error(at, f"syntax error at '{_one_line(first)}'{hint}")
        p[0] = fn


# a jarg is (argument, text of its first token, span with the parentheses): errors name the
# token; a parenthesised argument keeps the span of what is inside (type errors point there)
def p_jarg_simple(p):
    "jarg : jsimple %prec JUXT"
    e = p[1]
    while isinstance(e, A.Subscript):
        e = e.seq
    text = None
    if isinstance(e, (A.IntLit, A.FloatLit)):
        # a number is quoted as written (``1e3``, ``.5``), not as its value
        lexer = getattr(p.lexer, "lexer", None)
        text = _as_number(_span_text(getattr(lexer, "lexdata", None),
                                     getattr(lexer, "state", None), e.span))
    p[0] = (p[1], text or _token_text(e), p[1].span)


def p_jarg_paren(p):
    "jarg : LPAREN exp RPAREN"
    p[0] = (p[2], "(", span_of(p, 1))


def p_jsimple(p):
    """jsimple : ID
               | INT
               | FLOAT
               | STRING
               | CHAR
               | BOOL"""
    p[0] = _literal(p.slice[1].type, p[1])


def p_jsimple_subscript(p):
    "jsimple : jsimple LBRACKET exp RBRACKET"
    p[0] = A.Subscript(p[1], p[3], span=span_of(p, 1))


def _token_text(e) -> str:
    from nessie.syntax.printer import exp_str
    if isinstance(e, A.BoolLit):
        return "t" if e.value else "f"
    return e.name if isinstance(e, A.Var) else exp_str(e)


def _literal(kind, tok):
    cls = {"ID": A.Var, "INT": A.IntLit, "FLOAT": A.FloatLit, "STRING": A.StringLit,
           "CHAR": A.CharLit, "BOOL": A.BoolLit}[kind]
    return cls(tok.value, span=tok.span)


def p_atom_int(p):
    "atom : INT"
    p[0] = A.IntLit(p[1].value, span=p[1].span)


def p_atom_float(p):
    "atom : FLOAT"
    p[0] = A.FloatLit(p[1].value, span=p[1].span)


def p_atom_string(p):
    "atom : STRING"
    p[0] = A.StringLit(p[1].value, span=p[1].span)


def p_atom_char(p):
    "atom : CHAR"
    p[0] = A.CharLit(p[1].value, span=p[1].span)


def p_atom_bool(p):
    "atom : BOOL"
    p[0] = A.BoolLit(p[1].value, span=p[1].span)


def p_atom_paren(p):
    "atom : LPAREN exp RPAREN"
    e = p[2]
    # widen the span to include the parentheses (keeps error carets honest)
    p[0] = _with_span(e, span_of(p, 1))


def _with_span(e, span):
    import dataclasses
    return dataclasses.replace(e, span=span)


def p_atom_seq(p):
    "atom : LBRACKET seqelems RBRACKET"
    p[0] = A.SeqLit(tuple(p[2]), span=span_of(p, 1))


def p_seqelems(p):
    """seqelems : expnc
                | seqelems COMMA expnc"""
    p[0] = _append(p, 3)


def p_atom_empty_typed(p):
    "atom : LBRACKET RBRACKET typeatom"
    p[0] = A.EmptySeq(p[3], span=span_of(p, 1))


def p_atom_empty(p):
    "atom : LBRACKET RBRACKET %prec EMPTYSEQ"
    p[0] = A.EmptySeq(None, span=span_of(p, 1))


def p_atom_range(p):
    """atom : LBRACKET expnc COLON expnc RBRACKET
            | LBRACKET expnc COLON expnc COLON expnc RBRACKET"""
    stride = p[6] if len(p) == 8 else None
    p[0] = A.Range(p[2], p[4], stride, span=span_of(p, 1))


def p_atom_apply(p):
    """atom : LBRACE exp COLON gens filteropt RBRACE"""
    p[0] = A.ApplyToEach(p[2], tuple(p[4]), p[5], span=span_of(p, 1))


def p_atom_filter_form(p):
    """atom : LBRACE exp IN exp gentail filteropt RBRACE"""
    first = A.Generator(_pattern(p, p[2]), p[4], span=span_of(p, 2, 4))
    p[0] = A.ApplyToEach(None, (first,) + tuple(p[5]), p[6], span=span_of(p, 1))


def p_atom_filter_form_bare(p):
    """atom : LBRACE exp gentail filteropt RBRACE"""
    # ``{s; x in d | x > 0}``: a bare first variable means ``s in s`` (the result is s)
    if isinstance(p[2], A.Var):
        pat = _pattern(p, p[2])
    else:
        p.lexer.state.diags.error(p[2].span, "a generator without 'in' must be a variable name")
        pat = A.PVar("_", span=p[2].span)
    first = A.Generator(pat, None, span=p[2].span)
    p[0] = A.ApplyToEach(None, (first,) + tuple(p[3]), p[4], span=span_of(p, 1))


def p_gentail(p):
    """gentail : SEMI gens
               | empty"""
    p[0] = p[2] if len(p) == 3 else []


def p_gens(p):
    """gens : gen
            | gens SEMI gen"""
    p[0] = _append(p, 3)


def p_gen(p):
    """gen : exp IN exp
           | exp"""
    if len(p) == 4:
        p[0] = A.Generator(_pattern(p, p[1]), p[3], span=span_of(p, 1))
    else:
        if not isinstance(p[1], A.Var):
            p.lexer.state.diags.error(p[1].span, "a generator without 'in' must be a variable name")
        p[0] = A.Generator(_pattern(p, p[1]), None, span=p[1].span)


def p_filteropt(p):
    """filteropt : BAR exp
                 | empty"""
    p[0] = p[2] if len(p) == 3 else None


def p_atom_time(p):
    "atom : TIME LPAREN exp RPAREN"
    p[0] = A.Time(p[3], span=span_of(p, 1))


_TOKEN_TEXT = {
    "SEMI": "';'", "DOLLAR": "'$'", "COMMA": "','", "LPAREN": "'('", "RPAREN": "')'",
    "LBRACKET": "'['", "RBRACKET": "']'", "LBRACE": "'{'", "RBRACE": "'}'",
}


def p_error(t):
    """PLY's grammar needs an error function; each parse installs its own (``run_parser``:
    :func:`_syntax_error` with the parse's state)."""
    raise AssertionError("run_parser installs the error function of each parse")


def _syntax_error(state: _ParseState, t) -> None:
    """A syntax error at token ``t`` (None: the end of the input), reported to the parse's
    ``state``."""
    if t is None:
        span = state.last_span
        if span is not None:
            span = Span(span.file, span.end_line, span.end_col, span.end_line, span.end_col)
        state.diags.error(span, "syntax error: unexpected end of input (missing ';'?)")
        return
    v = t.value.value if isinstance(t.value, Tok) else t.value
    if t.type in ("STRING",):
        shown = f'"{v}"'
    elif t.type == "CHAR":
        shown = f"`{v}"
    elif t.type == "BACKOP":
        shown = f"`{v}`"
    elif t.type == "BOOL":
        shown = "t" if v else "f"
    elif t.type in ("INT", "FLOAT"):
        # a number is quoted as written (``1e3``, ``.5``, ``007``), not as its value
        shown = _number_text(t) or str(v)
    else:
        shown = str(v)
    hint = ""
    if t.type == "BOOL":
        hint = f": {BOOL_NAME_HINT[shown]}, so it cannot name a function or a variable"
    state.diags.error(t.value.span, f"syntax error at '{_one_line(shown)}'{hint}")


def _number_text(t) -> str | None:
    """The source text of number token ``t``, or None where it is unknown."""
    lexer = getattr(t, "lexer", None)
    span = t.value.span if isinstance(t.value, Tok) else None
    return _as_number(_span_text(getattr(lexer, "lexdata", None), getattr(lexer, "state", None),
                                 span))


def _as_number(text):
    """``text`` if it is written as a number literal, else None (a span that does not map onto
    the lexer's input is never quoted)."""
    return text if text and _NUMBER_TEXT.fullmatch(text) else None


_NUMBER_TEXT = re.compile(r"[0-9]*\.?[0-9]*([eE][-+]?[0-9]+)?")


def _span_text(data, lex_state, span) -> str | None:
    """The text of a one-line ``span`` of the lexer's input ``data`` (``lex_state`` holds its
    line starts), or None where it is unknown."""
    starts = getattr(lex_state, "line_starts", None)
    if (not isinstance(data, str) or starts is None or span is None
            or span.line != span.end_line or not 1 <= span.line <= len(starts)):
        return None
    start = starts[span.line - 1] + span.col - 1
    return data[start:start + span.end_col - span.col + 1] or None


#: the longest token text quoted whole in a syntax error
MAX_SHOWN_TOKEN = 60


def _one_line(shown: str) -> str:
    """The text of a token as a message quotes it: on one line (a string literal may span
    several: cut at its first line break) and not too long, ``...`` marking what is left out."""
    cut = shown.split("\n", 1)[0].rstrip("\r")
    if len(cut) > MAX_SHOWN_TOKEN:
        cut = cut[:MAX_SHOWN_TOKEN]
    return cut if cut == shown else cut + "..."


_PARSER = None


def _parser():
    global _PARSER
    if _PARSER is None:
        from nessie.syntax.tables import build_parser
        _PARSER = build_parser(sys.modules[__name__], "start")
    return _PARSER


class _TokenStream:
    """Feeds an optional marker token, then the lexer's tokens; remembers the last span."""

    def __init__(self, lexer, marker, state):
        self.lexer = lexer
        self.marker = marker
        self.state = state

    def token(self):
        if self.marker is not None:
            import ply.lex as lex
            t = lex.LexToken()
            t.type = self.marker
            t.value = Tok(None, None)
            t.lineno = 0
            t.lexpos = 0
            self.marker = None
            return t
        t = self.lexer.token()
        if t is not None and isinstance(t.value, Tok) and t.value.span is not None:
            self.state.last_span = t.value.span
        return t


def run_parser(text: str, filename: str, diags, marker=None):
    """Parse ``text``; returns the tuple of items (or the entry point's value for markers).

    Errors are added to ``diags``; the caller decides whether to raise."""
    from nessie.syntax.lexer import make_lexer
    # a copy of the shared parser (its tables are shared, read-only): PLY keeps the stacks of a
    # parse in the parser object, and the error function is this parse's
    parser = copy.copy(_parser())
    state = _ParseState(diags, filename)
    parser.errorfunc = functools.partial(_syntax_error, state)
    lexer = make_lexer(filename, text, diags)
    result = parser.parse(lexer=_TokenStream(lexer, marker, state))
    if marker is None:
        return tuple(state.items)
    return result
