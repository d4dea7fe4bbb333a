/* SPDX-License-Identifier: MIT */
/*
 * accel-info top's readers (tools/accel-info-usage.c): DRM fdinfo text as
 * Documentation/gpu/drm-usage-stats.rst defines it, usage pages good and
 * bad, and this process's own page as libaccel keeps it.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <libaccel/libaccel.h>

#include "accel-info-usage.h"
#include "test-common.h"

static const struct usage_engine *find_engine(const struct usage_client *c,
					      const char *name)
{
	unsigned i;

	for (i = 0; i < c->n_engines; i++)
		if (!strcmp(c->engines[i].name, name))
			return &c->engines[i];
	return NULL;
}

static const struct usage_region *find_region(const struct usage_client *c,
					      const char *name)
{
	unsigned i;

	for (i = 0; i < c->n_regions; i++)
		if (!strcmp(c->regions[i].name, name))
			return &c->regions[i];
	return NULL;
}

static void test_fdinfo(void **state)
{
	static const char text[] =
		"pos:\t0\nflags:\t02100002\nmnt_id:\t24\nino:\t1053\n"
		"drm-driver:\trefaccel\n"
		"drm-client-id:\t42\n"
		"drm-pdev:\t0000:00:04.0\n"
		"drm-engine-compute:\t9288864 ns\n"
		"drm-engine-capacity-video:\t2\n"
		"drm-engine-video:\t1000 ns\n"
		"drm-cycles-render:\t100\n"
		"drm-total-cycles-render:\t1000\n"
		"drm-total-system0:\t16 KiB\n"
		"drm-resident-system0:\t8 KiB\n"
		"drm-shared-system0:\t0\n"
		"drm-memory-vram:\t2 MiB\n"
		"drm-purgeable-vram:\t1 GiB\n";
	struct usage_client c;
	const struct usage_engine *e;
	const struct usage_region *r;

	(void)state;
	memset(&c, 0, sizeof(c));
	assert_int_equal(usage_parse_fdinfo(text, &c), 0);
	assert_string_equal(c.driver, "refaccel");
	assert_string_equal(c.pdev, "0000:00:04.0");
	assert_int_equal(c.client_id, 42);
	assert_int_equal(c.n_engines, 3);
	e = find_engine(&c, "compute");
	assert_non_null(e);
	assert_true(e->has_busy);
	assert_int_equal(e->busy_ns, 9288864);
	assert_int_equal(e->capacity, 1);
	e = find_engine(&c, "video");
	assert_non_null(e);
	assert_int_equal(e->capacity, 2);
	assert_int_equal(e->busy_ns, 1000);
	e = find_engine(&c, "render");
	assert_non_null(e);
	assert_false(e->has_busy);
	assert_true(e->has_cycles && e->has_total_cycles);
	assert_int_equal(e->cycles, 100);
	assert_int_equal(e->total_cycles, 1000);
	r = find_region(&c, "system0");
	assert_non_null(r);
	assert_true(r->has_total && r->has_resident && r->has_shared);
	assert_int_equal(r->total, 16384);
	assert_int_equal(r->resident, 8192);
	assert_int_equal(r->shared, 0);
	r = find_region(&c, "vram");
	assert_non_null(r);
	/* drm-memory- is the older name of drm-resident-. */
	assert_true(r->has_resident);
	assert_false(r->has_total);
	assert_int_equal(r->resident, 2u << 20);
	assert_int_equal(r->purgeable, 1u << 30);
}

static void test_fdinfo_hostile(void **state)
{
	static const char not_drm[] = "pos:\t0\nflags:\t02\nmnt_id:\t24\n";
	static const char bad[] =
		"drm-driver:\tx\n"
		"drm-engine-a:\t99999999999999999999999 ns\n"
		"drm-total-b:\t18446744073709551615 KiB\n"
		"drm-engine-c:\t-5 ns\n"
		"drm-engine-d:\t12 parsecs\n"
		"drm-engine-capacity-e:\t0\n"
		"drm-engine-:\t1 ns\n"
		"no colon here\n"
		"drm-engine-f1:\t1\ndrm-engine-f2:\t1\ndrm-engine-f3:\t1\n"
		"drm-engine-f4:\t1\ndrm-engine-f5:\t1\ndrm-engine-f6:\t1\n"
		"drm-engine-f7:\t1\ndrm-engine-f8:\t1\ndrm-engine-f9:\t1\n";
	struct usage_client c;
	unsigned i;

	(void)state;
	memset(&c, 0, sizeof(c));
	assert_int_equal(usage_parse_fdinfo(not_drm, &c), -ENOENT);
	assert_int_equal(usage_parse_fdinfo("", &c), -ENOENT);
	assert_int_equal(usage_parse_fdinfo(bad, &c), 0);
	/* Unparsable values add nothing; the table stops at its size. */
	assert_int_equal(c.n_regions, 0);
	assert_int_equal(c.n_engines, USAGE_MAX_ENGINES);
	for (i = 0; i < c.n_engines; i++) {
		assert_int_equal(c.engines[i].name[0], 'f');
		assert_int_equal(c.engines[i].capacity, 1);
	}
}

static void test_page_hostile(void **state)
{
	struct accel_stats_page page;
	struct usage_client c;

	(void)state;
	memset(&page, 0, sizeof(page));
	memset(&c, 0, sizeof(c));
	assert_int_equal(usage_parse_page(&page, sizeof(page), 0, 1, &c),
			 -EINVAL);
	page.magic = ACCEL_STATS_MAGIC;
	page.version = ACCEL_STATS_VERSION;
	page.header_size = offsetof(struct accel_stats_page, devices);
	page.device_size = sizeof(struct accel_stats_device);
	page.n_devices = 1;
	page.devices[0].busy_ns = 10;
	page.devices[0].busy_since = 100;
	page.devices[0].memory_bytes = 4096;
	page.devices[0].imported_bytes = 1;
	memcpy(page.devices[0].name, "dev", 4);
	assert_int_equal(usage_parse_page(&page, 8, 0, 1, &c), -EINVAL);
	assert_int_equal(usage_parse_page(&page, sizeof(page), 1, 1, &c),
			 -ENOENT);
	assert_int_equal(usage_parse_page(&page, sizeof(page), 0, 150, &c), 0);
	assert_string_equal(c.device, "dev");
	assert_int_equal(c.engines[0].busy_ns, 60);
	assert_false(c.engines[0].has_busy); /* not watched */
	assert_int_equal(c.regions[0].total, 4097);
	assert_int_equal(c.regions[0].shared, 1);
	/* A slot count beyond what was read, a name without its NUL. */
	page.n_devices = 1000;
	memset(page.devices[0].name, 'x', sizeof(page.devices[0].name));
	assert_int_equal(usage_parse_page(&page, sizeof(page), 0, 1, &c), 0);
	assert_int_equal(strlen(c.device), sizeof(c.device) - 1);
	assert_int_equal(usage_parse_page(&page, sizeof(page),
					  ACCEL_STATS_MAX_DEVICES, 1, &c),
			 -ENOENT);
	page.device_size = 8;
	assert_int_equal(usage_parse_page(&page, sizeof(page), 0, 1, &c),
			 -EINVAL);
	page.device_size = sizeof(struct accel_stats_device);
	page.header_size = 1u << 30;
	assert_int_equal(usage_parse_page(&page, sizeof(page), 0, 1, &c),
			 -EINVAL);
}

static const struct usage_client *own_client(const struct usage_sample *s,
					     const char *name)
{
	size_t i;

	for (i = 0; i < s->n_clients; i++)
		if (s->clients[i].pid == (int)getpid() &&
		    s->clients[i].source == USAGE_LIBACCEL &&
		    !strcmp(s->clients[i].device, name))
			return &s->clients[i];
	return NULL;
}

/* This process's page, through /proc as accel-info top reads it. */
static void test_own_page(void **state)
{
	static const uint32_t pattern = 0x5a5a5a5a;
	struct accel_context *ctx;
	struct accel_device *dev;
	struct accel_buffer *buf;
	struct accel_queue *queue;
	struct accel_fence *fence;
	struct usage_sample s;
	const struct usage_client *c;
	const char *dev_name;
	char name[256];
	int i;

	(void)state;
	assert_int_equal(accel_context_new(0, &ctx), 0);
	assert_int_equal(test_get_cpu_device(ctx, &dev), 0);
	assert_int_equal(accel_device_query_string(dev, ACCEL_DEVICE_STRING_NAME,
						   &dev_name), 0);
	/* the device's string goes with the device */
	snprintf(name, sizeof(name), "%s", dev_name);
	assert_int_equal(accel_buffer_new(dev, 1 << 20, 0, &buf), 0);
	assert_int_equal(accel_queue_new(dev, 0, &queue), 0);

	/* Not watched yet: counts, but no busy time. */
	assert_int_equal(accel_queue_fill(queue, buf, 0, 1 << 20, &pattern,
					  sizeof(pattern), 0, NULL, &fence),
			 0);
	assert_int_equal(accel_fence_wait(fence, ACCEL_TIMEOUT_INFINITE), 0);
	accel_fence_unref(fence);
	assert_int_equal(usage_sample_collect("/proc", -1, true, &s), 0);
	c = own_client(&s, name);
	assert_non_null(c);
	assert_true(c->has_commands);
	assert_int_equal(c->submitted, 1);
	assert_int_equal(c->completed, 1);
	assert_int_equal(c->failed, 0);
	assert_int_equal(c->running, 0);
	assert_int_equal(c->buffers, 1);
	assert_int_equal(c->regions[0].total, 1 << 20);
	assert_false(c->engines[0].has_busy);
	usage_sample_clear(&s);

	/* The collector asked for busy time: now it is counted. */
	for (i = 0; i < 20; i++) {
		assert_int_equal(accel_queue_fill(queue, buf, 0, 1 << 20,
						  &pattern, sizeof(pattern), 0,
						  NULL, NULL),
				 0);
	}
	assert_int_equal(accel_queue_marker(queue, 0, NULL, &fence), 0);
	assert_int_equal(accel_fence_wait(fence, ACCEL_TIMEOUT_INFINITE), 0);
	accel_fence_unref(fence);
	assert_int_equal(usage_sample_collect("/proc", -1, false, &s), 0);
	c = own_client(&s, name);
	assert_non_null(c);
	/* Markers do no device work: not counted. */
	assert_int_equal(c->submitted, 21);
	assert_int_equal(c->completed, 21);
	assert_int_equal(c->running, 0);
	assert_true(c->engines[0].has_busy);
	assert_true(c->engines[0].busy_ns > 0);
	usage_sample_clear(&s);

	accel_queue_unref(queue);
	accel_buffer_unref(buf);
	assert_int_equal(usage_sample_collect("/proc", -1, false, &s), 0);
	c = own_client(&s, name);
	assert_non_null(c);
	assert_int_equal(c->buffers, 0);
	assert_int_equal(c->regions[0].total, 0);
	usage_sample_clear(&s);
	accel_device_unref(dev);
	accel_context_unref(ctx);

	/*
	 * The page goes with the context, which a worker thread may hold a
	 * moment after the last fence signalled: give it 2 s.
	 */
	for (i = 0; i < 200; i++) {
		bool gone;

		assert_int_equal(usage_sample_collect("/proc", -1, false, &s),
				 0);
		gone = !own_client(&s, name);
		usage_sample_clear(&s);
		if (gone)
			break;
		usleep(10000);
	}
	assert_true(i < 200);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fdinfo),
		cmocka_unit_test(test_fdinfo_hostile),
		cmocka_unit_test(test_page_hostile),
		cmocka_unit_test(test_own_page),
	};

	return TEST_RUN_GROUP("usage", tests);
}
