"""Command line of the Lift backend.

``python -m lift_backend compile FILE [--program NAME] [--size N=4096 ...] [--global G] [--local L]
--emit typed|views|opencl|lift``

``python -m lift_backend run FILE [--program NAME] --size N=4096 ... --arg x=x.npy ...
--global G0[,G1,G2] [--local L0[,...]] --out out.npy [--device P:D]``

Every error ends the command with one line on stderr and exit status 1, never a traceback:

* problems of the program (syntax, types, sizes, a failed bounds check of the kernel) as
  ``FILE:LINE:COL: error: MESSAGE`` followed by the source line and a caret;
* problems of an input file as ``error: FILE: MESSAGE`` (a ``.npy`` that is unreadable,
  truncated, of an unsupported dtype, or whose values do not fit their parameter);
* problems of the command line as ``error: --flag: MESSAGE``.

The stages run on a big stack (:mod:`lift_backend.limits`): programs nested up to the
documented depth compile, deeper ones are a located ``expression too deep`` error.
"""
from __future__ import annotations

import argparse
import math
import os
import sys
from typing import Dict, List, Optional

from .errors import LiftArgumentError, LiftCompileError, LiftError, format_error
from .limits import INT_MAX, TOO_DEEP_TO_COMPILE, run_deep


class _UsageError(Exception):
    pass


class _ArgumentParser(argparse.ArgumentParser):
    """argparse with its errors as ``error: MESSAGE`` and exit status 1, like the others."""

    def error(self, message):  # pragma: no cover - exercised through main
        raise _UsageError(message)


def _parse_sizes(items: List[str]) -> Dict[str, int]:
    out = {}
    for item in items or []:
        for part in item.split(","):
            if "=" not in part:
                raise _UsageError(f"--size expects NAME=VALUE, got {part!r}")
            k, v = part.split("=", 1)
            k = k.strip()
            if not k.isidentifier():
                raise _UsageError(f"--size: {k!r} is not a size name")
            try:
                n = int(v)
            except ValueError:
                raise _UsageError(f"--size {k}: {v!r} is not an integer")
            if not 1 <= n <= INT_MAX:
                raise _UsageError(f"--size {k}: {n} is out of range: sizes must be between 1 and {INT_MAX}")
            if k in out and out[k] != n:
                raise _UsageError(f"--size {k}: given twice ({out[k]} and {n})")
            out[k] = n
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
    for d in dims:
        if d > INT_MAX:
            raise _UsageError(f"--{what}: {d} is out of range: each dimension must be between 1 and "
                              f"{INT_MAX} (kernels hold work-item ids in int)")
    return dims


def _build_parser() -> argparse.ArgumentParser:
    ap = _ArgumentParser(prog="python -m lift_backend",
                         description="Lift IR to OpenCL compiler (Nessie backend)")
    sub = ap.add_subparsers(dest="cmd", required=True, parser_class=_ArgumentParser)
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
            p.add_argument("--arg", action="append", default=[], metavar="NAME=FILE.npy|VALUE",
                           help="a parameter: a .npy file, or a number for a scalar (one "
                                "beyond its type's range, such as 1e300 for a float, is "
                                "refused; inf, -inf and nan, spelled out, are taken as given)")
            p.add_argument("--out", required=True, help="where to write the output (.npy)")
            p.add_argument("--device", help="OpenCL device as PLATFORM:DEVICE (default: PYOPENCL_CTX)")
    return ap


class _FileError(Exception):
    """A problem of an input or output file: ``error: FILE: MESSAGE``."""

    def __init__(self, file: str, message: str):
        super().__init__(f"{file}: {message}")


def load_npy(path: str):
    """Read a ``.npy`` file, checking its header before any allocation: the magic string,
    the dtype (bool, integer, floating point or structured made of them), the number of
    elements (at most ``INT_MAX``) and that the data is all there."""
    import numpy as np
    from numpy.lib import format as npf
    from .runtime.runtime import describe_dtype, supported_dtype
    try:
        with open(path, "rb") as fh:
            try:
                version = npf.read_magic(fh)
                read = npf.read_array_header_1_0 if version == (1, 0) else npf.read_array_header_2_0
                shape, fortran, dtype = read(fh, max_header_size=1 << 20)
            except (ValueError, EOFError, SyntaxError, TypeError) as ex:
                raise _FileError(path, f"not a .npy file ({_short(ex)})")
            data_start = fh.tell()
            size = os.fstat(fh.fileno()).st_size
    except OSError as ex:
        raise _FileError(path, f"cannot read the file: {ex.strerror or ex}")
    if not supported_dtype(dtype):
        raise _FileError(path, f"unsupported dtype {describe_dtype(dtype)} (the Lift backend reads "
                               f"bool, integer and floating-point arrays)")
    count = 1
    for d in shape:
        count *= d
    if count > INT_MAX:
        raise _FileError(path, f"the array of shape {shape} has {count} elements, more than {INT_MAX} "
                               f"(the limit of the kernels' int indices)")
    needed = count * dtype.itemsize
    if size - data_start < needed:
        raise _FileError(path, f"truncated: the header announces {count} elements of {dtype} "
                               f"({needed} bytes), the file holds {size - data_start} bytes of data")
    try:
        return np.load(path, allow_pickle=False)
    except MemoryError:
        raise _FileError(path, "out of memory while reading it")
    except (OSError, ValueError, EOFError) as ex:
        raise _FileError(path, f"cannot read the array: {_short(ex)}")


def _short(ex: BaseException) -> str:
    text = str(ex).strip().splitlines()
    return text[0] if text else type(ex).__name__


def _load_arg(spec: str, param_types: Optional[Dict[str, object]] = None):
    """``(name, value, file)`` of ``--arg NAME=FILE.npy`` (file: the path) or ``NAME=NUMBER``
    (file: None); ``param_types`` (name -> type) names the type in a message."""
    param_types = param_types or {}
    if "=" not in spec:
        raise _UsageError(f"--arg expects NAME=FILE.npy or NAME=VALUE, got {spec!r}")
    name, val = spec.split("=", 1)
    if not name.isidentifier():
        raise _UsageError(f"--arg: {name!r} is not a parameter name")
    if val.endswith(".npy"):
        return name, load_npy(val), val
    try:
        return name, int(val), None
    except ValueError:
        pass
    try:
        number = float(val)
    except ValueError:
        pass
    else:
        if math.isinf(number) and val.strip().lstrip("+-").lower() not in ("inf", "infinity"):
            # a finite number beyond the largest double: refused as one beyond the largest
            # float is (infinity spelled out, like nan, is taken as given, as in a .npy file)
            t = param_types.get(name)
            raise LiftArgumentError(name, f"the value {val} does not fit the type "
                                          f"{t if t is not None else 'double'} "
                                          f"(it would become infinite)")
        return name, number, None
    if val.endswith(".npz") or os.path.exists(val) or os.sep in val:
        raise _FileError(val, "not a .npy file (--arg takes NAME=FILE.npy or NAME=NUMBER)")
    raise _UsageError(f"--arg {name}: {val!r} is neither a .npy file nor a number")


def main(argv: Optional[List[str]] = None) -> int:
    try:
        args = _build_parser().parse_args(argv)
    except _UsageError as ex:
        sys.stderr.write(f"error: {ex}\n")
        return 1
    state = {"source": None}
    try:
        return run_deep(lambda: _run(args, state))
    except KeyboardInterrupt:  # pragma: no cover
        return 130


def _sizes_from_args(prog, kargs, sizes) -> Dict[str, int]:
    """The sizes not in ``sizes`` that the arguments' shapes determine (best effort: an
    argument that does not fit its parameter is left to the launch's own checks)."""
    from .runtime.runtime import infer_all_sizes
    found: Dict[str, int] = {}
    # quiet: the launch reports what does not fit
    infer_all_sizes(prog.params, kargs, found, sizes, quiet=True)
    return {k: v for k, v in found.items() if k not in sizes and isinstance(v, int) and v >= 1}


def _run(args, state) -> int:
    files: Dict[str, str] = {}        # parameter -> the .npy file it came from
    prog = None
    try:
        try:
            with open(args.file, encoding="utf-8") as fh:
                # without a leading byte order mark, as the lexer reads it (the quoted line)
                from .syntax.lexer import strip_bom
                state["source"] = strip_bom(fh.read())
        except UnicodeDecodeError as ex:
            raise _FileError(args.file, f"not a UTF-8 text file (byte {ex.start})")
        except OSError as ex:
            raise _FileError(args.file, f"cannot read the file: {ex.strerror or ex}")
        from .syntax import parse
        from .opencl import compile_program
        sizes = _parse_sizes(args.size)
        gsz = _parse_dims(args.global_size, "global")
        lsz = _parse_dims(args.local_size, "local")
        if gsz is not None and lsz is not None:
            # an NDRange the device would refuse: said for compile as run says it
            if len(gsz) != len(lsz) or any(g % l for g, l in zip(gsz, lsz)):
                raise _UsageError(f"the global size {gsz} is not a multiple of the local size {lsz} "
                                  f"(--global and --local need as many dimensions, each global one a "
                                  f"multiple of the local one)")
        lf = parse(state["source"], args.file)
        prog = lf.program(args.program)
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
                try:
                    with open(args.output, "w") as fh:
                        fh.write(text)
                except OSError as ex:
                    raise _FileError(args.output, f"cannot write the file: {ex.strerror or ex}")
            else:
                sys.stdout.write(text)
            return 0
        # run
        import numpy as np
        from .errors import LiftRuntimeError
        kargs = {}
        for spec in args.arg:
            name, value, file = _load_arg(spec, {p.name: p.type for p in prog.params})
            if name in kargs:
                raise _UsageError(f"--arg {name}: given twice")
            kargs[name] = value
            if file is not None:
                files[name] = file
        try:
            k = compile_program(prog, sizes, gsz, lsz)
        except LiftCompileError as ex:
            # what needs sizes known at compile time (private memory sized by a size the
            # arguments' shapes give, row offsets with no closed form where a row does not fit,
            # an iterate's buffers, a barrier in a mapLcl that every work-item runs alike) or
            # is refused for sizes that are not these: compile again with the sizes inferred
            # from the arguments' shapes (as the launch would infer them)
            inferred = _sizes_from_args(prog, kargs, sizes)
            if not inferred:
                raise
            sizes = {**sizes, **inferred}
            k = compile_program(prog, sizes, gsz, lsz)
        from .runtime import Runtime, get_runtime
        try:
            rt = Runtime(args.device) if args.device else get_runtime()
        except LiftError:
            raise
        except Exception as ex:
            raise LiftRuntimeError(f"cannot open an OpenCL device: {_short(ex)}")
        out = rt.run(k, kargs, sizes=sizes, global_size=gsz, local_size=lsz)
        try:
            with open(args.out, "wb") as fh:
                np.save(fh, out)
        except OSError as ex:
            raise _FileError(args.out, f"cannot write the file: {ex.strerror or ex}")
        return 0
    except LiftArgumentError as ex:
        where = files.get(ex.param)
        if where is not None:
            sys.stderr.write(f"error: {where}: {ex.message}\n")
        else:
            sys.stderr.write(f"error: --arg {ex.param}: {ex.detail}\n")
        return 1
    except LiftError as ex:
        source = state["source"] if (ex.span and ex.span.file == args.file) else None
        sys.stderr.write(format_error(ex, source) + "\n")
        return 1
    except (_UsageError, _FileError) as ex:
        sys.stderr.write(f"error: {ex}\n")
        return 1
    except RecursionError:
        err = LiftCompileError(TOO_DEEP_TO_COMPILE, prog.span if prog is not None else None)
        sys.stderr.write(format_error(err, state["source"]) + "\n")
        return 1
    except ZeroDivisionError:
        err = LiftCompileError("division by zero in a size expression",
                               prog.span if prog is not None else None)
        sys.stderr.write(format_error(err, state["source"]) + "\n")
        return 1
    except MemoryError:
        sys.stderr.write("error: out of memory\n")
        return 1
    except Exception as ex:  # never a traceback for the user
        sys.stderr.write(f"error: internal error: {type(ex).__name__}: {_short(ex)}\n")
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
