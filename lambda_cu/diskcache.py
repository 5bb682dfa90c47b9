"""A cache on disk for the compiler's expensive pure passes: the flattening of a monomorphic
program (``nessie.passes``), the fusion of a flattened λcu program
(``lambda_cu.fusion.fuse_program``) and the lowering of a λcu kernel to Lift and OpenCL C
(``lift_backend.lower.kernels.lower_kernel``).  Each is a pure function of an immutable IR value
and a few options, so a result computed once is valid for every later process that passes the
same value -- a second ``nessie run`` or ``nessie compile`` of a program, a REPL session, the
Python API -- as long as the compiler itself is the same.

* The key of an entry is a SHA-256 of the pass's name, the compiler's version and the pickled
  arguments, pickled without pickle's memo (so equal IR values give equal bytes whoever shares
  what: a program read back from the cache has the key of the one first computed), whatever
  the process's string-hash seed (the IR holds no sets of strings); an argument that cannot be
  pickled is not cached.  The compiler's version is a hash of the Python version, of the
  source of every module of ``nessie``, ``lambda_cu`` and ``lift_backend`` and of the
  ``NESSIE_*``/``LIFT_*`` environment settings: any edit of the compiler, or another bound,
  starts a new cache.
* A result is stored only where it is a function of the key: fusion's schedules depend on time
  where a solver hit its time limit or the fusion time budget ran out, and such results are not
  stored (:func:`lambda_cu.fusion.deterministic`).
* Reading or writing the cache never fails a compilation: an unreadable, truncated or corrupt
  entry is a miss (and is removed), an unwritable directory is skipped.  Entries are written to
  a temporary file and renamed, so concurrent processes see whole entries or none.
* Where: ``$NESSIE_CACHE_DIR``, else ``$XDG_CACHE_HOME/nessie``, else ``~/.cache/nessie``.
  ``NESSIE_CACHE=0`` turns the cache off (the test suite does, except the cache's own tests).
  Past :data:`MAX_BYTES` (256 MiB) the least recently used entries are removed.

The entries are pickles, read back only from the user's own cache directory (as pyopencl's and
numba's caches are)."""
from __future__ import annotations

import functools
import hashlib
import io
import os
import pickle
import sys
import tempfile
import types
from pathlib import Path
from typing import Any, Callable, Optional

#: the size past which the least recently used entries are removed (checked after storing an
#: entry whose name starts with ``0``: one store in 16, with no counter kept)
MAX_BYTES = 256 * 2**20

#: what :func:`load` returns where the cache has no (readable) entry
MISS = object()

_PACKAGES = ("nessie", "lambda_cu", "lift_backend")


def enabled() -> bool:
    return os.environ.get("NESSIE_CACHE", "1").strip().lower() not in ("0", "off", "no", "false")


def directory() -> Path:
    d = os.environ.get("NESSIE_CACHE_DIR")
    if d:
        return Path(d)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "nessie"


def code_version() -> str:
    """A hash of the Python version, of every module's source in the compiler's packages and of
    the environment's ``NESSIE_*`` and ``LIFT_*`` settings (bounds such as
    ``NESSIE_FUSION_MAX_PAIRS`` change what fusion does)."""
    env = sorted((k, v) for k, v in os.environ.items()
                 if k.startswith(("NESSIE_", "LIFT_")) and k not in ("NESSIE_CACHE", "NESSIE_CACHE_DIR"))
    return hashlib.sha256((_sources_version() + repr(env)).encode()).hexdigest()


@functools.lru_cache(maxsize=1)
def _sources_version() -> str:
    h = hashlib.sha256(sys.version.encode())
    root = Path(__file__).resolve().parent.parent
    for pkg in _PACKAGES:
        base = root / pkg
        for path in sorted(base.rglob("*.py")):
            h.update(str(path.relative_to(root)).encode())
            h.update(b"\0")
            h.update(path.read_bytes())
    return h.hexdigest()


def key(kind: str, *args: Any) -> Optional[str]:
    """The entry's name for pass ``kind`` applied to ``args``; None where they cannot be
    pickled (nothing is cached then)."""
    try:
        # without pickle's memo ("fast" mode): a shared value is written again where it recurs,
        # so the bytes depend on the values alone, not on which of them share one object (a
        # value read back from the cache shares fewer strings than the one first computed:
        # pickle interns the attribute names it restores, not equal strings elsewhere)
        buf = io.BytesIO()
        p = pickle.Pickler(buf, protocol=5)
        p.fast = True
        p.dump(args)
        data = buf.getvalue()
    except Exception:  # noqa: BLE001 - an argument pickle cannot write (or a cycle): not cached
        return None
    h = hashlib.sha256(kind.encode())
    h.update(b"\0")
    h.update(code_version().encode())
    h.update(data)
    return h.hexdigest()


def _path(kind: str, k: str) -> Path:
    return directory() / kind / k[:2] / f"{k}.pkl"


def load(kind: str, k: Optional[str]) -> Any:
    """The stored result of entry ``k``, or :data:`MISS`."""
    if k is None or not enabled():
        return MISS
    p = None
    try:
        p = _path(kind, k)
        with open(p, "rb") as f:
            value = pickle.load(f)
    except FileNotFoundError:
        return MISS
    except Exception:  # noqa: BLE001 - a truncated or corrupt entry (or one of another layout)
        try:
            if p is not None and p.is_file():
                p.unlink()
        except OSError:
            pass
        return MISS
    try:
        os.utime(p)             # recently used: the last to be pruned
    except OSError:
        pass
    return value


def _proxy(d: dict) -> types.MappingProxyType:
    return types.MappingProxyType(d)


class _Pickler(pickle.Pickler):
    """Pickles read-only mapping views (the Lift compiler's analyses) as views of a dict copy."""

    def reducer_override(self, obj: Any) -> Any:
        if type(obj) is types.MappingProxyType:
            return _proxy, (dict(obj),)
        return NotImplemented


def store(kind: str, k: Optional[str], value: Any) -> None:
    """Write entry ``k`` (nothing where the value cannot be pickled or the directory cannot be
    written)."""
    if k is None or not enabled():
        return
    tmp = None
    try:
        p = _path(kind, k)
        p.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=p.parent, prefix=".tmp-")
        with os.fdopen(fd, "wb") as f:
            _Pickler(f, protocol=5).dump(value)
        os.replace(tmp, p)
        tmp = None
    except Exception:  # noqa: BLE001 - a cache that cannot be written is no cache
        return
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass
    if k.startswith("0"):
        prune()


def prune(max_bytes: int = MAX_BYTES) -> None:
    """Remove the least recently used entries until the cache holds at most ``max_bytes``."""
    try:
        entries = []
        for p in directory().rglob("*.pkl"):
            try:
                st = p.stat()
            except OSError:
                continue
            entries.append((st.st_mtime, st.st_size, p))
        total = sum(e[1] for e in entries)
        for _, size, p in sorted(entries, key=lambda e: e[0]):
            if total <= max_bytes:
                break
            try:
                p.unlink()
                total -= size
            except OSError:
                pass
    except (OSError, RuntimeError):
        pass


def cached(kind: str, args: tuple, compute: Callable[[], Any],
           keep: Callable[[Any], bool] = lambda v: True) -> tuple[Any, bool]:
    """``(compute(), False)``, stored under ``kind`` and ``args`` where ``keep`` says the result
    is a function of them, or ``(stored result, True)``."""
    if not enabled():
        return compute(), False
    k = key(kind, *args)
    value = load(kind, k)
    if value is not MISS:
        return value, True
    value = compute()
    if keep(value):
        store(kind, k, value)
    return value, False
