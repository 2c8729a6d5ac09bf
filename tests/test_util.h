/* test_util.h: the few helpers every test program shares: a check counter that
 * prints failures and ends with the "N passed, N failed" line, and a seeded
 * random generator (splitmix64) so failures reproduce. */
#ifndef BITONIC_TEST_UTIL_H
#define BITONIC_TEST_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

typedef struct test_counter {
    unsigned passed, failed;
} test_counter;

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static inline bool test_check(test_counter *t, bool ok, const char *format, ...)
{
    if (ok) {
        ++t->passed;
    } else {
        ++t->failed;
        va_list args;
        va_start(args, format);
        fputs("FAIL: ", stdout);
        vprintf(format, args);
        fputc('\n', stdout);
        va_end(args);
        fflush(stdout);
    }
    return ok;
}

#define TEST_CHECK(t, ok, ...) test_check((t), (ok), __VA_ARGS__)

static inline int test_finish(const test_counter *t)
{
    printf("%u passed, %u failed\n", t->passed, t->failed);
    return t->failed == 0 ? 0 : 1;
}

static inline uint64_t test_random_u64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

#endif /* BITONIC_TEST_UTIL_H */
