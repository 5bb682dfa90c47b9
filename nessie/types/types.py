"""NESL types as immutable values, type schemes, and NESL-style type printing.

* :class:`TBase` -- ``int``, ``float``, ``bool``, ``char``, ``segdes``.
* :class:`TSeq` -- ``[t]``; :class:`TPair` -- ``(t1, t2)`` (tuples are right-nested pairs).
* :class:`TData` -- a user datatype, possibly applied to type arguments.
* :class:`TVar` -- a type variable identified by an integer; its class constraint
  (``number``/``ordinal``/``logical``/``any``) lives in the inference state or in a
  :class:`Scheme`, not in the variable itself.
* :class:`TFun` -- a function type ``arg -> result``; appears in schemes, in the instance types
  of calls, and as the type of a function parameter (``func`` in ``function twice(func, x)``)
  and of a function passed by name (:class:`~nessie.types.typed_ast.FunRef`), never as the type
  of a value.

Printing follows NESL 3.1: a top-level tuple type has no outer parentheses (``int, int``;
``(int, int), int``), tuples inside sequences do (``[(int, float)]``), function arguments and
results are parenthesised when tuples (``([a], [a]) -> a``), and type variables are renamed
``a, b, c, ...`` in order of appearance, with the context ``:: (a in number; b in any)``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional, Union


@dataclass(frozen=True)
class TBase:
    name: str

    def __repr__(self) -> str:
        return self.name


@dataclass(frozen=True)
class TSeq:
    elem: "Type"

    def __repr__(self) -> str:
        return f"[{self.elem!r}]"


@dataclass(frozen=True)
class TPair:
    fst: "Type"
    snd: "Type"

    def __repr__(self) -> str:
        return f"({self.fst!r}, {self.snd!r})"


@dataclass(frozen=True)
class TData:
    name: str
    args: tuple = ()

    def __repr__(self) -> str:
        return self.name + (f"({', '.join(map(repr, self.args))})" if self.args else "")


def datatype_names(t: "Type") -> set:
    """The names of the datatypes a type mentions."""
    out, todo = set(), [t]
    while todo:
        x = todo.pop()
        if isinstance(x, TData):
            out.add(x.name)
            todo += list(x.args)
        elif isinstance(x, TPair):
            todo += [x.fst, x.snd]
        elif isinstance(x, TSeq):
            todo.append(x.elem)
        elif isinstance(x, TFun):
            todo += [x.arg, x.result]
    return out


def display_name(name: str) -> str:
    """A datatype's name as the source spells it: one defined again at another type is
    ``name~k`` inside the compiler (``nessie.mono``), printed ``name``."""
    return name.split("~", 1)[0]


@dataclass(frozen=True)
class TVar:
    id: int

    def __repr__(self) -> str:
        return f"'t{self.id}"


@dataclass(frozen=True)
class TFun:
    arg: "Type"
    result: "Type"
    #: the original represents a function type as ``(function BINDING RESULT ARG)``; the type
    #: of a function parameter, made when the parameter is called, has a type variable in the
    #: binding slot: never printed, but lettered (``twice = fn : (b -> b, b) -> b :: (a in any;
    #: b in any)``: ``a`` is ``func``'s binding).  None elsewhere; not part of equality.
    binding: Optional["TVar"] = field(default=None, compare=False)

    def __repr__(self) -> str:
        return f"{self.arg!r} -> {self.result!r}"


Type = Union[TBase, TSeq, TPair, TData, TVar, TFun]

INT = TBase("int")
FLOAT = TBase("float")
BOOL = TBase("bool")
CHAR = TBase("char")
SEGDES = TBase("segdes")
BASE_TYPES = {"int": INT, "float": FLOAT, "bool": BOOL, "char": CHAR, "segdes": SEGDES}
STRING = TSeq(CHAR)

#: members of each type class (``any`` = every type)
CLASS_MEMBERS = {
    "number": frozenset({"int", "float"}),
    "ordinal": frozenset({"int", "float", "char"}),
    "logical": frozenset({"int", "bool"}),
}
CLASSES = ("any", "number", "ordinal", "logical")


def class_meet(c1: str, c2: str) -> Union[str, TBase, None]:
    """Intersection of two classes: a class name, a single base type, or None (empty)."""
    if c1 == c2 or c2 == "any":
        return c1
    if c1 == "any":
        return c2
    both = CLASS_MEMBERS[c1] & CLASS_MEMBERS[c2]
    for name, members in CLASS_MEMBERS.items():
        if members == both:
            return name
    if len(both) == 1:
        return BASE_TYPES[next(iter(both))]
    return None


def class_subset(c1: str, c2: str) -> bool:
    """Is every member of class c1 a member of class c2?"""
    if c2 == "any":
        return True
    if c1 == "any":
        return False
    return CLASS_MEMBERS[c1] <= CLASS_MEMBERS[c2]


def in_class(t: Type, cls: str) -> bool:
    if cls == "any":
        return True
    return isinstance(t, TBase) and t.name in CLASS_MEMBERS[cls]


@dataclass(frozen=True)
class Scheme:
    """``forall vars. type`` with one class per variable (``classes[i]`` for ``vars[i]``).

    ``letters`` only matters for printing a function that takes function parameters: pairs
    ``(var id, class)`` of variables that take a letter and a place in the context although
    they are not printed in ``type``: the binding variables of function parameters' types
    (:attr:`TFun.binding`), as in the original's
    ``twice = fn : (b -> b, b) -> b :: (a in any; b in any)`` (see
    :meth:`nessie.types.infer.Inferencer.generalize`)."""
    vars: tuple
    classes: tuple
    type: Type
    letters: tuple = ()

    def class_of(self, var_id: int) -> str:
        for v, c in zip(self.vars, self.classes):
            if v == var_id:
                return c
        return "any"


def mono_scheme(t: Type) -> Scheme:
    return Scheme((), (), t)


def replaces(old: Scheme, new: Scheme) -> bool:
    """May a definition of scheme ``new`` take the place of one of scheme ``old`` for the
    functions already defined that call it (late binding, see ``nessie.mono``)?  Yes when
    every use of the old one is a use of the new one: the same type up to the names of its
    variables -- as the original compares them (``type-equal`` in src/defop.lisp) -- and a
    context no stricter (each variable's class contains the old one's: ``a -> a :: (a in
    number)`` may be replaced by ``a -> a :: (a in any)``, not the other way round, where
    the original would replace it and leave its old calls ill-typed).  Datatypes compare by
    name; whether a datatype was defined again in between is the caller's to check."""
    m: dict = {}

    def same(a: Type, b: Type) -> bool:
        if isinstance(a, TVar) or isinstance(b, TVar):
            if not (isinstance(a, TVar) and isinstance(b, TVar)):
                return False
            if a.id in m:
                return m[a.id] == b.id
            if b.id in m.values():
                return False
            m[a.id] = b.id
            return True
        if type(a) is not type(b):
            return False
        if isinstance(a, TBase):
            return a == b
        if isinstance(a, TSeq):
            return same(a.elem, b.elem)
        if isinstance(a, TPair):
            return same(a.fst, b.fst) and same(a.snd, b.snd)
        if isinstance(a, TFun):
            return same(a.arg, b.arg) and same(a.result, b.result)
        if isinstance(a, TData):
            return (a.name == b.name and len(a.args) == len(b.args)
                    and all(same(x, y) for x, y in zip(a.args, b.args)))
        return False

    if not same(old.type, new.type):
        return False
    return all(class_subset(old.class_of(v), new.class_of(w)) for v, w in m.items())


# --------------------------------------------------------------------------- utilities
def free_vars(t: Type, acc: Optional[list] = None) -> list:
    """Type variable ids of ``t`` in order of first appearance (left to right)."""
    if acc is None:
        acc = []
    if isinstance(t, TVar):
        if t.id not in acc:
            acc.append(t.id)
    elif isinstance(t, TSeq):
        free_vars(t.elem, acc)
    elif isinstance(t, (TPair,)):
        free_vars(t.fst, acc)
        free_vars(t.snd, acc)
    elif isinstance(t, TFun):
        free_vars(t.arg, acc)
        free_vars(t.result, acc)
    elif isinstance(t, TData):
        for a in t.args:
            free_vars(a, acc)
    return acc


def is_ground(t: Type) -> bool:
    return not free_vars(t)


def subst_type(t: Type, s: dict) -> Type:
    """Replace variables by ``s[id]`` (ids missing from ``s`` are kept)."""
    if isinstance(t, TVar):
        return s.get(t.id, t)
    if isinstance(t, TBase):
        return t
    if isinstance(t, TSeq):
        return TSeq(subst_type(t.elem, s))
    if isinstance(t, TPair):
        return TPair(subst_type(t.fst, s), subst_type(t.snd, s))
    if isinstance(t, TFun):
        b = t.binding
        if b is not None:
            b = s.get(b.id, b)
            b = b if isinstance(b, TVar) else None
        return TFun(subst_type(t.arg, s), subst_type(t.result, s), b)
    if isinstance(t, TData):
        return TData(t.name, tuple(subst_type(a, s) for a in t.args))
    raise TypeError(f"not a type: {t!r}")


def default_vars(t: Type, to: Type = INT) -> Type:
    """Replace every remaining variable by ``int`` (which is in every class)."""
    return subst_type(t, {v: to for v in free_vars(t)})


def grounding(s: Optional[dict] = None, to: Type = INT):
    """The function ``t -> default_vars(subst_type(t, s), to)``, memoised on type objects: the
    types of the nodes of a typed tree share their parts (a pair's type is made of its
    components' types), so grounding every type of a tree takes time linear in its size
    instead of quadratic (a tuple of 1000 components: 2 s)."""
    s = s or {}
    memo: dict = {}

    def g(t: Type) -> Type:
        hit = memo.get(id(t))
        if hit is not None and hit[0] is t:
            return hit[1]
        if isinstance(t, TVar):
            out = default_vars(s[t.id], to) if t.id in s else to
        elif isinstance(t, TBase):
            out = t
        elif isinstance(t, TSeq):
            out = TSeq(g(t.elem))
        elif isinstance(t, TPair):
            out = TPair(g(t.fst), g(t.snd))
        elif isinstance(t, TFun):
            out = TFun(g(t.arg), g(t.result))
        elif isinstance(t, TData):
            out = TData(t.name, tuple(g(a) for a in t.args))
        else:
            raise TypeError(f"not a type: {t!r}")
        memo[id(t)] = (t, out)
        return out
    return g


def tuple_components(t: Type) -> list:
    """``(a, (b, c))`` -> ``[a, b, c]``."""
    out = []
    while isinstance(t, TPair):
        out.append(t.fst)
        t = t.snd
    out.append(t)
    return out


# --------------------------------------------------------------------------- printing
def var_name(i: int) -> str:
    letters = "abcdefghijklmnopqrstuvwxyz"
    return letters[i] if i < 26 else letters[i % 26] + str(i // 26)


class Namer:
    """Assigns ``a, b, c, ...`` to variable ids in order of first request."""

    def __init__(self, fixed: Optional[dict] = None):
        self.names: dict = dict(fixed or {})
        self.order: list = list(self.names)

    def __call__(self, var_id: int) -> str:
        if var_id not in self.names:
            used = set(self.names.values())
            k = 0
            while var_name(k) in used:
                k += 1
            self.names[var_id] = var_name(k)
            self.order.append(var_id)
        return self.names[var_id]


def type_to_str(t: Type, top: bool = True, namer: Optional[Namer] = None) -> str:
    """NESL rendering of a type; ``top`` drops the parentheses of a top-level tuple."""
    namer = namer or Namer()
    if isinstance(t, TBase):
        return t.name
    if isinstance(t, TVar):
        return namer(t.id)
    if isinstance(t, TSeq):
        return "[" + type_to_str(t.elem, False, namer) + "]"
    if isinstance(t, TPair):
        parts = [type_to_str(c, False, namer) for c in tuple_components(t)]
        s = ", ".join(parts)
        return s if top else f"({s})"
    if isinstance(t, TData):
        if not t.args:
            return display_name(t.name)
        return display_name(t.name) + "(" + ", ".join(type_to_str(a, True, namer) for a in t.args) + ")"
    if isinstance(t, TFun):
        # a function parameter's type inside a function type is parenthesised unless it is a
        # tuple component: ``(int -> int) -> int``, ``(b -> b, b) -> b``
        def side(x):
            s = type_to_str(x, False, namer)
            return f"({s})" if isinstance(x, TFun) else s
        return side(t.arg) + " -> " + side(t.result)
    raise TypeError(f"not a type: {t!r}")


def mangle_type(t: Type) -> str:
    """Compact deterministic rendering used in monomorphic names (``[(int, float)]``)."""
    return type_to_str(t, True)
