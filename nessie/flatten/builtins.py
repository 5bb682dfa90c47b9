"""Host and lifted (segmented) forms of the NESL builtins for flattening.

Three kinds of builtin:

* **scalar** builtins (arithmetic, comparisons, conversions …): a host primitive when all
  arguments are uniform, else one ``MAP`` over the context;
* **native sequence** builtins with a host form (flat SOACs: ``REDUCE``, ``SCAN``, ``PERMUTE`` …)
  and a lifted form over segmented arrays (``SEG_REDUCE``, ``SEG_SCAN``, ``SEG_PERMUTE`` …);
* **derived** builtins, defined by a small typed-NESL expansion over the native ones (e.g.
  ``reverse(s) = {s[#s - 1 - i] : i in [0:#s]}``), which flattening then handles like user code —
  so their lifted forms come for free and stay work-efficient.

The others (output, files, printed forms of values, number parsing, ``hash``, ``rand``, ``error``
with a computed message …) are **host library calls**: an ``Extern`` per call site, served by
``nessie/hostlib`` (``rand``/``rand_seed`` by ``nessie/glibc_random.py``) — implementations of their
own, never the reference interpreter's.
"""
from __future__ import annotations

import math
from typing import Optional

from lambda_cu import ir
from lambda_cu.loc import Loc
from lambda_cu.types import BOOL, CHAR, FLOAT, INT, FloatT, VecT
from lambda_cu import errors as E
from nessie.types import typed_ast as T
from nessie.types import types as nt

from . import reps as R
from .builder import thunk
from .values import (L, U, VT, Ctx, compose, is_uniform, materialise, scalar_at, split_pair,
                     uniform_rep)

I = R.I
A, B_ = ir.Var("a"), ir.Var("b")

# ------------------------------------------------------------------------------ scalars
# name -> (arity, builder of the GPU/host expression from argument expressions)
_BIN = {"+": "add", "-": "sub", "*": "mul", "max": "max", "min": "min", "==": "eq", "/=": "ne",
        "<": "lt", ">": "gt", "<=": "le", ">=": "ge", "and": "and", "or": "or", "xor": "xor",
        "nor": "nor", "nand": "nand", "lshift": "lshift", "rshift": "rshift", "log": "log",
        "expt": "expt"}
_CHECKED_BIN = {"/": "div", "rem": "rem", "mod": "mod", "^": "pow"}
_UN = {"negate": "neg", "abs": "abs", "not": "not", "sqrt": "sqrt", "ln": "ln", "exp": "exp",
       "sin": "sin", "cos": "cos", "tan": "tan", "asin": "asin", "acos": "acos", "atan": "atan",
       "sinh": "sinh", "cosh": "cosh", "tanh": "tanh", "isqrt": "isqrt", "float": "to_float",
       "char_code": "char_code", "code_char": "code_char"}
_TO_INT = {"trunc", "round", "floor", "ceil", "btoi"}


def _scalar_expr(fl, name: str, args: list, loc, arg_type=None) -> Optional[ir.Exp]:
    it = fl.tm.int_type
    first = arg_type.fst if isinstance(arg_type, nt.TPair) else arg_type
    isf = first is not None and fl.tm.is_base(first) and fl.tm.base(first) == FLOAT
    zero = lambda e: ir.Const(0.0, FLOAT) if isf else ir.Const(0, it)
    if name in _BIN:
        return R.p(_BIN[name], *args)
    if name in _CHECKED_BIN:
        return R.p(_CHECKED_BIN[name], *args, loc=loc)
    if name == "isqrt":
        return R.p("isqrt", *args, loc=loc)
    if name in _UN:
        return R.p(_UN[name], *args)
    if name in _TO_INT:
        return R.p(name, *args, ty=it)
    if name == "diff":
        return R.p("abs", R.p("sub", *args))
    if name == "plusp":
        return R.p("gt", args[0], zero(args[0]))
    if name == "minusp":
        return R.p("lt", args[0], zero(args[0]))
    if name == "zerop":
        return R.p("eq", args[0], zero(args[0]))
    if name == "oddp":
        return R.p("ne", R.p("rem", args[0], ir.Const(2, it)), ir.Const(0, it))
    if name == "evenp":
        return R.p("eq", R.p("rem", args[0], ir.Const(2, it)), ir.Const(0, it))
    if name in ("lowercase", "uppercase"):
        lo, hi, d = ("A", "Z", 32) if name == "lowercase" else ("a", "z", -32)
        c = args[0]
        inr = R.p("and", R.p("ge", c, ir.Const(lo, CHAR)), R.p("le", c, ir.Const(hi, CHAR)))
        moved = R.p("code_char", R.p("add", R.p("char_code", c, ty=INT), ir.Const(d, INT)))
        return ir.If(inr, moved, c)
    if name == "select":
        return ir.If(args[0], args[1], args[2])
    if name in ("identity", "make_segdes"):
        return args[0]
    return None


_SCALAR_NAMES = (set(_BIN) | set(_CHECKED_BIN) | set(_UN) | _TO_INT |
                 {"diff", "plusp", "minusp", "zerop", "oddp", "evenp", "lowercase", "uppercase",
                  "select", "identity", "make_segdes"})


def scalar_gpu(fl, e, vars_: dict, env: dict) -> Optional[ir.Exp]:
    """Compile a scalar NESL expression over the variables ``vars_`` (name -> GPU expression)
    and uniform host scalars into one GPU expression, or None when it is not that simple."""
    if isinstance(e, T.Lit):
        t = fl.tm.base(e.type)
        return ir.Const(e.value, t)
    if isinstance(e, T.ConstRef):
        return constant(fl, e).rep.e
    if isinstance(e, T.Var):
        if e.name in vars_:
            return vars_[e.name]
        v = env.get(e.name)
        if isinstance(v, U) and isinstance(v.rep, R.Scalar):
            return v.rep.e
        return None
    if isinstance(e, T.Call) and e.kind == T.BUILTIN and e.name in _SCALAR_NAMES:
        parts = []
        a = e.arg
        for _ in range(_arity(e.fun_type, e.name) - 1):
            if not isinstance(a, T.Pair):
                return None
            parts.append(a.fst)
            a = a.snd
        parts.append(a)
        args = [scalar_gpu(fl, x, vars_, env) for x in parts]
        if any(x is None for x in args):
            return None
        return _scalar_expr(fl, e.name, args, _loc(e), e.fun_type.arg)
    if isinstance(e, T.If) and fl.tm.is_base(e.type):
        parts = [scalar_gpu(fl, x, vars_, env) for x in (e.cond, e.then, e.else_)]
        return None if any(x is None for x in parts) else ir.If(*parts)
    return None


def constant(fl, e: T.ConstRef):
    it = fl.tm.int_type
    if e.name in _LIBRARY_CONSTANTS:
        return _library_constant(fl, e.name)
    bits = it.width
    vals = {"pi": (math.pi, FLOAT), "max_int": (2 ** (bits - 1) - 1, it),
            "min_int": (-(2 ** (bits - 1)), it), "space": (" ", CHAR), "newline": ("\n", CHAR),
            "tab": ("\t", CHAR)}
    v, t = vals[e.name]
    return U(R.Scalar(ir.Const(v, t), t))


#: the original library's variables: strings (``nesl_path``, ``user``) and streams (a
#: ``stream`` is represented by its int); their values are the reference interpreter's
_LIBRARY_CONSTANTS = {"nesl_path", "user", "stdin", "stdout", "stderr", "nullstr"}


def _library_constant(fl, name: str):
    from nessie.interp.builtins import CONSTANTS
    value = CONSTANTS[name](None)
    if hasattr(value, "fields"):                 # stream(n)
        it = fl.tm.int_type
        return U(R.Scalar(ir.Const(value.fields[0], it), it))
    elems = tuple(ir.Const(ch, CHAR) for ch in value.items)
    v = fl.b.bind(ir.VecLit(elems, CHAR), VecT(CHAR), "str")
    return U(R.Vec(v, CHAR))


def _components(v, n: int) -> list:
    """Split a right-nested tuple value into ``n`` components."""
    out = []
    for _ in range(n - 1):
        a, v = split_pair(v)
        out.append(a)
    out.append(v)
    return out


def _arity(fun_type, name: Optional[str] = None) -> int:
    """Number of arguments of a builtin: counted on its declared scheme (``eql : a, a -> bool``
    has two even when ``a`` is a pair), else on the instance type."""
    t = fun_type.arg
    if name is not None:
        from nessie.types.builtins import BUILTIN_SCHEMES
        sch = BUILTIN_SCHEMES.get(name)
        if sch is not None:
            t = sch.type.arg
    k = 1
    while isinstance(t, nt.TPair):
        k += 1
        t = t.snd
    return k


def scalar_apply(fl, e: T.Call, args: list, ctx: Optional[Ctx]):
    """Apply a scalar builtin (host primitive or one MAP)."""
    b = fl.b
    loc = _loc(e)
    rt = fl.tm.base(e.type)
    if ctx is None or all(is_uniform(a) for a in args):
        ex = _scalar_expr(fl, e.name, [uniform_rep(a).e for a in args], loc, e.fun_type.arg)
        return U(R.Scalar(b.bind(ex, rt, "t"), rt))
    ex = _scalar_expr(fl, e.name, [scalar_at(a, I) for a in args], loc, e.fun_type.arg)
    return L(R.Vec(R.map_vec(b, ex, ctx.n, rt, "t"), rt), None)


def _loc(e) -> Optional[Loc]:
    return getattr(e, "span", None)


# ------------------------------------------------------------------------------ monoids
def _monoid(fl, name: str, ty):
    """(lambda-cu elem type, identity const, op builder) of a reduction/scan."""
    it = fl.tm.int_type
    bt = fl.tm.base(ty)
    isf = isinstance(bt, FloatT)
    if name in ("sum", "plus_scan", "count"):
        return bt, ir.Const(0.0 if isf else 0, bt), "add"
    if name in ("product", "mult_scan"):
        return bt, ir.Const(1.0 if isf else 1, bt), "mul"
    if name in ("max_val", "max_scan"):
        if isf:
            ident = -math.inf
        elif bt == CHAR:
            ident = chr(0)
        else:
            ident = -(2 ** (it.width - 1))
        return bt, ir.Const(ident, bt), "max"
    if name in ("min_val", "min_scan"):
        if isf:
            ident = math.inf
        elif bt == CHAR:
            ident = chr(255)
        else:
            ident = 2 ** (it.width - 1) - 1
        return bt, ir.Const(ident, bt), "min"
    if name in ("any", "or_scan"):
        return bt, ir.Const(False if bt == BOOL else 0, bt), "or"
    if name in ("all", "and_scan"):
        return bt, ir.Const(True if bt == BOOL else -1, bt), "and"
    if name in ("parity", "xor_scan"):
        return bt, ir.Const(False if bt == BOOL else 0, bt), "xor"
    raise KeyError(name)


_REDUCTIONS = {"sum", "product", "max_val", "min_val", "any", "all", "parity"}
_SCANS = {"plus_scan", "mult_scan", "max_scan", "min_scan", "or_scan", "and_scan", "xor_scan"}


def _reduce(fl, e, sv, ctx, scan: bool):
    b = fl.b
    elem = e.fun_type.arg.elem
    bt, ident, op = _monoid(fl, e.name, elem)
    opt = thunk([("a", bt), ("b", bt)], R.p(op, A, B_))
    if ctx is None or is_uniform(sv):
        rep = uniform_rep(sv)
        n = R.length(b, rep)
        f = thunk([("i", INT)], R.idx(rep.e, I))
        if scan:
            r = b.soac(ir.Scan(f, (ident,), opt, n), [VecT(bt)], "scan")[0]
            res = U(R.Vec(r, bt))
        else:
            r = b.soac(ir.Reduce(f, (ident,), opt, n), [bt], "red")[0]
            res = U(R.Scalar(r, bt))
        return res
    seg = materialise(b, sv, ctx, fl.tm, e.fun_type.arg)
    f = thunk([("i", INT)], R.idx(seg.data.e, I))
    if scan:
        r = b.soac(ir.SegScan(f, (ident,), opt, seg.sd), [VecT(bt)], "sscan")[0]
        return L(R.Seg(seg.sd, R.Vec(r, bt)), None)
    r = b.soac(ir.SegReduce(f, (ident,), opt, seg.sd), [VecT(bt)], "sred")[0]
    return L(R.Vec(r, bt), None)


def _extreme_index(fl, e, sv, ctx, want_max: bool):
    """Index of the leftmost maximum / minimum (-1 for an empty sequence)."""
    b = fl.b
    bt = fl.tm.base(e.fun_type.arg.elem)
    x1, i1, x2, i2 = (ir.Var(n) for n in ("x1", "i1", "x2", "i2"))
    better = R.p("gt" if want_max else "lt", x2, x1)
    take2 = R.p("or", R.p("lt", i1, R.c_int(0)),
                R.p("and", R.p("ge", i2, R.c_int(0)), better))
    op = thunk([("x1", bt), ("i1", INT), ("x2", bt), ("i2", INT)],
               ir.If(take2, ir.Tuple((x2, i2)), ir.Tuple((x1, i1))))
    _, ident, _ = _monoid(fl, "max_val" if want_max else "min_val", e.fun_type.arg.elem)

    def key(x: ir.Exp, local: ir.Exp) -> ir.Exp:
        """The value an element competes with.  The reference folds from the left (a later
        element wins only when it is better than the best so far), so a NaN first element wins
        and a later NaN never does; the operator is associative (a tree reduction gives the
        same index) when a later NaN competes as -inf for max_index (+inf for min_index): it
        then loses to every earlier element."""
        if bt != FLOAT:
            return x
        worst = ir.Const(float("-inf") if want_max else float("inf"), FLOAT)
        return ir.If(R.p("and", R.p("ne", x, x), R.p("ne", local, R.c_int(0))), worst, x)
    if ctx is None or is_uniform(sv):
        rep = uniform_rep(sv)
        f = thunk([("i", INT)], ir.Tuple((key(R.idx(rep.e, I), I), I)))
        _, r = b.soac(ir.Reduce(f, (ident, R.c_int(-1)), op, R.length(b, rep)), [bt, INT], "ext")
        return U(R.Scalar(r, INT))
    seg = materialise(b, sv, ctx, fl.tm, e.fun_type.arg)
    local = R.p("sub", I, R.idx(R.offs_of(seg.sd), R.idx(R.ids_of(seg.sd), I)))
    f = thunk([("i", INT)], ir.Tuple((key(R.idx(seg.data.e, I), local), local)))
    _, r = b.soac(ir.SegReduce(f, (ident, R.c_int(-1)), op, seg.sd), [VecT(bt), VecT(INT)], "ext")
    return L(R.Vec(r, INT), None)


# ------------------------------------------------------------------------------ natives
def _fail_int(vec: ir.Exp, loc, elem=INT) -> ir.Exp:
    """An int-typed GPU expression that always fails with "Sequence reference out of bounds"
    at ``loc`` (it subscripts ``vec``, a vector of ``elem``, at -1)."""
    x = R.idx(vec, ir.Const(-1, INT), loc)
    if elem == INT:
        return x
    conv = {FLOAT: "trunc", CHAR: "char_code", BOOL: "btoi"}.get(elem, "to_int")
    return R.p(conv, x, ty=INT)


def elt(fl, e, sv, iv, ctx):
    b = fl.b
    loc = _loc(e)
    if ctx is None or (is_uniform(sv) and is_uniform(iv)):
        rep = uniform_rep(sv)
        i = uniform_rep(iv).e
        return U(_host_elt(fl, rep, i, loc))
    if is_uniform(sv):
        rep = uniform_rep(sv)
        n = R.length(b, rep)
        return _lifted_select(fl, rep, lambda k: scalar_at(iv, k), None, ctx, loc, n_host=n)
    # sequence varies per instance: instance k reads element i_k of its own segment
    seg = sv.rep
    inst = (lambda k: k) if sv.map is None else (lambda k: R.idx(sv.map, k))
    return _lifted_select(fl, seg.data, lambda k: scalar_at(iv, k), (seg.sd, inst), ctx, loc)


def _lifted_select(fl, rep, ifn, segd, ctx, loc, n_host=None):
    """Instance k gets element ``i_k`` of ``rep`` (when ``segd`` is None) or of segment
    ``inst(k)`` of descriptor ``sd`` (``segd = (sd, inst)``); bounds-checked at ``loc``."""
    b = fl.b
    i = ifn(I)
    if segd is None:
        if isinstance(rep, R.Vec):      # the common gather v[i]: the subscript checks itself
            return L(R.Vec(R.map_vec(b, R.idx(rep.e, i, loc), ctx.n, rep.elem, "elt"),
                           rep.elem), None)
        ln = b.bind(n_host, INT, "n")
        base = i
        probe, pelem = _probe_vec(b, rep)
    else:
        sd, inst = segd
        ln = R.idx(R.lens_of(sd), inst(I))
        base = R.p("add", R.idx(R.offs_of(sd), inst(I)), i)
        probe, pelem = b.bind(R.lens_of(sd), VecT(INT), "lens"), INT
    ok = R.p("and", R.p("ge", i, R.c_int(0)), R.p("lt", i, ln))
    pos = R.map_vec(b, ir.If(ok, base, _fail_int(probe, loc, pelem)), ctx.n, INT, "pos")
    if isinstance(rep, R.Vec):
        return L(R.Vec(R.map_vec(b, R.idx(rep.e, R.idx(pos, I)), ctx.n, rep.elem, "elt"),
                       rep.elem), None)
    return L(rep, pos)


def _probe_vec(b, rep):
    """Some vector variable of a representation (only subscripted out of range, to fail)."""
    while isinstance(rep, R.Tup):
        rep = rep.items[0]
    if isinstance(rep, R.Vec):
        return rep.e, rep.elem
    return b.bind(R.lens_of(rep.sd), VecT(INT), "lens"), INT


def _host_elt(fl, rep, i, loc):
    """Element ``i`` of a host sequence (bounds-checked)."""
    b = fl.b
    if isinstance(rep, R.Vec):
        r = b.soac(ir.Once(thunk([], R.idx(rep.e, i, loc))), [rep.elem], "x")[0]
        return R.Scalar(r, rep.elem)
    if isinstance(rep, R.Tup):
        return R.Tup(tuple(_host_elt(fl, it, i, loc) for it in rep.items))
    off, ln = b.soac(ir.Once(thunk([], ir.Tuple((R.idx(R.offs_of(rep.sd), i, loc),
                                                  R.idx(R.lens_of(rep.sd), i, loc))))),
                     [INT, INT], "x")
    ix = R.map_vec(b, R.p("add", off, I), ln, INT, "ix")
    return R.gather(b, rep.data, ix, ln)


def length(fl, e, sv, ctx):
    b = fl.b
    if ctx is None or is_uniform(sv):
        return U(R.Scalar(b.bind(R.length(b, uniform_rep(sv)), INT, "len"), INT))
    seg = sv.rep
    if isinstance(seg, R.Tup):
        seg = _first_seg(seg)
    lens = b.bind(R.lens_of(seg.sd), VecT(INT), "lens")
    return L(R.Vec(lens, INT), sv.map)


def _first_seg(r):
    while isinstance(r, R.Tup):
        r = r.items[0]
    return r


def dist(fl, e, av, nv, ctx):
    b = fl.b
    elem = e.type.elem
    if ctx is None or (is_uniform(av) and is_uniform(nv)):
        n = b.bind(R.p("max", uniform_rep(nv).e, R.c_int(0)), INT, "n")
        _length_check(fl, n, ctx, _loc(e))
        return U(R.replicate(b, uniform_rep(av), n, fl.tm, elem))
    lens = R.map_vec(b, R.p("max", scalar_at(nv, I), R.c_int(0)), ctx.n, INT, "dlen")
    _length_check(fl, lens, ctx, _loc(e), lifted=True)
    sd = R.make_sd(b, lens)
    total = b.bind(ir.Length(R.ids_of(sd)), INT, "tot")
    segids = R.ids_of(sd)
    data = _at_instances(fl, av, segids, total, ctx, elem)
    return L(R.Seg(sd, data), None)


_MAX_LEN = E.MAX_SEQ_LENGTH
_MSG_TOO_LONG = E.MSG_TOO_LONG


def _length_check(fl, n: ir.Exp, ctx, loc, lifted: bool = False):
    """The interpreter's limit on the length of a sequence built from a count (``dist``,
    ranges; see ``lambda_cu.errors.MAX_SEQ_LENGTH``), checked on the host before anything of
    that size is allocated: ``n`` is the length (a host int, the same for every instance of
    ``ctx`` if any) or, when ``lifted``, the vector of the instances' lengths.  Constant lengths
    within the limit need no check."""
    if not lifted:
        if isinstance(n, ir.Const) and n.value <= _MAX_LEN:
            return
        ok = R.p("le", n, R.c_int(_MAX_LEN))
    else:
        ok = R.p("le", R.idx(n, I), R.c_int(_MAX_LEN))
    _emit_check(fl, ok, lifted, ctx, loc, _MSG_TOO_LONG)


def _emit_check(fl, ok: ir.Exp, lifted: bool, ctx, loc, msg):
    """``check(ok)`` on the host, failing with ``msg`` at ``loc``.  ``ok`` is a host condition
    or, when ``lifted``, a GPU condition over the instances ``i`` of ``ctx`` (all must hold).
    In a context the check passes when the context is empty (``check(n == 0 || ok)``): the
    source evaluates nothing there, and the flattener then needs no ``n > 0`` guard (see
    ``Flattener._safe_on_empty``)."""
    b = fl.b
    if lifted:
        ok = b.soac(ir.Reduce(thunk([("i", INT)], ok), (ir.Const(True, BOOL),),
                              thunk([("a", BOOL), ("b", BOOL)], R.p("and", A, B_)), ctx.n),
                    [BOOL], "ok")[0]
    if ctx is not None:
        ok = R.p("or", R.p("eq", ctx.n, R.c_int(0)), ok)
    b.effect(ir.Check(ok, loc, msg))


def _at_instances(fl, v, ix, n, ctx, ty):
    """Contiguous representation of ``v``'s instance ``ix[k]`` values, ``k < n``."""
    b = fl.b
    if is_uniform(v):
        return R.replicate(b, uniform_rep(v), n, fl.tm, ty)
    if isinstance(v, VT):
        t = fl.tm.unfold(ty)
        return R.Tup((_at_instances(fl, v.fst, ix, n, ctx, t.fst),
                      _at_instances(fl, v.snd, ix, n, ctx, t.snd)))
    return R.gather(b, v.rep, compose(b, v.map, ix, n), n)


def range_(fl, sv, ev, stv, ctx, loc):
    b = fl.b

    from lambda_cu.types import INT64

    def count(s, e, st):
        # max(0, ceil((e - s) / st)) for st > 0, and the mirror for st < 0 — in 64-bit
        # arithmetic, so that e - s cannot wrap (the elements themselves wrap as NESL ints)
        dloc = None if isinstance(st, ir.Const) and st.value != 0 else loc   # a zero stride fails
        # (constants folded: the usual range, a constant start and stride, is e - s, with
        # nothing that can fail)
        s0 = s.value if isinstance(s, ir.Const) else None
        k = st.value if isinstance(st, ir.Const) else None
        s, e, st = (R.p("to_int", x, ty=INT64) for x in (s, e, st))
        num = e if s0 == 0 else R.p("sub", e, s)
        if k == 1:
            n64 = R.p("max", ir.Const(0, INT64), num)
        elif k is not None and k != 0:
            bump = ir.Const(k - 1 if k > 0 else k + 1, INT64)
            n64 = R.p("max", ir.Const(0, INT64), R.p("div", R.p("add", num, bump), st, loc=dloc))
        else:
            one = ir.Const(1, INT64)
            pos = R.p("div", R.p("add", num, R.p("sub", st, one)), st, loc=dloc)
            neg = R.p("div", R.p("add", num, R.p("add", st, one)), st, loc=dloc)
            n64 = R.p("max", ir.Const(0, INT64), ir.If(R.p("gt", st, ir.Const(0, INT64)), pos, neg))
        # (a count past the length limit is clamped to limit + 1 so that it cannot wrap
        # into range when narrowed; the length check below reports it)
        return R.p("to_int", R.p("min", n64, ir.Const(_MAX_LEN + 1, INT64)), ty=INT)

    if ctx is None or all(is_uniform(v) for v in (sv, ev, stv)):
        s, e, st = (uniform_rep(v).e for v in (sv, ev, stv))
        n = b.bind(count(s, e, st), INT, "rlen")
        _length_check(fl, n, ctx, loc)
        data = R.map_vec(b, R.p("add", s, R.p("mul", I, st)), n, INT, "rng")
        return U(R.Vec(data, INT))
    lens = R.map_vec(b, count(scalar_at(sv, I), scalar_at(ev, I), scalar_at(stv, I)), ctx.n,
                     INT, "rlen")
    _length_check(fl, lens, ctx, loc, lifted=True)
    sd = R.make_sd(b, lens)
    total = b.bind(ir.Length(R.ids_of(sd)), INT, "tot")
    k = R.idx(R.ids_of(sd), I)
    pos = R.p("sub", I, R.idx(R.offs_of(sd), k))
    data = R.map_vec(b, R.p("add", scalar_at(sv, k), R.p("mul", pos, scalar_at(stv, k))), total, INT, "rng")
    return L(R.Seg(sd, R.Vec(data, INT)), None)


def append(fl, e, av, bv, ctx):
    return append_all(fl, [av, bv], ctx)


def append_all(fl, vals: list, ctx):
    """``vals[0] ++ vals[1] ++ ...`` (a chain of appends, ``translate.tr_Call``) in one pass
    over the result: instance ``k``'s element at ``pos`` comes from the first operand whose
    running length passes ``pos``.  The operands are read where they are (``_append_operand``)."""
    b = fl.b
    if ctx is None or all(is_uniform(v) for v in vals):
        return U(R.concat(b, [uniform_rep(v) for v in vals]))
    ops = [_append_operand(fl, v) for v in vals]
    total_len = ops[0][0](I)
    for ln, _, _ in ops[1:]:
        total_len = R.p("add", total_len, ln(I))
    lens = R.map_vec(b, total_len, ctx.n, INT, "alen")
    sd = R.make_sd(b, lens)
    total = b.bind(ir.Length(R.ids_of(sd)), INT, "tot")
    k = R.idx(R.ids_of(sd), I)
    pos = R.p("sub", I, R.idx(R.offs_of(sd), k))
    starts = [R.c_int(0)]                       # where each operand starts in instance k's result
    for ln, _, _ in ops[:-1]:
        starts.append(ln(k) if len(starts) == 1 else R.p("add", starts[-1], ln(k)))
    w = R.c_int(len(ops) - 1)
    for j in range(len(ops) - 2, -1, -1):
        w = ir.If(R.p("lt", pos, starts[j + 1]), R.c_int(j), w)
    which = R.map_vec(b, w, total, INT, "aw")
    wk = R.idx(which, I)
    srcs = [R.p("add", off(k), pos if j == 0 else R.p("sub", pos, starts[j]))
            for j, (_, off, _) in enumerate(ops)]
    src = R.map_vec(b, R._select_chain(wk, srcs), total, INT, "as")
    return L(R.Seg(sd, R.combine(b, which, src, total, [d for _, _, d in ops])), None)


def _append_operand(fl, v):
    """An operand of a lifted ``++`` as ``(length(k), offset(k), data)``: instance ``k``'s
    sequence is ``data[offset(k) : offset(k) + length(k)]`` (GPU expressions of ``k``).  It is
    read where it is, never copied first: a uniform sequence is the same elements for every
    instance (offset 0), and a lifted one read through an index map (an element of a nested
    sequence, ``s[i]``; a value entering a branch or an inner apply-to-each) is segment
    ``map[k]`` of its descriptor."""
    b = fl.b
    if is_uniform(v):
        rep = uniform_rep(v)
        n = R.length_var(b, rep)
        return (lambda k: n), (lambda k: R.c_int(0)), rep
    r = v.rep
    sd = _seg_sd(r)
    inst = (lambda k: k) if v.map is None else (lambda k: R.idx(v.map, k))
    return ((lambda k: R.idx(R.lens_of(sd), inst(k))),
            (lambda k: R.idx(R.offs_of(sd), inst(k))), _seg_data(r))


def _seg_sd(r):
    """Descriptor of a representation of a sequence of sequences (tuples share it)."""
    if isinstance(r, R.Seg):
        return r.sd
    return _seg_sd(r.items[0])


def _seg_data(r):
    if isinstance(r, R.Seg):
        return r.data
    return R.Tup(tuple(_seg_data(x) for x in r.items))


def _as_seg(r):
    """View a representation of ``[[t]]`` (tuples of segmented arrays share descriptors) as
    ``Seg(sd, data)``."""
    return R.Seg(_seg_sd(r), _seg_data(r))


def flatten(fl, e, sv, ctx):
    b = fl.b
    if ctx is None or is_uniform(sv):
        return U(_as_seg(uniform_rep(sv)).data)
    outer = _as_seg(materialise(b, sv, ctx, fl.tm, e.fun_type.arg))
    inner = _as_seg(outer.data)
    add = thunk([("a", INT), ("b", INT)], R.p("add", A, B_))
    lens = b.soac(ir.SegReduce(thunk([("i", INT)], R.idx(R.lens_of(inner.sd), I)), (R.c_int(0),),
                               add, outer.sd), [VecT(INT)], "flen")[0]
    return L(R.Seg(R.make_sd(b, lens), inner.data), None)


def partition(fl, e, sv, cv, ctx):
    """``partition(s, counts)``: the counts are validated first (none negative, their sum —
    computed in 64 bits — equal to the length), so a bad count is NESL's partition error."""
    from lambda_cu.types import INT64
    b = fl.b
    loc = _loc(e)
    msg = _MSG_PARTITION
    x1, m1, x2, m2 = (ir.Var(n) for n in ("x1", "m1", "x2", "m2"))
    op = thunk([("x1", INT64), ("m1", INT), ("x2", INT64), ("m2", INT)],
               ir.Tuple((R.p("add", x1, x2), R.p("min", m1, m2))))
    init = (ir.Const(0, INT64), R.c_int(2 ** 31 - 1))

    def pull(cvec):
        return thunk([("i", INT)], ir.Tuple((R.p("to_int", R.idx(cvec, I), ty=INT64),
                                            R.idx(cvec, I))))

    if ctx is None or (is_uniform(sv) and is_uniform(cv)):
        rep = uniform_rep(sv)
        counts = uniform_rep(cv).e
        tot, mn = b.soac(ir.Reduce(pull(counts), init, op, ir.Length(counts)), [INT64, INT], "pc")
        good = R.p("and", R.p("eq", tot, R.p("to_int", R.length(b, rep), ty=INT64)),
                   R.p("ge", mn, R.c_int(0)))
        b.effect(ir.Check(b.bind(good, BOOL, "pok"), loc, msg))
        return U(R.Seg(R.make_sd(b, counts), rep))
    ts = e.fun_type.arg.fst
    rs = _as_seg(materialise(b, sv, ctx, fl.tm, ts))
    rc = _as_seg(materialise(b, cv, ctx, fl.tm, e.fun_type.arg.snd))
    tots, mns = b.soac(ir.SegReduce(pull(rc.data.e), init, op, rc.sd),
                       [VecT(INT64), VecT(INT)], "pc")
    good = R.map_vec(b, R.p("and", R.p("eq", R.idx(tots, I),
                                       R.p("to_int", R.idx(R.lens_of(rs.sd), I), ty=INT64)),
                            R.p("ge", R.idx(mns, I), R.c_int(0))), ctx.n, BOOL, "pok")
    ok = b.soac(ir.Reduce(thunk([("i", INT)], R.idx(good, I)), (ir.Const(True, BOOL),),
                          thunk([("a", BOOL), ("b", BOOL)], R.p("and", A, B_)), ctx.n),
                [BOOL], "ok")[0]
    b.effect(ir.Check(ok, loc, msg))
    inner_sd = R.make_sd(b, rc.data.e)
    return L(R.Seg(rc.sd, R.Seg(inner_sd, rs.data)), None)


def zip_(fl, e, vals, ctx):
    """zip / zip3: sequences of tuples are tuples of sequences (after a length check)."""
    b = fl.b
    loc = _loc(e)
    msg = _MSG_ZIP
    if ctx is None or all(is_uniform(v) for v in vals):
        reps = [uniform_rep(v) for v in vals]
        n = R.length(b, reps[0])
        for r in reps[1:]:
            b.effect(ir.Check(R.p("eq", n, R.length(b, r)), loc, msg))
        out = reps[-1]
        for r in reversed(reps[:-1]):
            out = R.Tup((r, out))
        return U(out)
    comps_t = _components_t(e.fun_type.arg, len(vals))
    segs = [_as_seg(materialise(b, v, ctx, fl.tm, ty)) for v, ty in zip(vals, comps_t)]
    for s_ in segs[1:]:
        _check_same_lengths(b, segs[0].sd, s_.sd, ctx, loc, msg)
    out = segs[-1].data
    for s in reversed(segs[:-1]):
        out = R.Tup((s.data, out))
    return L(R.Seg(segs[0].sd, out), None)


def unzip(fl, e, sv, ctx):
    if ctx is None or is_uniform(sv):
        a, b_ = uniform_rep(sv).items
        return U(R.Tup((a, b_)))
    seg = _as_seg(materialise(fl.b, sv, ctx, fl.tm, e.fun_type.arg))
    a, b_ = seg.data.items
    return VT(L(R.Seg(seg.sd, a), None), L(R.Seg(seg.sd, b_), None))


def permute(fl, e, sv, iv, ctx):
    """``permute(s, idx)``: ``result[idx[k]] = s[k]`` — computed as the inverse permutation
    (one PERMUTE of indices, checked) followed by a gather, so any element type works."""
    b = fl.b
    loc = _loc(e)
    if ctx is None or (is_uniform(sv) and is_uniform(iv)):
        rep = uniform_rep(sv)
        ix = uniform_rep(iv).e
        n = R.length_var(b, rep)
        b.effect(ir.Check(R.p("eq", n, ir.Length(ix)), loc, _MSG_PERMUTE))
        inv = b.soac(ir.Permute(thunk([("i", INT)], I), thunk([("i", INT)], R.idx(ix, I)), n, loc),
                     [VecT(INT)], "inv")[0]
        return U(R.gather(b, rep, inv, n))
    rs = _as_seg(materialise(b, sv, ctx, fl.tm, e.fun_type.arg.fst))
    ri = _as_seg(materialise(b, iv, ctx, fl.tm, e.fun_type.arg.snd))
    _check_same_lengths(b, rs.sd, ri.sd, ctx, loc, _MSG_PERMUTE)
    total = b.bind(ir.Length(R.ids_of(rs.sd)), INT, "tot")
    inv = b.soac(ir.SegPermute(thunk([("i", INT)], I), thunk([("i", INT)], R.idx(ri.data.e, I)),
                               rs.sd, loc), [VecT(INT)], "inv")[0]
    return L(R.Seg(rs.sd, R.gather(b, rs.data, inv, total)), None)


_MSG_PERMUTE = E.MSG_PERMUTE
_MSG_ZIP = E.MSG_LENGTH
_MSG_PARTITION = E.MSG_PARTITION


def _check_same_lengths(b, sd1, sd2, ctx, loc, msg):
    """Host check that every instance's two sequences have the same length."""
    good = R.map_vec(b, R.p("eq", R.idx(R.lens_of(sd1), I), R.idx(R.lens_of(sd2), I)),
                     ctx.n, BOOL, "same")
    ok = b.soac(ir.Reduce(thunk([("i", INT)], R.idx(good, I)), (ir.Const(True, BOOL),),
                          thunk([("a", BOOL), ("b", BOOL)], R.p("and", A, B_)), ctx.n),
                [BOOL], "ok")[0]
    b.effect(ir.Check(ok, loc, msg))


def rank(fl, e, sv, ctx, descending=False, then_permute=False):
    b = fl.b
    if ctx is None or is_uniform(sv):
        rep = uniform_rep(sv)
        n = R.length_var(b, rep)
        rk = b.soac(ir.Rank(thunk([("i", INT)], R.idx(rep.e, I)), n, descending), [VecT(INT)],
                    "rank")[0]
        if not then_permute:
            return U(R.Vec(rk, INT))
        inv = b.soac(ir.Permute(thunk([("i", INT)], I), thunk([("i", INT)], R.idx(rk, I)), n),
                     [VecT(INT)], "inv")[0]
        return U(R.gather(b, rep, inv, n))
    seg = _as_seg(materialise(b, sv, ctx, fl.tm, e.fun_type.arg))
    rk = b.soac(ir.SegRank(thunk([("i", INT)], R.idx(seg.data.e, I)), seg.sd, descending),
                [VecT(INT)], "rank")[0]
    if not then_permute:
        return L(R.Seg(seg.sd, R.Vec(rk, INT)), None)
    total = b.bind(ir.Length(R.ids_of(seg.sd)), INT, "tot")
    inv = b.soac(ir.SegPermute(thunk([("i", INT)], I), thunk([("i", INT)], R.idx(rk, I)), seg.sd),
                 [VecT(INT)], "inv")[0]
    return L(R.Seg(seg.sd, R.gather(b, seg.data, inv, total)), None)


def write(fl, e, dv, pv, ctx):
    """``d <- [(i, v), ...]``: a copy of ``d`` with ``v`` written at ``i`` (the last pair wins on
    repeated indices; an index outside ``d`` is out of bounds).  Elements of base type and
    tuples of them are one SCATTER (several destination vectors); elements holding sequences
    are a segmented scatter: a SCATTER of the writing pair's index into a vector of -1 (the
    winner of each position of ``d``), then every position takes its element, with all the
    segments below it, from ``d`` or from the values (``combine``)."""
    b = fl.b
    loc = _loc(e)
    if ctx is None or (is_uniform(dv) and is_uniform(pv)):
        d = uniform_rep(dv)
        ix, vals = uniform_rep(pv).items
        n = R.length(b, ix)
        return U(_scatter_into(b, d, vals, thunk([("i", INT)], R.idx(ix.e, I)), n, loc))
    ds = _as_seg(materialise(b, dv, ctx, fl.tm, e.fun_type.arg.fst))
    ps = _as_seg(materialise(b, pv, ctx, fl.tm, e.fun_type.arg.snd))
    ix, vals = ps.data.items
    n = b.bind(ir.Length(R.ids_of(ps.sd)), INT, "tot")
    k = R.idx(R.ids_of(ps.sd), I)
    i = R.idx(ix.e, I)
    ok = R.p("and", R.p("ge", i, R.c_int(0)), R.p("lt", i, R.idx(R.lens_of(ds.sd), k)))
    probe = b.bind(R.lens_of(ds.sd), VecT(INT), "lens")
    gi = ir.If(ok, R.p("add", R.idx(R.offs_of(ds.sd), k), i), _fail_int(probe, loc))
    return L(R.Seg(ds.sd, _scatter_into(b, ds.data, vals, thunk([("i", INT)], gi), n, loc)), None)


def _flat_rep(r) -> bool:
    """A sequence representation of base elements or (nested) tuples of them: vectors only."""
    return isinstance(r, R.Vec) or (isinstance(r, R.Tup) and all(_flat_rep(x) for x in r.items))


def _vecs(r) -> list:
    return [r] if isinstance(r, R.Vec) else [v for x in r.items for v in _vecs(x)]


def _rebuild(r, vecs: list):
    """The representation shaped like the flat ``r`` over the vectors ``vecs`` (in order)."""
    if isinstance(r, R.Vec):
        return vecs.pop(0)
    return R.Tup(tuple(_rebuild(x, vecs) for x in r.items))


def _scatter_into(b, d, vals, target: ir.Thunk, n, loc):
    """``d`` with ``vals[k]`` written at position ``target(k)`` for ``k < n`` (the SCATTER
    checks the targets against ``#d`` at ``loc``; the last writer of a position wins)."""
    if _flat_rep(d):
        dv, vv = _vecs(d), _vecs(vals)
        body = R.idx(vv[0].e, I) if len(vv) == 1 else ir.Tuple(tuple(R.idx(v.e, I) for v in vv))
        outs = b.soac(ir.Scatter(tuple(v.e for v in dv), thunk([("i", INT)], body), target, n,
                                 loc), [VecT(v.elem) for v in dv], "w")
        return _rebuild(d, [R.Vec(o, v.elem) for o, v in zip(outs, dv)])
    m = R.length_var(b, d)
    none = R.map_vec(b, R.c_int(-1), m, INT, "wnone")
    win = b.soac(ir.Scatter((none,), thunk([("i", INT)], I), target, n, loc), [VecT(INT)],
                 "win")[0]
    hit = R.p("ge", R.idx(win, I), R.c_int(0))
    which = R.map_vec(b, ir.If(hit, R.c_int(1), R.c_int(0)), m, INT, "ww")
    src = R.map_vec(b, ir.If(hit, R.idx(win, I), I), m, INT, "ws")
    return R.combine(b, which, src, m, [d, vals])


# ------------------------------------------------------------------------------ expansions
_INT = nt.TBase("int")
_BOOL = nt.TBase("bool")


class _X:
    """Tiny builder of typed-AST expansions."""

    def __init__(self, span):
        self.span = span
        self.k = 0

    def var(self, name, ty):
        return T.Var(name, ty, self.span)

    def lit(self, v, ty=_INT):
        return T.Lit(v, ty, self.span)

    def call(self, name, res, *args):
        arg = args[-1]
        for a in reversed(args[:-1]):
            arg = T.Pair(a, arg, nt.TPair(a.type, arg.type), self.span)
        return T.Call(name, T.BUILTIN, arg, nt.TFun(arg.type, res), res, self.span)

    def ate(self, body, gens, filt=None):
        g = tuple(T.Gen(T.PVar(n, s.type.elem, self.span), s, self.span) for n, s in gens)
        return T.ApplyToEach(body, g, filt, nt.TSeq(body.type), self.span)

    def rng(self, s, e):
        return T.Range(s, e, self.lit(1), nt.TSeq(_INT), self.span)

    def length(self, s):
        return self.call("#", _INT, s)

    def elt(self, s, i):
        return self.call("elt", s.type.elem, s, i)

    def pair(self, a, b):
        return T.Pair(a, b, nt.TPair(a.type, b.type), self.span)

    def fresh(self):
        self.k += 1
        return f"%x{self.k}"


def _expand(fl, e, args: list, env: dict, ctx):
    """Translate derived builtins through a typed-NESL expansion; ``args`` are the already
    evaluated argument values, bound to fresh names so nothing is evaluated twice."""
    name = e.name
    x = _X(e.span)
    arg_types = _components_t(e.fun_type.arg, len(args))
    env2 = dict(env)
    vs = []
    for v, t in zip(args, arg_types):
        nm = x.fresh()
        env2[nm] = v
        vs.append(x.var(nm, t))
    i = x.var("%i", _INT)
    res = e.type

    def seqof(body, idx_src, filt=None, var="%i"):
        return x.ate(body, [(var, idx_src)], filt)

    s = vs[0]
    if name in ("->", "read", "get"):
        ex = x.ate(x.elt(s, x.var("%j", _INT)), [("%j", vs[1])])
    elif name == "reverse":
        n = x.length(s)
        ex = seqof(x.elt(s, x.call("-", _INT, x.call("-", _INT, n, x.lit(1)), i)), x.rng(x.lit(0), n))
    elif name == "take":
        # [0:min(n, #s + 1)]: never longer than #s + 1, and when n > #s the gather s[#s]
        # fails as the interpreter does (take([0:5], max_int) must not build max_int indices)
        end = x.call("min", _INT, vs[1], x.call("+", _INT, x.length(s), x.lit(1)))
        ex = seqof(x.elt(s, i), x.rng(x.lit(0), end))
    elif name == "drop":
        # [max(n, -1):#s]: a negative n fails on s[-1] (drop(s, min_int) builds no huge range)
        ex = seqof(x.elt(s, i), x.rng(x.call("max", _INT, vs[1], x.lit(-1)), x.length(s)))
    elif name == "subseq":
        _subseq_check(fl, x, s, vs[1], vs[2], env2, ctx, e)
        ex = seqof(x.elt(s, i), x.rng(vs[1], vs[2]))
    elif name == "rotate":
        n = x.length(s)
        # i - (r mod n), in (-n, n): no overflow for r near min_int
        ex = seqof(x.elt(s, x.call("mod", _INT, x.call("-", _INT, i, x.call("mod", _INT, vs[1], n)), n)),
                   x.rng(x.lit(0), n))
    elif name == "odd_elts":
        ex = seqof(x.elt(s, x.call("+", _INT, x.call("*", _INT, x.lit(2), i), x.lit(1))),
                   x.rng(x.lit(0), x.call("/", _INT, x.length(s), x.lit(2))))
    elif name == "even_elts":
        ex = seqof(x.elt(s, x.call("*", _INT, x.lit(2), i)),
                   x.rng(x.lit(0), x.call("/", _INT, x.call("+", _INT, x.length(s), x.lit(1)),
                                           x.lit(2))))
    elif name == "cons":
        ex = x.call("++", res, T.SeqLit((vs[0],), res, e.span), vs[1])
    elif name == "snoc":
        ex = x.call("++", res, vs[0], T.SeqLit((vs[1],), res, e.span))
    elif name == "head_rest":
        ex = x.pair(x.elt(s, x.lit(0)), x.call("drop", s.type, s, x.lit(1)))
    elif name == "rest_tail":
        last = x.call("-", _INT, x.length(s), x.lit(1))
        ex = x.pair(x.call("take", s.type, s, last), x.elt(s, last))
    elif name == "count":
        ex = x.call("sum", _INT, seqof(x.call("btoi", _INT, x.var("%f", _BOOL)), s, var="%f"))
    elif name == "pack":
        et = s.type.elem
        v, f = x.var("%v", et.fst), x.var("%f", _BOOL)
        g = T.Gen(T.PPair(T.PVar("%v", et.fst, e.span), T.PVar("%f", _BOOL, e.span), et, e.span),
                  s, e.span)
        ex = T.ApplyToEach(v, (g,), f, nt.TSeq(et.fst), e.span)
    elif name == "pack_index":
        f = x.var("%f", _BOOL)
        ex = x.ate(i, [("%i", x.rng(x.lit(0), x.length(s))), ("%f", s)], f)
    elif name == "split":
        v, f = x.var("%v", s.type.elem), x.var("%f", _BOOL)
        no = x.ate(v, [("%v", s), ("%f", vs[1])], x.call("not", _BOOL, f))
        yes = x.ate(v, [("%v", s), ("%f", vs[1])], f)
        ex = T.SeqLit((no, yes), res, e.span)
    elif name == "index":
        ex = x.rng(x.lit(0), vs[0])
    elif name == "iseq":
        ex = T.Range(vs[0], vs[2], vs[1], nt.TSeq(_INT), e.span)
    elif name == "rep":
        v = x.var("%v", s.type.elem)
        body = T.If(x.call("==", _BOOL, i, vs[2]), vs[1], v, s.type.elem, e.span)
        chk = x.elt(s, vs[2])   # bounds check of the index, as the original
        ex = T.Let(T.PWild(chk.type, e.span), chk,
                   x.ate(body, [("%v", s), ("%i", x.rng(x.lit(0), x.length(s)))]), res, e.span)
    elif name == "put":
        ex = x.call("<-", res, vs[2], x.call("zip", nt.TSeq(nt.TPair(_INT, s.type.elem)), vs[1], s))
    elif name == "zip3":
        ex = x.call("zip", res, vs[0], x.call("zip", nt.TSeq(nt.TPair(vs[1].type.elem,
                                                                       vs[2].type.elem)),
                                              vs[1], vs[2]))
    elif name == "kth_smallest":
        ex = x.elt(x.call("sort", s.type, s), vs[1])
    elif name == "nest":
        ex = x.call("partition", res, vs[0], vs[1])
    elif name == "eql":
        ex = _eql(x, vs[0], vs[1], fl.tm)
    elif name == "first":
        return args[0]
    elif name in NESL_EXPANSIONS or name in TYPED_EXPANSIONS:
        if name in TYPED_EXPANSIONS:
            # the text depends on the element type: datatypes are replaced by their
            # representation types (the values are represented so already)
            arg_types = [_deep_unfold(fl.tm, t) for t in arg_types]
            res = _deep_unfold(fl.tm, res)
        ex, uses_library = _nesl_expansion(name, arg_types, res, e.span)
        if uses_library:
            for nm, fd in _library()[1].items():
                fl.fundefs.setdefault(nm, fd)
        env3 = dict(env)
        params = (NESL_EXPANSIONS.get(name) or TYPED_EXPANSIONS[name])[0]
        for p, v in zip(params, args):
            env3["%" + p] = v
        return fl.tr(ex, env3, ctx)
    else:
        raise R.FlattenUnsupported(f"the builtin {name!r} is not supported by the flattening "
                                   f"backends yet (use --backend interp)")
    return fl.tr(ex, env2, ctx)


_MSG_BOUNDS = E.MSG_BOUNDS


def _subseq_check(fl, x: _X, s, start, end, env: dict, ctx, e):
    """The interpreter's check of ``subseq`` (a non-empty range ``[start:end]`` lies within
    ``s``), made on the host *before* the range is built, so that ``subseq(s, 0, max_int)``
    fails at once instead of first building max_int indices (and the gather ``s[i]`` of the
    expansion can no longer fail)."""
    bad = x.call("and", _BOOL, x.call("<", _BOOL, start, end),
                 x.call("or", _BOOL, x.call("<", _BOOL, start, x.lit(0)),
                        x.call(">", _BOOL, end, x.length(s))))
    _host_check(fl, x.call("not", _BOOL, bad), env, ctx, _loc(e), _MSG_BOUNDS)


def _host_check(fl, ok, env: dict, ctx, loc, msg):
    """Flatten the typed-NESL boolean ``ok`` (per instance in a context) and check on the host
    that it holds (for every instance), failing with ``msg`` at ``loc``."""
    v = fl.tr(ok, env, ctx)
    if ctx is None or is_uniform(v):
        _emit_check(fl, uniform_rep(v).e, False, ctx, loc, msg)
    else:
        _emit_check(fl, scalar_at(v, I), True, ctx, loc, msg)


def _eql(x: _X, a, b, tm):
    """Deep equality, expanded by type: ``==`` on scalars, componentwise on tuples, lengths
    then elementwise on sequences; a datatype value as the value of its representation type
    (the constructor's argument: the flattener represents it so)."""
    t = a.type
    if isinstance(t, nt.TData):
        u = tm.unfold(t)
        return _eql(x, T.Var(a.name, u, a.span), T.Var(b.name, u, b.span), tm)
    if tm.is_base(t):
        return x.call("==", _BOOL, a, b)
    if isinstance(t, nt.TPair):
        names = [x.fresh() for _ in range(4)]
        pa = T.PPair(T.PVar(names[0], t.fst, x.span), T.PVar(names[1], t.snd, x.span), t, x.span)
        pb = T.PPair(T.PVar(names[2], t.fst, x.span), T.PVar(names[3], t.snd, x.span), t, x.span)
        body = x.call("and", _BOOL, _eql(x, x.var(names[0], t.fst), x.var(names[2], t.fst), tm),
                      _eql(x, x.var(names[1], t.snd), x.var(names[3], t.snd), tm))
        return T.Let(pa, a, T.Let(pb, b, body, _BOOL, x.span), _BOOL, x.span)
    if isinstance(t, nt.TSeq):
        u, v = x.fresh(), x.fresh()
        each = x.ate(_eql(x, x.var(u, t.elem), x.var(v, t.elem), tm), [(u, a), (v, b)])
        return T.If(x.call("==", _BOOL, x.length(a), x.length(b)), x.call("all", _BOOL, each),
                    x.lit(False, _BOOL), _BOOL, x.span)
    raise TypeError(f"eql on values of type {t!r}")


def _components_t(t, n: int) -> list:
    out = []
    for _ in range(n - 1):
        out.append(t.fst)
        t = t.snd
    out.append(t)
    return out


# Library functions defined by NESL text over other builtins (the original's library defines
# them in NESL too).  name -> (parameter names, body).  The text is parsed and typed once per
# instance (argument types), every node gets the call's span (so run-time errors point at
# the call, as on the interpreter), and the parameters are renamed ``%name`` so that they
# cannot capture the caller's variables.  ``f``/``t`` are the booleans: not usable as names.
# Every one is data-parallel: ranks (radix sorts), permutes, scans, segmented gathers.
_COLLECT = ("let sp = permute(pairs, rank({k : (k, v) in pairs})); "
            "sk = {k : (k, v) in sp}; sv = {v : (k, v) in sp}; "
            "st = {j == 0 or k /= sk[max(j - 1, 0)] : k in sk; j in [0:#sk]} "
            "in zip({k : k in sk; fl in st | fl}, partition(sv, length_from_flags(st)))")
NESL_EXPANSIONS = {
    "enumerate": (("flags",), "plus_scan({btoi(fl) : fl in flags})"),
    "group_by": (("s", "n"),
                 # the number of groups without overflow for n near max_int
                 "let k = if n > 0 and #s > 0 then (#s - 1) / n + 1 else (#s + n - 1) / n "
                 "in partition(s, {min(n, #s - j * n) : j in [0:k]})"),
    "median": (("s",), "kth_smallest(s, #s / 2)"),
    "previous": (("s", "v"), "rotate(rep(s, v, #s - 1), 1)"),
    "rest": (("s",), "drop(s, 1)"),
    "join": (("v1", "p1", "v2", "p2"), "permute(v1 ++ v2, p1 ++ p2)"),
    "vpair": (("a", "b"), "[a, b]"),
    "flag_merge": (("flags", "v1", "v2"),
                   "let e1 = enumerate({not fl : fl in flags}); e2 = enumerate(flags) "
                   "in {if fl then v2[j2] else v1[j1] : fl in flags; j1 in e1; j2 in e2}"),
    "cond_put": (("v", "i", "flags", "d"),
                 "d <- {(j, x) : x in v; j in i; fl in flags | fl}"),
    # rows become columns; all rows of the same length (else the interpreter's error)
    "transpose": (("m",),
                  "let w = if #m == 0 then 0 else #(m[0]) in "
                  "if all({#r == w : r in m}) then {{r[j] : r in m} : j in [0:w]} "
                  f"else error({E.LENGTH_MISMATCH!r})".replace("'", '"')),
    "bottop": (("s",), "let h = (#s + 1) / 2 in [take(s, h), drop(s, h)]"),
    # #a may exceed #b by one (interleave(even_elts(s), odd_elts(s)) = s); other lengths are
    # the interpreter's length mismatch
    "interleave": (("a", "b"),
                   "if #a - #b == 0 or #a - #b == 1 "
                   "then {if evenp(j) then a[j / 2] else b[j / 2] : j in [0:#a + #b]} "
                   f"else error({E.LENGTH_MISMATCH!r})".replace("'", '"')),
    # each set flag starts a segment that ends at the next one (or at the end)
    "length_from_flags": (("flags",),
                          "let st = pack_index(flags); k = #st "
                          "in {select(j + 1 < k, st[min(j + 1, k - 1)], #flags) - s0 "
                          ": s0 in st; j in [0:k]}"),
    "split_index": (("flags",),
                    "let nf = count({not fl : fl in flags}); ef = enumerate({not fl : fl in flags}); "
                    "et = enumerate(flags) "
                    "in ([nf, #flags - nf], {select(fl, nf + b, a) : fl in flags; a in ef; b in et})"),
    "string_eql": (("a", "b"), "eql(a, b)"),
    # the least index whose element equals v (-1 if none)
    "find": (("v", "s"),
             "let m = min_val({select(eql(v, x), j, #s) : x in s; j in [0:#s]}) "
             "in select(m >= #s, -1, m)"),
    "search_for_subseqs": (("w", "s"),
                           "{j in [0:#s - #w + 1] | all({s[j + k] == c : c in w; k in [0:#w]})}"),
    # a stable rank of the keys groups equal keys, each group in the original order
    "collect": (("pairs",), _COLLECT),
    "int_collect": (("pairs",), _COLLECT),
    # distinct values of a ++ b in order of first occurrence: in the stable sort, the first of
    # each run of equal values is its first occurrence
    "union": (("a", "b"),
              "let c = a ++ b; n = #c; r = rank(c); o = permute([0:n], r); "
              "sc = {c[j] : j in o}; "
              "st = {j == 0 or x /= sc[max(j - 1, 0)] : x in sc; j in [0:n]}; "
              "keep = dist(f, n) <- {(q, t) : q in o; fl in st | fl} "
              "in {x : x in c; k in keep | k}"),
    # distinct values of a (first occurrences) that occur in b: a run of equal values of
    # a ++ b starts with an element of a and ends with one of b
    "intersection": (("a", "b"),
                     "let na = #a; c = a ++ b; n = #c; r = rank(c); o = permute([0:n], r); "
                     "sc = {c[j] : j in o}; "
                     "st = {j == 0 or x /= sc[max(j - 1, 0)] : x in sc; j in [0:n]}; "
                     "g = partition(o, length_from_flags(st)); "
                     "keep = dist(f, na) <- {(y[0], t) : y in g | y[0] < na and y[#y - 1] >= na} "
                     "in {x : x in a; k in keep | k}"),
    "mark_duplicates": (("s",), "{x == j : x in name(s); j in [0:#s]}"),
    "remove_duplicates": (("s",), "{x : x in s; m in mark_duplicates(s) | m}"),
    # lines end at newlines; a final newline does not start an empty line
    "linify": (("s",),
               "let n = #s; nl = pack_index({c == newline : c in s}); "
               "k = select(any({c == newline : c in drop(s, max(n - 1, 0))}), #nl, #nl + 1); "
               "starts = take([0] ++ {q + 1 : q in nl}, k); ends = take(nl ++ [n], k) "
               "in {{s[j] : j in [a:b]} : a in starts; b in ends}"),
    # words: maximal runs of characters other than space, tab, newline and return
    "wordify": (("s",),
                "let n = #s; "
                "ws = {c == space or c == tab or c == newline or c == code_char(13) : c in s}; "
                "st = {not w and (j == 0 or ws[max(j - 1, 0)]) : w in ws; j in [0:n]}; "
                "en = {not w and (j == n - 1 or ws[min(j + 1, n - 1)]) : w in ws; j in [0:n]}; "
                "a = pack_index(st); b = {q + 1 : q in pack_index(en)} "
                "in {{s[j] : j in [x:y]} : x in a; y in b}"),
    "||": (("s", "n"),
           "let fill = dist(space, max(abs(n) - #s, 0)) in if n >= 0 then fill ++ s else s ++ fill"),
}


def _dense2(a: str, b: str) -> str:
    """NESL text: dense ids (0, 1, ...) of the pairs ``(a[i], b[i])`` of two int sequences
    (variables): equal pairs get equal ids, ids ordered as the pairs are.  A lexicographic
    sort by two stable rank passes, last key first."""
    return (f"let n = #{a}; o1 = permute([0:n], rank({b})); "
            f"o = permute(o1, rank({{{a}[j] : j in o1}})); "
            f"sa = {{{a}[j] : j in o}}; sb = {{{b}[j] : j in o}}; "
            f"st = {{btoi(j > 0 and (x /= sa[max(j - 1, 0)] or y /= sb[max(j - 1, 0)])) "
            f": x in sa; y in sb; j in [0:n]}}; "
            f"dd = {{x + y : x in plus_scan(st); y in st}} "
            f"in permute(dd, o)")


def _dense1(k: str) -> str:
    """NESL text: dense ids of the elements of the ordinal sequence (variable) ``k``."""
    return (f"let n = #{k}; r = rank({k}); o = permute([0:n], r); sk = {{{k}[j] : j in o}}; "
            f"st = {{btoi(j > 0 and x /= sk[max(j - 1, 0)]) : x in sk; j in [0:n]}}; "
            f"dd = {{x + y : x in plus_scan(st); y in st}} "
            f"in {{dd[j] : j in r}}")


#: A library function of the expansions (recursive, so not an expansion itself): the prefix
#: doubling of suffix-array construction.  ``ids`` names every element of a segmented sequence
#: (ids >= 0), ``rem`` is each element's distance to the end of its segment; while ``step`` is
#: less than the longest segment ``mx``, each element's id becomes the id of the pair (its id,
#: the id ``step`` elements further in its segment, or -1 past the end).  After round k an id
#: names the element's next ``2^k`` elements (cut at the segment's end), so at the end the id of
#: a segment's first element names the whole segment: equal segments, equal ids.
_LIB_TEXT = (f"function nessie_segment_ids(ids, rem, step, mx) = "
             f"if step >= mx then ids "
             f"else let nxt = {{select(r > step, ids[min(j + step, #ids - 1)], -1) "
             f": r in rem; j in [0:#ids]}} "
             f"in nessie_segment_ids({_dense2('ids', 'nxt')}, rem, 2 * step, mx);\n")
# (monomorphic: a polymorphic library function would have no instance after monomorphisation)
_LIB_NAMES = {"nessie_segment_ids": "%segment_ids"}
_LIB_CACHE: list = []


def _library():
    """(type environment with the library functions, {renamed name: monomorphic FunDef}).
    The functions are renamed ``%...`` (no NESL program can name them)."""
    if not _LIB_CACHE:
        import dataclasses

        from nessie.mono import monomorphise
        from nessie.syntax import parse_text
        from nessie.types import typecheck
        typed = typecheck(parse_text(_LIB_TEXT, "<library>"))
        defs = {}
        for fd in monomorphise(typed).items:
            if isinstance(fd, T.FunDef):
                nm = _LIB_NAMES[fd.name]
                defs[nm] = dataclasses.replace(fd, name=nm, body=_rename_lib(fd.body))
        _LIB_CACHE.append((typed.env, defs))
    return _LIB_CACHE[0]


def _rename_lib(ex):
    return T.map_nodes(ex, lambda n: dataclasses_replace(n, name=_LIB_NAMES[n.name])
                       if isinstance(n, T.Call) and n.kind == T.USER and n.name in _LIB_NAMES
                       else n)


def dataclasses_replace(n, **kw):
    import dataclasses
    return dataclasses.replace(n, **kw)


def _ids_text(t, s: str, fresh) -> str:
    """NESL text: ids >= 0 of the elements of the sequence (variable) ``s`` of element type
    ``t`` (datatypes unfolded): equal values (deep equality) get equal ids, different values
    different ones.  Scalars by rank; tuples by pairs of component ids; sequences by the ids of
    their elements, then the prefix doubling of ``nessie_segment_ids`` over the segments."""
    if isinstance(t, nt.TBase):
        if t.name == "bool":
            return f"{{btoi(x) : x in {s}}}"
        return _dense1(s)
    if isinstance(t, nt.TPair):
        x, y, p1, p2, i1, i2 = (fresh() for _ in range(6))
        return (f"let {p1} = {{{x} : ({x}, {y}) in {s}}}; {p2} = {{{y} : ({x}, {y}) in {s}}}; "
                f"{i1} = {_ids_text(t.fst, p1, fresh)}; {i2} = {_ids_text(t.snd, p2, fresh)} "
                f"in {_dense2(i1, i2)}")
    if isinstance(t, nt.TSeq):
        x, ln, fl, ii, fin, ext = (fresh() for _ in range(6))
        return (f"let {ln} = {{#{x} : {x} in {s}}}; {fl} = flatten({s}); "
                f"{ii} = {_ids_text(t.elem, fl, fresh)}; "
                f"{fin} = nessie_segment_ids({ii}, flatten({{{{{x} - j : j in [0:{x}]}} "
                f": {x} in {ln}}}), 1, max_val({ln})); "
                f"{ext} = [-1] ++ {fin} "
                f"in {{{ext}[select({x} == 0, 0, j + 1)] + 1 : {x} in {ln}; j in plus_scan({ln})}}")
    raise R.FlattenUnsupported(f"values of type {t!r} have no ids")


def _name_text(arg_types) -> str:
    """``name(s)``: each element named by the index of the last occurrence of its value.  Keys
    (the elements themselves if ordinal, else their ids) are ranked stably: equal values form
    runs in index order, and every element of a run gets the run's last index."""
    t = arg_types[0].elem
    k = [0]

    def fresh():
        k[0] += 1
        return f"nz{k[0]}"
    if isinstance(t, nt.TBase) and t.name in ("int", "char", "float"):
        keys = "s"
    elif isinstance(t, nt.TBase) and t.name == "bool":
        keys = "{btoi(x) : x in s}"
    else:
        keys = _ids_text(t, "s", fresh)
    return (f"let k = {keys}; n = #k; r = rank(k); o = permute([0:n], r); "
            f"sk = {{k[j] : j in o}}; "
            f"st = {{j == 0 or x /= sk[max(j - 1, 0)] : x in sk; j in [0:n]}}; "
            f"g = partition(o, length_from_flags(st)); "
            f"nm = flatten({{dist(y[#y - 1], #y) : y in g}}) "
            f"in {{nm[j] : j in r}}")


def _order_text(op: str):
    """``sort``/``rank``/``rank_down`` of non-scalar elements (tuples, sequences): the ids of
    ``_ids_text`` preserve the lexicographic order (component by component; a sequence before
    its extensions), so ranking them is a stable lexicographic sort — for tuples of scalars,
    successive stable rank passes from the last component to the first."""
    def build(arg_types) -> str:
        k = [0]

        def fresh():
            k[0] += 1
            return f"nz{k[0]}"
        ids = _ids_text(arg_types[0].elem, "s", fresh)
        if op == "sort":
            return f"let k = {ids} in permute(s, rank(k))"
        return f"{op}({ids})"
    return build


#: Expansions whose text depends on the argument types (name -> (parameters, text builder)).
TYPED_EXPANSIONS = {
    "name": (("s",), _name_text),
    # (only for elements that are not scalars: scalars are ranked natively)
    "sort": (("s",), _order_text("sort")),
    "rank": (("s",), _order_text("rank")),
    "rank_down": (("s",), _order_text("rank_down")),
    # bound_box((min x, min y), (max x - min x, max y - min y)): its representation (reductions;
    # over no points the identities, as min_val/max_val)
    "bounding_box": (("points",), lambda arg_types: (
        "let xs = {x : (x, y) in points}; ys = {y : (x, y) in points}; "
        "x0 = min_val(xs); y0 = min_val(ys) "
        "in ((x0, y0), (max_val(xs) - x0, max_val(ys) - y0))")),
}


def _deep_unfold(tm, t):
    """``t`` with every datatype replaced by its representation type (and ``segdes`` by
    ``int``, its representation): the types the flattener's values have."""
    t = tm.unfold(t)
    if isinstance(t, nt.TPair):
        return nt.TPair(_deep_unfold(tm, t.fst), _deep_unfold(tm, t.snd))
    if isinstance(t, nt.TSeq):
        return nt.TSeq(_deep_unfold(tm, t.elem))
    if isinstance(t, nt.TBase) and t.name == "segdes":
        return _INT
    return t


_NESL_CACHE: dict = {}


def _nesl_expansion(name: str, arg_types: list, res, span):
    """The typed body of a NESL-defined library function for one instance, and whether it
    calls a library function of ``_LIB_TEXT``."""
    key = (name, tuple(arg_types), res)
    hit = _NESL_CACHE.get(key)
    if hit is None:
        from nessie.syntax import parse_expression
        from nessie.types.infer import Inferencer
        if name in NESL_EXPANSIONS:
            params, text = NESL_EXPANSIONS[name]
        else:
            params, build = TYPED_EXPANSIONS[name]
            text = build(arg_types)
        inf = Inferencer(_library()[0])
        body = inf.infer(parse_expression(text, f"<library {name}>"), dict(zip(params, arg_types)))
        inf.unify(res, body.type, body.span)
        ex = inf.zonk_tree(body, default=True)
        renamed = {p: "%" + p for p in params}
        ex = T.map_nodes(ex, lambda n: T.Var(renamed[n.name], n.type, n.span)
                         if isinstance(n, T.Var) and n.name in renamed else n)
        ex = _rename_lib(ex)
        uses = any(isinstance(n, T.Call) and n.kind == T.USER for n in T.iter_nodes(ex))
        hit = _NESL_CACHE[key] = (ex, uses)
    ex, uses = hit
    import dataclasses
    return T.map_nodes(ex, lambda n: dataclasses.replace(n, span=span)
                       if getattr(n, "span", None) is not None else n), uses


_EXPANDED = {"->", "read", "get", "reverse", "take", "drop", "subseq", "rotate", "odd_elts",
             "even_elts", "interleave", "cons", "snoc", "head_rest", "rest_tail", "count", "pack",
             "pack_index", "split", "index", "iseq", "rep", "put", "zip3", "kth_smallest", "nest",
             "eql"} | set(NESL_EXPANSIONS) | set(TYPED_EXPANSIONS)


# ------------------------------------------------------------------------------ dispatch
def _select_any(fl, e: T.Call, argv, env: dict, ctx: Optional[Ctx]):
    """``identity(x)`` and ``select(flag, a, b)`` at a type that is not a scalar (a sequence, a
    tuple: ``select : (bool, a, a) -> a :: (a in any)``).  The arguments are evaluated already;
    ``select`` is then the conditional over them (per instance where the flag varies)."""
    if e.name == "identity":
        return argv
    flag, a, b = _components(argv, 3)
    names = ("%select_flag", "%select_a", "%select_b")
    atype = e.arg.type
    ftype = atype.fst
    node = T.If(T.Var(names[0], ftype, e.span), T.Var(names[1], e.type, e.span),
                T.Var(names[2], e.type, e.span), e.type, e.span)
    return fl.tr(node, {**env, names[0]: flag, names[1]: a, names[2]: b}, ctx)


def apply(fl, e: T.Call, argv, env: dict, ctx: Optional[Ctx]):
    if ctx is not None and e.name not in _PER_INSTANCE and is_uniform(argv):
        # the same argument for every instance: applied once, on the host (a uniform result)
        # -- so ``rand(100)`` draws one number, as on the original (see nessie/interp/vector.py,
        # which the interpreter follows).  The context must not be empty when this runs: its
        # kernel runs are recorded (``hoisted_runs``) so that the code of the context is
        # guarded by its size where one of them can fail (``[1, 2] <- [(7, 1)]`` in an
        # apply-to-each over nothing, or in a branch no instance takes, fails nowhere)
        blk = fl.b._blocks[-1]
        start = len(blk)
        v = _apply_or_host(fl, e, argv, env, None)
        fl.hoisted_runs.update(p.name for bd in blk[start:] if isinstance(bd.rhs, ir.Run)
                               for p in bd.params)
        return v
    return _apply_or_host(fl, e, argv, env, ctx)


def _apply_or_host(fl, e: T.Call, argv, env: dict, ctx: Optional[Ctx]):
    try:
        return _apply(fl, e, argv, env, ctx)
    except R.FlattenUnsupported:
        # no data-parallel form for this instance (e.g. sort of tuples): a host library call
        return host_call(fl, e, argv, ctx)


def _apply(fl, e: T.Call, argv, env: dict, ctx: Optional[Ctx]):
    name = e.name
    if name in ("select", "identity") and not fl.tm.is_base(e.type):
        return _select_any(fl, e, argv, env, ctx)
    if name in _SCALAR_NAMES:
        return scalar_apply(fl, e, _components(argv, _arity(e.fun_type, e.name)), ctx)
    if name == "first":
        return _components(argv, 2)[0] if _arity(e.fun_type, e.name) == 2 else split_pair(argv)[0]
    if name in _REDUCTIONS:
        return _reduce(fl, e, argv, ctx, scan=False)
    if name in _SCANS:
        return _reduce(fl, e, argv, ctx, scan=True)
    if name in ("max_index", "min_index"):
        return _extreme_index(fl, e, argv, ctx, name == "max_index")
    if name in ("#", "length"):
        return length(fl, e, argv, ctx)
    if name == "elt":
        s, i = split_pair(argv)
        return elt(fl, e, s, i, ctx)
    if name == "dist":
        a, n = split_pair(argv)
        return dist(fl, e, a, n, ctx)
    if name in ("++", "append"):
        a, b_ = split_pair(argv)
        return append(fl, e, a, b_, ctx)
    if name == "flatten":
        return flatten(fl, e, argv, ctx)
    if name == "partition":
        s, c = split_pair(argv)
        return partition(fl, e, s, c, ctx)
    if name == "zip":
        return zip_(fl, e, list(split_pair(argv)), ctx)
    if name == "unzip":
        return unzip(fl, e, argv, ctx)
    if name == "permute":
        s, i = split_pair(argv)
        return permute(fl, e, s, i, ctx)
    if name in ("rank", "rank_down", "sort") and not fl.tm.is_base(e.fun_type.arg.elem):
        # tuples, sequences: lexicographic, through order-preserving ids of the elements
        return _expand(fl, e, [argv], env, ctx)
    if name in ("rank", "rank_down"):
        return rank(fl, e, argv, ctx, descending=(name == "rank_down"))
    if name == "sort":
        return rank(fl, e, argv, ctx, then_permute=True)
    if name in ("<-", "write"):
        d, pv = split_pair(argv)
        return write(fl, e, d, pv, ctx)
    if name in _EXPANDED:
        return _expand(fl, e, _components(argv, _arity(e.fun_type, e.name)), env, ctx)
    if name == "error" and isinstance(e.arg, T.StringLit):
        return error_call(fl, e, e.arg.value, ctx)
    if name == "rand":
        return rand_call(fl, e, argv, ctx)
    return host_call(fl, e, argv, ctx)


def rand_call(fl, e: T.Call, argv, ctx: Optional[Ctx]):
    """``rand``: a host library call (glibc's ``random()``, ``nessie.glibc_random``), one draw
    per instance in instance order.  On ints, a zero argument is C's ``random() % 0``: ``Divide
    by zero.`` at the call, checked before anything is drawn."""
    if fl.tm.base(e.fun_type.arg) != FLOAT:
        msg = E.MSG_DIV0
        if ctx is None:
            _emit_check(fl, R.p("ne", uniform_rep(argv).e, R.c_int(0)), False, None, _loc(e), msg)
        else:
            _emit_check(fl, R.p("ne", scalar_at(argv, I), R.c_int(0)), True, ctx, _loc(e), msg)
    return host_call(fl, e, argv, ctx)


def error_call(fl, e: T.Call, message: str, ctx: Optional[Ctx]):
    """``error("...")`` with a literal message: an unconditional λcu ``error`` at the call's
    location (a host operation, so in a context it only runs when the context is not
    empty).  A computed message goes through the host library instead (unlocated)."""
    b = fl.b
    tys = fl.tm.value_leaf_types(e.type) if ctx is None else fl.tm.seq_leaf_types(e.type)
    outs = b.bind_many(ir.Error(_tuple_type(tys), _loc(e), message), tys, "err")
    if ctx is None:
        return U(fl.tm.value_from_leaves(e.type, list(outs)))
    return L(fl.tm.seq_from_leaves(e.type, list(outs)), None)


def host_call(fl, e: T.Call, argv, ctx: Optional[Ctx]):
    """A builtin without a data-parallel form here (output, files, printed forms of values,
    number parsing, ``hash``, the random generator …) is a host library call (``Extern``, one
    per call site, whose location its run-time errors report; ``nessie/hostlib``).  In a context
    it is applied to the instances one after the other, in order, on the host: correct, but not
    parallel."""
    b = fl.b
    # output and errors run once per instance even on uniform arguments (never hoisted)
    lifted = ctx is not None and (e.name in _PER_INSTANCE or not is_uniform(argv))
    ename = fl.extern_name(e.name, e.fun_type, lifted, _loc(e))
    if not lifted:
        args = R.leaves(uniform_rep(argv))
        tys = fl.tm.value_leaf_types(e.type)
        outs = b.bind_many(ir.Extern(ename, tuple(args), _tuple_type(tys), _loc(e)), tys, "ext")
        return U(fl.tm.value_from_leaves(e.type, list(outs)))
    args = [ctx.n] + R.leaves(materialise(b, argv, ctx, fl.tm, e.fun_type.arg))
    tys = fl.tm.seq_leaf_types(e.type)
    outs = b.bind_many(ir.Extern(ename, tuple(args), _tuple_type(tys), _loc(e)), tys, "ext")
    return L(fl.tm.seq_from_leaves(e.type, list(outs)), None)


#: builtins applied once per instance even to a uniform argument (output, errors); any other
#: builtin -- ``rand`` and ``rand_seed`` included -- is applied once to a uniform argument
#: (``nessie.interp.vector.PER_INSTANCE`` is the same set)
_PER_INSTANCE = {"print_string", "print_line", "print_char", "write_string",
                 "write_string_to_file", "print", "error", "prompt"}


def _tuple_type(tys):
    from lambda_cu.types import tuple_of
    return tuple_of(tys)
