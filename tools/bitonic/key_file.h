/* key_file.h: reading and writing the key files of `bitonic sort IN OUT`.
 *
 * Two formats are understood:
 *   raw  - the file is nothing but little-endian uint32 keys, back to back;
 *   .npy - a NumPy array file (format versions 1.0, 2.0 and 3.0), 1-D, of
 *          dtype '<u4' '<i4' '<f4' '<u8' '<i8' '<f8' ('=' in place of '<' too).
 * A file that starts with the .npy magic "\x93NUMPY" is .npy, any other file
 * is raw, unless the caller forces one format.
 *
 * Every call returns 0 on success or -1 on failure. On failure it writes one
 * English sentence, naming the file, into the caller's error buffer (which may
 * be NULL or of size 0 to ignore it; a short buffer gets a truncated,
 * NUL-terminated message). The module never prints, exits or aborts and keeps
 * no global state. Files of 16 MiB or more are read by several threads (up to
 * 8, no more than the CPUs online), and keys read that way are written back
 * by several too; they all end before the call returns.
 *
 *     struct key_file keys;
 *     char error[256];
 *     struct key_file_read_options options = {.accepted_dtypes = KEY_DTYPE_BIT(KEY_DTYPE_U32)};
 *     if (key_file_read(in_path, &options, &keys, error, sizeof error) != 0) {
 *         fprintf(stderr, "bitonic: %s\n", error);
 *         return 1;
 *     }
 *     ... sort keys.data (keys.count elements of keys.element_size bytes) ...
 *     if (key_file_write_atomic(out_path, &keys, error, sizeof error) != 0) ...
 *     key_file_free(&keys);
 *
 * The module assumes a little-endian host: it moves bytes, never swaps them.
 */
#ifndef BITONIC_KEY_FILE_H
#define BITONIC_KEY_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum key_file_format {
    KEY_FILE_FORMAT_AUTO = 0, /* reading only: .npy if the file starts with the magic, else raw */
    KEY_FILE_FORMAT_RAW,      /* little-endian uint32 keys and nothing else */
    KEY_FILE_FORMAT_NPY,      /* NumPy .npy; written as version 1.0 */
};

enum key_dtype {
    KEY_DTYPE_U32 = 0, /* '<u4' */
    KEY_DTYPE_I32,     /* '<i4' */
    KEY_DTYPE_F32,     /* '<f4' */
    KEY_DTYPE_U64,     /* '<u8' */
    KEY_DTYPE_I64,     /* '<i8' */
    KEY_DTYPE_F64,     /* '<f8' */
    KEY_DTYPE_COUNT
};

/* Sets of dtypes, for key_file_read_options.accepted_dtypes. */
#define KEY_DTYPE_BIT(dtype) (1u << (unsigned)(dtype))
#define KEY_DTYPE_ALL_BITS ((1u << (unsigned)KEY_DTYPE_COUNT) - 1u)

/* "uint32", "int32", "float32", "uint64", "int64", "float64"; "unknown" otherwise. */
const char *key_dtype_name(enum key_dtype dtype);
/* The NumPy descr as this module writes it: "<u4", "<i4", ...; "?" otherwise. */
const char *key_dtype_descr(enum key_dtype dtype);
/* Bytes per element: 4 or 8; 0 for a value outside the enum. */
size_t key_dtype_size(enum key_dtype dtype);
/* "auto", "raw", "npy"; "unknown" otherwise. */
const char *key_file_format_name(enum key_file_format format);

/* Keys in memory. data holds count elements of element_size bytes, in the
 * file's order, aligned for any of the dtypes; the reader allocates it with
 * malloc (NULL when count is 0) and key_file_free releases it. A caller that
 * builds one to write fills format (RAW or NPY), dtype, count and data;
 * element_size may stay 0 (derived from dtype) or must match it. Raw files
 * hold uint32 only, so a RAW key_file must have dtype KEY_DTYPE_U32. */
struct key_file {
    enum key_file_format format;
    enum key_dtype dtype;
    size_t count;
    size_t element_size;
    void *data;
    /* Set by the reader: the block the file was read into whole (header, then
     * data at data), page aligned, which key_file_free releases instead of
     * data. It lets the writer put the header right before the data and write
     * the file in one piece. NULL for a key_file the caller built. */
    void *allocation;
};

/* How to read; a zeroed struct (or a NULL pointer) means "detect the format,
 * accept every dtype". */
struct key_file_read_options {
    /* AUTO: sniff the magic. RAW: take the whole file as uint32 keys even if it
     * starts with the .npy magic. NPY: fail unless the file is a valid .npy. */
    enum key_file_format format;
    /* A set of KEY_DTYPE_BIT()s; a file of another dtype fails with a message
     * that names what was found and what is accepted. 0 means all dtypes. */
    unsigned accepted_dtypes;
};

/* Reads the whole file at path into out. On failure out is zeroed (nothing to
 * free) and error says why: a path that is missing, unreadable or not a
 * regular file (a directory, a pipe), a raw file whose size is not a multiple
 * of 4, a broken .npy header, an unsupported or unaccepted dtype, a shape that
 * is not 1-D, data shorter or longer than the header says, an element count
 * whose byte size overflows size_t, out of memory. */
int key_file_read(const char *path, const struct key_file_read_options *options, struct key_file *out,
                  char *error, size_t error_size);

/* The same as key_file_read for bytes already in memory (name is used only in
 * messages; NULL reads as "input"). The keys are copied into a new buffer. */
int key_file_read_memory(const unsigned char *bytes, size_t size, const char *name,
                         const struct key_file_read_options *options, struct key_file *out, char *error,
                         size_t error_size);

/* Releases keys->data (or keys->allocation) and zeroes *keys; a zeroed or NULL
 * key_file is fine. */
void key_file_free(struct key_file *keys);

/* What a .npy header says. */
struct key_npy_header {
    unsigned major_version; /* 1, 2 or 3 (the minor version is always 0) */
    enum key_dtype dtype;
    bool fortran_order;     /* same layout as C order for a 1-D array */
    size_t count;           /* the one dimension of the shape */
    size_t data_offset;     /* bytes from the start of the file to the first element */
    size_t data_size;       /* count * key_dtype_size(dtype), checked not to overflow */
};

/* Parses the magic, version, header length and header dict at the start of
 * bytes (the whole file or at least its header). It checks everything the
 * header alone decides, including that data_offset + data_size fits in size_t,
 * but not that size holds the data. The message on failure names no file. */
int key_file_parse_npy_header(const unsigned char *bytes, size_t size, struct key_npy_header *header,
                              char *error, size_t error_size);

/* Room for any header key_file_format_npy_header writes (128 bytes for every
 * count up to 20 digits, as NumPy's own headers). */
#define KEY_NPY_HEADER_MAX 192

/* Writes the version 1.0 header NumPy itself would write for a 1-D C-order
 * array (same dict text, same spare room for growing the shape, padded with
 * spaces and a newline so the data starts at a multiple of 64 bytes). Returns
 * its length, or 0 if dtype is invalid or capacity is too small. */
size_t key_file_format_npy_header(enum key_dtype dtype, size_t count, unsigned char *header, size_t capacity);

/* Writes keys to path in keys->format, atomically: into a new temporary file
 * "<path>.tmp.XXXXXX" in the same directory (the last component shortened where
 * that name would pass 255 bytes), flushed with fsync, then renamed over path.
 * On any failure, and on SIGINT, SIGTERM or SIGHUP during the write
 * (output_file.h), the temporary file is removed, and path is left
 * as it was (untouched if it existed, absent if it did not). A symbolic link
 * at path is replaced, not written through. A file that replaces an existing
 * one keeps its permission bits; a new one gets 0666 minus the umask, as a
 * plain fopen would give it. */
int key_file_write_atomic(const char *path, const struct key_file *keys, char *error, size_t error_size);

#ifdef __cplusplus
}
#endif

#endif /* BITONIC_KEY_FILE_H */
