/* output_file.c: opening inputs without blocking, naming temporary outputs and
 * removing them on a terminating signal (output_file.h). The signal part is
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
#include <string.h>
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

int temporary_file_create(char *template)
{
    sigset_t terminating, previous;
    sigemptyset(&terminating);
    sigaddset(&terminating, SIGINT);
    sigaddset(&terminating, SIGTERM);
    sigaddset(&terminating, SIGHUP);
    bool held = pthread_sigmask(SIG_BLOCK, &terminating, &previous) == 0;
    int fd = mkstemp(template);
    int saved = errno;
    if (fd >= 0)
        temporary_file_remember(template);
    if (held)
        pthread_sigmask(SIG_SETMASK, &previous, NULL);
    errno = saved;
    return fd;
}
