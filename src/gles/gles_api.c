/* gles_api.c: loads the OpenGL ES and EGL entry points of gles_api.h with
 * dlopen and dlsym. */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <string.h>

#include "gles_api.h"

/* RTLD_NODELETE: dlclose drops our reference but never unmaps the library.
 * The EGL vendor libraries (Mesa's, NVIDIA's) register exit handlers and
 * keep per-process display state, which must not vanish under them. */
#define OPEN_FLAGS (RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE)

/* dlsym returns an object pointer; POSIX guarantees it converts to a function pointer. */
static void *find(void *library, const char *name, bool *all_found)
{
    void *symbol = dlsym(library, name);
    *all_found = *all_found && symbol != NULL;
    return symbol;
}

bitonic_status bitonic_gl_load(bitonic_gl *gl)
{
    memset(gl, 0, sizeof *gl);
    gl->library = dlopen("libGLESv2.so.2", OPEN_FLAGS);
    if (!gl->library)
        return BITONIC_ERROR_GLES_UNAVAILABLE;
    bool all_found = true;
#define BITONIC_GL_LOAD(type, name) *(void **)(&gl->name) = find(gl->library, #name, &all_found);
    BITONIC_GL_FUNCTIONS(BITONIC_GL_LOAD)
#undef BITONIC_GL_LOAD
    if (!all_found) {
        bitonic_gl_unload(gl);
        return BITONIC_ERROR_GLES_UNAVAILABLE;
    }
    return BITONIC_SUCCESS;
}

void bitonic_gl_unload(bitonic_gl *gl)
{
    if (gl->library)
        dlclose(gl->library);
    memset(gl, 0, sizeof *gl);
}

bitonic_status bitonic_egl_load(bitonic_egl *egl)
{
    memset(egl, 0, sizeof *egl);
    egl->library = dlopen("libEGL.so.1", OPEN_FLAGS);
    if (!egl->library)
        return BITONIC_ERROR_GLES_UNAVAILABLE;
    bool all_found = true;
#define BITONIC_EGL_LOAD(type, name) *(void **)(&egl->name) = find(egl->library, #name, &all_found);
    BITONIC_EGL_FUNCTIONS(BITONIC_EGL_LOAD)
#undef BITONIC_EGL_LOAD
    if (!all_found) {
        bitonic_egl_unload(egl);
        return BITONIC_ERROR_GLES_UNAVAILABLE;
    }
    return BITONIC_SUCCESS;
}

void bitonic_egl_unload(bitonic_egl *egl)
{
    if (egl->library)
        dlclose(egl->library);
    memset(egl, 0, sizeof *egl);
}
