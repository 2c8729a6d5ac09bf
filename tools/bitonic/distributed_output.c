/* distributed_output.c: the distributed sort's locked temporary file and the
 * sweep of those that killed runs left (distributed_output.h). */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE  /* flock, O_NOFOLLOW */
#include "distributed_output.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "output_file.h"

static const char part_marker[] = ".bitonic-part.";
#define MKSTEMP_LETTERS 6u
/* A file younger than this may belong to a run between making it and locking
 * it (microseconds apart, signals held): left alone. */
#define SWEEP_MIN_AGE_S 2

/* The directory part of out_path ("" for a bare name, else up to and
 * including the last slash), and the last component shortened so that
 * "." + it + marker + letters fits one name. */
static void split_out_path(const char *out_path, size_t *out_directory_length, size_t *out_name_length)
{
    const char *slash = strrchr(out_path, '/');
    size_t directory_length = slash ? (size_t)(slash - out_path) + 1 : 0;
    size_t name_length = strlen(out_path) - directory_length;
    size_t name_room = NAME_MAX - 1 - (sizeof part_marker - 1) - MKSTEMP_LETTERS;
    *out_directory_length = directory_length;
    *out_name_length = name_length > name_room ? name_room : name_length;
}

bool distributed_temporary_name(const char *out_path, char *temporary, size_t temporary_size)
{
    size_t directory_length, name_length;
    split_out_path(out_path, &directory_length, &name_length);
    int written = snprintf(temporary, temporary_size, "%.*s.%.*s%sXXXXXX", (int)directory_length, out_path,
                           (int)name_length, out_path + directory_length, part_marker);
    return written > 0 && (size_t)written < temporary_size;
}

int distributed_temporary_create(char *template)
{
    int fd = temporary_file_create(template);
    if (fd < 0)
        return -1;
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        int saved = errno;
        temporary_file_forget();
        unlink(template);
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}

/* Whether name is ".OUT.bitonic-part." followed by mkstemp's six letters. */
static bool is_part_of(const char *name, const char *prefix, size_t prefix_length)
{
    return strncmp(name, prefix, prefix_length) == 0 && strlen(name) == prefix_length + MKSTEMP_LETTERS;
}

unsigned distributed_sweep_leftovers(const char *out_path)
{
    size_t directory_length, name_length;
    split_out_path(out_path, &directory_length, &name_length);
    char directory[PATH_MAX], prefix[NAME_MAX + 1];
    int made = snprintf(directory, sizeof directory, "%.*s", (int)directory_length, out_path);
    int prefixed = snprintf(prefix, sizeof prefix, ".%.*s%s", (int)name_length, out_path + directory_length,
                            part_marker);
    if (made < 0 || (size_t)made >= sizeof directory || prefixed < 0 || (size_t)prefixed >= sizeof prefix)
        return 0;
    DIR *listing = opendir(directory_length ? directory : ".");
    if (!listing)
        return 0;
    int directory_fd = dirfd(listing);
    time_t now = time(NULL);
    unsigned removed = 0;
    for (struct dirent *entry; (entry = readdir(listing)) != NULL;) {
        if (!is_part_of(entry->d_name, prefix, (size_t)prefixed))
            continue;
        int fd = openat(directory_fd, entry->d_name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
        if (fd < 0)
            continue;
        struct stat status;
        /* The lock is taken before the unlink and kept across it, so no run
         * can take the file over in between. */
        if (fstat(fd, &status) == 0 && S_ISREG(status.st_mode) && now - status.st_mtime >= SWEEP_MIN_AGE_S &&
            flock(fd, LOCK_EX | LOCK_NB) == 0 && unlinkat(directory_fd, entry->d_name, 0) == 0)
            ++removed;
        close(fd);
    }
    closedir(listing);
    return removed;
}
