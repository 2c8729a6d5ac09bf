/* api_tour.c: every host capability of bitonic.h in one short program; each
 * block is quoted in docs/API.md, and the test suite builds and runs this file
 * on the CPU path and on a Vulkan device, so the documentation compiles. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <bitonic.h>

#define CHECK(call)                                                                  \
    do {                                                                             \
        bitonic_status status_ = (call);                                             \
        if (status_ != BITONIC_SUCCESS) {                                            \
            fprintf(stderr, "%s: %s\n", #call, bitonic_status_string(status_));      \
            return 1;                                                                \
        }                                                                            \
    } while (0)

int main(int argc, char **argv)
{
    /* [context] */
    bitonic_context *ctx;
    CHECK(bitonic_context_create(&(bitonic_context_desc){.device = argc > 1 ? argv[1] : NULL}, &ctx));

    /* [u32] */
    uint32_t keys[] = {42, 7, 19, 7, 3};
    CHECK(bitonic_sort_u32(ctx, keys, 5, NULL));                       /* 3 7 7 19 42 */

    /* [floats] */
    float temperatures[] = {21.5f, NAN, -4.0f, -0.0f, 0.0f, INFINITY};
    CHECK(bitonic_sort(ctx, temperatures, 6,
                       &(bitonic_sort_options){.key_type = BITONIC_KEY_F32, .order = BITONIC_ORDER_DESCENDING}));
    /* NaN inf 21.5 0 -0 -4 */

    /* [pairs] */
    int32_t depth[] = {5, -2, 5, 0};
    uint32_t particle[] = {10, 11, 12, 13};
    CHECK(bitonic_sort_pairs(ctx, depth, particle, 4,
                             &(bitonic_sort_options){.key_type = BITONIC_KEY_I32, .stable = true}));
    /* depth -2 0 5 5, particle 11 13 10 12 */

    /* [argsort] */
    float distance[] = {2.5f, 0.5f, 1.5f};
    uint32_t order[3], rank[3];
    CHECK(bitonic_argsort(ctx, distance, 3, order, &(bitonic_sort_options){.key_type = BITONIC_KEY_F32}));
    CHECK(bitonic_rank_map(ctx, distance, 3, rank, &(bitonic_sort_options){.key_type = BITONIC_KEY_F32}));
    /* order 1 2 0 (index of each rank), rank 2 0 1 (rank of each index) */

    /* [rows] */
    uint32_t rows[2][4] = {{4, 1, 3, 2}, {9, 7, 8, 6}};
    CHECK(bitonic_sort_rows(ctx, rows, 2, 4, NULL));                  /* 1 2 3 4 | 6 7 8 9 */
    size_t offsets[] = {0, 3, 3, 8};                                   /* three segments, one empty */
    uint32_t segmented[] = {3, 1, 2, 50, 10, 40, 20, 30};
    CHECK(bitonic_sort_segments(ctx, segmented, offsets, 3, NULL));   /* 1 2 3 | | 10 20 30 40 50 */

    /* [records] */
    typedef struct texel { float r, g, b, a; } texel;
    texel image[] = {{0.1f, 0.9f, 0, 1}, {0.2f, 0.3f, 0, 1}, {0.3f, 0.5f, 0, 1}};
    CHECK(bitonic_sort_records(ctx, image, 3, sizeof(texel), offsetof(texel, g),
                               &(bitonic_sort_options){.key_type = BITONIC_KEY_F32}));
    /* by green: r 0.2 0.3 0.1 */

    /* [search] */
    float sorted[] = {0.5f, 1.5f, 1.5f, 2.5f};
    float low[] = {1.0f, 1.5f}, high[] = {2.0f, 1.5f};
    uint32_t first[2], end[2];
    CHECK(bitonic_search_range(ctx, sorted, 4, low, high, 2, first, end,
                               &(bitonic_sort_options){.key_type = BITONIC_KEY_F32}));
    /* [1, 3) twice: the keys in [1.0, 2.0], and the keys equal to 1.5 */

    /* [resident] */
    bitonic_buffer *buffer;
    uint32_t many[1000];
    for (uint32_t i = 0; i < 1000; ++i)
        many[i] = (i * 7919u) % 1000u;
    bitonic_timing timing = {0};
    CHECK(bitonic_buffer_create(ctx, 1000, &buffer));
    CHECK(bitonic_buffer_upload(buffer, many, 1000));
    CHECK(bitonic_buffer_sort(buffer, 1000, NULL, &timing));          /* timing.sort_ms: GPU time */
    CHECK(bitonic_buffer_download(buffer, many, 1000));
    bitonic_buffer_destroy(buffer);

    /* [strategy] */
    bitonic_context *transposing;
    CHECK(bitonic_context_create(&(bitonic_context_desc){.device = argc > 1 ? argv[1] : NULL,
                                                         .strategy = BITONIC_STRATEGY_TRANSPOSE},
                                 &transposing));
    static uint32_t big[20000];
    for (uint32_t i = 0; i < 20000; ++i)
        big[i] = (i * 2654435761u) >> 7;
    CHECK(bitonic_sort_u32(transposing, big, 20000, NULL));           /* the merge's result, other passes */
    bitonic_context_destroy(transposing);
    /* [end] */

    bitonic_context_destroy(ctx);
    bool big_sorted = true;
    for (uint32_t i = 1; i < 20000; ++i)
        big_sorted = big_sorted && big[i - 1] <= big[i];
    int ok = big_sorted && keys[0] == 3 && keys[4] == 42 && isnan(temperatures[0]) && temperatures[1] == INFINITY &&
             signbit(temperatures[4]) && temperatures[5] == -4.0f && depth[0] == -2 && particle[0] == 11 &&
             particle[2] == 10 && particle[3] == 12 && order[0] == 1 && order[2] == 0 && rank[0] == 2 &&
             rank[1] == 0 && many[0] == 0 && many[999] == 999 && first[0] == 1 && end[0] == 3 && first[1] == 1 &&
             end[1] == 3 && image[0].r == 0.2f && image[1].r == 0.3f && image[2].r == 0.1f && image[2].g == 0.9f && rows[0][0] == 1 && rows[0][3] == 4 &&
             rows[1][0] == 6 && segmented[0] == 1 && segmented[2] == 3 && segmented[3] == 10 && segmented[7] == 50;
    printf("api tour: %s\n", ok ? "all results as documented" : "WRONG");
    return ok ? 0 : 1;
}
