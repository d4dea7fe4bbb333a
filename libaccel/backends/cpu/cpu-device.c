/* SPDX-License-Identifier: MIT */
/*
 * The CPU reference device: its properties, read from the machine, and
 * the backend's ops table.
 */
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysinfo.h>
#include <unistd.h>

#include "backend.h"
#include "cpu-arch.h"
#include "cpu-private.h"
#include "cpu-program.h"

#define MIB (1024ull * 1024ull)
/* Upper bound of ACCEL_CPU_THREADS, against typos like 1000000. */
#define CPU_MAX_THREADS 1024ul
/* Upper bound of ACCEL_CPU_SPIN_US: one second. */
#define CPU_MAX_SPIN_US 1000000ul

/* CPUs this process may run on (its affinity mask). */
static unsigned affinity_cpus(void)
{
	size_t n;
	long online;

	/* The mask may be wider than cpu_set_t on very large machines. */
	for (n = CPU_SETSIZE; n <= (1u << 20); n *= 2) {
		cpu_set_t *set = CPU_ALLOC(n);
		size_t size = CPU_ALLOC_SIZE(n);
		int count;

		if (!set)
			break;
		if (sched_getaffinity(0, size, set) == 0) {
			count = CPU_COUNT_S(size, set);
			CPU_FREE(set);
			return count > 0 ? (unsigned)count : 1;
		}
		CPU_FREE(set);
		if (errno != EINVAL)
			break;
	}
	online = sysconf(_SC_NPROCESSORS_ONLN);
	return online > 0 ? (unsigned)online : 1;
}

/*
 * Widest SIMD register the CPU (and OS) supports, in bytes, at the code
 * tier in force (ACCEL_CPU_TARGET may narrow it).
 */
static unsigned simd_bytes(void)
{
	const char *env = secure_getenv("ACCEL_CPU_TARGET");

	return cpu_arch_simd_bytes(cpu_code_level(), env && *env &&
				   strcmp(env, "host") &&
				   strcmp(env, "native"));
}

/* Does generated code do half arithmetic natively? Host code only. */
static bool host_fp16_arithmetic(void)
{
	const char *env = secure_getenv("ACCEL_CPU_TARGET");

	return (!env || !*env || !strcmp(env, "host") ||
		!strcmp(env, "native")) && cpu_arch_fp16_arithmetic();
}

/* "key<blanks>: value" -> value, or NULL if @line is not about @key. */
static const char *cpuinfo_value(const char *line, const char *key)
{
	size_t len = strlen(key);

	if (strncmp(line, key, len))
		return NULL;
	line += len;
	line += strspn(line, " \t");
	if (*line != ':')
		return NULL;
	line++;
	return line + strspn(line, " \t");
}

void cpu_read_cpuinfo(const char *const *keys, char **values, size_t n)
{
	_cleanup_free_ char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	FILE *f;

	for (size_t i = 0; i < n; i++)
		values[i] = NULL;
	f = fopen("/proc/cpuinfo", "re");
	if (!f)
		return;
	while ((len = getline(&line, &cap, f)) > 0) {
		const char *v;

		if (line[len - 1] == '\n')
			line[len - 1] = '\0';
		if (!*line)
			break; /* end of the first processor */
		for (size_t i = 0; i < n; i++)
			if (!values[i] && (v = cpuinfo_value(line, keys[i])))
				values[i] = strdup(v);
	}
	fclose(f);
}

/* Maximum clock: cpufreq knows it; cpuinfo only has the current one. */
static uint64_t clock_mhz(const struct cpuinfo *info)
{
	unsigned long long khz;
	uint64_t mhz = info->mhz;
	FILE *f;

	f = fopen("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq", "re");
	if (f) {
		if (fscanf(f, "%llu", &khz) == 1 && khz >= 1000)
			mhz = khz / 1000;
		fclose(f);
	}
	return mhz;
}

/*
 * The vendor as the CPU names itself (x86: /proc/cpuinfo's vendor_id, as
 * PoCL gives it; AArch64: the implementer of MIDR_EL1), not a vendor's
 * product name: clients pick code paths by
 * CL_DEVICE_VENDOR, and "Intel" or "AMD" there stands for those vendors'
 * own GPU runtimes (OpenCV builds kernels tuned for Intel GPUs that race
 * on __local memory unless work-items run in lock-step).
 */
static const char *vendor_name(const char *vendor_id)
{
	return vendor_id && *vendor_id ? vendor_id : "Unknown";
}

/* An unsigned environment setting in [min, max], or @def. */
static unsigned long env_ulong(struct accel_context *ctx, const char *name,
			       unsigned long min, unsigned long max,
			       unsigned long def)
{
	const char *s = secure_getenv(name);
	unsigned long v;
	char *end;

	if (!s || !*s)
		return def;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || *s == '-' || v < min || v > max) {
		log_warn(ctx, "ignoring %s=%s: not a number in %lu..%lu\n",
			 name, s, min, max);
		return def;
	}
	return v;
}

uint64_t cpu_streaming_min(const struct accel_device *dev)
{
	return ((const struct cpu_device *)dev->backend_data)->streaming_min;
}

/* A sysfs cache attribute of cpu0's cache @index, as a number; -1. */
static long long cache_attr(unsigned index, const char *attr)
{
	char path[96], buf[32], *end;
	long long v;
	FILE *f;

	snprintf(path, sizeof(path),
		 "/sys/devices/system/cpu/cpu0/cache/index%u/%s", index, attr);
	f = fopen(path, "re");
	if (!f)
		return -1;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	v = strtoll(buf, &end, 10);
	if (end == buf || v < 0)
		return -1;
	if (*end == 'K')
		v <<= 10;
	else if (*end == 'M')
		v <<= 20;
	return v;
}

/*
 * Bytes of the last cache level: from sysfs, as lscpu reads it (glibc's
 * sysconf() decodes CPUID, which hypervisors often fill oddly), then
 * sysconf(); 0 if neither knows.
 */
static uint64_t last_level_cache(void)
{
	static const int names[] = { _SC_LEVEL4_CACHE_SIZE,
				     _SC_LEVEL3_CACHE_SIZE,
				     _SC_LEVEL2_CACHE_SIZE };
	long long best_level = 0, size = 0;

	for (unsigned i = 0; i < 16; i++) {
		long long level = cache_attr(i, "level");
		long long bytes = cache_attr(i, "size");

		if (level < 0)
			break;
		if (level > best_level && bytes > 0) {
			best_level = level;
			size = bytes;
		}
	}
	if (size > 0)
		return (uint64_t)size;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		long v = sysconf(names[i]);

		if (v > 0)
			return (uint64_t)v;
	}
	return 0;
}

/*
 * Images are buffers read by the kernel's own code, so their limits are
 * those of memory and of struct accel_wg_image's 32-bit sizes, set at
 * OpenCL 3.0's minimums for devices with images or above.
 */
static void set_image_limits(uint64_t *p)
{
	p[ACCEL_DEVICE_U64_IMAGE2D_MAX_WIDTH] = 16384;
	p[ACCEL_DEVICE_U64_IMAGE2D_MAX_HEIGHT] = 16384;
	p[ACCEL_DEVICE_U64_IMAGE3D_MAX_WIDTH] = 2048;
	p[ACCEL_DEVICE_U64_IMAGE3D_MAX_HEIGHT] = 2048;
	p[ACCEL_DEVICE_U64_IMAGE3D_MAX_DEPTH] = 2048;
	/* texels: a 1-byte format can fill the largest buffer */
	p[ACCEL_DEVICE_U64_IMAGE_MAX_BUFFER_SIZE] =
		MIN(p[ACCEL_DEVICE_U64_MAX_ALLOC_SIZE], (uint64_t)INT32_MAX);
	p[ACCEL_DEVICE_U64_IMAGE_MAX_ARRAY_SIZE] = 2048;
	/*
	 * No alignment: the kernel's code reads texels with unaligned loads
	 * (struct accel_wg_image promises none), so any row of whole texels
	 * and any offset work.
	 */
	p[ACCEL_DEVICE_U64_IMAGE_PITCH_ALIGNMENT] = 1;
	p[ACCEL_DEVICE_U64_IMAGE_BASE_ADDRESS_ALIGNMENT] = 1;
	p[ACCEL_DEVICE_U64_MAX_READ_IMAGE_ARGS] = 128;
	p[ACCEL_DEVICE_U64_MAX_WRITE_IMAGE_ARGS] = 64;
	p[ACCEL_DEVICE_U64_MAX_SAMPLERS] = 16;
}

static void set_props(struct accel_device *dev, const struct cpuinfo *info,
		      unsigned cpus)
{
	uint64_t *p = dev->u64;
	uint64_t global, simd = simd_bytes();
	struct sysinfo si;
	long long line;

	p[ACCEL_DEVICE_U64_TYPE] = ACCEL_DEVICE_TYPE_CPU;
	/*
	 * Importing needs only mmap of a dma-buf and poll of a sync_file;
	 * exporting needs the kernel to make dma-bufs from our memory.
	 */
	p[ACCEL_DEVICE_U64_CAPS] = ACCEL_DEVICE_CAP_NATIVE_KERNELS |
				   ACCEL_DEVICE_CAP_BUILT_IN_KERNELS |
				   ACCEL_DEVICE_CAP_FP64 |
				   ACCEL_DEVICE_CAP_FP16 |
				   ACCEL_DEVICE_CAP_HOST_UNIFIED_MEMORY |
				   ACCEL_DEVICE_CAP_USER_PTR |
				   ACCEL_DEVICE_CAP_HOST_SVM |
				   ACCEL_DEVICE_CAP_DMABUF_IMPORT |
				   ACCEL_DEVICE_CAP_SYNC_FILE_IMPORT |
				   ACCEL_DEVICE_CAP_IMAGES;
	if (accel_udmabuf_available() || accel_dma_heap_available("system"))
		p[ACCEL_DEVICE_U64_CAPS] |= ACCEL_DEVICE_CAP_DMABUF_EXPORT;
	/* OpenCL C needs the compiler module (built with compiler-stub/). */
	if (cpu_compiler_available())
		p[ACCEL_DEVICE_U64_CAPS] |= ACCEL_DEVICE_CAP_COMPILER;
	/*
	 * A sub-group is the lanes of a float vector, as the compiler makes
	 * it (accelc_target_sub_group_width(): 16 with AVX-512, 8 with AVX,
	 * else 4), for code of this level.
	 */
	if (p[ACCEL_DEVICE_U64_CAPS] & ACCEL_DEVICE_CAP_COMPILER) {
		p[ACCEL_DEVICE_U64_SUB_GROUP_SIZE] = simd / 4;
		/* what a kernel may ask for: 1, 2, 4 ... 64 (the sub-group
		 * functions keep a sub-group's lanes in 64-bit masks) */
		p[ACCEL_DEVICE_U64_SUB_GROUP_SIZES] = 0x7f;
	}
	/* SPIR-V: the compiler and its translator, llvm-spirv-15 */
	if (cpu_compiler_available() && cpu_il_available())
		p[ACCEL_DEVICE_U64_CAPS] |= ACCEL_DEVICE_CAP_IL;
	p[ACCEL_DEVICE_U64_VENDOR_ID] = 0;
	p[ACCEL_DEVICE_U64_DEVICE_ID] = 0;
	p[ACCEL_DEVICE_U64_COMPUTE_UNITS] = cpus;
	p[ACCEL_DEVICE_U64_CLOCK_MHZ] = clock_mhz(info);

	global = sysinfo(&si) == 0 ? (uint64_t)si.totalram * si.mem_unit : 0;
	if (!global)
		global = 1024 * MIB; /* cannot happen on Linux; stay sane */
	p[ACCEL_DEVICE_U64_GLOBAL_MEM_SIZE] = global;
	/* OpenCL's rule (a quarter, at least 128 MiB), capped by the RAM. */
	p[ACCEL_DEVICE_U64_MAX_ALLOC_SIZE] =
		MIN(MAX(global / 4, 128 * MIB), global);
	/*
	 * Local memory is ordinary memory here, one block per worker thread.
	 * 256 KiB is 8x OpenCL's 32 KiB minimum, so kernels tuned for GPUs
	 * (which often use 48-64 KiB) run, and it still fits in a typical
	 * per-core L2 cache, which is what makes local memory worth using.
	 */
	p[ACCEL_DEVICE_U64_LOCAL_MEM_SIZE] = 256 * 1024;
	/*
	 * Private memory is stack: a work-group needing more than a worker
	 * thread has runs on a thread with a stack of its size, up to an
	 * eighth of the RAM (every worker may run one) or 1 GiB.
	 */
	p[ACCEL_DEVICE_U64_PRIVATE_MEM_SIZE] =
		MAX(MIN(global / 8, 1024 * MIB), CPU_WORKER_STACK);
	/* Sub-buffers start on 128 bytes: any vector type is aligned. */
	p[ACCEL_DEVICE_U64_MEM_BASE_ADDR_ALIGN] = 128;
	/* sysfs knows it on every architecture; glibc's sysconf() only
	 * decodes x86's CPUID */
	line = cache_attr(0, "coherency_line_size");
	if (line <= 0)
		line = sysconf(_SC_LEVEL1_DCACHE_LINESIZE);
	p[ACCEL_DEVICE_U64_CACHE_LINE_SIZE] = line > 0 ? (uint64_t)line : 64;
	p[ACCEL_DEVICE_U64_CACHE_SIZE] = last_level_cache();

	p[ACCEL_DEVICE_U64_MAX_WORK_GROUP_SIZE] = 4096;
	p[ACCEL_DEVICE_U64_MAX_WORK_ITEM_DIMS] = 3;
	p[ACCEL_DEVICE_U64_MAX_WORK_ITEM_SIZE_X] = 4096;
	p[ACCEL_DEVICE_U64_MAX_WORK_ITEM_SIZE_Y] = 4096;
	p[ACCEL_DEVICE_U64_MAX_WORK_ITEM_SIZE_Z] = 4096;
	/*
	 * Every argument takes a 16-byte-aligned slot, so 4096 bytes of
	 * arguments hold at most 256 of them: more than 255 could never be
	 * used, and OpenCL only promises 1024 bytes (about 128 pointers).
	 */
	p[ACCEL_DEVICE_U64_MAX_KERNEL_ARGS] = 255;
	p[ACCEL_DEVICE_U64_MAX_ARG_BYTES] = 4096;

	/* Preferred = native: the widest SIMD register, per element size. */
	p[ACCEL_DEVICE_U64_PREFERRED_VECTOR_WIDTH_CHAR] = simd / 1;
	p[ACCEL_DEVICE_U64_PREFERRED_VECTOR_WIDTH_SHORT] = simd / 2;
	p[ACCEL_DEVICE_U64_PREFERRED_VECTOR_WIDTH_INT] = simd / 4;
	p[ACCEL_DEVICE_U64_PREFERRED_VECTOR_WIDTH_LONG] = simd / 8;
	p[ACCEL_DEVICE_U64_PREFERRED_VECTOR_WIDTH_FLOAT] = simd / 4;
	p[ACCEL_DEVICE_U64_PREFERRED_VECTOR_WIDTH_DOUBLE] = simd / 8;
	p[ACCEL_DEVICE_U64_PREFERRED_VECTOR_WIDTH_HALF] = simd / 2;
	p[ACCEL_DEVICE_U64_NATIVE_VECTOR_WIDTH_CHAR] = simd / 1;
	p[ACCEL_DEVICE_U64_NATIVE_VECTOR_WIDTH_SHORT] = simd / 2;
	p[ACCEL_DEVICE_U64_NATIVE_VECTOR_WIDTH_INT] = simd / 4;
	p[ACCEL_DEVICE_U64_NATIVE_VECTOR_WIDTH_LONG] = simd / 8;
	p[ACCEL_DEVICE_U64_NATIVE_VECTOR_WIDTH_FLOAT] = simd / 4;
	p[ACCEL_DEVICE_U64_NATIVE_VECTOR_WIDTH_DOUBLE] = simd / 8;
	/*
	 * half is computed in float lanes (F16C or software conversions)
	 * unless the code may use AVX512-FP16: only host code, and only
	 * where the host has it.
	 */
	p[ACCEL_DEVICE_U64_NATIVE_VECTOR_WIDTH_HALF] =
		host_fp16_arithmetic() ? simd / 2 : simd / 4;

	/* CLOCK_MONOTONIC counts nanoseconds. */
	p[ACCEL_DEVICE_U64_TIMER_RESOLUTION_NS] = 1;
	/* The pool spans every CPU of the mask, whatever its node. */
	p[ACCEL_DEVICE_U64_NUMA_NODE] = UINT64_MAX;
	/* records, not text: about 40k printf calls of a few arguments */
	p[ACCEL_DEVICE_U64_PRINTF_BUFFER_SIZE] = 1u << 20;
	set_image_limits(p);
}

/* "a;b;c" from the built-in kernel table, the single source of names. */
static int built_in_names(struct accel_device *dev, char **ret)
{
	const struct accel_kernel_info *table;
	uint32_t n, i;
	size_t len = 1;
	char *s;
	int r;

	r = cpu_get_built_in_kernels(dev, &table, &n);
	if (r < 0)
		return r;
	for (i = 0; i < n; i++)
		len += strlen(table[i].name) + 1;
	s = calloc(1, len);
	if (!s)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		if (i)
			strcat(s, ";");
		strcat(s, table[i].name);
	}
	*ret = s;
	return 0;
}

static int set_strings(struct accel_device *dev, const struct cpuinfo *info)
{
	_cleanup_free_ char *kernels = NULL;
	char target[64], compiler[PATH_MAX + 64];
	const struct {
		enum accel_device_string prop;
		const char *value;
	} strings[] = {
		{ ACCEL_DEVICE_STRING_NAME,
		  info->model && *info->model ? info->model : "CPU" },
		{ ACCEL_DEVICE_STRING_VENDOR, vendor_name(info->vendor) },
		{ ACCEL_DEVICE_STRING_DRIVER, "cpu" },
		{ ACCEL_DEVICE_STRING_DRIVER_VERSION, ACCEL_VERSION_STRING },
		{ ACCEL_DEVICE_STRING_BACKEND, accel_cpu_backend.name },
		{ ACCEL_DEVICE_STRING_DEVNODE, "" },
		{ ACCEL_DEVICE_STRING_SYSPATH, "" },
		{ ACCEL_DEVICE_STRING_CODE_TARGET, target },
		{ ACCEL_DEVICE_STRING_COMPILER, compiler },
	};
	size_t i;
	int r;

	cpu_code_target(target, sizeof(target));
	cpu_compiler_locate(compiler, sizeof(compiler));

	for (i = 0; i < ARRAY_SIZE(strings); i++) {
		r = accel_device_set_string(dev, strings[i].prop,
					    strings[i].value);
		if (r < 0)
			return r;
	}
	r = built_in_names(dev, &kernels);
	if (r < 0)
		return r;
	return accel_device_set_string(dev, ACCEL_DEVICE_STRING_BUILT_IN_KERNELS,
				       kernels);
}

static int cpu_enumerate_builtin(struct accel_context *ctx)
{
	struct cpuinfo info = { 0 };
	struct accel_device *dev;
	struct cpu_device *cpu;
	unsigned cpus;
	int r;

	r = accel_device_alloc(ctx, &accel_cpu_backend, &dev);
	if (r < 0)
		return r;
	cpu = calloc(1, sizeof(*cpu));
	if (!cpu) {
		accel_device_destroy(dev);
		return -ENOMEM;
	}
	pthread_mutex_init(&cpu->lock, NULL);
	atomic_init(&cpu->pool, NULL);
	atomic_init(&cpu->compiler, NULL);
	dev->backend_data = cpu;

	cpus = affinity_cpus();
	cpu->n_threads = (unsigned)env_ulong(ctx, "ACCEL_CPU_THREADS", 1,
					     CPU_MAX_THREADS, cpus);
	cpu->spin_ns = (uint64_t)env_ulong(ctx, "ACCEL_CPU_SPIN_US", 0,
					   CPU_MAX_SPIN_US,
					   CPU_SPIN_NS_DEFAULT / 1000) *
		       1000;

	cpu->build_report_ns =
		(uint64_t)env_ulong(ctx, "ACCEL_BUILD_REPORT_MS", 0, 3600000,
				    CPU_BUILD_REPORT_MS_DEFAULT) *
		1000000;

	cpu_arch_identify(&info);
	set_props(dev, &info, cpus);
	/*
	 * Non-temporal stores pay once the data cannot stay in the cache
	 * anyway; without a known cache size, assume a large one.
	 */
	cpu->streaming_min = (uint64_t)env_ulong(
		ctx, "ACCEL_CPU_STREAMING_MIN", 0, ULONG_MAX,
		dev->u64[ACCEL_DEVICE_U64_CACHE_SIZE] ?
			dev->u64[ACCEL_DEVICE_U64_CACHE_SIZE] :
			CPU_STREAMING_MIN_DEFAULT);
	r = set_strings(dev, &info);
	free(info.model);
	free(info.vendor);
	if (r == 0)
		r = accel_context_add_device(ctx, dev);
	if (r < 0) {
		accel_device_destroy(dev);
		return r;
	}
	log_dbg(ctx, "cpu device: %u compute units, %u worker threads\n", cpus,
		cpu->n_threads);
	return 0;
}

int cpu_device_get_pool(struct accel_device *dev, struct cpu_pool **ret)
{
	struct cpu_device *cpu = dev->backend_data;
	struct cpu_pool *pool;
	int r = 0;

	pool = atomic_load_explicit(&cpu->pool, memory_order_acquire);
	if (_likely_(pool)) {
		*ret = pool;
		return 0;
	}

	pthread_mutex_lock(&cpu->lock);
	pool = atomic_load_explicit(&cpu->pool, memory_order_relaxed);
	if (!pool) {
		r = cpu_pool_new(cpu->n_threads, cpu->spin_ns, &pool);
		if (r == 0)
			atomic_store_explicit(&cpu->pool, pool,
					      memory_order_release);
	}
	pthread_mutex_unlock(&cpu->lock);
	if (r < 0) {
		log_err(dev->ctx, "cannot start %u worker threads: %s\n",
			cpu->n_threads, strerror(-r));
		return r;
	}
	*ret = pool;
	return 0;
}

static void cpu_device_fini(struct accel_device *dev)
{
	struct cpu_device *cpu = dev->backend_data;

	if (!cpu)
		return;
	/* May run on one of the pool's own workers; the pool copes. */
	cpu_pool_destroy(atomic_load_explicit(&cpu->pool,
					      memory_order_acquire));
	cpu_compiler_destroy(atomic_load_explicit(&cpu->compiler,
						  memory_order_acquire));
	pthread_mutex_destroy(&cpu->lock);
	free(cpu);
	dev->backend_data = NULL;
}

const struct accel_backend_ops accel_cpu_backend = {
	.name = "cpu",
	.enumerate_builtin = cpu_enumerate_builtin,
	.device_fini = cpu_device_fini,
	.buffer_alloc = cpu_buffer_alloc,
	.buffer_wrap_user_ptr = cpu_buffer_wrap_user_ptr,
	.buffer_free = cpu_buffer_free,
	.buffer_export_dmabuf = cpu_buffer_export_dmabuf,
	.buffer_import_dmabuf = cpu_buffer_import_dmabuf,
	/* buffer_map/unmap: NULL, the core maps through host_ptr. */
	.program_build = cpu_program_build,
	.program_load_binary = cpu_program_load_binary,
	.kernel_from_native = cpu_kernel_from_native,
	.get_built_in_kernels = cpu_get_built_in_kernels,
	.kernel_free = cpu_kernel_free,
	.program_fini = cpu_program_fini,
	.launch_prepare = cpu_launch_prepare,
	.execute = cpu_execute,
	/* a launch's or transfer's job, or a chain's (a little larger) */
	.cmd_priv_size = sizeof(struct cpu_chain_job),
	.runs_chains = true,
};
