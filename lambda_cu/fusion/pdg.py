"""Program-dependence graphs of λcu control regions (the λcu paper §4.1-4.2).

A *control region* is a CPU-level block: a function body, a branch of a host ``if``, a nested
block, or the program's main bindings.  Its PDG has one node per kernel invocation
``let xs = run K args`` (a single SOAC before fusion), one *external* node per CPU binding that
reads a kernel result (the CPU needs that result), and data-dependency edges.

Shapes.  Every node gets an iteration size: the SOAC's size argument resolved through the kernel
parameters to the region's bindings and canonicalised (:class:`Shapes`): ``#xs`` of a function
parameter is ``('len', 'xs')``; the length of a MAP/SCAN/PERMUTE result is the producer's
iteration size; a FILTER's result has the fresh size ``('filt', id)`` (a transducer); a segmented
SOAC iterates over ``('elems', sd)``; ``n = #xs`` bindings and ``check(#a == #b)`` equalities are
followed.  Equal canonical shapes mean equal lengths.

Edges are classified by the fusion rules (see :func:`classify_edge`):
  fusible          MAP -> any SOAC with a pull thunk (read as ``A[i]`` in index thunks only),
                   PERMUTE -> PERMUTE, FILTER -> REDUCE, FILTER -> FILTER, REDUCE -> ONCE,
                   SEG_FILTER -> SEG_REDUCE over the filter's descriptor;
                   segmented consumers (SEG_REDUCE, SEG_SCAN) take MAP producers through their
                   pull thunk when the MAP iterates over the descriptor's elements.
  fusion-preventing a REDUCE's scalar used inside another kernel's iteration, a data-dependent
                   (or shifted) access ``A[idx[i]]`` of a producer's result, a result used by an
                   operator/predicate thunk, a result the CPU reads, anything else.
Horizontal pairs (same shape, no path) are allowed between SOACs that share an iteration
structure (MAP, REDUCE, SCAN, FILTER, PERMUTE and the segmented REDUCE/SCAN/FILTER over the same
descriptor); other pairs are passed to the ILP as *forbidden*.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

from .. import ir
from ..types import SegDesT, VecT
from .exprs import cpu_can_fail, effectful, identity_only, kernel_can_fail
from .ilp import Edge, FusionGraph, Node

HORIZONTAL_KINDS = frozenset({"MAP", "REDUCE", "SCAN", "FILTER", "PERMUTE",
                              "SEG_REDUCE", "SEG_SCAN", "SEG_FILTER"})
SIZE_PRESERVING = frozenset({"MAP", "SCAN", "PERMUTE", "RANK", "SEG_SCAN",
                             "SEG_PERMUTE", "SEG_RANK"})   # result length = iteration size
INDEX_THUNKS = ("f", "idx")       # thunks applied to the iteration index


# --------------------------------------------------------------------------------------------
# shapes
# --------------------------------------------------------------------------------------------

class Shapes:
    """Canonical shape symbols of the CPU expressions of one region.

    ``defs`` maps a CPU name to ``(bind index, component)``; ``runs`` gives the run-node info
    needed for result lengths.  Symbols are hashable tuples; equalities asserted by ``check``
    bindings are merged with a union-find."""

    def __init__(self, binds: tuple, run_soacs: Mapping[int, tuple]):
        self.binds = binds
        self.run_soacs = run_soacs          # bind index -> (soac, param->arg mapping) or None
        self.defs: dict[str, tuple[int, int]] = {}
        for k, b in enumerate(binds):
            for j, p in enumerate(b.params):
                self.defs[p.name] = (k, j)
        self._uf: dict = {}
        self._memo: dict = {}
        # Equalities asserted by ``check`` bindings are *not* merged: they hold only once the
        # check has passed, and merging them would let kernels before the check (or a failing
        # one) be fused as if their sizes were equal.

    # union-find -------------------------------------------------------------------------
    def _find(self, s):
        while self._uf.get(s, s) != s:
            s = self._uf[s]
        return s

    def _union(self, a, b):
        ra, rb = self._find(a), self._find(b)
        # a transducer's output size stays its own symbol (the size forest needs one generator
        # per size); an asserted equality with it is simply not used
        if any(isinstance(r, tuple) and r and r[0] == "filt" for r in (ra, rb)):
            return
        if ra != rb:
            lo, hi = sorted((ra, rb), key=repr)
            self._uf[hi] = lo

    def canon(self, s):
        return self._find(s)

    # symbols ----------------------------------------------------------------------------
    def _single_def(self, name):
        d = self.defs.get(name)
        if d is None:
            return None
        k, j = d
        b = self.binds[k]
        return k, j, b

    def int_sym(self, e: ir.Exp):
        if isinstance(e, ir.Const):
            return ("const", e.value)
        if isinstance(e, ir.Length):
            return self.len_sym(e.vec)
        if isinstance(e, ir.Var):
            d = self._single_def(e.name)
            if d and len(d[2].params) == 1 and not isinstance(d[2].rhs, (ir.Run, ir.Call, ir.If, ir.Block)):
                return self.int_sym(d[2].rhs)
            return self._find(("var", e.name))
        return self._find(("exp", str(e)))

    def len_sym(self, e: ir.Exp):
        if isinstance(e, ir.SegVec):
            sd = self.sd_sym(e.sd)
            return self.elems(sd) if e.field == "ids" else self.segs(sd)
        if isinstance(e, ir.VecLit):
            return ("const", len(e.elems))
        if isinstance(e, ir.Var):
            d = self._single_def(e.name)
            if d:
                k, j, b = d
                info = self.run_soacs.get(k)
                if isinstance(b.rhs, ir.Run) and info is not None:
                    return self.result_len(k, j)
                if len(b.params) == 1 and isinstance(b.rhs, (ir.Var, ir.SegVec, ir.VecLit)):
                    return self.len_sym(b.rhs)
            return self._find(("len", e.name))
        return self._find(("len", str(e)))

    def sd_sym(self, e: ir.Exp):
        if isinstance(e, ir.Var):
            d = self._single_def(e.name)
            if d:
                k, j, b = d
                if isinstance(b.rhs, ir.Run) and self.run_soacs.get(k) is not None:
                    soac, _ = self.run_soacs[k]
                    if isinstance(soac, ir.SegFilter) and j == 1:
                        return ("sdout", k)
                if len(b.params) == 1 and isinstance(b.rhs, ir.Var):
                    return self.sd_sym(b.rhs)
                if len(b.params) == 1 and isinstance(b.rhs, ir.MakeSegDes):
                    # a descriptor of its own: only its number of segments is known
                    return ("mksd", e.name, self.len_sym(b.rhs.lengths))
            return ("sd", e.name)
        if isinstance(e, ir.MakeSegDes):
            return ("mksd", str(e), self.len_sym(e.lengths))
        return ("sd", str(e))

    def elems(self, sd):
        if sd[0] == "sdout":
            return self._find(("filt", sd[1]))
        return self._find(("elems", sd))

    def segs(self, sd):
        if sd[0] == "sdout":
            soac, args = self.run_soacs[sd[1]]
            return self.segs(self.kernel_sd(soac.sd, args))
        if sd[0] == "mksd":
            return self._find(sd[2])
        return self._find(("segs", sd))

    # kernel-level expressions, seen through a run's arguments -------------------------------
    def kernel_int(self, e: ir.Exp, args: Mapping[str, ir.Exp]):
        if isinstance(e, ir.Const):
            return ("const", e.value)
        if isinstance(e, ir.Var) and e.name in args:
            return self.int_sym(args[e.name])
        if isinstance(e, ir.Length):
            v = e.vec
            if isinstance(v, ir.Var) and v.name in args:
                return self.len_sym(args[v.name])
            if isinstance(v, ir.SegVec) and isinstance(v.sd, ir.Var) and v.sd.name in args:
                sd = self.sd_sym(args[v.sd.name])
                return self.elems(sd) if v.field == "ids" else self.segs(sd)
        return None

    def kernel_sd(self, e: ir.Exp, args: Mapping[str, ir.Exp]):
        if isinstance(e, ir.Var) and e.name in args:
            return self.sd_sym(args[e.name])
        return None

    def iteration(self, k: int):
        """Iteration size of run node ``k`` (None if unknown)."""
        info = self.run_soacs.get(k)
        if info is None:
            return None
        soac, args = info
        if soac.SEGMENTED:
            sd = self.kernel_sd(soac.sd, args)
            return None if sd is None else self.elems(sd)
        if isinstance(soac, ir.Once):
            return None
        s = self.kernel_int(soac.size, args)
        return None if s is None else self._find(s)

    def result_len(self, k: int, j: int):
        soac, args = self.run_soacs[k]
        kind = soac.NAME
        if kind in ("FILTER", "SEG_FILTER") or (kind in ("PARTITION",) and j == 0):
            return self._find(("filt", k))
        if kind in ("PARTITION", "SEG_PARTITION"):
            return self._find(("filt", k, j))
        if kind in SIZE_PRESERVING:
            it = self.iteration(k)
            return it if it is not None else self._find(("len", k, j))
        if kind == "SCATTER" and soac.dsts and soac.dsts[0].name in args:
            return self.len_sym(args[soac.dsts[0].name])   # a copy of its destination
        if kind == "SEG_REDUCE":
            sd = self.kernel_sd(soac.sd, args)
            return self.segs(sd) if sd is not None else self._find(("len", k, j))
        return self._find(("len", k, j))


def _equalities(cond: ir.Exp):
    if isinstance(cond, ir.PrimOp) and cond.op == "eq":
        yield cond.args
    elif isinstance(cond, ir.PrimOp) and cond.op == "and":
        for a in cond.args:
            yield from _equalities(a)


# --------------------------------------------------------------------------------------------
# region PDG
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class RunInfo:
    id: int                      # index of the binding in the region
    bind: ir.Bind
    kernel: ir.Kernel | None
    soac: ir.Soac | None         # the single SOAC; None: opaque (several SOACs, odd binding)
    args: Mapping[str, ir.Exp]   # kernel parameter name -> CPU argument
    outputs: tuple[str, ...]     # CPU names bound, one per kernel result

    @property
    def kind(self) -> str:
        return self.soac.NAME if self.soac is not None else "KERNEL"

    @property
    def label(self) -> str:
        names = ", ".join(self.outputs) or "_"
        return f"{names} = {self.kind} ({self.bind.rhs.kernel})"


@dataclass(frozen=True)
class RegionPDG:
    name: str
    binds: tuple
    result: ir.Exp | None
    runs: Mapping[int, RunInfo]
    graph: FusionGraph
    edge_reasons: Mapping[tuple, str]
    shapes: Shapes = field(compare=False, hash=False)

    @property
    def run_ids(self) -> tuple:
        return tuple(sorted(self.runs))


def _run_info(k: int, b: ir.Bind, kernels: Mapping[str, ir.Kernel]) -> RunInfo:
    run = b.rhs
    kern = kernels[run.kernel]
    args = {p.name: a for p, a in zip(kern.params, run.args)}
    outputs = b.names
    ok = (len(kern.binds) == 1 and len(kern.returns) == len(b.params) and len(b.params) >= 1
          and tuple(v.name for v in kern.binds[0].vars) == tuple(r.name for r in kern.returns))
    soac = kern.binds[0].soac if ok else None
    return RunInfo(k, b, kern, soac, args, outputs)


def _param_use(soac: ir.Soac, pname: str) -> str:
    """How a SOAC uses kernel variable ``pname``: 'none', 'pull' (only ``p[i]`` in index
    thunks and ``#p``), 'sd' (as its segment descriptor), 'scalar-in-f' (a scalar used in the
    index thunks), or 'other'."""
    uses = set()
    for fname in soac.THUNK_FIELDS:
        t = getattr(soac, fname)
        if pname not in {u.name for u in t.using}:
            continue
        if fname in INDEX_THUNKS and len(t.params) == 1:
            uses.add(("idx", t.params[0].name))
        else:
            uses.add(("value", None))
    shape = soac.shape
    if shape is not None and pname in ir.free_vars(shape):
        if soac.SEGMENTED:
            uses.add(("sd", None))
        else:
            uses.add(("size", None))
    for e in soac.init_exps:
        if pname in ir.free_vars(e):
            uses.add(("value", None))
    if isinstance(soac, ir.Scatter) and pname in {v.name for v in soac.dsts}:
        uses.add(("value", None))
    if not uses:
        return "none"
    if ("value", None) in uses:
        return "other"
    kinds = {u[0] for u in uses}
    if kinds == {"sd"}:
        return "sd"
    if "sd" in kinds:
        return "other"
    return "index"


def classify_edge(p: RunInfo, c: RunInfo, shapes: Shapes) -> tuple[bool, str]:
    """Is the data dependency p -> c fusible?  Returns (fusible, reason)."""
    if p.soac is None or c.soac is None:
        return False, "opaque kernel"
    pk, ck = p.kind, c.kind
    reasons = []
    fusible = True
    outs = set(p.outputs)
    for pname, arg in c.args.items():
        mentioned = outs & ir.free_vars(arg)
        if not mentioned:
            continue
        if not isinstance(arg, ir.Var):
            return False, f"the CPU computes with {', '.join(sorted(mentioned))}"
        j = p.outputs.index(arg.name)
        use = _param_use(c.soac, pname)
        if use == "none":
            continue
        ptype = p.kernel.results[j]
        if not isinstance(ptype, (VecT, SegDesT)):       # a scalar result
            if pk == "REDUCE" and ck == "ONCE":
                reasons.append("REDUCE -> ONCE")
                continue
            return False, f"scalar {arg.name} of {pk} used inside {ck}"
        if use == "sd":
            if pk == "SEG_FILTER" and ck == "SEG_REDUCE" and j == 1:
                reasons.append("SEG_FILTER -> SEG_REDUCE")
                continue
            return False, f"segment descriptor {arg.name} of {pk} used by {ck}"
        if use == "other":
            return False, f"{arg.name} used by an operator, predicate or initial value of {ck}"
        # index-thunk use: only p[i] for the thunk's index allowed
        for fname in INDEX_THUNKS:
            t = getattr(c.soac, fname, None)
            if t is None or pname not in {u.name for u in t.using}:
                continue
            if not identity_only(t.body, pname, t.params[0].name):
                return False, f"data-dependent access to {arg.name} in {ck}"
        if pk == "MAP" and ck != "ONCE":
            reasons.append(f"MAP -> {ck}")
        elif pk == "PERMUTE" and ck == "PERMUTE":
            reasons.append("PERMUTE -> PERMUTE")
        elif pk == "FILTER" and ck in ("REDUCE", "FILTER"):
            reasons.append(f"FILTER -> {ck}")
        elif pk == "SEG_FILTER" and ck == "SEG_REDUCE" and j == 0:
            reasons.append("SEG_FILTER -> SEG_REDUCE")
        else:
            return False, f"no fusion rule for {pk} -> {ck}"
    return fusible, "; ".join(dict.fromkeys(reasons)) or "length only"


def region_pdg(name: str, binds: tuple, result: ir.Exp | None,
               kernels: Mapping[str, ir.Kernel], *, all_outputs: bool = False) -> RegionPDG:
    """Build the PDG of one control region (its bindings and result expression)."""
    binds = tuple(binds)
    runs: dict[int, RunInfo] = {}
    for k, b in enumerate(binds):
        if isinstance(b.rhs, ir.Run) and b.rhs.kernel in kernels:
            runs[k] = _run_info(k, b, kernels)
    shapes = Shapes(binds, {k: (r.soac, r.args) for k, r in runs.items() if r.soac is not None})

    producer: dict[str, int] = {}         # CPU name -> node (run or external) defining it
    nodes: list[Node] = []
    edges: list[Edge] = []
    reasons: dict = {}
    reads: dict = {}
    node_ids: list[int] = []
    last_effect = None
    last_check = None                     # checks are barriers for kernels (both ways)
    runs_since_effect: list[int] = []
    # When a kernel of the region can fail, every CPU binding that can fail or has an effect
    # (host call, printing, function call, located host operation) is a barrier too: a failing
    # kernel moved across it would report its error after the effect (or pre-empt its error).
    failing = {k for k, r in runs.items() if r.kernel is not None and kernel_can_fail(r.kernel)}
    for k, b in enumerate(binds):
        fv = ir.free_vars(b.rhs)
        deps = sorted({producer[v] for v in fv if v in producer})
        if k in runs:
            r = runs[k]
            node_ids.append(k)
            runs_since_effect.append(k)
            if last_check is not None and last_check not in deps:
                # a kernel never moves before a check that preceded it (it may rely on what
                # the check established, and must not pre-empt the check's error)
                edges.append(Edge(last_check, k, False))
                reasons[(last_check, k)] = ("runs after a check" if isinstance(binds[last_check].rhs, ir.Check)
                                            else "runs after an effect")
            size = out_size = None
            if r.soac is not None:
                size = shapes.iteration(k)
                if r.kind in ("FILTER", "SEG_FILTER") and size is not None:
                    out_size = shapes.canon(("filt", k))
                if r.kind == "ONCE":
                    size = _once_size(r, runs, shapes, producer)
            nodes.append(Node(k, r.kind, size, out_size))
            for d in deps:
                if d in runs:
                    f, why = classify_edge(runs[d], r, shapes)
                else:
                    f, why = False, "result of CPU code"
                edges.append(Edge(d, k, f))
                reasons[(d, k)] = why
            reads[k] = {a.name for a in r.args.values()
                        if isinstance(a, ir.Var) and a.name not in producer}
            for n in b.names:
                producer[n] = k
        elif deps or effectful(b.rhs) or (failing and cpu_can_fail(b.rhs, kernels)):
            # CPU code reading kernel results, or with effects: an external node; effects
            # keep their order through a chain of edges
            node_ids.append(k)
            nodes.append(Node(k, "CPU", None))
            for d in deps:
                edges.append(Edge(d, k, False))
                reasons[(d, k)] = "the CPU needs the result"
            check = isinstance(b.rhs, ir.Check)
            barrier = check or (failing and cpu_can_fail(b.rhs, kernels))
            if effectful(b.rhs) or barrier:
                if last_effect is not None and last_effect not in deps:
                    edges.append(Edge(last_effect, k, False))
                    reasons[(last_effect, k)] = "order of effects"
                if barrier:
                    for r_ in runs_since_effect:
                        # ... and a kernel that can fail never moves after a check, an effect
                        # or a failure that followed it (its error would come too late); one
                        # that cannot fail may (it sits after the barrier in its cluster)
                        if r_ not in deps and r_ in failing:
                            edges.append(Edge(r_, k, False))
                            reasons[(r_, k)] = "fails before a check" if check else "fails before an effect"
                    runs_since_effect = []
                    last_check = k
                last_effect = k
            for n in b.names:
                producer[n] = k
    # outputs: results used by the region's result (or everything for the main bindings)
    outputs = set()
    live = ir.free_vars(result) if result is not None else frozenset()
    for n, k in producer.items():
        if all_outputs or n in live:
            outputs.add(k)
    forbidden = _forbidden_pairs(nodes, edges, runs, shapes)
    g = FusionGraph.build(nodes, edges, reads=reads, outputs=outputs, forbidden=forbidden)
    return RegionPDG(name, binds, result, runs, g, reasons, shapes)


def _once_size(r: RunInfo, runs, shapes, producer):
    """A ONCE may join the cluster of the REDUCEs it consumes: it takes their (common) size."""
    sizes = set()
    for a in r.args.values():
        for v in ir.free_vars(a):
            k = producer.get(v)
            if k is not None and k in runs and runs[k].kind == "REDUCE":
                sizes.add(shapes.iteration(k))
    return sizes.pop() if len(sizes) == 1 else None


def _forbidden_pairs(nodes, edges, runs, shapes):
    """Pairs of comparable nodes whose SOACs cannot share a kernel without a dependence."""
    succ: dict = {n.id: set() for n in nodes}
    for e in edges:
        succ[e.src].add(e.dst)
    reach: dict = {}
    for n in reversed(nodes):
        r = set()
        for m in succ[n.id]:
            r |= {m} | reach[m]
        reach[n.id] = r
    out = []
    fus = [n for n in nodes if n.size is not None]
    for x in range(len(fus)):
        for y in range(x + 1, len(fus)):
            a, b = fus[x], fus[y]
            connected = b.id in reach[a.id] or a.id in reach[b.id]
            if a.kind == "ONCE" or b.kind == "ONCE":
                other = b if a.kind == "ONCE" else a
                if other.kind != "REDUCE":
                    out.append((a.id, b.id))
                continue
            if connected:
                continue
            if a.kind not in HORIZONTAL_KINDS or b.kind not in HORIZONTAL_KINDS:
                out.append((a.id, b.id))
                continue
            sa, sb = runs[a.id].soac, runs[b.id].soac
            if sa.SEGMENTED and sb.SEGMENTED and \
                    shapes.kernel_sd(sa.sd, runs[a.id].args) != shapes.kernel_sd(sb.sd, runs[b.id].args):
                out.append((a.id, b.id))
    return out


# --------------------------------------------------------------------------------------------
# all regions of a program
# --------------------------------------------------------------------------------------------

def program_regions(prog: ir.Program):
    """Yield ``(name, binds, result, all_outputs)`` for every control region of ``prog``:
    function bodies, nested blocks and host-``if`` branches, and the main bindings."""
    def blocks_in(e: ir.Exp, where: str):
        if isinstance(e, ir.Block):
            yield (where, e.binds, e.result, False)
            for k, b in enumerate(e.binds):
                yield from blocks_in(b.rhs, f"{where}, binding {k} ({', '.join(b.names) or '_'})")
            yield from blocks_in(e.result, f"{where}, result")
        elif isinstance(e, ir.If):
            yield from blocks_in(e.then, f"{where}, then")
            yield from blocks_in(e.else_, f"{where}, else")
    for f in prog.functions:
        yield from blocks_in(f.body, f"function {f.name}")
    yield ("main", prog.main, None, True)
    for k, b in enumerate(prog.main):
        yield from blocks_in(b.rhs, f"main, binding {k} ({', '.join(b.names) or '_'})")


def program_pdgs(prog: ir.Program) -> tuple[RegionPDG, ...]:
    kernels = {k.name: k for k in prog.kernels}
    return tuple(region_pdg(name, binds, result, kernels, all_outputs=allout)
                 for name, binds, result, allout in program_regions(prog))
