#!/usr/bin/env bash
# The project's OpenCL on an NVIDIA GPU machine (../shared/device/OPENCL-ON-GPU.md): registers the
# NVIDIA OpenCL driver, installs the Python packages carried as wheels in .whl/, then
#   1. runs every example on the GPU (fused and unfused) and compares with its golden output,
#   2. runs the test suite's OpenCL tests with the GPU as the default device,
#   3. runs the benchmark suite with the CuPy peers measured in the same run.
# Usage: bash benchmarks/gpu/run.sh OUTDIR [steps]   (steps: any of "examples tests bench")
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${1:-/tmp/nessie-gpu}
STEPS=${2:-"examples tests bench"}
mkdir -p "$OUT"
mkdir -p /etc/OpenCL/vendors
[ -f /usr/local/nvidia/lib64/libnvidia-opencl.so.1 ] && \
  echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
  --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site:$PWD
export PYTHONUNBUFFERED=1
python3 - <<'PY' | tee "$OUT/device.txt"
import pyopencl as cl
for p in cl.get_platforms():
    for d in p.get_devices():
        print(p.name, "|", d.name, "| fp64:", "cl_khr_fp64" in d.extensions,
              "| global mem GiB:", round(d.global_mem_size / 2**30, 1))
PY
GPU=$(python3 -c "
import pyopencl as cl
for pi, p in enumerate(cl.get_platforms()):
    for di, d in enumerate(p.get_devices()):
        if d.type & cl.device_type.GPU: print(f'{pi}:{di}'); raise SystemExit
")
[ -n "$GPU" ] || { echo "no OpenCL GPU found" | tee "$OUT/error.txt"; exit 1; }
export PYOPENCL_CTX=$GPU
echo "GPU device: PYOPENCL_CTX=$GPU"
status=0
if [[ " $STEPS " == *" examples "* ]]; then
  python3 benchmarks/gpu/check_examples.py 2>&1 | tee "$OUT/examples.txt" || status=1
fi
if [[ " $STEPS " == *" tests "* ]]; then
  # test_out_of_memory limits the address space of a CPU (PoCL) device's process: there is no
  # CPU OpenCL device on the GPU machine (it runs in CI)
  # one process per two cores (pytest-xdist, carried in .whl/ too), each with its own context
  XDIST=$(python3 -c "import xdist" 2>/dev/null && echo "-n $(( $(nproc) / 2 > 8 ? 8 : $(nproc) / 2 ))")
  python3 -m pytest -q -p no:cacheprovider $XDIST --maxfail=15 tests/differential/test_diff_opencl.py \
    tests/opencl tests/api/test_api_opencl.py tests/lift/test_array_access.py \
    tests/differential/test_int_wrap_edges.py --deselect tests/opencl/test_out_of_memory.py 2>&1 | tail -30 | tee "$OUT/tests.txt" || status=1
fi
if [[ " $STEPS " == *" bench "* ]]; then
  python3 benchmarks/bench_opencl.py --out "$OUT" 2>&1 | tail -20 | tee "$OUT/bench.txt" || status=1
fi
exit $status
