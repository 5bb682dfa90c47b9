"""Malformed NESL sources: mutations of the project's example programs.

Each mutation class takes a seed program (``nesl_examples/*.nesl``,
``tests/frontend/programs/*.nesl``) and a ``random.Random`` (under hypothesis,
``st.randoms()``, so its choices shrink) and returns the bytes of a mutated program:

``delete``     remove 1-3 tokens
``duplicate``  repeat 1-3 tokens in place
``swap``       exchange 1-2 pairs of tokens (two numbers, two names or two equal symbols,
               so that the program often still parses and runs; adjacent; or any two)
``truncate``   cut the file at a random byte
``garbage``    insert 1-3 chunks of hostile bytes: random bytes, bytes that are not UTF-8,
               characters above 255, control characters, quotes, backquotes, ``%``, literals of
               thousands of digits, ``-2147483648``-like literals
``deep``       add to a literal 0 times (or append) an expression nested 1-5000 levels deep
               (parentheses, brackets, ``-``, ``1+1+...``, ``let``, ``if``, apply-to-each,
               tuples, calls), around and beyond ``nessie.limits.MAX_EXPR_DEPTH``

Tokens are found by a regular expression of this module (not Nessie's lexer), so a mutation
never depends on the code under test.
"""
from __future__ import annotations

import glob
import os
import random
import re

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

CLASSES = ("delete", "duplicate", "swap", "truncate", "garbage", "deep")

_TOKEN = re.compile(r"""%[^%]*%?|"(?:[^"\\\n]|\\.)*"?|`.|[A-Za-z_][A-Za-z0-9_']*"""
                    r"""|[0-9]+(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?|\+\+|->|<-|<=|>=|==|/=|\|\|"""
                    r"""|::|\s+|.""", re.S)


def seed_files() -> list:
    """Paths (relative to the checkout) of the programs mutated."""
    paths = sorted(glob.glob(os.path.join(ROOT, "nesl_examples", "*.nesl")))
    paths += sorted(glob.glob(os.path.join(ROOT, "tests", "frontend", "programs", "*.nesl")))
    if not paths:
        raise RuntimeError(f"no seed programs under {ROOT}")   # never pass without testing
    return [os.path.relpath(p, ROOT) for p in paths]


_SOURCES: dict = {}


def source(rel: str) -> str:
    if rel not in _SOURCES:
        with open(os.path.join(ROOT, rel), encoding="utf-8") as f:
            _SOURCES[rel] = f.read()
    return _SOURCES[rel]


def tokens(text: str) -> list:
    return _TOKEN.findall(text)


def _solid(toks: list) -> list:
    """Indices of the tokens that are not white space."""
    return [i for i, t in enumerate(toks) if not t.isspace()]


def _pick(r: random.Random, xs: list):
    return xs[r.randrange(len(xs))]


def m_delete(text: str, r: random.Random) -> bytes:
    toks = tokens(text)
    for _ in range(r.randint(1, 3)):
        idx = _solid(toks)
        if not idx:
            break
        del toks[_pick(r, idx)]
    return "".join(toks).encode()


def m_duplicate(text: str, r: random.Random) -> bytes:
    toks = tokens(text)
    for _ in range(r.randint(1, 3)):
        idx = _solid(toks)
        if not idx:
            break
        i = _pick(r, idx)
        toks.insert(i, toks[i] + _pick(r, ["", " "]))
    return "".join(toks).encode()


def m_swap(text: str, r: random.Random) -> bytes:
    toks = tokens(text)
    for _ in range(r.randint(1, 2)):
        idx = _solid(toks)
        if len(idx) < 2:
            break
        k = r.randrange(len(idx) - 1)
        i = idx[k]
        how = r.random()
        if how < 0.4:                     # two tokens of a kind: the program often still
            same = [j for j in idx if _kind(toks[j]) == _kind(toks[i])]   # parses, and runs
            j = _pick(r, same)
        elif how < 0.7:
            j = idx[k + 1]
        else:
            j = _pick(r, idx)
        toks[i], toks[j] = toks[j], toks[i]
    return "".join(toks).encode()


def _kind(tok: str) -> str:
    if tok[:1].isdigit():
        return "number"
    if tok[:1].isalpha() or tok[:1] == "_":
        return "name"
    return tok


def m_truncate(text: str, r: random.Random) -> bytes:
    data = text.encode()
    return data[:r.randrange(len(data) + 1)]


_HOSTILE = [
    b"\xff", b"\xfe\xff", b"\xc3", b"\xed\xa0\x80", b"\x00", b"\x07", b"\x1b[31m", b"\r",
    b"\t", b"\x0c", "\u0101".encode(), "\u20ac".encode(), "\u202e".encode(),
    "\U0001F600".encode(), "\u00e9".encode(), b'"', b"`", b"%", b"$", b";", b"\\",
    b"2147483648", b"-2147483648", b"9223372036854775808", b"-9223372036854775809",
    b"4294967296", b"1e999", b"0.0000000000000000000000000000000000001e-400",
    b'"\xc4\x81"', b"`\xc4\x81", b"set print_length x;", b"set print_length;",
    b'load "nosuch.nesl";', b'load ".";',
]


def m_garbage(text: str, r: random.Random) -> bytes:
    data = text.encode()
    for _ in range(r.randint(1, 3)):
        kind = r.randrange(4)
        if kind == 0:
            chunk = bytes(r.randrange(256) for _ in range(r.randint(1, 8)))
        elif kind == 1:
            chunk = "".join(r.choice("0123456789") for _ in range(r.choice([21, 40, 400,
                                                                                 4400, 6000])))
            chunk = chunk.encode()
        else:
            chunk = _pick(r, _HOSTILE)
        at = r.randrange(len(data) + 1)
        data = data[:at] + chunk + data[at:]
    return data


def deep_expression(shape: str, n: int) -> str:
    """An int-valued NESL expression nested about ``n`` levels deep."""
    if shape == "parens":
        return "(" * n + "1" + ")" * n
    if shape == "brackets":          # [[..[1]..]][0][0]...: an int again
        return "[" * n + "1" + "]" * n + "[0]" * n
    if shape == "neg":
        return "-" * n + "1"
    if shape == "plus":
        return "+".join(["1"] * n)
    if shape == "let":
        return "".join(f"let x{i} = {i} in " for i in range(n)) + "1"
    if shape == "letflat":
        return "let " + "; ".join(f"y{i} = {i}" for i in range(n)) + " in y0"
    if shape == "if":
        return "if t then " * n + "1" + " else 2" * n
    if shape == "apply":
        return "{" * n + "1" + " : i in [0:1]}" * n + "[0]" * n
    if shape == "tuple":             # #[(1, 1, ..., 1)]: the tuple type is n deep too
        return "#[(" + ", ".join(["1"] * n) + ")]"
    if shape == "call":
        return "max(1, " * n + "1" + ")" * n
    raise ValueError(shape)


SHAPES = ("parens", "brackets", "neg", "plus", "let", "letflat", "if", "apply", "tuple",
          "call")


def deep_depth(r: random.Random) -> int:
    band = r.random()
    if band < 0.5:
        return r.randint(1, 60)
    if band < 0.8:
        return r.randint(900, 1100)        # around the documented limit
    return r.randint(1100, 5000)


#: shapes whose type nests sequences as deep as the expression
SEQUENCE_SHAPES = ("brackets", "apply")


def m_deep(text: str, r: random.Random, seq_depth_cap: int = 0) -> bytes:
    """``seq_depth_cap`` (0: none) caps the depth of the shapes that nest sequences."""
    shape = _pick(r, list(SHAPES))
    depth = deep_depth(r)
    if seq_depth_cap and shape in SEQUENCE_SHAPES:
        depth = min(depth, seq_depth_cap)
    exp = deep_expression(shape, depth)
    toks = tokens(text)
    ints = [i for i, t in enumerate(toks) if t.isdigit()]
    if ints and r.random() < 0.6:
        # the literal keeps its value, so the program still computes what it did (a deep
        # expression should not turn fib(12) into fib(59))
        i = _pick(r, ints)
        toks[i] = f"({toks[i]} + 0 * ({exp}))"
        return "".join(toks).encode()
    ends = [i + 1 for i, t in enumerate(toks) if t == ";"] or [len(toks)]
    at = _pick(r, ends)
    toks.insert(at, f"\n{exp};\n")
    return "".join(toks).encode()


MUTATIONS = {"delete": m_delete, "duplicate": m_duplicate, "swap": m_swap,
             "truncate": m_truncate, "garbage": m_garbage, "deep": m_deep}


def mutate(cls: str, rel: str, r: random.Random, **kw) -> bytes:
    return MUTATIONS[cls](source(rel), r, **kw)
