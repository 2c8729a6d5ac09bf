/* cache_dir.c: the library's cache directory and its atomic small files
 * (cache_dir.h). The directory is resolved from the description, then the
 * environment, at each use, so the library keeps no global state. */
#define _POSIX_C_SOURCE 200809L
#include "cache_dir.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "settings.h"

/* BITONIC_PIPELINE_CACHE=0 (or off, no, false) keeps the library off the disk. */
static bool disk_cache_turned_off(void)
{
    bitonic_setting_value setting;
    return bitonic_setting_read(BITONIC_SETTING_PIPELINE_CACHE, &setting) && setting.given && setting.number == 0;
}

bool bitonic_cache_directory(const bitonic_context_desc *desc, char *out, size_t capacity)
{
    if (capacity == 0)
        return false;
    out[0] = '\0';
    if ((desc && desc->no_disk_cache) || disk_cache_turned_off())
        return false;
    const char *named = desc ? desc->cache_directory : NULL;
    bitonic_setting_value setting;
    if ((!named || !*named) && bitonic_setting_read(BITONIC_SETTING_CACHE_DIR, &setting))
        named = setting.text;
    int written;
    if (named && *named) {
        written = snprintf(out, capacity, "%s", named);
    } else {
        const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
        /* XDG says a relative XDG_CACHE_HOME is invalid and must be ignored. */
        if (xdg && xdg[0] == '/')
            written = snprintf(out, capacity, "%s/bitonic", xdg);
        else if (home && home[0] == '/')
            written = snprintf(out, capacity, "%s/.cache/bitonic", home);
        else
            written = -1;
    }
    if (written < 0 || (size_t)written >= capacity) {
        out[0] = '\0';
        return false;
    }
    return true;
}

bool bitonic_cache_make_directory(const char *directory)
{
    char path[BITONIC_CACHE_PATH_MAX];
    int length = snprintf(path, sizeof path, "%s", directory);
    if (length <= 0 || (size_t)length >= sizeof path)
        return false;
    for (char *slash = path + 1; *slash; ++slash) {
        if (*slash != '/')
            continue;
        *slash = '\0';
        if (mkdir(path, 0700) != 0 && errno != EEXIST)
            return false;
        *slash = '/';
    }
    if (mkdir(path, 0700) != 0 && errno != EEXIST)
        return false;
    struct stat status;
    return stat(path, &status) == 0 && S_ISDIR(status.st_mode);
}

bool bitonic_cache_read_file(const char *path, size_t max_bytes, unsigned char **out_bytes, size_t *out_size)
{
    return bitonic_cache_read_file_in(NULL, path, max_bytes, out_bytes, out_size);
}

bool bitonic_cache_read_file_in(const bitonic_host_memory *memory, const char *path, size_t max_bytes,
                                unsigned char **out_bytes, size_t *out_size)
{
    *out_bytes = NULL;
    *out_size = 0;
    /* O_NONBLOCK: a FIFO put where a cache file belongs must not stall the
     * open (waiting for a writer); it is then refused as not a regular file,
     * like any other special file, and the cache reads as absent. */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return false;
    struct stat status;
    unsigned char *bytes = NULL;
    size_t size = 0;
    int flags = -1;
    bool ok = fstat(fd, &status) == 0 && S_ISREG(status.st_mode) && status.st_size > 0 &&
              (uint64_t)status.st_size <= max_bytes && (flags = fcntl(fd, F_GETFL)) >= 0 &&
              fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) == 0 && (bytes = bitonic_host_memory_alloc(memory, (size_t)status.st_size)) != NULL;
    if (ok) {
        size = (size_t)status.st_size;
        size_t done = 0;
        while (ok && done < size) {
            ssize_t got = read(fd, bytes + done, size - done);
            if (got < 0 && errno == EINTR)
                continue;
            ok = got > 0;
            if (ok)
                done += (size_t)got;
        }
    }
    close(fd);
    if (!ok) {
        bitonic_host_memory_free(memory, bytes);
        return false;
    }
    *out_bytes = bytes;
    *out_size = size;
    return true;
}

static bool write_all(int fd, const unsigned char *bytes, size_t size)
{
    while (size > 0) {
        ssize_t written = write(fd, bytes, size);
        if (written < 0 && errno == EINTR)
            continue;
        if (written <= 0)
            return false;
        bytes += written;
        size -= (size_t)written;
    }
    return true;
}

bool bitonic_cache_write_file(const char *path, const void *head, size_t head_size, const void *body,
                              size_t body_size)
{
    char temporary[BITONIC_CACHE_PATH_MAX + 16];
    int length = snprintf(temporary, sizeof temporary, "%s.tmp.XXXXXX", path);
    if (length < 0 || (size_t)length >= sizeof temporary)
        return false;
    /* The directory first: every file here is the first in a fresh cache somewhere. */
    char *slash = strrchr(temporary, '/');
    if (slash && slash != temporary) {
        *slash = '\0';
        bool made = bitonic_cache_make_directory(temporary);
        *slash = '/';
        if (!made)
            return false;
    }
    int fd = mkstemp(temporary);
    if (fd < 0)
        return false;
    bool ok = write_all(fd, head, head_size) && write_all(fd, body, body_size);
    ok = close(fd) == 0 && ok;
    /* rename() replaces path in one step: readers in other processes see the
     * old file or the new one. */
    if (ok)
        ok = rename(temporary, path) == 0;
    if (!ok)
        unlink(temporary);
    return ok;
}

uint64_t bitonic_cache_checksum(const void *bytes, size_t size)
{
    const unsigned char *p = bytes;
    uint64_t hash = 1469598103934665603ull;
    for (size_t i = 0; i < size; ++i) {
        hash ^= p[i];
        hash *= 1099511628211ull;
    }
    return hash;
}
