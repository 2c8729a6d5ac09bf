/* bitonic_python.h: what the parts of the extension module _bitonic share: the
 * Context object (a bitonic_context, the log of its validation messages and the
 * counts that decide when it may be destroyed), the error type and the helpers
 * that turn a status into a Python exception. The module is a thin layer: the
 * Python package (bitonic/__init__.py) checks shapes and dtypes and hands this
 * layer C-contiguous, aligned arrays of a supported type. */
#ifndef BITONIC_PYTHON_H
#define BITONIC_PYTHON_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "bitonic.h"

/* The first validation messages of a context are kept whole; later ones are
 * only counted. The library calls the callback from the thread whose call made
 * the message, with the GIL released, so the log has a lock of its own. */
#define BITONIC_PY_KEPT_MESSAGES 16

typedef struct validation_log {
    pthread_mutex_t lock;
    uint64_t count;
    size_t kept_count;
    char *kept[BITONIC_PY_KEPT_MESSAGES];
} validation_log;

/* A Context may be closed while another thread sorts on it or while arrays from
 * its host memory are alive: closing marks it closed at once (new calls are
 * refused) and the library context is destroyed when the last call has
 * returned and the last block is freed. Every field below is read and written
 * with the GIL held. */
typedef struct context_object {
    PyObject_HEAD
    bitonic_context *context;
    validation_log *messages;
    Py_ssize_t calls_in_flight;
    Py_ssize_t live_blocks;
    bool closed;
    PyObject *weakrefs;
} context_object;

extern PyTypeObject bitonic_py_context_type;
extern PyTypeObject bitonic_py_host_block_type;
extern PyObject *bitonic_py_error;

/* Raises bitonic.Error for a failed status ("BITONIC_ERROR_...: sentence") and
 * returns NULL, so a caller can `return bitonic_py_raise(status);`. */
PyObject *bitonic_py_raise(bitonic_status status);
const char *bitonic_py_status_name(bitonic_status status);

/* The context of a call: a Context object that is open. Marks a call in flight
 * (the context is not destroyed before bitonic_py_end_call); NULL with an
 * exception set when it is not a Context or is closed. */
bitonic_context *bitonic_py_begin_call(PyObject *object);
void bitonic_py_end_call(PyObject *object);

/* Bytes one key of a bitonic_key_type takes (4 or 8); 0 (with ValueError set)
 * for a value outside the enum. */
size_t bitonic_py_key_bytes(long key_type);

/* dict[key] = value, taking the reference to value (which may be NULL after a
 * failed constructor); false on failure, with the exception set. */
bool bitonic_py_put(PyObject *dict, const char *key, PyObject *value);

/* The module's functions from calls.c and context.c. */
extern PyMethodDef bitonic_py_call_methods[];
PyObject *bitonic_py_devices(PyObject *module, PyObject *unused);

#endif /* BITONIC_PYTHON_H */
