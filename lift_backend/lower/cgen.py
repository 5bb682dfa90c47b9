"""λcu thunk bodies as OpenCL C: the user functions of the lowered kernels.

A λcu thunk ``{ xs => e using ys }`` is a first-order scalar function whose body may subscript the
vectors (and segment-descriptor fields) named in ``using``.  Lowering turns it into straight-line
OpenCL C inside the kernel that applies it (Lift inlines user functions the same way): every λcu
value is a list of *components* (λcu tuples are flat), each a C expression of a base type.

* ``v[e]`` (``Index``) reads the buffer through a *checked access*: an index outside ``0..#v-1``
  reports the subscript's source location through the error buffer and reads nothing.  Where the
  index's range is known (``ranges``: a loop index below the kernel's ``n``, a segment id found
  by walking the offsets), a kernel is generated twice (``fast``): the version without those
  checks runs when the conditions that make them redundant hold for the launch's lengths
  (``guards``: one test of the kernel's arguments, ``n <= #v``), the checked one otherwise.
* ``if c then a else b`` is a C ``if`` statement: only the branch taken runs, so an untaken branch
  cannot fail (the semantics of λcu's ``If``).
* Primitives that can fail (integer ``/``, ``rem``, ``mod``, ``^`` with a negative exponent,
  ``isqrt``) report through the error buffer too; all integer arithmetic wraps (it is done on
  unsigned values, never relying on C's undefined signed overflow).

Errors: each failing *site* (a located subscript or primitive) gets a number in the order the
sites appear in the SOAC's thunks — the order in which the numpy runner evaluates them — and the
kernel does ``atomic_min(err, errbase + site)``: the smallest code wins, so the reported error is
deterministic whatever the order in which work-items run.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Optional

from lambda_cu import ir
from lambda_cu.loc import Loc
from lambda_cu.errors import MSG_BOUNDS, MSG_DIV0, MSG_ISQRT
from lambda_cu.types import (BOOL, BoolT, CharT, FloatT, IntT, SegDesT, TupleT, Type, UnitT,
                             VecT, flat_components)


class LowerError(Exception):
    """A λcu construct the OpenCL lowering does not handle (an internal limit, not a user error)."""


def ctype(t: Type) -> str:
    """The OpenCL C type of a λcu base type."""
    if isinstance(t, IntT):
        return "int" if t.width == 32 else "long"
    if isinstance(t, FloatT):
        return "double"
    if isinstance(t, (BoolT, CharT)):
        return "uchar"
    raise LowerError(f"no OpenCL type for {t}")


def utype(t: Type) -> str:
    return "uint" if isinstance(t, IntT) and t.width == 32 else "ulong"


def comps(t: Type) -> tuple[Type, ...]:
    """Flat components of a GPU type (unit has none)."""
    return tuple(c for c in flat_components(t) if not isinstance(c, UnitT))


# ------------------------------------------------------------------------------------------------
# the C prelude shared by every lowered kernel

#: how element-wise loops split the index space, per device kind (LOWERING.md, "Strategies by
#: device"): on a CPU each work-item owns a contiguous block (vectorisable loops, one work-item
#: per work-group, so PoCL compiles each kernel once); on a GPU consecutive work-items take
#: consecutive elements (coalesced reads), striding by the global size.
LOOPS = {
    "cpu": ("#define NZ_FOR(i, n) for (long i = (long)get_global_id(0) * (long)(n) / (long)get_global_size(0), "
            "i##_end = ((long)get_global_id(0) + 1) * (long)(n) / (long)get_global_size(0); i < i##_end; i++)"),
    "gpu": "#define NZ_FOR(i, n) for (long i = get_global_id(0); i < (long)(n); i += get_global_size(0))",
}

#: a CPU work-item's contiguous block ``i`` of ``0 .. n - 1`` as a loop over the pieces of
#: it that lie in one segment of a descriptor (``offs``: its offsets, ``cnt`` segments): each
#: turn finds ``s``, the segment of ``i`` (by a walk from the segment found last), and ``s_e``,
#: where that segment or the block ends; the body runs once per piece, and its own element loop
#: ``for (; i < s_e; i++)`` is never empty.  What a thunk computes from the segment id alone is
#: computed in the body before that loop (``hoist_invariant``): the C compiler does not hoist
#: it itself (checked loads with error codes), and the per-element loop then streams.  An index
#: beyond the last offset belongs to the last segment, as a walk says.
SEG_LOOP = (
    "#define NZ_SEGCHUNKS(i, n, offs, cnt, s) "
    "for (long i = (long)get_global_id(0) * (long)(n) / (long)get_global_size(0), "
    "i##_end = ((long)get_global_id(0) + 1) * (long)(n) / (long)get_global_size(0), "
    "s = 0, s##_e = 0, s##_at = -1; "
    "i < i##_end && (s = nz_walk_ids((offs), (cnt), i, &s##_at), "
    "s##_e = s + 1 < (long)(cnt) ? min((long)(offs)[s + 1], i##_end) : i##_end, 1); )")


_TEMP = re.compile(r"\bt\d+\b")
#: where a statement defines or assigns a temporary: ``tN = ..``, ``tN += ..``, ``tN[k] = ..``,
#: ``tN++``, and declarations ``T tN;`` / ``T tN = ..`` / ``T* tN`` / ``T tN[K]`` (every form a
#: temporary may take, so that a statement is never hoisted above what it reads)
_DEFS = re.compile(r"\b(t\d+)\s*(?:\[[^\]]*\]\s*)?(?:(?:[-+*/%&|^]|<<|>>)?=(?!=)|\+\+|--)"
                   r"|(?:\+\+|--)\s*(t\d+)\b"
                   r"|^\s*[A-Za-z_][A-Za-z_0-9 ]*?[\s*](t\d+)\s*(?:=(?!=)|;|\[)", re.M)


def _defined(text: str) -> set:
    """The temporaries that C statements ``text`` define or assign (``_DEFS``)."""
    return {x for m in _DEFS.findall(text) for x in m if x}


def _statements(lines: list[str]) -> list[list[str]]:
    """The statements of ``lines`` (C a CGen wrote: no braces in literals): a line at brace
    depth 0 with the lines that follow it until the braces it opens are closed."""
    stmts: list[list[str]] = []
    depth = 0
    for ln in lines:
        if depth == 0:
            stmts.append([ln])
        else:
            stmts[-1].append(ln)
        depth += ln.count("{") - ln.count("}")
    return stmts


def _dependent(stmts: list[list[str]], index: tuple[str, ...]) -> list[bool]:
    """Which statements depend on the loop's variables ``index`` (its index and what it
    carries from one element to the next): those that name one, or name a temporary (``tN``)
    that a dependent statement defines or assigns."""
    idx = re.compile(r"\b(?:" + "|".join(re.escape(x) for x in index) + r")\b")
    texts = ["\n".join(st) for st in stmts]
    dep = [bool(idx.search(t)) for t in texts]
    tainted: set[str] = set()
    changed = True
    while changed:
        changed = False
        for k, t in enumerate(texts):
            if not dep[k] and tainted.intersection(_TEMP.findall(t)):
                dep[k] = True
            if dep[k]:
                defs = _defined(t)
                if not defs <= tainted:
                    tainted |= defs
                    changed = True
    return dep


def _dedent(ln: str) -> str:
    return ln[2:] if ln.startswith("  ") else ln


def _branches(st: list[str], cond: str) -> Optional[tuple[list[str], list[str]]]:
    """The two branches of a statement ``if (cond) { .. } else { .. }`` as CGen.if_ writes it,
    else None."""
    if st[0].strip() != f"if ({cond}) {{" or st[-1].strip() != "}":
        return None
    depth = 1
    for k in range(1, len(st) - 1):
        if depth == 1 and st[k].strip() == "} else {":
            return [_dedent(x) for x in st[1:k]], [_dedent(x) for x in st[k + 1:-1]]
        depth += st[k].count("{") - st[k].count("}")
    return None


def seg_loop_body(lines: list[str], index: tuple[str, ...], indent: str, loop: str,
                  versions: int = 4) -> list[str]:
    """The body of a loop over the elements of one segment (its piece of a block,
    ``NZ_SEGCHUNKS``, or its row) from the statements ``lines`` (at ``indent``) that one
    element needs: the statements that do not depend on the loop's variables ``index`` (the
    element's index, and any accumulator the loop carries) run once, before the element loop
    ``loop`` (a ``for`` header ending in ``{``, which must run at least once: the caller
    guards it), the rest inside it.  Where a dependent
    statement branches on such an invariant value (``if (tN) {..} else {..}``), the element
    loop is written once per branch (at most ``versions`` loops), so that what each branch
    computes from the segment alone is hoisted too.  The same values, and the same failures:
    a statement hoisted runs where every element would run it, and a failed check sets the
    least failing site's code, whatever the order."""
    stmts = _statements(lines)
    dep = _dependent(stmts, index)
    out = [ln for st, d in zip(stmts, dep) if not d for ln in st]
    var = [st for st, d in zip(stmts, dep) if d]
    invariant = {x for st, d in zip(stmts, dep) if not d for x in _defined("\n".join(st))}
    cond = None
    if versions >= 2:
        for st in var:
            m = re.fullmatch(r"\s*if \((t\d+)\) \{", st[0])
            if m and m.group(1) in invariant and _branches(st, m.group(1)):
                cond = m.group(1)
                break
    if cond is None:
        return out + [indent + loop] + ["  " + ln for st in var for ln in st] + [indent + "}"]
    sides: list[list[str]] = [[], []]
    for st in var:
        br = _branches(st, cond)
        for side in (0, 1):
            sides[side] += (br[side] if br else st)
    return (out + [f"{indent}if ({cond}) {{"] +
            ["  " + ln for ln in seg_loop_body(sides[0], index, indent, loop, versions // 2)] +
            [f"{indent}}} else {{"] +
            ["  " + ln for ln in seg_loop_body(sides[1], index, indent, loop, versions // 2)] +
            [f"{indent}}}"])


def prelude(strategy: str) -> str:
    """The C prelude of every lowered program for a device kind (``cpu`` or ``gpu``)."""
    return LOOPS[strategy] + "\n" + PRELUDE + (SEG_LOOP + "\n" if strategy == "cpu" else "")


_MATH_CALL = re.compile(r"\bnz_(exp|ln|sin|cos|tan|asin|acos|atan|sinh|cosh|tanh|pow|log)\(")


def math_source(code: str) -> str:
    """The portable math library's C (``lambda_cu.fmath``: bit for bit what the host computes)
    when ``code`` calls one of its functions, else nothing (it is long: a program that does not
    use it does not compile it)."""
    if not _MATH_CALL.search(code):
        return ""
    from lambda_cu import fmath
    return fmath.opencl_source() + "\n"


PRELUDE = r"""
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL FP_CONTRACT OFF
#define NESSIE_ERR(code) atomic_min(err, (code))
inline int nz_tdiv_i(int a, int b) { return b == -1 ? (int)(0u - (uint)a) : a / b; }
inline long nz_tdiv_l(long a, long b) { return b == -1 ? (long)(0ul - (ulong)a) : a / b; }
inline int nz_rem_i(int a, int b) { return b == -1 ? 0 : a % b; }
inline long nz_rem_l(long a, long b) { return b == -1 ? 0 : a % b; }
inline int nz_mod_i(int a, int b) { int r = nz_rem_i(a, b); return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r; }
inline long nz_mod_l(long a, long b) { long r = nz_rem_l(a, b); return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r; }
inline int nz_ipow_i(int a, int e) { uint r = 1u, b = (uint)a; uint k = (uint)e;
  while (k) { if (k & 1u) r *= b; b *= b; k >>= 1; } return (int)r; }
inline long nz_ipow_l(long a, long e) { ulong r = 1ul, b = (ulong)a; ulong k = (ulong)e;
  while (k) { if (k & 1ul) r *= b; b *= b; k >>= 1; } return (long)r; }
inline int nz_negpow_i(int a, int e) { return a == 1 ? 1 : (a == -1 ? ((e % 2 == 0) ? 1 : -1) : 0); }
inline long nz_negpow_l(long a, long e) { return a == 1 ? 1 : (a == -1 ? ((e % 2 == 0) ? 1 : -1) : 0); }
inline int nz_f2i(double x) {
  if (!isfinite(x)) return (int)0x80000000u;
  double r = fmod(x, 4294967296.0);
  return (int)(uint)(ulong)(long)r; }
inline long nz_f2l(double x) {
  if (!isfinite(x)) return (long)0x8000000000000000ul;
  double r = fmod(x, 18446744073709551616.0);
  if (fabs(r) >= 9223372036854775808.0) r = r - copysign(18446744073709551616.0, r);
  /* out of range after the wrap: x86's conversion gives the smallest long (as numpy does);
     some devices saturate instead, so say it explicitly */
  if (!(fabs(r) < 9223372036854775808.0)) return (long)0x8000000000000000ul;
  return (long)r; }
inline long nz_isqrt(long x) {
  if (x < 0) return 0;
  long r = (long)floor(sqrt((double)x));
  if (r * r > x) r -= 1;
  if ((r + 1) * (r + 1) <= x) r += 1;
  return r; }
inline long nz_walk_ids(global const int* restrict offs, long count, long i, long* at) {
  /* the segment of element i (the last of count segments starting at or before it: empty
     segments are skipped as a segment-id vector skips them), searched from the segment found
     last: a few steps forward, else a binary search */
  long a = *at;
  if (a < 0 || (long)offs[a] > i) a = 0;
  int k = 0;
  while (a + 1 < count && (long)offs[a + 1] <= i) {
    if (++k > 8) {
      long lo = a + 1, hi = count - 1;
      while (lo < hi) { long mid = lo + (hi - lo + 1) / 2; if ((long)offs[mid] <= i) lo = mid; else hi = mid - 1; }
      a = lo;
      break;
    }
    a++;
  }
  *at = a;
  return a;
}
inline double nz_fmax(double a, double b) { return isnan(a) ? a : (a > b ? a : b); }
inline double nz_fmin(double a, double b) { return isnan(a) ? a : (a < b ? a : b); }
"""


# ------------------------------------------------------------------------------------------------
# sites and the code generator


@dataclass
class Sites:
    """The failing sites of one lowered SOAC: ``(location, message)`` by site number (one number
    per failing node, whichever of the SOAC's kernels evaluates it; the location is the node's
    ``Loc``, kept as a value: the host maps a kernel's error code back to it)."""
    table: list[tuple[Optional[Loc], str]] = field(default_factory=list)
    memo: dict = field(default_factory=dict)

    def add(self, loc: Optional[Loc], message: str) -> int:
        self.table.append((loc, message))
        return len(self.table) - 1

    def of(self, node: object, loc: Optional[Loc], message: str) -> int:
        k = (node if isinstance(node, str) else id(node), loc, message)
        if k not in self.memo:
            self.memo[k] = self.add(loc, message)
        return self.memo[k]


@dataclass(frozen=True)
class VecAccess:
    """How a thunk reaches a vector: its buffer and length (C names) and element type."""
    buf: str
    length: str
    elem: Type


@dataclass
class Val:
    """A λcu value in C: one C expression per component, with the component types (``ty``: the
    value's structured λcu type where known, for projections of nested tuples)."""
    exprs: list[str]
    types: list[Type]
    ty: Optional[Type] = None


class CGen:
    """Emits the C statements of thunk applications into ``lines``.

    ``vecs`` maps a vector's λcu name (``Var`` name, or ``sd.field`` for a ``SegVec``) to its
    :class:`VecAccess`; thunk parameters, let-bound variables and ``using`` scalars are passed in
    the ``env`` of :meth:`exp` as :class:`Val`.  Temporaries are named ``t<N>``."""

    def __init__(self, vecs: dict[str, VecAccess], sites: Sites, indent: str = "    ",
                 walks: Optional[dict[str, tuple[str, str]]] = None, fast: bool = False) -> None:
        self.vecs = vecs
        self.sites = sites
        #: C expressions whose value is known to lie in ``0 .. bound - 1`` (expression ->
        #: (bound, conditions under which that holds)): a pulled element's index in a loop below
        #: ``n`` (``n <= INT_MAX`` where it is cast to int), a segment id found by a walk
        self.ranges: dict[str, tuple[str, tuple[str, ...]]] = {}
        #: generate the unchecked version: a subscript at an index of known range is not
        #: checked; what makes that safe is collected in ``guards`` (conditions on the kernel's
        #: arguments, tested once per work-item before the fast version runs)
        self.fast = fast
        self.guards: list[str] = []
        #: segment ids computed by walking a descriptor's offsets (``sd.ids`` key -> offsets
        #: buffer and count, C names) where the subscript is a pulled element's own index
        #: (``walk_index``): a work-item's indices increase within its loops on a CPU, so the
        #: segment found for one index is where the search for the next starts
        #: (``nz_walk_ids``, right for any order); the per-work-item positions are declared
        #: at the kernel's top (``state``)
        self.walks = dict(walks or {})
        self.walk_index: set[str] = set()
        #: the walk (``sd.ids`` key) whose segment id the kernel's loop keeps in a variable
        #: (``NZ_SEGFOR``): the id of the loop's own index is that variable, no walk
        self.seg_loop: Optional[tuple[str, str]] = None
        #: a work-item's private error code (the least site that failed), where the kernel
        #: reports it once after its loop (``atomic_min`` on the error buffer at the end, the
        #: same least code): an element loop with no atomic in it can be vectorised
        self.err_var: Optional[str] = None
        self.state: list[str] = []
        self.lines: list[str] = []
        self.indent = indent
        self._n = 0
        #: within one thunk application (``apply``), values already computed, by what computes
        #: them (a subscript of a buffer at an index temporary, a primitive of argument
        #: temporaries): a fused thunk repeats the gathers it inlined (quicksort's filters read
        #: ``v4[seg_offsets(sd0)[v1[seg_ids(sd2)[i]]] + ...]`` once per filter), and each is
        #: emitted once.  A check merged this way is the same condition as the earlier one, which
        #: runs first and fails first, so errors are unchanged.  Scoped: None outside ``apply``,
        #: and what an ``if`` branch computes stays in that branch.
        self._memo: Optional[dict] = None
        self._depth = 0

    # -------------------------------------------------------------- helpers
    def fresh(self) -> str:
        self._n += 1
        return f"t{self._n}"

    def emit(self, line: str) -> None:
        self.lines.append(self.indent + line)

    def temp(self, t: Type, expr: str) -> str:
        name = self.fresh()
        self.emit(f"{ctype(t)} {name} = {expr};")
        return name

    def site(self, key: object, loc: Optional[Loc], message: str) -> int:
        """The site number of a failing node (one number per node, whichever kernel of the SOAC
        evaluates it)."""
        return self.sites.of(key, loc, message)

    def err(self, site: int) -> str:
        if self.err_var is not None:
            return f"{self.err_var} = min({self.err_var}, errbase + {site});"
        return f"NESSIE_ERR(errbase + {site});"


    def block(self, fn) -> list[str]:
        """Run ``fn`` with a fresh line buffer (one level deeper); returns its lines."""
        saved, saved_indent, saved_memo = self.lines, self.indent, self._memo
        self.lines, self.indent = [], self.indent + "  "
        if saved_memo is not None:
            self._memo = dict(saved_memo)
        try:
            fn()
            return self.lines
        finally:
            self.lines, self.indent, self._memo = saved, saved_indent, saved_memo

    def vec(self, e: ir.Exp) -> VecAccess:
        if isinstance(e, ir.Var):
            key = e.name
        elif isinstance(e, ir.SegVec) and isinstance(e.sd, ir.Var):
            key = f"{e.sd.name}.{e.field}"
        else:
            raise LowerError(f"cannot subscript {e} in a thunk")
        acc = self.vecs.get(key)
        if acc is None:
            raise LowerError(f"vector {key} is not available to this thunk")
        return acc

    # -------------------------------------------------------------- thunk application
    def apply(self, th: ir.Thunk, args: list[Val], env: dict[str, Val]) -> Val:
        """Apply a thunk to argument values (one :class:`Val` per parameter, or the flat
        components of all parameters in one Val) in the scalar environment ``env``."""
        if self._depth == 0:
            self._memo = {}
        self._depth += 1
        try:
            return self._apply(th, args, env)
        finally:
            self._depth -= 1
            if self._depth == 0:
                self._memo = None

    def _apply(self, th: ir.Thunk, args: list[Val], env: dict[str, Val]) -> Val:
        inner = dict(env)
        flat_e = [x for a in args for x in a.exprs]
        flat_t = [x for a in args for x in a.types]
        pos = 0
        for p in th.params:
            k = len(comps(p.ty))
            inner[p.name] = Val(flat_e[pos:pos + k], flat_t[pos:pos + k], p.ty)
            pos += k
        return self.exp(th.body, inner)

    # -------------------------------------------------------------- expressions
    def exp(self, e: ir.Exp, env: dict[str, Val]) -> Val:
        if isinstance(e, ir.Var):
            v = env.get(e.name)
            if v is None:
                raise LowerError(f"unbound variable {e.name} in a thunk")
            return v
        if isinstance(e, ir.Const):
            return Val([self.const(e.value, e.ty)] if not isinstance(e.ty, UnitT) else [],
                       [e.ty] if not isinstance(e.ty, UnitT) else [])
        if isinstance(e, ir.Tuple):
            out = Val([], [])
            tys = []
            for x in e.elems:
                v = self.exp(x, env)
                out.exprs += v.exprs
                out.types += v.types
                tys.append(v.ty if v.ty is not None else
                           (v.types[0] if len(v.types) == 1 else self.type_of(x, env)))
            # the structured type, so that a variable bound to a nested tuple destructures right
            out.ty = TupleT(tuple(tys))
            return out
        if isinstance(e, ir.Proj):
            return self.proj(e, env)
        if isinstance(e, ir.Length):
            acc = self.vec(e.vec)
            return Val([self.temp(e.ity, f"({ctype(e.ity)}){acc.length}")], [e.ity])
        if isinstance(e, ir.Index):
            return self.index(e, env)
        if isinstance(e, ir.PrimOp):
            return self.prim(e, env)
        if isinstance(e, ir.If):
            return self.if_(e, env)
        if isinstance(e, ir.Let):
            v = self.exp(e.rhs, env)
            inner = dict(env)
            if len(e.vars) == 1:
                inner[e.vars[0].name] = v
            else:
                parts = self._split(e.rhs, v, len(e.vars), env)
                for var, part in zip(e.vars, parts):
                    inner[var.name] = part
            return self.exp(e.body, inner)
        raise LowerError(f"{type(e).__name__} cannot appear in a thunk: {e}")

    def _split(self, rhs: ir.Exp, v: Val, k: int, env: dict[str, Val]) -> list[Val]:
        """Destructure a tuple value into ``k`` parts (by the tuple type of ``rhs``)."""
        t = self.type_of(rhs, env)
        if isinstance(t, TupleT) and len(t.elems) == k:
            parts = list(t.elems)
        else:
            parts = list(comps(t))
        out, pos = [], 0
        for pt in parts:
            n = len(comps(pt))
            out.append(Val(v.exprs[pos:pos + n], v.types[pos:pos + n], pt))
            pos += n
        return out

    def type_of(self, e: ir.Exp, env: dict[str, Val]) -> Type:
        from lambda_cu.check import gpu_exp_type
        tenv: dict[str, Type] = {}
        for name, v in env.items():
            if v.ty is not None:
                tenv[name] = v.ty
            else:
                tenv[name] = v.types[0] if len(v.types) == 1 else TupleT(tuple(v.types))
        for name, acc in self.vecs.items():
            if "." not in name:
                tenv[name] = VecT(acc.elem)
            else:
                tenv.setdefault(name.split(".")[0], SegDesT())
        return gpu_exp_type(e, tenv)

    def proj(self, e: ir.Proj, env: dict[str, Val]) -> Val:
        v = self.exp(e.tup, env)
        t = self.type_of(e.tup, env)
        if not isinstance(t, TupleT):
            raise LowerError(f"projection of a non-tuple in {e}")
        pos = sum(len(comps(x)) for x in t.elems[:e.index])
        n = len(comps(t.elems[e.index]))
        return Val(v.exprs[pos:pos + n], v.types[pos:pos + n], t.elems[e.index])

    @staticmethod
    def const(value: object, t: Type) -> str:
        if isinstance(t, IntT):
            v = int(value)  # type: ignore[arg-type]
            if t.width == 32:
                return f"((int){v})" if v != -2**31 else "((int)0x80000000u)"
            return f"((long){v}l)" if v != -2**63 else "((long)0x8000000000000000ul)"
        if isinstance(t, FloatT):
            x = float(value)  # type: ignore[arg-type]
            if x != x:
                return "(0.0/0.0)"
            if x in (float("inf"), float("-inf")):
                return "(1.0/0.0)" if x > 0 else "(-1.0/0.0)"
            return f"({x.hex()})" if x != int(x) or abs(x) > 2**53 else f"({x!r})"
        if isinstance(t, BoolT):
            return "((uchar)1)" if value else "((uchar)0)"
        if isinstance(t, CharT):
            return f"((uchar){ord(value)})"  # type: ignore[arg-type]
        raise LowerError(f"constant of type {t}")

    def index(self, e: ir.Index, env: dict[str, Val]) -> Val:
        acc = self.vec(e.vec)
        iv = self.exp(e.idx, env)
        ix = iv.exprs[0]
        # a segment-descriptor field is stored as int but read as its SegVec's int type
        elem = e.vec.ity if isinstance(e.vec, ir.SegVec) else acc.elem
        key = ("index", acc.buf, acc.length, ix, elem)
        if self._memo is not None and key in self._memo:
            return self._memo[key]
        # the site is numbered even where the fast version elides its check: numbers follow
        # the evaluation order, whichever version is generated first
        site = self.site(e, e.loc, MSG_BOUNDS)
        out = self.fresh()
        read = f"{acc.buf}[{ix}]"
        walk = (self.walks.get(f"{e.vec.sd.name}.ids") if isinstance(e.vec, ir.SegVec)
                and e.vec.field == "ids" and isinstance(e.vec.sd, ir.Var) else None)
        if walk is not None and ix in self.walk_index and self.seg_loop is not None \
                and self.seg_loop[0] == f"{e.vec.sd.name}.ids":
            # the loop's segment of its own index (NZ_SEGFOR): 0 <= id < the count
            read = self.seg_loop[1]
            self.ranges[out] = (walk[1], ())
        elif walk is not None and ix in self.walk_index:
            pos = f"{walk[0]}_at"
            decl = f"long {pos} = -1;"
            if decl not in self.state:
                self.state.append(decl)
            read = f"nz_walk_ids({walk[0]}, {walk[1]}, (long)({ix}), &{pos})"
            # a walk finds a segment of the descriptor: 0 <= id < its count
            self.ranges[out] = (walk[1], ())
        known = self.ranges.get(ix) if self.fast and acc.buf != "0" else None
        if known is not None:
            bound, conds = known
            if bound != acc.length:
                conds = conds + (f"(long)({bound}) <= (long)({acc.length})",)
            for c in conds:
                if c not in self.guards:
                    self.guards.append(c)
            self.emit(f"{ctype(elem)} {out} = ({ctype(elem)}){read};")
        else:
            self.emit(f"{ctype(elem)} {out};")
            self.emit(f"if ((long)({ix}) < 0 || (long)({ix}) >= (long)({acc.length})) "
                      f"{{ {self.err(site)} {out} = 0; }} else {out} = ({ctype(elem)}){read};")
        v = Val([out], [elem])
        if self._memo is not None:
            self._memo[key] = v
        return v

    def if_(self, e: ir.If, env: dict[str, Val]) -> Val:
        c = self.exp(e.cond, env).exprs[0]
        t = self.type_of(e, env)
        ts = list(comps(t))
        outs = [self.fresh() for _ in ts]
        for o, ct in zip(outs, ts):
            self.emit(f"{ctype(ct)} {o};")

        def branch(x: ir.Exp):
            def go():
                v = self.exp(x, env)
                for o, ex in zip(outs, v.exprs):
                    self.emit(f"{o} = {ex};")
            return go

        then = self.block(branch(e.then))
        else_ = self.block(branch(e.else_))
        self.emit(f"if ({c}) {{")
        self.lines += then
        self.emit("} else {")
        self.lines += else_
        self.emit("}")
        return Val(outs, ts, t)

    # -------------------------------------------------------------- primitives
    def prim(self, e: ir.PrimOp, env: dict[str, Val]) -> Val:
        from lambda_cu.prims import result_type
        args = [self.exp(a, env) for a in e.args]
        a = [v.exprs[0] for v in args]
        ats = [v.types[0] for v in args]
        rt = result_type(e.op, tuple(ats), e.ty)
        key = ("prim", e.op, tuple(a), tuple(ats), rt)
        if self._memo is not None and key in self._memo:
            return self._memo[key]
        if len(a) == 2 and a[0] == a[1]:
            # one value on both sides (the same subscript computed once, see _memo): a copy,
            # or clang warns "self-comparison always evaluates to true" for x == x
            a = [a[0], self.temp(ats[1], a[1])]
        expr = self.prim_expr(e, a, ats, rt)
        v = Val([self.temp(rt, expr)], [rt])
        # x + 0, 0 + x, x - 0, x * 1, 1 * x are x: its known range carries over (a range
        # [0:n] is inlined as ``0 + i * 1``)
        unit = {"add": 0, "sub": 0, "mul": 1}.get(e.op)
        if unit is not None and isinstance(rt, IntT) and len(e.args) == 2:
            for k in ((0, 1) if e.op != "sub" else (0,)):
                other = e.args[1 - k]
                if isinstance(other, ir.Const) and other.value == unit and ats[k] == rt \
                        and a[k] in self.ranges:
                    self.ranges[v.exprs[0]] = self.ranges[a[k]]
        if self._memo is not None:
            self._memo[key] = v
        return v

    def prim_expr(self, e: ir.PrimOp, a: list[str], ats: list[Type], rt: Type) -> str:
        op = e.op
        t0 = ats[0]
        is_int = isinstance(t0, IntT)
        is_float = isinstance(t0, FloatT)
        sfx = "i" if not is_int or t0.width == 32 else "l"
        ct = ctype(rt)
        if op in ("add", "sub", "mul"):
            sym = {"add": "+", "sub": "-", "mul": "*"}[op]
            if is_int:
                u = utype(t0)
                return f"({ct})(({u}){a[0]} {sym} ({u}){a[1]})"
            return f"({a[0]} {sym} {a[1]})"
        if op == "neg":
            return f"({ct})(0{'u' if t0.width == 32 else 'ul'} - ({utype(t0)}){a[0]})" if is_int \
                else f"(-{a[0]})"
        if op == "abs":
            if is_int:
                return f"({ct})({a[0]} < 0 ? 0{'u' if t0.width == 32 else 'ul'} - ({utype(t0)}){a[0]} : ({utype(t0)}){a[0]})"
            return f"fabs({a[0]})"
        if op in ("div", "rem", "mod"):
            if is_float and op == "div":
                return f"({a[0]} / {a[1]})"
            fn = {"div": "nz_tdiv", "rem": "nz_rem", "mod": "nz_mod"}[op]
            if isinstance(e.args[1], ir.Const) and e.args[1].value:
                # a divisor that is a nonzero constant cannot fail: no site, no check (a thunk
                # with rem(x, 2) has no failing primitive: its fold can be a Lift program)
                return f"{fn}_{sfx}({a[0]}, {a[1]})"
            site = self.site(e, e.loc, MSG_DIV0)
            d = self.temp(t0, a[1])
            self.emit(f"if ({d} == 0) {{ {self.err(site)} {d} = 1; }}")
            return f"{fn}_{sfx}({a[0]}, {d})"
        if op == "pow":
            if is_float:
                return f"nz_pow({a[0]}, (double){a[1]})"
            ex = self.temp(t0, f"({ctype(t0)}){a[1]}")
            # the base in a variable too: a literal base would make the check's `&&` have a
            # constant operand, which clang warns about (PoCL: "1 warning generated.")
            base = self.temp(t0, a[0])
            site = self.site(e, e.loc, MSG_DIV0)
            self.emit(f"if ({ex} < 0 && {base} == 0) {{ {self.err(site)} }}")
            return f"({ex} < 0 ? nz_negpow_{sfx}({base}, {ex}) : nz_ipow_{sfx}({base}, {ex}))"
        if op in ("min", "max"):
            if is_float:
                return f"nz_f{op}({a[0]}, {a[1]})"
            cmp = "<" if op == "min" else ">"
            return f"({a[0]} {cmp} {a[1]} ? {a[0]} : {a[1]})"
        if op in ("eq", "ne") and is_float and e.args[0] == e.args[1]:
            # x != x: NESL's NaN test (max_index, min_index).  As a comparison PoCL's compiler
            # made max_index's fold 20x slower (57 ms for 10^6 doubles; a sum: 3 ms); isnan is
            # the same test (IEEE, no fast math) at the sum's speed
            return f"(uchar)({'' if op == 'ne' else '!'}isnan({a[0]}))"
        if op in ("eq", "ne", "lt", "le", "gt", "ge"):
            sym = {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}[op]
            return f"(uchar)({a[0]} {sym} {a[1]})"
        if op == "not":
            return f"(uchar)(!{a[0]})" if isinstance(t0, BoolT) else f"(~{a[0]})"
        if op in ("and", "or", "xor"):
            sym = {"and": "&", "or": "|", "xor": "^"}[op]
            return f"({ct})({a[0]} {sym} {a[1]})"
        if op in ("nand", "nor"):
            sym = "&" if op == "nand" else "|"
            if isinstance(t0, BoolT):
                return f"(uchar)(!({a[0]} {sym} {a[1]}))"
            return f"(~({a[0]} {sym} {a[1]}))"
        if op in ("lshift", "rshift"):
            # as CMU NESL (C on x86) and lambda_cu.prims: the count modulo the width (its low
            # 5/6 bits); the right shift is arithmetic
            u = utype(t0)
            cnt = f"(({u})({ctype(t0)}){a[1]} & {t0.width - 1}{'u' if t0.width == 32 else 'ul'})"
            if op == "lshift":
                return f"({ct})(({u}){a[0]} << {cnt})"
            return f"({a[0]} >> {cnt})"
        if op == "sqrt":
            return f"sqrt({a[0]})"     # correctly rounded on every device, as IEEE requires
        if op in ("exp", "ln", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh",
                  "tanh"):
            # the portable library (lambda_cu/fmath.py): the same bits as the host's numpy
            # version, not the device's libm
            return f"nz_{op}({a[0]})"
        if op == "log":
            return f"nz_log({a[0]}, {a[1]})"
        if op == "expt":
            return f"nz_pow({a[0]}, {a[1]})"
        if op == "isqrt":
            if e.loc is not None:
                site = self.site(e, e.loc, MSG_ISQRT)
                self.emit(f"if ({a[0]} < 0) {{ {self.err(site)} }}")
            return f"({ct})nz_isqrt((long){a[0]})"
        if op == "to_float":
            return f"(double){a[0]}"
        if op in ("trunc", "floor", "ceil", "round"):
            fn = {"trunc": "trunc", "floor": "floor", "ceil": "ceil", "round": "rint"}[op]
            conv = "nz_f2i" if rt.width == 32 else "nz_f2l"   # type: ignore[attr-defined]
            return f"{conv}({fn}({a[0]}))"
        if op in ("to_int", "btoi", "char_code"):
            if isinstance(rt, IntT) and rt.width == 32 and isinstance(t0, IntT) and t0.width == 64:
                return f"(int)(uint)(ulong){a[0]}"
            return f"({ct}){a[0]}"
        if op == "code_char":
            return f"(uchar)({a[0]} & 255)"
        if op == "select":
            return f"({a[0]} ? {a[1]} : {a[2]})"
        raise LowerError(f"primitive {op} has no OpenCL lowering")


__all__ = ["CGen", "Sites", "Val", "VecAccess", "PRELUDE", "LOOPS", "prelude", "math_source", "LowerError", "ctype", "comps"]
