/* SPDX-License-Identifier: MIT */
/*
 * libaccel._libaccel: the module, its state (types, exception, the default
 * context) and the module-level functions. Heap types and module state
 * only: no mutable C globals.
 */
#include "pyaccel.h"

struct pa_state *pa_state_of_type(PyTypeObject *tp)
{
	PyObject *m = PyType_GetModuleByDef(tp, &pa_module_def);

	/* every type here is made by this module */
	return m ? PyModule_GetState(m) : NULL;
}

static struct pa_state *mod_state(PyObject *m)
{
	return PyModule_GetState(m);
}

static PyObject *default_context(PyObject *m, PyObject *unused)
{
	struct pa_state *st = mod_state(m);

	(void)unused;
	if (!st->default_context) {
		st->default_context = PyObject_CallNoArgs(
			(PyObject *)st->Context);
		if (!st->default_context)
			return NULL;
	}
	return Py_NewRef(st->default_context);
}

PyObject *pa_default_device(struct pa_state *st)
{
	if (!st->default_context) {
		st->default_context = PyObject_CallNoArgs(
			(PyObject *)st->Context);
		if (!st->default_context)
			return NULL;
	}
	return pa_context_cpu_device(st, st->default_context);
}

static PyObject *mod_version(PyObject *m, PyObject *unused)
{
	(void)m;
	(void)unused;
	return PyUnicode_FromString(accel_get_version());
}

static PyObject *mod_strerror(PyObject *m, PyObject *arg)
{
	long err = PyLong_AsLong(arg);

	(void)m;
	if (err == -1 && PyErr_Occurred())
		return NULL;
	if (err < -65535 || err > 65535) {
		PyErr_SetString(PyExc_ValueError, "not an errno");
		return NULL;
	}
	return PyUnicode_FromString(accel_strerror((int)err));
}

static PyObject *mod_shutdown(PyObject *m, PyObject *unused)
{
	(void)unused;
	pa_guard_close(mod_state(m)->guard);
	Py_RETURN_NONE;
}

static PyMethodDef mod_methods[] = {
	{ "version", mod_version, METH_NOARGS,
	  "version() -> str: the version of the libaccel library in use" },
	{ "strerror", mod_strerror, METH_O,
	  "strerror(errno) -> str: what libaccel means by an errno" },
	{ "default_context", default_context, METH_NOARGS,
	  "default_context() -> Context: the module's shared context" },
	{ "from_dlpack", (PyCFunction)(void (*)(void))pa_from_dlpack,
	  METH_VARARGS | METH_KEYWORDS,
	  "from_dlpack(obj, device=None) -> Buffer: a CPU DLPack tensor's "
	  "memory as a buffer, without a copy" },
	{ "_shutdown", mod_shutdown, METH_NOARGS, NULL },
	{ NULL, NULL, 0, NULL },
};

static int add_int(PyObject *m, const char *name, long long v)
{
	PyObject *o = PyLong_FromLongLong(v);
	int r;

	if (!o)
		return -1;
	r = PyModule_AddObjectRef(m, name, o);
	Py_DECREF(o);
	return r;
}

static int add_type(PyObject *m, PyType_Spec *spec, PyTypeObject **slot,
		    PyObject *base)
{
	*slot = (PyTypeObject *)PyType_FromModuleAndSpec(m, spec, base);
	if (!*slot)
		return -1;
	return PyModule_AddType(m, *slot);
}

static int mod_exec(PyObject *m)
{
	struct pa_state *st = mod_state(m);
	PyObject *dict, *atexit, *fn, *r;
	static const struct {
		const char *name;
		long long value;
	} consts[] = {
#define C(x) { #x, ACCEL_##x }
		C(BUFFER_READ_ONLY), C(BUFFER_WRITE_ONLY),
		C(BUFFER_HOST_NO_ACCESS), C(BUFFER_HOST_READ_ONLY),
		C(BUFFER_HOST_WRITE_ONLY), C(BUFFER_DMA_HEAP),
		C(MAP_READ), C(MAP_WRITE), C(MAP_WRITE_INVALIDATE),
		C(QUEUE_PROFILING), C(QUEUE_OUT_OF_ORDER),
		C(DEVICE_TYPE_CPU), C(DEVICE_TYPE_ACCELERATOR),
		C(DEVICE_TYPE_GPU),
		C(DEVICE_CAP_DMABUF_EXPORT), C(DEVICE_CAP_DMABUF_IMPORT),
		C(DEVICE_CAP_SYNC_FILE_EXPORT), C(DEVICE_CAP_SYNC_FILE_IMPORT),
		C(DEVICE_CAP_COMPILER), C(DEVICE_CAP_NATIVE_KERNELS),
		C(DEVICE_CAP_BUILT_IN_KERNELS), C(DEVICE_CAP_FP64),
		C(DEVICE_CAP_HOST_UNIFIED_MEMORY), C(DEVICE_CAP_USER_PTR),
		C(DEVICE_CAP_FP16), C(DEVICE_CAP_IL), C(DEVICE_CAP_HOST_SVM),
		C(DEVICE_CAP_IMAGES),
		C(IMAGE_ACCESS_READ), C(IMAGE_ACCESS_WRITE),
		C(SAMPLER_NORMALIZED_COORDS), C(SAMPLER_ADDRESS_NONE),
		C(SAMPLER_ADDRESS_CLAMP_TO_EDGE), C(SAMPLER_ADDRESS_CLAMP),
		C(SAMPLER_ADDRESS_REPEAT), C(SAMPLER_ADDRESS_MIRRORED_REPEAT),
		C(SAMPLER_FILTER_NEAREST), C(SAMPLER_FILTER_LINEAR),
		C(FENCE_TIME_QUEUED), C(FENCE_TIME_SUBMITTED),
		C(FENCE_TIME_STARTED), C(FENCE_TIME_ENDED),
#undef C
	};

	st->guard = pa_guard_new();
	if (!st->guard) {
		PyErr_NoMemory();
		return -1;
	}
	dict = Py_BuildValue("{s:O}", "build_log", Py_None);
	if (!dict)
		return -1;
	st->Error = PyErr_NewExceptionWithDoc("libaccel.Error",
		"A libaccel call failed: errno is the errno it returned, "
		"strerror libaccel's meaning of it (accel_strerror()); "
		"build_log the compiler's log for failed builds, else None.",
		PyExc_OSError, dict);
	Py_DECREF(dict);
	if (!st->Error || PyModule_AddObjectRef(m, "Error", st->Error) < 0)
		return -1;
	if (add_type(m, &pa_context_spec, &st->Context, NULL) < 0 ||
	    add_type(m, &pa_device_spec, &st->Device, NULL) < 0 ||
	    add_type(m, &pa_buffer_spec, &st->Buffer, NULL) < 0 ||
	    add_type(m, &pa_tensor_spec, &st->Tensor, NULL) < 0 ||
	    add_type(m, &pa_program_spec, &st->Program, NULL) < 0 ||
	    add_type(m, &pa_kernel_spec, &st->Kernel, NULL) < 0 ||
	    add_type(m, &pa_queue_spec, &st->Queue, NULL) < 0 ||
	    add_type(m, &pa_fence_spec, &st->Fence, NULL) < 0 ||
	    add_type(m, &pa_image_layout_spec, &st->ImageLayout, NULL) < 0 ||
	    add_type(m, &pa_image_spec, &st->Image, NULL) < 0 ||
	    add_type(m, &pa_sampler_spec, &st->Sampler, NULL) < 0)
		return -1;
	if (PyModule_AddFunctions(m, pa_sync_file_methods) < 0)
		return -1;
	for (size_t i = 0; i < sizeof(consts) / sizeof(consts[0]); i++)
		if (add_int(m, consts[i].name, consts[i].value) < 0)
			return -1;
	if (add_int(m, "TIMEOUT_INFINITE", -1) < 0)
		return -1;

	/* callbacks must stop taking the GIL before finalisation starts */
	atexit = PyImport_ImportModule("atexit");
	if (!atexit)
		return -1;
	fn = PyObject_GetAttrString(m, "_shutdown");
	r = fn ? PyObject_CallMethod(atexit, "register", "O", fn) : NULL;
	Py_XDECREF(fn);
	Py_DECREF(atexit);
	if (!r)
		return -1;
	Py_DECREF(r);
	return 0;
}

static int mod_traverse(PyObject *m, visitproc visit, void *arg)
{
	struct pa_state *st = mod_state(m);

	Py_VISIT(st->Error);
	Py_VISIT(st->Context);
	Py_VISIT(st->Device);
	Py_VISIT(st->Buffer);
	Py_VISIT(st->Tensor);
	Py_VISIT(st->Program);
	Py_VISIT(st->Kernel);
	Py_VISIT(st->Queue);
	Py_VISIT(st->Fence);
	Py_VISIT(st->ImageLayout);
	Py_VISIT(st->Image);
	Py_VISIT(st->Sampler);
	Py_VISIT(st->default_context);
	return 0;
}

static int mod_clear(PyObject *m)
{
	struct pa_state *st = mod_state(m);

	Py_CLEAR(st->default_context);
	Py_CLEAR(st->Error);
	Py_CLEAR(st->Context);
	Py_CLEAR(st->Device);
	Py_CLEAR(st->Buffer);
	Py_CLEAR(st->Tensor);
	Py_CLEAR(st->Program);
	Py_CLEAR(st->Kernel);
	Py_CLEAR(st->Queue);
	Py_CLEAR(st->Fence);
	Py_CLEAR(st->ImageLayout);
	Py_CLEAR(st->Image);
	Py_CLEAR(st->Sampler);
	return 0;
}

static void mod_free(void *m)
{
	struct pa_state *st = mod_state(m);

	mod_clear(m);
	pa_guard_unref(st->guard);
	st->guard = NULL;
}

static PyModuleDef_Slot mod_slots[] = {
	{ Py_mod_exec, mod_exec },
	{ 0, NULL },
};

PyModuleDef pa_module_def = {
	PyModuleDef_HEAD_INIT,
	.m_name = "libaccel._libaccel",
	.m_doc = "libaccel's C API as Python objects (see libaccel).",
	.m_size = sizeof(struct pa_state),
	.m_methods = mod_methods,
	.m_slots = mod_slots,
	.m_traverse = mod_traverse,
	.m_clear = mod_clear,
	.m_free = mod_free,
};

PyMODINIT_FUNC PyInit__libaccel(void);
PyMODINIT_FUNC PyInit__libaccel(void)
{
	return PyModuleDef_Init(&pa_module_def);
}
