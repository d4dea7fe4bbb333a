# SPDX-License-Identifier: MIT
from ._libaccel import *
from ._libaccel import Fence

__version__: str

async def wait_async(fence: Fence) -> bool: ...
