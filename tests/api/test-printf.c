/* SPDX-License-Identifier: MIT */
/*
 * printf() in OpenCL C kernels: every conversion against the host C
 * library's own output, vectors, many work-items, order across launches,
 * a full buffer, the default stdout sink, and formats the compiler must
 * refuse. Skips where the compiler module was not built.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test-common.h"

/* What the printf handler received. */
struct capture {
	pthread_mutex_t lock;
	char **rec;
	size_t n, cap;
	unsigned bad_length; /* length disagreed with the text */
};

static void capture_fn(struct accel_context *ctx, const char *text,
		       size_t length, void *data)
{
	struct capture *c = data;

	(void)ctx;
	pthread_mutex_lock(&c->lock);
	if (strlen(text) != length)
		c->bad_length++;
	if (c->n == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 64;
		c->rec = realloc(c->rec, c->cap * sizeof(*c->rec));
	}
	if (c->rec)
		c->rec[c->n++] = strdup(text);
	pthread_mutex_unlock(&c->lock);
}

static void capture_init(struct test_env *env, struct capture *c)
{
	memset(c, 0, sizeof(*c));
	pthread_mutex_init(&c->lock, NULL);
	assert_int_equal(accel_context_set_printf_fn(env->ctx, capture_fn, c),
			 0);
}

static size_t capture_count(struct capture *c)
{
	size_t n;

	pthread_mutex_lock(&c->lock);
	n = c->n;
	pthread_mutex_unlock(&c->lock);
	return n;
}

static void capture_fini(struct test_env *env, struct capture *c)
{
	assert_int_equal(accel_context_set_printf_fn(env->ctx, NULL, NULL), 0);
	assert_int_equal(c->bad_length, 0);
	for (size_t i = 0; i < c->n; i++)
		free(c->rec[i]);
	free(c->rec);
	pthread_mutex_destroy(&c->lock);
}

static bool have_compiler(struct test_env *env)
{
	return test_dev_u64(env->dev, ACCEL_DEVICE_U64_CAPS) &
	       ACCEL_DEVICE_CAP_COMPILER;
}

static struct accel_kernel *build(struct test_env *env, const char *src,
				  const char *name)
{
	struct accel_program *prog = NULL;
	struct accel_kernel *k = NULL;
	char *log = NULL;
	int r;

	r = accel_program_new_source(env->dev, src, 0, NULL, &log, &prog);
	if (r)
		print_error("build failed (%d):\n%s\n", r, log ? log : "");
	free(log);
	assert_int_equal(r, 0);
	assert_int_equal(accel_kernel_new(prog, name, &k), 0);
	accel_program_unref(prog);
	return k;
}

static char *vxfmt(const char *fmt, va_list ap)
{
	char *s = NULL;

	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	assert_non_null(s);
	return s;
}

/* Host snprintf, allocated. */
static char *xfmt(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *xfmt(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = vxfmt(fmt, ap);
	va_end(ap);
	return s;
}

/* The same with a format built at run time (vector elements). */
static char *xfmt_dyn(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = vxfmt(fmt, ap);
	va_end(ap);
	return s;
}

static void expect(struct capture *c, size_t i, char *want)
{
	assert_true(i < c->n);
	if (strcmp(c->rec[i], want))
		print_error("record %zu:\n got  '%s'\n want '%s'\n", i,
			    c->rec[i], want);
	assert_string_equal(c->rec[i], want);
	free(want);
}

static void run1(struct test_env *env, struct accel_kernel *k, uint64_t n)
{
	struct accel_ndrange r = test_ndrange(1, n, 0, 0, 0, 0, 0);

	test_launch_wait(env, k, &r);
}

static const char scalars_src[] =
	"kernel void scalars(global int *ret, int i, long l, uint u,\n"
	"		     ulong ul, float f, double d)\n"
	"{\n"
	"	ret[0] = printf(\"%d|%i|%5d|%-5d|%05d|%+d|% d\\n\",\n"
	"			i, i, i, i, i, i, i);\n"
	"	ret[1] = printf(\"%hhd|%hd|%ld|%hhu|%hu|%u|%lu\\n\", (char)i,\n"
	"			(short)i, l, (uchar)u, (ushort)u, u, ul);\n"
	"	ret[2] = printf(\"%x|%X|%#x|%o|%#o|%lx|%lX\\n\", u, u, u, u,\n"
	"			u, ul, ul);\n"
	"	ret[3] = printf(\"%f|%.2f|%10.3f|%-10.1f|%e|%E|%g|%G|%a|%A\\n\",\n"
	"			f, f, f, f, d, d, d, d, d, d);\n"
	"	ret[4] = printf(\"%c%c|%s|%.3s|%8s|%-8s|%%|100%%\\n\", 'o',\n"
	"			'k', \"literal\", \"literal\", \"abc\", \"abc\");\n"
	"	ret[5] = printf(\"%*d|%-*d|%.*f|%*.*f|%*d|\\n\", 6, i, 6, i,\n"
	"			3, d, 9, 2, d, -6, i);\n"
	"	ret[6] = printf(\"no conversions\\n\");\n"
	"	ret[7] = printf(\"%p\\n\", ret);\n"
	"	ret[8] = printf(\"%f|%f|%e\\n\", INFINITY, -INFINITY, NAN);\n"
	"}\n";

static void test_scalars(void **state)
{
	struct test_env *env = *state;
	int32_t i = -42, ret[9];
	int64_t l = -1234567890123;
	uint32_t u = 0xdeadbeef;
	uint64_t ul = 0x123456789abcdefull;
	float f = 3.14159f;
	double d = -2.5e-3;
	struct accel_kernel *k;
	struct accel_buffer *out;
	struct capture c;
	void *addr;
	size_t n = 0;

	if (!have_compiler(env))
		skip();
	capture_init(env, &c);
	k = build(env, scalars_src, "scalars");
	out = test_buffer_new(env, sizeof(ret));
	assert_int_equal(accel_kernel_set_arg_buffer(k, 0, out), 0);
	assert_int_equal(accel_kernel_set_arg_value(k, 1, 4, &i), 0);
	assert_int_equal(accel_kernel_set_arg_value(k, 2, 8, &l), 0);
	assert_int_equal(accel_kernel_set_arg_value(k, 3, 4, &u), 0);
	assert_int_equal(accel_kernel_set_arg_value(k, 4, 8, &ul), 0);
	assert_int_equal(accel_kernel_set_arg_value(k, 5, 4, &f), 0);
	assert_int_equal(accel_kernel_set_arg_value(k, 6, 8, &d), 0);
	run1(env, k, 1);
	test_read(env, out, 0, sizeof(ret), ret);
	for (unsigned j = 0; j < 9; j++)
		assert_int_equal(ret[j], 0);
	assert_int_equal(capture_count(&c), 9);

	expect(&c, n++, xfmt("%d|%i|%5d|%-5d|%05d|%+d|% d\n", i, i, i, i, i,
			     i, i));
	expect(&c, n++, xfmt("%hhd|%hd|%ld|%hhu|%hu|%u|%lu\n", (signed char)i,
			     (short)i, (long)l, (unsigned char)u,
			     (unsigned short)u, u, (unsigned long)ul));
	expect(&c, n++, xfmt("%x|%X|%#x|%o|%#o|%lx|%lX\n", u, u, u, u, u,
			     (unsigned long)ul, (unsigned long)ul));
	expect(&c, n++, xfmt("%f|%.2f|%10.3f|%-10.1f|%e|%E|%g|%G|%a|%A\n",
			     (double)f, (double)f, (double)f, (double)f, d, d,
			     d, d, d, d));
	expect(&c, n++, xfmt("%c%c|%s|%.3s|%8s|%-8s|%%|100%%\n", 'o', 'k',
			     "literal", "literal", "abc", "abc"));
	expect(&c, n++, xfmt("%*d|%-*d|%.*f|%*.*f|%*d|\n", 6, i, 6, i, 3, d, 9,
			     2, d, -6, i));
	expect(&c, n++, xfmt("no conversions\n"));
	/* zero-copy device: the kernel sees the buffer at its host address */
	assert_int_equal(accel_buffer_map(out, 0, 4, ACCEL_MAP_READ, &addr),
			 0);
	expect(&c, n++, xfmt("%p\n", addr));
	assert_int_equal(accel_buffer_unmap(out, addr), 0);
	expect(&c, n++, xfmt("%f|%f|%e\n", (double)INFINITY,
			     (double)-INFINITY, (double)NAN));

	accel_buffer_unref(out);
	accel_kernel_unref(k);
	capture_fini(env, &c);
}

static const char vectors_src[] =
	"kernel void vectors(global int *ret)\n"
	"{\n"
	"	float4 f4 = (float4)(1.5f, -2.25f, 3.0f, 1e10f);\n"
	"	double2 d2 = (double2)(0.5, -7.125);\n"
	"	short8 s8 = (short8)(-1, 2, -3, 4, -5, 6, -7, 8);\n"
	"	uchar16 u16 = (uchar16)(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10,\n"
	"				11, 12, 13, 14, 15) * (uchar)17;\n"
	"	ret[0] = printf(\"%v4hlf|%v4hle|%v4hlg\\n\", f4, f4, f4);\n"
	"	ret[1] = printf(\"%v2lf|%10.2v2lf|%v2la\\n\", d2, d2, d2);\n"
	"	ret[2] = printf(\"%v8hd|%v8hx\\n\", s8, s8);\n"
	"	ret[3] = printf(\"%v16hhx|%#v16hho|%v16hhu\\n\", u16, u16, u16);\n"
	"	ret[4] = printf(\"%v2d|%v3hld|%v4ld\\n\", (int2)(-1, 2),\n"
	"			(int3)(1, -2, 3), (long4)(-1, 1L << 40, 3, 4));\n"
	"	ret[5] = printf(\"%v3hlf|%v16hlf\\n\", (float3)(1, 2, 3),\n"
	"			(float16)(0.25f));\n"
	"	ret[6] = printf(\"%#v2hlx|%+v2hli|%5v4hhd\\n\", (int2)(255, 16),\n"
	"			(int2)(5, -5), (char4)(1, -2, 3, -4));\n"
	"	ret[7] = printf(\"%v2hlf and %d\\n\", (float2)(1, 2), 7);\n"
	"}\n";

/* Elements formatted one by one with @cf, joined by ','. */
static char *join(const char *cf, unsigned n, const double *fv,
		  const long long *iv)
{
	char *out = strdup(""), *e, *t;

	for (unsigned i = 0; i < n; i++) {
		e = fv ? xfmt_dyn(cf, fv[i]) : xfmt_dyn(cf, iv[i]);
		t = xfmt("%s%s%s", out, i ? "," : "", e);
		free(out);
		free(e);
		out = t;
	}
	return out;
}

/* Concatenate and free the parts. */
static char *cat(unsigned n, ...)
{
	va_list ap;
	char *out = strdup(""), *p, *t;

	va_start(ap, n);
	for (unsigned i = 0; i < n; i++) {
		p = va_arg(ap, char *);
		t = xfmt("%s%s", out, p);
		free(out);
		free(p);
		out = t;
	}
	va_end(ap);
	return out;
}

static void test_vectors(void **state)
{
	struct test_env *env = *state;
	const double f4[] = { 1.5f, -2.25f, 3.0f, 1e10f }, d2[] = { 0.5,
								     -7.125 };
	const double f3[] = { 1, 2, 3 }, f16[16] = {
		0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25,
		0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25 };
	const double f2[] = { 1, 2 };
	long long s8[] = { -1, 2, -3, 4, -5, 6, -7, 8 }, s8u[8], u16[16];
	const long long i2[] = { -1, 2 }, i3[] = { 1, -2, 3 },
			l4[] = { -1, 1LL << 40, 3, 4 }, x2[] = { 255, 16 },
			p2[] = { 5, -5 }, c4[] = { 1, -2, 3, -4 };
	struct accel_kernel *k;
	struct accel_buffer *out;
	struct capture c;
	int32_t ret[8];

	if (!have_compiler(env))
		skip();
	for (unsigned i = 0; i < 8; i++)
		s8u[i] = (unsigned short)s8[i];
	for (unsigned i = 0; i < 16; i++)
		u16[i] = (unsigned char)(i * 17);
	capture_init(env, &c);
	k = build(env, vectors_src, "vectors");
	out = test_buffer_new(env, sizeof(ret));
	assert_int_equal(accel_kernel_set_arg_buffer(k, 0, out), 0);
	run1(env, k, 1);
	test_read(env, out, 0, sizeof(ret), ret);
	for (unsigned j = 0; j < 8; j++)
		assert_int_equal(ret[j], 0);
	assert_int_equal(capture_count(&c), 8);

	expect(&c, 0, cat(6, join("%f", 4, f4, NULL), strdup("|"),
			  join("%e", 4, f4, NULL), strdup("|"),
			  join("%g", 4, f4, NULL), strdup("\n")));
	expect(&c, 1, cat(6, join("%f", 2, d2, NULL), strdup("|"),
			  join("%10.2f", 2, d2, NULL), strdup("|"),
			  join("%a", 2, d2, NULL), strdup("\n")));
	expect(&c, 2, cat(4, join("%lld", 8, NULL, s8), strdup("|"),
			  join("%llx", 8, NULL, s8u), strdup("\n")));
	expect(&c, 3, cat(6, join("%llx", 16, NULL, u16), strdup("|"),
			  join("%#llo", 16, NULL, u16), strdup("|"),
			  join("%llu", 16, NULL, u16), strdup("\n")));
	expect(&c, 4, cat(6, join("%lld", 2, NULL, i2), strdup("|"),
			  join("%lld", 3, NULL, i3), strdup("|"),
			  join("%lld", 4, NULL, l4), strdup("\n")));
	expect(&c, 5, cat(4, join("%f", 3, f3, NULL), strdup("|"),
			  join("%f", 16, f16, NULL), strdup("\n")));
	expect(&c, 6, cat(6, join("%#llx", 2, NULL, x2), strdup("|"),
			  join("%+lli", 2, NULL, p2), strdup("|"),
			  join("%5lld", 4, NULL, c4), strdup("\n")));
	expect(&c, 7, cat(2, join("%f", 2, f2, NULL), xfmt(" and %d\n", 7)));

	accel_buffer_unref(out);
	accel_kernel_unref(k);
	capture_fini(env, &c);
}

static const char many_src[] =
	"void say(int g)\n"
	"{\n"
	"	printf(\"A %d %v2hld\\n\", g, (int2)(g, 2 * g));\n"
	"}\n"
	"kernel void many(global int *ret)\n"
	"{\n"
	"	int g = get_global_id(0);\n"
	"	say(g);\n"
	"	ret[g] = printf(\"B %d %s\\n\", g, \"done\");\n"
	"}\n";

/* Every work-item's two lines, whole, the first before the second. */
static void test_many_items(void **state)
{
	struct test_env *env = *state;
	/* 24 + 32 bytes of records per work-item: fill at most half */
	uint64_t cap = test_dev_u64(env->dev,
				    ACCEL_DEVICE_U64_PRINTF_BUFFER_SIZE);
	const uint32_t n = (uint32_t)(cap / 112 < 20000 ? cap / 112 : 20000);
	uint32_t *pos_a, *pos_b;
	struct accel_kernel *k;
	struct accel_buffer *out;
	struct capture c;
	int32_t *ret;

	if (!have_compiler(env))
		skip();
	capture_init(env, &c);
	k = build(env, many_src, "many");
	out = test_buffer_new(env, n * 4);
	assert_int_equal(accel_kernel_set_arg_buffer(k, 0, out), 0);
	run1(env, k, n);
	ret = calloc(n, 4);
	pos_a = calloc(n, sizeof(*pos_a));
	pos_b = calloc(n, sizeof(*pos_b));
	assert_non_null(ret);
	assert_non_null(pos_a);
	assert_non_null(pos_b);
	test_read(env, out, 0, n * 4, ret);
	for (uint32_t i = 0; i < n; i++)
		assert_int_equal(ret[i], 0);
	assert_int_equal(capture_count(&c), 2 * n);
	for (size_t i = 0; i < c.n; i++) {
		unsigned g, x, y;
		char tail[8];

		if (c.rec[i][0] == 'A') {
			assert_int_equal(sscanf(c.rec[i], "A %u %u,%u", &g,
						&x, &y), 3);
			assert_true(g < n && x == g && y == 2 * g);
			assert_int_equal(pos_a[g], 0);
			pos_a[g] = (uint32_t)i + 1;
		} else {
			assert_int_equal(sscanf(c.rec[i], "B %u %4s", &g,
						tail), 2);
			assert_true(g < n);
			assert_string_equal(tail, "done");
			assert_int_equal(pos_b[g], 0);
			pos_b[g] = (uint32_t)i + 1;
		}
		/* one line per call: nothing else got in */
		assert_ptr_equal(strchr(c.rec[i], '\n'),
				 c.rec[i] + strlen(c.rec[i]) - 1);
	}
	for (uint32_t g = 0; g < n; g++)
		assert_true(pos_a[g] && pos_b[g] && pos_a[g] < pos_b[g]);
	free(ret);
	free(pos_a);
	free(pos_b);
	accel_buffer_unref(out);
	accel_kernel_unref(k);
	capture_fini(env, &c);
}

static const char order_src[] =
	"kernel void first(void)\n"
	"{\n"
	"	printf(\"first %d\\n\", (int)get_global_id(0));\n"
	"}\n"
	"kernel void second(void)\n"
	"{\n"
	"	printf(\"second %d\\n\", (int)get_global_id(0));\n"
	"}\n";

/*
 * Two launches in a row on an in-order queue: all of the first's output,
 * delivered by the time its fence signals, then the second's.
 */
static void test_order(void **state)
{
	struct test_env *env = *state;
	struct accel_ndrange r = test_ndrange(1, 4096, 0, 0, 0, 0, 0);
	struct accel_program *prog = NULL;
	struct accel_kernel *k1, *k2;
	struct accel_fence *f1 = NULL, *f2 = NULL;
	struct capture c;

	if (!have_compiler(env))
		skip();
	capture_init(env, &c);
	assert_int_equal(accel_program_new_source(env->dev, order_src, 0, NULL,
						  NULL, &prog),
			 0);
	assert_int_equal(accel_kernel_new(prog, "first", &k1), 0);
	assert_int_equal(accel_kernel_new(prog, "second", &k2), 0);
	for (int round = 0; round < 3; round++) {
		size_t base = capture_count(&c);

		assert_int_equal(accel_queue_launch(env->queue, k1, &r, 0,
						    NULL, &f1),
				 0);
		assert_int_equal(accel_queue_launch(env->queue, k2, &r, 0,
						    NULL, &f2),
				 0);
		assert_int_equal(test_wait_unref(f1), 0);
		/* the output came before the fence */
		assert_true(capture_count(&c) >= base + 4096);
		assert_int_equal(test_wait_unref(f2), 0);
		assert_int_equal(capture_count(&c), base + 8192);
		for (size_t i = 0; i < 8192; i++)
			assert_int_equal(strncmp(c.rec[base + i],
						 i < 4096 ? "first " :
							    "second ",
						 i < 4096 ? 6 : 7),
					 0);
	}
	accel_kernel_unref(k1);
	accel_kernel_unref(k2);
	accel_program_unref(prog);
	capture_fini(env, &c);
}

static const char overflow_src[] =
	"kernel void flood(global int *ret, global int *guard)\n"
	"{\n"
	"	int g = get_global_id(0);\n"
	"	ret[g] = printf(\"flood %d %d %d %d\\n\", g, g, g, g);\n"
	"	guard[g] = g;\n"
	"}\n";

/* More records than fit: the rest return -1, what fits comes out whole. */
static void test_overflow(void **state)
{
	struct test_env *env = *state;
	uint64_t cap = test_dev_u64(env->dev,
				    ACCEL_DEVICE_U64_PRINTF_BUFFER_SIZE);
	/* 8 bytes of header and four 8-byte arguments per record */
	uint32_t n = (uint32_t)(cap / 40) * 2 + 1000, ok = 0;
	struct accel_buffer *out, *guard;
	struct accel_kernel *k;
	struct capture c;
	int32_t *ret, *g;
	uint8_t *seen;

	if (!have_compiler(env))
		skip();
	assert_true(cap > 0);
	capture_init(env, &c);
	k = build(env, overflow_src, "flood");
	out = test_buffer_new(env, n * 4);
	guard = test_buffer_new(env, n * 4);
	assert_int_equal(accel_kernel_set_arg_buffer(k, 0, out), 0);
	assert_int_equal(accel_kernel_set_arg_buffer(k, 1, guard), 0);
	run1(env, k, n);
	ret = calloc(n, 4);
	g = calloc(n, 4);
	seen = calloc(n, 1);
	assert_non_null(ret);
	assert_non_null(g);
	assert_non_null(seen);
	test_read(env, out, 0, n * 4, ret);
	test_read(env, guard, 0, n * 4, g);
	for (uint32_t i = 0; i < n; i++) {
		assert_true(ret[i] == 0 || ret[i] == -1);
		ok += ret[i] == 0;
		assert_int_equal(g[i], (int32_t)i);
	}
	assert_true(ok > 0 && ok < n);
	assert_true(ok <= cap / 40);
	assert_int_equal(capture_count(&c), ok);
	for (size_t i = 0; i < c.n; i++) {
		unsigned a, b, x, y;

		assert_int_equal(sscanf(c.rec[i], "flood %u %u %u %u", &a, &b,
					&x, &y), 4);
		assert_true(a < n && a == b && a == x && a == y);
		assert_int_equal(ret[a], 0);
		assert_int_equal(seen[a], 0);
		seen[a] = 1;
	}
	/* the buffer is per launch: the next one has room again */
	run1(env, k, 10);
	test_read(env, out, 0, 40, ret);
	for (uint32_t i = 0; i < 10; i++)
		assert_int_equal(ret[i], 0);
	assert_int_equal(capture_count(&c), ok + 10);
	free(ret);
	free(g);
	free(seen);
	accel_buffer_unref(out);
	accel_buffer_unref(guard);
	accel_kernel_unref(k);
	capture_fini(env, &c);
}

static const char barrier_src[] =
	"kernel void rot(local int *t)\n"
	"{\n"
	"	int l = get_local_id(0), n = get_local_size(0);\n"
	"	t[l] = l;\n"
	"	barrier(CLK_LOCAL_MEM_FENCE);\n"
	"	printf(\"%d:%d\\n\", l, t[(l + 1) % n]);\n"
	"}\n";

/* Kernels with barriers (split into regions, or fibers) print too. */
static void test_barrier_kernel(void **state)
{
	struct test_env *env = *state;
	struct accel_ndrange r = test_ndrange(1, 64, 0, 0, 16, 0, 0);
	struct accel_kernel *k;
	struct capture c;
	unsigned count[16] = { 0 };

	if (!have_compiler(env))
		skip();
	capture_init(env, &c);
	k = build(env, barrier_src, "rot");
	assert_int_equal(accel_kernel_set_arg_local(k, 0, 16 * 4), 0);
	test_launch_wait(env, k, &r);
	assert_int_equal(capture_count(&c), 64);
	for (size_t i = 0; i < c.n; i++) {
		unsigned l, v;

		assert_int_equal(sscanf(c.rec[i], "%u:%u", &l, &v), 2);
		assert_true(l < 16);
		assert_int_equal(v, (l + 1) % 16);
		count[l]++;
	}
	for (unsigned l = 0; l < 16; l++)
		assert_int_equal(count[l], 4);
	accel_kernel_unref(k);
	capture_fini(env, &c);
}

/* Without a handler the output goes to stdout, flushed by completion. */
static void test_default_stdout(void **state)
{
	struct test_env *env = *state;
	static const char src[] =
		"kernel void hello(void)\n"
		"{\n"
		"	printf(\"hello %s %d\\n\", \"stdout\", 42);\n"
		"}\n";
	char path[] = "/tmp/accel-printf-XXXXXX", text[256] = "";
	struct accel_kernel *k;
	int fd, saved;
	ssize_t got;

	if (!have_compiler(env))
		skip();
	k = build(env, src, "hello");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	unlink(path);
	fflush(stdout);
	saved = dup(STDOUT_FILENO);
	assert_true(saved >= 0);
	assert_int_equal(dup2(fd, STDOUT_FILENO), STDOUT_FILENO);
	run1(env, k, 3);
	/* no fflush here: the launch's completion did it */
	got = pread(fd, text, sizeof(text) - 1, 0);
	assert_int_equal(dup2(saved, STDOUT_FILENO), STDOUT_FILENO);
	close(saved);
	close(fd);
	assert_int_equal(got, 3 * strlen("hello stdout 42\n"));
	assert_string_equal(text, "hello stdout 42\nhello stdout 42\n"
				  "hello stdout 42\n");
	accel_kernel_unref(k);
}

/* Formats the specification does not allow: build errors naming printf. */
static void test_bad_formats(void **state)
{
	struct test_env *env = *state;
	static const char *const bad[] = {
		"kernel void k(constant char *f) { printf(f, 1); }\n",
		"kernel void k(global int *p) { printf(\"%n\", p); }\n",
		"kernel void k(void) { printf(\"%v4hlf\\n\", (float2)(1)); }\n",
		"kernel void k(void) { printf(\"%v4s\\n\", \"x\"); }\n",
		"kernel void k(void) { printf(\"%hld\\n\", 1); }\n",
		"kernel void k(void) { printf(\"%d %d\\n\", 1); }\n",
		"kernel void k(void) { printf(\"%v5hld\\n\", 1); }\n",
	};

	if (!have_compiler(env))
		skip();
	for (unsigned i = 0; i < TEST_ARRAY_SIZE(bad); i++) {
		struct accel_program *prog = TEST_SENTINEL_PTR;
		char *log = NULL;

		assert_int_equal(accel_program_new_source(env->dev, bad[i], 0,
							  "-w", &log, &prog),
				 -ENOEXEC);
		assert_ptr_equal(prog, TEST_SENTINEL_PTR);
		assert_non_null(log);
		if (!strstr(log, "printf"))
			print_error("source %u, log:\n%s\n", i, log);
		assert_non_null(strstr(log, "printf"));
		free(log);
	}
}

/* A native kernel noting what the ABI gives it. */
static void probe_wg(void **args, const struct accel_wg_ctx *ctx)
{
	uint64_t *out = *(uint64_t **)args[0];

	out[0] = ctx->abi_version;
	out[1] = ctx->printf_buffer != NULL;
}

/* Native kernels never print: they get no buffer, the ABI is current. */
static void test_native(void **state)
{
	struct test_env *env = *state;
	struct accel_kernel_arg_desc arg = {
		.struct_size = sizeof(arg),
		.kind = ACCEL_KERNEL_ARG_BUFFER,
		.size = sizeof(void *),
		.address_space = ACCEL_KERNEL_ARG_ADDR_GLOBAL,
	};
	struct accel_native_kernel_desc desc = {
		.struct_size = sizeof(desc),
		.name = "probe",
		.fn = probe_wg,
		.n_args = 1,
		.args = &arg,
	};
	struct accel_program *prog = NULL;
	struct accel_kernel *k = NULL;
	struct accel_buffer *out;
	uint64_t got[2] = { 0, 1 };

	assert_int_equal(accel_program_new_native(env->dev, &desc, 1, &prog),
			 0);
	assert_int_equal(accel_kernel_new(prog, "probe", &k), 0);
	out = test_buffer_new(env, sizeof(got));
	assert_int_equal(accel_kernel_set_arg_buffer(k, 0, out), 0);
	run1(env, k, 1);
	test_read(env, out, 0, sizeof(got), got);
	assert_int_equal(got[0], ACCEL_WG_ABI_VERSION);
	assert_true(ACCEL_WG_ABI_VERSION >= 2);
	assert_int_equal(got[1], 0);
	accel_buffer_unref(out);
	accel_kernel_unref(k);
	accel_program_unref(prog);
}

static void test_api(void **state)
{
	struct test_env *env = *state;

	assert_int_equal(accel_context_set_printf_fn(NULL, capture_fn, NULL),
			 -EINVAL);
	assert_int_equal(accel_context_set_printf_fn(env->ctx, NULL, NULL), 0);
	assert_true(test_dev_u64(env->dev,
				 ACCEL_DEVICE_U64_PRINTF_BUFFER_SIZE) >= 1024);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_api, test_env_setup,
						test_env_teardown),
		cmocka_unit_test_setup_teardown(test_native, test_env_setup,
						test_env_teardown),
		cmocka_unit_test_setup_teardown(test_scalars, test_env_setup,
						test_env_teardown),
		cmocka_unit_test_setup_teardown(test_vectors, test_env_setup,
						test_env_teardown),
		cmocka_unit_test_setup_teardown(test_many_items,
						test_env_setup,
						test_env_teardown),
		cmocka_unit_test_setup_teardown(test_order, test_env_setup,
						test_env_teardown),
		cmocka_unit_test_setup_teardown(test_overflow, test_env_setup,
						test_env_teardown),
		cmocka_unit_test_setup_teardown(test_barrier_kernel,
						test_env_setup,
						test_env_teardown),
		cmocka_unit_test_setup_teardown(test_default_stdout,
						test_env_setup,
						test_env_teardown),
		cmocka_unit_test_setup_teardown(test_bad_formats,
						test_env_setup,
						test_env_teardown),
	};

	return TEST_RUN_GROUP("printf", tests);
}
