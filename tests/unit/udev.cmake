# SPDX-License-Identifier: MIT
#
# Discovery and the DRM backend. Included from tests/unit/CMakeLists.txt:
#     include(${CMAKE_CURRENT_SOURCE_DIR}/udev.cmake)
#
# unit-udev: umockdev testbeds (Debian umockdev, libumockdev-dev); the test
# re-executes itself under umockdev-wrapper and skips (77) without it.
# unit-udev-vgem: real discovery and the DRM backend on vgem; skips (77)
# on hosts without it, and runs for real in the kernel tier
# (kernel-drm-vgem). Both are internal: they use libaccel's own headers.

pkg_check_modules(UMOCKDEV IMPORTED_TARGET umockdev-1.0)
# GIO for GTask, which udev-testbed.c makes ready before the fd snapshot.
pkg_check_modules(GIO IMPORTED_TARGET gio-2.0)
if(UMOCKDEV_FOUND AND GIO_FOUND)
	accel_add_test(NAME unit-udev
		SOURCES ${CMAKE_CURRENT_LIST_DIR}/test-udev.c
			${CMAKE_CURRENT_LIST_DIR}/udev-testbed.c
		LABELS unit INTERNAL LIBS PkgConfig::UMOCKDEV PkgConfig::GIO)
	accel_add_test(NAME unit-udev-hotplug
		SOURCES ${CMAKE_CURRENT_LIST_DIR}/test-udev-hotplug.c
			${CMAKE_CURRENT_LIST_DIR}/udev-testbed.c
		LABELS unit INTERNAL LIBS PkgConfig::UMOCKDEV PkgConfig::GIO)
	# accel-info runs against the same testbed; tools/ comes after
	# tests/, so the target is named by a generator expression.
	if(EXISTS ${PROJECT_SOURCE_DIR}/tools/accel-info.c)
		set_property(TEST unit-udev unit-udev-hotplug APPEND PROPERTY
			ENVIRONMENT
			"ACCEL_INFO=$<TARGET_FILE:accel-info>"
			"ACCEL_INFO_SCHEMA=${PROJECT_SOURCE_DIR}/docs/accel-info.schema.json")
	endif()
else()
	message(STATUS "umockdev-1.0 or gio-2.0 not found: unit-udev is not built "
		"(apt-get install libumockdev-dev umockdev)")
endif()

# PkgConfig::LIBDRM comes from libaccel/CMakeLists.txt (GLOBAL).
accel_add_test(NAME unit-udev-vgem
	SOURCES ${CMAKE_CURRENT_LIST_DIR}/test-udev-vgem.c
	LABELS unit threads INTERNAL LIBS PkgConfig::LIBDRM)

if(EXISTS ${PROJECT_SOURCE_DIR}/tests/kernel/kernel-test.cmake)
	include(${PROJECT_SOURCE_DIR}/tests/kernel/kernel-test.cmake)
	accel_add_kernel_test(NAME kernel-drm-vgem
		COMMAND $<TARGET_FILE:unit-udev-vgem>
		TIMEOUT 600)
endif()

# unit-hotplug-vgem: unloads and reloads vgem and checks the monitor's
# remove/add events; skips (77) outside the kernel tier (kernel-hotplug-vgem).
accel_add_test(NAME unit-hotplug-vgem
	SOURCES ${CMAKE_CURRENT_LIST_DIR}/test-hotplug-vgem.c
	LABELS unit)
if(COMMAND accel_add_kernel_test)
	accel_add_kernel_test(NAME kernel-hotplug-vgem
		COMMAND $<TARGET_FILE:unit-hotplug-vgem>
		TIMEOUT 300)
endif()
