"""``nessie`` command line: run, check, compile (--emit), stats, test, bench.

Every command takes one or more files (``-`` reads the program from standard input); with
several files each is processed in turn and the exit status is 1 if any of them failed.  User
errors (syntax, type, scope, runtime) are printed as ``FILE:LINE:COL: error: ...`` with the
source line and a caret, and the command exits with status 1; a Python traceback is only ever
shown for an internal compiler error, which says so.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import traceback
from typing import Optional

from nessie.diagnostics import CompileErrors, CompileError, RuntimeNeslError, Span, with_sources

from nessie.passes import EMITS as _PASS_EMITS
from nessie.sources import UsageError as _UsageError
from nessie.sources import read_source as _read
from nessie.sources import reason as _reason

#: the IR after each registered pass (nessie.passes), and the fusion graphs (pdg)
EMITS = _PASS_EMITS[:5] + ("pdg",) + _PASS_EMITS[5:]
BACKENDS = ("auto", "opencl", "lcu", "interp")


def _int_at_least(text: str, least: int) -> int:
    """An integer option's value, at least ``least`` (else argparse's error)."""
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if n < least:
        raise argparse.ArgumentTypeError(f"must be {least} or more, not {n}")
    return n


def _print_length(text: str) -> int:
    # beyond any sequence's length it is the same as unlimited (and stays a C long for numpy)
    return min(_int_at_least(text, 0), 1 << 62)


def _repeat(text: str) -> int:
    return _int_at_least(text, 1)


EPILOG = """\
FILE may be - to read the program from standard input; several files are run one after
another (exit status 1 if any failed).  The REPL is `python -m nessie.repl`.
`nessie COMMAND --help` describes each command's options."""


def _parser() -> argparse.ArgumentParser:
    from nessie import __version__
    ap = argparse.ArgumentParser(prog="nessie", description="Nessie, a NESL compiler.",
                                 epilog=EPILOG,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--version", action="version", version=f"nessie {__version__}",
                    help="print Nessie's version and exit")
    sub = ap.add_subparsers(dest="cmd", required=True, metavar="COMMAND")

    def files(p):
        p.add_argument("files", nargs="+", metavar="FILE",
                       help="NESL source file(s); - reads standard input")

    def no_int64(p):
        # accepted so that it can be refused with a message saying where it applies
        p.add_argument("--int64", action="store_true", help=argparse.SUPPRESS)

    r = sub.add_parser("run", help="compile and run NESL programs",
                       description="Compile and run NESL programs, printing their results as "
                                   "NESL 3.1 prints them.")
    files(r)
    r.add_argument("--backend", choices=BACKENDS, default="auto",
                   help="opencl: flattened (and fused) λcu lowered to OpenCL kernels run on the "
                        "device; lcu: the same λcu on the numpy kernel runner; interp: the "
                        "reference interpreter; auto (default): opencl when the program is within "
                        "the flattener's coverage, else interp, and lcu when no OpenCL device "
                        "can build kernels (each said on stderr)")
    r.add_argument("--device", default=None, metavar="DEV",
                   help="OpenCL device for --backend opencl (or auto, which then runs on it "
                        "or fails; refused with lcu and interp): cpu, gpu or P:D "
                        "(platform:device numbers); default: PYOPENCL_CTX if set, else a GPU if "
                        "present, else the CPU (PoCL)")
    r.add_argument("--no-fuse", action="store_true",
                   help="switch kernel fusion off (opencl and lcu backends)")
    r.add_argument("--print-length", type=_print_length, default=100, metavar="N",
                   help="longest sequence printed in full (default 100, as NESL's "
                        "print_length); longer ones print their first N elements then ,...] "
                        "(N = 0: [...])")
    r.add_argument("--int64", action="store_true",
                   help="64-bit NESL int (default: 32-bit, as NESL 3.1); runs on the reference "
                        "interpreter: --backend auto falls back to it (said on stderr), "
                        "--backend opencl or lcu refuse it")
    r.add_argument("--stats", action="store_true",
                   help="print to stderr: λcu kernels, λcu run sites, λcu kernel launches "
                        "and, on opencl, the device, OpenCL kernels built, device launches, "
                        "kernel time, bytes moved between host and device and peak device "
                        "memory (README.md, 'Kernel counts')")

    c = sub.add_parser("check", help="parse and type-check only",
                       description="Parse and type-check NESL programs; prints nothing when "
                                   "they are correct.")
    files(c)
    c.add_argument("--int64", action="store_true",
                   help="check integer literals against the 64-bit NESL int of nessie run "
                        "--int64 (default: the 32-bit int of every backend)")

    k = sub.add_parser("compile", help="print an intermediate form",
                       description="Print an intermediate form of NESL programs.")
    files(k)
    k.add_argument("--emit", choices=EMITS, default="lcu",
                   help="ast (parsed program) | typed (with types) | mono (monomorphic "
                        "instances) | lcu (flattened λcu, the default) | lcu-fused (after "
                        "kernel fusion) | pdg (fusion graphs in Graphviz DOT, one per function; "
                        "see --out) | lift (per fused "
                        "λcu kernel, the Lift expression of each OpenCL kernel) | opencl (the "
                        "generated OpenCL C)")
    k.add_argument("--no-fuse", action="store_true",
                   help="with --emit lift/opencl: lower the unfused program")
    k.add_argument("--out", metavar="DIR", default=None,
                   help="with --emit pdg: write one DOT file per function into DIR (DIR/FILE/ "
                        "for each of several files) and render each as a PNG with Graphviz "
                        "(needs the dot program; the Python graphviz package is used when "
                        "installed: pip install 'nessie[viz]')")
    no_int64(k)

    s = sub.add_parser("stats", help="kernel counts before and after fusion",
                       description="λcu run sites per function before and after fusion, the "
                                   "fusion ILP's objective and solve time, and the totals: λcu "
                                   "kernels (definitions), λcu run sites (run K in the code), "
                                   "OpenCL kernels (generated).  The run-time counts (λcu kernel "
                                   "launches, device launches) come from nessie run --stats.")
    files(s)
    s.add_argument("--json", action="store_true",
                   help="print the figures as JSON: totals (unfused and fused: "
                        "lcu_kernels, lcu_run_sites, opencl_kernels) and per function "
                        "lcu_run_sites (unfused, fused), the fused kernels' SOACs and members, "
                        "ILP objective and solve time, fallback reasons, global memory traffic")
    no_int64(s)

    t = sub.add_parser("test", help="run programs on every backend against the expected "
                                    "output written in them",
                       description="Run NESL programs on every backend (interp, lcu and opencl, "
                                   "unfused and fused) and compare their output with the "
                                   "expected output of the program's '% ==' comment block "
                                   "(else its .out file, else the reference interpreter's "
                                   "output); see README.md, 'Testing your programs'.",
                       epilog="Exit status 1 if any run failed.")
    t.add_argument("files", nargs="+", metavar="FILE",
                   help="NESL programs, or directories searched for .nesl files")
    t.add_argument("--backend", action="append", metavar="NAME",
                   help="run only these configurations (repeatable or comma-separated): "
                        "interp, lcu-unfused, lcu-fused, opencl-unfused, opencl-fused, or a "
                        "prefix (lcu, opencl) or fused / unfused; default: all")
    t.add_argument("--device", default=None, metavar="DEV",
                   help="OpenCL device for the opencl runs (as for nessie run)")
    t.add_argument("-v", "--verbose", action="store_true",
                   help="also say where each program's expected output came from")
    no_int64(t)

    b = sub.add_parser("bench", help="time programs on every backend, fused and unfused",
                       description="Run each NESL program whole (its top-level items; output "
                                   "captured) on every backend -- interp, lcu-unfused, "
                                   "lcu-fused, opencl-unfused, opencl-fused -- with a progress "
                                   "bar: one warm-up run (it builds the kernels), then the "
                                   "median wall time of --repeat runs, λcu kernel launches and "
                                   "device launches.  Every run's output must equal the "
                                   "reference interpreter's (a difference is a failed row).  "
                                   "Writes DIR/bench.json, DIR/bench.md (also printed) and, with "
                                   "matplotlib, DIR/bench.png: time and launches per program, "
                                   "fused vs unfused.",
                       epilog="Exit status 1 if a program does not compile, stops with a "
                              "runtime error or prints other output than the interpreter.")
    files(b)
    b.add_argument("--backends", action="append", metavar="LIST",
                   help="comma-separated configurations: interp, lcu-unfused, lcu-fused, "
                        "opencl-unfused, opencl-fused, or a prefix (lcu, opencl) or fused / "
                        "unfused (default: all; the interpreter always runs once for the "
                        "reference output)")
    b.add_argument("--device", default=None, metavar="DEV",
                   help="OpenCL device for the opencl runs: cpu, gpu or P:D (as for nessie "
                        "run); default: the default device, and the opencl rows are skipped, "
                        "with a note, when no OpenCL device can build kernels")
    b.add_argument("--repeat", type=_repeat, default=3, metavar="N",
                   help="timed runs per configuration, after one warm-up run; the median is "
                        "reported (default 3)")
    b.add_argument("--out", metavar="DIR", default="nessie-bench",
                   help="where bench.json, bench.md and bench.png go (default: ./nessie-bench)")
    b.add_argument("--no-plot", action="store_true", help="do not draw bench.png")
    no_int64(b)
    return ap


def main(argv: Optional[list] = None) -> int:
    args = _parser().parse_args(argv)
    if args.int64 and args.cmd not in ("run", "check"):
        print(f"nessie: error: --int64 does not apply to nessie {args.cmd}: "
              + ("every run of nessie test uses 32-bit ints; " if args.cmd == "test" else
                 "every run of nessie bench uses 32-bit ints; " if args.cmd == "bench" else
                 "the flattened forms use 32-bit ints; ")
              + "64-bit ints run with nessie run --int64 (on the reference interpreter)",
              file=sys.stderr)
        return 1
    if args.cmd == "test":
        from nessie import testing
        backends = [b for arg in (args.backend or []) for b in arg.split(",") if b]
        try:
            return testing.main(args.files, backends, args.device, args.verbose)
        except KeyboardInterrupt:
            return 130
    if args.cmd == "bench":
        from nessie import bench
        backends = [x for arg in (args.backends or []) for x in arg.split(",") if x]
        return bench.main(args.files, backends, args.device, args.repeat, args.out,
                          plot_png=not args.no_plot)
    if args.files.count("-") > 1:
        print("nessie: error: - (standard input) can be given only once", file=sys.stderr)
        return 1
    # options that do not apply, refused before any file is read (as the API and the REPL do)
    if args.cmd == "compile" and args.out is not None and args.emit != "pdg":
        print("nessie: error: --out applies to --emit pdg only", file=sys.stderr)
        return 1
    pdg_dirs: dict = {}
    if args.cmd == "compile" and args.out is not None and len(args.files) > 1:
        try:
            pdg_dirs = _pdg_folders(args.files)
        except _UsageError as e:
            print(f"nessie: error: {e}", file=sys.stderr)
            return 1
    if args.cmd == "run" and args.device is not None and args.backend not in ("opencl", "auto"):
        print(f"nessie: error: --device applies to --backend opencl (or auto) only, not "
              f"--backend {args.backend}", file=sys.stderr)
        return 1
    status = 0
    state = _State()
    state.pdg_dirs = pdg_dirs
    several = len(args.files) > 1
    # stats --json of several files: one JSON object, the files' figures by path
    state.json = {} if several and args.cmd == "stats" and getattr(args, "json", False) else None
    for i, path in enumerate(args.files):
        if several and args.cmd != "check" and state.json is None:
            if i:
                print()
            print(f"==> {path} <==", flush=True)
        try:
            rc = _one(args, path, state)
        except _Stop as stop:
            return stop.code
        status = max(status, rc)
    if state.json is not None:
        print(json.dumps(state.json, indent=2))
    return status


class _Stop(Exception):
    def __init__(self, code: int) -> None:
        self.code = code


class _State:
    """What several files of one command share: the kernel runner."""

    def __init__(self) -> None:
        self.runners: dict = {}
        self.json: Optional[dict] = None     # stats --json of several files, by path
        self.pdg_dirs: dict = {}    # compile --emit pdg --out of several files: path -> folder


def _one(args, path: str, state: _State) -> int:
    """Process one file; returns its exit status."""
    from nessie.limits import run_deep
    try:
        # on a big stack: every stage recurses over expressions (nessie.limits)
        return run_deep(lambda: _dispatch(args, path, state))
    except (CompileErrors, CompileError) as e:
        sys.stdout.flush()
        print(e.format(), file=sys.stderr)
        return 1
    except RuntimeNeslError as e:
        sys.stdout.flush()
        print(e.format(), file=sys.stderr)
        return 1
    except _UsageError as e:
        print(f"nessie: error: {e}", file=sys.stderr)
        return 1
    except FileNotFoundError as e:
        print(f"nessie: error: cannot open {e.filename}: {_reason(e)}", file=sys.stderr)
        return 1
    except RecursionError:
        # the front end bounds expression depth (nessie.limits), so this is a construct nested
        # in some other way: said in one line, not with a traceback thousands of lines long
        sys.stdout.flush()
        print(f"nessie: error: {path}: program nested too deeply for Nessie (a compiler stage "
              f"ran out of stack)", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        raise _Stop(130) from None
    except BrokenPipeError:          # `nessie ... | head`
        try:
            sys.stdout.close()
        except Exception:  # noqa: BLE001
            pass
        raise _Stop(0) from None
    except Exception as e:  # noqa: BLE001 - a compiler bug, reported as such
        # ... unless the OpenCL driver cannot load another kernel into this process (a limit
        # of the machine, said in one line; lift_backend.devices, imported only by a run)
        limit = getattr(sys.modules.get("lift_backend.devices"), "KernelLimitError", None)
        if limit is not None and isinstance(e, limit):
            sys.stdout.flush()
            print(f"nessie: error: {e}", file=sys.stderr)
            return 1
        traceback.print_exc()
        print("nessie: internal compiler error (this is a bug in Nessie; please report it "
              "with the program that triggered it)", file=sys.stderr)
        return 2


def _dispatch(args, path: str, state: _State) -> int:
    from nessie import driver

    int64 = args.cmd in ("run", "check") and args.int64
    bits = 64 if int64 else 32
    text, name = _read_program(path)
    if args.cmd == "check":
        # the int literals as every backend checks them before it runs (driver.flatten,
        # driver.run_interp): a program that checks clean does not stop there
        driver.check_int_literals(driver.compile_source(text, name), bits)
        return 0
    if args.cmd == "compile" and args.emit == "ast":
        from nessie.syntax import parse_text
        from nessie.syntax.printer import print_ast
        from nessie.types.literals import ast_int_literal_errors
        program = parse_text(text, name)
        errors = ast_int_literal_errors(program.items, bits)
        if errors:
            raise CompileErrors(errors, program.sources)
        print(print_ast(program))
        return 0
    if args.cmd == "run" and int64 and args.backend in ("opencl", "lcu"):
        raise _UsageError(f"--int64 (64-bit NESL ints) runs on the reference interpreter "
                          f"only: use --backend interp (or auto, which falls back to it); the "
                          f"{args.backend} backend uses 32-bit ints")
    c = driver.compile_source(text, name)
    if args.cmd == "compile":
        from nessie import passes
        if args.emit in ("typed", "mono"):
            driver.check_int_literals(c, bits)
            print(passes.show(args.emit, getattr(c, args.emit)))
        else:
            flat = _flatten_or_fail(c, bits)
            if args.emit != "pdg":
                # the passes after flattening, up to the one emitting args.emit
                opts = passes.Options(name, bits, fuse=not args.no_fuse)
                values = passes.run(text, opts, until=args.emit, start=("lcu", flat))
                print(passes.show(args.emit, values[args.emit]))
            else:
                from lambda_cu.fusion import report_to_dots
                _, report = driver.fuse(flat)
                graphs = report_to_dots(report)
                if not graphs:
                    print(f"nessie: note: no function of {name} runs a λcu kernel: no fusion "
                          f"graph to draw", file=sys.stderr)
                if args.out is not None:
                    return _write_pdgs(graphs, args.out, state.pdg_dirs.get(path))
                print("\n".join(text for _, text in graphs), end="")
        return 0
    if args.cmd == "stats":
        from nessie import counts
        flat = _flatten_or_fail(c, bits)
        fused, report = driver.fuse(flat)
        totals = {"unfused": counts.static_counts(flat.program),
                  "fused": counts.static_counts(fused.program)}
        if args.json and state.json is not None:
            state.json[path] = stats_json(report, totals)
        elif args.json:
            print(json.dumps(stats_json(report, totals), indent=2))
        else:
            print(report)
            print()
            print(counts.totals_table(totals["unfused"], totals["fused"]))
        return 0
    # run
    backend = args.backend
    flat = None
    if backend in ("auto", "lcu", "opencl"):
        from nessie.flatten import FlattenUnsupported   # not imported by check/compile ast
        try:
            flat = driver.flatten(c, int_bits=bits)
        except FlattenUnsupported as e:
            if backend != "auto":
                print(f"{name}: error: {e}", file=sys.stderr)
                return 1
            print(f"nessie: note: running on the reference interpreter: {e}", file=sys.stderr)
            backend = "interp"
    if backend == "interp":
        if args.stats:
            print("nessie: note: --stats counts kernels and launches of the compiled backends; the "
                  "reference interpreter runs none", file=sys.stderr)
        driver.run_interp(c, sys.stdout, int_bits=bits, print_length=args.print_length)
        return 0
    if backend == "auto":
        backend = "opencl"
    fusion = None
    if not args.no_fuse:
        flat, fusion = driver.fuse(flat)
    runner = state.runners.get(backend)
    if runner is None:
        try:
            runner = driver.make_runner(backend, args.device, profile=args.stats)
        except RuntimeError as e:       # no OpenCL device, or not the one asked for
            if args.backend != "auto" or args.device is not None:
                print(f"nessie: error: {e}", file=sys.stderr)
                return 1
            # auto: the same fused λcu on the numpy kernel runner, said once
            print(f"nessie: note: running on the lcu backend (numpy): {e}", file=sys.stderr)
            runner = state.runners.get("lcu") or driver.make_runner("lcu")
            state.runners["lcu"] = runner
        # after a fallback "opencl" names the lcu runner: later files of this command use it
        state.runners[backend] = runner
    if backend == "opencl" and runner is state.runners.get("lcu"):
        backend = "lcu"
    before = None
    if args.stats and hasattr(runner, "finish_stats"):
        # the runner serves every file of the command: report this file's share
        import copy
        before = copy.copy(runner.finish_stats())
    try:
        it = driver.run_lcu(c, flat, sys.stdout, print_length=args.print_length, int_bits=bits,
                            runner=runner)
    except RuntimeNeslError as e:
        if not args.stats:
            raise
        # the error as every run reports it, then the figures of what ran before it
        sys.stdout.flush()
        print(e.format(), file=sys.stderr)
        it = None
    status = 0 if it is not None else 1
    if args.stats:
        # the names of README.md's "Kernel counts" (nessie/counts.py)
        from nessie import counts
        what = (f"{sum(it.launches.values())} λcu kernel launches" if it is not None else
                "the run stopped at the error above")
        print(f"nessie: backend {backend}, {'unfused' if args.no_fuse else 'fused'}: "
              f"{len(flat.program.kernels)} λcu kernels, {counts.run_sites(flat.program)} λcu "
              f"run sites, {what}", file=sys.stderr)
        if fusion is not None:
            print(fusion_summary(fusion), file=sys.stderr)
        st = runner.finish_stats() if hasattr(runner, "finish_stats") else None
        if st is not None:
            if before is not None:
                st = copy.copy(st)
                for f in ("launches", "kernels_built", "build_seconds", "bytes_to_device",
                          "bytes_from_device", "kernel_seconds", "syncs"):
                    setattr(st, f, getattr(st, f) - getattr(before, f))
            print(f"nessie: device {runner.device.name.strip()} "
                  f"({runner.device.platform.name.strip()}): {st.kernels_built} OpenCL kernels "
                  f"built in {st.build_seconds:.2f} s, {st.launches} device launches, kernel time "
                  f"{st.kernel_seconds * 1e3:.1f} ms, {st.bytes_to_device} B to device, "
                  f"{st.bytes_from_device} B from device, {st.syncs} synchronisations, peak "
                  f"device memory {st.peak_bytes} B", file=sys.stderr)
    return status


def fusion_summary(report) -> str:
    """One line on how fusion went: its time, the ILP's, and every bound or fallback that
    acted (windows, the time budget, greedy schedules), with their reasons."""
    regions = sum(len(f.regions) for f in report.functions)
    solve = sum(f.solve_time for f in report.functions)
    if getattr(report, "cached", False):
        text = (f"nessie: fusion: {regions} regions read from the cache in {report.seconds:.2f} s "
                f"(fused earlier, ILP solves {solve:.2f} s)")
    else:
        text = (f"nessie: fusion: {regions} regions in {report.seconds:.2f} s "
                f"(ILP solves {solve:.2f} s)")
    reasons: dict = {}
    for f in report.functions:
        for r in f.fallback_reasons:
            reasons[r] = reasons.get(r, 0) + 1
    extra = list(report.notes) + [f"{r} ({n} region{'s' if n > 1 else ''})" if n > 1 else r
                                  for r, n in reasons.items()]
    return text + ("; " + "; ".join(extra) if extra else "")


def stats_json(report, totals: Optional[dict] = None) -> dict:
    """The fusion report as JSON, with the names of README.md's "Kernel counts":
    ``{"totals": {"unfused": {"lcu_kernels": N, "lcu_run_sites": N, "opencl_kernels": N},
    "fused": {...}}, "functions": {NAME: {"lcu_run_sites": {"unfused": N, "fused": M}, ...}},
    "max_solve_time_s": ...}``."""
    funcs = {}
    for f in report.functions:
        funcs[f.name] = {
            "lcu_run_sites": {"unfused": f.unfused_runs, "fused": f.fused_runs},
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
    out = {}
    if totals is not None:
        out["totals"] = totals
    out["functions"] = funcs
    out["max_solve_time_s"] = report.max_solve_time
    return out


def _pdg_folders(files: list) -> dict:
    """``compile --emit pdg --out DIR`` of several files: the folder of ``DIR`` each file's
    graphs go to, its name without the extension (``dotp`` for ``a/dotp.nesl``), or, for files
    of the same name, its path (``a_dotp``, ``b_dotp``); files that would still share a folder
    are refused (a ``_UsageError``), so that none overwrites another's graphs."""
    def stem(path: str) -> str:
        return _safe(os.path.splitext(os.path.basename(path))[0].strip("<>"))

    def same_file(a: str, b: str) -> bool:
        return a == b or (a != "-" and b != "-" and os.path.realpath(a) == os.path.realpath(b))
    count: dict = {}
    for f in files:
        count[stem(f)] = count.get(stem(f), 0) + 1
    out: dict = {}
    for f in files:
        if count[stem(f)] == 1:
            out[f] = stem(f)
        else:
            rel = os.path.splitext(os.path.normpath(f))[0].lstrip(os.sep)
            out[f] = _safe(rel.replace(os.sep, "_").replace("..", "up"))
    for i, f in enumerate(files):
        for g in files[:i]:
            if out[f] == out[g] and not same_file(f, g):
                raise _UsageError(f"--out: the graphs of {g} and {f} would both go to "
                                  f"{out[f]}/; rename one of the files")
    return out


def _safe(name: str) -> str:
    import re
    return re.sub(r"[^A-Za-z0-9_.-]", "_", name) or "_"


def _write_pdgs(graphs: list, out: str, folder: Optional[str]) -> int:
    """``nessie compile --emit pdg --out DIR``: one DOT file per function, each rendered as a PNG
    (Graphviz's ``dot``, through the Python ``graphviz`` package when it is installed), in
    ``DIR/folder`` (several files: :func:`_pdg_folders`) or ``DIR``.  Prints the files written;
    exit status 1 if the PNGs could not be made."""
    import shutil
    import subprocess
    if folder is not None:
        out = os.path.join(out, folder)
    try:
        os.makedirs(out, exist_ok=True)
    except OSError as e:
        raise _UsageError(f"cannot create {out}: {e.strerror}") from None
    paths = []
    for fname, text in graphs:
        path = os.path.join(out, _safe(fname) + ".dot")
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        paths.append(path)
        print(path)
    if not paths:
        return 0
    try:
        import graphviz
    except ImportError:
        graphviz = None
    if shutil.which("dot") is None:
        print(f"nessie: error: cannot render the PNGs: Graphviz's dot program is not installed "
              f"(apt-get install graphviz, brew install graphviz, or see graphviz.org); the DOT "
              f"files are written: render one with dot -Tpng FILE.dot -o FILE.png",
              file=sys.stderr)
        return 1
    for path in paths:
        png = path[:-len(".dot")] + ".png"
        try:
            if graphviz is not None:
                with open(path, encoding="utf-8") as f:
                    data = graphviz.Source(f.read()).pipe(format="png")
                with open(png, "wb") as f:
                    f.write(data)
            else:
                subprocess.run(["dot", "-Tpng", path, "-o", png], check=True,
                               capture_output=True, text=True)
        except Exception as e:  # noqa: BLE001 - dot failed on a graph: say which, with its message
            detail = getattr(e, "stderr", None) or str(e)
            if isinstance(detail, bytes):
                detail = detail.decode(errors="replace")
            print(f"nessie: error: dot could not render {path}: {detail.strip()}",
                  file=sys.stderr)
            return 1
        print(png)
    return 0


def _read_program(path: str) -> tuple:
    """``(text, name)`` of a program file as :func:`nessie.sources.read_source` reads it, less
    a leading byte order mark (editors write one; it is no character of the program).  A byte
    that is not UTF-8 is a located error quoting its line (decoded with replacement
    characters) with a caret under it."""
    try:
        text, name = _read(path)
    except CompileError as e:
        bad = e.__context__      # read_source raises from the UnicodeDecodeError it caught
        if isinstance(bad, UnicodeDecodeError) and isinstance(bad.object, bytes) \
                and e.span is not None:
            text = bad.object.decode("utf-8", "replace").replace("\r\n", "\n") \
                .replace("\r", "\n")
            err = e
            if text.startswith(BOM):
                text = text[1:]
                if e.span.line == 1:     # the column read_source counted the mark in
                    err = CompileError(Span.point(e.span.file, 1, e.span.col - 1), e.message)
            raise with_sources(err, {e.span.file: text}) from None
        raise
    return (text[1:] if text.startswith(BOM) else text), name


#: the byte order mark, as UTF-8 text decodes it
BOM = "\ufeff"


def _flatten_or_fail(c, bits):
    from nessie import driver
    from nessie.flatten import FlattenUnsupported
    try:
        return driver.flatten(c, int_bits=bits)
    except FlattenUnsupported as e:
        # the whole file: the flattener's limits are not located (as `nessie run` says them)
        from lambda_cu.loc import Loc
        raise CompileError(Loc(c.filename, 0, 0, 0, 0), str(e)) from None


if __name__ == "__main__":
    sys.exit(main())
