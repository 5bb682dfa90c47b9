"""The compiler driver: the pipeline as one set of functions shared by the CLI, the REPL, the
Python API and the tests.

``compile_source`` runs the front end (parse, type-check, monomorphise); ``run_interp`` runs the
reference interpreter; ``flatten``/``fuse`` produce λcu; ``run_lcu`` runs λcu on the numpy
interpreter and prints results exactly as the reference interpreter does (so outputs can be
compared byte for byte).  Every backend reports runtime errors as
:class:`~nessie.diagnostics.RuntimeNeslError` after printing the results computed before them.
"""
from __future__ import annotations

import io
import os
from dataclasses import dataclass
from typing import Any, Optional, TextIO

from nessie.diagnostics import RuntimeNeslError, Span, SOURCES
from nessie.types import typed_ast as T
from nessie.types import types as nt


@dataclass(frozen=True)
class Compiled:
    """Front-end result: the typed program and its monomorphic instance."""
    filename: str
    typed: Any
    mono: Any


def compile_source(text: str, filename: str = "<input>") -> Compiled:
    """Parse, type-check and monomorphise; raises ``CompileErrors`` with every error found."""
    from nessie.mono import monomorphise
    from nessie.syntax import parse_text
    from nessie.types import typecheck

    typed = typecheck(parse_text(text, filename))
    return Compiled(filename, typed, monomorphise(typed))


def compile_file(path: str) -> Compiled:
    with open(path, encoding="utf-8") as f:
        return compile_source(f.read(), path)


def semantics(int_bits: int = 32):
    from nessie.interp.values import Semantics
    return Semantics(int_bits=int_bits)


def run_interp(c: Compiled, out: TextIO, *, int_bits: int = 32, print_length: int = 100) -> None:
    from nessie.interp.eval import run_program
    run_program(c.mono, semantics(int_bits), out, typed=c.typed, print_length=print_length,
                base_dir=os.path.dirname(os.path.abspath(c.filename)))


def flatten(c: Compiled, *, int_bits: int = 32):
    from nessie.flatten import flatten_program
    return flatten_program(c.mono, int_bits)


def fuse(flat, **kw):
    """Fused copy of a flattened program (``(FlatProgram, report)``)."""
    from dataclasses import replace

    from lambda_cu.fusion import fuse_program
    res = fuse_program(flat.program, **kw)
    return replace(flat, program=res.program), res.report


# ----------------------------------------------------------------------------- values
def _datatypes(c: Compiled):
    from nessie.interp.vtypes import Datatypes
    dts = Datatypes()
    for it in c.typed.items:
        if isinstance(it, T.DataDef):
            dts.add(it.name, it.scheme)
    return dts


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
            inner = value(tm.unfold(t), ls)
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
            items = seq(tm.unfold(t), ls)
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


def _span_of_loc(loc: Optional[str]) -> Optional[Span]:
    if not loc:
        return None
    try:
        file, line, col = loc.rsplit(":", 2)
        return Span(file, int(line), int(col), int(line), int(col))
    except ValueError:
        return None


def run_lcu(c: Compiled, flat, out: TextIO, *, print_length: int = 100, check: bool = True):
    """Run a (fused or unfused) flattened program on the λcu numpy interpreter, printing its
    results like the reference interpreter.  Returns the λcu interpreter (launch counts)."""
    import numpy as np

    from lambda_cu import interp as LI
    from nessie.interp.printing import format_binding, format_function
    from nessie.interp.eval import pattern_text

    dts = _datatypes(c)
    it = LI.Interpreter(flat.program, check)
    main = iter(flat.program.main)
    typed_funs = {i.name: i for i in c.typed.items if isinstance(i, T.FunDef)}
    plen = [print_length]

    def line(s):
        out.write(s + "\n")

    def go():
        # function lines appear at their source position with their polymorphic type
        others = iter([i for i in flat.items if i.kind != "fun"])
        for titem in c.typed.items:
            if isinstance(titem, T.FunDef):
                line(format_function(titem.name, titem.scheme))
                continue
            top = next(others)
            if top.kind in ("val", "exp"):
                b = next(main)
                with np.errstate(all="ignore"):
                    v = it.exp(b.rhs, it.globals)
                it._bind(b, v, it.globals)
                vals = [it.globals[n] for n in top.leaves]
                value = leaves_to_value(flat.typemap, top.type, vals, dts)
                lhs = pattern_text(top.item.pattern) if top.kind == "val" else "it"
                line(format_binding(lhs, value, top.type, plen[0], dts))
            elif top.kind == "set" and getattr(top.item, "name", None) == "print_length":
                plen[0] = int(top.item.args[0])

    try:
        LI._on_big_stack(go)
    except LI.LcuRuntimeError as err:
        raise RuntimeNeslError(_span_of_loc(err.location), err.message) from None
    return it
