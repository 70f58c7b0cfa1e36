// ladder::reduce: argument checks, then one launch of the tiled kernel (src/reduce/kernels.cuh) in
// the shape chosen by size (src/reduce/api_config.hpp): one block when one round of one block
// covers n, else a grid sized from the occupancy API with the polled finish.
//
// Scratch: the polled finish needs a ticket counter that is zero and partial slots that are empty
// when the kernel starts. A grid launch allocates them per call on the call's stream (ladder's
// stream-ordered scratch, ladder/detail/scratch.hpp: 256 bytes + 16 per block of the grid),
// zeroes them, launches, and frees them on the stream: nothing is kept per stream (an earlier
// version kept a block per stream ever used, which grew without bound in a process that makes a
// stream per request and could not be first allocated under graph capture). The price is a small
// memset on the stream before the kernel; one block (inputs up to 64 KiB) needs neither.
#include "core/resident_grid.hpp"
#include "ladder/detail/scratch.hpp"
#include "ladder/error.hpp"
#include "ladder/reduce.hpp"
#include "reduce/api_config.hpp"
#include "reduce/kernels.cuh"

#include <stdexcept>
#include <string>

namespace ladder {

namespace {

using namespace reduce_detail;

template <class T> const char* type_name() {
  if constexpr (std::is_same_v<T, std::int32_t>)
    return "int32_t";
  else if constexpr (std::is_same_v<T, std::uint32_t>)
    return "uint32_t";
  else if constexpr (std::is_same_v<T, std::int64_t>)
    return "int64_t";
  else if constexpr (std::is_same_v<T, std::uint64_t>)
    return "uint64_t";
  else if constexpr (std::is_same_v<T, float>)
    return "float";
  else
    return "double";
}

const char* op_name(Op op) {
  switch (op) {
  case Op::sum:
    return "sum";
  case Op::product:
    return "product";
  case Op::min:
    return "min";
  case Op::max:
    return "max";
  case Op::bit_and:
    return "bit_and";
  case Op::bit_or:
    return "bit_or";
  }
  return "?";
}

template <class T> void check_op(Op op) {
  const auto value = static_cast<int>(op);
  if (value < 0 || value > static_cast<int>(Op::bit_or))
    throw std::invalid_argument("ladder::reduce: op is not a ladder::Op value (" +
                                std::to_string(value) + ")");
  if (std::is_floating_point_v<T> && (op == Op::bit_and || op == Op::bit_or))
    throw std::invalid_argument(std::string("ladder::reduce: op Op::") + op_name(op) +
                                " is defined for integer types only, not " + type_name<T>());
}

template <class T> void check_arguments(const T* in, std::int64_t n, Op op) {
  if (n < 0)
    throw std::invalid_argument("ladder::reduce: n must be >= 0, got " + std::to_string(n));
  if (in == nullptr && n > 0)
    throw std::invalid_argument("ladder::reduce: in is null with n = " + std::to_string(n));
  check_op<T>(op);
}

using core::multiprocessors;
using core::PerDevice;

// --- scratch -----------------------------------------------------------------------------------

constexpr std::size_t scratch_header_bytes = 256; // the counter, padded to keep partials aligned
constexpr std::size_t partial_slot_bytes = 16;    // finish_flagged's words for an 8-byte total

// --- launch --------------------------------------------------------------------------------------

// Every launch of the library: the polled finish (one block skips it), on scratch zeroed per call.
template <class T, class OpT, class config> constexpr auto library_kernel() {
  return tiled_reduce_kernel<T, OpT, config::threads, config::unroll, config::load, config::split,
                             Finish::polled>;
}

// Many blocks: the call's scratch holds the counter and the flagged partials.
template <class T, class OpT, class config>
void launch_grid(const T* in, std::int64_t n, T* out, int device, cudaStream_t stream) {
  constexpr auto kernel = library_kernel<T, OpT, config>();
  static PerDevice resident; // blocks per SM
  const int per_sm =
      std::max(core::resident_blocks_per_sm(resident, reinterpret_cast<const void*>(kernel),
                                            config::threads, 0, device),
               1);
  const std::int64_t max_blocks = static_cast<std::int64_t>(per_sm) * multiprocessors(device);
  const std::int64_t grid = tiled_grid<T>(n, config::threads, config::unroll, max_blocks);
  const std::size_t bytes =
      scratch_header_bytes + static_cast<std::size_t>(grid) * partial_slot_bytes;
  // Freed on the stream after the kernel by release(), or by the destructor if a call throws.
  detail::StreamScratch scratch(bytes, stream);
  LADDER_CUDA(cudaMemsetAsync(scratch.get(), 0, bytes, stream));
  const ScratchView<T> view{scratch.as<unsigned int>(),
                            reinterpret_cast<T*>(scratch.as<char>() + scratch_header_bytes)};
  kernel<<<static_cast<unsigned int>(grid), config::threads, 0, stream>>>(in, n, out, view);
  LADDER_CUDA(cudaGetLastError());
  scratch.release();
}

template <class T, class OpT, class config>
void launch_one_block(const T* in, std::int64_t n, T* out, cudaStream_t stream) {
  library_kernel<T, OpT, config>()<<<1, config::threads, 0, stream>>>(in, n, out, ScratchView<T>{});
  LADDER_CUDA(cudaGetLastError());
}

template <class T, class OpT>
void launch(const T* in, std::int64_t n, T* out, cudaStream_t stream) {
  // One block covers n: no partials, no scratch, no host-side lookups. The smaller block where it
  // suffices: a 1024-thread block takes longer to start and to fold than a 256-thread one.
  const std::int64_t bytes = n * static_cast<std::int64_t>(sizeof(T));
  if (bytes <= library_one_block_bytes<library_small_config>)
    return launch_one_block<T, OpT, library_small_config>(in, n, out, stream);
  if (bytes <= library_one_block_bytes<library_large_config>)
    return launch_one_block<T, OpT, library_large_config>(in, n, out, stream);
  int device = 0;
  LADDER_CUDA(cudaGetDevice(&device));
  if (n >= library_large_min)
    launch_grid<T, OpT, library_large_config>(in, n, out, device, stream);
  else
    launch_grid<T, OpT, library_small_config>(in, n, out, device, stream);
}

template <class T> void dispatch(const T* in, std::int64_t n, Op op, T* out, cudaStream_t stream) {
  switch (op) {
  case Op::sum:
    return launch<T, Sum<T>>(in, n, out, stream);
  case Op::product:
    return launch<T, Product<T>>(in, n, out, stream);
  case Op::min:
    return launch<T, Min<T>>(in, n, out, stream);
  case Op::max:
    return launch<T, Max<T>>(in, n, out, stream);
  case Op::bit_and:
  case Op::bit_or:
    if constexpr (std::is_integral_v<T>) {
      if (op == Op::bit_and)
        return launch<T, BitAnd<T>>(in, n, out, stream);
      return launch<T, BitOr<T>>(in, n, out, stream);
    }
    break;
  }
  check_op<T>(op); // unreachable after check_arguments; keeps the error in one place
}

} // namespace

template <class T> T detail::reduce_identity_of(Op op) {
  check_op<T>(op);
  switch (op) {
  case Op::sum:
    return Sum<T>::identity();
  case Op::product:
    return Product<T>::identity();
  case Op::min:
    return Min<T>::identity();
  case Op::max:
    return Max<T>::identity();
  case Op::bit_and:
    if constexpr (std::is_integral_v<T>)
      return BitAnd<T>::identity();
    break;
  case Op::bit_or:
    if constexpr (std::is_integral_v<T>)
      return BitOr<T>::identity();
    break;
  }
  return T{};
}

namespace detail {

template <class T>
void reduce_to_device(const T* in, std::int64_t n, Op op, T* out_device, cudaStream_t stream) {
  check_arguments(in, n, op);
  if (out_device == nullptr)
    throw std::invalid_argument("ladder::reduce: out_device is null");
  dispatch(in, n, op, out_device, stream);
}

template <class T> T reduce_to_host(const T* in, std::int64_t n, Op op, cudaStream_t stream) {
  check_arguments(in, n, op);
  if (n == 0) // the identity: no CUDA call, no wait, so no GPU needed and nothing to capture
    return reduce_identity<T>(op);
  // Checked before anything is enqueued: waiting for a capturing stream would invalidate the
  // caller's capture.
  check_not_capturing("ladder::reduce", stream);
  // A result slot of its own: two host threads sharing one stream must not read each other's.
  StreamScratch result(sizeof(T), stream);
  T value{};
  dispatch(in, n, op, result.as<T>(), stream);
  LADDER_CUDA(cudaMemcpyAsync(&value, result.get(), sizeof(T), cudaMemcpyDeviceToHost, stream));
  result.release();
  LADDER_CUDA(cudaStreamSynchronize(stream));
  return value;
}

#define LADDER_INSTANTIATE_REDUCE(T)                                                               \
  template void reduce_to_device<T>(const T*, std::int64_t, Op, T*, cudaStream_t);                 \
  template T reduce_to_host<T>(const T*, std::int64_t, Op, cudaStream_t);
LADDER_INSTANTIATE_REDUCE(std::int32_t)
LADDER_INSTANTIATE_REDUCE(std::uint32_t)
LADDER_INSTANTIATE_REDUCE(std::int64_t)
LADDER_INSTANTIATE_REDUCE(std::uint64_t)
LADDER_INSTANTIATE_REDUCE(float)
LADDER_INSTANTIATE_REDUCE(double)
#undef LADDER_INSTANTIATE_REDUCE

} // namespace detail

template std::int32_t detail::reduce_identity_of<std::int32_t>(Op);
template std::uint32_t detail::reduce_identity_of<std::uint32_t>(Op);
template std::int64_t detail::reduce_identity_of<std::int64_t>(Op);
template std::uint64_t detail::reduce_identity_of<std::uint64_t>(Op);
template float detail::reduce_identity_of<float>(Op);
template double detail::reduce_identity_of<double>(Op);

} // namespace ladder
