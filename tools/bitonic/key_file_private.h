/* key_file_private.h: what key_file.c (reading and writing key files) and
 * npy_header.c (the dtype table and the .npy header) share, and no one else. */
#ifndef BITONIC_KEY_FILE_PRIVATE_H
#define BITONIC_KEY_FILE_PRIVATE_H

#include "key_file.h"

#include <stdbool.h>
#include <stddef.h>

extern const unsigned char key_npy_magic[6];

struct dtype_info {
    const char *name;
    const char *descr;
    size_t size;
};

extern const struct dtype_info key_dtype_infos[KEY_DTYPE_COUNT];

bool key_dtype_is_valid(enum key_dtype dtype);

/* Formats a message into error (where there is room) and returns -1. */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
int key_file_fail(char *error, size_t error_size, const char *format, ...);

#endif /* BITONIC_KEY_FILE_PRIVATE_H */
