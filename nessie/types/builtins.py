"""The one table of NESL builtin functions and constants with their types.

``BUILTIN_TYPES`` maps every builtin name (lower case, exactly as NESL spells it; infix operators
by their symbol, prefix minus as ``negate``) to its NESL type string.  The strings follow the CMU
NESL 3.1 library and are parsed with the front end's type parser at import
(:data:`BUILTIN_SCHEMES`).  Argument tuples may be written with or without parentheses.

``BUILTIN_CONSTANTS`` holds the predefined constants (``pi``, ``max_int``, ...).

Other stages (the interpreter, the flattener, backends) implement semantics keyed by these same
names; a call node in the typed AST has ``kind == "builtin"`` and ``name`` one of these keys.
``time(e)`` is syntax (typed AST node ``Time``, type ``(t, float)``), not a builtin.
"""
from __future__ import annotations

BUILTIN_TYPES: dict[str, str] = {
    # ---------------------------------------------------------------- arithmetic (scalars)
    "+": "a, a -> a :: (a in number)",
    "-": "a, a -> a :: (a in number)",
    "*": "a, a -> a :: (a in number)",
    "/": "a, a -> a :: (a in number)",
    "rem": "int, int -> int",
    "mod": "int, int -> int",
    "^": "a, int -> a :: (a in number)",
    "negate": "a -> a :: (a in number)",
    "abs": "a -> a :: (a in number)",
    "diff": "a, a -> a :: (a in number)",
    "max": "a, a -> a :: (a in ordinal)",
    "min": "a, a -> a :: (a in ordinal)",
    # comparisons
    "==": "a, a -> bool :: (a in ordinal)",
    "/=": "a, a -> bool :: (a in ordinal)",
    "<": "a, a -> bool :: (a in ordinal)",
    ">": "a, a -> bool :: (a in ordinal)",
    "<=": "a, a -> bool :: (a in ordinal)",
    ">=": "a, a -> bool :: (a in ordinal)",
    # logical (bitwise on int)
    "not": "a -> a :: (a in logical)",
    "and": "a, a -> a :: (a in logical)",
    "or": "a, a -> a :: (a in logical)",
    "xor": "a, a -> a :: (a in logical)",
    "nor": "a, a -> a :: (a in logical)",
    "nand": "a, a -> a :: (a in logical)",
    # predicates
    "plusp": "a -> bool :: (a in number)",
    "minusp": "a -> bool :: (a in number)",
    "zerop": "a -> bool :: (a in number)",
    "oddp": "int -> bool",
    "evenp": "int -> bool",
    "lshift": "int, int -> int",
    "rshift": "int, int -> int",
    # floating point functions
    "sqrt": "float -> float",
    "isqrt": "int -> int",
    "ln": "float -> float",
    "log": "float, float -> float",
    "exp": "float -> float",
    "expt": "float, float -> float",
    "sin": "float -> float",
    "cos": "float -> float",
    "tan": "float -> float",
    "asin": "float -> float",
    "acos": "float -> float",
    "atan": "float -> float",
    "sinh": "float -> float",
    "cosh": "float -> float",
    "tanh": "float -> float",
    # conversions
    "btoi": "bool -> int",
    "code_char": "int -> char",
    "char_code": "char -> int",
    "float": "int -> float",
    "ceil": "float -> int",
    "floor": "float -> int",
    "trunc": "float -> int",
    "round": "float -> int",
    # random numbers, misc
    "rand": "a -> a :: (a in number)",
    "rand_seed": "int -> bool",
    "select": "bool, a, a -> a :: (a in any)",
    "identity": "a -> a :: (a in any)",
    "first": "(a, b) -> a :: (a in any; b in any)",
    # ---------------------------------------------------------------- sequences
    "#": "[a] -> int :: (a in any)",
    "length": "[a] -> int :: (a in any)",
    "dist": "a, int -> [a] :: (a in any)",
    "elt": "[a], int -> a :: (a in any)",
    "rep": "[a], a, int -> [a] :: (a in any)",
    "zip": "[a], [b] -> [(a, b)] :: (a in any; b in any)",
    "unzip": "[(a, b)] -> ([a], [b]) :: (a in any; b in any)",
    "zip3": "[a], [b], [c] -> [(a, b, c)] :: (a in any; b in any; c in any)",
    "index": "int -> [int]",
    "iseq": "int, int, int -> [int]",
    # scans (all exclusive)
    "plus_scan": "[a] -> [a] :: (a in number)",
    "mult_scan": "[a] -> [a] :: (a in number)",
    "max_scan": "[a] -> [a] :: (a in ordinal)",
    "min_scan": "[a] -> [a] :: (a in ordinal)",
    "or_scan": "[a] -> [a] :: (a in logical)",
    "and_scan": "[a] -> [a] :: (a in logical)",
    "xor_scan": "[a] -> [a] :: (a in logical)",
    # reductions
    "sum": "[a] -> a :: (a in number)",
    "product": "[a] -> a :: (a in number)",
    "max_val": "[a] -> a :: (a in ordinal)",
    "min_val": "[a] -> a :: (a in ordinal)",
    "any": "[a] -> a :: (a in logical)",          # bitwise or / and on ints
    "all": "[a] -> a :: (a in logical)",
    "count": "[bool] -> int",
    "parity": "[bool] -> bool",
    "max_index": "[a] -> int :: (a in ordinal)",
    "min_index": "[a] -> int :: (a in ordinal)",
    # permutations, gathers and scatters
    "->": "[a], [int] -> [a] :: (a in any)",
    "read": "[a], [int] -> [a] :: (a in any)",
    "get": "[a], [int] -> [a] :: (a in any)",
    "permute": "[a], [int] -> [a] :: (a in any)",
    "<-": "[a], [(int, a)] -> [a] :: (a in any)",
    "write": "[a], [(int, a)] -> [a] :: (a in any)",
    "put": "[a], [int], [a] -> [a] :: (a in any)",
    "rotate": "[a], int -> [a] :: (a in any)",
    "reverse": "[a] -> [a] :: (a in any)",
    "pack": "[(a, bool)] -> [a] :: (a in any)",
    "++": "[a], [a] -> [a] :: (a in any)",
    "append": "[a], [a] -> [a] :: (a in any)",
    "cons": "a, [a] -> [a] :: (a in any)",
    "snoc": "[a], a -> [a] :: (a in any)",
    "subseq": "[a], int, int -> [a] :: (a in any)",
    "take": "[a], int -> [a] :: (a in any)",
    "drop": "[a], int -> [a] :: (a in any)",
    "odd_elts": "[a] -> [a] :: (a in any)",
    "even_elts": "[a] -> [a] :: (a in any)",
    "interleave": "[a], [a] -> [a] :: (a in any)",
    "head_rest": "[a] -> (a, [a]) :: (a in any)",
    "rest_tail": "[a] -> ([a], a) :: (a in any)",
    # nesting
    "partition": "[a], [int] -> [[a]] :: (a in any)",
    "flatten": "[[a]] -> [a] :: (a in any)",
    "split": "[a], [bool] -> [[a]] :: (a in any)",
    "bottop": "[a] -> [[a]] :: (a in any)",
    "length_from_flags": "[bool] -> [int]",
    "transpose": "[[a]] -> [[a]] :: (a in any)",
    "pack_index": "[bool] -> [int]",
    "split_index": "[bool] -> ([int], [int])",
    "make_segdes": "int -> segdes",
    "nest": "[a], [segdes] -> [[a]] :: (a in any)",
    # sorting, searching, sets
    "sort": "[a] -> [a] :: (a in ordinal)",
    "rank": "[a] -> [int] :: (a in ordinal)",
    "rank_down": "[a] -> [int] :: (a in ordinal)",
    "collect": "[(a, b)] -> [(a, [b])] :: (a in ordinal; b in any)",
    "int_collect": "[(int, a)] -> [(int, [a])] :: (a in any)",
    "kth_smallest": "[a], int -> a :: (a in ordinal)",
    "find": "a, [a] -> int :: (a in any)",
    "search_for_subseqs": "[a], [a] -> [int] :: (a in ordinal)",
    "remove_duplicates": "[a] -> [a] :: (a in any)",
    "mark_duplicates": "[a] -> [bool] :: (a in any)",
    "union": "[a], [a] -> [a] :: (a in ordinal)",
    "intersection": "[a], [a] -> [a] :: (a in ordinal)",
    "name": "[a] -> [int] :: (a in any)",
    "eql": "a, a -> bool :: (a in any)",
    "hash": "a, int -> int :: (a in any)",
    # more of the original's sequence library
    "enumerate": "[bool] -> [int]",
    "group_by": "[a], int -> [[a]] :: (a in any)",
    "median": "[a] -> a :: (a in ordinal)",
    "previous": "[a], a -> [a] :: (a in any)",
    "rest": "[a] -> [a] :: (a in any)",
    "join": "[a], [int], [a], [int] -> [a] :: (a in any)",
    "vpair": "a, a -> [a] :: (a in any)",
    "flag_merge": "[bool], [a], [a] -> [a] :: (a in any)",
    "cond_put": "[a], [int], [bool], [a] -> [a] :: (a in any)",
    # ---------------------------------------------------------------- strings and output
    "@": "a -> [char] :: (a in any)",
    "||": "[char], int -> [char]",
    "print_string": "[char] -> bool",
    "print_line": "[char] -> bool",
    "print_char": "char -> bool",
    "print": "a -> bool :: (a in any)",
    "error": "[char] -> a :: (a in any)",
    "write_string": "[char] -> bool",
    "linify": "[char] -> [[char]]",
    "wordify": "[char] -> [[char]]",
    "lowercase": "char -> char",
    "uppercase": "char -> char",
    "string_eql": "[char], [char] -> bool",
    "parse_int": "[char] -> (int, bool)",
    "parse_float": "[char] -> (float, bool)",
    "exp_string": "float, int -> [char]",
    # files (host side only)
    "read_int_seq_from_file": "[char] -> [int]",
    "read_float_seq_from_file": "[char] -> [float]",
    "write_string_to_file": "[char], [char] -> bool",
    "read_string_from_file": "[char] -> [char]",
    # more of the original's library (src/other-ops.nesl, src/io.lnesl, src/plot.nesl); the
    # datatypes stream and bound_box are the library's (nessie.types.library)
    "next_char": "[int], [a], [a], int -> [int] :: (a in any)",
    "bounding_box": "[(a, a)] -> bound_box(a) :: (a in number)",
    "read_string": "[char], int, stream -> (([char], int), bool, [char])",
    "prompt": "[char] -> [char]",
}

#: predefined constants and their types
BUILTIN_CONSTANTS: dict[str, str] = {
    "pi": "float",
    "max_int": "int",
    "min_int": "int",
    "space": "char",
    "newline": "char",
    "tab": "char",
    # the original's library variables (src/read-eval-print.lisp, src/io.lnesl)
    "nesl_path": "[char]",
    "user": "[char]",
    "stdin": "stream",
    "stdout": "stream",
    "stderr": "stream",
    "nullstr": "stream",
}

#: the builtin each operator of the syntax denotes (prefix minus is ``negate``)
BINARY_OPERATORS = ("or", "nor", "xor", "and", "nand", "==", "/=", "<", ">", "<=", ">=",
                    "+", "-", "++", "*", "/", "||", "^", "<-", "->")
PREFIX_OPERATORS = {"-": "negate", "#": "#", "@": "@"}


#: the library's datatypes (nessie.types.library defines them) and their numbers of parameters
LIBRARY_DATATYPE_ARITY = {"stream": 0, "bound_box": 1}


class _Arity:
    """What the type parser needs of a library datatype: its parameters."""

    def __init__(self, n: int) -> None:
        self.params = tuple(range(n))


def _parse_all():
    # shallow: on this thread (these short types need no deep stack), not on a thread per type
    # (178 threads, 90 ms), nor on one thread of their own (it would deadlock on an import
    # that the importing thread holds: this runs while nessie.types is being imported)
    from nessie.syntax import parse_type_signature, parse_value_type
    from nessie.types.convert import scheme_from_sig, scheme_from_value_type
    dts = {name: _Arity(n) for name, n in LIBRARY_DATATYPE_ARITY.items()}
    schemes = {}
    for name, text in BUILTIN_TYPES.items():
        schemes[name] = scheme_from_sig(parse_type_signature(text, f"<builtin {name}>", True), dts)
    consts = {}
    for name, text in BUILTIN_CONSTANTS.items():
        texp, ctx = parse_value_type(text, f"<builtin {name}>", True)
        consts[name] = scheme_from_value_type(texp, ctx, dts).type
    return schemes, consts


#: name -> Scheme (a TFun inside), parsed from BUILTIN_TYPES at import
BUILTIN_SCHEMES, CONSTANT_TYPES = _parse_all()
