"""Running generated kernels with pyopencl.

* Device choice: an explicit ``device`` (``"P:D"`` platform:device indices, or a
  ``pyopencl.Device``), else ``PYOPENCL_CTX``, else the first device of the first platform
  (PoCL on a machine without GPU).
* PoCL: ``POCL_WORK_GROUP_METHOD=cbs`` is set before the first context is created, unless
  the variable is already set or the PoCL platform is older than 3.1 (which has no ``cbs``
  and would only warn and fall back to ``auto``; the wheel ``pocl-binary-distribution 3.0``
  ships PoCL 3.0-rc2).  With PoCL's default work-group method, kernels with local memory,
  partially active work-groups and several barriers in loops (exactly the shape of the
  Lift reductions with ``iterate``) have been reported to give wrong results; the
  ``cbs`` (continuation-based synchronisation) method handles them correctly.  The code
  generator also never emits a barrier that some work-items of a group skip (it refuses
  to), which is the root of those failures; all kernels are differential-tested on PoCL.
* Programs are built once per (device, source) and cached; a failed build raises a
  :class:`~lift_backend.errors.LiftRuntimeError` that shows the build log.
* ``double`` kernels are refused on devices without ``cl_khr_fp64`` with a clear message.
"""
from __future__ import annotations

import os
import warnings
from typing import Dict, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

from .. import arith as A
from ..errors import LiftRuntimeError
from ..opencl.compile import CompiledKernel, check_sizes
from ..types import (ArrayType, TupleType, Type, VectorType, base_scalar, is_value, numpy_dtype,
                     shape_of, size_in_elements, subst_type)

_default_runtime = None


def _pocl_supports_cbs() -> bool:
    import re
    import pyopencl as cl
    try:
        platforms = cl.get_platforms()
    except Exception:
        return False
    for p in platforms:
        m = re.search(r"PoCL (\d+)\.(\d+)", p.version)
        if m and (int(m.group(1)), int(m.group(2))) >= (3, 1):
            return True
    return False


def _prepare_environment() -> None:
    """Set ``POCL_WORK_GROUP_METHOD=cbs`` (see the module documentation) if possible."""
    if "POCL_WORK_GROUP_METHOD" not in os.environ and _pocl_supports_cbs():
        os.environ["POCL_WORK_GROUP_METHOD"] = "cbs"


def _pick_device(device=None):
    import pyopencl as cl
    if device is not None and not isinstance(device, str):
        return device
    spec = device if device is not None else os.environ.get("PYOPENCL_CTX")
    platforms = cl.get_platforms()
    if not platforms:
        raise LiftRuntimeError("no OpenCL platform found (install pocl-binary-distribution for a CPU device)")
    if spec:
        parts = spec.split(":")
        try:
            p = platforms[int(parts[0])] if parts[0] != "" else platforms[0]
            devs = p.get_devices()
            d = devs[int(parts[1])] if len(parts) > 1 and parts[1] != "" else devs[0]
            return d
        except (ValueError, IndexError):
            raise LiftRuntimeError(f"no OpenCL device {spec!r} (platforms: "
                                   + "; ".join(f"{i}: {p.name}" for i, p in enumerate(platforms)) + ")")
    for p in platforms:
        devs = p.get_devices()
        if devs:
            return devs[0]
    raise LiftRuntimeError("no OpenCL device found")


class Runtime:
    """An OpenCL context and queue with a cache of built programs."""

    def __init__(self, device=None):
        _prepare_environment()
        import pyopencl as cl
        self.cl = cl
        self.device = _pick_device(device)
        self.ctx = cl.Context([self.device])
        self.queue = cl.CommandQueue(self.ctx)
        self._programs: Dict[str, object] = {}
        self._kernels: Dict[tuple, object] = {}

    @property
    def has_fp64(self) -> bool:
        return "cl_khr_fp64" in self.device.extensions

    def describe(self) -> str:
        return f"{self.device.platform.name} / {self.device.name}"

    # ------------------------------------------------------------------ building
    def build(self, source: str):
        """Build (or fetch from the cache) the program for ``source``."""
        prg = self._programs.get(source)
        if prg is not None:
            return prg
        cl = self.cl
        if "cl_khr_fp64" in source and not self.has_fp64:
            raise LiftRuntimeError(f"the kernel uses double but the device {self.device.name} "
                                   f"does not support cl_khr_fp64")
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                prg = cl.Program(self.ctx, source).build()
        except cl.RuntimeError as ex:  # build failure: show the log
            log = ""
            try:
                log = ex.args[0] if ex.args else str(ex)
            except Exception:  # pragma: no cover
                pass
            raise LiftRuntimeError(f"OpenCL build failed on {self.device.name}:\n{log}\n--- source ---\n"
                                   + _numbered(source))
        self._programs[source] = prg
        return prg

    def kernel(self, source: str, name: str):
        """The kernel object ``name`` of ``source`` (built and retrieved once)."""
        key = (source, name)
        k = self._kernels.get(key)
        if k is None:
            k = self.cl.Kernel(self.build(source), name)
            self._kernels[key] = k
        return k

    # ------------------------------------------------------------------ running
    def run(self, kernel: CompiledKernel, args: Mapping[str, object],
            sizes: Optional[Mapping[str, int]] = None,
            global_size: Union[int, Sequence[int], None] = None,
            local_size: Union[int, Sequence[int], None] = None):
        """Launch ``kernel`` with numpy arrays (by program parameter name); return the output
        as a numpy array shaped by the result type when it is regular."""
        cl = self.cl
        prog = kernel.program
        sizes = dict(sizes or {})
        missing_args = [p.name for p in prog.params if p.name not in args]
        if missing_args:
            raise LiftRuntimeError(f"missing argument(s): {', '.join(missing_args)}")
        extra = set(args) - {p.name for p in prog.params}
        if extra:
            raise LiftRuntimeError(f"unknown argument(s): {', '.join(sorted(extra))}")
        # infer the sizes not given from the shapes of the arguments
        for p in prog.params:
            _infer_sizes(p.type, args[p.name], sizes, kernel.sizes, p.name)
        env = {**kernel.sizes, **sizes}
        need = [n for n in kernel.size_names if n not in env]
        if need:
            raise LiftRuntimeError(f"unknown size(s) {', '.join(need)}: give them explicitly")
        check_sizes(kernel, env)

        gsz = _dims(global_size) or kernel.launch.global_size
        lsz = _dims(local_size) or kernel.launch.local_size
        if gsz is None:
            raise LiftRuntimeError("the global size is needed to launch the kernel")
        for what, given, fixed in (("global", _dims(global_size), kernel.launch.global_size),
                                   ("local", _dims(local_size), kernel.launch.local_size)):
            if given is not None and fixed is not None and tuple(given) != tuple(fixed):
                raise LiftRuntimeError(f"the kernel was compiled for the {what} size {fixed}, not {given}")
        if lsz is not None:
            if len(lsz) != len(gsz) or any(g % l for g, l in zip(gsz, lsz)):
                raise LiftRuntimeError(f"the global size {gsz} is not a multiple of the local size {lsz}")

        mf = cl.mem_flags
        kargs = []
        out_buf = None
        out_param = None
        keep = []
        for kp in kernel.params:
            if kp.kind == "input":
                t = _param_type(prog, kp.name)
                arr = _to_array(args[kp.name], t, env, kp.name)
                buf = cl.Buffer(self.ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=arr) if arr.nbytes else \
                    cl.Buffer(self.ctx, mf.READ_ONLY, 16)
                keep.append(buf)
                kargs.append(buf)
            elif kp.kind == "scalar":
                t = _param_type(prog, kp.name)
                kargs.append(np.array(args[kp.name], dtype=numpy_dtype(t)).reshape(()))
            elif kp.kind in ("output", "temp"):
                n = _eval_size(kp.size, env)
                nbytes = max(n * numpy_dtype(kp.elem).itemsize, 16)
                buf = cl.Buffer(self.ctx, mf.READ_WRITE, nbytes)
                keep.append(buf)
                kargs.append(buf)
                if kp.kind == "output":
                    out_buf, out_param = buf, kp
            elif kp.kind == "local":
                n = _eval_size(kp.size, env)
                kargs.append(cl.LocalMemory(max(n * numpy_dtype(kp.elem).itemsize, 4)))
            elif kp.kind == "size":
                kargs.append(np.int32(env[kp.name]))
        knl = self.kernel(kernel.source, kernel.name)
        knl.set_args(*kargs)
        try:
            evt = cl.enqueue_nd_range_kernel(self.queue, knl, tuple(gsz), None if lsz is None else tuple(lsz))
            evt.wait()
        except cl.Error as ex:
            raise LiftRuntimeError(f"kernel launch failed: {ex}")
        n_out = _eval_size(out_param.size, env)
        out = np.empty(n_out, dtype=numpy_dtype(out_param.elem))
        if n_out:
            cl.enqueue_copy(self.queue, out, out_buf)
        self.queue.finish()
        rt = subst_type(kernel.result_type, {v: A.Cst(env[v.name]) for v in kernel.typed.size_vars
                                             if v.name in env})
        shape = shape_of(rt)
        if shape is not None and int(np.prod(shape)) == out.size:
            out = out.reshape(shape)
        return out


def _numbered(src: str) -> str:
    return "\n".join(f"{i + 1:4d}  {l}" for i, l in enumerate(src.splitlines()))


def _dims(x) -> Optional[Tuple[int, ...]]:
    if x is None:
        return None
    if isinstance(x, (int, np.integer)):
        return (int(x),)
    return tuple(int(v) for v in x)


def _param_type(prog, name: str) -> Type:
    for p in prog.params:
        if p.name == name:
            return p.type
    raise LiftRuntimeError(f"no parameter {name}")  # pragma: no cover


def _eval_size(e: A.Expr, env) -> int:
    try:
        return int(A.evaluate(e, env))
    except KeyError as ex:
        raise LiftRuntimeError(f"cannot evaluate the buffer size {A.to_text(e)}: {ex}")


def _solve(length: A.Expr, value: int, sizes: Dict[str, int], fixed) -> None:
    """Bind the single unknown size variable of ``length`` (affine in it) to make it ``value``."""
    env = {**fixed, **sizes}
    unknown = [v for v in A.free_vars(length) if v.name not in env]
    if len(unknown) != 1:
        return
    v = unknown[0]
    try:
        f0 = A.evaluate(length, {**env, v.name: 0})
        f1 = A.evaluate(length, {**env, v.name: 1})
        f2 = A.evaluate(length, {**env, v.name: 2})
    except (KeyError, ZeroDivisionError):
        return
    slope = f1 - f0
    if slope == 0 or f2 - f1 != slope or (value - f0) % slope:
        return
    sizes[v.name] = (value - f0) // slope


def _infer_sizes(t: Type, value, sizes: Dict[str, int], fixed, name: str) -> None:
    """Infer size variables from the shape of an argument: each dimension of a regular
    array type whose length is affine in one unknown size (``N``, ``N + 1``, ``32 * K``)."""
    if is_value(t):
        return
    arr = np.asarray(value)
    dims = []
    tt = t
    while isinstance(tt, ArrayType) and tt.index_var is None:
        dims.append(tt.length)
        tt = tt.elem
    if isinstance(tt, ArrayType):      # position-dependent below: only the outer dims
        return
    if arr.ndim == len(dims) or (isinstance(tt, VectorType) and arr.ndim == len(dims) + 1):
        for d, n in zip(dims, arr.shape):
            _solve(d, int(n), sizes, fixed)
    elif arr.ndim == 1 and len(dims) == 1:
        _solve(dims[0], int(arr.shape[0]), sizes, fixed)


def _to_array(value, t: Type, env, name: str) -> np.ndarray:
    arr = np.ascontiguousarray(np.asarray(value, dtype=numpy_dtype(t))).reshape(-1)
    expected = _eval_size(size_in_elements(t), env)
    if arr.size != expected:
        raise LiftRuntimeError(f"argument {name}: expected {expected} elements for the type {t} "
                               f"with {', '.join(f'{k}={v}' for k, v in sorted(env.items()))}, got {arr.size}")
    return arr


def get_runtime(device=None) -> Runtime:
    """The shared default runtime (created on first use)."""
    global _default_runtime
    if device is not None:
        return Runtime(device)
    if _default_runtime is None:
        _default_runtime = Runtime()
    return _default_runtime
