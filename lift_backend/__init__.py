"""Lift: patterns, symbolic sizes, views and OpenCL code generation (Nessie's GPU backend).

Follows Steuwer, Remmelg & Dubach, *Lift: a functional data-parallel IR for
high-performance GPU code generation* (CGO'17), the rewrite-rules paper (ICFP'15) for the
patterns, and Pizzuti, Steuwer & Dubach, *Position-dependent arrays* (FHPNC'19), extended
with two patterns for segmented data: ``gatherIdx`` and ``splitOffsets``.

Pipeline (each stage a pure function over immutable values)::

    Program --types.infer--> TypedProgram --memory.infer_address_spaces--> spaces
            --memory.allocate--> Allocation --opencl.control_flow / opencl.barriers-->
            --opencl.codegen (views built and consumed)--> OpenCL C   --runtime--> numpy

Python API
----------
Parse programs from text::

    from lift_backend import parse, parse_file, compile_program, get_runtime
    lf = parse_file("dot.lift")                 # LiftFile: .userfuns, .programs
    prog = lf.program("partialDot")

or build them with :mod:`lift_backend.ir.builders`::

    from lift_backend.ir.builders import *
    from lift_backend.types import ArrayType, Float
    from lift_backend.arith import size_var
    N = size_var("N")
    add = userfun("add", [("a", Float), ("b", Float)], Float, "return a + b;")
    prog = program("partialSums", [("x", ArrayType(Float, N))], lambda x:
        compose(join(), mapGlb(compose(toGlobal(mapSeq(id_())), reduceSeq(add, flit(0.0)))),
                split(128))(x))

Nodes: ``Literal``, ``Param``, ``FunCall`` (expressions) and ``Lambda``, ``UserFun``, the patterns
of :mod:`lift_backend.ir.patterns` (functions: calling one builds a FunCall; ``f.o(g)`` composes).
Segmented data (λcu's pull thunks ``v[idx[i]]`` and segment descriptors) map to
``gatherIdx(idx, v)`` and ``splitOffsets(offsets, data)``; ``partition(n, f)`` splits with
static row lengths.  ``scatterIdx(idx, v)``/``permuteIdx(idx, v)`` write ``v[k]`` at ``idx[k]``
(checked; ``permuteIdx`` also refuses a position written twice).

Compile and run::

    k = compile_program(prog, sizes={"N": 4096}, global_size=1024, local_size=64)
    k.source          # OpenCL C;  k.params: kernel arguments;  k.barriers: barrier count
    rt = get_runtime()             # PYOPENCL_CTX or the first device (PoCL on CPU)
    out = rt.run(k, {"x": x}, global_size=1024, local_size=64)   # numpy in, numpy out

The runtime builds each distinct source once (cache per device); sizes not given are
inferred from the argument shapes where possible.  Arguments that do not fit their parameter
raise :class:`LiftArgumentError`; an index out of bounds found by the kernel's checks (see
:class:`lift_backend.views.views.BoundsCheck`) raises a :class:`LiftRuntimeError` located at the
pattern.  Limits (depths, sizes): :mod:`lift_backend.limits`.

Text syntax and command line: see :mod:`lift_backend.syntax.parser` and
``python -m lift_backend --help``.
"""
from .errors import (LiftArgumentError, LiftCompileError, LiftError, LiftRuntimeError, LiftSyntaxError,
                     LiftTypeError, Span, format_error)
from .ir import (Expr, FunCall, FunDecl, Lambda, Literal, Param, Program, UserFun, alpha_equal,
                 compose)
from .syntax import LiftFile, file_text, parse, parse_file, program_text
from .types.infer import TypedProgram, infer_program
from .opencl import CompiledKernel, CompiledPipeline, LaunchConfig, compile_program


def get_runtime(device=None):
    """The shared pyopencl runtime (imported lazily: compiling needs no OpenCL)."""
    from .runtime import get_runtime as _g
    return _g(device)
