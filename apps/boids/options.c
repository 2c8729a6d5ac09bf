/* options.c: parses the command line (see usage() for the options). */
#include "options.h"

/* Brute force above this many boids needs --force: 2^20 boids are 10^12 pair
 * tests a step, seconds on a fast GPU; 16M would be about an hour. */
#define BOIDS_BRUTE_COUNT_LIMIT (1u << 20)

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *out)
{
    fputs("usage: bitonic-boids [options]\n"
          "  --count N          boids (default 4096)\n"
          "  --steps S          simulation steps (default 600; bench 200; check 12)\n"
          "  --search KIND      neighbour search: brute | station | grid (default grid)\n"
          "  --seed N           random start (default 42)\n"
          "  --device NAME      first Vulkan device whose name contains NAME\n"
          "                     (default: a discrete or integrated GPU, else any, lavapipe too)\n"
          "  --validation       Khronos validation layer on; any message makes the run fail\n"
          "  --frames DIR       write a PNG per frame into DIR\n"
          "  --video FILE.mp4   encode the frames with ffmpeg\n"
          "  --window           show the flock in a window (GLFW builds only)\n"
          "  --size WxH         picture size (default 1280x720)\n"
          "  --frame-every K    steps per picture (default 1)\n"
          "  --bench            time steps/s and the GPU time of the sort vs the whole step\n"
          "  --warmup W         bench: untimed steps first (default 10)\n"
          "  --time-budget S    bench: stop after S seconds of timed steps (default 30)\n"
          "  --force            run brute force above 2^20 boids (hours per step at 16M)\n"
          "  --check            prove grid and station find exactly brute's neighbours\n"
          "  --max-groups-x K   split dispatches into rows of K workgroups (tests 2-D dispatch)\n"
          "  --quiet            no progress bar\n",
          out);
}

static bool parse_u64(const char *text, uint64_t max, uint64_t *out)
{
    if (!text || !*text)
        return false;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 0);
    if (errno || *end || text[0] == '-' || v > max)
        return false;
    *out = v;
    return true;
}

static bool parse_u32(const char *text, uint32_t *out)
{
    uint64_t v;
    if (!parse_u64(text, UINT32_MAX, &v))
        return false;
    *out = (uint32_t)v;
    return true;
}

static bool parse_size(const char *text, uint32_t *width, uint32_t *height)
{
    unsigned w, h;
    char tail;
    if (!text || sscanf(text, "%ux%u%c", &w, &h, &tail) != 2 || w < 16 || h < 16 || w > 8192 || h > 8192)
        return false;
    *width = w;
    *height = h;
    return true;
}

int boids_options_parse(int argc, char **argv, boids_options *o)
{
    *o = (boids_options){.count = 4096, .steps = 600, .search = FLOCK_SEARCH_GRID, .seed = 42, .width = 1280,
                         .height = 720, .frame_every = 1, .warmup_steps = 10,
                         .time_budget_seconds = 30.0};
    for (int i = 1; i < argc; ++i) {
        const char *arg = argv[i];
        const char *value = i + 1 < argc ? argv[i + 1] : NULL;
        bool ok = true, takes_value = true;
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            usage(stdout);
            return 1;
        } else if (strcmp(arg, "--count") == 0) {
            ok = parse_u32(value, &o->count) && o->count >= 2;
        } else if (strcmp(arg, "--steps") == 0) {
            ok = parse_u32(value, &o->steps);
            o->steps_given = true;
        } else if (strcmp(arg, "--search") == 0) {
            ok = value && flock_search_parse(value, &o->search);
        } else if (strcmp(arg, "--seed") == 0) {
            ok = parse_u64(value, UINT64_MAX, &o->seed);
        } else if (strcmp(arg, "--device") == 0) {
            o->device = value;
            ok = value != NULL;
        } else if (strcmp(arg, "--frames") == 0) {
            o->frames_dir = value;
            ok = value != NULL;
        } else if (strcmp(arg, "--video") == 0) {
            o->video_path = value;
            ok = value != NULL;
        } else if (strcmp(arg, "--size") == 0) {
            ok = parse_size(value, &o->width, &o->height);
        } else if (strcmp(arg, "--frame-every") == 0) {
            ok = parse_u32(value, &o->frame_every) && o->frame_every >= 1;
        } else if (strcmp(arg, "--max-groups-x") == 0) {
            ok = parse_u32(value, &o->max_groups_x) && o->max_groups_x >= 1;
        } else if (strcmp(arg, "--warmup") == 0) {
            ok = parse_u32(value, &o->warmup_steps);
        } else if (strcmp(arg, "--time-budget") == 0) {
            uint32_t seconds;
            ok = parse_u32(value, &seconds) && seconds >= 1;
            o->time_budget_seconds = seconds;
        } else {
            takes_value = false;
            if (strcmp(arg, "--validation") == 0)
                o->validation = true;
            else if (strcmp(arg, "--window") == 0)
                o->window = true;
            else if (strcmp(arg, "--bench") == 0)
                o->bench = true;
            else if (strcmp(arg, "--check") == 0)
                o->check = true;
            else if (strcmp(arg, "--quiet") == 0)
                o->quiet = true;
            else if (strcmp(arg, "--force") == 0)
                o->force = true;
            else {
                fprintf(stderr, "bitonic-boids: unknown option %s\n", arg);
                usage(stderr);
                return -1;
            }
        }
        if (!ok) {
            fprintf(stderr, "bitonic-boids: bad or missing value for %s%s%s\n", arg, value ? ": " : "",
                    value ? value : "");
            return -1;
        }
        if (takes_value)
            ++i;
    }
    if (o->search == FLOCK_SEARCH_BRUTE && o->count > BOIDS_BRUTE_COUNT_LIMIT && !o->force) {
        fprintf(stderr, "bitonic-boids: brute force compares all %u x %u pairs each step, minutes to hours per step\n"
                        "  at this count even on a fast GPU; use --search grid or station, or --force\n",
                o->count, o->count);
        return -1;
    }
    if (!o->steps_given)
        o->steps = o->check ? 12 : (o->bench ? 200 : 600);
    return 0;
}
