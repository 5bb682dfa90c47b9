"""Nessie: a NESL compiler."""
__version__ = "0.1.0"
