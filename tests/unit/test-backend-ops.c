/* SPDX-License-Identifier: MIT */
/*
 * A third backend fits the program ops without touching the core: "toy",
 * a device with its own trivial compiler, put into a context the way a
 * backend's probe would (accel_device_alloc + accel_context_add_device).
 *
 * The toy language, one kernel per line:
 *     kernel NAME OP
 * OP is what the kernel does to the uint buffer of its argument 0 over
 * the global ids [offset, offset + size) of dimension 0:
 *     add1   (global uint *buf)            buf[i] += 1
 *     fill   (global uint *buf, uint v)    buf[i] = v
 * A kernel's handle is a struct toy_kernel; a program's backend_data is a
 * struct toy_program that counts its live kernels, so that program_fini
 * can check it comes after every kernel_free. The device also has one
 * built-in, "zero" (fill with 0), whose handle is a static object.
 *
 * Everything the test checks goes through the public API; the toy's own
 * counters only show the ops were called in the order backend.h promises.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test-common.h"

#include "internal/test-toy-device.h"

enum toy_op { TOY_ADD1 = 1, TOY_FILL };

struct toy_program {
	unsigned live_kernels;
};

struct toy_kernel {
	enum toy_op op;
	struct toy_program *prog;   /* NULL: a built-in */
};

/* What launch_prepare decides, kept in the command (cmd_priv). */
struct toy_job {
	enum toy_op op;
	uint32_t value;
};

/* Calls seen, to check the lifetimes the core promises. */
static struct {
	unsigned kernel_frees;
	unsigned program_finis;
	unsigned fini_with_live_kernels;
	unsigned prepares;
} seen;

static const struct toy_kernel toy_zero = { .op = TOY_FILL };

static const struct accel_kernel_arg_desc add1_args[] = {
	{ .struct_size = sizeof(struct accel_kernel_arg_desc),
	  .kind = ACCEL_KERNEL_ARG_BUFFER, .size = sizeof(void *),
	  .address_space = ACCEL_KERNEL_ARG_ADDR_GLOBAL,
	  .name = "buf", .type_name = "uint*" },
};

static const struct accel_kernel_arg_desc fill_args[] = {
	{ .struct_size = sizeof(struct accel_kernel_arg_desc),
	  .kind = ACCEL_KERNEL_ARG_BUFFER, .size = sizeof(void *),
	  .address_space = ACCEL_KERNEL_ARG_ADDR_GLOBAL,
	  .name = "buf", .type_name = "uint*" },
	{ .struct_size = sizeof(struct accel_kernel_arg_desc),
	  .kind = ACCEL_KERNEL_ARG_VALUE, .size = sizeof(uint32_t),
	  .address_space = ACCEL_KERNEL_ARG_ADDR_PRIVATE,
	  .name = "v", .type_name = "uint" },
};

static const struct accel_kernel_info toy_built_ins[] = {
	{ .name = "zero", .n_args = 1, .args = add1_args,
	  .handle = (void *)(uintptr_t)&toy_zero },
};

/* ---- the backend ---- */

static int toy_buffer_alloc(struct accel_buffer *buf)
{
	buf->host_ptr = calloc(1, buf->size);
	return buf->host_ptr ? 0 : -ENOMEM;
}

static void toy_buffer_free(struct accel_buffer *buf)
{
	free(buf->host_ptr);
}

static int toy_log(char **ret_log, const char *msg, unsigned line)
{
	if (ret_log && asprintf(ret_log, "toy: line %u: %s\n", line, msg) < 0)
		*ret_log = NULL;
	return -ENOEXEC;
}

/* The toy compiler: one "kernel NAME OP" per line. */
static int toy_compile(const char *src, size_t len,
		       struct accel_kernel_info **ret, uint32_t *ret_n,
		       char **ret_log)
{
	struct accel_kernel_info *infos = NULL;
	char *text = strndup(src, len), *line, *save = NULL;
	uint32_t n = 0;
	unsigned no = 0;
	int r = 0;

	if (!text)
		return -ENOMEM;
	for (line = strtok_r(text, "\n", &save); line && r == 0;
	     line = strtok_r(NULL, "\n", &save)) {
		char name[64], op[16];
		struct accel_kernel_info *k;
		void *grown;

		no++;
		if (sscanf(line, "kernel %63s %15s", name, op) != 2) {
			r = toy_log(ret_log, "expected: kernel NAME OP", no);
			break;
		}
		grown = realloc(infos, (n + 1) * sizeof(*infos));
		if (!grown) {
			r = -ENOMEM;
			break;
		}
		infos = grown;
		k = &infos[n];
		memset(k, 0, sizeof(*k));
		if (!strcmp(op, "add1")) {
			k->n_args = 1;
			k->args = add1_args;
		} else if (!strcmp(op, "fill")) {
			k->n_args = 2;
			k->args = fill_args;
		} else {
			r = toy_log(ret_log, "unknown operation", no);
			break;
		}
		k->name = strdup(name);
		k->handle = calloc(1, sizeof(struct toy_kernel));
		n++;
		if (!k->name || !k->handle)
			r = -ENOMEM;
		else
			((struct toy_kernel *)k->handle)->op =
				k->n_args == 1 ? TOY_ADD1 : TOY_FILL;
	}
	free(text);
	if (r == 0 && ret_log)
		*ret_log = strdup("toy: ok\n");
	*ret = infos;
	*ret_n = n;
	return r;
}

static void toy_infos_free(struct accel_kernel_info *infos, uint32_t n,
			   bool handles)
{
	for (uint32_t i = 0; i < n; i++) {
		free((char *)infos[i].name);
		if (handles)
			free(infos[i].handle);
	}
	free(infos);
}

static int toy_program_build(struct accel_device *dev,
			     const struct accel_build_request *req,
			     char **ret_log, struct accel_program **ret)
{
	struct accel_program_desc desc = { .kind = ACCEL_PROGRAM_EXECUTABLE };
	struct accel_kernel_info *infos = NULL;
	struct toy_program *tp;
	uint32_t n = 0, i;
	int r;

	if (req->kind != ACCEL_BUILD_SOURCE)
		return -EOPNOTSUPP;
	r = toy_compile(req->source, req->length, &infos, &n, ret_log);
	if (r < 0) {
		toy_infos_free(infos, n, true);
		return r;
	}
	tp = calloc(1, sizeof(*tp));
	if (!tp) {
		toy_infos_free(infos, n, true);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++)
		((struct toy_kernel *)infos[i].handle)->prog = tp;
	tp->live_kernels = n;
	desc.n_kernels = n;
	desc.kernels = infos;
	desc.backend_data = tp;
	/* the handles are the core's from here, on failure too */
	r = accel_program_create(dev, &desc, ret);
	toy_infos_free(infos, n, false);
	if (r < 0)
		free(tp);
	return r;
}

static int toy_built_ins_get(struct accel_device *dev _unused_,
			     const struct accel_kernel_info **ret,
			     uint32_t *n)
{
	*ret = toy_built_ins;
	*n = TEST_ARRAY_SIZE(toy_built_ins);
	return 0;
}

static void toy_kernel_free(struct accel_device *dev _unused_, void *handle)
{
	struct toy_kernel *k = handle;

	assert_ptr_not_equal(k, &toy_zero); /* built-ins are never freed */
	k->prog->live_kernels--;
	seen.kernel_frees++;
	free(k);
}

static void toy_program_fini(struct accel_program *prog)
{
	struct toy_program *tp = prog->backend_data;

	if (!tp)
		return;
	seen.program_finis++;
	if (tp->live_kernels)
		seen.fini_with_live_kernels++;
	free(tp);
}

static int toy_launch_prepare(struct accel_queue *queue _unused_,
			      struct accel_cmd *cmd)
{
	const struct accel_launch *l = &cmd->u.launch;
	const struct toy_kernel *k = l->kernel->def->handle;
	struct toy_job *job = accel_cmd_priv(cmd);

	seen.prepares++;
	/* the toy engine is one-dimensional */
	if (l->work_dim != 1)
		return -EOPNOTSUPP;
	job->op = k->op;
	job->value = 0;
	if (k->op == TOY_FILL && l->n_args == 2)
		memcpy(&job->value, l->args[1], sizeof(job->value));
	return 0;
}

static int toy_execute(struct accel_queue *queue _unused_,
		       struct accel_cmd *cmd)
{
	const struct accel_launch *l = &cmd->u.launch;
	const struct toy_job *job = accel_cmd_priv(cmd);
	uint32_t *p;
	uint64_t i;

	switch (cmd->type) {
	case ACCEL_CMD_LAUNCH:
		if (l->n_buffers != 1)
			break;
		p = l->buffers[0]->host_ptr;
		for (i = l->global_offset[0];
		     i < l->global_offset[0] + l->global_size[0]; i++)
			p[i] = job->op == TOY_ADD1 ? p[i] + 1 : job->value;
		break;
	case ACCEL_CMD_WRITE:
		memcpy((uint8_t *)cmd->u.rw.buf->host_ptr + cmd->u.rw.offset,
		       cmd->u.rw.host, cmd->u.rw.size);
		break;
	case ACCEL_CMD_READ:
		memcpy(cmd->u.rw.host,
		       (uint8_t *)cmd->u.rw.buf->host_ptr + cmd->u.rw.offset,
		       cmd->u.rw.size);
		break;
	default:
		break;
	}
	accel_cmd_complete(cmd, 0);
	return 0;
}

static const struct accel_backend_ops toy_ops = {
	.name = "toy",
	.buffer_alloc = toy_buffer_alloc,
	.buffer_free = toy_buffer_free,
	.program_build = toy_program_build,
	/* no program_load_binary, no kernel_from_native */
	.get_built_in_kernels = toy_built_ins_get,
	.kernel_free = toy_kernel_free,
	.program_fini = toy_program_fini,
	.launch_prepare = toy_launch_prepare,
	.execute = toy_execute,
	.cmd_priv_size = sizeof(struct toy_job),
};

/* ---- the test, through the public API ---- */

struct fixture {
	struct test_log log;
	struct accel_context *ctx;
	struct accel_device *dev;   /* the toy device */
	struct accel_queue *q;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct accel_device *devs[8];
	int n, i;

	if (!f)
		return -1;
	memset(&seen, 0, sizeof(seen));
	test_log_init(&f->log);
	if (test_context_new(&f->log, &f->ctx) < 0)
		return -1;
	/* enumerate first: the toy device comes after the real ones */
	if (accel_context_get_devices(f->ctx, NULL, 0) < 0)
		return -1;
	/* what a backend's probe does, with the toy's properties */
	test_add_toy_device(f->ctx, &toy_ops, ACCEL_DEVICE_CAP_COMPILER);
	n = accel_context_get_devices(f->ctx, devs, TEST_ARRAY_SIZE(devs));
	if (n < 1 || n > (int)TEST_ARRAY_SIZE(devs))
		return -1;
	for (i = 0; i < n; i++) {
		const char *backend = NULL;

		if (!f->dev &&
		    accel_device_query_string(devs[i],
					      ACCEL_DEVICE_STRING_BACKEND,
					      &backend) == 0 &&
		    !strcmp(backend, "toy"))
			f->dev = accel_device_ref(devs[i]);
		accel_device_unref(devs[i]);
	}
	if (!f->dev || accel_queue_new(f->dev, 0, &f->q) < 0)
		return -1;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	accel_queue_unref(f->q);
	accel_device_unref(f->dev);
	accel_context_unref(f->ctx);
	test_log_fini(&f->log);
	free(f);
	return 0;
}

static struct accel_buffer *buffer_of(struct fixture *f, const uint32_t *v,
				      size_t n)
{
	struct accel_buffer *buf;

	assert_int_equal(accel_buffer_new(f->dev, n * sizeof(*v), 0, &buf), 0);
	assert_int_equal(accel_queue_write(f->q, buf, 0, n * sizeof(*v), v, 0,
					   NULL, NULL), 0);
	return buf;
}

static void launch(struct fixture *f, struct accel_kernel *k, uint64_t off,
		   uint64_t size)
{
	struct accel_ndrange r = test_ndrange(1, size, 0, 0, 0, 0, 0);

	r.global_offset[0] = off;
	assert_int_equal(accel_queue_launch(f->q, k, &r, 0, NULL, NULL), 0);
}

static void test_build_and_run(void **state)
{
	static const char src[] = "kernel inc add1\nkernel set fill\n";
	struct fixture *f = *state;
	uint32_t v[8] = { 0, 1, 2, 3, 4, 5, 6, 7 }, out[8], seven = 7;
	struct accel_kernel_arg_desc arg = { .struct_size = sizeof(arg) };
	struct accel_program *prog;
	struct accel_kernel *inc, *set;
	struct accel_buffer *buf;
	const char *name;
	char *log = NULL;

	assert_int_equal(accel_program_new_source(f->dev, src, 0, NULL, &log,
						  &prog), 0);
	assert_non_null(log);
	assert_string_equal(log, "toy: ok\n");
	free(log);
	assert_int_equal(accel_program_get_kernel_count(prog), 2);
	assert_int_equal(accel_program_get_kernel_name(prog, 1, &name), 0);
	assert_string_equal(name, "set");
	assert_int_equal(accel_kernel_new(prog, "inc", &inc), 0);
	assert_int_equal(accel_kernel_new(prog, "set", &set), 0);
	assert_int_equal(accel_kernel_get_arg_count(set), 2);
	assert_int_equal(accel_kernel_get_arg_desc(set, 1, &arg), 0);
	assert_int_equal(arg.kind, ACCEL_KERNEL_ARG_VALUE);
	assert_string_equal(arg.name, "v");

	buf = buffer_of(f, v, 8);
	assert_int_equal(accel_kernel_set_arg_buffer(inc, 0, buf), 0);
	assert_int_equal(accel_kernel_set_arg_buffer(set, 0, buf), 0);
	assert_int_equal(accel_kernel_set_arg_value(set, 1,
						    sizeof(seven), &seven), 0);
	launch(f, inc, 0, 8);           /* 1..8 */
	launch(f, set, 2, 3);           /* 1 2 7 7 7 6 7 8 */
	launch(f, inc, 6, 2);           /* 1 2 7 7 7 6 8 9 */
	assert_int_equal(accel_queue_read(f->q, buf, 0, sizeof(out), out, 0,
					  NULL, NULL), 0);
	assert_int_equal(accel_queue_finish(f->q), 0);
	assert_int_equal(out[0], 1);
	assert_int_equal(out[1], 2);
	assert_int_equal(out[2], 7);
	assert_int_equal(out[4], 7);
	assert_int_equal(out[5], 6);
	assert_int_equal(out[6], 8);
	assert_int_equal(out[7], 9);
	assert_int_equal(seen.prepares, 3);

	/* launches hold the program: the handles go after the last one */
	accel_kernel_unref(inc);
	accel_kernel_unref(set);
	accel_buffer_unref(buf);
	assert_int_equal(seen.kernel_frees, 0);
	accel_program_unref(prog);
	assert_int_equal(seen.kernel_frees, 2);
	assert_int_equal(seen.program_finis, 1);
	assert_int_equal(seen.fini_with_live_kernels, 0);
}

static void test_refused_launch(void **state)
{
	struct fixture *f = *state;
	struct accel_ndrange r = test_ndrange(2, 4, 4, 0, 0, 0, 0);
	struct accel_fence *fence = TEST_SENTINEL_PTR;
	struct accel_program *prog;
	struct accel_kernel *k;
	struct accel_buffer *buf;
	uint32_t v[4] = { 0 };

	assert_int_equal(accel_program_new_source(f->dev, "kernel k add1", 0,
						  NULL, NULL, &prog), 0);
	assert_int_equal(accel_kernel_new(prog, "k", &k), 0);
	buf = buffer_of(f, v, 4);
	/* the toy device reaches no host address: no host pointer argument */
	assert_int_equal(accel_kernel_set_arg_host_ptr(k, 0, v), -EOPNOTSUPP);
	assert_int_equal(accel_kernel_set_arg_buffer(k, 0, buf), 0);
	/* launch_prepare's refusal reaches the caller, nothing runs */
	assert_int_equal(accel_queue_launch(f->q, k, &r, 0, NULL, &fence),
			 -EOPNOTSUPP);
	assert_ptr_equal(fence, TEST_SENTINEL_PTR);
	assert_int_equal(accel_queue_finish(f->q), 0);
	accel_kernel_unref(k);
	accel_buffer_unref(buf);
	accel_program_unref(prog);
	assert_int_equal(seen.kernel_frees, 1);
	assert_int_equal(seen.program_finis, 1);
}

static void test_build_errors(void **state)
{
	struct fixture *f = *state;
	struct accel_program *prog = TEST_SENTINEL_PTR;
	char *log = NULL;

	assert_int_equal(accel_program_new_source(f->dev,
		"kernel a add1\nkernel b frobnicate\n", 0, NULL, &log, &prog),
		-ENOEXEC);
	assert_ptr_equal(prog, TEST_SENTINEL_PTR);
	assert_non_null(log);
	assert_string_equal(log, "toy: line 2: unknown operation\n");
	free(log);
	/* the core's checks of the toy's descriptions: duplicate names */
	assert_int_equal(accel_program_new_source(f->dev,
		"kernel a add1\nkernel a fill\n", 0, NULL, NULL, &prog),
		-EINVAL);
	assert_ptr_equal(prog, TEST_SENTINEL_PTR);
	/* the handles of a refused program were released all the same */
	assert_int_equal(seen.kernel_frees, 2);
	assert_int_equal(seen.program_finis, 0);
}

static void test_missing_ops(void **state)
{
	static const struct accel_native_kernel_desc nk = {
		.struct_size = sizeof(nk), .name = "n",
		.fn = (accel_wg_fn)(uintptr_t)1,
	};
	struct fixture *f = *state;
	struct accel_program *prog = TEST_SENTINEL_PTR;
	const void *data = TEST_SENTINEL_PTR;
	size_t size = 0;
	uint8_t bin[16] = { 0 };

	assert_int_equal(accel_program_new_binary(f->dev, bin, sizeof(bin),
						  &prog), -EOPNOTSUPP);
	assert_int_equal(accel_program_new_native(f->dev, &nk, 1, &prog),
			 -EOPNOTSUPP);
	assert_int_equal(accel_program_compile(f->dev, "kernel a add1", 0,
					       NULL, 0, NULL, NULL, NULL,
					       &prog), -EOPNOTSUPP);
	assert_ptr_equal(prog, TEST_SENTINEL_PTR);

	assert_int_equal(accel_program_new_source(f->dev, "kernel a add1", 0,
						  NULL, NULL, &prog), 0);
	assert_int_equal(accel_program_get_binary(prog, &data, &size),
			 -ENODATA);
	assert_ptr_equal(data, TEST_SENTINEL_PTR);
	accel_program_unref(prog);
}

static void test_built_in(void **state)
{
	struct fixture *f = *state;
	uint32_t v[4] = { 5, 5, 5, 5 }, out[4];
	struct accel_program *prog;
	struct accel_kernel *k;
	struct accel_buffer *buf;

	assert_int_equal(accel_program_new_built_in(f->dev, "nope", &prog),
			 -ENOENT);
	assert_int_equal(accel_program_new_built_in(f->dev, "zero", &prog), 0);
	assert_int_equal(accel_kernel_new(prog, "zero", &k), 0);
	buf = buffer_of(f, v, 4);
	assert_int_equal(accel_kernel_set_arg_buffer(k, 0, buf), 0);
	launch(f, k, 1, 2);
	assert_int_equal(accel_queue_read(f->q, buf, 0, sizeof(out), out, 0,
					  NULL, NULL), 0);
	assert_int_equal(accel_queue_finish(f->q), 0);
	assert_int_equal(out[0], 5);
	assert_int_equal(out[1], 0);
	assert_int_equal(out[2], 0);
	assert_int_equal(out[3], 5);
	accel_kernel_unref(k);
	accel_buffer_unref(buf);
	accel_program_unref(prog);
	/* a built-in's handle is static: never given to kernel_free */
	assert_int_equal(seen.kernel_frees, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_build_and_run, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_refused_launch, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_build_errors, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_missing_ops, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_built_in, setup,
						teardown),
	};

	return TEST_RUN_GROUP("backend-ops", tests);
}
