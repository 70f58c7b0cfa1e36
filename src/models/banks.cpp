// Shared-memory bank conflicts ("Optimizing CUDA" (NVIDIA), "Shared Memory Architecture" .. "Bank Conflicts in
// Transpose"; "Optimizing CUDA code" (Moreno Maza), "Shared memory bank conflicts (1/6)" .. "(5/6)").
//
// Successive 4-byte words live in successive banks; a bank serves one word per pass. A request
// (a half-warp on 1.x, a warp since 2.0) takes as many passes as the most distinct words any one
// bank must serve. Threads reading the same word are served together (broadcast), so they count
// once.
#include "ladder/models.hpp"

#include "arguments.hpp"

#include <span>
#include <algorithm>
#include <set>

namespace ladder::models {

BankConflicts bank_conflicts(View<std::int64_t> word_addresses_view, int banks,
                             int threads_per_request) {
  const std::span<const std::int64_t> word_addresses(word_addresses_view.data(), word_addresses_view.size());
  detail::require_positive("banks", banks);
  detail::require_positive("threads_per_request", threads_per_request);
  if (word_addresses.empty()) {
    detail::bad_argument("word_addresses", "needs at least one thread's address");
  }
  for (std::size_t thread = 0; thread < word_addresses.size(); ++thread) {
    if (word_addresses[thread] < 0) {
      detail::bad_argument("word_addresses", "thread " + std::to_string(thread) +
                                                 " has a negative address " +
                                                 std::to_string(word_addresses[thread]));
    }
  }

  BankConflicts result;
  result.banks = banks;
  result.threads_per_request = threads_per_request;
  const auto request_size = static_cast<std::size_t>(threads_per_request);
  for (std::size_t first = 0; first < word_addresses.size(); first += request_size) {
    const auto request =
        word_addresses.subspan(first, std::min(request_size, word_addresses.size() - first));
    std::vector<std::set<std::int64_t>> words_in_bank(static_cast<std::size_t>(banks));
    for (const std::int64_t word : request) {
      words_in_bank[static_cast<std::size_t>(word % banks)].insert(word);
    }
    std::vector<int> words_per_bank;
    words_per_bank.reserve(words_in_bank.size());
    for (const auto& words : words_in_bank) {
      words_per_bank.push_back(static_cast<int>(words.size()));
    }
    const int degree = *std::ranges::max_element(words_per_bank);
    result.degree_per_request.push_back(degree);
    if (degree > result.degree) {
      result.degree = degree;
      result.words_per_bank = std::move(words_per_bank);
    }
  }
  return result;
}

std::vector<std::int64_t> strided_words(int threads, std::int64_t stride, std::int64_t offset) {
  detail::require_positive("threads", threads);
  detail::require_non_negative("stride", stride);
  detail::require_non_negative("offset", offset);
  std::vector<std::int64_t> words;
  words.reserve(static_cast<std::size_t>(threads));
  for (int thread = 0; thread < threads; ++thread) {
    words.push_back(
        detail::checked_add("offset", offset, detail::checked_mul("stride", thread, stride)));
  }
  return words;
}

std::vector<std::int64_t> tile_words(const TileWalk& tile, int threads) {
  detail::require_positive("rows", tile.rows);
  detail::require_positive("cols", tile.cols);
  detail::require_non_negative("padding", tile.padding);
  detail::require_positive("threads", threads);
  if (tile.row < 0 || tile.row >= tile.rows) {
    detail::bad_argument("row", "must be 0.." + std::to_string(tile.rows - 1) + ", got " +
                                    std::to_string(tile.row));
  }
  if (tile.col < 0 || tile.col >= tile.cols) {
    detail::bad_argument("col", "must be 0.." + std::to_string(tile.cols - 1) + ", got " +
                                    std::to_string(tile.col));
  }
  const std::int64_t pitch = std::int64_t{tile.cols} + tile.padding; // both up to INT_MAX
  const std::int64_t elements = static_cast<std::int64_t>(tile.rows) * tile.cols;
  std::vector<std::int64_t> words;
  words.reserve(static_cast<std::size_t>(threads));
  for (int thread = 0; thread < threads; ++thread) {
    // Position along the walk, wrapping around the tile so that any thread count is defined.
    std::int64_t row = 0;
    std::int64_t col = 0;
    if (tile.direction == TileWalk::Direction::row) {
      const std::int64_t index =
          (tile.row * std::int64_t{tile.cols} + tile.col + thread) % elements;
      row = index / tile.cols;
      col = index % tile.cols;
    } else {
      const std::int64_t index =
          (tile.col * std::int64_t{tile.rows} + tile.row + thread) % elements;
      col = index / tile.rows;
      row = index % tile.rows;
    }
    words.push_back(detail::checked_mul("padding", row, pitch) + col);
  }
  return words;
}

} // namespace ladder::models
