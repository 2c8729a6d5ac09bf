/* distributed_output.h: the temporary file of `bitonic sort --distributed`,
 * and the sweep that removes what a killed run left.
 *
 * Every rank writes its slice into one file by path (the ranks may sit on
 * other hosts, so rank 0 cannot hand them an unnamed O_TMPFILE), so that file
 * needs a name while the ranks write. It is a hidden one in OUT's directory,
 * ".OUT.bitonic-part.XXXXXX", which rank 0 holds an exclusive flock on from
 * the moment it makes the file until it renames it over OUT or removes it.
 * SIGINT, SIGTERM and SIGHUP remove it (output_file.h); SIGKILL, or a crash,
 * leaves it, with its lock released by the kernel. The next distributed sort
 * to the same OUT sweeps such files first: each whose lock it can take, and
 * which is old enough that no live run can be between making it and locking
 * it, belongs to a run that is gone, and is removed. */
#ifndef BITONIC_DISTRIBUTED_OUTPUT_H
#define BITONIC_DISTRIBUTED_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>

/* Writes into temporary the mkstemp template ".OUT.bitonic-part.XXXXXX" in
 * OUT's directory, OUT's last component shortened where the name would pass
 * 255 bytes. False when temporary_size is too small. */
bool distributed_temporary_name(const char *out_path, char *temporary, size_t temporary_size);

/* Makes the file of the template (remembered for removal on SIGINT, SIGTERM
 * and SIGHUP) and takes its lock. Returns the descriptor, which holds the
 * lock while it is open, or -1 with errno set (nothing is then left). */
int distributed_temporary_create(char *template);

/* Removes the temporary files of OUT that killed runs left (above); returns
 * how many. Files it cannot open, lock or that are not regular are left. */
unsigned distributed_sweep_leftovers(const char *out_path);

#endif /* BITONIC_DISTRIBUTED_OUTPUT_H */
