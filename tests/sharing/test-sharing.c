/* SPDX-License-Identifier: MIT */
/*
 * Zero-copy dma-buf sharing, end to end, through the public API only: the
 * acceptance tests of the sharing issue. The other side of each share is
 * a raw kernel peer (peer.c: the system heap, udmabuf, vgem through
 * libdrm) or libaccel's own DRM device on vgem.
 *
 * - round trips: every exporter x every importer, written on one side by
 *   every way it has (host map, queue write, kernel, the peer's own
 *   mapping) and read back on the other by every way, then the reverse;
 * - implicit sync: a vgem fence holding a buffer busy keeps our kernel
 *   from starting (and keeps no worker thread busy) until it signals; a
 *   read fence holds back writers only;
 * - sync_file import: a command waiting on a vgem fence's sync_file;
 * - frames as images: a vgem frame imported as a linear 2D image,
 *   blurred by a kernel into another frame or an exported buffer;
 * - bad input: every kind of fd that is not a dma-buf or sync_file,
 *   ranges beyond an import, writes into read-only imports, bad export
 *   flags and ranges; no fd leaked over 10,000 cycles.
 *
 * Meant for the kernel test tier (Debian's 6.12 kernel under QEMU, with
 * vgem, udmabuf and the system heap). On a host without them the cases
 * that need them skip; the binary exits 77 if none could run at all.
 *
 * One binary; the cases live in test-sharing-*.c by concern (roundtrip,
 * sync, errors, readonly, leaks, image), their fixtures in sharing-common.c.
 */
#include <stdio.h>

#include "sharing-common.h"

/* Cases that ran (not skipped): none at all makes the binary exit 77. */
static unsigned n_ran;

void ran_case(void)
{
	n_ran++;
}

int main(void)
{
#define CASE(fn) cmocka_unit_test_setup_teardown(fn, env_setup, env_teardown)
	const struct CMUnitTest tests[] = {
		CASE(test_roundtrip_cpu_udmabuf),
		CASE(test_roundtrip_cpu_heap),
		CASE(test_roundtrip_raw_heap),
		CASE(test_roundtrip_raw_udmabuf),
		CASE(test_roundtrip_libaccel_vgem),
		CASE(test_roundtrip_raw_vgem),
		CASE(test_export_identity),
		cmocka_unit_test_setup_teardown(test_implicit_sync_write_fence,
						env_setup_one_worker,
						env_teardown),
		cmocka_unit_test_setup_teardown(test_implicit_sync_read_fence,
						env_setup_one_worker,
						env_teardown),
		CASE(test_implicit_sync_exported),
		CASE(test_sync_file_wait),
		CASE(test_bad_import),
		CASE(test_bad_sync_file_import),
		CASE(test_bad_kernel_fds),
		CASE(test_import_ranges),
		CASE(test_readonly_fd_import),
		CASE(test_readonly_flag_import),
		CASE(test_export_flags),
		CASE(test_export_misaligned),
		CASE(test_leak_buffers),
		CASE(test_leak_sync_files),
		CASE(test_image_vgem_frames),
		CASE(test_image_export_frame),
	};
#undef CASE
	int r;

	r = TEST_RUN_GROUP("sharing", tests);
	if (r == 0 && n_ran == 0) {
		printf("# SKIP: no case could run here (needs udmabuf, the "
		       "system dma-buf heap or vgem: the kernel test tier)\n");
		return TEST_EXIT_SKIP;
	}
	return r ? 1 : 0;
}
