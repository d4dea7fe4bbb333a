# SPDX-License-Identifier: MIT
"""PyTorch: shared memory both ways (skipped without python3-torch)."""

import sys

import numpy as np
import pytest

import libaccel
from conftest import settle

torch = pytest.importorskip("torch", reason="python3-torch is not installed")
from torch.utils import dlpack as tdl  # noqa: E402


def test_torch_from_libaccel_shares_memory(dev):
    b = libaccel.Buffer(dev, 4 * 8)
    t = tdl.from_dlpack(b.as_tensor("float32", (8,)))
    a = np.from_dlpack(b.as_tensor(np.float32, (8,)))  # read-only in 1.x
    assert t.data_ptr() == a.__array_interface__["data"][0]
    t[2] = 3.5
    assert a[2] == 3.5
    np.asarray(b).view(np.float32)[5] = -1.0
    assert t[5].item() == -1.0
    assert t.dtype == torch.float32 and tuple(t.shape) == (8,)
    before = sys.getrefcount(b)
    t2 = tdl.from_dlpack(b.as_tensor(torch.int32, (2, 4)))
    assert sys.getrefcount(b) == before + 1
    del t2
    assert sys.getrefcount(b) == before


SCALE = """
kernel void scale(global float *x, float a, uint n)
{
	size_t i = get_global_id(0);
	if (i < n)
		x[i] *= a;
}
"""


def test_kernel_in_place_on_torch_tensor(compiler, queue):
    k = libaccel.Program(compiler, SCALE).kernel("scale")
    t = torch.arange(1000, dtype=torch.float32)
    before = sys.getrefcount(t)
    buf = libaccel.from_dlpack(t, device=compiler)
    assert buf.size == 4000
    k.set_args(buf, 3.0, 1000)
    queue.launch(k, 1000).wait()
    assert torch.equal(t, torch.arange(1000, dtype=torch.float32) * 3)
    k.set_arg(0, None)
    del buf
    # torch's DLPack tensor holds the tensor until the Buffer goes
    assert settle(lambda: sys.getrefcount(t) == before)


def test_torch_to_dlpack_capsule(dev):
    t = torch.ones(4, dtype=torch.int64)
    buf = libaccel.from_dlpack(tdl.to_dlpack(t), device=dev)
    with memoryview(buf) as m:
        m[0] = 9
    assert t[0].item() == 9
