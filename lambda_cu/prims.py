"""The scalar primitives of λcu, shared by the CPU level and the GPU level.

A ``PrimOp(name, args)`` node (``lambda_cu.ir``) applies one of the primitives below to scalar
arguments.  The same table is used on the host (scalar arithmetic on sizes, flags, ...) and inside
thunks (where each argument is one scalar per index; the numpy interpreter evaluates them on whole
arrays).  Type classes: ``number`` = {int, int64, float}; ``ordinal`` = {int, int64, float, char};
``logical`` = {int, int64, bool} (bitwise on integers); ``eq`` = ordinal ∪ {bool}.  "``a``" means
all arguments and the result have the same type.  ``int*`` is any integer width; for the
conversions *to* an integer the width of the result is the node's ``ty`` field (default ``int``).

==============  ========  ==========================  =====================================================
name            printed   type                        semantics
==============  ========  ==========================  =====================================================
``add``         ``+``     (a, a) -> a, a number       wraps modulo 2^width on integers
``sub``         ``-``     (a, a) -> a, a number       wraps
``mul``         ``*``     (a, a) -> a, a number       wraps
``div``         ``/``     (a, a) -> a, a number       int: truncates toward zero, ``min / -1`` wraps,
                                                      divisor 0 -> ``RUNTIME ERROR: Divide by zero.``;
                                                      float: IEEE (inf/nan, no error)
``rem``         ``rem``   (int*, int*) -> int*        remainder with the dividend's sign (``rem(-7,3)=-1``);
                                                      divisor 0 -> Divide by zero
``mod``         ``mod``   (int*, int*) -> int*        modulus with the divisor's sign (``mod(-7,3)=2``);
                                                      divisor 0 -> Divide by zero
``neg``         ``-``     a -> a, a number            unary minus (wraps: ``-min_int = min_int``)
``abs``         ``abs``   a -> a, a number            absolute value (wraps on ``min_int``)
``min``/``max`` ``min``   (a, a) -> a, a ordinal      minimum / maximum
``pow``         ``^``     (a, int*) -> a, a number    NESL ``^``: int power wraps; a negative exponent
                                                      gives ``1/x^-e`` (truncated for ints; 0^neg -> Divide by zero)
``eq``/``ne``   ``==``    (a, a) -> bool, a eq        equality / inequality (``!=``)
``lt`` ``le``   ``<``     (a, a) -> bool, a ordinal   ``<``, ``<=``, ``>``, ``>=`` (chars by code)
``gt`` ``ge``
``not``         ``!``     a -> a, a logical           logical not on bool, bitwise complement on ints
``and``         ``&&``    (a, a) -> a, a logical      logical / bitwise and (both operands evaluated)
``or``          ``||``    (a, a) -> a, a logical      logical / bitwise or
``xor``         ``xor``   (a, a) -> a, a logical      exclusive or
``nand`` ``nor``          (a, a) -> a, a logical      not (a and b), not (a or b)
``lshift``                (int*, int*) -> int*        ``a << (b mod w)`` (wraps), w the width (32/64):
                                                      the count's low 5 (6) bits, as C on x86 in
                                                      CMU NESL's runtime (``lshift(1, 33)`` = 2,
                                                      ``lshift(1, -1)`` = min_int)
``rshift``                (int*, int*) -> int*        arithmetic ``a >> (b mod w)`` (``rshift(8, -1)``
                                                      = 0, ``rshift(-8, 33)`` = -4)
``sqrt`` ``exp`` ``ln``   float -> float              libm functions (nan for invalid input, no error)
``sin`` ``cos`` ``tan``
``asin`` ``acos`` ``atan``
``sinh`` ``cosh`` ``tanh``
``log``                   (float, float) -> float     ``log(x, base)`` = ln x / ln base
``expt``                  (float, float) -> float     ``x`` to the real power ``y``
``isqrt``                 int* -> int*                floor of the square root (negative input -> 0)
``to_float``              int* -> float               NESL ``float(i)``
``trunc``                 float -> ty                 toward zero
``round``                 float -> ty                 to nearest, halves to even (IEEE rint)
``floor`` ``ceil``        float -> ty                 toward -inf / +inf
``to_int``                int* -> ty                  change of integer width (wraps when narrowing)
``btoi``                  bool -> ty                  ``f`` -> 0, ``t`` -> 1
``char_code``             char -> ty                  the character's code
``code_char``             int* -> char                character of a code (taken modulo 256)
``select``                (bool, a, a) -> a, a base   ``select(c, x, y)``: both ``x`` and ``y`` evaluated
==============  ========  ==========================  =====================================================

Use the GPU ``If`` node, not ``select``, when an untaken branch could fail (an out-of-bounds
subscript, a division by zero): ``If`` evaluates only the branch taken by each index.

:data:`PRIMS` maps each name to a :class:`PrimSpec`; :func:`result_type` types an application
(raising ``TypeError`` with a readable message); :data:`INFIX` / :data:`PREFIX` give the printed
operator of the primitives that print as operators (all others print as ``name(args)``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional

from . import ir
from .types import BOOL, CHAR, FLOAT, INT, BoolT, CharT, FloatT, IntT, TupleT, Type, is_base, UnitT


def _is_number(t: Type) -> bool:
    return isinstance(t, (IntT, FloatT))


def _is_ordinal(t: Type) -> bool:
    return isinstance(t, (IntT, FloatT, CharT))


def _is_logical(t: Type) -> bool:
    return isinstance(t, (IntT, BoolT))


def _is_eq(t: Type) -> bool:
    return isinstance(t, (IntT, FloatT, CharT, BoolT))


@dataclass(frozen=True)
class PrimSpec:
    """One primitive: ``name``, ``arity`` and ``typing(arg_types, ty) -> result type``.

    ``typing`` raises ``TypeError`` when the argument types do not fit; ``ty`` is the PrimOp's
    optional result-type field (only meaningful for the conversions to int); ``takes_ty`` says
    whether the primitive accepts it.  ``can_fail`` marks the primitives that may raise a runtime
    error (integer division by zero)."""

    name: str
    arity: int
    typing: Callable[[tuple[Type, ...], Optional[Type]], Type]
    takes_ty: bool = False
    can_fail: bool = False


def _same(pred: Callable[[Type], bool], cls: str, result: Optional[Type] = None):
    def rule(args: tuple[Type, ...], ty: Optional[Type]) -> Type:
        a = args[0]
        if not pred(a):
            raise TypeError(f"expects {cls} arguments, got {a}")
        for b in args[1:]:
            if b != a:
                raise TypeError(f"arguments must have the same type, got {a} and {b}")
        return a if result is None else result
    return rule


def _fixed(params: tuple[Callable[[Type], bool] | Type, ...], result: Type | str):
    """Fixed signature; a callable param is a class test; result ``"arg0"`` repeats arg 0."""
    def rule(args: tuple[Type, ...], ty: Optional[Type]) -> Type:
        for k, (p, a) in enumerate(zip(params, args)):
            ok = p(a) if callable(p) and not isinstance(p, Type) else a == p
            if not ok:
                want = p if isinstance(p, Type) else getattr(p, "__doc__", None) or "a valid type"
                raise TypeError(f"argument {k + 1} must be {want}, got {a}")
        return args[0] if result == "arg0" else result  # type: ignore[return-value]
    return rule


def _to_int(src: Callable[[Type], bool] | Type):
    def rule(args: tuple[Type, ...], ty: Optional[Type]) -> Type:
        a = args[0]
        ok = src(a) if callable(src) and not isinstance(src, Type) else a == src
        if not ok:
            raise TypeError(f"argument must be {src if isinstance(src, Type) else 'an int'}, got {a}")
        out = INT if ty is None else ty
        if not isinstance(out, IntT):
            raise TypeError(f"result type must be an integer type, got {out}")
        return out
    return rule


def _int_any(t: Type) -> bool:
    """an integer"""
    return isinstance(t, IntT)


def _pow(args: tuple[Type, ...], ty: Optional[Type]) -> Type:
    if not _is_number(args[0]):
        raise TypeError(f"base must be a number, got {args[0]}")
    if not isinstance(args[1], IntT):
        raise TypeError(f"exponent must be an int, got {args[1]}")
    return args[0]


def _shift(args: tuple[Type, ...], ty: Optional[Type]) -> Type:
    if not isinstance(args[0], IntT) or not isinstance(args[1], IntT):
        raise TypeError(f"shift operands must be ints, got {args[0]} and {args[1]}")
    return args[0]


def _select(args: tuple[Type, ...], ty: Optional[Type]) -> Type:
    if args[0] != BOOL:
        raise TypeError(f"select's flag must be bool, got {args[0]}")
    if not is_base(args[1]) or args[1] != args[2]:
        raise TypeError(f"select's branches must have the same base type, got {args[1]} and {args[2]}")
    return args[1]


def _int_same(args: tuple[Type, ...], ty: Optional[Type]) -> Type:
    a, b = args
    if not isinstance(a, IntT) or a != b:
        raise TypeError(f"expects two ints of the same width, got {a} and {b}")
    return a


PRIMS: dict[str, PrimSpec] = {}


def _def(name: str, arity: int, typing, takes_ty: bool = False, can_fail: bool = False) -> None:
    PRIMS[name] = PrimSpec(name, arity, typing, takes_ty, can_fail)


for _n in ("add", "sub", "mul"):
    _def(_n, 2, _same(_is_number, "number"))
_def("div", 2, _same(_is_number, "number"), can_fail=True)
_def("rem", 2, _int_same, can_fail=True)
_def("mod", 2, _int_same, can_fail=True)
_def("neg", 1, _same(_is_number, "number"))
_def("abs", 1, _same(_is_number, "number"))
_def("min", 2, _same(_is_ordinal, "ordinal"))
_def("max", 2, _same(_is_ordinal, "ordinal"))
_def("pow", 2, _pow, can_fail=True)
_def("eq", 2, _same(_is_eq, "comparable", BOOL))
_def("ne", 2, _same(_is_eq, "comparable", BOOL))
for _n in ("lt", "le", "gt", "ge"):
    _def(_n, 2, _same(_is_ordinal, "ordinal", BOOL))
_def("not", 1, _same(_is_logical, "logical"))
for _n in ("and", "or", "xor", "nand", "nor"):
    _def(_n, 2, _same(_is_logical, "logical"))
_def("lshift", 2, _shift)
_def("rshift", 2, _shift)
for _n in ("sqrt", "exp", "ln", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh"):
    _def(_n, 1, _fixed((FLOAT,), FLOAT))
_def("log", 2, _fixed((FLOAT, FLOAT), FLOAT))
_def("expt", 2, _fixed((FLOAT, FLOAT), FLOAT))
_def("isqrt", 1, _fixed((_int_any,), "arg0"))
_def("to_float", 1, _fixed((_int_any,), FLOAT))
for _n in ("trunc", "round", "floor", "ceil"):
    _def(_n, 1, _to_int(FLOAT), takes_ty=True)
_def("to_int", 1, _to_int(_int_any), takes_ty=True)
_def("btoi", 1, _to_int(BOOL), takes_ty=True)
_def("char_code", 1, _to_int(CHAR), takes_ty=True)
_def("code_char", 1, _fixed((_int_any,), CHAR))
_def("select", 3, _select)

#: binary primitives printed infix, with their precedence (higher binds tighter)
INFIX: dict[str, tuple[str, int]] = {
    "or": ("||", 1),
    "and": ("&&", 2),
    "eq": ("==", 3), "ne": ("!=", 3), "lt": ("<", 3), "le": ("<=", 3), "gt": (">", 3), "ge": (">=", 3),
    "add": ("+", 4), "sub": ("-", 4),
    "mul": ("*", 5), "div": ("/", 5),
    "pow": ("^", 6),
}
#: unary primitives printed prefix (precedence 7)
PREFIX: dict[str, str] = {"neg": "-", "not": "!"}

#: primitives whose two arguments may be swapped (used to recognise monoids)
COMMUTATIVE = frozenset({"add", "mul", "min", "max", "and", "or", "xor", "eq", "ne"})


def result_type(name: str, args: tuple[Type, ...], ty: Optional[Type] = None) -> Type:
    """Result type of ``name`` applied to arguments of types ``args`` (``TypeError`` if ill-typed)."""
    spec = PRIMS.get(name)
    if spec is None:
        raise TypeError(f"unknown primitive '{name}'")
    if len(args) != spec.arity:
        raise TypeError(f"primitive '{name}' takes {spec.arity} argument(s), got {len(args)}")
    for a in args:
        if not is_base(a) or isinstance(a, UnitT):
            raise TypeError(f"primitive '{name}' takes scalar arguments, got {a}")
    if ty is not None and not spec.takes_ty:
        raise TypeError(f"primitive '{name}' does not take a result type")
    return spec.typing(tuple(args), ty)


__all__ = ["PrimSpec", "PRIMS", "INFIX", "PREFIX", "COMMUTATIVE", "MONOID_PRIMS", "result_type",
           "recognise_monoid"]


#: the primitives a monoid operator may apply component-wise (the numpy runner has a ufunc for
#: each; the OpenCL lowering reorders the commutative ones)
MONOID_PRIMS = ("add", "mul", "max", "min", "and", "or", "xor")


def recognise_monoid(op: ir.Thunk, k: int) -> Optional[list[str]]:
    """Primitive names per component if ``op`` is component-wise ``+ * max min && || xor`` of its
    two arguments (k components each), else ``None``."""
    comp_exprs: list[ir.Exp] = []
    for p in op.params:
        if isinstance(p.ty, TupleT):
            if any(isinstance(t, TupleT) for t in p.ty.elems):
                return None
            comp_exprs.extend(ir.Proj(p.var, j) for j in range(len(p.ty.elems)))
        else:
            comp_exprs.append(p.var)
    if len(comp_exprs) != 2 * k:
        return None
    parts = op.body.elems if isinstance(op.body, ir.Tuple) else (op.body,)
    if len(parts) != k:
        return None
    names = []
    for j, e in enumerate(parts):
        if not (isinstance(e, ir.PrimOp) and e.op in MONOID_PRIMS and len(e.args) == 2):
            return None
        left, right = comp_exprs[j], comp_exprs[k + j]
        if e.args == (left, right) or (e.args == (right, left) and e.op in COMMUTATIVE):
            names.append(e.op)
        else:
            return None
    return names
