// partition_count_scatter.glsl: STEP_COUNT (each workgroup counts its chunk's
// keys by bucket and adds its counts to the totals) and STEP_SCATTER (tile by
// tile, a workgroup ranks its keys by bucket, claims room in each bucket and
// moves them there through the staged tile); the nested steps run both on a
// segment of the first partition.
// Included by partition_pass.comp in a fixed order, after its bindings and
// each file before it: the order of the functions is kept as it was in one
// file, because it fixes the order of the compiled module's functions and so
// its bytes.

// The scatter, in tiles of SCATTER_KEYS keys a thread: each tile's keys ranked
// by bucket in shared memory, room claimed in each bucket for the tile's keys
// of it (a global atomic on the bucket's claims, keys placed in it so far,
// from its start), the keys staged in shared memory in bucket order with their
// places in the output beside them, and written from there, neighbouring
// threads to neighbouring places: each bucket's keys of the tile in whole
// sectors. Written in the order the threads held them, every store went to its
// own sector, and the scatter of 2^24 keys into 4095 buckets took 0.48-0.51
// ms, ten times a copy (docs/perf-log.md, entry 55); staging needs few
// enough buckets that a tile gives each several keys, which the splitters'
// limit (tuning.c) sees to. A workgroup takes tiles group, group + groups, ...
// (the host may launch fewer workgroups than tiles, so that each builds the
// splitters' cells and sums the totals once for several), loading its next
// tile's keys before it writes the current one's, so that the loads are in
// flight meanwhile. With PLACES_BY_SEARCH the staged keys' places are not
// kept: tile_starts holds each bucket's place less its first slot, and the
// writing thread finds a staged key's bucket again (2 or 3 steps of a search
// in shared memory where the places took a load, but a tile twice as long:
// each tile costs a chain of barriers and a claim a bucket whatever its size).
// A staged slot's key and value (0 without values), and a key and value
// staged at a slot: the scatter, the sample step and the fallback stage this
// way, and sort_staged sorts what they staged.
key_t staged_key(uint slot)
{
#ifdef KEY64
    return packUint2x32(uvec2(stage_low[slot], stage_high[slot]));
#else
    return stage_keys[slot];
#endif
}

uint staged_value(uint slot)
{
#ifdef WITH_VALUES
    return stage_values[slot];
#else
    return 0u;
#endif
}

void store_staged(uint slot, key_t key, uint value)
{
#ifdef KEY64
    uvec2 halves = unpackUint2x32(key);
    stage_low[slot] = halves.x;
    stage_high[slot] = halves.y;
#else
    stage_keys[slot] = key;
#endif
#ifdef WITH_VALUES
    stage_values[slot] = value;
#endif
}

// The count's lookup (docs/perf-log.md, entry 100). The count
// stages no keys, so its staged tile's first cell_count() slots hold each
// cell's first splitter (key and value), for which the scatter's table has
// no room. A key whose cell holds no splitter is in the cell's open bucket,
// and one comparison with the cell's first splitter places most others: two
// loads from shared memory and the count's atomic, where bucket_of's search
// takes a load a step and one more for equality. Only a key equal to that
// splitter (with values) or past it in a cell of two or more searches.
void stage_cell_splitters()
{
    for (uint c = gl_LocalInvocationID.x; c < cell_count(); c += gl_WorkGroupSize.x) {
        uint word = cell_words[c], first = word & 0xffffu;
        if ((word >> 16) != 0u) {
#ifdef WITH_VALUES
            store_staged(c, splitter_keys[first], splitter_values[first]);
#else
            store_staged(c, splitter_keys[first], 0u);
#endif
        }
    }
}

// bucket_of's bucket, through the staged cells' first splitters.
uint bucket_by_cell_splitter(key_t key, uint value)
{
    uint cell = cell_of(key);
    uint word = cell_words[cell];
    uint first = word & 0xffffu, in_cell = word >> 16;
    if (in_cell == 0u)
        return 2u * first;
    key_t splitter = staged_key(cell);
    if (key < splitter)
        return 2u * first;
    if (key > splitter && in_cell == 1u)
        return 2u * first + 2u;
#ifndef WITH_VALUES
    if (key == splitter)
        return 2u * first + 1u;
#endif
    return bucket_among(key, value, first, first + in_cell);  // the cell's word is at hand
}

// The count, placed here because it borrows the scatter's staged tile.
void count_step()
{
    load_splitters();
    for (uint b = gl_LocalInvocationID.x; b < bucket_count(); b += gl_WorkGroupSize.x)
        bucket_words[b] = 0u;
    bool cell_splitters_staged = cell_count() <= gl_WorkGroupSize.x * SCATTER_KEYS;
    if (cell_splitters_staged)
        stage_cell_splitters();
    barrier();
    uint first, end;
    chunk_of(first, end);
    // KEYS_AT_ONCE keys a thread are loaded before any is searched, so the
    // loads are in flight together, and the next batch's loads go out before
    // this batch's searches, so the searches do not leave the memory idle.
    uint stride = gl_WorkGroupSize.x * KEYS_AT_ONCE;
    key_t next[KEYS_AT_ONCE];
    uint next_values[KEYS_AT_ONCE];
    [[unroll]] for (uint j = 0u; j < KEYS_AT_ONCE; ++j) {
        uint i = first + gl_LocalInvocationID.x + j * gl_WorkGroupSize.x;
        next[j] = i < end ? keys[i] : key_t(0);
        next_values[j] = i < end ? value_at(i) : 0u;
    }
    for (uint base = first + gl_LocalInvocationID.x; base < end; base += stride) {
        key_t batch[KEYS_AT_ONCE] = next;
        uint batch_values[KEYS_AT_ONCE] = next_values;
        [[unroll]] for (uint j = 0u; j < KEYS_AT_ONCE; ++j) {
            uint i = base + stride + j * gl_WorkGroupSize.x;  // past end: not read
            next[j] = i < end ? keys[i] : key_t(0);
            next_values[j] = i < end ? value_at(i) : 0u;
        }
        [[unroll]] for (uint j = 0u; j < KEYS_AT_ONCE; ++j)
            if (base + j * gl_WorkGroupSize.x < end) {
                key_t key = ordered(batch[j]);
                uint bucket = cell_splitters_staged ? bucket_by_cell_splitter(key, batch_values[j])
                                                    : bucket_of(key, batch_values[j]);
                atomicAdd(bucket_words[bucket], 1u);
            }
    }
    barrier();
    // The buckets' totals; where each scatter workgroup's keys go is claimed
    // by the scatter itself.
    for (uint b = gl_LocalInvocationID.x; b < bucket_count(); b += gl_WorkGroupSize.x) {
        uint keys_here = bucket_words[b];
        if (keys_here != 0u)
            atomicAdd(words[totals_at + b], keys_here);
    }
}

shared uint tile_starts[MAX_BUCKETS];

// Tile `tile`'s keys of this thread (a key of 0 past the end; none past the
// last of `tiles`).
void load_tile(uint tile, uint tiles, out key_t batch[SCATTER_KEYS], out uint batch_values[SCATTER_KEYS])
{
    uint tile_keys = params.scatter_tile;
    uint first = tile * tile_keys;
    uint in_tile = tile < tiles ? min(tile_keys, keys_count - first) : 0u;
    [[unroll]] for (uint j = 0u; j < SCATTER_KEYS; ++j) {
        uint k = j * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
        batch[j] = k < in_tile ? keys[keys_base + first + k] : key_t(0);
        batch_values[j] = k < in_tile ? value_at(keys_base + first + k) : 0u;
    }
}

// The scatter's lookup: bucket_of's bucket.
#ifdef PACKED_CELLS
#define scatter_bucket_of bucket_by_packed_cell
#else
#define scatter_bucket_of bucket_of
#endif

// Where the scatter's staged slot `slot` of this tile goes in the output.
uint staged_place(uint slot)
{
#ifdef PLACES_BY_SEARCH
    return tile_starts[scatter_bucket_of(ordered(staged_key(slot)), staged_value(slot))] + slot;
#else
    return workgroup_words[slot];
#endif
}

void scatter_step()
{
    load_splitters();
#ifdef PACKED_CELLS
    pack_cells();
#endif
    uint buckets = bucket_count();
    uint span_first, span_end;
    bucket_span(span_first, span_end);
    uint first_start = keys_base + span_start();
    // At most the staged tile: a thread's keys past it are masked as past the
    // end (load_tile).
    uint tile_keys = params.scatter_tile;
    uint tiles = (keys_count + tile_keys - 1u) / tile_keys;
    // The grid may be 2D (many tiles); the nested scatter's rows are segments.
    bool nested_step = params.step == STEP_NESTED_SCATTER;
    uint groups = nested_step ? gl_NumWorkGroups.x : gl_NumWorkGroups.x * gl_NumWorkGroups.y;
    uint tile = nested_step ? gl_WorkGroupID.x : gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    key_t batch[SCATTER_KEYS];
    uint batch_values[SCATTER_KEYS];
    load_tile(tile, tiles, batch, batch_values);
    for (; tile < tiles; tile += groups) {
        for (uint b = gl_LocalInvocationID.x; b < buckets; b += gl_WorkGroupSize.x)
            bucket_words[b] = 0u;
        barrier();  // also: the last tile's keys are written, its stage free
        uint in_tile = min(tile_keys, keys_count - tile * tile_keys);
        uint placed[SCATTER_KEYS];  // bucket << 16 | rank among the tile's keys of the bucket
        [[unroll]] for (uint j = 0u; j < SCATTER_KEYS; ++j) {
            uint k = j * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
            // Every pipeline's tile is its staged tile: half tiles take the
            // STORED_PLACES build, staged at half the keys a thread.
            uint b = scatter_bucket_of(ordered(batch[j]), batch_values[j]);
            placed[j] = k < in_tile ? (b << 16) | atomicAdd(bucket_words[b], 1u) : 0xffffffffu;
        }
        barrier();
        // Where each bucket's keys start in the tile, and where in the output.
        uint sum = 0u;
        for (uint b = span_first; b < span_end; ++b)
            sum += bucket_words[b];
        uint start = sum_before(sum);
        uint bucket_start = first_start;
        for (uint b = span_first; b < span_end; ++b) {
            uint keys_here = bucket_words[b];
#ifdef PLACES_BY_SEARCH
            // The other way round: the bucket's first slot in bucket_words,
            // and in tile_starts where slot s of its keys goes, less s. The
            // write reads tile_starts, which the next tile sets only past two
            // barriers, where it zeroes bucket_words before its first.
            bucket_words[b] = start;
            if (keys_here != 0u)
                tile_starts[b] = bucket_start + atomicAdd(words[claims_at() + b], keys_here) - start;
#else
            tile_starts[b] = start;
            if (keys_here != 0u)
                bucket_words[b] = bucket_start + atomicAdd(words[claims_at() + b], keys_here);
#endif
            start += keys_here;
            if (b + 1u < span_end)
                bucket_start += words[totals_at + b];
        }
        barrier();
        [[unroll]] for (uint j = 0u; j < SCATTER_KEYS; ++j) {
            if (placed[j] != 0xffffffffu) {
                uint bucket = placed[j] >> 16, rank = placed[j] & 0xffffu;
#ifdef PLACES_BY_SEARCH
                store_staged(bucket_words[bucket] + rank, batch[j], batch_values[j]);
#else
                uint slot = tile_starts[bucket] + rank;
                store_staged(slot, batch[j], batch_values[j]);
                workgroup_words[slot] = bucket_words[bucket] + rank;
#endif
            }
        }
        barrier();
        load_tile(tile + groups, tiles, batch, batch_values);
#ifdef PACKED_PAIRS
        if ((params.flags & FLAG_PACKED_PAIRS) != 0u) {
            for (uint slot = gl_LocalInvocationID.x; slot < in_tile; slot += gl_WorkGroupSize.x)
                packed_out[staged_place(slot)] = uvec2(stage_values[slot], ordered(staged_key(slot)));
            continue;
        }
#endif
        for (uint slot = gl_LocalInvocationID.x; slot < in_tile; slot += gl_WorkGroupSize.x) {
            uint place = staged_place(slot);
            keys_out[place] = staged_key(slot);
#ifdef WITH_VALUES
            values_out[place] = stage_values[slot];
#endif
        }
    }
}
