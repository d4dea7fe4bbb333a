/* SPDX-License-Identifier: MIT */
/*
 * Code-generation targets: the host CPU, or a code tier of the
 * architecture (codegen/target-<arch>.c: the x86-64 levels of the psABI,
 * x86-64 to -v4; AArch64's armv8-a and armv8.2-a+sve), so that the code
 * paths of every tier can be built, and run where the host has them, on
 * any machine of the architecture. A tier names its LLVM CPU and exactly
 * the tier's features: every other feature the host has is turned off.
 * Any other name is a CPU clang knows (-march=NAME, -mcpu=NAME on
 * AArch64): its features are what clang enables for it, read from the
 * "target-features" of a function clang compiles for that CPU.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "accelc-private.h"
#include "binary.h"
#include "feature-list.h"
#include "job.h"
#include "target-arch.h"

#define N_LEVELS accelc_n_tiers

static int level_of(const char *name)
{
	for (unsigned i = 0; i < N_LEVELS; i++)
		if (!strcmp(name, accelc_tiers[i].name))
			return (int)i;
	return -1;
}

static bool in_level(int level, const char *feat, size_t n)
{
	for (int l = 0; l <= level; l++)
		for (const char *const *f = accelc_tiers[l].features; *f; f++)
			if (strlen(*f) == n && !memcmp(*f, feat, n))
				return true;
	return false;
}

static bool listed(const char *features, const char *feat)
{
	size_t n = strlen(feat);

	for (const char *p = features; *p;) {
		const char *end = strchrnul(p, ',');

		if ((size_t)(end - p) == n + 1 && !memcmp(p + 1, feat, n))
			return true;
		p = *end ? end + 1 : end;
	}
	return false;
}

/*
 * Work-items per sub-group in code for @p features: the lanes of a float
 * vector (builtins/sub-group.cl). The CPU device reports the same from
 * its vector width (cpu-device.c), and program binaries carry the
 * features, so a kernel's width follows the code it holds.
 */
static uint32_t accelc_target_sub_group_width(const char *features)
{
	if (!features)
		return 4;
	return accelc_arch_vector_bits(features, strlen(features)) / 32;
}

/*
 * Kernel @p k's sub-group size in code for @p features: its
 * intel_reqd_sub_group_size, else the target's width halved while it does
 * not divide a reqd_work_group_size x above 1. The work-item loop runs x
 * items per row and vectorises them at most x wide, so a wider sub-group
 * would span rows for nothing (a kernel fixed at 8 x 4 gets sub-groups of
 * one row, as on 8-wide GPUs).
 */
uint32_t accelc_kernel_sub_group_size(const struct accelc_kernel_info *k,
				      const char *features)
{
	uint64_t x = k->reqd_work_group_size[0];
	uint32_t w = accelc_target_sub_group_width(features);

	if (k->reqd_sub_group_size)
		return k->reqd_sub_group_size;
	if (x > 1)
		while (x % w)
			w /= 2;
	return w;
}

/*
 * The host's feature list with exactly @p level's features on, or with
 * @p list's (a CPU's, from clang) when @p level is negative. Features
 * the host list does not name stay as the CPU name implies them.
 */
static char *feature_string(int level, const char *list, const char *host)
{
	struct strbuf s = { 0 };

	for (const char *p = host; *p;) {
		const char *end = strchrnul(p, ',');
		size_t n = (size_t)(end - p);
		/* clang lists no baseline features (x86-64's 64bit and
		 * cmov): always on */
		bool on = level >= 0 ? in_level(level, p + 1, n - 1) :
				       in_level(0, p + 1, n - 1) ||
					       accelc_feature_listed(list, p + 1, n - 1);

		if (n > 1)
			strbuf_printf(&s, "%s%c%.*s", s.len ? "," : "",
				      on ? '+' : '-', (int)(n - 1), p + 1);
		p = *end ? end + 1 : end;
	}
	for (int l = 0; l <= level; l++)
		for (const char *const *f = accelc_tiers[l].features; *f; f++)
			if (!listed(host, *f))
				strbuf_printf(&s, "%s+%s", s.len ? "," : "",
					      *f);
	if (s.truncated) {
		strbuf_free(&s);
		return NULL;
	}
	return s.buf ? s.buf : strdup("");
}

/*
 * What clang enables for CPU @p cpu (-march= or -mcpu=, as the
 * architecture spells it; malloc'ed "+a,+b" list).
 * @return 0, -EINVAL (clang knows no such CPU), -ENOENT (no clang),
 * -errno
 */
static int clang_cpu_features(const char *cpu, char **ret)
{
	static const char probe[] = "void f(void) {}\n";
	const char *base = secure_getenv("TMPDIR");
	struct strbuf out = { 0 };
	struct argv a = { 0 };
	char *clang = NULL, *dir = NULL, *src = NULL, *march = NULL;
	const char *p, *end;
	int r;

	if (strlen(cpu) > 64 || strspn(cpu, "abcdefghijklmnopqrstuvwxyz"
				       "0123456789-_") != strlen(cpu))
		return -EINVAL;
	r = accelc_find_clang(NULL, &clang);
	if (r)
		return r;
	if (asprintf(&dir, "%s/accelc-XXXXXX", base && *base ? base :
		     "/tmp") < 0) {
		dir = NULL;
		r = -ENOMEM;
		goto out;
	}
	if (!mkdtemp(dir)) {
		r = -errno;
		free(dir);
		dir = NULL;
		goto out;
	}
	if (asprintf(&src, "%s/cpu.c", dir) < 0 ||
	    asprintf(&march, "%s%s", accelc_arch_cpu_option, cpu) < 0) {
		src = march = NULL;
		r = -ENOMEM;
		goto out;
	}
	r = accelc_write_file(src, probe, sizeof(probe) - 1);
	if (r)
		goto out;
	argv_add(&a, clang);
	argv_add(&a, "-target");
	argv_add(&a, accelc_arch_triple);
	argv_add(&a, march);
	argv_add(&a, "-S");
	argv_add(&a, "-emit-llvm");
	argv_add(&a, "-o");
	argv_add(&a, "-");
	argv_add(&a, src);
	if (a.oom) {
		r = -ENOMEM;
		goto out;
	}
	r = accelc_spawn(a.v, &out, 30000);
	if (r > 0)
		r = -EINVAL; /* "unknown target CPU" */
	if (r)
		goto out;
	p = out.buf ? strstr(out.buf, "\"target-features\"=\"") : NULL;
	end = p ? strchr(p + 19, '"') : NULL;
	if (!end) {
		r = -EIO;
		goto out;
	}
	*ret = strndup(p + 19, (size_t)(end - p - 19));
	r = *ret ? 0 : -ENOMEM;
out:
	if (src)
		unlink(src);
	if (dir)
		rmdir(dir);
	free(src);
	free(dir);
	free(march);
	free(clang);
	argv_free(&a);
	strbuf_free(&out);
	return r;
}

const char *accelc_target_default(void)
{
	const char *env = secure_getenv("ACCEL_CPU_TARGET");

	return env && *env ? env : "host";
}

int accelc_target_resolve(const char *target, char **cpu, char **features,
			  int *runs)
{
	char *hc = NULL, *hf = NULL, *c = NULL, *f = NULL, *list = NULL;
	bool host;
	int level, r;

	if (!cpu || !features)
		return -EINVAL;
	if (!target)
		target = accelc_target_default();
	level = level_of(target);
	host = !strcmp(target, "host") || !strcmp(target, "native");
	if (level < 0 && !host) {
		r = clang_cpu_features(target, &list);
		if (r)
			return r;
	}
	r = accelc_host_cpu(&hc, &hf);
	if (r) {
		free(list);
		return r;
	}
	if (host) {
		c = hc;
		f = hf;
		hc = hf = NULL;
	} else {
		c = strdup(level >= 0 ? accelc_tiers[level].cpu : target);
		f = feature_string(level, list, hf);
	}
	if (!c || !f) {
		r = -ENOMEM;
		goto out;
	}
	if (runs)
		*runs = !hf || !accelc_binary_check_cpu(f, hf, NULL, 0);
	*cpu = c;
	*features = f;
	c = f = NULL;
out:
	free(c);
	free(f);
	free(hc);
	free(hf);
	free(list);
	return r;
}

const char *accelc_target_name(unsigned index)
{
	if (index == 0)
		return "host";
	return index <= N_LEVELS ? accelc_tiers[index - 1].name : NULL;
}
