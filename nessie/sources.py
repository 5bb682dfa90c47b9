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
    if path == "":
        raise UsageError("the file name is empty (give a NESL file, or - for standard input)")
    if path != "-" and os.path.isdir(path):
        raise UsageError(f"{path} is a directory, not a NESL file")
    if path == "-":
        try:
            data = sys.stdin.buffer.read() if hasattr(sys.stdin, "buffer") else sys.stdin.read()
        except OSError as e:
            raise UsageError(f"cannot read {name}: {reason(e)}") from None
    else:
        try:
            f = open(path, "rb")
        except OSError as e:     # the reason: no such file, permission denied, ...
            raise UsageError(f"cannot open {path}: {reason(e)}") from None
        try:
            with f:
                data = f.read()
        except OSError as e:
            raise UsageError(f"cannot read {name}: {reason(e)}") from None
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


def reason(e: OSError) -> str:
    """Why a file could not be opened or read, as the system says it (``No such file or
    directory``, ``Permission denied``)."""
    return e.strerror or str(e)


__all__ = ["read_source", "reason", "UsageError"]
