"""The Lift backend's documented limits, and running its recursive stages safely.

The stages of the compiler (type inference, address spaces, allocation, barrier
elimination, code generation, the printers) walk programs recursively, a few Python frames per
level of nesting.  Rather than rewriting each of them iteratively, the backend (the same idea
as Nessie's front end; the big-stack runner and the environment reader are the ones of
``lambda_cu.support``, since ``lift_backend`` imports no ``nessie`` module)

* bounds the nesting of a ``.lift`` file: a construct nested more than :data:`MAX_EXPR_DEPTH`
  levels deep is a located syntax error, ``expression too deep`` (counted by the parser, which
  is the only stage that sees the text); and
* runs the stages under :func:`run_deep`: on a thread with a large stack (:data:`STACK_SIZE`)
  and a raised recursion limit (:data:`RECURSION_LIMIT`).  Measured with the deep programs of
  ``tests/lift/test_cli_robustness.py``: compiling the deepest programs the limit admits takes
  at most 11 Python frames a level (10,000 composed functions ``f o g o ...`` or ``$``: 3;
  5,000 lambdas nested in lambdas, 2 levels each: 10; 10,000 parentheses: 5), so the deepest
  program needs about a tenth of the recursion limit; 10,000 composed maps compile in about
  7 s and 80 MB, 5,000 nested lambdas in 2 s.

What counts as a level: each ``(`` of an expression, an argument list or a type, each ``[``
of an array type, each lambda, each right operand of ``$``, each operand of ``o`` after the
first (``f o g o h`` is ``f(g(h(x)))``, nested), each ``._k`` of a chain, each pattern argument
and each operator of an arithmetic expression (``1 + 2 + 3`` nests, ``(1 + 2)`` too).  So
``f o g o ...`` may compose about 10,000 functions, and ``(\\a -> (\\b -> ...)(a))`` nest about
5,000 lambdas.  The limit is ``LIFT_MAX_EXPR_DEPTH`` in the environment (default 10,000);
raising it far beyond the default may exhaust the recursion budget, which is then reported as
``program too deep to compile`` at the program instead of a crash.

Types have a limit of their own, :data:`MAX_TYPE_DEPTH` (``LIFT_MAX_TYPE_DEPTH``, default 256):
array and tuple types nested deeper are a located ``type too deep`` error.  Maps nest only
over nested arrays, so this also bounds nested maps (256 nested maps compile in about a second).
"""
from __future__ import annotations

from lambda_cu.support import RECURSION_LIMIT, STACK_SIZE, env_positive, run_deep

__all__ = ["MAX_EXPR_DEPTH", "MAX_TYPE_DEPTH", "MAX_ITERATE_UNROLL", "MAX_PRIVATE_BYTES", "MAX_INDEX_NODES", "STACK_SIZE", "RECURSION_LIMIT", "INT_MAX", "run_deep",
           "expression_too_deep", "type_too_deep", "TOO_DEEP_TO_COMPILE"]


#: the deepest nesting of a ``.lift`` construct (see the module docstring)
MAX_EXPR_DEPTH = env_positive("LIFT_MAX_EXPR_DEPTH", 10_000)
#: the deepest nesting of array and tuple types (``[[float]N]M`` is 2 levels; each map of
#: nested maps needs one): the generated C names of nested tuples grow with their depth
MAX_TYPE_DEPTH = env_positive("LIFT_MAX_TYPE_DEPTH", 256)
#: the most iterations of an ``iterate`` whose body changes the length (their lengths are
#: computed at compile time; halving or doubling reaches the int limits within 32)
MAX_ITERATE_UNROLL = env_positive("LIFT_MAX_ITERATE_UNROLL", 1024)
#: the most bytes of private memory (arrays and variables from ``toPrivate``, ``reduceSeq``'s
#: accumulators) one work-item may use: OpenCL private memory is registers and a small
#: per-work-item stack (a few KB to 64 KB on GPUs; PoCL runs work-items on its own stack and
#: crashed with 4 MB), so more is a located compile error rather than a crash at the launch
MAX_PRIVATE_BYTES = env_positive("LIFT_MAX_PRIVATE_BYTES", 65536)
#: the most operations of one read's index expression built through ``pad(clamp|mirror|wrap)``:
#: each such pad copies the index below it into its cases (3 or 5 copies), so chained pads grow
#: the generated C exponentially (12 clamp pads: a hang); more is a located compile error
MAX_INDEX_NODES = env_positive("LIFT_MAX_INDEX_NODES", 20000)
#: the largest array length, size and NDRange dimension: generated kernels index with ``int``
INT_MAX = 2 ** 31 - 1
#: message of the safety net when a program within the limit still exhausts the recursion budget
TOO_DEEP_TO_COMPILE = ("program too deep to compile: it exhausts the compiler's recursion budget "
                       "(lower LIFT_MAX_EXPR_DEPTH or split the program)")

def expression_too_deep(limit: int = None) -> str:
    limit = MAX_EXPR_DEPTH if limit is None else limit
    return (f"expression too deep: nested more than {limit} levels (the Lift backend's limit, "
            f"LIFT_MAX_EXPR_DEPTH)")


def type_too_deep(limit: int = None) -> str:
    limit = MAX_TYPE_DEPTH if limit is None else limit
    return (f"type too deep: array and tuple types nested more than {limit} levels (the Lift "
            f"backend's limit, LIFT_MAX_TYPE_DEPTH)")
