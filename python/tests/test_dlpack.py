# SPDX-License-Identifier: MIT
"""DLPack both ways, the buffer protocol and NumPy."""

import ctypes
import sys

import numpy as np
import pytest

import libaccel
from conftest import settle


def addr(a):
    return a.__array_interface__["data"][0]


def test_numpy_asarray_shares_memory(dev):
    b = libaccel.Buffer(dev, 16)
    a = np.asarray(b)
    assert a.dtype == np.uint8 and a.shape == (16,)
    a[3] = 42
    with memoryview(b) as m:
        assert m[3] == 42
        assert addr(a) == ctypes.addressof(ctypes.c_char.from_buffer(m))


def test_np_from_dlpack_shares_memory(dev):
    b = libaccel.Buffer(dev, 64)
    assert b.__dlpack_device__() == (1, 0)
    a = np.from_dlpack(b)  # NumPy 1.x makes it read-only: write elsewhere
    assert a.shape == (64,) and a.dtype == np.uint8
    w = np.asarray(b)
    assert addr(a) == addr(w)
    w[0] = 7
    assert a[0] == 7
    with memoryview(b) as m:
        m[1] = 9
    assert a[1] == 9
    t = b.as_tensor(np.float32, (4, 4))
    f = np.from_dlpack(t)
    assert f.shape == (4, 4) and f.dtype == np.float32
    assert addr(f) == addr(a)
    w.view(np.float32)[0] = 1.5
    assert f[0, 0] == 1.5
    assert t.shape == (4, 4) and t.strides == (4, 1)
    assert t.dtype == "float32" and t.buffer is b and t.offset == 0


def test_as_tensor_strides_offset(dev):
    b = libaccel.Buffer(dev, 4 * 24)
    np.asarray(b).view(np.int32)[:] = np.arange(24)
    t = b.as_tensor("int32", (3, 4), strides=(8, 2), offset=4)
    a = np.from_dlpack(t)
    assert a.tolist() == [[1, 3, 5, 7], [9, 11, 13, 15], [17, 19, 21, 23]]


def test_as_tensor_errors(dev):
    b = libaccel.Buffer(dev, 64)
    with pytest.raises(ValueError):
        b.as_tensor("float32", (17,))
    with pytest.raises(ValueError):
        b.as_tensor("float32", (4,), offset=60)
    with pytest.raises(OverflowError):
        b.as_tensor("float64", (1 << 40, 1 << 40))
    with pytest.raises(OverflowError):
        b.as_tensor("float32", (2, 2), strides=(1 << 62, 1))
    with pytest.raises(ValueError):
        b.as_tensor("float32", (-1,))
    with pytest.raises(ValueError):
        b.as_tensor("float32", (2,), strides=(-1,))
    with pytest.raises(ValueError):
        b.as_tensor("float32", (2, 2), strides=(1,))
    with pytest.raises(ValueError):
        b.as_tensor("float32", (1,) * 33)
    with pytest.raises(TypeError):
        b.as_tensor("quaternion", (1,))
    with pytest.raises(OverflowError):
        b.as_tensor("uint8", (1,), offset=-1)
    assert np.from_dlpack(b.as_tensor("uint8", (0,))).shape == (0,)


def test_dlpack_arguments(dev):
    b = libaccel.Buffer(dev, 8)
    with pytest.raises(ValueError):
        b.__dlpack__(stream=1)
    with pytest.raises(BufferError):
        b.__dlpack__(dl_device=(2, 0))
    with pytest.raises(BufferError):
        b.__dlpack__(copy=True)
    with pytest.raises(TypeError):
        b.__dlpack__(max_version=1)
    cap = b.__dlpack__(max_version=(1, 0), dl_device=(1, 0), copy=False)
    assert "dltensor_versioned" in repr(cap)
    assert "dltensor" in repr(b.__dlpack__())
    assert "versioned" not in repr(b.__dlpack__(max_version=(0, 8)))


def test_unconsumed_capsules_release(dev):
    b = libaccel.Buffer(dev, 8)
    before = sys.getrefcount(b)
    caps = [b.__dlpack__(), b.__dlpack__(max_version=(1, 0))]
    assert sys.getrefcount(b) == before + 2
    del caps
    assert sys.getrefcount(b) == before


def test_read_only_buffer_export(dev):
    b = libaccel.Buffer(dev, 8, libaccel.BUFFER_HOST_READ_ONLY)
    with pytest.raises(BufferError):
        b.__dlpack__()  # the unversioned ABI cannot say read-only
    cap = b.__dlpack__(max_version=(1, 0))
    # a versioned consumer (ours) sees the read-only flag
    ro = libaccel.from_dlpack(cap, device=dev)
    assert ro.flags & libaccel.BUFFER_HOST_READ_ONLY


def test_dlpack_refcounts(dev):
    b = libaccel.Buffer(dev, 32)
    before = sys.getrefcount(b)
    a = np.from_dlpack(b)
    assert sys.getrefcount(b) == before + 1  # the capsule's owner
    del a
    assert sys.getrefcount(b) == before


def test_from_dlpack_numpy_zero_copy(dev, queue):
    x = np.arange(16, dtype=np.uint32)
    before = sys.getrefcount(x)
    buf = libaccel.from_dlpack(x, device=dev)
    assert sys.getrefcount(x) == before + 1  # numpy keeps it for the tensor
    assert buf.size == x.nbytes
    queue.fill(buf, b"\x01\x00\x00\x00").wait()
    assert (x == 1).all()
    with memoryview(buf) as m:
        assert ctypes.addressof(ctypes.c_char.from_buffer(m)) == addr(x)
    del buf
    assert settle(lambda: sys.getrefcount(x) == before)


def test_from_dlpack_strided_views(dev):
    x = np.arange(20, dtype=np.int16).reshape(4, 5)
    view = x[1:3, 1:4]
    buf = libaccel.from_dlpack(view, device=dev)
    # from element [1, 1] to element [2, 3], inclusive
    assert buf.size == (2 * 5 + 3 - (1 * 5 + 1) + 1) * 2
    rev = x[::-1]
    rbuf = libaccel.from_dlpack(rev, device=dev)
    assert rbuf.size == x.nbytes
    assert libaccel.from_dlpack(x).device.type == libaccel.DEVICE_TYPE_CPU


def test_from_dlpack_errors(dev):
    with pytest.raises(TypeError):
        libaccel.from_dlpack(object())
    with pytest.raises(ValueError):
        libaccel.from_dlpack(np.zeros(0, np.float32))
    with pytest.raises(TypeError):
        libaccel.from_dlpack(np.zeros(1), device="cpu")

    class OtherDevice:
        def __dlpack_device__(self):
            return (2, 0)

        def __dlpack__(self, **kw):
            raise AssertionError("not called")

    with pytest.raises(BufferError):
        libaccel.from_dlpack(OtherDevice())
    b = libaccel.Buffer(dev, 8)
    cap = b.__dlpack__()
    libaccel.from_dlpack(cap)
    with pytest.raises(ValueError):
        libaccel.from_dlpack(cap)  # consumed once only


def test_round_trip_keeps_everything_alive(dev):
    b = libaccel.Buffer(dev, 16)
    a = np.asarray(b)
    again = libaccel.from_dlpack(a)
    del a
    with memoryview(again) as m:
        m[0] = 5
    with memoryview(b) as m:
        assert m[0] == 5


def test_tensor_buffer_protocol(dev):
    b = libaccel.Buffer(dev, 4 * 24)
    t = b.as_tensor("float32", (4, 3), strides=(6, 2), offset=4)
    before = sys.getrefcount(t)
    a = np.asarray(t)  # typed and writable, unlike NumPy 1.x from_dlpack
    assert sys.getrefcount(t) == before + 1  # the view's exporter
    assert a.shape == (4, 3) and a.strides == (24, 8)
    assert a.dtype == np.float32 and a.flags.writeable
    a[:] = 1
    assert np.asarray(b).view(np.float32).tolist() == [0, 1] * 12
    assert addr(a) == addr(np.from_dlpack(t))
    with memoryview(t) as m:
        assert m.format == "f" and m.shape == (4, 3)
    del a
    assert sys.getrefcount(t) == before
    with pytest.raises(BufferError):
        memoryview(b.as_tensor("bfloat16", (2,)))
    ro = libaccel.Buffer(dev, 8, libaccel.BUFFER_HOST_READ_ONLY)
    r = np.asarray(ro.as_tensor(np.int32, (2,)))
    assert not r.flags.writeable
