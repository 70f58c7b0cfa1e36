// Shared-memory bank conflicts and global-memory coalescing (ladder/models.hpp).
//
// Course figures: "Optimizing CUDA" (NVIDIA) and "Optimizing CUDA code" (Moreno Maza, UWO
// CS4402, the transpose study); each test names the slide.
#include "invalid_argument.hpp"
#include "ladder/models.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>

namespace ladder::models {
namespace {

using test::invalid_argument_message;

bool starts_with(const std::string& text, const std::string& prefix) {
  return text.rfind(prefix, 0) == 0;
}

int degree(const std::vector<std::int64_t>& words, int banks) {
  return bank_conflicts(words, banks, banks).degree; // a half-warp on 16 banks, a warp on 32
}

// ---- banks --------------------------------------------------------------------------------------

TEST(Banks, LinearStrideOneIsConflictFree) {
  // 002, "Bank Addressing Examples": "No Bank Conflicts - Linear addressing stride == 1".
  EXPECT_EQ(degree(strided_words(16, 1), 16), 1);
  EXPECT_EQ(degree(strided_words(32, 1), 32), 1);
}

TEST(Banks, RandomPermutationIsConflictFree) {
  // 002, "Bank Addressing Examples": "No Bank Conflicts - Random 1:1 Permutation".
  for (const unsigned seed : {1u, 2u, 3u, 42u, 2026u}) {
    for (const int banks : {16, 32}) {
      auto words = strided_words(banks, 1);
      std::shuffle(words.begin(), words.end(), std::mt19937(seed));
      EXPECT_EQ(degree(words, banks), 1) << "seed " << seed << ", " << banks << " banks";
    }
  }
}

TEST(Banks, StrideTwoIsTwoWayAndStrideEightIsEightWay) {
  // 002, "Bank Addressing Examples": "2-way Bank Conflicts - Linear addressing stride == 2",
  // "8-way Bank Conflicts - Linear addressing stride == 8" (a half-warp on 16 banks).
  EXPECT_EQ(degree(strided_words(16, 2), 16), 2);
  EXPECT_EQ(degree(strided_words(16, 8), 16), 8);
  // The same strides for a warp on 32 banks.
  EXPECT_EQ(degree(strided_words(32, 2), 32), 2);
  EXPECT_EQ(degree(strided_words(32, 8), 32), 8);
  // An odd stride shares no factor with the bank count: conflict-free.
  EXPECT_EQ(degree(strided_words(32, 3), 32), 1);
}

TEST(Banks, TransposeTileColumnReadConflictsAndPaddingFixesIt) {
  // 002, "Bank Conflicts in Transpose" and 000, "Shared memory bank conflicts (4/6)": in a 32x32
  // float tile, columns k and k+16 share a bank; a half-warp reading a column is 16-way on 16
  // banks. A warp on today's 32 banks is 32-way. tile[32][33] makes both conflict-free.
  const TileWalk column{
      .rows = 32, .cols = 32, .padding = 0, .direction = TileWalk::Direction::column};
  EXPECT_EQ(degree(tile_words(column, 16), 16), 16);
  EXPECT_EQ(degree(tile_words(column, 32), 32), 32);
  TileWalk padded = column;
  padded.padding = 1;
  EXPECT_EQ(degree(tile_words(padded, 16), 16), 1);
  EXPECT_EQ(degree(tile_words(padded, 32), 32), 1);
  // Any column, not only the first.
  padded.col = 17;
  EXPECT_EQ(degree(tile_words(padded, 32), 32), 1);
}

TEST(Banks, TransposeTileRowWriteIsConflictFreeWithOrWithoutPadding) {
  // 000, "Shared memory bank conflicts (5/6)": "The padding does not affect shared memory bank
  // access pattern when writing a half warp to shared memory".
  for (const int padding : {0, 1}) {
    const TileWalk row{.rows = 32,
                       .cols = 32,
                       .padding = padding,
                       .direction = TileWalk::Direction::row,
                       .row = 5};
    EXPECT_EQ(degree(tile_words(row, 16), 16), 1);
    EXPECT_EQ(degree(tile_words(row, 32), 32), 1);
  }
}

TEST(Banks, TileWalkWrapsToTheNextRowOrColumn) {
  const TileWalk narrow{.rows = 4,
                        .cols = 8,
                        .padding = 1,
                        .direction = TileWalk::Direction::row,
                        .row = 0,
                        .col = 6};
  EXPECT_EQ(tile_words(narrow, 4), (std::vector<std::int64_t>{6, 7, 9, 10}));
  const TileWalk tall{.rows = 3,
                      .cols = 4,
                      .padding = 0,
                      .direction = TileWalk::Direction::column,
                      .row = 1,
                      .col = 2};
  EXPECT_EQ(tile_words(tall, 4), (std::vector<std::int64_t>{6, 10, 3, 7}));
}

TEST(Banks, BroadcastCountsOnce) {
  // 002, "Shared memory bank conflicts": "If all threads of a half-warp read the identical address,
  // there is no bank conflict (broadcast)". Two distinct words in one bank still cost two passes.
  EXPECT_EQ(degree(strided_words(16, 0, 5), 16), 1);
  std::vector<std::int64_t> two_words(16, 0);
  std::fill(two_words.begin() + 8, two_words.end(), 16);
  const auto result = bank_conflicts(two_words, 16, 16);
  EXPECT_EQ(result.degree, 2);
  EXPECT_EQ(result.words_per_bank[0], 2);
  EXPECT_EQ(std::accumulate(result.words_per_bank.begin(), result.words_per_bank.end(), 0), 2);
}

TEST(Banks, ExplicitAddressesAndSeveralRequests) {
  EXPECT_EQ(degree({0, 16, 32, 1}, 16), 3);
  // A warp's 32 addresses on 1.x are two half-warp requests, each judged on its own.
  std::vector<std::int64_t> words = strided_words(16, 1);
  const auto strided = strided_words(16, 4);
  words.insert(words.end(), strided.begin(), strided.end());
  const auto result = bank_conflicts(words, 16, 16);
  EXPECT_EQ(result.degree_per_request, (std::vector<int>{1, 4}));
  EXPECT_EQ(result.degree, 4);
}

TEST(Banks, StridedAddressesThatOverflowAreRejectedByName) {
  // They used to wrap to negative words.
  const auto message =
      invalid_argument_message([] { strided_words(32, std::int64_t{1} << 62, 0); });
  EXPECT_TRUE(starts_with(message, "stride:")) << message;
  EXPECT_EQ(strided_words(2, std::int64_t{1} << 62, 0).back(), std::int64_t{1} << 62);
}

TEST(Banks, RejectsBadArgumentsByName) {
  EXPECT_TRUE(
      starts_with(invalid_argument_message([] { bank_conflicts({}, 32, 32); }), "word_addresses:"));
  const std::vector<std::int64_t> negative{0, -4};
  EXPECT_TRUE(starts_with(invalid_argument_message([&] { bank_conflicts(negative, 32, 32); }),
                          "word_addresses:"));
  const std::vector<std::int64_t> one_word{0};
  EXPECT_TRUE(
      starts_with(invalid_argument_message([&] { bank_conflicts(one_word, 0, 32); }), "banks:"));
  EXPECT_TRUE(starts_with(invalid_argument_message([&] { bank_conflicts(one_word, 32, 0); }),
                          "threads_per_request:"));
  EXPECT_TRUE(starts_with(
      invalid_argument_message([] { tile_words({.rows = 32, .cols = 32, .row = 32}, 32); }),
      "row:"));
  EXPECT_TRUE(starts_with(invalid_argument_message([] { tile_words({.rows = 0, .cols = 32}, 32); }),
                          "rows:"));
}

// ---- coalescing ---------------------------------------------------------------------------------

std::vector<int> sizes(const Coalescing& result) {
  std::vector<int> bytes;
  for (const auto& transaction : result.transactions) {
    bytes.push_back(transaction.bytes);
  }
  return bytes;
}

std::vector<ThreadAddress> out_of_sequence() {
  auto addresses = strided_addresses(16, 0, 4);
  std::swap(addresses[1], addresses[2]);
  return addresses;
}

TEST(CoalescingCc10, TheSeedsThreeExamples) {
  // 002, "Coalescing - Compute capability 1.0 and 1.1": "Coalesces - 1 transaction",
  // "Out of sequence - 16 transactions", "Misaligned - 16 transactions" (floats, a half-warp).
  const auto in_order = coalescing(strided_addresses(16, 0, 4), 4, CoalescingRules::cc_1_0);
  EXPECT_EQ(sizes(in_order), std::vector<int>{64});
  EXPECT_DOUBLE_EQ(in_order.efficiency, 1.0);
  EXPECT_EQ(coalescing(out_of_sequence(), 4, CoalescingRules::cc_1_0).transactions.size(), 16u);
  EXPECT_EQ(coalescing(strided_addresses(16, 4, 4), 4, CoalescingRules::cc_1_0).transactions.size(),
            16u);
}

TEST(CoalescingCc10, InactiveThreadsDoNotBreakCoalescing) {
  // 000, "Coalesced Transpose (1/11)": "Coalescing happens even if some threads do not access
  // memory (divergent warp)".
  auto addresses = strided_addresses(16, 128, 4);
  addresses[0] = std::nullopt;
  addresses[7] = std::nullopt;
  const auto result = coalescing(addresses, 4, CoalescingRules::cc_1_0);
  EXPECT_EQ(sizes(result), std::vector<int>{64});
  EXPECT_EQ(result.transactions[0].address, 128);
  EXPECT_EQ(result.bytes_requested, 14 * 4);
}

TEST(CoalescingCc10, WordSizesAndAlignment) {
  // 000, "Coalesced Transpose (1/11)": elements of 4, 8 or 16 bytes, the first aligned to 16 times
  // the element size. 64-bit words: one 128-byte transaction; 128-bit words: two.
  EXPECT_EQ(sizes(coalescing(strided_addresses(16, 0, 8), 8, CoalescingRules::cc_1_0)),
            std::vector<int>{128});
  EXPECT_EQ(sizes(coalescing(strided_addresses(16, 0, 16), 16, CoalescingRules::cc_1_0)),
            (std::vector<int>{128, 128}));
  // Aligned to 64 bytes but not to 16 * 8 = 128: 16 transactions.
  EXPECT_EQ(
      coalescing(strided_addresses(16, 64, 8), 8, CoalescingRules::cc_1_0).transactions.size(),
      16u);
  // 2-byte words never coalesce on 1.0/1.1.
  EXPECT_EQ(coalescing(strided_addresses(16, 0, 2), 2, CoalescingRules::cc_1_0).transactions.size(),
            16u);
}

TEST(CoalescingCc12, TheSeedsThreeExamples) {
  // 002, "Coalescing - Compute capability 1.2 and higher": "1 transaction - 64B segment" (a
  // permutation within 64 bytes), "2 transactions - 64B and 32B segments" (across a 128-byte
  // boundary), "1 transaction - 128B segment" (misaligned inside 128 bytes).
  EXPECT_EQ(sizes(coalescing(out_of_sequence(), 4, CoalescingRules::cc_1_2)), std::vector<int>{64});
  const auto crossing = coalescing(strided_addresses(16, 128 - 16, 4), 4, CoalescingRules::cc_1_2);
  EXPECT_EQ(sizes(crossing), (std::vector<int>{32, 64}));
  EXPECT_EQ(crossing.transactions[0].address, 96);
  EXPECT_EQ(crossing.transactions[1].address, 128);
  const auto misaligned = coalescing(strided_addresses(16, 4, 4), 4, CoalescingRules::cc_1_2);
  EXPECT_EQ(sizes(misaligned), std::vector<int>{128});
  EXPECT_DOUBLE_EQ(misaligned.efficiency, 0.5);
}

TEST(CoalescingCc12, SegmentSizeFollowsTheWordSize) {
  // 002: "32B for 8-bit words, 64B for 16-bit words, 128B for 32- and 64-bit words".
  EXPECT_EQ(sizes(coalescing(strided_addresses(16, 0, 1), 1, CoalescingRules::cc_1_2)),
            std::vector<int>{32});
  EXPECT_EQ(sizes(coalescing(strided_addresses(16, 0, 2), 2, CoalescingRules::cc_1_2)),
            std::vector<int>{32});
  EXPECT_EQ(sizes(coalescing(strided_addresses(16, 0, 8), 8, CoalescingRules::cc_1_2)),
            std::vector<int>{128});
  // 16 x 16 B = 256 B: two full segments.
  EXPECT_EQ(sizes(coalescing(strided_addresses(16, 0, 16), 16, CoalescingRules::cc_1_2)),
            (std::vector<int>{128, 128}));
}

TEST(CoalescingSectors, AWarpTouchesOneSectorPer32Bytes) {
  const auto contiguous = coalescing(strided_addresses(32, 0, 4), 4, CoalescingRules::sectors);
  EXPECT_EQ(contiguous.transactions.size(), 4u);
  EXPECT_DOUBLE_EQ(contiguous.efficiency, 1.0);
  const auto shifted = coalescing(strided_addresses(32, 4, 4), 4, CoalescingRules::sectors);
  EXPECT_EQ(shifted.transactions.size(), 5u);
  const auto doubles = coalescing(strided_addresses(32, 0, 8), 8, CoalescingRules::sectors);
  EXPECT_EQ(doubles.transactions.size(), 8u);
}

TEST(Coalescing, NaiveTransposeWritesDoNotCoalesce) {
  // 002, "Coalescing in Transpose": "Naive transpose coalesces reads, but not writes"; 000,
  // "Coalesced Transpose (5/11)": a half-warp writes half a column of a 2048 x 2048 float matrix,
  // each element in a different segment.
  const std::int64_t row_bytes = 2048 * 4;
  for (const auto rules : {CoalescingRules::cc_1_0, CoalescingRules::cc_1_2}) {
    SCOPED_TRACE(std::string(to_string(rules)));
    const auto write = coalescing(strided_addresses(16, 0, row_bytes), 4, rules);
    EXPECT_EQ(write.transactions.size(), 16u);
    EXPECT_EQ(write.bytes_transferred, 16 * 32);
    const auto read = coalescing(strided_addresses(16, 0, 4), 4, rules);
    EXPECT_EQ(read.transactions.size(), 1u);
  }
  // Today a warp of the 32 x 8 block writes 32 rows: 32 sectors for 128 useful bytes (12.5%),
  // where the coalesced transpose writes 4 sectors.
  const auto naive = coalescing(strided_addresses(32, 0, row_bytes), 4, CoalescingRules::sectors);
  EXPECT_EQ(naive.transactions.size(), 32u);
  EXPECT_DOUBLE_EQ(naive.efficiency, 0.125);
  const auto coalesced = coalescing(strided_addresses(32, 0, 4), 4, CoalescingRules::sectors);
  EXPECT_EQ(coalesced.transactions.size(), 4u);
}

TEST(Coalescing, BroadcastUsesTheElementOnce) {
  // Stride 0: every thread reads one element. It was counted 32 times against one 32-byte
  // sector: 400% efficiency.
  const auto addresses = strided_addresses(32, 64, 0);
  const auto sectors = coalescing(addresses, 4, CoalescingRules::sectors);
  EXPECT_TRUE(sectors.broadcast);
  EXPECT_EQ(sectors.transactions.size(), 1u);
  EXPECT_EQ(sectors.bytes_requested, 32 * 4);
  EXPECT_EQ(sectors.bytes_used, 4);
  EXPECT_DOUBLE_EQ(sectors.efficiency, 4.0 / 32.0);
  const auto cc12 = coalescing(addresses, 4, CoalescingRules::cc_1_2);
  EXPECT_EQ(sizes(cc12), (std::vector<int>{32, 32})); // one per half-warp
  for (const auto rules :
       {CoalescingRules::cc_1_0, CoalescingRules::cc_1_2, CoalescingRules::sectors}) {
    for (const int element : {1, 2, 4, 8, 16}) {
      const auto result = coalescing(strided_addresses(32, 0, 0), element, rules);
      EXPECT_LE(result.efficiency, 1.0) << to_string(rules) << ", " << element << " B";
    }
  }
  // Two threads on one element, the others on their own: not a broadcast, used bytes distinct.
  auto shared = strided_addresses(32, 0, 4);
  shared[1] = 0;
  const auto partly = coalescing(shared, 4, CoalescingRules::sectors);
  EXPECT_FALSE(partly.broadcast);
  EXPECT_EQ(partly.bytes_used, 31 * 4);
  EXPECT_FALSE(coalescing(strided_addresses(1, 0, 4), 4, CoalescingRules::sectors).broadcast);
}

TEST(Coalescing, AddressesOutsideTheModelledRangeAreRejectedByName) {
  const std::vector<ThreadAddress> high{max_byte_address - 7, max_byte_address + 1};
  const auto message =
      invalid_argument_message([&] { coalescing(high, 8, CoalescingRules::sectors); });
  EXPECT_TRUE(starts_with(message, "addresses:")) << message;
  EXPECT_NE(message.find("thread 1"), std::string::npos) << message;
  const std::vector<ThreadAddress> highest{max_byte_address - 15};
  EXPECT_EQ(coalescing(highest, 16, CoalescingRules::cc_1_2).bytes_transferred, 32);
  const auto stride = invalid_argument_message(
      [] { strided_addresses(32, 0, std::numeric_limits<std::int64_t>::max() / 16); });
  EXPECT_TRUE(starts_with(stride, "stride_bytes:")) << stride;
}

TEST(Coalescing, RejectsBadArgumentsByName) {
  const auto addresses = strided_addresses(16, 0, 4);
  EXPECT_TRUE(starts_with(
      invalid_argument_message([&] { coalescing(addresses, 3, CoalescingRules::sectors); }),
      "element_bytes:"));
  EXPECT_TRUE(starts_with(
      invalid_argument_message([&] { coalescing(addresses, 8, CoalescingRules::sectors); }),
      "addresses:")); // 4-byte steps are not aligned to 8
  EXPECT_TRUE(starts_with(invalid_argument_message([] {
                            coalescing(std::vector<ThreadAddress>{}, 4, CoalescingRules::sectors);
                          }),
                          "addresses:"));
  EXPECT_TRUE(
      starts_with(invalid_argument_message([] { strided_addresses(0, 0, 4); }), "threads:"));
  // All threads inactive: nothing moves, nothing wasted.
  const std::vector<ThreadAddress> idle(16);
  const auto result = coalescing(idle, 4, CoalescingRules::cc_1_2);
  EXPECT_TRUE(result.transactions.empty());
  EXPECT_DOUBLE_EQ(result.efficiency, 1.0);
}

} // namespace
} // namespace ladder::models
