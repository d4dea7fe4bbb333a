// SPDX-License-Identifier: MIT
/*
 * probe: does the running kernel offer what libaccel's real-kernel tests
 * need?  udmabuf, the system dma-buf heap, dma-buf <-> sync_file, and vgem
 * as a source of real, unsignalled fences.  Plain libc and UAPI headers
 * only, so it tells the test tier apart from libaccel itself.
 *
 * One line per check, then "N passed, N failed".  Exit 0 if all passed,
 * 1 if any failed, 77 when not in the test VM and the kernel lacks the
 * facilities (the normal case on a build host).
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/dma-buf.h>
#include <linux/dma-heap.h>
#include <linux/sync_file.h>
#include <linux/udmabuf.h>

/* Debian's linux-libc-dev leaves the DRM UAPI to libdrm-dev. */
#include <libdrm/drm.h>
#include <libdrm/drm_mode.h>

/* vgem's fence ioctls: the kernel UAPI header libaccel vendors. */
#include "../../libaccel/uapi/drm/vgem_drm.h"

#define BUF_SIZE (64 * 1024)

static unsigned int n_pass;
static unsigned int n_fail;

/* Records one check; for a failure, fmt should say why. */
static bool check(bool ok, const char *name, const char *fmt, ...)
{
	va_list ap;

	if (ok) {
		n_pass++;
		printf("PASS %s\n", name);
	} else {
		n_fail++;
		printf("FAIL %s: ", name);
		va_start(ap, fmt);
		vprintf(fmt, ap);
		va_end(ap);
		putchar('\n');
	}
	fflush(stdout);
	return ok;
}

/* ioctl that retries on EINTR/EAGAIN, as libdrm's drmIoctl does. */
static int xioctl(int fd, unsigned long req, void *arg)
{
	int ret;

	do {
		ret = ioctl(fd, req, arg);
	} while (ret == -1 && (errno == EINTR || errno == EAGAIN));
	return ret;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static int sync_status(int sync_fd, unsigned int *num_fences,
		       struct sync_fence_info *first)
{
	struct sync_fence_info infos[8];
	struct sync_file_info info;

	memset(&info, 0, sizeof(info));
	memset(infos, 0, sizeof(infos));
	info.num_fences = 8;
	info.sync_fence_info = (uintptr_t)infos;
	if (xioctl(sync_fd, SYNC_IOC_FILE_INFO, &info))
		return -errno;
	if (num_fences)
		*num_fences = info.num_fences;
	if (first)
		*first = infos[0];
	return info.status;
}

/* 1 if readable within timeout_ms, 0 if not, -errno on error. */
static int poll_ready(int fd, int timeout_ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int ret;

	ret = poll(&pfd, 1, timeout_ms);
	if (ret < 0)
		return -errno;
	return ret > 0 && (pfd.revents & POLLIN);
}

static int export_sync_file(int dmabuf_fd, __u32 flags)
{
	struct dma_buf_export_sync_file arg = { .flags = flags, .fd = -1 };

	if (xioctl(dmabuf_fd, DMA_BUF_IOCTL_EXPORT_SYNC_FILE, &arg))
		return -errno;
	return arg.fd;
}

static int dmabuf_sync(int dmabuf_fd, __u64 flags)
{
	struct dma_buf_sync sync = { .flags = flags };

	return xioctl(dmabuf_fd, DMA_BUF_IOCTL_SYNC, &sync) ? -errno : 0;
}

/* Writes a pattern through map, reads it back; true if it held. */
static bool pattern_ok(uint8_t *map, size_t size, uint8_t seed)
{
	size_t i;

	for (i = 0; i < size; i++)
		map[i] = (uint8_t)(seed + i * 7);
	for (i = 0; i < size; i++)
		if (map[i] != (uint8_t)(seed + i * 7))
			return false;
	return true;
}

/* The "name:" line a dma-buf shows in /proc/self/fdinfo once named. */
static bool fdinfo_has_name(int fd, const char *name)
{
	char path[64], line[256], want[128];
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	snprintf(want, sizeof(want), "name:\t%s\n", name);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (!strcmp(line, want))
			found = true;
	fclose(f);
	return found;
}

/* --- udmabuf ---------------------------------------------------------------- */

static int probe_udmabuf(void)
{
	struct udmabuf_create create;
	struct dma_buf_import_sync_file imp;
	int memfd = -1, dev = -1, buf = -1, sync_fd = -1;
	uint8_t *map = MAP_FAILED;
	uint8_t back[16];
	int ret;

	memfd = memfd_create("probe-udmabuf", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	/* udmabuf insists the memfd can no longer shrink under it. */
	ret = memfd >= 0 && !ftruncate(memfd, BUF_SIZE) &&
	      !fcntl(memfd, F_ADD_SEALS, F_SEAL_SHRINK);
	if (!check(ret, "udmabuf: sealed memfd", "%s", strerror(errno)))
		goto out;

	dev = open("/dev/udmabuf", O_RDWR | O_CLOEXEC);
	if (!check(dev >= 0, "udmabuf: open /dev/udmabuf", "%s",
		   strerror(errno)))
		goto out;

	memset(&create, 0, sizeof(create));
	create.memfd = memfd;
	create.flags = UDMABUF_FLAGS_CLOEXEC;
	create.size = BUF_SIZE;
	buf = xioctl(dev, UDMABUF_CREATE, &create);
	if (!check(buf >= 0, "udmabuf: UDMABUF_CREATE", "%s", strerror(errno)))
		goto out;

	map = mmap(NULL, BUF_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, buf, 0);
	if (!check(map != MAP_FAILED, "udmabuf: mmap", "%s", strerror(errno)))
		goto out;

	ret = dmabuf_sync(buf, DMA_BUF_SYNC_START | DMA_BUF_SYNC_RW);
	check(!ret, "udmabuf: DMA_BUF_IOCTL_SYNC start", "%s", strerror(-ret));
	ret = pattern_ok(map, BUF_SIZE, 3);
	check(ret, "udmabuf: write/read through the mapping", "mismatch");
	ret = dmabuf_sync(buf, DMA_BUF_SYNC_END | DMA_BUF_SYNC_RW);
	check(!ret, "udmabuf: DMA_BUF_IOCTL_SYNC end", "%s", strerror(-ret));

	/* The dma-buf is the memfd's pages: the memfd must see the data. */
	ret = pread(memfd, back, sizeof(back), 100) == sizeof(back) &&
	      !memcmp(back, map + 100, sizeof(back));
	check(ret, "udmabuf: memfd sees the dma-buf's data", "mismatch");

	ret = xioctl(buf, DMA_BUF_SET_NAME, (char[]){ "accel-probe" });
	check(!ret && fdinfo_has_name(buf, "accel-probe"),
	      "udmabuf: DMA_BUF_SET_NAME shows in fdinfo", "%s",
	      ret ? strerror(errno) : "name not in fdinfo");

	/* No fences on it: the exported sync_file is already signalled. */
	sync_fd = export_sync_file(buf, DMA_BUF_SYNC_RW);
	if (check(sync_fd >= 0, "udmabuf: DMA_BUF_IOCTL_EXPORT_SYNC_FILE",
		  "%s", strerror(-sync_fd))) {
		ret = poll_ready(sync_fd, 0);
		check(ret == 1 && sync_status(sync_fd, NULL, NULL) == 1,
		      "udmabuf: exported sync_file is signalled",
		      "poll %d, status %d", ret,
		      sync_status(sync_fd, NULL, NULL));

		imp.flags = DMA_BUF_SYNC_WRITE;
		imp.fd = sync_fd;
		ret = xioctl(buf, DMA_BUF_IOCTL_IMPORT_SYNC_FILE, &imp);
		check(!ret, "udmabuf: DMA_BUF_IOCTL_IMPORT_SYNC_FILE", "%s",
		      strerror(errno));
	}

out:
	if (map != MAP_FAILED)
		munmap(map, BUF_SIZE);
	close_fd(&sync_fd);
	close_fd(&dev);
	close_fd(&memfd);
	/* Kept for the vgem checks, which import it. */
	return buf;
}

/* --- dma-buf heap ------------------------------------------------------------- */

/*
 * True if the guest kernel's config (ACCEL_KERNEL_CONFIG, set by the VM
 * tier) says "# CONFIG_<opt> is not set": Debian's arm64 6.12 kernel has
 * no dma-buf heaps, which is no failure of the guest.
 */
static bool kernel_lacks(const char *opt)
{
	const char *path = getenv("ACCEL_KERNEL_CONFIG");
	char want[128], line[256];
	bool found = false;
	FILE *f;

	if (!path || !*path || !(f = fopen(path, "re")))
		return false;
	snprintf(want, sizeof(want), "# CONFIG_%s is not set\n", opt);
	while (!found && fgets(line, sizeof(line), f))
		found = !strcmp(line, want);
	fclose(f);
	return found;
}

static void probe_heap(void)
{
	struct dma_heap_allocation_data alloc;
	int heap = -1, buf = -1, sync_fd = -1;
	uint8_t *map = MAP_FAILED;
	int ret;

	heap = open("/dev/dma_heap/system", O_RDONLY | O_CLOEXEC);
	if (heap < 0 && errno == ENOENT && kernel_lacks("DMABUF_HEAPS")) {
		printf("SKIP heap: the kernel is built without "
		       "CONFIG_DMABUF_HEAPS\n");
		return;
	}
	if (!check(heap >= 0, "heap: open /dev/dma_heap/system", "%s",
		   strerror(errno)))
		return;

	memset(&alloc, 0, sizeof(alloc));
	alloc.len = BUF_SIZE;
	alloc.fd_flags = O_RDWR | O_CLOEXEC;
	ret = xioctl(heap, DMA_HEAP_IOCTL_ALLOC, &alloc);
	if (!check(!ret, "heap: DMA_HEAP_IOCTL_ALLOC", "%s", strerror(errno)))
		goto out;
	buf = alloc.fd;

	map = mmap(NULL, BUF_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, buf, 0);
	if (check(map != MAP_FAILED, "heap: mmap", "%s", strerror(errno))) {
		ret = !dmabuf_sync(buf, DMA_BUF_SYNC_START | DMA_BUF_SYNC_RW) &&
		      pattern_ok(map, BUF_SIZE, 11) &&
		      !dmabuf_sync(buf, DMA_BUF_SYNC_END | DMA_BUF_SYNC_RW);
		check(ret, "heap: write/read with DMA_BUF_IOCTL_SYNC",
		      "sync failed or data mismatch");
	}

	sync_fd = export_sync_file(buf, DMA_BUF_SYNC_RW);
	check(sync_fd >= 0 && poll_ready(sync_fd, 0) == 1,
	      "heap: EXPORT_SYNC_FILE gives a signalled sync_file", "%s",
	      sync_fd < 0 ? strerror(-sync_fd) : "not signalled");

out:
	if (map != MAP_FAILED)
		munmap(map, BUF_SIZE);
	close_fd(&sync_fd);
	close_fd(&buf);
	close_fd(&heap);
}

/* --- vgem ----------------------------------------------------------------------- */

/* vgem's primary node: the render node refuses CREATE_DUMB. */
static int open_vgem(void)
{
	struct drm_version ver;
	char path[32], name[16];
	int i, fd;

	for (i = 0; i < 16; i++) {
		snprintf(path, sizeof(path), "/dev/dri/card%d", i);
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			continue;
		memset(&ver, 0, sizeof(ver));
		memset(name, 0, sizeof(name));
		ver.name = name;
		ver.name_len = sizeof(name) - 1;
		if (!xioctl(fd, DRM_IOCTL_VERSION, &ver) &&
		    !strcmp(name, "vgem"))
			return fd;
		close(fd);
	}
	return -ENOENT;
}

static void probe_vgem(int udmabuf_fd)
{
	struct drm_mode_create_dumb dumb;
	struct drm_prime_handle prime;
	struct drm_vgem_fence_attach attach;
	struct drm_vgem_fence_signal signal;
	struct sync_merge_data merge;
	struct sync_fence_info first;
	struct drm_gem_close gem_close;
	int card = -1, buf = -1, sync_fd = -1, other = -1;
	unsigned int num_fences = 0;
	uint8_t *map = MAP_FAILED;
	size_t size = 0;
	int ret, status;

	card = open_vgem();
	if (!check(card >= 0, "vgem: open the vgem card", "no /dev/dri/card* "
		   "with driver vgem (modprobe vgem?)"))
		return;

	memset(&dumb, 0, sizeof(dumb));
	dumb.width = 64;
	dumb.height = 64;
	dumb.bpp = 32;
	ret = xioctl(card, DRM_IOCTL_MODE_CREATE_DUMB, &dumb);
	if (!check(!ret, "vgem: DRM_IOCTL_MODE_CREATE_DUMB", "%s",
		   strerror(errno)))
		goto out;
	size = dumb.size;

	memset(&prime, 0, sizeof(prime));
	prime.handle = dumb.handle;
	prime.flags = DRM_CLOEXEC | DRM_RDWR;
	ret = xioctl(card, DRM_IOCTL_PRIME_HANDLE_TO_FD, &prime);
	if (!check(!ret, "vgem: PRIME export", "%s", strerror(errno)))
		goto out;
	buf = prime.fd;

	map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, buf, 0);
	check(map != MAP_FAILED && pattern_ok(map, size, 5),
	      "vgem: mmap of the exported dma-buf", "%s",
	      map == MAP_FAILED ? strerror(errno) : "data mismatch");

	/* A real fence nobody has signalled yet: what sw_sync would give. */
	memset(&attach, 0, sizeof(attach));
	attach.handle = dumb.handle;
	attach.flags = VGEM_FENCE_WRITE;
	ret = xioctl(card, DRM_IOCTL_VGEM_FENCE_ATTACH, &attach);
	if (!check(!ret, "vgem: VGEM_FENCE_ATTACH", "%s", strerror(errno)))
		goto out;

	/* Readers wait for writers: READ gets the write fence. */
	sync_fd = export_sync_file(buf, DMA_BUF_SYNC_READ);
	if (!check(sync_fd >= 0, "vgem: EXPORT_SYNC_FILE after the attach",
		   "%s", strerror(-sync_fd)))
		goto signal;

	ret = poll_ready(sync_fd, 0);
	check(ret == 0, "vgem: sync_file is unsignalled (poll)", "poll %d",
	      ret);
	status = sync_status(sync_fd, &num_fences, &first);
	check(status == 0 && num_fences >= 1 &&
	      !strcmp(first.driver_name, "vgem"),
	      "vgem: SYNC_IOC_FILE_INFO: active, vgem's fence",
	      "status %d, %u fences, driver '%.32s'", status, num_fences,
	      first.driver_name);

	if (udmabuf_fd >= 0) {
		other = export_sync_file(udmabuf_fd, DMA_BUF_SYNC_RW);
		memset(&merge, 0, sizeof(merge));
		strcpy(merge.name, "accel-probe-merge");
		merge.fd2 = other;
		ret = other >= 0 ? xioctl(sync_fd, SYNC_IOC_MERGE, &merge) : -1;
		check(!ret && poll_ready(merge.fence, 0) == 0,
		      "vgem: SYNC_IOC_MERGE with a signalled one stays unsignalled",
		      "%s", ret ? strerror(errno) : "signalled");
		if (!ret)
			close(merge.fence);
		close_fd(&other);
	}

signal:
	memset(&signal, 0, sizeof(signal));
	signal.fence = attach.out_fence;
	ret = xioctl(card, DRM_IOCTL_VGEM_FENCE_SIGNAL, &signal);
	check(!ret, "vgem: VGEM_FENCE_SIGNAL", "%s", strerror(errno));
	if (sync_fd >= 0) {
		ret = poll_ready(sync_fd, 2000);
		status = sync_status(sync_fd, NULL, NULL);
		check(ret == 1 && status == 1,
		      "vgem: the signal wakes poll, status signalled",
		      "poll %d, status %d", ret, status);
	}

	if (udmabuf_fd >= 0) {
		memset(&prime, 0, sizeof(prime));
		prime.fd = udmabuf_fd;
		ret = xioctl(card, DRM_IOCTL_PRIME_FD_TO_HANDLE, &prime);
		check(!ret && prime.handle, "vgem: PRIME import of a udmabuf",
		      "%s", strerror(errno));
		if (!ret) {
			memset(&gem_close, 0, sizeof(gem_close));
			gem_close.handle = prime.handle;
			xioctl(card, DRM_IOCTL_GEM_CLOSE, &gem_close);
		}
	}

out:
	if (map != MAP_FAILED)
		munmap(map, size);
	close_fd(&sync_fd);
	close_fd(&buf);
	close_fd(&card);
}

/* --- main --------------------------------------------------------------------- */

static bool has_vgem(void)
{
	int fd = open_vgem();

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

int main(void)
{
	const char *in_vm = getenv("ACCEL_KERNEL_VM");
	char missing[256] = "";
	int udmabuf_fd;

	if (access("/dev/udmabuf", F_OK))
		strcat(missing, " /dev/udmabuf");
	if (access("/dev/dma_heap/system", F_OK) &&
	    !kernel_lacks("DMABUF_HEAPS"))
		strcat(missing, " /dev/dma_heap/system");
	if (!has_vgem())
		strcat(missing, " vgem");
	/* In the test VM everything must be there; elsewhere it rarely is. */
	if (missing[0] && !(in_vm && !strcmp(in_vm, "1"))) {
		printf("probe: SKIP: this kernel lacks%s (run it through "
		       "tests/kernel/vm-run.sh)\n", missing);
		return 77;
	}

	udmabuf_fd = probe_udmabuf();
	probe_heap();
	probe_vgem(udmabuf_fd);
	close_fd(&udmabuf_fd);

	printf("%u passed, %u failed\n", n_pass, n_fail);
	return n_fail ? 1 : 0;
}
