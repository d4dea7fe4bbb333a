# SPDX-License-Identifier: MIT
"""Fixtures of the libaccel Python tests (run by ctest, label `python`)."""

import errno
import os
import time

import pytest

import libaccel


@pytest.fixture(scope="session")
def ctx():
    return libaccel.Context()


@pytest.fixture(scope="session")
def dev(ctx):
    return ctx.cpu_device


@pytest.fixture()
def queue(dev):
    return libaccel.Queue(dev)


@pytest.fixture(scope="session")
def compiler(dev):
    """The device, if it compiles OpenCL C; else the test is skipped."""
    if not dev.caps & libaccel.DEVICE_CAP_COMPILER:
        pytest.skip("no OpenCL C compiler: " + dev.compiler)
    return dev


def settle(pred, timeout=10.0):
    """Wait for pred() to hold: objects kept by a submission are released
    by its fence's callback, which needs the GIL, shortly after the fence
    signals."""
    end = time.monotonic() + timeout
    while not pred() and time.monotonic() < end:
        time.sleep(0.005)
    return pred()


def open_fds():
    return len(os.listdir("/proc/self/fd"))


def skip_unsupported(exc, what):
    """Skip on EOPNOTSUPP (no udmabuf, no kernel fences: not the kernel
    tier), re-raise anything else."""
    if exc.errno in (errno.EOPNOTSUPP, errno.ENOTSUP):
        pytest.skip(f"{what}: {exc.strerror} (needs the kernel tier)")
    raise exc
