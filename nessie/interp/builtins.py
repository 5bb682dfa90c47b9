"""Semantics of every NESL builtin function and constant.

``BUILTINS`` maps each builtin's NESL name (lower case; operators by their symbol:
``+ - * / ^ == /= < > <= >= ++ -> <- # @ ||``, unary minus is ``negate``) to a Python
function ``fn(arg, ctx)``.  A NESL function takes one argument, which may be a
right-nested tuple: ``dist(v, n)`` receives ``(v, n)``, ``rep(s, v, i)`` receives
``(s, (v, i))``.  ``ctx`` is a ``CallContext``: the run's mutable ``Runtime`` (semantics,
random generator, output, file directory), the source span of the call (for run-time
errors) and the call's monomorphic argument and result types (``nessie.types`` values), which a
few builtins need (the identity of a reduction over an empty sequence, ``@``).

``CONSTANTS`` gives the predefined names (``pi``, ``max_int``, ``space``, ...) as functions of
the ``Semantics``.

Semantics follow NESL 3.1 (NESL.md is authoritative).  All scans are exclusive;
reductions of empty sequences give the operator's identity (``sum`` 0, ``max_val`` the
least value of the type: ``min_int``, ``-inf``, the character of code 0); int arithmetic
wraps to the configured word; int ``/`` truncates toward zero, ``rem`` has the sign of the
dividend, ``mod`` the sign of the divisor; int division by zero is a run-time error, float
division follows IEEE.  Where NESL.md leaves a behaviour open the choice is documented at
the builtin (search for "Choice:").
"""

from __future__ import annotations

import math
import os
import re
import struct
from typing import Any, Callable, TextIO

import numpy as np

import lambda_cu.fmath as fmath
from nessie.glibc_random import GlibcRandom, rand_float, rand_int
from nessie.output import Output

from . import errors as E
from .errors import RuntimeNeslError
from .printing import format_float, format_value
from .values import DEFAULT_SEMANTICS, DataVal, SegDes, Semantics, Seq
from .vtypes import Datatypes, TBase, TSeq, as_type

_MASK64 = (1 << 64) - 1


# --------------------------------------------------------------------------------------
# Run-time state and call context
# --------------------------------------------------------------------------------------



class Runtime:
    """Mutable state of one run: semantics, random generator, output, file directory, the
    program's datatypes (for printing) and the printing option ``print_length``
    (``set print_length N;``)."""

    def __init__(self, sem: Semantics = DEFAULT_SEMANTICS, out: TextIO | Output | None = None,
                 base_dir: str | None = None, print_length: int = 100,
                 datatypes: Datatypes | None = None) -> None:
        self.sem = sem
        self.datatypes = datatypes if datatypes is not None else Datatypes()
        #: the generator of ``rand``: glibc's ``random()`` (``nessie.glibc_random``), seeded
        #: with ``srandom(sem.seed)`` before every top-level item (``reseed``)
        self.rng = GlibcRandom(sem.seed)
        self.out = out if isinstance(out, Output) else Output(out)
        self.base_dir = base_dir if base_dir is not None else os.getcwd()
        self.print_length = print_length

    def reseed(self) -> None:
        """``srandom(seed)``: what the original does before each top-level item."""
        self.rng.seed(self.sem.seed)

    def context(self, span: Any = None, arg_type: Any = None, res_type: Any = None) -> "CallContext":
        return CallContext(self, span, arg_type, res_type)


class CallContext:
    """What a builtin sees of one call: the runtime, the call's span, its types."""

    __slots__ = ("rt", "span", "arg_type", "res_type")

    def __init__(self, rt: Runtime, span: Any = None, arg_type: Any = None, res_type: Any = None) -> None:
        self.rt = rt
        self.span = span
        self.arg_type = None if arg_type is None else as_type(arg_type)
        self.res_type = None if res_type is None else as_type(res_type)

    @property
    def sem(self) -> Semantics:
        return self.rt.sem

    def error(self, message: str) -> RuntimeNeslError:
        return RuntimeNeslError(self.span, message)


BuiltinFn = Callable[[Any, CallContext], Any]
BUILTINS: dict[str, BuiltinFn] = {}


def builtin(*names: str) -> Callable[[BuiltinFn], BuiltinFn]:
    def register(fn: BuiltinFn) -> BuiltinFn:
        for name in names:
            if name in BUILTINS:
                raise ValueError(f"builtin {name} defined twice")
            BUILTINS[name] = fn
        return fn
    return register


def call(name: str, arg: Any, ctx: CallContext) -> Any:
    """Apply builtin ``name`` to ``arg``."""
    return BUILTINS[name](arg, ctx)


# --------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------

def _is_bool(x: Any) -> bool:
    return type(x) is bool


def _is_int(x: Any) -> bool:
    return type(x) is int


def _check_length(ctx: CallContext, n: int) -> None:
    """A sequence of ``n`` elements may be built (see ``errors.MAX_SEQ_LENGTH``)."""
    if n > E.MAX_SEQ_LENGTH:
        raise ctx.error(E.SEQUENCE_TOO_LONG)


def _check_index(ctx: CallContext, i: int, n: int) -> None:
    if not 0 <= i < n:
        raise ctx.error(E.SUBSCRIPT_OUT_OF_BOUNDS)


def _same_length(ctx: CallContext, *seqs: Seq) -> int:
    n = len(seqs[0])
    for s in seqs[1:]:
        if len(s) != n:
            raise ctx.error(E.LENGTH_MISMATCH)
    return n


def _elem_kind(seq: Seq, ctx: CallContext, which: str = "arg") -> str:
    """Name of the scalar element type of ``seq``: from an element if there is one, else
    from the call's type (``arg_type`` is ``[t]``, or ``res_type`` is ``t``)."""
    if len(seq):
        x = seq.items[0]
        if _is_bool(x):
            return "bool"
        if _is_int(x):
            return "int"
        if type(x) is float:
            return "float"
        if type(x) is str:
            return "char"
        raise TypeError(f"not a scalar element: {x!r}")
    ty = ctx.arg_type if which == "arg" else ctx.res_type
    if which == "arg" and isinstance(ty, TSeq):
        ty = ty.elem
    if isinstance(ty, TBase):
        return ty.name
    raise TypeError("the element type of an empty sequence is needed: call the builtin "
                    "with the call's argument type")


def _least(kind: str, sem: Semantics) -> Any:
    return {"int": sem.min_int, "float": -math.inf, "char": "\x00"}[kind]


def _greatest(kind: str, sem: Semantics) -> Any:
    return {"int": sem.max_int, "float": math.inf, "char": "\xff"}[kind]


def _ieee(fn: Callable[..., Any], *args: float) -> float:
    """A float operation with IEEE results (inf, nan) instead of Python exceptions."""
    with np.errstate(all="ignore"):
        return float(fn(*(np.float64(a) for a in args)))


def _float_to_int(x: float, ctx: CallContext) -> int:
    # Choice: a non-finite float converts to min_int (the x86 "integer indefinite"
    # value C compilers produce); a finite one wraps to the word.
    if math.isnan(x) or math.isinf(x):
        return ctx.sem.min_int
    return ctx.sem.wrap(int(x))


# --------------------------------------------------------------------------------------
# Scalars: arithmetic
# --------------------------------------------------------------------------------------

@builtin("+")
def _plus(arg, ctx):
    x, y = arg
    return ctx.sem.wrap(x + y) if _is_int(x) else x + y


@builtin("-")
def _minus(arg, ctx):
    x, y = arg
    return ctx.sem.wrap(x - y) if _is_int(x) else x - y


@builtin("*")
def _times(arg, ctx):
    x, y = arg
    return ctx.sem.wrap(x * y) if _is_int(x) else x * y


def _int_quotient(x: int, y: int, ctx: CallContext) -> int:
    if y == 0:
        raise ctx.error(E.DIVIDE_BY_ZERO)
    q = abs(x) // abs(y)
    return q if (x < 0) == (y < 0) else -q


@builtin("/")
def _divide(arg, ctx):
    x, y = arg
    if _is_int(x):
        return ctx.sem.wrap(_int_quotient(x, y, ctx))
    return _ieee(np.divide, x, y)


@builtin("rem")
def _rem(arg, ctx):
    """Remainder with the sign of the dividend: ``rem(-7, 3) = -1``."""
    x, y = arg
    if _is_int(x):
        return ctx.sem.wrap(x - y * _int_quotient(x, y, ctx))
    return _ieee(np.fmod, x, y)


@builtin("mod")
def _mod(arg, ctx):
    """Modulus with the sign of the divisor: ``mod(-7, 3) = 2``."""
    x, y = arg
    if _is_int(x):
        if y == 0:
            raise ctx.error(E.DIVIDE_BY_ZERO)
        return x % y
    return _ieee(np.mod, x, y)


@builtin("^")
def _power(arg, ctx):
    """``x ^ n`` for an int exponent.  Choice: a negative exponent gives ``1 / x^-n``
    (for an int base that division truncates, so it is 0 unless ``x`` is 1 or -1, and
    a divide-by-zero error for 0)."""
    x, n = arg
    if _is_int(x):
        if n >= 0:
            return ctx.sem.wrap(pow(x, n, 1 << ctx.sem.int_bits))
        # 1 / x^-n of the exact power (a wrapped power of 0 would be a false division by zero)
        if x == 0:
            raise ctx.error(E.DIVIDE_BY_ZERO)
        return 1 if x == 1 else (-1 if n % 2 else 1) if x == -1 else 0
    if abs(n) > 2 ** 53:
        # float(n) would round an odd exponent to an even one (64-bit ints): the magnitude
        # from |x|, the sign from n's parity, as C's pow(x, n) for an exactly odd n
        r = fmath.py_function("expt")(abs(x), float(n))
        return -r if n % 2 and math.copysign(1.0, x) < 0 else r
    return fmath.py_function("expt")(x, float(n))


@builtin("negate")
def _negate(x, ctx):
    return ctx.sem.wrap(-x) if _is_int(x) else -x


@builtin("abs")
def _abs(x, ctx):
    return ctx.sem.wrap(abs(x)) if _is_int(x) else abs(x)


@builtin("diff")
def _diff(arg, ctx):
    """The absolute difference ``abs(x - y)``."""
    x, y = arg
    # the difference wraps first, as the int arithmetic of every backend (and C) does
    return ctx.sem.wrap(abs(ctx.sem.wrap(x - y))) if _is_int(x) else abs(x - y)


@builtin("max")
def _max(arg, ctx):
    """Choice: a NaN argument gives NaN (IEEE maxNum is not what NESL's vector machines did;
    NaN propagation is what numpy and GPU ``fmax``-free code give, and it is symmetric)."""
    x, y = arg
    return _max_op(x, y)


@builtin("min")
def _min(arg, ctx):
    x, y = arg
    return _min_op(x, y)


# --------------------------------------------------------------------------------------
# Scalars: comparisons, logic, predicates, shifts
# --------------------------------------------------------------------------------------

@builtin("==")
def _eq(arg, ctx):
    x, y = arg
    return x == y


@builtin("/=")
def _ne(arg, ctx):
    x, y = arg
    return x != y


@builtin("<")
def _lt(arg, ctx):
    x, y = arg
    return x < y


@builtin(">")
def _gt(arg, ctx):
    x, y = arg
    return x > y


@builtin("<=")
def _le(arg, ctx):
    x, y = arg
    return x <= y


@builtin(">=")
def _ge(arg, ctx):
    x, y = arg
    return x >= y


@builtin("not")
def _not(x, ctx):
    """Logical negation of a bool, bitwise complement of an int."""
    return (not x) if _is_bool(x) else ~x


@builtin("and")
def _and(arg, ctx):
    x, y = arg
    return (x and y) if _is_bool(x) else x & y


@builtin("or")
def _or(arg, ctx):
    x, y = arg
    return (x or y) if _is_bool(x) else x | y


@builtin("xor")
def _xor(arg, ctx):
    x, y = arg
    return (x != y) if _is_bool(x) else x ^ y


@builtin("nor")
def _nor(arg, ctx):
    x, y = arg
    return (not (x or y)) if _is_bool(x) else ~(x | y)


@builtin("nand")
def _nand(arg, ctx):
    x, y = arg
    return (not (x and y)) if _is_bool(x) else ~(x & y)


@builtin("plusp")
def _plusp(x, ctx):
    return x > 0


@builtin("minusp")
def _minusp(x, ctx):
    return x < 0


@builtin("zerop")
def _zerop(x, ctx):
    return x == 0


@builtin("oddp")
def _oddp(x, ctx):
    return x % 2 == 1


@builtin("evenp")
def _evenp(x, ctx):
    return x % 2 == 0


# Shifts as in CMU NESL, whose VCODE/CVL runtime does C's ``a << b`` / ``a >> b`` on ints: on
# x86 the count is taken modulo the width (its low 5 bits, 6 for 64-bit ints), so a negative or
# too large count is not an error and does not shift everything out: ``rshift(8, -1)`` is
# ``8 >> 31`` = 0, ``lshift(1, 33)`` is 2.  The right shift is arithmetic.


@builtin("lshift")
def _lshift(arg, ctx):
    """``lshift(x, n) = x << (n mod width)``, wrapped."""
    x, n = arg
    return ctx.sem.wrap(x << (n & (ctx.sem.int_bits - 1)))


@builtin("rshift")
def _rshift(arg, ctx):
    """Arithmetic (sign-propagating) ``x >> (n mod width)``."""
    x, n = arg
    return x >> (n & (ctx.sem.int_bits - 1))


# --------------------------------------------------------------------------------------
# Scalars: float functions and conversions
# --------------------------------------------------------------------------------------

def _unary_float(name: str, fn: Callable) -> None:
    BUILTINS[name] = lambda x, ctx: _ieee(fn, x)


# sqrt is IEEE (correctly rounded everywhere); the transcendental functions come from the
# portable math library every backend shares (lambda_cu/fmath.py: the same bits on any CPU, in
# numpy and in OpenCL C), not from the platform's libm or numpy's CPU-dependent routines
_unary_float("sqrt", np.sqrt)


def _fmath_unary(name: str) -> None:
    # the library's Python-float version (fmath.py: the same bits as its numpy and OpenCL
    # versions, ~5 us a call where numpy on one element costs ~90 us), built on first use
    BUILTINS[name] = lambda x, ctx: fmath.py_function(name)(x)


for _name in ("ln", "exp", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh"):
    _fmath_unary(_name)


@builtin("log")
def _log(arg, ctx):
    """``log(x, base) = ln(x) / ln(base)``."""
    x, base = arg
    return fmath.py_function("log")(x, base)


@builtin("expt")
def _expt(arg, ctx):
    """``expt(x, y) = x`` to the float power ``y``."""
    x, y = arg
    return fmath.py_function("expt")(x, y)


@builtin("isqrt")
def _isqrt(x, ctx):
    """Integer square root (floor).  Choice: a negative argument is a run-time error."""
    if x < 0:
        raise ctx.error(E.NEGATIVE_ISQRT)
    return math.isqrt(x)


@builtin("btoi")
def _btoi(b, ctx):
    return 1 if b else 0


@builtin("code_char")
def _code_char(i, ctx):
    """The character of code ``i``.  Choice: NESL chars are 8-bit, the code is taken
    modulo 256."""
    return chr(i % 256)


@builtin("char_code")
def _char_code(c, ctx):
    return ord(c)


@builtin("float")
def _float(i, ctx):
    return float(i)


@builtin("ceil")
def _ceil(x, ctx):
    return _float_to_int(math.ceil(x) if math.isfinite(x) else x, ctx)


@builtin("floor")
def _floor(x, ctx):
    return _float_to_int(math.floor(x) if math.isfinite(x) else x, ctx)


@builtin("trunc")
def _trunc(x, ctx):
    return _float_to_int(math.trunc(x) if math.isfinite(x) else x, ctx)


@builtin("round")
def _round(x, ctx):
    """Nearest integer.  Choice: halves round to even (IEEE ``rint``, also Common Lisp's
    ``round``, which the original front end used)."""
    return _float_to_int(float(np.rint(x)) if math.isfinite(x) else x, ctx)


@builtin("rand")
def _rand(x, ctx):
    """Uniform in ``[0, x)``, as the original computes it with the C library's ``random()``
    (``nessie.glibc_random``): ``random() % x`` on ints, ``x * float(random() % 2**30) / 2**30``
    on floats; one draw per call.  Choices (the original's manual only speaks of a positive
    ``x``): a negative int ``x`` gives C's ``random() % x``, a number in ``[0, |x|)``;
    ``rand(0)`` is C's ``random() % 0``, a division by zero: ``RUNTIME ERROR: Divide by zero.``
    at the call, drawing nothing; a float ``x <= 0`` gives a number in ``(x, 0]``.

    Which calls draw, and in which order, inside an apply-to-each is the original's flattened
    order (``nessie.interp.vector``): a call whose argument is the same for every element
    draws once."""
    if _is_int(x):
        try:
            return rand_int(ctx.rt.rng, x)
        except ZeroDivisionError:
            raise ctx.error(E.DIVIDE_BY_ZERO) from None
    return rand_float(ctx.rt.rng, x)


@builtin("rand_seed")
def _rand_seed(seed, ctx):
    """``srandom(seed)`` (the seed taken modulo 2**32, as C's ``unsigned int``; 0 acts as 1).
    It lasts until the end of the top-level item: every item starts with ``srandom(0)``.
    Choice: returns ``T`` (like the other side-effecting builtins)."""
    ctx.rt.rng.seed(seed)
    return True


@builtin("select")
def _select(arg, ctx):
    """``select(flag, a, b)``: ``a`` if ``flag`` else ``b`` (both already evaluated)."""
    flag, (a, b) = arg
    return a if flag else b


@builtin("identity")
def _identity(x, ctx):
    return x


@builtin("first")
def _first(arg, ctx):
    return arg[0]


# --------------------------------------------------------------------------------------
# Sequences: construction and access
# --------------------------------------------------------------------------------------

@builtin("#", "length")
def _length(s, ctx):
    return len(s)


@builtin("dist")
def _dist(arg, ctx):
    """``dist(v, n)``: ``n`` copies of ``v``.  Choice: a negative ``n`` gives ``[]``."""
    v, n = arg
    _check_length(ctx, n)
    return Seq((v,) * max(n, 0))


@builtin("elt")
def _elt(arg, ctx):
    """``elt(s, i) = s[i]`` (zero-based)."""
    s, i = arg
    _check_index(ctx, i, len(s))
    return s.items[i]


@builtin("rep")
def _rep(arg, ctx):
    """``rep(s, v, i)``: ``s`` with its ``i``-th element replaced by ``v``."""
    s, (v, i) = arg
    _check_index(ctx, i, len(s))
    items = list(s.items)
    items[i] = v
    return Seq(items)


@builtin("zip")
def _zip(arg, ctx):
    a, b = arg
    _same_length(ctx, a, b)
    return Seq(tuple(zip(a.items, b.items)))


@builtin("zip3")
def _zip3(arg, ctx):
    a, (b, c) = arg
    _same_length(ctx, a, b, c)
    return Seq(tuple((x, (y, z)) for x, y, z in zip(a.items, b.items, c.items)))


@builtin("unzip")
def _unzip(s, ctx):
    return (Seq(tuple(p[0] for p in s.items)), Seq(tuple(p[1] for p in s.items)))


@builtin("index")
def _index(n, ctx):
    """``index(n) = [0, 1, ..., n-1]`` (``[]`` for ``n <= 0``)."""
    _check_length(ctx, n)
    return Seq(tuple(range(n)))


@builtin("iseq")
def _iseq(arg, ctx):
    """``iseq(s, d, e)`` = ``[s:e:d]``: from ``s`` in steps of ``d``, ``e`` excluded.
    Choice: a zero stride is a run-time error (divide by zero, as the length is
    ``(e - s) / d``)."""
    s, (d, e) = arg
    if d == 0:
        raise ctx.error(E.DIVIDE_BY_ZERO)
    _check_length(ctx, len(range(s, e, d)))
    return Seq(tuple(range(s, e, d)))


# --------------------------------------------------------------------------------------
# Scans (exclusive) and reductions
# --------------------------------------------------------------------------------------

def _scan(s: Seq, identity: Any, op: Callable[[Any, Any], Any]) -> Seq:
    acc = identity
    out = []
    for x in s.items:
        out.append(acc)
        acc = op(acc, x)
    return Seq(out)


def _reduce(s: Seq, identity: Any, op: Callable[[Any, Any], Any]) -> Any:
    acc = identity
    for x in s.items:
        acc = op(acc, x)
    return acc


def _plus_op(ctx, kind):
    return (lambda a, b: ctx.sem.wrap(a + b)) if kind == "int" else (lambda a, b: a + b)


def _mult_op(ctx, kind):
    return (lambda a, b: ctx.sem.wrap(a * b)) if kind == "int" else (lambda a, b: a * b)


def _nan(x) -> bool:
    return isinstance(x, float) and x != x


def _max_op(a, b):
    """``a if a > b else b`` (the second of two equal values: -0.0 vs 0.0), NaN-propagating —
    the IEEE/x86 ``max`` that vector hardware and numpy compute."""
    if _nan(a) or _nan(b):
        return math.nan
    return a if a > b else b


def _min_op(a, b):
    if _nan(a) or _nan(b):
        return math.nan
    return a if a < b else b


def _sort_key(x):
    """Ascending order with NaNs last (a total order, as numpy sorts floats)."""
    return (_nan(x), 0.0 if _nan(x) else x)


def _has_nan(v) -> bool:
    if type(v) is float:
        return v != v
    if isinstance(v, Seq):
        return any(_has_nan(x) for x in v.items)
    if isinstance(v, tuple):
        return any(_has_nan(x) for x in v)
    if isinstance(v, DataVal):
        return any(_has_nan(x) for x in v.fields)
    return False


def _deq(a, b) -> bool:
    """Deep equality of two NESL values as ``=`` compares their scalars: a NaN equals nothing,
    not even itself (Python's container equality takes an object as equal to itself, so the
    same NaN bound to a name would otherwise make ``eql([nan], [nan])`` true)."""
    if isinstance(a, Seq):
        return isinstance(b, Seq) and len(a.items) == len(b.items) and \
            all(_deq(x, y) for x, y in zip(a.items, b.items))
    if isinstance(a, tuple):
        return isinstance(b, tuple) and len(a) == len(b) and all(_deq(x, y) for x, y in zip(a, b))
    if isinstance(a, DataVal):
        return isinstance(b, DataVal) and a.name == b.name and _deq(a.fields, b.fields)
    return a == b


class _Unequal:
    """The grouping key of a value that contains a NaN: equal to no other key."""
    __slots__ = ()


def _eq_key(v):
    """A dict/set key of a value under ``_deq``: the value itself, or, when it contains a
    NaN (equal to nothing), a key of its own."""
    return _Unequal() if _has_nan(v) else v


def _zero(kind):
    return 0.0 if kind == "float" else 0


def _one(kind):
    return 1.0 if kind == "float" else 1


def _or_op(kind):
    return (lambda a, b: a or b) if kind == "bool" else (lambda a, b: a | b)


def _and_op(kind):
    return (lambda a, b: a and b) if kind == "bool" else (lambda a, b: a & b)


def _xor_op(kind):
    return (lambda a, b: a != b) if kind == "bool" else (lambda a, b: a ^ b)


def _false(kind):
    return False if kind == "bool" else 0


def _true(kind):
    return True if kind == "bool" else -1


@builtin("plus_scan")
def _plus_scan(s, ctx):
    if not len(s):
        return s
    kind = _elem_kind(s, ctx)
    return _scan(s, _zero(kind), _plus_op(ctx, kind))


@builtin("mult_scan")
def _mult_scan(s, ctx):
    if not len(s):
        return s
    kind = _elem_kind(s, ctx)
    return _scan(s, _one(kind), _mult_op(ctx, kind))


@builtin("max_scan")
def _max_scan(s, ctx):
    if not len(s):
        return s
    return _scan(s, _least(_elem_kind(s, ctx), ctx.sem), _max_op)


@builtin("min_scan")
def _min_scan(s, ctx):
    if not len(s):
        return s
    return _scan(s, _greatest(_elem_kind(s, ctx), ctx.sem), _min_op)


@builtin("or_scan")
def _or_scan(s, ctx):
    if not len(s):
        return s
    kind = _elem_kind(s, ctx)
    return _scan(s, _false(kind), _or_op(kind))


@builtin("and_scan")
def _and_scan(s, ctx):
    if not len(s):
        return s
    kind = _elem_kind(s, ctx)
    return _scan(s, _true(kind), _and_op(kind))


@builtin("xor_scan")
def _xor_scan(s, ctx):
    if not len(s):
        return s
    kind = _elem_kind(s, ctx)
    return _scan(s, _false(kind), _xor_op(kind))


@builtin("sum")
def _sum(s, ctx):
    kind = _elem_kind(s, ctx)
    if kind == "int":
        return ctx.sem.wrap(sum(s.items))
    return _reduce(s, 0.0, lambda a, b: a + b)


@builtin("product")
def _product(s, ctx):
    kind = _elem_kind(s, ctx)
    return _reduce(s, _one(kind), _mult_op(ctx, kind))


@builtin("max_val")
def _max_val(s, ctx):
    return _reduce(s, _least(_elem_kind(s, ctx), ctx.sem), _max_op)


@builtin("min_val")
def _min_val(s, ctx):
    return _reduce(s, _greatest(_elem_kind(s, ctx), ctx.sem), _min_op)


@builtin("any")
def _any(s, ctx):
    kind = _elem_kind(s, ctx)
    return _reduce(s, _false(kind), _or_op(kind))


@builtin("all")
def _all(s, ctx):
    kind = _elem_kind(s, ctx)
    return _reduce(s, _true(kind), _and_op(kind))


@builtin("parity")
def _parity(s, ctx):
    """``T`` when an odd number of the flags are set (xor reduction)."""
    kind = _elem_kind(s, ctx)
    return _reduce(s, _false(kind), _xor_op(kind))


@builtin("count")
def _count(flags, ctx):
    return sum(1 for f in flags.items if f)


@builtin("max_index")
def _max_index(s, ctx):
    """Index of the leftmost maximum.  Choice: -1 for an empty sequence."""
    best = -1
    for i, x in enumerate(s.items):
        if best < 0 or x > s.items[best]:
            best = i
    return best


@builtin("min_index")
def _min_index(s, ctx):
    """Index of the leftmost minimum.  Choice: -1 for an empty sequence."""
    best = -1
    for i, x in enumerate(s.items):
        if best < 0 or x < s.items[best]:
            best = i
    return best


# --------------------------------------------------------------------------------------
# Sequences: permutations, gathers, scatters
# --------------------------------------------------------------------------------------

def _gather(s: Seq, idx: Seq, ctx: CallContext) -> Seq:
    n = len(s)
    items = s.items
    out = []
    for i in idx.items:
        if not 0 <= i < n:
            raise ctx.error(E.SUBSCRIPT_OUT_OF_BOUNDS)
        out.append(items[i])
    return Seq(out)


@builtin("->", "read")
def _read(arg, ctx):
    """``s -> idx``: ``{s[i] : i in idx}``."""
    s, idx = arg
    return _gather(s, idx, ctx)


@builtin("get")
def _get(arg, ctx):
    """``get(s, idx)``: the elements of ``s`` at ``idx`` -- the function form of ``->``."""
    s, idx = arg
    return _gather(s, idx, ctx)


def _scatter(d: Seq, pairs: Any, ctx: CallContext) -> Seq:
    out = list(d.items)
    n = len(out)
    for i, v in pairs:
        if not 0 <= i < n:
            raise ctx.error(E.SUBSCRIPT_OUT_OF_BOUNDS)
        out[i] = v
    return Seq(out)


@builtin("<-", "write")
def _write(arg, ctx):
    """``d <- [(i, v), ...]``: a copy of ``d`` with ``v`` written at ``i``.  With
    repeated indices the last pair wins."""
    d, pairs = arg
    return _scatter(d, pairs.items, ctx)


@builtin("put")
def _put(arg, ctx):
    """``put(v, i, d)``: the values ``v`` written into ``d`` at the indices ``i`` --
    ``d <- zip(i, v)`` (lengths of ``v`` and ``i`` must agree; the last write wins)."""
    v, (idx, d) = arg
    _same_length(ctx, v, idx)
    return _scatter(d, zip(idx.items, v.items), ctx)


@builtin("permute")
def _permute(arg, ctx):
    """``permute(s, idx)``: element ``s[j]`` goes to position ``idx[j]``; ``idx`` must be
    a permutation of ``[0, #s)``."""
    s, idx = arg
    n = len(s)
    if len(idx) != n:
        raise ctx.error(E.NOT_A_PERMUTATION)
    out: list[Any] = [None] * n
    seen = [False] * n
    for x, i in zip(s.items, idx.items):
        if not 0 <= i < n or seen[i]:
            raise ctx.error(E.NOT_A_PERMUTATION)
        seen[i] = True
        out[i] = x
    return Seq(out)


@builtin("rotate")
def _rotate(arg, ctx):
    """``rotate(s, i)``: element ``j`` moves to ``(j + i) mod #s``;
    ``rotate([1, 2, 3, 4], 1) = [4, 1, 2, 3]``."""
    s, i = arg
    n = len(s)
    if n == 0:
        return s
    k = i % n
    return Seq(s.items[n - k:] + s.items[: n - k])


@builtin("reverse")
def _reverse(s, ctx):
    return Seq(s.items[::-1])


@builtin("pack")
def _pack(s, ctx):
    """``pack([(v, flag), ...])``: the values whose flag is set, in order."""
    return Seq(tuple(v for v, f in s.items if f))


@builtin("++", "append")
def _append(arg, ctx):
    a, b = arg
    return Seq(a.items + b.items)


@builtin("cons")
def _cons(arg, ctx):
    v, s = arg
    return Seq((v,) + s.items)


@builtin("snoc")
def _snoc(arg, ctx):
    s, v = arg
    return Seq(s.items + (v,))


def _subseq(s: Seq, start: int, end: int, ctx: CallContext) -> Seq:
    # Choice (for subseq, take, drop): defined as the gather ``s -> [start:end]``, so an
    # empty range is fine and any index of a non-empty range outside ``s`` is an error.
    if start < end and (start < 0 or end > len(s)):
        raise ctx.error(E.SUBSCRIPT_OUT_OF_BOUNDS)
    return Seq(s.items[start:end]) if start < end else Seq(())


@builtin("subseq")
def _subseq_b(arg, ctx):
    """``subseq(s, start, end)``: the elements ``start .. end-1``."""
    s, (start, end) = arg
    return _subseq(s, start, end, ctx)


@builtin("take")
def _take(arg, ctx):
    """``take(s, n)``: the first ``n`` elements (``n > #s`` is an error)."""
    s, n = arg
    return _subseq(s, 0, n, ctx)


@builtin("drop")
def _drop(arg, ctx):
    """``drop(s, n)``: all but the first ``n`` elements (``[]`` when ``n >= #s``)."""
    s, n = arg
    return _subseq(s, n, len(s), ctx)


@builtin("odd_elts")
def _odd_elts(s, ctx):
    """The elements at odd positions 1, 3, 5, ..."""
    return Seq(s.items[1::2])


@builtin("even_elts")
def _even_elts(s, ctx):
    """The elements at even positions 0, 2, 4, ..."""
    return Seq(s.items[0::2])


@builtin("interleave")
def _interleave(arg, ctx):
    """``interleave(a, b) = [a0, b0, a1, b1, ...]``.  Choice: ``#a`` may exceed ``#b`` by
    one (so that ``interleave(even_elts(s), odd_elts(s)) = s``); other lengths are a
    length mismatch."""
    a, b = arg
    if len(a) - len(b) not in (0, 1):
        raise ctx.error(E.LENGTH_MISMATCH)
    out: list[Any] = [None] * (len(a) + len(b))
    out[0::2] = a.items
    out[1::2] = b.items
    return Seq(out)


@builtin("head_rest")
def _head_rest(s, ctx):
    """``(s[0], drop(s, 1))``."""
    _check_index(ctx, 0, len(s))
    return (s.items[0], Seq(s.items[1:]))


@builtin("rest_tail")
def _rest_tail(s, ctx):
    """``(take(s, #s - 1), s[#s - 1])``."""
    _check_index(ctx, 0, len(s))
    return (Seq(s.items[:-1]), s.items[-1])


# --------------------------------------------------------------------------------------
# Nested sequences
# --------------------------------------------------------------------------------------

def _partition(s: Seq, counts: list[int], ctx: CallContext) -> Seq:
    if any(c < 0 for c in counts) or sum(counts) != len(s):
        raise ctx.error(E.PARTITION_COUNTS)
    out = []
    pos = 0
    for c in counts:
        out.append(Seq(s.items[pos:pos + c]))
        pos += c
    return Seq(out)


@builtin("partition")
def _partition_b(arg, ctx):
    """``partition(s, counts)``: ``s`` cut into segments of the given lengths."""
    s, counts = arg
    return _partition(s, list(counts.items), ctx)


@builtin("flatten")
def _flatten(s, ctx):
    out: list[Any] = []
    for seg in s.items:
        out.extend(seg.items)
    return Seq(out)


@builtin("split")
def _split(arg, ctx):
    """``split(s, flags) = [elements with flag F, elements with flag T]``."""
    s, flags = arg
    _same_length(ctx, s, flags)
    falses = tuple(x for x, f in zip(s.items, flags.items) if not f)
    trues = tuple(x for x, f in zip(s.items, flags.items) if f)
    return Seq((Seq(falses), Seq(trues)))


@builtin("split_index")
def _split_index(flags, ctx):
    """``split_index(flags) = (counts, positions)``: ``counts = [#F, #T]`` and each
    element's position in ``flatten(split(s, flags))`` (F elements first)."""
    n_false = sum(1 for f in flags.items if not f)
    down = up = 0
    positions = []
    for f in flags.items:
        if f:
            positions.append(n_false + up)
            up += 1
        else:
            positions.append(down)
            down += 1
    return (Seq((n_false, len(flags) - n_false)), Seq(positions))


@builtin("pack_index")
def _pack_index(flags, ctx):
    """The indices of the set flags."""
    return Seq(tuple(i for i, f in enumerate(flags.items) if f))


@builtin("bottop")
def _bottop(s, ctx):
    """``[bottom, top]``: the first ``ceil(#s / 2)`` elements and the rest."""
    half = (len(s) + 1) // 2
    return Seq((Seq(s.items[:half]), Seq(s.items[half:])))


@builtin("length_from_flags")
def _length_from_flags(flags, ctx):
    """Segment lengths from segment-start flags: ``[T, F, F, T, F] -> [3, 2]``.  Elements
    before the first set flag belong to no segment."""
    starts = [i for i, f in enumerate(flags.items) if f]
    ends = starts[1:] + [len(flags)]
    return Seq(tuple(e - s for s, e in zip(starts, ends)))


@builtin("transpose")
def _transpose(m, ctx):
    """Rows become columns; all rows must have the same length."""
    if not len(m):
        return m
    width = _same_length(ctx, *m.items)
    return Seq(tuple(Seq(tuple(row.items[j] for row in m.items)) for j in range(width)))


@builtin("make_segdes")
def _make_segdes(n, ctx):
    return SegDes(n)


@builtin("nest")
def _nest(arg, ctx):
    """``nest(s, segdess)``: ``s`` partitioned by the lengths of the segment descriptors."""
    s, descs = arg
    return _partition(s, [d.length for d in descs.items], ctx)


# --------------------------------------------------------------------------------------
# Sorting, searching, sets
# --------------------------------------------------------------------------------------

@builtin("sort")
def _sort(s, ctx):
    return Seq(tuple(sorted(s.items, key=_sort_key)))


@builtin("rank")
def _rank(s, ctx):
    """``rank(s)[i]``: the position of ``s[i]`` in the stable ascending sort of ``s``."""
    order = sorted(range(len(s)), key=lambda i: _sort_key(s.items[i]))
    out = [0] * len(s)
    for pos, i in enumerate(order):
        out[i] = pos
    return Seq(out)


@builtin("rank_down")
def _rank_down(s, ctx):
    """Like ``rank`` for the stable descending sort (equal elements keep their order)."""
    # NaNs last, as in the ascending rank (a total order; equal elements keep their order)
    nans = [i for i, x in enumerate(s.items) if _nan(x)]
    order = sorted((i for i, x in enumerate(s.items) if not _nan(x)),
                   key=s.items.__getitem__, reverse=True) + nans
    out = [0] * len(s)
    for pos, i in enumerate(order):
        out[i] = pos
    return Seq(out)


def _collect(pairs: Seq) -> Seq:
    # a NaN key is a group of its own (it equals no key); NaN keys sort last
    groups: dict[Any, tuple] = {}
    for k, v in pairs.items:
        groups.setdefault(_eq_key(k), (k, []))[1].append(v)
    return Seq(tuple((k, Seq(vs)) for k, vs in sorted(groups.values(),
                                                      key=lambda g: _sort_key(g[0]))))


@builtin("collect")
def _collect_b(pairs, ctx):
    """``collect([(key, value), ...]) = [(key, [values with that key]), ...]`` -- keys in
    increasing order, each key's values in their original order."""
    return _collect(pairs)


@builtin("int_collect")
def _int_collect(pairs, ctx):
    """``collect`` for int keys (the original implements it with a bucket sort)."""
    return _collect(pairs)


@builtin("kth_smallest")
def _kth_smallest(arg, ctx):
    """``kth_smallest(s, k) = sort(s)[k]`` (``k`` zero-based)."""
    s, k = arg
    _check_index(ctx, k, len(s))
    return sorted(s.items, key=_sort_key)[k]


@builtin("find")
def _find(arg, ctx):
    """``find(v, s)``: the index of the first element of ``s`` equal to ``v`` (deep equality,
    as ``eql``: ``find("b", ["a", "b"])`` is 1), or -1."""
    v, s = arg
    for i, x in enumerate(s.items):
        if _deq(x, v):
            return i
    return -1


@builtin("search_for_subseqs")
def _search_for_subseqs(arg, ctx):
    """``search_for_subseqs(w, s)``: the positions of ``s`` where ``w`` starts, in order
    (every position ``0 .. #s - #w`` for an empty ``w``)."""
    w, s = arg
    m = len(w)
    return Seq(tuple(i for i in range(len(s) - m + 1)
                     if all(_deq(x, y) for x, y in zip(s.items[i:i + m], w.items))))


def _first_occurrence(s: Seq) -> list[int]:
    seen: dict[Any, int] = {}
    return [seen.setdefault(_eq_key(x), i) for i, x in enumerate(s.items)]


def _last_occurrence(s: Seq) -> list[int]:
    keys = [_eq_key(x) for x in s.items]
    last: dict[Any, int] = {}
    for i, k in enumerate(keys):
        last[k] = i
    return [last[k] for k in keys]


@builtin("mark_duplicates")
def _mark_duplicates(s, ctx):
    """``T`` at the one element of each distinct value that ``name`` labels it with (its last
    occurrence), ``F`` at the others (so ``remove_duplicates(s) = pack(zip(s,
    mark_duplicates(s)))``).  Values of any type (deep equality)."""
    return Seq(tuple(j == i for i, j in enumerate(_last_occurrence(s))))


@builtin("remove_duplicates")
def _remove_duplicates(s, ctx):
    """The distinct values of ``s`` (any type, deep equality), as the original computes
    them: equal elements are labelled by ``name`` and the element at the labelled position
    is kept, which is the last occurrence (``[4, 1, 4, 2, 1, 3]`` gives ``[4, 2, 1, 3]``)."""
    lasts = _last_occurrence(s)
    return Seq(tuple(x for i, x in enumerate(s.items) if lasts[i] == i))


@builtin("name")
def _name(s, ctx):
    """Each element is named by the index of the last occurrence of its value (the
    original's hashing scatter lets the last write win), so equal elements get equal names,
    all in ``[0, #s)``."""
    return Seq(_last_occurrence(s))


def _distinct_first(s: Seq) -> Seq:
    firsts = _first_occurrence(s)
    return Seq(tuple(x for i, x in enumerate(s.items) if firsts[i] == i))


@builtin("union")
def _union(arg, ctx):
    """Choice: the distinct values of ``a ++ b``, in order of first occurrence."""
    a, b = arg
    return _distinct_first(Seq(a.items + b.items))


@builtin("intersection")
def _intersection(arg, ctx):
    """Choice: the distinct values of ``a`` that occur in ``b``, in ``a``'s order."""
    a, b = arg
    in_b = {_eq_key(x) for x in b.items}
    return Seq(tuple(x for x in _distinct_first(a).items if _eq_key(x) in in_b))


# --------------------------------------------------------------------------------------
# More of the original's sequence library (issue 10).  The flattening backends expand these
# into typed NESL (nessie/flatten/builtins.py); these are independent implementations with
# the same results and the same run-time errors.
# --------------------------------------------------------------------------------------

@builtin("enumerate")
def _enumerate(flags, ctx):
    """``enumerate(flags)``: for each flag the number of ``T`` flags before it
    (``enumerate([T, F, T, T]) = [0, 1, 1, 2]``)."""
    out = []
    k = 0
    for fl in flags.items:
        out.append(k)
        k += 1 if fl else 0
    return Seq(out)


@builtin("group_by")
def _group_by(arg, ctx):
    """``group_by(s, n)``: ``s`` cut into consecutive groups of ``n`` elements, the last one
    shorter (``group_by([1, 2, 3, 4, 5], 2) = [[1, 2], [3, 4], [5]]``); ``n = 0`` divides
    by zero, a negative ``n`` gives counts that do not partition ``s``."""
    s, n = arg
    m = len(s)
    # as the definition computes it (flatten/builtins.py), without overflow for a large n
    k = (m - 1) // n + 1 if n > 0 and m > 0 else _int_quotient(ctx.sem.wrap(m + n - 1), n, ctx)
    return _partition(s, [min(n, m - i * n) for i in range(k)], ctx)


@builtin("median")
def _median(s, ctx):
    """``median(s)``: the element of rank ``#s / 2`` (``kth_smallest(s, #s / 2)``)."""
    k = len(s) // 2
    _check_index(ctx, k, len(s))
    return sorted(s.items, key=_sort_key)[k]


@builtin("previous")
def _previous(arg, ctx):
    """``previous(s, v)``: each element replaced by the one before it, ``v`` first
    (``previous([1, 2, 3], 0) = [0, 1, 2]``; an empty ``s`` is out of bounds, as the
    original's ``rotate(rep(s, v, #s - 1), 1)``)."""
    s, v = arg
    _check_index(ctx, len(s) - 1, len(s))
    return Seq((v,) + s.items[:-1])


@builtin("rest")
def _rest(s, ctx):
    """``rest(s)``: all but the first element (empty for an empty ``s``)."""
    return Seq(s.items[1:])


@builtin("join")
def _join(arg, ctx):
    """``join(v1, p1, v2, p2)``: the elements of ``v1`` put at positions ``p1`` and those of
    ``v2`` at ``p2`` (the inverse of splitting by flags: ``permute(v1 ++ v2, p1 ++ p2)``)."""
    v1, (p1, (v2, p2)) = arg
    return _permute((Seq(v1.items + v2.items), Seq(p1.items + p2.items)), ctx)


@builtin("vpair")
def _vpair(arg, ctx):
    """``vpair(a, b) = [a, b]``."""
    a, b = arg
    return Seq((a, b))


@builtin("flag_merge")
def _flag_merge(arg, ctx):
    """``flag_merge(flags, v1, v2)``: the elements of ``v1`` where the flags are ``F`` and
    of ``v2`` where they are ``T``, each in order (the inverse of ``split``)."""
    flags, (v1, v2) = arg
    out = []
    i1 = i2 = 0
    for fl in flags.items:
        if fl:
            _check_index(ctx, i2, len(v2))
            out.append(v2.items[i2])
            i2 += 1
        else:
            _check_index(ctx, i1, len(v1))
            out.append(v1.items[i1])
            i1 += 1
    return Seq(out)


@builtin("cond_put")
def _cond_put(arg, ctx):
    """``cond_put(v, i, flags, d)``: ``put`` of the values whose flag is ``T`` only."""
    v, (idx, (flags, d)) = arg
    _same_length(ctx, v, idx, flags)
    return _scatter(d, [(j, x) for x, j, fl in zip(v.items, idx.items, flags.items) if fl], ctx)


@builtin("eql")
def _eql(arg, ctx):
    """Deep structural equality of two values of the same type."""
    a, b = arg
    return _deq(a, b)


def _structural_hash(v: Any) -> int:
    if type(v) is bool:
        h = 2 + int(v)
    elif type(v) is int:
        h = v & _MASK64
    elif type(v) is float:
        h = struct.unpack("<Q", struct.pack("<d", 0.0 if v == 0.0 else v))[0]
    elif type(v) is str:
        h = ord(v)
    elif isinstance(v, Seq):
        h = 0x345678 + len(v)
        for x in v.items:
            h = ((h * 1000003) ^ _structural_hash(x)) & _MASK64
    elif isinstance(v, tuple):
        h = ((_structural_hash(v[0]) * 1000003) ^ _structural_hash(v[1]) ^ 0x9E37) & _MASK64
    elif isinstance(v, DataVal):
        h = _structural_hash(Seq(tuple(v.name)))
        for x in v.fields:
            h = ((h * 1000003) ^ _structural_hash(x)) & _MASK64
    elif isinstance(v, SegDes):
        h = v.length & _MASK64
    else:
        raise TypeError(f"not a NESL value: {v!r}")
    # SplitMix64 finaliser: spreads the bits so that small ranges are used evenly.
    h = ((h ^ (h >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    h = ((h ^ (h >> 27)) * 0x94D049BB133111EB) & _MASK64
    return h ^ (h >> 31)


@builtin("hash")
def _hash(arg, ctx):
    """``hash(v, n)``: a deterministic hash of the value ``v`` in ``[0, n)``; equal values
    hash equally.  Choice: the hash function (a structural SplitMix64 mix) is ours; the
    range is taken with ``mod`` (so ``n = 0`` is a divide-by-zero error)."""
    v, n = arg
    if n == 0:
        raise ctx.error(E.DIVIDE_BY_ZERO)
    return _structural_hash(v) % n


# --------------------------------------------------------------------------------------
# Characters, strings and output
# --------------------------------------------------------------------------------------

def _text(s: Seq) -> str:
    return "".join(s.items)


def _string(text: str) -> Seq:
    return Seq(tuple(text))


@builtin("lowercase")
def _lowercase(c, ctx):
    """ASCII lower case of a char (other characters unchanged)."""
    return chr(ord(c) + 32) if "A" <= c <= "Z" else c


@builtin("uppercase")
def _uppercase(c, ctx):
    """ASCII upper case of a char (other characters unchanged)."""
    return chr(ord(c) - 32) if "a" <= c <= "z" else c


@builtin("@")
def _to_string(v, ctx):
    """``@v``: the printed form of any value, as ``[char]`` (never cut by print_length)."""
    if ctx.arg_type is None:
        raise TypeError("@ needs the call's argument type")
    return _string(format_value(v, ctx.arg_type, print_length=None, datatypes=ctx.rt.datatypes))


@builtin("||")
def _pad(arg, ctx):
    """``s || n``: ``s`` padded with spaces to width ``|n|``.  Choice: a positive ``n``
    right-justifies (pads on the left), a negative one left-justifies; a string wider
    than ``|n|`` is returned unchanged."""
    s, n = arg
    # the width in NESL's ints, as the definition computes it (abs(min_int) wraps)
    w = max(ctx.sem.wrap(ctx.sem.wrap(abs(n)) - len(s)), 0)
    _check_length(ctx, w)
    fill = (" ",) * w
    return Seq(fill + s.items) if n >= 0 else Seq(s.items + fill)


@builtin("string_eql")
def _string_eql(arg, ctx):
    a, b = arg
    return a == b


_INT_SYNTAX = re.compile(r"\s*([+-]?\d+)\s*\Z")
_FLOAT_SYNTAX = re.compile(r"\s*([+-]?(?:\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?))\s*\Z")


@builtin("parse_int")
def _parse_int(s, ctx):
    """``parse_int(str) = (value, ok)``: an optionally signed decimal, surrounding
    whitespace allowed; ``(0, F)`` otherwise.  The value wraps to the word."""
    m = _INT_SYNTAX.match(_text(s))
    if not m:
        return (0, False)
    return (ctx.sem.wrap(int(m.group(1))), True)


@builtin("parse_float")
def _parse_float(s, ctx):
    """``parse_float(str) = (value, ok)``: NESL float or integer syntax (``1.5``, ``2.``,
    ``1e-3``, ``-4``), surrounding whitespace allowed; ``(0.0, F)`` otherwise."""
    m = _FLOAT_SYNTAX.match(_text(s))
    if not m:
        return (0.0, False)
    return (float(m.group(1)), True)


@builtin("exp_string")
def _exp_string(arg, ctx):
    """``exp_string(x, digits)``: ``x`` in exponent form with ``digits`` digits after the
    point, NESL style (``exp_string(1234.5, 2) = "1.23E3"``).  Choice: the format is
    ours, after NESL's printing of large floats; non-finite values print as ``@`` does."""
    x, digits = arg
    if not math.isfinite(x):
        return _string(format_float(x))
    mantissa, exponent = ("%.*e" % (max(digits, 0), x)).split("e")
    return _string(f"{mantissa}E{int(exponent)}")


@builtin("linify")
def _linify(s, ctx):
    """The lines of a string, without their newline characters (a final newline does not
    start an empty line)."""
    text = _text(s)
    lines = text.split("\n")
    if text.endswith("\n"):
        lines.pop()
    return Seq(tuple(_string(line) for line in lines))


@builtin("wordify")
def _wordify(s, ctx):
    """The words of a string: maximal runs of characters other than space, tab,
    newline and carriage return."""
    return Seq(tuple(_string(w) for w in re.split(r"[ \t\n\r]+", _text(s)) if w))


@builtin("print_string", "write_string")
def _print_string(s, ctx):
    """Write a string to the program's output (no newline added); returns ``T``."""
    ctx.rt.out.write(_text(s))
    return True


@builtin("print_char")
def _print_char(c, ctx):
    ctx.rt.out.write(c)
    return True


@builtin("print_line")
def _print_line(s, ctx):
    """Write a string and a newline; returns ``T``."""
    ctx.rt.out.write(_text(s) + "\n")
    return True


@builtin("print")
def _print(v, ctx):
    """``print(v)``: write the printed form of any value and a space; returns ``T``."""
    if ctx.arg_type is None:
        raise TypeError("print needs the call's argument type")
    ctx.rt.out.write(format_value(v, ctx.arg_type, print_length=None,
                                  datatypes=ctx.rt.datatypes) + " ")
    return True


@builtin("error")
def _error(s, ctx):
    """``error(message)``: stop with ``RUNTIME ERROR: message``."""
    raise ctx.error(_text(s))


# --------------------------------------------------------------------------------------
# Files (host side; names are relative to the program's directory)
# --------------------------------------------------------------------------------------

def _path(name: Seq, ctx: CallContext) -> str:
    return os.path.join(ctx.rt.base_dir, _text(name))


def _read_file(name: Seq, ctx: CallContext) -> str:
    path = _path(name, ctx)
    try:
        with open(path, encoding="latin-1") as f:
            return f.read()
    except OSError as exc:
        raise ctx.error(E.FILE_ERROR.format(name=_text(name), reason=exc.strerror)) from exc


@builtin("read_string_from_file")
def _read_string_from_file(name, ctx):
    return _string(_read_file(name, ctx))


@builtin("read_int_seq_from_file")
def _read_int_seq_from_file(name, ctx):
    """The whitespace-separated integers of a file."""
    out = []
    for token in _read_file(name, ctx).split():
        value, ok = _parse_int(_string(token), ctx)
        if not ok:
            raise ctx.error(E.FILE_FORMAT.format(kind="an int", name=_text(name), token=token))
        out.append(value)
    return Seq(out)


@builtin("read_float_seq_from_file")
def _read_float_seq_from_file(name, ctx):
    """The whitespace-separated floats (or integers) of a file."""
    out = []
    for token in _read_file(name, ctx).split():
        value, ok = _parse_float(_string(token), ctx)
        if not ok:
            raise ctx.error(E.FILE_FORMAT.format(kind="a float", name=_text(name), token=token))
        out.append(value)
    return Seq(out)


@builtin("write_string_to_file")
def _write_string_to_file(arg, ctx):
    """``write_string_to_file(str, filename)``: write (replace) the file; returns ``T``."""
    s, name = arg
    path = _path(name, ctx)
    try:
        with open(path, "w", encoding="latin-1") as f:
            f.write(_text(s))
    except OSError as exc:
        raise ctx.error(E.FILE_ERROR.format(name=_text(name), reason=exc.strerror)) from exc
    return True


# --------------------------------------------------------------------------------------
# Constants
# --------------------------------------------------------------------------------------

CONSTANTS: dict[str, Callable[[Semantics], Any]] = {
    "pi": lambda sem: math.pi,
    "max_int": lambda sem: sem.max_int,
    "min_int": lambda sem: sem.min_int,
    "space": lambda sem: " ",
    "newline": lambda sem: "\n",
    "tab": lambda sem: "\t",
}


def constant(name: str, sem: Semantics = DEFAULT_SEMANTICS) -> Any:
    """The value of a predefined constant under ``sem``."""
    return CONSTANTS[name](sem)


__all__ = [
    "BUILTINS",
    "CONSTANTS",
    "CallContext",
    "Output",
    "Runtime",
    "SplitMix64",
    "builtin",
    "call",
    "constant",
]
