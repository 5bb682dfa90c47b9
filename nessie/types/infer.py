"""Hindley-Milner type inference for NESL with type classes.

Design:

* Each top-level item is checked by a fresh :class:`Inferencer` (a substitution ``subst`` on
  variable ids plus a class per unbound variable).  Unification checks class membership:
  ``number = {int, float}``, ``ordinal = {int, float, char}``, ``logical = {int, bool}``;
  two constrained variables meet (``number`` with ``logical`` forces ``int``).
* Let-polymorphism at top-level functions only: after its body is checked a function's type is
  generalised over all its variables (top-level values are always ground, so nothing in the
  environment is free).  Local ``let``\\ s and generator variables are monomorphic.
* A function sees the functions defined before it and itself (recursion); without a signature the
  recursive uses are monomorphic, with one they instantiate the declared scheme.
* Declared signatures are checked in "checking mode": the declared variables become *rigid*
  (skolem) variables before the body is inferred, so a body that is more general than declared is
  specialised, while a declared type more general than the body allows (a rigid variable being
  bound, or its class being too large) is an error at the offending sub-expression.
* Errors are :class:`~nessie.diagnostics.CompileError`\\ s raised at the offending node; the
  driver (:func:`check_item`) reports them and continues with the next item.  Names whose
  definition failed are *poisoned*: using them later aborts that item silently, so one mistake
  is reported once.
* The result is a separate typed tree (:mod:`nessie.types.typed_ast`); types are fully resolved
  ("zonked") at the end of each item.  Remaining free variables of top-level values default to
  ``int`` (which belongs to every class).
* Function parameters (as in the original: ``function twice(func, x) = func(func(x))``): a
  parameter of the function being defined that is called (and not shadowed by a ``let`` or a
  generator, nor named like a function, which the call would mean) gets a function type
  ``a -> b``, monomorphic within the body; the name of a function (user, builtin, constructor,
  or a function parameter passed on) may be passed where the callee's parameter has a function
  type (:class:`~nessie.types.typed_ast.FunRef`).  Functions stay first-order values-wise:
  after an item is inferred, :meth:`Inferencer.check_function_uses` rejects, at the offending
  place, every other use of a function (stored in a sequence or a tuple, chosen by ``if``,
  returned, passed where no function is expected, a type variable standing for a function).
  Monomorphisation then specialises the higher-order functions away (:mod:`nessie.mono`).
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

from nessie.diagnostics import CompileError
from nessie.syntax import ast as A
from nessie.types import typed_ast as T
from nessie.types.builtins import BINARY_OPERATORS, BUILTIN_SCHEMES, CONSTANT_TYPES, \
    PREFIX_OPERATORS
from nessie.types.convert import check_context, resolve_type_expr
from nessie.types.types import (BOOL, CHAR, FLOAT, INT, STRING, Namer, Scheme, TBase, TData,
                                TFun, TPair, TSeq, TVar, Type, class_meet, class_subset,
                                datatype_names, default_vars, free_vars, in_class, subst_type, type_to_str)

#: the id of the first type variable of a program: the ids below are the builtin schemes'
#: (``nessie.types.convert`` numbers those from 0)
FIRST_VAR_ID = 1000


class _Poisoned(Exception):
    """Raised when an item uses a name whose own definition failed (reported already)."""


# --------------------------------------------------------------------------- environment
@dataclass(frozen=True)
class FunInfo:
    name: str
    kind: str          # T.USER or T.CONSTRUCTOR
    scheme: Scheme


@dataclass(frozen=True)
class DataInfo:
    name: str
    params: tuple      # TVar ids
    arg_type: Type
    scheme: Scheme


@dataclass(frozen=True)
class TypeEnv:
    """The persistent top-level environment (treat as immutable; ``with_*`` copy)."""
    functions: dict = field(default_factory=dict)   # name -> FunInfo
    globals: dict = field(default_factory=dict)     # name -> ground Type
    datatypes: dict = field(default_factory=dict)   # name -> DataInfo
    poisoned: frozenset = frozenset()
    #: globals and functions whose types mention a datatype that was redefined at another type
    #: since they were bound -> why they cannot be used (their values follow the old definition)
    stale: dict = field(default_factory=dict)
    options: dict = field(default_factory=dict)     # set options: name -> args
    global_users: dict = field(default_factory=dict)  # global name -> functions reading it
    #: the id of the next item's first type variable: the supply of type-variable ids is a
    #: value of the environment (each item's ids follow the items' before it, as checking the
    #: same program again gives the same ids), not a process-wide counter (issue 13)
    next_var: int = FIRST_VAR_ID

    def with_function(self, info: FunInfo) -> "TypeEnv":
        return replace(self, functions={**self.functions, info.name: info},
                       poisoned=self.poisoned - {info.name},
                       stale={k: v for k, v in self.stale.items() if k != info.name})

    def with_globals(self, binds: dict) -> "TypeEnv":
        return replace(self, globals={**self.globals, **binds},
                       poisoned=self.poisoned - set(binds),
                       stale={k: v for k, v in self.stale.items() if k not in binds})

    def with_datatype(self, info: DataInfo) -> "TypeEnv":
        return replace(self, datatypes={**self.datatypes, info.name: info})

    def with_poisoned(self, names) -> "TypeEnv":
        funcs = {k: v for k, v in self.functions.items() if k not in names}
        globs = {k: v for k, v in self.globals.items() if k not in names}
        return replace(self, functions=funcs, globals=globs,
                       poisoned=self.poisoned | frozenset(names))

    def with_next_var(self, next_var: int) -> "TypeEnv":
        return replace(self, next_var=next_var)

    def with_option(self, name, args) -> "TypeEnv":
        return replace(self, options={**self.options, name: args})

    def lookup_function(self, name: str):
        """(kind, scheme) for a callable name, user definitions shadowing builtins."""
        if name in self.functions:
            info = self.functions[name]
            return info.kind, info.scheme
        if name in BUILTIN_SCHEMES:
            return T.BUILTIN, BUILTIN_SCHEMES[name]
        return None


class _UnifyError(Exception):
    pass


def has_function(t: Type) -> bool:
    """Does the (zonked) type ``t`` contain a function type?"""
    if isinstance(t, TFun):
        return True
    if isinstance(t, TSeq):
        return has_function(t.elem)
    if isinstance(t, TPair):
        return has_function(t.fst) or has_function(t.snd)
    if isinstance(t, TData):
        return any(has_function(a) for a in t.args)
    return False


FIRST_ORDER = ("NESL functions are first-order: a function is called, or passed by name as the "
               "argument of a function parameter")


# --------------------------------------------------------------------------- inference
class Inferencer:
    def __init__(self, env: TypeEnv):
        self.env = env
        self.subst: dict = {}
        self.cls: dict = {}        # unbound var id -> class name
        self.rigid: dict = {}      # rigid var id -> declared name
        self.fparams: dict = {}    # parameter name -> the type its binding has in the scope
        self.instances: list = []  # (var ids, span, name) of every instantiated scheme
        self.next_id = env.next_var  # this item's supply of type-variable ids

    # ---- variables
    def fresh_id(self) -> int:
        n = self.next_id
        self.next_id += 1
        return n

    def fresh(self, cls: str = "any") -> TVar:
        v = TVar(self.fresh_id())
        self.cls[v.id] = cls
        return v

    def instantiate(self, s: Scheme, span=None, name: str = "") -> Type:
        m = {v: self.fresh(c) for v, c in zip(s.vars, s.classes)}
        if m:
            self.instances.append((tuple(x.id for x in m.values()), span, name))
        for v, _ in s.letters:         # function parameters' binding variables: fresh too
            m[v] = self.fresh()
        return subst_type(s.type, m)

    def resolve(self, t: Type) -> Type:
        while isinstance(t, TVar) and t.id in self.subst:
            t = self.subst[t.id]
        return t

    def zonk(self, t: Type) -> Type:
        t = self.resolve(t)
        if isinstance(t, (TBase, TVar)):
            return t
        if isinstance(t, TSeq):
            return TSeq(self.zonk(t.elem))
        if isinstance(t, TPair):
            return TPair(self.zonk(t.fst), self.zonk(t.snd))
        if isinstance(t, TFun):
            b = self.zonk(t.binding) if t.binding is not None else None
            return TFun(self.zonk(t.arg), self.zonk(t.result), b if isinstance(b, TVar) else None)
        if isinstance(t, TData):
            return TData(t.name, tuple(self.zonk(a) for a in t.args))
        raise TypeError(t)

    def class_of(self, v: int) -> str:
        return self.cls.get(v, "any")

    # ---- printing in messages
    def show(self, t: Type, namer: Namer, expected_side: bool = False) -> str:
        t = self.zonk(t)
        if isinstance(t, TVar) and expected_side and t.id not in self.rigid:
            c = self.class_of(t.id)
            if c != "any":
                return c
        return type_to_str(t, True, namer)

    def namer(self) -> Namer:
        return Namer(dict(self.rigid))

    # ---- unification
    def unify(self, expected: Type, got: Type, span) -> None:
        try:
            self._unify(expected, got)
        except _UnifyError as e:
            namer = self.namer()
            exp_s = self.show(expected, namer, True)
            got_s = self.show(got, namer)
            note = e.args[0] if e.args else ""
            if note and " is not a" in note and note.split()[-1] == exp_s:
                note = ""       # "expected number but got bool" says it already
            extra = f" ({note})" if note else ""
            if isinstance(self.zonk(expected), TFun) and not isinstance(self.zonk(got), TFun):
                raise CompileError(span, f"type mismatch: expected a function of type {exp_s} "
                                         f"(the name of a function) but got {got_s}{extra}")
            if has_function(self.zonk(got)) and not has_function(self.zonk(expected)):
                raise CompileError(span, f"type mismatch: expected {exp_s} but got {got_s}: a "
                                         f"function cannot be used as a value ({FIRST_ORDER})")
            raise CompileError(span, f"type mismatch: expected {exp_s} but got {got_s}{extra}")

    def _unify(self, a: Type, b: Type) -> None:
        a = self.resolve(a)
        b = self.resolve(b)
        if a == b:
            return
        if isinstance(a, TVar) and a.id not in self.rigid:
            self._bind(a, b)
        elif isinstance(b, TVar) and b.id not in self.rigid:
            self._bind(b, a)
        elif isinstance(a, TVar) or isinstance(b, TVar):
            raise _UnifyError("the declared type is more general than the definition")
        elif isinstance(a, TSeq) and isinstance(b, TSeq):
            self._unify(a.elem, b.elem)
        elif isinstance(a, TPair) and isinstance(b, TPair):
            self._unify(a.fst, b.fst)
            self._unify(a.snd, b.snd)
        elif isinstance(a, TFun) and isinstance(b, TFun):
            if a.binding is not None and b.binding is not None:
                self._unify(a.binding, b.binding)
            self._unify(a.arg, b.arg)
            self._unify(a.result, b.result)
        elif isinstance(a, TData) and isinstance(b, TData) and a.name == b.name \
                and len(a.args) == len(b.args):
            for x, y in zip(a.args, b.args):
                self._unify(x, y)
        else:
            raise _UnifyError("")

    def _occurs(self, v: int, t: Type) -> bool:
        return v in free_vars(self.zonk(t))

    def _bind(self, v: TVar, t: Type) -> None:
        if self._occurs(v.id, t):
            raise _UnifyError("infinite type")
        c = self.class_of(v.id)
        if isinstance(t, TVar):
            if t.id in self.rigid:
                rc = self.class_of(t.id)
                if not class_subset(rc, c):
                    raise _UnifyError(f"the declared type variable {self.rigid[t.id]} is in class "
                                      f"{rc}, which is more general than {c}")
                self.subst[v.id] = t
                return
            meet = class_meet(c, self.class_of(t.id))
            if meet is None:
                raise _UnifyError(f"no type is both {c} and {self.class_of(t.id)}")
            if isinstance(meet, TBase):
                self.subst[t.id] = meet
                self.subst[v.id] = meet
                return
            self.cls[t.id] = meet
            self.subst[v.id] = t
            return
        if not self._check_class(t, c):
            article = "an" if c[0] in "aeiou" else "a"
            raise _UnifyError(f"{self.show(t, self.namer())} is not {article} {c}")
        self.subst[v.id] = t

    def _check_class(self, t: Type, c: str) -> bool:
        if c == "any":
            return True
        return in_class(t, c)

    # ---- arguments: unify component-wise for precise error locations
    def check_arg(self, param: Type, arg: T.Exp) -> None:
        p = self.resolve(param)
        if isinstance(arg, T.Pair) and isinstance(p, TPair):
            self.check_arg(p.fst, arg.fst)
            self.check_arg(p.snd, arg.snd)
        else:
            self.unify(param, arg.type, arg.span)

    # ---- expressions
    def infer(self, e, scope: dict) -> T.Exp:
        method = getattr(self, "_infer_" + type(e).__name__)
        return method(e, scope)

    def _infer_IntLit(self, e, scope):
        return T.Lit(_int_literal(e.value, e.span), INT, span=e.span)

    def _infer_FloatLit(self, e, scope):
        return T.Lit(e.value, FLOAT, span=e.span)

    def _infer_BoolLit(self, e, scope):
        return T.Lit(e.value, BOOL, span=e.span)

    def _infer_CharLit(self, e, scope):
        return T.Lit(e.value, CHAR, span=e.span)

    def _infer_StringLit(self, e, scope):
        return T.StringLit(e.value, STRING, span=e.span)

    def _infer_Var(self, e, scope):
        name = e.name
        if name in scope:
            return T.Var(name, scope[name], span=e.span)
        if name in self.env.poisoned:
            raise _Poisoned(name)
        if name in self.env.stale:
            raise CompileError(e.span, self.env.stale[name])
        if name in self.env.globals:
            return T.GlobalVar(name, self.env.globals[name], span=e.span)
        if name in CONSTANT_TYPES:
            return T.ConstRef(name, CONSTANT_TYPES[name], span=e.span)
        found = self.env.lookup_function(name)
        if found is not None:
            # a function passed by name; check_function_uses rejects it anywhere but as the
            # argument of a function parameter
            kind, scheme = found
            return T.FunRef(name, kind, self.instantiate(scheme, e.span, name), span=e.span)
        raise CompileError(e.span, f"unbound variable {name}")

    def _infer_Pair(self, e, scope):
        a = self.infer(e.fst, scope)
        b = self.infer(e.snd, scope)
        return T.Pair(a, b, TPair(a.type, b.type), span=e.span)

    def call(self, name: str, arg: T.Exp, span, name_span=None,
             builtin_only: bool = False) -> T.Call:
        """Type a call; operators and subscripts (``builtin_only``) always mean the builtin,
        even when a user function of the same name (e.g. ``elt``) exists."""
        if builtin_only:
            found = (T.BUILTIN, BUILTIN_SCHEMES[name])
        else:
            if name in self.env.poisoned:
                raise _Poisoned(name)
            if name in self.env.stale:
                raise CompileError(name_span or span, self.env.stale[name])
            found = self.env.lookup_function(name)
        if found is None:
            raise CompileError(name_span or span, f"unbound function {name}")
        kind, scheme = found
        ft = self.instantiate(scheme, span, name)
        assert isinstance(ft, TFun)
        self.check_arg(ft.arg, arg)
        return T.Call(name, kind, arg, ft, ft.result, span=span)

    def _infer_Call(self, e, scope):
        if e.name in scope and self.env.lookup_function(e.name) is None:
            if e.name in self.fparams and scope[e.name] is self.fparams[e.name]:
                return self._param_call(e, scope)
            raise CompileError(e.span, f"{e.name} is a variable, not a function (only a "
                                       f"parameter of the function being defined can be called)")
        arg = self.infer(e.arg, scope)
        return self.call(e.name, arg, e.span)

    def _param_call(self, e, scope):
        """``func(x)`` in ``function twice(func, x) = ...``: the parameter's type is ``a -> b``
        with fresh variables, and a third one in its binding slot (``TFun.binding``), as the
        original's ``(function BINDING RESULT ARG)``: it is lettered, never printed."""
        name = e.name
        t = self.resolve(scope[name])
        if isinstance(t, TVar) and t.id not in self.rigid:
            if self.class_of(t.id) != "any":
                raise CompileError(e.span, f"{name} is called as a function but used as a "
                                           f"value of class {self.class_of(t.id)} elsewhere")
            t2 = TFun(self.fresh(), self.fresh(), self.fresh())
            self.subst[t.id] = t2
            t = t2
        elif not isinstance(t, TFun):
            raise CompileError(e.span, f"{name} is a variable of type "
                                       f"{self.show(t, self.namer())}, not a function")
        arg = self.infer(e.arg, scope)
        self.check_arg(t.arg, arg)
        return T.Call(name, T.PARAM, arg, t, t.result, span=e.span)

    def _infer_BinOp(self, e, scope):
        assert e.op in BINARY_OPERATORS, e.op
        left = self.infer(e.left, scope)
        right = self.infer(e.right, scope)
        arg = T.Pair(left, right, TPair(left.type, right.type), span=e.span)
        return self.call(e.op, arg, e.span, builtin_only=True)

    def _infer_UnOp(self, e, scope):
        if e.op == "-" and isinstance(e.arg, A.IntLit):
            # a negative literal: -9223372036854775808 (and -2147483648) is one
            return T.Lit(_int_literal(-e.arg.value, e.span), INT, span=e.span)
        arg = self.infer(e.arg, scope)
        return self.call(PREFIX_OPERATORS[e.op], arg, e.span, builtin_only=True)

    def _infer_Subscript(self, e, scope):
        seq = self.infer(e.seq, scope)
        idx = self.infer(e.index, scope)
        arg = T.Pair(seq, idx, TPair(seq.type, idx.type), span=e.span)
        return self.call("elt", arg, e.span, builtin_only=True)

    def _infer_If(self, e, scope):
        c = self.infer(e.cond, scope)
        self.unify(BOOL, c.type, c.span)
        a = self.infer(e.then, scope)
        b = self.infer(e.else_, scope)
        self.unify(a.type, b.type, b.span)
        return T.If(c, a, b, a.type, span=e.span)

    def _infer_Let(self, e, scope):
        return self._let_chain(list(e.bindings), e.body, scope, e.span)

    def _let_chain(self, binds, body, scope, span):
        if not binds:
            return self.infer(body, scope)
        b = binds[0]
        bound = self.infer(b.exp, scope)
        inner = dict(scope)
        pat = self.bind_pattern(b.pattern, bound.type, inner, set())
        rest = self._let_chain(binds[1:], body, inner, span)
        sp = b.span.merge(rest.span) if b.span is not None else span
        return T.Let(pat, bound, rest, rest.type, span=sp if len(binds) > 1 else span)

    def _infer_ApplyToEach(self, e, scope):
        inner = dict(scope)
        seen: set = set()
        gens = []
        for g in e.generators:
            if g.source is None:
                src = self.infer(A.Var(g.pattern.name, span=g.pattern.span), scope)
            else:
                src = self.infer(g.source, scope)
            elem = self.fresh()
            self.unify(TSeq(elem), src.type, src.span)
            pat = self.bind_pattern(g.pattern, elem, inner, seen)
            gens.append(T.Gen(pat, src, span=g.span))
        if e.body is None:
            body_src = pattern_to_exp(e.generators[0].pattern)
        else:
            body_src = e.body
        body = self.infer(body_src, inner)
        filt = None
        if e.filter is not None:
            filt = self.infer(e.filter, inner)
            self.unify(BOOL, filt.type, filt.span)
        return T.ApplyToEach(body, tuple(gens), filt, TSeq(body.type), span=e.span)

    def _infer_SeqLit(self, e, scope):
        elems = [self.infer(x, scope) for x in e.elems]
        t = elems[0].type
        for x in elems[1:]:
            self.unify(t, x.type, x.span)
        return T.SeqLit(tuple(elems), TSeq(t), span=e.span)

    def _infer_EmptySeq(self, e, scope):
        if e.elem_type is None:
            return T.EmptySeq(TSeq(self.fresh()), span=e.span)
        t = resolve_type_expr(e.elem_type, None, self.env.datatypes)
        return T.EmptySeq(TSeq(t), span=e.span)

    def _infer_Range(self, e, scope):
        parts = []
        for x in (e.start, e.end, e.stride):
            if x is None:
                parts.append(T.Lit(1, INT, span=e.span))
                continue
            tx = self.infer(x, scope)
            self.unify(INT, tx.type, tx.span)
            parts.append(tx)
        return T.Range(parts[0], parts[1], parts[2], TSeq(INT), span=e.span)

    def _infer_Time(self, e, scope):
        x = self.infer(e.exp, scope)
        return T.Time(x, TPair(x.type, FLOAT), span=e.span)

    # ---- patterns
    def bind_pattern(self, p, t: Type, scope: dict, seen: set):
        if isinstance(p, A.PVar):
            if p.name == "_":
                return T.PWild(t, span=p.span)
            if p.name in seen:
                raise CompileError(p.span, f"variable {p.name} is bound twice")
            seen.add(p.name)
            scope[p.name] = t
            return T.PVar(p.name, t, span=p.span)
        if isinstance(p, A.PPair):
            a, b = self.fresh(), self.fresh()
            self.unify(TPair(a, b), t, p.span)
            pa = self.bind_pattern(p.fst, a, scope, seen)
            pb = self.bind_pattern(p.snd, b, scope, seen)
            return T.PPair(pa, pb, t, span=p.span)
        if isinstance(p, A.PCon):
            info = self.env.functions.get(p.name)
            if info is None or info.kind != T.CONSTRUCTOR:
                if p.name in self.env.poisoned:
                    raise _Poisoned(p.name)
                raise CompileError(p.span, f"{p.name} is not a datatype constructor")
            ft = self.instantiate(info.scheme)
            self.unify(ft.result, t, p.span)
            pa = self.bind_pattern(p.arg, ft.arg, scope, seen)
            return T.PCon(p.name, pa, t, span=p.span)
        raise TypeError(p)

    # ---- zonking a whole typed tree
    def zonk_tree(self, node, default: bool = False):
        """``node`` with every type zonked (and, with ``default``, its remaining variables
        made ``int``).  Memoised on the type objects: the type of a node shares its parts with
        the types of its children, so an n-tuple costs O(n), not O(n^2) (1000 components took
        5 s)."""
        memo: dict = {}

        def z(t):
            hit = memo.get(id(t))
            if hit is not None and hit[0] is t:
                return hit[1]
            r = self.resolve(t)
            if isinstance(r, TVar):
                out = INT if default else r
            elif isinstance(r, TBase):
                out = r
            elif isinstance(r, TSeq):
                out = TSeq(z(r.elem))
            elif isinstance(r, TPair):
                out = TPair(z(r.fst), z(r.snd))
            elif isinstance(r, TFun):
                out = TFun(z(r.arg), z(r.result))
            elif isinstance(r, TData):
                out = TData(r.name, tuple(z(a) for a in r.args))
            else:
                raise TypeError(r)
            memo[id(t)] = (t, out)
            return out
        return T.map_types(node, z)

    def generalize(self, t: Type) -> Scheme:
        """The scheme of a function's type.  ``letters``: the binding variables of its
        function parameters' types (see ``TFun.binding``), which the original letters (at
        their place in its walk of the type, :mod:`nessie.types.lettering`) though it does
        not print them: ``function twice(func, x) = func(func(x))`` is
        ``(b -> b, b) -> b :: (a in any; b in any)``, ``a`` being ``func``'s binding."""
        t = self.zonk(t)
        vs = free_vars(t)
        letters: list = []
        stack = [t]
        while stack:
            x = stack.pop()
            if isinstance(x, TFun):
                if x.binding is not None and (x.binding.id, "any") not in letters:
                    letters.append((x.binding.id, "any"))
                stack += [x.arg, x.result]
            elif isinstance(x, TPair):
                stack += [x.fst, x.snd]
            elif isinstance(x, TSeq):
                stack.append(x.elem)
        return Scheme(tuple(vs), tuple(self.class_of(v) for v in vs), t, tuple(letters))

    # ---- functions as arguments: every use other than a call or a passed name is an error
    def _declared_arg(self, call: T.Call):
        """The parameter type a call's argument is checked against for function positions:
        the callee's *scheme* (a type variable never stands for a function)."""
        if call.kind == T.PARAM:
            return self.zonk(call.fun_type.arg)
        if call.kind == T.USER:
            info = self.env.functions.get(call.name)
            return self.zonk(info.scheme.type.arg) if info is not None else None
        return None

    def check_function_uses(self, root) -> None:
        """Raise a located CompileError at the first misuse of a function in the zonked typed
        tree ``root`` (an expression).  Priorities: a computed function where a function is
        expected; a function passed where the callee takes none; then, in source order, a
        function used as a value, a function parameter used as a value, a sequence / tuple /
        result holding a function; last, a type variable of a callee standing for a
        function."""
        allowed: set = set()      # FunRefs and function-parameter Vars in a function slot
        spine: set = set()        # argument tuples leading to a function slot
        slots: dict = {}          # id of another expression in a function slot -> node
        misplaced: dict = {}      # id of a FunRef in an argument tuple, no slot -> callee

        def mark(arg, decl, callee):
            if isinstance(decl, TFun):
                if isinstance(arg, T.FunRef) or (isinstance(arg, T.Var)
                                                 and isinstance(arg.type, TFun)):
                    allowed.add(id(arg))
                else:
                    slots[id(arg)] = arg
                return
            if isinstance(arg, T.Pair):
                if isinstance(decl, TPair):
                    spine.add(id(arg))
                    mark(arg.fst, decl.fst, callee)
                    mark(arg.snd, decl.snd, callee)
                elif not isinstance(decl, TFun):
                    mark(arg.fst, None, callee)
                    mark(arg.snd, None, callee)
            elif isinstance(arg, T.FunRef):
                misplaced[id(arg)] = callee

        nodes = list(T.iter_nodes(root))
        for n in nodes:
            if isinstance(n, T.Call):
                mark(n.arg, self._declared_arg(n), n.name)
        found = []                # (priority, order, span, message)
        for k, n in enumerate(nodes):
            if isinstance(n, (T.PVar, T.PWild, T.PPair, T.PCon)) or not hasattr(n, "type"):
                continue
            if isinstance(n, T.FunRef):
                if id(n) in misplaced:
                    found.append((1, k, n.span, f"{misplaced[id(n)]} takes no function as this "
                                                f"argument: function {n.name} cannot be "
                                                f"passed here ({FIRST_ORDER})"))
                elif id(n) not in allowed:
                    found.append((2, k, n.span, f"function {n.name} cannot be used as a value "
                                                f"({FIRST_ORDER})"))
                continue
            if not has_function(n.type):
                continue
            if isinstance(n, T.Var):
                if id(n) not in allowed:
                    found.append((2, k, n.span, f"function parameter {n.name} cannot be used as "
                                                f"a value ({FIRST_ORDER})"))
                continue
            if id(n) in slots:
                found.append((0, k, n.span, "a function argument must be the name of a "
                                            "function, not an expression computing one "
                                            f"({FIRST_ORDER})"))
            elif id(n) in spine:
                continue
            elif isinstance(n, (T.SeqLit, T.EmptySeq, T.ApplyToEach)):
                found.append((2, k, n.span, f"a sequence cannot hold functions ({FIRST_ORDER})"))
            elif isinstance(n, T.Pair):
                found.append((2, k, n.span, f"a tuple cannot hold functions, except the argument "
                                            f"tuple of a call ({FIRST_ORDER})"))
            elif isinstance(n, T.Call):
                found.append((2, k, n.span, f"{n.name} cannot return a function here "
                                            f"({FIRST_ORDER})"))
            else:
                found.append((2, k, n.span, "this expression would compute a function of type "
                                            f"{type_to_str(n.type)} ({FIRST_ORDER})"))
        if found:
            _, _, span, msg = min(found, key=lambda x: x[:2])
            raise CompileError(span, msg)
        for ids, span, name in self.instances:
            for v in ids:
                t = self.zonk(TVar(v))
                if has_function(t):
                    raise CompileError(span, f"{name} cannot take or give a function here: a "
                                             f"type variable of its type would stand for "
                                             f"{type_to_str(t)} ({FIRST_ORDER})")

    def check_parameter(self, p) -> None:
        """A zonked parameter pattern holds functions only as whole components."""
        if isinstance(p, T.PPair):
            self.check_parameter(p.fst)
            self.check_parameter(p.snd)
        elif has_function(p.type) and not (isinstance(p, (T.PVar, T.PWild))
                                           and isinstance(p.type, TFun)):
            what = f"parameter {p.name}" if isinstance(p, T.PVar) else "this parameter"
            raise CompileError(p.span, f"{what} would hold a function inside a value; a "
                                       f"function parameter must be a component of the "
                                       f"parameter tuple of its own, as in "
                                       f"function twice(func, x)")


def pattern_to_exp(p):
    """The expression that rebuilds the value matched by pattern ``p``."""
    if isinstance(p, A.PVar):
        if p.name == "_":
            raise CompileError(p.span, "the first pattern of a filter form cannot be _")
        return A.Var(p.name, span=p.span)
    if isinstance(p, A.PPair):
        return A.Pair(pattern_to_exp(p.fst), pattern_to_exp(p.snd), span=p.span)
    if isinstance(p, A.PCon):
        return A.Call(p.name, pattern_to_exp(p.arg), span=p.span)
    raise TypeError(p)


# --------------------------------------------------------------------------- items
def _rigid_from_sig(inf: Inferencer, sig: A.FunSig, datatypes) -> TFun:
    names: dict = {}

    def var_for(name, span):
        if name not in names:
            v = TVar(inf.fresh_id())
            names[name] = v
            inf.rigid[v.id] = name
        return names[name]

    arg = resolve_type_expr(sig.arg, var_for, datatypes, functions=True)
    res = resolve_type_expr(sig.result, var_for, datatypes)
    check_context(sig.context, names, sig.span)
    for vname, c in sig.context:
        if vname in names:
            inf.cls[names[vname].id] = c
    for v in names.values():
        inf.cls.setdefault(v.id, "any")

    def bindings(t):
        """A declared function parameter's type has a binding variable, as an inferred one
        (``TFun.binding``): both print alike."""
        if isinstance(t, TPair):
            return TPair(bindings(t.fst), bindings(t.snd))
        if isinstance(t, TFun):
            return TFun(bindings(t.arg), t.result, inf.fresh())
        return t
    return TFun(bindings(arg), res)


def check_fundef(env: TypeEnv, d: A.FunDef) -> tuple:
    inf = Inferencer(env)
    if d.sig is not None:
        declared = _rigid_from_sig(inf, d.sig, env.datatypes)
        arg_t, res_t = declared.arg, declared.result
        # recursive calls instantiate the declared (polymorphic) type
        self_scheme = Scheme(tuple(inf.rigid), tuple(inf.cls[v] for v in inf.rigid), declared)
    else:
        arg_t, res_t = inf.fresh(), inf.fresh()
        self_scheme = Scheme((), (), TFun(arg_t, res_t))
    inf.env = env.with_function(FunInfo(d.name, T.USER, self_scheme))
    scope: dict = {}
    param = inf.bind_pattern(d.param, arg_t, scope, set())
    # the parameters that may be called: the variables of the parameter tuple (not inside a
    # constructor pattern), recognised by the very type object their binding has in scope
    spine = [param]
    while spine:
        p = spine.pop()
        if isinstance(p, T.PPair):
            spine += [p.fst, p.snd]
        elif isinstance(p, T.PVar):
            inf.fparams[p.name] = scope[p.name]
    body = inf.infer(d.body, scope)
    inf.unify(res_t, body.type, body.span)
    ft = inf.zonk(TFun(arg_t, res_t))
    body = inf.zonk_tree(body)
    param = inf.zonk_tree(param)
    inf.check_function_uses(body)
    inf.check_parameter(param)
    if has_function(ft.result):
        raise CompileError(body.span, f"{d.name} cannot return a function ({FIRST_ORDER})")
    body = _param_refs(body)
    scheme = inf.generalize(ft)
    typed = T.FunDef(d.name, param, body, ft, scheme, d.sig is not None, d.doc, span=d.span)
    env = env.with_function(FunInfo(d.name, T.USER, scheme)).with_next_var(inf.next_id)
    read = {n.name for n in T.iter_nodes(typed.body) if isinstance(n, T.GlobalVar)}
    if read:
        users = dict(env.global_users)
        for g in read:
            users[g] = tuple(sorted(set(users.get(g, ())) | {d.name}))
        env = replace(env, global_users=users)
    return env, typed


def _param_refs(body):
    """A function parameter passed on by name (a ``Var`` of function type: the checks allow
    it only as such an argument) becomes a ``FunRef`` of kind ``param``."""
    if not any(isinstance(n, T.Var) and isinstance(n.type, TFun) for n in T.iter_nodes(body)):
        return body

    def f(n):
        if isinstance(n, T.Var) and isinstance(n.type, TFun):
            return T.FunRef(n.name, T.PARAM, n.type, span=n.span)
        return n
    return T.map_nodes(body, f)


def _mentions(t, name: str) -> bool:
    """Does the type ``t`` mention the datatype ``name``?"""
    return name in datatype_names(t)


def _datatype_shape(info: DataInfo, classes) -> tuple:
    """A datatype's constructor argument and parameter classes, its parameters numbered in
    order (so that two definitions that differ only in type-variable ids compare equal)."""
    from nessie.types.types import subst_type
    norm = {p: TVar(-1 - k) for k, p in enumerate(info.params)}
    return subst_type(info.arg_type, norm), tuple(classes)


def check_datadef(env: TypeEnv, d: A.DataDef) -> tuple:
    if d.name in BUILTIN_SCHEMES or d.name in ("int", "float", "bool", "char", "segdes"):
        raise CompileError(d.span, f"cannot redefine builtin {d.name} as a datatype")
    names: dict = {}
    next_id = [env.next_var]

    def var_for(name, span):
        if name not in names:
            names[name] = TVar(next_id[0])
            next_id[0] += 1
        return names[name]

    check_context(d.context, names, d.span)
    # the parameters are the unknown type names of the fields, in order of appearance; a
    # recursive reference to the datatype itself is allowed
    pnames: list = []

    def collect(t):
        if isinstance(t, A.TName):
            if (not t.args and t.name not in ("int", "float", "bool", "char", "segdes")
                    and t.name not in env.datatypes and t.name != d.name
                    and t.name not in pnames):
                pnames.append(t.name)
            for a in t.args:
                collect(a)
        elif isinstance(t, A.TSeqE):
            collect(t.elem)
        elif isinstance(t, A.TPairE):
            collect(t.fst)
            collect(t.snd)
    collect(d.fields)
    for n in pnames:
        var_for(n, None)
    params = tuple(names[n].id for n in pnames)
    placeholder = DataInfo(d.name, params, TBase("?"), Scheme((), (), TBase("?")))
    arg = resolve_type_expr(d.fields, var_for, env.with_datatype(placeholder).datatypes)
    ctx = dict(d.context)
    classes = tuple(ctx.get(n, "any") for n in names)
    result = TData(d.name, tuple(TVar(p) for p in params))
    scheme = Scheme(params, classes, TFun(arg, result))
    info = DataInfo(d.name, params, arg, scheme)
    old = env.datatypes.get(d.name)
    stale = dict(env.stale)
    if old is not None and _datatype_shape(old, old.scheme.classes) != _datatype_shape(info, classes):
        # a redefinition at another type (the original announces it): what was bound with the
        # old definition keeps it, and cannot meet values of the new one
        why = (f"{{}} was defined with the earlier definition of datatype {d.name}, which line "
               f"{d.span.line if d.span else '?'} redefines with another type; define it again "
               f"to use it")
        for g, t in env.globals.items():
            if _mentions(t, d.name):
                stale[g] = why.format(g)
        for f, fi in env.functions.items():
            if fi.kind == T.USER and _mentions(fi.scheme.type, d.name):
                stale[f] = why.format(f)
    env = replace(env.with_datatype(info).with_function(FunInfo(d.name, T.CONSTRUCTOR, scheme))
                  .with_next_var(next_id[0]), stale=stale)
    return env, T.DataDef(d.name, tuple(TVar(p) for p in params), arg, scheme, span=d.span)



def _check_rebinding(env: TypeEnv, binds: dict, span) -> None:
    """A top-level value read by an existing function keeps its type: rebinding it at another
    type would make that function ill-typed (functions read the current value).  ``it`` is
    rebound by every top-level expression and is not checked."""
    for name, ty in binds.items():
        old = env.globals.get(name)
        users = env.global_users.get(name)
        if old is not None and users and old != ty:
            raise CompileError(span, f"cannot rebind {name} at type {type_to_str(ty)}: function "
                                     f"{users[0]} reads it at type {type_to_str(old)}")


def check_topbind(env: TypeEnv, d: A.TopBind) -> tuple:
    inf = Inferencer(env)
    exp = inf.infer(d.exp, {})
    scope: dict = {}
    pat = inf.bind_pattern(d.pattern, exp.type, scope, set())
    inf.check_function_uses(inf.zonk_tree(exp))
    exp = inf.zonk_tree(exp, default=True)
    pat = inf.zonk_tree(pat, default=True)
    binds = T.pattern_types(pat)
    _check_rebinding(env, binds, d.span)
    return env.with_globals(binds).with_next_var(inf.next_id), T.ValBind(pat, exp, span=d.span)


def check_topexp(env: TypeEnv, d: A.TopExp) -> tuple:
    inf = Inferencer(env)
    exp = inf.infer(d.exp, {})
    inf.check_function_uses(inf.zonk_tree(exp))
    exp = inf.zonk_tree(exp, default=True)
    return env.with_globals({"it": exp.type}).with_next_var(inf.next_id), \
        T.ExpItem(exp, span=d.span)


def _defined_names(item) -> list:
    if isinstance(item, (A.FunDef, A.DataDef)):
        return [item.name]
    if isinstance(item, A.TopBind):
        names = []

        def walk(p):
            if isinstance(p, A.PVar) and p.name != "_":
                names.append(p.name)
            elif isinstance(p, A.PPair):
                walk(p.fst)
                walk(p.snd)
            elif isinstance(p, A.PCon):
                walk(p.arg)
        walk(item.pattern)
        return names
    if isinstance(item, A.TopExp):
        return ["it"]
    return []


#: range of an integer literal in the front end: NESL ints are 32-bit, or 64-bit with
#: ``--int64``; the 32-bit range is checked when the width is known (``nessie.driver``)
INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1


def _int_literal(value: int, span) -> int:
    if not INT64_MIN <= value <= INT64_MAX:
        raise CompileError(span, f"integer literal {value} does not fit in a NESL int (64 bits "
                                 f"at most: {INT64_MIN} .. {INT64_MAX})")
    return value


def _check_set_option(item) -> None:
    """``set print_length N;`` needs a number (the only option that changes what a program
    prints; the others of the original system are accepted and have no effect)."""
    if item.name == "print_length" and not (len(item.args) == 1 and item.args[0].isascii()
                                        and item.args[0].isdigit()):
        raise CompileError(item.span, "set print_length needs a number, 0 or more "
                                      "(set print_length 20;)")


def check_item(env: TypeEnv, item, diags) -> tuple:
    """Check one top-level item; returns ``(env', [typed items])``.

    Errors are added to ``diags`` and the names the item would define are poisoned."""
    if isinstance(item, A.Load):
        out = []
        for sub in item.items or ():
            env, typed = check_item(env, sub, diags)
            out.extend(typed)
        return env, out
    if isinstance(item, A.SetOption):
        try:
            _check_set_option(item)
        except CompileError as err:
            diags.add(err)
            return env, []
        return env.with_option(item.name, item.args), [T.SetItem(item.name, item.args,
                                                                 span=item.span)]
    try:
        if isinstance(item, A.FunDef):
            env, typed = check_fundef(env, item)
        elif isinstance(item, A.DataDef):
            env, typed = check_datadef(env, item)
        elif isinstance(item, A.TopBind):
            env, typed = check_topbind(env, item)
        elif isinstance(item, A.TopExp):
            env, typed = check_topexp(env, item)
        else:
            raise TypeError(item)
        return env, [typed]
    except CompileError as err:
        diags.add(err)
    except _Poisoned:
        pass
    return env.with_poisoned(_defined_names(item)), []
