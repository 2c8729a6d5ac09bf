/* output_file.c: opening inputs without blocking, writing outputs through an
 * unnamed file linked into place when complete (or a named temporary file),
 * and removing a named one on a terminating signal (output_file.h). The signal part is
 * the tool's own process state, so it lives here and not in the library. */
#define _GNU_SOURCE

#include "output_file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifndef NAME_MAX
#define NAME_MAX 255
#endif

int open_regular_file(const char *path, struct stat *out_status, bool *out_not_regular)
{
    *out_not_regular = false;
    /* Without O_NONBLOCK, opening a FIFO waits for a writer that may never come. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return -1;
    if (fstat(fd, out_status) != 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    if (!S_ISREG(out_status->st_mode)) {
        close(fd);
        *out_not_regular = true;
        errno = 0;
        return -1;
    }
    int flags = fcntl(fd, F_GETFL);
    if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}

bool temporary_name_for(const char *out_path, char *temporary, size_t temporary_size)
{
    static const char suffix[] = ".tmp.XXXXXX";
    const char *slash = strrchr(out_path, '/');
    size_t directory_length = slash ? (size_t)(slash - out_path) + 1 : 0;
    size_t name_length = strlen(out_path) - directory_length;
    size_t name_room = NAME_MAX - (sizeof suffix - 1);
    if (name_length > name_room)
        name_length = name_room;
    int written = snprintf(temporary, temporary_size, "%.*s%.*s%s", (int)directory_length, out_path,
                           (int)name_length, out_path + directory_length, suffix);
    return written > 0 && (size_t)written < temporary_size;
}

static char remembered_path[PATH_MAX];
static volatile sig_atomic_t path_remembered;
static volatile sig_atomic_t handlers_installed;

/* Only async-signal-safe calls: unlink, then the signal again with its default
 * action (SA_RESETHAND restored it; the raise is delivered once this returns). */
static void remove_temporary_file(int signal_number)
{
    int saved = errno;
    if (path_remembered)
        unlink(remembered_path);
    raise(signal_number);
    errno = saved;
}

static void install_handlers(void)
{
    static const int signals[] = {SIGINT, SIGTERM, SIGHUP};
    for (size_t i = 0; i < sizeof signals / sizeof signals[0]; ++i) {
        struct sigaction previous;
        if (sigaction(signals[i], NULL, &previous) != 0 || previous.sa_handler == SIG_IGN)
            continue;  /* nohup's ignored SIGHUP stays ignored */
        struct sigaction action;
        memset(&action, 0, sizeof action);
        action.sa_handler = remove_temporary_file;
        action.sa_flags = SA_RESETHAND;
        sigemptyset(&action.sa_mask);
        sigaction(signals[i], &action, NULL);
    }
    handlers_installed = 1;
}

void temporary_file_remember(const char *path)
{
    path_remembered = 0;
    if (strlen(path) >= sizeof remembered_path)
        return;
    memcpy(remembered_path, path, strlen(path) + 1);
    if (!handlers_installed)
        install_handlers();
    path_remembered = 1;
}

void temporary_file_forget(void)
{
    path_remembered = 0;
}

/* Holds SIGINT, SIGTERM and SIGHUP on this thread, so that the handler never
 * sees a name half remembered; false where the mask could not be set (then
 * nothing is to be restored). */
static bool hold_terminating_signals(sigset_t *previous)
{
    sigset_t terminating;
    sigemptyset(&terminating);
    sigaddset(&terminating, SIGINT);
    sigaddset(&terminating, SIGTERM);
    sigaddset(&terminating, SIGHUP);
    return pthread_sigmask(SIG_BLOCK, &terminating, previous) == 0;
}

int temporary_file_create(char *template)
{
    sigset_t previous;
    bool held = hold_terminating_signals(&previous);
    int fd = mkstemp(template);
    int saved = errno;
    if (fd >= 0)
        temporary_file_remember(template);
    if (held)
        pthread_sigmask(SIG_SETMASK, &previous, NULL);
    errno = saved;
    return fd;
}

/* OUT's directory, as a path open(2) takes: "." for a bare name. */
static char *directory_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (slash == NULL)
        return strdup(".");
    if (slash == path)
        return strdup("/");
    return strndup(path, (size_t)(slash - path));
}

/* The unnamed file, or -1 with errno: EOPNOTSUPP, EISDIR or EINVAL where the
 * kernel or the file system has no O_TMPFILE. It is published through
 * /proc/self/fd (linkat with AT_EMPTY_PATH would need CAP_DAC_READ_SEARCH),
 * so without /proc it is not used at all. */
static int open_unnamed(const char *out_path)
{
#ifdef O_TMPFILE
    if (access("/proc/self/fd", X_OK) != 0) {
        errno = EOPNOTSUPP;
        return -1;
    }
    char *directory = directory_of(out_path);
    if (directory == NULL) {
        errno = ENOMEM;
        return -1;
    }
    int fd = open(directory, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
    int saved = errno;
    free(directory);
    errno = saved;
    return fd;
#else
    (void)out_path;
    errno = EOPNOTSUPP;
    return -1;
#endif
}

int output_file_open(output_file *output, const char *out_path)
{
    *output = (output_file){.fd = -1, .unnamed = false, .temporary = NULL};
    int fd = open_unnamed(out_path);
    if (fd >= 0) {
        output->fd = fd;
        output->unnamed = true;
        return 0;
    }
    if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)
        return -1;  /* the directory is missing or not writable: a named file would fail alike */
    size_t size = strlen(out_path) + 16;
    output->temporary = malloc(size);
    if (output->temporary == NULL) {
        errno = ENOMEM;
        return -1;
    }
    if (!temporary_name_for(out_path, output->temporary, size)) {
        free(output->temporary);
        output->temporary = NULL;
        errno = ENAMETOOLONG;
        return -1;
    }
    output->fd = temporary_file_create(output->temporary);
    if (output->fd < 0) {
        int saved = errno;
        free(output->temporary);
        output->temporary = NULL;
        errno = saved;
        return -1;
    }
    return 0;
}

void output_file_discard(output_file *output)
{
    if (output->fd >= 0)
        close(output->fd);
    output->fd = -1;
    if (output->temporary != NULL) {
        temporary_file_forget();
        unlink(output->temporary);
        free(output->temporary);
        output->temporary = NULL;
    }
}

/* Gives the unnamed file the name temporary ("OUT.tmp.XXXXXX", the X's made
 * afresh until a name is free) and remembers it for the signal handlers, with
 * those signals held between the two. */
static int link_under_temporary_name(int fd, const char *proc_path, char *temporary)
{
    static const char letters[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    char *x = temporary + strlen(temporary) - 6;
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    uint64_t state = (uint64_t)now.tv_nsec ^ ((uint64_t)now.tv_sec << 32) ^ ((uint64_t)getpid() << 16) ^ (uint64_t)fd;
    for (int attempt = 0; attempt < 100; ++attempt) {
        for (int i = 0; i < 6; ++i) {
            state = state * 6364136223846793005u + 1442695040888963407u;
            x[i] = letters[(state >> 33) % (sizeof letters - 1)];
        }
        sigset_t previous;
        bool held = hold_terminating_signals(&previous);
        int linked = linkat(AT_FDCWD, proc_path, AT_FDCWD, temporary, AT_SYMLINK_FOLLOW);
        int saved = errno;
        if (linked == 0)
            temporary_file_remember(temporary);
        if (held)
            pthread_sigmask(SIG_SETMASK, &previous, NULL);
        if (linked == 0)
            return 0;
        if (saved != EEXIST) {
            errno = saved;
            return -1;
        }
    }
    errno = EEXIST;
    return -1;
}

static int publish_unnamed(output_file *output, const char *out_path, const char **out_step)
{
    char proc_path[64];
    snprintf(proc_path, sizeof proc_path, "/proc/self/fd/%d", output->fd);
    /* No OUT yet: the link is the whole publication, and nothing is ever
     * named but the finished file. */
    if (linkat(AT_FDCWD, proc_path, AT_FDCWD, out_path, AT_SYMLINK_FOLLOW) == 0)
        return 0;
    if (errno != EEXIST) {
        *out_step = "cannot link";
        return -1;
    }
    /* OUT exists (a file, or a link, which is replaced and not followed):
     * linkat cannot replace, so the complete file gets a temporary name for
     * the instant of one rename. */
    size_t size = strlen(out_path) + 16;
    output->temporary = malloc(size);
    if (output->temporary == NULL || !temporary_name_for(out_path, output->temporary, size)) {
        int reason = output->temporary == NULL ? ENOMEM : ENAMETOOLONG;
        free(output->temporary);
        output->temporary = NULL;
        errno = reason;
        *out_step = "cannot link";
        return -1;
    }
    if (link_under_temporary_name(output->fd, proc_path, output->temporary) != 0) {
        int saved = errno;
        free(output->temporary);
        output->temporary = NULL;
        errno = saved;
        *out_step = "cannot link";
        return -1;
    }
    if (rename(output->temporary, out_path) != 0) {
        *out_step = "cannot replace";
        return -1;
    }
    temporary_file_forget();
    free(output->temporary);
    output->temporary = NULL;
    return 0;
}

int output_file_publish(output_file *output, const char *out_path, const char **out_step)
{
    *out_step = NULL;
    if (output->unnamed) {
        /* The caller flushed the file; it is closed once it has its name. */
        if (publish_unnamed(output, out_path, out_step) != 0) {
            int saved = errno;
            output_file_discard(output);
            errno = saved;
            return -1;
        }
        close(output->fd);
        output->fd = -1;
        return 0;
    }
    int closed = close(output->fd);
    output->fd = -1;
    if (closed != 0 || rename(output->temporary, out_path) != 0) {
        int saved = errno;
        *out_step = closed != 0 ? "cannot close" : "cannot replace";
        output_file_discard(output);
        errno = saved;
        return -1;
    }
    temporary_file_forget();
    free(output->temporary);
    output->temporary = NULL;
    return 0;
}
