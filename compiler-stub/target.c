/* SPDX-License-Identifier: MIT */
/*
 * Code-generation targets: the host CPU, or an x86-64 micro-architecture
 * level of the psABI (x86-64, -v2, -v3, -v4), so that the code paths of
 * every level can be built, and run where the host has them, on any
 * machine. A level names LLVM's CPU of that name (its tuning: -v4 prefers
 * 256-bit vectors like Intel's AVX-512 cores) and exactly the level's
 * features: every other feature the host has is turned off.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accelc-private.h"
#include "binary.h"

/* LLVM's names of each level's features, each level adding to the last */
static const char *const level_features[][10] = {
	{ "64bit", "cx8", "cmov", "fxsr", "mmx", "sse", "sse2", NULL },
	{ "cx16", "sahf", "popcnt", "sse3", "ssse3", "sse4.1", "sse4.2",
	  "crc32", NULL },
	{ "avx", "avx2", "bmi", "bmi2", "f16c", "fma", "lzcnt", "movbe",
	  "xsave", NULL },
	{ "avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl", NULL },
};

static const char *const level_names[] = {
	"x86-64", "x86-64-v2", "x86-64-v3", "x86-64-v4",
};

#define N_LEVELS (sizeof(level_names) / sizeof(level_names[0]))

static int level_of(const char *name)
{
	for (unsigned i = 0; i < N_LEVELS; i++)
		if (!strcmp(name, level_names[i]))
			return (int)i;
	return -1;
}

static bool in_level(int level, const char *feat, size_t n)
{
	for (int l = 0; l <= level; l++)
		for (const char *const *f = level_features[l]; *f; f++)
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

/* The host's feature list with exactly @p level's features on. */
static char *level_feature_string(int level, const char *host)
{
	struct strbuf s = { 0 };

	for (const char *p = host; *p;) {
		const char *end = strchrnul(p, ',');
		size_t n = (size_t)(end - p);

		if (n > 1)
			strbuf_printf(&s, "%s%c%.*s", s.len ? "," : "",
				      in_level(level, p + 1, n - 1) ? '+' : '-',
				      (int)(n - 1), p + 1);
		p = *end ? end + 1 : end;
	}
	for (int l = 0; l <= level; l++)
		for (const char *const *f = level_features[l]; *f; f++)
			if (!listed(host, *f))
				strbuf_printf(&s, "%s+%s", s.len ? "," : "",
					      *f);
	if (s.truncated) {
		strbuf_free(&s);
		return NULL;
	}
	return s.buf ? s.buf : strdup("");
}

const char *accelc_target_default(void)
{
	const char *env = secure_getenv("ACCEL_CPU_TARGET");

	return env && *env ? env : "host";
}

int accelc_target_resolve(const char *target, char **cpu, char **features,
			  int *runs)
{
	char *hc = NULL, *hf = NULL, *c = NULL, *f = NULL;
	int level, r;

	if (!cpu || !features)
		return -EINVAL;
	if (!target)
		target = accelc_target_default();
	level = level_of(target);
	if (level < 0 && strcmp(target, "host") && strcmp(target, "native"))
		return -EINVAL;
	r = accelc_host_cpu(&hc, &hf);
	if (r)
		return r;
	if (level < 0) {
		c = hc;
		f = hf;
		hc = hf = NULL;
	} else {
		c = strdup(level_names[level]);
		f = level_feature_string(level, hf);
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
	return r;
}

const char *accelc_target_name(unsigned index)
{
	if (index == 0)
		return "host";
	return index <= N_LEVELS ? level_names[index - 1] : NULL;
}
