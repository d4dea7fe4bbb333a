# SPDX-License-Identifier: MIT
"""Check the type stubs against the built module (mypy's stubtest); exit
77 (skipped) without mypy (Debian: python3-mypy)."""

import os
import subprocess
import sys
import tempfile

try:
    import mypy.stubtest  # noqa: F401
except ImportError:
    print("skipped: no mypy for this interpreter (python3-mypy)")
    sys.exit(77)

with tempfile.TemporaryDirectory() as tmp:
    env = dict(os.environ, MYPY_CACHE_DIR=os.path.join(tmp, "cache"))
    sys.exit(subprocess.call([sys.executable, "-m", "mypy.stubtest",
                              "libaccel"], cwd=tmp, env=env))
