// cub_parts.cu: times the parts CUB's merge sort is built from, on 32-bit keys, so each of our
// passes has a peer figure beside it: a device-to-device copy (the bandwidth floor), one merge
// level (cub::DeviceMerge::MergeKeys of two sorted halves: the partition and the merge, what one
// of our split and merge dispatch pairs does), the block sort of tiles (cub::BlockMergeSort in a
// kernel of our own: CUB's merge-sort tile of 256 x 17 keys, its merge tile of 512 x 15, and
// tiles of our 8192 keys), and the whole cub::DeviceMergeSort for reference.
//
// Keys are drawn on the GPU (a hash of index and run), fresh for every run, right before the
// timed call, so the GPU never idles between warm-up and timing. CUDA events around the call
// alone; 2 warm-ups, then --runs timed runs (default 10), median and min. Every run's output is
// checked on the GPU: in order (whole, or within each tile) and with the same key sum as its
// input. Prints lines of `part,n,median_ms,min_ms,runs,verified`. Exit status: 0 all verified,
// 1 some output was wrong, 2 a CUDA error or bad arguments.
//
// Build: bench/cub/build.sh OUTPUT bench/cub/cub_parts.cu

#include <cub/block/block_load.cuh>
#include <cub/block/block_merge_sort.cuh>
#include <cub/block/block_store.cuh>
#include <cub/device/device_merge.cuh>
#include <cub/device/device_merge_sort.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <vector>

#define CUDA_CHECK(call)                                                                   \
  do {                                                                                     \
    cudaError_t cuda_check_err_ = (call);                                                  \
    if (cuda_check_err_ != cudaSuccess) {                                                  \
      std::fprintf(stderr, "cub_parts: CUDA error at %s:%d: %s returned %s\n", __FILE__,   \
                   __LINE__, #call, cudaGetErrorString(cuda_check_err_));                  \
      std::exit(2);                                                                        \
    }                                                                                      \
  } while (0)

namespace {

struct Less {
  __host__ __device__ bool operator()(uint32_t a, uint32_t b) const { return a < b; }
};

// Key i of run `run`: a 32-bit mix of both (splitmix-style), different for every run.
__device__ uint32_t random_key(unsigned long long i, unsigned run) {
  unsigned long long z = i * 0x9e3779b97f4a7c15ull + (unsigned long long)run * 0xbf58476d1ce4e5b9ull + 1;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return (uint32_t)(z ^ (z >> 31));
}

__global__ void fill_random(uint32_t* keys, long long n, unsigned run) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    keys[i] = random_key((unsigned long long)i, run);
}

// Adds every key to *sum and counts, into *bad, each neighbour pair out of order that lies
// within one segment of `segment` keys (segment = n: the whole array).
__global__ void check_keys(const uint32_t* keys, long long n, long long segment, unsigned long long* sum,
                           unsigned long long* bad) {
  unsigned long long local_sum = 0, local_bad = 0;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    local_sum += keys[i];
    if (i + 1 < n && (i + 1) % segment != 0 && keys[i + 1] < keys[i]) ++local_bad;
  }
  atomicAdd(sum, local_sum);
  if (local_bad) atomicAdd(bad, local_bad);
}

template <int THREADS, int ITEMS>
__global__ void __launch_bounds__(THREADS) block_sort(const uint32_t* in, uint32_t* out) {
  using Load = cub::BlockLoad<uint32_t, THREADS, ITEMS, cub::BLOCK_LOAD_WARP_TRANSPOSE>;
  using Sort = cub::BlockMergeSort<uint32_t, THREADS, ITEMS>;
  using Store = cub::BlockStore<uint32_t, THREADS, ITEMS, cub::BLOCK_STORE_WARP_TRANSPOSE>;
  __shared__ union {
    typename Load::TempStorage load;
    typename Sort::TempStorage sort;
    typename Store::TempStorage store;
  } temp;
  long long base = (long long)blockIdx.x * THREADS * ITEMS;
  uint32_t keys[ITEMS];
  Load(temp.load).Load(in + base, keys);
  __syncthreads();
  Sort(temp.sort).Sort(keys, Less());
  __syncthreads();
  Store(temp.store).Store(out + base, keys);
}

template <int THREADS, int ITEMS>
void launch_block_sort(const uint32_t* in, uint32_t* out, long long tiles, cudaStream_t stream) {
  block_sort<THREADS, ITEMS><<<(unsigned)tiles, THREADS, 0, stream>>>(in, out);
}

struct Gpu {
  cudaStream_t stream = nullptr;
  cudaEvent_t start = nullptr, stop = nullptr;
  unsigned long long* d_stats = nullptr;  // [sum in, sum out, bad]
  int fill_blocks = 0;
};

unsigned long long key_sum(Gpu& gpu, const uint32_t* keys, long long n, long long segment, unsigned long long* bad) {
  CUDA_CHECK(cudaMemsetAsync(gpu.d_stats, 0, 2 * sizeof(unsigned long long), gpu.stream));
  check_keys<<<gpu.fill_blocks, 256, 0, gpu.stream>>>(keys, n, segment, gpu.d_stats, gpu.d_stats + 1);
  CUDA_CHECK(cudaGetLastError());
  unsigned long long host[2];
  CUDA_CHECK(cudaMemcpyAsync(host, gpu.d_stats, sizeof host, cudaMemcpyDeviceToHost, gpu.stream));
  CUDA_CHECK(cudaStreamSynchronize(gpu.stream));
  if (bad) *bad = host[1];
  return host[0];
}

// Times `timed` (one enqueue on gpu.stream) after `prepare` (run `run`'s input, untimed), and
// checks each run's output with `check` (true: right). Prints one line.
void measure(Gpu& gpu, const char* part, long long n, int runs, const std::function<void(unsigned)>& prepare,
             const std::function<void()>& timed, const std::function<bool()>& check, int* failures) {
  std::vector<float> times;
  bool verified = true;
  for (int r = 0; r < runs + 2; ++r) {
    prepare((unsigned)r);
    CUDA_CHECK(cudaEventRecord(gpu.start, gpu.stream));
    timed();
    CUDA_CHECK(cudaEventRecord(gpu.stop, gpu.stream));
    CUDA_CHECK(cudaEventSynchronize(gpu.stop));
    CUDA_CHECK(cudaGetLastError());
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, gpu.start, gpu.stop));
    if (r >= 2) times.push_back(ms);
    verified = check() && verified;
  }
  std::sort(times.begin(), times.end());
  size_t c = times.size();
  double median = c % 2 ? times[c / 2] : 0.5 * (times[c / 2 - 1] + times[c / 2]);
  std::printf("%s,%lld,%.6f,%.6f,%d,%d\n", part, n, median, (double)times[0], runs, verified ? 1 : 0);
  std::fflush(stdout);
  if (!verified) ++*failures;
}

}  // namespace

int main(int argc, char** argv) {
  int min_log = 20, max_log = 26, runs = 10;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--min-log") == 0 && i + 1 < argc) min_log = std::atoi(argv[++i]);
    else if (std::strcmp(argv[i], "--max-log") == 0 && i + 1 < argc) max_log = std::atoi(argv[++i]);
    else if (std::strcmp(argv[i], "--runs") == 0 && i + 1 < argc) runs = std::atoi(argv[++i]);
    else {
      std::fprintf(stderr, "usage: cub_parts [--min-log K] [--max-log K] [--runs N] (14 <= K <= 28)\n");
      return 2;
    }
  }
  if (min_log < 14 || max_log > 28 || min_log > max_log || runs < 1) {
    std::fprintf(stderr, "cub_parts: logs from 14 to 28, runs at least 1\n");
    return 2;
  }
  Gpu gpu;
  CUDA_CHECK(cudaStreamCreate(&gpu.stream));
  CUDA_CHECK(cudaEventCreate(&gpu.start));
  CUDA_CHECK(cudaEventCreate(&gpu.stop));
  CUDA_CHECK(cudaMalloc(&gpu.d_stats, 2 * sizeof(unsigned long long)));
  int sms = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  gpu.fill_blocks = sms * 8;
  cudaDeviceProp properties;
  CUDA_CHECK(cudaGetDeviceProperties(&properties, 0));
  std::printf("# %s, %d SMs; part,n,median_ms,min_ms,runs,verified\n", properties.name, sms);
  int failures = 0;
  for (int log = min_log; log <= max_log; ++log) {
    long long n = 1ll << log;
    size_t bytes = (size_t)n * 4;
    uint32_t *d_in = nullptr, *d_out = nullptr, *d_sorted = nullptr;
    CUDA_CHECK(cudaMalloc(&d_in, bytes));
    CUDA_CHECK(cudaMalloc(&d_out, bytes));
    CUDA_CHECK(cudaMalloc(&d_sorted, bytes));
    unsigned long long in_sum = 0;
    auto fill = [&](unsigned run) {
      fill_random<<<gpu.fill_blocks, 256, 0, gpu.stream>>>(d_in, n, run + 1000u * (unsigned)log);
      CUDA_CHECK(cudaGetLastError());
    };
    auto fill_and_sum = [&](unsigned run) {
      fill(run);
      in_sum = key_sum(gpu, d_in, n, n, nullptr);
    };
    auto same_sum_sorted_in = [&](const uint32_t* keys, long long segment) {
      unsigned long long bad = 0;
      return key_sum(gpu, keys, n, segment, &bad) == in_sum && bad == 0;
    };
    // The floor: every key read and written once.
    measure(gpu, "cub_copy", n, runs, fill_and_sum,
            [&] { CUDA_CHECK(cudaMemcpyAsync(d_out, d_in, bytes, cudaMemcpyDeviceToDevice, gpu.stream)); },
            [&] { return key_sum(gpu, d_out, n, n, nullptr) == in_sum; }, &failures);
    // One merge level: two sorted halves (sorted by radix sort, untimed) merged into one run.
    size_t radix_bytes = 0, merge_bytes = 0, sort_bytes = 0;
    CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, radix_bytes, d_in, d_sorted, (int)(n / 2), 0, 32, gpu.stream));
    CUDA_CHECK(cub::DeviceMerge::MergeKeys(nullptr, merge_bytes, d_sorted, (int)(n / 2), d_sorted + n / 2,
                                           (int)(n / 2), d_out, Less(), gpu.stream));
    CUDA_CHECK(cub::DeviceMergeSort::SortKeys(nullptr, sort_bytes, d_out, n, Less(), gpu.stream));
    size_t temp_bytes = std::max(radix_bytes, std::max(merge_bytes, sort_bytes));
    void* d_temp = nullptr;
    CUDA_CHECK(cudaMalloc(&d_temp, temp_bytes));
    auto sorted_halves = [&](unsigned run) {
      fill_and_sum(run);
      for (int half = 0; half < 2; ++half) {
        size_t b = temp_bytes;
        CUDA_CHECK(cub::DeviceRadixSort::SortKeys(d_temp, b, d_in + half * (n / 2), d_sorted + half * (n / 2),
                                                  (int)(n / 2), 0, 32, gpu.stream));
      }
    };
    measure(gpu, "cub_merge_level", n, runs, sorted_halves,
            [&] {
              size_t b = temp_bytes;
              CUDA_CHECK(cub::DeviceMerge::MergeKeys(d_temp, b, d_sorted, (int)(n / 2), d_sorted + n / 2,
                                                     (int)(n / 2), d_out, Less(), gpu.stream));
            },
            [&] { return same_sum_sorted_in(d_out, n); }, &failures);
    // Block sorts: CUB's merge-sort tile (256 x 17; an odd count a thread keeps the shared-memory
    // merge free of bank conflicts), its merge tile (512 x 15), and our 8192 keys in two shapes.
    // Whole tiles only: the keys past the last whole tile are neither sorted nor checked.
    auto block_part = [&](const char* part, int tile, void (*launch)(const uint32_t*, uint32_t*, long long, cudaStream_t)) {
      long long tiles = n / tile, covered = tiles * (long long)tile;
      unsigned long long covered_sum = 0;
      measure(gpu, part, n, runs,
              [&](unsigned run) {
                fill(run);
                covered_sum = key_sum(gpu, d_in, covered, covered, nullptr);
              },
              [&] { launch(d_in, d_out, tiles, gpu.stream); },
              [&] {
                unsigned long long bad = 0;
                return key_sum(gpu, d_out, covered, tile, &bad) == covered_sum && bad == 0;
              },
              &failures);
    };
    block_part("cub_block_sort_256x17", 256 * 17, launch_block_sort<256, 17>);
    block_part("cub_block_sort_256x16", 256 * 16, launch_block_sort<256, 16>);
    block_part("cub_block_sort_512x15", 512 * 15, launch_block_sort<512, 15>);
    block_part("cub_block_sort_512x16", 512 * 16, launch_block_sort<512, 16>);
    block_part("cub_block_sort_1024x8", 1024 * 8, launch_block_sort<1024, 8>);
    // The whole merge sort, in place on a copy of the keys (the copy untimed).
    measure(gpu, "cub_merge_sort", n, runs,
            [&](unsigned run) {
              fill_and_sum(run);
              CUDA_CHECK(cudaMemcpyAsync(d_out, d_in, bytes, cudaMemcpyDeviceToDevice, gpu.stream));
            },
            [&] {
              size_t b = temp_bytes;
              CUDA_CHECK(cub::DeviceMergeSort::SortKeys(d_temp, b, d_out, n, Less(), gpu.stream));
            },
            [&] { return same_sum_sorted_in(d_out, n); }, &failures);
    CUDA_CHECK(cudaFree(d_temp));
    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_out));
    CUDA_CHECK(cudaFree(d_sorted));
  }
  return failures ? 1 : 0;
}
