import os
import pathlib

import pytest

HERE = pathlib.Path(__file__).parent
PROGRAMS = HERE / "programs"
GOLDEN = HERE / "golden"


def load(file: str, program: str):
    from lift_backend.syntax import parse_file
    return parse_file(str(PROGRAMS / file)).program(program)


@pytest.fixture(scope="session")
def runtime():
    try:
        from lift_backend.runtime import get_runtime
        return get_runtime()
    except Exception as ex:  # pragma: no cover - no OpenCL platform
        pytest.skip(f"no OpenCL device: {ex}")
