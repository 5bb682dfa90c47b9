"""The OpenCL kernel runner of the λcu executor: vectors stay on the device.

``OpenCLRunner(device=None)`` implements the runner interface of ``lambda_cu.executor``.  Values:

* a vector is a :class:`DVec` (one device buffer: int32/int64/float64/uint8 for int/int64/float and
  bool/char) — vectors of tuples are tuples of vectors already in λcu;
* a segment descriptor is a :class:`DSd`: its ``lengths`` buffer, ``offsets`` (exclusive scan,
  made with it) and the per-element segment ``ids``, built on first use and cached;
* a scalar computed by a kernel lives in a one-element buffer while the kernel runs (later SOACs
  of the same kernel read it there) and is read back when the kernel returns it to the host.

Each λcu kernel is lowered (``lift_backend.lower.soacs``) and built as one OpenCL program on its
first launch; the driver's binary cache (PoCL's ``~/.cache/pocl``, NVIDIA's own) makes later
runs cheap.  Launches set their arguments and call ``enqueue_nd_range_kernel`` on one in-order
queue, with no ``finish()`` between kernels; the host waits only where it needs a value (a count
to allocate a filter's result, a scalar a kernel returns, a result to print).

Runtime errors inside kernels go to a one-int error buffer with ``atomic_min(err, base + site)``:
``base`` numbers the SOAC launches since the last synchronisation, ``site`` the failing node in
that SOAC, so the first failing launch — and in it the first failing node in evaluation order —
wins.  Every read-back checks the buffer first and raises the same ``LcuRuntimeError(location,
message)`` as the numpy runner.
"""
from __future__ import annotations

import os
import sys
import threading
import time
import weakref
from dataclasses import dataclass, field
from typing import Any, Optional

import numpy as np

from lambda_cu import ir
from lambda_cu.loc import Loc
from lambda_cu.errors import MSG_NEG_LENGTH, MSG_SCATTER_LENGTHS, NEGATIVE_SIZE, PREFIX, LcuRuntimeError
from lambda_cu.types import BoolT, CharT, FloatT, IntT, SegDesT, TupleT, Type, UnitT, VecT
from lambda_cu.values import SegDes, dtype_of

from ..devices import compiler_output_silenced
from .cgen import LowerError, ctype, prelude
from .kernels import kernel_source, lower_kernel
from .soacs import SUPPORT, LoweredSoac, cname

_SITES = 4096                 # sites per SOAC launch in an error code
_MAX_PENDING = 500_000        # launches between two synchronisations (codes stay below 2^31)
_INT_MAX = 2**31 - 1


def _dev_dtype(dt: np.dtype) -> np.dtype:
    return np.dtype(np.uint8) if dt == np.bool_ else dt


class DVec:
    """A vector on the device: ``buf`` holds ``n`` elements of ``dtype`` (bool as uint8)."""
    __slots__ = ("buf", "n", "dtype", "__weakref__")

    def __init__(self, buf: Any, n: int, dtype: np.dtype) -> None:
        self.buf, self.n, self.dtype = buf, int(n), np.dtype(dtype)

    def __repr__(self) -> str:
        return f"DVec(n={self.n}, {self.dtype})"


class DScalar:
    """A scalar a kernel computed, in a one-element device buffer."""
    __slots__ = ("buf", "dtype", "__weakref__")

    def __init__(self, buf: Any, dtype: np.dtype) -> None:
        self.buf, self.dtype = buf, np.dtype(dtype)


class DSd:
    """A segment descriptor on the device (int32 lengths and offsets, ids built lazily).  Its
    ``total`` may be pending on the device (``make_sd``): it is read back the first time the
    host needs it, so building a descriptor does not synchronise.  Its longest segment
    (``maxlen``) is read back the same way: with the total where the total is pending, on its
    own where the total is known and a kernel plan asks for it (``Runner._rows``)."""
    __slots__ = ("lengths", "offsets", "count", "_total", "_fetch", "_maxlen", "_maxfetch",
                 "_ids", "_casts")

    def __init__(self, lengths: DVec, offsets: DVec, total: Any, maxlen: Any = None) -> None:
        self.lengths, self.offsets = lengths, offsets
        self.count = lengths.n
        if callable(total):
            # pending: total() returns (total, longest segment)
            self._total, self._fetch = None, total
            self._maxlen, self._maxfetch = None, None
        else:
            self._total, self._fetch = int(total), None
            if callable(maxlen):
                self._maxlen, self._maxfetch = None, maxlen
            else:
                self._maxlen, self._maxfetch = maxlen, None
        self._ids: Optional[DVec] = None
        self._casts: dict = {}

    @property
    def total(self) -> int:
        if self._total is None:
            t, m = self._fetch()
            self._total, self._maxlen = int(t), int(m)
            self._fetch = None
        return self._total

    @property
    def maxlen(self) -> int:
        """The length of the longest segment (0 for no segment)."""
        if self._maxlen is None:
            if self._fetch is not None:
                self.total
            else:
                self._maxlen = int(self._maxfetch())
                self._maxfetch = None
        return self._maxlen

    def __repr__(self) -> str:
        return f"DSd(count={self.count}, total={self.total})"


@dataclass
class Stats:
    """What ``nessie run --stats`` reports for the OpenCL backend."""
    launches: int = 0
    kernels_built: int = 0
    build_seconds: float = 0.0
    bytes_to_device: int = 0
    bytes_from_device: int = 0
    live_bytes: int = 0
    peak_bytes: int = 0
    kernel_seconds: float = 0.0
    syncs: int = 0
    by_kernel: dict = field(default_factory=dict)


def choose_device(spec: Optional[str] = None):
    """The OpenCL device for ``spec``: ``None``/``"auto"`` (``PYOPENCL_CTX`` if set, else a GPU if
    one is present, else the first CPU device — PoCL on a machine without a GPU), ``"cpu"``,
    ``"gpu"`` or ``"P:D"`` (platform and device numbers, as ``PYOPENCL_CTX``); only devices that
    can build a kernel of doubles are chosen (``lift_backend.devices``), else
    :class:`~lift_backend.devices.NoUsableDevice` (a ``RuntimeError``) says why."""
    from lift_backend.devices import choose
    return choose(spec, fp64=True)


class _Context:
    """An OpenCL context, queue and the support program, shared by the runners of one device."""

    def __init__(self, device, strategy: str = "") -> None:
        import pyopencl as cl
        self.cl = cl
        self.device = device
        if "cl_khr_fp64" not in device.extensions:
            raise RuntimeError(f"the OpenCL device {device.name} lacks cl_khr_fp64: NESL floats "
                               f"are doubles")
        self.ctx = cl.Context([device])
        self.queue = cl.CommandQueue(self.ctx)
        #: held by a caller for a whole program call on a runner of this context: the runners
        #: share its queue and its ``cl.Kernel`` objects, whose arguments are set per launch
        #: (``nessie.api`` calls from several threads take turns)
        self.lock = threading.RLock()
        self._profiling_queue = None
        #: id(kernel) -> (kernel, the scalar argument types pyopencl was told): one table for
        #: every runner of the context, as they share its kernels (``OpenCLRunner.launch``)
        self.argsig: dict = {}
        #: kernel -> the largest work-group the driver runs it with (_group_width)
        self.wg_limit: dict = {}
        self.is_gpu = bool(device.type & cl.device_type.GPU)
        self.programs: dict[str, dict] = {}
        # the loop strategy follows the device kind; NESSIE_OPENCL_STRATEGY=cpu|gpu forces one
        # (the tests run the GPU strategy on PoCL too)
        forced = strategy or os.environ.get("NESSIE_OPENCL_STRATEGY", "")
        if forced not in ("", "cpu", "gpu"):
            raise RuntimeError(f"the OpenCL strategy must be cpu or gpu, not {forced!r}")
        self.strategy = forced or ("gpu" if self.is_gpu else "cpu")
        #: fixed work-group size: 1 on a CPU (each work-item loops over a block; a fixed size
        #: also means PoCL compiles each kernel once, not once per global size), 256 on a GPU
        self.local = 1 if self.strategy == "cpu" else min(256, device.max_work_group_size)
        self.max_local = int(device.max_work_group_size)
        self.support = _Kernels(self.build(prelude(self.strategy) + SUPPORT))
        self._sd: Optional[dict] = None

    # the segment descriptors' Lift programs (lift_sd.py), compiled once per process and built
    # as one cl.Program per context, on the first descriptor a program makes (a program with
    # none, ``dotp``, pays for neither)
    @property
    def sd_progs(self) -> dict:
        from .lift_sd import sd_programs
        return sd_programs(self.strategy)

    @property
    def sd(self) -> dict:
        if self._sd is None:
            from .lift_sd import sd_source
            self._sd = self.build(sd_source(self.strategy))
        return self._sd

    def profiling_queue(self):
        if self._profiling_queue is None:
            cl = self.cl
            self._profiling_queue = cl.CommandQueue(
                self.ctx, properties=cl.command_queue_properties.PROFILING_ENABLE)
        return self._profiling_queue

    def build(self, src: str) -> dict:
        """The kernels (name -> ``cl.Kernel``) of a program, built once per source text."""
        ks = self.programs.get(src)
        if ks is None:
            import warnings

            from lift_backend.devices import check_kernel_room
            check_kernel_room(self.device)
            cl = self.cl
            try:
                with warnings.catch_warnings(), compiler_output_silenced():
                    warnings.simplefilter("ignore")
                    prg = cl.Program(self.ctx, src).build(options=["-cl-std=CL1.2"])
            except cl.RuntimeError as e:   # pragma: no cover - a lowering bug
                raise LowerError(f"OpenCL build failed:\n{e}\n--- source ---\n{src}") from None
            ks = self.programs[src] = {k.function_name: k for k in prg.all_kernels()}
        return ks


class _Kernels:
    def __init__(self, ks: dict) -> None:
        self.__dict__.update(ks)


_CONTEXTS: dict[Any, _Context] = {}
_CONTEXTS_LOCK = threading.Lock()


def get_context(device, strategy: str = "") -> _Context:
    """The shared context of a device and loop strategy (``""``: the device's own, or
    ``NESSIE_OPENCL_STRATEGY``), one per process: contexts are expensive to make."""
    strategy = strategy or os.environ.get("NESSIE_OPENCL_STRATEGY", "")
    key = (device.int_ptr, strategy)
    with _CONTEXTS_LOCK:
        c = _CONTEXTS.get(key)
        if c is None:
            if not _CONTEXTS:
                import atexit
                atexit.register(_finish_all)
            c = _CONTEXTS[key] = _Context(device, strategy)
    return c


def _finish_all() -> None:
    """At exit, wait for the kernels still queued on every context (a run that ends in a
    runtime error may leave some): the driver's threads must not be running them while the
    interpreter tears down the OpenCL objects (a hunt saw one SIGSEGV after a runtime error's
    message, on an unfused run, not reproduced in 60 more)."""
    for c in list(_CONTEXTS.values()):
        try:
            c.queue.finish()
        except Exception:  # noqa: BLE001 - a device already gone: nothing left to wait for
            pass


class _LoweredKernel:
    def __init__(self, k: ir.Kernel, soacs: list[LoweredSoac], cl_kernels: dict) -> None:
        self.kernel = k
        self.soacs = soacs
        self.cl_kernels = cl_kernels


class OpenCLRunner:
    """The OpenCL runner (see the module docstring)."""

    name = "opencl"

    def __init__(self, device: Any = None, profile: bool = False, strategy: str = "") -> None:
        import pyopencl as cl
        self.cl = cl
        if device is None or isinstance(device, str):
            device = choose_device(device)
        self.c = get_context(device, strategy)
        self.ctx = self.c.ctx
        #: with ``profile``, launches are timed with profiling events (``stats.kernel_seconds``)
        self.profile = profile
        self.queue = self.c.profiling_queue() if profile else self.c.queue
        self._events: list = []
        self.device = device
        self.stats = Stats()
        self._lowered: dict[str, _LoweredKernel] = {}
        #: kernel name -> (kernel, device parameters, returns kept on the device) of the
        #: prepared program (device_scalars.py)
        self._dev: dict = {}
        self._pending: list = []          # sites of each SOAC launched since the last sync
        self._argsig = self.c.argsig      # the context's kernels' scalar types (launch)
        self._wg_limit = self.c.wg_limit
        self._temps = 0
        self._max_alloc = int(device.max_mem_alloc_size)
        #: freed vectors' buffers for reuse: a quarter of a GPU's memory, on a CPU device (the
        #: process's own memory) at most 1 GiB
        gm = int(device.global_mem_size)
        self._pool = _BufferPool(gm // 4 if not device.type & cl.device_type.CPU
                                 else min(gm // 8, 1 << 30))
        from pyopencl.tools import ImmediateAllocator, MemoryPool
        #: temporaries' memory (``_alloc`` without an owner or a size class)
        self._tmp_pool = MemoryPool(ImmediateAllocator(self.queue))
        #: on a CPU device the buffers are this process's memory: under an address-space limit
        #: (``ulimit -v``) a large allocation is checked against it first, because PoCL aborts
        #: the process when its own allocation fails (a hostile-input hunt)
        self._as_limit = _address_space_limit() if device.type & cl.device_type.CPU else None
        self.err = self._alloc(4)
        self._temps = 0
        cl.enqueue_fill_buffer(self.queue, self.err, np.int32(_INT_MAX), 0, 4)
        cu = max(1, device.max_compute_units)
        if self.c.strategy == "gpu":
            # enough work-items to hide memory latency (an H100 holds ~270,000 threads); the
            # chunk results are folded in groups (_groups) before one work-item combines them
            self.max_chunks, self.min_chunk, self.map_items = 1 << 17, 64, 1 << 22
        else:
            self.max_chunks, self.min_chunk = max(64, 32 * cu), 2048
            self.map_items = self.max_chunks
        #: descriptors of at most this many segments are scanned in one launch by one work-item
        #: (on a CPU a sequential pass over a few thousand lengths costs less than two more
        #: launches; on a GPU only when there is a single chunk anyway)
        self.small_seq = 0 if self.c.strategy == "gpu" else 16384
        #: on a GPU, descriptors of at most this many segments are scanned in one launch by one
        #: work-group (nz_sd_group: 256 work-items, 256 segments each), not in five
        self.group_seq = 65536 if self.c.strategy == "gpu" and self.c.local > 1 else 0
        #: a filter of at most this many chunks has its chunk counts scanned on the host, in the
        #: synchronisation that reads its count (saves the offsets launch)
        self.host_scan = 256
        self.s = self.c.support

    # ------------------------------------------------------------------ memory
    def _alloc(self, nbytes: int, owner: Any = None, cls: int = 0):
        """A device buffer of ``nbytes``; its size counts as live until ``owner`` dies (or, with
        no owner, until the SOAC being run finishes: a temporary).  ``cls``: the size class of
        a vector's buffer (``_size_class``), taken from the pool when one is free there."""
        cl = self.cl
        size = max(int(nbytes), 8)
        if size > self._max_alloc:
            raise MemoryError(f"a buffer of {size} bytes (the device allocates at most "
                              f"{self._max_alloc})")
        buf = self._pool.take(cls) if cls else None
        if buf is None and owner is None and not cls and size <= self._max_alloc // 2:
            # a temporary (chunk results, counts, ...): from pyopencl's memory pool, to which it
            # returns when its last reference dies (the runner's one in-order queue orders every
            # later use of the memory after the commands that used it): no allocation and no
            # release per SOAC (a GPU driver's release of a buffer may wait for its kernels)
            self._check_address_space(size)
            try:
                buf = self._tmp_pool.allocate(size)
            except cl.MemoryError:
                self._drain()
                try:
                    buf = self._tmp_pool.allocate(size)
                except cl.MemoryError as e:
                    raise MemoryError(str(e)) from None
        if buf is None:
            want = cls or size
            self._check_address_space(want)
            try:
                buf = cl.Buffer(self.ctx, cl.mem_flags.READ_WRITE, want)
            except cl.MemoryError:
                # the pools' buffers may be what the device lacks: without them, once more
                self._drain()
                try:
                    buf = cl.Buffer(self.ctx, cl.mem_flags.READ_WRITE, want)
                except cl.MemoryError as e:          # the driver's allocation failure
                    raise MemoryError(str(e)) from None
        st = self.stats
        st.live_bytes += size
        st.peak_bytes = max(st.peak_bytes, st.live_bytes)
        if owner is None:
            self._temps += size
        return buf

    def _drain(self) -> None:
        """Give the pools' free buffers back to the device."""
        self._pool.drain()
        self._tmp_pool.free_held()

    def _check_address_space(self, want: int) -> None:
        """On a CPU device under an address-space limit, refuse (MemoryError) an allocation of
        ``want`` bytes that could exceed it, the pools drained first (PoCL aborts the process
        when its own allocation fails)."""
        if self._as_limit is not None and want >= _CHECKED_ALLOC and \
                _address_space_used() + 2 * want > self._as_limit:
            self._drain()
            if _address_space_used() + 2 * want > self._as_limit:
                raise MemoryError(f"a buffer of {want} bytes (the process's address space "
                                  f"is limited to {self._as_limit} bytes)")

    def _own(self, owner: Any, nbytes: int, cls: int = 0) -> None:
        size = max(int(nbytes), 8)
        self._temps -= size
        if cls:
            weakref.finalize(owner, _recycle, self.stats, size, self._pool, cls, owner.buf)
        else:
            weakref.finalize(owner, _release, self.stats, size)

    def _end_temps(self) -> None:
        self.stats.live_bytes -= self._temps
        self._temps = 0

    def _class_of(self, nbytes: int) -> int:
        c = _size_class(max(int(nbytes), 8))
        return c if c <= self._max_alloc else 0

    def new_vec(self, n: int, dtype: np.dtype) -> DVec:
        dt = np.dtype(dtype)
        nbytes = n * _dev_dtype(dt).itemsize
        cls = self._class_of(nbytes)
        v = DVec(self._alloc(nbytes, cls=cls), n, dt)
        self._own(v, nbytes, cls)
        return v

    def _offsets_vec(self, n: int) -> DVec:
        """A descriptor's offsets: ``n`` int32 and, after them, the total (written by the
        descriptor's kernels), so that the offsets are ``splitOffsets``' ``n + 1`` row bounds."""
        v = self.new_vec(n + 1, np.int32)
        v.n = n
        return v

    def new_scalar(self, dtype: np.dtype) -> DScalar:
        cls = self._class_of(8)
        v = DScalar(self._alloc(8, cls=cls), dtype)
        self._own(v, 8, cls)
        return v

    def upload(self, a: np.ndarray) -> DVec:
        a = np.ascontiguousarray(a)
        dt = a.dtype
        v = self.new_vec(a.shape[0], dt)
        if a.shape[0]:
            host = a.view(np.uint8) if dt == np.bool_ else a
            self.cl.enqueue_copy(self.queue, v.buf, host, is_blocking=False)
            self.stats.bytes_to_device += host.nbytes
            # keep the host array alive until the copy is done
            self._keep = getattr(self, "_keep", [])
            self._keep.append(host)
        return v

    def download(self, v: DVec) -> np.ndarray:
        out = np.empty(v.n, dtype=_dev_dtype(v.dtype))
        if v.n:
            self._read([(out, v.buf)])
        return out.view(np.bool_) if v.dtype == np.bool_ else out

    def _read(self, pairs: list) -> None:
        """Blocking reads of ``(host array, buffer)`` pairs (or ``(host array, buffer, byte
        offset)``), after checking the error buffer."""
        cl = self.cl
        errv = np.empty(1, dtype=np.int32)
        cl.enqueue_copy(self.queue, errv, self.err, is_blocking=False)
        for host, buf, *off in pairs:
            if host.nbytes:
                cl.enqueue_copy(self.queue, host, buf, is_blocking=False, src_offset=off[0] if off else 0)
            self.stats.bytes_from_device += host.nbytes
        self.queue.finish()
        self._keep = []
        self.stats.syncs += 1
        self._raise_pending(int(errv[0]))

    def _raise_pending(self, code: int) -> None:
        if code != _INT_MAX:
            seq, site = divmod(code, _SITES)
            loc, msg = self._pending[seq].table[site]
            self._pending = []
            self.cl.enqueue_fill_buffer(self.queue, self.err, np.int32(_INT_MAX), 0, 4)
            self.queue.finish()
            raise LcuRuntimeError(loc, msg)
        self._pending = []

    def finish(self) -> None:
        """Wait until the device has done everything enqueued (no read-back, no error check)."""
        self.queue.finish()

    def sync(self) -> None:
        if not self._pending:
            return
        self._read([])

    def discard_errors(self) -> None:
        """Forget the errors of the launches not yet synchronised (a failed speculative block
        of the executor, which it replays): wait for them, then reset the error buffer."""
        self.queue.finish()
        self._keep = []
        self._pending = []
        self.cl.enqueue_fill_buffer(self.queue, self.err, np.int32(_INT_MAX), 0, 4)
        self.queue.finish()

    def _scalar_to_device(self, x: Any, decl: str) -> DScalar:
        """A host scalar in a one-element device buffer, for a parameter the kernel reads from
        the device (``decl`` is its C declaration ``global const T* restrict name``)."""
        t = _NP_OF_C[decl.split()[2].rstrip("*")]
        host = np.array([ord(x) if isinstance(x, str) else x]).astype(t)
        d = self.new_scalar(host.dtype)
        self.cl.enqueue_copy(self.queue, d.buf, host, is_blocking=False)
        self.stats.bytes_to_device += host.nbytes
        self._keep = getattr(self, "_keep", [])
        self._keep.append(host)                 # alive until the copy is done
        return d

    def read_scalar(self, s: DScalar) -> Any:
        return self.read_scalars([s])[0]

    def read_scalars(self, ss: list) -> list:
        """The host values of device scalars, read back in one synchronisation."""
        if not ss:
            return []
        outs = [np.empty(1, dtype=_dev_dtype(s.dtype)) for s in ss]
        self._read([(o, s.buf) for o, s in zip(outs, ss)])
        return [o.view(np.bool_)[0] if s.dtype == np.bool_ else o[0] for o, s in zip(outs, ss)]

    # ------------------------------------------------------------------ launches
    def launch(self, kern: Any, gsize: int, args: list, local: int = 0) -> None:
        if gsize <= 0:
            return
        loc = min(local, self.c.max_local) if local else self.c.local
        g = -(-int(gsize) // loc) * loc
        # pyopencl's generic set_args inspects every argument (~40 us a launch); told the
        # scalar types once, it packs them in one call (~1 us): the signature is checked on every
        # launch, so a kernel whose scalar types change is told again
        sig = tuple(a.dtype if isinstance(a, np.generic) else None for a in args)
        hit = self._argsig.get(id(kern))
        if hit is None or hit[0] is not kern or hit[1] != sig:
            kern.set_scalar_arg_dtypes(list(sig))
            self._argsig[id(kern)] = (kern, sig)
        kern.set_args(*args)
        ev = self.cl.enqueue_nd_range_kernel(self.queue, kern, (g,), (loc,))
        self.stats.launches += 1
        if self.profile:
            self._events.append((kern.function_name, ev))
            if len(self._events) >= 4096:
                self._collect_events()

    @staticmethod
    def _lift_fits(lm: Any, ctx: list, n: int) -> bool:
        """Whether a SOAC's Lift kernel serves this launch: the inputs read at the element's
        index have its length ``n``, ``0 < n`` and every length fits the kernel's ``int``s; the
        vectors read at computed indices are not empty (Lift's sizes are at least 1 and its range
        analysis counts on it: ``arrayAccess(w, 0)`` is not checked)."""
        return 0 < n <= _INT_MAX - 1024 and all(int(ctx[j]) == n for j in lm.inputs) \
            and all(0 < int(ctx[a[1]]) <= _INT_MAX for a in lm.args if a[0] == "len")

    def _lift_pos_fits(self, ls: Any, ctx: list, n: int, kenv: dict) -> bool:
        """Whether a PERMUTE's, SEG_PERMUTE's or SCATTER's positions Lift MAP (``lift_pos``, where
        its index thunk computes them) can run for ``n`` elements -- one reading the segment ids
        of a descriptor (a SEG_PERMUTE's local positions, often) where a MAP's rows would run
        (``_map_rows``) --; True where it has none."""
        lp = ls.info.get("lift_pos")
        return lp is None or (self._lift_fits(lp, ctx, n) and
                              (lp.rows is None or self._map_rows(kenv[lp.rows], n)))

    def _lift_positions(self, ls: Any, K: Any, ctx: list, n: int, kenv: dict) -> Optional[dict]:
        """The positions of a PERMUTE's, SEG_PERMUTE's or SCATTER's index thunk (a SEG_PERMUTE's
        local positions), written by its Lift MAP (``lift_pos``) into a new buffer of ``n``
        elements: ``{"pos": buffer}``, the ``extra`` argument of the programs reading them; None
        where the thunk reads its positions."""
        lp = ls.info.get("lift_pos")
        if lp is None:
            return None
        out = next(kp for kp in lp.kernel.params if kp.kind == "output")
        pos = self.new_vec(n, np.int64 if str(out.elem) == "long" else np.int32)
        self._launch_lift(K("liftpos"), lp, ctx, n, [pos.buf], sd=None if lp.rows is None else kenv[lp.rows])
        return {"pos": pos.buf}

    @staticmethod
    def _lift_carry(ls: Any) -> bool:
        """Whether a REDUCE's or SCAN's carry phase is the Lift program: it exists (the chunk
        count, at most ``max_chunks``, always fits its ``int``)."""
        return "lift_carry" in ls.info

    def _launch_lift(self, kern: Any, lm: Any, host: list, n: int, outs: list, chunks: int = 0,
                     carry: Any = None, sd: Optional[DSd] = None, parts: Any = None,
                     single: bool = False, marks: Any = None, extra: Optional[dict] = None,
                     win: Any = None, dstlen: int = 0) -> None:
        """Launch a SOAC's Lift kernel (``host``: the SOAC's context arguments; ``chunks``: a
        REDUCE's number of chunks, one work-item each)."""
        args: list = []
        for a in lm.args:
            if a[0] == "out":
                args.append(outs[a[1]])
            elif a[0] == "size":
                args.append(np.int32(n))
            elif a[0] == "chunks":
                args.append(np.int32(chunks))
            elif a[0] == "carry":
                args.append(carry)
            elif a[0] == "parts":
                args.append(parts[a[1]])
            elif a[0] == "offs":
                args.append(sd.offsets.buf)
            elif a[0] == "marks":
                args.append(marks)
            elif a[0] == "win":
                args.append(win)
            elif a[0] == "dstlen":
                args.append(np.int32(dstlen))
            elif a[0] == "segs1":
                args.append(np.int32(sd.count + 1))
            elif a[0] == "len":
                args.append(np.int32(host[a[1]]))
            elif extra is not None and a[0] in extra:
                args.append(extra[a[0]])      # a FILTER's write phase: chunk offsets, kept total
            elif a[0] == "err":
                args.append(host[-2])
            elif a[0] == "errbase":
                args.append(host[-1])
            else:
                args.append(host[a[1]])
        if single:
            # one work-item (a carry phase: the chunk results combined in order)
            self.launch(kern, 1, args, local=1)
        elif chunks:
            self.launch(kern, chunks, args, local=1 if self.c.strategy == "cpu" else 0)
        elif sd is not None:
            from .lift_map import CPU_LOCAL
            if self.c.strategy == "cpu":
                self.launch(kern, sd.count, args, local=CPU_LOCAL)
            else:
                self.launch(kern, min(sd.count, self.map_items), args)
        elif self.c.strategy == "cpu":
            # at least one work-item per element: the kernel's mapGlb is an ``if`` (lift_map.py)
            from .lift_map import CPU_LOCAL
            self.launch(kern, n, args, local=CPU_LOCAL)
        else:
            self.launch(kern, min(n, self.map_items), args)

    def _collect_events(self) -> None:
        if self._events:
            self.queue.finish()
            for name, e in self._events:
                dt = (e.profile.end - e.profile.start) * 1e-9
                self.stats.kernel_seconds += dt
                self.stats.by_kernel[name] = self.stats.by_kernel.get(name, 0.0) + dt
            self._events = []

    def finish_stats(self) -> Stats:
        """The statistics, with the kernel time of every launch so far."""
        self._collect_events()
        return self.stats

    def chunks(self, n: int, cap: Optional[int] = None) -> int:
        """Number of chunks (work-items) for an order-dependent pass over ``n`` elements."""
        if n <= 0:
            return 0
        m = self.max_chunks if cap is None else min(cap, self.max_chunks)
        return int(max(1, min(m, n // self.min_chunk, n)))

    def _errbase(self, ls: Any) -> np.int32:
        if len(self._pending) >= _MAX_PENDING:
            self.sync()
        self._pending.append(ls.sites)
        return np.int32(len(self._pending) - 1) * np.int32(_SITES)

    # ------------------------------------------------------------------ runner interface
    def prepare(self, prog: ir.Program) -> None:
        """Lower every kernel of a program and build them as one OpenCL program (the executor
        calls this once; the driver's cache makes a second build of the same source cheap)."""
        from .device_scalars import device_scalars
        d = device_scalars(prog)
        self._dev = {k.name: (k, d.params_of(k.name), d.keep_of(k.name)) for k in prog.kernels}
        self._build(list(prog.kernels))

    def _dev_of(self, k: ir.Kernel) -> tuple:
        """(device parameters, returns kept on the device) of kernel ``k``: none for a kernel
        of no prepared program."""
        e = self._dev.get(k.name)
        return (e[1], e[2]) if e is not None and e[0] is k else (frozenset(), frozenset())

    def _build(self, kernels: list) -> None:
        lowered = []
        for k in kernels:
            soacs = lower_kernel(k, self.c.strategy, self._dev_of(k)[0])
            for s in soacs:
                if len(s.sites.table) >= _SITES:
                    raise LowerError(f"kernel {k.name}: more than {_SITES} failing sites in one SOAC")
            lowered.append((k, soacs))
        if not lowered:
            return
        t0 = time.perf_counter()
        src = kernel_source([s for _, soacs in lowered for s in soacs], self.c.strategy)
        ks = self.c.build(src)
        dt = time.perf_counter() - t0
        self.stats.kernels_built += sum(len(s.phases) for _, soacs in lowered for s in soacs)
        self.stats.build_seconds += dt
        for k, soacs in lowered:
            self._lowered[k.name] = _LoweredKernel(k, soacs, ks)

    def lowered(self, k: ir.Kernel) -> _LoweredKernel:
        lk = self._lowered.get(k.name)
        if lk is None or lk.kernel is not k:
            self._build([k])
            lk = self._lowered[k.name]
        return lk

    def run_kernel(self, k: ir.Kernel, args: list) -> Any:
        lk = self.lowered(k)
        kenv = {p.name: a for p, a in zip(k.params, args)}
        pairs = list(zip(k.binds, lk.soacs))
        j = 0
        while j < len(pairs):
            group = self._filter_group(pairs, j)
            try:
                if len(group) > 1:
                    vals = self._run_filters([ls for _, ls in group], lk.cl_kernels, kenv)
                else:
                    vals = [self.run_soac(pairs[j][1], lk.cl_kernels, kenv)]
            finally:
                self._end_temps()
            for (b, _), vs in zip(pairs[j:j + len(group)], vals):
                for v, x in zip(b.vars, vs):
                    kenv[v.name] = x
            j += len(group)
        res = [kenv[r.name] for r in k.returns]
        # the scalars the kernel returns to the host, read back in one synchronisation (those
        # only later kernels read stay on the device)
        keep = self._dev_of(k)[1]
        dev = [j for j, v in enumerate(res) if isinstance(v, DScalar) and j not in keep]
        for j, x in zip(dev, self.read_scalars([res[j] for j in dev])):
            res[j] = x
        return res[0] if len(res) == 1 else tuple(res)

    @staticmethod
    def length(v: DVec) -> int:
        return v.n

    def sd_field(self, sd: DSd, field: str, dtype: np.dtype) -> DVec:
        base = {"lengths": sd.lengths, "offsets": sd.offsets}.get(field) or self.sd_ids(sd)
        if np.dtype(dtype) == base.dtype:
            return base
        key = (field, np.dtype(dtype))
        hit = sd._casts.get(key)
        if hit is None:
            hit = self.new_vec(base.n, dtype)
            self._cast(base, hit)
            sd._casts[key] = hit
        return hit

    @staticmethod
    def sd_field_length(sd: DSd, field: str) -> int:
        return sd.total if field == "ids" else sd.count

    def sd_ids(self, sd: DSd) -> DVec:
        if sd._ids is None:
            ids = self.new_vec(sd.total, np.int32)
            if self.c.strategy == "gpu" and self.c.local > 1:
                # tiles of 8 elements a work-item, one work-group each (nz_sd_ids_tiles)
                W = self._group_width(self.s.nz_sd_ids_tiles)
                tile = 8 * W
                self.launch(self.s.nz_sd_ids_tiles, -(-sd.total // tile) * W,
                            [sd.offsets.buf, np.int64(sd.count), np.int64(sd.total), np.int64(tile),
                             ids.buf], W)
            else:
                self.launch(self.s.nz_sd_ids, min(sd.total, self.map_items),
                            [sd.offsets.buf, np.int64(sd.count), np.int64(sd.total), ids.buf])
            sd._ids = ids
        return sd._ids

    def vec_from_host(self, a: np.ndarray) -> DVec:
        return self.upload(a)

    def _launch_sd(self, key: str, gsize: int, named: dict, how: str) -> None:
        """Launch the descriptor program ``key`` (lift_sd.py): its arguments by parameter name
        (``named``; the sizes ``N``/``P`` as ints), ``how``: ``one`` (one work-item),
        ``chunks`` (one work-item a chunk) or ``elements`` (a map of ``gsize`` elements)."""
        p = self.c.sd_progs[key]
        args = [np.int32(named[q]) if q in ("N", "P") else named[q] for q in p.params]
        kern = self.c.sd[p.name]
        if how == "one":
            self.launch(kern, 1, args, local=1)
        elif how == "chunks":
            self.launch(kern, gsize, args, local=1 if self.c.strategy == "cpu" else 0)
        elif self.c.strategy == "cpu":
            from .lift_map import CPU_LOCAL
            self.launch(kern, gsize, args, local=CPU_LOCAL)
        else:
            self.launch(kern, min(gsize, self.map_items), args)

    def _cast(self, a: DVec, b: DVec) -> None:
        """``b`` the elements of ``a`` as ``b``'s type (int32 <-> int64): the Lift map
        ``sd_cast_i2l``/``sd_cast_l2i`` (the template where the length exceeds its ``int``)."""
        n = a.n
        i2l = a.dtype == np.int32
        if not n:
            return
        if n <= _INT_MAX - 1024:
            self._launch_sd("cast_i2l" if i2l else "cast_l2i", n, {"a": a.buf, "out": b.buf, "N": n},
                            "elements")
        else:
            self.launch(self.s.nz_cast_i2l if i2l else self.s.nz_cast_l2i, min(n, self.map_items),
                        [a.buf, np.int64(n), b.buf])

    def make_sd(self, lengths: DVec, loc: Optional[Loc]) -> DSd:
        if lengths.dtype != np.int32:
            conv = self.new_vec(lengths.n, np.int32)
            self._cast(lengths, conv)
            lengths = conv
        n = lengths.n
        offs = self._offsets_vec(n)
        if n == 0:
            return DSd(lengths, offs, 0, 0)
        total = self._alloc(8)
        # a negative length is reported through the error buffer, in launch order, like a
        # kernel's error; the total (and the longest segment) is read back only when the host
        # needs it
        code = self._errbase(_SdSites(loc))
        got = self._sd_scan(lengths, offs, total, code)
        self._end_temps()

        def fetch() -> tuple:
            t, m = got.read(self)
            if t > _INT_MAX:
                # int32 offsets: reported as every backend reports values that do not fit
                raise MemoryError("a nested sequence of more than 2^31 - 1 elements")
            return t, m
        return DSd(lengths, offs, fetch)

    def sd_from_lengths(self, lengths: np.ndarray) -> DSd:
        sd = SegDes(lengths)
        lv = self.upload(sd.lengths.astype(np.int32))
        # one offset more than segments (the total): the segments as splitOffsets rows
        ov = self.upload(np.append(sd.offsets, sd.total).astype(np.int32))
        ov.n = sd.count
        return DSd(lv, ov, sd.total, int(sd.lengths.max()) if sd.count else 0)

    def to_host(self, v: Any) -> Any:
        if isinstance(v, DVec):
            return self.download(v)
        if isinstance(v, DSd):
            return SegDes(self.download(v.lengths).astype(np.int64))
        if isinstance(v, DScalar):
            return self.read_scalar(v)
        if isinstance(v, tuple):
            return tuple(self.to_host(x) for x in v)
        return v

    def prefix_reader(self) -> "_PrefixReader":
        """Reads the leaves of a result for printing (``nessie.convert.truncate_leaves``),
        copying back only the elements printing shows."""
        return _PrefixReader(self)

    def download_elems(self, v: DVec, idx: np.ndarray) -> np.ndarray:
        """Elements ``idx`` (increasing) of a device vector: the runs of consecutive indices
        are copied back (a small vector, or one of many runs, whole)."""
        dt = _dev_dtype(v.dtype)
        idx = np.asarray(idx, np.int64)
        if idx.size == 0 or v.n * dt.itemsize <= _WHOLE_BYTES:
            host = self.download(v) if idx.size else np.empty(0, dt)
            return host[idx] if idx.size else (host.view(np.bool_) if v.dtype == np.bool_ else host)
        breaks = np.flatnonzero(np.diff(idx) != 1) + 1
        starts = idx[np.concatenate(([0], breaks))]
        ends = idx[np.concatenate((breaks - 1, [idx.size - 1]))] + 1
        if len(starts) > _MAX_RUNS:
            return self.download(v)[idx]
        out = np.empty(idx.size, dt)
        pairs, pos = [], 0
        for a, e in zip(starts.tolist(), ends.tolist()):
            pairs.append((out[pos:pos + e - a], v.buf, a * dt.itemsize))
            pos += e - a
        self._read(pairs)
        return out.view(np.bool_) if v.dtype == np.bool_ else out

    def from_host(self, v: Any, ty: Type) -> Any:
        if isinstance(ty, VecT):
            a = np.asarray(v)
            dt = dtype_of(ty.elem)
            return self.upload(a.astype(dt, copy=False).reshape(-1))
        if isinstance(ty, SegDesT):
            return self.sd_from_lengths(v.lengths if isinstance(v, SegDes) else np.asarray(v))
        if isinstance(ty, TupleT):
            return tuple(self.from_host(x, t) for x, t in zip(v, ty.elems))
        return v

    @staticmethod
    def coerce(v: Any, ty: Type) -> Any:
        from lambda_cu.interp import coerce
        return coerce(v, ty)

    @staticmethod
    def host_prim(op: str, args: list, ty: Optional[Type], loc: Optional[Loc]) -> Any:
        from lambda_cu.interp import apply_prim
        return apply_prim(op, args, ty, loc)

    # ------------------------------------------------------------------ SOAC plans
    def _ctx_args(self, ls: LoweredSoac, kenv: dict, own: bool = True) -> list:
        """The context arguments of a SOAC's kernels; with ``own=False`` the segment ids that
        only the SOAC's chunked strategy reads (not its thunks) are a placeholder."""
        out: list = []
        for p in ls.ctx.params:
            v = kenv[p.name]
            if p.kind == "vecbuf":
                out.append(v.buf)
            elif p.kind == "veclen":
                out.append(np.int64(v.n))
            elif p.kind == "sdbuf":
                if p.extra == "ids" and (p.name in ls.ctx.ids_unread or (not own and (
                        (p.name, p.extra) in ls.ctx.own_only or p.name in ls.ctx.ids_unread_rows))):
                    out.append(self.err)      # a placeholder: no phase (of this plan) reads it
                else:
                    out.append(self.sd_field(v, p.extra, np.int32).buf)
            elif p.kind == "sdlen":
                out.append(np.int64(self.sd_field_length(v, p.extra)))
            elif p.kind == "devscalar":
                x = v[p.extra] if isinstance(v, tuple) else v
                if not isinstance(x, DScalar):    # a host value for a device parameter
                    x = self._scalar_to_device(x, p.decl)
                out.append(x.buf)
            else:   # host scalar (component p.extra of a flat tuple)
                x = _flat(v)[p.extra]
                if isinstance(x, DScalar):        # a device value for a host parameter
                    x = self.read_scalar(x)
                out.append(_np_scalar(x, p.decl))
        return out

    def _size(self, e: ir.Exp, kenv: dict) -> int:
        if isinstance(e, ir.Var):
            v = kenv[e.name]
            return int(self.read_scalar(v) if isinstance(v, DScalar) else v)
        if isinstance(e, ir.Const):
            return int(e.value)
        if isinstance(e, ir.Length):
            if isinstance(e.vec, ir.SegVec):
                return self.sd_field_length(kenv[e.vec.sd.name], e.vec.field)
            return kenv[e.vec.name].n
        raise LowerError(f"not a size expression: {e}")

    def run_soac(self, ls: LoweredSoac, ks: dict, kenv: dict) -> list:
        s = ls.soac
        L = np.int64
        tau = [dtype_of(t) for t in ls.elem_types]
        base = ls.phases[0].name.rsplit("_", 1)[0]
        K = lambda suffix: ks[f"{base}_{suffix}"]   # noqa: E731
        if isinstance(s, ir.Once):
            outs = [self.new_scalar(dt) for dt in tau]
            ctx = self._ctx_args(ls, kenv) + [self.err, self._errbase(ls)]
            lm = ls.info.get("lift")
            if lm is not None and self._lift_fits(lm, ctx, 1):
                # the kernel the Lift compiler wrote (lift_map.lift_once): a map of length 1
                self._launch_lift(K("lift"), lm, ctx, 1, [o.buf for o in outs])
                return outs
            self.launch(K("once"), 1, ctx + [o.buf for o in outs])
            return outs
        if s.SEGMENTED:
            sd: DSd = kenv[s.sd.name]
            n = sd.total
        else:
            n = self._size(s.size, kenv)
        if n < 0:
            raise LcuRuntimeError(None, PREFIX + NEGATIVE_SIZE.format(n=n, op=s.NAME))
        if isinstance(s, (ir.SegReduce, ir.SegScan)) and self._rows(sd):
            # one work-item per segment, one pass, no segment ids
            ctx = self._ctx_args(ls, kenv, own=False) + [self.err, self._errbase(ls)]
            outs = [self.new_vec(sd.count if isinstance(s, ir.SegReduce) else n, dt) for dt in tau]
            if "rowsl_cap" in ls.info:
                self.launch(K("rowsl"), min(sd.count, self.map_items), ctx + [L(sd.count), L(n)] + [o.buf for o in outs])
                return outs
            lm = ls.info.get("lift")
            if lm is not None and self._lift_fits(lm, ctx, n) and sd.count < _INT_MAX and \
                    (not lm.segid or self._short_rows(sd)):
                # the rows the Lift compiler wrote (lift_map.py): the descriptor's offsets cut
                # the inputs into segments (splitOffsets), one work-item folding (a SEG_SCAN:
                # scanning, one result an element) each
                self._launch_lift(K("lift"), lm, ctx, n, [o.buf for o in outs], sd=sd)
                return outs
            self.launch(K("rows"), min(sd.count, self.map_items), ctx + [L(sd.count), L(n)] + [o.buf for o in outs])
            return outs
        ctx = self._ctx_args(ls, kenv) + [self.err, self._errbase(ls)]
        G = min(n, self.map_items)
        if isinstance(s, ir.Map):
            outs = [self.new_vec(n, dt) for dt in tau]
            lm = ls.info.get("lift")
            if lm is not None and self._lift_fits(lm, ctx, n) and \
                    (lm.rows is None or self._map_rows(kenv[lm.rows], n)):
                # the kernel the Lift compiler wrote (lift_map.py): the inputs read at the map's
                # index are in bounds; its subscripts at computed indices (arrayAccess) are
                # checked and report the SOAC's sites; a CPU runs one element a work-item in
                # work-groups of lift_map.CPU_LOCAL (the kernel's mapGlb an if), a GPU strides as
                # the hand-written loops do.  A MAP reading the segment ids of a descriptor at
                # its index is that descriptor's rows, one work-item a segment (the row's index
                # the id): launched where a segmented reduction would run its rows plan.  The
                # segment ids it reads from their vectors (lm.ids), which the hand-written phase
                # walks, are computed by _ctx_args (settle_walks counts them as read)
                self._launch_lift(K("lift"), lm, ctx, n, [o.buf for o in outs],
                                  sd=None if lm.rows is None else kenv[lm.rows])
                return outs
            self.launch(K("map"), G, ctx + [L(n)] + [o.buf for o in outs])
            return outs
        if isinstance(s, (ir.Reduce, ir.Scan, ir.SegReduce, ir.SegScan)):
            P = self.chunks(n)
            seg = s.SEGMENTED
            scan = isinstance(s, (ir.Scan, ir.SegScan))
            parts = [self._alloc(dt.itemsize * max(P, 1)) for dt in tau]
            pstart = self._alloc(max(P, 1)) if seg else None
            if isinstance(s, ir.Reduce):
                outs = [self.new_scalar(dt) for dt in tau]
            elif isinstance(s, ir.SegReduce):
                outs = [self.new_vec(sd.count, dt) for dt in tau]
            else:
                outs = [self.new_vec(n, dt) for dt in tau]
            if isinstance(s, ir.SegReduce):
                self.launch(K("init"), min(sd.count, self.map_items), ctx + [L(sd.count)] + [o.buf for o in outs])
            strided = bool(P) and self.c.strategy == "gpu" and ls.info.get("strided")
            lm = ls.info.get("lift")
            if strided:
                self.launch(K("strided"), P, ctx + [L(n), L(P)] + parts)
            elif P and not seg and lm is not None and self._lift_fits(lm, ctx, n):
                # the chunks the Lift compiler wrote (lift_map.py): balanced chunks of the
                # zipped inputs, one work-item each
                self._launch_lift(K("lift"), lm, ctx, n, parts, chunks=P)
            elif P:
                self.launch(K("chunks"), P, ctx + [L(n), L(P)] + parts + ([pstart] if seg else []) +
                            ([o.buf for o in outs] if isinstance(s, ir.SegReduce) else []))
            ps = [pstart] if seg else []
            P2 = self._groups(P)
            if P2:
                # fold the P chunk results in P2 groups first (see soacs: fold / spread)
                parts2 = [self._alloc(dt.itemsize * P2) for dt in tau]
                pstart2 = [self._alloc(P2)] if seg else []
                if strided:
                    self.launch(K("folds"), P2, ctx + [L(P), L(P2)] + parts + ps + parts2 + pstart2)
                else:
                    self._launch_groups(K("fold"), P2, ctx + [L(P), L(P2)] + parts + ps + parts2 + pstart2, ls)
            if scan or seg:
                # the carry kernel also runs with no chunk: it evaluates init, which the numpy
                # runner evaluates (and may fail on) even when there is nothing to combine
                carry = [self._alloc(dt.itemsize * max(P, 1)) for dt in tau]
                if P2:
                    carry2 = [self._alloc(dt.itemsize * P2) for dt in tau]
                    self.launch(K("carry"), 1, ctx + [L(P2)] + parts2 + pstart2 + carry2)
                    self._launch_groups(K("spread"), P2, ctx + [L(P), L(P2)] + parts + ps + carry2 + carry, ls)
                elif not seg and P and self._lift_carry(ls):
                    # the Lift compiler's carry phase: the exclusive scan of the chunk results
                    self._launch_lift(K("liftcarry"), ls.info["lift_carry"], ctx, n, carry, chunks=P,
                                      parts=parts, single=True)
                else:
                    self.launch(K("carry"), 1, ctx + [L(P)] + parts + ps + carry)
                lms = ls.info.get("lift_scan")
                if P and lms is not None and self._lift_fits(lms, ctx, n):
                    # the last pass the Lift compiler wrote: each chunk scans again from its
                    # carry-in (scanSeq)
                    self._launch_lift(K("liftscan"), lms, ctx, n, [o.buf for o in outs], chunks=P,
                                      carry=carry[0])
                elif P:
                    self.launch(K("scan"), P, ctx + [L(n), L(P)] + carry + [o.buf for o in outs])
            elif P2:
                self.launch(K("carry"), 1, ctx + [L(P2)] + parts2 + [o.buf for o in outs])
            elif P and self._lift_carry(ls):
                # the Lift compiler's carry phase: the chunk results folded in order from init
                self._launch_lift(K("liftcarry"), ls.info["lift_carry"], ctx, n, [o.buf for o in outs],
                                  chunks=P, parts=parts, single=True)
            else:
                self.launch(K("carry"), 1, ctx + [L(P)] + parts + [o.buf for o in outs])
            return outs
        if isinstance(s, (ir.Filter, ir.Partition, ir.SegFilter, ir.SegPartition)):
            part = isinstance(s, (ir.Partition, ir.SegPartition))
            seg = s.SEGMENTED
            P = self.chunks(n)
            counts = self._alloc(8 * max(P, 1))
            total = self._alloc(8)
            kept_n = 0
            pre = self._alloc(8 * (n + 1)) if seg else None
            if P:
                self._launch_count(ls, K, ctx, n, P, counts)
                if P <= self.host_scan:
                    # the host needs the count anyway: read the P chunk counts in that
                    # synchronisation and scan them here (no offsets launch)
                    h = np.empty(P, np.int64)
                    self._read([(h, counts)])
                    kept_n = int(h.sum())
                    if seg:
                        # the positions' scan starts each chunk at its offset (lift_pre)
                        self._chunk_offsets(h, counts)
                else:
                    if self._groups(P):
                        self._scan_longs(counts, P, total)
                    else:
                        self.launch(K("offsets"), 1, ctx + [L(P), counts, total])
                    h = np.empty(1, np.int64)
                    self._read([(h, total)])
                    kept_n = int(h[0])
            outs = [self.new_vec(kept_n, dt) for dt in tau]
            rej = [self.new_vec(n - kept_n, dt) for dt in tau] if part else []
            if P and not (P <= self.host_scan and
                          self._launch_write(ls, K, ctx, n, P, h, kept_n, outs, rej, counts, pre)):
                if P <= self.host_scan and not seg:
                    self._chunk_offsets(h, counts)      # the template's chunk offsets
                self.launch(K("write"), P, ctx + [L(n), L(P), L(kept_n), counts] + [o.buf for o in outs] +
                            [r.buf for r in rej] + ([pre] if seg else []))
            if not seg:
                return outs + rej
            kept_l = self.new_vec(sd.count, np.int32)
            rej_l = self.new_vec(sd.count, np.int32) if part else None
            if n == 0:
                self.cl.enqueue_fill_buffer(self.queue, pre, np.int64(0), 0, 8)
            lk = ls.info.get("lift_segcounts")
            if lk is not None and 0 < sd.count < _INT_MAX and n < _INT_MAX - 1024:
                # the Lift compiler's per-segment counts: pre read at the descriptor's offsets
                self._launch_lift(K("liftcounts"), lk, ctx, n, [kept_l.buf] + ([rej_l.buf] if part else []),
                                  sd=sd, extra={"nseg": np.int32(sd.count), "total": np.int32(n), "pre": pre})
            else:
                self.launch(K("counts"), min(sd.count, self.map_items),
                            ctx + [L(sd.count), pre, kept_l.buf] + ([rej_l.buf] if part else []))
            kept_sd = self._sd_of_lengths(kept_l, kept_n)
            if not part:
                return outs + [kept_sd]
            return outs + [kept_sd] + rej + [self._sd_of_lengths(rej_l, n - kept_n)]
        if isinstance(s, (ir.Permute, ir.SegPermute)):
            seen = self._alloc(4 * max(n, 1))
            self.cl.enqueue_fill_buffer(self.queue, seen, np.int32(0), 0, 4 * max(n, 1))
            outs = [self.new_vec(n, dt) for dt in tau]
            lm = ls.info.get("lift")
            if lm is not None and self._lift_fits(lm, ctx, n) and self._lift_pos_fits(ls, ctx, n, kenv) and \
                    (not s.SEGMENTED or (sd.count < _INT_MAX and self._rows(sd))):
                # the kernel the Lift compiler wrote (lift_permute.py): permuteIdx checks each
                # position and marks it written in ``seen``; a SEG_PERMUTE's rows (one
                # work-item a segment) where a segmented reduction would run its rows plan;
                # positions an index thunk computes (a SEG_PERMUTE's: local ones) are its Lift
                # MAP's, written first
                pos = self._lift_positions(ls, K, ctx, n, kenv)
                self._launch_lift(K("lift"), lm, ctx, n, [o.buf for o in outs], marks=seen,
                                  sd=sd if s.SEGMENTED else None, extra=pos)
                return outs
            self.launch(K("permute"), G, ctx + [L(n), L(n), seen] + [o.buf for o in outs])
            return outs
        if isinstance(s, ir.Scatter):
            dsts = [kenv[d.name] for d in s.dsts]
            m = dsts[0].n
            ok = np.int32(all(d.n == m for d in dsts))
            if not ok and n == 0:
                # nothing to write, so no kernel reports it: the lengths still differ (after any
                # earlier launch's error)
                self.sync()
                raise LcuRuntimeError(s.loc, MSG_SCATTER_LENGTHS)
            outs = []
            for d in dsts:
                o = self.new_vec(d.n, d.dtype)
                if d.n:
                    self.cl.enqueue_copy(self.queue, o.buf, d.buf,
                                         byte_count=d.n * _dev_dtype(d.dtype).itemsize)
                outs.append(o)
            win = self._alloc(4 * max(m, 1))
            self.cl.enqueue_fill_buffer(self.queue, win, np.int32(-1), 0, 4 * max(m, 1))
            lc, lw = ls.info.get("lift_claim"), ls.info.get("lift_scatter")
            if lc is not None and lw is not None and ok and 0 < m <= _INT_MAX \
                    and self._lift_fits(lc, ctx, n) and self._lift_fits(lw, ctx, n) \
                    and self._lift_pos_fits(ls, ctx, n, kenv):
                # the kernels the Lift compiler wrote (lift_scatter.py): the claim
                # (scatterMaxIdx into win) and the write of the last writers (scatterLastIdx),
                # after the positions' Lift MAP where the index thunk computes them
                outb = [o.buf for o in outs]
                pos = self._lift_positions(ls, K, ctx, n, kenv)
                self._launch_lift(K("liftclaim"), lc, ctx, n, [], win=win, dstlen=m, extra=pos)
                self._launch_lift(K("lift"), lw, ctx, n, outb, win=win, dstlen=m, extra=pos)
                return outs
            self.launch(K("claim"), G, ctx + [L(n), L(m), ok, win])
            self.launch(K("write"), G, ctx + [L(n), L(m), ok, win] + [o.buf for o in outs])
            return outs
        if isinstance(s, (ir.Rank, ir.SegRank)):
            return [self._rank(ls, K, ctx, n, kenv)]
        raise LowerError(f"{s.NAME} has no OpenCL plan")

    @staticmethod
    def _filter_group(pairs: list, j: int) -> list:
        """The binds from ``j`` on that are FILTERs or PARTITIONs (not segmented) none of which
        reads another's results: their chunk counts are read in one synchronisation
        (:meth:`_run_filters`).  At least the bind ``j`` itself."""
        kinds = (ir.Filter, ir.Partition)
        group = [pairs[j]]
        if not isinstance(pairs[j][1].soac, kinds):
            return group
        bound = {v.name for v in pairs[j][0].vars}
        for b, ls in pairs[j + 1:]:
            if not isinstance(ls.soac, kinds) or ir.soac_reads(ls.soac) & bound:
                break
            group.append((b, ls))
            bound |= {v.name for v in b.vars}
        return group

    def _run_filters(self, group: list, ks: dict, kenv: dict) -> list:
        """Independent FILTERs / PARTITIONs of one kernel: every count phase is launched, the
        chunk counts of all are read in one synchronisation, then every write phase.  Errors
        keep their order: each SOAC's failing sites are numbered after the earlier ones'."""
        plans = []
        for ls in group:
            n = self._size(ls.soac.size, kenv)
            P = self.chunks(n) if n >= 0 else 0
            if n < 0 or P > self.host_scan:
                # (a negative size or a device-side scan: one at a time, as run_soac does)
                return [self.run_soac(x, ks, kenv) for x in group]
            plans.append((ls, n, P))
        L = np.int64
        started = []
        for ls, n, P in plans:
            base = ls.phases[0].name.rsplit("_", 1)[0]
            ctx = self._ctx_args(ls, kenv) + [self.err, self._errbase(ls)]
            counts = self._alloc(8 * max(P, 1))
            if P:
                self._launch_count(ls, lambda suffix, b=base: ks[f"{b}_{suffix}"], ctx, n, P, counts)
            started.append((ls, n, P, base, ctx, counts, np.empty(P, np.int64)))
        self._read([(h, c) for (_, _, P, _, _, c, h) in started if P])
        out = []
        for ls, n, P, base, ctx, counts, h in started:
            tau = [dtype_of(t) for t in ls.elem_types]
            part = isinstance(ls.soac, ir.Partition)
            kept_n = int(h.sum()) if P else 0
            outs = [self.new_vec(kept_n, dt) for dt in tau]
            rej = [self.new_vec(n - kept_n, dt) for dt in tau] if part else []
            if P and not self._launch_write(ls, lambda suffix, b=base: ks[f"{b}_{suffix}"], ctx, n, P, h,
                                            kept_n, outs, rej):
                self._chunk_offsets(h, counts)          # the template's chunk offsets
                self.launch(ks[f"{base}_write"], P, ctx + [L(n), L(P), L(kept_n), counts] +
                            [o.buf for o in outs] + [r.buf for r in rej])
            out.append(outs + rej)
        return out

    def _launch_count(self, ls: LoweredSoac, K: Any, ctx: list, n: int, P: int, counts: Any) -> None:
        """A FILTER's / PARTITION's count phase: the Lift program (lift_filter.py: the chunks
        of a REDUCE counting the kept elements) where there is one and the inputs fit, else
        the template ``count`` phase."""
        lc = ls.info.get("lift_count")
        if lc is not None and self._lift_fits(lc, ctx, n):
            self._launch_lift(K("lift"), lc, ctx, n, [counts], chunks=P)
        else:
            self.launch(K("count"), P, ctx + [np.int64(n), np.int64(P), counts])

    def _launch_write(self, ls: LoweredSoac, K: Any, ctx: list, n: int, P: int, h: np.ndarray,
                      kept_n: int, outs: list, rej: list, counts: Any = None, pre: Any = None) -> bool:
        """A FILTER's write phase as its Lift program (lift_filter.py: filterSeq over the
        chunks, the rows of the output cut by the chunk offsets, uploaded here as ``P + 1`` ints
        from the counts ``h`` read back) where there is one and the sizes fit; False where the
        template ``write`` phase must run.  Nothing kept: nothing to write (a Lift size is at
        least 1), no launch.  A PARTITION's rejected elements (``rej``) are a second program's,
        their chunk offsets ``c * n / P - offs[c]``."""
        lw = ls.info.get("lift_write")
        if lw is None or not self._lift_fits(lw, ctx, n):
            return False
        if pre is not None:
            # a SEG_FILTER's / SEG_PARTITION's positions: each chunk scans its kept flags from
            # its offset (``counts``, the exclusive scan uploaded by _chunk_offsets), the kept
            # total last
            lp = ls.info.get("lift_pre")
            if lp is None or not self._lift_fits(lp, ctx, n) or (rej and "lift_reject" not in ls.info):
                return False
            self._launch_lift(K("liftscan"), lp, ctx, n, [pre], chunks=P, carry=counts)
            self.cl.enqueue_fill_buffer(self.queue, pre, np.int64(kept_n), 8 * n, 8)
        offs = np.zeros(P + 1, np.int64)
        np.cumsum(h, out=offs[1:])
        plans = [("liftwrite", lw, offs, kept_n, outs)]
        if rej:
            lr = ls.info.get("lift_reject")
            if lr is None:
                return False
            lo = np.arange(P + 1, dtype=np.int64) * n // P
            plans.append(("liftreject", lr, lo - offs, n - kept_n, rej))
        for suffix, lp, o, total, vs in plans:
            if total == 0:
                continue
            o32 = o.astype(np.int32)
            buf = self._alloc(4 * (P + 1))
            self.cl.enqueue_copy(self.queue, buf, o32, is_blocking=False)
            self._keep.append(o32)            # alive until the copy is done
            self._launch_lift(K(suffix), lp, ctx, n, [v.buf for v in vs], chunks=P,
                              extra={"choffs": buf, "kept": np.int32(total)})
        return True

    def _chunk_offsets(self, h: np.ndarray, counts: Any) -> None:
        """A filter's chunk counts ``h``, read back: their exclusive scan is uploaded into
        ``counts`` (the template write phase's chunk offsets, or the start of each chunk's
        positions scan, no launch; the Lift write phase uploads its own, ``choffs``)."""
        ex = np.zeros(len(h), np.int64)
        np.cumsum(h[:-1], out=ex[1:])
        self.cl.enqueue_copy(self.queue, counts, ex, is_blocking=False)
        self._keep.append(ex)              # alive until the copy is done

    def _groups(self, P: int) -> int:
        """How many groups the chunk results are folded in before one work-item combines them:
        0 (combine all P directly) unless P is large, on a GPU, where one work-item walking
        thousands of results costs milliseconds."""
        if self.c.strategy != "gpu" or P <= 512:
            return 0
        return 256

    def _group_width(self, kern: Any, ls: Any = None) -> int:
        """Work-items of one group of a kernel whose groups cooperate through local memory
        (``fold``/``spread``, ``nz_fold_long``/``nz_spread_long``): the context's work-group
        size, at most the SOAC's tile (``group_tile``: local memory a component) and what
        the driver can run the kernel with."""
        w = self._wg_limit.get(id(kern))
        if w is None or w[0] is not kern:
            lim = int(kern.get_work_group_info(self.cl.kernel_work_group_info.WORK_GROUP_SIZE,
                                               self.device))
            w = self._wg_limit[id(kern)] = (kern, lim)
        tile = ls.info.get("group_tile", 256) if ls is not None else 256
        return max(1, min(self.c.local, tile, w[1]))

    def _launch_groups(self, kern: Any, groups: int, args: list, ls: Any = None) -> None:
        """Launch ``groups`` work-groups of such a kernel, each of :meth:`_group_width`
        work-items (the kernel numbers its groups with ``get_group_id``)."""
        W = self._group_width(kern, ls)
        self.launch(kern, groups * W, args, W)

    def _scan_longs(self, a: Any, P: int, total: Any) -> None:
        """Exclusive scan in place of ``P`` int64 values, their sum to ``total[0]``."""
        P2 = self._groups(P)
        L = np.int64
        if not P2:
            self.launch(self.s.nz_sd_carry, 1, [a, L(P), total])
            return
        sums2 = self._alloc(8 * P2)
        self._launch_groups(self.s.nz_fold_long, P2, [a, L(P), L(P2), sums2])
        self.launch(self.s.nz_sd_carry, 1, [sums2, L(P2), total])
        self._launch_groups(self.s.nz_spread_long, P2, [a, L(P), L(P2), sums2])

    def _rows(self, sd: DSd) -> bool:
        """Whether a segmented reduction/scan runs one work-item per segment: enough segments to
        fill the device, short enough on average, and none so long that one work-item walking
        it alone takes longer than the chunked plan's chunks (the chunked segmented scan is
        balanced whatever the lengths, and wins for few, long or skewed segments)."""
        if sd.count == 0:
            return False
        if sd.total <= self.small_seq:
            # few elements in all: one launch, whatever the balance
            return True
        if self.c.strategy == "gpu":
            if not (sd.count >= 4096 and sd.total <= 64 * sd.count):
                return False
            longest = 256
        else:
            if not (sd.count >= 4 * self.max_chunks and sd.total <= 4096 * sd.count):
                return False
            longest = 4096
        return sd.maxlen <= max(longest, 4 * -(-sd.total // self.chunks(sd.total)))

    #: the longest average segment for which a MAP reading its segment ids runs as the rows of
    #: the descriptor (see _map_rows)
    map_rows_avg = 2

    def _map_rows(self, sd: DSd, n: int) -> bool:
        """Whether a MAP of ``n`` elements reading the segment ids of ``sd`` at its index runs as
        ``sd``'s rows (its Lift program, one work-item a segment): its elements are exactly the
        descriptor's, a segmented reduction over ``sd`` would take its rows plan (many short
        segments), and those average at most ``map_rows_avg`` elements (or there are few
        elements in all).  Otherwise the hand-written map runs: balanced chunks walking the
        segments, which computes what depends on the segment alone once per segment and
        vectorises the rest -- measured on PoCL (a CPU), it is as fast or faster from about 2
        elements a segment on (a gather at the segment's offsets 1.3x at 4 elements, 2x at 64),
        and slower below, where it walks to a new segment every element or two."""
        return n == sd.total and sd.count < _INT_MAX and self._rows(sd) and self._short_rows(sd)

    def _short_rows(self, sd: DSd) -> bool:
        """Whether ``sd``'s segments average at most ``map_rows_avg`` elements, or there are few
        elements in all: where a Lift rows program that reads its segment's id (a MAP's, a
        SEG_REDUCE's or SEG_SCAN's: the row's index) is launched instead of the template, which
        reads what depends on the segment alone once per segment.  Quicksort's split counts
        (a SEG_REDUCE of three components, five subscripts at the id each) took 4x the
        template's kernel time as Lift rows over its longer segments."""
        return sd.total <= self.small_seq or sd.total <= self.map_rows_avg * sd.count

    def _sd_of_lengths(self, lengths: DVec, total: int) -> DSd:
        """A descriptor of lengths computed on the device whose total is known (its longest
        segment is read back only if a plan asks for it)."""
        n = lengths.n
        offs = self._offsets_vec(n)
        if not n:
            return DSd(lengths, offs, total, 0)
        got = self._sd_scan(lengths, offs, self._alloc(8), np.int32(_INT_MAX))
        return DSd(lengths, offs, total, lambda: got.read(self, total=False)[1])

    def _sd_scan(self, lengths: DVec, offs: DVec, total: Any, code: np.int32) -> "_SdScan":
        """The offsets (exclusive scan) of ``lengths`` (n > 0) into ``offs``, their sum and the
        longest segment where the returned :class:`_SdScan` reads them; a negative length
        reports ``code``.  Few segments: one launch on one work-item (sequential, no chunk
        sums); many: chunk sums, their scan, chunk offsets.  The Lift programs of lift_sd.py
        (``total`` unused, or written by the GPU's scan of many chunk sums), the templates
        where the sizes exceed their ``int`` index arithmetic or on a GPU's one work-group."""
        n = lengths.n
        P = self.chunks(n)
        if n <= _INT_MAX - 1024 and (P == 1 or n <= self.small_seq):
            # one work-item: the running (offset, total, longest) of the padded lengths, the
            # total and the longest at element n of their buffers
            tots, maxs = self._alloc(8 * (n + 1)), self._alloc(4 * (n + 1))
            self._launch_sd("small", 1, {"lens": lengths.buf, "out0": offs.buf, "out1": tots, "out2": maxs,
                                         "N": n, "lift_err": self.err, "lift_errbase": code}, "one")
            return _SdScan(tots, 8 * n, 1, maxs, 4 * n, 1)
        if P > 1 and n > self.group_seq and n <= _INT_MAX - 1024:
            sums, maxs = self._alloc(8 * P), self._alloc(4 * P)
            self._launch_sd("chunks", P, {"lens": lengths.buf, "out0": sums, "out1": maxs, "N": n, "P": P,
                                          "lift_err": self.err, "lift_errbase": code}, "chunks")
            if not self._groups(P):
                # each chunk sums the chunk sums before it (P is small): no scan launch; the
                # host adds the chunk sums for the total
                self._launch_sd("offsets_self", P, {"lens": lengths.buf, "sums": sums, "out": offs.buf,
                                                    "N": n, "P": P}, "chunks")
                return _SdScan(sums, 0, P, maxs, 0, P)
            self._scan_longs(sums, P, total)
            self._launch_sd("offsets", P, {"lens": lengths.buf, "sums": sums, "out": offs.buf, "N": n, "P": P},
                            "chunks")
            return _SdScan(total, 0, 1, maxs, 0, P)
        return _SdScan(total, 0, 1, *self._sd_scan_templates(lengths, offs, total, code))

    def _sd_scan_templates(self, lengths: DVec, offs: DVec, total: Any, code: np.int32) -> tuple:
        """``_sd_scan`` by the template kernels (``total[0]`` the total): returns ``(maxs, 0,
        P)``, a buffer of ``P`` int32 whose maximum is the longest segment."""
        n = lengths.n
        P = self.chunks(n)
        L = np.int64
        if P == 1 or n <= self.small_seq:
            maxs = self._alloc(4)
            self.launch(self.s.nz_sd_small, 1, [lengths.buf, L(n), offs.buf, total, maxs, self.err, code])
            return maxs, 0, 1
        if n <= self.group_seq:
            maxs = self._alloc(4)
            self.launch(self.s.nz_sd_group, self.c.local,
                        [lengths.buf, L(n), offs.buf, total, maxs, self.err, code])
            return maxs, 0, 1
        sums = self._alloc(8 * P)
        maxs = self._alloc(4 * P)
        self.launch(self.s.nz_sd_chunks, P, [lengths.buf, L(n), L(P), sums, maxs, self.err, code])
        if not self._groups(P):
            # each chunk sums the chunk sums before it (P is small): no scan launch
            self.launch(self.s.nz_sd_offsets_self, P, [lengths.buf, L(n), L(P), sums, offs.buf, total])
            return maxs, 0, P
        self._scan_longs(sums, P, total)
        self.launch(self.s.nz_sd_offsets, P, [lengths.buf, L(n), L(P), sums, offs.buf])
        return maxs, 0, P

    def _rank(self, ls: LoweredSoac, K, ctx: list, n: int, kenv: dict) -> DVec:
        """A RANK's or SEG_RANK's radix sort: the keys phase, 8 bits a pass (histograms, their
        digit-major scan, the stable scatter), a SEG_RANK's passes over the segment ids, the
        ranks.  Each step runs its Lift program (lift_rank.py) where it exists and the sizes fit
        (``n`` and ``256 P`` at most ``INT_MAX``), its template otherwise."""
        s = ls.soac
        info = ls.info
        bits = info["key_bits"]
        ukey = np.uint32 if bits <= 32 else np.uint64
        out = self.new_vec(n, dtype_of(s.f.params[0].ty))
        if n == 0:
            return out
        keys = [self._alloc(np.dtype(ukey).itemsize * n) for _ in range(2)]
        idx = [self._alloc(4 * n) for _ in range(2)]
        lk = info.get("lift_keys")
        if lk is not None and self._lift_fits(lk, ctx, n):
            # the kernel the Lift compiler wrote (lift_rank.py): the order keys and the indices
            self._launch_lift(K("liftkeys"), lk, ctx, n, [keys[0], idx[0]])
        else:
            self.launch(K("keys"), min(n, self.map_items), ctx + [np.int64(n), keys[0], idx[0]])
        # the 256 x P histogram is scanned by one work-item: few chunks
        P = self.chunks(n, cap=256)
        hist = self._alloc(4 * 256 * P)
        fits = n <= _INT_MAX - 1024
        lift = fits and all(k in info for k in ("lift_hist", "lift_pos", "lift_starts", "lift_perm"))
        starts = self._alloc(4 * 256 * P) if lift else None
        pos = self._alloc(4 * n) if lift else None
        L = np.int64
        cur = 0

        def lift_pass(kind: str, shift: int, extra: dict, outs: list) -> None:
            # one pass through the Lift programs: the chunks' histograms, their digit-major
            # exclusive scan, each key's position, the keys (and indices) moved there
            extra = dict(extra, ix=idx[cur])
            extra = dict(extra, sh=np.int32(shift))
            self._launch_lift(K(f"lift{kind}hist"), info[f"lift_{kind}hist"], ctx, n, [hist],
                              chunks=P, extra=extra)
            self._launch_lift(K("liftstarts"), info["lift_starts"], ctx, n, [starts], chunks=P, single=True,
                              extra={"h": hist})
            self._launch_lift(K(f"lift{kind}pos"), info[f"lift_{kind}pos"], ctx, n, [pos],
                              chunks=P, extra=dict(extra, s=starts))
            self._launch_lift(K(f"lift{kind}perm"), info[f"lift_{kind}perm"], ctx, n, outs,
                              extra=dict(extra, pos=pos))

        hk = self.s.nz_radix_hist32 if bits <= 32 else self.s.nz_radix_hist64
        sk = self.s.nz_radix_scatter32 if bits <= 32 else self.s.nz_radix_scatter64
        for shift in range(0, bits, 8):
            if lift:
                lift_pass("", shift, {"k": keys[cur]}, [keys[1 - cur], idx[1 - cur]])
            else:
                self.launch(hk, P, [keys[cur], L(n), L(P), np.int32(shift), hist])
                self.launch(self.s.nz_exscan_int, 1, [hist, L(256 * P)])
                self.launch(sk, P, [keys[cur], idx[cur], L(n), L(P), np.int32(shift), hist,
                                    keys[1 - cur], idx[1 - cur]])
            cur = 1 - cur
        if isinstance(s, ir.SegRank):
            sd: DSd = kenv[s.sd.name]
            ids = self.sd_ids(sd)
            segbits = max(1, int(sd.count - 1).bit_length())
            for shift in range(0, segbits, 8):
                if lift and all(k in info for k in ("lift_seghist", "lift_segpos", "lift_segperm")):
                    lift_pass("seg", shift, {"ids": ids.buf}, [idx[1 - cur]])
                else:
                    self.launch(self.s.nz_radix_histseg, P, [idx[cur], ids.buf, L(n), L(P), np.int32(shift), hist])
                    self.launch(self.s.nz_exscan_int, 1, [hist, L(256 * P)])
                    self.launch(self.s.nz_radix_scatterseg, P, [idx[cur], ids.buf, L(n), L(P), np.int32(shift),
                                                                hist, idx[1 - cur]])
                cur = 1 - cur
            lo = info.get("lift_segout")
            if lo is not None and fits and sd.count < _INT_MAX:
                # the ranks within the segments, in the index type (lift_rank.py)
                self._launch_lift(K("liftsegout"), lo, ctx, n, [out.buf],
                                  extra={"ix": idx[cur], "ids": ids.buf, "so": sd.offsets.buf,
                                         "nsegs1": np.int32(sd.count + 1)})
                return out
        else:
            lo = info.get("lift_out")
            if lo is not None and fits:
                # the ranks, in the index type (lift_rank.py)
                self._launch_lift(K("liftout"), lo, ctx, n, [out.buf], extra={"ix": idx[cur]})
                return out
        # the rank kernels write ints: an int64 index type gets them through a cast
        res = out if out.dtype == np.int32 else self._alloc(4 * n)
        dst = res if res is not out else out.buf
        if isinstance(s, ir.SegRank):
            self.launch(self.s.nz_segrank_out, min(n, self.map_items),
                        [idx[cur], ids.buf, sd.offsets.buf, L(n), dst])
        else:
            self.launch(self.s.nz_rank_out, min(n, self.map_items), [idx[cur], L(n), dst])
        if res is not out:
            self.launch(self.s.nz_cast_i2l, min(n, self.map_items), [res, L(n), out.buf])
        return out


class _SdScan:
    """Where a descriptor's scan left its total (the sum of ``tot_count`` int64 at byte
    ``tot_off`` of ``tot``: one total, or the chunk sums) and its longest segment (the maximum
    of ``max_count`` int32 at byte ``max_off`` of ``maxs``)."""
    __slots__ = ("tot", "tot_off", "tot_count", "maxs", "max_off", "max_count")

    def __init__(self, tot, tot_off, tot_count, maxs, max_off, max_count) -> None:
        self.tot, self.tot_off, self.tot_count = tot, tot_off, tot_count
        self.maxs, self.max_off, self.max_count = maxs, max_off, max_count

    def read(self, r: "OpenCLRunner", total: bool = True) -> tuple:
        """``(total, longest)`` read back in one synchronisation (``total=False``: the
        longest alone, the total None)."""
        m = np.empty(self.max_count, np.int32)
        pairs = [(m, self.maxs, self.max_off)]
        if total:
            h = np.empty(self.tot_count, np.int64)
            pairs.append((h, self.tot, self.tot_off))
        r._read(pairs)
        return (int(h.sum()) if total else None), int(m.max())


class _SdSites:
    """The one failing site of ``make_sd`` (a negative length), for the error buffer."""
    __slots__ = ("sites",)

    def __init__(self, loc: Optional[Loc]) -> None:
        from .cgen import Sites
        self.sites = Sites()
        self.sites.add(loc, MSG_NEG_LENGTH)


#: printing copies back a vector of at most this many bytes whole, and one whose shown
#: elements form more than ``_MAX_RUNS`` runs of consecutive indices (runner.download_elems)
_WHOLE_BYTES = 1 << 16
_MAX_RUNS = 1024


class _PrefixReader:
    """``nessie.convert.HostLeaves``'s four methods over a runner's device values."""

    def __init__(self, runner: "OpenCLRunner") -> None:
        self.r = runner

    def value(self, leaf: Any) -> Any:
        return self.r.to_host(leaf)

    def length(self, leaf: Any, nested: bool) -> int:
        if isinstance(leaf, DSd):
            return leaf.count
        if isinstance(leaf, DVec):
            return leaf.n
        h = self.r.to_host(leaf)
        return len(h.field("lengths")) if nested else len(h)

    def elems(self, leaf: Any, idx: np.ndarray) -> np.ndarray:
        if isinstance(leaf, DVec):
            return self.r.download_elems(leaf, idx)
        return np.asarray(self.r.to_host(leaf))[idx]

    def segments(self, leaf: Any, idx: np.ndarray) -> tuple:
        if isinstance(leaf, DSd):
            return (self.r.download_elems(leaf.lengths, idx),
                    self.r.download_elems(leaf.offsets, idx))
        h = self.r.to_host(leaf)
        return h.field("lengths")[idx], h.field("offsets")[idx]


def _release(st: Stats, size: int) -> None:
    st.live_bytes -= size


def _recycle(st: Stats, size: int, pool: "_BufferPool", cls: int, buf: Any) -> None:
    """A vector died: its buffer goes back to the pool (every command that used it was
    enqueued before any that will reuse it, on the runner's one in-order queue)."""
    st.live_bytes -= size
    pool.give(cls, buf)


def _size_class(size: int) -> int:
    """The allocation size of a vector's buffer: ``size`` rounded up to one of four sizes per
    power of two (at most 25% more), so that vectors of nearby lengths reuse each other's
    buffers (the lengths of a recursion's levels differ a little from call to call)."""
    step = 1 << max(0, size.bit_length() - 3)
    return -(-size // step) * step


class _BufferPool:
    """Buffers of dead vectors by size class, reused by later vectors instead of allocating
    (allocating is not free: a GPU driver maps the memory, a CPU device's first touch faults
    every page in).  Holds at most ``cap`` bytes; drained when an allocation fails."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.bytes = 0
        self.free: dict[int, list] = {}

    def take(self, cls: int) -> Any:
        lst = self.free.get(cls)
        if not lst:
            return None
        self.bytes -= cls
        return lst.pop()

    def give(self, cls: int, buf: Any) -> None:
        if self.bytes + cls <= self.cap:
            self.free.setdefault(cls, []).append(buf)
            self.bytes += cls

    def drain(self) -> None:
        self.free.clear()
        self.bytes = 0


def _flat(v: Any) -> list:
    if isinstance(v, tuple):
        out: list = []
        for x in v:
            out.extend(_flat(x))
        return out
    return [v]


_NP_OF_C = {"int": np.int32, "long": np.int64, "double": np.float64, "uchar": np.uint8}


#: allocations from this size on are checked against an address-space limit (CPU devices)
_CHECKED_ALLOC = 1 << 20


def _address_space_limit() -> Optional[int]:
    """The process's address-space limit in bytes (``ulimit -v``), None if unlimited."""
    try:
        import resource
        soft = resource.getrlimit(resource.RLIMIT_AS)[0]
    except (ImportError, OSError, ValueError):
        return None
    return None if soft == resource.RLIM_INFINITY or soft <= 0 else int(soft)


def _address_space_used() -> int:
    """The process's mapped address space in bytes (0 if it cannot be read)."""
    try:
        with open("/proc/self/statm", "rb") as f:
            pages = int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return 0
    return pages * os.sysconf("SC_PAGE_SIZE")


def _np_scalar(x: Any, decl: str) -> Any:
    ct = decl.split()[1]
    t = _NP_OF_C[ct]
    if isinstance(x, str):
        x = ord(x)
    return t(x) if t is not np.uint8 else np.uint8(int(x))


__all__ = ["OpenCLRunner", "DVec", "DSd", "DScalar", "Stats", "choose_device", "lower_kernel",
           "kernel_source", "get_context"]
