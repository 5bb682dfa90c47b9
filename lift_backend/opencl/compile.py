"""The compilation pipeline: Lift program -> OpenCL kernel.

``types -> address spaces -> memory -> loop shapes -> barriers -> views + emission``,
each a pure function of the previous results.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, Mapping, Optional, Sequence, Tuple

from .. import arith as A
from ..errors import LiftCompileError, LiftError, Span
from ..ir.expr import field_names, Expr, FunCall, FunDecl, Lambda, Param, Program, UserFun, walk
from ..limits import INT_MAX, TOO_DEEP_TO_COMPILE, run_deep
from ..memory import LOCAL, allocate, infer_address_spaces
from ..types import ArrayType, Type, VectorType, size_in_elements
from ..types.infer import TypedProgram, infer_program, substitute_sizes
from .barriers import eliminate_barriers
from .codegen import CheckSite, CodeGen, KernelParam, OffsetsCheck
from .control_flow import LaunchConfig, decide_shapes
from .kernel_rules import CrossGroupError, check_kernel_rules
from .names import check_user_names, user_names


@dataclass(frozen=True)
class CompiledKernel:
    """An OpenCL kernel generated from a Lift program.

    ``params`` lists the kernel arguments in order (inputs, output, global temporaries,
    local buffers sized at launch, size variables); ``sizes`` are the sizes fixed at compile
    time; ``result_type`` is the type of the output array.
    """
    name: str
    source: str
    program: Program
    typed: TypedProgram
    params: Tuple[KernelParam, ...]
    result_type: Type
    barriers: int
    launch: LaunchConfig
    sizes: Mapping[str, int]
    accesses: Tuple[str, ...]
    uses_double: bool
    checks: Tuple[CheckSite, ...] = ()            # the run-time bounds checks (error buffer sites)
    offset_checks: Tuple[OffsetsCheck, ...] = ()  # splitOffsets inputs the host checks
    local_static: Tuple[KernelParam, ...] = ()    # local buffers declared in the kernel

    @property
    def size_names(self) -> Tuple[str, ...]:
        return tuple(p.name for p in self.params if p.kind == "size")

    def views_text(self) -> str:
        return "\n".join(self.accesses) + "\n"


def _dims(x, what: str = "global") -> Optional[Tuple[int, ...]]:
    """An NDRange size as a tuple of 1 to 3 dimensions, each between 1 and ``INT_MAX`` (the
    generated kernels hold work-item ids in ``int``)."""
    if x is None:
        return None
    dims = (x,) if not isinstance(x, (tuple, list)) else tuple(x)
    out = []
    for v in dims:
        if isinstance(v, A.Expr) and not isinstance(v, A.Cst) and what == "global":
            out.append(v)       # symbolic: at least this many work-items (see LaunchConfig)
            continue
        try:
            iv = int(v)
        except (TypeError, ValueError, OverflowError):
            raise LiftCompileError(f"the {what} size must be integers, got {x!r}")
        if iv != v:
            raise LiftCompileError(f"the {what} size must be integers, got {x!r}")
        out.append(iv)
    if not 1 <= len(out) <= 3:
        raise LiftCompileError(f"the {what} size has 1 to 3 dimensions, got {len(out)}")
    for v in out:
        if isinstance(v, A.Expr):
            continue
        if not 1 <= v <= INT_MAX:
            raise LiftCompileError(f"the {what} size {v} is out of range: each dimension must be "
                                   f"between 1 and {INT_MAX}")
    return tuple(out)


def check_size_values(sizes: Mapping[str, object],
                      origin: Optional[Mapping[str, str]] = None) -> Dict[str, int]:
    """Sizes are integers between 1 and ``INT_MAX`` (size variables are at least 1 in the
    arithmetic; kernels receive them as ``int``); returns them as Python ints (numpy integers
    are accepted).  ``origin`` names the argument a size was inferred from, for the message."""
    for k, v in sizes.items():
        where = f" (from the shape of the argument {origin[k]})" if origin and k in origin else ""
        if isinstance(v, bool) or not isinstance(v, (int,)) and not hasattr(v, "__index__"):
            raise LiftCompileError(f"size {k}: expected an integer, got {v!r}")
        v = int(v)
        if not 1 <= v <= INT_MAX:
            raise LiftCompileError(f"size {k}={v}{where} is out of range: sizes must be between 1 and "
                                   f"{INT_MAX}" + (" (empty arrays are not supported)" if v == 0 else ""))
    return {k: int(v) for k, v in sizes.items()}


def _env_text(env: Mapping[str, int]) -> str:
    return ", ".join(f"{k}={v}" for k, v in sorted(env.items()))


def check_lengths(typed: TypedProgram, env: Mapping[str, int], default_span: Optional[Span] = None) -> None:
    """Every array length of the program that ``env`` determines is between 1 and ``INT_MAX``
    elements in all (kernels index with ``int``); its divisions are by non-zero values."""
    seen = set()
    prog = typed.program
    items = [(p, prog.span) for p in prog.params]
    items += [(n, n.span) for n in walk(prog.body) if isinstance(n, FunCall)]
    for node, span in items:
        t = typed.types.get(id(node))
        if t is None or not isinstance(t, ArrayType) or t in seen:
            continue
        seen.add(t)
        total = 1
        tt = t
        while isinstance(tt, ArrayType) and tt.index_var is None:
            try:
                n = A.evaluate(tt.length, env)
            except KeyError:
                break
            except ZeroDivisionError:
                raise LiftCompileError(f"division by zero in the array length {A.to_text(tt.length)}"
                                       + (f" (with {_env_text(env)})" if env else ""), span or default_span)
            if n < 1:
                text = A.to_text(tt.length)
                how = ", ".join(x for x in ((f"the length {text}" if text != str(n) else ""),
                                            (f"with {_env_text(env)}" if env else "")) if x)
                whose = f"the parameter {node.name}" if isinstance(node, Param) else "an array of the program"
                raise LiftCompileError(f"{whose} would have {n} elements{f' ({how})' if how else ''}: "
                                       f"arrays have at least one element", span or default_span)
            total *= n
            if total > INT_MAX:
                raise LiftCompileError(f"the array of type {t} is too large: {total if tt is t else 'over'} "
                                       f"{INT_MAX} elements" if False else
                                       f"the array of type {t} has more than {INT_MAX} elements"
                                       + (f" (with {_env_text(env)})" if env else "")
                                       + ", the limit of the kernels' int indices", span or default_span)
            tt = tt.elem
        else:
            if isinstance(tt, ArrayType):
                # position-dependent rows (a triangle): the elements of all the rows together
                try:
                    n = A.evaluate(size_in_elements(tt), env)
                except (KeyError, ZeroDivisionError):
                    continue
                if total * n > INT_MAX:
                    raise LiftCompileError(f"the array of type {t} has more than {INT_MAX} elements"
                                           + (f" (with {_env_text(env)})" if env else "")
                                           + ", the limit of the kernels' int indices", span or default_span)


def compile_program(program: Program, sizes: Optional[Mapping[str, int]] = None,
                    global_size=None, local_size=None, error_base: bool = False,
                    soa_output: bool = False):
    """Compile ``program`` to OpenCL C: a :class:`CompiledKernel`, or a
    :class:`CompiledPipeline` of kernels run one after the other when a stage reads what
    other work-groups of a ``mapGlb``/``mapWrg`` wrote (the producing call, when it depends on
    the program's parameters only, becomes a kernel of its own; else a located error).

    ``sizes`` fixes size variables at compile time (``{"N": 4096}``); the others become
    ``int`` kernel parameters.  ``global_size``/``local_size`` (when known at compile time)
    enable control-flow simplification: a map that runs exactly once per work-item becomes
    straight-line code, at most once an ``if``.

    ``error_base``: the kernel reports a failing check as the code ``errbase + code`` of its
    ``arrayAccess`` (an ``int errbase`` parameter after the one-``int`` error buffer, the
    smallest code wins) instead of Lift's own site numbers and details: the protocol of a host
    that numbers the sites itself (the NESL lowering).  ``soa_output``: a result whose elements
    are flat tuples of scalars is written as one output buffer per component (struct of
    arrays) instead of one array of structs.
    """
    if not isinstance(program, Program):
        raise LiftCompileError(f"compile_program: expected a Program (e.g. parse(text).program(name)), "
                               f"got {type(program).__name__}")
    if sizes is not None and not isinstance(sizes, Mapping):
        raise LiftCompileError(f"compile_program: the sizes must be a mapping from names to integers "
                               f"({{'N': 1024}}), got {type(sizes).__name__}")
    sizes = check_size_values(dict(sizes or {}))
    launch = LaunchConfig(_dims(global_size, "global"), _dims(local_size, "local"))
    try:
        compiled = run_deep(lambda: _compile(program, sizes, launch, error_base, soa_output))
    except RecursionError:
        raise LiftCompileError(TOO_DEEP_TO_COMPILE, program.span)
    except ZeroDivisionError:
        raise LiftCompileError("division by zero in a size or index expression"
                               + (f" (with {_env_text(sizes)})" if sizes else ""), program.span)
    if launch.global_size is not None:
        # an NDRange fixed now whose work-item loops would overflow ``int`` for the sizes fixed
        # now is refused here, as a launch refuses it (the maps of unknown length: at launch)
        from .ndrange import _check_strides
        from ..errors import LiftRuntimeError
        for k in getattr(compiled, "stages", (compiled,)):
            try:
                _check_strides(k, sizes, launch.global_size, launch.local_size, known_only=True)
            except LiftRuntimeError as e:
                raise LiftCompileError(e.message, e.span) from None
    return compiled


@dataclass(frozen=True)
class CompiledPipeline:
    """A program compiled to several kernels launched one after the other (Lift paper §5.4:
    OpenCL cannot synchronise work-groups, so a stage that reads what other work-groups of a
    ``mapGlb``/``mapWrg`` wrote starts a new kernel).  ``stages`` run in order; the result of
    stage ``i`` is the argument ``outputs[i]`` of the later stages (``None`` for the last, the
    program's result)."""
    name: str
    program: Program
    stages: Tuple[CompiledKernel, ...]
    outputs: Tuple[Optional[str], ...]
    sizes: Mapping[str, int]
    launch: LaunchConfig

    @property
    def result_type(self) -> Type:
        return self.stages[-1].result_type

    @property
    def source(self) -> str:
        n = len(self.stages)
        return "\n".join(f"// kernel {i + 1} of {n}"
                         + (f" (its result is {o})" if o else " (the result)") + "\n" + k.source
                         for i, (k, o) in enumerate(zip(self.stages, self.outputs)))

    def views_text(self) -> str:
        return "".join(k.views_text() for k in self.stages)


def _free_param_names(node) -> set:
    bound = {p.name for n in walk(node) if isinstance(n, Lambda) for p in n.params}
    return {n.name for n in walk(node) if isinstance(n, Param)} - bound


def _replace(node, target, new):
    """``node`` with the sub-tree ``target`` (by identity) replaced by ``new``."""
    import dataclasses
    if node is target:
        return new
    if isinstance(node, UserFun) or not dataclasses.is_dataclass(node) or \
            not isinstance(node, (Expr, FunDecl, Program)):
        return node
    changes = {}
    for fname in field_names(node):
        v = getattr(node, fname)
        if isinstance(v, (Expr, FunDecl)):
            nv = _replace(v, target, new)
            if nv is not v:
                changes[fname] = nv
        elif isinstance(v, tuple) and any(isinstance(x, (Expr, FunDecl)) for x in v):
            nv = tuple(_replace(x, target, new) for x in v)
            if any(a is not b for a, b in zip(nv, v)):
                changes[fname] = nv
    return dataclasses.replace(node, **changes) if changes else node


def _bindings_above(node, target, applied=None, opaque=frozenset()):
    """The lambda parameters in scope at ``target`` inside ``node``: ``applied`` maps those of
    lambdas applied right there (``(\\p -> ...)(arg)``, as compositions are) to their
    arguments, ``opaque`` names the others (a map's function...).  None: not found."""
    from ..ir.expr import ir_children
    applied = dict(applied or {})
    if node is target:
        return applied, opaque
    if isinstance(node, FunCall) and isinstance(node.f, Lambda):
        for a in node.args:
            r = _bindings_above(a, target, applied, opaque)
            if r is not None:
                return r
        inner = dict(applied)
        for p, a in zip(node.f.params, node.args):
            inner[p.name] = a
        op = opaque - {p.name for p in node.f.params}
        return _bindings_above(node.f.body, target, inner, op)
    if isinstance(node, Lambda):
        names = {p.name for p in node.params}
        applied = {k: v for k, v in applied.items() if k not in names}
        opaque = opaque | names
    for ch in ir_children(node):
        r = _bindings_above(ch, target, applied, opaque)
        if r is not None:
            return r
    return None


def _rename(node, name: str, p: Param):
    """``node`` with the free occurrences of the parameter ``name`` replaced by ``p``."""
    import dataclasses
    if isinstance(node, Param):
        return p if node.name == name else node
    if isinstance(node, Lambda) and any(q.name == name for q in node.params):
        return node
    if isinstance(node, UserFun) or not dataclasses.is_dataclass(node) or \
            not isinstance(node, (Expr, FunDecl)):
        return node
    changes = {}
    for fname in field_names(node):
        v = getattr(node, fname)
        if isinstance(v, (Expr, FunDecl)):
            changes[fname] = _rename(v, name, p)
        elif isinstance(v, tuple) and any(isinstance(x, (Expr, FunDecl)) for x in v):
            changes[fname] = tuple(_rename(x, name, p) for x in v)
    return dataclasses.replace(node, **changes) if changes else node


def _split(typed: TypedProgram, producer) -> Optional[Tuple[Program, Program, str]]:
    """Make ``producer`` (a call of the program) a program of its own whose result the rest
    reads as a new parameter, when it depends on the program's parameters only and its
    result is a regular array whose lengths are sizes of the program."""
    prog = typed.program
    if producer is None:
        return None
    params = {p.name: p for p in prog.params}
    found = _bindings_above(prog.body, producer)
    if found is None:
        return None
    applied, opaque = found
    # the producer's free names must be program parameters, directly or renamed by the
    # lambdas of compositions applied to them
    renaming = {}
    for name in _free_param_names(producer):
        seen = set()
        target = name
        while target in applied and target not in seen:
            seen.add(target)
            arg = applied[target]
            if not isinstance(arg, Param):
                return None
            target = arg.name
        if target in opaque or target not in params or (target == name and name in applied):
            return None
        renaming[name] = params[target]
    body1 = producer
    for name, p in renaming.items():
        if name != p.name:
            body1 = _rename(body1, name, p)
    free = {p.name for p in renaming.values()}
    t = typed.types.get(id(producer))
    tt = t
    while isinstance(tt, ArrayType):
        if tt.index_var is not None or any(v.uid != 0 for v in A.free_vars(tt.length)):
            return None
        tt = tt.elem
    if not isinstance(t, ArrayType):
        return None
    from .names import user_names
    taken = user_names(prog)
    k = 1
    while f"stage{k}" in taken or f"{prog.name}_stage{k}" in taken:
        k += 1
    tname = f"stage{k}"
    first = Program(f"{prog.name}_{tname}", tuple(p for p in prog.params if p.name in free), body1, prog.span)
    rest = Program(prog.name, prog.params + (Param(tname, t),), _replace(prog.body, producer, Param(tname, t)),
                   prog.span)
    return first, rest, tname


def _compile(program: Program, sizes: Dict[str, int], launch: LaunchConfig, error_base: bool = False,
             soa_output: bool = False):
    prog = substitute_sizes(program, sizes)
    try:
        return _compile_kernel(prog, sizes, launch, error_base, soa_output)
    except CrossGroupError as e:
        parts = _split(e.typed, e.producer) if e.typed is not None else None
        if parts is None:
            raise
        first, rest, tname = parts
        stages, outputs = [], []
        for part, out in ((first, tname), (rest, None)):
            k = _compile(part, {}, launch, error_base, soa_output if out is None else False)
            if isinstance(k, CompiledPipeline):
                stages += k.stages
                outputs += list(k.outputs[:-1]) + [out]
            else:
                stages.append(k)
                outputs.append(out)
        return CompiledPipeline(prog.name, prog, tuple(stages), tuple(outputs), sizes, launch)


def _compile_kernel(prog: Program, sizes: Dict[str, int], launch: LaunchConfig,
                    error_base: bool = False, soa_output: bool = False) -> CompiledKernel:
    typed = infer_program(prog)
    for c in typed.constraints:
        if isinstance(c.expr, A.Cst) and c.violated(c.expr.value):
            raise LiftCompileError(c.message + (f" (with {_env_text(sizes)})" if sizes else ""),
                                   c.span or prog.span)
    # a constraint on the rows of a position-dependent array whose sizes are all known now
    # (``split(3)`` of rows ``2 * i + 2``): checked for every row before the code, whose row
    # offsets (sums of the row lengths) may have no closed form where a row does not fit
    for c in typed.constraints:
        if not isinstance(c.expr, A.Cst):
            _check_every_row(c, sizes, prog.span)
    check_lengths(typed, {}, prog.span)
    spaces = infer_address_spaces(typed)
    check_kernel_rules(typed, spaces)
    check_user_names(prog)
    alloc = allocate(typed, spaces, user_names(prog))
    shapes = decide_shapes(typed, launch)
    uses_local = any(m.space == LOCAL for m in alloc.memories)
    barriers = eliminate_barriers(typed, spaces, shapes, uses_local)
    try:
        gen = CodeGen(typed, spaces, alloc, shapes, barriers, error_base, soa_output).generate()
    except LiftCompileError as ex:
        if "no closed form for the sum" in ex.message:
            # the row offsets of rows that a constraint (not checked: the sizes are unknown)
            # does not let fit: that constraint is the error
            for c in typed.constraints:
                if not isinstance(c.expr, A.Cst):
                    _check_first_row(c, sizes, prog.span)
            _unchecked_rows(typed, sizes, prog.span)
        raise
    return CompiledKernel(
        name=prog.name, source=gen.source, program=prog, typed=typed, params=gen.params,
        result_type=typed.result_type, barriers=gen.barriers, launch=launch, sizes=sizes,
        accesses=gen.accesses, uses_double="cl_khr_fp64" in gen.source, checks=gen.checks,
        offset_checks=gen.offset_checks, local_static=gen.local_static)


def check_sizes(kernel: CompiledKernel, sizes: Mapping[str, int]) -> None:
    """Check the size constraints (divisibility, partition sums, bounds of slices, windows and
    paddings, non-zero divisors) and the array lengths for concrete sizes."""
    env = {**kernel.sizes, **sizes}
    span = kernel.program.span
    for c in kernel.typed.constraints:
        try:
            v = A.evaluate(c.expr, env)
        except KeyError:
            _check_every_row(c, env, span)
            continue
        except ZeroDivisionError:
            raise LiftCompileError(f"{c.message}: division by zero (with {_env_text(env)})", c.span or span)
        if c.violated(v):
            raise LiftCompileError(f"{c.message} (with {_env_text(env)})", c.span or span)
    check_lengths(kernel.typed, env, span)


#: the most rows (values of the loop variables together) a constraint is checked for, one by one
MAX_ROWS_CHECKED = 1 << 24


def _check_every_row(c, env: Mapping[str, int], span) -> None:
    """A constraint that depends on loop variables (a position-dependent array's row length
    ``i + 1`` split by 2, sliced or windowed) holds for every row: checked for each value of
    those variables in their ranges, once the sizes are known (it was skipped, and kernels
    read and wrote outside their buffers).  Constraints over an ``iterate``'s sizes (opaque
    variables) are checked per iteration where the iterate is built; those that read memory
    (``splitOffsets``' rows) by the kernel's bounds checks."""
    unknown = [v for v in A.free_vars(c.expr)
               if isinstance(v, A.Var) and v not in env and v.name not in env]
    if not unknown or any(v.opaque for v in unknown):
        return
    try:
        _rows(c, dict(env), sorted(unknown, key=lambda v: (v.name, v.uid)), 0, span)
    except _TooManyRows:
        raise LiftCompileError(f"{c.message}: it cannot be checked for each of more than "
                               f"{MAX_ROWS_CHECKED} rows (with {_env_text(env)})", c.span or span)
    except KeyError:
        return
    except ZeroDivisionError:
        raise LiftCompileError(f"{c.message}: division by zero for some row (with {_env_text(env)})",
                               c.span or span)


def _check_first_row(c, env: Mapping[str, int], span) -> None:
    """Before the sizes are known: the first row (each loop variable at its constant lower
    bound) exists whatever the sizes are (arrays are never empty), so a constraint it violates
    without depending on the sizes is the error (``split(3)`` of rows ``i + 1``: row 0), not
    the missing closed form of the row offsets it causes."""
    loops = [v for v in A.free_vars(c.expr) if isinstance(v, A.Var) and v.hi is not None
             and v not in env and v.name not in env]
    if not loops or any(v.opaque for v in loops):
        return
    first = {}
    for v in loops:
        if not isinstance(v.lo, A.Cst):
            return
        first[v] = v.lo.value
    try:
        value = A.evaluate(c.expr, {**env, **first})
    except (KeyError, ZeroDivisionError):
        return                  # it depends on a size not known yet
    if c.violated(value):
        row = ", ".join(f"{v.name}={x}" for v, x in sorted(first.items(), key=lambda t: t[0].name))
        raise LiftCompileError(f"{c.message} (row {row}, whatever the sizes)", c.span or span)


def _unchecked_rows(typed, sizes: Mapping[str, int], span) -> None:
    """Row offsets with no closed form, where a constraint on the rows (``split(2)`` of rows
    ``N - i``) could not be checked for the sizes are unknown: that constraint is the error to
    report (with the sizes given, each row is checked and the first that fails is named)."""
    for c in typed.constraints:
        if isinstance(c.expr, A.Cst):
            continue
        free = [v for v in A.free_vars(c.expr) if isinstance(v, A.Var)]
        missing = sorted({v.name for v in free if v.hi is None and v.name not in sizes and v not in sizes})
        if missing and any(v.hi is not None for v in free):
            given = ", ".join(f"{n}=VALUE" for n in missing)
            asdict = ", ".join(f"'{n}': VALUE" for n in missing)
            raise LiftCompileError(f"{c.message} for every row, which cannot be checked without the "
                                   f"size(s) {', '.join(missing)} (nor the row offsets computed): give them "
                                   f"(on the command line --size {given}, in Python sizes={{{asdict}}})",
                                   c.span or span)


class _TooManyRows(Exception):
    pass


def _rows(c, env: dict, loops: list, count: int, span) -> int:
    """Check ``c`` for every value of the variables ``loops`` (the last one vectorised), the
    outer ones bound in ``env``; the bounds of a variable may use those bound before it."""
    import numpy as np
    pending = [v for v in loops if v not in env]
    ready = [v for v in pending if all(w in env or w.name in env or w not in pending
                                       for w in A.free_vars(v.lo) | A.free_vars(v.hi))]
    if not ready:
        raise KeyError("row bounds")
    var = ready[0]
    lo, hi = A.evaluate(var.lo, env), A.evaluate(var.hi, env)
    if hi < lo:
        return count
    rest = [v for v in pending if v is not var]
    if not rest:
        count += hi - lo + 1
        if count > MAX_ROWS_CHECKED:
            raise _TooManyRows()
        vals = A.evaluate_all(c.expr, env, var, np.arange(lo, hi + 1, dtype=np.int64))
        bad = np.flatnonzero(vals != 0 if c.kind == "zero" else (vals < 0 if c.kind == "nonneg" else vals == 0))
        if bad.size:
            loop_names = {v.name for v in loops}
            named = {(k.name if isinstance(k, A.Var) else k): x for k, x in env.items()}
            named[var.name] = int(lo + bad[0])
            row = ", ".join(f"{k}={x}" for k, x in named.items() if k in loop_names)
            sizes = {k: x for k, x in named.items() if k not in loop_names}
            raise LiftCompileError(f"{c.message} (row {row}" + (f": with {_env_text(sizes)}" if sizes else "")
                                   + ")", c.span or span)
        return count
    for x in range(lo, hi + 1):
        count += 1
        if count > MAX_ROWS_CHECKED:
            raise _TooManyRows()
        env[var] = x
        count = _rows(c, env, loops, count, span)
    del env[var]
    return count

