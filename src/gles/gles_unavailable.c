/* gles_unavailable.c: the GLES backend's table when the library was built
 * without EGL and OpenGL ES headers (BITONIC_BUILD_GLES off or not found): the
 * device "gles" is still recognised, and says plainly that it is not there. */
#include <strings.h>

#include "backend.h"

static bool gles_accepts(const bitonic_selector *selector)
{
    return selector->kind == BITONIC_SELECT_NAME && strcasecmp(selector->name, "gles") == 0;
}

static bitonic_status gles_create(const bitonic_context_desc *desc, const bitonic_selector *selector, void **out_state)
{
    return BITONIC_ERROR_GLES_UNAVAILABLE;
}

/* create never succeeds, so no other operation is ever called. */
const bitonic_backend_ops bitonic_gles_backend = {
    .kind = BITONIC_BACKEND_GLES,
    .accepts = gles_accepts,
    .create = gles_create,
};
