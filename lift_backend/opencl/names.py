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

from typing import Iterable, Set

from ..errors import LiftCompileError
from ..reserved import why_reserved
from ..ir.expr import UserFun, walk

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
    param_names = {p.name for p in program.params}
    for p in program.params:
        why = why_reserved(p.name, builtins=False)
        if why:
            raise LiftCompileError(f"parameter {p.name}: {why}; rename it", program.span)
        if p.name in fun_names:
            raise LiftCompileError(f"parameter {p.name} has the name of a user function the program calls "
                                   f"(the kernel could not call it); rename one", program.span)
    # size variables become int kernel parameters too
    from ..types import type_free_vars
    from ..types.infer import LEN_UID
    for p in program.params:
        for v in (type_free_vars(p.type) if p.type is not None else ()):
            if v.uid == LEN_UID:
                raise LiftCompileError(f"parameter {p.name}: its type uses {v.name}: a parameter's type "
                                       f"gives its sizes with size variables, not with len", program.span)
            why = why_reserved(v.name, builtins=False)
            if why:
                raise LiftCompileError(f"size {v.name} (in the type of {p.name}): {why}; rename it", program.span)
            if v.name in fun_names:
                raise LiftCompileError(f"size {v.name} (in the type of {p.name}) has the name of a user "
                                       f"function the program calls; rename one", program.span)
            if v.name in param_names or v.name == program.name:
                raise LiftCompileError(f"size {v.name} (in the type of {p.name}) has the name of "
                                       f"{'a parameter' if v.name in param_names else 'the program'}; rename one",
                                       program.span)


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
