/* SPDX-License-Identifier: MIT */
/*
 * The platform: one per process. The ICD contract has no context argument
 * anywhere before the first platform is handed out (clIcdGetPlatformIDsKHR
 * takes none), so this is the one piece of global state; it is made once,
 * on first use, and holds the libaccel context every OpenCL object uses.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "icd.h"
#include "icd-sharing.h"
#include "cl-mutable-dispatch.h"

static struct _cl_platform_id platform;
static pthread_once_t platform_once = PTHREAD_ONCE_INIT;

static const char platform_name[] = "libaccel";
static const char platform_vendor[] = "libaccel";
static const char platform_version[] =
	"OpenCL 3.0 libaccel " ACCEL_VERSION_STRING;

/* Extensions of the platform itself, before those all devices share. */
static const char platform_own_extensions[] =
	"cl_khr_icd cl_khr_extended_versioning";

/* Devices that can run kernels become OpenCL devices. */
static bool device_usable(struct accel_device *dev)
{
	uint64_t caps = 0;

	if (accel_device_query_u64(dev, ACCEL_DEVICE_U64_CAPS, &caps) < 0)
		return false;
	return caps & (ACCEL_DEVICE_CAP_COMPILER |
		       ACCEL_DEVICE_CAP_BUILT_IN_KERNELS |
		       ACCEL_DEVICE_CAP_NATIVE_KERNELS);
}

static bool list_has(const char *list, const char *word, size_t len)
{
	const char *p = list;

	while ((p = strstr(p, word))) {
		if ((p == list || p[-1] == ' ') &&
		    (p[len] == ' ' || p[len] == '\0'))
			return true;
		p += len;
	}
	return false;
}

/* The platform's own extensions, then those every device has. */
static char *platform_extensions(cl_platform_id p)
{
	char *s = strdup(platform_own_extensions);
	const char *w, *end;

	if (!s || p->n_devices == 0)
		return s;
	for (w = p->devices[0]->extensions; *w; w = end) {
		size_t len;
		char word[128];
		cl_uint i;
		bool all = true;

		while (*w == ' ')
			w++;
		end = strchr(w, ' ');
		if (!end)
			end = w + strlen(w);
		len = (size_t)(end - w);
		if (!len || len >= sizeof(word))
			continue;
		memcpy(word, w, len);
		word[len] = '\0';
		for (i = 1; i < p->n_devices; i++)
			all = all && list_has(p->devices[i]->extensions, word,
					      len);
		if (all && !list_has(s, word, len))
			icd_strcat(&s, " %s", word);
		if (!s)
			return NULL;
	}
	return s;
}

static void platform_init(void)
{
	struct accel_device **devs = NULL;
	int n, r, i;

	icd_object_init(&platform.obj, NULL, ICD_MAGIC_PLATFORM);
	platform.init_error = CL_OUT_OF_HOST_MEMORY;

	if (accel_context_new(0, &platform.actx) < 0)
		return;
	/*
	 * libaccel logs errors to stderr by default; a library loaded into
	 * any OpenCL program should stay quiet unless asked (ACCEL_LOG).
	 */
	if (!secure_getenv("ACCEL_LOG"))
		accel_context_set_log_fn(platform.actx, NULL, NULL);

	n = accel_context_get_devices(platform.actx, NULL, 0);
	if (n < 0)
		goto fail;
	devs = calloc((size_t)n, sizeof(*devs));
	platform.devices = calloc((size_t)n, sizeof(*platform.devices));
	if (!devs || !platform.devices)
		goto fail;
	r = accel_context_get_devices(platform.actx, devs, (size_t)n);
	if (r < 0)
		goto fail;
	n = ICD_MIN(n, r);
	for (i = 0; i < n; i++) {
		cl_device_id d;

		if (!device_usable(devs[i]))
			continue;
		if (icd_device_init(&platform, devs[i], &d) < 0)
			continue;
		platform.devices[platform.n_devices++] = d;
	}
	platform.extensions = platform_extensions(&platform);
	if (!platform.extensions)
		goto fail;
	platform.init_error = platform.n_devices ? CL_SUCCESS :
						   CL_PLATFORM_NOT_FOUND_KHR;
fail:
	for (i = 0; devs && i < n; i++)
		accel_device_unref(devs[i]);
	free(devs);
}

/*
 * When the ICD is unloaded (or the process exits) the platform lets go of
 * libaccel. Objects the application still holds keep the libaccel context
 * alive through their own references; when it released everything, this
 * frees the context and stops its worker threads, so nothing of ours runs
 * during the rest of the exit (or under a leak checker).
 */
__attribute__((destructor)) static void platform_fini(void)
{
	cl_uint i;

	if (!platform.actx)
		return;
	platform.init_error = CL_PLATFORM_NOT_FOUND_KHR;
	for (i = 0; i < platform.n_devices; i++)
		icd_device_free(platform.devices[i]);
	free(platform.devices);
	platform.devices = NULL;
	platform.n_devices = 0;
	free(platform.extensions);
	platform.extensions = NULL;
	platform.actx = accel_context_unref(platform.actx);
}

cl_platform_id icd_platform_get(void)
{
	pthread_once(&platform_once, platform_init);
	return platform.init_error == CL_SUCCESS ? &platform : NULL;
}

bool icd_platform_valid(cl_platform_id p)
{
	return p == &platform && platform.init_error == CL_SUCCESS;
}

ICD_EXPORT cl_int CL_API_CALL clIcdGetPlatformIDsKHR(cl_uint num_entries,
					  cl_platform_id *platforms,
					  cl_uint *num_platforms)
{
	cl_platform_id p;

	if ((num_entries == 0 && platforms) || (!platforms && !num_platforms))
		return CL_INVALID_VALUE;
	p = icd_platform_get();
	if (!p) {
		if (num_platforms)
			*num_platforms = 0;
		return CL_PLATFORM_NOT_FOUND_KHR;
	}
	if (platforms)
		platforms[0] = p;
	if (num_platforms)
		*num_platforms = 1;
	return CL_SUCCESS;
}

/* What clIcdGetFunctionAddressForPlatformKHR hands out for the slot. */
cl_int CL_API_CALL clGetPlatformIDs(cl_uint num_entries,
				    cl_platform_id *platforms,
				    cl_uint *num_platforms)
{
	return clIcdGetPlatformIDsKHR(num_entries, platforms, num_platforms);
}

cl_version icd_extension_version(const char *name)
{
	if (!strcmp(name, "cl_khr_icd"))
		return CL_MAKE_VERSION(2, 0, 0);
	if (!strcmp(name, "cl_khr_command_buffer"))
		return ICD_COMMAND_BUFFER_VERSION;
	if (!strcmp(name, "cl_khr_command_buffer_mutable_dispatch"))
		return ICD_MUTABLE_DISPATCH_VERSION;
	/* every other extension we list is at its first version */
	return CL_MAKE_VERSION(1, 0, 0);
}

static cl_ulong host_timer_resolution(void)
{
	struct timespec ts;

	if (clock_getres(CLOCK_MONOTONIC, &ts) < 0)
		return 0;
	return (cl_ulong)ts.tv_sec * 1000000000u + (cl_ulong)ts.tv_nsec;
}

/* Exported too: ocl-icd looks it up with dlsym() before loading an ICD. */
ICD_EXPORT cl_int CL_API_CALL clGetPlatformInfo(cl_platform_id p,
				     cl_platform_info param, size_t size,
				     void *value, size_t *size_ret)
{
	bool full = true;
	cl_uint i;

	/* NULL picks our (only) platform, as the specification allows. */
	if (!p)
		p = icd_platform_get();
	if (!icd_platform_valid(p))
		return CL_INVALID_PLATFORM;

	switch (param) {
	case CL_PLATFORM_PROFILE:
		for (i = 0; i < p->n_devices; i++)
			full = full && p->devices[i]->compiler;
		return icd_info_string(size, value, size_ret,
				       full ? "FULL_PROFILE" :
					      "EMBEDDED_PROFILE");
	case CL_PLATFORM_VERSION:
		return icd_info_string(size, value, size_ret,
				       platform_version);
	case CL_PLATFORM_NUMERIC_VERSION:
		return icd_info_uint(size, value, size_ret, ICD_CL_VERSION);
	case CL_PLATFORM_NAME:
		return icd_info_string(size, value, size_ret, platform_name);
	case CL_PLATFORM_VENDOR:
		return icd_info_string(size, value, size_ret,
				       platform_vendor);
	case CL_PLATFORM_EXTENSIONS:
		return icd_info_string(size, value, size_ret, p->extensions);
	case CL_PLATFORM_EXTENSIONS_WITH_VERSION:
		return icd_info_name_versions(size, value, size_ret,
					      p->extensions, ' ',
					      icd_extension_version);
	case CL_PLATFORM_HOST_TIMER_RESOLUTION:
		return icd_info_ulong(size, value, size_ret,
				      host_timer_resolution());
	case CL_PLATFORM_ICD_SUFFIX_KHR:
		return icd_info_string(size, value, size_ret, ICD_SUFFIX);
	case CL_PLATFORM_SEMAPHORE_TYPES_KHR:
	case CL_PLATFORM_SEMAPHORE_IMPORT_HANDLE_TYPES_KHR:
	case CL_PLATFORM_SEMAPHORE_EXPORT_HANDLE_TYPES_KHR:
	case CL_PLATFORM_EXTERNAL_MEMORY_IMPORT_HANDLE_TYPES_KHR:
		return icd_sharing_platform_info(p, param, size, value,
						 size_ret);
	default:
		return CL_INVALID_VALUE;
	}
}

cl_int CL_API_CALL clUnloadPlatformCompiler(cl_platform_id p)
{
	if (!icd_platform_valid(p))
		return CL_INVALID_PLATFORM;
	/* A hint only: the compiler module stays loaded. */
	return CL_SUCCESS;
}

cl_int CL_API_CALL clUnloadCompiler(void)
{
	return CL_SUCCESS;
}

/* cl_khr_icd 2.0.0 */

void *CL_API_CALL clIcdGetFunctionAddressForPlatformKHR(cl_platform_id p,
							const char *name)
{
	if (!icd_platform_valid(p) || !name)
		return NULL;
	return icd_function_address(name);
}

cl_int CL_API_CALL clIcdSetPlatformDispatchDataKHR(cl_platform_id p,
						   void *data)
{
	cl_uint i;

	if (!icd_platform_valid(p))
		return CL_INVALID_PLATFORM;
	/* Devices exist already; later objects copy it from the platform. */
	p->obj.dispatch_data = data;
	for (i = 0; i < p->n_devices; i++)
		p->devices[i]->obj.dispatch_data = data;
	return CL_SUCCESS;
}

cl_int CL_API_CALL clGetHostTimer(cl_device_id dev, cl_ulong *host_ts)
{
	struct timespec ts;

	if (!icd_object_valid(dev, ICD_MAGIC_DEVICE))
		return CL_INVALID_DEVICE;
	if (!host_ts)
		return CL_INVALID_VALUE;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	*host_ts = (cl_ulong)ts.tv_sec * 1000000000u + (cl_ulong)ts.tv_nsec;
	return CL_SUCCESS;
}

cl_int CL_API_CALL clGetDeviceAndHostTimer(cl_device_id dev,
					   cl_ulong *dev_ts,
					   cl_ulong *host_ts)
{
	cl_int r;

	if (!dev_ts)
		return icd_object_valid(dev, ICD_MAGIC_DEVICE) ?
			       CL_INVALID_VALUE : CL_INVALID_DEVICE;
	/* Profiling timestamps are CLOCK_MONOTONIC too: one clock. */
	r = clGetHostTimer(dev, host_ts);
	if (r == CL_SUCCESS)
		*dev_ts = *host_ts;
	return r;
}
