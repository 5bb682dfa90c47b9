"""The run-time state the host library works in, and what one host call sees of its call."""
from __future__ import annotations

import os
from typing import Any, Callable, Optional

from lambda_cu.errors import PREFIX, LcuRuntimeError
from lambda_cu.loc import Loc
from nessie.output import Output


def _is_output(x: Any) -> bool:
    return all(hasattr(x, a) for a in ("write", "line", "at_line_start"))


class HostRuntime:
    """Mutable state of one run of a flattened program on the host: the output (``out``: an
    :class:`Output` or any object with its ``write``/``line``/``at_line_start``), the word size
    of ints, the directory file names are relative to, ``print_length``, the random generator
    ``rng`` (glibc ``random()``, reseeded with ``seed`` by :meth:`reseed` before every top-level
    item), the program's datatypes (for printing) and ``to_value(type, leaves)``, the conversion
    of leaves to the values the printer prints."""

    def __init__(self, out: Any = None, *, int_bits: int = 32, seed: int = 0,
                 base_dir: Optional[str] = None, print_length: int = 100, datatypes: Any = None,
                 to_value: Optional[Callable[[Any, list], Any]] = None) -> None:
        self.out = out if _is_output(out) else Output(out)
        self.int_bits = int_bits
        self.seed = seed
        self.base_dir = base_dir if base_dir is not None else os.getcwd()
        self.print_length = print_length
        self.datatypes = datatypes
        self.to_value = to_value
        self._rng = None

    @property
    def rng(self):
        """The random generator of ``rand`` (created on first use)."""
        if self._rng is None:
            from nessie.glibc_random import GlibcRandom
            self._rng = GlibcRandom(self.seed)
        return self._rng

    @rng.setter
    def rng(self, gen) -> None:
        self._rng = gen

    def reseed(self) -> None:
        """``srandom(seed)``: before every top-level item, as the original."""
        if self._rng is not None:
            self._rng.seed(self.seed)

    def wrap(self, x: int) -> int:
        """``x`` reduced to the ``int_bits``-bit two's-complement word."""
        half = 1 << (self.int_bits - 1)
        return ((x + half) & ((half << 1) - 1)) - half


class HostCall:
    """One call site of a host builtin: the runtime, the NESL types of its argument and
    result, the type map of the flattened program (λcu leaf types of NESL types) and the source
    location (a ``lambda_cu.loc.Loc``) that its run-time errors report."""

    __slots__ = ("rt", "arg_type", "res_type", "tm", "loc")

    def __init__(self, rt: HostRuntime, arg_type, res_type, tm, loc: Optional[Loc]) -> None:
        self.rt = rt
        self.arg_type = arg_type
        self.res_type = res_type
        self.tm = tm
        self.loc = loc

    def error(self, message: str) -> LcuRuntimeError:
        """The run-time error ``RUNTIME ERROR: message`` at the call."""
        return LcuRuntimeError(self.loc, PREFIX + message)


__all__ = ["Output", "HostRuntime", "HostCall"]
