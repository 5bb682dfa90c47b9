"""Nessie: a NESL compiler."""
__version__ = "0.1.0"


def __getattr__(name):
    """``nessie.load`` (the Python API, :mod:`nessie.api`), imported lazily so that the command
    line does not pay for importing numpy and the compiler on every start."""
    if name == "load":
        from nessie.api import load
        return load
    raise AttributeError(f"module 'nessie' has no attribute {name!r}")
