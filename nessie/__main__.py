"""``python -m nessie``: the ``nessie`` command line (run, check, compile, stats, test); see
:mod:`nessie.cli`.  The REPL is ``python -m nessie.repl``."""
import sys

from nessie.cli import main

if __name__ == "__main__":
    sys.exit(main())
