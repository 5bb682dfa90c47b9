"""Reading a program's source for the command line (``nessie run/check/compile/stats/test/
bench``): a file or standard input, as text, with one-line errors; its own module so that the
subcommands' modules (``nessie.bench``) need not import ``nessie.cli``, which imports them."""
from __future__ import annotations

import os
import sys

from nessie.diagnostics import CompileError, Span


class UsageError(Exception):
    """A one-line ``nessie: error: ...`` message."""


def read_source(path: str) -> tuple:
    """``(text, name)`` of a program file (``-``: standard input); a file that cannot be read
    (too large for memory included: ``/dev/zero``) or is not UTF-8 text is a one-line error
    naming it (and the place of a bad byte)."""
    name = "<stdin>" if path == "-" else path
    try:
        return _read_source(path, name)
    except MemoryError:
        pass                      # raised below, once the partial data is freed
    raise UsageError(f"cannot read {name}: out of memory (the input is too large)")


def _read_source(path: str, name: str) -> tuple:
    if path != "-" and os.path.isdir(path):
        raise UsageError(f"{path} is a directory, not a NESL file")
    try:
        if path == "-":
            data = sys.stdin.buffer.read() if hasattr(sys.stdin, "buffer") else sys.stdin.read()
        else:
            with open(path, "rb") as f:
                data = f.read()
    except FileNotFoundError:
        raise UsageError(f"cannot open {path}") from None
    except OSError as e:
        raise UsageError(f"cannot read {name}: {e.strerror or e}") from None
    try:
        text = data if isinstance(data, str) else data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        start = data.rfind(b"\n", 0, e.start) + 1
        col = len(data[start:e.start].decode("utf-8", "replace")) + 1
        raise CompileError(Span(name, line, col, line, col),
                           f"not UTF-8 text (byte 0x{data[e.start]:02x}): NESL programs are read "
                           f"as UTF-8") from None
    return text.replace("\r\n", "\n").replace("\r", "\n"), name   # as text mode reads it




__all__ = ["read_source", "UsageError"]
