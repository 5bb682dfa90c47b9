"""A process that cannot load another kernel.  On a CPU device PoCL loads every kernel it runs into
the process as a shared library, and PoCL 3.1 (Debian's) never unloads one: each costs 3 memory
mappings for the life of the process, and at Linux's ``vm.max_map_count`` (65,530 by default)
the next ``dlopen`` fails and PoCL aborts the process (CI, 2026-12-06: the test suite, one
process, died with SIGABRT at 95%).  The runners check the room left before each new build and
refuse it with a message instead; these tests lower the limit the check reads, in a fresh
process, and look at what a user sees."""
from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.opencl

_PRELUDE = textwrap.dedent("""\
    import sys
    import lift_backend.devices as d
    d._max_map_count = lambda: d.mappings_in_use() + int(sys.argv[1])
    """)


def _python(code: str, room: int, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", _PRELUDE + textwrap.dedent(code), str(room),
                           *args], capture_output=True, text=True, timeout=300)


def test_mappings_are_counted():
    from lift_backend.devices import mappings_in_use
    n = mappings_in_use()
    assert n is not None and n > 10


def test_nessie_run_says_the_process_is_full(tmp_path):
    f = tmp_path / "p.nesl"
    f.write_text("function twice1(a) = {x * 2 + 1 : x in a};\ntwice1([1, 2, 3]);\n")
    code = """
        from nessie.cli import main
        raise SystemExit(main(["run", "--backend", "opencl", "--device", "cpu", sys.argv[2]]))
        """
    r = _python(code, 0, str(f))
    assert r.returncode == 1, r.stderr
    err = r.stderr.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("nessie: error: this process has "), r.stderr
    assert "vm.max_map_count" in err[0] and "Traceback" not in r.stderr
    # with room the same program runs
    r = _python(code, 100_000, str(f))
    assert r.returncode == 0 and "it = [3, 5, 7] : [int]" in r.stdout, r.stderr


def test_a_built_program_still_runs_when_the_process_is_full():
    """Only a new build is refused: what is built (the driver's cache) runs on."""
    code = """
        import nessie
        m = nessie.load("function twice1(a) = {x * 2 + 1 : x in a};", backend="opencl", device="cpu")
        print(m.twice1([1, 2, 3]).tolist())
        d._max_map_count = lambda: 0
        print(m.twice1([4, 5]).tolist())
        try:
            n = nessie.load("function dec(a) = {x - 1 : x in a};", backend="opencl", device="cpu")
            print(n.dec([1]).tolist())
        except d.KernelLimitError as e:
            print("refused:", str(e)[:40])
        """
    r = _python(code, 100_000)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["[3, 5, 7]", "[9, 11]",
                                     "refused: this process has " + r.stdout.split(
                                         "refused: this process has ")[1].splitlines()[0]]


def test_lift_runtime_says_the_process_is_full():
    code = """
        from lift_backend.errors import LiftRuntimeError
        from lift_backend.runtime import Runtime
        rt = Runtime("cpu")
        try:
            rt.build("kernel void k(global int* a) { a[0] = 1; }")
        except LiftRuntimeError as e:
            print("refused:", e)
        """
    r = _python(code, 0)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("refused: this process has ") and "vm.max_map_count" in r.stdout
