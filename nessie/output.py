"""The output stream of a run, shared by the reference interpreter and the host library of the
compiled backends (both print results and program output through it)."""
from __future__ import annotations

import sys
from typing import Optional, TextIO


class Output:
    """The output stream of a run, remembering whether the last character was a newline
    (result lines always start on a fresh line after ``print_string`` output)."""

    def __init__(self, stream: Optional[TextIO] = None) -> None:
        self.stream = stream if stream is not None else sys.stdout
        self.at_line_start = True

    def write(self, text: str) -> None:
        if text:
            self.stream.write(text)
            self.at_line_start = text.endswith("\n")

    def line(self, text: str) -> None:
        """Write ``text`` as a line of its own."""
        if not self.at_line_start:
            self.write("\n")
        self.write(text + "\n")


__all__ = ["Output"]
