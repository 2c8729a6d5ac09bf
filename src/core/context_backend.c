/* context_backend.c: a context's backend state for that backend's own public
 * calls (context_backend.h), so that a backend needs no view of the context's
 * layout. */
#include "context_backend.h"
#include "context_internal.h"

void *bitonic_context_lock_backend(bitonic_context *context, const bitonic_backend_ops *ops)
{
    if (!context || context->ops != ops)
        return NULL;
    bitonic_context_lock(context);
    return context->state;
}

void bitonic_context_unlock_backend(bitonic_context *context)
{
    bitonic_context_unlock(context);
}
