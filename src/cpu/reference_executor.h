/* reference_executor.h: runs a bitonic schedule (src/core/schedule.h) on the CPU,
 * step group by step group, addressing keys exactly as the shaders do. It is the
 * oracle that proves the schedule (0-1 principle tests) and mirrors the GPU
 * executors, not the fast CPU path (that is fast_sort.h). */
#ifndef BITONIC_REFERENCE_EXECUTOR_H
#define BITONIC_REFERENCE_EXECUTOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "schedule.h"

typedef enum bitonic_reference_mode {
    /* Keys are numbers: the comparator keeps min below and max above. */
    BITONIC_REFERENCE_NUMERIC = 0,
    /* Each 64-bit word is 64 independent binary inputs, one per bit, so one run
     * checks 64 zero-one inputs: min is AND, max is OR. */
    BITONIC_REFERENCE_BITSLICED = 1,
} bitonic_reference_mode;

typedef struct bitonic_reference_config {
    uint32_t tile_log;           /* as in the schedule's params */
    uint32_t tile_register_log;  /* keys per thread (log2) in the tile kernel, <= tile_log */
    bitonic_reference_mode mode;
    uint32_t merge_chunk_log;    /* MERGE passes: output keys per chunk (log2), 1..tile_log + 1; NUMERIC only */
} bitonic_reference_config;

/* Runs the passes over keys[0 .. count-1] in place (TRANSPOSE passes and the
 * tile passes of their views work in a scratch array it allocates). Returns
 * false if a pass asks for something the config cannot do (a tile pass with no
 * tile or with a view no TRANSPOSE pass made, a merge pass bit-sliced or
 * without a chunk size) or memory for a merge or a view runs out. */
bool bitonic_reference_run(const bitonic_pass *passes, uint32_t pass_count, const bitonic_reference_config *config,
                           uint64_t *keys, uint64_t count);


/* Runs step group `group` over every group index below group_count. */
void bitonic_reference_run_step_group(const bitonic_step_group *group, uint64_t group_count, uint64_t first_key,
                                      bitonic_reference_mode mode, uint64_t *keys, uint64_t count);

#endif /* BITONIC_REFERENCE_EXECUTOR_H */
