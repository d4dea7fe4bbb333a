/* SPDX-License-Identifier: MIT */
/*
 * A native kernel's argument descriptions in one line each
 * (struct accel_kernel_arg_desc): buffers are global, values private.
 */
#ifndef EXAMPLES_KERNEL_ARG_H
#define EXAMPLES_KERNEL_ARG_H

#include <libaccel/libaccel.h>

#define KERNEL_ARG(k, n, t, sz, q)                                           \
	{ .struct_size = sizeof(struct accel_kernel_arg_desc),               \
	  .kind = (k), .size = (sz),                                         \
	  .address_space = (k) == ACCEL_KERNEL_ARG_BUFFER ?                  \
				   ACCEL_KERNEL_ARG_ADDR_GLOBAL :            \
				   ACCEL_KERNEL_ARG_ADDR_PRIVATE,            \
	  .type_qualifiers = (q), .name = (n), .type_name = (t) }

#endif /* EXAMPLES_KERNEL_ARG_H */
