/* key_file.c: the key files of `bitonic sort IN OUT` (see key_file.h): raw
 * uint32 files and NumPy .npy files in, the same format out, written through a
 * temporary file so that a failed write never damages OUT.
 *
 * The .npy header is a Python dict literal. NumPy reads it with
 * ast.literal_eval; here a small parser accepts exactly the shapes of text
 * NumPy and hand-written files use ({'descr': '<u4', 'fortran_order': False,
 * 'shape': (5,), } with keys in any order, any spacing, either quote, a
 * trailing comma, Python 2's 5L) and rejects everything else with a message
 * that says what it expected where.
 *
 * Large files are read, and written back, by several threads at once, each
 * moving its own range with pread/pwrite; every call still returns only when
 * all of them have finished, and a thread that cannot be started only makes
 * the call slower.
 */
/* O_DIRECT and madvise(MADV_HUGEPAGE) are Linux's, under _GNU_SOURCE. */
#define _GNU_SOURCE

#include "key_file.h"
#include "output_file.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "key_file.c copies little-endian keys as they are: it needs a little-endian host"
#endif

static const unsigned char npy_magic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};

/* NumPy leaves this much room for the digits of the growing axis, so that an
 * appending writer can rewrite the shape in place; copying it makes our
 * headers byte-identical to NumPy's. */
enum { NPY_GROWTH_AXIS_MAX_DIGITS = 21, NPY_ARRAY_ALIGN = 64 };

/* Longest piece of file text quoted back in a message. */
enum { QUOTE_MAX = 40 };

struct dtype_info {
    const char *name;
    const char *descr;
    size_t size;
};

static const struct dtype_info dtype_infos[KEY_DTYPE_COUNT] = {
    [KEY_DTYPE_U32] = {"uint32", "<u4", 4}, [KEY_DTYPE_I32] = {"int32", "<i4", 4},
    [KEY_DTYPE_F32] = {"float32", "<f4", 4}, [KEY_DTYPE_U64] = {"uint64", "<u8", 8},
    [KEY_DTYPE_I64] = {"int64", "<i8", 8},   [KEY_DTYPE_F64] = {"float64", "<f8", 8},
};

static bool dtype_is_valid(enum key_dtype dtype)
{
    return (unsigned)dtype < (unsigned)KEY_DTYPE_COUNT;
}

const char *key_dtype_name(enum key_dtype dtype)
{
    return dtype_is_valid(dtype) ? dtype_infos[dtype].name : "unknown";
}

const char *key_dtype_descr(enum key_dtype dtype)
{
    return dtype_is_valid(dtype) ? dtype_infos[dtype].descr : "?";
}

size_t key_dtype_size(enum key_dtype dtype)
{
    return dtype_is_valid(dtype) ? dtype_infos[dtype].size : 0;
}

const char *key_file_format_name(enum key_file_format format)
{
    switch (format) {
    case KEY_FILE_FORMAT_AUTO: return "auto";
    case KEY_FILE_FORMAT_RAW: return "raw";
    case KEY_FILE_FORMAT_NPY: return "npy";
    }
    return "unknown";
}

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static int fail(char *error, size_t error_size, const char *format, ...)
{
    if (error != NULL && error_size > 0) {
        va_list args;
        va_start(args, format);
        vsnprintf(error, error_size, format, args);
        va_end(args);
    }
    return -1;
}

/* ---- the .npy header dict ---- */

struct header_cursor {
    const unsigned char *text; /* the dict text, not NUL-terminated */
    size_t length;
    size_t position;
    size_t file_offset; /* of text[0], so messages can point into the file */
    char *error;
    size_t error_size;
};

/* What the dict said; a key's "seen" flag catches missing and repeated keys. */
struct header_values {
    bool seen_descr, seen_fortran_order, seen_shape;
    enum key_dtype dtype;
    bool fortran_order;
    size_t dimensions;
    uint64_t first_dimension;
    size_t shape_start, shape_end; /* the shape's text, for messages */
};

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static int header_fail(struct header_cursor *cursor, const char *format, ...)
{
    char detail[256];
    va_list args;
    va_start(args, format);
    vsnprintf(detail, sizeof detail, format, args);
    va_end(args);
    return fail(cursor->error, cursor->error_size, "broken .npy header: %s (at byte %zu of the file)", detail,
                cursor->file_offset + cursor->position);
}

static int peek(const struct header_cursor *cursor)
{
    return cursor->position < cursor->length ? cursor->text[cursor->position] : -1;
}

static void skip_space(struct header_cursor *cursor)
{
    while (cursor->position < cursor->length) {
        unsigned char c = cursor->text[cursor->position];
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
            break;
        ++cursor->position;
    }
}

static int expect_char(struct header_cursor *cursor, char expected, const char *where)
{
    if (peek(cursor) != (unsigned char)expected)
        return header_fail(cursor, "expected '%c' %s", expected, where);
    ++cursor->position;
    return 0;
}

/* A Python string literal without escapes (no key or dtype NumPy writes has
 * any): sets *start and *length to its contents. */
static int parse_string(struct header_cursor *cursor, const char *what, size_t *start, size_t *length)
{
    int quote = peek(cursor);
    if (quote != '\'' && quote != '"')
        return header_fail(cursor, "expected a quoted string for %s", what);
    size_t begin = ++cursor->position;
    while (cursor->position < cursor->length) {
        unsigned char c = cursor->text[cursor->position];
        if (c == quote) {
            *start = begin;
            *length = cursor->position - begin;
            ++cursor->position;
            return 0;
        }
        if (c == '\\' || c == '\n')
            return header_fail(cursor, "unexpected %s inside the string for %s",
                               c == '\\' ? "backslash" : "line break", what);
        ++cursor->position;
    }
    cursor->position = begin - 1;
    return header_fail(cursor, "unterminated string for %s", what);
}

static bool text_equals(const struct header_cursor *cursor, size_t start, size_t length, const char *word)
{
    return strlen(word) == length && memcmp(cursor->text + start, word, length) == 0;
}

/* Copies at most QUOTE_MAX bytes of header text into out for a message,
 * replacing anything unprintable so the message stays one readable line. */
static void quote_text(const struct header_cursor *cursor, size_t start, size_t length, char *out,
                       size_t out_size)
{
    size_t shown = length < QUOTE_MAX ? length : QUOTE_MAX;
    if (shown >= out_size)
        shown = out_size - 1;
    for (size_t i = 0; i < shown; ++i) {
        unsigned char c = cursor->text[start + i];
        out[i] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
    }
    out[shown] = '\0';
    if (shown < length && shown >= 3)
        memcpy(out + shown - 3, "...", 3);
}

static int dtype_from_descr(struct header_cursor *cursor, size_t start, size_t length, enum key_dtype *dtype)
{
    char quoted[QUOTE_MAX + 1];
    quote_text(cursor, start, length, quoted, sizeof quoted);
    const unsigned char *descr = cursor->text + start;
    if (length == 3 && (descr[0] == '<' || descr[0] == '=' || descr[0] == '>')) {
        for (int candidate = 0; candidate < KEY_DTYPE_COUNT; ++candidate) {
            if (memcmp(descr + 1, dtype_infos[candidate].descr + 1, 2) != 0)
                continue;
            /* '=' is native order, and this module only runs on little-endian hosts. */
            if (descr[0] == '>')
                return fail(cursor->error, cursor->error_size,
                            "dtype '%s' is big-endian; only little-endian ('<' or '=') keys are supported "
                            "(convert with arr.astype('%s'))",
                            quoted, dtype_infos[candidate].descr);
            *dtype = (enum key_dtype)candidate;
            return 0;
        }
    }
    return fail(cursor->error, cursor->error_size,
                "dtype '%s' is not supported (supported: <u4 <i4 <f4 <u8 <i8 <f8)", quoted);
}

static int parse_descr(struct header_cursor *cursor, struct header_values *values)
{
    if (peek(cursor) == '[')
        return fail(cursor->error, cursor->error_size,
                    "the array has a structured dtype (a list 'descr'); only plain numbers are supported");
    size_t start, length;
    if (parse_string(cursor, "'descr'", &start, &length) != 0)
        return -1;
    return dtype_from_descr(cursor, start, length, &values->dtype);
}

static int parse_bool(struct header_cursor *cursor, bool *value)
{
    static const char *const words[2] = {"False", "True"};
    for (int word = 0; word < 2; ++word) {
        size_t length = strlen(words[word]);
        if (cursor->length - cursor->position >= length &&
            memcmp(cursor->text + cursor->position, words[word], length) == 0) {
            cursor->position += length;
            *value = word == 1;
            return 0;
        }
    }
    return header_fail(cursor, "expected True or False for 'fortran_order'");
}

/* A non-negative Python integer, with Python 2's L suffix allowed. */
static int parse_dimension(struct header_cursor *cursor, uint64_t *value)
{
    *value = 0;
    int c = peek(cursor);
    if (c < '0' || c > '9')
        return header_fail(cursor, "expected a non-negative integer in 'shape'");
    uint64_t number = 0;
    while ((c = peek(cursor)) >= '0' && c <= '9') {
        unsigned digit = (unsigned)(c - '0');
        if (number > (UINT64_MAX - digit) / 10)
            return header_fail(cursor, "a dimension in 'shape' does not fit in 64 bits");
        number = number * 10 + digit;
        ++cursor->position;
    }
    if (c == 'L' || c == 'l')
        ++cursor->position;
    *value = number;
    return 0;
}

/* A Python tuple of integers: (), (5,), (5, ), (2, 3). A bare (5) is an
 * integer in Python, not a tuple, and NumPy rejects it; so do we. */
static int parse_shape(struct header_cursor *cursor, struct header_values *values)
{
    values->shape_start = cursor->position;
    if (expect_char(cursor, '(', "to open the 'shape' tuple") != 0)
        return -1;
    values->dimensions = 0;
    bool saw_comma = false;
    skip_space(cursor);
    while (peek(cursor) != ')') {
        uint64_t dimension;
        if (parse_dimension(cursor, &dimension) != 0)
            return -1;
        if (values->dimensions++ == 0)
            values->first_dimension = dimension;
        skip_space(cursor);
        if (peek(cursor) == ',') {
            saw_comma = true;
            ++cursor->position;
            skip_space(cursor);
        } else if (peek(cursor) != ')') {
            return header_fail(cursor, "expected ',' or ')' in 'shape'");
        }
    }
    ++cursor->position;
    values->shape_end = cursor->position;
    if (values->dimensions == 1 && !saw_comma)
        return header_fail(cursor, "'shape' is a bare integer, not a tuple (write (N,) with a comma)");
    return 0;
}

static int parse_entry(struct header_cursor *cursor, struct header_values *values)
{
    size_t key_start, key_length;
    size_t key_position = cursor->position;
    if (parse_string(cursor, "a key", &key_start, &key_length) != 0)
        return -1;
    bool *seen;
    if (text_equals(cursor, key_start, key_length, "descr"))
        seen = &values->seen_descr;
    else if (text_equals(cursor, key_start, key_length, "fortran_order"))
        seen = &values->seen_fortran_order;
    else if (text_equals(cursor, key_start, key_length, "shape"))
        seen = &values->seen_shape;
    else {
        char quoted[QUOTE_MAX + 1];
        quote_text(cursor, key_start, key_length, quoted, sizeof quoted);
        cursor->position = key_position;
        return header_fail(cursor, "unexpected key '%s' (only 'descr', 'fortran_order' and 'shape' belong there)",
                           quoted);
    }
    if (*seen) {
        cursor->position = key_position;
        return header_fail(cursor, "the key '%.*s' appears twice", (int)key_length,
                           (const char *)cursor->text + key_start);
    }
    *seen = true;
    skip_space(cursor);
    if (expect_char(cursor, ':', "after a key") != 0)
        return -1;
    skip_space(cursor);
    if (seen == &values->seen_descr)
        return parse_descr(cursor, values);
    if (seen == &values->seen_fortran_order)
        return parse_bool(cursor, &values->fortran_order);
    return parse_shape(cursor, values);
}

static int parse_dict(struct header_cursor *cursor, struct header_values *values)
{
    skip_space(cursor);
    if (expect_char(cursor, '{', "at the start of the header dict") != 0)
        return -1;
    for (;;) {
        skip_space(cursor);
        if (peek(cursor) == '}')
            break;
        if (parse_entry(cursor, values) != 0)
            return -1;
        skip_space(cursor);
        if (peek(cursor) == ',') {
            ++cursor->position; /* a trailing comma before '}' is fine, as in Python */
            continue;
        }
        if (peek(cursor) != '}')
            return header_fail(cursor, "expected ',' or '}' after a value");
    }
    ++cursor->position;
    skip_space(cursor); /* NumPy pads with spaces and ends with a newline */
    if (cursor->position != cursor->length)
        return header_fail(cursor, "unexpected text after the header dict");
    const char *missing = !values->seen_descr           ? "descr"
                          : !values->seen_fortran_order ? "fortran_order"
                          : !values->seen_shape         ? "shape"
                                                        : NULL;
    if (missing != NULL)
        return header_fail(cursor, "the key '%s' is missing", missing);
    return 0;
}

/* Turns a parsed shape into a count and checks it is 1-D and small enough
 * that data_offset + count * size never overflows. */
static int check_shape(struct header_cursor *cursor, const struct header_values *values, size_t data_offset,
                       struct key_npy_header *header)
{
    char shape_text[QUOTE_MAX + 1];
    quote_text(cursor, values->shape_start, values->shape_end - values->shape_start, shape_text,
               sizeof shape_text);
    if (values->dimensions != 1)
        return fail(cursor->error, cursor->error_size, "shape %s is %zu-D; only 1-D arrays are supported",
                    shape_text, values->dimensions);
    size_t element_size = dtype_infos[values->dtype].size;
    uint64_t count = values->first_dimension;
    if (count > SIZE_MAX || (size_t)count > (SIZE_MAX - data_offset) / element_size)
        return fail(cursor->error, cursor->error_size,
                    "shape %s is too large: %llu elements of %zu bytes overflow this machine's size_t",
                    shape_text, (unsigned long long)count, element_size);
    header->count = (size_t)count;
    header->data_size = header->count * element_size;
    return 0;
}

static uint32_t read_le(const unsigned char *bytes, size_t width)
{
    uint32_t value = 0;
    for (size_t i = width; i-- > 0;)
        value = (value << 8) | bytes[i];
    return value;
}

int key_file_parse_npy_header(const unsigned char *bytes, size_t size, struct key_npy_header *header,
                              char *error, size_t error_size)
{
    if (header == NULL || (bytes == NULL && size > 0))
        return fail(error, error_size, "key_file_parse_npy_header: NULL argument");
    memset(header, 0, sizeof *header);
    if (size < sizeof npy_magic || memcmp(bytes, npy_magic, sizeof npy_magic) != 0)
        return fail(error, error_size, "not a .npy file (it does not start with \"\\x93NUMPY\")");
    if (size < 8)
        return fail(error, error_size, "truncated .npy file: %zu bytes end before the format version", size);
    unsigned major = bytes[6], minor = bytes[7];
    if (major < 1 || major > 3 || minor != 0)
        return fail(error, error_size, "unsupported .npy format version %u.%u (known: 1.0, 2.0, 3.0)", major,
                    minor);
    /* Version 1.0 has a 2-byte header length; 2.0 and 3.0 widened it to 4. */
    size_t length_width = major == 1 ? 2 : 4;
    size_t prefix = 8 + length_width;
    if (size < prefix)
        return fail(error, error_size, "truncated .npy file: %zu bytes end before the header length", size);
    uint32_t header_length = read_le(bytes + 8, length_width);
    if (header_length > size - prefix)
        return fail(error, error_size,
                    "truncated .npy file: the header says it is %lu bytes long, but only %zu bytes follow",
                    (unsigned long)header_length, size - prefix);

    struct header_cursor cursor = {
        .text = bytes + prefix,
        .length = header_length,
        .file_offset = prefix,
        .error = error,
        .error_size = error_size,
    };
    struct header_values values = {0};
    if (parse_dict(&cursor, &values) != 0)
        return -1;
    header->major_version = major;
    header->dtype = values.dtype;
    header->fortran_order = values.fortran_order;
    header->data_offset = prefix + header_length;
    return check_shape(&cursor, &values, header->data_offset, header);
}

size_t key_file_format_npy_header(enum key_dtype dtype, size_t count, unsigned char *header, size_t capacity)
{
    if (!dtype_is_valid(dtype) || header == NULL)
        return 0;
    char dict[KEY_NPY_HEADER_MAX];
    int dict_length = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (%zu,), }",
                               dtype_infos[dtype].descr, count);
    if (dict_length < 0 || (size_t)dict_length >= sizeof dict)
        return 0;
    int count_digits = snprintf(NULL, 0, "%zu", count);
    size_t growth = count_digits < NPY_GROWTH_AXIS_MAX_DIGITS ? (size_t)(NPY_GROWTH_AXIS_MAX_DIGITS - count_digits) : 0;
    /* As NumPy's _wrap_header: the text, the growth room, 1 to 64 spaces and a
     * newline, so that magic + version + length + header is a multiple of 64. */
    size_t prefix = 10;
    size_t text_length = (size_t)dict_length + growth + 1;
    size_t padding = NPY_ARRAY_ALIGN - (prefix + text_length) % NPY_ARRAY_ALIGN;
    size_t total = prefix + text_length + padding;
    if (total > capacity || total - prefix > UINT16_MAX)
        return 0;
    memcpy(header, npy_magic, sizeof npy_magic);
    header[6] = 1;
    header[7] = 0;
    header[8] = (unsigned char)((total - prefix) & 0xff);
    header[9] = (unsigned char)((total - prefix) >> 8);
    memcpy(header + prefix, dict, (size_t)dict_length);
    memset(header + prefix + dict_length, ' ', growth + padding);
    header[total - 1] = '\n';
    return total;
}

/* ---- reading ---- */

/* Where the keys are inside a file's bytes. */
struct key_layout {
    enum key_file_format format;
    enum key_dtype dtype;
    size_t count;
    size_t data_offset;
    size_t data_size;
};

static bool has_npy_magic(const unsigned char *bytes, size_t size)
{
    return size >= sizeof npy_magic && memcmp(bytes, npy_magic, sizeof npy_magic) == 0;
}

static void describe_dtypes(unsigned dtypes, char *out, size_t out_size)
{
    size_t used = 0;
    out[0] = '\0';
    for (int dtype = 0; dtype < KEY_DTYPE_COUNT; ++dtype) {
        if ((dtypes & KEY_DTYPE_BIT(dtype)) == 0)
            continue;
        int written = snprintf(out + used, out_size - used, "%s%s", used ? " " : "", dtype_infos[dtype].descr);
        if (written < 0 || (size_t)written >= out_size - used)
            return;
        used += (size_t)written;
    }
}

static int check_accepted(enum key_dtype dtype, bool raw, unsigned accepted, char *error, size_t error_size)
{
    if (accepted & KEY_DTYPE_BIT(dtype))
        return 0;
    char accepted_list[64];
    describe_dtypes(accepted, accepted_list, sizeof accepted_list);
    return fail(error, error_size, "%s dtype '%s' (%s), which is not accepted here (accepted: %s)",
                raw ? "raw keys have" : "the array has", dtype_infos[dtype].descr, dtype_infos[dtype].name,
                accepted_list[0] ? accepted_list : "none");
}

static int describe_raw(size_t size, unsigned accepted, struct key_layout *layout, char *error, size_t error_size)
{
    if (size % 4 != 0)
        return fail(error, error_size, "size %zu bytes is not a multiple of 4 (raw uint32 keys)", size);
    if (check_accepted(KEY_DTYPE_U32, true, accepted, error, error_size) != 0)
        return -1;
    *layout = (struct key_layout){KEY_FILE_FORMAT_RAW, KEY_DTYPE_U32, size / 4, 0, size};
    return 0;
}

static int describe_npy(const unsigned char *bytes, size_t size, unsigned accepted, struct key_layout *layout,
                        char *error, size_t error_size)
{
    struct key_npy_header header;
    if (key_file_parse_npy_header(bytes, size, &header, error, error_size) != 0)
        return -1;
    if (check_accepted(header.dtype, false, accepted, error, error_size) != 0)
        return -1;
    size_t available = size - header.data_offset;
    if (available < header.data_size)
        return fail(error, error_size,
                    "truncated .npy file: the header promises %zu elements of %s (%zu bytes), "
                    "but only %zu bytes of data follow it",
                    header.count, dtype_infos[header.dtype].descr, header.data_size, available);
    if (available > header.data_size)
        return fail(error, error_size,
                    "%zu unexpected bytes follow the %zu elements the .npy header describes",
                    available - header.data_size, header.count);
    *layout = (struct key_layout){KEY_FILE_FORMAT_NPY, header.dtype, header.count, header.data_offset,
                                  header.data_size};
    return 0;
}

static int describe_bytes(const unsigned char *bytes, size_t size, const struct key_file_read_options *options,
                          struct key_layout *layout, char *error, size_t error_size)
{
    enum key_file_format format = options ? options->format : KEY_FILE_FORMAT_AUTO;
    unsigned accepted = options && options->accepted_dtypes ? options->accepted_dtypes : KEY_DTYPE_ALL_BITS;
    if (format == KEY_FILE_FORMAT_AUTO)
        format = has_npy_magic(bytes, size) ? KEY_FILE_FORMAT_NPY : KEY_FILE_FORMAT_RAW;
    switch (format) {
    case KEY_FILE_FORMAT_RAW: return describe_raw(size, accepted, layout, error, error_size);
    case KEY_FILE_FORMAT_NPY: return describe_npy(bytes, size, accepted, layout, error, error_size);
    case KEY_FILE_FORMAT_AUTO: break;
    }
    return fail(error, error_size, "unknown format option %d", (int)format);
}

static void fill_key_file(const struct key_layout *layout, void *data, struct key_file *out)
{
    *out = (struct key_file){
        .format = layout->format,
        .dtype = layout->dtype,
        .count = layout->count,
        .element_size = dtype_infos[layout->dtype].size,
        .data = data,
    };
}

/* Messages name the file: "keys.npy: <detail>". */
enum { DETAIL_MAX = 320 };

int key_file_read_memory(const unsigned char *bytes, size_t size, const char *name,
                         const struct key_file_read_options *options, struct key_file *out, char *error,
                         size_t error_size)
{
    if (name == NULL)
        name = "input";
    if (out == NULL || (bytes == NULL && size > 0))
        return fail(error, error_size, "%s: key_file_read_memory: NULL argument", name);
    memset(out, 0, sizeof *out);
    char detail[DETAIL_MAX];
    struct key_layout layout;
    if (describe_bytes(bytes, size, options, &layout, detail, sizeof detail) != 0)
        return fail(error, error_size, "%s: %s", name, detail);
    void *data = NULL;
    if (layout.data_size > 0) {
        data = malloc(layout.data_size);
        if (data == NULL)
            return fail(error, error_size, "%s: out of memory for %zu bytes of keys", name, layout.data_size);
        memcpy(data, bytes + layout.data_offset, layout.data_size);
    }
    fill_key_file(&layout, data, out);
    return 0;
}

/* Blocks of this size or more are asked for in huge pages: a fresh buffer
 * faults in 2 MiB at a time instead of 4 KiB (reading 64 MiB took 30-130 ms
 * into plain pages and 17 ms into huge ones on the 2-core machine), and the
 * sort that follows misses the TLB less. */
#define HUGE_BLOCK_BYTES ((size_t)4 << 20)
#define HUGE_PAGE_BYTES ((size_t)2 << 20)
/* O_DIRECT wants buffer, offset and length aligned to the logical block. */
#define DIRECT_ALIGN ((size_t)4096)
/* Linux moves at most about 2 GiB per read or write call; ask for 1 GiB. */
#define IO_CALL_MAX_BYTES ((size_t)1 << 30)

/* Files of this size or more are read, and blocks written, by several threads
 * at once, each moving its own contiguous range. One thread copying out of
 * the page cache into a fresh buffer (and zeroing each huge page as it faults
 * it in) is far slower than memory: a cached 256 MiB file took a median of
 * 84 ms to read with one thread and 17 ms with eight on a 16-core machine
 * (25 ms with four, 17 with sixteen), 42 ms and 38 ms with one and two on the
 * 2-core one. Each thread gets at least PARALLEL_IO_RANGE_MIN bytes, so that
 * starting it costs little next to its share of the copy. */
#define PARALLEL_IO_MIN_BYTES ((size_t)16 << 20)
#define PARALLEL_IO_RANGE_MIN ((size_t)8 << 20)
enum { PARALLEL_IO_MAX_THREADS = 8 };

enum range_outcome { RANGE_PENDING = 0, RANGE_DONE, RANGE_FILE_ENDED, RANGE_FAILED };

/* One thread's share of a transfer between a file and a block in memory that
 * mirrors it from offset 0: bytes [start, end) of both. */
struct io_range {
    int fd;
    unsigned char *read_into;        /* the block, when reading */
    const unsigned char *write_from; /* the block, when writing */
    size_t start, end;
    size_t done; /* bytes of the range moved so far, counted from start */
    /* The fd has O_DIRECT on: a short write that leaves the next offset off
     * DIRECT_ALIGN ends this range's direct part (the rest goes buffered). */
    bool direct;
    enum range_outcome outcome;
    int error_number; /* errno, when outcome is RANGE_FAILED */
};

/* Moves what is left of one range with pread or pwrite (which leave the file
 * offset alone, so ranges do not disturb each other). A pthread start routine. */
static void *move_range(void *argument)
{
    struct io_range *range = argument;
    range->outcome = RANGE_DONE;
    while (range->start + range->done < range->end) {
        size_t offset = range->start + range->done;
        size_t chunk = range->end - offset < IO_CALL_MAX_BYTES ? range->end - offset : IO_CALL_MAX_BYTES;
        ssize_t moved = range->write_from != NULL
                            ? pwrite(range->fd, range->write_from + offset, chunk, (off_t)offset)
                            : pread(range->fd, range->read_into + offset, chunk, (off_t)offset);
        if (moved < 0 && errno == EINTR)
            continue;
        if (moved < 0) {
            range->outcome = RANGE_FAILED;
            range->error_number = errno;
            return NULL;
        }
        if (moved == 0 && range->write_from == NULL) {
            range->outcome = RANGE_FILE_ENDED;
            return NULL;
        }
        if (moved == 0) { /* a write that takes nothing and says no error */
            range->outcome = RANGE_FAILED;
            range->error_number = EIO;
            return NULL;
        }
        range->done += (size_t)moved;
        if (range->direct && range->done % DIRECT_ALIGN != 0) {
            /* O_DIRECT cannot go on from here; the buffered pass will. */
            range->outcome = RANGE_FAILED;
            range->error_number = EINVAL;
            return NULL;
        }
    }
    return NULL;
}

/* How many threads move size bytes: one below PARALLEL_IO_MIN_BYTES, else
 * one per PARALLEL_IO_RANGE_MIN bytes, but no more than there are CPUs online
 * or PARALLEL_IO_MAX_THREADS. */
static unsigned io_thread_count(size_t size)
{
    if (size < PARALLEL_IO_MIN_BYTES)
        return 1;
    size_t count = size / PARALLEL_IO_RANGE_MIN;
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    if (online > 0 && count > (size_t)online)
        count = (size_t)online;
    if (count > PARALLEL_IO_MAX_THREADS)
        count = PARALLEL_IO_MAX_THREADS;
    return (unsigned)count;
}

/* Splits bytes [0, size) of fd and block into ranges of equal size, each but
 * the last a multiple of HUGE_PAGE_BYTES: so every range starts where O_DIRECT
 * can, and a reading thread faults in huge pages of its own instead of racing
 * its neighbour for a shared one. Exactly one of read_into and write_from is
 * the block. Returns how many ranges (at least 1, even for size 0). */
static unsigned split_into_ranges(int fd, unsigned char *read_into, const unsigned char *write_from, size_t size,
                                  struct io_range ranges[PARALLEL_IO_MAX_THREADS])
{
    unsigned threads = io_thread_count(size);
    size_t share = size;
    if (threads > 1)
        share = (size / threads + HUGE_PAGE_BYTES - 1) / HUGE_PAGE_BYTES * HUGE_PAGE_BYTES;
    unsigned count = 0;
    size_t start = 0;
    do {
        size_t end = size - start <= share ? size : start + share;
        ranges[count++] = (struct io_range){
            .fd = fd, .read_into = read_into, .write_from = write_from, .start = start, .end = end};
        start = end;
    } while (start < size && count < threads);
    return count;
}

/* Moves every range not yet done: ranges[0] on the calling thread, each other
 * on a thread of its own. A range whose thread cannot be started is moved on
 * the calling thread instead, so a shortage of threads makes it slower, never
 * a failure. Returns when all have finished. */
static void move_ranges(struct io_range *ranges, unsigned count)
{
    pthread_t threads[PARALLEL_IO_MAX_THREADS];
    bool started[PARALLEL_IO_MAX_THREADS] = {false};
    for (unsigned i = 1; i < count; ++i)
        started[i] =
            ranges[i].outcome != RANGE_DONE && pthread_create(&threads[i], NULL, move_range, &ranges[i]) == 0;
    move_range(&ranges[0]);
    for (unsigned i = 1; i < count; ++i) {
        if (started[i])
            pthread_join(threads[i], NULL);
        else
            move_range(&ranges[i]);
    }
}

/* The range to report after move_ranges: the first that failed with an error,
 * else the first that did not finish, else NULL when all are done. */
static const struct io_range *worst_range(const struct io_range *ranges, unsigned count)
{
    const struct io_range *unfinished = NULL;
    for (unsigned i = 0; i < count; ++i) {
        if (ranges[i].outcome == RANGE_FAILED)
            return &ranges[i];
        if (ranges[i].outcome != RANGE_DONE && unfinished == NULL)
            unfinished = &ranges[i];
    }
    return unfinished;
}

/* Reads what fstat promised and checks one more byte hits end of file, so a
 * file that grows or shrinks while we read is an error, not cut-short keys. */
static int read_open_file(int fd, size_t file_size, unsigned char *buffer, char *error, size_t error_size)
{
    struct io_range ranges[PARALLEL_IO_MAX_THREADS];
    unsigned count = split_into_ranges(fd, buffer, NULL, file_size, ranges);
    move_ranges(ranges, count);
    const struct io_range *worst = worst_range(ranges, count);
    if (worst != NULL && worst->outcome == RANGE_FAILED)
        return fail(error, error_size, "cannot read: %s", strerror(worst->error_number));
    if (worst != NULL)
        return fail(error, error_size, "the file changed size while it was being read");
    unsigned char extra;
    ssize_t got;
    do
        got = pread(fd, &extra, 1, (off_t)file_size);
    while (got < 0 && errno == EINTR);
    if (got < 0)
        return fail(error, error_size, "cannot read: %s", strerror(errno));
    if (got > 0) /* there was more: the file grew */
        return fail(error, error_size, "the file changed size while it was being read");
    return 0; /* end of file right where fstat said */
}

/* At least 1 byte, page aligned (for O_DIRECT when it is written back), in
 * huge pages when large; NULL when out of memory. free() releases it. */
static unsigned char *allocate_block(size_t size)
{
    void *block = NULL;
    size_t alignment = size >= HUGE_BLOCK_BYTES ? HUGE_PAGE_BYTES : DIRECT_ALIGN;
    if (posix_memalign(&block, alignment, size > 0 ? size : 1) != 0)
        return NULL;
#ifdef MADV_HUGEPAGE
    if (size >= HUGE_BLOCK_BYTES)
        (void)madvise(block, (size + HUGE_PAGE_BYTES - 1) / HUGE_PAGE_BYTES * HUGE_PAGE_BYTES, MADV_HUGEPAGE);
#endif
    return block;
}

/* The whole file into a block from allocate_block. */
static int read_whole_file(const char *path, unsigned char **bytes, size_t *size, char *error, size_t error_size)
{
    *bytes = NULL;
    *size = 0;
    struct stat status;
    bool not_regular;
    int fd = open_regular_file(path, &status, &not_regular);
    if (fd < 0 && not_regular)
        return fail(error, error_size, "is not a regular file");
    if (fd < 0)
        return fail(error, error_size, "cannot open: %s", strerror(errno));
    unsigned char *buffer = NULL;
    int result = -1;
    if ((uintmax_t)status.st_size > SIZE_MAX)
        fail(error, error_size, "is too large (%jd bytes) to hold in memory", (intmax_t)status.st_size);
    else if ((buffer = allocate_block((size_t)status.st_size)) == NULL)
        fail(error, error_size, "out of memory reading %jd bytes", (intmax_t)status.st_size);
    else
        result = read_open_file(fd, (size_t)status.st_size, buffer, error, error_size);
    close(fd);
    if (result != 0) {
        free(buffer);
        return -1;
    }
    *bytes = buffer;
    *size = (size_t)status.st_size;
    return 0;
}

int key_file_read(const char *path, const struct key_file_read_options *options, struct key_file *out,
                  char *error, size_t error_size)
{
    if (out == NULL || path == NULL)
        return fail(error, error_size, "key_file_read: NULL argument");
    memset(out, 0, sizeof *out);
    char detail[DETAIL_MAX];
    unsigned char *bytes;
    size_t size;
    if (read_whole_file(path, &bytes, &size, detail, sizeof detail) != 0)
        return fail(error, error_size, "%s: %s", path, detail);
    struct key_layout layout;
    if (describe_bytes(bytes, size, options, &layout, detail, sizeof detail) != 0) {
        free(bytes);
        return fail(error, error_size, "%s: %s", path, detail);
    }
    if (layout.data_size == 0) {
        free(bytes);
        fill_key_file(&layout, NULL, out);
    } else if (layout.data_offset % 8 == 0) {
        /* The keys stay where they were read, after the header: aligned for
         * every dtype, and no second pass over them. */
        fill_key_file(&layout, bytes + layout.data_offset, out);
        out->allocation = bytes;
    } else {
        /* A header of odd length (hand-made files): slide the keys to the
         * start of the block, where every dtype is aligned. */
        memmove(bytes, bytes + layout.data_offset, layout.data_size);
        fill_key_file(&layout, bytes, out);
        out->allocation = bytes;
    }
    return 0;
}

void key_file_free(struct key_file *keys)
{
    if (keys == NULL)
        return;
    free(keys->allocation ? keys->allocation : keys->data);
    memset(keys, 0, sizeof *keys);
}

/* ---- writing ---- */

static int check_writable(const struct key_file *keys, size_t *data_size, char *error, size_t error_size)
{
    *data_size = 0;
    if (keys->format != KEY_FILE_FORMAT_RAW && keys->format != KEY_FILE_FORMAT_NPY)
        return fail(error, error_size, "cannot write format '%s' (only raw or npy)",
                    key_file_format_name(keys->format));
    if (!dtype_is_valid(keys->dtype))
        return fail(error, error_size, "unknown dtype %d", (int)keys->dtype);
    size_t element_size = dtype_infos[keys->dtype].size;
    if (keys->element_size != 0 && keys->element_size != element_size)
        return fail(error, error_size, "element_size %zu does not match dtype %s (%zu bytes)", keys->element_size,
                    dtype_infos[keys->dtype].descr, element_size);
    if (keys->format == KEY_FILE_FORMAT_RAW && keys->dtype != KEY_DTYPE_U32)
        return fail(error, error_size, "raw key files hold uint32 keys only, not %s; write .npy instead",
                    dtype_infos[keys->dtype].name);
    if (keys->count > (SIZE_MAX - KEY_NPY_HEADER_MAX) / element_size)
        return fail(error, error_size, "%zu elements of %zu bytes overflow size_t", keys->count, element_size);
    if (keys->count > 0 && keys->data == NULL)
        return fail(error, error_size, "%zu keys but no data", keys->count);
    *data_size = keys->count * element_size;
    return 0;
}

static int write_all(int fd, const void *data, size_t size)
{
    const unsigned char *bytes = data;
    while (size > 0) {
        size_t chunk = size < IO_CALL_MAX_BYTES ? size : IO_CALL_MAX_BYTES;
        ssize_t written = write(fd, bytes, chunk);
        if (written < 0 && errno == EINTR)
            continue;
        if (written < 0)
            return -1;
        if (written == 0) {
            errno = EIO;
            return -1;
        }
        bytes += written;
        size -= (size_t)written;
    }
    return 0;
}

/* The process umask, read from /proc without changing it (umask() can only
 * be read by setting it, which would race with other threads creating files).
 * Returns -1 where /proc does not say. */
static long current_umask(void)
{
    FILE *status = fopen("/proc/self/status", "r");
    if (status == NULL)
        return -1;
    char line[256];
    long mask = -1;
    while (fgets(line, sizeof line, status) != NULL) {
        if (strncmp(line, "Umask:", 6) == 0) {
            char *end;
            long parsed = strtol(line + 6, &end, 8);
            if (end != line + 6 && parsed >= 0 && parsed <= 0777)
                mask = parsed;
            break;
        }
    }
    fclose(status);
    return mask;
}

/* mkstemp makes the file 0600. Give it what the file it replaces had, or what
 * a plain fopen would have made; where the umask is unknown stay at 0600,
 * which errs on the private side. */
static int set_output_mode(int fd, const char *path)
{
    struct stat existing;
    mode_t mode;
    if (stat(path, &existing) == 0 && S_ISREG(existing.st_mode)) {
        mode = existing.st_mode & 07777;
    } else {
        long mask = current_umask();
        if (mask < 0)
            return 0;
        mode = (mode_t)(0666 & ~mask);
    }
    return fchmod(fd, mode);
}

/* Makes the rename itself durable. Best effort: by now OUT has been replaced,
 * so a failure here cannot be reported as "OUT untouched". */
static void sync_parent_directory(const char *path)
{
    const char *slash = strrchr(path, '/');
    char *directory;
    if (slash == NULL)
        directory = strdup(".");
    else if (slash == path)
        directory = strdup("/");
    else
        directory = strndup(path, (size_t)(slash - path));
    if (directory == NULL)
        return;
    int fd = open(directory, O_RDONLY | O_DIRECTORY);
    if (fd >= 0) {
        (void)fsync(fd);
        close(fd);
    }
    free(directory);
}

/* Writes size bytes from a DIRECT_ALIGN-aligned block at offset 0 of fd: the
 * aligned bulk with O_DIRECT, which skips the page cache (64 MiB took 20 ms
 * this way against 35-280 ms buffered plus 20-45 ms of fsync on the 2-core
 * machine), by several threads when it is large, then the rest buffered.
 * Where the file system refuses O_DIRECT (EINVAL), or a direct write stops
 * short, what is left goes buffered. Returns -1 with errno set on failure.
 *
 * On both machines measured the disk, not the CPU, bounds this: 256 MiB took
 * the same time with 1, 2, 4 or 8 writers (74-76 ms on the 2-core machine,
 * 147-160 ms median on the 16-core one), and with 8 writers into 8 separate
 * files too. The threads stay for disks with more queues to fill. Sizing the
 * temporary file first (fallocate or ftruncate) made no difference, or made
 * it slower, so it is not done. */
static int write_block(int fd, const unsigned char *block, size_t size)
{
    size_t bulk = size / DIRECT_ALIGN * DIRECT_ALIGN;
    struct io_range ranges[PARALLEL_IO_MAX_THREADS];
    unsigned count = split_into_ranges(fd, NULL, block, bulk, ranges);
    int flags = fcntl(fd, F_GETFL);
    if (bulk > 0 && flags >= 0 && fcntl(fd, F_SETFL, flags | O_DIRECT) == 0) {
        for (unsigned i = 0; i < count; ++i)
            ranges[i].direct = true;
        move_ranges(ranges, count);
        if (fcntl(fd, F_SETFL, flags) != 0)
            return -1;
        for (unsigned i = 0; i < count; ++i)
            ranges[i].direct = false;
    }
    move_ranges(ranges, count); /* buffered, only what is not done yet */
    const struct io_range *worst = worst_range(ranges, count);
    if (worst != NULL) {
        errno = worst->error_number;
        return -1;
    }
    struct io_range tail = {.fd = fd, .write_from = block, .start = bulk, .end = size};
    move_range(&tail);
    if (tail.outcome != RANGE_DONE) {
        errno = tail.error_number;
        return -1;
    }
    return 0;
}

static int write_contents(int fd, const struct key_file *keys, size_t data_size)
{
    unsigned char header[KEY_NPY_HEADER_MAX];
    size_t header_size = 0;
    if (keys->format == KEY_FILE_FORMAT_NPY) {
        header_size = key_file_format_npy_header(keys->dtype, keys->count, header, sizeof header);
        if (header_size == 0) {
            errno = EOVERFLOW;
            return -1;
        }
    }
    /* Read keys have their file's block around them: when the header fits
     * exactly in the room before the data, the file is one aligned block. */
    unsigned char *block = keys->allocation;
    if (block != NULL && data_size > 0 && (uintptr_t)block % DIRECT_ALIGN == 0 &&
        (unsigned char *)keys->data - block == (ptrdiff_t)header_size) {
        memcpy(block, header, header_size);
        return write_block(fd, block, header_size + data_size);
    }
    if (header_size > 0 && write_all(fd, header, header_size) != 0)
        return -1;
    return write_all(fd, keys->data, data_size);
}

int key_file_write_atomic(const char *path, const struct key_file *keys, char *error, size_t error_size)
{
    if (path == NULL || keys == NULL)
        return fail(error, error_size, "key_file_write_atomic: NULL argument");
    if (path[0] == '\0')
        return fail(error, error_size, "key_file_write_atomic: empty output path");
    char detail[DETAIL_MAX];
    size_t data_size;
    if (check_writable(keys, &data_size, detail, sizeof detail) != 0)
        return fail(error, error_size, "%s: %s", path, detail);

    size_t temporary_size = strlen(path) + 16;
    char *temporary = malloc(temporary_size);
    if (temporary == NULL)
        return fail(error, error_size, "%s: out of memory", path);
    if (!temporary_name_for(path, temporary, temporary_size)) {
        free(temporary);
        return fail(error, error_size, "%s: cannot name a temporary file next to it", path);
    }

    int fd = temporary_file_create(temporary);
    if (fd < 0) {
        int saved = errno;
        free(temporary);
        return fail(error, error_size, "%s: cannot create a temporary file next to it: %s", path,
                    strerror(saved));
    }
    const char *step = NULL;
    if (set_output_mode(fd, path) != 0)
        step = "cannot set the permissions of";
    else if (write_contents(fd, keys, data_size) != 0)
        step = "cannot write";
    else if (fsync(fd) != 0)
        step = "cannot flush";
    int saved = errno;
    if (close(fd) != 0 && step == NULL) {
        step = "cannot close";
        saved = errno;
    }
    if (step == NULL && rename(temporary, path) != 0) {
        saved = errno;
        temporary_file_forget();
        unlink(temporary);
        free(temporary);
        return fail(error, error_size, "%s: cannot replace it with the new file: %s", path, strerror(saved));
    }
    temporary_file_forget();
    if (step != NULL) {
        unlink(temporary);
        fail(error, error_size, "%s: %s the temporary file %s: %s", path, step, temporary, strerror(saved));
        free(temporary);
        return -1;
    }
    free(temporary);
    sync_parent_directory(path);
    return 0;
}
