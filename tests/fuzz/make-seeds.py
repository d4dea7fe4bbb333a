#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write the hand-made seed inputs of the API fuzzers.

Each seed is a short valid program in the byte code of fuzz-cl or
fuzz-accel (fuzz-cl*.c, fuzz-accel*.c; the operand order below mirrors
theirs): objects created, kernels launched, data moved, so that fuzzing
starts from inputs that get past argument checking. The rest of tests/fuzz/corpus/ is what libFuzzer
found from these (-merge=1).

usage: make-seeds.py OUT_DIR   (writes OUT_DIR/cl/seed-* and accel/seed-*)
"""
import os
import struct
import sys


def size(v):
    """fz_size(): small values in one byte, others as raw 64 bits."""
    if v < 64:
        return bytes([v])
    return bytes([0xE0]) + struct.pack('<Q', v)


def u32(v):
    return struct.pack('<I', v)


# ---- fuzz-cl.c -------------------------------------------------------------

NO_WAIT = 8         # fcl_pick_wait(): no events, NULL list
NO_EVENT = b'\x08'  # fcl_pick_event_out(): no event returned


def to_slot(slot):
    """fcl_pick_event_out() then store_event(): the event goes to a slot."""
    return bytes([0, slot])


def cl_queue(i=0, ctx=0, sel=0):
    return bytes([0, i, ctx, sel])


def cl_buffer(i, nbytes, ctx=0, flags=0, sel=0):
    return bytes([1, i, ctx]) + struct.pack('<H', flags) + size(nbytes) + \
        bytes([sel])


def cl_sub(parent, i, origin, nbytes):
    return bytes([2, parent, i, 0, 0, 0]) + size(origin) + size(nbytes)


def cl_rw(write, q, m, off, n, blocking=1, out=NO_EVENT):
    return bytes([4 if write else 3, q, m, blocking]) + size(off) + \
        size(n) + bytes([0, NO_WAIT]) + out


def cl_rect(kind, q, m, m2, bo, ho, reg, pitches=(0, 0, 0, 0)):
    b = bytes([5, kind, q, m, m2, 1])
    for p in pitches:
        b += size(p)
    for v in bo + ho + reg:
        b += size(v)
    return b + bytes([NO_WAIT]) + NO_EVENT


def cl_copy(q, a, b, ao, bo, n):
    return bytes([6, q, a, b]) + size(ao) + size(bo) + size(n) + \
        bytes([NO_WAIT]) + NO_EVENT


def cl_fill(q, m, off, n, pattern_log2):
    return bytes([7, q, m]) + size(off) + size(n) + \
        bytes([pattern_log2, NO_WAIT]) + NO_EVENT


def cl_map(q, m, slot, off, n, write=True):
    flags = 3 if write else 1   # CL_MAP_READ | CL_MAP_WRITE
    return bytes([8, q, m, slot, 1 | flags << 4]) + size(off) + size(n) + \
        bytes([NO_WAIT]) + NO_EVENT


def cl_unmap(q, slot):
    return bytes([9, q, slot, 0, NO_WAIT]) + NO_EVENT


def cl_program_built(slot=0):
    return bytes([10, slot, 3])


def cl_program_binary(slot=0):
    return bytes([10, slot, 0]) + u32(0)


def cl_build(slot=0):
    return bytes([11, slot, 0]) + bytes(15)     # no options


KERNELS = {'k_fill': 0, 'k_mix': 1, 'k_reqd': 2, 'k_empty': 3}


def cl_kernel(prog, slot, name):
    return bytes([12, prog, slot, KERNELS[name] << 2])


def cl_arg_buffer(k, idx, m):
    return bytes([13, k, idx, m])


def cl_arg_local(k, idx, n):
    return bytes([13, k, 0x10 | idx]) + size(n)


def cl_arg_value(k, idx, value):
    return bytes([13, k, 0x20 | idx, len(value)]) + value


def cl_ndrange(q, k, gs, ls=None, off=None, out=NO_EVENT):
    sel = len(gs) - 1
    if off is None:
        sel |= 0x10
    if ls is None:
        sel |= 0x04
    b = bytes([14, q, k, sel])
    for v in (off or [0, 0, 0]) + [0] * (3 - len(off or [0, 0, 0])):
        b += size(v)
    for v in gs + [1] * (3 - len(gs)):
        b += size(v)
    for v in (ls or [0, 0, 0]) + [1] * (3 - len(ls or [0, 0, 0])):
        b += size(v)
    return b + bytes([NO_WAIT]) + out


def cl_user_event(slot, ctx=0):
    return bytes([17, slot, ctx << 2])


def cl_set_status(slot):
    return bytes([17, slot, 1 | 4])


def cl_marker_waiting(q, ev, out=NO_EVENT):
    # clEnqueueMarkerWithWaitList on one event slot
    return bytes([15, q, 0, 1, ev]) + out


def cl_finish(q=0):
    return bytes([16, q, 1])


def cl_wait(ev):
    return bytes([16, 0, 2, 1, ev])


def cl_seeds():
    setup = cl_queue() + cl_buffer(0, 256) + cl_buffer(1, 256) + \
        cl_program_built()
    yield 'launch-fill', setup + cl_kernel(0, 0, 'k_fill') + \
        cl_arg_buffer(0, 0, 0) + cl_arg_value(0, 1, u32(7)) + \
        cl_ndrange(0, 0, [16]) + cl_rw(False, 0, 0, 0, 64) + cl_finish()
    yield 'launch-mix', setup + cl_kernel(0, 1, 'k_mix') + \
        cl_arg_buffer(1, 0, 0) + cl_arg_local(1, 1, 64) + \
        cl_arg_value(1, 2, bytes(8)) + cl_arg_value(1, 3, bytes(16)) + \
        cl_arg_buffer(1, 4, 1) + cl_ndrange(0, 1, [8, 2, 2], [4, 1, 1]) + \
        cl_finish()
    yield 'launch-reqd', setup + cl_kernel(0, 2, 'k_reqd') + \
        cl_arg_buffer(2, 0, 1) + cl_ndrange(0, 2, [8], [4], [3]) + \
        cl_finish()
    yield 'binary', cl_queue() + cl_program_binary(1) + cl_build(1) + \
        cl_kernel(1, 0, 'k_empty') + cl_ndrange(0, 0, [4, 4]) + cl_finish()
    yield 'transfers', setup + cl_rw(True, 0, 0, 8, 100) + \
        cl_copy(0, 0, 1, 0, 64, 128) + cl_fill(0, 1, 16, 64, 2) + \
        cl_rect(1, 0, 0, 0, [1, 1, 0], [0, 0, 0], [8, 4, 2]) + \
        cl_rect(0, 0, 1, 1, [0, 2, 1], [4, 0, 0], [4, 2, 2]) + \
        cl_rect(2, 0, 0, 1, [0, 0, 0], [8, 1, 0], [8, 2, 1]) + \
        cl_sub(0, 2, 128, 64) + cl_rw(False, 0, 2, 0, 64) + cl_finish()
    yield 'maps', setup + cl_map(0, 0, 0, 16, 64) + cl_unmap(0, 0) + \
        cl_map(0, 1, 1, 0, 256, False) + cl_finish()
    yield 'events', setup + cl_user_event(0) + \
        cl_marker_waiting(0, 0, to_slot(1)) + \
        cl_rw(True, 0, 0, 0, 32, 0, to_slot(2)) + \
        cl_set_status(0) + cl_wait(2) + cl_finish()


# ---- fuzz-accel.c -------------------------------------------------------------

def ac_queue(i=0):
    return bytes([0, i, 0])


def ac_buffer(i, n):
    return bytes([1, i, 0, 0]) + size(n) + size(0) + bytes([0])


def ac_sub(i, parent, off, n):
    return bytes([1, i, 2, 0]) + size(n) + size(off) + bytes([parent])


def ac_program_built(slot=0):
    return bytes([6, slot, 3])


AC_KERNELS = {'k_fill': 0, 'k_local': 1}


def ac_kernel(slot, prog, name):
    return bytes([7, slot, prog, AC_KERNELS[name] << 3])


def ac_arg_buffer(k, idx, b):
    return bytes([7, k, 0, 2 | idx << 4, b])


def ac_arg_value(k, idx, value):
    return bytes([7, k, 0, 3 | idx << 4, len(value)]) + value


def ac_arg_local(k, idx, n):
    return bytes([7, k, 0, 4 | idx << 4]) + size(n)


def ac_launch(q, k, gs, ls=None):
    sel = len(gs) - 1
    if ls is None:
        sel |= 8
    b = bytes([4, q, k, sel])
    for i in range(3):
        b += size(0)
        b += size(gs[i] if i < len(gs) else 1)
        if ls is not None:
            b += size(ls[i] if i < len(ls) else 1)
    return b + bytes([0, N_FENCE_NONE])


N_FENCE_NONE = 6


def ac_transfer(kind, q, a, b, ao, bo, n):
    return bytes([3, q, kind, a, b]) + size(ao) + size(bo) + size(n) + \
        bytes([0, 0, N_FENCE_NONE, 2])


def ac_map(b, slot, off, n):
    return bytes([2, b, slot, 3]) + size(off) + size(n) + bytes([0])


def ac_unmap(slot):
    return bytes([2, 0, slot, 0, 0, 0, 1])


def ac_finish(q=0):
    return bytes([5, q, 0, 1])


def ac_user_fence(slot):
    return bytes([5, 0, slot, 2])


def ac_signal(slot):
    return bytes([5, 0, slot, 3 | 8])


def accel_seeds():
    setup = ac_queue() + ac_buffer(0, 256) + ac_buffer(1, 256) + \
        ac_program_built()
    yield 'launch-fill', setup + ac_kernel(0, 0, 'k_fill') + \
        ac_arg_buffer(0, 0, 0) + ac_arg_value(0, 1, u32(3)) + \
        ac_launch(0, 0, [16]) + ac_transfer(0, 0, 0, 0, 0, 0, 64) + \
        ac_finish()
    yield 'launch-local', setup + ac_kernel(1, 0, 'k_local') + \
        ac_arg_buffer(1, 0, 1) + ac_arg_local(1, 1, 64) + \
        ac_launch(0, 1, [8, 2], [4, 2]) + ac_finish()
    yield 'transfers', setup + ac_transfer(1, 0, 0, 1, 8, 0, 100) + \
        ac_transfer(2, 0, 0, 1, 0, 64, 128) + \
        ac_transfer(3, 0, 1, 0, 16, 0, 64) + ac_sub(2, 0, 64, 64) + \
        ac_map(2, 0, 0, 64) + ac_unmap(0) + ac_finish()
    yield 'fences', setup + ac_user_fence(0) + ac_transfer(4, 0, 0, 0, 0,
                                                            0, 0) + \
        ac_signal(0) + ac_finish()


def main():
    out = sys.argv[1]
    for sub, seeds in (('cl', cl_seeds()), ('accel', accel_seeds())):
        os.makedirs(os.path.join(out, sub), exist_ok=True)
        for name, data in seeds:
            with open(os.path.join(out, sub, 'seed-' + name), 'wb') as f:
                f.write(data)


if __name__ == '__main__':
    main()
