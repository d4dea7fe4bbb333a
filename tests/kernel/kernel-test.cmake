# SPDX-License-Identifier: MIT
#
# accel_add_kernel_test(): a ctest test whose command(s) run inside
# Debian's 6.12 kernel under QEMU (tests/kernel/vm-run.sh).
#
#   accel_add_kernel_test(NAME <name>
#       COMMAND <cmd> [args...]
#       [COMMAND <cmd> [args...]]...   # several: one boot, run in order
#       [TIMEOUT <seconds>]            # whole test, boot included; 600
#       [ENV NAME=VALUE...]            # extra environment in the guest
#       [RW <dir>...]                  # host dirs the guest writes for real
#       [LABELS <label>...]            # added to the label "kernel"
#       [DEVICES <spec>...]            # QEMU devices: -device <spec> each
#       [MEMORY <size>]                # guest memory (vm-run.sh's 1G)
#       [IOMMU]                        # a virtual IOMMU (vm-run.sh --iommu)
#       [WORKING_DIRECTORY <dir>])     # default: the current binary dir
#
# Arguments may hold generator expressions ($<TARGET_FILE:...>).  A boot
# costs 6-15 s, so put related binaries into one test with several
# COMMANDs.  Exit 77 (skip) from every command, or from vm-run.sh when
# the VM cannot run here, makes the test "skipped".  Tests share one
# RESOURCE_LOCK: a two-core machine runs one VM at a time.
#
# Cross-built for arm64 (tools/arm64-toolchain.cmake), ctest itself runs
# inside the arm64 guest (tests/arm64/): each such test is then its
# commands run there directly (run-commands.sh), labelled "kernel" and
# "arm64-guest", and alone (RUN_SERIAL: on x86-64 each has a VM of its
# own; here one reloads vgem while others may hold it). The one guest
# has the QEMU devices ACCEL_KERNEL_GUEST_DEVICES names and, with
# ACCEL_KERNEL_GUEST_IOMMU, an IOMMU in front of them (arm64-tier.sh sets
# both): a test runs there if the guest has the devices it asks for and,
# if it asks for an IOMMU or for its own memory size, an IOMMU (MEMORY
# only ever keeps a guest's memory within a device's DMA reach, which an
# IOMMU gives at any size). There ACCEL_KERNEL_DEVICES tells its commands
# which of the guest's devices are the test's (refaccel/load.sh keeps the
# others from the driver).

include_guard(GLOBAL)

# The tests run inside the arm64 guest already (see above). Cached, as
# ACCEL_KERNEL_DIR: the guard keeps later includes from setting it in
# their own directory scope.
if(CMAKE_CROSSCOMPILING AND CMAKE_SYSTEM_NAME STREQUAL "Linux" AND
   CMAKE_SYSTEM_PROCESSOR STREQUAL "aarch64")
	set(ACCEL_KERNEL_IN_GUEST ON CACHE INTERNAL "ctest runs in the arm64 guest")
	set(ACCEL_KERNEL_GUEST_DEVICES "" CACHE STRING
	    "QEMU devices of the arm64 guest (-device each)")
	option(ACCEL_KERNEL_GUEST_IOMMU "The arm64 guest has an IOMMU" OFF)
else()
	set(ACCEL_KERNEL_IN_GUEST OFF CACHE INTERNAL "ctest runs in the arm64 guest")
endif()

set(ACCEL_KERNEL_DIR "${CMAKE_CURRENT_LIST_DIR}" CACHE INTERNAL
    "tests/kernel source folder")
set(ACCEL_KERNEL_CACHE "${CMAKE_BINARY_DIR}/kernel-cache" CACHE PATH
    "Where vm-prepare.sh keeps the guest kernel and initramfs")

function(accel_add_kernel_test)
	set(name "")
	set(timeout 600)
	set(workdir "${CMAKE_CURRENT_BINARY_DIR}")
	set(envs "")
	set(rws "")
	set(devices "")
	set(device_names "")
	set(memory "")
	set(iommu "")
	set(labels all kernel)
	set(ncmd 0)
	set(mode "")
	# Hand-parsed: cmake_parse_arguments would merge repeated COMMANDs.
	foreach(arg IN LISTS ARGN)
		if(arg MATCHES "^(NAME|COMMAND|TIMEOUT|ENV|RW|LABELS|DEVICES|MEMORY|IOMMU|WORKING_DIRECTORY)$")
			set(mode "${arg}")
			if(mode STREQUAL "IOMMU")
				set(iommu --iommu)
			endif()
			if(mode STREQUAL "COMMAND")
				math(EXPR ncmd "${ncmd} + 1")
				set(cmd_${ncmd} "")
			endif()
			continue()
		endif()
		if(mode STREQUAL "NAME")
			set(name "${arg}")
		elseif(mode STREQUAL "COMMAND")
			list(APPEND cmd_${ncmd} "${arg}")
		elseif(mode STREQUAL "TIMEOUT")
			set(timeout "${arg}")
		elseif(mode STREQUAL "ENV")
			list(APPEND envs --env "${arg}")
		elseif(mode STREQUAL "RW")
			list(APPEND rws --rw "${arg}")
		elseif(mode STREQUAL "LABELS")
			list(APPEND labels "${arg}")
		elseif(mode STREQUAL "DEVICES")
			list(APPEND devices --device "${arg}")
			list(APPEND device_names "${arg}")
		elseif(mode STREQUAL "MEMORY")
			set(memory --memory "${arg}")
		elseif(mode STREQUAL "WORKING_DIRECTORY")
			set(workdir "${arg}")
		else()
			message(FATAL_ERROR
				"accel_add_kernel_test: unexpected '${arg}'")
		endif()
	endforeach()
	if(name STREQUAL "" OR ncmd EQUAL 0)
		message(FATAL_ERROR
			"accel_add_kernel_test: NAME and COMMAND are required")
	endif()
	if(timeout LESS 60)
		message(FATAL_ERROR
			"accel_add_kernel_test(${name}): TIMEOUT ${timeout} "
			"leaves no time to boot")
	endif()

	if(ACCEL_KERNEL_IN_GUEST)
		_accel_add_in_guest_test()
		return()
	endif()
	# The guest is x86-64 and runs the host's binaries.
	if(NOT CMAKE_SYSTEM_NAME STREQUAL "Linux" OR
	   NOT CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$")
		return()
	endif()

	# vm-run.sh gives up first, so that its logs and verdict survive.
	math(EXPR vm_timeout "${timeout} - 20")
	# Through bash: a checkout that lost the exec bits still works.
	set(run bash "${ACCEL_KERNEL_DIR}/vm-run.sh"
		--cache "${ACCEL_KERNEL_CACHE}"
		--timeout ${vm_timeout}
		--results "${CMAKE_CURRENT_BINARY_DIR}/kernel-results/${name}"
		${envs} ${rws} ${devices} ${memory} ${iommu})

	if(ncmd EQUAL 1)
		add_test(NAME "${name}" COMMAND ${run} -- ${cmd_1}
			WORKING_DIRECTORY "${workdir}")
	else()
		_accel_kernel_batch_file(batch)
		add_test(NAME "${name}" COMMAND ${run} --batch "${batch}"
			WORKING_DIRECTORY "${workdir}")
	endif()

	set_tests_properties("${name}" PROPERTIES
		TIMEOUT ${timeout}
		SKIP_RETURN_CODE 77
		LABELS "${labels}"
		RESOURCE_LOCK accel_kernel_vm)
endfunction()

# The commands cmd_1..cmd_<ncmd> of test <name> as a batch file, one
# line per command, each argument single-quoted for the guest's bash;
# sets <var> to its path.
macro(_accel_kernel_batch_file var)
	set(content "")
	foreach(i RANGE 1 ${ncmd})
		set(line "")
		foreach(word IN LISTS cmd_${i})
			string(REPLACE "'" "'\\''" word "${word}")
			string(APPEND line "'${word}' ")
		endforeach()
		string(APPEND content "${line}\n")
	endforeach()
	set(${var} "${CMAKE_CURRENT_BINARY_DIR}/kernel-batch/${name}-$<CONFIG>.sh")
	file(GENERATE OUTPUT "${${var}}" CONTENT "${content}")
endmacro()

# accel_add_kernel_test() inside the guest: the caller's variables.
macro(_accel_add_in_guest_test)
	foreach(dev IN LISTS device_names)
		if(NOT dev IN_LIST ACCEL_KERNEL_GUEST_DEVICES)
			message(STATUS "${name}: the arm64 guest has no ${dev} "
				"device, not run there")
			return()
		endif()
	endforeach()
	if((memory OR iommu) AND NOT ACCEL_KERNEL_GUEST_IOMMU)
		message(STATUS "${name}: needs an IOMMU or memory of its own, "
			"not run in the arm64 guest")
		return()
	endif()
	_accel_kernel_batch_file(batch)
	add_test(NAME "${name}" COMMAND bash
		"${ACCEL_KERNEL_DIR}/run-commands.sh" "${batch}"
		WORKING_DIRECTORY "${workdir}")
	string(REPLACE "--env;" "" guest_env "${envs}")
	string(REPLACE ";" " " guest_devices "${device_names}")
	list(APPEND guest_env "ACCEL_KERNEL_DEVICES=${guest_devices}")
	set_tests_properties("${name}" PROPERTIES
		TIMEOUT ${timeout}
		SKIP_RETURN_CODE 77
		LABELS "${labels};arm64-guest"
		ENVIRONMENT "${guest_env}"
		RUN_SERIAL TRUE)
endmacro()
