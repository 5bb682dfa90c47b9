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
from ..reserved import why_reserved
from ..ir.expr import UserFun, walk
from ..syntax.cflow import userfun_body_problem

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


def _check_name(name: str, what: str, span, builtins: bool = False, clashes=()) -> None:
    """Refuse ``name`` (described as ``what`` in the message) if it is no C identifier or is
    reserved, or if it is in one of the ``clashes``' name sets (each with the words naming what
    it would clash with)."""
    if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z_][A-Za-z_0-9]*", name):
        # a program built through the Python API: the parser reads names only
        raise LiftCompileError(f"{what}: {name!r} is not a name (letters, digits and _, not "
                               f"starting with a digit)", span)
    why = why_reserved(name, builtins=builtins)
    if why:
        raise LiftCompileError(f"{what}: {why}; rename it", span)
    for names, whose in clashes:
        if name in names:
            raise LiftCompileError(f"{what} has the name of {whose}; rename one", span)


def check_user_names(program) -> None:
    """Refuse the user names the generated C cannot keep (see the module documentation)."""
    from ..types import type_free_vars
    from ..types.infer import LEN_UID
    ufs = _userfuns(program.body)
    fun_names = {uf.name for uf in ufs}
    for uf in ufs:
        _check_name(uf.name, f"user function {uf.name}", uf.span or program.span, builtins=True)
        for n in uf.param_names:
            _check_name(n, f"user function {uf.name}: parameter {n}", uf.span or program.span)
        if len(set(uf.param_names)) != len(uf.param_names):
            raise LiftCompileError(f"user function {uf.name}: a parameter name is given twice",
                                   uf.span or program.span)
        # the checks of the parser, for user functions built through the Python API
        problem = userfun_body_problem(uf.name, uf.body) if isinstance(uf.body, str) \
            else f"its body is {type(uf.body).__name__}, not C text"
        if problem:
            raise LiftCompileError(f"user function {uf.name}: {problem}", uf.span or program.span)
    # a kernel named dot is not found by clCreateKernel
    _check_name(program.name, f"program {program.name}", program.span, builtins=True,
                clashes=[(fun_names, "a user function it calls (the kernel and the function would "
                                     "have one C name)")])
    param_names = {p.name for p in program.params}
    for p in program.params:
        _check_name(p.name, f"parameter {p.name}", program.span,
                    clashes=[(fun_names, "a user function the program calls (the kernel could not call it)")])
    # size variables become int kernel parameters too
    for p in program.params:
        for v in (type_free_vars(p.type) if p.type is not None else ()):
            if v.uid == LEN_UID:
                raise LiftCompileError(f"parameter {p.name}: its type uses {v.name}: a parameter's type "
                                       f"gives its sizes with size variables, not with len", program.span)
            _check_name(v.name, f"size {v.name} (in the type of {p.name})", program.span,
                        clashes=[(fun_names, "a user function the program calls"),
                                 (param_names, "a parameter"), ({program.name}, "the program")])


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
    """The user functions of ``node`` and those their C calls (``calls``), each once."""
    found = {id(n): n for n in walk(node) if isinstance(n, UserFun)}
    todo = list(found.values())
    while todo:
        for c in todo.pop().calls:
            if id(c) not in found:
                found[id(c)] = c
                todo.append(c)
    return list(found.values())
