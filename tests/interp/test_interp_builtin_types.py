"""Every builtin, applied to a value of its (instantiated) argument type, returns a value of
its result type: checks argument unpacking and result shapes against the type checker's
``BUILTIN_TYPES`` table."""
from __future__ import annotations

import pytest

from interp_helpers import runtime
from nessie.diagnostics import RuntimeNeslError
from nessie.interp.builtins import BUILTINS
from nessie.interp.values import DataVal, SegDes, Seq
from nessie.interp.vtypes import Datatypes, conforms, format_type
from nessie.types.builtins import BUILTIN_SCHEMES
from nessie.types.library import library_defs
from nessie.types.types import INT, FLOAT, BOOL, TBase, TData, TPair, TSeq, subst_type

#: the library's datatypes (stream, bound_box) that builtin types mention
LIBRARY = Datatypes({name: d.scheme for name, d in library_defs().items()})

SAMPLES = {"int": 1, "float": 0.5, "bool": True, "char": "a", "segdes": SegDes(1)}
# classes -> the instances tried for a type variable of that class
INSTANCES = {"any": [INT, TSeq(FLOAT)], "number": [INT, FLOAT], "ordinal": [INT, FLOAT],
             "logical": [BOOL, INT]}


def sample(ty):
    if isinstance(ty, TBase):
        return SAMPLES[ty.name]
    if isinstance(ty, TSeq):
        return Seq((sample(ty.elem), sample(ty.elem)))
    if isinstance(ty, TPair):
        return (sample(ty.fst), sample(ty.snd))
    if isinstance(ty, TData):
        return DataVal(ty.name, tuple(sample(f) for f in LIBRARY.fields(ty)))
    raise TypeError(ty)


def instances(name):
    scheme = BUILTIN_SCHEMES[name]
    choices = [{}]
    for var, cls in zip(scheme.vars, scheme.classes):
        choices = [{**c, var: t} for c in choices for t in INSTANCES[cls]]
    return [subst_type(scheme.type, c) for c in choices]


CASES = [(name, fty) for name in sorted(BUILTINS) if "file" not in name
         for fty in instances(name)]


@pytest.mark.parametrize("name,fty", CASES, ids=[f"{n}:{format_type(t)}" for n, t in CASES])
def test_result_has_the_result_type(name, fty):
    rt = runtime()
    arg = sample(fty.arg)
    try:
        result = BUILTINS[name](arg, rt.context(arg_type=fty.arg, res_type=fty.result))
    except RuntimeNeslError:
        return  # e.g. an index out of range for the sample: the shape was accepted
    assert conforms(result, fty.result, LIBRARY), \
        f"{name}{arg!r} = {result!r} : {format_type(fty.result)}"
