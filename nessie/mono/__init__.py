"""Monomorphisation of a typed NESL program.

Public API::

    monomorphise(typed_program, extra_instances=()) -> MonoProgram
    print_mono(mono_program) -> str          # --emit mono
    check_mono(mono_program) -> None         # raises InternalError if a type variable is left

Algorithm: items are processed in file order, keeping the function definitions visible at each
point.  Roots are the top-level value bindings and expressions, plus every monomorphic user
function (so the Python API can call it) and ``extra_instances`` (``(name, TFun)`` pairs).  For
each call of a user function at a ground instance type, the function's scheme is matched against
that type; the body is copied with the scheme variables substituted (remaining, unconstrained
variables -- e.g. of an untyped ``[]`` -- default to ``int``) and its own calls are instantiated
recursively.  Instances are named deterministically ``name<t1, t2>`` after the ground types of
the scheme variables in order (``dotp<int>``, ``fst<int, float>``); monomorphic functions keep
their name; a function redefined later in the file gets ``~2``, ``~3``... suffixes.  ``Call.name``
is the instance name and ``Call.orig_name`` / ``FunDef.orig_name`` the source name.  Each
instance is emitted before its first user (callees before callers).  Builtin calls stay
polymorphic but their ``fun_type`` is ground.  Datatype definitions are kept as they are (their
uses carry ground ``TData`` types).
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

from nessie.diagnostics import InternalError
from nessie.types import typed_ast as T
from nessie.types.printer import print_typed
from nessie.types.types import (INT, Scheme, TData, TFun, TPair, TSeq, TVar, Type, TBase,
                                default_vars, free_vars, grounding, type_to_str)

__all__ = ["monomorphise", "MonoProgram", "Monomorphiser", "print_mono", "check_mono",
           "instance_name"]


@dataclass(frozen=True)
class MonoProgram:
    items: tuple
    #: (orig_name, version, type_args) -> instance name
    instances: dict = field(default_factory=dict, compare=False)

    def function(self, name: str):
        for it in self.items:
            if isinstance(it, T.FunDef) and it.name == name:
                return it
        return None


def _match(pat: Type, ground: Type, s: dict) -> None:
    if isinstance(pat, TVar):
        if pat.id in s:
            return
        s[pat.id] = ground
    elif isinstance(pat, TSeq) and isinstance(ground, TSeq):
        _match(pat.elem, ground.elem, s)
    elif isinstance(pat, (TPair,)) and isinstance(ground, TPair):
        _match(pat.fst, ground.fst, s)
        _match(pat.snd, ground.snd, s)
    elif isinstance(pat, TFun) and isinstance(ground, TFun):
        _match(pat.arg, ground.arg, s)
        _match(pat.result, ground.result, s)
    elif isinstance(pat, TData) and isinstance(ground, TData) and pat.name == ground.name:
        for a, b in zip(pat.args, ground.args):
            _match(a, b, s)
    elif isinstance(pat, TBase) and pat == ground:
        return
    else:
        raise InternalError(f"instance type {type_to_str(ground)} does not match "
                            f"{type_to_str(pat)}")


def instance_name(name: str, version: int, type_args: tuple) -> str:
    base = name if version <= 1 else f"{name}~{version}"
    if not type_args:
        return base
    return base + "<" + ", ".join(type_to_str(t, True) for t in type_args) + ">"


class _Mono:
    def __init__(self):
        self.defs: dict = {}        # name -> (FunDef, version)
        self.versions: dict = {}    # name -> number of definitions seen
        self.cache: dict = {}       # (id(fundef), type_args) -> instance name
        self.names: dict = {}       # (orig, version, type_args) -> instance name
        self.out: list = []

    def define(self, fd: T.FunDef):
        v = self.versions.get(fd.name, 0) + 1
        self.versions[fd.name] = v
        self.defs[fd.name] = (fd, v)

    def instance(self, fd: T.FunDef, version: int, ground: TFun, defs: dict) -> str:
        s: dict = {}
        _match(fd.scheme.type, ground, s)
        type_args = tuple(default_vars(s.get(v, INT)) for v in fd.scheme.vars)
        key = (id(fd), type_args)
        if key in self.cache:
            return self.cache[key]
        name = instance_name(fd.name, version, type_args)
        self.cache[key] = name
        self.names[(fd.name, version, type_args)] = name
        sub = dict(zip(fd.scheme.vars, type_args))

        ground_type = grounding(sub)      # = default_vars(subst_type(t, sub)), memoised
        param = T.map_types(fd.param, ground_type)
        body = T.map_types(fd.body, ground_type)
        body = self.rewrite(body, defs)
        ft = ground_type(fd.fun_type)
        self.out.append(replace(fd, name=name, param=param, body=body, fun_type=ft,
                                scheme=Scheme((), (), ft), orig_name=fd.name,
                                type_args=type_args))
        return name

    def rewrite(self, node, defs: dict):
        def f(n):
            if isinstance(n, T.Call) and n.kind == T.USER:
                if n.name not in defs:
                    raise InternalError(f"call of unknown user function {n.name}", n.span)
                fd, version = defs[n.name]
                inst = self.instance(fd, version, n.fun_type, defs)
                return replace(n, name=inst, orig_name=n.name)
            return n
        return T.map_nodes(node, f)

    def add(self, it) -> list:
        """Monomorphise one more typed item; returns the new monomorphic items it produced."""
        start = len(self.out)
        self._add(it)
        return self.out[start:]

    def instantiate(self, name: str, fun_type: TFun) -> str:
        """Request the instance of user function ``name`` at ground ``fun_type``."""
        if name not in self.defs:
            raise InternalError(f"no function {name} to instantiate")
        fd, v = self.defs[name]
        return self.instance(fd, v, fun_type, dict(self.defs))

    def _add(self, it):
        if isinstance(it, T.FunDef):
            self.define(it)
            if not it.scheme.vars:
                # later definitions must not capture the calls of this one: snapshot defs
                self.instance(it, self.defs[it.name][1], it.fun_type, dict(self.defs))
        elif isinstance(it, T.ValBind):
            defs = dict(self.defs)
            ground = grounding()
            pat = T.map_types(it.pattern, ground)
            exp = self.rewrite(T.map_types(it.exp, ground), defs)
            self.out.append(replace(it, pattern=pat, exp=exp))
        elif isinstance(it, T.ExpItem):
            exp = self.rewrite(T.map_types(it.exp, grounding()), dict(self.defs))
            self.out.append(replace(it, exp=exp))
        else:
            self.out.append(it)

    def run(self, items, extra_instances):
        for it in items:
            self._add(it)
        for name, ft in extra_instances:
            self.instantiate(name, ft)
        return MonoProgram(tuple(self.out), dict(self.names))


#: incremental monomorphiser for the REPL: ``m = Monomorphiser(); m.add(typed_item)`` returns
#: the new monomorphic items (instances first); ``m.instantiate(name, TFun)`` adds an instance.
Monomorphiser = _Mono


def monomorphise(typed, extra_instances=()) -> MonoProgram:
    """One copy of each user function per ground instance reached (see module docstring)."""
    items = typed.items if hasattr(typed, "items") else tuple(typed)
    prog = _Mono().run(items, tuple(extra_instances))
    check_mono(prog)
    return prog


def check_mono(prog: MonoProgram) -> None:
    """Raise InternalError if a type variable survived or a user call names no instance."""
    names = {it.name for it in prog.items if isinstance(it, T.FunDef)}
    for it in prog.items:
        if isinstance(it, T.DataDef):
            continue
        for n in T.iter_nodes(it):
            for attr in ("type", "fun_type"):
                t = getattr(n, attr, None)
                if t is not None and free_vars(t):
                    raise InternalError(f"type variable left after monomorphisation in "
                                        f"{type(n).__name__}: {type_to_str(t)}",
                                        getattr(n, "span", None))
            if isinstance(n, T.Call) and n.kind == T.USER and n.name not in names:
                raise InternalError(f"call of {n.name}, which has no instance", n.span)


def print_mono(prog: MonoProgram) -> str:
    return print_typed(prog)
