"""A byte that is not UTF-8 typed into the REPL gets the message the CLI gives for a file
(``not UTF-8 text (byte 0xe9)``), its line quoted with U+FFFD in its place and the caret under
it (a hostile-input hunt: the REPL said ``character '\\udce9' is not a NESL char`` and quoted
the escape), and the session goes on."""
from __future__ import annotations

import subprocess
import sys


def test_repl_reports_a_byte_that_is_not_utf8():
    r = subprocess.run([sys.executable, "-m", "nessie.repl", "--backend", "interp"],
                       input=b'x = "\xe9";\n1;\n', capture_output=True, timeout=120)
    err = r.stderr.decode("utf-8")
    assert err.splitlines()[:3] == [
        "<stdin>:1:6: error: not UTF-8 text (byte 0xe9): NESL programs are read as UTF-8",
        '    x = "\ufffd";',
        "         ^"]
    assert "it = 1 : int" in r.stdout.decode("utf-8")
