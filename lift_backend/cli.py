"""Command line of the Lift backend.

``python -m lift_backend compile FILE [--program NAME] [--size N=4096 ...] [--global G] [--local L]
--emit typed|views|opencl|lift``

``python -m lift_backend run FILE [--program NAME] --size N=4096 ... --arg x=x.npy ...
--global G0[,G1,G2] [--local L0[,...]] --out out.npy [--device P:D]``

User errors are printed as ``FILE:LINE:COL: error: MESSAGE`` with the source line and a caret;
the exit status is then 1.
"""
from __future__ import annotations

import argparse
import sys
from typing import Dict, List, Optional

from .errors import LiftError, format_error


class _UsageError(Exception):
    pass


def _parse_sizes(items: List[str]) -> Dict[str, int]:
    out = {}
    for item in items or []:
        for part in item.split(","):
            if "=" not in part:
                raise _UsageError(f"--size expects NAME=VALUE, got {part!r}")
            k, v = part.split("=", 1)
            try:
                out[k.strip()] = int(v)
            except ValueError:
                raise _UsageError(f"--size {k}: {v!r} is not an integer")
    return out


def _parse_dims(s: Optional[str], what: str):
    if s is None:
        return None
    try:
        dims = tuple(int(x) for x in s.split(","))
    except ValueError:
        raise _UsageError(f"--{what} expects integers separated by commas, got {s!r}")
    if not 1 <= len(dims) <= 3 or any(d <= 0 for d in dims):
        raise _UsageError(f"--{what} expects 1 to 3 positive integers, got {s!r}")
    return dims


def _build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m lift_backend",
                                 description="Lift IR to OpenCL compiler (Nessie backend)")
    sub = ap.add_subparsers(dest="cmd", required=True)
    for name in ("compile", "run"):
        p = sub.add_parser(name)
        p.add_argument("file")
        p.add_argument("--program", help="program to use (default: the last one in the file)")
        p.add_argument("--size", action="append", default=[], metavar="N=VALUE",
                       help="fix a size variable (repeatable, or comma-separated)")
        p.add_argument("--global", dest="global_size", metavar="G0[,G1,G2]")
        p.add_argument("--local", dest="local_size", metavar="L0[,L1,L2]")
        if name == "compile":
            p.add_argument("--emit", choices=["typed", "views", "opencl", "lift"], default="opencl")
            p.add_argument("-o", "--output", help="write to this file instead of stdout")
        else:
            p.add_argument("--arg", action="append", default=[], metavar="NAME=FILE.npy|VALUE")
            p.add_argument("--out", required=True, help="where to write the output (.npy)")
            p.add_argument("--device", help="OpenCL device as PLATFORM:DEVICE (default: PYOPENCL_CTX)")
    return ap


def _load_arg(spec: str):
    import numpy as np
    if "=" not in spec:
        raise _UsageError(f"--arg expects NAME=FILE.npy or NAME=VALUE, got {spec!r}")
    name, val = spec.split("=", 1)
    if val.endswith(".npy") or val.endswith(".npz"):
        try:
            return name, np.load(val)
        except OSError as ex:
            raise _UsageError(f"--arg {name}: cannot read {val}: {ex.strerror or ex}")
    try:
        return name, float(val) if any(c in val for c in ".eE") else int(val)
    except ValueError:
        raise _UsageError(f"--arg {name}: {val!r} is neither a .npy file nor a number")


def main(argv: Optional[List[str]] = None) -> int:
    ap = _build_parser()
    args = ap.parse_args(argv)
    source = None
    try:
        try:
            with open(args.file) as fh:
                source = fh.read()
        except OSError as ex:
            raise _UsageError(f"cannot read {args.file}: {ex.strerror or ex}")
        from .syntax import parse
        from .opencl import compile_program
        lf = parse(source, args.file)
        prog = lf.program(args.program)
        sizes = _parse_sizes(args.size)
        gsz = _parse_dims(args.global_size, "global")
        lsz = _parse_dims(args.local_size, "local")
        if args.cmd == "compile":
            if args.emit == "lift":
                from .syntax.printer import file_text
                text = file_text([prog], lf.userfuns.values())
            elif args.emit == "typed":
                from .types.infer import infer_program, substitute_sizes
                from .syntax.printer import annotated_text
                from .types import type_to_text
                typed = infer_program(substitute_sizes(prog, sizes))
                header = f"program {prog.name}(" + ", ".join(
                    f"{p.name}: {type_to_text(p.type)}" for p in typed.program.params) + ")"
                text = header + f" : {type_to_text(typed.result_type)} =\n" + annotated_text(
                    typed.program.body,
                    lambda e: type_to_text(typed.types[id(e)]) if id(e) in typed.types else None) + "\n"
            else:
                k = compile_program(prog, sizes, gsz, lsz)
                text = k.source if args.emit == "opencl" else k.views_text()
            if args.output:
                with open(args.output, "w") as fh:
                    fh.write(text)
            else:
                sys.stdout.write(text)
            return 0
        # run
        import numpy as np
        from .runtime import Runtime, get_runtime
        k = compile_program(prog, sizes, gsz, lsz)
        kargs = dict(_load_arg(a) for a in args.arg)
        rt = Runtime(args.device) if args.device else get_runtime()
        out = rt.run(k, kargs, sizes=sizes, global_size=gsz, local_size=lsz)
        np.save(args.out, out)
        return 0
    except LiftError as ex:
        sys.stderr.write(format_error(ex, source if (ex.span and ex.span.file == args.file) else None) + "\n")
        return 1
    except _UsageError as ex:
        sys.stderr.write(f"error: {ex}\n")
        return 1
    except KeyboardInterrupt:  # pragma: no cover
        return 130
    except Exception as ex:  # never a traceback for the user
        sys.stderr.write(f"error: internal error: {type(ex).__name__}: {ex}\n")
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
