/* output_file.h: the file-system edges of `bitonic sort` shared by the one-process
 * and the distributed paths: opening an input without blocking on a FIFO or a
 * device, naming the temporary file an output is written through, and removing
 * that file when SIGINT, SIGTERM or SIGHUP ends the process mid-write. */
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

#endif /* BITONIC_OUTPUT_FILE_H */
