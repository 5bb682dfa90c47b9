"""Fixtures of the OpenCL lowering tests: the OpenCL runners (skipped without an OpenCL device).

The runners use the device's loop strategy (blocked loops on a CPU, strided on a GPU);
``NESSIE_OPENCL_STRATEGY=gpu pytest tests/opencl`` runs the GPU strategy on PoCL too."""
import pytest


@pytest.fixture(scope="session")
def runners():
    """Two OpenCL runners on one device: the default one, and one that splits every
    order-dependent SOAC into many tiny chunks (at most 5 chunks of >= 1 element, at most 3
    work-items for element-wise loops), so that chunk boundaries, carries and segments that
    straddle chunks are exercised on small inputs."""
    try:
        from lift_backend.lower.runner import OpenCLRunner
        default = OpenCLRunner()
    except Exception as ex:  # pragma: no cover - no OpenCL platform
        pytest.skip(f"no OpenCL device: {ex}")
    tiny = OpenCLRunner(default.device)
    tiny.max_chunks, tiny.min_chunk, tiny.map_items = 5, 1, 3
    return default, tiny
