"""The compiler driver: the pipeline as one set of functions shared by the CLI, the REPL, the
Python API and the tests.

``compile_source`` runs the front end (parse, type-check, monomorphise); ``run_interp`` runs the
reference interpreter; ``flatten``/``fuse`` produce λcu; ``run_lcu`` runs λcu on the numpy
interpreter and prints results exactly as the reference interpreter does (so outputs can be
compared byte for byte).  Every backend reports runtime errors as
:class:`~nessie.diagnostics.RuntimeNeslError` after printing the results computed before them.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field, fields
from typing import Any, Optional, TextIO

from nessie.diagnostics import CompileError, CompileErrors, RuntimeNeslError, with_sources
from nessie.types import typed_ast as T


@dataclass(frozen=True)
class Compiled:
    """Front-end result: the typed program and its monomorphic instance, and the source texts
    (file name -> text: the file and those it loads) that messages quote."""
    filename: str
    typed: Any
    mono: Any
    sources: dict = field(default_factory=dict, compare=False, repr=False)


def compile_source(text: str, filename: str = "<input>") -> Compiled:
    """Parse, type-check and monomorphise (the front-end passes of ``nessie.passes``); raises
    ``CompileErrors`` with every error found.  Runs on a big stack (``nessie.limits``):
    expressions may nest ``MAX_EXPR_DEPTH`` deep."""
    from nessie import passes
    values = passes.run(text, passes.Options(filename), until="mono")
    return Compiled(filename, values["typed"], values["mono"], values["ast"].sources)


from nessie.types.literals import int_literal_errors  # noqa: E402  (re-exported)


def check_int_literals(c: "Compiled", int_bits: int = 32) -> None:
    """Raise ``CompileErrors`` if a literal of the program does not fit ``int_bits``."""
    errors = int_literal_errors(c.typed.items, int_bits)
    if errors:
        raise CompileErrors(errors, c.sources)


def compile_file(path: str) -> Compiled:
    with open(path, encoding="utf-8") as f:
        return compile_source(f.read(), path)


def semantics(int_bits: int = 32):
    from nessie.interp.values import Semantics
    return Semantics(int_bits=int_bits)


def run_interp(c: Compiled, out: TextIO, *, int_bits: int = 32, print_length: int = 100) -> None:
    from nessie.interp.eval import run_program
    check_int_literals(c, int_bits)
    try:
        run_program(c.mono, semantics(int_bits), out, typed=c.typed, print_length=print_length,
                    base_dir=os.path.dirname(os.path.abspath(c.filename)))
    except (RuntimeNeslError, CompileError, CompileErrors) as err:
        raise with_sources(err, c.sources)


def flatten(c: Compiled, *, int_bits: int = 32):
    """The ``flatten`` pass (``nessie.passes``) on the program's monomorphic instances."""
    from nessie import passes
    check_int_literals(c, int_bits)
    try:
        return passes.run(None, passes.Options(c.filename, int_bits), until="flatten",
                          start=("mono", c.mono))["lcu"]
    except (RuntimeNeslError, CompileError, CompileErrors) as err:
        raise with_sources(err, c.sources)


def fuse(flat, *, time_limit: Optional[float] = None):
    """The ``fuse`` pass (``nessie.passes``): the fused copy of a flattened program and the
    fusion report, ``(FlatProgram, report)``; ``time_limit``: the ILP's, in seconds."""
    from nessie import passes
    f = passes.run(None, passes.Options(fuse=True, fuse_time_limit=time_limit), until="fuse",
                   start=("lcu", flat))["lcu-fused"]
    return f.flat, f.report


def make_externs(c: Compiled, flat, out: TextIO, *, int_bits: int = 32, print_length: int = 100):
    """Host functions for the program's ``Extern`` nodes, sharing one runtime (output stream,
    random generator, directory of files): the clock, ``rand``/``rand_seed``
    (``nessie.glibc_random``) and every other builtin without a data-parallel form from the host
    library ``nessie.hostlib`` (output, files, printed forms, number parsing, ``hash``, ``error``
    with a computed message).  None goes through the reference interpreter's builtins.  Returns
    ``(externs, runtime)``."""
    import time

    from nessie.convert import datatypes, leaves_to_value
    from nessie.hostlib import HostRuntime, host_externs

    tm = flat.typemap
    dts = datatypes(c.mono.items)   # datatypes defined again at another type are renamed there
    rt = HostRuntime(out, int_bits=int_bits, seed=semantics(int_bits).seed,
                     base_dir=os.path.dirname(os.path.abspath(c.filename)),
                     print_length=print_length, datatypes=dts,
                     to_value=lambda ty, leaves: leaves_to_value(tm, ty, leaves, dts))
    externs = {"clock": lambda *deps: time.perf_counter()}
    from nessie.glibc_random import rand_externs
    # rand / rand_seed: glibc's generator, rt.rng (reseeded before each top-level item)
    externs.update(rand_externs(flat.externs or {}, rt.rng))
    # the other host calls (new ones: register them in nessie.hostlib)
    externs.update({k: v for k, v in host_externs(flat, rt).items() if k not in externs})
    return externs, rt


def make_runner(backend: str = "lcu", device: Optional[str] = None, profile: bool = False):
    """The kernel runner of a flattening backend: ``lcu`` (numpy) or ``opencl`` (``device``:
    ``None``/``auto``, ``cpu``, ``gpu`` or ``P:D``; ``profile``: time kernels with events)."""
    if backend == "opencl":
        from lift_backend.lower.runner import OpenCLRunner
        return OpenCLRunner(device, profile=profile)
    from lambda_cu.interp import NumpyRunner
    return NumpyRunner()


def run_lcu(c: Compiled, flat, out: TextIO, *, print_length: int = 100, check: bool = True,
            int_bits: int = 32, runner=None):
    """Run a (fused or unfused) flattened program with the λcu executor and a kernel runner
    (default: the numpy runner; ``make_runner("opencl")`` for the device), printing its
    results like the reference interpreter.  Returns the executor (launch counts; its
    ``runner`` has the runner's statistics)."""
    import numpy as np

    from lambda_cu import interp as LI
    from lambda_cu.executor import Executor, on_big_stack
    from nessie.convert import datatypes, leaves_to_value, truncate_leaves
    from nessie.interp.printing import Redefinitions, format_binding, format_function
    from nessie.limits import OUT_OF_MEMORY, RECURSION_TOO_DEEP
    from nessie.types.library import is_library_item

    dts = datatypes(c.mono.items)   # datatypes defined again at another type are renamed there
    redefs = Redefinitions()
    externs, rt = make_externs(c, flat, out, int_bits=int_bits, print_length=print_length)
    if runner is None:
        runner = LI.NumpyRunner()
    it = Executor(flat.program, runner, check, externs=externs)
    main = iter(flat.program.main)
    plen = [print_length]

    def line(s):
        rt.out.line(s)

    def go():
        # function lines appear at their source position with their polymorphic type
        others = iter([i for i in flat.items if i.kind != "fun"])
        for titem in c.typed.items:
            if isinstance(titem, (T.FunDef, T.DataDef)) and not is_library_item(titem):
                for note in redefs.function(titem.name, titem.scheme):
                    line(note)                     # a datatype: its constructor's line
                line(format_function(titem.name, titem.scheme))
            if isinstance(titem, T.FunDef):
                continue
            top = next(others)
            rt.reseed()     # srandom(0) before every top-level item, as the original
            if top.kind in ("val", "exp"):
                b = next(main)
                fail = None
                with np.errstate(all="ignore"):
                    try:
                        v = it.exp(b.rhs, it.globals)
                    except RecursionError:
                        fail = RECURSION_TOO_DEEP   # raised below, once the traceback's
                    except MemoryError:             # frames (or partial values) are freed
                        fail = OUT_OF_MEMORY
                    runner.sync()       # an earlier kernel's error comes first
                if fail is not None:
                    raise RuntimeNeslError(top.item.exp.span, fail)
                it.bind(b, v, it.globals)
                vals = [it.globals[n] for n in top.leaves]
                if plen[0] is not None and plen[0] >= 0:
                    # only what printing shows is copied back (a device runner's reader)
                    prefix = getattr(runner, "prefix_reader", None)
                    if prefix is None:
                        vals = truncate_leaves(flat.typemap, top.type,
                                               [runner.to_host(v) for v in vals], plen[0])
                    else:
                        vals = truncate_leaves(flat.typemap, top.type, vals, plen[0], prefix())
                else:
                    vals = [runner.to_host(v) for v in vals]
                value = leaves_to_value(flat.typemap, top.type, vals, dts)
                lhs = top.item.pattern if top.kind == "val" else "it"
                if top.kind == "val":
                    for note in redefs.pattern(top.item.pattern):
                        line(note)
                line(format_binding(lhs, value, top.type, plen[0], dts))
            elif top.kind == "set" and getattr(top.item, "name", None) == "print_length":
                plen[0] = int(top.item.args[0])
                rt.print_length = plen[0]

    try:
        on_big_stack(go)
    except LI.LcuRuntimeError as err:
        raise with_sources(RuntimeNeslError(err.location, err.message), c.sources) from None
    except (RuntimeNeslError, CompileError, CompileErrors) as err:
        raise with_sources(err, c.sources)
    return it
