"""Shared helpers of the interpreter tests: building values and calling builtins."""
from __future__ import annotations

import io

from nessie.interp.builtins import BUILTINS, Runtime
from nessie.interp.values import Semantics, Seq, from_python, string


def S(text: str) -> Seq:
    """A NESL string."""
    return string(text)


def V(obj):
    """Python lists -> Seq, tuples -> right-nested pairs (strings stay chars/str)."""
    return from_python(obj)


def runtime(int_bits: int = 32) -> Runtime:
    return Runtime(Semantics(int_bits=int_bits), out=io.StringIO())


def call(name: str, arg, arg_type=None, rt: Runtime | None = None):
    rt = rt or runtime()
    return BUILTINS[name](arg, rt.context(span=None, arg_type=arg_type))
