/* key_file_fixtures.h: what the key-file tests (test_key_file.c,
 * test_key_file_large.c) share: their counter and scratch directory, files
 * read, written and counted there, and .npy fixtures built byte by byte. */
#ifndef BITONIC_KEY_FILE_FIXTURES_H
#define BITONIC_KEY_FILE_FIXTURES_H


#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "key_file.h"
#include "test_util.h"

static test_counter counter;
static char scratch_dir[PATH_MAX / 2];

/* ---- files ---- */

static inline const char *scratch_path(const char *name)
{
    static char paths[4][PATH_MAX]; /* a few live at once, as in copy(a, b) */
    static unsigned next;
    char *path = paths[next++ % 4];
    snprintf(path, PATH_MAX, "%s/%s", scratch_dir, name);
    return path;
}

static inline bool write_file(const char *path, const void *bytes, size_t size)
{
    FILE *file = fopen(path, "wb");
    if (file == NULL)
        return false;
    bool ok = fwrite(bytes, 1, size, file) == size;
    return fclose(file) == 0 && ok;
}

/* The file's bytes (malloc'd, at least 1 byte) or NULL if it cannot be read. */
static inline unsigned char *load_file(const char *path, size_t *size)
{
    *size = 0;
    FILE *file = fopen(path, "rb");
    if (file == NULL)
        return NULL;
    size_t used = 0, capacity = 1 << 16;
    unsigned char *bytes = malloc(capacity);
    while (bytes != NULL) {
        used += fread(bytes + used, 1, capacity - used, file);
        if (used < capacity)
            break;
        unsigned char *grown = realloc(bytes, capacity *= 2);
        if (grown == NULL)
            free(bytes);
        bytes = grown;
    }
    bool failed = ferror(file) != 0;
    fclose(file);
    if (failed) {
        free(bytes);
        return NULL;
    }
    *size = used;
    return bytes;
}

static inline bool file_has_bytes(const char *path, const void *expected, size_t expected_size)
{
    size_t size;
    unsigned char *bytes = load_file(path, &size);
    bool same = bytes != NULL && size == expected_size && memcmp(bytes, expected, size) == 0;
    free(bytes);
    return same;
}

static inline bool path_exists(const char *path)
{
    struct stat status;
    return stat(path, &status) == 0;
}

/* How many entries a directory holds, and how many of them are our temporaries. */
static inline void count_entries(const char *directory, unsigned *entries, unsigned *temporaries)
{
    *entries = *temporaries = 0;
    DIR *listing = opendir(directory);
    if (listing == NULL)
        return;
    struct dirent *entry;
    while ((entry = readdir(listing)) != NULL) {
        if (strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0)
            continue;
        ++*entries;
        if (strstr(entry->d_name, ".tmp.") != NULL)
            ++*temporaries;
    }
    closedir(listing);
}

static inline void remove_tree(const char *path)
{
    struct stat status;
    if (lstat(path, &status) != 0)
        return;
    if (S_ISDIR(status.st_mode)) {
        DIR *listing = opendir(path);
        struct dirent *entry;
        while (listing != NULL && (entry = readdir(listing)) != NULL) {
            if (strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0)
                continue;
            char child[PATH_MAX];
            if (snprintf(child, sizeof child, "%s/%s", path, entry->d_name) < (int)sizeof child)
                remove_tree(child);
        }
        if (listing != NULL)
            closedir(listing);
        rmdir(path);
    } else {
        unlink(path);
    }
}

/* ---- fixtures ---- */

/* A .npy file with exactly this header text (no padding added, so odd
 * lengths are tried too) followed by data_size bytes of data. */
static inline unsigned char *build_npy(unsigned major, unsigned minor, const char *header_text, size_t text_length,
                                const void *data, size_t data_size, size_t *size)
{
    size_t length_width = major == 1 ? 2 : 4;
    size_t prefix = 8 + length_width;
    *size = prefix + text_length + data_size;
    unsigned char *bytes = malloc(*size);
    if (bytes == NULL)
        return NULL;
    memcpy(bytes, "\x93NUMPY", 6);
    bytes[6] = (unsigned char)major;
    bytes[7] = (unsigned char)minor;
    for (size_t i = 0; i < length_width; ++i)
        bytes[8 + i] = (unsigned char)(text_length >> (8 * i));
    memcpy(bytes + prefix, header_text, text_length);
    if (data_size > 0)
        memcpy(bytes + prefix + text_length, data, data_size);
    return bytes;
}

/* Eight random bytes per step, so that the 40 MiB fixtures cost little. */
static inline void fill_random(void *data, size_t size, uint64_t seed)
{
    unsigned char *bytes = data;
    for (size_t i = 0; i < size; i += 8) {
        uint64_t word = test_random_u64(&seed);
        memcpy(bytes + i, &word, size - i < 8 ? size - i : 8);
    }
}

static inline bool is_zeroed(const struct key_file *keys)
{
    return keys->data == NULL && keys->count == 0 && keys->element_size == 0 && keys->format == 0 &&
           keys->dtype == 0;
}

static inline void check_no_temporaries(const char *directory, const char *what)
{
    unsigned entries, temporaries;
    count_entries(directory, &entries, &temporaries);
    TEST_CHECK(&counter, temporaries == 0, "%s: no temporary file is left behind (%u found)", what, temporaries);
}

/* A write that fails halfway: RLIMIT_FSIZE stops the temporary file at
 * `limit` bytes (with SIGXFSZ ignored, write() returns EFBIG instead). */
static inline int write_with_size_limit(const char *path, const struct key_file *keys, rlim_t limit, char *error,
                                 size_t error_size)
{
    struct rlimit saved;
    getrlimit(RLIMIT_FSIZE, &saved);
    struct rlimit lowered = {.rlim_cur = limit, .rlim_max = saved.rlim_max};
    void (*saved_handler)(int) = signal(SIGXFSZ, SIG_IGN);
    if (setrlimit(RLIMIT_FSIZE, &lowered) != 0)
        return -2;
    int status = key_file_write_atomic(path, keys, error, error_size);
    setrlimit(RLIMIT_FSIZE, &saved);
    signal(SIGXFSZ, saved_handler);
    return status;
}

/* Makes the scratch directory (under TMPDIR, else /tmp); false if it cannot. */
static inline bool make_scratch_dir(const char *name)
{
    const char *base = getenv("TMPDIR");
    snprintf(scratch_dir, sizeof scratch_dir, "%s/%s.XXXXXX", base && base[0] ? base : "/tmp", name);
    if (mkdtemp(scratch_dir) == NULL) {
        printf("cannot create a scratch directory: %s\n", strerror(errno));
        return false;
    }
    return true;
}

/* Removes it, and counts whether it went. */
static inline void remove_scratch_dir(void)
{
    remove_tree(scratch_dir);
    TEST_CHECK(&counter, !path_exists(scratch_dir), "the scratch directory is removed");
}

#endif /* BITONIC_KEY_FILE_FIXTURES_H */
