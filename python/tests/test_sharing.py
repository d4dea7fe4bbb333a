# SPDX-License-Identifier: MIT
"""dma-buf and sync_file, with the C API's ownership rules: imports borrow
(duplicate) the fd, exports return a new fd the caller owns. Outside the
kernel tier (no udmabuf, no kernel fences) the cases that need them skip."""

import errno
import os
import time

import numpy as np
import pytest

import libaccel
from conftest import skip_unsupported


def export_or_skip(buf):
    try:
        return buf.export_dmabuf()
    except libaccel.Error as e:
        skip_unsupported(e, "Buffer.export_dmabuf")


def test_dmabuf_round_trip(ctx, dev, queue):
    b = libaccel.Buffer(dev, 4096)
    np.asarray(b)[:4] = [1, 2, 3, 4]
    fd = export_or_skip(b)
    try:
        imp = ctx.import_dmabuf(fd)
        assert imp.size == 4096
    finally:
        os.close(fd)  # borrowed by the import: ours to close
    with memoryview(imp) as m:
        assert bytes(m[:4]) == b"\x01\x02\x03\x04"
    queue.fill(imp, b"\x09").wait()
    assert np.asarray(b)[0] == 9


def test_dmabuf_export_of_user_memory(dev):
    host = bytearray(4096)
    b = libaccel.Buffer.wrap(dev, host)
    with pytest.raises(libaccel.Error) as e:
        b.export_dmabuf()
    assert e.value.errno == errno.EOPNOTSUPP


def test_sync_file_round_trip(ctx, dev, queue):
    b = libaccel.Buffer(dev, 64)
    f = queue.fill(b, b"\x01")
    f.wait()
    try:
        sf = f.export_sync_file()
    except libaccel.Error as e:
        skip_unsupported(e, "Fence.export_sync_file")
    try:
        assert libaccel.sync_file_wait(sf, 5) is True
        info = libaccel.sync_file_info(sf)
        assert info["status"] == 1 and info["n_fences"] >= 1
        imp = ctx.import_sync_file(sf)
        merged = libaccel.sync_file_merge(sf, sf, "both")
        os.close(merged)
        try:
            libaccel.sync_file_set_deadline(sf, time.monotonic_ns())
        except libaccel.Error as e:
            assert e.errno == errno.EOPNOTSUPP  # before Linux 6.5
    finally:
        os.close(sf)
    assert imp.wait(5) is True


def open_files():
    """The open fds, each with what it is: (device, inode, link target).

    By identity, not by number: the listing's own directory fd takes the
    lowest free number, so after a new fd lands on the number the first
    listing's directory fd had, number sets alone differ only by a number
    nobody holds. The listing's fd is closed by the time it is looked at,
    so it drops out here.
    """
    found = {}
    for fd in os.listdir("/proc/self/fd"):
        try:
            st = os.stat(int(fd))
            found[fd] = (st.st_dev, st.st_ino,
                         os.readlink("/proc/self/fd/" + fd))
        except OSError:
            pass  # the listing's own fd, or one closed since
    return found


def new_files(before):
    """The open fds that are not open files of @before, with their targets."""
    now = open_files()
    return {fd: what[2] for fd, what in now.items() if before.get(fd) != what}


def fds_settle_within(before, seconds=5.0):
    """Whether the open files come back to a subset of @before in time.

    libaccel's threads hold fds for a moment (a queue's thread drops a
    finished command's buffers just after its fence signals): such an fd
    comes and goes, a leak stays.
    """
    deadline = time.monotonic() + seconds
    while new_files(before):
        if time.monotonic() > deadline:
            print("fds not open in the first listing:", new_files(before))
            return False
        time.sleep(0.01)
    return True


def test_sync_file_export_fd_count(ctx):
    uf = ctx.user_fence()
    uf.signal()
    before = open_files()
    try:
        # warm-up: what the first export makes for good (a buffer of the
        # exporter's pool) is not a leak
        os.close(uf.export_sync_file())
    except libaccel.Error as e:
        # no fd leaked on the failure path
        assert fds_settle_within(before)
        skip_unsupported(e, "Fence.export_sync_file")
    before = open_files()
    for _ in range(16):
        fd = uf.export_sync_file()
        os.close(fd)
    # a leak grows with the exports; a thread's passing fd goes
    assert fds_settle_within(before)


def test_sync_file_helpers_refuse_other_fds():
    r, w = os.pipe()
    try:
        for call in (lambda: libaccel.sync_file_wait(r, 0),
                     lambda: libaccel.sync_file_info(r),
                     lambda: libaccel.sync_file_merge(r, r),
                     lambda: libaccel.sync_file_set_deadline(r, 0)):
            with pytest.raises(libaccel.Error) as e:
                call()
            assert e.value.errno == errno.EINVAL
    finally:
        os.close(r)
        os.close(w)
    with pytest.raises(OverflowError):
        libaccel.sync_file_set_deadline(0, -1)


def test_buffer_sync_file_errors(dev):
    b = libaccel.Buffer(dev, 64)  # not a dma-buf
    for write in (False, True):
        with pytest.raises(libaccel.Error) as e:
            b.export_sync_file(write=write)
        assert e.value.errno == errno.EOPNOTSUPP
    with open("/dev/null") as f:  # not a sync_file
        with pytest.raises(libaccel.Error) as e:
            b.import_sync_file(f)
        assert e.value.errno == errno.EINVAL


def test_buffer_sync_file_implicit_fences(ctx, dev, queue):
    """A user fence imported as the dma-buf's writer: exports show it,
    and a command on the buffer waits for it (implicit sync)."""
    b = libaccel.Buffer(dev, 4096)
    os.close(export_or_skip(b))  # the buffer is a dma-buf from now on
    try:
        sf = b.export_sync_file()
    except libaccel.Error as e:
        skip_unsupported(e, "Buffer.export_sync_file")
    assert libaccel.sync_file_wait(sf, 0) is True  # no fences yet
    os.close(sf)

    uf = ctx.user_fence()
    try:
        usf = uf.export_sync_file()
    except libaccel.Error as e:
        skip_unsupported(e, "Fence.export_sync_file")
    try:
        b.import_sync_file(usf)  # borrowed: still ours
        assert os.fstat(usf) is not None
    finally:
        os.close(usf)
    for write in (False, True):
        sf = b.export_sync_file(write=write)
        try:
            assert libaccel.sync_file_wait(sf, 0) is False
        finally:
            os.close(sf)
    f = queue.fill(b, b"\x05")
    assert f.wait(0.2) is False  # waits for the imported fence
    uf.signal()
    assert f.wait(5) is True
    assert np.asarray(b)[0] == 5
    sf = b.export_sync_file(write=True)
    try:
        assert libaccel.sync_file_wait(sf, 5) is True
    finally:
        os.close(sf)
