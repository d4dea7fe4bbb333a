# SPDX-License-Identifier: MIT
"""libaccel: the open user-space accelerator runtime, from Python.

Objects over libaccel's public C API: Context, Device, Buffer, Tensor,
Program, Kernel, Queue and Fence; errors are libaccel.Error (an OSError
carrying the errno). DLPack both ways: Buffer.__dlpack__() /
Buffer.as_tensor() for consumers such as numpy.from_dlpack() and
torch.utils.dlpack.from_dlpack(), and from_dlpack() for CPU producers.
See docs/python.md.
"""

from ._libaccel import *  # noqa: F401,F403
from ._libaccel import Fence as _Fence

__version__ = version()  # noqa: F405


async def wait_async(fence: _Fence) -> bool:
    """Wait for a fence in asyncio, without blocking the event loop.

    Watches fence.fileno(); returns what fence.wait(0) then says (raises
    libaccel.Error if the work failed).
    """
    import asyncio

    loop = asyncio.get_running_loop()
    if fence.done:
        return fence.wait(0)
    fut = loop.create_future()
    fd = fence.fileno()

    def ready() -> None:
        if not fut.done():
            fut.set_result(None)

    loop.add_reader(fd, ready)
    try:
        await fut
    finally:
        loop.remove_reader(fd)
    return fence.wait(0)
