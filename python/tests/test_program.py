# SPDX-License-Identifier: MIT
"""Program and Kernel: OpenCL C, binaries, built-in kernels, arguments."""

import errno
import struct
import sys

import numpy as np
import pytest

import libaccel

SOURCE = """
kernel void scale(global float *x, float a, uint n)
{
	size_t i = get_global_id(0);
	if (i < n)
		x[i] *= a;
}
kernel void kinds(global int *out, char c, ushort us, long l, double d,
		  float4 v, local int *scratch)
{
	scratch[0] = 1;
	out[0] = c;
	out[1] = us;
	out[2] = (int)l;
	out[3] = (int)d;
	out[4] = (int)(v.x + v.y + v.z + v.w);
	out[5] = scratch[0];
}
"""


@pytest.fixture(scope="module")
def program(compiler):
    return libaccel.Program(compiler, SOURCE, "-cl-std=CL3.0")


def test_program_source(program, dev):
    assert sorted(program.kernel_names) == ["kinds", "scale"]
    assert isinstance(program.build_log, str)
    assert program.device == dev
    assert isinstance(program.binary, bytes) and program.binary


def test_program_binary_round_trip(program, dev, queue):
    again = libaccel.Program.from_binary(dev, program.binary)
    k = again.kernel("scale")
    x = np.arange(8, dtype=np.float32)
    k.set_args(x, 2.0, 8)
    queue.launch(k, 8).wait()
    assert (x == np.arange(8) * 2).all()
    with pytest.raises(libaccel.Error) as e:
        libaccel.Program.from_binary(dev, b"not a binary")
    assert e.value.errno == errno.EINVAL


def test_build_error_carries_log(compiler):
    with pytest.raises(libaccel.Error) as e:
        libaccel.Program(compiler, "kernel void broken(global int *x) { x[0] = ; }")
    assert e.value.errno == errno.ENOEXEC
    assert "error" in e.value.build_log
    with pytest.raises(ValueError):
        libaccel.Program(compiler, "")
    with pytest.raises(libaccel.Error) as e:
        libaccel.Program(compiler, SOURCE, "-no-such-option")
    assert e.value.errno == errno.EINVAL


def test_kernel_scale_buffer(program, dev, queue):
    k = program.kernel("scale")
    assert k.name == "scale" and k.num_args == 3 and k.program is program
    info = k.arg_info
    assert [a["kind"] for a in info] == ["buffer", "value", "value"]
    b = libaccel.Buffer(dev, 64 * 4)
    a = np.asarray(b).view(np.float32)
    a[:] = np.arange(64)
    del a
    k.set_arg(0, b)
    k.set_arg(1, 0.5)
    k.set_arg(2, 64)
    f = queue.launch(k, (64,), local_size=(16,))
    assert f.wait(30)
    out = np.frombuffer(memoryview(b), dtype=np.float32).copy()
    assert (out == np.arange(64) * 0.5).all()


def test_kernel_argument_types(program, dev, queue):
    k = program.kernel("kinds")
    out = np.zeros(8, dtype=np.int32)
    v = np.array([1, 2, 3, 4], dtype=np.float32)
    k.set_args(out, -5, 65535, 1 << 33 | 7, 3.75, v, 16)
    queue.launch(k, 1).wait()
    assert list(out[:6]) == [-5, 65535, 7, 3, 10, 1]
    # bytes of the exact size for any by-value argument
    k.set_arg(5, struct.pack("4f", 1, 1, 1, 1))
    k.set_arg(1, np.int8(3))
    queue.launch(k, 1).wait()
    assert out[0] == 3 and out[4] == 4


def test_kernel_argument_errors(program, dev):
    k = program.kernel("kinds")
    with pytest.raises(ValueError):
        k.set_arg(1, 200)  # char
    with pytest.raises(ValueError):
        k.set_arg(2, -1)  # ushort
    with pytest.raises(ValueError):
        k.set_arg(5, b"short")
    with pytest.raises(TypeError):
        k.set_arg(1, "text")
    with pytest.raises(TypeError):
        k.set_arg(0, 42)
    with pytest.raises(IndexError):
        k.set_arg(7, 1)
    with pytest.raises(ValueError):
        k.set_arg(6, 0)
    with pytest.raises(TypeError):
        k.set_args(1, 2)
    with pytest.raises(libaccel.Error) as e:
        program.kernel("nope")
    assert e.value.errno == errno.ENOENT


def test_launch_errors(program, queue):
    k = program.kernel("scale")
    with pytest.raises(libaccel.Error) as e:
        queue.launch(k, 4)
    assert e.value.errno == errno.ENOEXEC
    assert "argument 0" in str(e.value)
    k.set_args(None, 1.0, 0)
    with pytest.raises(ValueError):
        queue.launch(k, (1, 1, 1, 1))
    with pytest.raises(ValueError):
        queue.launch(k, (4, 4), local_size=(2,))
    with pytest.raises(libaccel.Error) as e:
        queue.launch(k, 0)
    assert e.value.errno == errno.EINVAL
    with pytest.raises(TypeError):
        queue.launch("kernel", 1)


def test_built_in_kernels(dev, queue):
    p = libaccel.Program.from_built_in(dev, ["fill_u32", "copy_u8"])
    assert sorted(p.kernel_names) == ["copy_u8", "fill_u32"]
    assert p.binary is None and p.build_log is None
    k = libaccel.Kernel(p, "fill_u32")
    b = libaccel.Buffer(dev, 16 * 4)
    k.set_args(b, 0xDEADBEEF)
    queue.launch(k, 16).wait()
    assert (np.asarray(b).view(np.uint32) == 0xDEADBEEF).all()
    with pytest.raises(libaccel.Error) as e:
        libaccel.Program.from_built_in(dev, "no_such_kernel")
    assert e.value.errno == errno.ENOENT


def test_kernel_keeps_host_argument(program, queue):
    k = program.kernel("scale")
    x = np.ones(4, dtype=np.float32)
    before = sys.getrefcount(x)
    k.set_arg(0, x)
    assert sys.getrefcount(x) == before + 1  # the wrapping Buffer's export
    k.set_arg(0, None)
    assert sys.getrefcount(x) == before


def test_tensor_arguments(program, dev, queue):
    k = program.kernel("scale")
    b = libaccel.Buffer(dev, 64)
    np.asarray(b).view(np.float32)[:] = 1
    k.set_args(b.as_tensor("float32", (16,)), 4.0, 16)
    queue.launch(k, 16).wait()
    assert (np.asarray(b).view(np.float32) == 4).all()
    with pytest.raises(ValueError):
        k.set_arg(0, b.as_tensor("float32", (4,), offset=16))
    with pytest.raises(TypeError):
        libaccel.Program.from_built_in(dev, [1, 2])
    with pytest.raises(TypeError):
        libaccel.Program("device", SOURCE)
    with pytest.raises(TypeError):
        libaccel.Kernel("program", "scale")
