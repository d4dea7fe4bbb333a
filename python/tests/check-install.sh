#!/bin/bash
# SPDX-License-Identifier: MIT
#
# check-install.sh BUILD PYTHON: install BUILD with `cmake --install` for
# the prefix /usr (under DESTDIR) and for another prefix, and check that
# the package lands where Debian's python3 looks for that prefix, with its
# stubs, and that it imports and compiles a kernel from the install.
set -euo pipefail
build=$1
python=$2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/accel-py-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() {
	echo "FAIL: $*"
	exit 1
}

cmake --install "$build" --prefix "$tmp/prefix" >"$tmp/log" 2>&1 ||
	fail "cmake --install --prefix $tmp/prefix: $(tail -n5 "$tmp/log")"
minor=$("$python" -c 'import sys; print(sys.version_info.minor)')
pkg=$tmp/prefix/lib/python3.$minor/dist-packages/libaccel
for f in __init__.py __init__.pyi _libaccel.pyi py.typed; do
	[ -f "$pkg/$f" ] || fail "$pkg/$f missing"
done
DESTDIR=$tmp/dest cmake --install "$build" --prefix /usr >"$tmp/log" 2>&1 ||
	fail "DESTDIR=... cmake --install --prefix /usr: $(tail -n5 "$tmp/log")"
[ -f "$tmp/dest/usr/lib/python3/dist-packages/libaccel/__init__.py" ] ||
	fail "no libaccel in lib/python3/dist-packages for the prefix /usr"

# the installed module finds the installed libaccel (RUNPATH), whose
# compiler module it then loads
cd "$tmp"
env -u PYTHONPATH PYTHONDONTWRITEBYTECODE=1 "$python" - "$pkg/.." <<'PY' ||
import sys
sys.path.insert(0, sys.argv[1])
import libaccel
assert libaccel.__file__.startswith(sys.argv[1]), libaccel.__file__
dev = libaccel.Context().cpu_device
if dev.caps & libaccel.DEVICE_CAP_COMPILER:
    p = libaccel.Program(dev, "kernel void k(global int *x) { *x = 7; }")
    x = bytearray(4)
    k = p.kernel("k")
    k.set_args(x)
    libaccel.Queue(dev).launch(k, 1).wait()
    assert x[0] == 7
print("installed package:", libaccel.__file__)
PY
	fail "the installed package does not work"
echo "PASS"
