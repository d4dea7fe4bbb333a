/* SPDX-License-Identifier: MIT */
/*
 * Fixture of check-errno-docs.py --self-test: the shape of a real miss
 * (accel_program_new_binary() returned -E2BIG from a helper two calls
 * down, in another file, that its doc did not list) and of what must
 * pass. expected.txt lists the problems the check must report.
 */

/*
 * Common errors: -EINVAL (NULL argument), -ENOMEM.
 */

/**
 * Misses -E2BIG (fixture_load() -> check_size()) and -ENODEV (a macro).
 * @return 0, -EINVAL, -EOPNOTSUPP
 */
int accel_fixture_new_binary(const void *data, unsigned long size);

/**
 * Documents everything it returns, some of it through the common errors.
 * @return 0, the common errors, -E2BIG, -ERANGE
 */
int accel_fixture_ok(const void *data, unsigned long size);

/**
 * @return as accel_fixture_ok()
 */
int accel_fixture_alias(const void *data, unsigned long size);

/** Returns -EBUSY through a variable, with no @return at all. */
int accel_fixture_undocumented(int x);

/**
 * Computes an errno it does not write: nothing to report.
 * @return 0 or a negative errno
 */
int accel_fixture_runtime(int fd);

/**
 * Misses -EPROTO of the backend behind an ops table.
 * @return 0, -EINVAL
 */
int accel_fixture_probe(int x);
