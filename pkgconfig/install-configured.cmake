# SPDX-License-Identifier: MIT
#
# Run by the install step, through the install(CODE) of
# accel_install_configured() (top CMakeLists.txt): writes a file whose
# content names install directories (a .pc file, libaccel.icd) and installs
# it. Here CMAKE_INSTALL_PREFIX is the prefix of this install, the one
# `cmake --install build --prefix X` gives, not the configure-time one; the
# file goes under $DESTDIR like every other.
#
# Set by the caller: ACCEL_INSTALL_LIBDIR and ACCEL_INSTALL_SYSCONFDIR
# (GNUInstallDirs' values, relative or absolute), ACCEL_INSTALL_STAGE (a
# directory of the build tree), and the variables the content names.

# GNUInstallDirs' rules for a full directory, applied to this prefix:
# SYSCONFDIR is /etc for the prefixes / and /usr and /etc/opt/X for /opt/X;
# every other relative directory is under the prefix.
function(accel_install_full_dir out dir kind)
	set(p "${CMAKE_INSTALL_PREFIX}")
	if(IS_ABSOLUTE "${dir}")
		set(full "${dir}")
	elseif(kind STREQUAL "SYSCONFDIR" AND p MATCHES "^/(usr/?)?$")
		set(full "/${dir}")
	elseif(kind STREQUAL "SYSCONFDIR" AND p MATCHES "^/opt/" AND
	       NOT p MATCHES "^/opt/homebrew/")
		set(full "/${dir}${p}")
	else()
		set(full "${p}/${dir}")
	endif()
	string(REGEX REPLACE "//+" "/" full "${full}")
	set(${out} "${full}" PARENT_SCOPE)
endfunction()

accel_install_full_dir(ACCEL_INSTALL_FULL_LIBDIR
	"${ACCEL_INSTALL_LIBDIR}" LIBDIR)
accel_install_full_dir(ACCEL_INSTALL_FULL_SYSCONFDIR
	"${ACCEL_INSTALL_SYSCONFDIR}" SYSCONFDIR)

# Installs NAME into DESTINATION (relative to the prefix, or absolute),
# with CONTENT's @VAR@ references replaced; DESTINATION's too.
function(accel_install_configured name destination content)
	string(CONFIGURE "${destination}" dir @ONLY)
	if(NOT IS_ABSOLUTE "${dir}")
		set(dir "${CMAKE_INSTALL_PREFIX}/${dir}")
	endif()
	string(CONFIGURE "${content}" text @ONLY)
	file(WRITE "${ACCEL_INSTALL_STAGE}/${name}" "${text}")
	# file(INSTALL) prepends $DESTDIR, says "Installing: ..." and
	# lists the file in install_manifest.txt, as install(FILES) does.
	file(INSTALL DESTINATION "${dir}" TYPE FILE
		FILES "${ACCEL_INSTALL_STAGE}/${name}")
endfunction()
