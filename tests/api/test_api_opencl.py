"""The Python API on the OpenCL backend (issue 8): numpy in, numpy out, functions run as generated
OpenCL on the default device (PoCL in CI); results equal the reference interpreter's."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import nessie.api as api
from nessie.diagnostics import RuntimeNeslError

ROOT = Path(__file__).resolve().parents[2]
EX = ROOT / "nesl_examples"

pytestmark = pytest.mark.opencl


def test_default_backend_is_opencl_fused():
    m = api.load(str(EX / "dotp.nesl"))
    assert m.backend == "opencl" and m.fuse


def test_dotp_numpy_in_out():
    m = api.load(str(EX / "dotp.nesl"), backend="opencl")
    ref = api.load(str(EX / "dotp.nesl"), backend="interp")
    a = np.arange(1000, dtype=np.int32)
    b = (np.arange(1000, dtype=np.int32) % 7) - 3
    assert m.dotp(a, b) == ref.dotp(a, b) == int(np.dot(a.astype(np.int64), b))
    x = np.linspace(0, 1, 5001)
    assert m.dotp(x, x) == pytest.approx(float(x @ x), rel=1e-12)


def test_sparse_mxv_rows_and_result_array():
    m = api.load(str(EX / "sparse_mxv.nesl"), backend="opencl")
    res = m.sparse_mxv([[(0, 2.0), (1, -1.0)], [], [(1, 3.0)]], np.array([1.0, 2.0]))
    assert isinstance(res, np.ndarray) and res.dtype == np.float64
    assert res.tolist() == [0.0, 0.0, 6.0]


def test_quicksort_matches_numpy():
    m = api.load(str(EX / "quicksort.nesl"), backend="opencl")
    rng = np.random.default_rng(3)
    a = rng.integers(-1000, 1000, 3000).astype(np.int32)
    assert np.array_equal(m.qsort(a), np.sort(a))


def test_runtime_error_is_located():
    src = "function get(a, i) = a[i];\n"
    m = api.load(src, backend="opencl")
    with pytest.raises(RuntimeNeslError) as e:
        m.get(np.array([1, 2, 3]), 5)
    assert "out of bounds" in e.value.message
    assert e.value.span is not None and e.value.span.line == 1


def test_device_only_with_opencl():
    with pytest.raises(ValueError):
        api.load(str(EX / "dotp.nesl"), backend="lcu", device="cpu")


def test_calls_from_several_threads_take_turns():
    """Runners of one device share its queue and kernels (whose arguments are set per launch):
    calls of two modules from eight threads, on cold kernels, each get their own right result
    (before: wrong sorts, spurious out-of-bounds errors, an internal IndexError or a hang)."""
    import threading
    m0 = api.load("function idt(x) : [int] -> [int] = x;", backend="opencl")
    assert list(m0.idt([1, 2])) == [1, 2]
    m = api.load(str(ROOT / "nesl_examples" / "quicksort.nesl"), backend="opencl", run_toplevel=False)
    rng = np.random.default_rng(1)
    ins = [rng.integers(-1000, 1000, 3000 + 7 * i).astype(np.int32) for i in range(8)]
    got: dict = {}

    def work(i):
        try:
            got[i] = (m.qsort(ins[i]) if i % 2 else m0.idt(ins[i])).tolist()
        except Exception as e:  # noqa: BLE001 - reported below
            got[i] = repr(e)
    ts = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in ts:
        t.start()
    for t in ts:
        t.join(120)
    assert not any(t.is_alive() for t in ts)
    for i in range(8):
        assert got[i] == (np.sort(ins[i]) if i % 2 else ins[i]).tolist(), (i, str(got[i])[:200])
