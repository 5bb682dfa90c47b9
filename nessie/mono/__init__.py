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

Function parameters (higher-order functions, ``function twice(func, x) = func(func(x))``) are
specialised away: a call passes named functions (``FunRef`` nodes) in the function components of
its argument tuple, and gets one copy of the callee per type instance *and* per tuple of
functions passed, named ``twice<int>[inc]``, whose parameter tuple lacks the function
components (an ``_ : int`` when nothing else is left, the call passing ``0``) and whose calls
of a parameter are direct calls of the function it stands for (``inc(x)``; a builtin or a
constructor stays one).  A function parameter passed on (to the function itself, as in
``iter(g, g(x), n - 1)``, or to another higher-order function) is replaced by the function it
stands for, so copies are made recursively, the cache ending recursion.  The result is a
first-order program: the flattener, λcu and OpenCL see nothing new.  Instances of such copies
are keyed ``(name, version, type_args, labels)`` in :attr:`MonoProgram.instances`.  With
``keep_function_args`` (the reference interpreter's input) functions stay arguments: copies
are per type only, a ``FunRef`` to a user function names its instance, and calls of
parameters stay (``kind == "param"``), to be evaluated as calls of the function value.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

from nessie.diagnostics import InternalError
from nessie.types import typed_ast as T
from nessie.types.printer import print_typed
from nessie.types.types import (INT, Scheme, TData, TFun, TPair, TSeq, TVar, Type, TBase,
                                default_vars, free_vars, grounding, type_to_str)

__all__ = ["monomorphise", "MonoProgram", "Monomorphiser", "print_mono", "check_mono",
           "instance_name", "function_paths"]


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


def function_paths(t: Type, path: tuple = ()) -> list:
    """Paths (0 = fst, 1 = snd) to the function components of an argument tuple type."""
    if isinstance(t, TFun):
        return [path]
    if isinstance(t, TPair):
        return function_paths(t.fst, path + (0,)) + function_paths(t.snd, path + (1,))
    return []


def _at(node, path: tuple):
    """The component of a tuple expression / pattern (``Pair`` / ``PPair`` spine) at ``path``."""
    for step in path:
        node = node.fst if step == 0 else node.snd
    return node


def _strip(node, paths: list, empty):
    """``node`` (an argument tuple or a parameter pattern) without its components at ``paths``,
    or ``empty`` when nothing is left."""
    def go(n, ps):
        if () in ps:
            return None
        if not ps:
            return n
        a = go(n.fst, [p[1:] for p in ps if p[0] == 0])
        b = go(n.snd, [p[1:] for p in ps if p[0] == 1])
        if a is None or b is None:
            return b if a is None else a
        return replace(n, fst=a, snd=b, type=TPair(a.type, b.type))
    out = go(node, paths)
    return empty if out is None else out


@dataclass(frozen=True)
class _Target:
    """What a function parameter stands for in a copy: a function named at a call site."""
    kind: str                     # T.USER, T.BUILTIN or T.CONSTRUCTOR
    name: str                     # its source name
    fd: object = field(default=None, compare=False)
    version: int = 0
    defs: object = field(default=None, compare=False)   # user: definitions seen where named

    def key(self):
        return (self.kind, id(self.fd) if self.fd is not None else self.name)

    def label(self) -> str:
        if self.kind == T.USER:
            return instance_name(self.name, self.version, ())
        return _OPERATOR_WORDS.get(self.name, self.name)


#: builtins named by operators, spelled in the names of copies (``qsort_by<int>[lt]``): the
#: flattener keeps only letters, digits and ``_`` of a name
_OPERATOR_WORDS = {"+": "plus", "-": "minus", "*": "times", "/": "div", "^": "power",
                   "==": "eq", "/=": "ne", "<": "lt", ">": "gt", "<=": "le", ">=": "ge",
                   "#": "length", "->": "read", "<-": "write", "++": "append", "@": "string",
                   "||": "pad"}


def _plain(name: str) -> str:
    """A name as the flattener spells it (letters, digits and ``_``)."""
    return "".join(c if c.isalnum() or c == "_" else "_" for c in name)


def instance_name(name: str, version: int, type_args: tuple) -> str:
    base = name if version <= 1 else f"{name}~{version}"
    if not type_args:
        return base
    return base + "<" + ", ".join(type_to_str(t, True) for t in type_args) + ">"


class _Mono:
    def __init__(self, keep_function_args: bool = False):
        #: False: specialise function parameters away (the default); True: keep them
        self.keep_function_args = keep_function_args
        self.defs: dict = {}        # name -> (FunDef, version)
        self.versions: dict = {}    # name -> number of definitions seen
        self.cache: dict = {}       # (id(fundef), type_args) -> instance name
        self.names: dict = {}       # (orig, version, type_args) -> instance name
        self.plain: set = set()     # _plain of every instance name (copies' names are unique)
        self.out: list = []

    def define(self, fd: T.FunDef):
        v = self.versions.get(fd.name, 0) + 1
        self.versions[fd.name] = v
        self.defs[fd.name] = (fd, v)

    def instance(self, fd: T.FunDef, version: int, ground: TFun, defs: dict,
                 targets: tuple = ()) -> str:
        """The instance of ``fd`` at ``ground``; ``targets``: the functions passed for its
        function parameters (in order), when they are specialised away."""
        s: dict = {}
        _match(fd.scheme.type, ground, s)
        type_args = tuple(default_vars(s.get(v, INT)) for v in fd.scheme.vars)
        paths = function_paths(fd.scheme.type.arg)
        spec = bool(paths) and not self.keep_function_args
        if spec and len(targets) != len(paths):
            raise InternalError(f"{fd.name} takes {len(paths)} function(s), "
                                f"{len(targets)} passed", fd.span)
        key = (id(fd), type_args) + ((tuple(t.key() for t in targets),) if spec else ())
        if key in self.cache:
            return self.cache[key]
        name = instance_name(fd.name, version, type_args)
        labels = tuple(t.label() for t in targets)
        if spec:
            name += "[" + ", ".join(labels) + "]"
            k, base = 1, name
            while _plain(name) in self.plain:     # e.g. a user function named lt and `<`
                k += 1
                name = f"{base}~{k}"
        self.plain.add(_plain(name))
        self.cache[key] = name
        self.names[(fd.name, version, type_args) + ((labels,) if spec else ())] = name
        sub = dict(zip(fd.scheme.vars, type_args))

        ground_type = grounding(sub)      # = default_vars(subst_type(t, sub)), memoised
        param = T.map_types(fd.param, ground_type)
        body = T.map_types(fd.body, ground_type)
        fenv: dict = {}
        if spec:
            for path, target in zip(paths, targets):
                p = _at(param, path)
                if isinstance(p, T.PVar):
                    fenv[p.name] = target
            param = _strip(param, paths, T.PWild(INT, span=fd.param.span))
        body = self.rewrite(body, defs, fenv)
        ft = ground_type(fd.fun_type)
        if spec:
            ft = TFun(param.type, ft.result)
        self.out.append(replace(fd, name=name, param=param, body=body, fun_type=ft,
                                scheme=Scheme((), (), ft), orig_name=fd.name,
                                type_args=type_args))
        return name

    def rewrite(self, node, defs: dict, fenv: dict = None):
        """Calls of user functions name their instances; ``fenv``: what the function
        parameters of the copy being made stand for (when specialising)."""
        fenv = fenv or {}

        def target(ref):
            """The function a ``FunRef`` in a function slot names."""
            if ref.kind == T.PARAM:
                if ref.name not in fenv:
                    raise InternalError(f"function parameter {ref.name} is not bound", ref.span)
                return fenv[ref.name]
            if ref.kind == T.USER:
                if ref.name not in defs:
                    raise InternalError(f"unknown user function {ref.name}", ref.span)
                fd, version = defs[ref.name]
                return _Target(T.USER, ref.name, fd, version, defs)
            return _Target(ref.kind, ref.name)

        def user_call(n, fd, version, cdefs):
            paths = function_paths(fd.scheme.type.arg)
            if not paths or self.keep_function_args:
                inst = self.instance(fd, version, n.fun_type, cdefs)
                return replace(n, kind=T.USER, name=inst, orig_name=fd.name)
            targets = tuple(target(_at(n.arg, p)) for p in paths)
            inst = self.instance(fd, version, n.fun_type, cdefs, targets)
            arg = _strip(n.arg, paths, T.Lit(0, INT, span=n.span))
            return replace(n, kind=T.USER, name=inst, orig_name=fd.name, arg=arg,
                           fun_type=TFun(arg.type, n.type))

        def f(n):
            if isinstance(n, T.Call) and n.kind == T.USER:
                if n.name not in defs:
                    raise InternalError(f"call of unknown user function {n.name}", n.span)
                fd, version = defs[n.name]
                return user_call(n, fd, version, defs)
            if isinstance(n, T.Call) and n.kind == T.PARAM and not self.keep_function_args:
                t = target(T.FunRef(n.name, T.PARAM, n.fun_type, span=n.span))
                if t.kind == T.USER:
                    return user_call(n, t.fd, t.version, t.defs)
                return replace(n, kind=t.kind, name=t.name)
            if isinstance(n, T.FunRef) and n.kind == T.USER and self.keep_function_args:
                fd, version = defs[n.name]
                inst = self.instance(fd, version, n.type, defs)
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
        if function_paths(fd.scheme.type.arg) and not self.keep_function_args:
            raise TypeError(f"{name} takes a function as an argument: it can only be called "
                            f"from NESL, where the function passed is named")
        return self.instance(fd, v, fun_type, dict(self.defs))

    def _add(self, it):
        if isinstance(it, T.FunDef):
            self.define(it)
            if not it.scheme.vars and (self.keep_function_args
                                       or not function_paths(it.scheme.type.arg)):
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


def monomorphise(typed, extra_instances=(), keep_function_args: bool = False) -> MonoProgram:
    """One copy of each user function per ground instance reached, and per tuple of functions
    passed to its function parameters unless ``keep_function_args`` (see module docstring)."""
    items = typed.items if hasattr(typed, "items") else tuple(typed)
    prog = _Mono(keep_function_args).run(items, tuple(extra_instances))
    check_mono(prog, first_order=not keep_function_args)
    return prog


def check_mono(prog: MonoProgram, first_order: bool = True) -> None:
    """Raise InternalError if a type variable survived or a user call names no instance (and,
    ``first_order``, if a function parameter or a function passed as an argument is left)."""
    names = {it.name for it in prog.items if isinstance(it, T.FunDef)}
    for it in prog.items:
        if isinstance(it, T.DataDef):
            continue
        for n in T.iter_nodes(it):
            if first_order and (isinstance(n, T.FunRef) or (isinstance(n, T.Call)
                                                            and n.kind == T.PARAM)):
                raise InternalError(f"function argument {n.name} left after "
                                    f"monomorphisation", getattr(n, "span", None))
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
