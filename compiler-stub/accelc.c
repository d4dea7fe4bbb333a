/* SPDX-License-Identifier: MIT */
/* accelc: compile an OpenCL C file into a program binary (or a shared
 * object of work-group functions), list its kernels, dump IR or assembly;
 * or read a program binary back, list it and extract its code. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "accelc.h"
#include "passes.h"

static const char *kinds[] = { "?", "buffer", "value", "local", "image",
				"sampler" };
static const char *spaces[] = { "private", "global", "constant", "local" };
static const char *access_names[] = { "", "read_only ", "write_only ",
				      "read_write " };

static void usage(FILE *f)
{
	fprintf(f,
		"usage: accelc [options] FILE.cl|FILE.spv|FILE.bin\n"
		"A FILE starting with the program binary magic is read as one\n"
		"(for another CPU: give --cpu and --features to check against);\n"
		"one starting with the SPIR-V magic is built as a module.\n"
		"  -b, --build-options OPTS  OpenCL build options\n"
		"  -o, --output FILE         write the program binary to FILE\n"
		"      --shared-object FILE  write the code (a shared object)\n"
		"  -l, --list                list kernels and their arguments\n"
		"      --emit-llvm FILE      write optimised LLVM IR ('-': stdout)\n"
		"      --emit-asm FILE       write assembly ('-': stdout)\n"
		"  -t, --target NAME         generate for NAME: host, a code\n"
		"                            tier (--list-targets: x86-64 ...\n"
		"                            x86-64-v4; armv8-a, armv8.2-a+sve)\n"
		"                            or a CPU clang knows (-march=NAME,\n"
		"                            -mcpu=NAME on AArch64)\n"
		"                            (default: $ACCEL_CPU_TARGET, else host)\n"
		"      --list-targets        list the targets, whether this CPU\n"
		"                            runs their code, and their features\n"
		"      --print-passes        list the passes from bitcode to object\n"
		"                            in the order they run\n"
		"      --cpu NAME            target CPU by LLVM name (with --features)\n"
		"      --features STR        target features for --cpu\n"
		"      --no-cache            neither use nor fill the program cache\n"
		"      --timeout MS          deadline of each build step: clang,\n"
		"                            optimisation and code generation,\n"
		"                            linking (default:\n"
		"                            $ACCEL_COMPILE_TIMEOUT_MS, else 60000)\n"
		"  -v, --verbose             say whether the cache was used\n"
		"                            and what the build spent its time on\n"
		"  -h, --help\n");
}

static char *read_all(const char *path, size_t *len)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "rbe") : stdin;
	size_t cap = 4096, n = 0;
	char *buf;

	if (!f)
		return NULL;
	buf = malloc(cap);
	while (buf) {
		size_t r = fread(buf + n, 1, cap - n, f);

		n += r;
		if (r == 0)
			break;
		if (n == cap) {
			char *nb = realloc(buf, cap * 2);

			if (!nb) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = nb;
			cap *= 2;
		}
	}
	if (f != stdin)
		fclose(f);
	*len = n;
	return buf;
}

static int write_text(const char *path, const char *text)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "we") : stdout;

	if (!f)
		return -errno;
	fputs(text ? text : "", f);
	if (f != stdout)
		return fclose(f) ? -errno : 0;
	return 0;
}

static int write_bin(const char *path, const void *data, size_t len,
		     mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	const char *p = data;

	if (fd < 0)
		return -errno;
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			int r = -errno;

			close(fd);
			return r;
		}
		p += n;
		len -= (size_t)n;
	}
	return close(fd) ? -errno : 0;
}

static void list(const struct accelc_result *res)
{
	for (uint32_t i = 0; i < accelc_result_get_kernel_count(res); i++) {
		const struct accelc_kernel_info *k =
			accelc_result_get_kernel(res, i);

		printf("kernel %s (symbol %s)%s\n", k->name, k->wg_symbol,
		       k->flags & ACCELC_KERNEL_HAS_BARRIERS ?
			       " [barriers]" : "");
		if (k->reqd_work_group_size[0])
			printf("  reqd_work_group_size(%lu, %lu, %lu)\n",
			       (unsigned long)k->reqd_work_group_size[0],
			       (unsigned long)k->reqd_work_group_size[1],
			       (unsigned long)k->reqd_work_group_size[2]);
		if (k->work_group_size_hint[0])
			printf("  work_group_size_hint(%lu, %lu, %lu)\n",
			       (unsigned long)k->work_group_size_hint[0],
			       (unsigned long)k->work_group_size_hint[1],
			       (unsigned long)k->work_group_size_hint[2]);
		if (k->vec_type_hint)
			printf("  vec_type_hint(%s)\n", k->vec_type_hint);
		if (k->reqd_sub_group_size)
			printf("  intel_reqd_sub_group_size(%u)\n",
			       k->reqd_sub_group_size);
		if (k->sub_group_size)
			printf("  sub-groups of %u work-items\n",
			       k->sub_group_size);
		if (k->static_local_size)
			printf("  static local memory: %lu bytes\n",
			       (unsigned long)k->static_local_size);
		printf("  stack: %lu bytes%s", (unsigned long)k->private_size,
		       k->flags & ACCELC_KERNEL_STACK_UNKNOWN ?
			       " or more (not known)" : "");
		if (k->private_per_item)
			printf(" + %lu per work-item%s",
			       (unsigned long)k->private_per_item,
			       k->flags & ACCELC_KERNEL_FIBERS ?
				       " (fiber stacks)" : "");
		printf("\n");
		for (uint32_t a = 0; a < k->n_args; a++) {
			const struct accelc_arg_info *ai = &k->args[a];

			printf("  arg %u: %s%s%s%s%s %s%s %s: %s, %u bytes, "
			       "align %u\n", a,
			       access_names[ai->access & 3],
			       ai->type_qualifiers & ACCELC_TYPE_CONST ?
				       "const " : "",
			       ai->type_qualifiers & ACCELC_TYPE_VOLATILE ?
				       "volatile " : "",
			       ai->type_qualifiers & ACCELC_TYPE_RESTRICT ?
				       "restrict " : "",
			       spaces[ai->address_space & 3],
			       ai->type_name, "", ai->name,
			       kinds[ai->kind < 6 ? ai->kind : 0], ai->size,
			       ai->alignment);
		}
	}
}

static bool is_binary(const char *data, size_t len)
{
	return len >= 8 && !memcmp(data, "ACCELBIN", 8);
}

static bool is_spirv(const char *data, size_t len)
{
	static const unsigned char magic[4] = { 0x03, 0x02, 0x23, 0x07 };

	return len >= 4 && !memcmp(data, magic, 4);
}

struct outputs {
	const char *bin, *so, *ir, *as;
	bool list, verbose;
};

/* "accelc: time: <step> <ms> ms" per step the build ran. */
static void print_timings(const char *t)
{
	unsigned long long ns;
	char step[64];
	int n;

	while (t && sscanf(t, "%63s %llu%n", step, &ns, &n) == 2) {
		fprintf(stderr, "accelc: time: %s %.1f ms\n", step,
			(double)ns / 1e6);
		t += n;
		t += strspn(t, "\n");
	}
}

static int write_outputs(const struct accelc_result *res,
			 const struct outputs *w)
{
	static const char *const cache[] = { "off", "miss", "hit" };
	const void *data;
	size_t size;
	int r = 0;

	if (w->verbose) {
		fprintf(stderr, "accelc: program cache: %s\n",
			cache[accelc_result_get_cache_status(res) % 3]);
		print_timings(accelc_result_get_timings(res));
	}
	if (w->list)
		list(res);
	if (w->ir && (r = write_text(w->ir, accelc_result_get_ir(res))) < 0)
		fprintf(stderr, "accelc: %s: %s\n", w->ir, strerror(-r));
	if (w->as && r >= 0 &&
	    (r = write_text(w->as, accelc_result_get_asm(res))) < 0)
		fprintf(stderr, "accelc: %s: %s\n", w->as, strerror(-r));
	if (w->bin && r >= 0) {
		r = accelc_result_get_container(res, &data, &size);
		if (r == 0)
			r = write_bin(w->bin, data, size, 0644);
		if (r < 0)
			fprintf(stderr, "accelc: %s: %s\n", w->bin,
				strerror(-r));
	}
	if (w->so && r >= 0) {
		r = accelc_result_get_binary(res, &data, &size);
		if (r == 0)
			r = write_bin(w->so, data, size, 0755);
		if (r < 0)
			fprintf(stderr, "accelc: %s: %s\n", w->so,
				strerror(-r));
	}
	return r;
}

/* One line per target: name, "runs" or "no", CPU name, features on. */
static int list_targets(void)
{
	const char *name;

	for (unsigned i = 0; (name = accelc_target_name(i)); i++) {
		const char *sep = "";
		char *cpu, *features;
		int runs, r;

		r = accelc_target_resolve(name, &cpu, &features, &runs);
		if (r < 0) {
			fprintf(stderr, "accelc: %s: %s\n", name, strerror(-r));
			return 1;
		}
		printf("%-10s %-4s %s ", name, runs ? "runs" : "no", cpu);
		for (char *p = strtok(features, ","); p; p = strtok(NULL, ","))
			if (*p == '+') {
				printf("%s%s", sep, p + 1);
				sep = ",";
			}
		putchar('\n');
		free(cpu);
		free(features);
	}
	return 0;
}

static void print_facts(const char *label, uint32_t set)
{
	printf("      %-9s", label);
	if (!set)
		printf(" -");
	for (unsigned f = 0; f < ACCELC_N_FACTS; f++)
		if (set & (1u << f))
			printf(" %s", accelc_fact_names[f]);
	putchar('\n');
}

/*
 * The table of passes in the order it runs: "N. NAME (STAGE): WHAT",
 * when it runs if not always, then its facts.
 */
static int print_passes(void)
{
	for (size_t i = 0; i < accelc_n_passes; i++) {
		const struct accelc_pass *p = &accelc_passes[i];

		printf("%2zu. %s (%s): %s\n", i + 1, p->name, p->stage,
		       p->what);
		if (p->when)
			printf("      when:     %s\n", p->when);
		print_facts("requires:", p->requires);
		if (p->before)
			print_facts("before:", p->before);
		print_facts("provides:", p->provides);
	}
	return fflush(stdout) ? 1 : 0;
}

/*
 * The compiler names the source "<source>" (a program comes from memory);
 * here it has a file name, which is what the user knows.
 */
static void print_log(const char *log, const char *path)
{
	const char *name = strcmp(path, "-") ? path : "<stdin>";
	const char *p;

	while ((p = strstr(log, "<source>"))) {
		fwrite(log, 1, (size_t)(p - log), stderr);
		fputs(name, stderr);
		log = p + strlen("<source>");
	}
	fputs(log, stderr);
}

/*
 * "-I <the file's directory>" before the user's options, as a C compiler
 * searches the includer's directory for #include "..."; NULL for stdin,
 * a directory whose name build options cannot carry (white space), or
 * without memory.
 */
static char *with_include_dir(const char *path, const char *opts)
{
	const char *slash = strrchr(path, '/');
	char *out;
	int n;

	if (!strcmp(path, "-"))
		return NULL;
	if (!slash)
		n = asprintf(&out, "-I .%s%s", opts ? " " : "", opts ? opts : "");
	else if (strpbrk(path, " \t\n\r\f\v\"'\\"))
		return NULL;
	else
		n = asprintf(&out, "-I %.*s%s%s", (int)(slash - path + 1), path,
			     opts ? " " : "", opts ? opts : "");
	return n < 0 ? NULL : out;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "build-options", required_argument, NULL, 'b' },
		{ "output", required_argument, NULL, 'o' },
		{ "shared-object", required_argument, NULL, 's' },
		{ "no-cache", no_argument, NULL, 'n' },
		{ "timeout", required_argument, NULL, 'D' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "list", no_argument, NULL, 'l' },
		{ "emit-llvm", required_argument, NULL, 'L' },
		{ "emit-asm", required_argument, NULL, 'S' },
		{ "target", required_argument, NULL, 't' },
		{ "list-targets", no_argument, NULL, 'T' },
		{ "print-passes", no_argument, NULL, 'P' },
		{ "cpu", required_argument, NULL, 'c' },
		{ "features", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct accelc_options o = { .struct_size = sizeof(o) };
	struct accelc_result *res = NULL;
	struct outputs w = { 0 };
	char *src, *include_opts = NULL;
	bool binary;
	size_t len;
	int c, r;

	while ((c = getopt_long(argc, argv, "b:o:t:lvh", lo, NULL)) != -1) {
		switch (c) {
		case 'b':
			o.build_options = optarg;
			break;
		case 'o':
			w.bin = optarg;
			break;
		case 's':
			w.so = optarg;
			o.flags |= ACCELC_FLAG_KEEP_BINARY;
			break;
		case 'l':
			w.list = true;
			break;
		case 'L':
			w.ir = optarg;
			o.flags |= ACCELC_FLAG_KEEP_IR;
			break;
		case 'S':
			w.as = optarg;
			o.flags |= ACCELC_FLAG_KEEP_ASM;
			break;
		case 't':
			o.target = optarg;
			break;
		case 'T':
			return list_targets();
		case 'P':
			return print_passes();
		case 'c':
			o.cpu = optarg;
			break;
		case 'f':
			o.cpu_features = optarg;
			break;
		case 'n':
			o.flags |= ACCELC_FLAG_NO_CACHE;
			break;
		case 'D': {
			char *end;
			unsigned long ms;

			errno = 0;
			ms = strtoul(optarg, &end, 10);
			if (errno || *end || !*optarg || *optarg == '-' ||
			    !ms || ms > UINT32_MAX) {
				fprintf(stderr, "accelc: bad --timeout '%s' "
					"(milliseconds, 1 or more)\n", optarg);
				return 2;
			}
			o.timeout_ms = (uint32_t)ms;
			break;
		}
		case 'v':
			w.verbose = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind + 1 != argc) {
		usage(stderr);
		return 2;
	}
	src = read_all(argv[optind], &len);
	if (!src) {
		fprintf(stderr, "accelc: cannot read %s: %s\n", argv[optind],
			strerror(errno));
		return 1;
	}
	binary = is_binary(src, len);
	if (binary) {
		if (w.ir || w.as || o.build_options) {
			fprintf(stderr, "accelc: %s is a program binary: no "
				"build options, IR or assembly\n",
				argv[optind]);
			free(src);
			return 2;
		}
		r = accelc_load_binary(&o, src, len, &res);
	} else if (is_spirv(src, len)) {
		r = accelc_compile_il(&o, src, len, 0, NULL, 0, &res);
	} else {
		include_opts = with_include_dir(argv[optind], o.build_options);
		if (include_opts)
			o.build_options = include_opts;
		r = accelc_compile(&o, src, len, &res);
	}
	free(src);
	free(include_opts);
	if (res)
		print_log(accelc_result_get_log(res), argv[optind]);
	if (r == -ENOEXEC && !binary) {
		/* The log says why, in terms of the source. */
		fprintf(stderr, "accelc: %s: build failed\n", argv[optind]);
		accelc_result_free(res);
		return 1;
	}
	if (r < 0) {
		fprintf(stderr, "accelc: %s failed: %s\n",
			binary ? "loading the binary" : "build", strerror(-r));
		accelc_result_free(res);
		return 1;
	}
	r = write_outputs(res, &w);
	accelc_result_free(res);
	return r < 0 ? 1 : 0;
}
