"""Every builtin named in NESL.md's "Builtins" section has an implementation."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from nessie.interp.builtins import BUILTINS, CONSTANTS

#: a copy of ../shared/NESL.md kept in the checkout (CI has no ../shared)
NESL_MD = Path(__file__).resolve().parents[1] / "data" / "NESL.md"   # a copy of shared/NESL.md

# NESL.md's list, transcribed (scalars, sequences, "also in the original library",
# strings and output, files).
LISTED = """
+ - * / rem mod ^ negate abs diff max min == /= < > <= >= not and or xor nor nand
plusp minusp zerop oddp evenp lshift rshift sqrt isqrt ln log exp expt sin cos tan asin
acos atan sinh cosh tanh btoi code_char char_code float ceil floor trunc round rand
rand_seed select identity
# dist elt rep zip unzip zip3 index iseq plus_scan mult_scan max_scan min_scan or_scan
and_scan xor_scan sum product max_val min_val any all count parity max_index min_index
-> read permute <- write put get rotate reverse pack ++ cons snoc subseq take drop
odd_elts even_elts interleave head_rest rest_tail partition flatten split bottop
length_from_flags transpose sort rank rank_down collect int_collect kth_smallest find
search_for_subseqs remove_duplicates mark_duplicates union intersection name eql hash
length append first pack_index split_index make_segdes nest print_line lowercase
uppercase parse_int
@ print_string print_char write_string linify wordify string_eql parse_float exp_string ||
read_int_seq_from_file read_float_seq_from_file write_string_to_file read_string_from_file
""".split()

# Words inside the section's code spans that are not builtins: type names and classes,
# metavariables of the examples, keywords.
NOT_BUILTINS = {
    "int", "float", "bool", "char", "segdes", "number", "ordinal", "logical", "in", "a", "b",
    "s", "v", "n", "i", "d", "e", "x", "idx", "base", "flag", "flags", "counts", "row",
    "start", "end", "t", "f",
}


@pytest.mark.parametrize("name", LISTED)
def test_listed_builtin_is_implemented(name):
    assert name in BUILTINS


def test_constants_are_defined():
    assert set(CONSTANTS) == {"space", "newline", "tab", "pi", "max_int", "min_int",
                              # the original library's variables (issue 10)
                              "nesl_path", "user", "stdin", "stdout", "stderr", "nullstr"}


def test_every_name_in_nesl_md_builtins_section_is_covered():
    text = NESL_MD.read_text()
    section = text[text.index("## Builtins"):text.index("## Semantics that matter")]
    spans = re.findall(r"`([^`]+)`", section)
    words = set()
    for span in spans:
        words.update(w.lower() for w in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", span))
    missing = sorted(w for w in words if w not in BUILTINS and w not in NOT_BUILTINS)
    assert missing == []
    for name in LISTED:
        assert name in section or name == "#", name


def test_same_names_as_the_type_checker():
    from nessie.types.builtins import BUILTIN_CONSTANTS, BUILTIN_TYPES
    assert sorted(set(BUILTINS) ^ set(BUILTIN_TYPES)) == []
    assert set(CONSTANTS) == set(BUILTIN_CONSTANTS)
