"""Run-time values of the reference interpreter, and the semantic configuration.

Representation (one Python form per NESL type, used consistently by every module of
``nessie.interp``):

========================  ==============================================================
NESL type                 Python value
========================  ==============================================================
``int``                   ``int``, always inside the configured word (``Semantics.wrap``)
``float``                 ``float`` (IEEE double)
``bool``                  ``bool``
``char``                  a one-character ``str`` (code points 0..255, NESL chars are
                          8-bit); a one-character string is never anything else, so
                          there is no ambiguity with sequences, which are ``Seq``
``[t]``                   ``Seq`` -- an immutable wrapper of a Python tuple of elements
``(a, b)``                a Python 2-tuple; NESL ``(a, b, c)`` is ``(a, (b, c))``
datatype ``d(t1, ...)``   ``DataVal(name, fields)``, ``fields`` a tuple with one value per
                          declared field type
``segdes``                ``SegDes(length)``
========================  ==============================================================

Booleans are Python ``bool`` -- code that dispatches on the kind of a scalar must test
``type(x) is bool`` before ``isinstance(x, int)``.

``Semantics`` is the immutable description of everything that changes the meaning of a
program: the integer word size (32 bits as NESL 3.1, 64 bits as an option) and the
default seed of the random generator.  It is passed around explicitly, never global.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Iterator, Optional


@dataclass(frozen=True)
class Semantics:
    """Semantic options of a run.

    ``int_bits``: width of NESL ``int`` (two's complement); every integer result is
    wrapped to it.  ``seed``: the seed of the random generator used by ``rand``
    (``srandom(seed)`` before every top-level item, as the original does with 0; ``rand_seed``
    reseeds at run time).
    """

    int_bits: int = 32
    seed: int = 0

    def __post_init__(self) -> None:
        if self.int_bits not in (32, 64):
            raise ValueError(f"int_bits must be 32 or 64, not {self.int_bits}")

    @property
    def max_int(self) -> int:
        return (1 << (self.int_bits - 1)) - 1

    @property
    def min_int(self) -> int:
        return -(1 << (self.int_bits - 1))

    def wrap(self, x: int) -> int:
        """``x`` reduced to the configured two's-complement word."""
        half = 1 << (self.int_bits - 1)
        if -half <= x < half:
            return x
        return ((x + half) & ((half << 1) - 1)) - half


DEFAULT_SEMANTICS = Semantics()


class Seq:
    """An immutable NESL sequence: a tuple of element values.

    Equality and hashing are structural (``eql`` is Python ``==`` on values).  Lists are
    accepted by the constructor and converted to a tuple.
    """

    __slots__ = ("items",)

    def __init__(self, items: Iterable[Any] = ()) -> None:
        object.__setattr__(self, "items", items if type(items) is tuple else tuple(items))

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("Seq is immutable")

    def __len__(self) -> int:
        return len(self.items)

    def __iter__(self) -> Iterator[Any]:
        return iter(self.items)

    def __getitem__(self, i: int) -> Any:
        return self.items[i]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Seq) and self.items == other.items

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __hash__(self) -> int:
        return hash(("Seq", self.items))

    def __repr__(self) -> str:
        return f"Seq({list(self.items)!r})"


def string(text: str) -> Seq:
    """The NESL ``[char]`` value of a Python string."""
    return Seq(tuple(text))


def to_str(chars: Seq) -> str:
    """The Python string of a NESL ``[char]`` value."""
    return "".join(chars.items)


@dataclass(frozen=True)
class DataVal:
    """A value of a user datatype: constructor ``name`` applied to ``fields``.

    ``definition``: for a value the Python API returns, the compiler's name of the datatype
    definition it was made with (``pt~2`` for the second definition of ``pt`` at another
    type, ``nessie.mono``), so that it is refused where another definition of ``pt`` is
    expected; ``None`` (values made by hand) fits any.  It is not compared nor shown."""

    name: str
    fields: tuple = field(default=())
    definition: Optional[str] = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class SegDes:
    """A segment descriptor (``make_segdes``): the length of one segment."""

    length: int


def pair(*components: Any) -> Any:
    """The right-nested NESL tuple of ``components``: ``pair(a, b, c) == (a, (b, c))``."""
    if len(components) < 2:
        raise ValueError("a NESL tuple has at least two components")
    value = components[-1]
    for component in reversed(components[:-1]):
        value = (component, value)
    return value


def unpair(value: Any, n: int) -> tuple:
    """The ``n`` components of a right-nested tuple: ``unpair((a, (b, c)), 3) == (a, b, c)``."""
    out = []
    for _ in range(n - 1):
        first, value = value
        out.append(first)
    out.append(value)
    return tuple(out)


def from_python(obj: Any) -> Any:
    """Convenience for tests and the Python API: lists become ``Seq`` (recursively),
    tuples of more than two components become right-nested pairs."""
    if isinstance(obj, Seq):
        return obj
    if isinstance(obj, list):
        return Seq(tuple(from_python(x) for x in obj))
    if isinstance(obj, tuple):
        return pair(*(from_python(x) for x in obj))
    return obj


def to_python(value: Any) -> Any:
    """Inverse of ``from_python`` for sequences (pairs stay right-nested 2-tuples)."""
    if isinstance(value, Seq):
        return [to_python(x) for x in value.items]
    if isinstance(value, tuple):
        return tuple(to_python(x) for x in value)
    if isinstance(value, DataVal):
        return DataVal(value.name, tuple(to_python(x) for x in value.fields))
    return value
