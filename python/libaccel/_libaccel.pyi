# SPDX-License-Identifier: MIT
"""Type stubs of libaccel's extension module (see docs/python.md)."""

from collections.abc import Callable, Sequence
from typing import Any, ClassVar, TypeAlias, final

# any buffer-protocol object (PEP 688's Buffer, which Debian 12's
# typing tools lack)
_BufferLike: TypeAlias = Any

_Sizes: TypeAlias = int | Sequence[int]
_Fd: TypeAlias = int | Any  # an int or an object with fileno()
_ImageEnum: TypeAlias = str | int  # "2d", "RGBA", "unorm_int8" or the value
_DType: TypeAlias = str | type | Any  # "float32", numpy/torch dtypes

BUFFER_READ_ONLY: int
BUFFER_WRITE_ONLY: int
BUFFER_HOST_NO_ACCESS: int
BUFFER_HOST_READ_ONLY: int
BUFFER_HOST_WRITE_ONLY: int
BUFFER_DMA_HEAP: int
MAP_READ: int
MAP_WRITE: int
MAP_WRITE_INVALIDATE: int
QUEUE_PROFILING: int
QUEUE_OUT_OF_ORDER: int
DEVICE_TYPE_CPU: int
DEVICE_TYPE_ACCELERATOR: int
DEVICE_TYPE_GPU: int
DEVICE_CAP_DMABUF_EXPORT: int
DEVICE_CAP_DMABUF_IMPORT: int
DEVICE_CAP_SYNC_FILE_EXPORT: int
DEVICE_CAP_SYNC_FILE_IMPORT: int
DEVICE_CAP_COMPILER: int
DEVICE_CAP_NATIVE_KERNELS: int
DEVICE_CAP_BUILT_IN_KERNELS: int
DEVICE_CAP_FP64: int
DEVICE_CAP_HOST_UNIFIED_MEMORY: int
DEVICE_CAP_USER_PTR: int
DEVICE_CAP_FP16: int
DEVICE_CAP_IL: int
DEVICE_CAP_HOST_SVM: int
DEVICE_CAP_IMAGES: int
IMAGE_ACCESS_READ: int
IMAGE_ACCESS_WRITE: int
SAMPLER_NORMALIZED_COORDS: int
SAMPLER_ADDRESS_NONE: int
SAMPLER_ADDRESS_CLAMP_TO_EDGE: int
SAMPLER_ADDRESS_CLAMP: int
SAMPLER_ADDRESS_REPEAT: int
SAMPLER_ADDRESS_MIRRORED_REPEAT: int
SAMPLER_FILTER_NEAREST: int
SAMPLER_FILTER_LINEAR: int
FENCE_TIME_QUEUED: int
FENCE_TIME_SUBMITTED: int
FENCE_TIME_STARTED: int
FENCE_TIME_ENDED: int
TIMEOUT_INFINITE: int

class Error(OSError):
    build_log: str | None

def version() -> str: ...
def strerror(errno: int, /) -> str: ...
def default_context() -> Context: ...
def from_dlpack(obj: Any, device: Device | None = None) -> Buffer: ...
def sync_file_wait(fd: _Fd, timeout: float | None = None) -> bool: ...
def sync_file_merge(fd1: _Fd, fd2: _Fd, name: str | None = None) -> int: ...
def sync_file_info(fd: _Fd, /) -> dict[str, Any]: ...
def sync_file_set_deadline(fd: _Fd, deadline_ns: int, /) -> None: ...

@final
class Context:
    def __new__(cls) -> Context: ...
    @property
    def devices(self) -> list[Device]: ...
    @property
    def cpu_device(self) -> Device: ...
    log_priority: int
    def import_dmabuf(self, fd: _Fd, device: Device | None = None,
                      flags: int = 0) -> Buffer: ...
    def import_sync_file(self, fd: _Fd, /) -> Fence: ...
    def user_fence(self) -> Fence: ...

@final
class Device:
    type: int
    caps: int
    vendor_id: int
    device_id: int
    compute_units: int
    clock_mhz: int
    global_mem_size: int
    local_mem_size: int
    max_alloc_size: int
    mem_base_addr_align: int
    cache_line_size: int
    max_work_group_size: int
    max_work_item_dims: int
    max_kernel_args: int
    max_arg_bytes: int
    timer_resolution_ns: int
    numa_node: int
    printf_buffer_size: int
    cache_size: int
    private_mem_size: int
    sub_group_size: int
    name: str
    vendor: str
    driver: str
    driver_version: str
    backend: str
    devnode: str
    syspath: str
    code_target: str
    compiler: str
    def image_formats(self, type: _ImageEnum = "2d",
                      access: _ImageEnum = "read") -> list[
                          tuple[str | int, str | int]]: ...
    built_in_kernels: list[str]
    max_work_item_sizes: tuple[int, int, int]
    present: bool
    context: Context

@final
class Tensor:
    shape: tuple[int, ...]
    strides: tuple[int, ...]
    dtype: str
    offset: int
    buffer: Buffer
    def __dlpack__(self, *, stream: None = None,
                   max_version: tuple[int, int] | None = None,
                   dl_device: tuple[int, int] | None = None,
                   copy: bool | None = None) -> Any: ...
    def __dlpack_device__(self) -> tuple[int, int]: ...

@final
class Buffer:
    def __init__(self, device: Device, size: int, flags: int = 0) -> None: ...
    @classmethod
    def wrap(cls, device: Device, obj: _BufferLike,
             writable: bool = True) -> Buffer: ...
    size: int
    flags: int
    offset: int
    device: Device
    parent: Buffer | None
    def sub(self, offset: int, size: int, flags: int = 0) -> Buffer: ...
    def export_dmabuf(self) -> int: ...
    def export_sync_file(self, write: bool = False) -> int: ...
    def import_sync_file(self, fd: _Fd, write: bool = True) -> None: ...
    def set_name(self, name: str, /) -> None: ...
    def as_tensor(self, dtype: _DType, shape: _Sizes,
                  strides: Sequence[int] | None = None,
                  offset: int = 0) -> Tensor: ...
    def __dlpack__(self, *, stream: None = None,
                   max_version: tuple[int, int] | None = None,
                   dl_device: tuple[int, int] | None = None,
                   copy: bool | None = None) -> Any: ...
    def __dlpack_device__(self) -> tuple[int, int]: ...

@final
class Program:
    def __init__(self, device: Device, source: str | bytes,
                 options: str | None = None) -> None: ...
    @classmethod
    def from_binary(cls, device: Device, data: bytes, /) -> Program: ...
    @classmethod
    def from_built_in(cls, device: Device,
                      names: str | Sequence[str], /) -> Program: ...
    kernel_names: list[str]
    binary: bytes | None
    build_log: str | None
    device: Device
    def kernel(self, name: str, /) -> Kernel: ...

@final
class Kernel:
    def __init__(self, program: Program, name: str) -> None: ...
    name: str
    program: Program
    num_args: int
    arg_info: list[dict[str, Any]]
    def set_arg(self, index: int, value: Any, /) -> None: ...
    def set_args(self, *values: Any) -> None: ...

@final
class ImageLayout:
    def __init__(self, type: _ImageEnum, channel_order: _ImageEnum,
                 channel_type: _ImageEnum, width: int, height: int = 0,
                 depth: int = 0, array_size: int = 0, row_pitch: int = 0,
                 slice_pitch: int = 0, offset: int = 0) -> None: ...
    @classmethod
    def from_drm(cls, fourcc: int | str, modifier: int, width: int,
                 height: int, pitch: int, offset: int = 0) -> ImageLayout: ...
    def resolve(self, device: Device, /) -> tuple[ImageLayout, int]: ...
    def __eq__(self, other: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]
    @property
    def type(self) -> int: ...
    @property
    def channel_order(self) -> int: ...
    @property
    def channel_type(self) -> int: ...
    @property
    def width(self) -> int: ...
    @property
    def height(self) -> int: ...
    @property
    def depth(self) -> int: ...
    @property
    def array_size(self) -> int: ...
    @property
    def row_pitch(self) -> int: ...
    @property
    def slice_pitch(self) -> int: ...
    @property
    def offset(self) -> int: ...
    @property
    def texel_size(self) -> int: ...

@final
class Image:
    def __init__(self, buffer: Buffer, layout: ImageLayout) -> None: ...
    @property
    def buffer(self) -> Buffer: ...
    @property
    def layout(self) -> ImageLayout: ...

@final
class Sampler:
    def __init__(self, normalized: bool = False,
                 address: str = "clamp_to_edge",
                 filter: str = "nearest") -> None: ...
    @property
    def bits(self) -> int: ...
    @property
    def normalized(self) -> bool: ...
    @property
    def address(self) -> str: ...
    @property
    def filter(self) -> str: ...
    def __int__(self) -> int: ...
    def __index__(self) -> int: ...

@final
class Fence:
    status: int
    done: bool
    context: Context | None
    def wait(self, timeout: float | None = None) -> bool: ...
    def fileno(self) -> int: ...
    def close(self) -> None: ...
    def add_done_callback(self, fn: Callable[[Fence, int], object],
                          /) -> None: ...
    def signal(self, status: int = 0, /) -> None: ...
    def export_sync_file(self) -> int: ...
    def get_time(self, which: int, /) -> int: ...

@final
class Queue:
    def __init__(self, device: Device, flags: int = 0) -> None: ...
    device: Device
    flags: int
    def launch(self, kernel: Kernel, global_size: _Sizes,
               local_size: _Sizes | None = None,
               global_offset: _Sizes | None = None,
               wait: Sequence[Fence] = ()) -> Fence: ...
    def write(self, buffer: Buffer, data: _BufferLike, offset: int = 0,
              wait: Sequence[Fence] = ()) -> Fence: ...
    def read(self, buffer: Buffer, out: _BufferLike, offset: int = 0,
             wait: Sequence[Fence] = ()) -> Fence: ...
    def copy(self, src: Buffer, dst: Buffer, size: int | None = None,
             src_offset: int = 0, dst_offset: int = 0,
             wait: Sequence[Fence] = ()) -> Fence: ...
    def fill(self, buffer: Buffer, pattern: bytes, offset: int = 0,
             size: int | None = None, wait: Sequence[Fence] = ()) -> Fence: ...
    def marker(self, wait: Sequence[Fence] = ()) -> Fence: ...
    def barrier(self, wait: Sequence[Fence] = ()) -> Fence: ...
    def finish(self) -> None: ...
    def flush(self) -> None: ...
