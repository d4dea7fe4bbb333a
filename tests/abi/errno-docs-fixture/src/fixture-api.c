/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <unistd.h>

#define GONE (-ENODEV)

int fixture_load(const void *data, unsigned long size);

int accel_fixture_new_binary(const void *data, unsigned long size)
{
	if (!data)
		return -EINVAL;
	if (size == 1)
		return -EOPNOTSUPP;
	if (size == 2)
		return GONE;
	return fixture_load(data, size);
}

static int in_range(unsigned long size)
{
	return size > 100 ? -ERANGE : 0;
}

int accel_fixture_ok(const void *data, unsigned long size)
{
	int r;

	if (!data)
		return -EINVAL;
	r = in_range(size);
	if (r < 0)
		goto out;
	/* Compared, not returned. */
	if (r == -EAGAIN)
		r = 0;
	r = fixture_load(data, size);
out:
	return r;
}

int accel_fixture_alias(const void *data, unsigned long size)
{
	return accel_fixture_ok(data, size);
}

int accel_fixture_undocumented(int x)
{
	int r = 0;

	if (x) {
		r = -EBUSY;
	}
	return r;
}

int accel_fixture_runtime(int fd)
{
	return close(fd) < 0 ? -errno : 0;
}

struct fixture_ops {
	int (*probe)(int x);
};

extern const struct fixture_ops fixture_backend_ops;

/* A compared errno is not a returned one; the probe's -EPROTO is. */
int accel_fixture_probe(int x)
{
	int r = fixture_backend_ops.probe(x);

	return r == -EAGAIN ? -EINVAL : r;
}
