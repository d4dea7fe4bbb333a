# SPDX-License-Identifier: MIT
"""A foreign exporter: vgem's dma-bufs and fences, driven from Python by
the peer of examples/python/vgem-torch-asyncio.py. The ioctl numbers are
checked everywhere; the rest needs vgem (the kernel tier:
kernel-python-vgem-torch) and skips elsewhere."""

import asyncio
import importlib.util
import os
import pathlib

import pytest

import libaccel
from conftest import skip_unsupported

EXAMPLE = (pathlib.Path(__file__).resolve().parents[2] / "examples" /
           "python" / "vgem-torch-asyncio.py")
_spec = importlib.util.spec_from_file_location("vgem_torch_asyncio", EXAMPLE)
peer = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(peer)


def test_ioctl_numbers():
    """As the kernel's UAPI headers make them (x86-64, printed by a C
    program including drm.h, drm_mode.h and vgem_drm.h)."""
    assert peer.DRM_IOCTL_VERSION == 0xC0406400
    assert peer.DRM_IOCTL_GEM_CLOSE == 0x40086409
    assert peer.DRM_IOCTL_PRIME_HANDLE_TO_FD == 0xC00C642D
    assert peer.DRM_IOCTL_MODE_CREATE_DUMB == 0xC02064B2
    assert peer.DRM_IOCTL_MODE_MAP_DUMB == 0xC01064B3
    assert peer.DRM_IOCTL_VGEM_FENCE_ATTACH == 0xC0106441
    assert peer.DRM_IOCTL_VGEM_FENCE_SIGNAL == 0x40086442
    assert (peer.DRM_CLOEXEC, peer.DRM_RDWR) == (0x80000, 2)


@pytest.fixture()
def gpu():
    g = peer.Vgem.open()
    if g is None:
        pytest.skip("no vgem node in /dev/dri (needs the kernel tier)")
    yield g
    g.close()


@pytest.fixture()
def fenced(gpu, ctx, dev):
    """A vgem buffer with a pending write fence, imported into libaccel:
    (buffer, fence id, the GPU's mapping)."""
    handle, _, size = gpu.create(1024, 4)
    gmap = gpu.map(handle, size)
    fence = gpu.attach_fence(handle, write=True)
    fd = gpu.export(handle)
    try:
        buf = ctx.import_dmabuf(fd, dev)
    finally:
        os.close(fd)
    gpu.close_handle(handle)
    yield buf, fence, gmap
    try:
        gpu.signal(fence)  # if the test did not
    except OSError:
        pass  # it did: vgem forgot the fence (ENOENT)
    gmap.close()


def test_vgem_write_fence_is_implicit(fenced, gpu, queue):
    """The GPU's pending write shows in Buffer.export_sync_file, and a
    command on the buffer waits for it (implicit sync)."""
    buf, fence, gmap = fenced
    try:
        sf = buf.export_sync_file(write=False)
    except libaccel.Error as e:
        skip_unsupported(e, "Buffer.export_sync_file")
    try:
        assert libaccel.sync_file_wait(sf, 0) is False
        assert libaccel.sync_file_info(sf)["status"] == 0
        f = queue.fill(buf, b"\x07")
        assert f.wait(0.2) is False  # behind the GPU's write
        gpu.signal(fence)
        assert f.wait(10) is True
        assert libaccel.sync_file_wait(sf, 0) is True
        assert libaccel.sync_file_info(sf)["status"] == 1
    finally:
        os.close(sf)
    assert gmap[0] == 7 and gmap[buf.size - 1] == 7  # seen by the GPU


def test_vgem_fence_awaited_in_asyncio(fenced, gpu, ctx):
    """The implicit fence as a libaccel Fence, awaited by
    libaccel.wait_async while the GPU signals from the loop."""
    buf, fence, _ = fenced
    try:
        sf = buf.export_sync_file(write=True)
    except libaccel.Error as e:
        skip_unsupported(e, "Buffer.export_sync_file")
    try:
        f = ctx.import_sync_file(sf)
    finally:
        os.close(sf)  # borrowed by the import
    assert not f.done

    async def main():
        loop = asyncio.get_running_loop()
        loop.call_later(0.3, gpu.signal, fence)
        start = loop.time()
        assert await asyncio.wait_for(libaccel.wait_async(f), 30)
        return loop.time() - start

    assert asyncio.run(main()) >= 0.25
    assert f.done


def test_vgem_dmabuf_view_after_fence(fenced, gpu):
    """Host access (memoryview) after the fence sees the GPU's bytes."""
    buf, fence, gmap = fenced
    gmap[:4] = b"GPU!"
    gpu.signal(fence)
    with memoryview(buf) as m:
        assert bytes(m[:4]) == b"GPU!"
        m[4:8] = b"host"
    assert gmap[4:8] == b"host"
