/* picture_output.c: PNG and video output (see picture_output.h), and the
 * simulate-and-render mode that uses them. */
#define _POSIX_C_SOURCE 200809L
#include "picture_output.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#ifdef BOIDS_HAVE_LIBPNG
#include <png.h>
#endif

#include "boids_params.h"
#include "modes.h"
#include "progress.h"
#include "render.h"

#ifdef BOIDS_HAVE_LIBPNG
bool png_write_rgba(const char *path, const uint8_t *rgba, uint32_t width, uint32_t height)
{
    FILE *file = fopen(path, "wb");
    if (!file) {
        fprintf(stderr, "bitonic-boids: cannot write %s: %s\n", path, strerror(errno));
        return false;
    }
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    uint8_t *row = malloc((size_t)width * 3u);
    bool ok = png && info && row;
    if (ok && setjmp(png_jmpbuf(png)) == 0) {
        png_init_io(png, file);
        png_set_IHDR(png, info, width, height, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
                     PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
        png_write_info(png, info);
        for (uint32_t y = 0; y < height; ++y) {
            const uint8_t *source = rgba + (size_t)y * width * 4u;
            for (uint32_t x = 0; x < width; ++x)
                memcpy(row + 3u * x, source + 4u * x, 3);
            png_write_row(png, row);
        }
        png_write_end(png, NULL);
    } else {
        ok = false;
    }
    png_destroy_write_struct(png ? &png : NULL, info ? &info : NULL);
    free(row);
    ok = fclose(file) == 0 && ok;
    if (!ok)
        fprintf(stderr, "bitonic-boids: writing %s failed\n", path);
    return ok;
}
#else
/* Without libpng: PNG with "stored" (uncompressed) deflate blocks, which any
 * PNG reader accepts; files are big but need no zlib. */
static uint32_t crc32_of(uint32_t crc, const uint8_t *data, size_t length)
{
    crc = ~crc;
    for (size_t i = 0; i < length; ++i) {
        crc ^= data[i];
        for (int k = 0; k < 8; ++k)
            crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
    }
    return ~crc;
}

static void put_u32_be(uint8_t *out, uint32_t v)
{
    out[0] = (uint8_t)(v >> 24);
    out[1] = (uint8_t)(v >> 16);
    out[2] = (uint8_t)(v >> 8);
    out[3] = (uint8_t)v;
}

static bool write_chunk(FILE *file, const char type[4], const uint8_t *data, uint32_t length)
{
    uint8_t header[8];
    put_u32_be(header, length);
    memcpy(header + 4, type, 4);
    uint32_t crc = crc32_of(crc32_of(0, (const uint8_t *)type, 4), data, length);
    uint8_t tail[4];
    put_u32_be(tail, crc);
    return fwrite(header, 1, 8, file) == 8 && (length == 0 || fwrite(data, 1, length, file) == length) &&
           fwrite(tail, 1, 4, file) == 4;
}

bool png_write_rgba(const char *path, const uint8_t *rgba, uint32_t width, uint32_t height)
{
    size_t row_bytes = (size_t)width * 3u + 1u;  /* filter byte 0, then RGB */
    size_t raw_bytes = row_bytes * height;
    size_t blocks = (raw_bytes + 65534u) / 65535u;
    size_t zlib_bytes = 2u + raw_bytes + 5u * blocks + 4u;
    uint8_t *raw = malloc(raw_bytes), *zlib = malloc(zlib_bytes);
    FILE *file = raw && zlib ? fopen(path, "wb") : NULL;
    bool ok = file != NULL;
    if (ok) {
        for (uint32_t y = 0; y < height; ++y) {
            uint8_t *row = raw + y * row_bytes;
            row[0] = 0;
            for (uint32_t x = 0; x < width; ++x)
                memcpy(row + 1u + 3u * x, rgba + ((size_t)y * width + x) * 4u, 3);
        }
        uint8_t *out = zlib;
        *out++ = 0x78;
        *out++ = 0x01;
        uint32_t a = 1, b = 0;
        for (size_t offset = 0; offset < raw_bytes;) {
            size_t length = raw_bytes - offset < 65535u ? raw_bytes - offset : 65535u;
            *out++ = offset + length == raw_bytes ? 1u : 0u;
            out[0] = (uint8_t)length;
            out[1] = (uint8_t)(length >> 8);
            out[2] = (uint8_t)~length;
            out[3] = (uint8_t)(~length >> 8);
            out += 4;
            memcpy(out, raw + offset, length);
            for (size_t i = 0; i < length; ++i) {
                a = (a + raw[offset + i]) % 65521u;
                b = (b + a) % 65521u;
            }
            out += length;
            offset += length;
        }
        put_u32_be(out, (b << 16) | a);
        out += 4;
        static const uint8_t signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
        uint8_t header[13];
        put_u32_be(header, width);
        put_u32_be(header + 4, height);
        header[8] = 8;   /* bit depth */
        header[9] = 2;   /* RGB */
        header[10] = header[11] = header[12] = 0;
        ok = fwrite(signature, 1, 8, file) == 8 && write_chunk(file, "IHDR", header, 13) &&
             write_chunk(file, "IDAT", zlib, (uint32_t)(out - zlib)) && write_chunk(file, "IEND", NULL, 0);
        ok = fclose(file) == 0 && ok;
    }
    free(raw);
    free(zlib);
    if (!ok)
        fprintf(stderr, "bitonic-boids: writing %s failed\n", path);
    return ok;
}
#endif

bool video_ffmpeg_available(void)
{
    return system("command -v ffmpeg >/dev/null 2>&1") == 0;
}

bool video_open(video_writer *v, const char *path, uint32_t width, uint32_t height, double frames_per_second)
{
    memset(v, 0, sizeof *v);
    /* The path goes into a shell command: single-quote it, escaping its own quotes. */
    char quoted[2048];
    size_t used = 0;
    quoted[used++] = '\'';
    for (const char *c = path; *c && used + 5 < sizeof quoted; ++c) {
        if (*c == '\'') {
            memcpy(quoted + used, "'\\''", 4);
            used += 4;
        } else {
            quoted[used++] = *c;
        }
    }
    quoted[used++] = '\'';
    quoted[used] = '\0';
    char command[4096];
    snprintf(command, sizeof command,
             "ffmpeg -hide_banner -loglevel error -y -f rawvideo -pix_fmt rgba -s %ux%u -r %.3f -i - "
             "-pix_fmt yuv420p -movflags +faststart %s",
             width, height, frames_per_second, quoted);
    /* A dying ffmpeg must make fwrite fail, not kill us with SIGPIPE. */
    signal(SIGPIPE, SIG_IGN);
    v->pipe = popen(command, "w");
    v->width = width;
    v->height = height;
    if (!v->pipe)
        fprintf(stderr, "bitonic-boids: could not start ffmpeg: %s\n", strerror(errno));
    return v->pipe != NULL;
}

bool video_write_frame(video_writer *v, const uint8_t *rgba)
{
    size_t bytes = (size_t)v->width * v->height * 4u;
    return v->pipe && fwrite(rgba, 1, bytes, v->pipe) == bytes;
}

bool video_close(video_writer *v)
{
    if (!v->pipe)
        return false;
    int status = pclose(v->pipe);
    v->pipe = NULL;
    if (status != 0)
        fprintf(stderr, "bitonic-boids: ffmpeg failed (status %d)\n", status);
    return status == 0;
}

static bool make_directory(const char *path)
{
    if (mkdir(path, 0777) == 0 || errno == EEXIST)
        return true;
    fprintf(stderr, "bitonic-boids: cannot create %s: %s\n", path, strerror(errno));
    return false;
}

/* Records `steps` steps, then (when r is given) the frame and its read-back, in
 * one submission, and waits for it. */
static bool run_frame(gpu *g, flock *f, renderer *r, uint32_t steps, float seconds_per_frame)
{
    VkCommandBuffer commands;
    if (!gpu_begin_one_shot(g, &commands))
        return false;
    bool recorded = true;
    for (uint32_t s = 0; s < steps && recorded; ++s)
        recorded = flock_record_step(f, commands, VK_NULL_HANDLE, 0);
    if (r) {
        renderer_record_frame(r, commands, f, seconds_per_frame);
        renderer_record_readback(r, commands);
    } else {
        gpu_compute_barrier(commands);
    }
    return gpu_end_one_shot(g, commands) && recorded;
}

int boids_run_pictures(gpu *g, const boids_options *o)
{
    bool rendering = o->frames_dir || o->video_path;
    if (o->video_path && !video_ffmpeg_available()) {
        fprintf(stderr, "bitonic-boids: --video needs ffmpeg on the PATH, and none was found.\n"
                        "  Install it (Debian/Ubuntu: apt-get install ffmpeg), or write PNG frames with --frames DIR\n"
                        "  and encode them later: ffmpeg -framerate 60 -i DIR/frame_%%05d.png -pix_fmt yuv420p out.mp4\n");
        return 1;
    }
    if (o->frames_dir && !make_directory(o->frames_dir))
        return 1;
    flock_params params = boids_params_for(o);
    flock_tuning tuning = boids_tuning_for(g, o);
    /* H.264 in yuv420p wants even sizes. */
    uint32_t width = o->video_path ? o->width & ~1u : o->width, height = o->video_path ? o->height & ~1u : o->height;
    flock f;
    renderer r;
    memset(&r, 0, sizeof r);
    video_writer video = {0};
    bool ok = flock_create(g, &params, o->search, &tuning, false, &f) &&
              (!rendering || renderer_create(g, width, height, &r));
    float seconds_per_frame = params.dt * (float)(rendering ? o->frame_every : 1u);
    if (ok && o->video_path)
        ok = video_open(&video, o->video_path, width, height, 1.0 / seconds_per_frame);

    uint32_t per_submit = rendering ? o->frame_every : 8u;
    uint32_t submits = o->steps / per_submit, leftover = o->steps % per_submit;
    progress bar;
    progress_start(&bar, rendering ? "frames" : "steps ", rendering ? submits : o->steps, o->quiet);
    double start = progress_now_seconds();
    for (uint32_t i = 0; ok && i < submits; ++i) {
        ok = run_frame(g, &f, rendering ? &r : NULL, per_submit, seconds_per_frame);
        const uint8_t *pixels = r.readback.mapped;
        if (ok && o->frames_dir) {
            char path[4096];
            snprintf(path, sizeof path, "%s/frame_%05u.png", o->frames_dir, i);
            ok = png_write_rgba(path, pixels, width, height);
        }
        if (ok && o->video_path && !video_write_frame(&video, pixels)) {
            fprintf(stderr, "bitonic-boids: ffmpeg stopped taking frames\n");
            ok = false;
        }
        progress_update(&bar, rendering ? i + 1u : (i + 1u) * per_submit);
    }
    if (ok && leftover)
        ok = run_frame(g, &f, NULL, leftover, seconds_per_frame);
    double seconds = progress_now_seconds() - start;
    progress_finish(&bar);
    if (video.pipe)
        ok = video_close(&video) && ok;

    flock_boid *state = ok ? malloc((size_t)params.count * sizeof *state) : NULL;
    if (ok && state && flock_read_state(&f, state)) {
        flock_metrics m = flock_measure(state, params.count, 100000);
        printf("run device=\"%s\" search=%s count=%u steps=%u frames=%u wall_s=%.2f steps_per_s=%.2f "
               "polarisation=%.4f mean_nn=%.4f\n",
               g->properties.deviceName, flock_search_name(o->search), params.count, o->steps,
               rendering ? submits : 0u, seconds, seconds > 0.0 ? o->steps / seconds : 0.0, m.polarisation,
               m.mean_nearest_distance);
        if (o->frames_dir)
            printf("frames written to %s/frame_00000.png ...\n", o->frames_dir);
        if (o->video_path)
            printf("video written to %s\n", o->video_path);
    } else {
        ok = false;
    }
    free(state);
    renderer_destroy(&r);
    flock_destroy(&f);
    return ok ? 0 : 1;
}
