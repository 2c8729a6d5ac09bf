/* progress.c: the progress bar (see progress.h). Redraws at most ten times a
 * second so a fast run does not spend its time printing. */
#define _POSIX_C_SOURCE 200809L
#include "progress.h"

#include <stdio.h>
#include <time.h>
#include <unistd.h>

#define BAR_WIDTH 32

double progress_now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

void progress_start(progress *p, const char *label, uint32_t total, bool quiet)
{
    p->label = label;
    p->total = total;
    p->start_seconds = progress_now_seconds();
    p->last_draw_seconds = 0.0;
    p->enabled = !quiet && isatty(fileno(stderr));
}

static void draw(const progress *p, uint32_t done, double now)
{
    double fraction = p->total ? (double)done / p->total : 1.0;
    int filled = (int)(fraction * BAR_WIDTH + 0.5);
    char bar[BAR_WIDTH + 1];
    for (int i = 0; i < BAR_WIDTH; ++i)
        bar[i] = i < filled ? '#' : '.';
    bar[BAR_WIDTH] = '\0';
    double elapsed = now - p->start_seconds;
    double rate = elapsed > 0.0 ? done / elapsed : 0.0;
    double left = rate > 0.0 ? (p->total - done) / rate : 0.0;
    fprintf(stderr, "\r%s [%s] %u/%u  %.1f/s  %.0fs left ", p->label, bar, done, p->total, rate, left);
    fflush(stderr);
}

void progress_update(progress *p, uint32_t done)
{
    if (!p->enabled)
        return;
    double now = progress_now_seconds();
    if (done < p->total && now - p->last_draw_seconds < 0.1)
        return;
    p->last_draw_seconds = now;
    draw(p, done, now);
}

void progress_finish(progress *p)
{
    if (!p->enabled)
        return;
    draw(p, p->total, progress_now_seconds());
    fputc('\n', stderr);
}
