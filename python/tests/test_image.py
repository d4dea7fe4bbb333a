# SPDX-License-Identifier: MIT
"""Images and samplers: ImageLayout, Image, Sampler, image arguments."""

import errno
import gc
import sys

import numpy as np
import pytest

import libaccel

SOURCE = """
kernel void shift(read_only image2d_t src, sampler_t s,
		  write_only image2d_t dst)
{
	int x = get_global_id(0), y = get_global_id(1);
	float4 c = read_imagef(src, s, (int2)(x + 1, y));
	write_imagef(dst, (int2)(x, y), c.wzyx);
}
"""

W, H = 16, 8


@pytest.fixture(scope="module")
def imgdev(compiler):
    if not compiler.caps & libaccel.DEVICE_CAP_IMAGES:
        pytest.skip("device without images")
    return compiler


@pytest.fixture(scope="module")
def kernel(imgdev):
    return libaccel.Program(imgdev, SOURCE, "-cl-std=CL3.0").kernel("shift")


def rgba8(w=W, h=H, **kw):
    return libaccel.ImageLayout("2d", "RGBA", "unorm_int8", w, h, **kw)


def test_layout_fields_and_resolve(imgdev):
    lo = rgba8()
    assert lo.type == 0x10F1 and lo.channel_order == 0x10B5
    assert lo.channel_type == 0x10D2
    assert (lo.width, lo.height, lo.row_pitch) == (W, H, 0)
    assert lo.texel_size == 4
    assert lo == libaccel.ImageLayout(0x10F1, "rgba", 0x10D2, W, height=H)
    assert "RGBA" in repr(lo) and "unorm_int8" in repr(lo)
    full, size = lo.resolve(imgdev)
    assert full.row_pitch == W * 4 and full.depth == 1
    assert full.array_size == 1 and size == W * H * 4
    full, size = rgba8(row_pitch=W * 4 + 64, offset=128).resolve(imgdev)
    assert full.row_pitch == W * 4 + 64
    assert size == 128 + (W * 4 + 64) * (H - 1) + W * 4  # no padded tail
    assert libaccel.ImageLayout("2d", "sRGBA", "unorm_int8", 1, 1) \
        .channel_order == 0x10C1
    with pytest.raises(ValueError):
        libaccel.ImageLayout("4d", "RGBA", "unorm_int8", 1, 1)
    with pytest.raises(TypeError):
        libaccel.ImageLayout("2d", 1.5, "unorm_int8", 1, 1)
    with pytest.raises(OverflowError):
        rgba8(w=-1)
    with pytest.raises(libaccel.Error) as e:
        rgba8(w=0).resolve(imgdev)
    assert e.value.errno == errno.EINVAL
    with pytest.raises(libaccel.Error) as e:  # pitch below the tight one
        rgba8(row_pitch=4).resolve(imgdev)
    assert e.value.errno == errno.EINVAL
    with pytest.raises(TypeError):
        lo.resolve("cpu")


def test_layout_from_drm():
    lo = libaccel.ImageLayout.from_drm("AB24", 0, 64, 32, 512, 4096)
    assert lo == libaccel.ImageLayout("2d", "RGBA", "unorm_int8", 64, 32,
                                      depth=1, array_size=1,
                                      row_pitch=512, offset=4096)
    ar24 = libaccel.ImageLayout.from_drm(0x34325241, 0, 64, 32, 256)
    assert ar24.channel_order == 0x10B6 and ar24.offset == 0
    with pytest.raises(libaccel.Error) as e:  # not linear
        libaccel.ImageLayout.from_drm("AB24", 1 << 56 | 1, 64, 32, 512)
    assert e.value.errno == errno.EOPNOTSUPP
    with pytest.raises(libaccel.Error) as e:
        libaccel.ImageLayout.from_drm("AB24", 0, 0, 32, 512)
    assert e.value.errno == errno.EINVAL
    with pytest.raises(ValueError):
        libaccel.ImageLayout.from_drm("AB2", 0, 64, 32, 512)


def test_image_formats(imgdev):
    read = imgdev.image_formats("2d", "read")
    assert ("RGBA", "unorm_int8") in read
    assert ("RGBA", "float") in imgdev.image_formats()
    assert ("RGBA", "unorm_int8") in imgdev.image_formats(0x10F1, "write")
    assert isinstance(imgdev.image_formats("3d", "read_write"), list)
    both = libaccel.IMAGE_ACCESS_READ | libaccel.IMAGE_ACCESS_WRITE
    assert imgdev.image_formats("2d", both) == \
        imgdev.image_formats("2d", "read_write")
    with pytest.raises(ValueError):
        imgdev.image_formats("2d", "execute")
    with pytest.raises(libaccel.Error) as e:
        imgdev.image_formats("2d", 0)
    assert e.value.errno == errno.EINVAL


def test_sampler():
    s = libaccel.Sampler()
    assert not s.normalized and s.address == "clamp_to_edge"
    assert s.filter == "nearest" and int(s) == s.bits == 0x12
    s = libaccel.Sampler(normalized=True, address="repeat", filter="linear")
    assert s.bits == (libaccel.SAMPLER_NORMALIZED_COORDS |
                      libaccel.SAMPLER_ADDRESS_REPEAT |
                      libaccel.SAMPLER_FILTER_LINEAR)
    assert "repeat" in repr(s)
    with pytest.raises(ValueError):
        libaccel.Sampler(filter="cubic")


def test_read_write_image(imgdev, kernel, queue):
    info = kernel.arg_info
    assert [a["kind"] for a in info] == ["image", "sampler", "image"]
    assert info[0]["image_type"] == 0x10F1
    src_buf = libaccel.Buffer(imgdev, W * H * 4)
    # the destination with padded rows, at an offset
    pitch, off = W * 4 + 32, 64
    dst_lo = rgba8(row_pitch=pitch, offset=off)
    _, dst_size = dst_lo.resolve(imgdev)
    assert dst_size == off + pitch * (H - 1) + W * 4
    dst_buf = libaccel.Buffer(imgdev, off + pitch * H)
    rng = np.random.default_rng(7)
    src = rng.integers(0, 256, size=(H, W, 4), dtype=np.uint8)
    a = np.asarray(src_buf)
    a[:] = src.reshape(-1)
    np.asarray(dst_buf)[:] = 0
    del a
    kernel.set_arg(0, libaccel.Image(src_buf, rgba8()))
    kernel.set_arg(1, libaccel.Sampler())
    kernel.set_arg(2, (dst_buf, dst_lo))
    assert queue.launch(kernel, (W, H)).wait(30)
    raw = np.asarray(dst_buf)[off:off + pitch * H].reshape(H, pitch)
    out = raw[:, :W * 4].reshape(H, W, 4)
    # x + 1 clamps to the edge; channels reversed
    cols = np.minimum(np.arange(W) + 1, W - 1)
    assert (out == src[:, cols, ::-1]).all()
    assert (raw[:, W * 4:] == 0).all()
    # the sampler as bits does the same
    kernel.set_arg(1, libaccel.SAMPLER_ADDRESS_CLAMP_TO_EDGE |
                   libaccel.SAMPLER_FILTER_NEAREST)
    assert queue.launch(kernel, (W, H)).wait(30)


def test_image_argument_errors(imgdev, kernel):
    buf = libaccel.Buffer(imgdev, W * H * 4)
    with pytest.raises(TypeError):
        kernel.set_arg(0, buf)
    with pytest.raises(TypeError):
        kernel.set_arg(0, (buf, buf))
    with pytest.raises(TypeError):
        libaccel.Image(rgba8(), buf)
    with pytest.raises(TypeError):
        kernel.set_arg(1, "nearest")
    with pytest.raises(TypeError):  # not a sampler argument
        kernel.set_arg(0, libaccel.Sampler())
    with pytest.raises(libaccel.Error) as e:  # no filter, two addresses
        kernel.set_arg(1, 0x06 | 0x08 | 0x40)
    assert e.value.errno == errno.EINVAL
    with pytest.raises(libaccel.Error) as e:  # a 3D image for an image2d_t
        kernel.set_arg(0, (buf, libaccel.ImageLayout(
            "3d", "RGBA", "unorm_int8", 4, 4, depth=2)))
    assert e.value.errno == errno.EINVAL
    with pytest.raises(libaccel.Error) as e:  # beyond the buffer
        kernel.set_arg(0, (buf, rgba8(h=H + 1)))
    assert e.value.errno == errno.EINVAL
    with pytest.raises(libaccel.Error) as e:
        kernel.set_arg(0, (buf, rgba8(offset=4)))
    assert e.value.errno == errno.EINVAL
    with pytest.raises(libaccel.Error) as e:
        kernel.set_arg(2, (buf, libaccel.ImageLayout(
            "2d", "RGBA", 0x1234, W, H)))
    assert e.value.errno == errno.EINVAL
    with pytest.raises(IndexError):
        kernel.set_arg(3, (buf, rgba8()))


def test_image_keeps_buffer(imgdev, kernel):
    buf = libaccel.Buffer(imgdev, W * H * 4)
    lo = rgba8()
    before = sys.getrefcount(buf)
    img = libaccel.Image(buf, lo)
    assert img.buffer is buf and img.layout is lo
    assert sys.getrefcount(buf) == before + 1
    kernel.set_arg(0, img)
    del img
    gc.collect()
    assert sys.getrefcount(buf) == before + 1  # the kernel holds the image
    kernel.set_arg(0, (buf, lo))
    assert sys.getrefcount(buf) == before + 1  # now the tuple
    kernel.set_arg(0, (libaccel.Buffer(imgdev, W * H * 4), rgba8()))
    assert sys.getrefcount(buf) == before
    lo_refs = sys.getrefcount(lo)
    for _ in range(100):
        kernel.set_arg(0, libaccel.Image(buf, lo))
    kernel.set_arg(0, (libaccel.Buffer(imgdev, W * H * 4), rgba8()))
    assert sys.getrefcount(buf) == before
    assert sys.getrefcount(lo) == lo_refs
