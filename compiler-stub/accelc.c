/* SPDX-License-Identifier: MIT */
/* accelc: compile an OpenCL C file into a shared object of work-group
 * functions, list its kernels, dump IR or assembly. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "accelc.h"

static const char *kinds[] = { "?", "buffer", "value", "local" };
static const char *spaces[] = { "private", "global", "constant", "local" };
static const char *access_names[] = { "", "read_only ", "write_only ",
				      "read_write " };

static void usage(FILE *f)
{
	fprintf(f,
		"usage: accelc [options] FILE.cl\n"
		"  -b, --build-options OPTS  OpenCL build options\n"
		"  -o, --output FILE         write the shared object to FILE\n"
		"  -l, --list                list kernels and their arguments\n"
		"      --emit-llvm FILE      write optimised LLVM IR ('-': stdout)\n"
		"      --emit-asm FILE       write assembly ('-': stdout)\n"
		"      --cpu NAME            target CPU (default: this host)\n"
		"      --features STR        target features for --cpu\n"
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

static int write_bin(const char *path, const void *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
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
		if (k->static_local_size)
			printf("  static local memory: %lu bytes\n",
			       (unsigned long)k->static_local_size);
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
			       kinds[ai->kind & 3], ai->size, ai->alignment);
		}
	}
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "build-options", required_argument, NULL, 'b' },
		{ "output", required_argument, NULL, 'o' },
		{ "list", no_argument, NULL, 'l' },
		{ "emit-llvm", required_argument, NULL, 'L' },
		{ "emit-asm", required_argument, NULL, 'S' },
		{ "cpu", required_argument, NULL, 'c' },
		{ "features", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct accelc_options o = { .struct_size = sizeof(o) };
	const char *out = NULL, *ir = NULL, *as = NULL;
	struct accelc_result *res = NULL;
	bool do_list = false;
	size_t len;
	char *src;
	int c, r;

	while ((c = getopt_long(argc, argv, "b:o:lh", lo, NULL)) != -1) {
		switch (c) {
		case 'b':
			o.build_options = optarg;
			break;
		case 'o':
			out = optarg;
			break;
		case 'l':
			do_list = true;
			break;
		case 'L':
			ir = optarg;
			o.flags |= ACCELC_FLAG_KEEP_IR;
			break;
		case 'S':
			as = optarg;
			o.flags |= ACCELC_FLAG_KEEP_ASM;
			break;
		case 'c':
			o.cpu = optarg;
			break;
		case 'f':
			o.cpu_features = optarg;
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
	if (out)
		o.flags |= ACCELC_FLAG_KEEP_BINARY;
	r = accelc_compile(&o, src, len, &res);
	free(src);
	if (res)
		fputs(accelc_result_get_log(res), stderr);
	if (r < 0) {
		fprintf(stderr, "accelc: build failed: %s\n", strerror(-r));
		accelc_result_free(res);
		return 1;
	}
	if (do_list)
		list(res);
	if (ir && (r = write_text(ir, accelc_result_get_ir(res))) < 0)
		fprintf(stderr, "accelc: %s: %s\n", ir, strerror(-r));
	if (as && r >= 0 &&
	    (r = write_text(as, accelc_result_get_asm(res))) < 0)
		fprintf(stderr, "accelc: %s: %s\n", as, strerror(-r));
	if (out && r >= 0) {
		const void *data;
		size_t size;

		r = accelc_result_get_binary(res, &data, &size);
		if (r == 0)
			r = write_bin(out, data, size);
		if (r < 0)
			fprintf(stderr, "accelc: %s: %s\n", out, strerror(-r));
	}
	accelc_result_free(res);
	return r < 0 ? 1 : 0;
}
