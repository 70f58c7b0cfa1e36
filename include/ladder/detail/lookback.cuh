// Decoupled look-back (Merrill and Garland, "Single-pass Parallel Prefix Scan with Decoupled
// Look-back", NVIDIA technical report NVR-2016-002, 2016): the device-side pieces shared by
// ladder's scans and stream compaction. Internal to ladder (installed because compact() is a
// header template); no API promise.
//
// Every tile of the input has one status word in global memory: nothing yet (X), its own sum
// (the "aggregate", A), or the sum of everything up to and including it (the "inclusive prefix",
// P). A tile publishes A as soon as it has reduced its own elements, then walks back over its
// predecessors a warp-wide window at a time, adding their A values until it meets a P; then it
// publishes its own P. A tile therefore waits only for predecessors that have not even reduced
// their elements, never for a chain of complete scans, and the data is read once and written once.
//
// Tiles are numbered by an atomic counter as blocks start, not by blockIdx: a tile only ever
// waits for tiles that a running block already holds, so the look-back cannot deadlock whatever
// order the hardware schedules blocks in.
#pragma once

#include "ladder/detail/warp.cuh"

#include <cuda/atomic>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace ladder::detail::lookback {

using warp::full_mask;
inline constexpr unsigned flag_none = 0, flag_aggregate = 1, flag_prefix = 2;

// Scratch layout of one call: the tile counter in the first 256 bytes, then the status words.
// All of it zeroed (cudaMemsetAsync) before the kernel; zero means "counter 0, every tile X".
inline constexpr std::size_t counter_bytes = 256;

// A tile is loaded by warps: warp w owns one contiguous segment, and its j-th load instruction
// reads 32 consecutive accesses of Width elements (16 bytes when Width x sizeof(T) = 16), so each
// instruction covers 32 x 16 = 512 contiguous bytes.
template <class T, int Width> struct alignas(sizeof(T) * Width) Access {
  T v[Width];
};

// Loads this lane's A accesses of the warp segment starting at element `segment` of a full tile:
// all A loads are issued before any is used, so A 16-byte accesses per thread are in flight.
template <bool Streaming, class T, int W, int A>
__device__ __forceinline__ void load_segment(const T* in, std::int64_t segment, int lane, T (&x)[A][W]) {
#pragma unroll
  for (int j = 0; j < A; ++j) {
    Access<T, W> a;
    if constexpr (Streaming && sizeof(a) == 16) {
      const uint4 raw = __ldcs(reinterpret_cast<const uint4*>(in + segment) + j * 32 + lane);
      std::memcpy(&a, &raw, 16);
    } else {
      a = reinterpret_cast<const Access<T, W>*>(in + segment)[j * 32 + lane];
    }
#pragma unroll
    for (int k = 0; k < W; ++k)
      x[j][k] = a.v[k];
  }
}

// The same for the last, partial tile: a whole access where it ends at or below n (the full
// tile's 16-byte load), elements below n for the one access that n cuts, zeros past it. Element
// loads for the whole tile were 4x the load instructions and made the one-tile launch of a
// misaligned 2^14-element scan take 11 us against 6 us for the full tile (H200).
template <class T, int W, int A>
__device__ __forceinline__ void load_segment_guarded(const T* in, std::int64_t segment, std::int64_t n, int lane,
                                                     T (&x)[A][W]) {
#pragma unroll
  for (int j = 0; j < A; ++j) {
    const std::int64_t first = segment + static_cast<std::int64_t>(j * 32 + lane) * W;
    if (first + W <= n) {
      const Access<T, W> a = reinterpret_cast<const Access<T, W>*>(in + segment)[j * 32 + lane];
#pragma unroll
      for (int k = 0; k < W; ++k)
        x[j][k] = a.v[k];
    } else {
#pragma unroll
      for (int k = 0; k < W; ++k)
        x[j][k] = first + k < n ? in[first + k] : T{};
    }
  }
}

// The warp reductions and scans the look-back kernels use (ladder/detail/warp.cuh).
template <class T> __device__ __forceinline__ T warp_sum(T v) { return warp::sum_all_lanes(v); }
template <class T> __device__ __forceinline__ T warp_inclusive_scan(T v, int lane) {
  return warp::inclusive_scan(v, lane);
}
template <class T> __device__ __forceinline__ T warp_exclusive_scan(T v, int lane, T& total) {
  return warp::exclusive_scan(v, lane, total);
}

// 4-byte values: value and flag in one 8-byte word, written and read by a single access, so a
// reader never pairs a new flag with an old value and needs no fence (relaxed, device scope).
template <class T> struct PackedStatus32 {
  static_assert(sizeof(T) == 4);
  unsigned long long* words;
  static constexpr std::size_t bytes_per_tile = 8;
  __host__ __device__ static PackedStatus32 at(void* status) {
    return {static_cast<unsigned long long*>(status)};
  }
  __device__ void publish(std::int64_t tile, unsigned flag, T value) const {
    unsigned bits;
    std::memcpy(&bits, &value, 4);
    cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> word(words[tile]);
    word.store((static_cast<unsigned long long>(flag) << 32) | bits, cuda::memory_order_relaxed);
  }
  __device__ void read(std::int64_t tile, unsigned& flag, T& value) const {
    cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> word(words[tile]);
    const unsigned long long w = word.load(cuda::memory_order_relaxed);
    flag = static_cast<unsigned>(w >> 32);
    const auto bits = static_cast<unsigned>(w);
    std::memcpy(&value, &bits, 4);
  }
};

// Non-negative counts below 2^62 (stream compaction): flag in the top two bits of one word.
struct PackedCount62 {
  unsigned long long* words;
  static constexpr std::size_t bytes_per_tile = 8;
  __host__ __device__ static PackedCount62 at(void* status) {
    return {static_cast<unsigned long long*>(status)};
  }
  __device__ void publish(std::int64_t tile, unsigned flag, std::int64_t value) const {
    cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> word(words[tile]);
    word.store((static_cast<unsigned long long>(flag) << 62) | static_cast<unsigned long long>(value),
               cuda::memory_order_relaxed);
  }
  __device__ void read(std::int64_t tile, unsigned& flag, std::int64_t& value) const {
    cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> word(words[tile]);
    const unsigned long long w = word.load(cuda::memory_order_relaxed);
    flag = static_cast<unsigned>(w >> 62);
    value = static_cast<std::int64_t>(w & ((1ull << 62) - 1));
  }
};

// 8-byte values: a flag word and two value arrays (aggregate, inclusive prefix). The value is
// stored first and the flag with release; a reader loads the flag with acquire, then the value.
// Each value slot is written once, before the flag that announces it.
template <class T> struct SplitStatus64 {
  static_assert(sizeof(T) == 8);
  unsigned* flags;
  T* aggregates;
  T* prefixes;
  static constexpr std::size_t bytes_per_tile = 4 + 2 * sizeof(T);
  // `status` holds flags[tiles] (padded to 8 bytes), then aggregates[tiles], then prefixes[tiles].
  __host__ __device__ static SplitStatus64 at(void* status, std::int64_t tiles) {
    auto* base = static_cast<unsigned char*>(status);
    const std::int64_t flag_bytes = (tiles * 4 + 7) / 8 * 8;
    return {reinterpret_cast<unsigned*>(base), reinterpret_cast<T*>(base + flag_bytes),
            reinterpret_cast<T*>(base + flag_bytes + tiles * sizeof(T))};
  }
  __device__ void publish(std::int64_t tile, unsigned flag, T value) const {
    T* slot = flag == flag_aggregate ? aggregates + tile : prefixes + tile;
    *reinterpret_cast<volatile T*>(slot) = value;
    cuda::atomic_ref<unsigned, cuda::thread_scope_device> f(flags[tile]);
    f.store(flag, cuda::memory_order_release);
  }
  __device__ void read(std::int64_t tile, unsigned& flag, T& value) const {
    cuda::atomic_ref<unsigned, cuda::thread_scope_device> f(flags[tile]);
    flag = f.load(cuda::memory_order_acquire);
    value = T(0);
    if (flag == flag_aggregate)
      value = *reinterpret_cast<const volatile T*>(aggregates + tile);
    else if (flag == flag_prefix)
      value = *reinterpret_cast<const volatile T*>(prefixes + tile);
  }
};

template <class T>
using ScanStatus = std::conditional_t<sizeof(T) == 4, PackedStatus32<T>, SplitStatus64<T>>;

template <class T> __host__ __device__ inline ScanStatus<T> scan_status_at(void* status, std::int64_t tiles) {
  if constexpr (sizeof(T) == 4)
    return PackedStatus32<T>::at(status);
  else
    return SplitStatus64<T>::at(status, tiles);
}

// Bytes of scratch for `tiles` tiles: counter + status words.
template <class Status> constexpr std::size_t scratch_bytes(std::int64_t tiles) {
  return counter_bytes + static_cast<std::size_t>(tiles) * Status::bytes_per_tile + 16;
}

// Called by all 32 lanes of one warp of the block that owns `tile` (tile > 0) after lane 0 has
// published the tile's aggregate: walks back, publishes P = exclusive prefix + aggregate, and
// returns the exclusive prefix of the tile (the sum of all earlier tiles) in every lane.
// Backoff: a warp that finds a needed predecessor still X sleeps (__nanosleep, 64 ns doubling up
// to 512 ns) before it reads again, so that hundreds of waiting warps do not hammer the few L2
// lines that hold the newest status words.
template <bool Backoff = false, class T, class Status>
__device__ T walk_back(const Status& status, std::int64_t tile, T aggregate, int lane) {
  T exclusive = T(0);
  std::int64_t window = tile - 1; // lane 0 looks at the nearest predecessor
  unsigned delay = 64;
  for (;;) {
    const std::int64_t mine = window - lane;
    unsigned flag = flag_prefix;
    T value = T(0);
    if (mine >= 0) // before tile 0 counts as "prefix 0": the walk stops there
      status.read(mine, flag, value);
    bool found = false;
    for (;;) {
      const unsigned prefix_lanes = __ballot_sync(full_mask, flag == flag_prefix);
      const unsigned waiting = __ballot_sync(full_mask, flag == flag_none);
      // Lanes from the nearest predecessor up to the nearest one that has its prefix (all 32
      // when none has): only those must have published something.
      const unsigned needed =
          prefix_lanes ? ((prefix_lanes & (0u - prefix_lanes)) << 1) - 1u : full_mask;
      if ((waiting & needed) == 0) {
        exclusive += warp_sum(((needed >> lane) & 1u) ? value : T(0));
        found = prefix_lanes != 0;
        break;
      }
      if constexpr (Backoff) {
        __nanosleep(delay);
        delay = delay < 512 ? delay * 2 : delay;
      }
      if (flag == flag_none) // only predecessors that had nothing are read again
        status.read(mine, flag, value);
    }
    if (found)
      break;
    window -= 32;
  }
  if (lane == 0)
    status.publish(tile, flag_prefix, exclusive + aggregate);
  return exclusive;
}

// Called by all 32 lanes of one warp of the block that owns `tile`, with the tile's aggregate.
// Publishes A (or P for tile 0), walks back, publishes P, and returns the exclusive prefix of the
// tile (the sum of all earlier tiles) in every lane. `first` (tile 0 only) is what comes before
// tile 0: the sum of the elements a misaligned call scans ahead of its aligned tiles.
template <class T, class Status>
__device__ T tile_exclusive_prefix(const Status& status, std::int64_t tile, T aggregate, int lane,
                                   T first = T(0)) {
  if (tile == 0) {
    if (lane == 0)
      status.publish(0, flag_prefix, first + aggregate);
    return first;
  }
  if (lane == 0)
    status.publish(tile, flag_aggregate, aggregate);
  return walk_back<false>(status, tile, aggregate, lane);
}

} // namespace ladder::detail::lookback
