/* output_file.h: the file-system edges of `bitonic sort` shared by the one-process
 * and the distributed paths: opening an input without blocking on a FIFO or a
 * device, the file an output is written through (unnamed where the file system
 * allows, so even SIGKILL leaves nothing behind), naming the temporary file
 * otherwise, and removing that file when SIGINT, SIGTERM or SIGHUP ends the
 * process mid-write.
 *
 * OUT as a symbolic link: the link itself is replaced by the new file (as
 * rename does); the file it pointed to is neither written nor read. */
#ifndef BITONIC_OUTPUT_FILE_H
#define BITONIC_OUTPUT_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

/* Opens path for reading and returns the descriptor, with *out_status filled.
 * The open does not wait for a FIFO's writer or a device (O_NONBLOCK, cleared
 * once fstat has shown a regular file). Returns -1 with errno set on failure;
 * a path that is not a regular file (a FIFO, a socket, a device, a directory)
 * fails with *out_not_regular set and errno 0. */
int open_regular_file(const char *path, struct stat *out_status, bool *out_not_regular);

/* Writes into temporary the mkstemp template of a file next to out_path:
 * "OUT.tmp.XXXXXX", with OUT's last component shortened where that name would
 * pass the file system's limit on one name (255 bytes), so any OUT that can be
 * created has a temporary name. Returns false when temporary_size is too small. */
bool temporary_name_for(const char *out_path, char *temporary, size_t temporary_size);

/* Records a temporary file to unlink if SIGINT, SIGTERM or SIGHUP arrives
 * before temporary_file_forget(); the signal is then raised again with its
 * default action, so the process still ends as the signal asks. The handlers
 * are installed on the first call. One file at a time; the path is copied. */
void temporary_file_remember(const char *path);
void temporary_file_forget(void);

/* mkstemp(template) and temporary_file_remember of the file it made, with those
 * signals held off between the two, so no signal leaves the file behind. */
int temporary_file_create(char *template);

/* An output being written. On Linux it is an unnamed file in OUT's directory
 * (O_TMPFILE), which no name reaches until output_file_publish links it in, so
 * a process killed by any signal, SIGKILL included, leaves nothing; where the
 * file system refuses O_TMPFILE (EOPNOTSUPP, EISDIR, EINVAL) or /proc is
 * missing, a named temporary file next to OUT, removed on SIGINT, SIGTERM and
 * SIGHUP (temporary_file_create). */
typedef struct output_file {
    int fd;
    bool unnamed;      /* O_TMPFILE: no name in the directory yet */
    char *temporary;   /* the named temporary file's path (the fallback), else NULL */
} output_file;

/* Opens the file OUT is written through. Returns 0, or -1 with errno set. */
int output_file_open(output_file *output, const char *out_path);

/* Closes the written (and flushed) file and puts it at out_path, replacing
 * what was there in one rename. Returns 0, or -1 with errno set and *out_step
 * naming what failed ("cannot close", "cannot link", "cannot replace"); the
 * file is then discarded and out_path left as it was. */
int output_file_publish(output_file *output, const char *out_path, const char **out_step);

/* Closes and removes an output that will not be published. */
void output_file_discard(output_file *output);

#endif /* BITONIC_OUTPUT_FILE_H */
