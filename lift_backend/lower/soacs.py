"""Lowering of λcu SOAC applications to OpenCL kernels.

Each ``let xs = SOAC ...`` of a fused λcu kernel becomes a :class:`LoweredSoac`: the OpenCL C of
one or more kernels (the *phases*), the Lift-style expression each phase implements (printed by
``nessie compile --emit lift``), and a host plan (:meth:`LoweredSoac.run`) that allocates the
results and launches the phases on a runner (``lift_backend.lower.runner``).

Strategies (chosen here, visible in the printed Lift; the C printer makes no decisions):

* element-wise patterns (MAP, PERMUTE, SCATTER, the gathers inside thunks) use ``mapGlb`` over an
  index-space generator: work-item ``g`` handles indices ``g, g + G, g + 2G, ...``;
* order-dependent patterns (REDUCE, SCAN, FILTER, PARTITION, the segmented forms, RANK) split
  the index space into ``P`` contiguous *chunks* (``split`` by ``ceil(n/P)``): each work-item
  folds its chunk sequentially (``reduceSeq``), one work-item combines the ``P`` chunk results
  in order, and a last pass redoes each chunk from its carry-in.  The combination order is the
  sequential order regrouped by chunk, so any associative operator gives the sequential result
  (floating-point sums differ only by rounding, which the tests compare with a tolerance);
* segmented reductions and scans run over the flat elements with the segmented lifting of the
  operator (a chunk that holds a segment start restarts from ``init``), so their time does not
  depend on the segment lengths: one long segment and a million short ones cost the same;
* RANK / SEG_RANK are a stable LSD radix sort of (key, index) pairs, 8 bits a pass, with the
  per-chunk histograms scanned in digit-major order (SEG_RANK sorts by key, then stably by
  segment number); lift_rank.py builds its steps as Lift programs (radixHistSeq, radixRankSeq).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Optional

from lambda_cu import ir
from lambda_cu.errors import MSG_PERMUTE, MSG_SCATTER, MSG_SCATTER_LENGTHS
from lambda_cu.types import (BoolT, CharT, FloatT, IntT, SegDesT, TupleT, Type, VecT,
                             flat_components)

from .cgen import CGen, LowerError, Sites, Val, VecAccess, comps, ctype, seg_loop_body


def cname(name: str) -> str:
    return "v_" + re.sub(r"\W", lambda m: f"_{ord(m.group()):x}_", name)


# ------------------------------------------------------------------------------------------------
# the context of one SOAC: what its thunks read


def _segvec_uses(e: Any, out: set) -> None:
    """(sd name, field, 'buf' | 'len') for every segment-descriptor field an expression reads."""
    if isinstance(e, ir.Length) and isinstance(e.vec, ir.SegVec):
        out.add((e.vec.sd.name, e.vec.field, "len"))
        return
    if isinstance(e, ir.SegVec):
        out.add((e.sd.name, e.field, "buf"))
        return
    if isinstance(e, ir.Length) and isinstance(e.vec, ir.Var):
        out.add((e.vec.name, None, "len"))
        return
    if isinstance(e, ir.Index) and isinstance(e.vec, ir.Var):
        out.add((e.vec.name, None, "buf"))
        _segvec_uses(e.idx, out)
        return
    if isinstance(e, (ir.Exp, ir.Thunk)):
        import dataclasses
        for f in dataclasses.fields(e):
            v = getattr(e, f.name)
            if isinstance(v, (ir.Exp, ir.Thunk)):
                _segvec_uses(v, out)
            elif isinstance(v, tuple):
                for x in v:
                    if isinstance(x, (ir.Exp, ir.Thunk)):
                        _segvec_uses(x, out)


@dataclass
class Param:
    """A kernel parameter: C declaration and how the runner supplies it."""
    decl: str
    kind: str            # 'vecbuf' | 'veclen' | 'sdbuf' | 'sdlen' | 'host' | 'devscalar'
    name: str            # λcu variable
    extra: Any = None    # sd field, or tuple component index


class Context:
    """The kernel parameters through which a SOAC's thunks reach the kernel's variables."""

    def __init__(self, soac: ir.Soac, tenv: dict[str, Type], dev_scalars: frozenset[str],
                 own_sd_fields: tuple[str, ...] = (), walk_ids: bool = False) -> None:
        uses: set = set()
        for th in soac.thunks():
            _segvec_uses(th.body, uses)
        if soac.shape is not None:
            _segvec_uses(soac.shape, uses)
        for e in soac.init_exps:
            _segvec_uses(e, uses)
        #: segment descriptors whose ids the thunks may compute by walking the offsets instead
        #: of reading a segment-id vector (CPU strategy, see CGen.walk); their offsets are
        #: passed too.  Which of them still need the id vector is known once the phases are
        #: generated (:meth:`settle_walks`).
        self.walks: dict[str, tuple[str, str]] = {}
        #: (sd name) whose id vector no phase reads: the runner passes a placeholder and never
        #: computes the ids
        self.ids_unread: set = set()
        self.ids_unread_rows: set = set()
        self.walk_ids = walk_ids
        if walk_ids:
            for (n, f, k) in list(uses):
                if f == "ids" and k == "buf":
                    uses.add((n, "offsets", "buf"))
                    uses.add((n, "offsets", "len"))
                    c = cname(n)
                    self.walks[f"{n}.ids"] = (f"{c}_offsets", f"{c}_offsets_n")
        #: (sd name, field) buffers passed only for the SOAC's own strategy, not for its thunks:
        #: a plan that does not need them may pass a placeholder (segment ids are costly)
        self.own_only: set = set()
        if soac.SEGMENTED:
            for f in own_sd_fields:
                if (soac.sd.name, f, "buf") not in uses:
                    self.own_only.add((soac.sd.name, f))
                uses.add((soac.sd.name, f, "buf"))
                uses.add((soac.sd.name, f, "len"))
        names = set(ir.soac_reads(soac))
        self.params: list[Param] = []
        self.prologue: list[str] = []
        self.env: dict[str, Val] = {}
        self.vecs: dict[str, VecAccess] = {}
        for name in sorted(names | {u[0] for u in uses}):
            t = tenv[name]
            c = cname(name)
            if isinstance(t, VecT):
                self.params.append(Param(f"global const {ctype(t.elem)}* restrict {c}", "vecbuf", name))
                self.params.append(Param(f"long {c}_n", "veclen", name))
                self.vecs[name] = VecAccess(c, f"{c}_n", t.elem)
            elif isinstance(t, SegDesT):
                fields = sorted({f for (n, f, k) in uses if n == name and f is not None})
                for f in fields:
                    has_buf = (name, f, "buf") in uses
                    if has_buf:
                        self.params.append(Param(f"global const int* restrict {c}_{f}", "sdbuf", name, f))
                    self.params.append(Param(f"long {c}_{f}_n", "sdlen", name, f))
                    self.vecs[f"{name}.{f}"] = VecAccess(f"{c}_{f}" if has_buf else "0",
                                                         f"{c}_{f}_n", IntT(32))
            else:
                cs = comps(t)
                exprs = []
                for j, ct in enumerate(cs):
                    cn = f"{c}_{j}"
                    if name in dev_scalars:
                        self.params.append(Param(f"global const {ctype(ct)}* restrict {cn}_p",
                                                 "devscalar", name, j))
                        self.prologue.append(f"  const {ctype(ct)} {cn} = {cn}_p[0];")
                    else:
                        self.params.append(Param(f"const {ctype(ct)} {cn}", "host", name, j))
                    exprs.append(cn)
                self.env[name] = Val(exprs, list(cs), t)

    def decls(self) -> list[str]:
        return [p.decl for p in self.params] + ["global int* err", "const int errbase"]

    def settle_walks(self, phases: list, lift_ids: tuple = ()) -> None:
        """After the phases are generated: the descriptors whose id vector none of them reads
        (every read was a walk) need no ids from the runner (``ids_unread``); those read only
        by the chunked strategy's phases need none for the rows plan (``ids_unread_rows``).
        ``lift_ids``: the descriptors whose id vector a Lift kernel of the SOAC reads (``LiftMap.ids``;
        its parameters are named otherwise)."""
        names = {key[:-len(".ids")] for key in self.walks}
        if self.walk_ids:
            # a CPU's chunked segmented plans walk their own descriptor too
            names |= {p.name for p in self.params if p.kind == "sdbuf" and p.extra == "ids"}
        for n in sorted(names):
            buf = f"{cname(n)}_ids["
            readers = [ph.name for ph in phases if buf in ph.source]
            if not readers and n not in lift_ids:
                self.ids_unread.add(n)
            if not any(r.endswith(("_rows", "_rowsl")) for r in readers):
                self.ids_unread_rows.add(n)


# ------------------------------------------------------------------------------------------------
# lowered SOACs


@dataclass
class Phase:
    """One OpenCL kernel of a lowered SOAC."""
    name: str
    lift: str            # the Lift expression this kernel implements
    source: str
    #: ``lift`` is a whole ``.lift`` program that the Lift compiler compiled to ``source``
    #: (lift_map.py), not a Lift-style expression of a kernel written from a template
    compiled: bool = False


@dataclass
class LoweredSoac:
    """A SOAC as OpenCL kernels plus the host plan that launches them."""
    soac: ir.Soac
    kind: str
    ctx: Context
    sites: Sites
    phases: list[Phase]
    out_types: tuple[Type, ...]          # one per bound variable
    elem_types: tuple[Type, ...]         # components of f's result (τ)
    info: dict = field(default_factory=dict)

    @property
    def source(self) -> str:
        return "\n".join(p.source for p in self.phases)


class _Builder:
    """Helpers to write the phases of one SOAC."""

    def __init__(self, kname: str, soac: ir.Soac, ctx: Context, sites: Sites) -> None:
        self.kname = kname
        self.soac = soac
        self.ctx = ctx
        self.sites = sites
        self.phases: list[Phase] = []

    def kernel(self, suffix: str, lift: str, extra_params: list[str], body) -> None:
        """Add a kernel; ``body(gen)`` emits its statements with a CGen."""
        # the fast version first (it numbers the sites in evaluation order, as the checked
        # one would); where it elided checks, the checked version runs when its guards fail
        gen = CGen(self.ctx.vecs, self.sites, indent="  ", walks=self.ctx.walks, fast=True)
        body(gen)
        lines, state = gen.lines, list(gen.state)
        if gen.guards:
            slow = CGen(self.ctx.vecs, self.sites, indent="  ", walks=self.ctx.walks)
            body(slow)
            state += [d for d in slow.state if d not in state]
            # local-memory arrays must stay in the kernel's outermost scope (both versions
            # declare the same ones)
            state += [ln.strip() for ln in gen.lines if ln.strip().startswith("local ")]
            fast_lines = [ln for ln in gen.lines if not ln.strip().startswith("local ")]
            slow_lines = [ln for ln in slow.lines if not ln.strip().startswith("local ")]
            lines = ([f"  if ({' && '.join(gen.guards)}) {{"] + ["  " + ln for ln in fast_lines] +
                     ["  } else {"] + ["  " + ln for ln in slow_lines] + ["  }"])
        name = f"{self.kname}_{suffix}"
        params = ",\n    ".join(self.ctx.decls() + extra_params)
        pro = self.ctx.prologue + [f"  {d}" for d in state]
        src = (f"kernel void {name}(\n    {params})\n{{\n" + "\n".join(pro) +
               ("\n" if pro else "") + "\n".join(lines) + "\n}\n")
        self.phases.append(Phase(name, lift, src))

    # thunk application helpers
    def pull(self, gen: CGen, th: ir.Thunk, idx: str, below_n: bool = False) -> Val:
        """Apply pull thunk ``th`` at index ``idx`` (a C expression); ``below_n``: the caller's
        loop keeps ``0 <= idx < n`` (the kernel's ``n``), so reads at it need no check where
        ``n`` is at most the vector's length (CGen.ranges)."""
        it = th.params[0].ty
        ix = f"({ctype(it)}){idx}"
        gen.walk_index.add(ix)
        if below_n and ctype(it) in ("int", "long"):
            gen.ranges[ix] = ("n", ("n <= 2147483647L",) if ctype(it) == "int" else ())
        return gen.apply(th, [Val([ix], [it], it)], self.ctx.env)

    def op(self, gen: CGen, th: ir.Thunk, a: Val, b: Val) -> Val:
        return gen.apply(th, [a, b], self.ctx.env)

    def init(self, gen: CGen, soac: ir.Soac) -> Val:
        out = Val([], [])
        for e in soac.init_exps:
            v = gen.exp(e, self.ctx.env)
            out.exprs += v.exprs
            out.types += v.types
        return out


def _csize(t: Type) -> int:
    """Bytes of one component's C type (local memory budgets)."""
    c = ctype(t)
    return {"double": 8, "long": 8, "ulong": 8, "float": 4, "int": 4, "uint": 4}.get(c, 1)


def _segment_loop(gen: CGen, start: int, carried: tuple, loop: str, prefix: str = "  ") -> None:
    """Replace the statements ``gen`` emitted since line ``start`` (one element's work in a loop
    over one segment's elements, index ``i``, carrying ``carried`` from element to element) by
    those that depend on the segment alone, then the element loop ``loop`` over the rest
    (``cgen.seg_loop_body``; the caller guarantees the loop runs at least once)."""
    body = seg_loop_body(gen.lines[start:], ("i",) + tuple(carried), gen.indent, loop)
    gen.lines[start:] = [prefix + ln for ln in body]


def _decl_acc(gen: CGen, prefix: str, types: list[Type]) -> list[str]:
    names = [f"{prefix}{j}" for j in range(len(types))]
    for n, t in zip(names, types):
        gen.emit(f"{ctype(t)} {n};")
    return names


def _assign(gen: CGen, names: list[str], v: Val) -> None:
    # through temporaries, so that a value reading the old names is complete first
    tmps = [gen.temp(t, e) for e, t in zip(v.exprs, v.types)]
    for n, t in zip(names, tmps):
        gen.emit(f"{n} = {t};")


def _val(names: list[str], types: list[Type]) -> Val:
    return Val(list(names), list(types))


def _chunk(gen: CGen) -> None:
    gen.emit("const long c = get_global_id(0);")
    gen.emit("if (c >= P) return;")
    gen.emit("const long lo = c * n / P, hi = (c + 1) * n / P;")


def _buf_params(prefix: str, types, const: bool = False) -> list[str]:
    q = "const " if const else ""
    return [f"global {q}{ctype(t)}* restrict {prefix}{j}" for j, t in enumerate(types)]


def lower_soac(kname: str, soac: ir.Soac, tenv: dict[str, Type],
               dev_scalars: frozenset[str], strategy: str = "cpu") -> LoweredSoac:
    """Lower one SOAC application of kernel ``kname`` (its bound variables' types come from the
    kernel's type environment ``tenv``) for a device kind's ``strategy`` (``"cpu"``/``"gpu"``:
    a GPU gets one more phase, ``rowsl``)."""
    from lambda_cu.check import soac_result_types
    sites = Sites()
    seg_fields: tuple[str, ...] = ()
    if isinstance(soac, (ir.SegReduce, ir.SegScan)):
        seg_fields = ("lengths", "offsets", "ids")
    elif isinstance(soac, (ir.SegFilter, ir.SegPartition)):
        seg_fields = ("lengths", "offsets")
    elif isinstance(soac, ir.SegPermute):
        seg_fields = ("lengths", "offsets", "ids")
    elif isinstance(soac, ir.SegRank):
        seg_fields = ("offsets", "ids")
    ctx = Context(soac, tenv, dev_scalars, seg_fields, walk_ids=strategy == "cpu")
    b = _Builder(kname, soac, ctx, sites)
    out_types = soac_result_types(soac, tenv)
    if isinstance(soac, ir.Once):
        tau = list(comps(_thunk_result(soac.f, tenv)))
    else:
        tau = list(comps(_thunk_result(soac.f, tenv)))
    kind = soac.NAME
    f = soac.f
    info: dict = {}

    if isinstance(soac, ir.Map):
        def body(gen):
            # failures are collected in a private code, reported once after the loop
            gen.err_var = "nz_err"
            gen.emit("int nz_err = INT_MAX;")
            if len(ctx.walks) == 1:
                # the segment ids of the map's own index walked once per segment, not per
                # element, and what the thunk computes from the segment alone computed there
                # too (cgen.SEG_LOOP)
                (key, (offs, cnt)), = ctx.walks.items()
                gen.seg_loop = (key, "seg")
                gen.emit(f"NZ_SEGCHUNKS(i, n, {offs}, {cnt}, seg) {{")
                start = len(gen.lines)
                v = b.pull(gen, f, "i", below_n=True)
                for j, e in enumerate(v.exprs):
                    gen.emit(f"out{j}[i] = {e};")
                _segment_loop(gen, start, (), "for (; i < seg_e; i++) {")
            else:
                gen.emit("NZ_FOR(i, n) {")
                v = b.pull(gen, f, "i", below_n=True)
                for j, e in enumerate(v.exprs):
                    gen.emit(f"  out{j}[i] = {e};")
            gen.emit("}")
            gen.emit("if (nz_err != INT_MAX) atomic_min(err, nz_err);")
        b.kernel("map", "mapGlb(0)(toGlobal(f)) $ generate(n)", ["const long n"] + _buf_params("out", tau), body)
        # the MAP is also a Lift program where lift_map.py can build one, compiled by the Lift
        # compiler (the runner launches it where the inputs read at the map's index have its
        # length)
        from .lift_map import lift_map
        lm = lift_map(kname, soac, tenv, ctx, sites, strategy)
        if lm is not None:
            b.phases.append(Phase(lm.name, lm.text(), lm.kernel.source, compiled=True))
            info["lift"] = lm

    elif isinstance(soac, ir.Once):
        def body(gen):
            gen.emit("if (get_global_id(0) != 0) return;")
            v = gen.apply(f, [], ctx.env)
            for j, e in enumerate(v.exprs):
                gen.emit(f"out{j}[0] = {e};")
        b.kernel("once", "mapSeq(toGlobal(f)) $ [()]", _buf_params("out", tau), body)
        # also a Lift program (lift_map.lift_once: the map of length 1 whose thunk ignores its
        # index), launched instead of the hand-written phase where it could be built
        from .lift_map import lift_once
        lm = lift_once(kname, soac, tenv, ctx, sites, strategy)
        if lm is not None:
            b.phases.append(Phase(lm.name, lm.text(), lm.kernel.source, compiled=True))
            info["lift"] = lm

    elif isinstance(soac, (ir.Reduce, ir.Scan, ir.SegReduce, ir.SegScan)):
        seg = soac.SEGMENTED
        scan = isinstance(soac, (ir.Scan, ir.SegScan))
        sd = cname(soac.sd.name) if seg else None

        #: on a CPU the chunk loops of a segmented SOAC walk its segments (``seg_for``): the
        #: segment of the loop's index is the variable ``sg``, no segment-id vector is read
        walk_own = seg and strategy == "cpu"
        own_key = f"{soac.sd.name}.ids" if seg else None

        def sid(i):
            return "sg" if walk_own else f"{sd}_ids[{i}]"

        def is_start(i):
            return f"{i} == (long){sd}_offsets[{sid(i)}]"

        def is_end(i):
            return f"{i} == (long){sd}_offsets[{sid(i)}] + {sd}_lengths[{sid(i)}] - 1"

        def seg_for(gen, start: str, x_of):
            """``for (long i = start; i < hi; i++) {`` -- on a CPU as a loop over the pieces of
            the range that lie in one segment, and within each over its elements (``sg`` the
            segment's id, found by a walk from the one found last); ``x_of(gen)`` pulls the
            element.  The loop body ends with ``seg_end``."""
            if not walk_own:
                gen.emit(f"for (long i = {start}; i < hi; i++) {{")
                return x_of(gen)
            gen.emit(f"for (long i = {start}, sg = 0, sg_e = 0, sg_at = -1; i < hi; ) {{")
            gen.emit(f"  sg = nz_walk_ids({sd}_offsets, {sd}_offsets_n, i, &sg_at);")
            gen.emit(f"  sg_e = min(hi, (long){sd}_offsets[sg] + {sd}_lengths[sg]);")
            gen.seg_loop = (own_key, "sg") if own_key in ctx.walks else None
            seg_body.append(len(gen.lines))
            try:
                return x_of(gen)
            finally:
                gen.seg_loop = None

        def seg_end(gen, carried: tuple[str, ...]):
            """Close ``seg_for``'s loop; on a CPU, what the element's pull computes from the
            segment alone runs once per piece, before its elements' loop (which runs at least
            once: ``i`` lies in segment ``sg``), ``carried``: what the loop carries from one
            element to the next (cgen.seg_loop_body)."""
            if not walk_own:
                gen.emit("}")
                return
            _segment_loop(gen, seg_body.pop(), carried, "for (; i < sg_e; i++) {")
            gen.emit("}")

        seg_body: list[int] = []

        # number the failing sites in the numpy runner's order (pull thunk, init, operator)
        # before the phases use them in another order (scratch code, thrown away)
        scratch = CGen(ctx.vecs, sites)
        x0 = b.pull(scratch, f, "0")
        b.init(scratch, soac)
        b.op(scratch, soac.op, x0, x0)

        # phase 1: each chunk folds its elements (restarting at segment starts)
        def p1(gen):
            _chunk(gen)
            acc = _decl_acc(gen, "acc", tau)
            if seg:
                gen.emit("uchar started = 0;")
            if not seg:
                # the chunk's first element starts the fold, outside the loop: a loop body
                # without a branch on the position (half the time of a dot product's chunks)
                gen.emit("if (lo < hi) {")
                gen.emit("  const long i = lo;")
                _assign(gen, acc, b.pull(gen, f, "i", below_n=True))
                gen.emit("}")
            x = seg_for(gen, 'lo' if seg else 'lo + 1', lambda g: b.pull(g, f, "i", below_n=True))
            if seg:
                gen.emit(f"  if ({is_start('i')}) {{")
                iv = b.init(gen, soac)
                _assign(gen, acc, b.op(gen, soac.op, iv, x))
                gen.emit("    started = 1;")
                gen.emit("  } else if (i == lo) {")
                _assign(gen, acc, x)
                gen.emit("  } else {")
                _assign(gen, acc, b.op(gen, soac.op, _val(acc, tau), x))
                gen.emit("  }")
                if not scan:
                    # a segment that starts and ends in this chunk is complete: written here,
                    # so that the last phase only finishes each chunk's first segment
                    gen.emit(f"  if (started && {is_end('i')}) {{")
                    for j in range(len(tau)):
                        gen.emit(f"    out{j}[{sid('i')}] = acc{j};")
                    gen.emit("  }")
            else:
                _assign(gen, acc, b.op(gen, soac.op, _val(acc, tau), x))
            seg_end(gen, tuple(acc) + ("started",))
            for j in range(len(tau)):
                gen.emit(f"part{j}[c] = acc{j};")
            if seg:
                gen.emit("pstart[c] = started;")
        p1_params = ["const long n", "const long P"] + _buf_params("part", tau) + \
            (["global uchar* restrict pstart"] if seg else []) + \
            (_buf_params("out", tau) if seg and not scan else [])
        b.kernel("chunks", ("mapGlb(0)(toGlobal(reduceSeq(segOp)) o split(ceil(n/P))) $ generate(n)"
                            if scan else
                            "mapGlb(0)(scatterSegEnds(ownSegments) o toGlobal(reduceSeq(segOp)) o "
                            "split(ceil(n/P))) $ generate(n)" if seg else
                            "mapGlb(0)(toGlobal(reduceSeq(op)) o split(ceil(n/P))) $ generate(n)"),
                 p1_params, p1)
        if isinstance(soac, (ir.Reduce, ir.Scan, ir.SegReduce, ir.SegScan)):
            # the chunks (and a SCAN's last pass, a SEG_REDUCE's or SEG_SCAN's rows) are also
            # Lift programs where lift_map.py can
            # build them (the runner launches them where the inputs read at the element's index
            # have its length)
            from .lift_map import lift_map
            lm = lift_map(kname, soac, tenv, ctx, sites, strategy)
            if lm is not None:
                b.phases.append(Phase(lm.name, lm.text(), lm.kernel.source, compiled=True))
                info["lift"] = lm
                if isinstance(soac, ir.Scan):
                    ls2 = lift_map(kname, soac, tenv, ctx, sites, strategy, scan_phase=True)
                    if ls2 is not None:
                        b.phases.append(Phase(ls2.name, ls2.text(), ls2.kernel.source, compiled=True))
                        info["lift_scan"] = ls2
            if not seg:
                # the phase combining the chunk results in order (one work-item), any init
                lc = lift_map(kname, soac, tenv, ctx, sites, strategy, carry_phase=True)
                if lc is not None:
                    b.phases.append(Phase(lc.name, lc.text(), lc.kernel.source, compiled=True))
                    info["lift_carry"] = lc

        # phase 2: one work-item combines the chunk results in order
        def p2(gen):
            gen.emit("if (get_global_id(0) != 0) return;")
            acc = _decl_acc(gen, "acc", tau)
            _assign(gen, acc, b.init(gen, soac))
            gen.emit("for (long c = 0; c < P; c++) {")
            if scan or seg:
                for j in range(len(tau)):
                    gen.emit(f"  carry{j}[c] = acc{j};")
            pv = _val([f"part{j}[c]" for j in range(len(tau))], tau)
            if seg:
                gen.emit("  if (pstart[c]) {")
                _assign(gen, acc, pv)
                gen.emit("  } else {")
                _assign(gen, acc, b.op(gen, soac.op, _val(acc, tau), pv))
                gen.emit("  }")
            else:
                _assign(gen, acc, b.op(gen, soac.op, _val(acc, tau), pv))
            gen.emit("}")
            if not (scan or seg):
                for j in range(len(tau)):
                    gen.emit(f"out{j}[0] = acc{j};")
        p2_params = ["const long P"] + _buf_params("part", tau, const=True)
        if seg:
            p2_params.append("global const uchar* restrict pstart")
        if scan or seg:
            p2_params += _buf_params("carry", tau)
        else:
            p2_params += _buf_params("out", tau)
        b.kernel("carry", "toGlobal(reduceSeq(op, init)) $ partials" if not (scan or seg)
                 else "toGlobal(scanSeq(op, init)) $ partials", p2_params, p2)

        # phase 3: scans and segmented reductions redo each chunk from its carry-in
        if seg and not scan:
            # phase 3 of a segmented reduction: a chunk whose first element continues a segment
            # started before it, and that ends in this chunk, folds that segment's elements from
            # its carry-in up to the segment's end (the other segments were written by phase 1,
            # or end in a later chunk)
            def p3r(gen):
                _chunk(gen)
                gen.emit("if (lo >= hi) return;")
                if walk_own:
                    # every element this phase folds is of the segment of lo
                    gen.emit("long sg_at = -1;")
                    gen.emit(f"const long sg = nz_walk_ids({sd}_offsets, {sd}_offsets_n, lo, &sg_at);")
                gen.emit(f"if ({is_start('lo')}) return;")
                # a chunk inside a segment that ends in a later chunk has nothing to write
                gen.emit(f"if ((long){sd}_offsets[{sid('lo')}] + {sd}_lengths[{sid('lo')}] > hi) return;")
                acc = _decl_acc(gen, "acc", tau)
                _assign(gen, acc, _val([f"carry{j}[c]" for j in range(len(tau))], tau))
                gen.emit("for (long i = lo; i < hi; i++) {")
                gen.seg_loop = (own_key, "sg") if walk_own and own_key in ctx.walks else None
                x = b.pull(gen, f, "i", below_n=True)
                gen.seg_loop = None
                _assign(gen, acc, b.op(gen, soac.op, _val(acc, tau), x))
                gen.emit(f"  if ({is_end('i')}) {{")
                for j in range(len(tau)):
                    gen.emit(f"    out{j}[{sid('i')}] = acc{j};")
                gen.emit("    break;")
                gen.emit("  }")
                gen.emit("}")
            b.kernel("scan", "scatterSegEnds o mapGlb(0)(reduceSeq(segOp, carry) o takeWhile(firstSegment) o "
                     "split(ceil(n/P))) $ generate(n)",
                     ["const long n", "const long P"] + _buf_params("carry", tau, const=True) + _buf_params("out", tau), p3r)
        elif scan:
            def p3(gen):
                _chunk(gen)
                acc = _decl_acc(gen, "acc", tau)
                _assign(gen, acc, _val([f"carry{j}[c]" for j in range(len(tau))], tau))
                x = seg_for(gen, "lo", lambda g: b.pull(g, f, "i", below_n=True))
                if seg:
                    gen.emit(f"  if ({is_start('i')}) {{")
                    _assign(gen, acc, b.init(gen, soac))
                    gen.emit("  }")
                for j in range(len(tau)):
                    gen.emit(f"  out{j}[i] = acc{j};")
                _assign(gen, acc, b.op(gen, soac.op, _val(acc, tau), x))
                seg_end(gen, tuple(acc))
            b.kernel("scan", "join o mapGlb(0)(toGlobal(scanSeq(op, carry)) o split(ceil(n/P))) $ generate(n)",
                     ["const long n", "const long P"] + _buf_params("carry", tau, const=True) + _buf_params("out", tau), p3)
        if isinstance(soac, ir.SegReduce):
            # empty segments reduce to init
            def p0(gen):
                gen.emit("NZ_FOR(s, nseg) {")
                iv = b.init(gen, soac)
                for j, e in enumerate(iv.exprs):
                    gen.emit(f"  out{j}[s] = {e};")
                gen.emit("}")
            b.kernel("init", "mapGlb(0)(toGlobal(init)) $ generate(nseg)", ["const long nseg"] + _buf_params("out", tau), p0)
        if seg:
            def row_from_global(gen, acc, ind):
                """Fold (scan) elements ``a`` to ``e`` of global memory into ``acc``; ``ind``:
                the loop's indentation in the printed C."""
                # a segment's elements lie below the descriptor's total, the kernel's n; the
                # segment id of each is the row's own, s (no walk); what the thunk computes from
                # it alone is computed once, before the element loop, in a non-empty row
                # (cgen.seg_loop_body)
                gen.emit(f"{ind}if (a < e) {{")
                start = len(gen.lines)
                key = f"{soac.sd.name}.ids"
                gen.seg_loop = (key, "s") if key in ctx.walks else None
                x = b.pull(gen, f, "i", below_n=True)
                gen.seg_loop = None
                if scan:
                    for j in range(len(tau)):
                        gen.emit(f"out{j}[i] = acc{j};")
                _assign(gen, acc, b.op(gen, soac.op, _val(acc, tau), x))
                _segment_loop(gen, start, tuple(acc), "for (long i = a; i < e; i++) {", ind + "  ")
                gen.emit(f"{ind}}}")

            # short segments: one work-item per segment folds (or scans) its row in one pass,
            # no segment ids (the runner picks this variant from the average segment length)
            def prow(gen):
                gen.emit("NZ_FOR(s, nseg) {")
                gen.emit(f"  const long a = {sd}_offsets[s], e = a + {sd}_lengths[s];")
                acc = _decl_acc(gen, "acc", tau)
                _assign(gen, acc, b.init(gen, soac))
                row_from_global(gen, acc, "  ")
                if not scan:
                    for j in range(len(tau)):
                        gen.emit(f"  out{j}[s] = acc{j};")
                gen.emit("}")
            b.kernel("rows", ("mapGlb(0)(toGlobal(scanSeq(op, init))) $ splitOffsets(offsets, generate(n))"
                              if scan else
                              "mapGlb(0)(toGlobal(reduceSeq(op, init))) $ splitOffsets(offsets, generate(n))"),
                     ["const long nseg", "const long n"] + _buf_params("out", tau), prow)

        if seg and strategy == "gpu":
            # short segments on a GPU: a work-group takes W consecutive segments, stages the
            # thunk's values of all their elements in local memory with consecutive work-items
            # reading consecutive elements (coalesced), then each work-item folds (or scans, in
            # place) its segment from local memory in order -- the rows plan's result, bit for
            # bit -- and a scan's results are written back coalesced; a block whose elements do
            # not fit is done from global memory as the rows plan does
            cap = max(256, 32768 // sum(_csize(t) for t in tau))
            info["rowsl_cap"] = cap

            def prowl(gen):
                for j, t in enumerate(tau):
                    gen.emit(f"local {ctype(t)} l{j}[{cap}];")
                gen.emit("const long W = get_local_size(0), lid = get_local_id(0);")
                gen.emit("for (long s0 = get_group_id(0) * W; s0 < nseg; s0 += get_num_groups(0) * W) {")
                gen.emit("  const long s1 = min(s0 + W, nseg);")
                gen.emit(f"  const long a0 = {sd}_offsets[s0];")
                gen.emit(f"  const long m = (long){sd}_offsets[s1 - 1] + {sd}_lengths[s1 - 1] - a0;")
                gen.emit(f"  const int staged = m <= {cap};")
                gen.emit("  if (staged) {")
                gen.emit("    for (long k = lid; k < m; k += W) {")
                gen.emit("      const long i = a0 + k;")
                x = b.pull(gen, f, "i", below_n=True)
                for j, e in enumerate(x.exprs):
                    gen.emit(f"      l{j}[k] = {e};")
                gen.emit("    }")
                gen.emit("  }")
                gen.emit("  barrier(CLK_LOCAL_MEM_FENCE);")
                gen.emit("  const long s = s0 + lid;")
                gen.emit("  if (s < s1) {")
                gen.emit(f"    const long a = {sd}_offsets[s], e = a + {sd}_lengths[s];")
                acc = _decl_acc(gen, "acc", tau)
                _assign(gen, acc, b.init(gen, soac))
                gen.emit("    if (staged) {")
                gen.emit("      for (long i = a; i < e; i++) {")
                xl = _val([f"l{j}[i - a0]" for j in range(len(tau))], tau)
                if scan:
                    xs_ = _decl_acc(gen, "xv", tau)
                    _assign(gen, xs_, xl)
                    for j in range(len(tau)):
                        gen.emit(f"        l{j}[i - a0] = acc{j};")
                    xl = _val(xs_, tau)
                _assign(gen, acc, b.op(gen, soac.op, _val(acc, tau), xl))
                gen.emit("      }")
                gen.emit("    } else {")
                row_from_global(gen, acc, "      ")
                gen.emit("    }")
                if not scan:
                    for j in range(len(tau)):
                        gen.emit(f"    out{j}[s] = acc{j};")
                gen.emit("  }")
                gen.emit("  barrier(CLK_LOCAL_MEM_FENCE);")
                if scan:
                    gen.emit("  if (staged) {")
                    gen.emit("    for (long k = lid; k < m; k += W) {")
                    for j in range(len(tau)):
                        gen.emit(f"      out{j}[a0 + k] = l{j}[k];")
                    gen.emit("    }")
                    gen.emit("  }")
                    gen.emit("  barrier(CLK_LOCAL_MEM_FENCE);")
                gen.emit("}")
            lift = ("join o mapWrg(0)(toGlobal(mapLcl(0)(id)) o mapLcl(0)(scanSeq(op, init)) o "
                    "splitOffsets(offsets) o toLocal(mapLcl(0)(f)) o rowBlock(W)) $ generate(n)"
                    if scan else
                    "join o mapWrg(0)(mapLcl(0)(toGlobal(reduceSeq(op, init))) o "
                    "splitOffsets(offsets) o toLocal(mapLcl(0)(f)) o rowBlock(W)) $ generate(n)")
            b.kernel("rowsl", lift, ["const long nseg", "const long n"] + _buf_params("out", tau), prowl)

        if not (scan or seg) and _commutative(soac.op, tau):
            # a commutative (exactly, or up to float rounding) monoid on a GPU: work-item c folds
            # the elements c, c + P, c + 2P, ... so that neighbouring work-items read
            # neighbouring elements (coalesced)
            info["strided"] = True

            def pstr(gen):
                gen.emit("const long c = get_global_id(0);")
                gen.emit("if (c >= P) return;")
                acc = _decl_acc(gen, "acc", tau)
                _assign(gen, acc, b.pull(gen, f, "c"))
                gen.emit("for (long i = c + P; i < n; i += P) {")
                x = b.pull(gen, f, "i", below_n=True)
                _assign(gen, acc, b.op(gen, soac.op, _val(acc, tau), x))
                gen.emit("}")
                for j in range(len(tau)):
                    gen.emit(f"part{j}[c] = acc{j};")
            b.kernel("strided", "mapGlb(0)(toGlobal(reduceSeq(op)) o reorderStride(P) o split(ceil(n/P))) $ generate(n)",
                     ["const long n", "const long P"] + _buf_params("part", tau), pstr)

            # the strided plan's chunk results folded the same way (the operator commutes, so
            # their order is free): group c2 folds the results c2, c2 + P2, ... (coalesced,
            # where the contiguous groups of ``fold`` read 8 * P / P2 bytes apart)
            def pfolds(gen):
                gen.emit("const long c2 = get_global_id(0);")
                gen.emit("if (c2 >= P2) return;")
                acc = _decl_acc(gen, "acc", tau)
                _assign(gen, acc, _val([f"part{j}[c2]" for j in range(len(tau))], tau))
                gen.emit("for (long c = c2 + P2; c < P; c += P2) {")
                _assign(gen, acc, b.op(gen, soac.op, _val(acc, tau),
                                       _val([f"part{j}[c]" for j in range(len(tau))], tau)))
                gen.emit("}")
                for j in range(len(tau)):
                    gen.emit(f"part2_{j}[c2] = acc{j};")
            b.kernel("folds", "mapGlb(0)(toGlobal(reduceSeq(op)) o reorderStride(P2) o split(ceil(P/P2))) $ partials",
                     ["const long P", "const long P2"] + _buf_params("part", tau, const=True) +
                     _buf_params("part2_", tau), pfolds)

        # many chunks (GPU): the chunk results are first folded in P2 groups, the carry kernel
        # runs over the P2 group results, and (scans) a spread pass gives each chunk its
        # carry-in -- no work-item walks all P chunk results alone.  A group is a work-group
        # (launched P2 * W work-items, W = the work-group size): its work-items copy its range
        # of chunk results into local memory a tile of W at a time, reading neighbouring
        # results (coalesced), and one of them combines the tile in order -- the same
        # operations in the same order as one work-item walking the range, so the results are
        # those of the sequential walk bit for bit; the spread's carries go back to global
        # memory from local memory the same way.  (One work-item a group, reading its range
        # alone, kept all P2 = 256 groups in one work-group of one compute unit, each
        # work-item's reads P / P2 results apart.)
        tile = max(16, min(256, 16384 // (sum(_csize(t) for t in tau) + (1 if seg else 0))))
        info["group_tile"] = tile

        def _tiles(gen, spread: bool):
            gen.emit("const long c2 = get_group_id(0);")
            gen.emit("const int t = get_local_id(0), W = get_local_size(0);")
            gen.emit("const long lo = c2 * P / P2, hi = (c2 + 1) * P / P2;")
            for j, ty in enumerate(tau):
                gen.emit(f"local {ctype(ty)} lp{j}[{tile}];")
            if seg:
                gen.emit(f"local uchar lst[{tile}];")
            acc = _decl_acc(gen, "acc", tau)
            if spread:
                _assign(gen, acc, _val([f"carry2_{j}[c2]" for j in range(len(tau))], tau))
            elif seg:
                gen.emit("uchar started = 0;")
            gen.emit("for (long base = lo; base < hi; base += W) {")
            gen.emit("  if (base + t < hi) {")
            for j in range(len(tau)):
                gen.emit(f"    lp{j}[t] = part{j}[base + t];")
            if seg:
                gen.emit("    lst[t] = pstart[base + t];")
            gen.emit("  }")
            gen.emit("  barrier(CLK_LOCAL_MEM_FENCE);")
            gen.emit("  if (t == 0) {")
            gen.emit("    const int m = (int)min((long)W, hi - base);")
            gen.emit("    for (int k = 0; k < m; k++) {")
            pv = _val([f"lp{j}[k]" for j in range(len(tau))], tau)
            if spread:
                # the carry-in of chunk base + k replaces its result in local memory
                tmps = [gen.temp(ty, f"lp{j}[k]") for j, ty in enumerate(tau)]
                for j in range(len(tau)):
                    gen.emit(f"      lp{j}[k] = acc{j};")
                pv = _val(tmps, tau)
                if seg:
                    gen.emit("      if (lst[k]) {")
                    _assign(gen, acc, pv)
                    gen.emit("      } else {")
                    _assign(gen, acc, b.op(gen, soac.op, _val(acc, tau), pv))
                    gen.emit("      }")
                else:
                    _assign(gen, acc, b.op(gen, soac.op, _val(acc, tau), pv))
            else:
                gen.emit("      if (base + k == lo) {")
                _assign(gen, acc, pv)
                if seg:
                    gen.emit("        started = lst[k];")
                    gen.emit("      } else if (lst[k]) {")
                    _assign(gen, acc, pv)
                    gen.emit("        started = 1;")
                gen.emit("      } else {")
                _assign(gen, acc, b.op(gen, soac.op, _val(acc, tau), pv))
                gen.emit("      }")
            gen.emit("    }")
            gen.emit("  }")
            gen.emit("  barrier(CLK_LOCAL_MEM_FENCE);")
            if spread:
                gen.emit("  if (base + t < hi) {")
                for j in range(len(tau)):
                    gen.emit(f"    carry{j}[base + t] = lp{j}[t];")
                gen.emit("  }")
                gen.emit("  barrier(CLK_LOCAL_MEM_FENCE);")
            gen.emit("}")
            if not spread:
                gen.emit("if (t == 0) {")
                for j in range(len(tau)):
                    gen.emit(f"  part2_{j}[c2] = acc{j};")
                if seg:
                    gen.emit("  pstart2[c2] = started;")
                gen.emit("}")

        b.kernel("fold", "mapWrg(0)(toGlobal(reduceSeq(op)) o toLocal(mapLcl(0)(id))) o split(ceil(P/P2)) $ partials",
                 ["const long P", "const long P2"] + _buf_params("part", tau, const=True) +
                 (["global const uchar* restrict pstart"] if seg else []) +
                 _buf_params("part2_", tau) + (["global uchar* restrict pstart2"] if seg else []),
                 lambda gen: _tiles(gen, False))
        if scan or seg:
            b.kernel("spread", "join o mapWrg(0)(toGlobal(mapLcl(0)(id)) o scanSeq(op, carry2) o toLocal(mapLcl(0)(id))) o split(ceil(P/P2)) $ partials",
                     ["const long P", "const long P2"] + _buf_params("part", tau, const=True) +
                     (["global const uchar* restrict pstart"] if seg else []) +
                     _buf_params("carry2_", tau, const=True) + _buf_params("carry", tau),
                     lambda gen: _tiles(gen, True))

    elif isinstance(soac, (ir.Filter, ir.Partition, ir.SegFilter, ir.SegPartition)):
        part = isinstance(soac, (ir.Partition, ir.SegPartition))
        seg = soac.SEGMENTED

        def p1(gen):
            _chunk(gen)
            gen.emit("long cnt = 0;")
            gen.emit("for (long i = lo; i < hi; i++) {")
            x = b.pull(gen, f, "i", below_n=True)
            p = gen.apply(soac.pred, [x], ctx.env)
            gen.emit(f"  if ({p.exprs[0]}) cnt++;")
            gen.emit("}")
            gen.emit("counts[c] = cnt;")
        b.kernel("count", "mapGlb(0)(toGlobal(reduceSeq(+, 0) o map(p o f)) o split(ceil(n/P))) $ generate(n)",
                 ["const long n", "const long P", "global long* restrict counts"], p1)

        def p2(gen):
            gen.emit("if (get_global_id(0) != 0) return;")
            gen.emit("long s = 0;")
            gen.emit("for (long c = 0; c < P; c++) { long k = counts[c]; counts[c] = s; s += k; }")
            gen.emit("total[0] = s;")
        b.kernel("offsets", "toGlobal(scanSeq(+, 0)) $ counts", ["const long P", "global long* restrict counts",
                                                                  "global long* restrict total"], p2)

        def p3(gen):
            # without a branch on the predicate: every element is stored at the chunk's next
            # position, which advances only past a kept one (a rejected element's store is
            # overwritten by the next kept one); the chunk's range of the output bounds the
            # stores (``end``: the next chunk's first position, or ``kept`` for the last)
            _chunk(gen)
            gen.emit("long pos = counts[c];")
            gen.emit("const long end = c + 1 < P ? counts[c + 1] : kept;")
            if part:
                gen.emit("long rpos = lo - pos;")
                gen.emit("const long rend = hi - end;")
            gen.emit("for (long i = lo; i < hi; i++) {")
            if seg:
                gen.emit("  pre[i] = pos;")
            x = b.pull(gen, f, "i", below_n=True)
            p = gen.apply(soac.pred, [x], ctx.env)
            gen.emit(f"  const long keep = ({p.exprs[0]}) ? 1 : 0;")
            gen.emit("  if (pos < end) {")
            for j, e in enumerate(x.exprs):
                gen.emit(f"    out{j}[pos] = {e};")
            gen.emit("  }")
            gen.emit("  pos += keep;")
            if part:
                gen.emit("  if (rpos < rend) {")
                for j, e in enumerate(x.exprs):
                    gen.emit(f"    rej{j}[rpos] = {e};")
                gen.emit("  }")
                gen.emit("  rpos += 1 - keep;")
            gen.emit("}")
            if seg:
                gen.emit("if (c == P - 1) pre[n] = pos;")
        p3_params = ["const long n", "const long P", "const long kept", "global const long* restrict counts"] + \
            _buf_params("out", tau) + (_buf_params("rej", tau) if part else []) + \
            (["global long* pre"] if seg else [])
        b.kernel("write", "join o mapGlb(0)(scatterSeq(positions) o filterSeq(p) o split(ceil(n/P))) $ generate(n)",
                 p3_params, p3)
        # the count and write phases (and a segmented one's positions and per-segment counts)
        # are also Lift programs where lift_filter.py can build them
        from .lift_filter import lift_filter_phases
        for key, lp in lift_filter_phases(kname, soac, tenv, ctx, sites, strategy):
            b.phases.append(Phase(lp.name, lp.text(), lp.kernel.source, compiled=True))
            info[key] = lp
        if seg:
            sd = cname(soac.sd.name)

            def p4(gen):
                gen.emit("NZ_FOR(s, nseg) {")
                gen.emit(f"  long a = {sd}_offsets[s], e = a + {sd}_lengths[s];")
                gen.emit("  int k = (int)(pre[e] - pre[a]);")
                gen.emit("  kept[s] = k;")
                if part:
                    gen.emit(f"  rejected[s] = {sd}_lengths[s] - k;")
                gen.emit("}")
            b.kernel("counts", "mapGlb(0)(toGlobal(keptPerSegment)) $ splitOffsets(offsets, pre)",
                     ["const long nseg", "global const long* restrict pre", "global int* restrict kept"] +
                     (["global int* restrict rejected"] if part else []), p4)

    elif isinstance(soac, (ir.Permute, ir.SegPermute, ir.Scatter)):
        scatter = isinstance(soac, ir.Scatter)
        segp = isinstance(soac, ir.SegPermute)
        sd = cname(soac.sd.name) if segp else None
        msg = MSG_SCATTER if scatter else MSG_PERMUTE

        def target(gen, x_first: bool):
            gen.emit("NZ_FOR(i, n) {")
            x = b.pull(gen, f, "i", below_n=True)
            g = b.pull(gen, soac.idx, "i", below_n=True)
            t = g.exprs[0]
            if scatter:
                lsite = gen.site(soac, soac.loc, MSG_SCATTER_LENGTHS)
                gen.emit(f"  if (!lens_ok) {{ {gen.err(lsite)} continue; }}")
            site = gen.site("target", soac.loc, msg)
            if segp:
                gen.emit(f"  long seg = {sd}_ids[i];")
                gen.emit(f"  if ((long){t} < 0 || (long){t} >= (long){sd}_lengths[seg]) {{ {gen.err(site)} continue; }}")
                gen.emit(f"  long tgt = (long){sd}_offsets[seg] + (long){t};")
            else:
                gen.emit(f"  if ((long){t} < 0 || (long){t} >= m) {{ {gen.err(site)} continue; }}")
                gen.emit(f"  long tgt = (long){t};")
            return x, site

        if scatter:
            def p1(gen):
                x, site = target(gen, True)
                gen.emit("  atomic_max(&win[tgt], (int)i);")
                gen.emit("}")
            b.kernel("claim", "mapGlb(0)(claimLastWriter(g)) $ generate(n)",
                     ["const long n", "const long m", "const int lens_ok", "global int* restrict win"], p1)

            def p2(gen):
                x, site = target(gen, True)
                gen.emit("  if (win[tgt] == (int)i) {")
                for j, e in enumerate(x.exprs):
                    gen.emit(f"    out{j}[tgt] = {e};")
                gen.emit("  }")
                gen.emit("}")
            b.kernel("write", "mapGlb(0)(toGlobal(f)) $ scatterIdx(g, copy(dsts))",
                     ["const long n", "const long m", "const int lens_ok", "global const int* restrict win"] +
                     _buf_params("out", tau), p2)
            # a SCATTER is also two Lift programs where lift_scatter.py can build them (the claim
            # scatterMaxIdx, the write scatterLastIdx; the runner launches them where the
            # template phases ran)
            from .lift_scatter import lift_scatter
            progs = lift_scatter(kname, soac, tenv, ctx, sites, strategy)
            if progs is not None:
                for key, lm in zip(("lift_claim", "lift_scatter", "lift_pos"), progs):
                    if lm is not None:
                        b.phases.append(Phase(lm.name, lm.text(), lm.kernel.source, compiled=True))
                        info[key] = lm
        else:
            def p1(gen):
                x, site = target(gen, True)
                gen.emit(f"  if (atomic_inc(&seen[tgt]) != 0) {{ {gen.err(site)} continue; }}")
                for j, e in enumerate(x.exprs):
                    gen.emit(f"  out{j}[tgt] = {e};")
                gen.emit("}")
            b.kernel("permute", ("mapGlb(0)(toGlobal(f)) $ scatterIdx(segOffsets + g, generate(n))" if segp
                                 else "mapGlb(0)(toGlobal(f)) $ scatterIdx(g, generate(n))"),
                     ["const long n", "const long m", "global int* restrict seen"] + _buf_params("out", tau), p1)
            # a PERMUTE (a SEG_PERMUTE: its rows) is also a Lift program where lift_permute.py
            # can build one (permuteIdx, after a MAP computing the positions where the index
            # thunk does; the runner launches them where the template permute phase ran)
            from .lift_permute import lift_permute
            progs = lift_permute(kname, soac, tenv, ctx, sites, strategy)
            if progs is not None:
                for key, lm in zip(("lift", "lift_pos"), progs):
                    if lm is not None:
                        b.phases.append(Phase(lm.name, lm.text(), lm.kernel.source, compiled=True))
                        info[key] = lm

    elif isinstance(soac, (ir.Rank, ir.SegRank)):
        kt = tau[0]
        bits = 8 if isinstance(kt, (BoolT, CharT)) else (32 if isinstance(kt, IntT) and kt.width == 32 else 64)
        ukey = "uint" if bits <= 32 else "ulong"
        info["key_bits"] = bits
        desc = soac.descending

        def p0(gen):
            gen.emit("NZ_FOR(i, n) {")
            x = b.pull(gen, f, "i", below_n=True)
            k = x.exprs[0]
            if isinstance(kt, FloatT):
                # -0.0 and 0.0 are equal keys (stable order between them, as numpy)
                gen.emit(f"  ulong u = as_ulong({k} == 0.0 ? 0.0 : {k});")
                gen.emit("  u = (u >> 63) ? ~u : (u | 0x8000000000000000ul);")
                if desc:
                    gen.emit("  u = ~u;")
                # NaN sorts last, ascending and descending (as numpy)
                gen.emit(f"  if (isnan({k})) u = 0xfffffffffffffffful;")
            elif isinstance(kt, IntT):
                sign = "0x80000000u" if bits == 32 else "0x8000000000000000ul"
                gen.emit(f"  {ukey} u = (({ukey}){k}) ^ {sign};")
                if desc:
                    gen.emit("  u = ~u;")
            else:
                gen.emit(f"  uint u = (uint){k};")
                if desc:
                    gen.emit("  u = (~u) & 0xffu;")
            gen.emit(f"  keys[i] = ({ukey})u;")
            gen.emit("  idx[i] = (int)i;")
            gen.emit("}")
        b.kernel("keys", "mapGlb(0)(toGlobal(orderKey o f)) $ generate(n)",
                 ["const long n", f"global {ukey}* restrict keys", "global int* restrict idx"], p0)
        # the keys phase (and the radix passes) are also Lift programs where lift_rank.py can
        # build them (the runner launches them where the template phases ran)
        from .lift_rank import lift_rank
        for key, lm in lift_rank(kname, soac, tenv, ctx, sites, strategy, bits).items():
            b.phases.append(Phase(lm.name, lm.text(), lm.kernel.source, compiled=True))
            info[key] = lm
    else:
        raise LowerError(f"{soac.NAME} has no OpenCL lowering")

    # the descriptors whose id vector one of the SOAC's Lift programs reads (lift_map.py's
    # LiftMap.ids: a MAP's, a REDUCE's or SCAN's chunks or last pass, a FILTER's count, ...;
    # the hand-written phases walk the offsets)
    lift_ids = {sd for v in info.values() if isinstance(getattr(v, "ids", None), tuple)
                for sd in v.ids}
    ctx.settle_walks(b.phases, tuple(sorted(lift_ids)))
    return LoweredSoac(soac, kind, ctx, sites, b.phases, tuple(out_types), tuple(tau), info)


def _commutative(op: ir.Thunk, tau: list) -> bool:
    """Whether an operator is component-wise + * max min and or xor (recognised as the numpy
    runner recognises monoids) and reordering its operands changes at most float rounding:
    float max/min are excluded (max(0.0, -0.0) and max(-0.0, 0.0) differ)."""
    from lambda_cu.prims import recognise_monoid
    names = recognise_monoid(op, len(tau))
    if names is None:
        return False
    return all(not (isinstance(t, FloatT) and nm in ("max", "min")) for nm, t in zip(names, tau))


def _thunk_result(th: ir.Thunk, tenv: dict[str, Type]) -> Type:
    from lambda_cu.check import thunk_type
    return TupleT(thunk_type(th, tenv)[1]) if len(thunk_type(th, tenv)[1]) != 1 \
        else thunk_type(th, tenv)[1][0]


# ------------------------------------------------------------------------------------------------
# support kernels shared by every program: radix-sort passes, segment descriptors, casts

SUPPORT = r"""
kernel void nz_radix_hist32(global const uint* restrict keys, const long n, const long P,
                            const int shift, global int* restrict hist) {
  const long c = get_global_id(0); if (c >= P) return;
  const long lo = c * n / P, hi = (c + 1) * n / P;
  int h[256];
  for (int d = 0; d < 256; d++) h[d] = 0;
  for (long i = lo; i < hi; i++) h[(keys[i] >> shift) & 255u]++;
  for (int d = 0; d < 256; d++) hist[(long)d * P + c] = h[d];
}
kernel void nz_radix_hist64(global const ulong* restrict keys, const long n, const long P,
                            const int shift, global int* restrict hist) {
  const long c = get_global_id(0); if (c >= P) return;
  const long lo = c * n / P, hi = (c + 1) * n / P;
  int h[256];
  for (int d = 0; d < 256; d++) h[d] = 0;
  for (long i = lo; i < hi; i++) h[(keys[i] >> shift) & 255ul]++;
  for (int d = 0; d < 256; d++) hist[(long)d * P + c] = h[d];
}
kernel void nz_radix_histseg(global const int* restrict idx, global const int* restrict ids,
                             const long n, const long P, const int shift, global int* restrict hist) {
  const long c = get_global_id(0); if (c >= P) return;
  const long lo = c * n / P, hi = (c + 1) * n / P;
  int h[256];
  for (int d = 0; d < 256; d++) h[d] = 0;
  for (long i = lo; i < hi; i++) h[(((uint)ids[idx[i]]) >> shift) & 255u]++;
  for (int d = 0; d < 256; d++) hist[(long)d * P + c] = h[d];
}
kernel void nz_exscan_int(global int* restrict a, const long m) {
  if (get_global_id(0) != 0) return;
  int s = 0;
  for (long j = 0; j < m; j++) { int k = a[j]; a[j] = s; s += k; }
}
kernel void nz_radix_scatter32(global const uint* restrict keys, global const int* restrict idx,
                               const long n, const long P, const int shift,
                               global const int* restrict hist,
                               global uint* restrict okeys, global int* restrict oidx) {
  const long c = get_global_id(0); if (c >= P) return;
  const long lo = c * n / P, hi = (c + 1) * n / P;
  int pos[256];
  for (int d = 0; d < 256; d++) pos[d] = hist[(long)d * P + c];
  for (long i = lo; i < hi; i++) {
    uint k = keys[i]; int p = pos[(k >> shift) & 255u]++;
    okeys[p] = k; oidx[p] = idx[i];
  }
}
kernel void nz_radix_scatter64(global const ulong* restrict keys, global const int* restrict idx,
                               const long n, const long P, const int shift,
                               global const int* restrict hist,
                               global ulong* restrict okeys, global int* restrict oidx) {
  const long c = get_global_id(0); if (c >= P) return;
  const long lo = c * n / P, hi = (c + 1) * n / P;
  int pos[256];
  for (int d = 0; d < 256; d++) pos[d] = hist[(long)d * P + c];
  for (long i = lo; i < hi; i++) {
    ulong k = keys[i]; int p = pos[(k >> shift) & 255ul]++;
    okeys[p] = k; oidx[p] = idx[i];
  }
}
kernel void nz_radix_scatterseg(global const int* restrict idx, global const int* restrict ids,
                                const long n, const long P, const int shift,
                                global const int* restrict hist, global int* restrict oidx) {
  const long c = get_global_id(0); if (c >= P) return;
  const long lo = c * n / P, hi = (c + 1) * n / P;
  int pos[256];
  for (int d = 0; d < 256; d++) pos[d] = hist[(long)d * P + c];
  for (long i = lo; i < hi; i++) {
    int x = idx[i]; int p = pos[(((uint)ids[x]) >> shift) & 255u]++;
    oidx[p] = x;
  }
}
kernel void nz_rank_out(global const int* restrict idx, const long n, global int* restrict out) {
  NZ_FOR(p, n) out[idx[p]] = (int)p;
}
kernel void nz_segrank_out(global const int* restrict idx, global const int* restrict ids,
                           global const int* restrict offs, const long n, global int* restrict out) {
  NZ_FOR(p, n) {
    int x = idx[p]; out[x] = (int)(p - offs[ids[x]]);
  }
}
kernel void nz_sd_chunks(global const int* restrict lens, const long n, const long P,
                         global long* restrict sums, global int* restrict maxs, global int* err,
                         const int code) {
  /* each chunk's sum and longest segment; a negative length reports error code `code`
     (make_sd's location) */
  const long c = get_global_id(0); if (c >= P) return;
  const long lo = c * n / P, hi = (c + 1) * n / P;
  long s = 0; int m = 0;
  for (long i = lo; i < hi; i++) { int l = lens[i]; if (l < 0) atomic_min(err, code); s += l; m = max(m, l); }
  sums[c] = s; maxs[c] = m;
}
kernel void nz_sd_small(global const int* restrict lens, const long n, global int* restrict offs,
                        global long* restrict total, global int* restrict maxs, global int* err,
                        const int code) {
  /* a whole descriptor in one launch, on one work-item (few segments): offsets, total, longest
     segment, and a negative length reports error code `code` */
  if (get_global_id(0) != 0) return;
  long s = 0; int m = 0;
  for (long i = 0; i < n; i++) {
    int l = lens[i]; if (l < 0) atomic_min(err, code); offs[i] = (int)s; s += l; m = max(m, l);
  }
  offs[n] = (int)s;   /* one offset more than segments: the segments as splitOffsets rows */
  total[0] = s; maxs[0] = m;
}
kernel void nz_sd_group(global const int* restrict lens, const long n, global int* restrict offs,
                        global long* restrict total, global int* restrict maxs, global int* err,
                        const int code) {
  /* a whole descriptor in one launch by one work-group of at most 256 work-items (a GPU's
     descriptors of a few thousand segments, which the chunked scan takes five launches for):
     each work-item sums its block, one scans the block sums in local memory, each writes its
     block's offsets; total, longest segment, negative lengths as nz_sd_small */
  local long ls[256];
  local int lm[256];
  const int t = get_local_id(0), W = get_local_size(0);
  const long lo = t * n / W, hi = (t + 1) * n / W;
  long s = 0; int m = 0;
  for (long i = lo; i < hi; i++) { int l = lens[i]; if (l < 0) atomic_min(err, code); s += l; m = max(m, l); }
  ls[t] = s; lm[t] = m;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (t == 0) {
    long acc = 0; int mm = 0;
    for (int k = 0; k < W; k++) { long v = ls[k]; ls[k] = acc; acc += v; mm = max(mm, lm[k]); }
    total[0] = acc; maxs[0] = mm;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  long o = ls[t];
  for (long i = lo; i < hi; i++) { offs[i] = (int)o; o += lens[i]; }
  if (t == W - 1) offs[n] = (int)o;
}
kernel void nz_sd_carry(global long* restrict sums, const long P, global long* restrict total) {
  if (get_global_id(0) != 0) return;
  long s = 0;
  for (long c = 0; c < P; c++) { long k = sums[c]; sums[c] = s; s += k; }
  total[0] = s;
}
kernel void nz_fold_long(global const long* restrict a, const long P, const long P2,
                         global long* restrict sums2) {
  /* work-group c2 sums the values [c2 * P / P2, (c2 + 1) * P / P2) of a (launched P2 groups):
     its work-items read neighbouring values (coalesced), one adds up their sums (exact) */
  local long ls[256];
  const long c2 = get_group_id(0);   /* launched exactly P2 groups: no early return before a
                                        barrier, which PoCL 3.1 miscompiles (heap corruption) */
  const int t = get_local_id(0), W = get_local_size(0);
  const long lo = c2 * P / P2, hi = (c2 + 1) * P / P2;
  long s = 0;
  for (long c = lo + t; c < hi; c += W) s += a[c];
  ls[t] = s;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (t == 0) { long acc = 0; for (int k = 0; k < W; k++) acc += ls[k]; sums2[c2] = acc; }
}
kernel void nz_spread_long(global long* restrict a, const long P, const long P2,
                           global const long* restrict sums2) {
  /* work-group c2 scans its values of a in place (exclusive) from sums2[c2], a tile of W at a
     time: read and written coalesced, one work-item scanning the tile in local memory */
  local long ls[256];
  local long run[1];
  const long c2 = get_group_id(0);   /* exactly P2 groups (nz_fold_long) */
  const int t = get_local_id(0), W = get_local_size(0);
  const long lo = c2 * P / P2, hi = (c2 + 1) * P / P2;
  if (t == 0) run[0] = sums2[c2];
  for (long base = lo; base < hi; base += W) {
    if (base + t < hi) ls[t] = a[base + t];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (t == 0) {
      long s = run[0];
      const int m = (int)min((long)W, hi - base);
      for (int k = 0; k < m; k++) { long v = ls[k]; ls[k] = s; s += v; }
      run[0] = s;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (base + t < hi) a[base + t] = ls[t];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
}
kernel void nz_sd_offsets(global const int* restrict lens, const long n, const long P,
                          global const long* restrict sums, global int* restrict offs) {
  const long c = get_global_id(0); if (c >= P) return;
  const long lo = c * n / P, hi = (c + 1) * n / P;
  long s = sums[c];
  for (long i = lo; i < hi; i++) { offs[i] = (int)s; s += lens[i]; }
  if (c == P - 1) offs[n] = (int)s;
}
kernel void nz_sd_offsets_self(global const int* restrict lens, const long n, const long P,
                               global const long* restrict sums, global int* restrict offs,
                               global long* restrict total) {
  /* chunk offsets with each chunk's carry-in summed from the chunk sums before it (few chunks:
     no separate scan launch); the last chunk writes the total */
  const long c = get_global_id(0); if (c >= P) return;
  const long lo = c * n / P, hi = (c + 1) * n / P;
  long s = 0;
  for (long k = 0; k < c; k++) s += sums[k];
  for (long i = lo; i < hi; i++) { offs[i] = (int)s; s += lens[i]; }
  if (c == P - 1) { total[0] = s; offs[n] = (int)s; }
}
kernel void nz_sd_ids(global const int* restrict offs, const long count, const long total,
                      global int* restrict ids) {
  /* each work-item: a contiguous block; one binary search for its first element, then a walk
     (O(total + count) in all, empty segments skipped) */
  const long g = get_global_id(0), G = get_global_size(0);
  const long lo = g * total / G, hi = (g + 1) * total / G;
  if (lo >= hi) return;
  long a = 0, b = count - 1;
  while (a < b) { long mid = (a + b + 1) / 2; if ((long)offs[mid] <= lo) a = mid; else b = mid - 1; }
  long s = a;
  for (long i = lo; i < hi; i++) {
    while (s + 1 < count && (long)offs[s + 1] <= i) s++;
    ids[i] = (int)s;
  }
}
kernel void nz_sd_ids_tiles(global const int* restrict offs, const long count, const long total,
                            const long tile, global int* restrict ids) {
  /* a GPU's segment ids: work-group g writes those of elements [g * tile, (g + 1) * tile);
     two work-items find the segments of its first and last element (binary searches over all
     segments), then each searches only between those two for its elements t, t + W, ...:
     neighbouring work-items write neighbouring ids (coalesced), a long segment costs no
     search steps, and the device is full (one work-item walking a block of thousands of
     elements left most of a GPU idle).  The id of i is the last segment starting at or
     before i, as nz_sd_ids walks it (empty segments skipped) */
  local long sb[2];
  const long g = get_group_id(0);
  const int t = get_local_id(0), W = get_local_size(0);
  const long lo = g * tile;   /* launched ceil(total / tile) groups: lo < total (no early
                                return before the barrier: see nz_fold_long) */
  const long hi = min(lo + tile, total);
  if (t < 2) {
    const long x = t == 0 ? lo : hi - 1;
    long a = 0, b = count - 1;
    while (a < b) { long mid = (a + b + 1) / 2; if ((long)offs[mid] <= x) a = mid; else b = mid - 1; }
    sb[t] = a;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  const long s0 = sb[0], s1 = sb[1];
  for (long i = lo + t; i < hi; i += W) {
    long a = s0, b = s1;
    while (a < b) { long mid = (a + b + 1) / 2; if ((long)offs[mid] <= i) a = mid; else b = mid - 1; }
    ids[i] = (int)a;
  }
}
kernel void nz_cast_i2l(global const int* restrict a, const long n, global long* restrict b) {
  NZ_FOR(i, n) b[i] = (long)a[i];
}
kernel void nz_cast_l2i(global const long* restrict a, const long n, global int* restrict b) {
  NZ_FOR(i, n) b[i] = (int)a[i];
}
kernel void nz_seg_lengths_check(global const int* restrict a, const long n, global int* restrict neg) {
  NZ_FOR(i, n) if (a[i] < 0) neg[0] = 1;
}
"""

__all__ = ["lower_soac", "LoweredSoac", "Phase", "Context", "SUPPORT", "cname"]
