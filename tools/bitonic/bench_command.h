/* bench_command.h: `bitonic bench`: sorts fresh random keys at a range of
 * sizes, times the GPU part with timestamps and the whole host-to-host call
 * with a clock, verifies every result, and prints a table or CSV. */
#ifndef BITONIC_BENCH_COMMAND_H
#define BITONIC_BENCH_COMMAND_H

#include <stdbool.h>

typedef struct bench_options {
    const char *device;
    unsigned min_log, max_log;   /* max_log 0: chosen from the device */
    unsigned runs;               /* timed runs per size (after 2 warm-ups); the median is reported */
    bool csv;
    bool profile;                /* print GPU time per pass */
    bool end_to_end;             /* also time host memory -> sort -> host memory */
    bool validation;
    unsigned tile_keys;          /* 0: derived from the device */
    unsigned max_steps;          /* steps per global pass, 0: derived */
    unsigned keys_per_thread;    /* in the tile kernel, 0: derived */
} bench_options;

bench_options bench_default_options(void);
int bench_run(const bench_options *options);

#endif /* BITONIC_BENCH_COMMAND_H */
