# SPDX-License-Identifier: MIT
"""from_dlpack() against hand-made DLPack capsules (ctypes): the checks
on what a producer hands over, and the deleter's single call."""

import ctypes as C
import gc

import numpy as np
import pytest

import libaccel
from conftest import settle


class DLDevice(C.Structure):
    _fields_ = [("device_type", C.c_int32), ("device_id", C.c_int32)]


class DLDataType(C.Structure):
    _fields_ = [("code", C.c_uint8), ("bits", C.c_uint8),
                ("lanes", C.c_uint16)]


class DLTensor(C.Structure):
    _fields_ = [("data", C.c_void_p), ("device", DLDevice),
                ("ndim", C.c_int32), ("dtype", DLDataType),
                ("shape", C.POINTER(C.c_int64)),
                ("strides", C.POINTER(C.c_int64)),
                ("byte_offset", C.c_uint64)]


class DLManagedTensor(C.Structure):
    pass


DELETER = C.CFUNCTYPE(None, C.c_void_p)
DLManagedTensor._fields_ = [("dl_tensor", DLTensor),
                            ("manager_ctx", C.c_void_p),
                            ("deleter", DELETER)]


class DLManagedTensorVersioned(C.Structure):
    _fields_ = [("major", C.c_uint32), ("minor", C.c_uint32),
                ("manager_ctx", C.c_void_p), ("deleter", DELETER),
                ("flags", C.c_uint64), ("dl_tensor", DLTensor)]


capsule_new = C.pythonapi.PyCapsule_New
capsule_new.restype = C.py_object
capsule_new.argtypes = [C.c_void_p, C.c_char_p, C.c_void_p]


class Producer:
    """One tensor over `memory`; counts the deleter's calls."""

    def __init__(self, memory, shape, strides=None, bits=32, code=2,
                 device=1, versioned=False, major=1, flags=0,
                 byte_offset=0, data=None, null_shape=False):
        self.memory = memory
        self.calls = 0
        self.shape = (C.c_int64 * len(shape))(*shape)
        self.strides = ((C.c_int64 * len(strides))(*strides)
                        if strides else None)
        self.deleter = DELETER(self._delete)
        self.versioned = versioned
        if versioned:
            self.mt = DLManagedTensorVersioned(major=major, minor=0,
                                               deleter=self.deleter,
                                               flags=flags)
        else:
            self.mt = DLManagedTensor(deleter=self.deleter)
        t = self.mt.dl_tensor
        t.data = data if data is not None else C.addressof(memory)
        t.device = DLDevice(device, 0)
        t.ndim = len(shape)
        t.dtype = DLDataType(code, bits, 1)
        if not null_shape:
            t.shape = self.shape
        if self.strides is not None:
            t.strides = self.strides
        t.byte_offset = byte_offset

    def _delete(self, _):
        self.calls += 1

    def capsule(self):
        self.name = b"dltensor_versioned" if self.versioned else b"dltensor"
        return capsule_new(C.addressof(self.mt), self.name, None)


def test_valid_capsule_and_single_deleter_call(dev):
    mem = (C.c_float * 8)(*range(8))
    p = Producer(mem, (8,))
    buf = libaccel.from_dlpack(p.capsule(), device=dev)
    assert buf.size == 32
    with memoryview(buf) as m:
        assert m.cast("f")[7] == 7.0
    assert p.calls == 0
    del buf
    gc.collect()
    assert settle(lambda: p.calls == 1)


def test_versioned_read_only_and_reversed(dev):
    mem = (C.c_int16 * 6)()
    # a reversed view: data at the last element, stride -1
    p = Producer(mem, (6,), strides=(-1,), bits=16, code=0,
                 versioned=True, flags=1,
                 data=C.addressof(mem) + 5 * 2)
    buf = libaccel.from_dlpack(p.capsule(), device=dev)
    assert buf.size == 12
    assert buf.flags & libaccel.BUFFER_HOST_READ_ONLY
    a = np.asarray(buf)
    assert a.__array_interface__["data"] == (C.addressof(mem), True)
    del a
    del buf
    assert settle(lambda: p.calls == 1)


@pytest.mark.parametrize("kw, exc", [
    ({"versioned": True, "major": 2}, BufferError),
    ({"device": 2}, BufferError),
    ({"bits": 12}, BufferError),
    ({"null_shape": True}, BufferError),
    ({"shape": (4, -1)}, BufferError),
    ({"shape": (1 << 62, 1 << 62)}, OverflowError),
    ({"shape": (2, 2), "strides": (1 << 62, 1)}, OverflowError),
    ({"byte_offset": (1 << 64) - 8}, OverflowError),
    ({"shape": (0, 4)}, ValueError),
])
def test_bad_capsules(dev, kw, exc):
    mem = (C.c_float * 16)()
    shape = kw.pop("shape", (4,))
    p = Producer(mem, shape, **kw)
    with pytest.raises(exc):
        libaccel.from_dlpack(p.capsule(), device=dev)
    assert p.calls == 0  # refused: the capsule stays the producer's


def test_foreign_capsule_name(dev):
    with pytest.raises(ValueError):
        libaccel.from_dlpack(capsule_new(8, b"something_else", None),
                             device=dev)
