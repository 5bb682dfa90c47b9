import pytest


@pytest.fixture(scope="session")
def runtime():
    try:
        from lift_backend.runtime import get_runtime
        return get_runtime()
    except Exception as ex:  # pragma: no cover - no OpenCL platform
        pytest.skip(f"no OpenCL device: {ex}")
