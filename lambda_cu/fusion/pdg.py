"""Program-dependence graphs of λcu control regions (the λcu paper §4.1-4.2).

A *control region* is a CPU-level block: a function body, a branch of a host ``if``, a nested
block, or the program's main bindings.  Its PDG has one node per kernel invocation
``let xs = run K args`` (a single SOAC before fusion), one *external* node per CPU binding that
reads a kernel result (the CPU needs that result), and data-dependency edges.

Shapes.  Every node gets an iteration size, a structured shape value computed by the one shape
analysis of fusion (``lambda_cu.fusion.shapes.RegionShapes``, which ``rewrite`` uses at the kernel
level too): the SOAC's size argument resolved through the kernel parameters to the region's
bindings.  ``#xs`` of a function parameter is ``LenOf(xs)``; the length of a MAP/SCAN/PERMUTE
result is the producer's iteration size; a FILTER's result has the fresh size ``Filtered(id)``
(a transducer); a segmented SOAC iterates over ``Elems(sd)``; ``n = #xs`` bindings are followed
(``check(#a == #b)`` equalities are not: they hold only after the check).  Equal shapes mean
equal lengths; no decision depends on printed IR.

Edges are classified by the fusion rules (see :func:`classify_edge`):
  fusible          MAP -> any SOAC with a pull thunk (read as ``A[i]`` in index thunks only),
                   PERMUTE -> PERMUTE, FILTER -> REDUCE, FILTER -> FILTER, FILTER -> MAP, REDUCE -> ONCE,
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
from .shapes import Filtered, RegionShapes

HORIZONTAL_KINDS = frozenset({"MAP", "REDUCE", "SCAN", "FILTER", "PERMUTE",
                              "SEG_REDUCE", "SEG_SCAN", "SEG_FILTER"})
INDEX_THUNKS = ("f", "idx")       # thunks applied to the iteration index


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
    shapes: RegionShapes = field(compare=False, hash=False)

    @property
    def run_ids(self) -> tuple:
        return tuple(sorted(self.runs))

    @property
    def failing(self) -> frozenset:
        """The run nodes whose kernel can fail (a located check)."""
        return _failing_runs(self.runs)


def _failing_runs(runs: Mapping[int, RunInfo]) -> frozenset:
    return frozenset(k for k, r in runs.items() if r.kernel is not None and kernel_can_fail(r.kernel))


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


def size_only(soac: ir.Soac, pname: str) -> bool:
    """Whether ``soac`` uses kernel variable ``pname`` only in its unsegmented size."""
    return not soac.SEGMENTED and _param_use(soac, pname) == "index" \
        and not any(pname in {u.name for u in t.using} for t in soac.thunks())


def classify_edge(p: RunInfo, c: RunInfo, shapes: RegionShapes) -> tuple[bool, str]:
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
        if isinstance(arg, ir.Length) and isinstance(arg.vec, ir.Var) and pk == "FILTER" \
                and size_only(c.soac, pname):
            # a filter's length as the consumer's size (fusion's ``_filter_length_args``): the
            # consumer iterates over the filter's output, which FILTER-MAP/-REDUCE/-FILTER fuse
            reasons.append("length only")
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
        elif pk == "FILTER" and ck in ("REDUCE", "FILTER", "MAP"):
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
    shapes = RegionShapes(binds, {k: (r.soac, r.args) for k, r in runs.items() if r.soac is not None})

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
    failing = _failing_runs(runs)
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
                    out_size = Filtered(k)
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
    # error order between kernels: a kernel that can fail is never scheduled after a later
    # kernel that can fail, unless the two share a kernel (whose checks keep the order of
    # their bindings): an ordering edge between consecutive failing runs, fusible where the
    # model allows their fusion (a producer that can fail, fused into its consumer past
    # another failing kernel, would report its error after that kernel's)
    prev = None
    for k in sorted(failing):
        if prev is not None and (prev, k) not in reasons:
            edges.append(Edge(prev, k, True))
            reasons[(prev, k)] = "error order"
        prev = k
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
            if sa.SEGMENTED and sb.SEGMENTED and shapes.kernel_sd(a.id) != shapes.kernel_sd(b.id):
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
        elif isinstance(e, ir.Speculate):
            yield from blocks_in(e.fast, f"{where}, speculate")
            yield from blocks_in(e.slow, f"{where}, replay")
    for f in prog.functions:
        yield from blocks_in(f.body, f"function {f.name}")
    yield ("main", prog.main, None, True)
    for k, b in enumerate(prog.main):
        yield from blocks_in(b.rhs, f"main, binding {k} ({', '.join(b.names) or '_'})")


def program_pdgs(prog: ir.Program) -> tuple[RegionPDG, ...]:
    kernels = {k.name: k for k in prog.kernels}
    return tuple(region_pdg(name, binds, result, kernels, all_outputs=allout)
                 for name, binds, result, allout in program_regions(prog))
