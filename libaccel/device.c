/* SPDX-License-Identifier: MIT */
/*
 * Devices: owned by their context, referenced by everything built on them.
 */
#include <stdlib.h>
#include <string.h>

#include "backend.h"

int accel_device_alloc(struct accel_context *ctx,
		       const struct accel_backend_ops *ops,
		       struct accel_device **ret)
{
	struct accel_device *dev;
	size_t i;

	dev = calloc(1, sizeof(*dev));
	if (!dev)
		return -ENOMEM;
	atomic_init(&dev->refcount, 0);
	atomic_init(&dev->user_data, NULL);
	atomic_init(&dev->removed, false);
	dev->ctx = ctx;
	dev->ops = ops;
	dev->stats_slot = -1;
	dev->u64[ACCEL_DEVICE_U64_NUMA_NODE] = UINT64_MAX;
	for (i = 0; i < ACCEL_DEVICE_STRING_COUNT; i++) {
		dev->strings[i] = strdup("");
		if (!dev->strings[i]) {
			while (i--)
				free(dev->strings[i]);
			free(dev);
			return -ENOMEM;
		}
	}
	*ret = dev;
	return 0;
}

int accel_device_set_string(struct accel_device *dev,
			    enum accel_device_string prop, const char *value)
{
	char *copy;

	if ((unsigned)prop >= ACCEL_DEVICE_STRING_COUNT || !value)
		return -EINVAL;
	copy = strdup(value);
	if (!copy)
		return -ENOMEM;
	free(dev->strings[prop]);
	dev->strings[prop] = copy;
	return 0;
}

void accel_device_destroy(struct accel_device *dev)
{
	size_t i;

	if (dev->ops && dev->ops->device_fini)
		dev->ops->device_fini(dev);
	for (i = 0; i < ACCEL_DEVICE_STRING_COUNT; i++)
		free(dev->strings[i]);
	free(dev);
}

ACCEL_EXPORT struct accel_device *accel_device_ref(struct accel_device *dev)
{
	if (!dev)
		return NULL;
	accel_context_ref(dev->ctx);
	atomic_fetch_add_explicit(&dev->refcount, 1, memory_order_relaxed);
	return dev;
}

ACCEL_EXPORT struct accel_device *accel_device_unref(struct accel_device *dev)
{
	if (!dev)
		return NULL;
	/* The device itself goes with its context (see accel-private.h). */
	atomic_fetch_sub_explicit(&dev->refcount, 1, memory_order_relaxed);
	accel_context_unref(dev->ctx);
	return NULL;
}

ACCEL_EXPORT struct accel_context *
accel_device_get_context(struct accel_device *dev)
{
	return dev ? dev->ctx : NULL;
}

ACCEL_EXPORT int accel_device_get_status(struct accel_device *dev)
{
	if (!dev)
		return -EINVAL;
	return accel_device_alive(dev);
}

ACCEL_EXPORT int accel_device_query_u64(struct accel_device *dev,
					enum accel_device_u64 prop,
					uint64_t *ret)
{
	if (!dev || !ret || (unsigned)prop >= ACCEL_DEVICE_U64_COUNT)
		return -EINVAL;
	*ret = dev->u64[prop];
	/* Any fence of the context exports through its exporting device. */
	if (prop == ACCEL_DEVICE_U64_CAPS)
		*ret |= accel_fence_export_caps(dev->ctx);
	return 0;
}

ACCEL_EXPORT int accel_device_query_string(struct accel_device *dev,
					   enum accel_device_string prop,
					   const char **ret)
{
	if (!dev || !ret || (unsigned)prop >= ACCEL_DEVICE_STRING_COUNT)
		return -EINVAL;
	*ret = dev->strings[prop];
	return 0;
}

ACCEL_EXPORT int accel_device_set_user_data(struct accel_device *dev,
					    void *user_data)
{
	if (!dev)
		return -EINVAL;
	atomic_store_explicit(&dev->user_data, user_data, memory_order_release);
	return 0;
}

ACCEL_EXPORT void *accel_device_get_user_data(struct accel_device *dev)
{
	if (!dev)
		return NULL;
	return atomic_load_explicit(&dev->user_data, memory_order_acquire);
}
