"""The random numbers of the original CMU NESL: the C library's ``random()``, as in glibc.

NESL 3.1's ``rand`` is computed by its vector library (CVL) with ``random() % n``, and
``rand_seed(k)`` calls ``srandom(k)``; on Linux that is glibc's generator, which this module
reproduces exactly (pure Python and numpy, no C library needed):

* ``srandom(seed)``: the seed is taken as a 32-bit ``unsigned int``; 0 behaves as 1.  Then
  ``r[0] = seed`` (as a signed 32-bit word) and ``r[i] = 16807 * r[i-1] mod 2147483647`` for
  ``i = 1 .. 30`` (glibc's Schrage computation: a negative intermediate gets ``2147483647``
  added); ``r[31 .. 33] = r[0 .. 2]``; and the first 310 outputs are discarded.
* ``random()``: TYPE_3 additive feedback, ``r[i] = r[i-3] + r[i-31] mod 2**32``, output
  ``r[i] >> 1`` (31 bits).

:class:`GlibcRandom` keeps the last 31 words of ``r``.  :meth:`GlibcRandom.draw` computes many
outputs at once: the next ``B`` words are a fixed linear map (mod 2**32) of the last 31, so a
block of outputs is one integer matrix product (uint64 arithmetic wraps mod 2**64, hence
exactly mod 2**32 after masking).

The NESL builtins on top of it (:func:`rand_int`, :func:`rand_float`, and their vector forms
:func:`rand_ints`, :func:`rand_floats`) are used by the reference interpreter
(``nessie.interp.builtins``) and by the host library of the flattening backends
(:func:`rand_externs`), so that both draw identical numbers; this module depends on neither.

The run-time facts this follows (observed on the original): every top-level item starts with
``srandom(0)`` (so ``rand(100);`` prints 83 each time it is entered); ``rand(n)`` on ints is
``random() % n``; ``rand(x)`` on floats is ``x * float(random() % 2**30) / 2**30``; a
sequence of arguments draws one number per element, in element order.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

_M32 = 0xFFFFFFFF
_DEG = 31          # TYPE_3: degree of the recurrence ...
_SEP = 3           # ... and its separation
_DISCARD = 10 * _DEG
_BLOCK = 31 * 32   # outputs per matrix product in ``draw``

#: 2**30, the float resolution of ``rand`` on floats
FLOAT_STEPS = 1 << 30

#: the message of ``rand(0)`` (C's ``random() % 0``: a division by zero); the same text as the
#: reference interpreter's integer division by zero
DIVIDE_BY_ZERO = "Divide by zero."


def _initial_words(seed: int) -> list:
    """The 31 words ``r[0 .. 30]`` that ``srandom(seed)`` writes (as unsigned 32-bit)."""
    seed &= _M32
    if seed == 0:
        seed = 1
    word = seed - (1 << 32) if seed >= 1 << 31 else seed     # int32_t
    words = [word]
    for _ in range(1, _DEG):
        hi = int(word / 127773) if word < 0 else word // 127773   # C division truncates
        lo = word - hi * 127773
        word = 16807 * lo - 2836 * hi
        if word < 0:
            word += 2147483647
        words.append(word)
    return [w & _M32 for w in words]


def _block_matrix(rows: int) -> np.ndarray:
    """``G`` (``rows x 31``, uint64): the next ``rows`` words are ``G @ w mod 2**32`` where
    ``w`` holds the last 31 words, oldest first."""
    coef = [[1 if j == i else 0 for j in range(_DEG)] for i in range(_DEG)]
    for _ in range(rows):
        a, b = coef[-_DEG], coef[-_SEP]
        coef.append([(x + y) & _M32 for x, y in zip(a, b)])
    return np.array(coef[_DEG:], dtype=np.uint64)


_G: np.ndarray | None = None


def _g() -> np.ndarray:
    global _G
    if _G is None:
        _G = _block_matrix(_BLOCK)
    return _G


class GlibcRandom:
    """glibc's ``random()`` with ``srandom(seed)`` (TYPE_3, the default state size)."""

    __slots__ = ("words",)

    def __init__(self, seed: int = 0) -> None:
        self.words: list = []
        self.seed(seed)

    def seed(self, seed: int) -> None:
        """``srandom(seed)`` (``seed`` taken modulo 2**32, as C's ``unsigned int``)."""
        w = _initial_words(seed)
        w += w[:_SEP]                      # r[31..33] = r[0..2]: glibc's first additions
        self.words = w[-_DEG:]
        for _ in range(_DISCARD):
            self.next()

    def next(self) -> int:
        """One ``random()``: an int in ``[0, 2**31)``."""
        w = self.words
        x = (w[0] + w[_DEG - _SEP]) & _M32
        del w[0]
        w.append(x)
        return x >> 1

    def draw(self, n: int) -> np.ndarray:
        """The next ``n`` outputs of ``random()``, in order (an int64 array)."""
        if n <= 64:
            return np.array([self.next() for _ in range(n)], dtype=np.int64)
        g = _g()
        out = np.empty(n, dtype=np.uint64)
        w = np.array(self.words, dtype=np.uint64)
        k = 0
        while k < n:
            m = min(_BLOCK, n - k)
            block = (g[:m] @ w) & np.uint64(_M32)
            out[k:k + m] = block
            w = np.concatenate((w, block))[-_DEG:]
            k += m
        self.words = [int(x) for x in w]
        return (out >> np.uint64(1)).astype(np.int64)


# ------------------------------------------------------------------------------ rand, NESL's

def _int_mod(r, n):
    """C's ``r % n`` for ``r >= 0``: ``r mod |n|`` (the sign of the dividend)."""
    return r % abs(n)


def rand_int(gen: GlibcRandom, n: int) -> int:
    """``rand(n)`` on an int: ``random() % n`` with C's ``%``.

    Choices where the original's manual ("for a positive value v") says nothing: a negative
    ``n`` gives ``random() % n`` as C computes it, a number in ``[0, |n|)`` (C's remainder has
    the sign of the dividend, and ``random()`` is never negative); ``rand(0)`` is C's
    ``random() % 0``, a division by zero, so it raises ``ZeroDivisionError`` (the backends
    report ``RUNTIME ERROR: Divide by zero.`` at the call) and draws nothing.
    """
    if n == 0:
        raise ZeroDivisionError(DIVIDE_BY_ZERO)
    return _int_mod(gen.next(), n)


def rand_float(gen: GlibcRandom, x: float) -> float:
    """``rand(x)`` on a float: ``x * float(random() % 2**30) / 2**30`` (in that order), so a
    number in ``[0, x)`` for ``x > 0`` and in ``(x, 0]`` for ``x < 0``; ``rand(0.0)`` is 0.0
    (and still draws)."""
    return x * float(gen.next() % FLOAT_STEPS) / FLOAT_STEPS


def rand_ints(gen: GlibcRandom, ns) -> np.ndarray:
    """``rand`` of every int of ``ns`` (a sequence), one draw per element in element order;
    ``ZeroDivisionError`` (before drawing anything) if one of them is 0."""
    ns = np.asarray(ns, dtype=np.int64).reshape(-1)
    if ns.size and not ns.all():
        raise ZeroDivisionError(DIVIDE_BY_ZERO)
    r = gen.draw(ns.size)
    if ns.size == 0:
        return r
    # |n| as uint64 (|min_int64| fits), r < 2**31
    m = np.abs(ns.astype(np.int64)).astype(np.uint64)
    m[ns == np.iinfo(np.int64).min] = np.uint64(1 << 63)
    return (r.astype(np.uint64) % m).astype(np.int64)


def rand_floats(gen: GlibcRandom, xs) -> np.ndarray:
    """``rand`` of every float of ``xs``, one draw per element in element order."""
    xs = np.asarray(xs, dtype=np.float64).reshape(-1)
    r = (gen.draw(xs.size) % FLOAT_STEPS).astype(np.float64)
    with np.errstate(all="ignore"):
        return xs * r / float(FLOAT_STEPS)


# ------------------------------------------------------------------------------ host library

#: the builtins whose host functions this module supplies to the flattening backends
EXTERN_BUILTINS = ("rand", "rand_seed")


def rand_externs(specs: dict, gen: GlibcRandom) -> dict:
    """Host functions for a flattened program's ``Extern`` calls of ``rand`` and ``rand_seed``.

    ``specs`` maps extern names to ``(builtin name, NESL function type, lifted?)`` (the
    flattener's ``FlatProgram.externs``); the entries for other builtins are ignored.  A plain
    extern is ``f(x)``; a lifted one ``f(n, xs)``, for the ``n`` instances of a context with
    arguments ``xs`` (a vector), returns a vector of results drawn in element order.  Results
    have the argument's numpy type (``rand : a -> a``); ``rand_seed`` gives ``True``.  All
    share ``gen``, the run's generator (the caller reseeds it before each top-level item).
    The flattener checks ``rand``'s int arguments for 0 (a located runtime error) before it
    calls these; the ``ZeroDivisionError`` here is only a safeguard."""
    out = {}
    for ename, (name, fun_type, lifted) in specs.items():
        if name in EXTERN_BUILTINS:
            is_float = getattr(fun_type.arg, "name", None) == "float"
            out[ename] = _extern(name, is_float, lifted, gen)
    return out


def _extern(name: str, is_float: bool, lifted: bool, gen: GlibcRandom) -> Callable[..., Any]:
    if name == "rand":
        if lifted:
            if is_float:
                return lambda n, xs: rand_floats(gen, xs)
            return lambda n, xs: rand_ints(gen, xs).astype(np.asarray(xs).dtype)
        if is_float:
            return lambda x: np.float64(rand_float(gen, float(x)))
        return lambda x: np.asarray(x).dtype.type(rand_int(gen, int(x)))

    if lifted:
        def seed_each(n, ks):
            for k in np.asarray(ks).reshape(-1):
                gen.seed(int(k))
            return np.ones(int(n), dtype=np.bool_)
        return seed_each

    def seed(k):
        gen.seed(int(k))
        return np.bool_(True)
    return seed


__all__ = ["GlibcRandom", "rand_int", "rand_float", "rand_ints", "rand_floats", "rand_externs",
           "EXTERN_BUILTINS", "FLOAT_STEPS", "DIVIDE_BY_ZERO"]
