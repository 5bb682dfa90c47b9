"""Tests of the fusion ILP over abstract graphs (lambda_cu.fusion.ilp)."""
import pulp
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from lambda_cu.fusion.ilp import (
    Edge, FusionGraph, Node, analyse, check_schedule, clusters_from_solution,
    greedy_schedule, objective_value, pair, solve, _order_clusters,
)

# --------------------------------------------------------------------------------------------
# Graphs from the papers
# --------------------------------------------------------------------------------------------


def norm2_graph():
    """λcu paper §5 / Robinson et al. Normalise2: 5 kernels over xs (size n)."""
    nodes = [Node("sum1", "REDUCE", "n"), Node("gts", "FILTER", "n", out_size="k"),
             Node("sum2", "REDUCE", "k"), Node("res1", "MAP", "n"), Node("res2", "MAP", "n")]
    edges = [Edge("gts", "sum2", True),       # FILTER -> REDUCE
             Edge("sum1", "res1", False),     # scalar used inside the map: fusion-preventing
             Edge("sum2", "res2", False)]
    return FusionGraph.build(nodes, edges,
                             reads={"sum1": ["xs"], "gts": ["xs"], "res1": ["xs"], "res2": ["xs"]},
                             outputs=["res1", "res2"])


def quadtree_graph():
    """Robinson et al. QuadTree (benches/QuadTree.comb): 4 reduces, a CPU step, 4 filters."""
    red = [Node(v, "REDUCE", "n") for v in ("minx", "maxx", "miny", "maxy")]
    ext = [Node("xmym", "EXTERNAL", None)]
    fil = [Node(v, "FILTER", "n", out_size="k_" + v) for v in ("tl", "tr", "bl", "br")]
    edges = [Edge(r.id, "xmym", False) for r in red] + [Edge("xmym", f.id, False) for f in fil]
    reads = {n.id: ["pts"] for n in red + fil}
    return FusionGraph.build(red + ext + fil, edges, reads=reads,
                             outputs=[f.id for f in fil])


def closest_pairs_graph():
    """Robinson et al. closest points (benches/ClosestPairs.comb): 6 combinators, 5 CPU steps."""
    N = lambda i, k, s, o=None: Node(i, k, s, o)  # noqa: E731
    nodes = [N("pivot", "EXTERNAL", None),
             N("aboves", "FILTER", "n", "ka"), N("belows", "FILTER", "n", "kb"),
             N("above'", "EXTERNAL", None), N("below'", "EXTERNAL", None),
             N("border", "EXTERNAL", None),
             N("aboveB", "FILTER", "n", "kaB"), N("belowB", "FILTER", "n", "kbB"),
             N("cs", "CROSS", "kaB*kbB"), N("bord", "REDUCE", "kaB*kbB"),
             N("min'", "EXTERNAL", None)]
    E = Edge
    edges = [E("pivot", "aboves", False), E("pivot", "belows", False),
             E("aboves", "above'", False), E("belows", "below'", False),
             E("above'", "border", False), E("below'", "border", False),
             E("pivot", "aboveB", False), E("pivot", "belowB", False),
             E("border", "aboveB", False), E("border", "belowB", False),
             E("aboveB", "cs", False), E("belowB", "cs", False),   # cross needs both materialised
             E("cs", "bord", True),
             E("above'", "min'", False), E("below'", "min'", False), E("bord", "min'", False)]
    reads = {i: ["pts"] for i in ("pivot", "aboves", "belows", "aboveB", "belowB")}
    return FusionGraph.build(nodes, edges, reads=reads, outputs=["min'"])


def missing_constraint_graph():
    """benches/MissingConstraint.comb (the errata case): ds and es may be fused only if as and
    cs are, and as/cs are separated by a fusion-preventing path."""
    nodes = [Node("as", "FILTER", "n", "k_as"), Node("b", "REDUCE", "k_as"),
             Node("cs", "FILTER", "n", "k_cs"), Node("ds", "REDUCE", "k_as"),
             Node("es", "REDUCE", "k_cs")]
    edges = [Edge("as", "b", True), Edge("b", "cs", False), Edge("as", "ds", True),
             Edge("cs", "es", True)]
    return FusionGraph.build(nodes, edges, reads={"as": ["xs"], "cs": ["xs"]},
                             outputs=["ds", "es"])


def fusible_clusters(g, sched):
    fusible = {n.id for n in g.nodes if n.size is not None}
    return [c for c in sched.clusters if set(c) & fusible]


def test_norm2_two_clusters():
    g = norm2_graph()
    s = solve(g)
    assert s.status == "optimal" and not s.fallback
    assert [set(c) for c in s.clusters] == [{"sum1", "gts", "sum2"}, {"res1", "res2"}]
    # execution order inside the first cluster respects gts -> sum2
    c0 = s.clusters[0]
    assert c0.index("gts") < c0.index("sum2")
    assert check_schedule(g, s.clusters) == []
    # gts is consumed only inside its cluster: not materialised
    assert s.materialised == {"sum1", "sum2", "res1", "res2"}
    assert s.objective == 71 == objective_value(g, s.clusters)
    assert s.solve_time > 0


def test_norm2_candidate_pairs_and_filter_requirements():
    an = analyse(norm2_graph())
    assert pair("sum1", "res1") not in an.candidates     # fusion-preventing edge
    assert pair("gts", "res2") not in an.candidates      # fusion-preventing path gts->sum2->res2
    assert an.candidates[pair("gts", "sum2")] == 25      # edge: N^2
    assert an.candidates[pair("res1", "res2")] == 25     # common input xs
    assert an.candidates[pair("sum1", "sum2")] == 1
    # sum2 (size k) with sum1 (size n): the closest size-n ancestor of sum2 is gts
    assert set(an.requirements[pair("sum1", "sum2")]) == {pair("gts", "sum2"), pair("gts", "sum1")}


def test_quadtree_two_loops():
    g = quadtree_graph()
    s = solve(g)
    assert check_schedule(g, s.clusters) == []
    cl = [set(c) for c in fusible_clusters(g, s)]
    assert cl == [{"minx", "maxx", "miny", "maxy"}, {"tl", "tr", "bl", "br"}]
    assert len(s.clusters) == 3   # with the external CPU step, as in the reference README


def test_closest_pairs_three_loops():
    g = closest_pairs_graph()
    s = solve(g)
    assert check_schedule(g, s.clusters) == []
    cl = sorted(sorted(c) for c in fusible_clusters(g, s))
    assert cl == [["aboveB", "belowB"], ["aboves", "belows"], ["bord", "cs"]]


def test_missing_constraint_errata():
    g = missing_constraint_graph()
    an = analyse(g)
    assert pair("as", "cs") not in an.candidates
    assert pair("ds", "es") not in an.candidates   # its requirement (as, cs) cannot hold
    s = solve(g)
    assert check_schedule(g, s.clusters) == []
    where = s.cluster_index()
    assert where["ds"] != where["es"]
    assert [set(c) for c in s.clusters] == [{"as", "b", "ds"}, {"cs", "es"}]


def test_nested_filters_need_the_whole_chain():
    # F1 (n -> k1), F2 (k1 -> k2), r reduces k2; m maps over n.  Fusing r with m needs F1 (the
    # closest size-n ancestor of r) in the cluster; the chain F1 -> F2 -> r comes by convexity.
    nodes = [Node("F1", "FILTER", "n", "k1"), Node("F2", "FILTER", "k1", "k2"),
             Node("r", "REDUCE", "k2"), Node("m", "MAP", "n")]
    edges = [Edge("F1", "F2", True), Edge("F2", "r", True)]
    g = FusionGraph.build(nodes, edges, reads={"F1": ["xs"], "m": ["xs"]}, outputs=["r", "m"])
    an = analyse(g)
    assert set(an.requirements[pair("r", "m")]) == {pair("F1", "r"), pair("F1", "m")}
    assert set(an.requirements[pair("F2", "m")]) == {pair("F1", "F2"), pair("F1", "m")}
    s = solve(g)
    assert [set(c) for c in s.clusters] == [{"F1", "F2", "r", "m"}]
    # dropping F1 from the cluster is illegal
    bad = (("F1",), ("F2", "r", "m"))
    assert any("needs" in p for p in check_schedule(g, bad))


def test_sibling_filters_fuse_through_their_generators():
    # two filters of xs and a reduce of each: one loop over xs (Robinson's horizontal filters)
    nodes = [Node("f1", "FILTER", "n", "k1"), Node("f2", "FILTER", "n", "k2"),
             Node("r1", "REDUCE", "k1"), Node("r2", "REDUCE", "k2")]
    edges = [Edge("f1", "r1", True), Edge("f2", "r2", True)]
    g = FusionGraph.build(nodes, edges, reads={"f1": ["xs"], "f2": ["xs"]}, outputs=["r1", "r2"])
    an = analyse(g)
    assert set(an.requirements[pair("r1", "r2")]) == {pair("f1", "r1"), pair("f2", "r2"),
                                                        pair("f1", "f2")}
    s = solve(g)
    assert [set(c) for c in s.clusters] == [{"f1", "f2", "r1", "r2"}]


# --------------------------------------------------------------------------------------------
# The check catches bad schedules
# --------------------------------------------------------------------------------------------

def test_check_catches_backward_order():
    g = norm2_graph()
    probs = check_schedule(g, (("res1", "res2"), ("sum1", "gts", "sum2")))
    assert any("goes backwards" in p for p in probs)


def test_check_catches_fusion_preventing_pair():
    g = norm2_graph()
    probs = check_schedule(g, (("gts", "sum2"), ("sum1", "res1"), ("res2",)))
    assert any("may not be fused" in p for p in probs)


def test_check_catches_non_convex_cluster():
    # a -> b -> c with a, c fusible (b is CPU code between them): {a, c} is not convex
    nodes = [Node("a", "MAP", "n"), Node("b", "EXTERNAL", None), Node("c", "MAP", "n"),
             Node("d", "MAP", "n")]
    edges = [Edge("a", "b", True), Edge("b", "c", True), Edge("a", "d", True), Edge("d", "c", True)]
    g = FusionGraph(tuple(nodes), tuple(edges))
    an = analyse(g)
    assert pair("a", "c") not in an.candidates   # b breaks fusibility: a preventing path
    # forge an analysis that believes a and c fuse, to exercise the convexity check itself
    forged = an.__class__(an.order, {**an.candidates, pair("a", "c"): 1, pair("a", "d"): 1,
                                     pair("c", "d"): 1},
                          {**an.requirements, pair("a", "c"): (), pair("a", "d"): (),
                           pair("c", "d"): ()},
                          an.effective_fusible, an.edges, an.reach, an.N)
    probs = check_schedule(g, (("a", "d", "c"), ("b",)), forged)
    assert any("not convex" in p for p in probs)


def test_check_catches_cluster_cycle_and_bad_member_order():
    nodes = [Node(i, "MAP", "n") for i in "abcd"]
    edges = [Edge("a", "c", True), Edge("d", "b", True)]
    g = FusionGraph(tuple(nodes), tuple(edges))
    # {a, b} and {c, d}: a->c forces AB before CD, d->b forces CD before AB
    assert _order_clusters(analyse(g), [["a", "b"], ["c", "d"]], {}) is None
    assert check_schedule(g, (("a", "b"), ("c", "d")))
    assert any("listed before its producer" in p for p in check_schedule(g, (("c", "a", "b", "d"),)))


def test_check_catches_partition_errors():
    g = norm2_graph()
    assert any("not scheduled" in p for p in check_schedule(g, (("sum1", "gts", "sum2"),)))
    assert any("clusters" in p for p in check_schedule(
        g, (("sum1", "gts", "sum2"), ("sum1",), ("res1", "res2"))))


def test_extraction_repairs_invalid_solution():
    g = norm2_graph()
    an = analyse(g)
    # a "solution" that joins sum1 with res2 and res1 with res2 -> {sum1, res1, res2} is illegal
    same = [pair("sum1", "res2"), pair("res1", "res2"), pair("gts", "sum2")]
    clusters, repaired, problems = clusters_from_solution(g, an, same, {})
    assert problems and repaired
    assert clusters is not None and check_schedule(g, clusters, an) == []
    assert {"sum1", "res1", "res2"} not in [set(c) for c in clusters]


# --------------------------------------------------------------------------------------------
# Fallbacks
# --------------------------------------------------------------------------------------------

class _Unavailable(pulp.LpSolver):
    name = "nosolver"

    def available(self):
        return False

    def actualSolve(self, lp):  # pragma: no cover - never called
        raise AssertionError


class _GivesUp(pulp.LpSolver):
    """Pretends the time limit was hit before any solution was found."""
    name = "givesup"

    def available(self):
        return True

    def actualSolve(self, lp):
        lp.assignStatus(pulp.LpStatusNotSolved, pulp.LpSolutionNoSolutionFound)
        return lp.status


class _AllZero(pulp.LpSolver):
    """Returns an 'optimal' but invalid assignment: everything fused."""
    name = "allzero"

    def available(self):
        return True

    def actualSolve(self, lp):
        lp.assignVarsVals({v.name: 0 for v in lp.variables()})
        lp.assignStatus(pulp.LpStatusOptimal, pulp.LpSolutionOptimal)
        return lp.status


def test_fallback_when_solver_unavailable():
    s = solve(norm2_graph(), solver=_Unavailable())
    assert s.fallback and "not available" in s.fallback_reason
    assert [set(c) for c in s.clusters] == [{"sum1", "gts", "sum2"}, {"res1", "res2"}]


def test_fallback_when_no_solution():
    s = solve(norm2_graph(), solver=_GivesUp())
    assert s.fallback and s.status == "greedy"
    assert check_schedule(norm2_graph(), s.clusters) == []


def test_invalid_solution_is_repaired_or_replaced():
    g = norm2_graph()
    s = solve(g, solver=_AllZero())
    assert s.repaired or s.fallback
    assert check_schedule(g, s.clusters) == []


def test_greedy_requested_and_time_limit_required():
    s = solve(norm2_graph(), solver="greedy")
    assert s.fallback and s.fallback_reason == "greedy requested"
    with pytest.raises(ValueError):
        solve(norm2_graph(), time_limit=0)


def test_trivial_graph_skips_solver():
    g = FusionGraph((Node("a", "MAP", "n"), Node("b", "MAP", "m")), (Edge("a", "b", False),))
    s = solve(g)
    assert s.status == "trivial" and s.clusters == (("a",), ("b",)) and s.solve_time == 0


def test_graph_validation():
    with pytest.raises(ValueError):
        FusionGraph((Node("a", "MAP", "n"), Node("b", "MAP", "n")),
                    (Edge("a", "b", True), Edge("b", "a", True)))
    with pytest.raises(ValueError):
        FusionGraph((Node("a", "FILTER", "n", "k"), Node("b", "FILTER", "n", "k")))
    with pytest.raises(ValueError):
        FusionGraph((Node("a", "MAP", "n"), Node("a", "MAP", "n")))


# --------------------------------------------------------------------------------------------
# Random graphs
# --------------------------------------------------------------------------------------------

KINDS = ["MAP", "REDUCE", "FILTER", "SCAN", "EXTERNAL"]


@st.composite
def random_graphs(draw, max_nodes=9):
    n = draw(st.integers(1, max_nodes))
    nodes = []
    sizes = ["n", "m"]
    for i in range(n):
        kind = draw(st.sampled_from(KINDS))
        if kind == "EXTERNAL":
            nodes.append(Node(i, kind, None))
            continue
        size = draw(st.sampled_from(sizes))
        if kind == "FILTER":
            out = f"k{i}"
            sizes.append(out)
            nodes.append(Node(i, kind, size, out))
        else:
            nodes.append(Node(i, kind, size))
    edges = []
    for j in range(n):
        for i in range(j):
            if draw(st.integers(0, 3)) == 0:
                edges.append(Edge(i, j, draw(st.booleans())))
    reads = {i: draw(st.sets(st.sampled_from(["xs", "ys"]), max_size=2)) for i in range(n)}
    outputs = draw(st.sets(st.integers(0, n - 1), max_size=n))
    forbidden = [(a, b) for a in range(n) for b in range(a + 1, n) if draw(st.integers(0, 9)) == 0]
    return FusionGraph.build(nodes, edges, reads=reads, outputs=outputs, forbidden=forbidden)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_graphs())
def test_random_graphs_give_valid_schedules(g):
    s = solve(g, time_limit=20)
    assert check_schedule(g, s.clusters) == []
    assert sorted(n for c in s.clusters for n in c) == sorted(n.id for n in g.nodes)
    assert s.objective == objective_value(g, s.clusters)
    gs = greedy_schedule(g)
    assert check_schedule(g, gs.clusters) == []
    if s.status in ("optimal", "trivial"):
        assert s.objective <= gs.objective


def _set_partitions(items):
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for part in _set_partitions(rest):
        yield [[first]] + part
        for k in range(len(part)):
            yield part[:k] + [[first] + part[k]] + part[k + 1:]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_graphs(max_nodes=6))
def test_ilp_is_optimal_against_brute_force(g):
    """The ILP optimum equals the cheapest legal clustering found by enumeration."""
    an = analyse(g)
    best = None
    for part in _set_partitions(list(an.order)):
        ordered = _order_clusters(an, part, {})
        if ordered is None or check_schedule(g, ordered, an):
            continue
        v = objective_value(g, ordered, an)
        best = v if best is None else min(best, v)
    s = solve(g, time_limit=20)
    assert s.status in ("optimal", "trivial")
    assert s.objective == best


def _dense_random_graph(n, seed):
    import random
    r = random.Random(seed)
    nodes, sizes = [], ["n", "m"]
    for i in range(n):
        k = r.choice(["MAP", "MAP", "REDUCE", "FILTER", "SCAN"])
        s = r.choice(sizes)
        if k == "FILTER":
            nodes.append(Node(i, k, s, f"k{i}"))
            sizes.append(f"k{i}")
        else:
            nodes.append(Node(i, k, s))
    edges = [Edge(i, j, r.random() < 0.7) for j in range(n) for i in range(j) if r.random() < 0.12]
    reads = {i: [r.choice(["xs", "ys", "zs"])] for i in range(n)}
    outs = [i for i in range(n) if r.random() < 0.2]
    return FusionGraph.build(nodes, edges, reads=reads, outputs=outs)


def test_time_limit_is_respected_on_a_hard_graph():
    """A random 25-node graph (Robinson et al.'s GLPK took 20 minutes on one): CBC does not
    prove optimality within 2 s; the result is still a legal schedule, no worse than greedy."""
    import time
    g = _dense_random_graph(25, 0)
    t0 = time.perf_counter()
    s = solve(g, time_limit=2)
    wall = time.perf_counter() - t0
    assert wall < 10
    assert s.status in ("time-limit", "greedy", "optimal")
    assert check_schedule(g, s.clusters) == []
    assert s.objective <= greedy_schedule(g).objective


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_graphs(max_nodes=6))
def test_small_models_enumerated_match_cbc(g):
    """Models of at most MAX_EXHAUSTIVE_PAIRS candidate pairs are solved by enumeration, not
    CBC: the same optimum as CBC's, a legal schedule, proven optimal; larger ones go to CBC."""
    import lambda_cu.fusion.ilp as ilp
    an = analyse(g)
    s = solve(g, time_limit=20)
    assert check_schedule(g, s.clusters) == [] and s.objective == objective_value(g, s.clusters)
    if not an.candidates:
        return
    e = ilp.exhaustive_schedule(g, an)
    assert check_schedule(g, e.clusters) == [] and e.status == "optimal"
    old = ilp.MAX_EXHAUSTIVE_PAIRS
    try:
        ilp.MAX_EXHAUSTIVE_PAIRS = 0
        c = solve(g, time_limit=20)
    finally:
        ilp.MAX_EXHAUSTIVE_PAIRS = old
    assert c.status == "optimal" and e.objective == c.objective
    if len(an.candidates) <= old:
        assert s.clusters == e.clusters


def _greedy_checking_everything(g):
    """The greedy clustering as first written: every trial schedule checked whole."""
    from lambda_cu.fusion.ilp import analyse
    an = analyse(g)
    groups: list = []
    for step, v in enumerate(an.order):
        later = [[n] for n in an.order[step + 1:]]
        options = [(-sum(an.candidates[pair(u, v)] for u in gr), k) for k, gr in enumerate(groups)
                   if all(pair(u, v) in an.candidates for u in gr)]
        for _, k in sorted(options):
            trial = [list(gr) for gr in groups]
            trial[k].append(v)
            ordered = _order_clusters(an, trial + later, {})
            if ordered is not None and not check_schedule(g, ordered, an):
                groups = trial
                break
        else:
            groups.append([v])
    return _order_clusters(an, groups, {})


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_graphs())
def test_greedy_checks_only_the_grown_cluster_and_decides_the_same(g):
    """greedy_clusters checks the cluster a node joins, not the whole schedule (the others are
    unchanged and legal, and an ordering exists): the clusters are the same as with every
    trial checked whole."""
    from lambda_cu.fusion.ilp import greedy_clusters
    assert greedy_clusters(g) == _greedy_checking_everything(g)


@pytest.mark.parametrize("seed", range(4))
def test_greedy_decides_the_same_on_dense_graphs(seed):
    from lambda_cu.fusion.ilp import greedy_clusters
    d = _dense_random_graph(25, seed)
    assert greedy_clusters(d) == _greedy_checking_everything(d)
