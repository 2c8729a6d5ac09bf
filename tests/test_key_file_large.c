/* test_key_file_large.c: the key files of `bitonic sort` of tens of MiB
 * (tools/bitonic/key_file.c), which the module reads and writes on several
 * threads: round trips checked byte for byte, a header of odd length, wrong
 * sizes, and a threaded write cut short by RLIMIT_FSIZE. */
#define _POSIX_C_SOURCE 200809L

#include "key_file_fixtures.h"

/* ---- large files: the threaded reader and writer ---- */

/* Files of 16 MiB or more are read and written by several threads, one
 * contiguous range each (given two or more CPUs). The sizes below make the
 * file, the O_DIRECT bulk and the last thread's range end in different places,
 * none of them on a 4096-byte block, so every seam between them is crossed. */
#define LARGE_KEY_BYTES ((size_t)40 << 20)

/* bytes (size of them, keys from data_offset on) as a file: read with
 * key_file_read, checked, written back with key_file_write_atomic from the
 * block they were read into (the path `bitonic sort` takes), and checked to
 * come out byte for byte the same. */
static void check_large_round_trip(const char *what, const unsigned char *bytes, size_t size, size_t data_offset,
                                   enum key_file_format format, enum key_dtype dtype)
{
    const char *in_path = scratch_path("large-in");
    const char *out_path = scratch_path("large-out");
    char error[512] = "";
    TEST_CHECK(&counter, write_file(in_path, bytes, size), "%s: the fixture is written", what);
    size_t count = (size - data_offset) / key_dtype_size(dtype);
    struct key_file keys;
    if (!TEST_CHECK(&counter, key_file_read(in_path, NULL, &keys, error, sizeof error) == 0, "%s: read: %s", what,
                    error))
        return;
    TEST_CHECK(&counter, keys.format == format && keys.dtype == dtype && keys.count == count &&
                             memcmp(keys.data, bytes + data_offset, size - data_offset) == 0,
               "%s: all %zu keys read back as they were", what, count);
    TEST_CHECK(&counter, key_file_write_atomic(out_path, &keys, error, sizeof error) == 0, "%s: write: %s", what,
               error);
    TEST_CHECK(&counter, file_has_bytes(out_path, bytes, size), "%s: written back byte for byte", what);
    key_file_free(&keys);
    check_no_temporaries(scratch_dir, what);
    unlink(in_path);
    unlink(out_path);
}

/* A .npy file as this module (and NumPy) writes it: a 128-byte header, then
 * count random elements. */
static unsigned char *large_npy(enum key_dtype dtype, size_t count, uint64_t seed, size_t *size,
                                size_t *header_size)
{
    unsigned char header[KEY_NPY_HEADER_MAX];
    *header_size = key_file_format_npy_header(dtype, count, header, sizeof header);
    *size = *header_size + count * key_dtype_size(dtype);
    unsigned char *bytes = malloc(*size);
    if (bytes != NULL) {
        memcpy(bytes, header, *header_size);
        fill_random(bytes + *header_size, *size - *header_size, seed);
    }
    return bytes;
}

static void test_large_round_trips(void)
{
    unsigned char *raw = malloc(LARGE_KEY_BYTES + 12);
    if (!TEST_CHECK(&counter, raw != NULL, "memory for the large fixtures"))
        return;
    fill_random(raw, LARGE_KEY_BYTES + 12, 300);
    raw[0] = 0; /* never the .npy magic */
    check_large_round_trip("raw, 40 MiB", raw, LARGE_KEY_BYTES, 0, KEY_FILE_FORMAT_RAW, KEY_DTYPE_U32);
    check_large_round_trip("raw, 40 MiB + 12 bytes", raw, LARGE_KEY_BYTES + 12, 0, KEY_FILE_FORMAT_RAW,
                           KEY_DTYPE_U32);
    check_large_round_trip("raw, 16 MiB (where threads start)", raw, (size_t)16 << 20, 0, KEY_FILE_FORMAT_RAW,
                           KEY_DTYPE_U32);
    check_large_round_trip("raw, 16 MiB - 4 bytes (one thread)", raw, ((size_t)16 << 20) - 4, 0,
                           KEY_FILE_FORMAT_RAW, KEY_DTYPE_U32);
    free(raw);

    size_t size, header_size;
    unsigned char *npy = large_npy(KEY_DTYPE_U32, (LARGE_KEY_BYTES + 12) / 4, 301, &size, &header_size);
    if (TEST_CHECK(&counter, npy != NULL, "memory for a large .npy"))
        check_large_round_trip(".npy <u4, 40 MiB + 12 bytes of keys", npy, size, header_size, KEY_FILE_FORMAT_NPY,
                               KEY_DTYPE_U32);
    free(npy);
    npy = large_npy(KEY_DTYPE_F64, LARGE_KEY_BYTES / 8 + 3, 302, &size, &header_size);
    if (TEST_CHECK(&counter, npy != NULL, "memory for a large .npy"))
        check_large_round_trip(".npy <f8, 40 MiB + 24 bytes of keys", npy, size, header_size, KEY_FILE_FORMAT_NPY,
                               KEY_DTYPE_F64);
    free(npy);
}

/* A hand-made header of odd length: the threaded read lands the keys off
 * 8-byte alignment and they are slid down; written back, the file gets
 * NumPy's own header and the same keys. */
static void test_large_odd_header(void)
{
    static const char text[] = "{'descr': '<u8', 'fortran_order': False, 'shape': (5242883,)}";
    size_t data_size = (size_t)5242883 * 8, size;
    unsigned char *data = malloc(data_size);
    unsigned char *bytes = data ? build_npy(1, 0, text, strlen(text), NULL, 0, &size) : NULL; /* the header alone */
    if (!TEST_CHECK(&counter, bytes != NULL, "memory for a large odd-header .npy")) {
        free(data);
        return;
    }
    fill_random(data, data_size, 303);
    const char *path = scratch_path("large-odd.npy");
    FILE *file = fopen(path, "wb");
    bool written = file != NULL && fwrite(bytes, 1, size, file) == size &&
                   fwrite(data, 1, data_size, file) == data_size;
    written = file != NULL && fclose(file) == 0 && written;
    TEST_CHECK(&counter, written && (size % 8) != 0, "an odd-header fixture of %zu + %zu bytes", size, data_size);
    char error[512] = "";
    struct key_file keys;
    TEST_CHECK(&counter, key_file_read(path, NULL, &keys, error, sizeof error) == 0 && keys.count == 5242883 &&
                             keys.dtype == KEY_DTYPE_U64 && (uintptr_t)keys.data % 8 == 0 &&
                             memcmp(keys.data, data, data_size) == 0,
               "a large .npy with an odd header reads back aligned and whole: %s", error);
    const char *copy = scratch_path("large-odd-copy.npy");
    struct key_file again = {0};
    TEST_CHECK(&counter, key_file_write_atomic(copy, &keys, error, sizeof error) == 0 &&
                             key_file_read(copy, NULL, &again, error, sizeof error) == 0 &&
                             again.count == keys.count && memcmp(again.data, data, data_size) == 0,
               "written back, it holds the same keys: %s", error);
    key_file_free(&again);
    key_file_free(&keys);
    free(bytes);
    free(data);
    unlink(path);
    unlink(copy);
}

/* The size checks still hold when the data is read by several threads. */
static void test_large_wrong_sizes(void)
{
    size_t size, header_size;
    unsigned char *npy = large_npy(KEY_DTYPE_U32, LARGE_KEY_BYTES / 4, 304, &size, &header_size);
    if (!TEST_CHECK(&counter, npy != NULL, "memory for a large .npy"))
        return;
    const char *path = scratch_path("large-wrong.npy");
    char error[512] = "", expected[128];
    struct key_file keys;

    write_file(path, npy, size - 4);
    snprintf(expected, sizeof expected, "but only %zu bytes of data follow", LARGE_KEY_BYTES - 4);
    TEST_CHECK(&counter, key_file_read(path, NULL, &keys, error, sizeof error) == -1 && is_zeroed(&keys) &&
                             strstr(error, expected) != NULL,
               "a large .npy one element short is refused with \"%s\": %s", expected, error);

    unsigned char *longer = realloc(npy, size + 8);
    if (TEST_CHECK(&counter, longer != NULL, "memory for a longer .npy")) {
        npy = longer;
        memset(npy + size, 0, 8);
        write_file(path, npy, size + 8);
        TEST_CHECK(&counter, key_file_read(path, NULL, &keys, error, sizeof error) == -1 && is_zeroed(&keys) &&
                                 strstr(error, "8 unexpected bytes follow the 10485760 elements") != NULL,
                   "a large .npy with 8 bytes too many is refused: %s", error);
    }
    free(npy);
    unlink(path);

    /* /proc files say size 0 in stat and then have bytes: a file that grew
     * between fstat and the read, which must not pass as an empty file. */
    const char *proc_file = "/proc/self/status";
    if (path_exists(proc_file))
        TEST_CHECK(&counter, key_file_read(proc_file, NULL, &keys, error, sizeof error) == -1 &&
                                 strstr(error, "the file changed size while it was being read") != NULL,
                   "a file longer than fstat said is refused: %s", error);
}

/* A threaded write that the file size limit stops partway, once inside a
 * block and once at a block boundary: the O_DIRECT bulk fails over to
 * buffered, which fails for real, and OUT is left as it was. */
static void test_large_write_cut_short(void)
{
    unsigned char *raw = malloc(LARGE_KEY_BYTES);
    if (!TEST_CHECK(&counter, raw != NULL, "memory for the large fixture"))
        return;
    fill_random(raw, LARGE_KEY_BYTES, 305);
    raw[0] = 0;
    const char *in_path = scratch_path("large-limit-in");
    const char *out_path = scratch_path("large-limit-out");
    write_file(in_path, raw, LARGE_KEY_BYTES);
    static const char old_contents[] = "the old output";
    write_file(out_path, old_contents, sizeof old_contents);
    char error[512] = "";
    struct key_file keys;
    if (TEST_CHECK(&counter, key_file_read(in_path, NULL, &keys, error, sizeof error) == 0, "read: %s", error)) {
        static const rlim_t limits[] = {((rlim_t)20 << 20) + 1000, (rlim_t)20 << 20};
        for (size_t i = 0; i < sizeof limits / sizeof limits[0]; ++i) {
            int status = write_with_size_limit(out_path, &keys, limits[i], error, sizeof error);
            TEST_CHECK(&counter, status == -1 && strstr(error, "cannot write the temporary file") != NULL &&
                                     strstr(error, "File too large") != NULL,
                       "a 40 MiB write stopped at %llu bytes fails: %s", (unsigned long long)limits[i], error);
            TEST_CHECK(&counter, file_has_bytes(out_path, old_contents, sizeof old_contents),
                       "the existing OUT is left as it was (limit %llu)", (unsigned long long)limits[i]);
            check_no_temporaries(scratch_dir, "a large write cut short");
        }
        key_file_free(&keys);
    }
    free(raw);
    unlink(in_path);
    unlink(out_path);
}

int main(void)
{
    if (!make_scratch_dir("test_key_file_large"))
        return 1;
    test_large_round_trips();
    test_large_odd_header();
    test_large_wrong_sizes();
    test_large_write_cut_short();
    remove_scratch_dir();
    return test_finish(&counter);
}
