/* main.c: bitonic-boids, a flock of boids on the GPU whose neighbour search
 * sorts with the bitonic library on the app's own Vulkan device. Parses the
 * command line, opens the device and runs one mode: --check (exactness proof),
 * --bench (steps/s and sort time), --window, or a plain run that can write
 * PNG frames and an MP4. With --validation any validation message fails the run. */
#include <stdio.h>
#include <string.h>

#include "boids_params.h"
#include "modes.h"

int main(int argc, char **argv)
{
    boids_options options;
    int parsed = boids_options_parse(argc, argv, &options);
    if (parsed != 0)
        return parsed > 0 ? 0 : 2;
    if (options.window)
        return boids_run_window(&options);

    gpu g;
    gpu_desc desc = {.device_name = options.device, .validation = options.validation};
    if (!gpu_create(&desc, &g)) {
        gpu_destroy(&g);
        return 1;
    }
    flock_tuning tuning = boids_tuning_for(&g, &options);
    printf("device: %s (subgroup %u, workgroup %u, brute tile %u, max groups per row %u)\n", g.properties.deviceName,
           g.subgroup_size, tuning.workgroup_size, tuning.brute_workgroup_size, tuning.max_groups_x);
    fflush(stdout);
    int status;
    if (options.check)
        status = boids_run_check(&g, &options);
    else if (options.bench)
        status = boids_run_bench(&g, &options);
    else
        status = boids_run_pictures(&g, &options);
    uint64_t messages = g.validation_messages;
    gpu_destroy(&g);
    messages = g.validation_messages > messages ? g.validation_messages : messages;
    if (options.validation) {
        printf("validation: %llu messages\n", (unsigned long long)messages);
        if (messages > 0)
            status = status ? status : 1;
    }
    return status;
}
