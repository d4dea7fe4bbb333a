# SPDX-License-Identifier: MIT
"""No fd or reference leaks over many import/export cycles."""

import gc
import os
import sys

import numpy as np

import libaccel
from conftest import open_fds, settle

CYCLES = 10000


def test_fd_leak_import_export_cycles(ctx, dev, queue):
    # warm-up: lazily made fds (the compiler, worker eventfds) come first
    libaccel.from_dlpack(np.zeros(4, np.uint8), device=dev)
    np.from_dlpack(libaccel.Buffer(dev, 64))
    ctx.user_fence().fileno()
    queue.marker().wait()
    gc.collect()
    settle(lambda: False, 0.1)
    before = open_fds()
    host = np.zeros(64, np.uint8)
    host_refs = sys.getrefcount(host)
    dmabuf = None
    for i in range(CYCLES):
        b = libaccel.Buffer(dev, 64)            # one memfd each
        a = np.from_dlpack(b)                   # export
        imp = libaccel.from_dlpack(host, device=dev)  # import
        f = queue.copy(b, imp)
        f.fileno()                              # an eventfd per Fence
        f.wait()
        if dmabuf is not False:
            try:
                fd = b.export_dmabuf()
            except libaccel.Error:
                dmabuf = False                  # no udmabuf here
            else:
                ctx.import_dmabuf(fd)
                os.close(fd)
        del a, b, imp, f
    queue.finish()
    gc.collect()
    assert settle(lambda: open_fds() <= before), \
        f"{open_fds() - before} fds leaked over {CYCLES} cycles"
    assert settle(lambda: sys.getrefcount(host) == host_refs)
