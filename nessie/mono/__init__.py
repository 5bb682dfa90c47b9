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

Redefinition (late binding, as the original's ``check-and-compile`` in src/defop.lisp): each
definition of a name either *replaces* the binding in force -- when every use of the old
definition is a use of the new one (:func:`nessie.types.types.replaces`: the same type up to
its variables' names, a context no stricter, and no datatype of the type defined again at
another type in between) -- or starts a binding of its own (the redefinitions the original
announces with ``Old calls will not be modified.``).  A function's body names the bindings in
force where it is defined (itself included: recursion); a top-level item runs with the
definitions in force when it comes, so an instance's calls name the instances of the latest
definition of each binding at that point.  ``function g(x) = x + 1; function gg(x) = g(x) *
10; gg(1); function g(x) = x + 100; gg(1);`` gives 20 then 1010: the second ``gg(1)`` calls
``gg@2``, a copy of ``gg`` calling ``g~2``.  Instances are shared across items unless the
definitions they reach differ (``_resolution``); a copy made again gets ``@2``, ``@3``...
Since a replacement keeps the type, every instance stays well typed; since a function that
starts a new binding is never reached from earlier definitions, they keep the old one.

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
                                datatype_names, default_vars, free_vars, grounding, replaces,
                                subst_type, type_to_str)

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


def _rename_type(t: Type, ren: dict) -> Type:
    if isinstance(t, TData):
        return TData(ren.get(t.name, t.name), tuple(_rename_type(a, ren) for a in t.args))
    if isinstance(t, TSeq):
        return TSeq(_rename_type(t.elem, ren))
    if isinstance(t, TPair):
        return TPair(_rename_type(t.fst, ren), _rename_type(t.snd, ren))
    if isinstance(t, TFun):
        return TFun(_rename_type(t.arg, ren), _rename_type(t.result, ren))
    return t


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
        self.defs: dict = {}        # name -> (FunDef, version): its latest definition
        self.versions: dict = {}    # name -> number of definitions seen
        #: name -> the binding a call of that name made now refers to (an index of members)
        self.binding: dict = {}
        #: binding -> its definitions [(FunDef, version)], the one in force last
        self.members: list = []
        #: binding -> {datatype: its definitions' count} for the datatypes its type mentions
        self.bound_data: list = []
        #: datatype name -> number of its redefinitions at another type; its shape
        self.data_defs: dict = {}
        self.data_shapes: dict = {}
        #: id(FunDef) -> {name: binding} for the user functions its body names
        self.scopes: dict = {}
        #: (id(FunDef), type_args[, functions passed]) -> copies made of it, for the
        #: definitions in force at different times
        self.copies: dict = {}
        self.reach_memo: dict = {}  # id(FunDef) -> its resolution key (see _resolution)
        #: datatype source name -> its internal name, for those defined again at another type
        #: (``pt~2``); per function definition, the names in force where it was defined
        self.data_names: dict = {}
        self.fd_data_names: dict = {}
        self.cache: dict = {}       # (id(fundef), type_args, ...) -> instance name
        self.names: dict = {}       # (orig, version, type_args) -> instance name
        self.plain: set = set()     # _plain of every instance name (copies' names are unique)
        self.out: list = []

    # ------------------------------------------------------------------ bindings
    def define(self, fd: T.FunDef):
        """A definition of ``fd.name``: it replaces the binding in force (for the functions
        already defined that call it) when its type allows (:func:`replaces`, the datatypes
        of the type not defined again since), else it starts a binding of its own."""
        v = self.versions.get(fd.name, 0) + 1
        self.versions[fd.name] = v
        b = self.binding.get(fd.name)
        if b is not None:
            old = self.members[b][-1][0]
            same_data = all(self.data_defs.get(d, 0) == n
                            for d, n in self.bound_data[b].items())
            if replaces(old.scheme, fd.scheme) and same_data:
                self.members[b].append((fd, v))
                self.reach_memo.clear()       # callers may now reach other functions
            else:
                b = None
        if b is None:
            b = len(self.members)
            self.members.append([(fd, v)])
            self.bound_data.append({d: self.data_defs.get(d, 0)
                                    for d in datatype_names(fd.scheme.type)})
            self.binding[fd.name] = b
        self.defs[fd.name] = (fd, v)
        called = {n.name for n in T.iter_nodes(fd.body)
                  if isinstance(n, (T.Call, T.FunRef)) and n.kind == T.USER}
        self.scopes[id(fd)] = {n: self.binding[n] for n in called if n in self.binding}

    def define_datatype(self, dd: T.DataDef):
        """A definition of datatype ``dd.name``: when at another type than the one in force
        (as ``nessie.types.infer`` compares them), a function whose type mentions it cannot
        replace one defined before."""
        norm = {p.id: TVar(-1 - k) for k, p in enumerate(dd.params)}
        shape = (subst_type(dd.arg_type, norm), tuple(dd.scheme.classes))
        if self.data_shapes.get(dd.name, shape) != shape:
            self.data_defs[dd.name] = self.data_defs.get(dd.name, 0) + 1
        self.data_shapes[dd.name] = shape
        self.binding.pop(dd.name, None)   # a function defined later starts a binding

    def resolve(self, scope: dict, name: str, span=None) -> tuple:
        """The definition ``(FunDef, version)`` in force now of the function ``name`` seen
        from ``scope`` (a function's or the top level's)."""
        b = scope.get(name)
        if b is None:
            raise InternalError(f"call of unknown user function {name}", span)
        return self.members[b][-1]

    def _resolution(self, fd: T.FunDef) -> tuple:
        """What an instance of ``fd`` made now depends on beyond ``fd``: which definition of
        each replaced binding it reaches (through the calls of the definitions in force).
        Instances made at different times are shared unless this differs."""
        key = id(fd)
        got = self.reach_memo.get(key)
        if got is not None:
            return got
        seen: set = set()
        done: set = set()
        todo = [fd]
        while todo:
            f = todo.pop()
            if id(f) in done:
                continue
            done.add(id(f))
            for b in self.scopes[id(f)].values():
                if b not in seen:
                    seen.add(b)
                    todo.append(self.members[b][-1][0])
        got = tuple(sorted((b, len(self.members[b])) for b in seen if len(self.members[b]) > 1))
        self.reach_memo[key] = got
        return got

    def snapshot(self) -> tuple:
        """The state, for :meth:`restore` (the REPL forgets an item that failed)."""
        return (dict(self.defs), dict(self.versions), dict(self.binding),
                [list(m) for m in self.members], list(self.bound_data), dict(self.data_defs),
                dict(self.data_shapes),
                dict(self.scopes), dict(self.copies), dict(self.cache), dict(self.names),
                set(self.plain), len(self.out), dict(self.data_names), dict(self.fd_data_names))

    def restore(self, snap: tuple) -> None:
        (self.defs, self.versions, self.binding, self.members, self.bound_data,
         self.data_defs, self.data_shapes, self.scopes, self.copies, self.cache, self.names,
         self.plain, n, self.data_names, self.fd_data_names) = snap
        self.reach_memo = {}
        del self.out[n:]

    # ------------------------------------------------------------------ instances
    def instance(self, fd: T.FunDef, version: int, ground: TFun, targets: tuple = ()) -> str:
        """The instance of ``fd`` at ``ground``, its calls naming the definitions in force
        now; ``targets``: the functions passed for its function parameters (in order), when
        they are specialised away."""
        s: dict = {}
        _match(fd.scheme.type, ground, s)
        type_args = tuple(default_vars(s.get(v, INT)) for v in fd.scheme.vars)
        paths = function_paths(fd.scheme.type.arg)
        spec = bool(paths) and not self.keep_function_args
        if spec and len(targets) != len(paths):
            raise InternalError(f"{fd.name} takes {len(paths)} function(s), "
                                f"{len(targets)} passed", fd.span)
        resolution = (self._resolution(fd),) + tuple(
            self._resolution(t.fd) for t in targets if t.kind == T.USER)
        same = (id(fd), type_args) + ((tuple(t.key() for t in targets),) if spec else ())
        key = same + (resolution,)
        if key in self.cache:
            return self.cache[key]
        name = instance_name(fd.name, version, type_args)
        labels = tuple(t.label() for t in targets)
        if spec:
            name += "[" + ", ".join(labels) + "]"
        names_key = (fd.name, version, type_args) + ((labels,) if spec else ())
        copy = self.copies.get(same, 0) + 1
        self.copies[same] = copy
        if copy > 1:              # made again, for the definitions in force now
            name += f"@{copy}"
        if spec or copy > 1:
            k, base = 1, name
            while _plain(name) in self.plain:     # e.g. a user function named lt and `<`
                k += 1
                name = f"{base}~{k}"
        self.plain.add(_plain(name))
        self.cache[key] = name
        self.names[names_key] = name
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
        body = self.rewrite(body, self.scopes[id(fd)], fenv)
        ft = ground_type(fd.fun_type)
        if spec:
            ft = TFun(param.type, ft.result)
        self.out.append(replace(fd, name=name, param=param, body=body, fun_type=ft,
                                scheme=Scheme((), (), ft), orig_name=fd.name,
                                type_args=type_args))
        return name

    def rewrite(self, node, scope: dict, fenv: dict = None):
        """Calls of user functions name their instances (of the definitions in force now of
        the bindings ``scope`` maps their names to); ``fenv``: what the function parameters
        of the copy being made stand for (when specialising)."""
        fenv = fenv or {}

        def target(ref):
            """The function a ``FunRef`` in a function slot names."""
            if ref.kind == T.PARAM:
                if ref.name not in fenv:
                    raise InternalError(f"function parameter {ref.name} is not bound", ref.span)
                return fenv[ref.name]
            if ref.kind == T.USER:
                fd, version = self.resolve(scope, ref.name, ref.span)
                return _Target(T.USER, ref.name, fd, version)
            return _Target(ref.kind, ref.name)

        def user_call(n, fd, version):
            paths = function_paths(fd.scheme.type.arg)
            if not paths or self.keep_function_args:
                inst = self.instance(fd, version, n.fun_type)
                return replace(n, kind=T.USER, name=inst, orig_name=fd.name)
            targets = tuple(target(_at(n.arg, p)) for p in paths)
            inst = self.instance(fd, version, n.fun_type, targets)
            arg = _strip(n.arg, paths, T.Lit(0, INT, span=n.span))
            return replace(n, kind=T.USER, name=inst, orig_name=fd.name, arg=arg,
                           fun_type=TFun(arg.type, n.type))

        def f(n):
            if isinstance(n, T.Call) and n.kind == T.USER:
                fd, version = self.resolve(scope, n.name, n.span)
                return user_call(n, fd, version)
            if isinstance(n, T.Call) and n.kind == T.PARAM and not self.keep_function_args:
                t = target(T.FunRef(n.name, T.PARAM, n.fun_type, span=n.span))
                if t.kind == T.USER:
                    return user_call(n, t.fd, t.version)
                return replace(n, kind=t.kind, name=t.name)
            if isinstance(n, T.FunRef) and n.kind == T.USER and self.keep_function_args:
                fd, version = self.resolve(scope, n.name, n.span)
                inst = self.instance(fd, version, n.type)
                return replace(n, name=inst, orig_name=n.name)
            return n
        return T.map_nodes(node, f)

    def add(self, it) -> list:
        """Monomorphise one more typed item; returns the new monomorphic items it produced."""
        start = len(self.out)
        self._add(it)
        return self.out[start:]

    def renamed_type(self, name: str, t: Type) -> Type:
        """Type ``t``, written with the datatype names of the source where user function
        ``name`` was defined, with the internal names of datatypes defined again at another
        type (what its instances' types say)."""
        fd = self.defs.get(name, (None,))[0]
        ren = self.fd_data_names.get(id(fd), {}) if fd is not None else {}
        return _rename_type(t, ren) if ren else t

    def instantiate(self, name: str, fun_type: TFun, internal: bool = False) -> str:
        """Request the instance of user function ``name`` at ground ``fun_type``, which names
        datatypes as the source does where ``name`` was defined, or with ``internal`` by the
        internal names (``pt~2``, what :meth:`renamed_type` gives)."""
        if name not in self.defs:
            raise InternalError(f"no function {name} to instantiate")
        fd, v = self.defs[name]
        if function_paths(fd.scheme.type.arg) and not self.keep_function_args:
            raise TypeError(f"{name} takes a function as an argument: it can only be called "
                            f"from NESL, where the function passed is named")
        # the caller names datatypes as the source does: those in force where fd was defined
        ren = {} if internal else self.fd_data_names.get(id(fd), {})
        return self.instance(fd, v, _rename_type(fun_type, ren) if ren else fun_type)

    def _rename_data(self, node, ren: dict):
        """``node`` with the datatypes ``ren`` maps (source name -> internal name) renamed in
        its types, schemes, constructor calls and patterns."""
        if not ren:
            return node
        ty = lambda t: _rename_type(t, ren)      # noqa: E731

        def f(n):
            if isinstance(n, (T.Call, T.FunRef)) and n.kind == T.CONSTRUCTOR and n.name in ren:
                return replace(n, name=ren[n.name])
            if isinstance(n, T.PCon) and n.name in ren:
                return replace(n, name=ren[n.name])
            return n
        out = T.map_nodes(T.map_types(node, ty), f)
        if isinstance(out, (T.FunDef, T.DataDef)):
            sch = out.scheme
            out = replace(out, scheme=Scheme(sch.vars, sch.classes, ty(sch.type)))
        if isinstance(out, T.DataDef):
            out = replace(out, name=ren.get(out.name, out.name), arg_type=ty(out.arg_type))
        return out

    def _add(self, it):
        # a datatype defined again at another type is another datatype: from here on its
        # name stands for an internal one (``pt~2``, printed ``pt``), so that values and
        # functions of the earlier definition keep theirs (the type checker keeps them apart)
        if isinstance(it, T.DataDef):
            n_before = self.data_defs.get(it.name, 0)
            self.define_datatype(it)
            k = self.data_defs.get(it.name, 0)
            if k != n_before:
                self.data_names[it.name] = f"{it.name}~{k + 1}"
        it = self._rename_data(it, self.data_names)
        if isinstance(it, T.FunDef):
            self.fd_data_names[id(it)] = dict(self.data_names)
            self.define(it)
            if not it.scheme.vars and (self.keep_function_args
                                       or not function_paths(it.scheme.type.arg)):
                self.instance(it, self.defs[it.name][1], it.fun_type)
        elif isinstance(it, T.ValBind):
            ground = grounding()
            pat = T.map_types(it.pattern, ground)
            exp = self.rewrite(T.map_types(it.exp, ground), self.binding)
            self.out.append(replace(it, pattern=pat, exp=exp))
        elif isinstance(it, T.ExpItem):
            exp = self.rewrite(T.map_types(it.exp, grounding()), self.binding)
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
