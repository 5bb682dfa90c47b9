"""Reference interpreter of NESL: the semantic oracle of Nessie.

* ``values``   -- run-time value representation and the ``Semantics`` options
* ``vtypes``   -- the interpreter's view of types (printing, empty reductions, ``@``)
* ``builtins`` -- semantics of every NESL builtin (``BUILTINS``, ``CONSTANTS``)
* ``printing`` -- NESL 3.1.1's printed form of values and result lines
* ``eval``     -- evaluator of the monomorphic typed program (``run_program``)
"""
