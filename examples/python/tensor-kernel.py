#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tensor-kernel: a tensor computed by an OpenCL C kernel through libaccel,
then used by NumPy and PyTorch in place, without a copy.

  1. a buffer on the CPU device and a kernel that fills it;
  2. the same memory as a NumPy array and as a torch tensor (DLPack);
  3. a torch tensor's own memory handed to a second kernel
     (libaccel.from_dlpack) and changed in place.

Exit status: 0 on success, 1 on a wrong result, 77 without an OpenCL C
compiler. PyTorch is optional: without it step 2 uses NumPy only and
step 3 a NumPy array.
"""

import sys

import numpy as np

import libaccel

SOURCE = """
kernel void grid(global float *out, uint width)
{
	size_t x = get_global_id(0), y = get_global_id(1);
	out[y * width + x] = (float)(y * 100 + x);
}
kernel void scale(global float *x, float a)
{
	x[get_global_id(0)] *= a;
}
"""


def main():
    ctx = libaccel.Context()
    dev = ctx.cpu_device
    if not dev.caps & libaccel.DEVICE_CAP_COMPILER:
        print("tensor-kernel: no OpenCL C compiler:", dev.compiler)
        return 77
    try:
        import torch
        from torch.utils import dlpack as torch_dlpack
    except ImportError:
        torch = None

    queue = libaccel.Queue(dev)
    try:
        program = libaccel.Program(dev, SOURCE)
    except libaccel.Error as e:
        print("tensor-kernel: build failed:", e, e.build_log, sep="\n")
        return 1

    # 1. a 4 x 8 float tensor computed by a kernel
    rows, cols = 4, 8
    buf = libaccel.Buffer(dev, rows * cols * 4)
    grid = program.kernel("grid")
    grid.set_args(buf, cols)
    queue.launch(grid, (cols, rows)).wait()

    # 2. the same memory, seen by NumPy and torch
    tensor = buf.as_tensor("float32", (rows, cols))
    array = np.from_dlpack(tensor)
    print("NumPy sees:\n", array)
    if array[3, 7] != 307:
        return 1
    if torch is not None:
        t = torch_dlpack.from_dlpack(tensor)
        if t.data_ptr() != array.__array_interface__["data"][0]:
            return 1
        t += 1  # written by torch, read by NumPy: the same bytes
        print("after torch added 1, NumPy sees row 0:", array[0])
        if array[0, 0] != 1:
            return 1

    # 3. a producer's memory as a buffer, changed in place by a kernel
    data = (torch.arange(16, dtype=torch.float32) if torch is not None
            else np.arange(16, dtype=np.float32))
    scale = program.kernel("scale")
    scale.set_args(libaccel.from_dlpack(data, device=dev), 0.5)
    queue.launch(scale, 16).wait()
    print("scaled in place:", data)
    return 0 if float(data[15]) == 7.5 else 1


if __name__ == "__main__":
    sys.exit(main())
