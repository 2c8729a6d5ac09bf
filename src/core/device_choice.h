/* device_choice.h: where a host-memory sort runs on a Vulkan context. The
 * device pays a fixed cost per call (a submission, the bus both ways) that the
 * CPU path does not, so below some size the CPU path finishes first. That size
 * (the crossover) comes from a cost model calibrated once per device and CPU
 * and kept beside the pipeline cache, or from the caller (crossover_keys,
 * BITONIC_CROSSOVER). Resident buffers and the recording API never move.
 * The choice knows the context only through what it is handed
 * (bitonic_choice_target): the device's backend table and a measured sort. */
#ifndef BITONIC_DEVICE_CHOICE_H
#define BITONIC_DEVICE_CHOICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backend.h"
#include "bitonic.h"
#include "cache_dir.h"
#include "host_memory.h"

typedef enum bitonic_forced_device {
    BITONIC_FORCED_NONE = 0,
    BITONIC_FORCED_CPU,
    BITONIC_FORCED_DEVICE,
} bitonic_forced_device;

#define BITONIC_CHOICE_MAX_POINTS 8

/* One measured size: the best host sort time of each side. */
typedef struct bitonic_choice_point {
    double keys, cpu_ms, device_ms;
} bitonic_choice_point;

/* What a host sort sorts: each has its own crossover, since the CPU path's
 * cost of each differs far more than the device's (device_choice.c). */
typedef enum bitonic_sort_kind {
    BITONIC_SORT_KEYS32 = 0,  /* 32-bit keys */
    BITONIC_SORT_PAIRS = 1,   /* keys with values (argsort, rank map and records too) */
    BITONIC_SORT_KEYS64 = 2,  /* 64-bit keys */
} bitonic_sort_kind;

typedef struct bitonic_device_choice {
    uint64_t crossover_keys;         /* host sorts of fewer keys run on the CPU path; 0: not known yet */
    /* The same for pairs ("wide" sorts) and for 64-bit keys, each measured
     * apart: the CPU path sorts those with a radix sort of 64-bit words, 13-19x
     * its u32 time at 2^24 on the 16-core H100 machine (on one thread, before
     * it had more, 95-150x), pairs 1.5x the cost of 64-bit keys, while the
     * device takes about twice its u32 time for either. Given counts set all. */
    uint64_t wide_crossover_keys;
    uint64_t key64_crossover_keys;
    /* The measurements behind a calibrated crossover and what making the
     * device took, so that the first host sort of a process, which would have
     * to make the device, goes to the device only when it still finishes first
     * (a one-shot `bitonic sort`). point_count 0: no such data (a given or
     * hand-written crossover). */
    bitonic_choice_point points[BITONIC_CHOICE_MAX_POINTS];
    uint32_t point_count;
    bitonic_choice_point wide_points[BITONIC_CHOICE_MAX_POINTS];  /* the same for pairs */
    uint32_t wide_point_count;
    bitonic_choice_point key64_points[BITONIC_CHOICE_MAX_POINTS]; /* and for 64-bit keys */
    uint32_t key64_point_count;
    double device_create_ms;
    /* What releasing the device took when a context that had made it was
     * destroyed (the first such time after calibrating; 0: not known): a
     * one-shot process pays it too (38-90 ms on the H100 machine). */
    double device_release_ms;
    bool use_model;                  /* calibrate once crossover_keys is needed and unknown */
    bitonic_forced_device forced;    /* set while calibrating, so each side can be timed */
    double calibration_ms;           /* what calibrating took in this context (0: read or given) */
    char path[BITONIC_CACHE_PATH_MAX];/* the calibration file; "" when the disk cache is off */
    const bitonic_host_memory *memory;  /* the context's (NULL: the C library's), for calibrating and reading */
} bitonic_device_choice;

/* The crossover file at path: its u32 crossover (0 when the file is missing,
 * damaged or not one of ours), and with out_model the pairs' and 64-bit keys'
 * crossovers, the measured points (at most BITONIC_CHOICE_MAX_POINTS a kind,
 * in increasing keys) and the device's costs. What the context calls, and the
 * mutation test (tests/fuzz/mutate_cache_readers.c). */
uint64_t bitonic_device_choice_read_file(const char *path, bitonic_device_choice *out_model);

/* automatic: the device came from the default selection (no desc->device, no
 * BITONIC_DEVICE). device_key names the device and driver for the file name
 * ("" for none). */
void bitonic_device_choice_init(bitonic_device_choice *choice, const bitonic_context_desc *desc, bool automatic,
                                const char *device_key);

/* The crossover in effect without calibrating: given, measured, or stored on
 * disk; 0 when the model would still have to measure it. */
uint64_t bitonic_device_choice_known(const bitonic_device_choice *choice);

/* A host sort that calibration times: count keys of a kind in host memory
 * (keys hold 2 x count words for 64-bit keys; values count words, for pairs,
 * NULL otherwise), sorted on the context the choice decides for, on the side
 * choice->forced names while it runs. */
typedef bitonic_status (*bitonic_choice_measure_fn)(void *user_data, bitonic_sort_kind kind, uint32_t *keys,
                                                    uint32_t *values, size_t count);

/* What the choice needs of the context it decides for, given by the context
 * (context.c): the device's backend and its state, to ask whether the device
 * is made, make it and read what that took; and the sort to time. */
typedef struct bitonic_choice_target {
    const bitonic_backend_ops *ops;
    void *state;
    bitonic_choice_measure_fn measure;
    void *measure_user_data;
} bitonic_choice_target;

/* Whether a host sort of count keys of a kind on the target's Vulkan device
 * goes to the CPU path; calibrates first (timing target->measure) when the
 * model is wanted and not known yet. */
bool bitonic_device_choice_on_cpu(bitonic_device_choice *choice, const bitonic_choice_target *target, size_t count,
                                  bitonic_sort_kind kind);

/* Records what releasing the made device took (a context being destroyed)
 * in the calibration file, once, where the model has measurements there. */
void bitonic_device_choice_note_release(bitonic_device_choice *choice, double release_ms);

#endif /* BITONIC_DEVICE_CHOICE_H */
