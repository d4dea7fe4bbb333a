/* SPDX-License-Identifier: MIT */
/*
 * The GEM layer the DRM-facing backends share (backends/drm/ and
 * backends/accel/): the per-file handle table, PRIME and syncobj over
 * accel_ioctl (0 or a negative errno, like the rest of libaccel, and
 * one seam for tests that fake a node with -Wl,--wrap=accel_ioctl).
 */
#ifndef LIBACCEL_GEM_H
#define LIBACCEL_GEM_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <drm.h>

/* What a backend's device embeds. */
struct gem_device {
	int fd;                       /* the node; the backend owns it */
	uint32_t prime_caps;          /* DRM_PRIME_CAP_* */
	/*
	 * GEM handles are per open file and not counted by the kernel:
	 * importing a dma-buf this file already knows (twice the same fd,
	 * or our own export) returns the same handle, and one GEM_CLOSE
	 * would pull it from under every buffer using it. So each handle
	 * has a count of its users here.
	 */
	pthread_mutex_t handles_lock;
	void *handles;                /* tsearch(3) tree */
	size_t n_handles;             /* in the tree (tests check it) */
};

void gem_device_init(struct gem_device *g, int fd, uint32_t prime_caps);
/* Every handle must be put by now. Does not close the fd. */
void gem_device_fini(struct gem_device *g);

/* ---- handle table (gem-handle.c) ---- */

/*
 * A new object: create(fd, arg, &handle) is the driver's create ioctl,
 * run under the table's lock so that the handle is counted before any
 * other thread can close it. 0 or a negative errno.
 */
int gem_handle_create(struct gem_device *g,
		      int (*create)(int fd, void *arg, uint32_t *ret_handle),
		      void *arg, uint32_t *ret_handle);
/* The handle of @dmabuf (PRIME import), one more user of it. */
int gem_handle_import(struct gem_device *g, int dmabuf, uint32_t *ret_handle);
/* One user less; GEM_CLOSE after the last. */
void gem_handle_put(struct gem_device *g, uint32_t handle);

/* ---- PRIME (gem-prime.c) ---- */

int gem_prime_fd_to_handle(int fd, int dmabuf, uint32_t *ret_handle);
/* @flags: O_CLOEXEC, O_RDWR. */
int gem_prime_handle_to_fd(int fd, uint32_t handle, uint32_t flags,
			   int *ret_fd);
int gem_close(int fd, uint32_t handle);

#endif /* LIBACCEL_GEM_H */
