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
