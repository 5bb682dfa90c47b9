import pytest


@pytest.fixture(scope="session")
def runtime():
    # no skip: without a usable OpenCL device these tests fail with the reason
    from lift_backend.runtime import get_runtime
    return get_runtime()
