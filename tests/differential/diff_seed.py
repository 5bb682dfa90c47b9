"""The seed of this run's generated programs (see conftest.py): a new one on every run,
``NESSIE_DIFF_SEED=N`` repeats a run."""
import os
import random

DIFF_SEED = int(os.environ.get("NESSIE_DIFF_SEED") or random.SystemRandom().randrange(2**32))
