/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>

int fixture_load(const void *data, unsigned long size);

static int check_size(unsigned long size)
{
	if (size > 64)
		return -E2BIG;
	return 0;
}

int fixture_load(const void *data, unsigned long size)
{
	int r = check_size(size);
	void *p;

	if (r < 0)
		return r;
	p = malloc(size);
	if (!p)
		return -ENOMEM;
	free(p);
	return data ? 0 : -EINVAL;
}

struct fixture_ops {
	int (*probe)(int x);
};

/* Reached only through the ops table: the scan must follow it. */
static int fixture_backend_probe(int x)
{
	return x ? -EPROTO : 0;
}

const struct fixture_ops fixture_backend_ops = {
	.probe = fixture_backend_probe,
};
