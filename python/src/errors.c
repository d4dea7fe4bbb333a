/* SPDX-License-Identifier: MIT */
/* libaccel.Error: an OSError with the errno and accel_strerror()'s text. */
#include "pyaccel.h"

PyObject *pa_raise_log(struct pa_state *st, int err, const char *what,
		       const char *log)
{
	PyObject *exc, *msg;
	int e = err < 0 ? -err : err;

	msg = PyUnicode_FromFormat("%s: %s", what, accel_strerror(err));
	if (!msg)
		return NULL;
	exc = PyObject_CallFunction(st->Error, "iO", e, msg);
	Py_DECREF(msg);
	if (!exc)
		return NULL;
	if (log) {
		PyObject *l = PyUnicode_DecodeUTF8(log, strlen(log), "replace");

		if (!l || PyObject_SetAttrString(exc, "build_log", l) < 0) {
			Py_XDECREF(l);
			Py_DECREF(exc);
			return NULL;
		}
		Py_DECREF(l);
	}
	PyErr_SetObject(st->Error, exc);
	Py_DECREF(exc);
	return NULL;
}

PyObject *pa_raise(struct pa_state *st, int err, const char *what)
{
	return pa_raise_log(st, err, what, NULL);
}

/* "O&" converters: checked, unlike "K" and "I" (which wrap silently) */
int pa_u64(PyObject *obj, void *out)
{
	unsigned long long v;

	if (!PyLong_Check(obj)) {
		PyObject *i = PyNumber_Index(obj);

		if (!i)
			return 0;
		v = PyLong_AsUnsignedLongLong(i);
		Py_DECREF(i);
	} else {
		v = PyLong_AsUnsignedLongLong(obj);
	}
	if (v == (unsigned long long)-1 && PyErr_Occurred())
		return 0;
	*(uint64_t *)out = v;
	return 1;
}

int pa_u32(PyObject *obj, void *out)
{
	uint64_t v;

	if (!pa_u64(obj, &v))
		return 0;
	if (v > UINT32_MAX) {
		PyErr_SetString(PyExc_OverflowError, "above 32 bits");
		return 0;
	}
	*(uint32_t *)out = (uint32_t)v;
	return 1;
}
