/* npy_header.c: the dtype table of the key files (key_file.h) and their NumPy
 * .npy header: parsing it on read and formatting it, as NumPy would, on write.
 *
 * The .npy header is a Python dict literal. NumPy reads it with
 * ast.literal_eval; here a small parser accepts exactly the shapes of text
 * NumPy and hand-written files use ({'descr': '<u4', 'fortran_order': False,
 * 'shape': (5,), } with keys in any order, any spacing, either quote, a
 * trailing comma, Python 2's 5L) and rejects everything else with a message
 * that says what it expected where.
 */
#include "key_file.h"
#include "key_file_private.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

const unsigned char key_npy_magic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};

/* NumPy leaves this much room for the digits of the growing axis, so that an
 * appending writer can rewrite the shape in place; copying it makes our
 * headers byte-identical to NumPy's. */
enum { NPY_GROWTH_AXIS_MAX_DIGITS = 21, NPY_ARRAY_ALIGN = 64 };

/* Longest piece of file text quoted back in a message. */
enum { QUOTE_MAX = 40 };

const struct dtype_info key_dtype_infos[KEY_DTYPE_COUNT] = {
    [KEY_DTYPE_U32] = {"uint32", "<u4", 4}, [KEY_DTYPE_I32] = {"int32", "<i4", 4},
    [KEY_DTYPE_F32] = {"float32", "<f4", 4}, [KEY_DTYPE_U64] = {"uint64", "<u8", 8},
    [KEY_DTYPE_I64] = {"int64", "<i8", 8},   [KEY_DTYPE_F64] = {"float64", "<f8", 8},
};

bool key_dtype_is_valid(enum key_dtype dtype)
{
    return (unsigned)dtype < (unsigned)KEY_DTYPE_COUNT;
}

const char *key_dtype_name(enum key_dtype dtype)
{
    return key_dtype_is_valid(dtype) ? key_dtype_infos[dtype].name : "unknown";
}

const char *key_dtype_descr(enum key_dtype dtype)
{
    return key_dtype_is_valid(dtype) ? key_dtype_infos[dtype].descr : "?";
}

size_t key_dtype_size(enum key_dtype dtype)
{
    return key_dtype_is_valid(dtype) ? key_dtype_infos[dtype].size : 0;
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
    return key_file_fail(cursor->error, cursor->error_size, "broken .npy header: %s (at byte %zu of the file)", detail,
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
            if (memcmp(descr + 1, key_dtype_infos[candidate].descr + 1, 2) != 0)
                continue;
            /* '=' is native order, and this module only runs on little-endian hosts. */
            if (descr[0] == '>')
                return key_file_fail(cursor->error, cursor->error_size,
                            "dtype '%s' is big-endian; only little-endian ('<' or '=') keys are supported "
                            "(convert with arr.astype('%s'))",
                            quoted, key_dtype_infos[candidate].descr);
            *dtype = (enum key_dtype)candidate;
            return 0;
        }
    }
    return key_file_fail(cursor->error, cursor->error_size,
                "dtype '%s' is not supported (supported: <u4 <i4 <f4 <u8 <i8 <f8)", quoted);
}

static int parse_descr(struct header_cursor *cursor, struct header_values *values)
{
    if (peek(cursor) == '[')
        return key_file_fail(cursor->error, cursor->error_size,
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
        return key_file_fail(cursor->error, cursor->error_size, "shape %s is %zu-D; only 1-D arrays are supported",
                    shape_text, values->dimensions);
    size_t element_size = key_dtype_infos[values->dtype].size;
    uint64_t count = values->first_dimension;
    if (count > SIZE_MAX || (size_t)count > (SIZE_MAX - data_offset) / element_size)
        return key_file_fail(cursor->error, cursor->error_size,
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
        return key_file_fail(error, error_size, "key_file_parse_npy_header: NULL argument");
    memset(header, 0, sizeof *header);
    if (size < sizeof key_npy_magic || memcmp(bytes, key_npy_magic, sizeof key_npy_magic) != 0)
        return key_file_fail(error, error_size, "not a .npy file (it does not start with \"\\x93NUMPY\")");
    if (size < 8)
        return key_file_fail(error, error_size, "truncated .npy file: %zu bytes end before the format version", size);
    unsigned major = bytes[6], minor = bytes[7];
    if (major < 1 || major > 3 || minor != 0)
        return key_file_fail(error, error_size, "unsupported .npy format version %u.%u (known: 1.0, 2.0, 3.0)", major,
                    minor);
    /* Version 1.0 has a 2-byte header length; 2.0 and 3.0 widened it to 4. */
    size_t length_width = major == 1 ? 2 : 4;
    size_t prefix = 8 + length_width;
    if (size < prefix)
        return key_file_fail(error, error_size, "truncated .npy file: %zu bytes end before the header length", size);
    uint32_t header_length = read_le(bytes + 8, length_width);
    if (header_length > size - prefix)
        return key_file_fail(error, error_size,
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
    if (!key_dtype_is_valid(dtype) || header == NULL)
        return 0;
    char dict[KEY_NPY_HEADER_MAX];
    int dict_length = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (%zu,), }",
                               key_dtype_infos[dtype].descr, count);
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
    memcpy(header, key_npy_magic, sizeof key_npy_magic);
    header[6] = 1;
    header[7] = 0;
    header[8] = (unsigned char)((total - prefix) & 0xff);
    header[9] = (unsigned char)((total - prefix) >> 8);
    memcpy(header + prefix, dict, (size_t)dict_length);
    memset(header + prefix + dict_length, ' ', growth + padding);
    header[total - 1] = '\n';
    return total;
}
