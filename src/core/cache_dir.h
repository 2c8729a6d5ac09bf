/* cache_dir.h: where the library keeps what it learns about a device between
 * runs (the Vulkan pipeline cache, the CPU/GPU crossover): one directory, the
 * XDG cache directory unless the caller names another, and small files in it
 * that are replaced atomically. Everything here is best effort: a cache that
 * cannot be read or written is never an error of a sort. */
#ifndef BITONIC_CACHE_DIR_H
#define BITONIC_CACHE_DIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bitonic.h"
#include "host_memory.h"

#define BITONIC_CACHE_PATH_MAX 1024

/* The directory: desc->cache_directory if set, else $BITONIC_CACHE_DIR, else
 * $XDG_CACHE_HOME/bitonic, else $HOME/.cache/bitonic. False (and "" in out)
 * when caching is off (desc->no_disk_cache or BITONIC_PIPELINE_CACHE=0) or no
 * directory can be named. The directory is not created here. */
bool bitonic_cache_directory(const bitonic_context_desc *desc, char *out, size_t capacity);

/* Creates the directory and its missing parents (mode 0700). */
bool bitonic_cache_make_directory(const char *directory);

/* Reads a whole file into a buffer of memory's (bitonic_host_memory_free
 * releases it; bitonic_cache_read_file: the C library's, free); false if it
 * is missing, unreadable, not a regular file or larger than max_bytes. */
bool bitonic_cache_read_file_in(const bitonic_host_memory *memory, const char *path, size_t max_bytes,
                                unsigned char **out_bytes, size_t *out_size);
bool bitonic_cache_read_file(const char *path, size_t max_bytes, unsigned char **out_bytes, size_t *out_size);

/* Writes head then body to a temporary file beside path and renames it over
 * path, so a reader sees the old file or the new one, never half of one. The
 * directory of path is made first if missing. On any failure the temporary
 * file is removed and false returned. */
bool bitonic_cache_write_file(const char *path, const void *head, size_t head_size, const void *body,
                              size_t body_size);

/* FNV-1a, 64 bits: detects a truncated or damaged cache file. */
uint64_t bitonic_cache_checksum(const void *bytes, size_t size);

#endif /* BITONIC_CACHE_DIR_H */
