"""Golden tests: printed AST, inferred types, typed AST and monomorphic program of the example
programs in programs/.  Regenerate with NESSIE_UPDATE_GOLDEN=1 (then review the diff)."""
import os

import pytest

from nessie.mono import monomorphise, print_mono
from nessie.syntax import parse_file, parse_text, print_ast
from nessie.types import print_typed, type_summary, typecheck

from fe_helpers import GOLDEN, PROGRAMS

NAMES = sorted(f[:-5] for f in os.listdir(PROGRAMS) if f.endswith(".nesl"))
UPDATE = os.environ.get("NESSIE_UPDATE_GOLDEN") == "1"


def _outputs(name):
    path = os.path.join(PROGRAMS, name + ".nesl")
    prog = parse_file(path)
    typed = typecheck(prog)
    mono = monomorphise(typed)
    return prog, {
        "ast": print_ast(prog),
        "types": type_summary(typed),
        "typed": print_typed(typed),
        "mono": print_mono(mono),
    }


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("kind", ["ast", "types", "typed", "mono"])
def test_golden(name, kind):
    _, outs = _outputs(name)
    gpath = os.path.join(GOLDEN, f"{name}.{kind}")
    if UPDATE or not os.path.exists(gpath):
        if not UPDATE:
            pytest.fail(f"missing golden file {gpath} (run with NESSIE_UPDATE_GOLDEN=1)")
        with open(gpath, "w") as fh:
            fh.write(outs[kind])
    with open(gpath) as fh:
        assert outs[kind] == fh.read()


@pytest.mark.parametrize("name", NAMES)
def test_printed_ast_round_trips(name):
    prog, outs = _outputs(name)
    again = parse_text(outs["ast"], os.path.join(PROGRAMS, name + ".nesl"))
    assert again == prog
    # the typed printout is NESL source too, and it type-checks to the same types
    typed_src = outs["typed"]
    retyped = typecheck(parse_text(typed_src, os.path.join(PROGRAMS, name + ".typed.nesl")))
    assert type_summary(retyped) == outs["types"]
