// SPDX-License-Identifier: GPL-2.0
/*
 * refaccel buffers: GEM shmem objects. PRIME export and import are the
 * DRM core's defaults (an imported dma-buf becomes a shmem object over
 * its sg table, sharing the exporter's reservation object).
 */
#include <linux/mm.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_gem_shmem_helper.h>

#include "refaccel_accel.h"
#include "refaccel_drv.h"

int refaccel_bo_create_ioctl(struct drm_device *drm, void *data,
			     struct drm_file *file)
{
	struct drm_refaccel_bo_create *args = data;
	struct drm_gem_shmem_object *shmem;
	u64 max = (u64)totalram_pages() << PAGE_SHIFT;
	int ret;

	if (args->flags || args->pad || args->pad2)
		return -EINVAL;
	if (!args->size)
		return -EINVAL;
	/* shmem allocates lazily: refuse what could never be backed. */
	if (args->size > max)
		return -E2BIG;

	shmem = drm_gem_shmem_create(drm, PAGE_ALIGN(args->size));
	if (IS_ERR(shmem))
		return PTR_ERR(shmem);
	ret = drm_gem_handle_create(file, &shmem->base, &args->handle);
	/* The handle holds the object now (or nothing does). */
	drm_gem_object_put(&shmem->base);
	return ret;
}

int refaccel_bo_info_ioctl(struct drm_device *drm, void *data,
			   struct drm_file *file)
{
	struct drm_refaccel_bo_info *args = data;
	struct drm_gem_object *obj;
	int ret;

	if (args->flags)
		return -EINVAL;
	obj = drm_gem_object_lookup(file, args->handle);
	if (!obj)
		return -ENOENT;
	ret = drm_gem_create_mmap_offset(obj);
	if (!ret) {
		args->size = obj->size;
		args->mmap_offset = drm_vma_node_offset_addr(&obj->vma_node);
	}
	drm_gem_object_put(obj);
	return ret;
}
