"""The names OpenCL C gives a meaning, in one place (issue 13): the Lift parser refuses them as
user names when it reads a program, and the OpenCL generator (``opencl/names.py``) when it
compiles one built by the Python API.  This module imports nothing.

A user function's name may be none of them: its keywords and type names (vector types
included), the names of its built-in functions, and the prefixes of families of built-ins and
of generated names.  A parameter's name may be no keyword, type name or reserved prefix, but it
may be a built-in function's name (a C parameter ``max`` only hides the function in the body of
the user function that declares it)."""
from __future__ import annotations

import re

C_KEYWORDS = {
    "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else", "enum",
    "extern", "float", "for", "goto", "if", "inline", "int", "long", "register", "restrict", "return",
    "short", "signed", "sizeof", "static", "struct", "switch", "typedef", "union", "unsigned", "void",
    "volatile", "bool", "half", "uchar", "ushort", "uint", "ulong", "size_t", "ptrdiff_t", "intptr_t",
    "uintptr_t", "kernel", "global", "local", "constant", "private", "read_only", "write_only",
    "read_write", "true", "false", "main", "event_t", "sampler_t", "image1d_t", "image2d_t",
    "image3d_t", "image1d_array_t", "image2d_array_t", "image1d_buffer_t", "NULL", "vec_step",
    "typeof", "_Bool", "_Complex", "_Imaginary", "while", "asm", "__kernel", "complex", "imaginary",
}

#: the macros OpenCL C defines (spec §6.12.2, §6.12.3, §6.10): a name that the preprocessor
#: replaces cannot be a user name either
C_MACROS = set("""
CHAR_BIT CHAR_MAX CHAR_MIN INT_MAX INT_MIN LONG_MAX LONG_MIN SCHAR_MAX SCHAR_MIN SHRT_MAX SHRT_MIN
UCHAR_MAX USHRT_MAX UINT_MAX ULONG_MAX MAXFLOAT HUGE_VALF HUGE_VAL INFINITY NAN
M_E M_LOG2E M_LOG10E M_LN2 M_LN10 M_PI M_PI_2 M_PI_4 M_1_PI M_2_PI M_2_SQRTPI M_SQRT2 M_SQRT1_2
M_E_F M_LOG2E_F M_LOG10E_F M_LN2_F M_LN10_F M_PI_F M_PI_2_F M_PI_4_F M_1_PI_F M_2_PI_F
M_2_SQRTPI_F M_SQRT2_F M_SQRT1_2_F M_E_H M_PI_H CL_VERSION_1_0 CL_VERSION_1_1 CL_VERSION_1_2
CL_VERSION_2_0 CL_VERSION_3_0 ATOMIC_VAR_INIT ATOMIC_FLAG_INIT NESSIE_ERR NZ_FOR
""".split())

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
                     "__", "Tuple_", "CLK_", "lift_", "FLT_", "DBL_", "HALF_", "FP_", "LIFT_")

_VECTOR_TYPE = re.compile(r"(char|uchar|short|ushort|int|uint|long|ulong|float|double|half|bool)"
                          r"(2|3|4|8|16)?(_t)?$")


def why_reserved(name: str, builtins: bool = True) -> str:
    """Why ``name`` cannot be a user name in the generated C ('' when it can)."""
    if name in C_KEYWORDS or _VECTOR_TYPE.match(name):
        return "an OpenCL C keyword or type name"
    if name in C_MACROS:
        return "a macro of OpenCL C"
    if builtins and name in OPENCL_BUILTINS:
        return "the name of an OpenCL C built-in function"
    for p in RESERVED_PREFIXES:
        if name.startswith(p):
            return f"reserved: names beginning with {p} belong to OpenCL C or to the generated code"
    return ""
