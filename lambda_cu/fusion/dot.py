"""Graphviz DOT for fusion graphs and region PDGs, with the chosen clusters (cf. the λcu paper's
Figs. 6-7): one box per kernel invocation labelled with its SOAC and iteration size, external
CPU steps as ellipses, fusible edges solid, fusion-preventing edges dashed red, each cluster of
the schedule a filled subgraph (numbered in execution order)."""
from __future__ import annotations

from .ilp import FusionGraph, Schedule, analyse

COLOURS = ("lightblue", "orange", "palegreen", "plum", "khaki", "lightpink", "lightcyan",
           "wheat", "lavender", "aquamarine")


def _q(s) -> str:
    text = str(s).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return '"' + text + '"'


def _size_str(s) -> str:
    if isinstance(s, tuple):
        if len(s) == 2 and s[0] in ("len", "var", "const"):
            return f"#{s[1]}" if s[0] == "len" else str(s[1])
        return s[0] + "(" + ", ".join(_size_str(x) for x in s[1:]) + ")"
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
