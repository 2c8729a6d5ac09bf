/* gles_internal.h: what the GLES files share. gles_sorter.c runs the network
 * in whatever ES 3.0 context is current (the interop path of bitonic_gles.h);
 * gles_host.c moves host texels through a pair of textures around it, for the
 * two host layers: gles_backend.c with its own EGL context, and the browser's
 * web/src/web_sort.c in a WebGL2 context. */
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

/* The ping-pong pair of a host layer's sorts, remade when the size or format
 * changes, and the framebuffer that reads them back. */
typedef struct bitonic_gles_host_textures {
    GLuint textures[2];
    GLuint read_framebuffer;
    GLenum format;                   /* 0 until the first upload, or after a failed one */
    uint32_t width, height;
} bitonic_gles_host_textures;

/* Names for the textures and the framebuffer, in the current context. */
bitonic_status bitonic_gles_host_textures_create(const bitonic_gl *gl, bitonic_gles_host_textures *host);
void bitonic_gles_host_textures_destroy(const bitonic_gl *gl, bitonic_gles_host_textures *host);

/* Sizes both textures for info (width, height, texels, key_type) and uploads
 * its first info->count packed texels (bitonic_gles_texel_words words each)
 * into the first; sets info->texture to it. Leaves TEXTURE0 active and no
 * texture bound there. */
bitonic_status bitonic_gles_host_upload(const bitonic_gl *gl, bitonic_gles_host_textures *host,
                                        bitonic_gles_sort_info *info, const uint32_t *texels);

/* Reads info->count texels back, packed, from the texture that holds them
 * after bitonic_gles_run_network (the second when in_other). Leaves no read
 * framebuffer bound. */
bitonic_status bitonic_gles_host_download(const bitonic_gl *gl, const bitonic_gles_host_textures *host,
                                          const bitonic_gles_sort_info *info, bool in_other, uint32_t *texels);

#endif /* BITONIC_GLES_INTERNAL_H */
