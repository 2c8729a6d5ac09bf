/* pair_sort.c: a least-significant-digit radix sort of 64-bit words, eight
 * passes of 8 bits: linear time, stable, no allocation, and exact for the
 * packed pairs the CPU path sorts (see pair_sort.h). A pass whose digit is the
 * same in every word is skipped, so small keys and indices cost fewer passes.
 * Large arrays are sorted by several threads, each counting and then moving
 * its own slice, with the slices' counts added in thread order so the sort
 * stays stable. */
#define _POSIX_C_SOURCE 200809L
#include "pair_sort.h"

#include <pthread.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#define DIGIT_BITS 8u
#define DIGIT_COUNT (1u << DIGIT_BITS)

/* Threads beyond this many are not worth their start for a radix pass. */
#define MAX_RADIX_THREADS 16u
/* Words a thread should have at least. */
#define MIN_WORDS_PER_THREAD ((size_t)1 << 16)

typedef struct radix_crew radix_crew;

/* One thread's part: its slice, its counts, where it stands. */
typedef struct radix_hand {
    radix_crew *crew;
    uint32_t index;
    size_t begin, end;
    size_t counts[DIGIT_COUNT];
} radix_hand;

struct radix_crew {
    uint64_t *words, *scratch;
    size_t count;
    uint32_t size;
    bool go;                   /* every thread started: set under the gate */
    pthread_mutex_t gate;      /* held while the threads are being started */
    pthread_barrier_t barrier;
    radix_hand hands[MAX_RADIX_THREADS];
};

/* Every thread runs every pass: count its slice, wait, work out where its
 * keys of each digit go (the keys of that digit in earlier slices first), move
 * them, wait. Every thread sees the same counts, so all skip the same passes. */
static void *radix_hand_run(void *arg)
{
    radix_hand *hand = arg;
    radix_crew *crew = hand->crew;
    if (hand->index != 0) {
        pthread_mutex_lock(&crew->gate);
        bool go = crew->go;
        pthread_mutex_unlock(&crew->gate);
        if (!go)
            return NULL;  /* not every thread could be started: the caller sorts alone */
    }
    uint64_t *from = crew->words, *to = crew->scratch;
    for (unsigned shift = 0; shift < 64u; shift += DIGIT_BITS) {
        memset(hand->counts, 0, sizeof hand->counts);
        for (size_t i = hand->begin; i < hand->end; ++i)
            ++hand->counts[(from[i] >> shift) & (DIGIT_COUNT - 1u)];
        pthread_barrier_wait(&crew->barrier);
        size_t offsets[DIGIT_COUNT], total = 0;
        bool single_digit = false;
        for (unsigned d = 0; d < DIGIT_COUNT; ++d) {
            size_t digit_total = 0, before = 0;
            for (uint32_t t = 0; t < crew->size; ++t) {
                if (t == hand->index)
                    before = digit_total;
                digit_total += crew->hands[t].counts[d];
            }
            offsets[d] = total + before;
            total += digit_total;
            single_digit = single_digit || digit_total == crew->count;  /* this digit holds every word */
        }
        if (!single_digit)
            for (size_t i = hand->begin; i < hand->end; ++i)
                to[offsets[(from[i] >> shift) & (DIGIT_COUNT - 1u)]++] = from[i];
        /* Every move is done (and every count read) before the next pass counts. */
        pthread_barrier_wait(&crew->barrier);
        if (!single_digit) {
            uint64_t *swap = from;
            from = to;
            to = swap;
        }
    }
    if (from != crew->words)
        memcpy(crew->words + hand->begin, from + hand->begin, (hand->end - hand->begin) * sizeof *from);
    return NULL;
}

/* The sort by `threads` threads (at least 2); false when they could not be
 * started, and nothing was moved. */
static bool sort_u64_threaded(uint64_t *words, uint64_t *scratch, size_t count, uint32_t threads)
{
    radix_crew crew = {.words = words, .scratch = scratch, .count = count, .size = threads};
    if (pthread_barrier_init(&crew.barrier, NULL, threads) != 0)
        return false;
    if (pthread_mutex_init(&crew.gate, NULL) != 0) {
        pthread_barrier_destroy(&crew.barrier);
        return false;
    }
    pthread_mutex_lock(&crew.gate);
    pthread_t handles[MAX_RADIX_THREADS];
    size_t slice = (count + threads - 1u) / threads;
    for (uint32_t t = 0; t < threads; ++t) {
        size_t begin = slice * t < count ? slice * t : count;
        crew.hands[t] = (radix_hand){&crew, t, begin, begin + slice < count ? begin + slice : count, {0}};
    }
    uint32_t started = 1;
    while (started < threads && pthread_create(&handles[started], NULL, radix_hand_run, &crew.hands[started]) == 0)
        ++started;
    bool ok = started == threads;
    crew.go = ok;
    pthread_mutex_unlock(&crew.gate);
    if (ok)
        radix_hand_run(&crew.hands[0]);
    for (uint32_t t = 1; t < started; ++t)
        pthread_join(handles[t], NULL);
    pthread_barrier_destroy(&crew.barrier);
    pthread_mutex_destroy(&crew.gate);
    return ok;
}

void bitonic_cpu_sort_u64(uint64_t *words, uint64_t *scratch, size_t count, uint32_t threads)
{
    if (count < 2)
        return;
    if (threads == 0) {
        long online = sysconf(_SC_NPROCESSORS_ONLN);
        threads = online > 0 ? (uint32_t)online : 1u;
    }
    if (threads > MAX_RADIX_THREADS)
        threads = MAX_RADIX_THREADS;
    if (threads > count / MIN_WORDS_PER_THREAD)
        threads = (uint32_t)(count / MIN_WORDS_PER_THREAD);
    if (threads >= 2 && sort_u64_threaded(words, scratch, count, threads))
        return;
    uint64_t *from = words, *to = scratch;
    for (unsigned shift = 0; shift < 64u; shift += DIGIT_BITS) {
        size_t offsets[DIGIT_COUNT] = {0};
        for (size_t i = 0; i < count; ++i)
            ++offsets[(from[i] >> shift) & (DIGIT_COUNT - 1u)];
        if (offsets[(from[0] >> shift) & (DIGIT_COUNT - 1u)] == count)
            continue;  /* every word has this digit: the pass would move nothing */
        size_t total = 0;
        for (unsigned d = 0; d < DIGIT_COUNT; ++d) {
            size_t n = offsets[d];
            offsets[d] = total;
            total += n;
        }
        for (size_t i = 0; i < count; ++i)
            to[offsets[(from[i] >> shift) & (DIGIT_COUNT - 1u)]++] = from[i];
        uint64_t *swap = from;
        from = to;
        to = swap;
    }
    if (from != words)
        memcpy(words, from, count * sizeof *words);
}

/* One stable counting pass over digit `shift` of the key (key_pass) or of the value. */
static void pair_pass(const uint64_t *from_keys, const uint32_t *from_values, uint64_t *to_keys, uint32_t *to_values,
                      size_t count, unsigned shift, bool key_pass)
{
    size_t offsets[DIGIT_COUNT] = {0};
    for (size_t i = 0; i < count; ++i)
        ++offsets[((key_pass ? from_keys[i] : from_values[i]) >> shift) & (DIGIT_COUNT - 1u)];
    size_t total = 0;
    for (unsigned d = 0; d < DIGIT_COUNT; ++d) {
        size_t n = offsets[d];
        offsets[d] = total;
        total += n;
    }
    for (size_t i = 0; i < count; ++i) {
        size_t at = offsets[((key_pass ? from_keys[i] : from_values[i]) >> shift) & (DIGIT_COUNT - 1u)]++;
        to_keys[at] = from_keys[i];
        to_values[at] = from_values[i];
    }
}

void bitonic_cpu_sort_pairs_u64(uint64_t *keys, uint32_t *values, uint64_t *scratch_keys, uint32_t *scratch_values,
                                size_t count)
{
    if (count < 2)
        return;
    /* Least significant first: the value's 4 digits, then the key's 8. Twelve
     * passes, an even number, so the result ends where it started. */
    uint64_t *from_keys = keys, *to_keys = scratch_keys;
    uint32_t *from_values = values, *to_values = scratch_values;
    for (unsigned pass = 0; pass < 12u; ++pass) {
        bool key_pass = pass >= 4u;
        unsigned shift = (key_pass ? pass - 4u : pass) * DIGIT_BITS;
        pair_pass(from_keys, from_values, to_keys, to_values, count, shift, key_pass);
        uint64_t *swap_keys = from_keys;
        from_keys = to_keys;
        to_keys = swap_keys;
        uint32_t *swap_values = from_values;
        from_values = to_values;
        to_values = swap_values;
    }
}
