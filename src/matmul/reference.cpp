#include "matmul/reference.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <thread>

namespace ladder::lab::matmul {

Expected cpu_matmul(std::span<const float> a, std::span<const float> b, std::int64_t m,
                    std::int64_t n, std::int64_t k) {
  Expected e;
  e.c.assign(static_cast<std::size_t>(m * n), 0.0);
  e.abs_sum.assign(static_cast<std::size_t>(m * n), 0.0);
  // Rows of C split over the cores; within a row, i-k-j order walks B and C contiguously.
  const auto rows = [&](std::int64_t first, std::int64_t last) {
    for (std::int64_t i = first; i < last; ++i) {
      double* c = e.c.data() + i * n;
      double* s = e.abs_sum.data() + i * n;
      for (std::int64_t kk = 0; kk < k; ++kk) {
        const double x = a[static_cast<std::size_t>(i * k + kk)];
        const double ax = std::fabs(x);
        const float* row = b.data() + kk * n;
        for (std::int64_t j = 0; j < n; ++j) {
          c[j] += x * row[j];
          s[j] += ax * std::fabs(static_cast<double>(row[j]));
        }
      }
    }
  };
  const std::int64_t threads =
      std::clamp<std::int64_t>(static_cast<std::int64_t>(std::thread::hardware_concurrency()), 1,
                               std::max<std::int64_t>(m, 1));
  std::vector<std::thread> pool;
  for (std::int64_t t = 0; t < threads; ++t)
    pool.emplace_back(rows, m * t / threads, m * (t + 1) / threads);
  for (auto& thread : pool)
    thread.join();
  return e;
}

std::string compare_within_bound(std::span<const float> got, const Expected& expected,
                                 std::int64_t n, std::int64_t k, double input_rounding) {
  const double u = 0x1p-24;
  const double ku = static_cast<double>(k) * u;
  const double gamma = ku / (1 - ku) + 2 * input_rounding;
  std::int64_t bad = 0, first = -1;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double error = std::fabs(static_cast<double>(got[i]) - expected.c[i]);
    if (!(error <= gamma * expected.abs_sum[i])) { // also catches NaN
      if (first < 0)
        first = static_cast<std::int64_t>(i);
      ++bad;
    }
  }
  if (bad == 0)
    return "";
  char text[256];
  const auto i = static_cast<std::size_t>(first);
  std::snprintf(
      text, sizeof text,
      "%lld of %zu elements outside the bound; first at (%lld, %lld): got %.9g, expected %.9g "
      "(bound %.3g)",
      static_cast<long long>(bad), got.size(), static_cast<long long>(first / n),
      static_cast<long long>(first % n), static_cast<double>(got[i]), expected.c[i],
      gamma * expected.abs_sum[i]);
  return text;
}

} // namespace ladder::lab::matmul
