/* fuzz_key_file.c: libFuzzer target for the key-file reader (tools/bitonic/key_file.c).
 *
 * Arbitrary bytes go to the .npy header parser and to the in-memory reader
 * under every format option, with and without a dtype restriction. Beyond
 * "no crash, no out-of-bounds access" (ASan, UBSan) it checks what a caller
 * relies on: an accepted file's keys are exactly the bytes at the end of the
 * input, a refusal always comes with a message naming the input, and a header
 * the parser accepts survives being written back by the writer and parsed again.
 *
 *     clang -g -fsanitize=fuzzer,address,undefined -Itools/bitonic \
 *         tools/bitonic/key_file.c tools/bitonic/npy_header.c tools/bitonic/output_file.c \
 *         tests/fuzz/fuzz_key_file.c -o fuzz_key_file
 *     ./fuzz_key_file -max_total_time=60 new_corpus/ tests/fuzz/corpus/
 */
#define _POSIX_C_SOURCE 200809L /* strnlen */

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "key_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A broken promise is a bug: stop with a crash libFuzzer records. */
static void require(int condition)
{
    if (!condition)
        abort();
}

/* Every refusal writes a message; a short buffer gets its start, terminated. */
static void check_message(const char *error, size_t error_size, const char *prefix)
{
    size_t length = strnlen(error, error_size);
    require(length < error_size);
    require(length > 0 || error_size == 1);
    if (prefix != NULL) {
        size_t compared = strlen(prefix) < length ? strlen(prefix) : length;
        require(strncmp(error, prefix, compared) == 0);
    }
}

static void check_header_round_trip(const struct key_npy_header *header, size_t size)
{
    require(header->major_version >= 1 && header->major_version <= 3);
    require(header->dtype < KEY_DTYPE_COUNT);
    require(header->data_offset <= size);
    require(header->data_size == header->count * key_dtype_size(header->dtype));
    require(header->data_size / key_dtype_size(header->dtype) == header->count);

    unsigned char rewritten[KEY_NPY_HEADER_MAX];
    size_t rewritten_size = key_file_format_npy_header(header->dtype, header->count, rewritten, sizeof rewritten);
    require(rewritten_size > 0 && rewritten_size % 64 == 0);
    struct key_npy_header reparsed;
    char error[128];
    require(key_file_parse_npy_header(rewritten, rewritten_size, &reparsed, error, sizeof error) == 0);
    require(reparsed.dtype == header->dtype && reparsed.count == header->count &&
            reparsed.data_offset == rewritten_size && !reparsed.fortran_order);
}

static void check_read(const uint8_t *data, size_t size, const struct key_file_read_options *options,
                       size_t error_size)
{
    char error[256];
    memset(error, 'X', sizeof error); /* so a refusal that writes nothing is caught */
    struct key_file keys;
    if (key_file_read_memory(data, size, "fuzz", options, &keys, error, error_size) != 0) {
        check_message(error, error_size, "fuzz: ");
        require(keys.data == NULL && keys.count == 0);
        return;
    }
    require(keys.dtype < KEY_DTYPE_COUNT);
    require(keys.element_size == key_dtype_size(keys.dtype));
    size_t data_size = keys.count * keys.element_size;
    require(data_size <= size && data_size / keys.element_size == keys.count);
    require((keys.count == 0) == (keys.data == NULL));
    if (options->accepted_dtypes != 0)
        require((options->accepted_dtypes & KEY_DTYPE_BIT(keys.dtype)) != 0);
    if (keys.format == KEY_FILE_FORMAT_RAW) {
        require(options->format != KEY_FILE_FORMAT_NPY && keys.dtype == KEY_DTYPE_U32 && data_size == size);
    } else {
        require(keys.format == KEY_FILE_FORMAT_NPY && options->format != KEY_FILE_FORMAT_RAW);
    }
    /* The keys are the input's last bytes, copied whole. */
    require(data_size == 0 || memcmp(keys.data, data + (size - data_size), data_size) == 0);
    key_file_free(&keys);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char error[256];
    memset(error, 'X', sizeof error);
    struct key_npy_header header;
    if (key_file_parse_npy_header(data, size, &header, error, sizeof error) == 0)
        check_header_round_trip(&header, size);
    else
        check_message(error, sizeof error, NULL);

    static const enum key_file_format formats[] = {KEY_FILE_FORMAT_AUTO, KEY_FILE_FORMAT_RAW, KEY_FILE_FORMAT_NPY};
    static const unsigned accepted[] = {0, KEY_DTYPE_BIT(KEY_DTYPE_U32),
                                        KEY_DTYPE_BIT(KEY_DTYPE_F64) | KEY_DTYPE_BIT(KEY_DTYPE_I32)};
    for (size_t f = 0; f < sizeof formats / sizeof formats[0]; ++f) {
        for (size_t a = 0; a < sizeof accepted / sizeof accepted[0]; ++a) {
            struct key_file_read_options options = {.format = formats[f], .accepted_dtypes = accepted[a]};
            check_read(data, size, &options, sizeof error);
        }
    }
    /* Short error buffers must truncate, never overflow. */
    struct key_file_read_options any = {0};
    check_read(data, size, &any, 1 + (size % 24));
    return 0;
}
