/* npy_tool.c: makes and checks the key files of the host-path measurements
 * and tests, without NumPy, which a GPU machine may lack:
 *
 *   bitonic-npy gen N SEED OUT.npy     N random uint32 keys (splitmix64 of SEED)
 *   bitonic-npy check IN.npy OUT.npy   OUT is IN sorted ascending: same count,
 *                                      in order, same keys (a fingerprint of
 *                                      the multiset); exit 0 when it is
 *
 * It reads and writes through key_file.c, the module `bitonic sort` uses. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "key_file.h"

static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static int generate(size_t count, uint64_t seed, const char *path)
{
    uint32_t *keys = malloc(count ? count * sizeof *keys : 1);
    if (!keys) {
        fprintf(stderr, "bitonic-npy: out of memory\n");
        return 1;
    }
    for (size_t i = 0; i < count; ++i)
        keys[i] = (uint32_t)mix64(seed + 0x9e3779b97f4a7c15ull * (i + 1));
    struct key_file file = {.format = KEY_FILE_FORMAT_NPY, .dtype = KEY_DTYPE_U32, .count = count, .data = keys};
    char error[512];
    int result = key_file_write_atomic(path, &file, error, sizeof error);
    if (result != 0)
        fprintf(stderr, "bitonic-npy: %s\n", error);
    free(keys);
    return result == 0 ? 0 : 1;
}

/* Order-independent: the sum and the xor of a mix of every key. */
static void fingerprint(const uint32_t *keys, size_t count, uint64_t *sum, uint64_t *xor_all)
{
    *sum = 0;
    *xor_all = 0;
    for (size_t i = 0; i < count; ++i) {
        uint64_t h = mix64(keys[i] + 0x632be59bd9b4e019ull);
        *sum += h;
        *xor_all ^= h * 0x9e3779b97f4a7c15ull;
    }
}

static int check(const char *in_path, const char *out_path)
{
    struct key_file in, out;
    char error[512];
    struct key_file_read_options options = {.accepted_dtypes = KEY_DTYPE_BIT(KEY_DTYPE_U32)};
    if (key_file_read(in_path, &options, &in, error, sizeof error) != 0) {
        fprintf(stderr, "bitonic-npy: %s\n", error);
        return 1;
    }
    if (key_file_read(out_path, &options, &out, error, sizeof error) != 0) {
        fprintf(stderr, "bitonic-npy: %s\n", error);
        key_file_free(&in);
        return 1;
    }
    const uint32_t *a = in.data, *b = out.data;
    int result = 0;
    if (in.count != out.count) {
        fprintf(stderr, "bitonic-npy: %s has %zu keys, %s %zu\n", in_path, in.count, out_path, out.count);
        result = 1;
    }
    for (size_t i = 1; result == 0 && i < out.count; ++i)
        if (b[i - 1] > b[i]) {
            fprintf(stderr, "bitonic-npy: %s is out of order at %zu (%" PRIu32 " > %" PRIu32 ")\n", out_path, i,
                    b[i - 1], b[i]);
            result = 1;
        }
    if (result == 0) {
        uint64_t sum_in, xor_in, sum_out, xor_out;
        fingerprint(a, in.count, &sum_in, &xor_in);
        fingerprint(b, out.count, &sum_out, &xor_out);
        if (sum_in != sum_out || xor_in != xor_out) {
            fprintf(stderr, "bitonic-npy: %s does not hold the keys of %s\n", out_path, in_path);
            result = 1;
        }
    }
    key_file_free(&in);
    key_file_free(&out);
    return result;
}

int main(int argc, char **argv)
{
    if (argc == 5 && strcmp(argv[1], "gen") == 0)
        return generate((size_t)strtoull(argv[2], NULL, 10), strtoull(argv[3], NULL, 10), argv[4]);
    if (argc == 4 && strcmp(argv[1], "check") == 0)
        return check(argv[2], argv[3]);
    fprintf(stderr, "usage: bitonic-npy gen N SEED OUT.npy | bitonic-npy check IN.npy SORTED.npy\n");
    return 2;
}
