"""Choosing an OpenCL device that can actually compile kernels.

A device is listed by its platform but may still be unable to build any program: PoCL 3.0-rc2
(the ``pocl-binary-distribution`` wheel, built on LLVM 14) asks LLVM for the host CPU's name,
and on a CPU newer than LLVM 14 knows (AMD Zen 5, for one) gets ``generic``, which its own clang
then refuses (``error: unknown target CPU 'generic'``).  Every build fails there, so a device
is *usable* only once a tiny program with a ``double`` kernel has been built on it (once per
device and process; PoCL caches the result on disk).

Both the standalone Lift runtime (``lift_backend.runtime``) and the OpenCL runner of NESL
programs (``lift_backend.lower.runner``) choose their devices here:

* ``None``/``"auto"``: ``PYOPENCL_CTX`` if set (taken as an explicit choice), else the first
  usable GPU, else the first usable device of any kind (PoCL on the CPU), in platform order;
* ``"cpu"``/``"gpu"``: the first usable device of that kind;
* ``"P:D"``: platform ``P``'s device ``D`` (``"P"``: its first device), refused with the reason
  if it cannot build;
* a ``pyopencl.Device``: that device, as it is.

When nothing is usable the error names every device with the reason it failed and, for the
PoCL CPU problem above, the fix (Debian's ``pocl-opencl-icd`` package, a newer PoCL whose CPU
detection falls back to the kernel library's own CPU).
"""
from __future__ import annotations

import os
import re
from typing import Optional

#: the probe kernel, of doubles (with the fp64 pragma) or of floats
_PROBE_KERNEL = "kernel void nessie_probe(global {t}* a) {{ a[get_global_id(0)] = 2 * a[get_global_id(0)]; }}"
_FP64_PRAGMA = "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"

#: (device.int_ptr, fp64) -> None (usable) or the reason it is not; filled once per process
_PROBED: dict = {}


class NoUsableDevice(RuntimeError):
    """No OpenCL device can run Nessie's kernels (or not the one asked for); the message says
    which devices there are, why each failed, and how to get one that works."""


class KernelLimitError(RuntimeError):
    """The process cannot load another kernel: on a CPU device the OpenCL driver loads each
    built kernel into the process as a shared library, and PoCL 3.1 (Debian's) never unloads
    one, so a long-lived process that builds tens of thousands of distinct kernels runs out of
    memory mappings (Linux's ``vm.max_map_count``, 65,530 by default); the driver would then
    abort the process.  Raised before a build instead (:func:`check_kernel_room`)."""


#: mappings kept free for a build (each kernel library takes 3 to 5, a program of many kernels
#: a few hundred) and for buffers and the allocator's arenas
_MAPPING_RESERVE = 2048


def _max_map_count() -> Optional[int]:
    try:
        with open("/proc/sys/vm/max_map_count", "rb") as f:
            return int(f.read())
    except (OSError, ValueError):
        return None


def mappings_in_use() -> Optional[int]:
    """The number of memory mappings of this process (Linux), else None."""
    try:
        with open("/proc/self/maps", "rb") as f:
            return f.read().count(b"\n")
    except OSError:
        return None


def check_kernel_room(device) -> None:
    """Raise :class:`KernelLimitError` if building one more program on ``device`` (a CPU device,
    whose kernels are loaded into this process) could exhaust the process's memory mappings."""
    import pyopencl as cl
    if not device.type & cl.device_type.CPU:
        return
    limit = _max_map_count()
    used = mappings_in_use() if limit is not None else None
    if used is None or used + _MAPPING_RESERVE < limit:
        return
    driver = " ".join(device.platform.version.split(",")[0].split())
    raise KernelLimitError(
        f"this process has {used} memory mappings, near Linux's limit of {limit} "
        f"(vm.max_map_count): the OpenCL driver ({driver}) keeps every "
        f"kernel it has run loaded, and one more build could make it abort the process; start "
        f"a new process, or raise the limit (sysctl -w vm.max_map_count=262144)")


def _first_error_line(log: str) -> str:
    for line in log.splitlines():
        if "error" in line.lower() and line.strip():
            return line.strip()
    lines = [ln.strip() for ln in log.splitlines() if ln.strip()]
    return lines[0] if lines else "the build failed"


def probe(device, fp64: bool = True) -> Optional[str]:
    """None if ``device`` builds and runs a small kernel (of doubles if ``fp64``), else why not
    (one line)."""
    key = (device.int_ptr, fp64)
    if key in _PROBED:
        return _PROBED[key]
    import warnings

    import numpy as np
    import pyopencl as cl
    reason: Optional[str] = None
    try:
        if fp64 and "cl_khr_fp64" not in device.extensions:
            reason = "no double precision (cl_khr_fp64): NESL floats are doubles"
        else:
            ctx = cl.Context([device])
            queue = cl.CommandQueue(ctx)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                src = (_FP64_PRAGMA + _PROBE_KERNEL.format(t="double") if fp64
                       else _PROBE_KERNEL.format(t="float"))
                prg = cl.Program(ctx, src).build()
            a = np.arange(4, dtype=np.float64 if fp64 else np.float32)
            buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=a)
            prg.nessie_probe(queue, (4,), None, buf)
            cl.enqueue_copy(queue, a, buf)
            queue.finish()
            if not np.array_equal(a, [0.0, 2.0, 4.0, 6.0]):
                reason = f"a test kernel computed {a.tolist()} instead of [0, 2, 4, 6]"
    except cl.Error as e:          # a failed build or launch
        reason = _first_error_line(str(e))
    _PROBED[key] = reason
    return reason


def _describe(pi: int, di: int, d) -> str:
    return f"{pi}:{di} {d.name.strip()} ({d.platform.version.strip()})"


def _hint(reasons: list[str]) -> str:
    if any("unknown target CPU" in r for r in reasons):
        return ("; this PoCL's LLVM does not know this CPU (PoCL 3.0 of the "
                "pocl-binary-distribution wheel and CPUs newer than LLVM 14, such as AMD Zen 5): "
                "install a newer PoCL, e.g. Debian's `apt-get install pocl-opencl-icd`, which "
                "pyopencl then finds beside the wheel's")
    return ""


def list_devices() -> list:
    """``(platform number, device number, device)`` for every device of every platform."""
    import pyopencl as cl
    try:
        platforms = cl.get_platforms()
    except cl.Error as e:
        raise NoUsableDevice(f"no OpenCL platform found ({e}); `pip install "
                             f"pocl-binary-distribution` gives a CPU one") from None
    return [(pi, di, d) for pi, p in enumerate(platforms) for di, d in enumerate(p.get_devices())]


def choose(spec=None, *, env: bool = True, fp64: bool = True):
    """The device for ``spec`` (see the module documentation); raises :class:`NoUsableDevice`
    with the reasons when there is none.  ``env``: take ``PYOPENCL_CTX`` for ``None``/``auto``;
    ``fp64``: the device must have double precision (NESL's floats)."""
    import pyopencl as cl
    if spec is not None and not isinstance(spec, str):
        return spec                     # a pyopencl.Device, as given
    if spec in (None, "auto", "") and env and os.environ.get("PYOPENCL_CTX"):
        spec = os.environ["PYOPENCL_CTX"]
    devs = list_devices()
    if not devs:
        raise NoUsableDevice("no OpenCL device found; `pip install pocl-binary-distribution` "
                             "gives a CPU one")
    listing = ", ".join(_describe(*d) for d in devs)
    if spec in (None, "auto", "", "cpu", "gpu"):
        if spec == "cpu":
            cands = [d for d in devs if d[2].type & cl.device_type.CPU]
        elif spec == "gpu":
            cands = [d for d in devs if d[2].type & cl.device_type.GPU]
        else:
            gpus = [d for d in devs if d[2].type & cl.device_type.GPU]
            cands = gpus + [d for d in devs if d not in gpus]
        if not cands:
            raise NoUsableDevice(f"no OpenCL {spec.upper()} device found (devices: {listing})")
        failed = []
        for pi, di, d in cands:
            why = probe(d, fp64)
            if why is None:
                return d
            failed.append((pi, di, d, why))
        what = f"OpenCL {spec.upper()} device" if spec in ("cpu", "gpu") else "OpenCL device"
        raise NoUsableDevice(
            f"no usable {what}: " + "; ".join(f"{_describe(pi, di, d)} cannot build kernels: {why}"
                                              for pi, di, d, why in failed)
            + _hint([f[3] for f in failed]))
    if not re.fullmatch(r"\d+(:\d*)?", spec):
        raise NoUsableDevice(f"no OpenCL device '{spec}': give auto, cpu, gpu or PLATFORM:DEVICE "
                             f"numbers (devices: {listing})")
    parts = spec.split(":")
    pi = int(parts[0])
    di = int(parts[1]) if len(parts) > 1 and parts[1] != "" else 0
    hit = [d for d in devs if d[0] == pi and d[1] == di]
    if not hit:
        raise NoUsableDevice(f"no OpenCL device '{spec}' (devices: {listing})")
    why = probe(hit[0][2], fp64)
    if why is not None:
        raise NoUsableDevice(f"the OpenCL device {_describe(*hit[0])} cannot build kernels: {why}"
                             + _hint([why]))
    return hit[0][2]


__all__ = ["NoUsableDevice", "choose", "list_devices", "probe"]


class compiler_output_silenced:
    """Around an OpenCL build: the compiler's own lines that some drivers print straight to the
    process's standard error (PoCL's clang: "1 error generated.", "N warnings generated.") are
    discarded; pyopencl's exception carries the build log of a failed build, which the callers
    report as a located message.  File-descriptor level, since the driver writes to fd 2 from
    C; when fd 2 cannot be duplicated (no such descriptor) nothing is redirected."""

    def __enter__(self):
        import sys
        import tempfile
        self._saved = None
        try:
            sys.stderr.flush()
        except Exception:   # pragma: no cover - a closed or odd stderr
            pass
        try:
            self._saved = os.dup(2)
            self._sink = tempfile.TemporaryFile()
            os.dup2(self._sink.fileno(), 2)
        except OSError:
            if self._saved is not None:
                os.close(self._saved)
            self._saved = None
        return self

    def __exit__(self, *exc):
        if self._saved is not None:
            os.dup2(self._saved, 2)
            os.close(self._saved)
            self._sink.close()
        return False
