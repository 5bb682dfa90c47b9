"""The host library of the flattening backends: the NESL builtins that are not data-parallel
operations, implemented directly on λcu leaves (numpy vectors, host scalars, segment
descriptors), independently of the reference interpreter — so that a differential test compares
two implementations.

The flattener (``nessie.flatten.builtins.host_call``) compiles a call of such a builtin to a λcu
``Extern`` node, one per call site; ``nessie.driver.make_externs`` supplies the host functions
through :func:`host_externs`.  Each builtin is a function ``fn(args, call) -> result`` where
``args`` are the leaves of one argument value, the result is the list of leaves of one result
value, and ``call`` is the :class:`~nessie.hostlib.runtime.HostCall` of the call site (its run-time
state, NESL types and source location for errors).  A call in a parallel context (``lifted``)
applies the builtin to the instances one after the other, in order, as the reference interpreter
does for one call site.

Modules, one per group of builtins:

* :mod:`.io` — output (``print_string``, ``write_string``, ``print_char``, ``print_line``,
  ``print``), ``error`` with a computed message, files (``read_string_from_file``,
  ``read_int_seq_from_file``, ``read_float_seq_from_file``, ``write_string_to_file``);
* :mod:`.strings` — printed forms and number syntax (``@``, ``exp_string``, ``parse_int``,
  ``parse_float``);
* :mod:`.hashing` — ``hash``;
* :mod:`.library` — more of the original's library: ``next_char``, ``read_string``, ``prompt``
  (``bounding_box`` and the library's variables are compiled by the flattener).

The random generator (``rand``, ``rand_seed``) has its own module, ``nessie.glibc_random``, whose
externs ``make_externs`` adds itself.  **Adding host builtins**: write a module (here or anywhere)
that registers functions with :func:`host_builtin`, and list it in ``_MODULES`` below (or import
it before :func:`host_externs` runs); the flattener sends every builtin without a data-parallel
form to the host, so nothing else is needed.
"""
from __future__ import annotations

from typing import Callable

from .runtime import HostCall, HostRuntime, Output

HostFn = Callable[[list, HostCall], list]

#: builtin name -> host implementation
HOST_BUILTINS: dict[str, HostFn] = {}

#: the modules that register host builtins (imported on first use of the registry)
_MODULES = ("io", "strings", "hashing", "library")


def host_builtin(*names: str) -> Callable[[HostFn], HostFn]:
    """Register ``fn`` as the host implementation of the builtins ``names``."""
    def register(fn: HostFn) -> HostFn:
        for name in names:
            if name in HOST_BUILTINS and HOST_BUILTINS[name] is not fn:
                raise ValueError(f"host builtin {name} defined twice")
            HOST_BUILTINS[name] = fn
        return fn
    return register


def _load() -> None:
    import importlib
    for m in _MODULES:
        importlib.import_module(f"{__name__}.{m}")


def host_names() -> frozenset:
    """The builtins the host library implements."""
    _load()
    return frozenset(HOST_BUILTINS)


def _pack(leaves: list):
    return leaves[0] if len(leaves) == 1 else tuple(leaves)


def make_extern(fn: HostFn, call: HostCall, lifted: bool):
    """The host function of one ``Extern``: unlifted it takes the argument's leaves; lifted, the
    context size and the sequence representation of the instances' arguments."""
    from .leaves import split_instances, stack_instances
    if not lifted:
        def run(*leaves):
            return _pack(fn(list(leaves), call))
    else:
        def run(n, *leaves):
            outs = [fn(v, call) for v in split_instances(call.tm, call.arg_type, list(leaves))]
            if len(outs) != int(n):
                raise AssertionError(f"{len(outs)} instances in a context of {int(n)}")
            return _pack(stack_instances(call.tm, call.res_type, outs))
    return run


def host_externs(flat, rt: HostRuntime) -> dict:
    """The host functions of the ``Extern`` nodes of a flattened program whose builtin the host
    library implements (extern name -> function); the others are left out."""
    _load()
    locs = getattr(flat, "extern_locs", None) or {}
    out = {}
    for ename, (name, fun_type, lifted) in (flat.externs or {}).items():
        fn = HOST_BUILTINS.get(name)
        if fn is not None:
            call = HostCall(rt, fun_type.arg, fun_type.result, flat.typemap, locs.get(ename))
            out[ename] = make_extern(fn, call, lifted)
    return out


__all__ = ["HOST_BUILTINS", "HostCall", "HostRuntime", "Output", "host_builtin", "host_externs",
           "host_names", "make_extern"]
