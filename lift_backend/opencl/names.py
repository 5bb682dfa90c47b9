"""Names of the generated OpenCL C (issue 11).

The user's names reach the C as they are: user functions (file-scope C functions), their
parameters, the program (the kernel) and its parameters (kernel arguments).  The generator's
own names (buffers ``out``, ``tmp1``, accumulators ``acc1``, ``src1``/``dst1``, loop variables,
``id``/``id_float4``, vector variants ``add_float4``, the bounds-check buffer) are chosen
unlike every user name of the program (:func:`user_names`), so no user name can capture one.
User names that OpenCL C itself gives a meaning are refused with a located error
(:func:`check_user_names`): its keywords and type names, the names of its built-in functions
(a user function ``fabs`` would redefine the built-in), the prefixes of families of built-ins
and generated types (``get_``, ``vload``, ``vstore``, ``convert_``, ``as_``, ``atomic_``,
``atom_``, ``__``, ``Tuple_`` of the generated tuple structs, ``CLK_``), and user functions
whose name is that of a program parameter or of the program (the kernel body calls them).
"""
from __future__ import annotations

import re
from typing import Iterable, Set

from ..errors import LiftCompileError
from ..ir.expr import UserFun, walk

C_KEYWORDS = {
    "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else", "enum",
    "extern", "float", "for", "goto", "if", "inline", "int", "long", "register", "restrict", "return",
    "short", "signed", "sizeof", "static", "struct", "switch", "typedef", "union", "unsigned", "void",
    "volatile", "bool", "half", "uchar", "ushort", "uint", "ulong", "size_t", "ptrdiff_t", "intptr_t",
    "uintptr_t", "kernel", "global", "local", "constant", "private", "read_only", "write_only",
    "read_write", "true", "false", "main", "event_t", "sampler_t", "image1d_t", "image2d_t",
    "image3d_t", "image1d_array_t", "image2d_array_t", "image1d_buffer_t", "NULL", "vec_step",
    "typeof", "_Bool", "_Complex", "_Imaginary",
}

#: OpenCL C 1.2 built-in functions (spec §6.12), the families given by RESERVED_PREFIXES aside
OPENCL_BUILTINS = set("""
acos acosh acospi asin asinh asinpi atan atan2 atanh atanpi atan2pi cbrt ceil copysign cos cosh
cospi erfc erf exp exp2 exp10 expm1 fabs fdim floor fma fmax fmin fmod fract frexp hypot ilogb
ldexp lgamma lgamma_r log log2 log10 log1p logb mad maxmag minmag modf nan nextafter pow pown
powr remainder remquo rint rootn round rsqrt sin sincos sinh sinpi sqrt tan tanh tanpi tgamma
trunc half_cos half_divide half_exp half_exp2 half_exp10 half_log half_log2 half_log10 half_powr
half_recip half_rsqrt half_sin half_sqrt half_tan native_cos native_divide native_exp native_exp2
native_exp10 native_log native_log2 native_log10 native_powr native_recip native_rsqrt native_sin
native_sqrt native_tan abs abs_diff add_sat hadd rhadd clamp clz mad_hi mad_sat max min mul_hi
rotate sub_sat upsample popcount mad24 mul24 degrees mix radians step smoothstep sign cross dot
distance length normalize fast_distance fast_length fast_normalize isequal isnotequal isgreater
isgreaterequal isless islessequal islessgreater isfinite isinf isnan isnormal isordered
isunordered signbit any all bitselect select shuffle shuffle2 printf barrier mem_fence
read_mem_fence write_mem_fence wait_group_events prefetch read_imagef read_imagei
read_imageui write_imagef write_imagei write_imageui read_imageh write_imageh
""".split())

RESERVED_PREFIXES = ("get_", "vload", "vstore", "convert_", "as_", "atomic_", "atom_", "async_",
                     "__", "Tuple_", "CLK_", "lift_")

_VECTOR_TYPE = re.compile(r"(char|uchar|short|ushort|int|uint|long|ulong|float|double|half|bool)"
                          r"(2|3|4|8|16)?(_t)?$")


def why_reserved(name: str, builtins: bool = True) -> str:
    """Why ``name`` cannot be a user name in the generated C ('' when it can)."""
    if name in C_KEYWORDS or _VECTOR_TYPE.match(name):
        return "an OpenCL C keyword or type name"
    if builtins and name in OPENCL_BUILTINS:
        return "the name of an OpenCL C built-in function"
    for p in RESERVED_PREFIXES:
        if name.startswith(p):
            return f"reserved: names beginning with {p} belong to OpenCL C or to the generated code"
    return ""


def user_names(program) -> Set[str]:
    """Every name of ``program`` that reaches the C as the user wrote it."""
    names = {program.name} | {p.name for p in program.params}
    for uf in _userfuns(program.body):
        names.add(uf.name)
        names.update(uf.param_names)
    for p in program.params:
        from ..types import type_free_vars
        t = p.type
        if t is not None:
            names.update(v.name for v in type_free_vars(t))
    return names


def check_user_names(program) -> None:
    """Refuse the user names the generated C cannot keep (see the module documentation)."""
    ufs = _userfuns(program.body)
    fun_names = {uf.name for uf in ufs}
    for uf in ufs:
        why = why_reserved(uf.name)
        if why:
            raise LiftCompileError(f"user function {uf.name}: {why}; rename it", uf.span or program.span)
        for n in uf.param_names:
            why = why_reserved(n, builtins=False)
            if why:
                raise LiftCompileError(f"user function {uf.name}: parameter {n}: {why}; rename it",
                                       uf.span or program.span)
    why = why_reserved(program.name)       # a kernel named dot is not found by clCreateKernel
    if why:
        raise LiftCompileError(f"program {program.name}: {why}; rename it", program.span)
    if program.name in fun_names:
        raise LiftCompileError(f"program {program.name} has the name of a user function it calls "
                               f"(the kernel and the function would have one C name); rename one", program.span)
    for p in program.params:
        why = why_reserved(p.name, builtins=False)
        if why:
            raise LiftCompileError(f"parameter {p.name}: {why}; rename it", program.span)
        if p.name in fun_names:
            raise LiftCompileError(f"parameter {p.name} has the name of a user function the program calls "
                                   f"(the kernel could not call it); rename one", program.span)


def unique(base: str, taken: Iterable[str]) -> str:
    """``base``, else ``base_1``, ``base_2``, ...: the first not in ``taken``."""
    taken = set(taken)
    if base not in taken:
        return base
    k = 1
    while f"{base}_{k}" in taken:
        k += 1
    return f"{base}_{k}"


def _userfuns(node):
    return list({id(n): n for n in walk(node) if isinstance(n, UserFun)}.values())
