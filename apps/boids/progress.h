/* progress.h: a one-line progress bar on the terminal (stderr), with rate and
 * time left; silent when stderr is not a terminal, so logs stay clean. */
#ifndef BOIDS_PROGRESS_H
#define BOIDS_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

typedef struct progress {
    const char *label;
    uint32_t total;
    double start_seconds;
    double last_draw_seconds;
    bool enabled;
} progress;

void progress_start(progress *p, const char *label, uint32_t total, bool quiet);
void progress_update(progress *p, uint32_t done);
void progress_finish(progress *p);

double progress_now_seconds(void);

#endif /* BOIDS_PROGRESS_H */
