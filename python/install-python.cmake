# SPDX-License-Identifier: MIT
#
# Run by the install step (python/CMakeLists.txt) before the package's
# install rules: sets ACCEL_PY_DIR, which they name, to the directory
# Debian's python3 searches for this install's prefix (CMAKE_INSTALL_PREFIX
# is here the one `cmake --install --prefix` gives). Set by the caller:
# ACCEL_PY_VERSION (3.X).

string(REGEX REPLACE "/+$" "" _accel_prefix "${CMAKE_INSTALL_PREFIX}")
if(_accel_prefix STREQUAL "/usr")
	set(ACCEL_PY_DIR "lib/python3/dist-packages")
else()
	set(ACCEL_PY_DIR "lib/python${ACCEL_PY_VERSION}/dist-packages")
endif()
unset(_accel_prefix)
