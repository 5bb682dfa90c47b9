"""Top-level values read by functions keep their type when rebound."""
import pytest

from nessie.diagnostics import CompileErrors
from nessie.syntax import parse_text
from nessie.types import typecheck


def test_rebinding_at_same_type_is_fine():
    typecheck(parse_text("x = 1;\nfunction gg(y) = x + y;\nx = 2;\ngg(1);\n", "t.nesl"))


def test_rebinding_a_global_a_function_reads_at_another_type_is_an_error():
    with pytest.raises(CompileErrors) as e:
        typecheck(parse_text("x = 1;\nfunction gg(y) = x + y;\nx = 2.5;\n", "t.nesl"))
    assert str(e.value) == ("t.nesl:3:1: error: cannot rebind x at type float: function gg "
                            "reads it at type int")


def test_unread_globals_can_change_type():
    typecheck(parse_text("x = 1;\nx = 2.5;\nfunction gg(y) = x + y;\ngg(1.0);\n", "t.nesl"))
