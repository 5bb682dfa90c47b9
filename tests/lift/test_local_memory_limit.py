"""Local memory beyond the device's limit is refused before the launch with
``error: out of memory: ...`` (issue 11), as the buffers in global memory are; PoCL aborted."""
import numpy as np
import pytest

from lift_backend import LiftRuntimeError, compile_program, parse
from lift_backend.cli import main

TEXT = "program p(x: [float]N) = join o mapWrg(0)(toGlobal(mapLcl(0)(id)) o toLocal(mapLcl(0)(id))) o split(K) $ x"


@pytest.mark.opencl
@pytest.mark.parametrize("static", [False, True])
def test_local_memory_limit(runtime, static):
    limit = runtime.device.local_mem_size
    k_big = 1
    while 4 * k_big <= limit:
        k_big *= 2
    prog = parse(TEXT).program("p")
    x = np.zeros(k_big, np.float32)
    k = compile_program(prog, {"K": k_big} if static else None)
    with pytest.raises(LiftRuntimeError) as ei:
        runtime.run(k, {"x": x}, sizes={} if static else {"K": k_big}, global_size=64, local_size=64)
    msg = ei.value.message
    assert msg.startswith(f"out of memory: the local buffers of a work-group need {4 * k_big} bytes (tmp1 ")
    assert f"more than the local memory of the device {runtime.device.name} ({limit} bytes)" in msg
    # within the limit it runs
    x = np.arange(128, dtype=np.float32)
    k = compile_program(prog, {"K": 64} if static else None)
    np.testing.assert_array_equal(runtime.run(k, {"x": x}, sizes={} if static else {"K": 64}, global_size=64,
                                              local_size=64), x)


@pytest.mark.opencl
def test_cli_message(tmp_path, capsys, runtime):
    f = tmp_path / "l.lift"
    f.write_text("program p(x: [float]N) = join o mapWrg(0)(toGlobal(mapLcl(0)(id)) o toLocal(mapLcl(0)(id))) "
                 "o split(N) $ x\n")
    n = 1
    while 4 * n <= runtime.device.local_mem_size:
        n *= 2
    np.save(tmp_path / "x.npy", np.zeros(n, np.float32))
    rc = main(["run", str(f), "--arg", f"x={tmp_path / 'x.npy'}", "--global", "64", "--local", "64",
               "--out", str(tmp_path / "o.npy")])
    _, err = capsys.readouterr()
    assert rc == 1 and err.startswith("error: out of memory: the local buffers of a work-group need")
