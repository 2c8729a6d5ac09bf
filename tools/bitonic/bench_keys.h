/* bench_keys.h: the random keys `bitonic bench` sorts and the checks of its
 * results (bench_keys.c), made and run on the host by several threads. */
#ifndef BITONIC_BENCH_KEYS_H
#define BITONIC_BENCH_KEYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Fills keys with random bits (and values with the indices); returns a
 * fingerprint of the multiset of keys, or of (key, value) pairs. */
uint64_t bench_fill_random(uint32_t *keys, uint32_t *values, size_t n, uint64_t *state);
/* n 64-bit keys of random bits as 2n words (low word first). */
uint64_t bench_fill_random64(uint32_t *words, size_t n, uint64_t *state);
/* n keys as rows of BENCH_ROW_LENGTH (the last one shorter): each row ascending,
 * and the same multiset. */
bool bench_verify_rows(const uint32_t *keys, size_t n, uint64_t fingerprint);
/* n 64-bit keys held as 2n words: ascending and the same multiset. */
bool bench_verify64(const uint32_t *words, size_t n, uint64_t fingerprint);
/* n keys (and values, for pairs) of a BENCH_TYPE_*: in order and the same
 * multiset; says on stderr where they are not. */
bool bench_verify(const uint32_t *keys, const uint32_t *values, size_t n, uint64_t fingerprint, unsigned type);

#endif /* BITONIC_BENCH_KEYS_H */
