/* web_gl_table.c: the browser's bitonic_gl_load. Natively gles_api.c finds the
 * entry points with dlopen; Emscripten has no shared libraries, and its GL
 * functions are ordinary functions over the current WebGL2 context, so the
 * table of gles_api.h is filled with their addresses and gles_sorter.c runs
 * unchanged on top of it. */
#include <string.h>

#include "gles_api.h"

bitonic_status bitonic_gl_load(bitonic_gl *gl)
{
    memset(gl, 0, sizeof *gl);
#define BITONIC_GL_ADDRESS(type, name) gl->name = name;
    BITONIC_GL_FUNCTIONS(BITONIC_GL_ADDRESS)
#undef BITONIC_GL_ADDRESS
    /* gles_sorter.c reads a non-null library as "the table is loaded" before it
     * deletes its objects; there is no library here, so the table marks itself. */
    gl->library = gl;
    return BITONIC_SUCCESS;
}

void bitonic_gl_unload(bitonic_gl *gl)
{
    memset(gl, 0, sizeof *gl);
}
