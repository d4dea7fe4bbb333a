/* SPDX-License-Identifier: MIT */
/*
 * What the program-cache tests share: a directory per test (setup,
 * teardown), a build through the cache and a count of its entries.
 */
#ifndef ACCELC_CACHE_TEST_H
#define ACCELC_CACHE_TEST_H

#include <stddef.h>
#include <stdint.h>

struct env {
	char dir[128];  /* the cache */
	char inc[80];   /* include files */
	char entry[256]; /* the last entry found by count_entries() */
};

/* the default source: kernel k, o[gid] = VAL + 1 (val.h in env.inc) */
extern const char src[];

struct build {
	const char *src;     /* NULL: src */
	const char *defines; /* added to -I<inc> */
	const char *cpu, *features;
	uint64_t max_size;
};

void rm_tree(const char *path);
void write_text(const char *path, const char *text);
/* cmocka fixtures: *state is a struct env with val.h written */
int setup(void **state);
int teardown(void **state);
/* Build; return the cache status, check the result is complete. */
uint32_t build_st(struct env *e, const struct build *b, char **log);
/* Entries (.bin files) of the cache, their total size in *bytes. */
int count_entries(struct env *e, uint64_t *bytes);
/* "kernel void k(global int *o) { o[0] = VALUE; }": one entry per value */
void numbered_src(char *buf, size_t size, int value);

#endif
