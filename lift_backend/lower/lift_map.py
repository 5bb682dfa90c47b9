"""MAPs, and the chunk pass of REDUCEs, as Lift programs, compiled by the Lift compiler's own
stages.

A λcu ``MAP {i => e using vs}`` whose thunk reads its vectors at the map's own index (``v[i]``)
and at indices computed from loaded data (``v[e]``), and cannot otherwise fail, is the Lift
program

    userfun uf(x0: t0, ..., a0: u0, ..., s0: w0, ...): t { <e as C> }
    userfun uf_i0(...): int { <the index of the first computed subscript as C> }
    program K(v0: [t0]N, ..., w: [u0]L0, ..., s0: w0, ...) =
      mapGlb(0)(toGlobal(\t -> uf(t._0, ..., arrayAccess(w, uf_i0(t._0, ...)), ..., s0, ...)))
        $ zip(v0, ..., generate(N))

* ``generate(N)`` (the index space, a view without memory) is zipped in when the thunk uses
  ``i`` as a value, and is the only input of a map that reads no vector at ``i`` (``zip`` only
  for two inputs or more).
* A subscript at a computed index is ``arrayAccess(w, k)``, an access view with an index
  expression: the index ``k`` is a value (a user function of what the thunk has read, or a
  value read itself: ``xs[ps[qs[i]]]`` nests two), the read goes through ``w``'s view, and the
  index is checked.  Its ``code`` is the subscript's site number in the SOAC (the number the
  hand-written phase reports), and the kernel is compiled with ``error_base``: a failing check
  does ``atomic_min(err, errbase + code)``, the protocol of every kernel of the runner, so the
  error is the subscript's located message, the same one the numpy runner raises.
* Each distinct subscript is read once.  Fusion inlines a λcu ``let`` into every use, so a
  thunk often holds several copies of one subscript (quicksort's split: ``let a = v4[...] in
  (a, a < p, a == p, a > p)``, each component with its own copy of the gather and of the
  subscripts of its index); a copy equal to an earlier subscript (same vector, index equal up
  to ``let`` names and inlined subscripts, :func:`_canon`; the earlier one unguarded or under an
  equal path condition) is that subscript's value, as in the hand-written phase's value
  numbering.  A read whose value one function uses (the result's, an index's or a guard's) is
  the ``arrayAccess`` argument of that call; one whose value several use is read into a private
  value bound by a lambda, ``(\\a1 -> ... uf(x, a1, ...) ...)(toPrivate(uf_rd)(arrayAccess(w,
  uf_i1(...))))``, the lambdas nested in the thunk's order (a read whose index uses an earlier
  read inside the earlier's lambda), around the map's element function (``with_reads``).  So a
  Lift expression, a tree, copies no read, and :data:`MAX_ACCESSES` bounds the distinct reads.
  Inside a row's ``mapSeq`` the bound value is one private variable of the work-item (the Lift
  compiler's memory allocation does not replicate a private value that no pattern writes as
  its result over the enclosing ``mapSeq``).  The checks are the same as the copies' were: every
  read runs where its path condition holds, and a failing check does ``atomic_min`` with its
  site's code, so the first failing site in the template's order is reported.
* A subscript in a branch of an ``if`` is ``arrayAccessIf(w, k, g)``: ``g`` is the branch's path
  condition (a user function of what the thunk has read), and the read and its check run only
  where it holds, as the branch does in λcu (Lift evaluates a user function's arguments before
  the call, so a plain ``arrayAccess`` would check an index the thunk never reads).
* Several results (a λcu tuple, flat) are one user function returning a Lift tuple; the kernel is
  compiled with ``soa_output``, so it writes one buffer per component, as the runner keeps
  them (the printed ``.lift`` program, compiled alone, writes one array of tuples).
* A checked primitive (integer division, ``rem``, ``mod``, int ``^``, ``isqrt``) cannot report
  from a user function: the result's user function sets a flag per failing site on the path the
  thunk takes (:class:`_FlagGen`) and returns the flags after the results; the program binds
  that value once, ``(\\r -> uf_out(failIf(r._k, r._0), r._1, ...))(toPrivate(uf)(...))``, and
  ``failIf`` reports each flag with its site's code.
* Segment-descriptor fields (``seg_offsets(sd)[r]``, ...) are int vectors like the others,
  except segment ids that a CPU computes by walking the offsets (no buffer exists; a
  segmented reduction's own ids are its rows' indices, below).

It is built with :mod:`lift_backend.ir.builders` and compiled by
:func:`lift_backend.compile_program` (types, address spaces, memory, control flow, barriers,
views, code generation): the lowering decides the strategy (``mapGlb`` over the zipped
inputs), the Lift compiler writes the kernel.  The runner launches it when every input read at
the map's index has the map's length, and that length and those of the vectors read at computed
indices are at most ``INT_MAX`` (Lift's kernels index with ``int``), the map's at least 1;
otherwise it launches the checked hand-written ``map`` phase of the same SOAC.

A REDUCE whose thunk qualifies and whose operator is a primitive with ``init`` its identity gets
its chunk pass as a Lift program: balanced chunks ``partition(P, \\c -> (c + 1) * N / P - c * N /
P)`` of the zipped inputs, each folded by ``reduceSeq(\\acc t -> op(acc, f(t)), init)`` (see
:func:`_is_identity`, :func:`_reduce_functions`); a thunk with a checked primitive returns its
flags with its value, bound in the step, ``\\acc t -> op(acc, (\\r -> uf_out(failIf(r._1,
r._0)))(toPrivate(uf)(t...)))``, as a MAP's result is.

A SEG_REDUCE or SEG_SCAN with such a thunk and operator (any ``init``: each segment starts from
it once) gets its rows plan, one work-item a segment, over ``splitOffsets(offs, zip(...))``, the
descriptor's ``count + 1`` offsets as a position-dependent array: a SEG_REDUCE folds each row
(``toGlobal(mapSeq(id)) o reduceSeq(step, init)``, one result a segment), a SEG_SCAN scans it
exclusively (``toGlobal(scanSeq(step, init))``, one result an element, the accumulator before
it, as λcu's SEG_SCAN), the joined rows -- ``offs[M - 1] - offs[0]`` elements, Lift's
telescoping sum -- its output.

A SEG_REDUCE's or SEG_SCAN's thunk may read the segment ids of its own descriptor at its index
(``seg_ids(sd)[i]``, which a CPU walks from the offsets: no buffer exists): element ``i`` of row
``s`` lies in segment ``s``, so the rows are zipped with their indices, ``zip(splitOffsets(offs,
zip(...)), generate(M - 1))``, and the row's index ``row._1`` is the id the user functions get
(an ``arrayAccess(w, row._1)`` for ``w[seg_ids(sd)[i]]``); the fold's step is built inside the
row's function.  Ids of another descriptor, or at a computed index, are not lifted.

A MAP whose thunk reads the walked ids of one descriptor ``sd`` at its index (the map over
``sd``'s elements: quicksort's gathers, ``v4[seg_offsets(sd0)[v1[seg_ids(sd2)[i]]] + (i -
seg_offsets(sd2)[seg_ids(sd2)[i]])]``) is ``sd``'s rows the same way, each element mapped:
``join o mapGlb(0)(\\row -> toGlobal(mapSeq(\\t -> uf(t..., row._1))) $ row._0) $
zip(splitOffsets(offs, zip(...)), generate(M - 1))``, the joined rows its output
(``LiftMap.rows`` names ``sd``).  The runner launches it only where the map's size is ``sd``'s
total and ``sd`` has many segments of about 2 elements or fewer (``OpenCLRunner._map_rows``:
for longer ones the hand-written map's balanced chunks are faster on a CPU).  A checked
primitive's private results and flags (``checked_result``) are one variable of the work-item
inside the row's ``mapSeq``, as a bound read's value (above).  The ids of two descriptors keep
the hand-written map.

A subscript the hand-written phase does not number (it computed an equal one before: its value
numbering) reports the site of the earlier equal subscript, equal up to ``let`` names and
inlined subscripts (:func:`_canon`), where that site is unique.

A RANK's or SEG_RANK's ``keys`` phase is the map composed with the order-key user function
(:func:`order_key_function`, the ``order_key`` option; see lift_rank.py): ``\\t -> uf_key(uf(...),
i)`` over the inputs zipped with ``generate(N)``, writing the key and the index as two buffers.

A ONCE is the map of length 1 whose thunk ignores its index (:func:`lift_once`).  A scalar an
earlier SOAC of the kernel left on the device (a ``devscalar`` context parameter) is a program
parameter ``d: [t]1`` read as ``arrayAccess(d, 0)``: a constant index its length admits, read
without a check.

An index computed with a checked primitive (``xs[mod(i - 1, n)]``) is a user function returning
the index and its flags, bound before the read, ``(\\r -> ... arrayAccess(w, failIf(r._1,
r._0)) ...)(toPrivate(uf_i0)(...))``; a path condition computed with one is computed silently
(the result's user function reports it: see ``value_function``).  A REDUCE's or SCAN's chunks
(and a SCAN's last pass) reading the segment ids a CPU walks read the id vector, which the
runner computes for them (``LiftMap.ids``), as a MAP's computed subscripts of ids do.

What is not yet a Lift program (the hand-written phase runs): thunks that read lengths as values,
segment ids a CPU walks in a segmented SOAC other than its own descriptor's.  An index that
uses ``let`` variables of the thunk is computed with those ``let``s (their right-hand sides, C arithmetic of
values already read, run again in the index's user function; the subscripts among them are
read once, above).  λcu ``bool`` is Lift's ``bool`` (a ``uchar`` in C); λcu ``char`` (codes
0..255) is Lift's ``char``, read through ``uchar`` in the user function.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Callable, Optional

from lambda_cu import ir
from lambda_cu.types import BoolT, CharT, FloatT, IntT, Type, VecT

from .cgen import CGen, LowerError, Sites, Val, comps, ctype
from ..ir.expr import UserFun, field_names

# element types a Lift program can carry for λcu (λcu bool and char are byte buffers: below)
_LIFT_SCALAR = {("int", 32): "int", ("int", 64): "long", ("float", 64): "double"}


def _lift_scalar(t: Type) -> Optional[str]:
    if isinstance(t, IntT):
        return _LIFT_SCALAR.get(("int", t.width))
    if isinstance(t, FloatT):
        return "double"
    if isinstance(t, BoolT):
        return "bool"       # a uchar in Lift's C, as in λcu's buffers
    if isinstance(t, CharT):
        return "char"       # Lift's char is C's (signed) char: read back as uchar (_c_value)
    return None


def _c_value(name: str, t: Type) -> str:
    """The C value of a user-function parameter as the thunk's C sees it: λcu chars are
    unsigned (codes 0..255), Lift's are C chars, so they are read through ``uchar``."""
    return f"((uchar){name})" if isinstance(t, CharT) else name


@dataclass(frozen=True)
class LiftMap:
    """A MAP compiled by the Lift compiler: the program, its OpenCL kernel, and how the runner
    fills the kernel's arguments (``args``, in the kernel's order: ``("host", j)``: argument
    ``j`` of the SOAC's context (a vector's or segment field's buffer, a host scalar);
    ``("len", j)``: the length in context argument ``j``, as an ``int``; ``("out",)``;
    ``("size",)``: the map's length; ``("chunks",)``: a REDUCE's number of chunks; ``("err",)``/``("errbase",)``: the context's error buffer
    and base, for the checks of ``arrayAccess``)."""
    program: object          # lift_backend.ir.expr.Program
    kernel: object           # lift_backend.opencl.compile.CompiledKernel
    inputs: tuple            # context arguments holding the lengths of the vectors read at
                             # the map's index (the zipped inputs): each must be the map's
    args: tuple
    #: a MAP run as the rows of a segment descriptor (it reads the segment ids of that
    #: descriptor at its index): the descriptor's λcu name, whose offsets are ``("offs",)`` and
    #: its count + 1 ``("segs1",)``, launched one work-item a segment; None for the others
    rows: Optional[str] = None
    #: a SEG_REDUCE's or SEG_SCAN's rows reading their segment's id (the row's index): every
    #: subscript at the id is checked and read again for each element (the template reads it
    #: once a segment), so the runner launches them only for short segments (``_segid_rows``)
    segid: bool = False
    #: descriptors whose segment ids the kernel reads from their id vector where the
    #: hand-written phases walk the offsets (a MAP's subscript of ``seg_ids(sd)`` at a computed
    #: index): not ``ids_unread`` (``Context.settle_walks``), so the runner computes that vector
    #: (``sd_ids``, once a descriptor) for the SOAC
    ids: tuple = ()

    @property
    def name(self) -> str:
        return self.kernel.name

    def text(self) -> str:
        """The Lift program with its user function, as a ``.lift`` file (parseable)."""
        from ..syntax import file_text
        return file_text([self.program]).rstrip("\n")


def kernel_args(kern, what: "str | Callable[[], str]", sizes: dict, named: dict,
                output=None) -> tuple:
    """The runner's argument list of the compiled Lift kernel ``kern``, in its parameters'
    order (see :class:`LiftMap`): its outputs ``("out", k)`` (or ``output`` for each, where the
    kernel writes one buffer the runner names), ``("err",)`` and ``("errbase",)`` for the error
    buffer and base, a size variable's entry in ``sizes`` (by its name: ``N``, ``P``, ...) and
    another parameter's in ``named`` (by its name; a ``marks`` buffer by the kind ``"marks"``).
    A parameter neither names is a lowering bug, reported with ``what`` (the program's name; a
    function of no arguments giving it, called only then, where it costs a printing)."""
    args = []
    for kp in kern.params:
        if kp.kind == "output":
            a = output if output is not None else ("out", sum(x[0] == "out" for x in args))
        elif kp.kind == "errors":
            a = ("err",)
        elif kp.kind == "errbase":
            a = ("errbase",)
        elif kp.kind == "size":
            a = sizes.get(kp.name)
        else:
            a = named.get("marks") if kp.kind == "marks" else named.get(kp.name)
        if a is None:   # pragma: no cover - a lowering bug
            raise LowerError(f"the Lift kernel {what() if callable(what) else what} has an "
                             f"unexpected parameter {kp}")
        args.append(a)
    return tuple(args)


class _NotElementwise(Exception):
    pass


#: the key of ``reads`` (see :func:`_elementwise`) for the map's index used as a value (no λcu
#: variable has an empty name)
INDEX = ""

#: the ``permute`` vector (see :func:`lift_map`) standing for positions a PERMUTE's, SEG_PERMUTE's
#: or SCATTER's index thunk computes, written by its own Lift MAP (no λcu variable starts with '%')
POSITIONS = "%pos"

#: the most ``arrayAccess`` calls a lifted MAP may have: its distinct reads (each read once,
#: into a private value where several functions use it, so the program grows linearly with
#: them; an n-way NESL branch over segments reads about 4n: bfs_levels' 11-way one 45)
MAX_ACCESSES = 64


@dataclass(frozen=True)
class _At:
    """A subscript at a computed index: ``var`` stands for ``vec[idx]`` in the rewritten body
    (``idx`` rewritten too); ``node`` is the λcu ``Index`` (its failing site)."""
    var: str
    vec: str
    idx: ir.Exp
    node: ir.Index
    guard: Optional[ir.Exp] = None   # the path condition of a subscript in a branch


class _FlagGen(CGen):
    """The C of a Lift user function: a failing site (a checked division, ...) does not write the
    error buffer (a user function cannot reach it) but sets a flag the function returns; the
    Lift program reports it with ``failIf`` and the site's code in the SOAC (``codes``: the
    hand-written phase's ``Sites.memo``; a site it does not number refuses the MAP)."""

    def __init__(self, *args, codes: Optional[dict] = None, origins: Optional[dict] = None,
                 silent: bool = False, **kw) -> None:
        super().__init__(*args, **kw)
        self.codes = codes
        self.origins = origins or {}
        self.flags: list = []          # (C flag name, code), one per failing site
        #: a failing site reports nothing (a path condition's: see ``lift_map.value_function``)
        self.silent = silent

    def site(self, key: object, loc, message: str) -> int:
        n = super().site(key, loc, message)
        if self.silent:
            return -1
        if self.codes is None:
            return n
        if not isinstance(key, str):
            key = self.origins.get(id(key), (key,))[0]
        code = self.codes.get((key if isinstance(key, str) else id(key), loc, message))
        if code is None:
            # a node rebuilt outside this module (a FILTER's predicate composed with its thunk,
            # lift_filter.count_reduce): the hand-written phase's site of the same location and
            # message, where it numbered exactly one
            same = [c for (_, l2, m2), c in self.codes.items() if l2 == loc and m2 == message]
            if len(same) != 1:
                raise _NotElementwise
            code, = same
        self.flags.append((f"nzf{len(self.flags)}", code))
        return len(self.flags) - 1

    def err(self, site: int) -> str:
        if self.silent:
            return ""
        if self.codes is None:
            return super().err(site)
        return f"{self.flags[site][0]} = 1;"


def _vec_key(e: ir.Exp, segtypes: Optional[dict]) -> Optional[str]:
    """The name under which the SOAC's context passes the vector ``e`` (a variable, or a field
    of a segment descriptor ``sd.field`` when ``segtypes`` records the fields' int types)."""
    if isinstance(e, ir.Var):
        return e.name
    if isinstance(e, ir.SegVec) and isinstance(e.sd, ir.Var) and segtypes is not None:
        key = f"{e.sd.name}.{e.field}"
        if segtypes.setdefault(key, e.ity) != e.ity:
            return None
        return key
    return None


def _wrap(e: ir.Exp, lets: tuple) -> ir.Exp:
    """``e`` inside the ``let``s of ``lets`` (outermost first) whose variables it uses."""
    for vs, rhs in reversed(lets):       # innermost first
        if any(v.name in ir.free_vars(e) for v in vs):
            e = ir.Let(vs, rhs, e)
    return e


def _canon(e: ir.Exp, ats: list, env: Optional[dict] = None):
    """A value of ``e`` (an index of the rewritten thunk) equal for equal computations: the
    subscripts at computed indices (``%at`` variables) and the ``let``s inlined, locations left
    out -- two subscripts of one vector whose indices are equal read the same element (the
    hand-written phase computes such a read once, see ``CGen._memo``)."""
    env = env or {}
    if isinstance(e, ir.Var):
        if e.name in env:
            return env[e.name]
        at = next((a for a in ats if a.var == e.name), None)
        if at is not None:
            return ("at", at.vec, _canon(at.idx, ats))
        return ("var", e.name)
    if isinstance(e, ir.Let):
        rhs = _canon(e.rhs, ats, env)
        inner = dict(env)
        if len(e.vars) == 1:
            inner[e.vars[0].name] = rhs
        else:
            inner.update({v.name: ("proj", rhs, j) for j, v in enumerate(e.vars)})
        return _canon(e.body, ats, inner)
    if isinstance(e, ir.Exp):
        out = [type(e).__name__]
        for fname in field_names(e):
            if fname == "loc":
                continue
            x = getattr(e, fname)
            if isinstance(x, ir.Exp):
                out.append(_canon(x, ats, env))
            elif isinstance(x, tuple):
                out.append(tuple(_canon(y, ats, env) if isinstance(y, ir.Exp) else y for y in x))
            else:
                out.append(x)
        return tuple(out)
    return e


def _elementwise(body: ir.Exp, i: str, reads: dict, ats: Optional[list] = None,
                 guard: Optional[ir.Exp] = None, segtypes: Optional[dict] = None,
                 lets: tuple = (), origins: Optional[dict] = None) -> ir.Exp:
    """``body`` with every ``v[i]`` and every other use of ``i`` replaced by a fresh variable
    (``reads``: vector name, or :data:`INDEX` for ``i`` itself -> variable name) and, where
    ``ats`` is a list, every other subscript ``v[e]`` of a vector by a fresh variable too
    (appended to ``ats`` as an :class:`_At`, inner subscripts first: the order in which they are
    evaluated; each index wrapped in the thunk's ``let``s whose variables it uses, ``lets``
    being those around ``body``; in a branch of an ``if``, with the branch's path condition
    ``guard``, closed over the ``let``s around the ``if``); raises :class:`_NotElementwise`
    when another subscript, a length or a segment field is read, or ``i`` is shadowed."""
    if isinstance(body, ir.Index):
        key = _vec_key(body.vec, segtypes)
        if key is None:
            raise _NotElementwise
        if isinstance(body.idx, ir.Var) and body.idx.name == i:
            v = reads.setdefault(key, f"%lift{len(reads)}")
            return ir.Var(v)
        if ats is None:
            raise _NotElementwise
        idx = _wrap(_elementwise(body.idx, i, reads, ats, guard, segtypes, lets, origins), lets)
        at = _At(f"%at{len(ats)}", key, idx, body, guard)
        ats.append(at)
        return ir.Var(at.var)
    if isinstance(body, (ir.Length, ir.SegVec)):
        raise _NotElementwise
    if isinstance(body, ir.Var):
        if body.name == i:      # the index as a value: an element of generate(N)
            return ir.Var(reads.setdefault(INDEX, f"%lift{len(reads)}"))
        return body
    if isinstance(body, ir.Let):
        if any(v.name == i for v in body.vars):
            raise _NotElementwise
        rhs = _elementwise(body.rhs, i, reads, ats, guard, segtypes, lets, origins)
        inner = _elementwise(body.body, i, reads, ats, guard, segtypes, lets + ((body.vars, rhs),), origins)
        if rhs is body.rhs and inner is body.body:
            return body
        return dataclasses.replace(body, rhs=rhs, body=inner)
    if isinstance(body, ir.If):
        cond = _elementwise(body.cond, i, reads, ats, guard, segtypes, lets, origins)
        # the path conditions of the branches, closed over the lets around the if (a let in a
        # branch may shadow a variable of the condition)
        c = _wrap(cond, lets)
        nc = ir.PrimOp("not", (c,))
        g_then = c if guard is None else ir.PrimOp("and", (guard, c))
        g_else = nc if guard is None else ir.PrimOp("and", (guard, nc))
        then = _elementwise(body.then, i, reads, ats, g_then, segtypes, lets, origins)
        else_ = _elementwise(body.else_, i, reads, ats, g_else, segtypes, lets, origins)
        if cond is body.cond and then is body.then and else_ is body.else_:
            return body
        return dataclasses.replace(body, cond=cond, then=then, else_=else_)
    if not isinstance(body, (ir.Const, ir.Tuple, ir.Proj, ir.PrimOp, ir.Let)):
        raise _NotElementwise
    changes = {}
    for fname in field_names(body):
        x = getattr(body, fname)
        if isinstance(x, ir.Exp) and not (isinstance(body, ir.Let) and fname == "vars"):
            y = _elementwise(x, i, reads, ats, guard, segtypes, lets, origins)
            if y is not x:
                changes[fname] = y
        elif isinstance(x, tuple) and x and all(isinstance(y, ir.Exp) for y in x) \
                and not (isinstance(body, ir.Let) and fname == "vars"):
            ys = tuple(_elementwise(y, i, reads, ats, guard, segtypes, lets, origins) for y in x)
            if any(a is not b for a, b in zip(ys, x)):
                changes[fname] = ys
    if not changes:
        return body
    new = dataclasses.replace(body, **changes)
    if origins is not None:     # the node the hand-written phase numbered (its failing site)
        origins[id(new)] = (origins.get(id(body), (body,))[0], new)
    return new


#: the work-group size of a Lift MAP on a CPU, launched with one work-item per element
CPU_LOCAL = 256


def _is_identity(op: ir.Thunk, init: ir.Exp, t: Type) -> bool:
    """Whether ``init`` is an identity of the operator ``op`` (a primitive applied to its two
    parameters) on ``t``: then folding every chunk from ``init`` gives the REDUCE's result (λcu
    applies ``init`` once, so another one, as in ``REDUCE f (0.5) +``, would be counted once
    per chunk).  ``+0.0`` counts for a float sum: it differs from the exact identity ``-0.0``
    only on a chunk that sums to ``-0.0``, and the combining pass adds ``init`` again, which
    makes such a total ``+0.0`` either way."""
    import math
    body = op.body
    if not (isinstance(body, ir.PrimOp) and len(body.args) == 2 and isinstance(init, ir.Const)):
        return False
    if sorted(a.name if isinstance(a, ir.Var) else "" for a in body.args) != sorted(p.name for p in op.params):
        return False
    name, v = body.op, init.value
    if isinstance(t, FloatT):
        return {"add": v == 0.0, "mul": v == 1.0, "max": v == -math.inf, "min": v == math.inf}.get(name, False)
    if isinstance(t, IntT):
        lo, hi = -(1 << (t.width - 1)), (1 << (t.width - 1)) - 1
        return {"add": 0, "mul": 1, "xor": 0, "or": 0, "and": -1, "max": lo, "min": hi}.get(name) == v \
            and not isinstance(v, bool)
    if isinstance(t, BoolT):
        return {"or": False, "xor": False, "max": False, "and": True, "min": True}.get(name) is v
    if isinstance(t, CharT):
        return {"max": chr(0), "min": chr(255)}.get(name) == v
    return False


def _is_identity_of_components(op: ir.Thunk, inits: tuple, ts: list) -> bool:
    """:func:`_is_identity` of an operator on tuples of ``len(ts)`` components: its body is the
    tuple of primitives applied component-wise (``(l.0 + r.0, max(l.1, r.1))``, the parameters
    tuples or their flat components), each ``init`` component an identity of its primitive."""
    k = len(ts)
    if k == 1:
        return _is_identity(op, inits[0], ts[0])
    body = op.body
    if not (isinstance(body, ir.Tuple) and len(body.elems) == k and len(inits) == k):
        return False
    ps = op.params
    for j, (e, init, t) in enumerate(zip(body.elems, inits, ts)):
        if not (isinstance(e, ir.PrimOp) and len(e.args) == 2):
            return False
        if len(ps) == 2:        # (l, r): the components are projections
            want = (ps[0].name, ps[1].name)
            got = tuple(a.tup.name if isinstance(a, ir.Proj) and isinstance(a.tup, ir.Var)
                        and a.index == j else None for a in e.args)
        elif len(ps) == 2 * k:  # (l0, ..., lk-1, r0, ..., rk-1)
            want = (ps[j].name, ps[k + j].name)
            got = tuple(a.name if isinstance(a, ir.Var) else None for a in e.args)
        else:
            return False
        if sorted(got, key=str) != sorted(want):
            return False
        a, b = ir.Var("%a"), ir.Var("%b")
        single = ir.Thunk((ir.Param(a, t), ir.Param(b, t)), ir.PrimOp(e.op, (a, b)))
        if not _is_identity(single, init, t):
            return False
    return True


def _reduce_functions(kname: str, soac: ir.Reduce, main, scal: list, scal_env: dict, user_function,
                      need_identity: bool = True):
    """The user functions of a REDUCE's Lift chunks, or None where it has none: its operator
    ``op(acc, x, scalars...)`` (no failing site; on a Lift tuple where the thunk has several
    components), its ``init`` (a user function of the scalars) and the copy of a chunk's result
    to the output (this kernel's own ``id``: the kernels of one λcu kernel build as one OpenCL
    program).  A thunk with a failing primitive returns its flags with its value, reported by
    ``failIf`` in the fold's step (``main_value``'s ``checked_result``).

    With ``need_identity`` (a REDUCE's or SCAN's chunks, folded from ``init`` and combined by the
    carry phase, which applies ``init`` again) and an ``init`` that is not the operator's
    identity (``max_index``'s ``(-inf, -1)`` with an operator preferring the left argument when
    the right's index is negative), the chunks fold from their first element instead: the
    accumulator is the value and a ``started`` flag, ``op1(a, x) = a.started ? (op(a.value, x),
    true) : (x, true)`` from ``(0, false)``, and the copy to the output drops the flag -- the
    template chunks' own fold.  Every chunk has an element (the runner's ``P`` is at most ``n``)."""
    from ..ir.builders import userfun
    from ..types import ScalarType, TupleType, c_type_name
    ts = list(main[2])
    k = len(ts)
    if not ts or len(soac.init_exps) != k:
        return None
    flat_params = [c for p in soac.op.params for c in comps(p.ty)]
    if flat_params != ts + ts:
        return None
    first = need_identity and not _is_identity_of_components(soac.op, tuple(soac.init_exps), ts)
    lts = [_lift_scalar(t) for t in ts]
    if None in lts:
        return None
    names = {p.name for p in soac.op.params}
    if not (ir.free_vars(soac.op.body) - names) <= set(scal_env):
        return None
    if not set().union(*(ir.free_vars(e) for e in soac.init_exps)) <= set(scal_env):
        return None
    own = Sites()
    gen = CGen({}, own, indent="  ")
    if k == 1:
        accs, xs = [_c_value("acc", ts[0])], [_c_value("x", ts[0])]
    else:
        accs = [_c_value(f"acc._{j}", t) for j, t in enumerate(ts)]
        xs = [_c_value(f"x._{j}", t) for j, t in enumerate(ts)]
    try:
        out = gen.apply(soac.op, [Val(accs, ts, ts[0] if k == 1 else None), Val(xs, ts, ts[0] if k == 1 else None)],
                        dict(scal_env))
    except LowerError:
        return None
    if own.table or gen.state or list(out.types) != ts:
        return None
    st = ScalarType(lts[0]) if k == 1 else TupleType(tuple(ScalarType(lt) for lt in lts))
    value = out.exprs[0] if k == 1 else f"({c_type_name(st)}){{{', '.join(out.exprs)}}}"
    src = "\n".join(gen.lines + [f"  return {value};"])
    op_uf = userfun(f"uf_{kname}_op", [("acc", st), ("x", st)] + [(cn, ScalarType(l)) for cn, _, l in scal],
                    st, "\n" + src + "\n")
    init_e = soac.init_exps[0] if k == 1 else ir.Tuple(tuple(soac.init_exps))
    init = user_function(f"uf_{kname}_init", init_e, tuple({type(t) for t in ts}), several=k > 1)
    if init is None or init[1] or init[3] or list(init[2]) != ts:
        return None
    id_uf = userfun(f"uf_{kname}_id", [("x", st)], st, "\n  return x;\n")
    if not first:
        return op_uf, init[0], id_uf
    # the chunks fold from their first element: (value..., started); the step is the operator's
    # code above (gen), on the value part of the accumulator ``sacc`` declared as its ``acc``
    at = TupleType(tuple(ScalarType(lt) for lt in lts) + (ScalarType("bool"),))
    an = c_type_name(at)
    xs = ["x"] if k == 1 else [f"x._{j}" for j in range(k)]
    acc = "sacc._0" if k == 1 else f"({c_type_name(st)}){{{', '.join(f'sacc._{j}' for j in range(k))}}}"
    src = "\n".join([f"  {c_type_name(st)} acc = {acc};"] + gen.lines +
                    [f"  if (!sacc._{k}) return ({an}){{{', '.join(xs)}, 1}};",
                     f"  return ({an}){{{', '.join(out.exprs)}, 1}};"])
    sparams = [(cn, ScalarType(l)) for cn, _, l in scal]
    op1 = userfun(f"uf_{kname}_op1", [("sacc", at), ("x", st)] + sparams, at, "\n" + src + "\n")
    init1 = userfun(f"uf_{kname}_init1", sparams, at,
                    f"\n  return ({an}){{{', '.join(['0'] * (k + 1))}}};\n")
    value = "x._0" if k == 1 else f"({c_type_name(st)}){{{', '.join(f'x._{j}' for j in range(k))}}}"
    id1 = userfun(f"uf_{kname}_id1", [("x", at)], st, f"\n  return {value};\n")
    return op1, init1, id1


def lift_map(kname: str, soac: ir.Map, tenv: dict, ctx, sites: Optional[Sites] = None,
             strategy: str = "cpu", scan_phase: bool = False, carry_phase: bool = False,
             permute: Optional[tuple] = None, filter_write: Optional[tuple] = None,
             rejected: bool = False, order_key: Optional[tuple] = None,
             suffix: Optional[str] = None) -> Optional[LiftMap]:
    """The MAP ``soac`` of kernel ``kname`` as a compiled Lift program, or None where it is not
    one (see the module's docstring).  ``sites``: the SOAC's failing sites, numbered by its
    hand-written phases; a subscript at a computed index reports its site's number from the
    Lift kernel (``arrayAccess`` with that code), so the runner maps it to the same location.
    Without ``sites`` only element-wise thunks are lifted.

    On a CPU (``strategy``) the runner launches one work-item per element in work-groups of
    :data:`CPU_LOCAL` (``N`` rounded up): the kernel is compiled knowing that (a global size of
    ``N + CPU_LOCAL - 1``), so the Lift compiler's control-flow simplification makes its
    ``mapGlb`` an ``if`` instead of a loop, which PoCL runs about twice as fast.  On a GPU it
    strides over the elements as the hand-written loops do.

    ``permute``: ``(vector, code)`` where ``soac`` is a PERMUTE whose index thunk reads the int
    vector ``vector`` at its index (lift_permute.py): the map's results are written through
    ``permuteIdx(ix, ...)`` (checked positions reporting ``code``, each written once).  With a
    third component ``"last"`` (a SCATTER, lift_scatter.py) they are written through
    ``scatterLastIdx(ix, win, ...)`` instead: element ``k`` at ``ix[k]`` where the claims ``win``
    (``[int]M``, the destinations' length) name it the last writer.  ``vector`` :data:`POSITIONS`
    is a PERMUTE's, SEG_PERMUTE's (local positions) or SCATTER's index thunk computed by its own
    Lift MAP (``{kname}_liftpos``, lift_permute.py) into a buffer of the SOAC's length, the
    kernel's ``ix`` (argument ``("pos",)``), of the type ``tenv[POSITIONS]``.

    ``suffix``: the program's name is ``{kname}_{suffix}`` (by default ``lift``, or the phase's
    name below).

    ``filter_write``: ``soac`` is the MAP ``{i => let x = f(i) in p(x)}`` of a FILTER's thunk
    ``f`` and predicate ``p``, and ``filter_write`` the inputs that ``f`` reads at ``i``, in the
    order of its result's components (:data:`INDEX` for ``i``): the program is the FILTER's write
    phase, ``filterSeq`` over the balanced chunks (see lift_filter.py), or None where the zipped
    inputs are not exactly ``f``'s result (``rejected``: a PARTITION's rejected elements, the
    MAP's predicate negated, ``{kname}_liftreject``).

    ``order_key``: ``(bits, descending)`` where ``soac`` is a RANK or SEG_RANK (lift_rank.py):
    the program is its ``keys`` phase, the map's value composed with the order-key user function
    (:func:`order_key_function`), ``\\t -> uf_key(uf(...), i)``, writing the unsigned key (``uint``
    for 8 and 32 bits, ``long``'s bits for 64) and the element's index ``i`` (the index space is
    zipped in), ``{kname}_liftkeys``."""
    from .. import compile_program
    from ..errors import LiftError
    from ..ir.builders import (filterSeq, id_, join, lam, mapGlb, mapSeq, partition, program, reduceSeq,
                               scanSeq, splitOffsets, toGlobal, toPrivate, userfun, zip_)
    from ..ir.expr import FunCall, Literal
    from ..ir.patterns import At, AtIf, FailIf, Generate, Get, ScatterIdx
    from ..types import ArrayType, ScalarType, TupleType, c_type_name
    from .. import arith as A
    from ..arith import size_var
    from lambda_cu.errors import MSG_BOUNDS

    f = soac.f
    if len(f.params) != 1:
        return None
    # the user functions' names: a SCAN's two Lift programs build into one OpenCL program
    ukname = (f"{kname}_{suffix}" if suffix else f"{kname}_s" if scan_phase else f"{kname}_c" if carry_phase
              else f"{kname}_{'r' if rejected else 'w'}" if filter_write else kname)
    if carry_phase and not isinstance(soac, (ir.Reduce, ir.Scan)):
        return None
    reads: dict = {}
    ats: Optional[list] = [] if sites is not None else None
    segtypes: Optional[dict] = {} if sites is not None else None
    origins: dict = {}
    try:
        body = _elementwise(f.body, f.params[0].name, reads, ats, segtypes=segtypes, origins=origins)
    except _NotElementwise:
        return None
    ats = ats or []
    segtypes = segtypes or {}
    # the context parameters of each vector: (buffer, length)
    where: dict = {}
    for j, p in enumerate(ctx.params):
        key = f"{p.name}.{p.extra}" if p.kind in ("sdbuf", "sdlen") else p.name
        if p.kind in ("vecbuf", "sdbuf"):
            where.setdefault(key, [None, None])[0] = j
        elif p.kind in ("veclen", "sdlen"):
            where.setdefault(key, [None, None])[1] = j

    # a plain MAP, and a REDUCE's or SCAN's chunks and a SCAN's last pass, read walked segment
    # ids (those a CPU's hand-written phases compute by walking the offsets; a MAP: other than
    # its rows' own) from their id vector, which the runner computes for its Lift kernels
    # (``LiftMap.ids``); the other programs built here do not
    plain_map = isinstance(soac, (ir.Map, ir.Reduce, ir.Scan)) and permute is None and \
        filter_write is None and not carry_phase and order_key is None
    ids_read: set = set()

    def vec_types(key: str):
        """(element type of the buffer, λcu type of a value read) of a vector, or None."""
        if key not in where or None in where[key]:
            return None
        if key in segtypes:
            # a segment-descriptor field (an int buffer); segment ids a CPU computes by
            # walking the offsets exist as a buffer only where the runner computes them
            if key in ctx.walks:
                if carry_phase:         # the carry phase reads the chunk results alone
                    return IntT(32), segtypes[key]
                if not plain_map:
                    return None
                ids_read.add(key[:-len(".ids")])
            return IntT(32), segtypes[key]
        t = tenv.get(key)
        if not isinstance(t, VecT) or _lift_scalar(t.elem) is None:
            return None
        return t.elem, t.elem

    # the segment ids of a SEG_REDUCE's or SEG_SCAN's own descriptor read at its index: in its
    # rows plan element i of row s lies in segment s, so the id is the row's index (an element
    # of generate(M - 1) zipped with the rows), not a vector: no buffer needed, none walked
    own_ids = f"{soac.sd.name}.ids" if isinstance(soac, (ir.SegReduce, ir.SegScan)) and \
        isinstance(soac.sd, ir.Var) and not carry_phase else None
    # a MAP reading the walked ids of one descriptor at its index gets the same rows: those of
    # that descriptor (``rows_sd``), the runner launching them where the map's size is its total
    rows_sd = None
    if isinstance(soac, ir.Map) and permute is None and filter_write is None and not scan_phase:
        walked = [name for name in reads if name in ctx.walks]
        if len(walked) == 1:
            own_ids = walked[0]
            rows_sd = own_ids[:-len(".ids")]
    if own_ids in reads and segtypes.get(own_ids) is not None and own_ids[:-len(".ids")] in tenv:
        segid = own_ids
    else:
        segid, rows_sd = None, None
    if not reads or set(reads) == {segid}:
        # a constant map (or one reading only its segment's id): over generate(N), its
        # element unused
        reads[INDEX] = f"%lift{len(reads)}"
    if order_key is not None:
        if not isinstance(soac, (ir.Rank, ir.SegRank)):
            return None
        # the keys phase writes each element's index: the index space is an input
        reads.setdefault(INDEX, f"%lift{len(reads)}")
    ins = []                        # (λcu vector name or INDEX, buffer element type, value type)
    for name in reads:
        if name == INDEX:
            it = f.params[0].ty
            if not isinstance(it, IntT):
                return None
            ins.append((INDEX, it, it))
            continue
        if name == segid:
            # the row's index: an int (the runner launches only while the count is below INT_MAX)
            ins.append((segid, IntT(32), segtypes[segid]))
            continue
        vt = vec_types(name)
        if vt is None:
            return None
        ins.append((name,) + vt)
    codes = []                      # the failing site of each access
    for at in ats:
        if vec_types(at.vec) is None:
            return None
        code = sites.memo.get((id(at.node), at.node.loc, MSG_BOUNDS))
        if code is None:
            # the hand-written phase reads an equal subscript that runs before this one on
            # every path to it once: that one's site (it fails first).  Which one, when several
            # earlier subscripts are equal, is not known here: then the MAP is not lifted
            key = _canon(ir.Index(ir.Var(at.vec), at.idx), ats)
            equal = {c for a, c in zip(ats, codes) if _canon(ir.Index(ir.Var(a.vec), a.idx), ats) == key}
            if len(equal) != 1:
                return None
            code, = equal
        codes.append(code)
    # the subscripts equal to an earlier one (equal vector and index up to let names and
    # inlined subscripts, :func:`_canon`) read its value (the hand-written phase's value
    # numbering): ``alias`` maps the later one's variable to the earlier's.  The earlier one must
    # be read wherever the later is: unguarded, or under an equal path condition; its site fails
    # first (the sites are numbered in the thunk's order)
    alias: dict = {}
    seen: list = []                 # (key, guard key, variable) of the subscripts read
    for at in ats:
        key = _canon(ir.Index(ir.Var(at.vec), at.idx), ats)
        gkey = None if at.guard is None else _canon(at.guard, ats)
        rep = next((v for k2, g2, v in seen if k2 == key and (g2 is None or g2 == gkey)), None)
        if rep is not None:
            alias[at.var] = rep
        else:
            seen.append((key, gkey, at.var))
    # the scalars the thunks read: host parameters of the SOAC's context only
    local = set(reads.values()) | {at.var for at in ats}
    free = (ir.free_vars(body).union(*(ir.free_vars(at.idx) for at in ats))
            .union(*(ir.free_vars(at.guard) for at in ats if at.guard is not None))) - local
    host = {}
    for j, p in enumerate(ctx.params):
        if p.name in free:
            if p.kind not in ("host", "devscalar"):
                return None
            host.setdefault(p.name, []).append(j)
    if set(host) != free:
        return None

    # the user functions: one computes the result, one each index that is not a variable
    scal: list = []              # (lift param name, index into ctx.params, lift type)
    scal_env: dict = {}
    for name in sorted(host):
        v = ctx.env[name]
        names = []
        for j, ct in zip(host[name], v.types):
            lt = _lift_scalar(ct)
            if lt is None:
                return None
            cn = f"s{len(scal)}"
            scal.append((cn, j, lt))
            names.append(_c_value(cn, ct))
        scal_env[name] = Val(names, list(v.types), v.ty)
    # λcu variable -> (C parameter name, λcu type, Lift type) of the values a thunk may read
    value_of: dict = {}

    def c_value(cn: str, buf, t) -> str:
        if buf != t:        # a segment field stored as int, read as a long
            return f"(({ctype(t)}){cn})"
        return _c_value(cn, t)

    for k, (name, buf, t) in enumerate(ins):
        cn = f"x{k}"
        # generate(N) gives int indices (the runner launches only while N <= INT_MAX)
        value_of[reads[name]] = (cn, t, "int" if name == INDEX else _lift_scalar(buf),
                                 f"(({ctype(t)}){cn})" if name == INDEX else c_value(cn, buf, t))
    for k, at in enumerate(ats):
        buf, t = vec_types(at.vec)
        cn = f"a{k}"
        value_of[at.var] = (cn, t, _lift_scalar(buf), c_value(cn, buf, t))

    def user_function(name: str, e: ir.Exp, kinds: tuple, several: bool = False,
                      flagged: bool = False, silent: bool = False):
        """``e`` as a user function of the values it reads (in ``value_of``'s order) and the
        scalars: (function, the λcu variables it reads, its λcu result types, the codes of its
        failing sites), or None; with ``several``, a value of several components is returned as
        a Lift tuple, followed by one ``bool`` flag per failing site (a checked division, ...):
        set where the thunk's path fails there (see :class:`_FlagGen`); with ``flagged``, one
        component and its flags (an index computed with a checked primitive); with
        ``silent``, a failing primitive computes a value (a zero divisor taken as 1) and
        reports nothing."""
        fv = ir.free_vars(e)
        # a subscript equal to an earlier one is that one's value: one parameter for both
        reps = {alias.get(v, v) for v in fv}
        used = [v for v in value_of if v in reps]
        env = dict(scal_env)
        uparams = []
        for v in used:
            cn, t, lt, cv = value_of[v]
            env[v] = Val([cv], [t], t)
            uparams.append((cn, lt))
        for v in fv:
            if v in alias:
                env[v] = env[alias[v]]
        uparams += [(cn, lt) for cn, _, lt in scal]
        own = Sites()
        gen = _FlagGen({}, own, indent="  ",
                       codes=sites.memo if ((several or flagged) and sites is not None) else None,
                       origins=origins, silent=silent)
        try:
            out = gen.apply(ir.Thunk((), e), [], env)
        except (LowerError, _NotElementwise):
            return None
        if (own.table and not gen.flags and not silent) or gen.state or not out.types \
                or (len(out.types) > 1 and not several) or not all(isinstance(t, kinds) for t in out.types):
            return None
        rts = [_lift_scalar(t) for t in out.types] + ["bool"] * len(gen.flags)
        exprs = list(out.exprs) + [name for name, _ in gen.flags]
        if None in rts:
            return None
        if len(rts) == 1:
            ret = ScalarType(rts[0])
            value = exprs[0]
        else:
            ret = TupleType(tuple(ScalarType(t) for t in rts))
            value = f"({c_type_name(ret)}){{{', '.join(exprs)}}}"
        decls = [f"  uchar {name} = 0;" for name, _ in gen.flags]
        src = "\n".join(decls + gen.lines + [f"  return {value};"])
        uf = userfun(name, [(n, ScalarType(t)) for n, t in uparams], ret, "\n" + src + "\n")
        return uf, used, out.types, tuple(code for _, code in gen.flags)

    main = user_function(f"uf_{ukname}", body, (IntT, FloatT, BoolT, CharT), several=True)
    if main is None:
        return None
    key_uf = None
    if order_key is not None:
        if len(main[2]) != 1:
            return None
        key_uf = order_key_function(f"uf_{ukname}_key", main[2][0], *order_key)
        if key_uf is None:
            return None
    if filter_write is not None:
        # the predicate (one bool, no failing site), over exactly the values the FILTER keeps
        # (stored as they are read: a λcu int index is Lift's int, a vector's element its buffer's)
        # (the zipped inputs: those values first, then any the predicate alone reads at the index)
        kept = len(filter_write)
        if main[3] or list(main[2]) != [BoolT()] or [name for name, _, _ in ins[:kept]] != list(filter_write):
            return None
        if kept != len(ins) and kept != 1:
            return None
        if any((name == INDEX and t != IntT(32)) or (name != INDEX and buf != t) for name, buf, t in ins[:kept]):
            return None
    reduce_parts = None
    if isinstance(soac, (ir.Reduce, ir.Scan, ir.SegReduce, ir.SegScan)):
        # a segment folds (or scans) from init once: any init serves a segmented SOAC's rows,
        # as it does the carry phase and a SCAN's last pass (from each chunk's carry-in); a
        # REDUCE's or SCAN's chunks fold from init where it is the operator's identity, else from
        # their first element (``first``)
        reduce_parts = _reduce_functions(ukname, soac, main, scal, scal_env, user_function,
                                         need_identity=not (soac.SEGMENTED or carry_phase or scan_phase))
        if reduce_parts is None:
            return None
    pack = None
    if main[3]:
        # the results without the flags (the map's element), as one value: a user function of
        # this kernel's own (a data-layout pattern such as failIf cannot write the output, and
        # Lift's generated id functions would have one name in every kernel of the program)
        rts = [ScalarType(_lift_scalar(t)) for t in main[2]]
        ret = rts[0] if len(rts) == 1 else TupleType(tuple(rts))
        value = "r0" if len(rts) == 1 else \
            f"({c_type_name(ret)}){{{', '.join(f'r{j}' for j in range(len(rts)))}}}"
        pack = userfun(f"uf_{ukname}_out", [(f"r{j}", t) for j, t in enumerate(rts)], ret,
                       f"\n  return {value};\n")
    def value_function(name: str, e: ir.Exp, kind: type):
        """How the value ``e`` of λcu type ``kind`` is computed in the map's function: a value
        read or a scalar parameter as it is (``("var",)``), else a user function
        (``("uf", (function, its reads, type, codes))``); None where it cannot be.

        An index (``kind`` int) computed with a checked primitive (``xs[mod(i - 1, n)]``) is a
        user function returning the index and a flag per failing site (``codes``), which
        ``failIf`` reports before the read (:func:`with_reads`); in a branch, only where the
        branch's path condition holds (``arrayAccessIf`` neither reads nor checks anything
        elsewhere, its index's ``failIf`` included).  A path condition (``kind`` bool) computed
        with a checked primitive computes it silently (a zero divisor taken as 1): the
        condition is one of the thunk's ``if``s, which the result's user function evaluates on
        the thunk's path and reports with its site's code, numbered before those of the
        subscripts in its branches, so whatever a wrong condition lets the kernel read, the
        least code reported (the one the runner raises) is that primitive's."""
        if isinstance(e, ir.Var) and e.name in value_of:
            return ("var",) if isinstance(value_of[e.name][1], kind) else None
        if isinstance(e, ir.Var):           # a scalar parameter
            if len(host.get(e.name, ())) != 1 or not isinstance(ctx.env[e.name].types[0], kind):
                return None
            return ("var",)
        u = user_function(name, e, (kind,))
        if u is None and kind is IntT and sites is not None:
            u = user_function(name, e, (kind,), flagged=True)
        elif u is None and kind is BoolT and sites is not None:
            u = user_function(name, e, (kind,), silent=True)
        return None if u is None else ("uf", u)

    index_funs, guard_funs = [], []
    for k, at in enumerate(ats):
        u = value_function(f"uf_{ukname}_i{k}", at.idx, IntT)
        g = None if at.guard is None else value_function(f"uf_{ukname}_g{k}", at.guard, BoolT)
        if u is None or (at.guard is not None and g is None):
            return None
        index_funs.append(u)
        guard_funs.append(g)

    # how many of the map's functions use each subscript's value (an index or guard that is
    # the value itself counts as a use): one read used once is the argument where it is used
    # (``arrayAccess`` inline), one used more is read once into a private value (``with_reads``)
    at_vars = {at.var for at in ats}
    nuse: dict = {}

    def count(how, e: ir.Exp) -> None:
        refs = [e.name] if how[0] == "var" else how[1][1]
        for v in refs:
            v = alias.get(v, v)
            if v in at_vars:
                nuse[v] = nuse.get(v, 0) + 1
    count(("uf", main), body)
    for at, u, g in zip(ats, index_funs, guard_funs):
        if at.var not in alias:
            count(u, at.idx)
            if g is not None:
                count(g, at.guard)
    # a subscript whose index reports a failing primitive is read where its index is bound
    # (with_reads), never inline
    flagged = {k for k, u in enumerate(index_funs) if u[0] == "uf" and u[1][3]}
    inline = {v for v, n in nuse.items() if n == 1} - {ats[k].var for k in flagged}

    N = size_var("N")
    PV = size_var("P")          # a REDUCE's number of chunks
    vec_names = [name for name, _, _ in ins if name not in (INDEX, segid)]
    elem_of = {name: e for name, e, _ in ins if name not in (INDEX, segid)}
    lens = {name: N for name in vec_names}          # the vectors read at the map's index
    len_of: dict = {}                               # the others: a length each
    for at in ats:
        if at.vec not in lens:
            lname = f"L{len(len_of)}"
            len_of[lname] = at.vec
            lens[at.vec] = size_var(lname)
            elem_of[at.vec] = vec_types(at.vec)[0]
            vec_names.append(at.vec)
    vec_params = [(f"v{k}", ArrayType(ScalarType(_lift_scalar(elem_of[name])), lens[name]))
                  for k, name in enumerate(vec_names)]
    # a scalar the runner keeps on the device (device_scalars.py) is an array of one element,
    # read as arrayAccess(d, 0) (a constant index the length admits: no check)
    on_device = {cn for cn, j, _ in scal if ctx.params[j].kind == "devscalar"}
    sc_params = [(cn, ArrayType(ScalarType(lt), A.cst(1)) if cn in on_device else ScalarType(lt))
                 for cn, _, lt in scal]
    uses = [0]                  # the subscripts read (each once)
    read_ufs: dict = {}         # Lift element type -> this kernel's copy function

    def read_uf(k: int):
        """The user function copying a subscript's value into its private variable (this
        kernel's own: Lift's id functions would have one name in every kernel of the
        program)."""
        lt = _lift_scalar(vec_types(ats[k].vec)[0])
        if lt not in read_ufs:
            read_ufs[lt] = userfun(f"uf_{ukname}_rd{len(read_ufs)}", [("x", ScalarType(lt))], ScalarType(lt),
                                   "\n  return x;\n")
        return read_ufs[lt]

    if carry_phase:
        return _carry_program(kname, soac, reduce_parts, main, scal, sc_params, on_device, strategy)

    def body_of(*ps):
        vparams = dict(zip(vec_names, ps[:len(vec_names)]))
        ss = tuple(FunCall(At(None), (p, Literal("0", ScalarType("int")))) if cn in on_device else p
                   for (cn, _), p in zip(sc_params, ps[len(vec_names):len(vec_names) + len(sc_params)]))
        # the zipped inputs (all but the segment id, the row's index) and the position in the
        # zip of each of ins
        zpos = {k: j for j, k in enumerate(k for k, (name, _, _) in enumerate(ins) if name != segid)}
        vs = [FunCall(Generate(N), ()) if name == INDEX else vparams[name] for name, _, _ in ins
              if name != segid]
        row_id = [None]         # the segment id of the row being folded (a SEG_REDUCE's, ...)
        bound: dict = {}        # a subscript's variable -> the lambda parameter holding its value
        bound_ix: dict = {}     # a flagged index's subscript -> its checked index (with_reads)
        host_at: dict = {}                  # a host scalar's first position among the scalars
        pos = 0
        for name in sorted(host):
            host_at[name] = pos
            pos += len(host[name])

        def value(v: str, elem_expr):
            """The Lift expression of the λcu variable ``v`` inside the map's function."""
            if v in host:
                return ss[host_at[v]]
            v = alias.get(v, v)
            if v in bound:
                return bound[v]
            for k, at in enumerate(ats):
                if at.var == v:
                    if v not in inline:     # pragma: no cover - a lowering bug
                        raise LowerError(f"the subscript {v} of {kname} is used before it is read")
                    uses[0] += 1
                    return access(k, elem_expr)
            k = next(k for k, (name, _, _) in enumerate(ins) if reads[name] == v)
            if ins[k][0] == segid:
                return row_id[0]
            return elem_expr(zpos[k])

        def computed(how, e: ir.Exp, elem_expr):
            if how[0] == "var":
                return value(e.name, elem_expr)
            uf, used, _, _ = how[1]
            return FunCall(uf, tuple(value(v, elem_expr) for v in used) + tuple(ss))

        def access(k: int, elem_expr):
            at = ats[k]
            ix = bound_ix[k] if k in bound_ix else computed(index_funs[k], at.idx, elem_expr)
            if at.guard is None:
                return FunCall(At(codes[k]), (vparams[at.vec], ix))
            g = computed(guard_funs[k], at.guard, elem_expr)
            return FunCall(AtIf(codes[k]), (vparams[at.vec], ix, g))

        def with_reads(elem_expr, inner):
            """``inner()`` with every subscript read once, into a private value bound by a
            lambda, ``(\\a0 -> (\\a1 -> ... inner ...)(toPrivate(rd)(arrayAccess(w1, i1(a0)))))
            (toPrivate(rd)(arrayAccess(w0, i0)))``, in the thunk's order (a read whose index
            uses an earlier read comes after it): the index, guard and result functions get the
            bound variable (``value``)."""
            order = [k for k, at in enumerate(ats) if at.var not in alias and at.var not in inline]

            def go(j: int):
                if j == len(order):
                    return inner()
                k = order[j]
                if k in flagged and k not in bound_ix:
                    # the index and its failure flags, bound first: the read's index is
                    # failIf(flag, ... r._0) (each flag reported with its site's code)
                    uf, used, _, codes_k = index_funs[k][1]
                    call = FunCall(toPrivate(uf), tuple(value(v, elem_expr) for v in used) + tuple(ss))

                    def with_index(r):
                        ix = FunCall(Get(0), (r,))
                        for m, code in reversed(list(enumerate(codes_k))):
                            ix = FunCall(FailIf(code), (FunCall(Get(1 + m), (r,)), ix))
                        bound_ix[k] = ix
                        try:
                            return go(j)
                        finally:
                            del bound_ix[k]
                    return FunCall(lam(with_index, [f"r{k}"]), (call,))
                uses[0] += 1
                read = FunCall(toPrivate(read_uf(k)), (access(k, elem_expr),))

                def rest(a):
                    bound[ats[k].var] = a
                    try:
                        return go(j + 1)
                    finally:
                        del bound[ats[k].var]
                return FunCall(lam(rest, [f"a{k}"]), (read,))
            return go(0)

        def apply_main(elem_expr):
            return with_reads(elem_expr, lambda: main_value(elem_expr))

        def main_value(elem_expr):
            uf, used, types, flags = main
            call = FunCall(uf, tuple(value(v, elem_expr) for v in used) + tuple(ss))
            if not flags:
                return call
            # the results and the failure flags, bound once: \r -> failIf(r._f1, ... r._0 ...)
            k = len(types)

            def checked_result(r):
                first = FunCall(Get(0), (r,))
                for j, code in reversed(list(enumerate(flags))):
                    first = FunCall(FailIf(code), (FunCall(Get(k + j), (r,)), first))
                return FunCall(pack, (first,) + tuple(FunCall(Get(j), (r,)) for j in range(1, k)))
            return FunCall(lam(checked_result, ["r"]), (FunCall(toPrivate(uf), call.args),))

        if key_uf is not None:
            # a RANK's keys: the order key of the map's value and the element's index
            kix = next(k for k, (name, _, _) in enumerate(ins) if name == INDEX)
            # (the reads bound around the key's call: a lambda's value is not a call's argument)
            if len(vs) == 1:
                fn = lam(lambda x: with_reads(lambda k: x, lambda: FunCall(key_uf, (main_value(lambda k: x), x))),
                         ["x"])
                data = vs[0]
            else:
                def keyed(t):
                    elem_expr = lambda k: FunCall(Get(k), (t,))     # noqa: E731
                    return with_reads(elem_expr, lambda: FunCall(key_uf, (main_value(elem_expr),
                                                                          FunCall(Get(kix), (t,)))))
                fn = lam(keyed, ["t"])
                data = zip_(*vs)
            return mapGlb(toGlobal(fn))(data)
        def element():
            """The thunk on one element of the zipped inputs (built where the row's id is
            known: inside the row's function, when the thunk reads its segment's id)."""
            if len(vs) == 1:
                return lam(lambda x: apply_main(lambda k: x), ["x"])
            return lam(lambda t: apply_main(lambda k: FunCall(Get(k), (t,))), ["t"])

        fn = None if segid else element()
        data = vs[0] if len(vs) == 1 else zip_(*vs)

        def descriptor_rows(per_row):
            """``join o mapGlb(0)(\\row -> per_row(row)) $ splitOffsets(offs, data)``: work-item
            s takes segment s of the descriptor whose offsets (one more than segments) cut the
            zipped inputs into a position-dependent array; where the thunk reads the segment's
            id, each row is zipped with its index (``generate(M - 1)``, one a segment), which
            the thunk gets for ``seg_ids(sd)[i]`` while ``per_row`` builds the row's function."""
            offs = ps[len(vec_names) + len(sc_params)]
            rows = splitOffsets(offs, data)
            if segid:
                rows = zip_(rows, FunCall(Generate(A.sub(MV, 1)), ()))

            def segment(row):
                if segid:
                    row_id[0] = FunCall(Get(1), (row,))
                    row = FunCall(Get(0), (row,))
                return per_row(row)
            return join()(mapGlb(lam(segment, ["row"]))(rows))
        if reduce_parts is None and permute is not None:
            # a PERMUTE: element k written at ix[k], checked and written once (lift_permute.py)
            ix = ps[len(vec_names) + len(sc_params)]
            if len(permute) > 2:
                # a SCATTER's write: element k at ix[k] where it is the last writer (lift_scatter.py)
                win = ps[len(vec_names) + len(sc_params) + 1]
                return FunCall(ScatterIdx(permute[1], mode="last"), (ix, win, mapGlb(toGlobal(fn))(data)))
            if isinstance(soac, ir.SegPermute):
                # a SEG_PERMUTE's rows: work-item s writes segment s, element k at the segment's
                # position ix[k] (checked against the segment's length, marked once)
                offs = ps[len(vec_names) + len(sc_params) + 1]
                row = lam(lambda r: FunCall(ScatterIdx(permute[1], once=True),
                                            (FunCall(Get(1), (r,)), toGlobal(mapSeq(fn))(FunCall(Get(0), (r,))))),
                          ["r"])
                return join()(mapGlb(row)(zip_(splitOffsets(offs, data), splitOffsets(offs, ix))))
            return FunCall(ScatterIdx(permute[1], once=True), (ix, mapGlb(toGlobal(fn))(data)))
        if filter_write is not None:
            # a FILTER's write phase: chunk c compacts its elements to its row of the output, the
            # rows cut by the exclusive scan of the chunk counts (offs, the total last)
            offs = ps[len(vec_names) + len(sc_params)]
            rows = partition(PV, lambda c: A.sub(A.div(A.mul(A.add(c, 1), N), PV), A.div(A.mul(c, N), PV)))
            slots = splitOffsets(offs, FunCall(Generate(size_var("K")), ()))
            # the values kept: the elements, or the first component of the zip (the others are read
            # by the predicate alone), copied by this kernel's own user function (Lift's id
            # functions would have one name in every kernel of the program)
            nk = len(filter_write)
            kts = [ScalarType("int" if name == INDEX else _lift_scalar(buf)) for name, buf, _ in ins[:nk]]
            kret = kts[0] if nk == 1 else TupleType(tuple(kts))
            kvalue = "x0" if nk == 1 else f"({c_type_name(kret)}){{{', '.join(f'x{j}' for j in range(nk))}}}"
            kuf = userfun(f"uf_{ukname}_keep", [(f"x{j}", t) for j, t in enumerate(kts)], kret,
                          f"\n  return {kvalue};\n")
            if len(vs) == 1:
                keep = kuf
            else:
                keep = lam(lambda t: FunCall(kuf, tuple(FunCall(Get(j), (t,)) for j in range(nk))), ["t"])
            chunk = lam(lambda r: FunCall(toGlobal(filterSeq(fn, keep)), (FunCall(Get(0), (r,)), FunCall(Get(1), (r,)))),
                        ["r"])
            return join()(mapGlb(chunk)(zip_(rows(data), slots)))
        if reduce_parts is None and rows_sd is not None:
            # a MAP reading its segment's id: the rows of that descriptor, each element mapped
            # through the thunk, the joined rows its output
            return descriptor_rows(lambda row: toGlobal(mapSeq(element()))(row))
        if reduce_parts is None:
            return mapGlb(toGlobal(fn))(data)
        # a REDUCE's chunks: work-item c folds the balanced chunk c * N / P .. (c + 1) * N / P
        # of the zipped inputs from init, mapping each element through the thunk
        op_uf, init_uf, id_uf = reduce_parts

        def apply_op(acc, t):
            """``op(acc, f(t))``; an element of several components is computed once, into a
            private value (the generator passes a tuple argument component by component: the
            element's user function would otherwise run once per component); the thunk's
            subscripts are read once around it (``with_reads``)."""
            elem_expr = (lambda k: t) if len(vs) == 1 else (lambda k: FunCall(Get(k), (t,)))

            def step_value():
                e = main_value(elem_expr)
                if len(main[2]) > 1 and isinstance(e, FunCall) and isinstance(e.f, UserFun):
                    return FunCall(lam(lambda r: FunCall(op_uf, (acc, r) + tuple(ss)), ["r"]),
                                   (FunCall(toPrivate(e.f), e.args),))
                return FunCall(op_uf, (acc, e) + tuple(ss))
            return with_reads(elem_expr, step_value)
        step = None if segid else lam(apply_op, ["acc", "t"])
        if isinstance(soac, (ir.SegReduce, ir.SegScan)):
            # a SEG_REDUCE's rows plan: work-item s folds segment s, the descriptor's offsets
            # (one more than segments) cutting the zipped inputs into a position-dependent array;
            # a SEG_SCAN's: work-item s scans segment s exclusively from init, one result per
            # element (the accumulator before it), the joined rows the output
            def segment(row):
                init = FunCall(toPrivate(init_uf), tuple(ss))
                # the step of this row (the thunk's seg_ids(sd)[i] is the row's index)
                st = lam(apply_op, ["acc", "t"]) if segid else step
                if isinstance(soac, ir.SegScan):
                    return toGlobal(scanSeq(st, init))(row)
                return toGlobal(mapSeq(id_uf))(reduceSeq(st, init)(row))
            return descriptor_rows(segment)
        rows = partition(PV, lambda c: A.sub(A.div(A.mul(A.add(c, 1), N), PV), A.div(A.mul(c, N), PV)))
        if scan_phase:
            # a SCAN's last pass: chunk c scans its elements again from its carry-in (the
            # exclusive scan of the chunk results), writing the output in place
            carry = ps[len(vec_names) + len(sc_params)]
            chunk = lam(lambda t: toGlobal(scanSeq(step, FunCall(toPrivate(id_uf), (FunCall(Get(1), (t,)),))))(
                FunCall(Get(0), (t,))), ["t"])
            return join()(mapGlb(chunk)(zip_(rows(data), carry)))
        fold = reduceSeq(step, FunCall(toPrivate(init_uf), tuple(ss)))
        chunk = lam(lambda row: toGlobal(mapSeq(id_uf))(fold(row)), ["row"])
        return join()(mapGlb(chunk)(rows(data)))

    carry_params = []
    MV = size_var("M")          # a SEG_REDUCE's or SEG_SCAN's segments + 1 (its offsets)
    if (soac.SEGMENTED and order_key is None) or rows_sd is not None:
        carry_params = [("offs", ArrayType(ScalarType("int"), MV))]
    if permute is not None:
        pt = tenv.get(permute[0])
        if reduce_parts is not None or not isinstance(pt, VecT) or not isinstance(pt.elem, IntT) \
                or (permute[0] != POSITIONS and (permute[0] not in where or None in where[permute[0]])):
            return None
        carry_params = [("ix", ArrayType(ScalarType(_lift_scalar(pt.elem)), N))] + carry_params
        if len(permute) > 2:
            carry_params.append(("win", ArrayType(ScalarType("int"), MV)))
    if scan_phase:
        if reduce_parts is None or not isinstance(soac, ir.Scan) or len(main[2]) != 1:
            return None
        carry_params = [("carry", ArrayType(ScalarType(_lift_scalar(main[2][0])), PV))]
    if filter_write is not None:
        carry_params = [("offs", ArrayType(ScalarType("int"), A.add(PV, 1)))]
    suffix = suffix or ("liftkeys" if order_key is not None else "liftscan" if scan_phase else ("liftreject" if rejected else "liftwrite") if filter_write is not None \
        else "lift")
    prog = program(f"{kname}_{suffix}", vec_params + sc_params + carry_params, body_of)
    if uses[0] > MAX_ACCESSES:
        return None
    try:
        if (soac.SEGMENTED and order_key is None) or rows_sd is not None:
            # one work-item per segment in work-groups of CPU_LOCAL on a CPU (the mapGlb an if)
            launch = {"global_size": A.add(MV, CPU_LOCAL - 2)} if strategy == "cpu" else {}
        elif reduce_parts is not None or filter_write is not None:
            # one work-item per chunk on a CPU (the mapGlb an if); strided over them on a GPU
            launch = {"global_size": PV, "local_size": 1} if strategy == "cpu" else {}
        else:
            launch = {"global_size": A.add(N, CPU_LOCAL - 1)} if strategy == "cpu" else {}
        kern = compile_program(prog, error_base=True, soa_output=True, **launch)
    except LiftError:
        # a limit of the Lift compiler (a user function too deep, ...): the hand-written phase
        # serves this MAP, as it serves every MAP that is not element-wise.  The tests assert
        # which MAPs are Lift programs, so a refusal that should not happen shows there.
        return None
    named = {f"v{k}": ("host", where[name][0]) for k, name in enumerate(vec_names)}
    named.update({cn: ("host", j) for cn, j, _ in scal})
    sizes = {n: ("len", where[v][1]) for n, v in len_of.items()}
    sizes.update({"N": ("size",), "P": ("chunks",)})
    if permute is not None:
        named["ix"] = ("pos",) if permute[0] == POSITIONS else ("host", where[permute[0]][0])
        named["marks"] = ("marks",)
        if len(permute) > 2:
            sizes["M"] = ("dstlen",)
            named["win"] = ("win",)
    sizes.setdefault("M", ("segs1",))
    if scan_phase:
        named["carry"] = ("carry",)
    if filter_write is not None:
        sizes["K"] = ("kept",)
        named["offs"] = ("choffs",)
    if soac.SEGMENTED or rows_sd is not None:
        named["offs"] = ("offs",)
    args = kernel_args(kern, lambda: f"{kname}_{suffix}\n{file_text_of(prog)}", sizes, named)
    inputs = tuple(where[name][1] for name, _, _ in ins if name not in (INDEX, segid))
    if permute is not None and permute[0] != POSITIONS:
        inputs += (where[permute[0]][1],)     # the index vector has the permutation's length
    return LiftMap(prog, kern, inputs, args, rows_sd, segid is not None and rows_sd is None,
                   tuple(sorted(ids_read)))


def order_key_function(name: str, t: Type, bits: int, descending: bool):
    """The user function ``(x: t, i: int) -> (k, int)`` of a RANK's keys phase: the unsigned
    key ``k`` whose order is the order of the values ``x`` (``uint`` for 8 and 32 bits, ``long``
    holding the 64 bits' pattern for 64), with the element's index ``i``, as the template
    ``keys`` phase computes them: an int's sign bit flipped; a float's IEEE bits with ``-0.0``
    equal to ``0.0`` and NaN last, ascending and descending (numpy's order); a bool's or char's
    code; ``descending`` inverts the key (except NaN's).  None for another type."""
    from ..ir.builders import userfun
    from ..types import ScalarType, TupleType, c_type_name
    lt = _lift_scalar(t)
    kt = "uint" if bits <= 32 else "long"
    if lt is None or (bits == 64) != (lt in ("long", "double")):
        return None
    ret = TupleType((ScalarType(kt), ScalarType("int")))
    x = _c_value("x", t)
    if isinstance(t, FloatT):
        lines = [f"ulong u = as_ulong({x} == 0.0 ? 0.0 : {x});",
                 "u = (u >> 63) ? ~u : (u | 0x8000000000000000ul);"]
        if descending:
            lines.append("u = ~u;")
        lines.append(f"if (isnan({x})) u = 0xfffffffffffffffful;")
    elif isinstance(t, IntT):
        ut, sign = ("uint", "0x80000000u") if bits == 32 else ("ulong", "0x8000000000000000ul")
        lines = [f"{ut} u = (({ut}){x}) ^ {sign};"] + (["u = ~u;"] if descending else [])
    elif isinstance(t, (BoolT, CharT)):
        lines = [f"uint u = (uint){x};"] + (["u = (~u) & 0xffu;"] if descending else [])
    else:
        return None
    lines.append(f"return ({c_type_name(ret)}){{({kt})u, i}};")
    return userfun(name, [("x", ScalarType(lt)), ("i", ScalarType("int"))], ret,
                   "\n" + "\n".join("  " + ln for ln in lines) + "\n")


def _carry_program(kname: str, soac, reduce_parts, main, scal: list, sc_params: list,
                   on_device: set, strategy: str) -> Optional[LiftMap]:
    """The phase combining a REDUCE's or SCAN's ``P`` chunk results in order, one work-item:
    ``join o mapGlb(0)(\\row -> toGlobal(mapSeq(id)) o reduceSeq(op, init) $ row) o split(P) $
    parts`` (a REDUCE's result, ``init`` applied once, so any ``init``), or the exclusive
    ``scanSeq(op, init)`` of the row (a SCAN's carry-in of each chunk)."""
    from .. import compile_program
    from .. import arith as A
    from ..arith import size_var
    from ..errors import LiftError
    from ..ir.builders import join, lam, mapGlb, mapSeq, program, reduceSeq, scanSeq, split, toGlobal, toPrivate, zip_
    from ..ir.expr import FunCall, Literal
    from ..ir.patterns import At
    from ..types import ArrayType, ScalarType
    op_uf, init_uf, id_uf = reduce_parts
    PV = size_var("P")
    k = len(main[2])
    sts = [ScalarType(_lift_scalar(t)) for t in main[2]]

    def body_of(*ps):
        parts = ps[0] if k == 1 else zip_(*ps[:k])
        ps = ps[k:]
        ss = tuple(FunCall(At(None), (p, Literal("0", ScalarType("int")))) if cn in on_device else p
                   for (cn, _), p in zip(sc_params, ps))
        step = lam(lambda acc, x: FunCall(op_uf, (acc, x) + ss), ["acc", "x"])
        init = FunCall(toPrivate(init_uf), ss)
        if isinstance(soac, ir.Scan):
            row = lam(lambda r: toGlobal(scanSeq(step, init))(r), ["row"])
        else:
            row = lam(lambda r: toGlobal(mapSeq(id_uf))(reduceSeq(step, init)(r)), ["row"])
        return join()(mapGlb(row)(split(PV)(parts)))

    prog = program(f"{kname}_liftcarry", [(f"parts{j}", ArrayType(t, PV)) for j, t in enumerate(sts)] + sc_params,
                   body_of)
    try:
        kern = compile_program(prog, error_base=True, soa_output=True, global_size=1, local_size=1)
    except LiftError:
        return None
    named = {cn: ("host", j) for cn, j, _ in scal}
    named.update({f"parts{j}": ("parts", j) for j in range(k)})
    args = kernel_args(kern, lambda: f"{prog.name}\n{file_text_of(prog)}", {"P": ("chunks",)}, named)
    return LiftMap(prog, kern, (), args)


def lift_once(kname: str, soac: ir.Once, tenv: dict, ctx, sites: Sites,
              strategy: str = "cpu") -> Optional[LiftMap]:
    """The ONCE ``soac`` as a compiled Lift program, or None where it is not one: the MAP of
    length 1 over the index space whose thunk ignores its index, ``mapGlb(0)(toGlobal(\\t ->
    uf(arrayAccess(w, uf_i0(...)), ..., s0, ...))) $ generate(N)``, launched with ``N = 1``.  Its
    subscripts (``xs[s]``, ``seg_offsets(sd)[0]``) are ``arrayAccess`` views checked with the
    sites of the hand-written ``once`` phase (``sites``, numbered when that phase was written),
    so a failing one reports the same located message; several results are one buffer each
    (the runner's one-element scalars)."""
    from lambda_cu.types import IntT as _IntT
    if soac.f.params:
        return None
    index = ir.Param(ir.Var("%once"), _IntT(32))        # no λcu variable starts with '%'
    as_map = ir.Map(ir.Thunk((index,), soac.f.body, soac.f.using), ir.Const(1, _IntT(64)))
    return lift_map(kname, as_map, tenv, ctx, sites, strategy)


def file_text_of(prog) -> str:
    from ..syntax import file_text
    return file_text([prog])
