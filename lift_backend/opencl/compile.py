"""The compilation pipeline: Lift program -> OpenCL kernel.

``types -> address spaces -> memory -> loop shapes -> barriers -> views + emission``,
each a pure function of the previous results.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, Mapping, Optional, Sequence, Tuple

from .. import arith as A
from ..errors import LiftCompileError, LiftError
from ..ir.expr import Program
from ..memory import LOCAL, allocate, infer_address_spaces
from ..types import Type
from ..types.infer import TypedProgram, infer_program, substitute_sizes
from .barriers import eliminate_barriers
from .codegen import CodeGen, KernelParam
from .control_flow import LaunchConfig, decide_shapes


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

    @property
    def size_names(self) -> Tuple[str, ...]:
        return tuple(p.name for p in self.params if p.kind == "size")

    def views_text(self) -> str:
        return "\n".join(self.accesses) + "\n"


def _dims(x) -> Optional[Tuple[int, ...]]:
    if x is None:
        return None
    if isinstance(x, int):
        return (x,)
    return tuple(int(v) for v in x)


def compile_program(program: Program, sizes: Optional[Mapping[str, int]] = None,
                    global_size=None, local_size=None) -> CompiledKernel:
    """Compile ``program`` to OpenCL C.

    ``sizes`` fixes size variables at compile time (``{"N": 4096}``); the others become
    ``int`` kernel parameters.  ``global_size``/``local_size`` (when known at compile time)
    enable control-flow simplification: a map that runs exactly once per work-item becomes
    straight-line code, at most once an ``if``.
    """
    sizes = dict(sizes or {})
    prog = substitute_sizes(program, sizes)
    typed = infer_program(prog)
    for expr, msg in typed.constraints:
        if isinstance(expr, A.Cst) and expr.value != 0:
            raise LiftCompileError(msg, program.span)
    launch = LaunchConfig(_dims(global_size), _dims(local_size))
    spaces = infer_address_spaces(typed)
    alloc = allocate(typed, spaces)
    shapes = decide_shapes(typed, launch)
    uses_local = any(m.space == LOCAL for m in alloc.memories)
    barriers = eliminate_barriers(typed, spaces, shapes, uses_local)
    gen = CodeGen(typed, spaces, alloc, shapes, barriers).generate()
    return CompiledKernel(
        name=prog.name, source=gen.source, program=prog, typed=typed, params=gen.params,
        result_type=typed.result_type, barriers=gen.barriers, launch=launch, sizes=sizes,
        accesses=gen.accesses, uses_double="cl_khr_fp64" in gen.source)


def check_sizes(kernel: CompiledKernel, sizes: Mapping[str, int]) -> None:
    """Check the size constraints (divisibility, partition sums) for concrete sizes."""
    env = {**kernel.sizes, **sizes}
    for expr, msg in kernel.typed.constraints:
        try:
            v = A.evaluate(expr, env)
        except KeyError:
            continue
        if v != 0:
            raise LiftCompileError(f"{msg} (with {', '.join(f'{k}={v}' for k, v in sorted(env.items()))})")
