/* inflate.c: a raw DEFLATE decoder (RFC 1951: stored, fixed and dynamic
 * Huffman blocks) and CRC-32, for the embedded shader modules (inflate.h).
 * Codes of up to FAST_BITS bits (nearly all of them) are decoded by one
 * table lookup, longer ones a bit at a time from the canonical counts: a
 * sorter inflates tens of modules as it is made, so the decoder's speed is
 * part of its start-up time. */
#include "inflate.h"

#define MAX_CODE_BITS 15
#define LITERAL_LENGTH_CODES 288
#define DISTANCE_CODES 30
#define FAST_BITS 10

typedef struct inflate_stream {
    const uint8_t *in;
    size_t in_size, in_pos;
    uint32_t bit_buffer;  /* bits read from in and not yet used, lowest first */
    uint32_t bit_count;
    uint8_t *out;
    size_t out_size, out_pos;
    bool failed;
} inflate_stream;

/* A canonical Huffman code: how many codes of each length, the symbols in
 * code order, and for the next FAST_BITS bits of the stream the symbol whose
 * code they start with and its length (length << 12 | symbol; 0: a longer
 * code, or none). */
typedef struct huffman_code {
    uint16_t count[MAX_CODE_BITS + 1];
    uint16_t symbol[LITERAL_LENGTH_CODES];
    uint16_t fast[1u << FAST_BITS];
} huffman_code;

/* Tops the bit buffer up to at least 25 bits where the stream has them. */
static void refill(inflate_stream *s)
{
    while (s->bit_count <= 24u && s->in_pos < s->in_size) {
        s->bit_buffer |= (uint32_t)s->in[s->in_pos++] << s->bit_count;
        s->bit_count += 8;
    }
}

/* The next `need` bits (at most 16), first bit lowest. */
static uint32_t read_bits(inflate_stream *s, uint32_t need)
{
    while (s->bit_count < need) {
        if (s->in_pos >= s->in_size) {
            s->failed = true;
            return 0;
        }
        s->bit_buffer |= (uint32_t)s->in[s->in_pos++] << s->bit_count;
        s->bit_count += 8;
    }
    uint32_t value = s->bit_buffer & ((1u << need) - 1u);
    s->bit_buffer >>= need;
    s->bit_count -= need;
    return value;
}

/* Builds a code from each symbol's length (0: unused). False where the
 * lengths ask for more codes than there are (an incomplete code is taken:
 * a code it lacks fails in decode_symbol). */
static bool build_code(huffman_code *code, const uint8_t *lengths, uint32_t symbols)
{
    for (uint32_t len = 0; len <= MAX_CODE_BITS; ++len)
        code->count[len] = 0;
    for (uint32_t i = 0; i < symbols; ++i)
        code->count[lengths[i]]++;
    int32_t left = 1;
    for (uint32_t len = 1; len <= MAX_CODE_BITS; ++len) {
        left = left * 2 - code->count[len];
        if (left < 0)
            return false;
    }
    uint16_t offsets[MAX_CODE_BITS + 1];
    offsets[1] = 0;
    for (uint32_t len = 1; len < MAX_CODE_BITS; ++len)
        offsets[len + 1] = (uint16_t)(offsets[len] + code->count[len]);
    for (uint32_t i = 0; i < symbols; ++i)
        if (lengths[i] != 0)
            code->symbol[offsets[lengths[i]]++] = (uint16_t)i;
    /* Codes of a length are consecutive from next_code[len]; the stream
     * holds each from its first bit, so the table is indexed bit-reversed. */
    for (uint32_t i = 0; i < (1u << FAST_BITS); ++i)
        code->fast[i] = 0;
    uint32_t next_code[MAX_CODE_BITS + 1], value = 0;
    for (uint32_t len = 1; len <= MAX_CODE_BITS; ++len) {
        value = (value + (len == 1u ? 0u : code->count[len - 1u])) << 1;  /* count[0]: unused symbols */
        next_code[len] = value;
    }
    for (uint32_t i = 0; i < symbols; ++i) {
        uint32_t len = lengths[i];
        if (len == 0)
            continue;
        uint32_t codeword = next_code[len]++;
        if (len > FAST_BITS)
            continue;
        uint32_t reversed = 0;
        for (uint32_t b = 0; b < len; ++b)
            reversed |= ((codeword >> b) & 1u) << (len - 1u - b);
        for (uint32_t j = reversed; j < (1u << FAST_BITS); j += 1u << len)
            code->fast[j] = (uint16_t)(len << 12 | i);
    }
    return true;
}

/* The next symbol of `code`: canonical codes of one length are consecutive,
 * and the first code of each length follows the last of the one before. */
static int decode_symbol(inflate_stream *s, const huffman_code *code)
{
    refill(s);
    uint32_t entry = code->fast[s->bit_buffer & ((1u << FAST_BITS) - 1u)];
    if (entry != 0 && (entry >> 12) <= s->bit_count) {
        s->bit_buffer >>= entry >> 12;
        s->bit_count -= entry >> 12;
        return (int)(entry & 0xfffu);
    }
    uint32_t value = 0, first = 0, index = 0;
    for (uint32_t len = 1; len <= MAX_CODE_BITS; ++len) {
        value |= read_bits(s, 1);
        if (s->failed)
            return -1;
        uint32_t count = code->count[len];
        if (value - first < count)
            return code->symbol[index + (value - first)];
        index += count;
        first = (first + count) << 1;
        value <<= 1;
    }
    s->failed = true;
    return -1;
}

static bool stored_block(inflate_stream *s)
{
    /* The rest of the current byte goes; whole bytes already in the buffer
     * are the stream's next ones. */
    s->in_pos -= s->bit_count / 8u;
    s->bit_buffer = 0;
    s->bit_count = 0;
    if (s->in_size - s->in_pos < 4)
        return false;
    const uint8_t *header = s->in + s->in_pos;
    uint32_t length = header[0] | (uint32_t)header[1] << 8;
    uint32_t complement = header[2] | (uint32_t)header[3] << 8;
    s->in_pos += 4;
    if ((length ^ 0xffffu) != complement || s->in_size - s->in_pos < length || s->out_size - s->out_pos < length)
        return false;
    for (uint32_t i = 0; i < length; ++i)
        s->out[s->out_pos++] = s->in[s->in_pos++];
    return true;
}

/* The literals and back references of one Huffman block. */
static bool huffman_block(inflate_stream *s, const huffman_code *lengths, const huffman_code *distances)
{
    static const uint16_t length_base[29] = {3,  4,  5,  6,  7,  8,  9,  10, 11,  13,  15,  17,  19,  23, 27,
                                             31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
    static const uint8_t length_extra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                             2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
    static const uint16_t distance_base[DISTANCE_CODES] = {
        1,   2,   3,   4,   5,   7,    9,    13,   17,   25,   33,   49,   65,    97,    129,
        193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577};
    static const uint8_t distance_extra[DISTANCE_CODES] = {0, 0, 0, 0, 1, 1, 2, 2,  3,  3,  4,  4,  5,  5,  6,
                                                           6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};
    for (;;) {
        int symbol = decode_symbol(s, lengths);
        if (symbol < 0)
            return false;
        if (symbol < 256) {
            if (s->out_pos >= s->out_size)
                return false;
            s->out[s->out_pos++] = (uint8_t)symbol;
            continue;
        }
        if (symbol == 256)
            return true;
        symbol -= 257;
        if (symbol >= 29)
            return false;
        uint32_t length = length_base[symbol] + read_bits(s, length_extra[symbol]);
        int distance_symbol = decode_symbol(s, distances);
        if (distance_symbol < 0 || distance_symbol >= DISTANCE_CODES)
            return false;
        uint32_t distance = distance_base[distance_symbol] + read_bits(s, distance_extra[distance_symbol]);
        if (s->failed || distance > s->out_pos || s->out_size - s->out_pos < length)
            return false;
        /* Byte by byte: a reference may overlap what it writes. */
        for (uint32_t i = 0; i < length; ++i, ++s->out_pos)
            s->out[s->out_pos] = s->out[s->out_pos - distance];
    }
}

static bool fixed_block(inflate_stream *s)
{
    uint8_t lengths[LITERAL_LENGTH_CODES];
    uint32_t i = 0;
    for (; i < 144; ++i)
        lengths[i] = 8;
    for (; i < 256; ++i)
        lengths[i] = 9;
    for (; i < 280; ++i)
        lengths[i] = 7;
    for (; i < LITERAL_LENGTH_CODES; ++i)
        lengths[i] = 8;
    huffman_code literal_lengths, distances;
    build_code(&literal_lengths, lengths, LITERAL_LENGTH_CODES);
    for (i = 0; i < DISTANCE_CODES; ++i)
        lengths[i] = 5;
    build_code(&distances, lengths, DISTANCE_CODES);
    return huffman_block(s, &literal_lengths, &distances);
}

/* A block whose codes come first, as code lengths coded by a code of their own. */
static bool dynamic_block(inflate_stream *s)
{
    static const uint8_t order[19] = {16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15};
    uint32_t literal_count = read_bits(s, 5) + 257u;
    uint32_t distance_count = read_bits(s, 5) + 1u;
    uint32_t length_code_count = read_bits(s, 4) + 4u;
    if (s->failed || literal_count > 286u || distance_count > DISTANCE_CODES)
        return false;
    uint8_t lengths[LITERAL_LENGTH_CODES + DISTANCE_CODES] = {0};
    for (uint32_t i = 0; i < length_code_count; ++i)
        lengths[order[i]] = (uint8_t)read_bits(s, 3);
    huffman_code length_code, literal_lengths, distances;
    if (s->failed || !build_code(&length_code, lengths, 19))
        return false;
    uint32_t total = literal_count + distance_count;
    for (uint32_t i = 0; i < 19; ++i)
        lengths[i] = 0;
    for (uint32_t i = 0; i < total;) {
        int symbol = decode_symbol(s, &length_code);
        if (symbol < 0)
            return false;
        if (symbol < 16) {
            lengths[i++] = (uint8_t)symbol;
            continue;
        }
        uint8_t repeated = 0;
        uint32_t times;
        if (symbol == 16) {
            if (i == 0)
                return false;
            repeated = lengths[i - 1];
            times = 3u + read_bits(s, 2);
        } else if (symbol == 17) {
            times = 3u + read_bits(s, 3);
        } else {
            times = 11u + read_bits(s, 7);
        }
        if (s->failed || total - i < times)
            return false;
        while (times-- > 0)
            lengths[i++] = repeated;
    }
    if (lengths[256] == 0)  /* no end-of-block code */
        return false;
    return build_code(&literal_lengths, lengths, literal_count) &&
           build_code(&distances, lengths + literal_count, distance_count) &&
           huffman_block(s, &literal_lengths, &distances);
}

bool bitonic_inflate(const uint8_t *in, size_t in_size, uint8_t *out, size_t out_size)
{
    if ((!in && in_size != 0) || (!out && out_size != 0))
        return false;
    inflate_stream s = {.in = in, .in_size = in_size, .out = out, .out_size = out_size};
    uint32_t last;
    do {
        last = read_bits(&s, 1);
        uint32_t type = read_bits(&s, 2);
        if (s.failed)
            return false;
        bool ok = type == 0 ? stored_block(&s) : type == 1 ? fixed_block(&s) : type == 2 ? dynamic_block(&s) : false;
        if (!ok || s.failed)
            return false;
    } while (!last);
    return s.out_pos == out_size;
}

uint32_t bitonic_crc32(const uint8_t *data, size_t size)
{
    uint32_t table[256];
    for (uint32_t n = 0; n < 256; ++n) {
        uint32_t c = n;
        for (int k = 0; k < 8; ++k)
            c = c & 1u ? 0xedb88320u ^ (c >> 1) : c >> 1;
        table[n] = c;
    }
    uint32_t crc = 0xffffffffu;
    for (size_t i = 0; i < size; ++i)
        crc = table[(crc ^ data[i]) & 0xffu] ^ (crc >> 8);
    return crc ^ 0xffffffffu;
}
