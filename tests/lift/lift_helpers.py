"""Helpers shared by the Lift backend tests."""
import pathlib

HERE = pathlib.Path(__file__).parent
PROGRAMS = HERE / "programs"
GOLDEN = HERE / "golden"


def load(file: str, program: str):
    from lift_backend.syntax import parse_file
    return parse_file(str(PROGRAMS / file)).program(program)
