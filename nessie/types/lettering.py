"""The letters NESL 3.1 gives the type variables of a printed type.

The original's type checker (``clean-type`` in ``src/type-check.lisp`` of the CMU distribution)
collects the unbound variables of a type by walking it as a Lisp list and taking, at each
list, the ``union`` of the variables of its head and of its tail; the union keeps the tail's
variables last (``(union '(x y z) '(z x y))`` is ``(z x y)`` with the Lisp the published outputs
came from).  So a variable's place is that of its *last* occurrence in a left-to-right walk of
the type as the original represents it.  A function type is ``(function BINDING RESULT ARG)``:
the result is walked before the argument, although it is printed after it.  The variables then
get the letters ``a``, ``b``, ``c``, ``d``, ``e`` in that order, or ``a0``, ``a1``, ... when there
are more than five (``typevarnames``), and the context ``:: (...)`` lists every variable in
letter order with its class.

Evidence: ``make_quads = fn : ([(b, c, a)], b, c) -> [[(b, c, a)]] :: (a in any; b in ordinal;
c in ordinal)`` (observed on the original: the result's ``(x, y, z)`` and the argument's
``x, y`` put ``z`` last-seen first), ``fst = fn : (a, b) -> a``, ``swap = fn : (a, b) -> (b, a)``
(NESL.md, tests/frontend) and every function type in the test suite's golden outputs.

A ``Scheme`` may carry ``letters`` (variables that take a letter although they are not printed,
with their class): the binding slot of a function parameter's type (``TFun.binding``), which
the walk visits before the function's result, as the original does (``(function BINDING
RESULT ARG)``): ``twice = fn : (b -> b, b) -> b :: (a in any; b in any)``, ``a`` being
``func``'s binding.  A variable of ``letters`` the walk does not meet is lettered first.
"""
from __future__ import annotations

from nessie.types.types import Namer, Scheme, TData, TFun, TPair, TSeq, TVar, type_to_str

#: the original's names for up to five variables (``*typevarnames*``)
_FIVE = ("a", "b", "c", "d", "e")


def original_names(n: int) -> list:
    """Names of ``n`` type variables: ``a`` .. ``e``, or ``a0`` .. ``a{n-1}`` past five."""
    if n <= len(_FIVE):
        return list(_FIVE[:n])
    return [f"a{i}" for i in range(n)]


def last_occurrence_order(t) -> list:
    """The variable ids of type ``t`` in order of their last occurrence, walking a function
    type's result before its argument (iterative: tuple types may be very long)."""
    last: dict = {}
    k = 0
    stack = [t]
    while stack:
        x = stack.pop()
        if isinstance(x, TVar):
            last[x.id] = k
            k += 1
        elif isinstance(x, TSeq):
            stack.append(x.elem)
        elif isinstance(x, TPair):
            stack.append(x.snd)
            stack.append(x.fst)
        elif isinstance(x, TData):
            stack.extend(reversed(x.args))
        elif isinstance(x, TFun):
            stack.append(x.arg)
            stack.append(x.result)
            if x.binding is not None:      # a function parameter's binding variable
                stack.append(x.binding)
    return sorted(last, key=last.__getitem__)


def original_order(scheme) -> list:
    """The variables of a scheme in the order the original letters them."""
    walk = last_occurrence_order(scheme.type)
    first = [v for v, _ in getattr(scheme, "letters", ()) if v not in walk]
    return first + walk


def original_namer(scheme) -> Namer:
    """A :class:`Namer` holding the original's letters for the variables of ``scheme``."""
    order = original_order(scheme)
    return Namer(dict(zip(order, original_names(len(order)))))


def original_context(scheme, namer: Namer) -> list:
    """The context entries (``a in number``) of ``scheme`` in letter order: every variable
    lettered by ``namer`` that the scheme quantifies, or that it letters without showing."""
    gone = dict(getattr(scheme, "letters", ()))
    return [f"{namer(v)} in {scheme.class_of(v) if v in scheme.vars else gone[v]}"
            for v in namer.order if v in scheme.vars or v in gone]


def scheme_to_str(s: Scheme) -> str:
    """E.g. ``([a], [a]) -> a :: (a in number)``; the variables are lettered as the original
    letters them (this module: :func:`original_namer`)."""
    namer = original_namer(s)
    body = type_to_str(s.type, True, namer)
    gone = dict(s.letters)
    ctx = [f"{namer.names[v]} in {s.class_of(v) if v in s.vars else gone[v]}"
           for v in namer.order if v in s.vars or v in gone]
    return body + (" :: (" + "; ".join(ctx) + ")" if ctx else "")
