/* bench.c: how fast the flock steps. Steps are recorded in batches into two
 * command buffers that alternate (the CPU records one batch while the GPU runs
 * the other), with timestamps around each step and around its sort, so the
 * summary separates the sort's GPU time from the whole step's. Steps per
 * second is wall-clock time over the timed steps, submission included. A
 * time budget ends the timed part early, so large slow runs still report. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "boids_params.h"
#include "modes.h"

#define STEPS_PER_BATCH 8u
#define SLOTS 2u

typedef struct bench_slot {
    VkCommandBuffer commands;
    VkFence fence;
    uint32_t steps;            /* in the batch now in flight; 0 when idle */
    bool timed;
} bench_slot;

typedef struct gpu_totals {
    double step_ms, sort_ms;
    uint32_t steps;
} gpu_totals;

static double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static bool collect(gpu *g, VkQueryPool pool, uint32_t slot_index, bench_slot *slot, gpu_totals *totals)
{
    if (slot->steps == 0)
        return true;
    if (!gpu_check(vkWaitForFences(g->device, 1, &slot->fence, VK_TRUE, UINT64_MAX), "vkWaitForFences"))
        return false;
    if (pool != VK_NULL_HANDLE && slot->timed) {
        uint64_t stamps[STEPS_PER_BATCH * FLOCK_QUERIES_PER_STEP];
        uint32_t first = slot_index * STEPS_PER_BATCH * FLOCK_QUERIES_PER_STEP;
        uint32_t count = slot->steps * FLOCK_QUERIES_PER_STEP;
        if (!gpu_check(vkGetQueryPoolResults(g->device, pool, first, count, sizeof stamps, stamps, sizeof stamps[0],
                                             VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT),
                       "vkGetQueryPoolResults"))
            return false;
        uint64_t mask = g->timestamp_valid_bits >= 64 ? ~0ull : (1ull << g->timestamp_valid_bits) - 1u;
        double period_ms = g->properties.limits.timestampPeriod * 1e-6;
        for (uint32_t s = 0; s < slot->steps; ++s) {
            const uint64_t *q = stamps + s * FLOCK_QUERIES_PER_STEP;
            totals->step_ms += (double)((q[FLOCK_QUERY_STEP_END] - q[FLOCK_QUERY_STEP_BEGIN]) & mask) * period_ms;
            totals->sort_ms += (double)((q[FLOCK_QUERY_SORT_END] - q[FLOCK_QUERY_SORT_BEGIN]) & mask) * period_ms;
            totals->steps += 1;
        }
    }
    slot->steps = 0;
    return true;
}

static bool submit_batch(gpu *g, flock *f, VkQueryPool pool, uint32_t slot_index, bench_slot *slot, uint32_t steps,
                         bool timed)
{
    if (!gpu_check(vkResetFences(g->device, 1, &slot->fence), "vkResetFences") ||
        !gpu_check(vkResetCommandBuffer(slot->commands, 0), "vkResetCommandBuffer"))
        return false;
    VkCommandBufferBeginInfo begin = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                      .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
    if (!gpu_check(vkBeginCommandBuffer(slot->commands, &begin), "vkBeginCommandBuffer"))
        return false;
    uint32_t first = slot_index * STEPS_PER_BATCH * FLOCK_QUERIES_PER_STEP;
    VkQueryPool used = timed ? pool : VK_NULL_HANDLE;
    if (used != VK_NULL_HANDLE)
        vkCmdResetQueryPool(slot->commands, used, first, steps * FLOCK_QUERIES_PER_STEP);
    for (uint32_t s = 0; s < steps; ++s)
        if (!flock_record_step(f, slot->commands, used, first + s * FLOCK_QUERIES_PER_STEP))
            return false;
    gpu_compute_barrier(slot->commands);
    VkSubmitInfo submit = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1,
                           .pCommandBuffers = &slot->commands};
    if (!gpu_check(vkEndCommandBuffer(slot->commands), "vkEndCommandBuffer") ||
        !gpu_check(vkQueueSubmit(g->queue, 1, &submit, slot->fence), "vkQueueSubmit"))
        return false;
    slot->steps = steps;
    slot->timed = timed;
    return true;
}

/* Runs up to `steps` steps in batches of batch_steps through the two slots,
 * stopping early (after at least one batch) once seconds_budget is spent, so
 * a slow search at a large count still reports instead of running for hours.
 * Timed batches add to totals; returns the steps run, or UINT32_MAX on failure. */
static uint32_t run_steps(gpu *g, flock *f, VkQueryPool pool, bench_slot *slots, uint32_t *next_slot, uint32_t steps,
                          uint32_t batch_steps, double seconds_budget, bool timed, gpu_totals *totals)
{
    double start = now_seconds();
    uint32_t done = 0;
    while (done < steps && (done == 0 || now_seconds() - start < seconds_budget)) {
        uint32_t batch = steps - done < batch_steps ? steps - done : batch_steps;
        uint32_t s = *next_slot;
        if (!collect(g, pool, s, &slots[s], totals) || !submit_batch(g, f, pool, s, &slots[s], batch, timed))
            return UINT32_MAX;
        *next_slot = (s + 1u) % SLOTS;
        done += batch;
    }
    for (uint32_t s = 0; s < SLOTS; ++s)
        if (!collect(g, pool, s, &slots[s], totals))
            return UINT32_MAX;
    return done;
}

/* Batch size: enough steps per submission to keep the GPU busy between
 * submissions (about 50 ms of work), from the time of one untimed step. */
static uint32_t batch_size_for(double seconds_per_step)
{
    if (seconds_per_step <= 0.0)
        return STEPS_PER_BATCH;
    double steps = 0.05 / seconds_per_step;
    return steps >= STEPS_PER_BATCH ? STEPS_PER_BATCH : (steps < 1.0 ? 1u : (uint32_t)steps);
}

int boids_run_bench(gpu *g, const boids_options *o)
{
    flock_params params = boids_params_for(o);
    flock_tuning tuning = boids_tuning_for(g, o);
    flock f;
    bench_slot slots[SLOTS];
    memset(slots, 0, sizeof slots);
    VkQueryPool pool = VK_NULL_HANDLE;
    bool ok = flock_create(g, &params, o->search, &tuning, false, &f);
    VkCommandBuffer buffers[SLOTS];
    VkCommandBufferAllocateInfo allocate = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                            .commandPool = g->command_pool,
                                            .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY, .commandBufferCount = SLOTS};
    ok = ok && gpu_check(vkAllocateCommandBuffers(g->device, &allocate, buffers), "vkAllocateCommandBuffers");
    for (uint32_t s = 0; ok && s < SLOTS; ++s) {
        slots[s].commands = buffers[s];
        VkFenceCreateInfo fence = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
        ok = gpu_check(vkCreateFence(g->device, &fence, NULL, &slots[s].fence), "vkCreateFence");
    }
    bool timestamps = g->timestamp_valid_bits > 0 && g->properties.limits.timestampPeriod > 0.0f;
    if (ok && timestamps) {
        VkQueryPoolCreateInfo info = {.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
                                      .queryType = VK_QUERY_TYPE_TIMESTAMP,
                                      .queryCount = SLOTS * STEPS_PER_BATCH * FLOCK_QUERIES_PER_STEP};
        ok = gpu_check(vkCreateQueryPool(g->device, &info, NULL, &pool), "vkCreateQueryPool");
    }
    gpu_totals totals = {0};
    uint32_t next_slot = 0, timed_steps = 0;
    /* One lone step first (also the first of the warm-up): it sizes the batches. */
    double first = now_seconds();
    ok = ok && run_steps(g, &f, pool, slots, &next_slot, 1, 1, 0.0, false, &totals) != UINT32_MAX;
    uint32_t batch = batch_size_for(now_seconds() - first);
    if (ok && o->warmup_steps > 1)
        ok = run_steps(g, &f, pool, slots, &next_slot, o->warmup_steps - 1u, batch, 0.25 * o->time_budget_seconds,
                       false, &totals) != UINT32_MAX;
    double start = now_seconds();
    if (ok) {
        timed_steps = run_steps(g, &f, pool, slots, &next_slot, o->steps, batch, o->time_budget_seconds, true, &totals);
        ok = timed_steps != UINT32_MAX;
    }
    double seconds = now_seconds() - start;

    flock_boid *state = ok ? malloc((size_t)params.count * sizeof *state) : NULL;
    if (ok && state && flock_read_state(&f, state)) {
        flock_metrics m = flock_measure(state, params.count, 100000);
        double steps_per_second = seconds > 0.0 ? timed_steps / seconds : 0.0;
        double step_ms = totals.steps ? totals.step_ms / totals.steps : 0.0;
        /* Brute force sorts nothing; its two sort stamps only measure the timer. */
        double sort_ms = totals.steps && o->search != FLOCK_SEARCH_BRUTE ? totals.sort_ms / totals.steps : 0.0;
        printf("bench device=\"%s\" search=%s count=%u steps=%u steps_per_s=%.2f wall_ms_per_step=%.3f ",
               g->properties.deviceName, flock_search_name(o->search), params.count, timed_steps, steps_per_second,
               timed_steps ? 1e3 * seconds / timed_steps : 0.0);
        if (timestamps)
            printf("gpu_step_ms=%.3f gpu_sort_ms=%.3f sort_share=%.1f%% ", step_ms, sort_ms,
                   step_ms > 0.0 ? 100.0 * sort_ms / step_ms : 0.0);
        else
            printf("gpu_step_ms=n/a gpu_sort_ms=n/a ");
        printf("polarisation=%.4f mean_nn=%.4f\n", m.polarisation, m.mean_nearest_distance);
    } else {
        ok = false;
    }
    free(state);
    if (g->device)
        vkDeviceWaitIdle(g->device);
    if (pool)
        vkDestroyQueryPool(g->device, pool, NULL);
    for (uint32_t s = 0; s < SLOTS; ++s)
        if (slots[s].fence)
            vkDestroyFence(g->device, slots[s].fence, NULL);
    flock_destroy(&f);
    return ok ? 0 : 1;
}
