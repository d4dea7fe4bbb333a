# SPDX-License-Identifier: MIT
#
# refaccel, the reference accel driver (tests/kernel/refaccel/), and the
# tests that need it loaded in the VM tier. Included from
# tests/kernel/CMakeLists.txt.
#
# The module is built by a test, not at build time: it needs the guest
# kernel's headers (downloaded once into ACCEL_KERNEL_CACHE), which a
# plain build must not fetch. refaccel-build is the fixture of every test
# that loads it; `cmake --build . --target refaccel-module` builds it by
# hand. Cross-built for the arm64 guest (ctest runs inside it), there is
# no such test: tests/arm64/arm64-tier.sh builds the module on the host
# (build.sh against the arm64 kernel in the sysroot) before the guest
# boots.
#
# Tests find the device's node with refaccel/node.sh (shell) and
# refaccel-sysfs.c (C): an accel node, or where the kernel has no accel
# subsystem (Debian's arm64) the render node refaccel registers instead.

set(REFACCEL_SRC "${CMAKE_CURRENT_SOURCE_DIR}/refaccel")
set(REFACCEL_KO_DIR "${CMAKE_CURRENT_BINARY_DIR}/refaccel")
set(REFACCEL_KO "${REFACCEL_KO_DIR}/refaccel.ko")
set(REFACCEL_BUILD bash "${REFACCEL_SRC}/build.sh" "${ACCEL_KERNEL_CACHE}"
	"${REFACCEL_KO_DIR}" "${PROJECT_SOURCE_DIR}/libaccel/uapi")
if(ACCEL_KERNEL_IN_GUEST)
	list(APPEND REFACCEL_BUILD --arch arm64 --sysroot "${ACCEL_ARM64_SYSROOT}")
endif()
# First command of every VM batch that uses the driver.
set(REFACCEL_LOAD bash "${REFACCEL_SRC}/load.sh" "${REFACCEL_KO}")
# Its last in the arm64 guest, which runs every test in one boot: the
# module unloaded, so that other tests do not see the device.
set(REFACCEL_UNLOAD_LAST "")
if(ACCEL_KERNEL_IN_GUEST)
	set(REFACCEL_UNLOAD_LAST COMMAND bash "${REFACCEL_SRC}/unload.sh")
endif()
# The first refaccel node (node.sh [--sysfs] [N]), in sh -c strings.
set(REFACCEL_NODE "bash ${REFACCEL_SRC}/node.sh")

if(NOT ACCEL_KERNEL_IN_GUEST)
	add_test(NAME refaccel-build COMMAND ${REFACCEL_BUILD})
	set_tests_properties(refaccel-build PROPERTIES
		LABELS "all;kernel"
		TIMEOUT 600
		SKIP_RETURN_CODE 77
		FIXTURES_SETUP refaccel_ko)
endif()

add_custom_target(refaccel-module
	COMMAND ${REFACCEL_BUILD}
	USES_TERMINAL
	COMMENT "Building refaccel.ko for the test kernel")

# Marks a kernel test as needing the module (built by refaccel-build).
function(refaccel_requires test)
	if(TEST "${test}")
		set_tests_properties("${test}" PROPERTIES
			FIXTURES_REQUIRED refaccel_ko)
	endif()
endfunction()

# The driver's ioctls, raw.
accel_add_test(NAME refaccel-driver
	SOURCES test-refaccel-driver.c refaccel-ioctl.c refaccel-sysfs.c
		${PROJECT_SOURCE_DIR}/tests/sharing/peer.c
	LABELS kernel
	TIMEOUT 120
	LIBS PkgConfig::LIBDRM)
# edu's own paths: fences signalled by the interrupt handler, runtime PM.
accel_add_test(NAME refaccel-edu
	SOURCES test-refaccel-edu.c refaccel-ioctl.c refaccel-sysfs.c
	LABELS kernel
	TIMEOUT 120
	LIBS PkgConfig::LIBDRM)
# Removal with a file open and a job in flight, then bound again: last in
# a batch, since the device may come back under another node number.
accel_add_test(NAME refaccel-unplug
	SOURCES test-refaccel-unplug.c refaccel-sysfs.c refaccel-ioctl.c
	LABELS kernel
	TIMEOUT 120
	LIBS PkgConfig::LIBDRM)
accel_add_kernel_test(NAME kernel-refaccel
	COMMAND ${REFACCEL_LOAD}
	COMMAND $<TARGET_FILE:refaccel-driver>
	COMMAND $<TARGET_FILE:refaccel-unplug>
	${REFACCEL_UNLOAD_LAST}
	TIMEOUT 600)
refaccel_requires(kernel-refaccel)

# The same on the edu personality: QEMU's edu PCI device, which the
# module binds instead of registering the software device. The device
# reaches 28 bits of bus address and the guest has no IOMMU and no
# swiotlb, so all its memory must lie below 256 MiB for PRIME imports to
# map. One boot: the personality is checked (PCI 1234:11e8, the probe's
# self-test of the factorial unit, interrupt and DMA), then the raw ioctls
# and libaccel's backend.
set(REFACCEL_IS_EDU sh -c "grep -qx 0x11e8 $(${REFACCEL_NODE} --sysfs)/device/device && dmesg | grep 'refaccel.*edu.*self-test passed'")

accel_add_test(NAME accel-node
	SOURCES test-accel-node.c ${PROJECT_SOURCE_DIR}/tests/sharing/peer.c
		accel-node-util.c refaccel-sysfs.c
	LABELS kernel sharing
	TIMEOUT 300
	LIBS PkgConfig::LIBDRM)
# One boot: the backend's tests, accel-info listing the device, the
# GPU -> accelerator pipeline example (built in examples/, after tests/ is
# read), and accel-info top reading refaccel's fdinfo and libaccel's
# usage page.
accel_add_kernel_test(NAME kernel-accel-node
	COMMAND ${REFACCEL_LOAD}
	COMMAND $<TARGET_FILE:accel-node>
	COMMAND sh -c "$<TARGET_FILE:accel-info> --verbose | tee /dev/stderr | grep -q 'refaccel'"
	COMMAND $<TARGET_FILE:gpu-accel-pipeline>
	COMMAND sh -c "python3 ${PROJECT_SOURCE_DIR}/tests/tools/check-top.py $<TARGET_FILE:accel-info> $<TARGET_FILE:top-load> $(${REFACCEL_NODE})"
	${REFACCEL_UNLOAD_LAST}
	LABELS sharing
	TIMEOUT 600)
refaccel_requires(kernel-accel-node)

# accel-info must list the device and, in its discovery listing, edu's PCI
# identity ("PCI ids  1234:11e8 (subsystem ...)", tools/accel-info-text.c).
# awk shows the listing on stderr itself: what `tee /dev/stderr` writes
# in the guest never reaches the host.
set(REFACCEL_INFO_IS_EDU sh -c "$<TARGET_FILE:accel-info> --verbose | awk '{ print > \"/dev/stderr\" } /refaccel/ { r = 1 } /PCI ids +1234:11e8 / { p = 1 } END { if (!(r && p)) print \"accel-info: no refaccel device with PCI ids 1234:11e8\" > \"/dev/stderr\" } END { exit !(r && p) }'")
accel_add_kernel_test(NAME kernel-refaccel-edu
	COMMAND ${REFACCEL_LOAD}
	COMMAND ${REFACCEL_IS_EDU}
	COMMAND $<TARGET_FILE:refaccel-driver>
	COMMAND $<TARGET_FILE:refaccel-edu>
	COMMAND $<TARGET_FILE:accel-node>
	COMMAND ${REFACCEL_INFO_IS_EDU}
	${REFACCEL_UNLOAD_LAST}
	DEVICES edu
	MEMORY 256M
	LABELS sharing
	TIMEOUT 600)
refaccel_requires(kernel-refaccel-edu)

# Jobs on edu's DMA engine (edu_dma=1): every copy and fill, PRIME
# imports included, goes through the device buffer in steps of at most
# 2 KiB, 100 ms of guest time per command; so a chain of 10, not 1,000.
# Then the GPU -> accelerator -> RDMA pipeline example (where
# libaccel-rdma is built; rxe0 is in every VM) with the engine's copy on
# the DMA engine: a 32 KiB frame, 16 steps, about 4 s. The unbind test
# stays last: the device may come back under another node number.
set(REFACCEL_RDMA_PIPELINE "")
if(TARGET accel-rdma)
	set(REFACCEL_RDMA_PIPELINE
		COMMAND $<TARGET_FILE:gpu-accel-rdma-pipeline> 128x64)
endif()
# The last load's self-test put the jobs on the DMA engine (a guest that
# runs many tests has earlier loads' lines too).
set(REFACCEL_EDU_DMA sh -c "dmesg | grep 'refaccel.*self-test passed' | tail -n 1 | grep 'jobs on the DMA engine'")
accel_add_kernel_test(NAME kernel-refaccel-edu-dma
	COMMAND ${REFACCEL_LOAD} edu_dma=1
	COMMAND ${REFACCEL_EDU_DMA}
	COMMAND $<TARGET_FILE:refaccel-driver>
	COMMAND $<TARGET_FILE:refaccel-edu>
	COMMAND sh -c "grep refaccel /proc/interrupts"
	${REFACCEL_RDMA_PIPELINE}
	COMMAND $<TARGET_FILE:refaccel-unplug>
	${REFACCEL_UNLOAD_LAST}
	ENV REFACCEL_TEST_CHAIN=10
	DEVICES edu
	MEMORY 256M
	TIMEOUT 600)
refaccel_requires(kernel-refaccel-edu-dma)

# The same behind a virtual IOMMU (q35, intel-iommu, strict): bus
# addresses are IOVAs the IOMMU hands out below the 28-bit mask, so the
# guest keeps its 1 GiB. The CPU engine's whole suite, then the DMA
# engine's.
set(REFACCEL_HAS_IOMMU sh -c "test -e $(${REFACCEL_NODE} --sysfs)/device/iommu_group && dmesg | grep 'refaccel.*self-test passed'")
accel_add_kernel_test(NAME kernel-refaccel-edu-iommu
	COMMAND ${REFACCEL_LOAD}
	COMMAND ${REFACCEL_HAS_IOMMU}
	COMMAND $<TARGET_FILE:refaccel-driver>
	COMMAND $<TARGET_FILE:accel-node>
	${REFACCEL_UNLOAD_LAST}
	DEVICES edu
	IOMMU
	LABELS sharing
	TIMEOUT 600)
refaccel_requires(kernel-refaccel-edu-iommu)
accel_add_kernel_test(NAME kernel-refaccel-edu-dma-iommu
	COMMAND ${REFACCEL_LOAD} edu_dma=1
	COMMAND ${REFACCEL_HAS_IOMMU}
	COMMAND $<TARGET_FILE:refaccel-driver>
	${REFACCEL_UNLOAD_LAST}
	ENV REFACCEL_TEST_CHAIN=10
	DEVICES edu
	IOMMU
	TIMEOUT 600)
refaccel_requires(kernel-refaccel-edu-dma-iommu)

# Load and unload 100 times with both personalities bound (edu and,
# with software=1, the software device): probe, self-test and remove
# of each, the nodes and the interrupt gone, no slab growth beyond a
# coarse bound. The only test that unloads: no job ever ran, so no fence
# outlives the module.
accel_add_kernel_test(NAME kernel-refaccel-reload
	COMMAND bash ${REFACCEL_SRC}/reload.sh ${REFACCEL_KO} 100
		software=1 edu_dma=1
	${REFACCEL_UNLOAD_LAST}
	DEVICES edu
	MEMORY 256M
	TIMEOUT 600)
refaccel_requires(kernel-refaccel-reload)

# Two devices sharing a buffer whose exporter is unbound: edu and the
# software device (software=1; edu's jobs on the CPU), a BO of one
# imported into the other by PRIME, the exporter unbound with its file
# open or closed, then jobs on the importer into the buffer, and a job
# of the importer waiting on a vgem fence at the unbind; both ways,
# each exporter bound again after.
accel_add_test(NAME refaccel-cross
	SOURCES test-refaccel-cross.c refaccel-sysfs.c refaccel-ioctl.c
		${PROJECT_SOURCE_DIR}/tests/sharing/peer.c
	LABELS kernel
	TIMEOUT 120
	LIBS PkgConfig::LIBDRM)
accel_add_kernel_test(NAME kernel-refaccel-cross
	COMMAND ${REFACCEL_LOAD} software=1 edu_dma=0
	COMMAND sh -c "test -c \"$(${REFACCEL_NODE} 1)\" && grep -qx 0x11e8 $(${REFACCEL_NODE} --sysfs)/device/device"
	COMMAND $<TARGET_FILE:refaccel-cross>
	${REFACCEL_UNLOAD_LAST}
	DEVICES edu
	MEMORY 256M
	TIMEOUT 600)
refaccel_requires(kernel-refaccel-cross)
# The same with edu's jobs on its DMA engine (edu_dma=1): the importer
# edu moves data through the attachment's bus addresses of a buffer
# whose exporter is gone, and the exporter edu's own mapped pages
# outlive its unbind.
accel_add_kernel_test(NAME kernel-refaccel-cross-dma
	COMMAND ${REFACCEL_LOAD} software=1 edu_dma=1
	COMMAND sh -c "test -c \"$(${REFACCEL_NODE} 1)\" && dmesg | grep 'refaccel.*self-test passed' | tail -n 1 | grep 'jobs on the DMA engine'"
	COMMAND $<TARGET_FILE:refaccel-cross>
	${REFACCEL_UNLOAD_LAST}
	DEVICES edu
	MEMORY 256M
	TIMEOUT 600)
refaccel_requires(kernel-refaccel-cross-dma)

# Sync_file dependencies waited for by the kernel (in-syncobjs).
accel_add_test(NAME accel-infence
	SOURCES test-accel-infence.c ${PROJECT_SOURCE_DIR}/tests/sharing/peer.c
		accel-node-util.c
	LABELS kernel sharing
	TIMEOUT 300
	LIBS PkgConfig::LIBDRM)
accel_add_kernel_test(NAME kernel-accel-infence
	COMMAND ${REFACCEL_LOAD}
	COMMAND $<TARGET_FILE:accel-infence>
	${REFACCEL_UNLOAD_LAST}
	LABELS sharing
	TIMEOUT 600)
refaccel_requires(kernel-accel-infence)

# The OpenCL view (only our ICD, through the system's loader).
pkg_check_modules(REFACCEL_OPENCL IMPORTED_TARGET OpenCL)
if(TARGET accel-icd AND REFACCEL_OPENCL_FOUND AND ACCEL_ICD_VENDORS_DIR)
	add_executable(icd-refaccel test-icd-refaccel.c)
	target_include_directories(icd-refaccel PRIVATE
		${ACCEL_OPENCL_INCLUDE_DIR})
	target_compile_options(icd-refaccel PRIVATE -Wall -Wextra -Werror)
	target_link_libraries(icd-refaccel PRIVATE PkgConfig::REFACCEL_OPENCL
		PkgConfig::CMOCKA)
	# The loader dlopen()s the ICD: build it first.
	add_dependencies(icd-refaccel accel-icd)
	accel_add_kernel_test(NAME kernel-icd-refaccel
		COMMAND ${REFACCEL_LOAD}
		COMMAND $<TARGET_FILE:icd-refaccel>
		${REFACCEL_UNLOAD_LAST}
		ENV "OCL_ICD_VENDORS=${ACCEL_ICD_VENDORS_DIR}"
		ENV "OPENCL_VENDOR_PATH=${ACCEL_ICD_VENDORS_DIR}"
		LABELS icd
		TIMEOUT 600)
	refaccel_requires(kernel-icd-refaccel)
endif()
