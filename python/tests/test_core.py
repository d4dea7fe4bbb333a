# SPDX-License-Identifier: MIT
"""Context, Device, Buffer, Queue, Fence and errors, without a compiler."""

import errno
import os
import selectors
import sys
import threading

import pytest

import libaccel
from conftest import settle


def test_version_and_strerror():
    assert libaccel.version() == libaccel.__version__
    assert libaccel.strerror(-errno.ENOEXEC)
    with pytest.raises(ValueError):
        libaccel.strerror(1 << 40)


def test_context_devices(ctx, dev):
    devs = ctx.devices
    assert dev in devs
    assert dev.type == libaccel.DEVICE_TYPE_CPU
    assert dev.context is ctx
    assert dev.present
    assert isinstance(dev.name, str) and dev.name
    assert dev.max_alloc_size > 0
    assert len(dev.max_work_item_sizes) == 3
    assert "fill_u32" in dev.built_in_kernels
    assert dev.caps & libaccel.DEVICE_CAP_USER_PTR
    ctx.log_priority = 3
    assert ctx.log_priority == 3
    with pytest.raises(ValueError):
        ctx.log_priority = 9
    with pytest.raises(TypeError):
        libaccel.Device()


def test_default_context():
    assert libaccel.default_context() is libaccel.default_context()


def test_buffer_basics(dev):
    b = libaccel.Buffer(dev, 4096)
    assert b.size == 4096 and b.flags == 0 and b.device == dev
    assert b.parent is None and b.offset == 0
    with memoryview(b) as m:
        assert len(m) == 4096 and m[0] == 0  # starts zeroed
        m[0:4] = b"abcd"
    with memoryview(b) as m:
        assert bytes(m[0:4]) == b"abcd"
    align = dev.mem_base_addr_align
    big = libaccel.Buffer(dev, 2 * align)
    s = big.sub(align, 16)
    assert s.parent is big and s.size == 16 and s.offset == align
    with memoryview(s) as m:
        m[0] = 42
    with memoryview(big) as m:
        assert m[align] == 42


def test_buffer_errors(dev):
    with pytest.raises(libaccel.Error) as e:
        libaccel.Buffer(dev, 0)
    assert e.value.errno == errno.EINVAL
    assert isinstance(e.value, OSError)
    with pytest.raises(libaccel.Error) as e:
        libaccel.Buffer(dev, 16, 0xFFFF)
    assert e.value.errno == errno.EINVAL
    with pytest.raises(libaccel.Error) as e:
        libaccel.Buffer(dev, 1 << 62)
    assert e.value.errno in (errno.E2BIG, errno.ENOMEM)
    with pytest.raises(TypeError):
        libaccel.Buffer("not a device", 16)
    with pytest.raises(OverflowError):
        libaccel.Buffer(dev, -1)
    b = libaccel.Buffer(dev, 64)
    with pytest.raises(libaccel.Error) as e:
        b.sub(0, 128)
    assert e.value.errno == errno.ERANGE


def test_buffer_host_read_only(dev):
    b = libaccel.Buffer(dev, 64, libaccel.BUFFER_HOST_READ_ONLY)
    m = memoryview(b)
    assert m.readonly
    with pytest.raises(TypeError):
        m[0] = 1
    m.release()


def test_buffer_no_host_access(dev):
    b = libaccel.Buffer(dev, 64, libaccel.BUFFER_HOST_NO_ACCESS)
    with pytest.raises(libaccel.Error) as e:
        memoryview(b)
    assert e.value.errno == errno.EACCES


def test_wrap_host_memory(dev, queue):
    host = bytearray(b"\x00" * 64)
    before = sys.getrefcount(host)
    b = libaccel.Buffer.wrap(dev, host)
    assert sys.getrefcount(host) == before + 1
    queue.fill(b, b"\x5a").wait()
    assert host == b"\x5a" * 64
    ro = libaccel.Buffer.wrap(dev, b"constant", writable=False)
    assert ro.flags & libaccel.BUFFER_HOST_READ_ONLY
    with pytest.raises(BufferError):
        libaccel.Buffer.wrap(dev, b"constant")
    with pytest.raises(ValueError):
        libaccel.Buffer.wrap(dev, bytearray())
    del b
    assert settle(lambda: sys.getrefcount(host) == before)


def test_queue_transfers(dev, queue):
    a = libaccel.Buffer(dev, 256)
    b = libaccel.Buffer(dev, 256)
    data = bytes(range(256))
    f1 = queue.write(a, data)
    f2 = queue.copy(a, b, wait=[f1])
    out = bytearray(256)
    f3 = queue.read(b, out, wait=[f2])
    assert f3.wait(10.0) is True
    assert out == data
    assert f1.done and f1.status == 1
    queue.fill(b, b"\x01\x00", offset=2, size=4).wait()
    queue.read(b, out).wait()
    assert out[:8] == bytes([0, 1, 1, 0, 1, 0, 6, 7])
    m = queue.marker()
    assert m.wait() is True
    queue.barrier(wait=[m]).wait()
    queue.flush()
    queue.finish()
    assert queue.device == dev and queue.flags == 0


def test_queue_errors(dev, queue):
    a = libaccel.Buffer(dev, 16)
    with pytest.raises(libaccel.Error) as e:
        queue.write(a, b"x" * 32)
    assert e.value.errno == errno.ERANGE
    with pytest.raises(libaccel.Error) as e:
        queue.fill(a, b"abc")
    assert e.value.errno == errno.EINVAL
    with pytest.raises(ValueError):
        queue.read(a, b"immutable")
    with pytest.raises(TypeError):
        queue.copy(a, "b")
    with pytest.raises(TypeError):
        queue.marker(wait=[1])
    with pytest.raises(libaccel.Error) as e:
        libaccel.Queue(dev, 0x100)
    assert e.value.errno == errno.EINVAL


def test_user_fence_wait_timeout_and_callbacks(ctx, dev, queue):
    uf = ctx.user_fence()
    assert uf.status == 0 and not uf.done
    assert uf.wait(0) is False
    assert uf.wait(0.01) is False
    with pytest.raises(ValueError):
        uf.wait(-1)
    seen = []
    uf.add_done_callback(lambda f, s: seen.append((f, s)))
    b = libaccel.Buffer(dev, 64)
    gated = queue.fill(b, b"\x07", wait=[uf])
    threading.Timer(0.05, uf.signal).start()
    assert gated.wait(10) is True
    assert seen == [(uf, 0)]
    late = []
    uf.add_done_callback(lambda f, s: late.append(s))  # runs right away
    assert late == [0]
    with pytest.raises(libaccel.Error) as e:
        uf.signal()
    assert e.value.errno == errno.EALREADY
    with pytest.raises(TypeError):
        uf.add_done_callback(42)


def test_failed_fence_raises(ctx, dev, queue):
    uf = ctx.user_fence()
    b = libaccel.Buffer(dev, 64)
    f = queue.fill(b, b"\x01", wait=[uf])
    uf.signal(-errno.EIO)
    with pytest.raises(libaccel.Error) as e:
        f.wait(10)
    assert e.value.errno == errno.EIO
    assert f.status == -errno.EIO
    with pytest.raises(libaccel.Error):
        ctx.user_fence().signal(5)


def test_callback_exception_is_reported(ctx):
    uf = ctx.user_fence()

    def boom(f, s):
        raise RuntimeError("from a callback")

    uf.add_done_callback(boom)
    seen = []
    old = sys.unraisablehook
    sys.unraisablehook = lambda u: seen.append(u.exc_value)
    try:
        uf.signal()
    finally:
        sys.unraisablehook = old
    assert isinstance(seen[0], RuntimeError)


def test_fence_fileno_select(ctx):
    uf = ctx.user_fence()
    fd = uf.fileno()
    assert fd == uf.fileno()  # one fd per Fence object
    sel = selectors.DefaultSelector()
    sel.register(uf, selectors.EVENT_READ)
    assert sel.select(0) == []
    uf.signal()
    assert len(sel.select(5)) == 1
    sel.close()
    uf.close()
    uf.close()


def test_fence_asyncio(ctx):
    import asyncio

    async def main():
        uf = ctx.user_fence()
        asyncio.get_running_loop().call_later(0.02, uf.signal)
        return await libaccel.wait_async(uf)

    assert asyncio.run(main()) is True


def test_profiling_times(dev):
    q = libaccel.Queue(dev, libaccel.QUEUE_PROFILING)
    b = libaccel.Buffer(dev, 64)
    f = q.fill(b, b"\x00")
    f.wait()
    t0 = f.get_time(libaccel.FENCE_TIME_QUEUED)
    t1 = f.get_time(libaccel.FENCE_TIME_ENDED)
    assert t1 >= t0
    with pytest.raises(ValueError):
        f.get_time(9)


def test_bad_fds(ctx):
    r, w = os.pipe()
    try:
        with pytest.raises(libaccel.Error) as e:
            ctx.import_sync_file(r)
        assert e.value.errno == errno.EINVAL
        with pytest.raises(libaccel.Error) as e:
            ctx.import_dmabuf(r)
        assert e.value.errno in (errno.ENOTTY, errno.EOPNOTSUPP)
    finally:
        os.close(r)
        os.close(w)
    with pytest.raises(ValueError):
        ctx.import_sync_file(-1)
    with pytest.raises(libaccel.Error) as e:
        libaccel.sync_file_wait(1 << 20, 0)
    assert e.value.errno == errno.EBADF


def test_submission_keeps_objects_alive(ctx, dev, queue):
    uf = ctx.user_fence()
    host = bytearray(64)
    b = libaccel.Buffer(dev, 64)
    before = sys.getrefcount(host)
    f = queue.read(b, host, wait=[uf])
    assert sys.getrefcount(host) > before  # held by the pending read
    uf.signal()
    f.wait()
    assert settle(lambda: sys.getrefcount(host) == before)


def test_buffer_name_repr_hash(ctx, dev):
    b = libaccel.Buffer(dev, 64)
    b.set_name("weights")
    with pytest.raises(libaccel.Error) as e:
        b.set_name("x" * 40)
    assert e.value.errno == errno.ENAMETOOLONG
    with pytest.raises(libaccel.Error) as e:
        b.sub(0, 16).set_name("sub")
    assert e.value.errno == errno.EINVAL
    assert dev.name in repr(dev)
    assert hash(dev) == hash(ctx.cpu_device) and dev == ctx.cpu_device
    assert dev != ctx and (dev == 1) is False


def test_import_argument_errors(ctx):
    with pytest.raises(TypeError):
        ctx.import_dmabuf(0, device="cpu")
    with pytest.raises(TypeError):
        ctx.import_dmabuf("fd")
    with pytest.raises(OverflowError):
        ctx.import_dmabuf(0, flags=-1)
