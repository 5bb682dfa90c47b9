"""Fixtures of the OpenCL lowering tests: the OpenCL runners.

There is always an OpenCL device where the tests run (PoCL in CI): a missing platform fails the
tests, it does not skip them.  The runners use the device's loop strategy (blocked loops on a
CPU, strided on a GPU) and, on the same device, the other one, so that both strategies' code
(strided reductions, chunk results folded in groups, ...) is tested on PoCL."""
import pytest


@pytest.fixture(scope="session")
def runners():
    """Three OpenCL runners on one device: the default one, one with the other loop strategy,
    and one that splits every
    order-dependent SOAC into many tiny chunks (at most 5 chunks of >= 1 element, at most 3
    work-items for element-wise loops), so that chunk boundaries, carries and segments that
    straddle chunks are exercised on small inputs."""
    from lift_backend.lower.runner import OpenCLRunner
    default = OpenCLRunner()
    tiny = OpenCLRunner(default.device)
    tiny.max_chunks, tiny.min_chunk, tiny.map_items = 5, 1, 3
    other = OpenCLRunner(default.device, strategy="cpu" if default.c.strategy == "gpu" else "gpu")
    return default, tiny, other
