"""Robustness: malformed programs through the CLI, on the interpreter, λcu and OpenCL (issue 11).

Each example is a mutation (``mutate.py``: delete, duplicate, swap, truncate, garbage, deep) of
a program of ``nesl_examples/`` or ``tests/frontend/programs/``, drawn by hypothesis from one
seed per run (printed in the header: ``NESSIE_ROBUSTNESS_SEED=N`` repeats a run).  It is run as
``nessie run --backend B FILE`` for B in interp, lcu and opencl (PoCL in CI) by
``nessie.cli.main`` in a worker process (``runner.py``), each with a time budget, and must end
with exit status 0, or 1 and a located ``FILE:LINE:COL: error:``; never a traceback, an
internal compiler error, another status, or a hang; and all backends must print the same
results and the same messages with the same exit status.  (Except after a program recursed too
deep on the interpreter: then λcu and OpenCL, which evaluate breadth first, only have to give up without a
traceback, or run out of its shorter budget.)

Sizes: ``NESSIE_ROBUSTNESS_EXAMPLES`` inputs per class (default 25: 150 inputs, 450 runs, about
two minutes on 2 cores); ``NESSIE_ROBUSTNESS_BUDGET`` seconds per run (default 60).
``tests/robustness/campaign.py`` runs long campaigns and counts verdicts per class.

Known limits, outside this suite's reach by default (``NESSIE_ROBUSTNESS_FULL=1`` lifts them):
a λcu or OpenCL run that takes more than 20 times the interpreter's time (at least 20 s) is counted
``slow`` in the summary, not failed (``runner.run_backends`` says why such programs exist);
on ``lcu`` and ``opencl`` the ``deep`` class runs unfused, and its shapes that nest *sequences* (``[[[1]]]``,
nested apply-to-each) stop at 40 levels.  Fusion time grows steeply with nesting (a literal
33 sequences deep: over 20 s) and flattening time grows faster than the square of the sequence
depth (a literal 100 deep: 1.5 s at the top level, 40 s inside an apply-to-each; 900 deep:
150 s); both belong to issue 11's "fusion time grows steeply with nesting" item.  Messages
are compared whole, caret underlines (``^~~~``) included: every backend underlines the same
expression.
"""
from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st

from conftest import COUNTS, SEED
from mutate import CLASSES, mutate, seed_files, source
from runner import describe, run_backends

EXAMPLES = int(os.environ.get("NESSIE_ROBUSTNESS_EXAMPLES", "25"))
BUDGET = float(os.environ.get("NESSIE_ROBUSTNESS_BUDGET", "60"))
FULL = os.environ.get("NESSIE_ROBUSTNESS_FULL") == "1"
SEQ_DEPTH_CAP = 40
#: budget of the other backends' runs of a program that recursed too deep on the interpreter
UNBOUNDED_BUDGET = float(os.environ.get("NESSIE_ROBUSTNESS_UNBOUNDED_BUDGET", "10"))

SEEDS = seed_files()


@pytest.fixture(scope="module")
def inputs_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("robustness")


@pytest.mark.parametrize("cls", CLASSES)
@seed(SEED)
@settings(max_examples=EXAMPLES, deadline=None, database=None, derandomize=False,
          phases=[Phase.explicit, Phase.generate], print_blob=False,
          suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_mutated_program(worker, inputs_dir, cls, data):
    rel = data.draw(st.sampled_from(SEEDS), label="program")
    r = data.draw(st.randoms(use_true_random=False), label="random")
    limited = cls == "deep" and not FULL
    src = mutate(cls, rel, r, **({"seq_depth_cap": SEQ_DEPTH_CAP} if limited else {}))
    path = inputs_dir / f"{cls}-{sum(COUNTS[(cls, 'interp')].values())}.nesl"
    path.write_bytes(src)
    out = run_backends(worker, path, BUDGET, UNBOUNDED_BUDGET, lcu_unfused=limited,
                       exact_carets=True)
    for b, v in out.verdicts.items():
        COUNTS[(cls, b)][v] += 1
    if out.diff is not None:
        COUNTS[(cls, "both")]["disagree"] += 1
    where = f"{path} (a {cls} mutation of {rel}; NESSIE_ROBUSTNESS_SEED={SEED})"
    for b, v in out.defects(strict=FULL):
        assert b == "both", \
            f"nessie {' '.join(out.argvs[b])}: {where}\n{describe(out.answers[b], v)}"
    assert out.diff is None, f"{where}: {out.diff}"


def test_the_suite_has_programs_to_mutate():
    """Never pass without testing: the seed programs are there and compile."""
    from nessie import driver
    assert len(SEEDS) >= 10
    for rel in SEEDS:
        driver.compile_source(source(rel), rel)
