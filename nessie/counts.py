"""Kernel counts, defined once and named the same in ``nessie stats``, ``nessie stats --json``,
``nessie run --stats`` and the benchmarks (README.md, "Kernel counts").

Static (a property of the program text, fused or not):

``lcu_kernels``          "λcu kernels": kernel definitions in the λcu program (``kernel K ...``
                         in ``--emit lcu``/``lcu-fused``).  The flattener defines identical
                         kernels once, so one definition may serve many run sites.
``lcu_run_sites``        "λcu run sites": ``run K (...)`` expressions in the program's code (what
                         fusion merges: a cluster of run sites becomes one).
``opencl_kernels``       "OpenCL kernels": OpenCL kernels the lowering generates for the λcu
                         kernels (a MAP is one, a REDUCE two, a SCAN three or four, ...).

At run time (``nessie run --stats``):

``lcu_kernel_launches``  "λcu kernel launches": ``run`` sites executed (a site inside a recursive
                         function or a loop counts every time it runs).
``device_launches``      "device launches": OpenCL kernels enqueued on the device (each λcu
                         kernel launch enqueues the phases of its SOACs).
"""
from __future__ import annotations

from typing import Optional

#: the JSON key and the printed name of each count, in the order they are shown
NAMES = {
    "lcu_kernels": "λcu kernels",
    "lcu_run_sites": "λcu run sites",
    "opencl_kernels": "OpenCL kernels",
    "lcu_kernel_launches": "λcu kernel launches",
    "device_launches": "device launches",
}

#: one line of explanation per count (``nessie stats`` prints them under the totals)
MEANINGS = {
    "lcu_kernels": "kernel definitions in the λcu program",
    "lcu_run_sites": "`run K` sites in the λcu code",
    "opencl_kernels": "OpenCL kernels generated for the λcu kernels",
    "lcu_kernel_launches": "λcu kernels launched at run time",
    "device_launches": "OpenCL kernels enqueued on the device at run time",
}

STATIC = ("lcu_kernels", "lcu_run_sites", "opencl_kernels")


def run_sites(program) -> int:
    """``run K`` sites in the code of a λcu program (its functions and main bindings)."""
    from lambda_cu import ir
    n = sum(len(ir.kernel_runs(f.body)) for f in program.functions)
    return n + sum(len(ir.kernel_runs(b.rhs)) for b in program.main)


def opencl_kernels(program) -> Optional[int]:
    """OpenCL kernels the lowering generates for every λcu kernel of ``program`` (what
    ``nessie run --stats`` reports as built); None if a kernel cannot be lowered."""
    try:
        # as the runner lowers them: with the program's device-resident scalars (whether a MAP
        # is also a Lift program depends on its scalars living on the host)
        from lift_backend.lower import lower_program
        return sum(len(s.phases) for _, soacs in lower_program(program).kernels for s in soacs)
    except Exception:  # noqa: BLE001 - a kernel the lowering refuses: no count
        return None


def static_counts(program) -> dict:
    """``{"lcu_kernels", "lcu_run_sites", "opencl_kernels"}`` of a λcu program."""
    return {"lcu_kernels": len(program.kernels),
            "lcu_run_sites": run_sites(program),
            "opencl_kernels": opencl_kernels(program)}


def totals_table(unfused: dict, fused: dict) -> str:
    """The totals of ``nessie stats``: one line per static count, unfused and fused, with what
    it counts."""
    lines = [f"{'total':<22}{'unfused':>8}{'fused':>8}"]
    for key in STATIC:
        a, b = unfused.get(key), fused.get(key)
        lines.append(f"{NAMES[key]:<22}{'-' if a is None else a:>8}{'-' if b is None else b:>8}"
                     f"   {MEANINGS[key]}")
    lines.append("(run-time counts, λcu kernel launches and device launches: nessie run --stats; "
                 "see README.md, 'Kernel counts')")
    return "\n".join(lines)
