#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""vgem-torch-asyncio: a GPU peer's dma-buf as a torch.Tensor, without a
copy, its pending write awaited in asyncio.

The "GPU" is vgem, the kernel's virtual GEM driver, driven here with
fcntl.ioctl (no libdrm, no extra package):

  1. the GPU allocates a buffer (a dumb buffer, rows of float32), attaches
     a write fence to it (a job still writing) and exports it as a
     dma-buf; its job then writes the data through the GPU's own mapping
     and signals the fence, from another asyncio task, after a delay;
  2. libaccel imports the dma-buf (Context.import_dmabuf) and takes the
     implicit fence of its pending write as a sync_file
     (Buffer.export_sync_file: DMA_BUF_IOCTL_EXPORT_SYNC_FILE), which the
     event loop awaits (loop.add_reader: the fd becomes readable when
     the fence signals);
  3. torch views the buffer through DLPack, after the fence: the DLPack
     export maps the buffer, with DMA_BUF_IOCTL_SYNC start (read|write),
     and the end comes when torch lets go of the tensor;
  4. a libaccel kernel changes the same memory in place; torch sees the
     result in the same tensor (same data_ptr), and so does the GPU
     through its own mapping once torch let go.

Exit status: 0 on success, 1 on a wrong result (the checks assert), 77
without vgem (run it in the kernel tier, tests/kernel/: Debian's kernel
under QEMU, or where `modprobe vgem` worked and /dev/dri/card* is
writable), without PyTorch or without an OpenCL C compiler.
"""

import array
import asyncio
import errno
import fcntl
import mmap
import os
import struct
import sys
import time

import libaccel


def _ioc(direction, kind, nr, size):
    """The kernel's _IOC() (include/uapi/asm-generic/ioctl.h)."""
    return direction << 30 | size << 16 | ord(kind) << 8 | nr


def _iow(kind, nr, size):
    return _ioc(1, kind, nr, size)


def _iowr(kind, nr, size):
    return _ioc(3, kind, nr, size)


# include/uapi/drm/drm.h, drm_mode.h (DRM_IOCTL_BASE 'd')
DRM_VERSION = "iii4xQQQQQQ"  # struct drm_version, 64 bytes
DRM_IOCTL_VERSION = _iowr("d", 0x00, struct.calcsize(DRM_VERSION))
DRM_IOCTL_GEM_CLOSE = _iow("d", 0x09, 8)  # struct drm_gem_close
DRM_PRIME = "IIi"  # struct drm_prime_handle: handle, flags, fd
DRM_IOCTL_PRIME_HANDLE_TO_FD = _iowr("d", 0x2D, struct.calcsize(DRM_PRIME))
DRM_CREATE_DUMB = "IIIIIIQ"  # height, width, bpp, flags, handle, pitch, size
DRM_IOCTL_MODE_CREATE_DUMB = _iowr("d", 0xB2, struct.calcsize(DRM_CREATE_DUMB))
DRM_MAP_DUMB = "IIQ"  # struct drm_mode_map_dumb: handle, pad, offset
DRM_IOCTL_MODE_MAP_DUMB = _iowr("d", 0xB3, struct.calcsize(DRM_MAP_DUMB))
DRM_CLOEXEC, DRM_RDWR = os.O_CLOEXEC, os.O_RDWR
# include/uapi/drm/vgem_drm.h (DRM_COMMAND_BASE 0x40; libaccel vendors it
# in libaccel/uapi/drm/)
VGEM_ATTACH = "IIII"  # struct drm_vgem_fence_attach: handle, flags, out_fence
DRM_IOCTL_VGEM_FENCE_ATTACH = _iowr("d", 0x41, struct.calcsize(VGEM_ATTACH))
DRM_IOCTL_VGEM_FENCE_SIGNAL = _iow("d", 0x42, 8)  # drm_vgem_fence_signal
VGEM_FENCE_WRITE = 0x1


class Vgem:
    """The vgem primary node (/dev/dri/cardN whose driver name is "vgem";
    its render node refuses dumb buffers). Only the ioctls used here."""

    def __init__(self, fd):
        self.fd = fd

    @classmethod
    def open(cls):
        """The vgem node, or None: not loaded, or not ours to open."""
        for i in range(16):
            try:
                fd = os.open(f"/dev/dri/card{i}", os.O_RDWR | os.O_CLOEXEC)
            except OSError:
                continue
            if cls._driver_name(fd) == "vgem":
                return cls(fd)
            os.close(fd)
        return None

    @staticmethod
    def _driver_name(fd):
        name = bytearray(64)
        # the kernel writes the name through a pointer: the address of a
        # buffer that cannot move while the ioctl runs
        addr = _address(name)
        req = bytearray(struct.pack(DRM_VERSION, 0, 0, 0, len(name), addr,
                                    0, 0, 0, 0))
        try:
            fcntl.ioctl(fd, DRM_IOCTL_VERSION, req)
        except OSError:
            return None
        n = min(struct.unpack(DRM_VERSION, req)[3], len(name))
        return bytes(name[:n]).decode(errors="replace")

    def close(self):
        os.close(self.fd)

    def create(self, width, height, bpp=32):
        """A dumb buffer: (handle, pitch, size)."""
        req = bytearray(struct.pack(DRM_CREATE_DUMB, height, width, bpp,
                                    0, 0, 0, 0))
        fcntl.ioctl(self.fd, DRM_IOCTL_MODE_CREATE_DUMB, req)
        _, _, _, _, handle, pitch, size = struct.unpack(DRM_CREATE_DUMB, req)
        return handle, pitch, size

    def map(self, handle, size):
        """The GPU's own mapping of the object (through the node, not
        the dma-buf)."""
        req = bytearray(struct.pack(DRM_MAP_DUMB, handle, 0, 0))
        fcntl.ioctl(self.fd, DRM_IOCTL_MODE_MAP_DUMB, req)
        offset = struct.unpack(DRM_MAP_DUMB, req)[2]
        return mmap.mmap(self.fd, size, mmap.MAP_SHARED,
                         mmap.PROT_READ | mmap.PROT_WRITE, offset=offset)

    def export(self, handle):
        """PRIME: a new dma-buf fd, ours to close."""
        req = bytearray(struct.pack(DRM_PRIME, handle,
                                    DRM_CLOEXEC | DRM_RDWR, -1))
        fcntl.ioctl(self.fd, DRM_IOCTL_PRIME_HANDLE_TO_FD, req)
        return struct.unpack(DRM_PRIME, req)[2]

    def attach_fence(self, handle, write=True):
        """A fence in the object's reservation (a job using it): its id.
        vgem signals it itself after 10 s if nobody does."""
        req = bytearray(struct.pack(VGEM_ATTACH, handle,
                                    VGEM_FENCE_WRITE if write else 0, 0, 0))
        fcntl.ioctl(self.fd, DRM_IOCTL_VGEM_FENCE_ATTACH, req)
        return struct.unpack(VGEM_ATTACH, req)[2]

    def signal(self, fence):
        fcntl.ioctl(self.fd, DRM_IOCTL_VGEM_FENCE_SIGNAL,
                    struct.pack("II", fence, 0))

    def close_handle(self, handle):
        fcntl.ioctl(self.fd, DRM_IOCTL_GEM_CLOSE, struct.pack("II", handle, 0))


def _address(obj):
    """The address of a writable bytes-like object's memory."""
    import ctypes

    return ctypes.addressof(ctypes.c_char.from_buffer(obj))


async def sync_file_signalled(fd):
    """Wait until a sync_file's fence signals, without blocking the loop:
    the fd polls readable then."""
    loop = asyncio.get_running_loop()
    ready = loop.create_future()
    loop.add_reader(fd, lambda: ready.done() or ready.set_result(None))
    try:
        await ready
    finally:
        loop.remove_reader(fd)


ROWS, COLS = 64, 256  # float32: 64 KiB, rows of one KiB
DELAY = 0.5  # how long the GPU job takes, in seconds

SOURCE = """
kernel void axpb(global float *x, float a, float b)
{
	size_t i = get_global_id(0);
	x[i] = a * x[i] + b;
}
"""


def value(y, x):
    return float(y * 1000 + x)


async def gpu_job(gpu, fence, pixels, log):
    """The GPU's job: writes the rows through its own mapping, a few at a
    time, then signals its write fence."""
    step = ROWS // 4
    for y0 in range(0, ROWS, step):
        for y in range(y0, y0 + step):
            pixels[y * COLS:(y + 1) * COLS] = array.array(
                "f", (value(y, x) for x in range(COLS)))
        await asyncio.sleep(DELAY / 4)
    log(f"GPU: rows written, signalling its write fence {fence}")
    gpu.signal(fence)


async def run(torch, gpu, program, queue):
    t0 = time.monotonic()

    def log(*what):
        print(f"[{time.monotonic() - t0:6.3f}s]", *what, flush=True)

    dev = queue.device
    ctx = dev.context
    handle, pitch, size = gpu.create(COLS, ROWS)
    assert pitch == COLS * 4 and size >= ROWS * COLS * 4, (pitch, size)
    gpu_map = gpu.map(handle, size)
    pixels = memoryview(gpu_map).cast("f")
    fence = gpu.attach_fence(handle, write=True)
    dmabuf = gpu.export(handle)
    log(f"GPU: {size} bytes (handle {handle}), write fence {fence} "
        f"pending, exported as dma-buf fd {dmabuf}")
    job = asyncio.create_task(gpu_job(gpu, fence, pixels, log))

    buf = ctx.import_dmabuf(dmabuf, dev)
    os.close(dmabuf)  # the import keeps its own duplicate
    # the fences a reader must wait for: the GPU's pending write
    sf = buf.export_sync_file(write=False)
    try:
        pending = libaccel.sync_file_info(sf)
        log(f"libaccel: imported {buf.size} bytes; implicit fence as "
            f"sync_file fd {sf}: {pending['n_fences']} fence(s), "
            f"status {pending['status']} (0: pending)")
        assert pending["status"] == 0, pending
        start = time.monotonic()
        await asyncio.wait_for(sync_file_signalled(sf), 30)
        waited = time.monotonic() - start
        info = libaccel.sync_file_info(sf)
    finally:
        os.close(sf)
    log(f"asyncio: sync_file readable after {waited:.3f}s, "
        f"status {info['status']}")
    assert job.done() and not job.cancelled() and job.exception() is None
    assert info["status"] == 1, info  # signalled without error
    assert waited >= DELAY * 0.9, waited

    # DLPack: the export maps the buffer (DMA_BUF_IOCTL_SYNC start,
    # read|write) and unmaps it (sync end) when torch frees the tensor
    t = torch.utils.dlpack.from_dlpack(
        buf.as_tensor(torch.float32, (ROWS, COLS)))
    ptr = t.data_ptr()
    expect = (torch.arange(ROWS, dtype=torch.float32)[:, None] * 1000 +
              torch.arange(COLS, dtype=torch.float32))
    log(f"torch: {tuple(t.shape)} {t.dtype} at {ptr:#x}, t[63, 255] = "
        f"{t[63, 255].item()}")
    assert torch.equal(t, expect), "torch does not see the GPU's rows"

    k = program.kernel("axpb")
    k.set_args(buf, 2.0, 1.0)
    done = queue.launch(k, ROWS * COLS)
    assert await libaccel.wait_async(done)
    k.set_arg(0, None)
    log(f"libaccel: kernel x = 2x + 1 in place; torch: t[63, 255] = "
        f"{t[63, 255].item()} at {t.data_ptr():#x}")
    assert t.data_ptr() == ptr, "torch's tensor moved"
    assert torch.equal(t, expect * 2 + 1), "torch does not see the kernel"
    del t  # torch lets go: DMA_BUF_IOCTL_SYNC end

    # the GPU reads the same memory through its own mapping
    got = [pixels[y * COLS + x] for y, x in ((0, 0), (17, 3), (63, 255))]
    log(f"GPU: reads {got} through its own mapping")
    assert got == [value(y, x) * 2 + 1
                   for y, x in ((0, 0), (17, 3), (63, 255))], got
    pixels.release()
    gpu_map.close()
    gpu.close_handle(handle)  # the dma-buf (libaccel's) keeps the object
    return 0


def main():
    try:
        import torch
        import torch.utils.dlpack  # noqa: F401
    except ImportError as e:
        print("vgem-torch-asyncio: skipped, no PyTorch:", e)
        return 77
    gpu = Vgem.open()
    if gpu is None:
        print("vgem-torch-asyncio: skipped, no vgem node in /dev/dri "
              "(needs the kernel tier, or modprobe vgem)")
        return 77
    try:
        ctx = libaccel.Context()
        dev = ctx.cpu_device
        if not dev.caps & libaccel.DEVICE_CAP_COMPILER:
            print("vgem-torch-asyncio: skipped, no OpenCL C compiler:",
                  dev.compiler)
            return 77
        program = libaccel.Program(dev, SOURCE)
        queue = libaccel.Queue(dev)
        try:
            return asyncio.run(run(torch, gpu, program, queue))
        except libaccel.Error as e:
            if e.errno in (errno.EOPNOTSUPP, errno.ENOTSUP):
                print("vgem-torch-asyncio: skipped:", e.strerror)
                return 77
            raise
    finally:
        gpu.close()


if __name__ == "__main__":
    sys.exit(main())
