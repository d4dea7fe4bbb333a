/* SPDX-License-Identifier: MIT */
/*
 * Results: the container of a build (fresh, cached or loaded from a
 * binary), its kernel table and its code in a sealed memfd. The code is
 * dlopen()ed through /proc/self/fd, so no file name is ever shared with
 * other processes, and sealing means it cannot change after the checks.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "binary.h"
#include "result.h"

struct accelc_result *accelc_result_new(uint32_t flags)
{
	struct accelc_result *res = calloc(1, sizeof(*res));

	if (res) {
		res->flags = flags;
		res->code_fd = -1;
	}
	return res;
}

struct accelc_result *accelc_result_free(struct accelc_result *res)
{
	if (!res)
		return NULL;
	if (res->code_fd >= 0)
		close(res->code_fd);
	free(res->path);
	free(res->log);
	free(res->container);
	free(res->ir);
	free(res->asm_text);
	free(res->timings);
	accelc_free_kernels(res->kernels, res->n_kernels);
	free(res);
	return NULL;
}

const char *accelc_result_get_log(const struct accelc_result *res)
{
	return res && res->log ? res->log : "";
}

const char *accelc_result_get_timings(const struct accelc_result *res)
{
	return res ? res->timings : NULL;
}

const char *accelc_result_get_path(const struct accelc_result *res)
{
	return res ? res->path : NULL;
}

int accelc_result_get_binary(const struct accelc_result *res,
			     const void **data, size_t *size)
{
	if (!res || !res->code || !(res->flags & ACCELC_FLAG_KEEP_BINARY))
		return -ENOENT;
	*data = res->code;
	*size = res->code_size;
	return 0;
}

int accelc_result_get_container(const struct accelc_result *res,
				const void **data, size_t *size)
{
	if (!res || !res->container)
		return -ENOENT;
	*data = res->container;
	*size = res->container_size;
	return 0;
}

int accelc_result_get_fd(const struct accelc_result *res)
{
	return res && res->code_fd >= 0 ? res->code_fd : -ENOENT;
}

uint32_t accelc_result_get_cache_status(const struct accelc_result *res)
{
	return res ? res->cache_status : ACCELC_CACHE_OFF;
}

const char *accelc_result_get_ir(const struct accelc_result *res)
{
	return res ? res->ir : NULL;
}

const char *accelc_result_get_asm(const struct accelc_result *res)
{
	return res ? res->asm_text : NULL;
}

uint32_t accelc_result_get_kind(const struct accelc_result *res)
{
	return res ? res->kind : ACCELC_KIND_EXECUTABLE;
}

uint64_t accelc_result_get_global_size(const struct accelc_result *res)
{
	return res ? res->global_size : 0;
}

uint32_t accelc_result_get_kernel_count(const struct accelc_result *res)
{
	return res ? res->n_kernels : 0;
}

const struct accelc_kernel_info *
accelc_result_get_kernel(const struct accelc_result *res, uint32_t index)
{
	if (!res || index >= res->n_kernels)
		return NULL;
	return &res->kernels[index].info;
}

const struct accelc_kernel_info *
accelc_result_find_kernel(const struct accelc_result *res, const char *name)
{
	for (uint32_t i = 0; res && name && i < res->n_kernels; i++)
		if (!strcmp(res->kernels[i].info.name, name))
			return &res->kernels[i].info;
	return NULL;
}

static int code_memfd(const void *code, size_t size, int *ret)
{
	const char *p = code;
	int fd = memfd_create("accelc-program", MFD_CLOEXEC |
			      MFD_ALLOW_SEALING);

	if (fd < 0)
		return -errno;
	while (size) {
		ssize_t n = write(fd, p, size);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			close(fd);
			return n < 0 ? -errno : -EIO;
		}
		p += n;
		size -= (size_t)n;
	}
	if (fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_SHRINK |
		  F_SEAL_GROW | F_SEAL_SEAL) < 0) {
		int r = -errno;

		close(fd);
		return r;
	}
	*ret = fd;
	return 0;
}

/*
 * dlopen() matches names before files: while a library stays loaded under
 * a name (a live program, or one pinned after its release), dlopen() of
 * that name returns it, whatever the name leads to now, and the name
 * /proc/self/fd/N comes back with every reuse of fd N. So the name also
 * spells the memfd's inode number, in steps the kernel skips: "./" for a
 * 1 bit, "/" (an empty step) for a 0 bit, highest bit first, then N; inode
 * 6 as fd 9 is /proc/self/fd/././/9. A loaded object keeps its inode in
 * use, so no loaded object can have the name, short of the kernel reusing
 * an inode number that is in use; glibc, which compares files (device,
 * inode) after names, would hand back the old object then too: RTLD_NOLOAD
 * catches both, and a new memfd has a new inode. No file is written, and
 * the name costs a string, whatever number of objects are loaded.
 */
static int code_path(int fd, char **ret)
{
	char buf[sizeof("/proc/self/fd/") + 2 * 64 + 12];
	struct stat st;
	size_t len = strlen("/proc/self/fd/");
	int bit = 63;

	if (fstat(fd, &st) < 0)
		return -errno;
	memcpy(buf, "/proc/self/fd/", len);
	while (bit > 0 && !((uint64_t)st.st_ino >> bit))
		bit--;
	for (; bit >= 0; bit--) {
		if (((uint64_t)st.st_ino >> bit) & 1)
			buf[len++] = '.';
		buf[len++] = '/';
	}
	snprintf(buf + len, sizeof(buf) - len, "%d", fd);
	*ret = strdup(buf);
	return *ret ? 0 : -ENOMEM;
}

/* Is an object loaded under @p path, or from the file it names? */
static bool loaded(const char *path)
{
	void *old = dlopen(path, RTLD_LAZY | RTLD_NOLOAD);

	if (old)
		dlclose(old);
	return old != NULL;
}

#define CODE_TRIES 4

/* res->code_fd and res->path: the code in a memfd, its name to load by */
static int load_code(struct accelc_result *res, const void *code,
		     size_t size)
{
	int r = 0;

	for (int tries = 0; tries < CODE_TRIES; tries++) {
		r = code_memfd(code, size, &res->code_fd);
		if (!r)
			r = code_path(res->code_fd, &res->path);
		if (r || !loaded(res->path))
			return r;
		free(res->path);
		res->path = NULL;
		close(res->code_fd);
		res->code_fd = -1;
		r = -EEXIST;
	}
	return r;
}

int accelc_result_set_container(struct accelc_result *res, void *container,
				size_t size, const char *features,
				struct strbuf *log)
{
	struct accelc_binary b;
	char err[160];
	int r;

	r = accelc_binary_parse(container, size, &b, err, sizeof(err));
	if (r) {
		strbuf_printf(log, "error: program binary: %s\n", err);
		free(container);
		return r;
	}
	if (b.kind != ACCELC_KIND_EXECUTABLE)
		features = NULL;
	if (features) {
		r = accelc_binary_check_cpu(b.features, features, err,
					    sizeof(err));
		if (r)
			strbuf_printf(log, "error: program binary for CPU "
				      "'%s': %s\n", b.cpu, err);
	}
	if (!r && features) {
		r = accelc_elf_check_pages(b.code, b.code_size, err,
					   sizeof(err));
		if (r)
			strbuf_printf(log, "error: program binary: %s\n", err);
	}
	if (!r && features)
		r = load_code(res, b.code, b.code_size);
	if (!r) {
		res->kernels = calloc(b.n_kernels ? b.n_kernels : 1,
				      sizeof(*res->kernels));
		r = res->kernels ? 0 : -ENOMEM;
	}
	if (r) {
		accelc_binary_clear(&b);
		free(container);
		return r;
	}
	/* the infos move into the table; only the array is left to free */
	for (uint32_t i = 0; i < b.n_kernels; i++)
		res->kernels[i].info = b.kernels[i];
	res->n_kernels = b.n_kernels;
	res->kind = b.kind;
	res->global_size = b.global_size;
	res->container = container;
	res->container_size = size;
	res->code = b.code;
	res->code_size = b.code_size;
	b.n_kernels = 0;
	accelc_binary_clear(&b);
	return 0;
}

int accelc_load_binary(const struct accelc_options *opts, const void *data,
		       size_t size, struct accelc_result **ret)
{
	struct accelc_options o = { 0 };
	struct strbuf log = { 0 };
	struct accelc_result *res;
	char *cpu = NULL, *features = NULL;
	void *copy;
	int r;

	if (!data || !size || !ret)
		return -EINVAL;
	if (opts) {
		if (opts->struct_size < sizeof(uint32_t) * 2 ||
		    opts->struct_size > sizeof(o))
			return -EINVAL;
		memcpy(&o, opts, opts->struct_size);
	}
	res = accelc_result_new(o.flags & ACCELC_FLAG_KEEP_BINARY);
	copy = malloc(size);
	if (!res || !copy) {
		free(copy);
		return accelc_result_free(res), -ENOMEM;
	}
	memcpy(copy, data, size);
	/* a narrower target stands for a CPU that lacks the rest */
	if (o.cpu) {
		features = strdup(o.cpu_features ? o.cpu_features : "");
		r = features ? 0 : -ENOMEM;
	} else {
		r = accelc_target_resolve(o.target, &cpu, &features, NULL);
		if (r == -EINVAL)
			strbuf_printf(&log, "error: unknown target '%.64s'\n",
				      o.target ? o.target :
				      accelc_target_default());
	}
	if (r == 0)
		r = accelc_result_set_container(res, copy, size, features,
						&log);
	else
		free(copy);
	free(cpu);
	free(features);
	res->log = strdup(log.buf ? log.buf : "");
	strbuf_free(&log);
	if (r == -ENOMEM || !res->log)
		return accelc_result_free(res), -ENOMEM;
	*ret = res;
	return r;
}
