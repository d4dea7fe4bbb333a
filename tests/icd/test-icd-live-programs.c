/* SPDX-License-Identifier: MIT */
/*
 * Many live programs (an ML framework keeps every program it ever built):
 * thousands made from binaries all load, each its own code (two binaries
 * alternate, so code loaded under a reused name would compute the wrong
 * thing), without an fd held per program (the soft RLIMIT_NOFILE is set
 * to 1024, a common default) and without leaving fds behind. And code that
 * stays loaded after its program's release (pinned here by a reference of
 * our own) is not what a later program with a reused fd gets.
 *
 * Argument: the number of programs (default 10000). Prints the mean time
 * to create a program while few and while many are live, and the memory
 * mappings each live program takes: a run with fewer programs (where all
 * runs slower: sanitizers, emulation) checks that FULL_RUN of them would
 * stay within vm.max_map_count, as a full run does for real.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>

#include "icd-test.h"

/* Same kernel name, different results: which code ran shows. */
static const char *const srcs[2] = {
	"kernel void k(global int *x, int v)\n"
	"{\n"
	"	x[get_global_id(0)] += v;\n"
	"}\n",
	"kernel void k(global int *x, int v)\n"
	"{\n"
	"	x[get_global_id(0)] *= v;\n"
	"}\n",
};

#define ITEMS 16
#define TIMED 100
#define FULL_RUN 10000UL

static unsigned long n_programs = FULL_RUN;

static unsigned count_entries(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	unsigned n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

/* Lines of /proc/self/maps: the process's memory mappings. */
static unsigned long count_mappings(void)
{
	FILE *f = fopen("/proc/self/maps", "re");
	unsigned long n = 0;
	int c;

	assert_non_null(f);
	while ((c = getc(f)) != EOF)
		n += c == '\n';
	fclose(f);
	return n;
}

static unsigned long max_map_count(void)
{
	FILE *f = fopen("/proc/sys/vm/max_map_count", "re");
	unsigned long v = 0;

	if (f) {
		if (fscanf(f, "%lu", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v;
}

/*
 * @maps mappings were added by @n live programs to @base: FULL_RUN of
 * them must fit under vm.max_map_count. (AArch64's linker defaults put
 * 64 KiB gaps between a program's segments, mapped PROT_NONE: about 7
 * mappings per program, and ~9300 programs filled the default 65530.)
 */
static void check_mappings(unsigned long base, unsigned long maps,
			   unsigned long n)
{
	unsigned long max = max_map_count();
	double per = (double)maps / (double)n;
	double full = (double)base + per * (double)FULL_RUN;

	printf("memory mappings: %.2f per live program, %.0f with %lu live "
	       "(vm.max_map_count %lu)\n", per, full, FULL_RUN, max);
	if (max && full >= (double)max)
		fail_msg("%lu live programs would need %.0f mappings, more "
			 "than vm.max_map_count (%lu)", FULL_RUN, full, max);
}

static unsigned char *binary_of(struct icd_env *env, const char *src,
				size_t *size)
{
	cl_program p = icd_test_build(env, src, NULL);
	unsigned char *bin;

	CL_OK(clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof(*size), size,
			       NULL));
	bin = malloc(*size);
	assert_non_null(bin);
	CL_OK(clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof(bin), &bin,
			       NULL));
	CL_OK(clReleaseProgram(p));
	return bin;
}

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

/* Program @p i adds v (even i) or multiplies by v (odd), v from i. */
static void check(struct icd_env *env, cl_kernel *kernels, unsigned long i)
{
	cl_int x[ITEMS], v = (cl_int)(i % 1000) + 1, err;
	size_t g = ITEMS;
	cl_mem b;

	for (int j = 0; j < ITEMS; j++)
		x[j] = j + 3;
	b = clCreateBuffer(env->ctx, CL_MEM_COPY_HOST_PTR, sizeof(x), x,
			   &err);
	CL_OK(err);
	CL_OK(clSetKernelArg(kernels[i], 0, sizeof(b), &b));
	CL_OK(clSetKernelArg(kernels[i], 1, sizeof(v), &v));
	CL_OK(clEnqueueNDRangeKernel(env->queue, kernels[i], 1, NULL, &g,
				     NULL, 0, NULL, NULL));
	CL_OK(clEnqueueReadBuffer(env->queue, b, CL_TRUE, 0, sizeof(x), x, 0,
				  NULL, NULL));
	for (int j = 0; j < ITEMS; j++)
		assert_int_equal(x[j], i % 2 ? (j + 3) * v : j + 3 + v);
	CL_OK(clReleaseMemObject(b));
}

/* The name of the object loaded last that came from a memfd. */
static int last_memfd_object(struct dl_phdr_info *info, size_t size,
			     void *data)
{
	char **name = data;

	(void)size;
	if (!strncmp(info->dlpi_name, "/proc/self/fd/", 14)) {
		free(*name);
		*name = strdup(info->dlpi_name);
	}
	return 0;
}

static cl_kernel kernel_from(struct icd_env *env, const unsigned char *bin,
			     size_t size, cl_program *prog)
{
	cl_int status = 1, err = 1;
	cl_kernel k;

	*prog = clCreateProgramWithBinary(env->ctx, 1, &env->device, &size,
					  &bin, &status, &err);
	CL_OK(err);
	CL_OK(status);
	CL_OK(clBuildProgram(*prog, 1, &env->device, NULL, NULL, NULL));
	k = clCreateKernel(*prog, "k", &err);
	CL_OK(err);
	return k;
}

static void test_pinned(void **state)
{
	struct icd_env *env = *state;
	unsigned char *bins[2];
	size_t sizes[2];
	cl_program progs[2];
	cl_kernel kernels[2];
	char *name = NULL;
	void *pin;

	if (!icd_test_have_compiler(env))
		skip();
	bins[0] = binary_of(env, srcs[0], &sizes[0]);
	bins[1] = binary_of(env, srcs[1], &sizes[1]);
	/* the first program's code stays loaded after its release */
	kernels[0] = kernel_from(env, bins[0], sizes[0], &progs[0]);
	check(env, kernels, 0);
	dl_iterate_phdr(last_memfd_object, &name);
	assert_non_null(name);
	pin = dlopen(name, RTLD_NOW | RTLD_NOLOAD);
	assert_non_null(pin);
	CL_OK(clReleaseKernel(kernels[0]));
	CL_OK(clReleaseProgram(progs[0]));
	/* the second program has its own code, under whatever fd */
	kernels[1] = kernel_from(env, bins[1], sizes[1], &progs[1]);
	check(env, kernels, 1);
	CL_OK(clReleaseKernel(kernels[1]));
	CL_OK(clReleaseProgram(progs[1]));
	dlclose(pin);
	free(name);
	free(bins[0]);
	free(bins[1]);
}

static void test_live_programs(void **state)
{
	struct icd_env *env = *state;
	const unsigned long n = n_programs;
	unsigned char *bins[2];
	size_t sizes[2];
	cl_program *progs;
	cl_kernel *kernels;
	unsigned fds;
	unsigned long maps, after;
	double t0, first = 0, last = 0;

	if (!icd_test_have_compiler(env))
		skip();
	bins[0] = binary_of(env, srcs[0], &sizes[0]);
	bins[1] = binary_of(env, srcs[1], &sizes[1]);
	progs = calloc(n, sizeof(*progs));
	kernels = calloc(n, sizeof(*kernels));
	assert_true(progs && kernels);

	fds = count_entries("/proc/self/fd");
	maps = count_mappings();
	for (unsigned long i = 0; i < n; i++) {
		const unsigned char *bin = bins[i % 2];
		cl_int status = 1, err = 1;

		t0 = now_us();
		progs[i] = clCreateProgramWithBinary(env->ctx, 1, &env->device,
						     &sizes[i % 2], &bin,
						     &status, &err);
		if (err != CL_SUCCESS || status != CL_SUCCESS)
			fail_msg("program %lu: error %d, status %d", i, err,
				 status);
		err = clBuildProgram(progs[i], 1, &env->device, NULL, NULL,
				     NULL);
		if (err != CL_SUCCESS)
			fail_msg("program %lu: build error %d", i, err);
		kernels[i] = clCreateKernel(progs[i], "k", &err);
		CL_OK(err);
		if (i < TIMED)
			first += now_us() - t0;
		else if (i >= n - TIMED)
			last += now_us() - t0;
	}
	if (n >= 2 * TIMED)
		printf("mean time to create a program: %.1f us with up to %d "
		       "live, %.1f us with %lu live\n", first / TIMED, TIMED,
		       last / TIMED, n);
	after = count_mappings();
	check_mappings(maps, after > maps ? after - maps : 0, n);

	/* first, middle and last, both binaries */
	check(env, kernels, 0);
	check(env, kernels, 1);
	check(env, kernels, n / 2 - 1);
	check(env, kernels, n / 2);
	check(env, kernels, n - 2);
	check(env, kernels, n - 1);

	for (unsigned long i = 0; i < n; i++) {
		CL_OK(clReleaseKernel(kernels[i]));
		CL_OK(clReleaseProgram(progs[i]));
	}
	CL_OK(clFinish(env->queue));
	assert_int_equal(count_entries("/proc/self/fd"), fds);
	free(kernels);
	free(progs);
	free(bins[0]);
	free(bins[1]);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_pinned, icd_env_setup,
						icd_env_teardown),
		cmocka_unit_test_setup_teardown(test_live_programs,
						icd_env_setup,
						icd_env_teardown),
	};
	struct rlimit rl;

	if (argc > 1)
		n_programs = strtoul(argv[1], NULL, 10);
	if (n_programs < 4) {
		fprintf(stderr, "usage: %s [programs >= 4]\n", argv[0]);
		return 2;
	}
	/* what many systems give: one fd per program would run out */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur > 1024) {
		rl.rlim_cur = 1024;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	return ICD_TEST_RUN("icd-live-programs", tests);
}
