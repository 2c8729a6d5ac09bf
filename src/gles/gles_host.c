/* gles_host.c: host sorts through textures, shared by the two host layers over
 * gles_sorter.c: the native backend (gles_backend.c, in its own EGL context)
 * and the browser's (web/src/web_sort.c, in a WebGL2 context). Packed texels
 * in host memory go up into the first of two integer textures, the network
 * ping-pongs between them, and the sorted texels come back from whichever
 * texture holds them. */
#include <stdlib.h>
#include <string.h>

#include "gles_internal.h"

/* Texels of one read-back block: 4 MiB of staging at four words a texel. */
#define READ_BLOCK_TEXELS (1u << 18)

bitonic_status bitonic_gles_host_textures_create(const bitonic_gl *gl, bitonic_gles_host_textures *host)
{
    *host = (bitonic_gles_host_textures){0};
    gl->glGenTextures(2, host->textures);
    gl->glGenFramebuffers(1, &host->read_framebuffer);
    return gl->glGetError() == GL_NO_ERROR ? BITONIC_SUCCESS : BITONIC_ERROR_GL;
}

void bitonic_gles_host_textures_destroy(const bitonic_gl *gl, bitonic_gles_host_textures *host)
{
    gl->glDeleteTextures(2, host->textures);
    gl->glDeleteFramebuffers(1, &host->read_framebuffer);
    *host = (bitonic_gles_host_textures){0};
}

/* Both textures at info's size and format; their old texels do not matter, as
 * every sort uploads all of its keys. */
static bitonic_status ensure_textures(const bitonic_gl *gl, bitonic_gles_host_textures *host,
                                      const bitonic_gles_sort_info *info)
{
    GLenum format = bitonic_gles_texel_format(info->texels, info->key_type);
    if (host->format == format && host->width == info->width && host->height == info->height)
        return BITONIC_SUCCESS;
    gl->glDeleteTextures(2, host->textures);
    gl->glGenTextures(2, host->textures);
    for (int t = 0; t < 2; ++t) {
        gl->glBindTexture(GL_TEXTURE_2D, host->textures[t]);
        gl->glTexStorage2D(GL_TEXTURE_2D, 1, format, (GLsizei)info->width, (GLsizei)info->height);
    }
    gl->glBindTexture(GL_TEXTURE_2D, 0);
    GLenum error = gl->glGetError();
    host->format = error == GL_NO_ERROR ? format : 0;
    host->width = info->width;
    host->height = info->height;
    if (error == GL_OUT_OF_MEMORY)
        return BITONIC_ERROR_OUT_OF_DEVICE_MEMORY;
    return error == GL_NO_ERROR ? BITONIC_SUCCESS : BITONIC_ERROR_GL;
}

static GLenum pixel_format(uint32_t words)
{
    return words == 1 ? GL_RED_INTEGER : words == 2 ? GL_RG_INTEGER : GL_RGBA_INTEGER;
}

bitonic_status bitonic_gles_host_upload(const bitonic_gl *gl, bitonic_gles_host_textures *host,
                                        bitonic_gles_sort_info *info, const uint32_t *texels)
{
    gl->glActiveTexture(GL_TEXTURE0);
    bitonic_status status = ensure_textures(gl, host, info);
    if (status != BITONIC_SUCCESS)
        return status;
    uint32_t words = bitonic_gles_texel_words(info->texels, info->key_type);
    GLenum format = pixel_format(words);
    gl->glBindTexture(GL_TEXTURE_2D, host->textures[0]);
    gl->glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    gl->glPixelStorei(GL_UNPACK_ROW_LENGTH, 0);
    /* Full rows in one upload, the last partial row in a second. */
    uint32_t full_rows = info->count / info->width, rest = info->count % info->width;
    if (full_rows > 0)
        gl->glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, (GLsizei)info->width, (GLsizei)full_rows, format,
                            GL_UNSIGNED_INT, texels);
    if (rest > 0)
        gl->glTexSubImage2D(GL_TEXTURE_2D, 0, 0, (GLint)full_rows, (GLsizei)rest, 1, format, GL_UNSIGNED_INT,
                            texels + (size_t)full_rows * info->width * words);
    gl->glBindTexture(GL_TEXTURE_2D, 0);
    info->texture = host->textures[0];
    return BITONIC_SUCCESS;
}

/* ES 3.0 and WebGL2 read an unsigned integer target as RGBA_INTEGER /
 * UNSIGNED_INT for certain, so rows come through a staging block of four words
 * a texel, a few rows at a time, and are packed to words each. */
bitonic_status bitonic_gles_host_download(const bitonic_gl *gl, const bitonic_gles_host_textures *host,
                                          const bitonic_gles_sort_info *info, bool in_other, uint32_t *texels)
{
    uint32_t words = bitonic_gles_texel_words(info->texels, info->key_type), width = info->width;
    gl->glBindFramebuffer(GL_READ_FRAMEBUFFER, host->read_framebuffer);
    gl->glFramebufferTexture2D(GL_READ_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D,
                               host->textures[in_other ? 1 : 0], 0);
    gl->glPixelStorei(GL_PACK_ALIGNMENT, 4);
    gl->glPixelStorei(GL_PACK_ROW_LENGTH, 0);
    uint32_t rows_per_block = READ_BLOCK_TEXELS / width > 0 ? READ_BLOCK_TEXELS / width : 1u;
    uint32_t *block = malloc((size_t)rows_per_block * width * 4u * sizeof *block);
    bitonic_status status = block ? BITONIC_SUCCESS : BITONIC_ERROR_OUT_OF_HOST_MEMORY;
    uint32_t rows = (info->count + width - 1u) / width;
    for (uint32_t row = 0; row < rows && status == BITONIC_SUCCESS; row += rows_per_block) {
        uint32_t block_rows = rows - row < rows_per_block ? rows - row : rows_per_block;
        gl->glReadPixels(0, (GLint)row, (GLsizei)width, (GLsizei)block_rows, GL_RGBA_INTEGER, GL_UNSIGNED_INT, block);
        if (gl->glGetError() != GL_NO_ERROR) {
            status = BITONIC_ERROR_GL;
            break;
        }
        size_t first = (size_t)row * width, end = first + (size_t)block_rows * width;
        end = end < info->count ? end : info->count;
        for (size_t i = first; i < end; ++i)
            memcpy(texels + i * words, block + (i - first) * 4u, words * sizeof *texels);
    }
    free(block);
    /* The framebuffer lets go of the texture, so deleting the texture frees it. */
    gl->glFramebufferTexture2D(GL_READ_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, 0, 0);
    gl->glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
    return status;
}
