/* options.h: the command line of bitonic-boids, parsed into one struct. */
#ifndef BOIDS_OPTIONS_H
#define BOIDS_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>

#include "flock.h"

typedef struct boids_options {
    uint32_t count;
    uint32_t steps;
    bool steps_given;
    flock_search search;
    uint64_t seed;
    const char *device;          /* substring of the device name; NULL: automatic */
    bool validation;
    const char *frames_dir;      /* --frames: PNG per frame */
    const char *video_path;      /* --video: MP4 through ffmpeg */
    bool window;
    bool bench;
    bool check;
    uint32_t width, height;
    uint32_t frame_every;        /* steps per rendered frame */
    uint32_t max_groups_x;       /* 0: the device's limit */
    uint32_t warmup_steps;       /* bench */
    double time_budget_seconds;  /* bench: stop timing after this long (at least one batch) */
    bool force;                  /* allow brute force at counts where one step takes minutes */
    bool quiet;                  /* no progress bar */
} boids_options;

/* Returns 0 to run, 1 when --help was printed, -1 on a bad command line (printed). */
int boids_options_parse(int argc, char **argv, boids_options *out);

#endif /* BOIDS_OPTIONS_H */
