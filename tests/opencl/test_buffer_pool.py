"""The OpenCL runner's buffer pool: the buffers of dead vectors are reused by later vectors of
a similar size (issue 9: allocating cost more than norm2's kernels on PoCL), without a reused
buffer ever changing what an earlier command read or wrote, and without holding memory an
allocation needs."""
from __future__ import annotations

import gc

import numpy as np
import pytest

from lift_backend.lower import runner as R

pytestmark = pytest.mark.opencl


@pytest.fixture()
def r():
    return R.OpenCLRunner()


def test_size_classes():
    prev = 0
    for size in list(range(8, 5000)) + [10**6, 8 * 10**8 + 3, 2**31 - 1, 2**31, 2**40 + 1]:
        c = R._size_class(size)
        assert size <= c <= size * 1.25, size
        assert c >= prev
        prev = c
    assert R._size_class(4096) == 4096 and R._size_class(4097) == 5120


def test_a_dead_vectors_buffer_is_reused(r):
    a = r.upload(np.arange(1000, dtype=np.int32))
    ptr = a.buf.int_ptr
    live = r.stats.live_bytes
    del a
    gc.collect()
    assert r.stats.live_bytes == live - 4000
    b = r.upload(np.arange(990, dtype=np.int32) * 2)      # 3960 bytes: the same size class
    assert b.buf.int_ptr == ptr
    assert r.download(b).tolist() == (np.arange(990) * 2).tolist()
    c = r.upload(np.arange(1000, dtype=np.int32))            # b is alive: a buffer of its own
    assert c.buf.int_ptr != ptr


def test_reuse_keeps_the_order_of_commands(r):
    """A read of a vector enqueued before the vector died sees its contents, whatever a later
    vector given the same buffer writes (one in-order queue)."""
    outs = []
    for k in range(50):
        v = r.upload(np.full(10000, k, dtype=np.int64))
        host = np.empty(10000, np.int64)
        r.cl.enqueue_copy(r.queue, host, v.buf, is_blocking=False)
        outs.append(host)
        del v
    r.queue.finish()
    for k, h in enumerate(outs):
        assert (h == k).all(), k


def test_the_pool_is_capped_and_drained_when_an_allocation_fails(r, monkeypatch):
    r._pool.cap = 10_000
    vs = [r.upload(np.zeros(1000, np.int32)) for _ in range(5)]
    del vs
    gc.collect()
    assert r._pool.bytes <= 10_000
    assert r._pool.bytes > 0
    real = r.cl.Buffer
    calls = []

    def failing_once(*a, **kw):
        calls.append(r._pool.bytes)
        if len(calls) == 1:
            raise r.cl.MemoryError("out of device memory (simulated)")
        return real(*a, **kw)
    monkeypatch.setattr(r.cl, "Buffer", failing_once)
    big = r.new_vec(100_000, np.int32)          # a size class the pool does not hold
    assert big.n == 100_000
    assert calls[0] > 0 and calls[1] == 0 and r._pool.bytes == 0


def test_programs_that_free_and_allocate_print_the_same(tmp_path):
    """A recursion whose levels allocate and free vectors of changing lengths, run on OpenCL,
    prints what the interpreter prints."""
    import io

    from nessie import driver
    src = tmp_path / "p.nesl"
    src.write_text("""
function qs(a) = if #a < 2 then a else
  let p = a[#a / 2]; l = {x in a | x < p}; e = {x in a | x == p}; g = {x in a | x > p};
      r = {qs(v) : v in [l, g]}
  in r[0] ++ e ++ r[1];
function go(n) = let xs = {rem(i * 7919, 1013) : i in [0:n]} in
  {sum(qs({x + k : x in xs})) : k in [0:3]};
go(5000);
qs({rem(i * 31, 97) : i in [0:300]});
""")
    c = driver.compile_file(str(src))
    want = io.StringIO()
    driver.run_interp(c, want)
    flat = driver.flatten(c)
    for fused in (True, False):
        prog = driver.fuse(flat)[0] if fused else flat
        got = io.StringIO()
        driver.run_lcu(c, prog, got, runner=driver.make_runner("opencl"))
        assert got.getvalue() == want.getvalue()


def test_temporaries_come_from_a_pool_and_go_back_to_it(r, monkeypatch):
    """A SOAC's temporaries (chunk results, counts) are taken from pyopencl's memory pool and
    return to it when they die: a second run of the same program creates no buffer for them, and
    none stays in use after the run."""
    import io

    from nessie import driver
    c = driver.compile_source("v = {rem(i * 7919, 1000) : i in [0:100000]};\n"
                              "sum(v);\n{x in v | x > 500};\n#{x in v | x < 3};\n", "t.nesl")
    fused = driver.fuse(driver.flatten(c))[0]
    base = r._tmp_pool.active_blocks            # the runner's error buffer
    first = io.StringIO()
    driver.run_lcu(c, fused, first, runner=r)
    gc.collect()
    assert r._tmp_pool.held_blocks > 0 and r._tmp_pool.active_blocks == base
    real = r.cl.Buffer
    made = []

    def counting(*a, **kw):
        made.append(a[2] if len(a) > 2 else kw)
        return real(*a, **kw)
    monkeypatch.setattr(r.cl, "Buffer", counting)
    held = r._tmp_pool.held_blocks
    second = io.StringIO()
    driver.run_lcu(c, fused, second, runner=r)
    gc.collect()
    assert second.getvalue() == first.getvalue()
    assert r._tmp_pool.active_blocks == base and r._tmp_pool.held_blocks == held
    # the vectors' buffers come from the vector pool, the temporaries' from the memory pool
    assert made == [], made
