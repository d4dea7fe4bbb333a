/* SPDX-License-Identifier: MIT */
/*
 * The umockdev testbed of the discovery tests (udev-testbed.c).
 */
#ifndef ACCEL_TEST_UDEV_TESTBED_H
#define ACCEL_TEST_UDEV_TESTBED_H

#include <stdbool.h>

#include "test-common.h"

#include "backend.h"

/* After libaccel's macros: GLib redefines MIN and MAX its own way. */
#include <umockdev.h>

/*
 * One testbed for the whole run, made before the group's fd snapshot:
 * umockdev keeps a few sockets and eventfds of its own per testbed, which
 * the fd-leak check must not blame on libaccel.
 */
extern UMockdevTestbed *testbed;

struct fixture {
	struct test_log log;
	struct accel_context *ctx;
};

/* cmocka setup/teardown: a fresh context with captured logging. */
int setup(void **state);
int teardown(void **state);

/* A PCI device (NULL @driver: none bound); its syspath, g_free() it. */
char *add_pci(UMockdevTestbed *tb, const char *slot, const char *vendor,
	      const char *device, const char *numa, const char *driver);

/* A device node of @subsystem under @parent (a plain file at @devname). */
bool add_node(UMockdevTestbed *tb, const char *subsystem, const char *name,
	      const char *parent, const char *devname, const char *devtype,
	      const char *major, const char *minor);

/* The testbed file behind @devnode; g_free() it. */
char *testbed_file(const char *devnode);

/* The index of the candidate named @sysname, or -1. */
int candidate_find(struct accel_context *ctx, const char *sysname);

/* Whether the file at @path contains @needle (else print what it holds). */
bool file_contains(const char *path, const char *needle);

/*
 * The last test of a group: umockdev serves opens of its device nodes on
 * sockets from its own thread and closes its ends some time after ours;
 * wait (up to 5 s) for the fds to be the group's at setup again.
 */
void udev_testbed_settle(void **state);

/*
 * main(): re-execute under umockdev-wrapper if needed (skip, 77, without
 * it), build the standard testbed, run the group.
 */
int udev_testbed_main(int argc, char **argv, const char *name,
		      const struct CMUnitTest *tests, size_t n);

#endif /* ACCEL_TEST_UDEV_TESTBED_H */
