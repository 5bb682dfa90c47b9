"""fmath -- a portable, bit-reproducible double-precision math library.

Every function is written ONCE, in Python, against an abstract "kit".  The
same source is then

  * evaluated with numpy on float64 arrays (``NumpyKit``; entry points
    ``np_exp`` ... in the ``NUMPY`` dict), and
  * emitted as OpenCL C source (``CKit``; ``opencl_source()``),

and both give bit-identical results for every input, because the algorithms
only use IEEE-exact primitives:

  + - * / (each rounded once), comparisons, sqrt, floor/ceil/trunc/rint,
  fabs, copysign, reinterpretation double<->int64, 64-bit integer
  + - & | ^ << >> (never overflowing, never shifting negative numbers left,
  shift counts always in [0, 63]), double<->int64 conversion of in-range
  values, and constant table look-ups.

No libm transcendental, no fma, no long double, no data-dependent branches:
every "branch" is computed on every lane and chosen with ``kit.where``
(masked-out lanes may hold nan/inf; they are discarded).  Inputs of
conversions to int64 are always clamped first so that no lane -- not even a
discarded one -- does anything undefined in C.

Algorithms (all faithful, i.e. < 1 ulp, on the tested ranges):

  exp, sinh, cosh, tanh  table-driven double-double exp (2^(j/64) table,
                         Dekker products), rounded once: <= 0.5 ulp + tiny
                         (sinh/tanh use odd Taylor series below 1/32)
  ln (and log)           table-driven double-double log (128 entries),
                         rounded once: <= 0.5 ulp + tiny
  expt (pow)             fdlibm e_pow.c log2 in extra precision (with its
                         x~1 / |y|>2^31 path made exact) followed by the
                         double-double exp: ~0.55 ulp max measured
  sin, cos, tan          fdlibm kernels; reduction by Cody-Waite with exact
                         TwoSum terms for |x| < 2^20, and for larger |x| a
                         Payne-Hanek reduction done with exact 24-bit-limb
                         integer arithmetic on a table of 2/pi: ~0.75 ulp
  atan, asin, acos       fdlibm s_atan.c / e_asin.c / e_acos.c: ~0.9 ulp

Sun's fdlibm (FreeBSD msun / musl) algorithms are re-expressed branch-free;
all constants that are not fdlibm's (pi/2 pieces, bits of 2/pi, ln 2 tails,
the exp/log tables) are computed exactly at import time with Python integers.

Writing an algorithm against the kit
------------------------------------
Values are opaque: numpy arrays (NumpyKit) or ``CVal`` expression objects
(CKit).  Use Python operators for arithmetic / comparisons / bit operations
(``&``, ``|``, ``~`` on masks; never ``and``/``or``/``not``/``if`` on values),
Python floats/ints as constants, and the kit methods below for everything
else.  Integer floor-division ``//`` and ``%`` are only allowed on
non-negative operands (C truncates, numpy floors).

Kit methods: where(mask, a, b), floor, ceil, trunc, rint, fabs, copysign,
sqrt, bits (double->int64 reinterpretation), from_bits, to_int (truncating
conversion of an in-range double), to_double, table(name, values, index),
masked(mask, fn, args, fills) (evaluate fn only where mask holds -- an
optimisation for numpy; C computes every lane).
"""

from fractions import Fraction
import math
import struct



class _Numpy:
    """numpy, imported on first use: the compiler takes this module's OpenCL source
    (``opencl_source``) without running any numpy code, and does not pay numpy's import."""

    def __getattr__(self, name):
        import numpy
        return getattr(numpy, name)


np = _Numpy()

__all__ = ["NumpyKit", "CKit", "PyKit", "opencl_source", "NUMPY", "py_function",
           "np_exp", "np_ln", "np_sin", "np_cos", "np_tan", "np_asin",
           "np_acos", "np_atan", "np_sinh", "np_cosh", "np_tanh", "np_pow",
           "np_log"]


# ---------------------------------------------------------------------------
# helpers for constants
# ---------------------------------------------------------------------------

def _w(hi, lo=0):
    """Double from its two 32-bit words (as fdlibm lists its constants)."""
    return struct.unpack("<d", struct.pack("<Q", (hi << 32) | lo))[0]


INF = float("inf")
NAN = float("nan")
MASK_LOW_WORD_OFF = -(1 << 32)   # int64 0xFFFFFFFF00000000: clears the low word


# ---------------------------------------------------------------------------
# The numpy kit
# ---------------------------------------------------------------------------

class NumpyKit:
    """Values are numpy float64 / int64 / bool arrays (1-d)."""

    name = "numpy"

    def __init__(self):
        self._tables = {}

    # selection / rounding / IEEE-exact unary functions
    def where(self, m, a, b):
        return np.where(m, a, b)

    def floor(self, x):
        return np.floor(x)

    def ceil(self, x):
        return np.ceil(x)

    def trunc(self, x):
        return np.trunc(x)

    def rint(self, x):
        return np.rint(x)

    def fabs(self, x):
        return np.fabs(x)

    def copysign(self, x, y):
        return np.copysign(x, y)

    def sqrt(self, x):
        return np.sqrt(x)

    # bit manipulation / conversions
    def bits(self, x):
        """Reinterpret double -> int64."""
        return np.asarray(x, dtype=np.float64).view(np.int64)

    def from_bits(self, i):
        """Reinterpret int64 -> double."""
        return np.asarray(i, dtype=np.int64).view(np.float64)

    def to_int(self, x):
        """double -> int64, truncating (argument must be in range)."""
        return np.asarray(x).astype(np.int64)

    def to_double(self, i):
        """int64 -> double (exact for |i| < 2^53)."""
        return np.asarray(i).astype(np.float64)

    def masked(self, mask, fn, args, fills):
        """fn(*args) evaluated only on the lanes where mask is true; other
        lanes get `fills`.  Valid because every kit operation is elementwise,
        so a lane's value does not depend on which other lanes are present.
        (Pure optimisation: callers must discard the unmasked lanes.)"""
        idx = np.flatnonzero(mask)
        if idx.size == mask.size:
            return fn(*args)
        outs = fn(*[a[idx] for a in args]) if idx.size else None
        res = []
        for j, f in enumerate(fills):
            full = np.full(mask.shape, f,
                           dtype=np.int64 if isinstance(f, int) else np.float64)
            if idx.size:
                full[idx] = outs[j]
            res.append(full)
        return tuple(res)

    def table(self, name, values, idx):
        t = self._tables.get(name)
        if t is None:
            dt = np.float64 if isinstance(values[0], float) else np.int64
            t = self._tables[name] = np.array(values, dtype=dt)
        return t[idx]


# ---------------------------------------------------------------------------
# The C (OpenCL) kit
# ---------------------------------------------------------------------------

_CTYPE = {"d": "double", "l": "long", "b": "int"}


def _c_double_literal(c):
    c = float(c)
    if c != c:
        return "as_double(0x7ff8000000000000L)"
    if c == INF:
        return "as_double(0x7ff0000000000000L)"
    if c == -INF:
        return "as_double((long)0xfff0000000000000UL)"
    return "(%s)" % c.hex() if c.hex().startswith("-") else c.hex()


def _c_long_literal(c):
    assert -(1 << 63) < c < (1 << 63), c
    return "(%dL)" % c if c < 0 else "%dL" % c


class CVal:
    """A typed C expression (usually the name of a temporary)."""

    __slots__ = ("kit", "expr", "t")
    __hash__ = None

    def __init__(self, kit, expr, t):
        self.kit, self.expr, self.t = kit, expr, t

    def _bin(self, other, op, rev=False, result=None):
        k = self.kit
        o = k.coerce(other, self.t)
        a, b = (o, self) if rev else (self, o)
        assert a.t == b.t, "type mismatch %s %s %s" % (a.t, op, b.t)
        t = result or a.t
        return k.emit(t, k.binary(a, op, b))

    # arithmetic
    def __add__(self, o): return self._bin(o, "+")
    def __radd__(self, o): return self._bin(o, "+", True)
    def __sub__(self, o): return self._bin(o, "-")
    def __rsub__(self, o): return self._bin(o, "-", True)
    def __mul__(self, o): return self._bin(o, "*")
    def __rmul__(self, o): return self._bin(o, "*", True)

    def __truediv__(self, o):
        assert self.t == "d"
        return self._bin(o, "/")

    def __rtruediv__(self, o):
        assert self.t == "d"
        return self._bin(o, "/", True)

    def __floordiv__(self, o):          # non-negative integers only
        assert self.t == "l"
        return self._bin(o, "/")

    def __mod__(self, o):               # non-negative integers only
        assert self.t == "l"
        return self._bin(o, "%")

    def __neg__(self):
        return self.kit.emit(self.t, "(-%s)" % self.expr)

    # bit operations (int64) / logical operations (masks)
    def __and__(self, o): return self._bin(o, "&")
    def __rand__(self, o): return self._bin(o, "&", True)
    def __or__(self, o): return self._bin(o, "|")
    def __ror__(self, o): return self._bin(o, "|", True)
    def __xor__(self, o): return self._bin(o, "^")

    def __lshift__(self, o):
        assert self.t == "l"
        return self._bin(o, "<<")

    def __rshift__(self, o):
        assert self.t == "l"
        return self._bin(o, ">>")

    def __invert__(self):
        if self.t == "b":
            return self.kit.emit("b", self.kit.NOT % self.expr)
        assert self.t == "l"
        return self.kit.emit("l", "(~%s)" % self.expr)

    # comparisons -> masks
    def __lt__(self, o): return self._bin(o, "<", result="b")
    def __le__(self, o): return self._bin(o, "<=", result="b")
    def __gt__(self, o): return self._bin(o, ">", result="b")
    def __ge__(self, o): return self._bin(o, ">=", result="b")
    def __eq__(self, o): return self._bin(o, "==", result="b")
    def __ne__(self, o): return self._bin(o, "!=", result="b")


class CKit:
    """Emits one C statement per operation into ``self.lines``.  What is C about it is in the
    class attributes and the hooks ``statement``, ``binary``, ``literal`` and ``int_literal``:
    PyKit overrides those (and ``masked``, ``table``) to emit Python instead."""

    name = "c"
    NOT = "(!%s)"
    WHERE = "({m} ? {a} : {b})"
    TO_INT = "((long){})"
    TO_DOUBLE = "((double){})"
    NAMES: dict = {}             # a function's name in the emitted language, where it differs

    def __init__(self, tables):
        self.lines = []
        self.tables = tables        # shared dict name -> (ctype, values)
        self.n = 0

    def statement(self, t, name, expr):
        return "%s %s = %s;" % (_CTYPE[t], name, expr)

    def binary(self, a, op, b):
        return "(%s %s %s)" % (a.expr, op, b.expr)

    def literal(self, c):
        return _c_double_literal(c)

    def int_literal(self, c):
        return _c_long_literal(c)

    def emit(self, t, expr):
        name = "t%d" % self.n
        self.n += 1
        self.lines.append(self.statement(t, name, expr))
        return CVal(self, name, t)

    def coerce(self, v, t):
        """Python constant -> CVal of type t (CVal passes through)."""
        if isinstance(v, CVal):
            return v
        if isinstance(v, bool):
            raise TypeError("bool constants are not supported")
        if isinstance(v, float):
            assert t == "d", "float constant in integer context"
            return CVal(self, self.literal(v), "d")
        if isinstance(v, int):
            if t == "d":
                assert float(v) == v
                return CVal(self, self.literal(float(v)), "d")
            return CVal(self, self.int_literal(v), t)
        raise TypeError(type(v))

    def _typed(self, v, default):
        if isinstance(v, CVal):
            return v
        return self.coerce(v, default)

    def where(self, m, a, b):
        t = a.t if isinstance(a, CVal) else b.t if isinstance(b, CVal) else \
            ("d" if isinstance(a, float) or isinstance(b, float) else "l")
        a, b = self.coerce(a, t), self.coerce(b, t)
        assert m.t == "b" and a.t == b.t == t
        return self.emit(t, self.WHERE.format(m=m.expr, a=a.expr, b=b.expr))

    def _call(self, fn, t, *args):
        return self.emit(t, "%s(%s)" % (self.NAMES.get(fn, fn),
                                        ", ".join(a.expr for a in args)))

    def _d(self, x):
        x = self._typed(x, "d")
        assert x.t == "d"
        return x

    def floor(self, x): return self._call("floor", "d", self._d(x))
    def ceil(self, x): return self._call("ceil", "d", self._d(x))
    def trunc(self, x): return self._call("trunc", "d", self._d(x))
    def rint(self, x): return self._call("rint", "d", self._d(x))
    def fabs(self, x): return self._call("fabs", "d", self._d(x))
    def sqrt(self, x): return self._call("sqrt", "d", self._d(x))

    def copysign(self, x, y):
        return self._call("copysign", "d", self._d(x), self._d(y))

    def bits(self, x):
        return self._call("as_long", "l", self._d(x))

    def from_bits(self, i):
        i = self._typed(i, "l")
        assert i.t == "l"
        return self._call("as_double", "d", i)

    def to_int(self, x):
        return self.emit("l", self.TO_INT.format(self._d(x).expr))

    def to_double(self, i):
        i = self._typed(i, "l")
        assert i.t == "l"
        return self.emit("d", self.TO_DOUBLE.format(i.expr))

    def masked(self, mask, fn, args, fills):
        """C evaluates straight-line code: compute fn on every lane."""
        return fn(*args)

    def table(self, name, values, idx):
        cname = "nz_fm_" + name
        ct = "double" if isinstance(values[0], float) else "long"
        prev = self.tables.setdefault(cname, (ct, list(values)))
        assert prev == (ct, list(values))
        idx = self._typed(idx, "l")
        return self.emit("d" if ct == "double" else "l",
                         "%s[%s]" % (cname, idx.expr))


# ---------------------------------------------------------------------------
# Generic helpers written against the kit
# ---------------------------------------------------------------------------

def _isnan(k, x):
    return x != x


def _pow2(k, n):
    """2.0**n for int64 n in [-1022, 1023]."""
    return k.from_bits((n + 1023) << 52)


def _scale(k, y, n):
    """y * 2**n with a single rounding, n int64 in [-2044, 2046]."""
    n1 = n >> 1                      # arithmetic shift = floor(n/2)
    return (y * _pow2(k, n1)) * _pow2(k, n - n1)


def _clear_low(k, x):
    """x with the low 32 bits of its representation cleared."""
    return k.from_bits(k.bits(x) & MASK_LOW_WORD_OFF)


def _two_sum(k, a, b):
    """s + e == a + b exactly (Knuth)."""
    s = a + b
    bb = s - a
    e = (a - (s - bb)) + (b - bb)
    return s, e


_SPLITTER = 134217729.0   # 2^27 + 1 (Veltkamp)


def _split(k, a):
    c = _SPLITTER * a
    hi = c - (c - a)
    return hi, a - hi


def _two_prod(k, a, b):
    """p + e == a * b exactly (Dekker, no fma).  |a|,|b| < 2^995."""
    p = a * b
    ah, al = _split(k, a)
    bh, bl = _split(k, b)
    e = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    return p, e


def _poly(k, x, coeffs):
    """Horner: c0 + x*(c1 + x*(c2 + ...))."""
    r = coeffs[-1]
    for c in reversed(coeffs[:-1]):
        r = c + x * r
    return r


# ---------------------------------------------------------------------------
# exp
# ---------------------------------------------------------------------------

LN2_HI = _w(0x3fe62e42, 0xfee00000)
LN2_LO = _w(0x3dea39ef, 0x35793c76)
INVLN2 = _w(0x3ff71547, 0x652b82fe)


# exp(x) as a double-double (relative error ~2^-68), used by exp and by
# sinh/cosh/tanh so that their final results are rounded (almost) once:
# x = (64*m + j) * ln2/64 + r,  exp(x) = 2^m * 2^(j/64) * exp(r), |r| <= ln2/128.

def _exp2_64_table():
    hi, lo = [], []
    for j in range(64):
        v = 1 << (j + 64 * 200)
        for _ in range(6):                      # 2^(j/64) = sqrt^6(2^j)
            v = math.isqrt(v)
        fr = Fraction(v, 1 << 200)
        h = float(fr)
        hi.append(h)
        lo.append(float(fr - Fraction(h)))
    return hi, lo


EXP2_64_HI, EXP2_64_LO = _exp2_64_table()
L64_HI = LN2_HI / 64.0          # 32 significant bits: kf * L64_HI exact
L64_LO = LN2_LO / 64.0
INV_L64 = 64.0 * INVLN2


def _exp_dd_parts(k, x, xl=None):
    """(eh, el, m): exp(x + xl) = (eh + el) * 2^m (1 + ~2^-68), |x| <= 746,
    optional xl a tail with |xl| <= ulp(x).

    kf < 2^17 and L64_HI has 32 bits, so kf * L64_HI is exact, and so is
    x - kf * L64_HI (Sterbenz)."""
    kf = k.rint(x * INV_L64)
    rh = x - kf * L64_HI                                 # exact (Sterbenz)
    r, rl = _two_sum(k, rh, -(kf * L64_LO))
    if xl is not None:
        r, e = _two_sum(k, r, rl + xl)
        rl = e
    p = r * r * _poly(k, r, [0.5, 1.0 / 6, 1.0 / 24, 1.0 / 120, 1.0 / 720,
                             1.0 / 5040])
    sl = rl + p                                          # exp(r) - 1 = r + sl
    ki = k.to_int(kf)
    j = ki & 63
    th = k.table("exp2_64_hi", EXP2_64_HI, j)
    tl = k.table("exp2_64_lo", EXP2_64_LO, j)
    ph, pe = _two_prod(k, th, r)
    lo = pe + ((tl + th * sl) + tl * r)
    h, l = _two_sum(k, th, ph)
    l = l + lo
    eh = h + l
    el = l - (eh - h)
    return eh, el, ki >> 6


def _exp_dd(k, x):
    """(eh, el) with eh + el = exp(x) (1 + ~2^-68), for |x| <= 22.2."""
    eh, el, m = _exp_dd_parts(k, x)
    sc = _pow2(k, m)                                     # exact scaling
    return eh * sc, el * sc


def _exp_scaled(k, x, adj=0):
    """exp(x) * 2**adj (adj a small Python int): the double-double exp
    rounded once to double, then scaled by two exact power-of-two products
    so that overflow gives inf; for subnormal results the second product
    rounds again (still < 1 ulp).  Nearly correctly rounded elsewhere."""
    xc = k.where(x > 712.0, 712.0, k.where(x < -746.0, -746.0, x))
    xc = k.where(_isnan(k, x), 0.0, xc)
    eh, el, m = _exp_dd_parts(k, xc)
    res = _scale(k, eh + el, m + adj)
    return k.where(_isnan(k, x), x + x, res)


def f_exp(k, x):
    """exp(x): double-double table-driven exp (see _exp_dd_parts below),
    rounded once -- errors <= 0.5 ulp + 2^-15 ulp for normal results."""
    return _exp_scaled(k, x, 0)


# ---------------------------------------------------------------------------
# ln
# ---------------------------------------------------------------------------

def _log_fixed(a, prec=200):
    """log(a) * 2^prec as an integer (|error| of a few units) for a Fraction
    a in [0.5, 2]: log(a) = 2 atanh((a-1)/(a+1))."""
    s = (a - 1) / (a + 1)
    if s < 0:
        return -_log_fixed(1 / a, prec)
    sf = (s.numerator << prec) // s.denominator
    s2 = (sf * sf) >> prec
    total, term, n = 0, sf, 1
    while term:
        total += term // n
        term = (term * s2) >> prec
        n += 2
    return 2 * total


def _log_table():
    """x = 2^k * m; j = top 7 mantissa bits of m in [1,2); for j >= 53 we use
    m/2 in [0.707, 1) and k+1.  invc ~ 1/centre of the j-th interval (exactly
    1 for the two intervals touching 1, so that no cancellation occurs for x
    near 1), logc = -log(invc) as a double-double."""
    invc, lh, ll = [], [], []
    for j in range(128):
        centre = Fraction(256 + 2 * j + 1, 256)
        if j >= _LOG_SPLIT:
            centre /= 2
        ic = 1.0 if j in (0, 127) else float(1 / centre)
        v = Fraction(-_log_fixed(Fraction(ic)), 1 << 200)
        h = float(v)
        invc.append(ic)
        lh.append(h)
        ll.append(float(v - Fraction(h)))
    return invc, lh, ll


_LOG_SPLIT = 53                 # 1 + 53/128 = 1.4140625 ~ sqrt(2)
LOG_INVC, LOG_LOGC_HI, LOG_LOGC_LO = _log_table()


def f_ln(k, x):
    """Table-driven double-double log, rounded once (error <= 0.5 ulp +
    ~2^-8 ulp):  x = 2^k * m,  log x = k*ln2 + log(c) + log1p(m/c - 1),
    with r = m*invc - 1 formed exactly (Dekker product), |r| < 2^-7."""
    sub = x < 2.2250738585072014e-308              # subnormal, zero, negative
    xs = k.where(sub, x * 18014398509481984.0, x)  # * 2^54
    kadj = k.where(sub, -54, 0)
    b = k.bits(k.where(xs > 0.0, xs, 1.0))
    e = ((b >> 52) & 0x7ff) - 1023 + kadj
    j = (b >> 45) & 127
    m = k.from_bits((b & 0x000fffffffffffff) | 0x3ff0000000000000)
    upper = j >= _LOG_SPLIT
    m = k.where(upper, m * 0.5, m)
    kk = k.where(upper, e + 1, e)
    invc = k.table("log_invc", LOG_INVC, j)
    p, pe = _two_prod(k, m, invc)
    r, rl = _two_sum(k, p - 1.0, pe)                # p - 1 exact (Sterbenz)
    q = r * r * _poly(k, r, [-1.0 / 2, 1.0 / 3, -1.0 / 4, 1.0 / 5, -1.0 / 6,
                             1.0 / 7, -1.0 / 8, 1.0 / 9, -1.0 / 10])
    dk = k.to_double(kk)
    s1, e1 = _two_sum(k, dk * LN2_HI, k.table("log_logc_hi", LOG_LOGC_HI, j))
    s2, e2 = _two_sum(k, s1, r)
    lo = ((dk * LN2_LO + k.table("log_logc_lo", LOG_LOGC_LO, j)) + (e1 + e2)) \
        + (rl + q)
    res = s2 + lo
    res = k.where(x == INF, x, res)
    res = k.where(x == 0.0, -INF, res)
    res = k.where(x < 0.0, NAN, res)
    return k.where(_isnan(k, x), x + x, res)


# ---------------------------------------------------------------------------
# pi-related constants, computed exactly with Python integers
# ---------------------------------------------------------------------------

def _pi_fixed(prec):
    """floor(pi * 2^prec) (within a few units), Machin's formula."""
    guard = 64
    one = 1 << (prec + guard)

    def atan_inv(n):
        total, term, n2, kk, sign = 0, one // n, n * n, 1, 1
        while term:
            total += sign * (term // kk)
            term //= n2
            kk += 2
            sign = -sign
        return total

    return (16 * atan_inv(5) - 4 * atan_inv(239)) >> guard


_PI_PREC = 1600
_PI_FIX = _pi_fixed(_PI_PREC)
_PIO2 = Fraction(_PI_FIX, 1 << (_PI_PREC + 1))

# 2/pi in 24-bit limbs: 2/pi = sum_i TWO_OVER_PI[i] * 2^(-24(i+1))
_N_2OPI_LIMBS = 56
_2opi_int = (1 << (24 * _N_2OPI_LIMBS + 1 + _PI_PREC)) // _PI_FIX
TWO_OVER_PI = [(_2opi_int >> (24 * (_N_2OPI_LIMBS - 1 - i))) & 0xffffff
               for i in range(_N_2OPI_LIMBS)]
assert TWO_OVER_PI[:3] == [0xA2F983, 0x6E4E44, 0x1529FC]
_PAD = 3                                   # leading zero limbs of the table
_TBL_2OPI = [0] * _PAD + TWO_OVER_PI


def _chop(fr, bits):
    """Leading `bits` significant bits of positive Fraction fr, as float."""
    e = fr.numerator.bit_length() - fr.denominator.bit_length()
    while Fraction(2) ** e > fr:
        e -= 1
    while Fraction(2) ** (e + 1) <= fr:
        e += 1
    q = Fraction(2) ** (e - bits + 1)
    return float((fr // q) * q)


# Cody-Waite pieces of pi/2: 33 + 33 + 33 significant bits + a tail
PIO2_1 = _chop(_PIO2, 33)
PIO2_2 = _chop(_PIO2 - Fraction(PIO2_1), 33)
PIO2_3 = _chop(_PIO2 - Fraction(PIO2_1) - Fraction(PIO2_2), 33)
PIO2_3T = float(_PIO2 - Fraction(PIO2_1) - Fraction(PIO2_2) - Fraction(PIO2_3))
assert PIO2_1 == _w(0x3FF921FB, 0x54400000)
assert PIO2_2 == _w(0x3DD0B461, 0x1A600000)
assert PIO2_3 == _w(0x3BA3198A, 0x2E000000)
PIO2_HI = float(_PIO2)
PIO2_LO = float(_PIO2 - Fraction(PIO2_HI))
INVPIO2 = float(1 / _PIO2)


# ---------------------------------------------------------------------------
# argument reduction for sin / cos / tan:  x = n*pi/2 + (y0 + y1)
# ---------------------------------------------------------------------------

_MEDIUM_LIMIT = 1048576.0          # 2^20: Cody-Waite below, Payne-Hanek above


def _rem_pio2_medium(k, x):
    """|x| < 2^20.  fn*PIO2_i are exact (fn < 2^20, PIO2_i have 33 bits);
    x - fn*PIO2_1 is exact (Sterbenz); the other subtractions are made exact
    with TwoSum, giving ~150 bits of pi/2."""
    fn = k.rint(x * INVPIO2)
    r = x - fn * PIO2_1
    r2, e2 = _two_sum(k, r, -(fn * PIO2_2))
    r3, e3 = _two_sum(k, r2, -(fn * PIO2_3))
    tail = (e2 + e3) - fn * PIO2_3T
    y0 = r3 + tail
    y1 = tail - (y0 - r3)
    return k.to_int(fn), y0, y1


_PH_K = 9      # number of 24-bit chunks of 2/pi used (216 bits)


def _rem_pio2_large(k, ax):
    """Payne-Hanek for positive finite ax >= 2^20 (exponent e in [20,1023]).

    ax = M * 2^(e-52) with M a 53-bit integer.  We take the 24*K bits of 2/pi
    starting at bit s = e - 75 (bits before s only contribute multiples of
    2^24 to ax*2/pi), form the exact integer product M * W in 24-bit limbs,
    so that limb K-1 holds the integer part (its low 2 bits = quadrant) and
    limbs K-2 .. 0 the fraction (~190 bits, > 130 of them exact).
    """
    b = k.bits(ax)
    e = ((b >> 52) & 0x7ff) - 1023
    m = (b & 0x000fffffffffffff) | 0x0010000000000000
    ml = [m & 0xffffff, (m >> 24) & 0xffffff, m >> 48]
    u = e - 75 + 24 * _PAD - 1             # >= 0
    q = u // 24
    r = u - q * 24
    chunks = []
    for j in range(_PH_K + 1):
        chunks.append(k.table("2opi", _TBL_2OPI, q + j))
    C = [((chunks[j] << r) & 0xffffff) | (chunks[j + 1] >> (24 - r))
         for j in range(_PH_K)]
    # W = sum_j C[j] * 2^(24(K-1-j));  columns of M*W, weight 2^(24c)
    limbs = []
    carry = None
    for c in range(_PH_K):
        col = carry
        for i in range(3):
            j = _PH_K - 1 - (c - i)
            if 0 <= j < _PH_K:
                p = ml[i] * C[j]
                col = p if col is None else col + p
        limbs.append(col & 0xffffff)
        carry = col >> 24
    n = limbs[_PH_K - 1] & 3
    # fraction F = sum_{c<K-1} limbs[c] * 2^(24(c-K+1)); centre to [-1/2,1/2)
    neg = (limbs[_PH_K - 2] & 0x800000) != 0
    n = k.where(neg, n + 1, n)
    hi = None
    lo = None
    for c in range(_PH_K - 1):
        l = k.where(neg, 0xffffff - limbs[c], limbs[c])
        d = k.to_double(l) * (2.0 ** (24 * (c - _PH_K + 1)))
        if hi is None:
            hi, lo = d, 0.0 * d
        else:
            s, err = _two_sum(k, d, hi)
            lo = lo + err
            hi = s
    fh = hi + lo
    fl = lo - (fh - hi)
    # (fh + fl) * pi/2 in double-double
    p, pe = _two_prod(k, fh, PIO2_HI)
    pe = pe + (fh * PIO2_LO + fl * PIO2_HI)
    y0 = p + pe
    y1 = pe - (y0 - p)
    y0 = k.where(neg, -y0, y0)
    y1 = k.where(neg, -y1, y1)
    return n, y0, y1


def _rem_pio2(k, x):
    """Returns (n, y0, y1) with x ~ n*pi/2 + y0 + y1, |y0| <~ pi/4, for
    finite x (non-finite lanes give garbage, callers mask them)."""
    ax = k.fabs(x)
    big = ax >= _MEDIUM_LIMIT
    xm = k.where(ax < _MEDIUM_LIMIT, x, 0.0)
    xl = k.where(big & (ax < INF), ax, _MEDIUM_LIMIT)
    nm, y0m, y1m = _rem_pio2_medium(k, xm)
    nl, y0l, y1l = k.masked(big, lambda v: _rem_pio2_large(k, v), (xl,),
                            (0, 0.0, 0.0))
    neg = x < 0.0
    nl = k.where(neg, -nl, nl)
    y0l = k.where(neg, -y0l, y0l)
    y1l = k.where(neg, -y1l, y1l)
    return (k.where(big, nl, nm), k.where(big, y0l, y0m),
            k.where(big, y1l, y1m))


# kernels on [-pi/4, pi/4] (fdlibm k_sin.c, k_cos.c, k_tan.c)
S1 = _w(0xBFC55555, 0x55555549)
S2 = _w(0x3F811111, 0x1110F8A6)
S3 = _w(0xBF2A01A0, 0x19C161D5)
S4 = _w(0x3EC71DE3, 0x57B1FE7D)
S5 = _w(0xBE5AE5E6, 0x8A2B9CEB)
S6 = _w(0x3DE5D93A, 0x5ACFD57C)
C1 = _w(0x3FA55555, 0x5555554C)
C2 = _w(0xBF56C16C, 0x16C15177)
C3 = _w(0x3EFA01A0, 0x19CB1590)
C4 = _w(0xBE927E4F, 0x809C52AD)
C5 = _w(0x3E21EE9E, 0xBDB4B1C4)
C6 = _w(0xBDA8FAE9, 0xBE8838D4)


def _ksin(k, x, y):
    z = x * x
    w = z * z
    r = (S2 + z * (S3 + z * S4)) + z * w * (S5 + z * S6)
    v = z * x
    return x - ((z * (0.5 * y - v * r) - y) - v * S1)


def _kcos(k, x, y):
    z = x * x
    w = z * z
    r = z * (C1 + z * (C2 + z * C3)) + w * w * (C4 + z * (C5 + z * C6))
    hz = 0.5 * z
    w = 1.0 - hz
    return w + (((1.0 - w) - hz) + (z * r - x * y))


TAN_T = [_w(0x3FD55555, 0x55555563), _w(0x3FC11111, 0x1110FE7A),
         _w(0x3FABA1BA, 0x1BB341FE), _w(0x3F9664F4, 0x8406D637),
         _w(0x3F8226E3, 0xE96E8493), _w(0x3F6D6D22, 0xC9560328),
         _w(0x3F57DBC8, 0xFEE08315), _w(0x3F4344D8, 0xF2F26501),
         _w(0x3F3026F7, 0x1A8D1068), _w(0x3F147E88, 0xA03792A6),
         _w(0x3F12B80F, 0x32F0A7E9), _w(0xBEF375CB, 0xDB605373),
         _w(0x3EFB2A70, 0x74BF7AD4)]
PIO4 = _w(0x3FE921FB, 0x54442D18)
PIO4LO = _w(0x3C81A626, 0x33145C07)


def _ktan(k, x, y, odd):
    """tan(x+y) if odd == 0 else -1/tan(x+y); odd is an int64 0/1 value."""
    T = TAN_T
    big = k.fabs(x) >= _w(0x3FE59428, 0)
    flip = big & (x < 0.0)
    xs = k.where(flip, -x, x)
    ys = k.where(flip, -y, y)
    xb = (PIO4 - xs) + (PIO4LO - ys)
    x = k.where(big, xb, xs)
    y = k.where(big, 0.0, ys)
    z = x * x
    w = z * z
    r = T[1] + w * (T[3] + w * (T[5] + w * (T[7] + w * (T[9] + w * T[11]))))
    v = z * (T[2] + w * (T[4] + w * (T[6] + w * (T[8] + w * (T[10] + w * T[12])))))
    s = z * x
    r = y + z * (s * (r + v) + y)
    r = r + T[0] * s
    w = x + r
    # |x| >= 0.6744: tan(pi/4 - x) formula
    iy = k.to_double(1 - 2 * odd)
    vb = iy - 2.0 * (x - (w * w / (w + iy) - r))
    resb = k.where(flip, -vb, vb)
    # small, odd: -1/(x+r) computed accurately
    zz = _clear_low(k, w)
    vv = r - (zz - x)
    a = -1.0 / w
    t = _clear_low(k, a)
    ss = 1.0 + t * zz
    reso = t + a * (ss + t * vv)
    ress = k.where(odd != 0, reso, w)
    return k.where(big, resb, ress)


_TINY_TRIG = 2.0 ** -27


def f_sin(k, x):
    n, y0, y1 = _rem_pio2(k, x)
    s = _ksin(k, y0, y1)
    c = _kcos(k, y0, y1)
    q = n & 3
    res = k.where(q == 0, s, k.where(q == 1, c, k.where(q == 2, -s, -c)))
    res = k.where(k.fabs(x) < _TINY_TRIG, x, res)     # keeps -0, subnormals
    return k.where(k.fabs(x) < INF, res, x - x)       # inf, nan -> nan


def f_cos(k, x):
    n, y0, y1 = _rem_pio2(k, x)
    s = _ksin(k, y0, y1)
    c = _kcos(k, y0, y1)
    q = n & 3
    res = k.where(q == 0, c, k.where(q == 1, -s, k.where(q == 2, -c, s)))
    res = k.where(k.fabs(x) < _TINY_TRIG, 1.0, res)
    return k.where(k.fabs(x) < INF, res, x - x)


def f_tan(k, x):
    n, y0, y1 = _rem_pio2(k, x)
    res = _ktan(k, y0, y1, n & 1)
    res = k.where(k.fabs(x) < _TINY_TRIG, x, res)
    return k.where(k.fabs(x) < INF, res, x - x)


# ---------------------------------------------------------------------------
# atan, asin, acos (fdlibm s_atan.c, e_asin.c, e_acos.c)
# ---------------------------------------------------------------------------

ATANHI = [_w(0x3FDDAC67, 0x0561BB4F), _w(0x3FE921FB, 0x54442D18),
          _w(0x3FEF730B, 0xD281F69B), _w(0x3FF921FB, 0x54442D18)]
ATANLO = [_w(0x3C7A2B7F, 0x222F65E2), _w(0x3C81A626, 0x33145C07),
          _w(0x3C700788, 0x7AF0CBBD), _w(0x3C91A626, 0x33145C07)]
AT = [_w(0x3FD55555, 0x5555550D), _w(0xBFC99999, 0x9998EBC4),
      _w(0x3FC24924, 0x920083FF), _w(0xBFBC71C6, 0xFE231671),
      _w(0x3FB745CD, 0xC54C206E), _w(0xBFB3B0F2, 0xAF749A6D),
      _w(0x3FB10D66, 0xA0D03D51), _w(0xBFADDE2D, 0x52DEFD9A),
      _w(0x3FA97B4B, 0x24760DEB), _w(0xBFA2B444, 0x2C6A6C2F),
      _w(0x3F90AD3A, 0xE322DA11)]


def f_atan(k, x):
    ax = k.fabs(x)
    # id = -1: |x| < 7/16; 0: < 11/16; 1: < 19/16; 2: < 39/16; 3: otherwise
    i0 = ax >= 0.4375
    i1 = ax >= 0.6875
    i2 = ax >= 1.1875
    i3 = ax >= 2.4375
    t = k.where(i3, -1.0 / ax,
        k.where(i2, (ax - 1.5) / (1.0 + 1.5 * ax),
        k.where(i1, (ax - 1.0) / (ax + 1.0),
        k.where(i0, (2.0 * ax - 1.0) / (2.0 + ax), ax))))
    hi = k.where(i3, ATANHI[3], k.where(i2, ATANHI[2],
                 k.where(i1, ATANHI[1], ATANHI[0])))
    lo = k.where(i3, ATANLO[3], k.where(i2, ATANLO[2],
                 k.where(i1, ATANLO[1], ATANLO[0])))
    z = t * t
    w = z * z
    s1 = z * (AT[0] + w * (AT[2] + w * (AT[4] + w * (AT[6] + w * (AT[8] + w * AT[10])))))
    s2 = w * (AT[1] + w * (AT[3] + w * (AT[5] + w * (AT[7] + w * AT[9]))))
    rsmall = t - t * (s1 + s2)
    rbig = hi - ((t * (s1 + s2) - lo) - t)
    res = k.where(i0, rbig, rsmall)
    res = k.where(ax < 2.0 ** -29, ax, res)
    res = k.copysign(res, x)
    return k.where(_isnan(k, x), x + x, res)


PS = [_w(0x3FC55555, 0x55555555), _w(0xBFD4D612, 0x03EB6F7D),
      _w(0x3FC9C155, 0x0E884455), _w(0xBFA48228, 0xB5688F3B),
      _w(0x3F49EFE0, 0x7501B288), _w(0x3F023DE1, 0x0DFDF709)]
QS = [1.0, _w(0xC0033A27, 0x1C8A2D4B), _w(0x40002AE5, 0x9C598AC8),
      _w(0xBFE6066C, 0x1B8D0159), _w(0x3FB3B8C5, 0xB12E9282)]
PIO2_HI_A = _w(0x3FF921FB, 0x54442D18)
PIO2_LO_A = _w(0x3C91A626, 0x33145C07)
PIO4_HI_A = _w(0x3FE921FB, 0x54442D18)
PI_A = _w(0x400921FB, 0x54442D18)


def _asin_pq(k, t):
    p = t * _poly(k, t, PS)
    q = _poly(k, t, QS)
    return p, q


def f_asin(k, x):
    ax = k.fabs(x)
    # |x| < 0.5
    t = ax * ax
    p, q = _asin_pq(k, t)
    rsmall = ax + ax * (p / q)
    # 0.5 <= |x| <= 1
    w = 1.0 - ax
    t = w * 0.5
    p, q = _asin_pq(k, t)
    s = k.sqrt(t)
    rnear1 = PIO2_HI_A - (2.0 * (s + s * (p / q)) - PIO2_LO_A)
    wl = _clear_low(k, s)
    c = (t - wl * wl) / (s + wl)
    r = p / q
    pp = 2.0 * s * r - (PIO2_LO_A - 2.0 * c)
    qq = PIO4_HI_A - 2.0 * wl
    rmid = PIO4_HI_A - (pp - qq)
    res = k.where(ax >= _w(0x3FEF3333, 0), rnear1, rmid)
    res = k.where(ax < 0.5, rsmall, res)
    res = k.where(ax < 2.0 ** -27, ax, res)
    res = k.copysign(res, x)
    return k.where(ax <= 1.0, res, (x - x) / (x - x))   # |x|>1, nan -> nan


def f_acos(k, x):
    # |x| < 0.5
    z = x * x
    p, q = _asin_pq(k, z)
    rsmall = PIO2_HI_A - (x - (PIO2_LO_A - x * (p / q)))
    # x < -0.5
    z = (1.0 + x) * 0.5
    p, q = _asin_pq(k, z)
    s = k.sqrt(z)
    w = (p / q) * s - PIO2_LO_A
    rneg = PI_A - 2.0 * (s + w)
    # x > 0.5
    z = (1.0 - x) * 0.5
    s = k.sqrt(z)
    df = _clear_low(k, s)
    c = (z - df * df) / (s + df)
    p, q = _asin_pq(k, z)
    w = (p / q) * s + c
    rpos = 2.0 * (df + w)
    res = k.where(x < 0.0, rneg, rpos)
    res = k.where(k.fabs(x) < 0.5, rsmall, res)
    res = k.where(x == 1.0, 0.0, res)
    return k.where(k.fabs(x) <= 1.0, res, (x - x) / (x - x))


# ---------------------------------------------------------------------------
# sinh, cosh, tanh
# ---------------------------------------------------------------------------

def _sinh_cosh_dd(k, ax):
    """(E - 1/E, E + 1/E) as double-doubles, E = exp(ax), 0 <= ax <= 22."""
    eh, el = _exp_dd(k, ax)
    ih = 1.0 / eh
    p, pe = _two_prod(k, eh, ih)
    il = (((1.0 - p) - pe) - el * ih) * ih               # 1/E = ih + il
    sh, sl = _two_sum(k, eh, -ih)
    sl = sl + (el - il)
    ch, cl = _two_sum(k, eh, ih)
    cl = cl + (el + il)
    return sh, sl, ch, cl


_HYP_SMALL = 0.03125        # below: odd Taylor series, no cancellation issue
SINH_TAYLOR = [1.0 / 6, 1.0 / 120, 1.0 / 5040, 1.0 / 362880, 1.0 / 39916800]
TANH_TAYLOR = [-1.0 / 3, 2.0 / 15, -17.0 / 315, 62.0 / 2835,
               -1382.0 / 155925, 21844.0 / 6081075]


def f_sinh(k, x):
    ax = k.fabs(x)
    axc = k.where(ax < 22.0, ax, 0.0)
    z = axc * axc
    rsmall = axc + axc * z * _poly(k, z, SINH_TAYLOR)
    sh, sl, _, _ = _sinh_cosh_dd(k, axc)
    rmid = 0.5 * (sh + sl)
    rbig = _exp_scaled(k, ax, -1)                    # exp(|x|)/2 exactly scaled
    res = k.where(ax < 22.0, k.where(ax < _HYP_SMALL, rsmall, rmid), rbig)
    res = k.copysign(res, x)
    return k.where(_isnan(k, x), x + x, res)


def f_cosh(k, x):
    ax = k.fabs(x)
    axc = k.where(ax < 22.0, ax, 0.0)
    _, _, ch, cl = _sinh_cosh_dd(k, axc)
    rmid = 0.5 * (ch + cl)
    rbig = _exp_scaled(k, ax, -1)
    res = k.where(ax < 22.0, rmid, rbig)
    return k.where(_isnan(k, x), x + x, res)


def f_tanh(k, x):
    ax = k.fabs(x)
    axc = k.where(ax < 22.0, ax, 0.0)
    z = axc * axc
    rsmall = axc + axc * z * _poly(k, z, TANH_TAYLOR)
    sh, sl, ch, cl = _sinh_cosh_dd(k, axc)
    q = sh / ch                                      # (sh+sl)/(ch+cl), dd division
    p, pe = _two_prod(k, q, ch)
    rmid = q + ((((sh - p) - pe) + sl) - q * cl) / ch
    res = k.where(ax < _HYP_SMALL, rsmall, rmid)
    res = k.where(ax < 22.0, res, 1.0)
    res = k.copysign(res, x)
    return k.where(_isnan(k, x), x + x, res)


# ---------------------------------------------------------------------------
# pow (fdlibm e_pow.c, branch-free) and log(x, base)
# ---------------------------------------------------------------------------

POW_L = [_w(0x3FE33333, 0x33333303), _w(0x3FDB6DB6, 0xDB6FABFF),
         _w(0x3FD55555, 0x518F264D), _w(0x3FD17460, 0xA91D4101),
         _w(0x3FCD864A, 0x93C9DB65), _w(0x3FCA7E28, 0x4A454EEF)]
DP_H1 = _w(0x3FE2B803, 0x40000000)
DP_L1 = _w(0x3E4CFDEB, 0x43CFD006)
LG2 = _w(0x3FE62E42, 0xFEFA39EF)
OVT = 8.0085662595372944372e-17
CP = _w(0x3FEEC709, 0xDC3A03FD)
CP_H = _w(0x3FEEC709, 0xE0000000)
CP_L = _w(0xBE3E2FE0, 0x145B01F5)
IVLN2 = _w(0x3FF71547, 0x652B82FE)


def _ln2_fraction(prec=256):
    """ln 2 = sum_{k>=1} 1/(k 2^k), as a Fraction accurate to 2^-prec."""
    one = 1 << (prec + 16)
    s = sum(one // (kk << kk) for kk in range(1, prec + 16))
    return Fraction(s, one)


IVLN2_TAIL = float(1 / _ln2_fraction() - Fraction(IVLN2))   # 1/ln2 - IVLN2
LG2_TAIL = float(_ln2_fraction() - Fraction(LG2))            # ln2 - LG2


def f_pow(k, x, y):
    ax = k.fabs(x)
    ay = k.fabs(y)
    xneg = k.bits(x) < 0               # sign bit (also -0, -inf)
    ix = k.bits(ax) >> 32              # high word of |x|
    iy = k.bits(ay) >> 32
    yint = k.trunc(ay) == ay
    yodd = yint & (k.floor(ay * 0.5) != ay * 0.5)
    # ---- general path; clamp lanes that are handled as special cases ----
    xfin = (ax < INF) & (ax > 0.0)
    yfin = (ay < INF) & (ay > 0.0)
    axs = k.where(xfin, ax, 2.0)
    ys = k.where(yfin, y, 1.0)
    ixs = k.bits(axs) >> 32
    # log2(ax) as t1 + t2 -- (a) |x-1| < 2^-20 (used when |y| > 2^31):
    # log(1+t) = t - w, w = t^2/2 - t^3/3 + t^4/4.  fdlibm multiplies t by a
    # 24-bit ivln2_h, which is NOT exact for t with more than 29 significant
    # bits (up to ~700 ulp error, e.g. pow(1.0000001670321421, -3867693849.8));
    # we form t * (1/ln2) exactly with Dekker's product instead.
    t = axs - 1.0
    w = (t * t) * (0.5 - t * (0.3333333333333333333333 - t * 0.25))
    u, ue = _two_prod(k, t, IVLN2)
    v = ue + (t * IVLN2_TAIL - w * IVLN2)
    t1a = _clear_low(k, u + v)
    t2a = v - (t1a - u)
    # (b) general
    sub = axs < 2.2250738585072014e-308
    axn = k.where(sub, axs * 9007199254740992.0, axs)      # * 2^53
    bn = k.bits(axn)
    ixn = bn >> 32
    n = k.where(sub, -53, 0) + (ixn >> 20) - 0x3ff
    j = ixn & 0x000fffff
    is0 = j <= 0x3988E
    is1 = (~is0) & (j < 0xBB67A)
    keep = is0 | is1
    n = k.where(keep, n, n + 1)
    ixm = k.where(keep, j | 0x3ff00000, (j | 0x3ff00000) - 0x00100000)
    axm = k.from_bits((ixm << 32) | (bn & 0xffffffff))
    kk = k.where(is1, 1, 0)
    bp = k.where(is1, 1.5, 1.0)
    dp_h = k.where(is1, DP_H1, 0.0)
    dp_l = k.where(is1, DP_L1, 0.0)
    u = axm - bp
    v = 1.0 / (axm + bp)
    ss = u * v
    s_h = _clear_low(k, ss)
    t_h = k.from_bits((((ixm >> 1) | 0x20000000) + 0x00080000 + (kk << 18)) << 32)
    t_l = axm - (t_h - bp)
    s_l = v * ((u - s_h * t_h) - s_h * t_l)
    s2 = ss * ss
    r = s2 * s2 * _poly(k, s2, POW_L)
    r = r + s_l * (s_h + ss)
    s2 = s_h * s_h
    t_h = _clear_low(k, 3.0 + s2 + r)
    t_l = r - ((t_h - 3.0) - s2)
    u = s_h * t_h
    v = s_l * t_h + t_l * ss
    p_h = _clear_low(k, u + v)
    p_l = v - (p_h - u)
    z_h = CP_H * p_h
    z_l = CP_L * p_h + p_l * CP + dp_l
    tn = k.to_double(n)
    t1b = _clear_low(k, ((z_h + z_l) + dp_h) + tn)
    t2b = z_l - (((t1b - tn) - dp_h) - z_h)
    hugey = iy > 0x41e00000
    t1 = k.where(hugey, t1a, t1b)
    t2 = k.where(hugey, t2a, t2b)
    # y * log2(x) = p_h + p_l
    y1 = _clear_low(k, ys)
    p_l = (ys - y1) * t1 + ys * t2
    p_h = y1 * t1
    z = p_l + p_h
    over = (z > 1024.0) | ((z == 1024.0) & (p_l + OVT > z - p_h))
    under = (z < -1075.0) | ((z == -1075.0) & (p_l <= z - p_h))
    ok = (~over) & (~under) & (z == z) & (k.fabs(z) < 2048.0)
    p_h = k.where(ok, p_h, 0.0)
    p_l = k.where(ok, p_l, 0.0)
    z = k.where(ok, z, 0.0)
    # 2^(p_h + p_l) = exp((p_h + p_l) * ln2), with the double-double exp
    # (instead of fdlibm's single-double 2^z kernel): one final rounding.
    zh, zl = _two_sum(k, p_h, p_l)
    a, ae = _two_prod(k, zh, LG2)
    ae = ae + (zh * LG2_TAIL + zl * LG2)
    xh = a + ae
    xl = ae - (xh - a)
    eh, el, m = _exp_dd_parts(k, xh, xl)
    res = _scale(k, eh + el, m)
    res = k.where(over, INF, k.where(under, 0.0, res))
    sgn = xneg & yodd
    res = k.where(sgn, -res, res)
    # |y| > 2^31 and x not close to 1: certain over/underflow
    ypos = y > 0.0
    hugeo = hugey & ((ix < 0x3fefffff) | ((iy > 0x43f00000) & (ix <= 0x3fefffff)))
    hugeo_val = k.where(ypos, 0.0, INF)
    hugei = hugey & ((ix > 0x3ff00000) | ((iy > 0x43f00000) & (ix >= 0x3ff00000)))
    hugei_val = k.where(ypos, INF, 0.0)
    res = k.where(hugeo, k.where(sgn, -hugeo_val, hugeo_val), res)
    res = k.where(hugei, k.where(sgn, -hugei_val, hugei_val), res)
    # (x<0) ** non-integer -> nan
    res = k.where(xneg & (~yint), NAN, res)
    # x is +-0, +-inf, +-1
    xsp = (ax == 0.0) | (ax == INF) | (ax == 1.0)
    zs = k.where(y < 0.0, 1.0 / ax, ax)
    zs = k.where(xneg & yodd, -zs, zs)
    zs = k.where(xneg & (ax == 1.0) & (~yint), NAN, zs)
    res = k.where(xsp, zs, res)
    # y = 0.5 (x >= +0), 2, +-1
    res = k.where((y == 0.5) & (~xneg), k.sqrt(x), res)
    res = k.where(y == 2.0, x * x, res)
    res = k.where(y == 1.0, x, res)
    res = k.where(y == -1.0, 1.0 / x, res)
    # y = +-inf
    yinf = ay == INF
    vinf = k.where(ax > 1.0, k.where(ypos, INF, 0.0), k.where(ypos, 0.0, INF))
    vinf = k.where(ax == 1.0, 1.0, vinf)
    res = k.where(yinf, vinf, res)
    # nan in -> nan; 1**y = 1; x**0 = 1
    res = k.where(_isnan(k, x) | _isnan(k, y), x + y, res)
    res = k.where(x == 1.0, 1.0, res)
    return k.where(y == 0.0, 1.0, res)


def f_log(k, x, base):
    """log(x, base) := ln(x) / ln(base) (two faithful logs, one division)."""
    return f_ln(k, x) / f_ln(k, base)


# ---------------------------------------------------------------------------
# numpy entry points
# ---------------------------------------------------------------------------

_NK = NumpyKit()


def _np_entry(fn):
    def wrapper(*args):
        arrs = [np.asarray(a, dtype=np.float64) for a in args]
        shape = np.broadcast_shapes(*[a.shape for a in arrs])
        flat = [np.ascontiguousarray(np.broadcast_to(a, shape)).reshape(-1)
                for a in arrs]
        with np.errstate(all="ignore"):
            r = fn(_NK, *flat)
        r = np.broadcast_to(np.asarray(r, dtype=np.float64), flat[0].shape)
        r = r.reshape(shape)
        return np.float64(r[()]) if shape == () else np.array(r)
    wrapper.__name__ = "np_" + fn.__name__[2:]
    wrapper.__doc__ = fn.__doc__
    return wrapper


np_exp = _np_entry(f_exp)
np_ln = _np_entry(f_ln)
np_sin = _np_entry(f_sin)
np_cos = _np_entry(f_cos)
np_tan = _np_entry(f_tan)
np_asin = _np_entry(f_asin)
np_acos = _np_entry(f_acos)
np_atan = _np_entry(f_atan)
np_sinh = _np_entry(f_sinh)
np_cosh = _np_entry(f_cosh)
np_tanh = _np_entry(f_tanh)
np_pow = _np_entry(f_pow)
np_log = _np_entry(f_log)

NUMPY = {"exp": np_exp, "ln": np_ln, "sin": np_sin, "cos": np_cos,
         "tan": np_tan, "asin": np_asin, "acos": np_acos, "atan": np_atan,
         "sinh": np_sinh, "cosh": np_cosh, "tanh": np_tanh,
         "expt": np_pow, "log": np_log}

_PY_SOURCES = {"exp": (f_exp, 1), "ln": (f_ln, 1), "sin": (f_sin, 1), "cos": (f_cos, 1),
               "tan": (f_tan, 1), "asin": (f_asin, 1), "acos": (f_acos, 1),
               "atan": (f_atan, 1), "sinh": (f_sinh, 1), "cosh": (f_cosh, 1),
               "tanh": (f_tanh, 1), "expt": (f_pow, 2)}


# ---------------------------------------------------------------------------
# The Python kit: the same algorithms as straight-line Python on floats
# ---------------------------------------------------------------------------
#
# A scalar call through the numpy kit costs ~90 us (numpy's per-operation overhead on 0-d
# arrays); the reference interpreter calls these functions one element at a time.  PyKit traces
# each algorithm once, as CKit does, into Python source on float and int values, compiled with
# exec: ~10x faster, with the same bits (Python floats are IEEE doubles; every operation is
# rounded once; the helpers below give IEEE results where Python would raise).

def _py_div(a, b):
    try:
        return a / b
    except ZeroDivisionError:
        if a != a or a == 0.0:
            return NAN
        return math.copysign(INF, a) * math.copysign(1.0, b)


def _py_round_with(fn):
    def r(x):
        if x != x or x == INF or x == -INF:
            return x
        y = float(fn(x))
        return y if y != 0.0 else math.copysign(0.0, x)   # IEEE keeps the sign of a zero
    return r


def _py_sqrt(x):
    if x >= 0.0:
        return math.sqrt(x)
    return x if x != x else NAN


_PACK_D, _PACK_Q = struct.Struct("<d"), struct.Struct("<Q")
_U64 = (1 << 64) - 1


def _py_bits(x):
    i = _PACK_Q.unpack(_PACK_D.pack(x))[0]
    return i - (1 << 64) if i >> 63 else i


def _py_from_bits(i):
    return _PACK_D.unpack(_PACK_Q.pack(i & _U64))[0]


_PY_HELPERS = {"_div": _py_div, "_floor": _py_round_with(math.floor),
               "_ceil": _py_round_with(math.ceil), "_trunc": _py_round_with(math.trunc),
               "_rint": _py_round_with(round), "_fabs": math.fabs, "_sqrt": _py_sqrt,
               "_copysign": math.copysign, "_bits": _py_bits, "_from_bits": _py_from_bits,
               "INF": INF, "NAN": NAN}


def _py_literal(c):
    c = float(c)
    if c != c:
        return "NAN"
    if c in (INF, -INF):
        return "INF" if c > 0 else "(-INF)"
    return repr(c) if c >= 0 else "(%r)" % c      # repr round-trips exactly


class PyKit(CKit):
    """Emits one Python statement per operation into ``self.lines`` (CKit's hooks)."""

    name = "python"
    NOT = "(not %s)"
    WHERE = "({a} if {m} else {b})"
    TO_INT = "int({})"
    TO_DOUBLE = "float({})"
    NAMES = {"floor": "_floor", "ceil": "_ceil", "trunc": "_trunc", "rint": "_rint",
             "fabs": "_fabs", "sqrt": "_sqrt", "copysign": "_copysign", "as_long": "_bits",
             "as_double": "_from_bits"}

    def statement(self, t, name, expr):
        return "%s = %s" % (name, expr)

    def binary(self, a, op, b):
        if op == "/":       # IEEE where Python raises; C's integer / is // on these operands
            return ("_div(%s, %s)" if a.t == "d" else "(%s // %s)") % (a.expr, b.expr)
        return super().binary(a, op, b)

    def literal(self, c):
        return _py_literal(c)

    def int_literal(self, c):
        return "(%d)" % c if c < 0 else "%d" % c

    def masked(self, mask, fn, args, fills):
        """Python branches: ``fn`` runs only where ``mask`` holds (the huge-argument
        reduction of sin/cos/tan)."""
        outer, self.lines = self.lines, []
        outs = fn(*args)
        body, self.lines = self.lines, outer
        names = ["t%d" % (self.n + j) for j in range(len(outs))]
        self.n += len(outs)
        self.lines.append("if %s:" % mask.expr)
        self.lines += ["    " + ln for ln in body]
        self.lines += ["    %s = %s" % (nm, o.expr) for nm, o in zip(names, outs)]
        self.lines.append("else:")
        self.lines += ["    %s = %s" % (nm, self.coerce(f, o.t).expr)
                       for nm, o, f in zip(names, outs, fills)]
        return tuple(CVal(self, nm, o.t) for nm, o in zip(names, outs))

    def table(self, name, values, idx):
        pname = "T_" + name
        self.tables.setdefault(pname, list(values))
        idx = self._typed(idx, "l")
        return self.emit("d" if isinstance(values[0], float) else "l",
                         "%s[%s]" % (pname, idx.expr))


def _py_entry(fname, fn, nargs):
    tables: dict = {}
    kit = PyKit(tables)
    names = ["x", "y"][:nargs]
    res = kit.coerce(fn(kit, *[CVal(kit, nm, "d") for nm in names]), "d")
    src = ("def %s(%s):\n" % (fname, ", ".join(names)) +
           "".join("    %s = float(%s)\n" % (nm, nm) for nm in names) +
           "".join("    %s\n" % ln for ln in kit.lines) + "    return %s\n" % res.expr)
    ns = dict(_PY_HELPERS)
    ns.update(tables)
    exec(compile(src, "<fmath %s>" % fname, "exec"), ns)
    f = ns[fname]
    f.__doc__ = fn.__doc__
    return f


_PY_CACHE: dict = {}


def py_function(name):
    """The Python-float version of a function of ``NUMPY`` (same keys): same bits as the
    numpy version, for one argument (tuple) at a time.  Built on first use."""
    f = _PY_CACHE.get(name)
    if f is None:
        if name == "log":
            ln = py_function("ln")
            f = lambda x, base: _py_div(ln(x), ln(base))      # noqa: E731
        else:
            fn, nargs = _PY_SOURCES[name]
            f = _py_entry("py_" + name, fn, nargs)
        _PY_CACHE[name] = f
    return f


# ---------------------------------------------------------------------------
# OpenCL source
# ---------------------------------------------------------------------------

_C_FUNCS = [("nz_exp", f_exp, 1), ("nz_ln", f_ln, 1), ("nz_sin", f_sin, 1),
            ("nz_cos", f_cos, 1), ("nz_tan", f_tan, 1), ("nz_asin", f_asin, 1),
            ("nz_acos", f_acos, 1), ("nz_atan", f_atan, 1),
            ("nz_sinh", f_sinh, 1), ("nz_cosh", f_cosh, 1),
            ("nz_tanh", f_tanh, 1), ("nz_pow", f_pow, 2)]

_SOURCE_CACHE = []
# Scoped to each function body (C99 6.10.6 / OpenCL): never contract a*b+c
# into an fma inside our code, whatever the including program does.  (Each
# emitted statement holds a single operation anyway, so even the default
# "contract within an expression" mode could not fuse anything.)
_PRAGMA = "#pragma OPENCL FP_CONTRACT OFF\n"


def opencl_source():
    """OpenCL C source defining nz_exp ... nz_pow, nz_log (needs
    cl_khr_fp64; compile without fast-math and with FP_CONTRACT OFF)."""
    if _SOURCE_CACHE:
        return _SOURCE_CACHE[0]
    tables = {}
    funcs = []
    for cname, fn, nargs in _C_FUNCS:
        kit = CKit(tables)
        names = ["x", "y"][:nargs]
        args = [CVal(kit, nm, "d") for nm in names]
        res = kit.coerce(fn(kit, *args), "d")
        sig = ", ".join("double %s" % nm for nm in names)
        body = "\n".join("    " + ln for ln in kit.lines)
        funcs.append("double %s(%s)\n{\n%s%s\n    return %s;\n}\n"
                     % (cname, sig, _PRAGMA, body, res.expr))
    funcs.append("double nz_log(double x, double base)\n{\n%s"
                 "    return nz_ln(x) / nz_ln(base);\n}\n" % _PRAGMA)
    out = ["/* generated by fmath.py -- bit-identical to its numpy version;\n"
           "   compile with FP_CONTRACT OFF and without fast-math. */\n"]
    for cname, (ct, vals) in tables.items():
        lits = [_c_double_literal(v) if ct == "double" else _c_long_literal(v)
                for v in vals]
        rows = [", ".join(lits[i:i + 8]) for i in range(0, len(lits), 8)]
        out.append("constant %s %s[%d] = {\n    %s\n};\n"
                   % (ct, cname, len(vals), ",\n    ".join(rows)))
    out.extend(funcs)
    _SOURCE_CACHE.append("\n".join(out))
    return _SOURCE_CACHE[0]
