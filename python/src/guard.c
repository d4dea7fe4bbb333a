/* SPDX-License-Identifier: MIT */
/*
 * The guard native callbacks take the GIL through, and keep-alive lists
 * released when a fence signals.
 */
#include "pyaccel.h"

#include <stdlib.h>

struct pa_guard *pa_guard_new(void)
{
	struct pa_guard *g = calloc(1, sizeof(*g));

	if (!g)
		return NULL;
	pthread_mutex_init(&g->lock, NULL);
	pthread_cond_init(&g->cond, NULL);
	g->refs = 1;
	return g;
}

struct pa_guard *pa_guard_ref(struct pa_guard *g)
{
	pthread_mutex_lock(&g->lock);
	g->refs++;
	pthread_mutex_unlock(&g->lock);
	return g;
}

void pa_guard_unref(struct pa_guard *g)
{
	unsigned left;

	if (!g)
		return;
	pthread_mutex_lock(&g->lock);
	left = --g->refs;
	pthread_mutex_unlock(&g->lock);
	if (left)
		return;
	pthread_mutex_destroy(&g->lock);
	pthread_cond_destroy(&g->cond);
	free(g);
}

bool pa_guard_enter(struct pa_guard *g, PyGILState_STATE *st)
{
	pthread_mutex_lock(&g->lock);
	if (g->closing) {
		pthread_mutex_unlock(&g->lock);
		return false;
	}
	g->active++;
	pthread_mutex_unlock(&g->lock);
	*st = PyGILState_Ensure();
	return true;
}

void pa_guard_leave(struct pa_guard *g, PyGILState_STATE st)
{
	PyGILState_Release(st);
	pthread_mutex_lock(&g->lock);
	if (--g->active == 0)
		pthread_cond_broadcast(&g->cond);
	pthread_mutex_unlock(&g->lock);
}

void pa_guard_close(struct pa_guard *g)
{
	/*
	 * A callback waiting for the GIL is counted active: let it run.
	 * One holding the GIL through the calling thread (a callback that
	 * ran synchronously) cannot be inside here, this thread is.
	 */
	Py_BEGIN_ALLOW_THREADS
	pthread_mutex_lock(&g->lock);
	g->closing = true;
	while (g->active)
		pthread_cond_wait(&g->cond, &g->lock);
	pthread_mutex_unlock(&g->lock);
	Py_END_ALLOW_THREADS
}

struct keep {
	struct pa_guard *guard;
	PyObject *objs;
};

static void keep_release(struct accel_fence *fence, int status, void *data)
{
	struct keep *k = data;
	PyGILState_STATE gs;

	(void)fence;
	(void)status;
	if (pa_guard_enter(k->guard, &gs)) {
		Py_DECREF(k->objs);
		pa_guard_leave(k->guard, gs);
	}
	/* else the interpreter is going away: the objects leak with it */
	pa_guard_unref(k->guard);
	free(k);
}

int pa_keep_until(struct pa_state *st, struct accel_fence *fence,
		  PyObject *objs)
{
	struct keep *k = malloc(sizeof(*k));
	int r;

	if (!k) {
		Py_DECREF(objs);
		PyErr_NoMemory();
		return -1;
	}
	k->guard = pa_guard_ref(st->guard);
	k->objs = objs;
	/* runs right here (GIL held, re-entered) if already signalled */
	r = accel_fence_add_callback(fence, keep_release, k);
	if (r < 0) {
		/* the command is queued: keep the objects until it ends */
		Py_BEGIN_ALLOW_THREADS
		accel_fence_wait(fence, ACCEL_TIMEOUT_INFINITE);
		Py_END_ALLOW_THREADS
		Py_DECREF(objs);
		pa_guard_unref(k->guard);
		free(k);
	}
	return 0;
}

int pa_wait_list(struct pa_state *st, PyObject *seq, uint32_t *n,
		 struct accel_fence ***ret)
{
	PyObject *fast;
	Py_ssize_t len;
	struct accel_fence **arr;

	*n = 0;
	*ret = NULL;
	if (!seq || seq == Py_None)
		return 0;
	fast = PySequence_Fast(seq, "wait must be a sequence of Fence");
	if (!fast)
		return -1;
	len = PySequence_Fast_GET_SIZE(fast);
	if (len > UINT32_MAX) {
		Py_DECREF(fast);
		PyErr_SetString(PyExc_ValueError, "wait list too long");
		return -1;
	}
	arr = PyMem_Calloc(len ? (size_t)len : 1, sizeof(*arr));
	if (!arr) {
		Py_DECREF(fast);
		PyErr_NoMemory();
		return -1;
	}
	for (Py_ssize_t i = 0; i < len; i++) {
		PyObject *f = PySequence_Fast_GET_ITEM(fast, i);

		if (!PyObject_TypeCheck(f, st->Fence)) {
			PyErr_Format(PyExc_TypeError,
				     "wait[%zd] is %.100s, not a Fence", i,
				     Py_TYPE(f)->tp_name);
			pa_wait_free((uint32_t)i, arr);
			Py_DECREF(fast);
			return -1;
		}
		arr[i] = accel_fence_ref(((struct pa_fence *)f)->fence);
	}
	Py_DECREF(fast);
	*n = (uint32_t)len;
	*ret = arr;
	return 0;
}

void pa_wait_free(uint32_t n, struct accel_fence **arr)
{
	for (uint32_t i = 0; i < n; i++)
		accel_fence_unref(arr[i]);
	PyMem_Free(arr);
}
