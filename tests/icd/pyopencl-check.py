#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""A real OpenCL client against the libaccel ICD: pyopencl (Debian's
python3-pyopencl) doing array arithmetic, reductions and a hand-written
kernel, on buffers and on fine-grain SVM, and a kernel sampling an image
with linear filtering, through the ICD loader. Exits 77 when pyopencl is missing.

pyopencl keeps built programs as binaries in its cache; the script points
the cache at a fresh directory and builds twice, so the second build goes
through CL_PROGRAM_BINARIES and clCreateProgramWithBinary.
"""
import os
import sys
import tempfile

cache = tempfile.TemporaryDirectory(prefix="accel-pyopencl-")
os.environ["XDG_CACHE_HOME"] = cache.name
os.environ.pop("PYOPENCL_NO_CACHE", None)

try:
    import numpy as np
    import pyopencl as cl
    import pyopencl.array as cla
    import pyopencl.reduction
except ImportError as e:
    print(f"pyopencl not available ({e}): skipped")
    sys.exit(77)

platforms = [p for p in cl.get_platforms() if p.name == "libaccel"]
if not platforms:
    sys.exit("no libaccel platform (is OCL_ICD_VENDORS set?)")
devices = platforms[0].get_devices()
print("device:", devices[0].name, "|", devices[0].version)

SRC = """
kernel void saxpy(float a, global const float *x, global float *y)
{
    size_t i = get_global_id(0);
    y[i] = a * x[i] + y[i];
}
"""

# half-way between texels: linear filtering averages neighbours
IMAGE_SRC = """
kernel void half_step(read_only image2d_t in, sampler_t s,
                      write_only image2d_t out)
{
    int2 p = (int2)(get_global_id(0), get_global_id(1));
    float2 c = (float2)(p.x + 1.0f, p.y + 0.5f);
    write_imagef(out, p, read_imagef(in, s, c));
}
"""


def run_images(ctx, q):
    w, h = 16, 8
    src = np.zeros((h, w), dtype=np.float32)
    src[:, ::2] = 1.0
    fmt = cl.ImageFormat(cl.channel_order.R, cl.channel_type.FLOAT)
    mf = cl.mem_flags
    a = cl.Image(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, fmt, (w, h),
                 hostbuf=src)
    b = cl.Image(ctx, mf.WRITE_ONLY, fmt, (w, h))
    s = cl.Sampler(ctx, False, cl.addressing_mode.CLAMP_TO_EDGE,
                   cl.filter_mode.LINEAR)
    prg = cl.Program(ctx, IMAGE_SRC).build()
    prg.half_step(q, (w, h), None, a, s, b)
    out = np.empty_like(src)
    cl.enqueue_copy(q, out, b, origin=(0, 0), region=(w, h))
    # x + 1 lies between texels x and x + 1 (the last: clamped to edge)
    want = np.full((h, w), 0.5, dtype=np.float32)
    want[:, -1] = src[:, -1]
    assert np.allclose(out, want), out


def run(ctx):
    q = cl.CommandQueue(ctx)
    n = 100003
    x = np.arange(n, dtype=np.float32)
    y = np.full(n, 2.0, dtype=np.float32)

    # array arithmetic (pyopencl's generated elementwise kernels)
    dx = cla.to_device(q, x)
    dy = cla.to_device(q, y)
    got = (dx * 3 + dy - 1).get()
    assert np.array_equal(got, x * 3 + y - 1), got[:8]

    # reductions (local memory and barriers), exact in integers
    di = cla.to_device(q, np.arange(n, dtype=np.int64))
    assert cla.sum(di).get() == n * (n - 1) // 2
    assert cla.max(di).get() == n - 1
    assert cla.min(di + 5).get() == 5
    dot = cla.dot(di, di).get()
    assert dot == sum(i * i for i in range(n)), dot
    rk = pyopencl.reduction.ReductionKernel(
        ctx, np.int64, neutral="0", reduce_expr="a+b",
        map_expr="x[i] % 7", arguments="__global const long *x")
    assert rk(di).get() == sum(i % 7 for i in range(n))

    # a hand-written kernel
    prg = cl.Program(ctx, SRC).build()
    prg.saxpy(q, (n,), None, np.float32(0.5), dx.data, dy.data)
    assert np.allclose(dy.get(), 0.5 * x + y)

    # shared virtual memory: the same kernel on SVM arrays, read in place
    if devices[0].svm_capabilities & cl.device_svm_capabilities.FINE_GRAIN_BUFFER:
        sx = cl.fsvm_empty(ctx, n, np.float32, alignment=64)
        sy = cl.fsvm_empty(ctx, n, np.float32, alignment=64)
        sx[:] = x
        sy[:] = y
        prg.saxpy(q, (n,), None, np.float32(2.0), cl.SVM(sx), cl.SVM(sy))
        q.finish()
        assert np.allclose(sy, 2.0 * x + y)
    q.finish()

    if devices[0].image_support:
        run_images(ctx, q)


# twice: the second time pyopencl builds from its cached binaries
for _ in range(2):
    run(cl.Context(devices))
print("OK: pyopencl array arithmetic, reductions and kernels, SVM, images")
