"""More of the original's library: ``next_char``, ``bounding_box``, ``read_string``, ``prompt``
and the variables ``nesl_path``, ``user``, ``stdin``, ``stdout``, ``stderr``, ``nullstr``.

Registered into ``BUILTINS`` and ``CONSTANTS`` (imported by the package's ``__init__``).
They have no data-parallel form: the flattening backends call them on the host (``nessie.flatten.builtins.host_call``), so every backend computes and prints
the same values.

Behaviour, from the CMU sources:

* ``next_char(candidates, w, s, i)`` (src/other-ops.nesl, the loop of ``search_for_subseqs``):
  while ``i /= #w``, keep the candidates ``c`` with ``s[c + i]`` equal to ``w[i]`` and go on with
  ``i + 1``; ``w[i]`` and ``s[c + i]`` out of range are the subscript run-time error.
* ``bounding_box(points)`` (src/plot.nesl): ``bound_box((min x, min y), (max x - min x,
  max y - min y))``, with ``min_val``/``max_val`` (so over no points the identities:
  ``max_int``/``min_int``, ``inf``/``-inf``).
* ``read_string(delim, maxlen, stream)`` (src/io.lnesl over VCODE's ``FREAD_CHAR``): reads until
  end of file, a character of ``delim`` (consumed, not returned) or ``maxlen`` characters
  (negative: no limit); returns ``((string, status), (ok, message))``, the status ``-1`` at end
  of file, ``-2`` when ``maxlen`` characters were read, else the delimiter's code.  Nessie gives
  a program no terminal input: ``stdin`` is at end of file, as the original's is when nothing
  is typed (a NESL program run with its input closed), so reading it returns ``("", -1)`` (or
  ``("", -2)`` for ``maxlen`` 0) with ``(T, "")``.  ``stdout`` and ``stderr`` are output
  streams: reading them is at end of file too (``getc`` on an output file).  Any other stream
  (``nullstr``, ``stream(7)``) is not open: ``("", -1)`` with ``(F, "illegal VCODE file
  descriptor in FREAD")`` (the original pushes an empty status there; -1 is our choice).
* ``prompt(string)`` (src/other-ops.nesl): prints ``string``, reads a line of ``stdin`` and asks
  again while the line is empty and not at end of file; with no input it prints the string
  once and returns ``""``.
* ``nesl_path``: the directory of the installation, ending in ``/`` (the original's
  ``*nesl-path*``); here the directory that holds the ``nessie`` package.  ``user``: the
  ``USER`` environment variable, or ``""`` (the original reads ``(getenv "USER")``).
  ``stdin`` = ``stream(0)``, ``stdout`` = ``stderr`` = ``stream(2)``, ``nullstr`` =
  ``stream(-1)`` (src/io.lnesl).
"""
from __future__ import annotations

import os

from . import errors as E
from .builtins import BUILTINS, CONSTANTS, builtin
from .values import DataVal, Seq

STDIN, OUTPUT = 0, 2
#: the original's message for a stream that is not open
NOT_OPEN = "illegal VCODE file descriptor in FREAD"


def _string(text: str) -> Seq:
    return Seq(tuple(text))


@builtin("next_char")
def _next_char(arg, ctx):
    candidates, (w, (s, i)) = arg
    cands = list(candidates.items)
    n = len(s)
    while i != len(w):
        if not 0 <= i < len(w):
            raise ctx.error(E.SUBSCRIPT_OUT_OF_BOUNDS)
        letter = w.items[i]
        kept = []
        for c in cands:
            j = c + i
            if not 0 <= j < n:
                raise ctx.error(E.SUBSCRIPT_OUT_OF_BOUNDS)
            if s.items[j] == letter:
                kept.append(c)
        cands = kept
        i = ctx.sem.wrap(i + 1)
    return Seq(cands)


@builtin("bounding_box")
def _bounding_box(points, ctx):
    call = BUILTINS
    xs = Seq(tuple(p[0] for p in points.items))
    ys = Seq(tuple(p[1] for p in points.items))
    elem = ctx.arg_type.elem.fst if ctx.arg_type is not None else None
    sctx = type(ctx)(ctx.rt, ctx.span, None if elem is None else _seq(elem), elem)
    x0, y0 = call["min_val"](xs, sctx), call["min_val"](ys, sctx)
    x1, y1 = call["max_val"](xs, sctx), call["max_val"](ys, sctx)
    return DataVal("bound_box", ((x0, y0), call["-"]((x1, x0), ctx), call["-"]((y1, y0), ctx)))


def _seq(t):
    from .vtypes import TSeq
    return TSeq(t)


def _stream_number(stream) -> int:
    return stream.fields[0]


def read_chars(delim: str, maxlen: int, stream) -> tuple:
    """``((string, status), (ok, message))`` of ``read_string`` (the module docstring)."""
    fd = _stream_number(stream)
    if fd not in (STDIN, 1, OUTPUT):
        return ("", -1), (False, NOT_OPEN)
    if maxlen == 0:
        return ("", -2), (True, "")
    return ("", -1), (True, "")      # no input: end of file at once


@builtin("read_string")
def _read_string(arg, ctx):
    delim, (maxlen, stream) = arg
    (text, status), (ok, message) = read_chars("".join(delim.items), maxlen, stream)
    return (_string(text), status), (ok, _string(message))


@builtin("prompt")
def _prompt(s, ctx):
    ctx.rt.out.write("".join(s.items))
    while True:
        (line, status), (ok, message) = read_chars("\n", -1, DataVal("stream", (STDIN,)))
        if not ok:              # read_check: report the error, go on with the value read
            ctx.rt.out.write("ERROR while trying to read from a stream:\n" + message + "\n")
        if line or status == -1:
            return _string(line)


def nesl_path() -> str:
    """The directory of the installation (the one holding the ``nessie`` package), with a
    trailing ``/`` as the original's ``*nesl-path*``."""
    here = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    return here.rstrip("/") + "/"


CONSTANTS.update({
    "nesl_path": lambda sem: _string(nesl_path()),
    "user": lambda sem: _string(os.environ.get("USER", "")),
    "stdin": lambda sem: DataVal("stream", (STDIN,)),
    "stdout": lambda sem: DataVal("stream", (OUTPUT,)),
    "stderr": lambda sem: DataVal("stream", (OUTPUT,)),
    "nullstr": lambda sem: DataVal("stream", (-1,)),
})
