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
from dataclasses import dataclass, fields
from typing import Any, Optional, TextIO

from nessie.diagnostics import RuntimeNeslError, Span
from nessie.types import typed_ast as T
from nessie.types import types as nt


@dataclass(frozen=True)
class Compiled:
    """Front-end result: the typed program and its monomorphic instance."""
    filename: str
    typed: Any
    mono: Any


def compile_source(text: str, filename: str = "<input>") -> Compiled:
    """Parse, type-check and monomorphise (the front-end passes of ``nessie.passes``); raises
    ``CompileErrors`` with every error found.  Runs on a big stack (``nessie.limits``):
    expressions may nest ``MAX_EXPR_DEPTH`` deep."""
    from nessie import passes
    values = passes.run(text, passes.Options(filename), until="mono")
    return Compiled(filename, values["typed"], values["mono"])


from nessie.types.literals import int_literal_errors  # noqa: E402  (re-exported)


def check_int_literals(c: "Compiled", int_bits: int = 32) -> None:
    """Raise ``CompileErrors`` if a literal of the program does not fit ``int_bits``."""
    from nessie.diagnostics import CompileErrors
    errors = int_literal_errors(c.typed.items, int_bits)
    if errors:
        raise CompileErrors(errors)


def compile_file(path: str) -> Compiled:
    with open(path, encoding="utf-8") as f:
        return compile_source(f.read(), path)


def semantics(int_bits: int = 32):
    from nessie.interp.values import Semantics
    return Semantics(int_bits=int_bits)


def run_interp(c: Compiled, out: TextIO, *, int_bits: int = 32, print_length: int = 100) -> None:
    from nessie.interp.eval import run_program
    check_int_literals(c, int_bits)
    run_program(c.mono, semantics(int_bits), out, typed=c.typed, print_length=print_length,
                base_dir=os.path.dirname(os.path.abspath(c.filename)))


def flatten(c: Compiled, *, int_bits: int = 32):
    from nessie.flatten import flatten_program
    from nessie.limits import run_deep
    check_int_literals(c, int_bits)
    return run_deep(lambda: flatten_program(c.mono, int_bits))


def fuse(flat, **kw):
    """Fused copy of a flattened program (``(FlatProgram, report)``)."""
    from dataclasses import replace

    from lambda_cu.fusion import fuse_program
    from nessie.limits import run_deep
    res = run_deep(lambda: fuse_program(flat.program, **kw))
    return replace(flat, program=res.program), res.report


# ----------------------------------------------------------------------------- values
def _datatypes(c: Compiled):
    from nessie.interp.vtypes import Datatypes
    dts = Datatypes()
    for it in c.typed.items:
        if isinstance(it, T.DataDef):
            dts.add(it.name, it.scheme)
    return dts


def _unfold_once(tm, t):
    """A datatype's constructor argument type (which may be a datatype itself)."""
    params, arg = tm.datatypes[t.name]
    return nt.subst_type(arg, dict(zip(params, t.args))) if params else arg


def leaves_to_value(tm, ty, leaves: list, dts) -> Any:
    """Convert λcu leaf values (numpy arrays, segment descriptors, scalars) of a value of NESL
    type ``ty`` to the reference interpreter's value representation."""
    from nessie.interp.values import DataVal, Seq, unpair

    def scalar(x, t):
        name = tm.unfold(t).name
        if name == "int" or name == "segdes":
            return int(x)
        if name == "float":
            return float(x)
        if name == "bool":
            return bool(x)
        if name == "char":
            return x if isinstance(x, str) else chr(int(x))
        raise TypeError(name)

    def value(t, ls):
        if isinstance(t, nt.TData):
            inner = value(_unfold_once(tm, t), ls)
            n = len(dts.fields(t))
            return DataVal(t.name, (inner,) if n == 1 else unpair(inner, n))
        if isinstance(t, nt.TBase):
            return scalar(ls.pop(0), t)
        if isinstance(t, nt.TPair):
            a = value(t.fst, ls)
            return (a, value(t.snd, ls))
        return Seq(seq(t.elem, ls))

    def seq(t, ls):
        """List of the elements of a sequence representation of element type t."""
        if isinstance(t, nt.TData):
            items = seq(_unfold_once(tm, t), ls)
            n = len(dts.fields(t))
            return [DataVal(t.name, (x,) if n == 1 else unpair(x, n)) for x in items]
        if isinstance(t, nt.TBase):
            v = ls.pop(0)
            return [scalar(x, t) for x in list(v)]
        if isinstance(t, nt.TPair):
            a = seq(t.fst, ls)
            b = seq(t.snd, ls)
            return list(zip(a, b))
        sd = ls.pop(0)
        lens = [int(n) for n in sd.field("lengths")] if hasattr(sd, "field") else list(sd)
        data = seq(t.elem, ls)
        out, k = [], 0
        for n in lens:
            out.append(Seq(data[k:k + n]))
            k += n
        return out

    return value(ty, list(leaves))


def truncate_leaves(tm, ty, leaves: list, limit: int) -> list:
    """Leaves of the value of NESL type ``ty`` with every sequence cut to its first
    ``limit + 1`` elements — all that printing with ``print_length = limit`` shows (it prints
    ``...`` after ``limit`` elements), so results of millions of elements print without being
    converted whole."""
    import numpy as np

    from lambda_cu.values import SegDes

    keep = limit + 1
    ls = list(leaves)
    out: list = []

    def value(t):
        t = tm.unfold(t)
        if isinstance(t, nt.TBase):
            out.append(ls.pop(0))
        elif isinstance(t, nt.TPair):
            value(t.fst)
            value(t.snd)
        else:
            n = _seq_len(t.elem)
            seq(t.elem, np.arange(min(n, keep)))

    def _seq_len(t):
        t = tm.unfold(t)
        while isinstance(t, nt.TPair):
            t = tm.unfold(t.fst)
        first = ls[0]
        if isinstance(t, nt.TSeq):
            return len(first.field("lengths"))
        return len(first)

    def seq(t, idx):
        """Append the leaves of the elements ``idx`` of the next sequence representation."""
        t = tm.unfold(t)
        if isinstance(t, nt.TBase):
            out.append(np.asarray(ls.pop(0))[idx])
        elif isinstance(t, nt.TPair):
            seq(t.fst, idx)
            seq(t.snd, idx)
        else:
            sd = ls.pop(0)
            lens = sd.field("lengths")[idx]
            offs = sd.field("offsets")[idx]
            kept = np.minimum(lens, keep)
            out.append(SegDes(kept.astype(np.int64)))
            starts = np.repeat(offs - np.concatenate(([0], np.cumsum(kept)[:-1])), kept)
            inner = starts + np.arange(int(kept.sum()))
            seq(t.elem, inner.astype(np.int64))

    value(ty)
    return out


def value_to_leaves(tm, ty, v) -> list:
    """The λcu leaves (numpy scalars/arrays, segment descriptors) of an interpreter value of
    NESL type ``ty`` — the inverse of :func:`leaves_to_value`."""
    import numpy as np

    from lambda_cu.values import SegDes, dtype_of

    def unfold_value(t, x):
        if isinstance(t, nt.TData):
            f = x.fields
            out = f[-1]
            for y in reversed(f[:-1]):
                out = (y, out)
            return _unfold_once(tm, t), out
        return t, x

    def scalar(t, x):
        bt = tm.base(t)
        if isinstance(x, str):
            x = ord(x)
        return dtype_of(bt).type(x)

    def value(t, x, out):
        while isinstance(t, nt.TData):
            t, x = unfold_value(t, x)
        if isinstance(t, nt.TBase):
            out.append(scalar(t, x))
        elif isinstance(t, nt.TPair):
            value(t.fst, x[0], out)
            value(t.snd, x[1], out)
        else:
            seq(t.elem, list(x.items), out)

    def seq(t, items, out):
        while isinstance(t, nt.TData):
            items = [unfold_value(t, x)[1] for x in items]
            t = _unfold_once(tm, t)
        if isinstance(t, nt.TBase):
            bt = tm.base(t)
            out.append(np.asarray([ord(x) if isinstance(x, str) else x for x in items],
                                  dtype=dtype_of(bt)).reshape(-1))
        elif isinstance(t, nt.TPair):
            seq(t.fst, [x[0] for x in items], out)
            seq(t.snd, [x[1] for x in items], out)
        else:
            out.append(SegDes(np.asarray([len(x.items) for x in items], dtype=np.int64)))
            seq(t.elem, [y for x in items for y in x.items], out)

    out: list = []
    value(ty, v, out)
    return out


def make_externs(c: Compiled, flat, out: TextIO, *, int_bits: int = 32, print_length: int = 100):
    """Host functions for the program's ``Extern`` nodes, sharing one runtime (output stream,
    random generator, directory of files): the clock, ``rand``/``rand_seed``
    (``nessie.glibc_random``) and every other builtin without a data-parallel form from the host
    library ``nessie.hostlib`` (output, files, printed forms, number parsing, ``hash``, ``error``
    with a computed message).  None goes through the reference interpreter's builtins.  Returns
    ``(externs, runtime)``."""
    import time

    from nessie.hostlib import HostRuntime, host_externs

    tm = flat.typemap
    dts = _datatypes(c)
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


def _span_of_loc(loc: Optional[str]) -> Optional[Span]:
    return Span.from_loc(loc)


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
    from lambda_cu.executor import Executor
    from nessie.interp.printing import Redefinitions, format_binding, format_function
    from nessie.limits import OUT_OF_MEMORY, RECURSION_TOO_DEEP
    from nessie.types.library import is_library_item

    dts = _datatypes(c)
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
                vals = [runner.to_host(it.globals[n]) for n in top.leaves]
                if plen[0] is not None and plen[0] >= 0:
                    vals = truncate_leaves(flat.typemap, top.type, vals, plen[0])
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
        LI._on_big_stack(go)
    except LI.LcuRuntimeError as err:
        raise RuntimeNeslError(_span_of_loc(err.location), err.message) from None
    except RuntimeNeslError:
        raise
    return it
