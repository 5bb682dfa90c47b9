"""Graphviz DOT for fusion graphs and region PDGs, with the chosen clusters (cf. the λcu paper's
Figs. 6-7): one box per kernel invocation labelled with its SOAC and iteration size, external
CPU steps as ellipses, fusible edges solid, fusion-preventing edges dashed red, each cluster of
the schedule a filled subgraph (numbered in execution order).

``function_to_dot(fr)`` draws one function (a ``FunctionReport``): a title, every control
region that runs kernels as a box of its own, each fused cluster named as the fused kernel
``--emit lcu-fused`` prints (``KF1``, ...), and a legend; ``report_to_dots(report)`` gives
``(function name, DOT)`` for every function that runs kernels (``nessie compile --emit pdg``).
"""
from __future__ import annotations

from .ilp import FusionGraph, Schedule, analyse

COLOURS = ("lightblue", "orange", "palegreen", "plum", "khaki", "lightpink", "lightcyan",
           "wheat", "lavender", "aquamarine")


def _q(s) -> str:
    text = str(s).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return '"' + text + '"'


def _size_str(s) -> str:
    """Display text of a shape (``lambda_cu.fusion.shapes``; any other hashable size: ``str``)."""
    return str(s)


def graph_to_dot(g: FusionGraph, schedule: Schedule | None = None, labels=None,
                 name: str = "pdg", reasons=None) -> str:
    labels = labels or {}
    reasons = reasons or {}
    an = analyse(g)
    lines = [f"digraph {_q(name)} {{", "  rankdir=TB;", "  node [fontname=\"monospace\"];"]

    def node_line(n, indent="  "):
        lab = labels.get(n.id, f"{n.id}: {n.kind}")
        if n.size is not None:
            lab += f"\n[{_size_str(n.size)}" + (f" -> {_size_str(n.out_size)}]" if n.out_size else "]")
        shape = "box" if n.size is not None else "ellipse"
        extra = ", peripheries=2" if n.id in g.outputs else ""
        return f"{indent}{_q(n.id)} [label={_q(lab)}, shape={shape}{extra}];"
    placed = set()
    if schedule is not None:
        index = g._index()
        for k, cl in enumerate(schedule.clusters):
            if len(cl) < 2 and index[cl[0]].size is None:
                continue
            lines.append(f"  subgraph {_q(f'cluster_{k}')} {{")
            lines.append(f"    label={_q(f'#{k}')}; style=filled; color={COLOURS[k % len(COLOURS)]};")
            for nid in cl:
                lines.append(node_line(index[nid], "    "))
                placed.add(nid)
            lines.append("  }")
    for n in g.nodes:
        if n.id not in placed:
            lines.append(node_line(n))
    for (a, b) in sorted(an.edges, key=repr):
        fus = (a, b) in an.effective_fusible
        why = reasons.get((a, b))
        attrs = [] if fus else ["style=dashed", "color=red"]
        if why:
            attrs.append(f"tooltip={_q(why)}")
        lines.append(f"  {_q(a)} -> {_q(b)}" + (f" [{', '.join(attrs)}]" if attrs else "") + ";")
    lines.append("}")
    return "\n".join(lines) + "\n"


def pdg_to_dot(pdg, schedule: Schedule | None = None) -> str:
    """DOT text of a region PDG (``lambda_cu.fusion.pdg.RegionPDG``) and, optionally, its
    schedule."""
    labels = {}
    for k, r in pdg.runs.items():
        labels[k] = r.label
    for n in pdg.graph.nodes:
        if n.id not in labels:
            b = pdg.binds[n.id]
            labels[n.id] = f"{', '.join(b.names) or '_'} = CPU"
    return graph_to_dot(pdg.graph, schedule, labels, pdg.name, pdg.edge_reasons)


# --------------------------------------------------------------------------------------------
# one graph per function (nessie compile --emit pdg)
# --------------------------------------------------------------------------------------------

_MAX_SIZE = 32          # longer iteration-size expressions are cut (the full text is a tooltip)

LEGEND = """\
  subgraph "cluster_legend" {
    label="legend"; style=solid; color=gray; fontname="monospace"; fontsize=10;
    node [fontsize=9];
    "legend_run" [label="x = SOAC (K)\\n[iteration size]", shape=box];
    "legend_cpu" [label="y = CPU step", shape=ellipse];
    "legend_out" [label="result read after\\nthe region", shape=box, peripheries=2];
    subgraph "cluster_legend_kf" {
      label="KFn: one fused kernel"; style=filled; color=lightblue; fontsize=9;
      "legend_a" [label="a = MAP (K)", shape=box];
      "legend_b" [label="b = REDUCE (K)", shape=box];
    }
    "legend_a" -> "legend_b" [label="fusible", fontsize=9];
    "legend_cpu" -> "legend_run" [label="prevents fusion\\n(why: tooltip)", style=dashed, color=red, fontsize=9];
    "legend_run" -> "legend_out" [style=invis];
  }
"""


def _short(text: str) -> str:
    return text if len(text) <= _MAX_SIZE else text[:_MAX_SIZE - 3] + "..."


def _region_body(pdg, schedule, names, prefix: str, indent: str) -> list:
    """DOT lines of one region: its clusters named by ``names`` (the region report's
    ``cluster_names``), nodes prefixed with ``prefix``."""
    g = pdg.graph
    an = analyse(g)
    index = g._index()
    lines = []

    def nid(n) -> str:
        return _q(f"{prefix}{n}")

    def node_line(n, ind):
        if n.id in pdg.runs:
            lab = pdg.runs[n.id].label
        else:
            lab = f"{', '.join(pdg.binds[n.id].names) or '_'} = CPU step"
        tip = ""
        if n.size is not None:
            size = _size_str(n.size) + (f" -> {_size_str(n.out_size)}" if n.out_size else "")
            lab += f"\n[{_short(size)}]"
            if len(size) > _MAX_SIZE:
                tip = f", tooltip={_q(size)}"
        shape = "box" if n.size is not None else "ellipse"
        extra = ", peripheries=2" if n.id in g.outputs else ""
        return f"{ind}{nid(n.id)} [label={_q(lab)}, shape={shape}{extra}{tip}];"

    placed = set()
    colour = 0
    for k, cl in enumerate(schedule.clusters):
        runs = [n for n in cl if n in pdg.runs]
        if len(runs) < 2:
            continue
        name = names[k] if k < len(names) and names[k] else f"#{k}"
        lines.append(f"{indent}subgraph {_q(f'cluster_{prefix}{k}')} {{")
        lines.append(f"{indent}  label={_q(f'{name}: {len(runs)} runs fused')}; style=filled; "
                     f"color={COLOURS[colour % len(COLOURS)]};")
        colour += 1
        for n in cl:
            lines.append(node_line(index[n], indent + "  "))
            placed.add(n)
        lines.append(f"{indent}}}")
    for n in g.nodes:
        if n.id not in placed:
            lines.append(node_line(n, indent))
    for (a, b) in sorted(an.edges, key=repr):
        attrs = [] if (a, b) in an.effective_fusible else ["style=dashed", "color=red"]
        why = pdg.edge_reasons.get((a, b))
        if why:
            attrs.append(f"tooltip={_q(why)}")
        lines.append(f"{indent}{nid(a)} -> {nid(b)}" + (f" [{', '.join(attrs)}]" if attrs else "")
                     + ";")
    return lines


def function_to_dot(fr) -> str | None:
    """One DOT graph of a function's fusion (``lambda_cu.fusion.FunctionReport``): title, one box
    per control region that runs kernels, fused clusters named ``KFn``, legend.  None when the
    function runs no kernel (nothing to draw)."""
    regions = [r for r in fr.regions if r.pdg.runs]
    if not regions:
        return None
    title = (f"{fr.name}: {fr.unfused_runs} λcu run site{'s' if fr.unfused_runs != 1 else ''} "
             f"-> {fr.fused_runs} after fusion")
    kernels = sorted({k.name for k in fr.fused_kernels}, key=lambda n: (len(n), n))
    if kernels:
        title += f" (fused kernels {', '.join(kernels)})"
    lines = [f"digraph {_q(fr.name)} {{",
             f"  label={_q(title)}; labelloc=t; fontsize=16; fontname=\"monospace\";",
             "  rankdir=TB; compound=true;",
             "  node [fontname=\"monospace\"];", "  edge [fontname=\"monospace\"];"]
    for j, r in enumerate(regions):
        prefix = f"r{j}_"
        if len(regions) > 1:
            lines.append(f"  subgraph {_q(f'cluster_region{j}')} {{")
            lines.append(f"    label={_q(r.name)}; style=dashed; color=gray40;")
            lines += _region_body(r.pdg, r.schedule, r.cluster_names, prefix, "    ")
            lines.append("  }")
        else:
            lines += _region_body(r.pdg, r.schedule, r.cluster_names, prefix, "  ")
    lines.append(LEGEND.rstrip("\n"))
    lines.append("}")
    return "\n".join(lines) + "\n"


def report_to_dots(report) -> list:
    """``[(function name, DOT text)]`` for every function of a ``FusionReport`` that runs
    kernels, in the report's order."""
    out = []
    for fr in report.functions:
        text = function_to_dot(fr)
        if text is not None:
            out.append((fr.name, text))
    return out
