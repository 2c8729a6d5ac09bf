/* context_backend.h: the one thing a backend's own public call that takes a
 * context (bitonic_gles_sort_records) asks of that context: its backend state,
 * under the context's lock, if the context runs on this backend. The context's
 * layout stays in context_internal.h, for the backend-neutral layer alone. */
#ifndef BITONIC_CONTEXT_BACKEND_H
#define BITONIC_CONTEXT_BACKEND_H

#include "backend.h"
#include "bitonic.h"

/* Takes context's lock and returns its backend's state (the output of
 * ops->create) when context runs on ops; NULL, with no lock taken, when it
 * runs on another backend. */
void *bitonic_context_lock_backend(bitonic_context *context, const bitonic_backend_ops *ops);

/* Lets go of the lock that bitonic_context_lock_backend took. */
void bitonic_context_unlock_backend(bitonic_context *context);

#endif /* BITONIC_CONTEXT_BACKEND_H */
