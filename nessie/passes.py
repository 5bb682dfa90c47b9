"""The compiler's pipeline as one list of named passes (issue 13).

A pass is a pure function from one immutable IR value to the next, with a name, the name of the
IR it produces (what ``nessie compile --emit NAME`` prints) and a printer for that IR.  They are
registered here, in order, and nowhere else: the driver (``nessie.driver.compile_source``, used
by the CLI, the REPL, the Python API and the tests) runs the front-end passes through
:func:`run`, and ``nessie compile --emit NAME`` prints the IR after any pass.

======== =========== =============================================================
pass     emits       what it does
======== =========== =============================================================
parse    ast         source text -> syntax tree (``nessie.syntax.parse_text``)
typecheck typed      syntax tree -> typed program (``nessie.types.typecheck``)
mono     mono        typed -> monomorphic instances (``nessie.mono.monomorphise``)
flatten  lcu         monomorphic -> flattened λcu (``nessie.flatten.flatten_program``)
fuse     lcu-fused   λcu -> fused λcu and its report (``lambda_cu.fusion.fuse_program``)
lower    lift        λcu -> per kernel, its SOACs as Lift expressions and OpenCL C
                     (``lift_backend.lower.lower_program``)
opencl   opencl      lowered -> the OpenCL C text of the whole program
======== =========== =============================================================

``Options`` carries what the passes depend on besides their input (the file name, the int
width, whether to fuse); nothing is global.  A pass whose input is missing from the options
(``fuse`` off) is skipped: ``lower`` then takes the unfused λcu.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Optional

from nessie.diagnostics import CompileError, CompileErrors, RuntimeNeslError, with_sources


@dataclass(frozen=True)
class Options:
    filename: str = "<input>"
    int_bits: int = 32
    fuse: bool = True
    #: the fusion ILP's time limit in seconds (None: fusion's default)
    fuse_time_limit: Optional[float] = None


@dataclass(frozen=True)
class Pass:
    name: str
    emits: str
    doc: str
    run: Callable[[Any, Options], Any]
    show: Callable[[Any], str]


@dataclass(frozen=True)
class Fused:
    """The fuse pass's value: the fused flattened program and the fusion report."""
    flat: Any
    report: Any


def _parse(text: str, o: Options):
    from nessie.syntax import parse_text
    return parse_text(text, o.filename)


def _show_ast(ast) -> str:
    from nessie.syntax.printer import print_ast
    return print_ast(ast)


def _typecheck(ast, o: Options):
    from nessie.types import typecheck
    return typecheck(ast)


def _show_typed(typed) -> str:
    from nessie.types import print_typed
    return print_typed(typed)


def _mono(typed, o: Options):
    from nessie.mono import monomorphise
    return monomorphise(typed)


def _show_mono(mono) -> str:
    from nessie.mono import print_mono
    return print_mono(mono)


def _flatten(mono, o: Options):
    from nessie.diagnostics import CompileErrors
    from nessie.types.literals import int_literal_errors
    from nessie.flatten import flatten_program
    errors, seen = [], set()
    for e in int_literal_errors(mono.items, o.int_bits):   # once per place, not per instance
        if (e.span, e.message) not in seen:
            seen.add((e.span, e.message))
            errors.append(e)
    if errors:
        raise CompileErrors(errors)
    # a pure function of the monomorphic program: kept in the disk cache (lambda_cu.diskcache)
    from lambda_cu import diskcache
    return diskcache.cached("flatten", (mono, o.int_bits),
                            lambda: flatten_program(mono, o.int_bits))[0]


def _show_lcu(flat) -> str:
    return str(flat.program)


def _fuse(flat, o: Options):
    from dataclasses import replace

    from lambda_cu.fusion import fuse_program
    kw = {} if o.fuse_time_limit is None else {"time_limit": o.fuse_time_limit}
    res = fuse_program(flat.program, **kw)
    return Fused(replace(flat, program=res.program), res.report)


def _show_fused(f: Fused) -> str:
    return str(f.flat.program)


def _lower(flat, o: Options):
    from lift_backend.lower import lower_program
    return lower_program((flat.flat if isinstance(flat, Fused) else flat).program)


def _show_lift(lowered) -> str:
    from lift_backend.lower import print_lift
    return print_lift(lowered)


def _opencl(lowered, o: Options) -> str:
    from lift_backend.lower import print_opencl
    return print_opencl(lowered)


PASSES: tuple = (
    Pass("parse", "ast", "source text -> syntax tree", _parse, _show_ast),
    Pass("typecheck", "typed", "syntax tree -> typed program", _typecheck, _show_typed),
    Pass("mono", "mono", "typed -> monomorphic instances", _mono, _show_mono),
    Pass("flatten", "lcu", "monomorphic -> flattened λcu", _flatten, _show_lcu),
    Pass("fuse", "lcu-fused", "λcu -> fused λcu (ILP over the PDG) and its report", _fuse,
         _show_fused),
    Pass("lower", "lift", "λcu -> Lift expressions and OpenCL C per SOAC", _lower, _show_lift),
    Pass("opencl", "opencl", "lowered -> the program's OpenCL C", _opencl, str),
)

#: the names ``--emit`` accepts, in pipeline order
EMITS: tuple = tuple(p.emits for p in PASSES)


def find(name: str) -> Pass:
    """The pass named ``name`` or emitting ``name``."""
    for p in PASSES:
        if name in (p.name, p.emits):
            return p
    raise KeyError(f"no pass named {name!r} (passes: {', '.join(p.name for p in PASSES)})")


def run(text: str, options: Options = Options(), until: str = "mono",
        start: Optional[tuple] = None) -> dict:
    """Run the passes from the source ``text`` through the pass ``until`` (a pass or IR name);
    the value after each pass, by IR name (``{"ast": ..., "typed": ..., ...}``).  ``start``
    (``(ir name, value)``) resumes after an earlier run.  ``fuse`` is skipped when
    ``options.fuse`` is false.  Runs on a big stack (``nessie.limits.run_deep``)."""
    from nessie.limits import run_deep
    last = find(until)
    names = [p.emits for p in PASSES]
    values: dict = {}
    if start is not None:
        values[start[0]] = start[1]
        begin = names.index(start[0]) + 1
        value = start[1]
        if names.index(last.emits) < begin:
            return values           # ``until`` is the start (or before it): nothing to run
    else:
        begin, value = 0, text

    def go() -> dict:
        nonlocal value
        for p in PASSES[begin:]:
            if p.name == "fuse" and not options.fuse and last is not p:
                continue
            value = p.run(value, options)
            values[p.emits] = value
            if p is last:
                break
        return values
    try:
        return run_deep(go)
    except (CompileError, CompileErrors, RuntimeNeslError) as err:
        # the source texts of this run, for the message's quoted line (a parse error has them)
        ast = values.get("ast")
        raise with_sources(err, ast.sources if ast is not None
                           else {options.filename: text} if isinstance(text, str) else None)


def show(name: str, value: Any) -> str:
    """The printed form of the IR ``name`` (``--emit name``)."""
    return find(name).show(value)


def table() -> str:
    """One line per registered pass (docs/architecture.md shows it)."""
    return "\n".join(f"{k + 1}. {p.name:<10} --emit {p.emits:<10} {p.doc}"
                     for k, p in enumerate(PASSES))


__all__ = ["Options", "Pass", "Fused", "PASSES", "EMITS", "find", "run", "show", "table"]
