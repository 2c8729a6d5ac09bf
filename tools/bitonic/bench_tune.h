/* bench_tune.h: `bitonic bench --tune NAME=VALUE`, the bench's experiment
 * settings (tile sizes, merge and partition overrides, kernels forced on or
 * off), kept apart from the options a user needs. Each one sets one field of
 * bench_options, which the bench hands to the library's tuning overrides. */
#ifndef BITONIC_BENCH_TUNE_H
#define BITONIC_BENCH_TUNE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "bench_command.h"

/* Applies "NAME=VALUE" (or "NAME" alone for an on/off setting). On failure
 * writes one line (without a newline) to error and returns false. */
bool bench_tune_apply(bench_options *options, const char *setting, char *error, size_t error_capacity);

/* Lists every setting with its values, one a line (`--tune help`). */
void bench_tune_print(FILE *out);

#endif /* BITONIC_BENCH_TUNE_H */
