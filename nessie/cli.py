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

EMITS = ("ast", "typed", "mono", "lcu", "lcu-fused", "pdg")
BACKENDS = ("auto", "lcu", "interp")


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="nessie", description="Nessie, a NESL compiler.")
    sub = ap.add_subparsers(dest="cmd", required=True)

    def common(p):
        p.add_argument("file", help="a .nesl source file")
        p.add_argument("--int64", action="store_true", help="64-bit NESL int (default: 32-bit)")

    r = sub.add_parser("run", help="compile and run a NESL program")
    common(r)
    r.add_argument("--backend", choices=BACKENDS, default="auto",
                   help="lcu: flattened (and fused) λcu on the numpy interpreter; interp: the "
                        "reference interpreter; auto (default): lcu when the program is within "
                        "the flattener's coverage, else interp (said on stderr)")
    r.add_argument("--no-fuse", action="store_true", help="switch kernel fusion off")
    r.add_argument("--print-length", type=int, default=100, metavar="N",
                   help="longest sequence printed in full (default 100)")
    r.add_argument("--stats", action="store_true", help="print kernel launch counts to stderr")

    c = sub.add_parser("check", help="parse and type-check only")
    common(c)

    k = sub.add_parser("compile", help="print an intermediate form")
    common(k)
    k.add_argument("--emit", choices=EMITS, default="lcu")

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
    if backend in ("auto", "lcu"):
        try:
            flat = driver.flatten(c, int_bits=bits)
        except FlattenUnsupported as e:
            if backend == "lcu":
                print(f"{args.file}: error: {e}", file=sys.stderr)
                return 1
            print(f"nessie: note: running on the reference interpreter: {e}", file=sys.stderr)
            backend = "interp"
    if backend == "interp":
        driver.run_interp(c, sys.stdout, int_bits=bits, print_length=args.print_length)
        return 0
    if not args.no_fuse:
        flat, _ = driver.fuse(flat)
    it = driver.run_lcu(c, flat, sys.stdout, print_length=args.print_length, int_bits=bits)
    if args.stats:
        launches = sum(it.launches.values())
        print(f"nessie: {len(flat.program.kernels)} kernels, {launches} launches "
              f"({'unfused' if args.no_fuse else 'fused'})", file=sys.stderr)
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
