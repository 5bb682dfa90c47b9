"""Shared helpers for the front-end tests."""
import os

import pytest

from nessie.diagnostics import CompileErrors
from nessie.syntax import parse_text
from nessie.types import typecheck

HERE = os.path.dirname(__file__)
PROGRAMS = os.path.join(HERE, "programs")
GOLDEN = os.path.join(HERE, "golden")


def check(text, filename="<test>"):
    return typecheck(parse_text(text, filename))


def errors_of(text, filename="t.nesl"):
    """Formatted one-line errors ``file:line:col: error: msg`` of a program."""
    with pytest.raises(CompileErrors) as info:
        check(text, filename)
    return [str(e) for e in info.value.errors]
