/* flock.h: the boids simulation on the GPU. A flock owns its state buffers
 * (two, ping-ponged: a step reads one and writes the other), the buffers of its
 * neighbour search, and records one simulation step at a time into the caller's
 * command buffer, the sort included (bitonic_vulkan_record_sort on the same
 * device, in the same command buffer). */
#ifndef BOIDS_FLOCK_H
#define BOIDS_FLOCK_H

#include <stdbool.h>
#include <stdint.h>

#include "bitonic_vulkan.h"
#include "gpu.h"

typedef enum flock_search {
    FLOCK_SEARCH_BRUTE = 0,   /* every pair: the reference */
    FLOCK_SEARCH_STATION,     /* sorted distance to one station + binary-searched window */
    FLOCK_SEARCH_GRID,        /* sorted uniform-grid cells, 27-cell search, cell-ordered data */
    FLOCK_SEARCH_COUNT
} flock_search;

const char *flock_search_name(flock_search search);
/* Returns false for an unknown name. */
bool flock_search_parse(const char *name, flock_search *out);

/* The boid as it lies in the state buffers (see flock_common.glsl). */
typedef struct flock_boid {
    float position[3];
    float noise_phase;
    float heading[3];         /* unit */
    float speed;
} flock_boid;

typedef struct flock_params {
    uint32_t count;
    uint64_t seed;
    float dt;                 /* fixed time step, seconds */
    float radius;             /* neighbour radius R */
    float speed;
    float speed_variation;    /* relative: speed * (1 + noise * variation) */
    float rotation_rate;      /* heading smoothing: keep exp(-rate * dt) of the old heading */
    float separation_weight;
    float alignment_weight;
    float cohesion_weight;
    float target_weight;
    float spawn_radius;       /* boids start in a ball this big; 0: from count and R */
} flock_params;

/* The defaults (Shinao's/keijiro's: R 2, speed 6, variation 0.9, rotation 4) for count boids. */
flock_params flock_default_params(uint32_t count, uint64_t seed);

/* Sizes the kernels run with, all derived from the device's limits in
 * flock_tuning_from_device(); max_groups_x may be lowered to exercise 2-D
 * dispatches at small counts. */
typedef struct flock_tuning {
    uint32_t workgroup_size;        /* the per-boid kernels */
    uint32_t brute_workgroup_size;  /* also the shared-memory tile length of the brute search */
    uint32_t max_groups_x;          /* groups per row of a dispatch before it goes 2-D */
} flock_tuning;

flock_tuning flock_tuning_from_device(const gpu *g);

typedef struct flock_kernels {
    gpu_kernel move_brute;
    gpu_kernel station_keys, station_rank, move_station;
    gpu_kernel grid_keys, grid_cells, move_grid;
} flock_kernels;

typedef struct flock {
    gpu *g;
    flock_params params;
    flock_search search;
    flock_tuning tuning;
    bool debug;                     /* write per-boid neighbour fingerprints */
    /* The world: where the target roams, the grid over it, the station. */
    float world_half_extent;
    float grid_origin[3];
    float cell_size;
    uint32_t grid_dims[3];
    float station[3];

    gpu_buffer state[2];
    uint32_t current;               /* state[current] holds the latest step */
    uint32_t step;                  /* steps taken since the seeded start */
    gpu_buffer sort_keys, sort_values;   /* station and grid */
    gpu_buffer sort_scratch;             /* lets the sort merge above a tile (empty for small flocks) */
    gpu_buffer rank_of;                  /* station */
    gpu_buffer ordered_state;            /* station: by rank; grid: by cell */
    gpu_buffer cell_runs;                /* grid: (start, end) per cell */
    gpu_buffer debug_fingerprints;       /* uvec4 per boid when debug, else 16 bytes */
    flock_kernels kernels;
    bitonic_vulkan_sorter *sorter;
} flock;

/* Creates the buffers and kernels and uploads the seeded start. Prints why on failure. */
bool flock_create(gpu *g, const flock_params *params, flock_search search, const flock_tuning *tuning, bool debug,
                  flock *out);
void flock_destroy(flock *f);

/* Timestamp slots written by flock_record_step when given a query pool. */
enum { FLOCK_QUERY_STEP_BEGIN = 0, FLOCK_QUERY_SORT_BEGIN, FLOCK_QUERY_SORT_END, FLOCK_QUERY_STEP_END,
       FLOCK_QUERIES_PER_STEP };

/* Records one step into commands (recording state, outside a render pass) and
 * advances current and step. It starts with a barrier that makes earlier
 * compute and transfer writes visible, and ends with the new state written by
 * a compute shader (the caller adds a barrier before reading it elsewhere).
 * With a query pool, writes FLOCK_QUERIES_PER_STEP timestamps from first_query
 * (the caller resets them); without a sort the sort's two are equal. */
bool flock_record_step(flock *f, VkCommandBuffer commands, VkQueryPool timestamps, uint32_t first_query);

/* Where the target is at a step: it roams a slow curve through the world. */
void flock_target_at(const flock *f, uint32_t step, float out[3]);

/* The seeded start, as a host array (count boids). */
void flock_seed_state(const flock_params *params, flock_boid *out);

/* Reads the current state, or replaces it (and the step counter). */
bool flock_read_state(flock *f, flock_boid *out);
bool flock_write_state(flock *f, const flock_boid *boids, uint32_t step);
/* The fingerprints of the last step (debug flocks only): per boid
 * (neighbour count, sum of hashed neighbour ids, xor of them, 0). */
bool flock_read_fingerprints(flock *f, uint32_t *out_uvec4s);

/* Order metrics of a state: polarisation |mean unit heading| (1 = all aligned)
 * and the mean distance to the nearest other boid (exact, through a host grid;
 * over a deterministic sample of at most max_sampled boids). */
typedef struct flock_metrics {
    double polarisation;
    double mean_nearest_distance;
    uint32_t sampled;
} flock_metrics;

flock_metrics flock_measure(const flock_boid *boids, uint32_t count, uint32_t max_sampled);

#endif /* BOIDS_FLOCK_H */
