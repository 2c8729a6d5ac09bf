/* module.c: the extension module bitonic._bitonic: its error type (a
 * RuntimeError that names the library's status), the device list, the key-type
 * constants and the types of context.c. The sort calls are in calls.c. */
#include "bitonic_python.h"

PyObject *bitonic_py_error;

const char *bitonic_py_status_name(bitonic_status status)
{
    switch (status) {
    case BITONIC_SUCCESS: return "BITONIC_SUCCESS";
    case BITONIC_ERROR_INVALID_ARGUMENT: return "BITONIC_ERROR_INVALID_ARGUMENT";
    case BITONIC_ERROR_OUT_OF_HOST_MEMORY: return "BITONIC_ERROR_OUT_OF_HOST_MEMORY";
    case BITONIC_ERROR_OUT_OF_DEVICE_MEMORY: return "BITONIC_ERROR_OUT_OF_DEVICE_MEMORY";
    case BITONIC_ERROR_TOO_LARGE: return "BITONIC_ERROR_TOO_LARGE";
    case BITONIC_ERROR_DEVICE_NOT_FOUND: return "BITONIC_ERROR_DEVICE_NOT_FOUND";
    case BITONIC_ERROR_UNSUPPORTED: return "BITONIC_ERROR_UNSUPPORTED";
    case BITONIC_ERROR_VULKAN_UNAVAILABLE: return "BITONIC_ERROR_VULKAN_UNAVAILABLE";
    case BITONIC_ERROR_VALIDATION_LAYER_MISSING: return "BITONIC_ERROR_VALIDATION_LAYER_MISSING";
    case BITONIC_ERROR_DEVICE_LOST: return "BITONIC_ERROR_DEVICE_LOST";
    case BITONIC_ERROR_VULKAN: return "BITONIC_ERROR_VULKAN";
    case BITONIC_ERROR_GLES_UNAVAILABLE: return "BITONIC_ERROR_GLES_UNAVAILABLE";
    case BITONIC_ERROR_GL: return "BITONIC_ERROR_GL";
    case BITONIC_ERROR_COMMUNICATION: return "BITONIC_ERROR_COMMUNICATION";
    }
    return "BITONIC_ERROR_UNKNOWN";
}

PyObject *bitonic_py_raise(bitonic_status status)
{
    PyObject *error = PyObject_CallFunction(bitonic_py_error, "s", "");
    PyObject *message = PyUnicode_FromFormat("%s: %s", bitonic_py_status_name(status),
                                             bitonic_status_string(status));
    PyObject *code = PyLong_FromLong((long)status);
    PyObject *name = PyUnicode_FromString(bitonic_py_status_name(status));
    PyObject *args = message ? PyTuple_Pack(1, message) : NULL;
    if (error && args && code && name && PyObject_SetAttrString(error, "args", args) == 0 &&
        PyObject_SetAttrString(error, "status", code) == 0 && PyObject_SetAttrString(error, "status_name", name) == 0)
        PyErr_SetObject(bitonic_py_error, error);
    Py_XDECREF(error);
    Py_XDECREF(message);
    Py_XDECREF(code);
    Py_XDECREF(name);
    Py_XDECREF(args);
    return NULL;
}

size_t bitonic_py_key_bytes(long key_type)
{
    switch (key_type) {
    case BITONIC_KEY_U32:
    case BITONIC_KEY_I32:
    case BITONIC_KEY_F32: return 4;
    case BITONIC_KEY_U64:
    case BITONIC_KEY_I64:
    case BITONIC_KEY_F64: return 8;
    }
    PyErr_Format(PyExc_ValueError, "key type %ld is not a bitonic_key_type", key_type);
    return 0;
}

bool bitonic_py_put(PyObject *dict, const char *key, PyObject *value)
{
    if (!value)
        return false;
    int failed = PyDict_SetItemString(dict, key, value);
    Py_DECREF(value);
    return failed == 0;
}

/* dict[field] = convert(device->field), for the fields kept under their own names. */
#define PUT_FIELD(field, convert) bitonic_py_put(dict, #field, convert(device->field))

static PyObject *device_dict(const bitonic_device_info *device)
{
    PyObject *dict = PyDict_New();
    bool ok = dict && PUT_FIELD(index, PyLong_FromUnsignedLong) &&
              PUT_FIELD(name, PyUnicode_FromString) &&
              PUT_FIELD(vendor_id, PyLong_FromUnsignedLong) &&
              PUT_FIELD(device_id, PyLong_FromUnsignedLong) &&
              PUT_FIELD(device_type, PyLong_FromUnsignedLong) &&
              PUT_FIELD(api_version, PyLong_FromUnsignedLong) &&
              PUT_FIELD(subgroup_size, PyLong_FromUnsignedLong) &&
              PUT_FIELD(max_workgroup_invocations, PyLong_FromUnsignedLong) &&
              PUT_FIELD(max_shared_memory_bytes, PyLong_FromUnsignedLong) &&
              PUT_FIELD(max_storage_buffer_range, PyLong_FromUnsignedLongLong) &&
              PUT_FIELD(multiprocessors, PyLong_FromUnsignedLong) &&
              PUT_FIELD(suitable, PyBool_FromLong);
#undef PUT_FIELD
    if (!ok) {
        Py_XDECREF(dict);
        return NULL;
    }
    return dict;
}

PyObject *bitonic_py_devices(PyObject *module, PyObject *unused)
{
    (void)module;
    (void)unused;
    enum { capacity = 64 };
    bitonic_device_info *devices = PyMem_RawCalloc(capacity, sizeof *devices);
    if (!devices)
        return PyErr_NoMemory();
    uint32_t count = 0;
    bitonic_status status;
    Py_BEGIN_ALLOW_THREADS
    status = bitonic_list_devices(devices, capacity, &count);
    Py_END_ALLOW_THREADS
    PyObject *list = NULL;
    if (status == BITONIC_SUCCESS || status == BITONIC_ERROR_VULKAN_UNAVAILABLE) {
        /* No loader or no driver: no Vulkan device, which is an answer, not a failure. */
        if (status != BITONIC_SUCCESS)
            count = 0;
        list = PyList_New(0);
        for (uint32_t i = 0; list && i < count && i < capacity; ++i) {
            PyObject *entry = device_dict(&devices[i]);
            if (!entry || PyList_Append(list, entry) != 0)
                Py_CLEAR(list);
            Py_XDECREF(entry);
        }
    } else {
        bitonic_py_raise(status);
    }
    PyMem_RawFree(devices);
    return list;
}

static int add_constants(PyObject *module)
{
    return PyModule_AddIntConstant(module, "KEY_U32", BITONIC_KEY_U32) ||
           PyModule_AddIntConstant(module, "KEY_I32", BITONIC_KEY_I32) ||
           PyModule_AddIntConstant(module, "KEY_F32", BITONIC_KEY_F32) ||
           PyModule_AddIntConstant(module, "KEY_U64", BITONIC_KEY_U64) ||
           PyModule_AddIntConstant(module, "KEY_I64", BITONIC_KEY_I64) ||
           PyModule_AddIntConstant(module, "KEY_F64", BITONIC_KEY_F64) ||
           PyModule_AddIntConstant(module, "VERSION_MAJOR", BITONIC_VERSION_MAJOR) ||
           PyModule_AddIntConstant(module, "VERSION_MINOR", BITONIC_VERSION_MINOR) ||
           PyModule_AddIntConstant(module, "VERSION_PATCH", BITONIC_VERSION_PATCH);
}

static struct PyModuleDef bitonic_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "bitonic._bitonic",
    .m_doc = PyDoc_STR("The C layer of the bitonic package; use the functions of `bitonic`."),
    .m_size = -1,
    .m_methods = bitonic_py_call_methods,
};

PyMODINIT_FUNC PyInit__bitonic(void)
{
    if (PyType_Ready(&bitonic_py_context_type) < 0 || PyType_Ready(&bitonic_py_host_block_type) < 0)
        return NULL;
    PyObject *module = PyModule_Create(&bitonic_module);
    if (!module)
        return NULL;
    bitonic_py_error = PyErr_NewExceptionWithDoc(
        "bitonic.Error",
        "A failure the library reported. status is the bitonic_status code and status_name its name "
        "(for example BITONIC_ERROR_DEVICE_NOT_FOUND); the message says what it means.",
        PyExc_RuntimeError, NULL);
    if (!bitonic_py_error || PyModule_AddObjectRef(module, "Error", bitonic_py_error) < 0 ||
        PyModule_AddObjectRef(module, "Context", (PyObject *)&bitonic_py_context_type) < 0 ||
        PyModule_AddObjectRef(module, "HostBlock", (PyObject *)&bitonic_py_host_block_type) < 0 ||
        add_constants(module) < 0) {
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
