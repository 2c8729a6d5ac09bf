/* picture_output.h: where rendered frames go: PNG files (libpng when built
 * with it, else a small stored-deflate writer) and an MP4 through an ffmpeg
 * child process fed raw RGBA frames on a pipe. */
#ifndef BOIDS_PICTURE_OUTPUT_H
#define BOIDS_PICTURE_OUTPUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* Writes an RGBA8 image (rows top to bottom) as an RGB PNG. Prints why on failure. */
bool png_write_rgba(const char *path, const uint8_t *rgba, uint32_t width, uint32_t height);

typedef struct video_writer {
    FILE *pipe;
    uint32_t width, height;
} video_writer;

/* True when an ffmpeg executable is on the PATH. */
bool video_ffmpeg_available(void);
bool video_open(video_writer *v, const char *path, uint32_t width, uint32_t height, double frames_per_second);
bool video_write_frame(video_writer *v, const uint8_t *rgba);
/* Waits for ffmpeg; false if it failed. */
bool video_close(video_writer *v);

#endif /* BOIDS_PICTURE_OUTPUT_H */
