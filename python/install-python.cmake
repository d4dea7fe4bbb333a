# SPDX-License-Identifier: MIT
#
# Run by the install step (python/CMakeLists.txt): installs the package
# into the directory Debian's python3 searches for this install's prefix,
# CMAKE_INSTALL_PREFIX here being the one `cmake --install --prefix` gives.
# Set by the caller: ACCEL_PY_DIR (empty: pick), ACCEL_PY_VERSION (3.X),
# ACCEL_PY_MODULE (the built extension), ACCEL_PY_FILES, ACCEL_PY_RPATH.

set(dir "${ACCEL_PY_DIR}")
if(dir STREQUAL "")
	string(REGEX REPLACE "/+$" "" p "${CMAKE_INSTALL_PREFIX}")
	if(p STREQUAL "/usr")
		set(dir "lib/python3/dist-packages")
	else()
		set(dir "lib/python${ACCEL_PY_VERSION}/dist-packages")
	endif()
endif()
if(NOT IS_ABSOLUTE "${dir}")
	set(dir "${CMAKE_INSTALL_PREFIX}/${dir}")
endif()
set(dest "${dir}/libaccel")
# file(INSTALL) prepends $DESTDIR and records the files in
# install_manifest.txt, as install(FILES) does.
file(INSTALL DESTINATION "${dest}" TYPE FILE FILES ${ACCEL_PY_FILES})
file(INSTALL DESTINATION "${dest}" TYPE SHARED_LIBRARY
	FILES "${ACCEL_PY_MODULE}")
get_filename_component(name "${ACCEL_PY_MODULE}" NAME)
# the build tree's RUNPATH names build directories
file(RPATH_SET FILE "$ENV{DESTDIR}${dest}/${name}"
	NEW_RPATH "${ACCEL_PY_RPATH}")
