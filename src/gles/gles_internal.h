/* gles_internal.h: what the two GLES files share. gles_sorter.c runs the
 * network in whatever ES 3.0 context is current (the interop path of
 * bitonic_gles.h); gles_backend.c is the host layer with its own EGL context,
 * which uploads, runs the same network and reads the result back. */
#ifndef BITONIC_GLES_INTERNAL_H
#define BITONIC_GLES_INTERNAL_H

#include "bitonic_gles.h"
#include "gles_api.h"

/* Runs the network over info->texture (holding the keys) and other_texture (of
 * the same size and format), ping-pong, without the final copy: *out_in_other
 * says whether the sorted texels ended in other_texture. */
bitonic_status bitonic_gles_run_network(bitonic_gles_sorter *sorter, const bitonic_gles_sort_info *info,
                                        GLuint other_texture, bool *out_in_other, bitonic_gles_sort_result *result);

/* The context's largest texture side that is also a viewport side. */
uint32_t bitonic_gles_sorter_max_size(const bitonic_gles_sorter *sorter);

/* The sorter's GL entry points, for the host layer's own calls in the same context. */
const bitonic_gl *bitonic_gles_sorter_gl(const bitonic_gles_sorter *sorter);

/* 32-bit words of one texel of this kind (1, 2 or 4). */
uint32_t bitonic_gles_texel_words(bitonic_gles_texels texels, bitonic_key_type key_type);

#endif /* BITONIC_GLES_INTERNAL_H */
