/* SPDX-License-Identifier: MIT */
/*
 * Helpers of the program-cache tests (cache-test.h).
 */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "accelc.h"
#include "cache-test.h"

const char src[] =
	"#include \"val.h\"\n"
	"kernel void k(global int *o) { o[get_global_id(0)] = VAL + 1; }\n";

void rm_tree(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;

	while (d && (e = readdir(d))) {
		char p[512];

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(p, sizeof(p), "%s/%s", path, e->d_name);
		if (e->d_type == DT_DIR)
			rm_tree(p);
		else
			unlink(p);
	}
	if (d)
		closedir(d);
	rmdir(path);
}

void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

int setup(void **state)
{
	struct env *e = calloc(1, sizeof(*e));
	char p[128];

	if (!e)
		return -1;
	strcpy(e->inc, "/tmp/accelc-cache-test-XXXXXX");
	if (!mkdtemp(e->inc))
		return -1;
	/* the cache directory itself is made by the compiler */
	snprintf(e->dir, sizeof(e->dir), "%s/cache", e->inc);
	snprintf(p, sizeof(p), "%s/val.h", e->inc);
	write_text(p, "#define VAL 41\n");
	*state = e;
	return 0;
}

int teardown(void **state)
{
	struct env *e = *state;

	rm_tree(e->inc);
	free(e);
	return 0;
}

/* Build; return the cache status, check the result is complete. */
uint32_t build_st(struct env *e, const struct build *b, char **log)
{
	struct accelc_options o = { .struct_size = sizeof(o) };
	struct accelc_result *res = NULL;
	const struct accelc_kernel_info *k;
	char opts[256];
	const void *data;
	size_t size;
	uint32_t st;
	int r;

	snprintf(opts, sizeof(opts), "-I%s %s", e->inc,
		 b->defines ? b->defines : "");
	o.build_options = opts;
	o.cache_dir = e->dir;
	o.cache_max_size = b->max_size;
	o.cpu = b->cpu;
	o.cpu_features = b->features;
	r = accelc_compile(&o, b->src ? b->src : src,
			   strlen(b->src ? b->src : src), &res);
	if (r)
		fprintf(stderr, "%s\n", accelc_result_get_log(res));
	assert_int_equal(r, 0);
	k = accelc_result_find_kernel(res, "k");
	assert_non_null(k);
	assert_int_equal(k->n_args, 1);
	assert_string_equal(k->args[0].name, "o");
	assert_int_equal(accelc_result_get_container(res, &data, &size), 0);
	assert_non_null(accelc_result_get_path(res));
	if (log)
		*log = strdup(accelc_result_get_log(res));
	st = accelc_result_get_cache_status(res);
	accelc_result_free(res);
	return st;
}

int count_entries(struct env *e, uint64_t *bytes)
{
	DIR *d = opendir(e->dir);
	struct dirent *de;
	int n = 0;

	if (bytes)
		*bytes = 0;
	while (d && (de = readdir(d))) {
		size_t l = strlen(de->d_name);
		struct stat st;
		char p[512];

		if (l < 4 || strcmp(de->d_name + l - 4, ".bin"))
			continue;
		snprintf(p, sizeof(p), "%s/%s", e->dir, de->d_name);
		if (stat(p, &st) == 0 && bytes)
			*bytes += (uint64_t)st.st_size;
		strcpy(e->entry, p);
		n++;
	}
	if (d)
		closedir(d);
	return n;
}

void numbered_src(char *buf, size_t size, int value)
{
	snprintf(buf, size, "kernel void k(global int *o) { o[0] = %d; }\n",
		 value);
}
