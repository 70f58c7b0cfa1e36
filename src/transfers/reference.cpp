#include "transfers/reference.hpp"

#include <cmath>
#include <cstring>
#include <sstream>
#include <thread>
#include <vector>

namespace ladder::lab::transfers {

std::string compare_bytes(std::span<const std::byte> got, std::span<const std::byte> expected) {
  if (got.size() != expected.size())
    return "size " + std::to_string(got.size()) + " != expected " + std::to_string(expected.size());
  // memcmp first: the common case (equal) at memory speed.
  if (got.empty() || std::memcmp(got.data(), expected.data(), got.size()) == 0)
    return "";
  std::size_t first = got.size(), count = 0;
  for (std::size_t i = 0; i < got.size(); ++i)
    if (got[i] != expected[i]) {
      if (count++ == 0)
        first = i;
    }
  std::ostringstream out;
  out << count << " of " << got.size() << " bytes differ; first at offset " << first << ": got "
      << std::to_integer<int>(got[first]) << ", expected " << std::to_integer<int>(expected[first]);
  return out.str();
}

void cpu_pipeline_stage(std::span<const float> in, std::span<float> out, int iterations,
                        float multiplier, float addend) {
  // Split over the host's threads: hundreds of iterations per element over 2^26 elements.
  const std::size_t n = in.size();
  const unsigned threads = std::max(1u, std::min(std::thread::hardware_concurrency(), 64u));
  const std::size_t per = (n + threads - 1) / threads;
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      const std::size_t begin = t * per, end = std::min(n, begin + per);
      for (std::size_t i = begin; i < end; ++i) {
        float x = in[i];
        for (int k = 0; k < iterations; ++k)
          x = std::fma(x, multiplier, addend);
        out[i] = x;
      }
    });
  for (auto& t : pool)
    t.join();
}

std::string compare_floats_exact(std::span<const float> got, std::span<const float> expected) {
  if (got.size() != expected.size())
    return "size mismatch";
  if (got.empty() || std::memcmp(got.data(), expected.data(), got.size() * sizeof(float)) == 0)
    return "";
  std::size_t first = 0, count = 0;
  for (std::size_t i = 0; i < got.size(); ++i)
    if (std::memcmp(&got[i], &expected[i], sizeof(float)) != 0 && count++ == 0)
      first = i;
  std::ostringstream out;
  out.precision(9);
  out << count << " of " << got.size() << " elements differ; first at " << first << ": got "
      << got[first] << ", expected " << expected[first];
  return out.str();
}

} // namespace ladder::lab::transfers
