"""``nessie`` command line: run, check, compile (--emit), stats.

User errors (syntax, type, scope, runtime) are printed as ``FILE:LINE:COL: error: ...`` with the
source line and a caret, and the command exits with status 1; a Python traceback is only ever
shown for an internal compiler error, which says so.
"""
from __future__ import annotations

import argparse
import json
import sys
import traceback
from typing import Optional

from nessie.diagnostics import CompileErrors, CompileError, RuntimeNeslError

EMITS = ("ast", "typed", "mono", "lcu", "lcu-fused", "pdg", "lift", "opencl")
BACKENDS = ("auto", "opencl", "lcu", "interp")


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="nessie", description="Nessie, a NESL compiler.")
    sub = ap.add_subparsers(dest="cmd", required=True)

    def common(p):
        p.add_argument("file", help="a .nesl source file")
        p.add_argument("--int64", action="store_true", help="64-bit NESL int (default: 32-bit)")

    r = sub.add_parser("run", help="compile and run a NESL program")
    common(r)
    r.add_argument("--backend", choices=BACKENDS, default="auto",
                   help="opencl: flattened (and fused) λcu lowered to OpenCL kernels run on the "
                        "device; lcu: the same λcu on the numpy kernel runner; interp: the "
                        "reference interpreter; auto (default): opencl when the program is within "
                        "the flattener's coverage, else interp (said on stderr)")
    r.add_argument("--device", default=None, metavar="DEV",
                   help="OpenCL device for --backend opencl: cpu, gpu or P:D (platform:device "
                        "numbers); default: PYOPENCL_CTX if set, else a GPU if present, else the "
                        "CPU (PoCL)")
    r.add_argument("--no-fuse", action="store_true", help="switch kernel fusion off")
    r.add_argument("--print-length", type=int, default=100, metavar="N",
                   help="longest sequence printed in full (default 100)")
    r.add_argument("--stats", action="store_true",
                   help="print to stderr: λcu kernels, kernel launches and, on opencl, the "
                        "device, OpenCL kernels built, device launches, kernel time, bytes moved "
                        "between host and device and peak device memory")

    c = sub.add_parser("check", help="parse and type-check only")
    common(c)

    k = sub.add_parser("compile", help="print an intermediate form")
    common(k)
    k.add_argument("--emit", choices=EMITS, default="lcu",
                   help="ast | typed | mono | lcu (flattened λcu, default) | lcu-fused | pdg "
                        "(fusion graphs in DOT) | lift (per fused λcu kernel, the Lift expression "
                        "of each OpenCL kernel) | opencl (the generated OpenCL C)")
    k.add_argument("--no-fuse", action="store_true",
                   help="with --emit lift/opencl: lower the unfused program")

    s = sub.add_parser("stats", help="kernel counts before and after fusion")
    common(s)
    s.add_argument("--json", action="store_true")
    return ap


def _read(path: str) -> str:
    with open(path, encoding="utf-8") as f:
        return f.read()


def main(argv: Optional[list] = None) -> int:
    args = _parser().parse_args(argv)
    try:
        return _dispatch(args)
    except (CompileErrors, CompileError) as e:
        print(e.format(), file=sys.stderr)
        return 1
    except RuntimeNeslError as e:
        sys.stdout.flush()
        print(e.format(), file=sys.stderr)
        return 1
    except FileNotFoundError as e:
        print(f"nessie: error: cannot open {e.filename}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:          # `nessie ... | head`
        try:
            sys.stdout.close()
        except Exception:  # noqa: BLE001
            pass
        return 0
    except Exception:  # noqa: BLE001 - a compiler bug, reported as such
        traceback.print_exc()
        print("nessie: internal compiler error (this is a bug in Nessie; please report it "
              "with the program that triggered it)", file=sys.stderr)
        return 2


def _dispatch(args) -> int:
    from nessie import driver
    from nessie.flatten import FlattenUnsupported

    bits = 64 if args.int64 else 32
    text = _read(args.file)
    if args.cmd == "check":
        driver.compile_source(text, args.file)
        return 0
    if args.cmd == "compile" and args.emit == "ast":
        from nessie.syntax import parse_text
        from nessie.syntax.printer import print_ast
        print(print_ast(parse_text(text, args.file)))
        return 0
    c = driver.compile_source(text, args.file)
    if args.cmd == "compile":
        if args.emit == "typed":
            from nessie.types import print_typed
            print(print_typed(c.typed))
        elif args.emit == "mono":
            from nessie.mono import print_mono
            print(print_mono(c.mono))
        else:
            flat = _flatten_or_fail(c, bits)
            if args.emit == "lcu":
                print(flat.program)
            elif args.emit == "lcu-fused":
                print(driver.fuse(flat)[0].program)
            elif args.emit in ("lift", "opencl"):
                from lift_backend.lower import print_lift, print_opencl
                prog = (flat if args.no_fuse else driver.fuse(flat)[0]).program
                print(print_lift(prog) if args.emit == "lift" else print_opencl(prog))
            else:
                from lambda_cu.fusion import pdg_to_dot
                _, report = driver.fuse(flat)
                print("".join(pdg_to_dot(region.pdg, region.schedule)
                              for fr in report.functions for region in fr.regions), end="")
        return 0
    if args.cmd == "stats":
        flat = _flatten_or_fail(c, bits)
        _, report = driver.fuse(flat)
        if args.json:
            print(json.dumps(stats_json(report), indent=2))
        else:
            print(report)
        return 0
    # run
    backend = args.backend
    flat = None
    if backend in ("auto", "lcu", "opencl"):
        try:
            flat = driver.flatten(c, int_bits=bits)
        except FlattenUnsupported as e:
            if backend != "auto":
                print(f"{args.file}: error: {e}", file=sys.stderr)
                return 1
            print(f"nessie: note: running on the reference interpreter: {e}", file=sys.stderr)
            backend = "interp"
    if backend == "interp":
        driver.run_interp(c, sys.stdout, int_bits=bits, print_length=args.print_length)
        return 0
    if backend == "auto":
        backend = "opencl"
    if args.device is not None and backend != "opencl":
        print("nessie: error: --device applies to --backend opencl only", file=sys.stderr)
        return 1
    if not args.no_fuse:
        flat, _ = driver.fuse(flat)
    try:
        runner = driver.make_runner(backend, args.device)
    except RuntimeError as e:       # no OpenCL device, or not the one asked for
        print(f"nessie: error: {e}", file=sys.stderr)
        return 1
    it = driver.run_lcu(c, flat, sys.stdout, print_length=args.print_length, int_bits=bits,
                        runner=runner)
    if args.stats:
        launches = sum(it.launches.values())
        print(f"nessie: backend {backend}, {'unfused' if args.no_fuse else 'fused'}: "
              f"{len(flat.program.kernels)} λcu kernels, {launches} λcu kernel launches",
              file=sys.stderr)
        st = getattr(runner, "stats", None)
        if st is not None:
            print(f"nessie: device {runner.device.name.strip()} "
                  f"({runner.device.platform.name.strip()}): {st.kernels_built} OpenCL kernels "
                  f"built in {st.build_seconds:.2f} s, {st.launches} device launches, kernel time "
                  f"{st.kernel_seconds * 1e3:.1f} ms, {st.bytes_to_device} B to device, "
                  f"{st.bytes_from_device} B from device, {st.syncs} synchronisations, peak "
                  f"device memory {st.peak_bytes} B", file=sys.stderr)
    return 0


def stats_json(report) -> dict:
    """The fusion report as ``{"functions": {NAME: {"unfused_kernels": N, "fused_kernels": M,
    ...}}, "max_solve_time_s": ...}`` (kernel counts are kernel invocations, i.e. ``run`` sites
    in the function's code)."""
    funcs = {}
    for f in report.functions:
        funcs[f.name] = {
            "unfused_kernels": f.unfused_runs,
            "fused_kernels": f.fused_runs,
            "fused_kernel_soacs": {k.name: list(k.soacs) for k in f.fused_kernels},
            "fused_from": {k.name: list(k.members) for k in f.fused_kernels},
            "rewrite_rules": {k.name: list(k.rules) for k in f.fused_kernels},
            "ilp_objective": f.objective,
            "ilp_solve_time_s": f.solve_time,
            "fallback_used": f.fallback,
            "fallback_reasons": list(f.fallback_reasons),
            "global_memory_bytes_per_element": {"before": f.traffic_before,
                                                "after": f.traffic_after},
        }
    return {"functions": funcs, "max_solve_time_s": report.max_solve_time}


def _flatten_or_fail(c, bits):
    from nessie import driver
    from nessie.flatten import FlattenUnsupported
    try:
        return driver.flatten(c, int_bits=bits)
    except FlattenUnsupported as e:
        raise CompileError(None, str(e)) from None


if __name__ == "__main__":
    sys.exit(main())
