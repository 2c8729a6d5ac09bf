/* flock.c: the simulation (see flock.h): buffers, kernels, recording a step
 * for each neighbour search, the seeded start and the order metrics. */
#include "flock.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boids_shaders.h"

/* Mirrors FlockParams in shaders/flock_common.glsl (std430 push constants). */
typedef struct flock_push {
    float target[3];
    float dt;
    float station[3];
    float radius;
    float grid_origin[3];
    float cell_size;
    uint32_t grid_dims[3];
    uint32_t count;
    float time, speed, speed_variation, rotation_rate;
    float separation_weight, alignment_weight, cohesion_weight, target_weight;
    float station_margin;
    uint32_t debug, step, unused;
} flock_push;
_Static_assert(sizeof(flock_push) == 112, "flock_push must match FlockParams in flock_common.glsl");

/* The station window's relative error bound (see move_station.comp): about 80
 * float ulps, where a computed distance is off by a few. */
#define STATION_MARGIN 1e-5f

/* Grid cells are a little wider than R. The cell coordinate (p - origin) / size
 * is computed in float for values up to GRID_MAX_DIM, off by at most a few ulps
 * of GRID_MAX_DIM (about 2e-4 of a cell); a cell 0.2% wider than R keeps two
 * boids closer than R from ever landing two cells apart. */
#define GRID_CELL_SLACK 1.002f
#define GRID_MAX_DIM 1024u

static const char *const search_names[FLOCK_SEARCH_COUNT] = {"brute", "station", "grid"};

const char *flock_search_name(flock_search search)
{
    return search < FLOCK_SEARCH_COUNT ? search_names[search] : "unknown";
}

bool flock_search_parse(const char *name, flock_search *out)
{
    for (int i = 0; i < FLOCK_SEARCH_COUNT; ++i)
        if (strcmp(name, search_names[i]) == 0) {
            *out = (flock_search)i;
            return true;
        }
    return false;
}

flock_params flock_default_params(uint32_t count, uint64_t seed)
{
    return (flock_params){
        .count = count, .seed = seed, .dt = 1.0f / 60.0f, .radius = 2.0f, .speed = 6.0f,
        .speed_variation = 0.9f, .rotation_rate = 4.0f, .separation_weight = 1.5f, .alignment_weight = 1.5f,
        .cohesion_weight = 0.8f, .target_weight = 0.3f, .spawn_radius = 0.0f,
    };
}

static uint32_t min_u32(uint32_t a, uint32_t b)
{
    return a < b ? a : b;
}

static uint32_t floor_power_of_two(uint32_t x)
{
    uint32_t p = 1;
    while (p <= x / 2u)
        p *= 2u;
    return p;
}

/* The one place where device limits become kernel sizes. A workgroup of about
 * eight subgroups (64 to 256 invocations) keeps enough work in flight to hide
 * memory latency without making the brute search's tile barriers wait long; a
 * power of two, so a multiple of any subgroup size up to it. The brute tile
 * (one boid per invocation) must fit the device's shared memory. */
flock_tuning flock_tuning_from_device(const gpu *g)
{
    const VkPhysicalDeviceLimits *limits = &g->properties.limits;
    uint32_t max_threads = min_u32(limits->maxComputeWorkGroupInvocations, limits->maxComputeWorkGroupSize[0]);
    uint32_t subgroup = g->subgroup_size ? g->subgroup_size : 32u;
    uint32_t wanted = subgroup * 8u < 64u ? 64u : (subgroup * 8u > 256u ? 256u : subgroup * 8u);
    uint32_t workgroup = floor_power_of_two(min_u32(wanted, max_threads));
    uint32_t brute = workgroup;
    while (brute > 1u && (uint64_t)brute * sizeof(flock_boid) > limits->maxComputeSharedMemorySize)
        brute /= 2u;
    return (flock_tuning){.workgroup_size = workgroup, .brute_workgroup_size = brute,
                          .max_groups_x = limits->maxComputeWorkGroupCount[0]};
}

static float spawn_radius_of(const flock_params *p)
{
    /* About 20 boids within R of each boid at the start, whatever the count. */
    if (p->spawn_radius > 0.0f)
        return p->spawn_radius;
    float r = p->radius * cbrtf((float)p->count / 20.0f);
    return r > 3.0f * p->radius ? r : 3.0f * p->radius;
}

void flock_target_at(const flock *f, uint32_t step, float out[3])
{
    /* A Lissajous curve whose size follows the flock's and whose speed stays
     * near 4 units/s (below the boids' 6), so the flock streams after it. */
    float a = 0.8f * spawn_radius_of(&f->params);
    float phase = (float)step * f->params.dt * 4.0f / a;
    out[0] = a * sinf(phase);
    out[1] = 0.25f * a * sinf(1.7f * phase + 1.0f);
    out[2] = a * sinf(1.3f * phase + 2.0f);
}

static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Uniform in [-1, 1). */
static float random_signed(uint64_t *state)
{
    return (float)(splitmix64(state) >> 40) * (2.0f / 16777216.0f) - 1.0f;
}

void flock_seed_state(const flock_params *params, flock_boid *out)
{
    uint64_t rng = params->seed;
    float spawn = spawn_radius_of(params);
    for (uint32_t i = 0; i < params->count; ++i) {
        float p[3], h[3], length_squared;
        do {
            for (int k = 0; k < 3; ++k)
                p[k] = random_signed(&rng);
            length_squared = p[0] * p[0] + p[1] * p[1] + p[2] * p[2];
        } while (length_squared > 1.0f);
        do {
            for (int k = 0; k < 3; ++k)
                h[k] = random_signed(&rng);
            length_squared = h[0] * h[0] + h[1] * h[1] + h[2] * h[2];
        } while (length_squared > 1.0f || length_squared < 1e-4f);
        float inverse = 1.0f / sqrtf(length_squared);
        out[i] = (flock_boid){.position = {p[0] * spawn, p[1] * spawn, p[2] * spawn},
                              .noise_phase = 32.0f * (random_signed(&rng) + 1.0f),
                              .heading = {h[0] * inverse, h[1] * inverse, h[2] * inverse},
                              .speed = params->speed};
    }
}

/* The world the target roams and the grid over it: the target stays within
 * 0.8 spawn radii of the origin; the flock trails it by a few radii at most.
 * Boids beyond the grid still work (clamped to border cells), only slower. */
static void place_world(flock *f)
{
    float spawn = spawn_radius_of(&f->params);
    float half = 2.5f * spawn + 4.0f * f->params.radius;
    f->world_half_extent = half;
    uint64_t budget = (uint64_t)f->params.count * 4u;
    budget = budget < 32768u ? 32768u : (budget > (1u << 27) ? (1u << 27) : budget);
    uint32_t max_dim = min_u32((uint32_t)cbrt((double)budget), GRID_MAX_DIM);
    float cell = f->params.radius * GRID_CELL_SLACK;
    if (2.0f * half / cell > (float)max_dim)
        cell = 2.0f * half / (float)max_dim;
    uint32_t dim = (uint32_t)ceilf(2.0f * half / cell);
    dim = dim < 1u ? 1u : (dim > max_dim ? max_dim : dim);
    f->cell_size = cell;
    for (int k = 0; k < 3; ++k) {
        f->grid_dims[k] = dim;
        f->grid_origin[k] = -0.5f * cell * (float)dim;
    }
    /* One station, off to the side of the world, as in the seed's single
     * "distance to station" key; far enough that its shells cross the flock as
     * nearly flat slabs. */
    f->station[0] = -2.0f * half;
    f->station[1] = -0.5f * half;
    f->station[2] = -1.0f * half;
}

static bool check_buffer_size(const flock *f, VkDeviceSize size, const char *what)
{
    if (size <= f->g->properties.limits.maxStorageBufferRange)
        return true;
    fprintf(stderr, "bitonic-boids: the %s buffer (%llu bytes) is larger than this device binds (maxStorageBufferRange %u); use fewer boids\n",
            what, (unsigned long long)size, f->g->properties.limits.maxStorageBufferRange);
    return false;
}

static bool create_buffers(flock *f)
{
    gpu *g = f->g;
    VkBufferUsageFlags storage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                 VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    VkDeviceSize n = f->params.count;
    VkDeviceSize state_bytes = n * sizeof(flock_boid);
    uint64_t cells = (uint64_t)f->grid_dims[0] * f->grid_dims[1] * f->grid_dims[2];
    bool sorted = f->search != FLOCK_SEARCH_BRUTE;
    VkDeviceSize small = 16;
    if (!check_buffer_size(f, state_bytes, "state") ||
        (f->search == FLOCK_SEARCH_GRID && !check_buffer_size(f, cells * 8u, "cell table")))
        return false;
    return gpu_buffer_create(g, state_bytes, storage, false, &f->state[0]) &&
           gpu_buffer_create(g, state_bytes, storage, false, &f->state[1]) &&
           gpu_buffer_create(g, sorted ? n * 4u : small, storage, false, &f->sort_keys) &&
           gpu_buffer_create(g, sorted ? n * 4u : small, storage, false, &f->sort_values) &&
           gpu_buffer_create(g, f->search == FLOCK_SEARCH_STATION ? n * 4u : small, storage, false, &f->rank_of) &&
           gpu_buffer_create(g, sorted ? state_bytes : small, storage, false, &f->ordered_state) &&
           gpu_buffer_create(g, f->search == FLOCK_SEARCH_GRID ? cells * 8u : small, storage, false, &f->cell_runs) &&
           gpu_buffer_create(g, f->debug ? n * 16u : small, storage, false, &f->debug_fingerprints);
}

#define KERNEL(g, name, bindings, workgroup, out)                                                           \
    gpu_kernel_create(g, boids_spirv_##name, boids_spirv_##name##_size, bindings, sizeof(flock_push), workgroup, \
                      out)

static bool create_kernels(flock *f)
{
    gpu *g = f->g;
    flock_kernels *k = &f->kernels;
    uint32_t wg = f->tuning.workgroup_size;
    switch (f->search) {
    case FLOCK_SEARCH_BRUTE:
        return KERNEL(g, move_brute, 3, f->tuning.brute_workgroup_size, &k->move_brute);
    case FLOCK_SEARCH_STATION:
        return KERNEL(g, station_keys, 3, wg, &k->station_keys) && KERNEL(g, station_rank, 4, wg, &k->station_rank) &&
               KERNEL(g, move_station, 7, wg, &k->move_station);
    case FLOCK_SEARCH_GRID:
        return KERNEL(g, grid_keys, 3, wg, &k->grid_keys) && KERNEL(g, grid_cells, 5, wg, &k->grid_cells) &&
               KERNEL(g, move_grid, 6, wg, &k->move_grid);
    default:
        return false;
    }
}

static bool create_sorter(flock *f)
{
    if (f->search == FLOCK_SEARCH_BRUTE)
        return true;
    bitonic_vulkan_sorter_desc desc = {.instance = f->g->instance, .physical_device = f->g->physical_device,
                                       .device = f->g->device};
    bitonic_status status = bitonic_vulkan_sorter_create(&desc, &f->sorter);
    if (status != BITONIC_SUCCESS) {
        fprintf(stderr, "bitonic-boids: creating the sorter: %s\n", bitonic_status_string(status));
        return false;
    }
    bitonic_vulkan_sorter_info info;
    bitonic_vulkan_sorter_get_info(f->sorter, &info);
    if (f->params.count > info.max_keys) {
        fprintf(stderr, "bitonic-boids: the sorter takes at most %llu keys on this device\n",
                (unsigned long long)info.max_keys);
        return false;
    }
    /* Scratch lets flocks larger than one tile merge sorted tiles instead of
     * running the whole network: fewer passes over memory. */
    bitonic_vulkan_sort_info sort = {.keys = f->sort_keys.buffer, .values = f->sort_values.buffer,
                                     .count = f->params.count};
    VkDeviceSize scratch_bytes = bitonic_vulkan_sort_scratch_bytes(f->sorter, &sort);
    return scratch_bytes == 0 ||
           gpu_buffer_create(f->g, scratch_bytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT,
                             false, &f->sort_scratch);
}

bool flock_create(gpu *g, const flock_params *params, flock_search search, const flock_tuning *tuning, bool debug,
                  flock *out)
{
    memset(out, 0, sizeof *out);
    out->g = g;
    out->params = *params;
    out->search = search;
    out->tuning = *tuning;
    out->debug = debug;
    if (params->count < 2) {
        fprintf(stderr, "bitonic-boids: a flock needs at least 2 boids\n");
        return false;
    }
    uint32_t groups_x, groups_y;
    if (!gpu_split_groups(g, params->count, tuning->workgroup_size, tuning->max_groups_x, &groups_x, &groups_y)) {
        fprintf(stderr, "bitonic-boids: %u boids need more workgroups than this device dispatches\n", params->count);
        return false;
    }
    place_world(out);
    if (!create_buffers(out) || !create_kernels(out) || !create_sorter(out))
        return false;
    flock_boid *start = malloc((size_t)params->count * sizeof *start);
    if (!start) {
        fprintf(stderr, "bitonic-boids: out of host memory for the start state\n");
        return false;
    }
    flock_seed_state(params, start);
    bool ok = flock_write_state(out, start, 0);
    free(start);
    return ok;
}

void flock_destroy(flock *f)
{
    if (!f->g)
        return;
    gpu *g = f->g;
    if (g->device)
        vkDeviceWaitIdle(g->device);
    if (f->sorter)
        bitonic_vulkan_sorter_destroy(f->sorter);
    gpu_kernel *kernels[] = {&f->kernels.move_brute, &f->kernels.station_keys, &f->kernels.station_rank,
                             &f->kernels.move_station, &f->kernels.grid_keys, &f->kernels.grid_cells,
                             &f->kernels.move_grid};
    for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; ++i)
        gpu_kernel_destroy(g, kernels[i]);
    gpu_buffer *buffers[] = {&f->state[0], &f->state[1], &f->sort_keys, &f->sort_values, &f->sort_scratch,
                             &f->rank_of, &f->ordered_state, &f->cell_runs, &f->debug_fingerprints};
    for (size_t i = 0; i < sizeof buffers / sizeof buffers[0]; ++i)
        gpu_buffer_destroy(g, buffers[i]);
    memset(f, 0, sizeof *f);
}

static flock_push push_constants_for_step(const flock *f)
{
    const flock_params *p = &f->params;
    flock_push push = {
        .dt = p->dt, .radius = p->radius, .cell_size = f->cell_size, .count = p->count,
        .time = (float)f->step * p->dt, .speed = p->speed, .speed_variation = p->speed_variation,
        .rotation_rate = p->rotation_rate, .separation_weight = p->separation_weight,
        .alignment_weight = p->alignment_weight, .cohesion_weight = p->cohesion_weight,
        .target_weight = p->target_weight, .station_margin = STATION_MARGIN, .debug = f->debug ? 1u : 0u,
        .step = f->step,
    };
    flock_target_at(f, f->step, push.target);
    for (int k = 0; k < 3; ++k) {
        push.station[k] = f->station[k];
        push.grid_origin[k] = f->grid_origin[k];
        push.grid_dims[k] = f->grid_dims[k];
    }
    return push;
}

static void write_timestamp(VkCommandBuffer commands, VkQueryPool pool, uint32_t query)
{
    if (pool != VK_NULL_HANDLE)
        vkCmdWriteTimestamp(commands, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, pool, query);
}

/* Sorts (key, boid index) pairs with the library, on our device, in our command
 * buffer, between our own barriers (the contract of bitonic_vulkan_record_sort). */
static bool record_sort(flock *f, VkCommandBuffer commands, VkQueryPool timestamps, uint32_t first_query)
{
    gpu_compute_barrier(commands);
    write_timestamp(commands, timestamps, first_query + FLOCK_QUERY_SORT_BEGIN);
    bitonic_vulkan_sort_info sort = {.keys = f->sort_keys.buffer, .values = f->sort_values.buffer,
                                     .count = f->params.count, .order = BITONIC_ORDER_ASCENDING,
                                     .scratch = f->sort_scratch.buffer};
    bitonic_status status = bitonic_vulkan_record_sort(f->sorter, commands, &sort);
    if (status != BITONIC_SUCCESS) {
        fprintf(stderr, "bitonic-boids: recording the sort: %s\n", bitonic_status_string(status));
        return false;
    }
    gpu_compute_barrier(commands);
    write_timestamp(commands, timestamps, first_query + FLOCK_QUERY_SORT_END);
    return true;
}

bool flock_record_step(flock *f, VkCommandBuffer commands, VkQueryPool timestamps, uint32_t first_query)
{
    gpu *g = f->g;
    flock_push push = push_constants_for_step(f);
    uint32_t n = f->params.count, max_x = f->tuning.max_groups_x;
    VkBuffer state_in = f->state[f->current].buffer, state_out = f->state[f->current ^ 1u].buffer;
    VkBuffer keys = f->sort_keys.buffer, ids = f->sort_values.buffer, ordered = f->ordered_state.buffer;
    VkBuffer debug = f->debug_fingerprints.buffer;
    const flock_kernels *k = &f->kernels;

    gpu_compute_barrier(commands);
    write_timestamp(commands, timestamps, first_query + FLOCK_QUERY_STEP_BEGIN);
    switch (f->search) {
    case FLOCK_SEARCH_BRUTE: {
        write_timestamp(commands, timestamps, first_query + FLOCK_QUERY_SORT_BEGIN);
        write_timestamp(commands, timestamps, first_query + FLOCK_QUERY_SORT_END);
        VkBuffer bindings[] = {state_in, state_out, debug};
        gpu_kernel_dispatch(g, commands, &k->move_brute, bindings, &push, sizeof push, n, max_x);
        break;
    }
    case FLOCK_SEARCH_STATION: {
        VkBuffer key_bindings[] = {state_in, keys, ids};
        gpu_kernel_dispatch(g, commands, &k->station_keys, key_bindings, &push, sizeof push, n, max_x);
        if (!record_sort(f, commands, timestamps, first_query))
            return false;
        VkBuffer rank_bindings[] = {state_in, ids, f->rank_of.buffer, ordered};
        gpu_kernel_dispatch(g, commands, &k->station_rank, rank_bindings, &push, sizeof push, n, max_x);
        gpu_compute_barrier(commands);
        VkBuffer move_bindings[] = {state_in, state_out, debug, keys, ids, f->rank_of.buffer, ordered};
        gpu_kernel_dispatch(g, commands, &k->move_station, move_bindings, &push, sizeof push, n, max_x);
        break;
    }
    case FLOCK_SEARCH_GRID: {
        vkCmdFillBuffer(commands, f->cell_runs.buffer, 0, VK_WHOLE_SIZE, 0u);  /* every cell an empty run */
        VkBuffer key_bindings[] = {state_in, keys, ids};
        gpu_kernel_dispatch(g, commands, &k->grid_keys, key_bindings, &push, sizeof push, n, max_x);
        if (!record_sort(f, commands, timestamps, first_query))
            return false;
        VkBuffer cell_bindings[] = {state_in, keys, ids, f->cell_runs.buffer, ordered};
        gpu_kernel_dispatch(g, commands, &k->grid_cells, cell_bindings, &push, sizeof push, n, max_x);
        gpu_compute_barrier(commands);
        VkBuffer move_bindings[] = {state_out, debug, keys, ids, f->cell_runs.buffer, ordered};
        gpu_kernel_dispatch(g, commands, &k->move_grid, move_bindings, &push, sizeof push, n, max_x);
        break;
    }
    default:
        return false;
    }
    write_timestamp(commands, timestamps, first_query + FLOCK_QUERY_STEP_END);
    f->current ^= 1u;
    f->step += 1u;
    return true;
}

bool flock_read_state(flock *f, flock_boid *out)
{
    return gpu_download(f->g, &f->state[f->current], (VkDeviceSize)f->params.count * sizeof *out, out);
}

bool flock_write_state(flock *f, const flock_boid *boids, uint32_t step)
{
    f->step = step;
    return gpu_upload(f->g, boids, (VkDeviceSize)f->params.count * sizeof *boids, &f->state[f->current]);
}

bool flock_read_fingerprints(flock *f, uint32_t *out_uvec4s)
{
    if (!f->debug)
        return false;
    return gpu_download(f->g, &f->debug_fingerprints, (VkDeviceSize)f->params.count * 16u, out_uvec4s);
}

/* --- order metrics ------------------------------------------------------ */

typedef struct keyed_index {
    uint64_t cell;
    uint32_t index;
} keyed_index;

static int compare_keyed(const void *a, const void *b)
{
    const keyed_index *x = a, *y = b;
    if (x->cell != y->cell)
        return x->cell < y->cell ? -1 : 1;
    return x->index < y->index ? -1 : (x->index > y->index);
}

/* 21 bits per axis, offset so that negative cells sort correctly. */
static uint64_t pack_cell(int64_t x, int64_t y, int64_t z)
{
    const int64_t bias = 1 << 20;
    return ((uint64_t)(x + bias) << 42) | ((uint64_t)(y + bias) << 21) | (uint64_t)(z + bias);
}

static int64_t cell_coordinate(float v, float size)
{
    double c = floor((double)v / size);
    return c < -1048000.0 ? -1048000 : (c > 1048000.0 ? 1048000 : (int64_t)c);
}

/* First entry with cell >= wanted. */
static size_t lower_bound(const keyed_index *sorted, size_t count, uint64_t wanted)
{
    size_t low = 0, high = count;
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        if (sorted[middle].cell < wanted)
            low = middle + 1;
        else
            high = middle;
    }
    return low;
}

static double nearest_distance(const flock_boid *boids, const keyed_index *sorted, uint32_t count, uint32_t self,
                               float size)
{
    const float *p = boids[self].position;
    int64_t cx = cell_coordinate(p[0], size), cy = cell_coordinate(p[1], size), cz = cell_coordinate(p[2], size);
    double best = INFINITY;
    /* Shell by shell: after shell k every boid closer than k cells is seen. */
    for (int64_t k = 0; k < 64 && !(best <= (double)k * size); ++k)
        for (int64_t dz = -k; dz <= k; ++dz)
            for (int64_t dy = -k; dy <= k; ++dy)
                for (int64_t dx = -k; dx <= k; ++dx) {
                    if (llabs(dx) != k && llabs(dy) != k && llabs(dz) != k)
                        continue;
                    uint64_t cell = pack_cell(cx + dx, cy + dy, cz + dz);
                    for (size_t i = lower_bound(sorted, count, cell); i < count && sorted[i].cell == cell; ++i) {
                        uint32_t other = sorted[i].index;
                        if (other == self)
                            continue;
                        double ddx = (double)boids[other].position[0] - p[0];
                        double ddy = (double)boids[other].position[1] - p[1];
                        double ddz = (double)boids[other].position[2] - p[2];
                        double d = sqrt(ddx * ddx + ddy * ddy + ddz * ddz);
                        best = d < best ? d : best;
                    }
                }
    return best;
}

flock_metrics flock_measure(const flock_boid *boids, uint32_t count, uint32_t max_sampled)
{
    flock_metrics m = {0};
    double sum[3] = {0, 0, 0};
    float low[3] = {INFINITY, INFINITY, INFINITY}, high[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (uint32_t i = 0; i < count; ++i)
        for (int k = 0; k < 3; ++k) {
            sum[k] += boids[i].heading[k];
            low[k] = boids[i].position[k] < low[k] ? boids[i].position[k] : low[k];
            high[k] = boids[i].position[k] > high[k] ? boids[i].position[k] : high[k];
        }
    m.polarisation = count ? sqrt(sum[0] * sum[0] + sum[1] * sum[1] + sum[2] * sum[2]) / count : 0.0;
    if (count < 2)
        return m;
    /* Cells holding about one boid each on average over the bounding box. */
    double volume = ((double)high[0] - low[0] + 1e-3) * ((double)high[1] - low[1] + 1e-3) * ((double)high[2] - low[2] + 1e-3);
    float size = (float)cbrt(volume / count);
    size = size > 1e-3f ? size : 1e-3f;
    keyed_index *sorted = malloc((size_t)count * sizeof *sorted);
    if (!sorted)
        return m;
    for (uint32_t i = 0; i < count; ++i)
        sorted[i] = (keyed_index){pack_cell(cell_coordinate(boids[i].position[0], size),
                                            cell_coordinate(boids[i].position[1], size),
                                            cell_coordinate(boids[i].position[2], size)),
                                  i};
    qsort(sorted, count, sizeof *sorted, compare_keyed);
    uint32_t stride = max_sampled && count > max_sampled ? (count + max_sampled - 1) / max_sampled : 1u;
    double total = 0.0;
    uint32_t sampled = 0;
    for (uint32_t i = 0; i < count; i += stride) {
        double d = nearest_distance(boids, sorted, count, i, size);
        if (isfinite(d)) {
            total += d;
            ++sampled;
        }
    }
    free(sorted);
    m.sampled = sampled;
    m.mean_nearest_distance = sampled ? total / sampled : 0.0;
    return m;
}
