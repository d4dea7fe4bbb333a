# SPDX-License-Identifier: MIT
"""Threads, callbacks on libaccel's threads, and interpreter exit with
work still pending."""

import os
import subprocess
import sys
import threading

import numpy as np

import libaccel
from conftest import settle


def test_submissions_from_threads(dev):
    q = libaccel.Queue(dev)
    bufs = [libaccel.Buffer(dev, 4096) for _ in range(4)]
    seen = []
    lock = threading.Lock()

    def work(i):
        for n in range(200):
            f = q.fill(bufs[i], bytes([i + 1]))
            f.add_done_callback(lambda f, s: (lock.acquire(),
                                              seen.append(s),
                                              lock.release()))
            if n % 50 == 0:
                f.wait()

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    q.finish()
    assert settle(lambda: len(seen) == 800)
    assert set(seen) == {0}
    for i, b in enumerate(bufs):
        assert (np.asarray(b) == i + 1).all()


def test_queue_and_context_freed_with_work_pending():
    ctx = libaccel.Context()
    dev = ctx.cpu_device
    q = libaccel.Queue(dev)
    uf = ctx.user_fence()
    host = bytearray(64)
    before = sys.getrefcount(host)
    f = q.read(libaccel.Buffer(dev, 64), host, wait=[uf])
    del q, ctx, dev
    uf.signal()
    assert f.wait(10)
    assert settle(lambda: sys.getrefcount(host) == before)


EXIT_SCRIPT = r"""
import threading, libaccel
ctx = libaccel.Context()
dev = ctx.cpu_device
q = libaccel.Queue(dev)
never = ctx.user_fence()
late = ctx.user_fence()
keep = bytearray(1 << 16)
q.read(libaccel.Buffer(dev, 1 << 16), keep, wait=[never])
late.add_done_callback(lambda f, s: print("callback", s, flush=True))
q.fill(libaccel.Buffer(dev, 64), b"x", wait=[late]).add_done_callback(
    lambda f, s: None)
# signalled while the interpreter exits
t = threading.Timer(0.001, late.signal)
t.daemon = True
t.start()
print("exiting", flush=True)
"""


def test_interpreter_exit_with_pending_work():
    env = dict(os.environ)
    r = subprocess.run([sys.executable, "-c", EXIT_SCRIPT], env=env,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert "exiting" in r.stdout
    assert "Fatal" not in r.stderr and "Error" not in r.stderr
