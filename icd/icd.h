/* SPDX-License-Identifier: MIT */
/*
 * The OpenCL ICD's private header: object layouts, the shared helpers.
 *
 * The ICD is a client of libaccel's public API only (no include path into
 * libaccel/). Every OpenCL object is a struct _cl_* that starts with the
 * cl_khr_icd header: the dispatch table pointer, then (cl_khr_icd 2.0.0)
 * the loader's dispatch data, copied into every object of the platform.
 *
 * Entry points keep their OpenCL names but are hidden; icd.map exports only
 * what a loader looks up with dlsym().
 */
#ifndef ACCEL_ICD_H
#define ACCEL_ICD_H

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 300
#endif
/* The dispatch table holds every entry point, deprecated ones included. */
#define CL_USE_DEPRECATED_OPENCL_1_0_APIS
#define CL_USE_DEPRECATED_OPENCL_1_1_APIS
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#define CL_USE_DEPRECATED_OPENCL_2_0_APIS
#define CL_USE_DEPRECATED_OPENCL_2_1_APIS
#define CL_USE_DEPRECATED_OPENCL_2_2_APIS

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <CL/cl_icd.h>

#include <libaccel/libaccel.h>

#define ICD_EXPORT __attribute__((visibility("default")))
#define _unused_ __attribute__((unused))

#define ICD_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define ICD_MIN(a, b) ((a) < (b) ? (a) : (b))
#define ICD_MAX(a, b) ((a) > (b) ? (a) : (b))

/* cl_khr_icd 2.0.0 (newer than Debian 12's headers). */
#define ICD2_TAG ((intptr_t)0x4F50454E434C3331)

void *CL_API_CALL clIcdGetFunctionAddressForPlatformKHR(cl_platform_id p,
							const char *name);
cl_int CL_API_CALL clIcdSetPlatformDispatchDataKHR(cl_platform_id p,
						   void *data);

/* Our extension function suffix (CL_PLATFORM_ICD_SUFFIX_KHR). */
#define ICD_SUFFIX "ACCEL"

/* The version we implement, reported everywhere. */
#define ICD_CL_VERSION CL_MAKE_VERSION(3, 0, 0)

/* Set the result through an optional errcode_ret and return @ret. */
#define ICD_RETURN_ERR(errcode_ret, err, ret)                                  \
	do {                                                                   \
		if (errcode_ret)                                               \
			*(errcode_ret) = (err);                                \
		return (ret);                                                  \
	} while (0)

/* ---- objects ------------------------------------------------------------ */

/* Magic numbers: tell a valid object of the right type from anything else. */
enum icd_magic {
	ICD_MAGIC_FREED = 0,
	ICD_MAGIC_PLATFORM = 0x41504c54, /* "APLT" */
	ICD_MAGIC_DEVICE = 0x41444556,
	ICD_MAGIC_CONTEXT = 0x41435458,
	ICD_MAGIC_QUEUE = 0x41515545,
	ICD_MAGIC_MEM = 0x414d454d,
	ICD_MAGIC_PROGRAM = 0x41505247,
	ICD_MAGIC_KERNEL = 0x414b524e,
	ICD_MAGIC_EVENT = 0x41455654,
	ICD_MAGIC_SAMPLER = 0x4153504c,
};

/*
 * Common head of every object. Two counts: `refs` is what the application
 * sees (CL_*_REFERENCE_COUNT, clRetain/clRelease); `holds` keeps the memory
 * and is also taken by child objects and pending work, so that an object
 * the application released stays valid for whoever still points at it.
 * The application's references together own one hold.
 */
struct icd_object {
	/* cl_khr_icd: must be first, then the 2.0.0 dispatch data */
	const struct _cl_icd_dispatch *dispatch;
	void *dispatch_data;
	uint32_t magic;
	atomic_uint refs;
	atomic_uint holds;
};

struct _cl_platform_id {
	struct icd_object obj;
	/* initialised once, see icd_platform_get() */
	int init_error; /* CL error of the initialisation, CL_SUCCESS */
	struct accel_context *actx;
	cl_uint n_devices;
	cl_device_id *devices;
	char *extensions;
};

struct _cl_device_id {
	struct icd_object obj;
	cl_platform_id platform;
	struct accel_device *dev;
	cl_device_type type;
	uint64_t u64[ACCEL_DEVICE_U64_COUNT];
	const char *name;
	const char *vendor;
	const char *driver_version;
	const char *built_in_kernels; /* ';'-separated, may be "" */
	char *extensions;
	char *driver_version_full;
	bool compiler;
};

/* A registered callback, kept in a singly linked list. */
struct icd_callback {
	struct icd_callback *next;
	void (*fn)(void);
	void *user_data;
};

/* Register a destructor callback, newest first. */
cl_int icd_callback_push(struct icd_callback **list, pthread_mutex_t *lock,
			 void (*fn)(void), void *user_data);

struct _cl_context {
	struct icd_object obj;
	cl_platform_id platform;
	cl_uint n_devices;
	cl_device_id *devices;
	cl_context_properties *props; /* as given, with the final 0 */
	size_t n_props;               /* entries including the final 0 */
	void(CL_CALLBACK *notify)(const char *, const void *, size_t, void *);
	void *notify_data;
	pthread_mutex_t lock;
	struct icd_callback *destructors; /* newest first */
	/* clSVMAlloc()'s allocations, sorted by address, under lock */
	struct icd_svm *svm;
	size_t n_svm, cap_svm;
};

/* One clSVMAlloc() allocation (cl-svm.c). */
struct icd_svm {
	void *ptr;
	size_t size;
	cl_svm_mem_flags flags;
};

struct _cl_command_queue {
	struct icd_object obj;
	cl_context ctx;
	cl_device_id dev;
	struct accel_queue *q;
	cl_command_queue_properties props;
	cl_queue_properties *props_array; /* as given, with the final 0 */
	size_t n_props_array;
};

struct icd_mapping {
	struct icd_mapping *next;
	void *ptr;
	cl_map_flags flags;
};

struct _cl_mem {
	struct icd_object obj;
	cl_context ctx;
	cl_mem_object_type type;
	cl_mem_flags flags;
	size_t size;
	void *host_ptr;         /* CL_MEM_USE_HOST_PTR, else NULL */
	cl_mem parent;          /* sub-buffers: the parent (held) */
	size_t offset;          /* sub-buffers: origin in the parent */
	struct accel_buffer *buf;
	cl_mem_properties *props; /* clCreateBufferWithProperties, with the 0 */
	size_t n_props;
	bool external;          /* cl_khr_external_memory (a dma-buf) */
	pthread_mutex_t lock;
	struct icd_mapping *maps;
	cl_uint map_count;
	struct icd_callback *destructors; /* newest first */
	/*
	 * Images (type CL_MEM_OBJECT_IMAGE*): buf seen through a resolved
	 * layout; parent is the buffer or image it was made from, if any.
	 */
	struct accel_image_layout layout;
	cl_image_format format;
	size_t texel_size;
};

static inline bool icd_mem_is_image(cl_mem m)
{
	return m->type != CL_MEM_OBJECT_BUFFER;
}

struct _cl_sampler {
	struct icd_object obj;
	cl_context ctx;
	cl_bool normalized;
	cl_addressing_mode addressing;
	cl_filter_mode filter;
	uint32_t bits; /* ACCEL_SAMPLER_* */
	cl_sampler_properties *props; /* as given, with the final 0 */
	size_t n_props;
};

/* One device's build of a program. */
struct icd_build {
	cl_build_status status;
	cl_program_binary_type binary_type;
	char *log;
	char *options;
	struct accel_program *prog;
	/* loaded by clCreateProgramWithBinary, made prog by clBuildProgram */
	struct accel_program *binary_prog;
	/* clCompileProgram's object or a library: linked, never launched */
	struct accel_program *object;
	/*
	 * clGetKernelArgInfo answers: built or compiled from source with
	 * -cl-kernel-arg-info, or linked from such an object (icd/README.md)
	 */
	bool arg_info;
};

enum icd_program_origin {
	ICD_PROGRAM_SOURCE,
	ICD_PROGRAM_BINARY,
	ICD_PROGRAM_BUILT_IN,
	ICD_PROGRAM_LINKED, /* clLinkProgram's: no source, never built */
	ICD_PROGRAM_IL,     /* a SPIR-V module (clCreateProgramWithIL) */
};

struct _cl_program {
	struct icd_object obj;
	cl_context ctx;
	enum icd_program_origin origin;
	char *source;        /* source or built-in kernel names, NUL-ended */
	char *binary_options; /* options stored in a binary */
	cl_uint n_devices;
	cl_device_id *devices;
	struct icd_build *builds; /* one per device */
	pthread_mutex_t lock;
	atomic_uint n_kernels;    /* kernel objects alive */
	bool uniform_wg;          /* OpenCL C 1.x or -cl-uniform-work-group-size */
	char *kernel_names;       /* ';'-separated, after a build */
	cl_uint n_kernel_names;
	/* IL programs: the module, the specialization constants set */
	void *il;
	size_t il_size;
	struct accel_spec_constant *spec;
	cl_uint n_spec;
};

struct icd_arg {
	struct accel_kernel_arg_desc desc;
	bool set;
	size_t local_size; /* local arguments: the size set */
};

struct _cl_kernel {
	struct icd_object obj;
	cl_program prog;
	struct accel_kernel **k; /* one per program device, NULL if not built */
	cl_uint n_args;
	struct icd_arg *args;
	uint64_t static_local;
	uint64_t reqd[3];
	bool arg_info; /* that of the build the arguments come from */
};

struct _cl_event {
	struct icd_object obj;
	cl_context ctx;
	cl_command_queue queue; /* held; NULL for user events */
	cl_command_type type;
	struct accel_fence *fence;
	/*
	 * Commands of several libaccel commands (command-buffers): a fence
	 * that signalled when the first could start, for the profiling
	 * times up to CL_PROFILING_COMMAND_START; NULL: fence's
	 */
	struct accel_fence *start;
	/* user events: CL_SUBMITTED until set, then the status set */
	atomic_int user_status;
	bool profiling;
};

/* ---- icd-object.c ----------------------------------------------------- */

void icd_object_init(struct icd_object *o, cl_platform_id platform,
		     enum icd_magic magic);
/* NULL-safe check that @p o is a live object of type @p magic. */
bool icd_object_valid(const void *o, enum icd_magic magic);
void icd_hold(void *o);
/* Drop a hold; frees the object (through its type's free) with the last. */
void icd_put(void *o);
cl_int icd_retain(void *o, enum icd_magic magic, cl_int invalid);
cl_int icd_release(void *o, enum icd_magic magic, cl_int invalid);
cl_uint icd_refcount(const void *o);

/* ---- icd-dispatch.c --------------------------------------------------- */

extern const struct _cl_icd_dispatch icd_dispatch;
void *icd_function_address(const char *name);
void *icd_extension_address(const char *name);

/* ---- icd-error.c -------------------------------------------------------- */

/* The generic meaning of a libaccel -errno as a CL error code. */
cl_int icd_error(int err);
/* A launch verdict (c->error 0 or a -errno) as a CL error code. */
cl_int icd_launch_error(const struct accel_launch_check *c);

/* ---- icd-info.c --------------------------------------------------------- */

/* Copy @p n bytes of @p src out as a clGet*Info result. */
cl_int icd_info(size_t size, void *value, size_t *size_ret, const void *src,
		size_t n);
cl_int icd_info_string(size_t size, void *value, size_t *size_ret,
		       const char *s);
cl_int icd_info_uint(size_t size, void *value, size_t *size_ret, cl_uint v);
cl_int icd_info_ulong(size_t size, void *value, size_t *size_ret, cl_ulong v);
cl_int icd_info_size(size_t size, void *value, size_t *size_ret, size_t v);
cl_int icd_info_bool(size_t size, void *value, size_t *size_ret, bool v);
cl_int icd_info_ptr(size_t size, void *value, size_t *size_ret,
		    const void *v);
/* CL_DEVICE_IL_VERSION and CL_DEVICE_ILS_WITH_VERSION (cl-device-il.c). */
cl_int icd_device_il_info(cl_device_id d, cl_device_info param, size_t size,
			  void *value, size_t *size_ret);
/* A space-separated list as cl_name_version entries of one version. */
cl_int icd_info_name_versions(size_t size, void *value, size_t *size_ret,
			      const char *list, char sep,
			      cl_version (*version_of)(const char *name));
/* Append @p fmt to a malloc'ed string; *s is NULL on out-of-memory. */
void icd_strcat(char **s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* ---- cl-platform.c / cl-device.c ------------------------------------ */

/* The platform, initialised on first use; NULL if that failed. */
cl_platform_id icd_platform_get(void);
bool icd_platform_valid(cl_platform_id p);
int icd_device_init(cl_platform_id p, struct accel_device *dev,
		    cl_device_id *ret);
void icd_device_free(cl_device_id d);
cl_version icd_extension_version(const char *name);

/* ---- cl-context.c ------------------------------------------------------- */

bool icd_context_has_device(cl_context ctx, cl_device_id dev);
void icd_context_free(cl_context ctx);

/* ---- cl-svm.c ---------------------------------------------------------- */

/* CL_DEVICE_SVM_CAPABILITIES of @d. */
cl_device_svm_capabilities icd_device_svm_caps(cl_device_id d);
/* What the devices of @ctx offer between them. */
cl_device_svm_capabilities icd_context_svm_caps(cl_context ctx);
/*
 * The bytes from @p to the end of the live clSVMAlloc() allocation of @ctx
 * it lies in; 0 if it lies in none.
 */
size_t icd_svm_room(cl_context ctx, const void *p);
/* Free what clSVMFree() was not called for (the context goes). */
void icd_svm_free_all(cl_context ctx);

/* ---- cl-queue.c --------------------------------------------------------- */

void icd_queue_free(cl_command_queue q);

/* ---- cl-mem.c ----------------------------------------------------------- */

void icd_mem_free(cl_mem m);
/* A buffer object of @p size bytes, no memory yet (refs and holds 1). */
cl_mem icd_mem_alloc(cl_context ctx, cl_mem_flags flags, size_t size);
/* CL_INVALID_VALUE for unknown or contradicting cl_mem_flags. */
cl_int icd_mem_check_flags(cl_mem_flags flags);
/* The ACCEL_BUFFER_* access flags of @p flags. */
uint32_t icd_mem_accel_flags(cl_mem_flags flags);
/* The buffer's offset in its root buffer (for overlap checks). */
size_t icd_mem_root_offset(cl_mem m);
cl_mem icd_mem_root(cl_mem m);

/* ---- icd-rect.c --------------------------------------------------------- */

/*
 * A box of bytes: row y of slice z starts at
 * (origin[2] + z) * slice_pitch + (origin[1] + y) * row_pitch + origin[0].
 */
struct icd_rect {
	size_t origin[3];
	size_t row_pitch;
	size_t slice_pitch;
};

/* The bytes [start, end) @p region touches; false on overflow or a 0. */
bool icd_rect_span(const struct icd_rect *r, const size_t *region,
		   size_t *start, size_t *end);
size_t icd_rect_offset(const struct icd_rect *r, size_t y, size_t z);

/* A box copy between buffers and host memory, as a host function. */
struct icd_rect_cmd {
	struct accel_buffer *src_buf, *dst_buf; /* held; NULL: host memory */
	char *src_host, *dst_host;
	size_t src_start, src_end, dst_start, dst_end;
	struct icd_rect src, dst;
	size_t region[3]; /* bytes per row, rows, slices */
};

int icd_rect_run(void *c);
/* Drops the buffers and frees @p c. */
void icd_rect_free(void *c);
/* Do source and destination (offsets in one buffer) share a byte? */
bool icd_rect_overlap(const struct icd_rect_cmd *c);
/*
 * Finish a copy between @p src and @p dst whose boxes @p c holds: refuse
 * boxes that share memory (CL_MEM_COPY_OVERLAP, freeing @p c), else hand
 * @p c out holding both buffers.
 */
cl_int icd_rect_copy_finish(cl_mem src, cl_mem dst, struct icd_rect_cmd *c,
			    struct icd_rect_cmd **ret);
/*
 * The ends of a read (buffer to host) or a write: bytes [start, end) of
 * @p buf, held, and host memory @p ptr; the boxes are the caller's.
 */
void icd_rect_host_ends(struct icd_rect_cmd *c, bool read,
			struct accel_buffer *buf, size_t start, size_t end,
			void *ptr);
/* Run @p c as a command of @p q (consumes @p c). */
cl_int icd_rect_submit(cl_command_queue q, struct icd_rect_cmd *c,
		       cl_command_type type, cl_bool blocking, cl_uint n,
		       const cl_event *list, cl_event *event);

/* ---- cl-transfer.c ------------------------------------------------------ */

/*
 * clEnqueueCopyBufferRect's checks of the rectangles (the objects and
 * their context are the caller's to check) and the copy as a host
 * function's data, run by icd_rect_run() as often as wanted and freed
 * by icd_rect_free(); it holds the buffers.
 */
cl_int icd_copy_rect_prepare(cl_mem src, cl_mem dst, const size_t *src_origin,
			     const size_t *dst_origin, const size_t *region,
			     size_t src_row_pitch, size_t src_slice_pitch,
			     size_t dst_row_pitch, size_t dst_slice_pitch,
			     struct icd_rect_cmd **ret);
/* Errors of submitting a buffer command, as CL codes. */
cl_int icd_buffer_submit_error(int e);
/*
 * Map @p size bytes at @p offset of @p m (checked by the caller) for the
 * host: clEnqueueMapBuffer's checks of the flags and wait list, the
 * mapping recorded for clEnqueueUnmapMemObject.
 */
void *icd_mem_map(cl_command_queue q, cl_mem m, cl_bool blocking,
		  cl_map_flags flags, size_t offset, size_t size, cl_uint n,
		  const cl_event *list, cl_event *event, cl_command_type type,
		  cl_int *err);
bool icd_host_may_read(cl_mem m);
bool icd_host_may_write(cl_mem m);

/* ---- cl-image.c / cl-sampler.c ------------------------------------------ */

/* Does a device of @p ctx have images? */
bool icd_context_has_images(cl_context ctx);
bool icd_device_has_images(cl_device_id d);
void icd_sampler_free(cl_sampler s);

/* ---- cl-program.c / cl-kernel.c ------------------------------------- */

void icd_program_free(cl_program p);
/* Do build or compile @p options have -cl-kernel-arg-info? */
bool icd_options_arg_info(const char *options);
/* Index of @p dev among the program's devices, -1 if none. */
int icd_program_device_index(cl_program p, cl_device_id dev);
void icd_kernel_free(cl_kernel k);
/* Local memory of a launch: static plus the local arguments set. */
uint64_t icd_kernel_local_mem(cl_kernel k);
/*
 * clSetKernelArg() and clSetKernelArgSVMPointer() for argument @p index of
 * @p k on @p ak alone: one of its libaccel kernels or a clone of one
 * (mutable-dispatch updates, for device @p dev), with the same checks.
 */
cl_int icd_kernel_arg_apply(cl_kernel k, struct accel_kernel *ak,
			    cl_uint index, size_t size, const void *value);
cl_int icd_kernel_svm_arg_apply(cl_kernel k, cl_device_id dev,
				struct accel_kernel *ak, cl_uint index,
				const void *value);

/* ---- cl-ndrange.c ------------------------------------------------------- */

/*
 * clEnqueueNDRangeKernel's checks of @p k and the geometry for queue @p q
 * (valid): the range, the device's kernel, and whether the range is empty
 * (a command that does nothing). Nothing is written on failure.
 */
cl_int icd_ndrange_prepare(cl_command_queue q, cl_kernel k, cl_uint dim,
			   const size_t *offset, const size_t *global,
			   const size_t *local, struct accel_ndrange *ret,
			   struct accel_kernel **ret_kernel, bool *ret_empty);
/* The CL error for libaccel refusing to launch @p ak over @p range. */
cl_int icd_launch_refused(struct accel_kernel *ak,
			  const struct accel_ndrange *range, int e);

/* ---- cl-event.c --------------------------------------------------------- */

void icd_event_free(cl_event e);
/* Wrap a command's fence (a new reference is taken) as an event. */
cl_int icd_event_new(cl_command_queue q, cl_command_type type,
		     struct accel_fence *fence, cl_event *ret);
/* The CL execution status of an event. */
cl_int icd_event_status(cl_event e);
/* The CL status a fence failed with. */
cl_int icd_fence_cl_status(int status);

/* ---- cl-enqueue.c ------------------------------------------------------- */

/* A validated wait list as libaccel fences. */
struct icd_wait {
	struct accel_fence *inline_fences[8];
	struct accel_fence **fences;
	uint32_t n;
};

cl_int icd_wait_init(cl_command_queue q, cl_uint n, const cl_event *list,
		     struct icd_wait *w);
void icd_wait_fini(struct icd_wait *w);
/*
 * A marker (type CL_COMMAND_MARKER, _BARRIER or another command that only
 * orders) after @p list; an empty list on an out-of-order queue waits for
 * every command before it (cl-enqueue.c).
 */
cl_int icd_enqueue_marker(cl_command_queue q, cl_uint n,
			  const cl_event *list, cl_event *event,
			  cl_command_type type);

/*
 * Finish an enqueue: hand out the event if wanted, wait if blocking.
 * Consumes @p fence (may be NULL only when the submission failed).
 */
cl_int icd_enqueue_done(cl_command_queue q, cl_command_type type,
			struct accel_fence *fence, bool blocking,
			cl_event *event);
/* Run @p run(@p c) as a command of @p q; consumes @p c (@p free_fn). */
cl_int icd_enqueue_host_fn(cl_command_queue q, cl_command_type type,
			   int (*run)(void *), void *c,
			   void (*free_fn)(void *), cl_bool blocking,
			   cl_uint n, const cl_event *list, cl_event *event);

#endif /* ACCEL_ICD_H */
