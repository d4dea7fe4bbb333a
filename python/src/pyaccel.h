/* SPDX-License-Identifier: MIT */
/*
 * Private declarations of the libaccel Python extension: the module state,
 * the object layouts and the helpers the files share. The extension is a
 * client of the public C API only (include/libaccel/).
 */
#ifndef PYACCEL_H
#define PYACCEL_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <libaccel/libaccel.h>

/*
 * Native callbacks (fence callbacks, DLPack deleters) may run on libaccel
 * worker threads, or on a consumer's thread, after the interpreter began
 * to shut down, when taking the GIL is no longer allowed. They enter
 * through this guard: refcounted, so it outlives the module.
 */
struct pa_guard {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool closing;      /* the interpreter is finalising */
	unsigned active;   /* callbacks holding the GIL through the guard */
	unsigned refs;
};

struct pa_guard *pa_guard_new(void);
struct pa_guard *pa_guard_ref(struct pa_guard *g);
void pa_guard_unref(struct pa_guard *g);
/* true: the GIL is held (release with pa_guard_leave()); false: closing */
bool pa_guard_enter(struct pa_guard *g, PyGILState_STATE *st);
void pa_guard_leave(struct pa_guard *g, PyGILState_STATE st);
/* with the GIL held: refuse new entries, wait for those inside */
void pa_guard_close(struct pa_guard *g);

struct pa_state {
	PyObject *Error; /* libaccel.Error, an OSError */
	PyTypeObject *Context, *Device, *Buffer, *Tensor, *Program, *Kernel,
		*Queue, *Fence, *ImageLayout, *Image, *Sampler;
	PyObject *default_context; /* made on first need */
	struct pa_guard *guard;
};

extern PyModuleDef pa_module_def;

struct pa_state *pa_state_of_type(PyTypeObject *tp);
static inline struct pa_state *pa_state_of(PyObject *self)
{
	return pa_state_of_type(Py_TYPE(self));
}

/* errors.c: "O&" converters for uint64_t and uint32_t (checked) */
int pa_u64(PyObject *obj, void *out);
int pa_u32(PyObject *obj, void *out);

/* errors.c: raise libaccel.Error for a negative errno; returns NULL */
PyObject *pa_raise(struct pa_state *st, int err, const char *what);
PyObject *pa_raise_log(struct pa_state *st, int err, const char *what,
		       const char *log);

struct pa_context {
	PyObject_HEAD
	struct accel_context *ctx;
};

struct pa_device {
	PyObject_HEAD
	struct accel_device *dev;
	PyObject *context; /* the Context object */
};

struct pa_buffer {
	PyObject_HEAD
	struct accel_buffer *buf;
	PyObject *device;   /* the Device object */
	PyObject *parent;   /* the parent Buffer of a sub-buffer, or NULL */
	/* memory the buffer wraps (user pointer), released after the buffer: */
	Py_buffer host;     /* a buffer-protocol export, if has_host */
	bool has_host;
	void *dl;           /* a DLManagedTensor[Versioned] from a producer */
	bool dl_versioned;
};

/* a typed view of a buffer for DLPack (Buffer.as_tensor()) */
struct pa_tensor {
	PyObject_HEAD
	PyObject *buffer;   /* the Buffer */
	int ndim;
	uint8_t code, bits;
	uint16_t lanes;
	uint64_t offset;    /* bytes into the buffer */
	int64_t shape[32], strides[32];
};

struct pa_program {
	PyObject_HEAD
	struct accel_program *prog;
	PyObject *device;
	PyObject *build_log; /* str or None */
};

struct pa_kernel {
	PyObject_HEAD
	struct accel_kernel *kernel;
	PyObject *program;
	PyObject *args;     /* list: the object set per argument, or None */
};

struct pa_queue {
	PyObject_HEAD
	struct accel_queue *queue;
	PyObject *device;
};

struct pa_fence {
	PyObject_HEAD
	struct accel_fence *fence;
	PyObject *context;  /* Context object or NULL (work fences) */
	int poll_fd;        /* fileno(), made on first use, -1 before */
};

/* constructors from C objects; they take over the reference */
PyObject *pa_device_wrap(struct pa_state *st, struct accel_device *dev,
			 PyObject *context);
PyObject *pa_buffer_wrap(struct pa_state *st, struct accel_buffer *buf,
			 PyObject *device);
PyObject *pa_fence_wrap(struct pa_state *st, struct accel_fence *fence,
			PyObject *context);

/* a Buffer over caller memory (buffer protocol), for kernel arguments */
PyObject *pa_buffer_from_host(struct pa_state *st, PyObject *device,
			      PyObject *obj, bool writable);
/* the CPU device of the default context (new reference) */
PyObject *pa_default_device(struct pa_state *st);
PyObject *pa_context_cpu_device(struct pa_state *st, PyObject *context);

/*
 * Keep Python objects alive until a fence signals: a submission's buffers
 * and host memory, a kernel's arguments. Steals @p objs (a tuple or list).
 * Returns 0 or -1 with an exception set.
 */
int pa_keep_until(struct pa_state *st, struct accel_fence *fence,
		  PyObject *objs);

/* fence wait lists: a sequence of Fence objects to an array of references */
int pa_wait_list(struct pa_state *st, PyObject *seq, uint32_t *n,
		 struct accel_fence ***ret);
void pa_wait_free(uint32_t n, struct accel_fence **arr);

/* DLPack (dlpack.c) */
PyObject *pa_buffer_dlpack(PyObject *self, PyObject *args, PyObject *kw);
PyObject *pa_dlpack_device(PyObject *self, PyObject *unused);
PyObject *pa_from_dlpack(PyObject *module, PyObject *args, PyObject *kw);
void pa_dl_release(void *dl, bool versioned);
int pa_parse_dtype(PyObject *obj, uint8_t *code, uint8_t *bits,
		   uint16_t *lanes);

extern PyMethodDef pa_sync_file_methods[];

/* the type specs, one per file */
extern PyType_Spec pa_context_spec, pa_device_spec, pa_buffer_spec,
	pa_tensor_spec, pa_program_spec, pa_kernel_spec, pa_queue_spec,
	pa_fence_spec, pa_image_layout_spec, pa_image_spec, pa_sampler_spec;

/* image.c: image and sampler arguments (borrowed), Device.image_formats */
int pa_image_arg(struct pa_state *st, PyObject *v, struct accel_buffer **buf,
		 const struct accel_image_layout **layout);
int pa_sampler_arg(struct pa_state *st, PyObject *v, uint32_t *bits);
PyObject *pa_device_image_formats(PyObject *o, PyObject *args, PyObject *kw);

/* dealloc helper for heap types */
static inline void pa_free_self(PyObject *self)
{
	PyTypeObject *tp = Py_TYPE(self);

	tp->tp_free(self);
	Py_DECREF(tp);
}

#endif /* PYACCEL_H */
