/* inflate.h: a decoder of raw DEFLATE streams (RFC 1951) and the CRC-32 that
 * gzip keeps beside them, for the shader modules the library embeds
 * compressed (cmake/embed_spirv.cmake). Nothing else is compressed, so the
 * decoder wants the whole stream and the exact size it inflates to. */
#ifndef BITONIC_INFLATE_H
#define BITONIC_INFLATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Inflates the DEFLATE stream in[0 .. in_size) into out, which must come to
 * exactly out_size bytes. False for a malformed or truncated stream, one
 * that would write past out_size or that ends short of it; never reads past
 * in_size or writes past out_size. */
bool bitonic_inflate(const uint8_t *in, size_t in_size, uint8_t *out, size_t out_size);

/* The CRC-32 of gzip and zlib (the reflected polynomial 0xEDB88320). */
uint32_t bitonic_crc32(const uint8_t *data, size_t size);

#endif /* BITONIC_INFLATE_H */
