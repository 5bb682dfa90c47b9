"""Kernel fusion for λcu (the λcu paper §4, Robinson et al.'s ILP; see shared/FUSION-ILP.md).

Public API
----------
``fuse_program(prog, *, time_limit=10.0, solver="cbc", budget=30.0, window=200)``
    ``-> FusionResult(program, report)``.
    A pure function: for every control region (``pdg``) it builds the PDG, schedules it with the
    ILP (``ilp.solve``; greedy fallback), merges each cluster into one kernel (``merge``) and
    applies the Fig. 5 rewrite rules (``rewrite``).  The new program has the same functions and
    main bindings; fused kernels are named ``KF1, KF2, ...``; kernels no longer launched are
    dropped.  ``solver="greedy"`` skips the ILP.

    Bounds (fusion time grows faster than linearly with a region's size): a region of more than
    ``window`` λcu run sites is cut into consecutive windows of at most ``window`` run sites,
    each fused on its own (kernels are not fused across a cut; the values a window's successors
    read are its outputs), so the ILP's size is bounded; and once ``budget`` seconds of fusion
    have passed, the regions not yet fused are left unfused (singleton schedules, status
    ``unfused``), and every ILP solve is limited to the budget's remainder.  Both are recorded
    as fallbacks with their reason in the report (``nessie run --stats`` prints them).
    ``NESSIE_FUSION_BUDGET`` / ``NESSIE_FUSION_WINDOW`` in the environment change the
    defaults.
``FusionReport``  per function: λcu run sites (``run K`` in the code) before/after, the fused
    kernels' SOAC lists, ILP objective, solve time, whether the greedy fallback was used, and an
    estimate of global-memory traffic (bytes per element, summed over the region's launches)
    before/after.  A cluster equal to an earlier one up to the CPU names of its arguments (the
    same code in two lifted variants of a function) reuses that fused kernel's definition.
``pdg_to_dot(pdg, schedule=None)``  the PDG of a region with the chosen clusters, as Graphviz DOT.
``function_to_dot(function_report)``, ``report_to_dots(report)``  one DOT graph per function
    (title, regions, clusters named as the fused kernels, legend): ``nessie compile --emit pdg``.
``program_pdgs(prog)``  the PDGs of all regions.
"""
from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass, field
from .. import ir
from ..support import env_positive
from ..dead_code import drop_dead_bindings, drop_unused_kernels
from ..types import BoolT, CharT, FloatT, IntT, VecT
from . import ilp
from .cse import cse_program
from .dot import function_to_dot, pdg_to_dot, report_to_dots
from .exprs import effectful, rewrite as rewrite_exp
from .merge import canonical_names, merge_cluster, prune_params
from .pdg import RegionPDG, program_pdgs, region_pdg, size_only
from .rewrite import fuse_kernel
from .shapes import SIZE_PRESERVING

__all__ = ["fuse_program", "FusionResult", "FusionReport", "FunctionReport", "RegionReport",
           "KernelSummary", "pdg_to_dot", "function_to_dot", "report_to_dots", "program_pdgs",
           "region_pdg"]


# --------------------------------------------------------------------------------------------
# reports
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class KernelSummary:
    name: str
    soacs: tuple[str, ...]        # SOAC names of the fused kernel, in order
    members: tuple[str, ...]      # the original kernels merged into it
    rules: tuple[str, ...]        # rewrite rules applied


@dataclass(frozen=True)
class RegionReport:
    name: str
    pdg: RegionPDG = field(repr=False)
    schedule: ilp.Schedule
    unfused_runs: int
    fused_runs: int
    kernels: tuple[KernelSummary, ...]
    traffic_before: int
    traffic_after: int
    #: per cluster of ``schedule``: the kernel it runs after fusion (``KF3`` for a merged
    #: cluster, the kernel's own name for a single run), None for CPU steps
    cluster_names: tuple = ()


@dataclass(frozen=True)
class FunctionReport:
    name: str
    unfused_runs: int
    fused_runs: int
    fused_kernels: tuple[KernelSummary, ...]
    objective: float
    solve_time: float
    fallback: bool
    fallback_reasons: tuple[str, ...]
    traffic_before: int
    traffic_after: int
    regions: tuple[RegionReport, ...] = field(repr=False)


@dataclass(frozen=True)
class FusionReport:
    functions: tuple[FunctionReport, ...]
    #: how the bounds acted (regions cut into windows; see the module docstring)
    notes: tuple[str, ...] = ()
    #: seconds the whole fusion took (with ``cached``: reading the result from the cache)
    seconds: float = 0.0
    #: whether the result came from the disk cache (``lambda_cu.diskcache``): ``seconds`` is the
    #: time of reading it, the solve times are those of the run that stored it
    cached: bool = False

    def function(self, name: str) -> FunctionReport:
        for f in self.functions:
            if f.name == name:
                return f
        raise KeyError(name)

    @property
    def max_solve_time(self) -> float:
        return max((f.solve_time for f in self.functions), default=0.0)

    def __str__(self) -> str:
        lines = ["                   λcu run sites",
                 "function           unfused  fused  objective  solve(s)  bytes/elem  fallback"]
        for f in self.functions:
            lines.append(f"{f.name:<18} {f.unfused_runs:>8} {f.fused_runs:>6} {f.objective:>10g} "
                         f"{f.solve_time:>9.3f}  {f.traffic_before:>4} -> {f.traffic_after:<4} "
                         f"{'yes: ' + '; '.join(f.fallback_reasons) if f.fallback else 'no'}")
            for k in f.fused_kernels:
                lines.append(f"    {k.name}: {' '.join(k.soacs)}  <- {', '.join(k.members)}"
                             + (f"  [{', '.join(k.rules)}]" if k.rules else ""))
        lines.append(f"{'total':<18} {sum(f.unfused_runs for f in self.functions):>8} "
                     f"{sum(f.fused_runs for f in self.functions):>6}")
        return "\n".join(lines)


@dataclass(frozen=True)
class FusionResult:
    program: ir.Program
    report: FusionReport


# --------------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------------

def _elem_bytes(t) -> int:
    if isinstance(t, IntT):
        return t.width // 8
    if isinstance(t, FloatT):
        return 8
    if isinstance(t, (BoolT, CharT)):
        return 1
    return 0


def _kernel_traffic(k: ir.Kernel) -> int:
    """Bytes per element moved through global memory by one launch: vector parameters read
    plus vector results written."""
    read = sum(_elem_bytes(p.ty.elem) for p in k.params if isinstance(p.ty, VecT))
    written = sum(_elem_bytes(t.elem) for t in k.results if isinstance(t, VecT))
    return read + written


def _size_to_cpu(r, e: ir.Exp):
    """The CPU expression of a kernel size expression of run ``r`` (None if not expressible)."""
    if isinstance(e, ir.Const):
        return e
    if isinstance(e, ir.Var) and e.name in r.args and isinstance(r.args[e.name], (ir.Var, ir.Const)):
        return r.args[e.name]
    if isinstance(e, ir.Length):
        v = e.vec
        if isinstance(v, ir.Var) and isinstance(r.args.get(v.name), ir.Var):
            return ir.Length(r.args[v.name], e.ity)
        if isinstance(v, ir.SegVec) and isinstance(v.sd, ir.Var) and isinstance(r.args.get(v.sd.name), ir.Var):
            return ir.Length(ir.SegVec(r.args[v.sd.name], v.field, v.ity), e.ity)
    return None


def _filter_length_args(pdg: RegionPDG) -> tuple[tuple, dict]:
    """A CPU binding ``n = #F`` of a FILTER's result ``F`` read only as the iteration size of
    later kernel runs: those runs get ``#F`` as their argument instead (and the binding becomes
    dead), so that the CPU does not need the filter's result to launch them and a consumer MAP
    may fuse with the filter (FILTER-MAP).  Returns the bindings and the names replaced (each
    by its ``#F``)."""
    filt = {name for r in pdg.runs.values() if r.soac is not None and r.kind == "FILTER"
            for name in r.outputs[:1]}
    if not filt:
        return pdg.binds, {}
    cand: dict[str, ir.Length] = {}
    for k, b in enumerate(pdg.binds):
        if k in pdg.runs or len(b.params) != 1:
            continue
        rhs = b.rhs
        if isinstance(rhs, ir.Length) and isinstance(rhs.vec, ir.Var) and rhs.vec.name in filt \
                and rhs.ity == IntT(32):
            cand[b.params[0].name] = rhs
    if not cand:
        return pdg.binds, {}
    uses: dict[str, list] = {n: [] for n in cand}
    bad = set(ir.free_vars(pdg.result) & set(cand)) if pdg.result is not None else set()
    for k, b in enumerate(pdg.binds):
        fv = ir.free_vars(b.rhs) & set(cand)
        if not fv:
            continue
        r = pdg.runs.get(k)
        if r is None or r.soac is None:
            bad |= fv
            continue
        for n in fv:
            params = [p for p, a in r.args.items() if isinstance(a, ir.Var) and a.name == n]
            if len(params) != sum(1 for a in r.args.values() if n in ir.free_vars(a)) \
                    or not all(size_only(r.soac, p) for p in params):
                bad.add(n)
            else:
                uses[n].append(k)
    sub = {n: e for n, e in cand.items() if n not in bad and uses[n]}
    if not sub:
        return pdg.binds, {}
    out = []
    for k, b in enumerate(pdg.binds):
        if k not in pdg.runs and len(b.params) == 1 and b.params[0].name in sub:
            continue            # ``n = #F``: every use now reads ``#F`` (it cannot fail)
        if k in pdg.runs and ir.free_vars(b.rhs) & set(sub):
            run = b.rhs
            args = tuple(sub[a.name] if isinstance(a, ir.Var) and a.name in sub else a for a in run.args)
            out.append(ir.Bind(b.params, dataclasses.replace(run, args=args)))
        else:
            out.append(b)
    return tuple(out), sub


def _normalise_lengths(pdg: RegionPDG) -> tuple:
    """CPU ``#x`` of a size-preserving kernel result -> the producer's size expression, so that
    the CPU does not need the vector itself (it may be fused away); a filter's length read only
    as kernel sizes is passed to those kernels (:func:`_filter_length_args`)."""
    binds, sub = _filter_length_args(pdg)
    if binds is not pdg.binds:
        pdg = dataclasses.replace(pdg, binds=binds)
    lens: dict[str, ir.Exp] = {}
    for r in pdg.runs.values():
        if r.soac is None or r.kind not in SIZE_PRESERVING or r.soac.SEGMENTED:
            continue
        e = _size_to_cpu(r, r.soac.size)
        if e is None:
            continue
        if isinstance(e, ir.Var) and e.name in sub:
            # its binding is gone (the run reads ``#F``): ``#x`` stays, since ``#F`` would keep
            # the filter's result alive where FILTER-MAP absorbs it into x
            continue
        for name, t in zip(r.outputs, r.kernel.results):
            if isinstance(t, VecT):
                lens[name] = e
    if not lens:
        return pdg.binds

    def fix(x: ir.Exp):
        if isinstance(x, ir.Length) and isinstance(x.vec, ir.Var) and x.vec.name in lens:
            rep = lens[x.vec.name]
            if isinstance(rep, ir.Length):
                return dataclasses.replace(rep, ity=x.ity)
            return rep if x.ity == IntT(32) else ir.PrimOp("to_int", (rep,), x.ity)
        return None
    out = []
    for k, b in enumerate(pdg.binds):
        if k in pdg.runs:
            out.append(b)
        else:
            rhs = rewrite_exp(b.rhs, fix)
            # an unchanged binding stays the same object (``region`` then reuses its PDG)
            out.append(b if rhs is b.rhs else ir.Bind(b.params, rhs))
    return tuple(out)


#: seconds of fusion per program before the remaining regions are left unfused
DEFAULT_BUDGET = env_positive("NESSIE_FUSION_BUDGET", 30.0, float)
#: the most λcu run sites fused together in one ILP (larger regions are cut into windows)
DEFAULT_WINDOW = int(env_positive("NESSIE_FUSION_WINDOW", 200, float))


def _KEEP_RUNS(kernel: str) -> bool:
    """Fusion's dead-code policy (``lambda_cu.dead_code``): the CPU bindings fusion left unused
    (``n = #xs`` once the size comes from the producer) go, every kernel run stays (dropping
    the runs of total kernels whose results became unused would save launches, but changes
    the fused programs: not done yet)."""
    return False


class _Fuser:
    def __init__(self, prog: ir.Program, time_limit: float, solver, budget: float = DEFAULT_BUDGET,
                 window: int = DEFAULT_WINDOW):
        self.kernels: dict[str, ir.Kernel] = {k.name: k for k in prog.kernels}
        self.time_limit = time_limit
        self.solver = solver
        self.budget = budget
        self.window = max(2, int(window))
        self.start = time.perf_counter()
        self.notes: list = []
        self.counter = 0
        self.reports: dict[str, list[RegionReport]] = {}
        self.fused_keys: dict = {}      # structure of a fused kernel -> its name

    def fresh_kernel(self) -> str:
        while True:
            self.counter += 1
            name = f"KF{self.counter}"
            if name not in self.kernels:
                return name

    # regions ------------------------------------------------------------------------------
    def exp(self, e: ir.Exp, where: str, owner: str) -> ir.Exp:
        if isinstance(e, ir.Block):
            binds = tuple(ir.Bind(b.params, self.exp(b.rhs, f"{where}, binding {k} "
                                                     f"({', '.join(b.names) or '_'})", owner))
                          for k, b in enumerate(e.binds))
            result = self.exp(e.result, f"{where}, result", owner)
            new_binds = self.region(where, owner, binds, result, False)
            return ir.Block(new_binds, result)
        if isinstance(e, ir.If):
            return ir.If(e.cond, self.exp(e.then, f"{where}, then", owner),
                         self.exp(e.else_, f"{where}, else", owner))
        if isinstance(e, ir.Speculate):
            return ir.Speculate(e.size, self.exp(e.fast, f"{where}, speculate", owner),
                                self.exp(e.slow, f"{where}, replay", owner))
        return e

    def _remaining(self) -> float:
        return self.budget - (time.perf_counter() - self.start)

    def _is_run(self, b: ir.Bind) -> bool:
        return isinstance(b.rhs, ir.Run) and b.rhs.kernel in self.kernels

    def region(self, where: str, owner: str, binds: tuple, result, all_outputs: bool) -> tuple:
        if sum(1 for b in binds if self._is_run(b)) > self.window:
            return self._windows(where, owner, binds, result, all_outputs)
        pdg0 = region_pdg(where, binds, result, self.kernels, all_outputs=all_outputs)
        remaining = self._remaining()
        if remaining <= 0 and len(pdg0.runs) >= 2:
            return self._unfused(where, owner, pdg0, f"fusion time budget of {self.budget:g} s "
                                                     f"spent: region left unfused")
        binds = _normalise_lengths(pdg0)
        if len(binds) == len(pdg0.binds) and all(x is y for x, y in zip(binds, pdg0.binds)):
            # nothing to normalise: the PDG of the same bindings is the one just built
            # (region_pdg is a pure function of its arguments)
            pdg = pdg0
        else:
            pdg = region_pdg(where, binds, result, self.kernels, all_outputs=all_outputs)
        limit = self.time_limit if self.solver != "cbc" else \
            max(0.5, min(self.time_limit, remaining))
        sched = ilp.solve(pdg.graph, time_limit=limit, solver=self.solver)
        multi = [c for c in sched.clusters if sum(1 for n in c if n in pdg.runs) >= 2]
        in_multi = {n: c for c in multi for n in c}
        # names read outside each cluster: for each name, the bindings that read it
        live_result = ir.free_vars(result) if result is not None else frozenset()
        readers: dict = {}
        for j, b2 in enumerate(binds):
            for n in ir.free_vars(b2.rhs):
                readers.setdefault(n, []).append(j)
        items = []          # (priority, bind, defined names, member ids)
        summaries = []
        done_clusters = set()
        cluster_name: dict = {}
        for k, b in enumerate(binds):
            c = in_multi.get(k)
            if c is None:
                items.append((k, b, frozenset(k2 for k2 in (k,))))
                continue
            if id(c) in done_clusters:
                continue
            done_clusters.add(id(c))
            members = [n for n in c if n in pdg.runs]
            mset = set(members)
            live = set(live_result) if not all_outputs else {n for m in members for n in pdg.runs[m].outputs}
            # (only the members' outputs matter to merge_cluster)
            live |= {n for m in members for n in binds[m].names
                     if any(j not in mset for j in readers.get(n, ()))}
            name = self.fresh_kernel()
            merged = merge_cluster(pdg, members, live, name)
            fused, rules = fuse_kernel(merged.kernel, merged.param_shapes,
                                       pdg.shapes.elems, pdg.shapes.segs)
            fused, run_bind = prune_params(fused, merged.bind)
            fused = canonical_names(fused)
            key = (fused.params, fused.results, fused.binds, fused.returns)
            same = self.fused_keys.get(key)
            if same is not None:
                # the same fused kernel as an earlier cluster's (another lifted variant of
                # the function, or the same code twice): define it once
                self.counter -= 1
                name = same
                run_bind = ir.Bind(run_bind.params, ir.Run(name, run_bind.rhs.args))
            else:
                self.fused_keys[key] = name
                self.kernels[name] = dataclasses.replace(fused, name=name)
            cluster_name[id(c)] = name
            summaries.append(KernelSummary(name, tuple(x.soac.NAME for x in fused.binds),
                                           tuple(pdg.runs[m].bind.rhs.kernel for m in members),
                                           rules))
            items.append((max(members), run_bind, frozenset(members)))
        new_binds = _order_items(items, pdg.failing)
        if not all_outputs:
            new_binds = drop_dead_bindings(new_binds, result, _KEEP_RUNS, nested=False)
        before = sum(_kernel_traffic(self.kernels[r.bind.rhs.kernel]) for r in pdg.runs.values())
        after = sum(_kernel_traffic(self.kernels[b.rhs.kernel]) for b in new_binds
                    if isinstance(b.rhs, ir.Run) and b.rhs.kernel in self.kernels)
        n_after = sum(1 for b in new_binds if isinstance(b.rhs, ir.Run) and b.rhs.kernel in self.kernels)
        names = []
        for c in sched.clusters:
            runs = [pdg.runs[n] for n in c if n in pdg.runs]
            names.append(cluster_name.get(id(c))
                         or (runs[0].bind.rhs.kernel if len(runs) == 1 else None))
        self.reports.setdefault(owner, []).append(
            RegionReport(where, pdg, sched, len(pdg.runs), n_after, tuple(summaries), before, after,
                         tuple(names)))
        return new_binds

    def _unfused(self, where: str, owner: str, pdg: RegionPDG, reason: str) -> tuple:
        """The region as it is (every run its own kernel), reported as a fallback."""
        clusters = tuple((nd.id,) for nd in pdg.graph.nodes)
        sched = ilp.Schedule(clusters, 0.0, 0.0, "unfused", True, reason)
        traffic = sum(_kernel_traffic(self.kernels[r.bind.rhs.kernel]) for r in pdg.runs.values())
        names = tuple(pdg.runs[c[0]].bind.rhs.kernel if c[0] in pdg.runs else None
                      for c in clusters)
        self.reports.setdefault(owner, []).append(
            RegionReport(where, pdg, sched, len(pdg.runs), len(pdg.runs), (), traffic, traffic,
                         names))
        return pdg.binds

    def _windows(self, where: str, owner: str, binds: tuple, result, all_outputs: bool) -> tuple:
        """A region of more than ``window`` run sites, fused window by window (see the module
        docstring); each window's result is what later windows and the region's result read."""
        cuts, runs, start = [], 0, 0
        for k, b in enumerate(binds):
            if self._is_run(b):
                if runs == self.window:
                    cuts.append((start, k))
                    start, runs = k, 0
                runs += 1
        cuts.append((start, len(binds)))
        later_reads = set(ir.free_vars(result)) if result is not None else set()
        needed = []
        for lo, hi in reversed(cuts):
            needed.append(set(later_reads))
            for b in binds[lo:hi]:
                later_reads |= ir.free_vars(b.rhs)
        needed.reverse()
        self.notes.append(f"{where}: {sum(1 for b in binds if self._is_run(b))} run sites fused "
                          f"in {len(cuts)} windows of at most {self.window}")
        out: list = []
        for part, ((lo, hi), need) in enumerate(zip(cuts, needed)):
            chunk = binds[lo:hi]
            names = [n for b in chunk for n in b.names if n in need]
            res = ir.Tuple(tuple(ir.Var(n) for n in names))
            out.extend(self.region(f"{where} (window {part + 1} of {len(cuts)}: at most "
                                   f"{self.window} run sites fused together)", owner, chunk, res,
                                   all_outputs))
        return tuple(out)


def _order_items(items, failing: frozenset = frozenset()) -> tuple:
    """Stable topological order of the region's bindings (data dependencies; ties by the
    original position, clusters at the position of their last member).  The runs that can fail
    (``failing``: node ids) keep their order: an item holding one comes after every item
    holding an earlier one (the PDG's error-order edges keep each cluster's failing members
    contiguous in that order, so this adds no cycle)."""
    defs = {}
    for k, (prio, b, _) in enumerate(items):
        for n in b.names:
            defs[n] = k
    deps = {k: {defs[n] for n in ir.free_vars(b.rhs) if n in defs and defs[n] != k}
            for k, (prio, b, _) in enumerate(items)}
    last = None
    for k in sorted(range(len(items)), key=lambda k: items[k][0]):
        if not isinstance(items[k][1].rhs, ir.Run) and effectful(items[k][1].rhs):
            if last is not None:
                deps[k].add(last)
            last = k
    fl = sorted((min(m & failing), k) for k, (_, _, m) in enumerate(items) if m & failing)
    for (_, a), (_, b) in zip(fl, fl[1:]):
        if a != b:
            deps[b].add(a)
    done, out = set(), []
    order = sorted(range(len(items)), key=lambda k: items[k][0])
    while len(out) < len(items):
        for k in order:
            if k not in done and deps[k] <= done:
                done.add(k)
                out.append(items[k][1])
                break
        else:
            raise AssertionError("fusion produced cyclic bindings")
    return tuple(out)


def fuse_program(prog: ir.Program, *, time_limit: float = ilp.DEFAULT_TIME_LIMIT,
                 solver="cbc", budget: float = None, window: int = None) -> FusionResult:
    """Fuse the kernels of every control region of ``prog`` (see the module docstring), then
    eliminate common subexpressions of the result (``lambda_cu.fusion.cse``: equal results of
    the fused kernels, and the equal bindings that makes; the flattener ran it on ``prog``).

    With the bundled solver, the result comes from the disk cache (``lambda_cu.diskcache``)
    where an earlier process fused an equal program with the same bounds, and is stored there
    where it does not depend on time (:func:`deterministic`)."""
    budget = DEFAULT_BUDGET if budget is None else budget
    window = DEFAULT_WINDOW if window is None else window
    if solver != "cbc":
        return _fuse_program(prog, time_limit, solver, budget, window)
    from lambda_cu import diskcache
    t0 = time.perf_counter()
    res, hit = diskcache.cached("fuse", (prog, float(time_limit), float(budget), int(window)),
                                lambda: _fuse_program(prog, time_limit, solver, budget, window),
                                lambda r: deterministic(r.report))
    if hit:
        res = FusionResult(res.program, dataclasses.replace(
            res.report, seconds=time.perf_counter() - t0, cached=True))
    return res


def deterministic(report: FusionReport) -> bool:
    """Whether a fusion's result is a function of its input and bounds alone: no ILP solve hit
    its time limit, no region was left unfused by the time budget, and every greedy fallback
    was chosen by the model's size (not by a solver that failed or was missing)."""
    for f in report.functions:
        for r in f.regions:
            s = r.schedule
            if s.status == "time-limit":
                return False
            if s.fallback and not (s.fallback_reason == "greedy requested" or
                                   (s.fallback_reason or "").startswith("ILP too large")):
                return False
    return True


def _fuse_program(prog: ir.Program, time_limit: float, solver, budget: float,
                  window: int) -> FusionResult:
    fz = _Fuser(prog, time_limit, solver, budget, window)
    functions = []
    for f in prog.functions:
        body = fz.exp(f.body, f"function {f.name}", f.name)
        functions.append(dataclasses.replace(f, body=body))
    main = tuple(ir.Bind(b.params, fz.exp(b.rhs, f"main, binding {k}", "main"))
                 for k, b in enumerate(prog.main))
    if main:
        main = fz.region("main", "main", main, None, True)
    kernels = tuple(fz.kernels.values())
    new = cse_program(drop_unused_kernels(ir.Program(kernels, tuple(functions), main)))
    reports = []
    for owner, regs in fz.reports.items():
        fb = [r.schedule.fallback_reason for r in regs if r.schedule.fallback]
        reports.append(FunctionReport(
            owner, sum(r.unfused_runs for r in regs), sum(r.fused_runs for r in regs),
            tuple(k for r in regs for k in r.kernels),
            sum(r.schedule.objective for r in regs), sum(r.schedule.solve_time for r in regs),
            bool(fb), tuple(fb), sum(r.traffic_before for r in regs),
            sum(r.traffic_after for r in regs), tuple(regs)))
    return FusionResult(new, FusionReport(tuple(reports), tuple(fz.notes),
                                          time.perf_counter() - fz.start))
