"""Running generated kernels with pyopencl.

* Device choice (``lift_backend.devices``): an explicit ``device`` (``"P:D"`` platform:device
  indices, ``cpu``, ``gpu`` or a ``pyopencl.Device``), else ``PYOPENCL_CTX``, else the first GPU,
  else the first device (PoCL on a machine without GPU), among the devices that can build a
  kernel.
* PoCL's work-group method is left to PoCL (and to a user's own ``POCL_WORK_GROUP_METHOD``):
  the runtime writes nothing to the process environment.  It used to set ``cbs``, which
  the installed PoCLs (Debian's 3.1 and the 3.0-rc2 wheel) do not know: they printed
  "Unknown work group generation method. Using 'auto'." on every run and used ``auto``, with
  which every test passes.  Kernels with barriers in loops had been reported wrong under some
  methods when work-items of a group skip a barrier; the code generator never emits such a
  barrier (it refuses to), and all kernels are differential-tested on PoCL.
* Programs are built once per (device, source) and cached; a failed build raises a
  :class:`~lift_backend.errors.LiftRuntimeError` that shows the build log.
* ``double`` kernels are refused on devices without ``cl_khr_fp64`` with a clear message.
"""
from __future__ import annotations

import re
import warnings
from typing import Dict, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

from .. import arith as A
from ..errors import LiftArgumentError, LiftRuntimeError
from ..limits import INT_MAX
from ..devices import compiler_output_silenced
from ..opencl.compile import CompiledKernel, _dims, check_size_values, check_sizes
from ..opencl.ndrange import _check_strides
from ..types import (ArrayType, ScalarType, TupleType, Type, VectorType, base_scalar, is_value,
                     numpy_dtype, shape_of, size_in_elements, subst_type)

_default_runtime = None


def _pick_device(device=None):
    from ..devices import NoUsableDevice, choose
    try:
        return choose(device, fp64=False)
    except NoUsableDevice as e:
        raise LiftRuntimeError(str(e)) from None


class Runtime:
    """An OpenCL context and queue with a cache of built programs."""

    def __init__(self, device=None):
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
        from ..devices import KernelLimitError, check_kernel_room
        try:
            check_kernel_room(self.device)
        except KernelLimitError as e:
            raise LiftRuntimeError(str(e)) from None
        try:
            with warnings.catch_warnings(), compiler_output_silenced():
                warnings.simplefilter("ignore")
                prg = cl.Program(self.ctx, source).build()
        except cl.Error as ex:  # build failure: the first error of the log, where it is
            raise BuildError(self.device.name, _error_text(ex), source)
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

    def _check_memory(self, kernel: CompiledKernel, arrays, env) -> None:
        """Refuse a launch whose buffers cannot fit (rather than being killed for memory): each
        buffer within the device's largest allocation, all of them within its global memory,
        and, on a CPU device (whose memory is the host's), the buffers and the host copy of the
        output within the free host memory."""
        dev = self.device
        buffers = []
        out_bytes = 0
        for kp in kernel.params:
            if kp.kind == "input":
                buffers.append((kp.name, arrays[kp.name].nbytes))
            elif kp.kind in ("output", "temp", "marks"):
                nb = _eval_size(kp.size, env, kp.name, arrays) * numpy_dtype(kp.elem).itemsize
                buffers.append((kp.name, nb))
                if kp.kind == "output":
                    out_bytes = nb
        where = f"the device {dev.name}"
        local = [(kp.name, _eval_size(kp.size, env, kp.name) * numpy_dtype(kp.elem).itemsize)
                 for kp in tuple(kernel.params) + tuple(kernel.local_static) if kp.kind == "local"]
        local_total = sum(nb for _, nb in local)
        if local and local_total > dev.local_mem_size:
            names = ", ".join(f"{n} ({nb} bytes)" for n, nb in local)
            raise LiftRuntimeError(f"out of memory: the local buffers of a work-group need {local_total} bytes "
                                   f"({names}), more than the local memory of {where} ({dev.local_mem_size} "
                                   f"bytes): use smaller work-group chunks")
        for name, nb in buffers:
            if nb > dev.max_mem_alloc_size:
                raise LiftRuntimeError(f"out of memory: the buffer {name} needs {nb} bytes, more than the "
                                       f"largest allocation of {where} ({dev.max_mem_alloc_size} bytes)")
        total = sum(nb for _, nb in buffers)
        if total > dev.global_mem_size:
            raise LiftRuntimeError(f"out of memory: the buffers need {total} bytes, more than the global memory "
                                   f"of {where} ({dev.global_mem_size} bytes)")
        host = out_bytes + (total if dev.type & self.cl.device_type.CPU else 0)
        free = _free_host_memory()
        if free is not None and host > free:
            raise LiftRuntimeError(f"out of memory: the run needs {host} bytes of host memory, {free} are free")

    # ------------------------------------------------------------------ running
    def run(self, kernel: CompiledKernel, args: Mapping[str, object],
            sizes: Optional[Mapping[str, int]] = None,
            global_size: Union[int, Sequence[int], None] = None,
            local_size: Union[int, Sequence[int], None] = None):
        """Launch ``kernel`` with numpy arrays (by program parameter name); return the output
        as a numpy array shaped by the result type when it is regular.

        Arguments are checked against their parameters (dtype, value range, number of
        elements: :class:`~lift_backend.errors.LiftArgumentError`), the sizes and array
        lengths against their limits, the offsets of ``splitOffsets`` given as inputs are
        checked on the host, and the kernel's bounds checks (``gatherIdx`` and friends) are
        read back after the launch: a failed one raises a located
        :class:`~lift_backend.errors.LiftRuntimeError`, ``index out of bounds in gatherIdx
        (index 12, length 8)``, and no output is returned."""
        from ..opencl.compile import CompiledPipeline
        _check_run_call(kernel, args, sizes)
        if isinstance(kernel, CompiledPipeline):
            return self._run_pipeline(kernel, args, sizes, global_size, local_size)
        cl = self.cl
        prog = kernel.program
        sizes = _given_sizes(sizes, kernel.sizes, {v.name for v in kernel.typed.size_vars} | set(kernel.sizes),
                             prog.name)
        _check_arg_names(prog, args)
        # check the kinds of the arguments, then infer the sizes not given from their shapes
        values = {p.name: _as_value(args[p.name], p.type, p.name) for p in prog.params}
        origin: Dict[str, str] = {}
        infer_all_sizes(prog.params, values, sizes, kernel.sizes, origin)
        check_size_values({k: v for k, v in sizes.items() if k in origin}, origin)
        env = {**kernel.sizes, **sizes}
        need = [n for n in kernel.size_names if n not in env]
        if need:
            # an argument whose shape no size could make fit is the error, not the size it
            # leaves undetermined
            for p in prog.params:
                _check_fits(values[p.name], p.type, env, p.name)
            raise LiftRuntimeError(f"the size(s) {', '.join(need)} of program {prog.name} are not "
                                   f"determined by the arguments' shapes: give them (on the command "
                                   f"line --size {need[0]}=VALUE, in Python sizes={{'{need[0]}': VALUE}})",
                                   prog.span)
        check_sizes(kernel, env)

        fixed_g = kernel.launch.global_size
        at_least = None     # a global size compiled as an expression: at least its value
        if fixed_g is not None and any(isinstance(g, A.Expr) for g in fixed_g):
            try:
                at_least = tuple(int(A.evaluate(g, env)) if isinstance(g, A.Expr) else g for g in fixed_g)
            except (KeyError, ZeroDivisionError, ValueError) as ex:
                raise LiftRuntimeError(f"cannot evaluate the global size of the kernel: {ex}")
            fixed_g = None
        given_g = _dims(global_size, "global")
        lsz = _dims(local_size, "local") or kernel.launch.local_size
        gsz = given_g or fixed_g
        if gsz is None and at_least is not None:
            gsz = tuple(-(-g // l) * l for g, l in zip(at_least, lsz)) if lsz else at_least
        if gsz is None:
            raise LiftRuntimeError("the global size is needed to launch the kernel: give it (on the "
                                   "command line --global G or G,G2; in Python global_size=G)")
        if at_least is not None and (len(gsz) != len(at_least) or any(g < m for g, m in zip(gsz, at_least))):
            raise LiftRuntimeError(f"the kernel was compiled for a global size of at least {at_least}, "
                                   f"not {gsz}")
        for what, given, fixed in (("global", given_g, fixed_g),
                                   ("local", _dims(local_size, "local"), kernel.launch.local_size)):
            if given is not None and fixed is not None and tuple(given) != tuple(fixed):
                raise LiftRuntimeError(f"the kernel was compiled for the {what} size {fixed}, not {given}")
        if lsz is not None:
            if len(lsz) != len(gsz) or any(g % l for g, l in zip(gsz, lsz)):
                raise LiftRuntimeError(f"the global size {gsz} is not a multiple of the local size {lsz}")
            dev = self.device
            most, per_dim = int(dev.max_work_group_size), list(dev.max_work_item_sizes)
            total = 1
            for d, l in enumerate(lsz):
                total *= l
                if d < len(per_dim) and l > per_dim[d]:
                    raise LiftRuntimeError(f"the local size {tuple(lsz)} is beyond the device: its work-groups "
                                           f"hold at most {per_dim[d]} work-items in dimension {d} "
                                           f"({dev.name.strip()})")
            if total > most:
                raise LiftRuntimeError(f"the local size {tuple(lsz)} is beyond the device: its work-groups hold "
                                       f"at most {most} work-items ({dev.name.strip()})")

        _check_strides(kernel, env, gsz, lsz)
        arrays = {}
        for kp in kernel.params:
            if kp.kind == "input":
                arrays[kp.name] = _to_array(values[kp.name], _param_type(prog, kp.name), env, kp.name)
        for oc in kernel.offset_checks:
            _check_offsets(oc, arrays[oc.param], env)
        _check_scatters(kernel, env)
        self._check_memory(kernel, arrays, env)

        mf = cl.mem_flags
        kargs = []
        out_buf = None
        out_param = None
        err_buf = None
        err_param = None
        keep = []
        try:
            for kp in kernel.params:
                if kp.kind == "input":
                    arr = arrays[kp.name]
                    buf = cl.Buffer(self.ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=arr) if arr.nbytes else \
                        cl.Buffer(self.ctx, mf.READ_ONLY, 16)
                    keep.append(buf)
                    kargs.append(buf)
                elif kp.kind == "scalar":
                    kargs.append(values[kp.name])
                elif kp.kind in ("output", "temp"):
                    n = _eval_size(kp.size, env, kp.name, arrays)
                    nbytes = max(n * numpy_dtype(kp.elem).itemsize, 16)
                    if kp.kind == "output" and getattr(kp, "fill", None) is not None:
                        # a scatterMaxIdx's claims: -1 where no element claims the position;
                        # 0 where a scatter or filterSeq may leave positions unwritten
                        init = np.full(nbytes // numpy_dtype(kp.elem).itemsize, kp.fill,
                                       dtype=numpy_dtype(kp.elem))
                        buf = cl.Buffer(self.ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=init)
                    else:
                        buf = cl.Buffer(self.ctx, mf.READ_WRITE, nbytes)
                    keep.append(buf)
                    kargs.append(buf)
                    if kp.kind == "output":
                        out_buf, out_param = buf, kp
                elif kp.kind == "local":
                    n = _eval_size(kp.size, env, kp.name)
                    kargs.append(cl.LocalMemory(max(n * numpy_dtype(kp.elem).itemsize, 4)))
                elif kp.kind == "size":
                    kargs.append(np.int32(env[kp.name]))
                elif kp.kind == "marks":
                    # a permuteIdx's per-position counters, zero before the launch
                    n = _eval_size(kp.size, env, kp.name, arrays)
                    marks = np.zeros(max(n, 4), dtype=np.int32)
                    buf = cl.Buffer(self.ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=marks)
                    keep.append(buf)
                    kargs.append(buf)
                elif kp.kind == "errors":
                    err_param = kp
                    init = np.zeros(_eval_size(kp.size, env, kp.name), dtype=np.int32)
                    init[0] = INT_MAX
                    err_buf = cl.Buffer(self.ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=init)
                    keep.append(err_buf)
                    kargs.append(err_buf)
            try:
                knl = self.kernel(kernel.source, kernel.name)
            except BuildError as ex:
                raise _located_build_error(ex, kernel)
            knl.set_args(*kargs)
            evt = cl.enqueue_nd_range_kernel(self.queue, knl, tuple(gsz), None if lsz is None else tuple(lsz))
            evt.wait()
            n_out = _eval_size(out_param.size, env, out_param.name, arrays)
            out = np.empty(n_out, dtype=numpy_dtype(out_param.elem))
            if n_out:
                cl.enqueue_copy(self.queue, out, out_buf)
            errs = None
            if err_buf is not None:
                errs = np.empty(_eval_size(err_param.size, env, err_param.name), dtype=np.int32)
                cl.enqueue_copy(self.queue, errs, err_buf)
            self.queue.finish()
        except MemoryError:
            raise LiftRuntimeError("out of memory: the arguments, result and temporaries of the kernel "
                                   "do not fit in host memory")
        except cl.Error as ex:
            text = str(ex)
            if "OUT_OF" in text or "MEM_OBJECT_ALLOCATION" in text or "INVALID_BUFFER_SIZE" in text:
                raise LiftRuntimeError(f"out of memory on the device {self.device.name}: {text}")
            raise LiftRuntimeError(f"kernel launch failed: {text}")
        if errs is not None and errs[0] != INT_MAX:
            site = int(errs[0])
            chk = kernel.checks[site] if 0 <= site < len(kernel.checks) else None
            index, length = int(errs[1 + 2 * site]), int(errs[2 + 2 * site])
            if chk is not None and chk.kind == "failIf":
                raise LiftRuntimeError("failIf: the condition holds (the check of a value failed)", chk.span)
            if chk is not None and chk.kind == "permuteIdx" and 0 <= index < length:
                raise LiftRuntimeError(f"permuteIdx: position {index} is written twice (the indices are not a "
                                       f"permutation of 0 .. {length - 1})", chk.span)
            # a long index is stored clamped to -INT_MAX .. INT_MAX (the error buffer holds ints)
            shown = (f"{index} or more" if index == INT_MAX else
                     f"{index} or less" if index == -INT_MAX else str(index))
            raise LiftRuntimeError(f"index out of bounds in {chk.kind if chk else 'a read'} "
                                   f"(index {shown}, length {length})", chk.span if chk else None)
        rt = subst_type(kernel.result_type, {v: A.Cst(env[v.name]) for v in kernel.typed.size_vars
                                             if v.name in env})
        if base_scalar(rt) == ScalarType("bool"):
            # bools live as uchar on the device; the result is a numpy bool array (any non-zero
            # byte a user function stored is true, as in C)
            out = out != 0
        shape = shape_of(rt)
        if shape is not None and int(np.prod(shape)) == out.size:
            out = out.reshape(shape)
        return out


    def _run_pipeline(self, pipe, args, sizes, global_size, local_size):
        """The stages of a :class:`~lift_backend.opencl.compile.CompiledPipeline` in order, each
        result passed to the later stages as the argument it names; the sizes are those given
        and those the program's own arguments determine."""
        prog = pipe.program
        _check_arg_names(prog, args)
        sizes = _given_sizes(sizes, pipe.sizes, {v.name for k in pipe.stages for v in k.typed.size_vars}
                             | set(pipe.sizes), prog.name)
        infer_all_sizes(prog.params, {p.name: _as_value(args[p.name], p.type, p.name) for p in prog.params},
                        sizes, pipe.sizes)
        results = {}
        out = None
        for k, name in zip(pipe.stages, pipe.outputs):
            kargs = {p.name: results[p.name] if p.name in results else args[p.name] for p in k.program.params}
            wanted = {n: v for n, v in sizes.items() if n in {v.name for v in k.typed.size_vars}}
            out = self.run(k, kargs, wanted, global_size, local_size)
            if name is not None:
                results[name] = out
        return out


class BuildError(LiftRuntimeError):
    """A failed build: ``message`` is one line (the compiler's first error and the C line it
    is on), ``log`` the whole log, ``c_line`` the line of the source it is on (or None)."""

    def __init__(self, device: str, log: str, source: str):
        self.log = log
        self.source = source
        self.c_line = None
        first = None
        for line in log.splitlines():
            m = re.search(r":(\d+):(\d+)(?:\s*<[^>]*>)?:\s*(?:fatal )?(?:error:\s*)?(.*)$", line)
            if m and "error" in line.lower():
                self.c_line = int(m.group(1))
                first = m.group(3).strip()
                break
        if first is None:
            first = next((l.strip() for l in log.splitlines() if "error" in l.lower()), "see the log")
        where = ""
        lines = source.splitlines()
        if self.c_line is not None and 1 <= self.c_line <= len(lines):
            text = lines[self.c_line - 1].strip()
            where = f" (at `{text[:120]}{'...' if len(text) > 120 else ''}`)"
        self.function = _enclosing_function(lines, self.c_line)
        super().__init__(f"OpenCL build failed on {device}: {first}{where}")


def _located_build_error(ex: BuildError, kernel: CompiledKernel) -> LiftRuntimeError:
    """The build error at the user function it is in (else at the program)."""
    from ..ir.expr import UserFun, walk
    span = kernel.program.span
    msg = ex.message
    if ex.function is not None:
        for n in walk(kernel.program.body):
            if isinstance(n, UserFun) and n.name == ex.function:
                span = n.span or span
                msg = f"{msg}, in user function {n.name}"
                break
    err = LiftRuntimeError(msg, span)
    err.log = ex.log
    return err


def _enclosing_function(lines, c_line) -> Optional[str]:
    """Name of the C function whose definition holds line ``c_line`` (1-based)."""
    if c_line is None:
        return None
    for k in range(min(c_line, len(lines)) - 1, -1, -1):
        m = re.match(r"^(?:kernel\s+)?[A-Za-z_][\w\s\*]*?\b([A-Za-z_]\w*)\s*\(.*\)\s*\{\s*$", lines[k])
        if m:
            return m.group(1)
    return None


def _error_text(ex) -> str:
    try:
        rec = ex.args[0] if ex.args else None
        text = rec.what() if hasattr(rec, "what") else str(ex)
    except Exception:  # pragma: no cover
        text = str(ex)
    return text


def _numbered(src: str) -> str:
    return "\n".join(f"{i + 1:4d}  {l}" for i, l in enumerate(src.splitlines()))


def _param_type(prog, name: str) -> Type:
    for p in prog.params:
        if p.name == name:
            return p.type
    raise LiftRuntimeError(f"no parameter {name}")  # pragma: no cover


def _eval_size(e: A.Expr, env, what: str = "buffer", arrays=None) -> int:
    """The value of the size ``e``; ``arrays`` (input name -> host array) resolves the values a
    size reads from an input (an output cut by ``splitOffsets`` rows spans
    ``offs[M - 1] - offs[0]`` elements)."""
    def lookup(l, k):
        arr = None if arrays is None else arrays.get(l.name)
        if arr is None:
            raise KeyError(f"no lookup for {l.name}")
        flat = arr.reshape(-1)
        if not 0 <= k < flat.size:
            raise KeyError(f"{l.name}[{k}] is outside its {flat.size} elements")
        return int(flat[k])
    try:
        n = int(A.evaluate(e, env, lookup))
    except KeyError as ex:
        raise LiftRuntimeError(f"cannot evaluate the size {A.to_text(e)} of {what}: {ex}")
    except ZeroDivisionError:
        raise LiftRuntimeError(f"division by zero in the size {A.to_text(e)} of {what}")
    if n < 0:
        raise LiftRuntimeError(f"the size {A.to_text(e)} of {what} is negative ({n})")
    if n > INT_MAX:
        raise LiftRuntimeError(f"the buffer {what} would hold {n} elements, more than {INT_MAX} "
                               f"(the limit of the kernels' int indices)")
    return n


def _solve(length: A.Expr, value: int, sizes: Dict[str, int], fixed, monotone: bool = False) -> None:
    """Bind the single unknown size variable of ``length`` (affine in it) to make it ``value``;
    with ``monotone``, a length not affine (a triangle's ``N * (N + 1) / 2`` elements) that does
    not decrease with the size is solved too, where one size gives ``value``."""
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
        if monotone and not (slope and f2 - f1 == slope) and \
                not any(isinstance(n, A.SumOver) for n in A.iter_nodes(length)):
            # (a sum with no closed form would be evaluated term by term at each step)
            _solve_monotone(length, value, sizes, env, v)
        return
    n = (value - f0) // slope
    try:        # affine at 0, 1 and 2 but not beyond (N % 3): the length must be the value
        if A.evaluate(length, {**env, v.name: n}) != value:
            return
    except (KeyError, ZeroDivisionError):
        return
    sizes[v.name] = n


def _solve_monotone(length: A.Expr, value: int, sizes: Dict[str, int], env, v) -> None:
    """The size ``n`` with ``length(n) == value`` and ``length(n - 1) < value``, by bisection,
    where ``length`` is seen not to decrease (at the points the search evaluates and between
    them where sampled); nothing bound otherwise."""
    def at(n: int) -> int:
        return A.evaluate(length, {**env, v.name: n})

    try:
        lo, hi = 0, 1
        while at(hi) < value:
            if hi >= INT_MAX:
                return
            lo, hi = hi, min(2 * hi, INT_MAX)
        while lo < hi:          # the smallest n in [lo, hi] with length(n) >= value
            mid = (lo + hi) // 2
            if at(mid) >= value:
                hi = mid
            else:
                lo = mid + 1
        n = lo
        if at(n) != value or (n > 0 and at(n - 1) >= value):
            return
        points = sorted({0, n, n + 1, *range(0, n, max(1, n // 64))})
        vals = [at(k) for k in points]
    except (KeyError, ZeroDivisionError, OverflowError, RecursionError):
        return
    if any(b < a for a, b in zip(vals, vals[1:])):
        return
    sizes[v.name] = n


def infer_all_sizes(params, values, sizes: Dict[str, int], fixed, origin: Optional[Dict[str, str]] = None,
                    quiet: bool = False) -> None:
    """Infer the sizes the arguments ``values`` (by parameter name) determine, again while one
    found makes another argument's shape determine one (``x: [float](N * M)`` before ``y:
    [float]M``); ``origin`` records the parameter each size came from; ``quiet`` skips an
    argument that cannot be read as an array (the launch reports it)."""
    counts = False      # the element counts of position-dependent arrays: once shapes give no more
    while True:
        before_all = set(sizes)
        for p in params:
            if p.name not in values or p.type is None:
                continue
            before = set(sizes)
            try:
                _infer_sizes(p.type, values[p.name], sizes, fixed, p.name, counts)
            except Exception:  # noqa: BLE001
                if not quiet:
                    raise
                continue
            if origin is not None:
                for k in set(sizes) - before:
                    origin[k] = p.name
            if counts and set(sizes) != before:
                break           # back to the shapes with the size found
        if set(sizes) != before_all:
            counts = False
        elif counts:
            return
        else:
            counts = True


def _infer_sizes(t: Type, value, sizes: Dict[str, int], fixed, name: str, counts: bool = False) -> None:
    """Infer size variables from the shape of an argument: each dimension of a regular
    array type whose length is affine in one unknown size (``N``, ``N + 1``, ``32 * K``);
    with ``counts``, also the one unknown size of a position-dependent array's element count
    (a triangle's ``N * (N + 1) / 2``: what the regular shapes do not give first)."""
    if is_value(t):
        return
    arr = np.asarray(value)
    dims = []
    tt = t
    while isinstance(tt, ArrayType) and tt.index_var is None:
        dims.append(tt.length)
        tt = tt.elem
    if isinstance(tt, ArrayType):      # position-dependent below: only the outer dims
        if not dims and counts:
            # rows of lengths depending on their position (a triangle), stored one after the
            # other: the number of elements gives the one unknown size
            _solve(size_in_elements(t), int(arr.size), sizes, fixed, monotone=True)
        return
    vec = isinstance(tt, VectorType)
    if (arr.ndim == len(dims) and not vec) or (vec and arr.ndim == len(dims) + 1 and arr.shape[-1] == tt.width):
        for d, n in zip(dims, arr.shape):
            _solve(d, int(n), sizes, fixed)
    else:
        # flattened (or differently shaped): the number of elements gives the one unknown size
        _solve(size_in_elements(t), int(arr.size), sizes, fixed)


_KIND_NAMES = {"b": "bool", "i": "integer", "u": "unsigned integer", "f": "floating-point",
               "c": "complex", "O": "object", "S": "byte string", "U": "string", "V": "structured",
               "M": "datetime", "m": "timedelta"}


def describe_dtype(dt) -> str:
    """``complex128 (complex)``: a dtype and its kind, for messages."""
    dt = np.dtype(dt)
    if dt.names:
        return "structured (" + ", ".join(f"{n}: {dt.fields[n][0]}" for n in dt.names) + ")"
    kind = _KIND_NAMES.get(dt.kind, dt.kind)
    name = str(dt)
    return name if name == kind else f"{name} ({kind})"


def supported_dtype(dt) -> bool:
    """bool, integer and floating-point dtypes, and structured ones made of them (tuples)."""
    dt = np.dtype(dt)
    if dt.names:
        return all(supported_dtype(dt.fields[n][0].base) for n in dt.names)
    return dt.kind in "biuf"


def _convert(arr: np.ndarray, target, name: str, t: Type) -> np.ndarray:
    """``arr`` as ``target`` without losing information silently: integers must fit, floats
    do not become integers, no complex, object, string or structured data for scalars."""
    target = np.dtype(target)
    if not supported_dtype(arr.dtype):
        raise LiftArgumentError(name, f"unsupported dtype {describe_dtype(arr.dtype)} for the type {t} "
                                      f"(bool, integer and floating-point arrays are supported)")
    if target.names:
        if not arr.dtype.names or len(arr.dtype.names) != len(target.names):
            raise LiftArgumentError(name, f"the type {t} needs a structured array with "
                                          f"{len(target.names)} fields, got dtype {describe_dtype(arr.dtype)}")
        sources = _tuple_fields(arr.dtype, target, name, t)
        try:
            out = np.empty(arr.shape, dtype=target)
            for src, dst in zip(sources, target.names):
                field = target.fields[dst][0]
                value = np.asarray(arr[src])
                if field.shape == ():
                    out[dst] = _convert(value, field.base, name, t)
                else:       # a vector component: its elements converted as a scalar array's
                    if value.shape != arr.shape + field.shape:
                        raise LiftArgumentError(name, f"the field {src} of the dtype {describe_dtype(arr.dtype)} "
                                                      f"has the shape {value.shape[arr.ndim:]}, the component "
                                                      f"{dst} of the type {t} needs {field.shape}")
                    out[dst] = _convert(value, field.base, name, t)
            return out
        except (ValueError, TypeError) as ex:
            raise LiftArgumentError(name, f"cannot convert the dtype {describe_dtype(arr.dtype)} to the "
                                          f"type {t}: {ex}")
    if arr.dtype.names:
        raise LiftArgumentError(name, f"unsupported dtype {describe_dtype(arr.dtype)} for the type {t}")
    if target == np.uint8 and arr.dtype != np.bool_:
        # a bool (stored as uchar): 0 or 1, as a numpy bool array is; another byte would pass
        # through C's comparisons as neither true (== 1) nor false
        if arr.dtype.kind not in "iu":
            raise LiftArgumentError(name, f"{'floating-point ' if arr.dtype.kind == 'f' else ''}values "
                                          f"({arr.dtype}) for the type {t}: give a bool array or the "
                                          f"integers 0 and 1")
        if arr.size:
            bad = arr[(arr != 0) & (arr != 1)]
            if bad.size:
                raise LiftArgumentError(name, f"the value {bad.flat[0]} is not a bool (0 or 1) for the type {t}")
        return arr.astype(target, copy=False)
    if target.kind in "iu" or target == np.uint8:
        if arr.dtype.kind == "f":
            raise LiftArgumentError(name, f"floating-point values ({arr.dtype}) for the integer type {t}: "
                                          f"convert them explicitly")
        if arr.size and arr.dtype.kind in "iu":
            info = np.iinfo(target)
            lo, hi = int(arr.min()), int(arr.max())
            if lo < info.min or hi > info.max:
                bad = lo if lo < info.min else hi
                raise LiftArgumentError(name, f"the value {bad} does not fit the type {t} "
                                              f"({info.min} .. {info.max})")
    elif target.kind == "f" and arr.dtype.kind == "f" and arr.dtype.itemsize > target.itemsize and arr.size:
        finite = arr[np.isfinite(arr)]
        with np.errstate(over="ignore"):    # a value that rounds to the largest float fits
            big = finite[np.isinf(finite.astype(target))]
        if big.size:
            raise LiftArgumentError(name, f"the value {float(big.flat[0])!r} does not fit the type {t} "
                                          f"(it would become infinite)")
    return arr.astype(target, copy=False)


def _tuple_fields(dt, target, name: str, t: Type):
    """The fields of the structured dtype ``dt`` giving the components ``_0 .. _k`` of
    ``target``: by name where ``dt`` names them so (in any order), by position where it names
    none of them; other names like a component's (``_2`` for a pair) are refused."""
    if set(dt.names) == set(target.names):
        return list(target.names)
    if any(re.fullmatch(r"_[0-9]+", n) for n in dt.names):
        raise LiftArgumentError(name, f"the fields of the dtype {describe_dtype(dt)} do not match the "
                                      f"components {', '.join(target.names)} of the type {t} (name them "
                                      f"{', '.join(target.names)}, or give other names to read them by position)")
    return list(dt.names)


def _as_value(value, t: Type, name: str):
    """The argument ``value`` of the parameter ``name : t`` checked and converted: a numpy
    scalar of the parameter's dtype for a scalar parameter, else a numpy array (any shape)."""
    if isinstance(value, int) and not isinstance(value, bool) and not -2 ** 63 <= value < 2 ** 64:
        # beyond 64 bits numpy makes an object array: the value itself is what does not fit
        # an integer type, and a float takes it rounded (or refuses it where it is infinite)
        target = np.dtype(numpy_dtype(t)) if is_value(t) and not isinstance(t, (VectorType, TupleType)) \
            else None
        if target == np.uint8:      # a bool
            raise LiftArgumentError(name, f"the value {value} is not a bool (0 or 1) for the type {t}")
        if target is None or target.kind != "f":
            info = np.iinfo(target) if target is not None and target.kind in "iu" else None
            raise LiftArgumentError(name, f"the value {value} does not fit the type {t}" +
                                    (f" ({info.min} .. {info.max})" if info is not None else ""))
        try:
            value = float(value)
        except OverflowError:
            raise LiftArgumentError(name, f"the value {value} does not fit the type {t} "
                                          f"(it would become infinite)") from None
    try:
        arr = value if isinstance(value, np.ndarray) else np.asarray(value)
    except (ValueError, TypeError) as ex:
        raise LiftArgumentError(name, f"not an array of numbers: {ex}")
    if is_value(t):
        if arr.size != 1:
            raise LiftArgumentError(name, f"the parameter has the scalar type {t}, got an array of shape "
                                          f"{arr.shape}")
        if isinstance(t, (VectorType, TupleType)):
            raise LiftArgumentError(name, f"scalar parameters of type {t} are not supported")
        return _convert(arr.reshape(()), numpy_dtype(t), name, t).reshape(())[()]
    if arr.ndim == 0:
        raise LiftArgumentError(name, f"the parameter has the array type {t}, got a 0-d array (a scalar)")
    return _convert(arr, numpy_dtype(t), name, t)


def _check_fits(value, t: Type, env, name: str) -> None:
    """A :class:`LiftArgumentError` where the argument ``value`` cannot have the type ``t``
    whatever the sizes not in ``env``: a multi-dimensional one with another number of
    dimensions, a length (once those of its dimensions give the sizes they can) or a vector
    width that is not the type's; a flat one whose number of elements is affine in one unknown
    size and cannot be made the array's (``4 * N`` for 22 elements).  The one shape check of
    the runtime: before the sizes are all known (the shapes may still fix some) and, with
    every size known, before an argument is read (``_to_array``, which then checks the number
    of elements of a flat one).  A multi-dimensional argument has one dimension per array
    level, of the length the type gives, then the vector width; a flat one is read row-major."""
    if is_value(t):
        return
    shape = tuple(int(n) for n in np.shape(value))
    dims = []
    tt = t
    while isinstance(tt, ArrayType) and tt.index_var is None:
        dims.append(tt.length)
        tt = tt.elem
    if len(shape) >= 2 and not isinstance(tt, ArrayType):
        # one dimension per array level, then the vector width
        want = dims + ([A.Cst(tt.width)] if isinstance(tt, VectorType) else [])
        env = dict(env)
        if len(shape) == len(want):
            for d, n in zip(dims, shape):
                _solve(d, n, env, {})
        vals = []
        for d in want:
            try:
                vals.append(int(A.evaluate(d, env)))
            except (KeyError, ZeroDivisionError):
                vals.append(None)
        if len(shape) == len(want) and all(v is None or v == n for v, n in zip(vals, shape)):
            return
        parts = [str(d) if v is None else str(v) for d, v in zip(want, vals)]
        # as a tuple prints: (16,) for one dimension
        text = "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"
        sizes = ", ".join(f"{k}={v}" for k, v in sorted(env.items()))
        raise LiftArgumentError(name, f"the shape {shape} does not fit the type {t}: expected the shape "
                                      f"{text}" + (f" (with {sizes})" if sizes else "")
                                      + (" or a flat array of its elements" if len(want) > 1 else ""))
    # a flat array (or one of position-dependent rows, read flat): its number of elements
    total = size_in_elements(t)
    count = int(np.size(value))
    unknown = [v for v in A.free_vars(total) if v.name not in env]
    if len(unknown) != 1:
        return
    v = unknown[0]
    try:
        f0, f1, f2 = (A.evaluate(total, {**env, v.name: k}) for k in (0, 1, 2))
    except (KeyError, ZeroDivisionError):
        return
    slope = f1 - f0
    if slope <= 0 or f2 - f1 != slope:
        return
    # affine indeed (not only at 0, 1 and 2): the number of elements is f0 + slope * v
    known = {u: A.Cst(int(env[u.name])) for u in A.free_vars(total) if u.name in env}
    if A.sub(A.subst(total, known), A.add(A.mul(A.Cst(slope), v), A.Cst(f0))) != A.ZERO:
        return
    if (count - f0) % slope:
        given = ", ".join(f"{u.name}={val.value}" for u, val in sorted(known.items(), key=lambda kv: kv[0].name))
        raise LiftArgumentError(name, f"the shape {shape} does not fit the type {t}: expected {total} "
                                      f"elements for some size {v.name}"
                                      + (f" (with {given})" if given else "") + f", got {count}")


def _to_array(value, t: Type, env, name: str) -> np.ndarray:
    _check_fits(value, t, env, name)
    arr = np.ascontiguousarray(np.asarray(value, dtype=numpy_dtype(t))).reshape(-1)
    expected = _eval_size(size_in_elements(t), env, f"the argument {name}")
    if arr.size != expected:
        with_sizes = ", ".join(f"{k}={v}" for k, v in sorted(env.items()))
        raise LiftArgumentError(name, f"expected {expected} elements for the type {t}"
                                      + (f" with {with_sizes}" if with_sizes else "") + f", got {arr.size}")
    return arr


def _free_host_memory() -> Optional[int]:
    """Available host memory in bytes (``MemAvailable`` of /proc/meminfo), None if unknown."""
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def _check_offsets(oc, offs: np.ndarray, env) -> None:
    """The offsets of a ``splitOffsets`` (an input): non-decreasing, between 0 and the length
    of the data, so that every row read stays in the data."""
    n = _eval_size(oc.length, env, "the data of splitOffsets")
    if offs.size == 0:
        return
    bad = None
    if offs[0] < 0:
        bad = (0, f"offsets[0] = {int(offs[0])} is negative")
    else:
        d = np.flatnonzero(np.diff(offs.astype(np.int64)) < 0)
        if d.size:
            k = int(d[0]) + 1
            bad = (k, f"offsets[{k}] = {int(offs[k])} is less than offsets[{k - 1}] = {int(offs[k - 1])}")
        elif offs[-1] > n:
            bad = (offs.size - 1, f"offsets[{offs.size - 1}] = {int(offs[-1])} is beyond the data's length {n}")
    if bad is not None:
        raise LiftRuntimeError(f"index out of bounds in splitOffsets: the offsets {oc.param} must be "
                               f"non-decreasing, between 0 and {n}; {bad[1]}", oc.span)


def _check_scatters(kernel: CompiledKernel, env) -> None:
    """A ``scatter`` with a user index function writes each output element exactly once: the
    function is evaluated for every index before the launch (numpy, C semantics) and one
    that is not a permutation of ``0 .. n-1`` is a located error (outputs it leaves unwritten
    would be garbage, outputs written twice a race).  The built-in index functions (reverse,
    reorderStride, transpose) are permutations; indices out of range are left to the kernel's
    bounds check; a function of data or of loop variables is not checked."""
    from ..ir import patterns as P
    from ..ir.expr import FunCall, walk
    typed = kernel.typed
    for node in walk(typed.program.body):
        if not isinstance(node, FunCall):
            continue
        f = node.f
        while isinstance(f, (P.ToGlobal, P.ToLocal, P.ToPrivate)):
            f = f.f
        if not isinstance(f, P.Scatter) or not node.args:
            continue
        idx = typed.static.get(id(f), {}).get("idx", f.idx)
        at = typed.types.get(id(node.args[0]))
        if not isinstance(idx, P.IndexLambda) or not isinstance(at, ArrayType):
            continue
        try:
            n = int(A.evaluate(at.length, env))
            values = A.evaluate_all(idx.apply(idx.param, at.length), env, idx.param, np.arange(n, dtype=np.int64))
        except (KeyError, ZeroDivisionError, TypeError):
            continue
        if n == 0 or values.min() < 0 or values.max() >= n:
            continue
        counts = np.bincount(values, minlength=n)
        if np.all(counts == 1):
            continue
        twice = np.flatnonzero(counts > 1)
        never = np.flatnonzero(counts == 0)
        what = (f"output {int(twice[0])} is written by {int(counts[twice[0]])} elements "
                f"({', '.join(str(int(i)) for i in np.flatnonzero(values == twice[0])[:3])}"
                f"{', ...' if counts[twice[0]] > 3 else ''})")
        if never.size:
            what += f" and {never.size} output{'s are' if never.size > 1 else ' is'} never written " \
                    f"(the first: {int(never[0])})"
        sizes = ", ".join(f"{k}={v}" for k, v in sorted(env.items()))
        raise LiftRuntimeError(f"scatter: the index function is not a permutation of 0 .. {n - 1}"
                               + (f" (with {sizes})" if sizes else "") + f": {what}", node.span)


def get_runtime(device=None) -> Runtime:
    """The shared default runtime (created on first use)."""
    global _default_runtime
    if device is not None:
        return Runtime(device)
    if _default_runtime is None:
        _default_runtime = Runtime()
    return _default_runtime


def _check_run_call(kernel, args, sizes) -> None:
    """What ``Runtime.run`` is given is a compiled kernel, a mapping of arguments and one of
    sizes (a Python-level mistake is a :class:`LiftRuntimeError` saying so, not an attribute
    error deep inside)."""
    from ..opencl.compile import CompiledPipeline
    if not isinstance(kernel, (CompiledKernel, CompiledPipeline)):
        hint = " (compile it first: compile_program(program))" if type(kernel).__name__ == "Program" else ""
        raise LiftRuntimeError(f"run: expected a compiled kernel (the result of compile_program), "
                               f"got {type(kernel).__name__}{hint}")
    for what, m in (("arguments", args), ("sizes", sizes)):
        if m is not None and not isinstance(m, Mapping) or (m is None and what == "arguments"):
            raise LiftRuntimeError(f"run: the {what} must be a mapping from names to values, "
                                   f"got {type(m).__name__}")


def _given_sizes(sizes, compiled: Mapping[str, int], known, prog_name: str) -> Dict[str, int]:
    """The sizes given to a launch as ints (numpy integers accepted), each a size of the
    program and, where the kernel was compiled for a value of it, that value."""
    sizes = check_size_values(dict(sizes or {}))
    unknown = sorted(set(sizes) - set(known))
    if unknown:
        raise LiftRuntimeError(f"unknown size(s) {', '.join(unknown)} of program {prog_name} "
                               f"(its sizes: {', '.join(sorted(known)) or 'none'})")
    for k, v in sorted(sizes.items()):
        if k in compiled and compiled[k] != v:
            raise LiftRuntimeError(f"the kernel was compiled for the size {k}={compiled[k]}, not {k}={v} "
                                   f"(compile it again for other sizes, or without them)")
    return sizes


def _check_arg_names(prog, args) -> None:
    """Every parameter of ``prog`` has an argument, and every argument a parameter."""
    missing_args = [p.name for p in prog.params if p.name not in args]
    if missing_args:
        raise LiftRuntimeError(f"missing argument(s): {', '.join(missing_args)}")
    extra = set(args) - {p.name for p in prog.params}
    if extra:
        raise LiftRuntimeError(f"unknown argument(s): {', '.join(sorted(extra))}")
