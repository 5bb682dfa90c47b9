"""Nessie: a NESL compiler, and its Python API.

``load(source, *, backend="auto", fuse=None, int64=False, run_toplevel=True, stdout=None,
filename=None, device=None, results="python") -> Module``
    Compile a NESL program, given as a path (``"prog.nesl"``, an ``os.PathLike``) or as source
    text, and run its top-level bindings and expressions (their printed lines are in
    ``module.output``).  ``backend`` is ``"auto"`` (the CLI's default: ``"opencl"``),
    ``"opencl"`` (flattened, fused λcu lowered to OpenCL and run on ``device``), ``"lcu"`` (the
    same λcu on the numpy kernel runner) or ``"interp"`` (the reference interpreter); ``fuse``
    defaults to True on the flattening backends.  Syntax and type errors raise
    ``nessie.diagnostics.CompileErrors``.

``Module``
    A loaded program: ``m.NAME(...)`` calls NESL function ``NAME`` with Python values (numpy
    arrays, lists, tuples, strings), converted by its NESL parameter types; ``dir(m)`` and
    ``m.functions`` list the functions; ``help(m.NAME)`` shows the NESL type and the comment
    written just before the definition.
``Function``
    One NESL function of a module (callable; ``.signature``, ``.params``).
``DataVal``
    A value of a NESL ``datatype`` (``DataVal("point", (1.0, 2.0))``).
``Segmented(values, lengths=... | offsets=...)``
    A nested sequence in columnar form (flat ``values`` cut into segments), accepted for any
    ``[[t]]`` argument and returned with ``load(..., results="numpy")``; sequences of tuples
    also take structured arrays, tuples of columns and ``(n, k)`` arrays, nested sequences
    ``scipy.sparse`` CSR matrices, Arrow and awkward arrays, all converted without
    per-element Python work.

Example::

    import numpy as np, nessie
    m = nessie.load("nesl_examples/dotp.nesl")
    m.dotp(np.array([1, 2, 3]), np.array([4, 5, 6]))      # -> 32

The command line is ``nessie`` (``nessie --help``), the REPL ``python -m nessie.repl``;
``nessie.api``'s docstring describes the argument and result conversions in full.
"""
__version__ = "0.1.0"

__all__ = ["load", "Module", "Function", "DataVal", "Segmented", "RuntimeNeslError", "CompileErrors",
           "__version__"]

_API = ("load", "Module", "Function", "DataVal", "Segmented", "RuntimeNeslError", "CompileErrors")


def __getattr__(name):
    """The Python API (:mod:`nessie.api`: ``load``, ``Module``, ``Function``, ``DataVal``),
    imported lazily so that the command line does not pay for importing numpy and the compiler
    on every start."""
    if name in _API:
        from nessie import api
        return getattr(api, name)
    raise AttributeError(f"module 'nessie' has no attribute {name!r}")


def __dir__():
    return sorted(n for n in set(globals()) | set(__all__)
                  if not n.startswith("_") or n.startswith("__"))
