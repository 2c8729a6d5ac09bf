/* test_key_file.c: tests the key files of `bitonic sort` (tools/bitonic/key_file.c).
 * Every .npy fixture is built here byte by byte, so the test needs no NumPy;
 * the writer's header is compared with the bytes NumPy 1.24 writes for the
 * same array. Files live in a fresh mkdtemp directory that is removed at the
 * end. Write failures are made real: a missing directory, a directory in
 * OUT's place, and RLIMIT_FSIZE cutting a write short halfway. Files of tens
 * of MiB, which take the module's threaded read and write, are
 * test_key_file_large.c's. */
#define _POSIX_C_SOURCE 200809L

#include "key_file_fixtures.h"

/* ---- tests ---- */

static void test_dtype_names(void)
{
    static const struct {
        enum key_dtype dtype;
        const char *name, *descr;
        size_t size;
    } expected[] = {
        {KEY_DTYPE_U32, "uint32", "<u4", 4}, {KEY_DTYPE_I32, "int32", "<i4", 4},
        {KEY_DTYPE_F32, "float32", "<f4", 4}, {KEY_DTYPE_U64, "uint64", "<u8", 8},
        {KEY_DTYPE_I64, "int64", "<i8", 8},   {KEY_DTYPE_F64, "float64", "<f8", 8},
    };
    for (size_t i = 0; i < sizeof expected / sizeof expected[0]; ++i) {
        TEST_CHECK(&counter, strcmp(key_dtype_name(expected[i].dtype), expected[i].name) == 0, "name of %s",
                   expected[i].name);
        TEST_CHECK(&counter, strcmp(key_dtype_descr(expected[i].dtype), expected[i].descr) == 0, "descr of %s",
                   expected[i].name);
        TEST_CHECK(&counter, key_dtype_size(expected[i].dtype) == expected[i].size, "size of %s",
                   expected[i].name);
    }
    TEST_CHECK(&counter, strcmp(key_dtype_name(KEY_DTYPE_COUNT), "unknown") == 0, "name of an invalid dtype");
    TEST_CHECK(&counter, strcmp(key_dtype_descr((enum key_dtype)-1), "?") == 0, "descr of an invalid dtype");
    TEST_CHECK(&counter, key_dtype_size(KEY_DTYPE_COUNT) == 0, "size of an invalid dtype");
    TEST_CHECK(&counter, strcmp(key_file_format_name(KEY_FILE_FORMAT_NPY), "npy") == 0, "format name npy");
    TEST_CHECK(&counter, strcmp(key_file_format_name(KEY_FILE_FORMAT_RAW), "raw") == 0, "format name raw");
    TEST_CHECK(&counter, strcmp(key_file_format_name((enum key_file_format)9), "unknown") == 0,
               "format name of an invalid format");
}

static void test_raw_round_trip(void)
{
    enum { COUNT = 1000 };
    uint32_t keys[COUNT];
    fill_random(keys, sizeof keys, 1);
    char error[256] = "";
    const char *path = scratch_path("keys.bin");
    struct key_file out = {.format = KEY_FILE_FORMAT_RAW, .dtype = KEY_DTYPE_U32, .count = COUNT, .data = keys};
    TEST_CHECK(&counter, key_file_write_atomic(path, &out, error, sizeof error) == 0, "raw write: %s", error);
    TEST_CHECK(&counter, file_has_bytes(path, keys, sizeof keys), "a raw file is the keys and nothing else");

    struct key_file in;
    TEST_CHECK(&counter, key_file_read(path, NULL, &in, error, sizeof error) == 0, "raw read: %s", error);
    TEST_CHECK(&counter, in.format == KEY_FILE_FORMAT_RAW && in.dtype == KEY_DTYPE_U32 && in.count == COUNT &&
                             in.element_size == 4,
               "raw read describes %zu uint32 keys", (size_t)COUNT);
    TEST_CHECK(&counter, in.data != NULL && memcmp(in.data, keys, sizeof keys) == 0, "raw keys survive the trip");
    key_file_free(&in);
    TEST_CHECK(&counter, is_zeroed(&in), "key_file_free zeroes the struct");

    /* An empty raw file is zero keys, not an error. */
    const char *empty = scratch_path("empty.bin");
    write_file(empty, "", 0);
    TEST_CHECK(&counter, key_file_read(empty, NULL, &in, error, sizeof error) == 0 && in.count == 0 &&
                             in.data == NULL && in.format == KEY_FILE_FORMAT_RAW,
               "an empty raw file reads as 0 keys: %s", error);
    key_file_free(&in);
    key_file_free(NULL);
}

/* The header NumPy 1.24 writes for np.save(f, np.arange(5, dtype='<u4')). */
static void test_header_matches_numpy(void)
{
    static const char numpy_dict[] = "{'descr': '<u4', 'fortran_order': False, 'shape': (5,), }";
    unsigned char expected[128];
    memcpy(expected, "\x93NUMPY\x01\x00\x76\x00", 10);
    memset(expected + 10, ' ', sizeof expected - 10);
    memcpy(expected + 10, numpy_dict, strlen(numpy_dict));
    expected[127] = '\n';
    unsigned char header[KEY_NPY_HEADER_MAX];
    size_t size = key_file_format_npy_header(KEY_DTYPE_U32, 5, header, sizeof header);
    TEST_CHECK(&counter, size == sizeof expected && memcmp(header, expected, size) == 0,
               "the .npy header is byte for byte NumPy's (got %zu bytes)", size);

    size = key_file_format_npy_header(KEY_DTYPE_F64, SIZE_MAX, header, sizeof header);
    TEST_CHECK(&counter, size == 128, "a 20-digit count still fits the same 128 bytes (got %zu)", size);
    TEST_CHECK(&counter, key_file_format_npy_header(KEY_DTYPE_U32, 5, header, 127) == 0,
               "too small a buffer gives 0");
    TEST_CHECK(&counter, key_file_format_npy_header(KEY_DTYPE_COUNT, 5, header, sizeof header) == 0,
               "an invalid dtype gives 0");

    /* The parser must agree with the writer, and refuse the writer's own header
     * when the count cannot be multiplied out in size_t. */
    struct key_npy_header parsed;
    char error[256] = "";
    size = key_file_format_npy_header(KEY_DTYPE_I64, 12345, header, sizeof header);
    TEST_CHECK(&counter, key_file_parse_npy_header(header, size, &parsed, error, sizeof error) == 0 &&
                             parsed.major_version == 1 && parsed.dtype == KEY_DTYPE_I64 && parsed.count == 12345 &&
                             !parsed.fortran_order && parsed.data_offset == 128 && parsed.data_size == 12345 * 8,
               "parse(format(header)) gives back what went in: %s", error);
    size = key_file_format_npy_header(KEY_DTYPE_U32, SIZE_MAX, header, sizeof header);
    TEST_CHECK(&counter, key_file_parse_npy_header(header, size, &parsed, error, sizeof error) != 0 &&
                             strstr(error, "too large") != NULL,
               "a count whose byte size overflows size_t is refused: %s", error);
}

static void test_npy_round_trip(void)
{
    enum { COUNT = 37 };
    for (int dtype = 0; dtype < KEY_DTYPE_COUNT; ++dtype) {
        uint64_t keys[COUNT];
        size_t data_size = COUNT * key_dtype_size((enum key_dtype)dtype);
        fill_random(keys, sizeof keys, 100 + (uint64_t)dtype);
        char error[256] = "", name[32];
        snprintf(name, sizeof name, "keys_%s.npy", key_dtype_name((enum key_dtype)dtype));
        const char *path = scratch_path(name);
        struct key_file out = {
            .format = KEY_FILE_FORMAT_NPY, .dtype = (enum key_dtype)dtype, .count = COUNT, .data = keys};
        TEST_CHECK(&counter, key_file_write_atomic(path, &out, error, sizeof error) == 0, "write %s: %s", name,
                   error);

        size_t size;
        unsigned char *bytes = load_file(path, &size);
        struct key_npy_header header;
        TEST_CHECK(&counter, bytes != NULL && size == 128 + data_size, "%s is 128 header bytes + data", name);
        TEST_CHECK(&counter, bytes != NULL && key_file_parse_npy_header(bytes, size, &header, error, sizeof error) == 0 &&
                                 header.major_version == 1 && header.data_offset % 64 == 0,
                   "%s: version 1.0, data at a multiple of 64: %s", name, error);
        free(bytes);

        struct key_file in;
        TEST_CHECK(&counter, key_file_read(path, NULL, &in, error, sizeof error) == 0, "read %s: %s", name, error);
        TEST_CHECK(&counter, in.format == KEY_FILE_FORMAT_NPY && (int)in.dtype == dtype && in.count == COUNT &&
                                 in.element_size == key_dtype_size((enum key_dtype)dtype),
                   "%s describes itself", name);
        TEST_CHECK(&counter, in.data != NULL && memcmp(in.data, keys, data_size) == 0, "%s keys survive", name);
        TEST_CHECK(&counter, in.data == NULL || ((uintptr_t)in.data % 8) == 0, "%s keys are 8-byte aligned", name);

        /* What the tool does: read, then write back in the same format. */
        const char *copy = scratch_path("copy.npy");
        TEST_CHECK(&counter, key_file_write_atomic(copy, &in, error, sizeof error) == 0, "rewrite %s", name);
        size_t original_size = 0, copy_size = 0;
        unsigned char *original = load_file(path, &original_size), *copied = load_file(copy, &copy_size);
        TEST_CHECK(&counter, original && copied && original_size == copy_size &&
                                 memcmp(original, copied, copy_size) == 0,
                   "%s read and written back is the same file", name);
        free(original);
        free(copied);
        key_file_free(&in);
    }

    /* An empty array, and forcing raw on a .npy file (its header becomes keys). */
    char error[256] = "";
    const char *path = scratch_path("empty.npy");
    struct key_file out = {.format = KEY_FILE_FORMAT_NPY, .dtype = KEY_DTYPE_F32, .count = 0};
    struct key_file in;
    TEST_CHECK(&counter, key_file_write_atomic(path, &out, error, sizeof error) == 0 &&
                             key_file_read(path, NULL, &in, error, sizeof error) == 0 && in.count == 0 &&
                             in.dtype == KEY_DTYPE_F32 && in.data == NULL,
               "an empty .npy round-trips: %s", error);
    key_file_free(&in);
    const struct key_file_read_options raw = {.format = KEY_FILE_FORMAT_RAW};
    TEST_CHECK(&counter, key_file_read(path, &raw, &in, error, sizeof error) == 0 &&
                             in.format == KEY_FILE_FORMAT_RAW && in.count == 128 / 4 &&
                             memcmp(in.data, "\x93NUMPY", 6) == 0,
               "forcing raw reads a .npy file as plain uint32 words: %s", error);
    key_file_free(&in);
}

struct header_variant {
    unsigned major;
    const char *text;
    enum key_dtype dtype;
    size_t count;
    bool fortran_order;
};

static void test_header_variants(void)
{
    static const struct header_variant variants[] = {
        {1, "{'descr': '<u4', 'fortran_order': False, 'shape': (3,), }\n", KEY_DTYPE_U32, 3, false},
        {2, "{'descr': '<i4', 'fortran_order': False, 'shape': (3,), }\n", KEY_DTYPE_I32, 3, false},
        {3, "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }\n", KEY_DTYPE_F32, 3, false},
        {1, "{'shape':(2,),'fortran_order':False,'descr':'<u8'}", KEY_DTYPE_U64, 2, false},
        {1, "  {  'fortran_order' : True ,\n 'descr' : '<i8' , 'shape' : ( 4 , ) , }   \n", KEY_DTYPE_I64, 4,
         true},
        {1, "{'descr': '<f8', 'fortran_order': False, 'shape': (5L,)}", KEY_DTYPE_F64, 5, false},
        {1, "{\"descr\": \"=u4\", \"fortran_order\": False, \"shape\": (1,)}\r\n", KEY_DTYPE_U32, 1, false},
        {2, "{'descr':'=f8',\t'fortran_order':True,\t'shape':(0,),}", KEY_DTYPE_F64, 0, true},
        {3, "{'descr': '<i4', 'fortran_order': False, 'shape': (6, ), }" "                    \n", KEY_DTYPE_I32,
         6, false},
    };
    for (size_t i = 0; i < sizeof variants / sizeof variants[0]; ++i) {
        const struct header_variant *variant = &variants[i];
        uint64_t data[8];
        size_t data_size = variant->count * key_dtype_size(variant->dtype);
        fill_random(data, sizeof data, 200 + i);
        size_t size;
        unsigned char *bytes =
            build_npy(variant->major, 0, variant->text, strlen(variant->text), data, data_size, &size);
        char error[256] = "";
        struct key_npy_header header;
        TEST_CHECK(&counter, key_file_parse_npy_header(bytes, size, &header, error, sizeof error) == 0 &&
                                 header.major_version == variant->major && header.dtype == variant->dtype &&
                                 header.count == variant->count && header.fortran_order == variant->fortran_order &&
                                 header.data_offset == size - data_size,
                   "header variant %zu parses: %s", i, error);

        const char *path = scratch_path("variant.npy");
        write_file(path, bytes, size);
        struct key_file in;
        TEST_CHECK(&counter, key_file_read(path, NULL, &in, error, sizeof error) == 0 &&
                                 in.format == KEY_FILE_FORMAT_NPY && in.dtype == variant->dtype &&
                                 in.count == variant->count &&
                                 (data_size == 0 || memcmp(in.data, data, data_size) == 0),
                   "header variant %zu reads from a file: %s", i, error);
        key_file_free(&in);
        TEST_CHECK(&counter, key_file_read_memory(bytes, size, "variant", NULL, &in, error, sizeof error) == 0 &&
                                 in.dtype == variant->dtype && in.count == variant->count &&
                                 (data_size == 0 || memcmp(in.data, data, data_size) == 0),
                   "header variant %zu reads from memory: %s", i, error);
        key_file_free(&in);
        free(bytes);
    }
}

/* A file that must be refused with a message containing `expected`. */
struct bad_input {
    const char *what;
    unsigned major, minor; /* 0: not a .npy, raw_bytes are the file */
    const char *header_text;
    size_t header_length; /* 0: strlen(header_text) */
    size_t data_size;
    const char *raw_bytes;
    size_t raw_size;
    struct key_file_read_options options;
    const char *expected;
};

static const char u4_header[] = "{'descr': '<u4', 'fortran_order': False, 'shape': (3,), }";

static const struct bad_input bad_inputs[] = {
    {"raw size not a multiple of 4", 0, 0, NULL, 0, 0, "0123456789", 10, {0},
     "size 10 bytes is not a multiple of 4 (raw uint32 keys)"},
    {"magic alone", 0, 0, NULL, 0, 0, "\x93NUMPY", 6, {0}, "end before the format version"},
    {"no header length", 0, 0, NULL, 0, 0, "\x93NUMPY\x01\x00\x10", 9, {0}, "end before the header length"},
    {"version 4.0", 4, 0, u4_header, 0, 12, NULL, 0, {0}, "unsupported .npy format version 4.0"},
    {"version 1.1", 1, 1, u4_header, 0, 12, NULL, 0, {0}, "unsupported .npy format version 1.1"},
    {"version 0.0", 0, 0, NULL, 0, 0, "\x93NUMPY\x00\x00\x00\x00", 10, {0}, "version 0.0"},
    {"header longer than the file", 0, 0, NULL, 0, 0, "\x93NUMPY\x01\x00\xc8\x00{'descr'", 18, {0},
     "the header says it is 200 bytes long, but only 8 bytes follow"},
    {"v2 header length past the end", 0, 0, NULL, 0, 0, "\x93NUMPY\x02\x00\xff\xff\xff\xff{}", 14, {0},
     "the header says it is 4294967295 bytes long"},
    {"empty header", 1, 0, "", 0, 0, NULL, 0, {0}, "expected '{' at the start"},
    {"not a dict", 1, 0, "['descr', '<u4']", 0, 0, NULL, 0, {0}, "expected '{' at the start"},
    {"unterminated dict", 1, 0, "{'descr': '<u4'", 0, 0, NULL, 0, {0}, "expected ',' or '}'"},
    {"missing shape", 1, 0, "{'descr': '<u4', 'fortran_order': False}", 0, 0, NULL, 0, {0},
     "the key 'shape' is missing"},
    {"missing descr", 1, 0, "{'fortran_order': False, 'shape': (3,)}", 0, 12, NULL, 0, {0},
     "the key 'descr' is missing"},
    {"unknown key", 1, 0, "{'descr': '<u4', 'dtype': 1, 'fortran_order': False, 'shape': (3,)}", 0, 12, NULL, 0, {0},
     "unexpected key 'dtype'"},
    {"repeated key", 1, 0, "{'descr': '<u4', 'descr': '<u4', 'fortran_order': False, 'shape': (3,)}", 0, 12, NULL, 0,
     {0}, "the key 'descr' appears twice"},
    {"no colon", 1, 0, "{'descr' '<u4', 'fortran_order': False, 'shape': (3,)}", 0, 12, NULL, 0, {0},
     "expected ':' after a key"},
    {"no comma between entries", 1, 0, "{'descr': '<u4' 'fortran_order': False, 'shape': (3,)}", 0, 12, NULL, 0, {0},
     "expected ',' or '}' after a value"},
    {"unquoted key", 1, 0, "{descr: '<u4', 'fortran_order': False, 'shape': (3,)}", 0, 12, NULL, 0, {0},
     "expected a quoted string for a key"},
    {"mismatched quotes", 1, 0, "{'descr': '<u4, 'fortran_order': False, 'shape': (3,)}", 0, 12, NULL, 0, {0},
     "dtype '<u4, ' is not supported"},
    {"string runs to the end", 1, 0, "{'descr': '<u4", 0, 0, NULL, 0, {0}, "unterminated string for 'descr'"},
    {"backslash in a string", 1, 0, "{'descr': '<u\\x34', 'fortran_order': False, 'shape': (3,)}", 0, 12, NULL, 0,
     {0}, "unexpected backslash"},
    {"text after the dict", 1, 0, "{'descr': '<u4', 'fortran_order': False, 'shape': (3,)} x", 0, 12, NULL, 0, {0},
     "unexpected text after the header dict"},
    {"NUL inside the header", 1, 0, "{'descr': '<u4', 'fortran_order': False, 'shape': (3,)}\n\0", 57, 12, NULL, 0,
     {0}, "unexpected text after the header dict"},
    {"fortran_order not a bool", 1, 0, "{'descr': '<u4', 'fortran_order': 0, 'shape': (3,)}", 0, 12, NULL, 0, {0},
     "expected True or False for 'fortran_order'"},
    {"fortran_order lower case", 1, 0, "{'descr': '<u4', 'fortran_order': false, 'shape': (3,)}", 0, 12, NULL, 0,
     {0}, "expected True or False"},
    {"big-endian dtype", 1, 0, "{'descr': '>u4', 'fortran_order': False, 'shape': (3,)}", 0, 12, NULL, 0, {0},
     "dtype '>u4' is big-endian"},
    {"big-endian float64", 1, 0, "{'descr': '>f8', 'fortran_order': False, 'shape': (3,)}", 0, 24, NULL, 0, {0},
     "astype('<f8')"},
    {"uint16", 1, 0, "{'descr': '<u2', 'fortran_order': False, 'shape': (3,)}", 0, 6, NULL, 0, {0},
     "dtype '<u2' is not supported (supported: <u4 <i4 <f4 <u8 <i8 <f8)"},
    {"no byte order", 1, 0, "{'descr': '|u4', 'fortran_order': False, 'shape': (3,)}", 0, 12, NULL, 0, {0},
     "dtype '|u4' is not supported"},
    {"dtype name instead of descr", 1, 0, "{'descr': 'uint32', 'fortran_order': False, 'shape': (3,)}", 0, 12, NULL, 0,
     {0}, "dtype 'uint32' is not supported"},
    {"structured dtype", 1, 0, "{'descr': [('a', '<u4')], 'fortran_order': False, 'shape': (3,)}", 0, 12, NULL, 0,
     {0}, "structured dtype"},
    {"0-d array", 1, 0, "{'descr': '<u4', 'fortran_order': False, 'shape': ()}", 0, 4, NULL, 0, {0},
     "shape () is 0-D; only 1-D arrays are supported"},
    {"2-d array", 1, 0, "{'descr': '<u4', 'fortran_order': False, 'shape': (2, 3)}", 0, 24, NULL, 0, {0},
     "shape (2, 3) is 2-D"},
    {"2-d with fortran order", 1, 0, "{'descr': '<u4', 'fortran_order': True, 'shape': (3,1,)}", 0, 12, NULL, 0, {0},
     "is 2-D"},
    {"shape a bare integer", 1, 0, "{'descr': '<u4', 'fortran_order': False, 'shape': (3)}", 0, 12, NULL, 0, {0},
     "bare integer, not a tuple"},
    {"shape a list", 1, 0, "{'descr': '<u4', 'fortran_order': False, 'shape': [3]}", 0, 12, NULL, 0, {0},
     "expected '(' to open the 'shape' tuple"},
    {"negative dimension", 1, 0, "{'descr': '<u4', 'fortran_order': False, 'shape': (-3,)}", 0, 12, NULL, 0, {0},
     "expected a non-negative integer in 'shape'"},
    {"dimension past 64 bits", 1, 0, "{'descr': '<u4', 'fortran_order': False, 'shape': (18446744073709551616,)}",
     0, 12, NULL, 0, {0}, "does not fit in 64 bits"},
    {"dimension times 8 overflows", 1, 0,
     "{'descr': '<f8', 'fortran_order': False, 'shape': (2305843009213693952,)}", 0, 12, NULL, 0, {0},
     "is too large: 2305843009213693952 elements of 8 bytes overflow"},
    {"largest 64-bit dimension", 1, 0,
     "{'descr': '<u4', 'fortran_order': False, 'shape': (18446744073709551615,)}", 0, 12, NULL, 0, {0},
     "is too large"},
    {"data shorter than the header says", 1, 0, u4_header, 0, 11, NULL, 0, {0},
     "the header promises 3 elements of <u4 (12 bytes), but only 11 bytes of data follow it"},
    {"large count, little data", 1, 0, "{'descr': '<u8', 'fortran_order': False, 'shape': (1000000000,)}", 0, 16,
     NULL, 0, {0}, "but only 16 bytes of data follow"},
    {"data longer than the header says", 1, 0, u4_header, 0, 16, NULL, 0, {0},
     "4 unexpected bytes follow the 3 elements"},
    {"dtype not accepted", 1, 0, "{'descr': '<f8', 'fortran_order': False, 'shape': (3,)}", 0, 24, NULL, 0,
     {.accepted_dtypes = KEY_DTYPE_BIT(KEY_DTYPE_U32)},
     "the array has dtype '<f8' (float64), which is not accepted here (accepted: <u4)"},
    {"raw not accepted", 0, 0, NULL, 0, 0, "12345678", 8,
     {.accepted_dtypes = KEY_DTYPE_BIT(KEY_DTYPE_F64) | KEY_DTYPE_BIT(KEY_DTYPE_I64)},
     "raw keys have dtype '<u4' (uint32), which is not accepted here (accepted: <i8 <f8)"},
    {"npy forced on a raw file", 0, 0, NULL, 0, 0, "12345678", 8, {.format = KEY_FILE_FORMAT_NPY},
     "not a .npy file (it does not start with \"\\x93NUMPY\")"},
    {"raw forced, odd size", 0, 0, NULL, 0, 0, "\x93NUMPY\x01\x00\x00\x00", 10, {.format = KEY_FILE_FORMAT_RAW},
     "is not a multiple of 4 (raw uint32 keys)"},
    {"unknown format option", 0, 0, NULL, 0, 0, "12345678", 8, {.format = (enum key_file_format)7},
     "unknown format option 7"},
};

static unsigned char *bad_input_bytes(const struct bad_input *bad, size_t *size)
{
    if (bad->header_text == NULL) {
        unsigned char *bytes = malloc(bad->raw_size);
        memcpy(bytes, bad->raw_bytes, bad->raw_size);
        *size = bad->raw_size;
        return bytes;
    }
    unsigned char data[64] = {0};
    size_t header_length = bad->header_length ? bad->header_length : strlen(bad->header_text);
    return build_npy(bad->major, bad->minor, bad->header_text, header_length, data, bad->data_size, size);
}

static void test_bad_inputs(void)
{
    const char *path = scratch_path("bad.npy");
    for (size_t i = 0; i < sizeof bad_inputs / sizeof bad_inputs[0]; ++i) {
        const struct bad_input *bad = &bad_inputs[i];
        size_t size;
        unsigned char *bytes = bad_input_bytes(bad, &size);
        write_file(path, bytes, size);

        char error[512] = "";
        struct key_file in = {.count = 99, .data = &in};
        int status = key_file_read(path, &bad->options, &in, error, sizeof error);
        TEST_CHECK(&counter, status == -1, "%s: refused (status %d)", bad->what, status);
        TEST_CHECK(&counter, is_zeroed(&in), "%s: nothing left to free", bad->what);
        if (status == 0)
            key_file_free(&in);
        TEST_CHECK(&counter, strncmp(error, path, strlen(path)) == 0 && strstr(error, bad->expected) != NULL,
                   "%s: message names the file and says \"%s\"; got \"%s\"", bad->what, bad->expected, error);

        char memory_error[512] = "";
        status = key_file_read_memory(bytes, size, "mem.npy", &bad->options, &in, memory_error, sizeof memory_error);
        TEST_CHECK(&counter, status == -1 && strncmp(memory_error, "mem.npy: ", 9) == 0 &&
                                 strcmp(memory_error + 9, error + strlen(path) + 2) == 0,
                   "%s: the in-memory reader says the same; got \"%s\"", bad->what, memory_error);
        if (status == 0)
            key_file_free(&in);
        free(bytes);
    }

    /* The exact sentence the issue asks for. */
    char error[256] = "";
    struct key_file in;
    const char *ten_bytes = scratch_path("file.bin");
    write_file(ten_bytes, "0123456789", 10);
    key_file_read(ten_bytes, NULL, &in, error, sizeof error);
    char expected[PATH_MAX + 64];
    snprintf(expected, sizeof expected, "%s: size 10 bytes is not a multiple of 4 (raw uint32 keys)", ten_bytes);
    TEST_CHECK(&counter, strcmp(error, expected) == 0, "raw size message is exactly \"%s\"; got \"%s\"", expected,
               error);

    const char *missing = scratch_path("no-such-file.npy");
    TEST_CHECK(&counter, key_file_read(missing, NULL, &in, error, sizeof error) == -1 &&
                             strstr(error, "no-such-file.npy: cannot open: No such file or directory") != NULL,
               "a missing path is named: %s", error);
    TEST_CHECK(&counter, key_file_read(scratch_dir, NULL, &in, error, sizeof error) == -1 &&
                             strstr(error, "is not a regular file") != NULL,
               "a directory is refused: %s", error);
    TEST_CHECK(&counter, key_file_read(NULL, NULL, &in, error, sizeof error) == -1 && strstr(error, "NULL") != NULL,
               "a NULL path is refused: %s", error);
    TEST_CHECK(&counter, key_file_read_memory(NULL, 0, NULL, NULL, &in, error, sizeof error) == 0 && in.count == 0,
               "no bytes in memory is an empty raw file: %s", error);
    TEST_CHECK(&counter, key_file_read_memory((const unsigned char *)"abcdef", 6, NULL, NULL, &in, error,
                                              sizeof error) == -1 &&
                             strncmp(error, "input: ", 7) == 0,
               "an unnamed buffer is called input: %s", error);
}

static void test_error_buffers(void)
{
    struct key_file in;
    const char *path = scratch_path("odd-size.bin");
    write_file(path, "0123456789", 10);
    TEST_CHECK(&counter, key_file_read(path, NULL, &in, NULL, 0) == -1, "a NULL error buffer is allowed");
    char small[8];
    memset(small, 'x', sizeof small);
    TEST_CHECK(&counter, key_file_read(path, NULL, &in, small, sizeof small) == -1 && small[7] == '\0' &&
                             strlen(small) == 7,
               "a short error buffer gets a truncated, terminated message");
    char untouched[4] = "abc";
    TEST_CHECK(&counter, key_file_read(path, NULL, &in, untouched, 0) == -1 && strcmp(untouched, "abc") == 0,
               "an error buffer of size 0 is not written");
    struct key_npy_header header;
    TEST_CHECK(&counter, key_file_parse_npy_header(NULL, 10, &header, NULL, 0) == -1,
               "parse_npy_header refuses NULL bytes");
}

/* ---- atomic writes ---- */

static void test_write_into_missing_directory(void)
{
    uint32_t keys[4] = {4, 3, 2, 1};
    struct key_file out = {.format = KEY_FILE_FORMAT_RAW, .dtype = KEY_DTYPE_U32, .count = 4, .data = keys};
    char error[512] = "";
    const char *path = scratch_path("missing-dir/out.bin");
    TEST_CHECK(&counter, key_file_write_atomic(path, &out, error, sizeof error) == -1 &&
                             strstr(error, "cannot create a temporary file next to it: No such file") != NULL,
               "writing into a missing directory fails clearly: %s", error);
    TEST_CHECK(&counter, !path_exists(scratch_path("missing-dir")), "the missing directory is not created");
}

static void test_write_over_directory(void)
{
    const char *directory = scratch_path("out-is-a-directory");
    mkdir(directory, 0755);
    char inside[PATH_MAX];
    snprintf(inside, sizeof inside, "%s/keep", directory);
    write_file(inside, "keep", 4);

    uint32_t keys[4] = {4, 3, 2, 1};
    struct key_file out = {.format = KEY_FILE_FORMAT_NPY, .dtype = KEY_DTYPE_U32, .count = 4, .data = keys};
    char error[512] = "";
    TEST_CHECK(&counter, key_file_write_atomic(directory, &out, error, sizeof error) == -1 &&
                             strstr(error, "cannot replace it with the new file") != NULL,
               "a directory in OUT's place fails at the rename: %s", error);
    TEST_CHECK(&counter, file_has_bytes(inside, "keep", 4), "the directory in OUT's place is untouched");
    check_no_temporaries(scratch_dir, "failed rename");
}

static void test_failed_write_keeps_old_output(void)
{
    enum { COUNT = 4096 };
    static uint32_t keys[COUNT];
    fill_random(keys, sizeof keys, 7);
    const char *path = scratch_path("existing.bin");
    static const char old_contents[] = "the old output";
    write_file(path, old_contents, sizeof old_contents);
    chmod(path, 0604); /* a mode no umask gives, so keeping it is no accident */

    for (int format = KEY_FILE_FORMAT_RAW; format <= KEY_FILE_FORMAT_NPY; ++format) {
        struct key_file out = {.format = format, .dtype = KEY_DTYPE_U32, .count = COUNT, .data = keys};
        char error[512] = "";
        int status = write_with_size_limit(path, &out, 1000, error, sizeof error);
        TEST_CHECK(&counter, status == -1 && strstr(error, "cannot write the temporary file") != NULL &&
                                 strstr(error, "File too large") != NULL,
                   "a write cut short fails (%s): %s", key_file_format_name(out.format), error);
        TEST_CHECK(&counter, file_has_bytes(path, old_contents, sizeof old_contents),
                   "the existing OUT is neither truncated nor changed (%s)", key_file_format_name(out.format));
        check_no_temporaries(scratch_dir, "failed write over an existing file");

        const char *absent = scratch_path("never-written.bin");
        status = write_with_size_limit(absent, &out, 1000, error, sizeof error);
        TEST_CHECK(&counter, status == -1 && !path_exists(absent), "a failed write leaves no OUT where none was");
        check_no_temporaries(scratch_dir, "failed write to a new file");
    }

    /* The same write without the limit succeeds, replaces the old bytes
     * entirely and keeps the old file's permissions. */
    struct key_file out = {.format = KEY_FILE_FORMAT_RAW, .dtype = KEY_DTYPE_U32, .count = 3, .data = keys};
    char error[512] = "";
    TEST_CHECK(&counter, key_file_write_atomic(path, &out, error, sizeof error) == 0 &&
                             file_has_bytes(path, keys, 12),
               "a successful write replaces a longer file completely: %s", error);
    struct stat status;
    TEST_CHECK(&counter, stat(path, &status) == 0 && (status.st_mode & 07777) == 0604,
               "the replaced file keeps its mode 0604 (got %o)", (unsigned)(status.st_mode & 07777));
    check_no_temporaries(scratch_dir, "successful write");
}

static void test_new_file_mode_and_relative_path(void)
{
    char previous_directory[PATH_MAX];
    if (getcwd(previous_directory, sizeof previous_directory) == NULL || chdir(scratch_dir) != 0) {
        TEST_CHECK(&counter, false, "cannot enter %s", scratch_dir);
        return;
    }
    mode_t previous_mask = umask(027);
    uint32_t keys[2] = {2, 1};
    struct key_file out = {.format = KEY_FILE_FORMAT_RAW, .dtype = KEY_DTYPE_U32, .count = 2, .data = keys};
    char error[512] = "";
    TEST_CHECK(&counter, key_file_write_atomic("relative.bin", &out, error, sizeof error) == 0,
               "a path with no directory writes into the current one: %s", error);
    umask(previous_mask);
    struct stat status;
    TEST_CHECK(&counter, stat("relative.bin", &status) == 0 && (status.st_mode & 07777) == 0640,
               "a new file gets 0666 minus the umask 027 (got %o)", (unsigned)(status.st_mode & 07777));
    TEST_CHECK(&counter, chdir(previous_directory) == 0, "back to %s", previous_directory);
}

static void test_invalid_key_files(void)
{
    uint32_t keys[2] = {0};
    const struct {
        const char *what;
        struct key_file keys;
        const char *expected;
    } invalid[] = {
        {"auto format", {.format = KEY_FILE_FORMAT_AUTO, .count = 2, .data = keys}, "cannot write format 'auto'"},
        {"raw float64", {.format = KEY_FILE_FORMAT_RAW, .dtype = KEY_DTYPE_F64, .count = 1, .data = keys},
         "raw key files hold uint32 keys only"},
        {"bad dtype", {.format = KEY_FILE_FORMAT_NPY, .dtype = KEY_DTYPE_COUNT, .count = 2, .data = keys},
         "unknown dtype"},
        {"element size mismatch",
         {.format = KEY_FILE_FORMAT_NPY, .dtype = KEY_DTYPE_U32, .count = 1, .element_size = 8, .data = keys},
         "element_size 8 does not match dtype <u4"},
        {"count without data", {.format = KEY_FILE_FORMAT_NPY, .dtype = KEY_DTYPE_U32, .count = 2}, "but no data"},
        {"count overflowing size_t",
         {.format = KEY_FILE_FORMAT_NPY, .dtype = KEY_DTYPE_U64, .count = SIZE_MAX / 4, .data = keys},
         "overflow size_t"},
    };
    const char *path = scratch_path("invalid.npy");
    for (size_t i = 0; i < sizeof invalid / sizeof invalid[0]; ++i) {
        char error[512] = "";
        TEST_CHECK(&counter, key_file_write_atomic(path, &invalid[i].keys, error, sizeof error) == -1 &&
                                 strstr(error, invalid[i].expected) != NULL,
                   "%s is refused with \"%s\": %s", invalid[i].what, invalid[i].expected, error);
        TEST_CHECK(&counter, !path_exists(path), "%s: nothing is written", invalid[i].what);
    }
    char error[64] = "";
    TEST_CHECK(&counter, key_file_write_atomic("", &invalid[0].keys, error, sizeof error) == -1,
               "an empty path is refused");
    TEST_CHECK(&counter, key_file_write_atomic(path, NULL, error, sizeof error) == -1, "NULL keys are refused");
    check_no_temporaries(scratch_dir, "refused writes");
}

int main(void)
{
    if (!make_scratch_dir("test_key_file"))
        return 1;
    test_dtype_names();
    test_raw_round_trip();
    test_header_matches_numpy();
    test_npy_round_trip();
    test_header_variants();
    test_bad_inputs();
    test_error_buffers();
    test_write_into_missing_directory();
    test_write_over_directory();
    test_failed_write_keeps_old_output();
    test_new_file_mode_and_relative_path();
    test_invalid_key_files();
    remove_scratch_dir();
    return test_finish(&counter);
}
