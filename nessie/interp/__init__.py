"""Reference interpreter of NESL: the semantic oracle of Nessie.

* ``values``   -- run-time value representation and the ``Semantics`` options
* ``vtypes``   -- the interpreter's view of types (printing, empty reductions, ``@``)
* ``builtins`` -- semantics of every NESL builtin (``BUILTINS``, ``CONSTANTS``)
* ``printing`` -- NESL 3.1.1's printed form of values and result lines
* ``eval``     -- evaluator of the monomorphic typed program (``run_program``)
"""

# more of the original's library (next_char, bounding_box, read_string, prompt, nesl_path, user,
# stdin, ...) registers itself into builtins.BUILTINS and CONSTANTS when imported; imported here
# (the package is initialised before any of its modules) so that builtins need not import it
from . import library as _library  # noqa: E402,F401
