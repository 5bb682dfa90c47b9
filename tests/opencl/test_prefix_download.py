"""Printing a result on the OpenCL backend copies back only the elements printing shows (issue 8:
"only the values the host needs are read back"): ``print_length + 1`` elements of each shown
sequence, found through the segment descriptors (``runner.prefix_reader``), with the same
printed text as the reference interpreter.  The bytes read back are a deterministic property of
the plan (not a timing), so they are asserted."""
import io

import pytest

from nessie import driver

pytestmark = pytest.mark.opencl

PROGRAMS = {
    "flat": ("a = [0:1000000];\n{x > 5 : x in take(a, 200000)};\n", 100_000),
    "nested": ("{{[j:j + i] : i in [0:3000]} : j in [0:3]};\n", 400_000),
    # 101 x 101 inner sequences of up to 101 elements are shown (of 36 MB in all)
    "three_levels": ("{{[j:j + i] : i in [0:300]} : j in [0:200]};\n", 2_200_000),
    "tuples": ("([1.5, 2.5], {(x, [x, 2 * x], \"ab\") : x in [0:300000]});\n", 100_000),
    "empties": ("[] int;\n{[] int : i in [0:5]};\n{[0:i] : i in [0:0]};\n"
                "{{[0:k] : k in [0:i]} : i in [0:200]};\n", 1_000_000),
    "print_length": ("set print_length 3;\n{[0:i] : i in [0:2000]};\nset print_length 0;\n[0:100000];\n", 100_000),
}


def outputs(src: str):
    c = driver.compile_source(src, "prefix.nesl")
    ref = io.StringIO()
    driver.run_interp(c, ref)
    flat = driver.fuse(driver.flatten(c))[0]
    runner = driver.make_runner("opencl")
    got = io.StringIO()
    driver.run_lcu(c, flat, got, runner=runner)
    return ref.getvalue(), got.getvalue(), runner.stats.bytes_from_device


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_prints_what_the_interpreter_prints_reading_back_little(name):
    src, bound = PROGRAMS[name]
    ref, got, read = outputs(src)
    assert "..." in ref or name == "empties"
    assert got == ref
    assert read <= bound, f"{read} bytes read back to print {name}"


def test_many_runs_fall_back_to_whole_vectors():
    """Shown elements scattered over more runs than are worth one copy each: the vector is read
    whole (still the same text)."""
    src = "{{[k:k + 2] : k in [0:200]} : i in [0:200]};\n"
    ref, got, _ = outputs(src)
    assert got == ref
