// Global-memory coalescing ("Optimizing CUDA" (NVIDIA), "Coalescing" and "Coalescing in Transpose"; "Optimizing CUDA code" (Moreno Maza),
// "Coalesced Transpose (1/11)" .. "(5/11)").
//
// 1.0/1.1, per half-warp: one transaction (64 B of 4-byte words, 128 B of 8-byte words, 2 x 128 B
//   of 16-byte words) when the words are 4, 8 or 16 bytes and active thread k accesses word k of a
//   segment aligned to 16 words; otherwise one transaction per active thread (32 B, the smallest
//   the memory can do).
// 1.2/1.3, per half-warp: take the segment (32 B for 1-byte, 64 B for 2-byte, 128 B for larger
//   words) of the lowest pending thread, serve every pending thread inside it, shrink the
//   transaction to the used half while it is 128 or 64 bytes, repeat.
// 2.0 and later through L2: per warp, every 32-byte sector touched is one transaction.
#include "ladder/models.hpp"

#include "arguments.hpp"

#include <span>
#include <algorithm>
#include <set>

namespace ladder::models {
namespace {

struct ActiveAccess {
  int lane = 0; // index within the request
  std::int64_t address = 0;
};

std::vector<ActiveAccess> active_accesses(std::span<const ThreadAddress> request) {
  std::vector<ActiveAccess> active;
  for (std::size_t lane = 0; lane < request.size(); ++lane) {
    if (request[lane]) {
      active.push_back({static_cast<int>(lane), *request[lane]});
    }
  }
  return active;
}

void coalesce_cc_1_0(std::span<const ThreadAddress> request, int element_bytes,
                     std::vector<MemoryTransaction>& out) {
  const auto active = active_accesses(request);
  if (active.empty()) {
    return;
  }
  const bool word_size_ok = element_bytes == 4 || element_bytes == 8 || element_bytes == 16;
  const std::int64_t base =
      active.front().address - std::int64_t{active.front().lane} * element_bytes;
  const bool in_sequence = std::ranges::all_of(active, [&](const ActiveAccess& access) {
    return access.address == base + std::int64_t{access.lane} * element_bytes;
  });
  const bool aligned = base >= 0 && base % (16 * element_bytes) == 0;
  if (word_size_ok && in_sequence && aligned) {
    if (element_bytes == 4) {
      out.push_back({base, 64});
    } else if (element_bytes == 8) {
      out.push_back({base, 128});
    } else {
      out.push_back({base, 128});
      out.push_back({base + 128, 128});
    }
    return;
  }
  for (const auto& access : active) {
    out.push_back({access.address / 32 * 32, 32});
  }
}

void coalesce_cc_1_2(std::span<const ThreadAddress> request, int element_bytes,
                     std::vector<MemoryTransaction>& out) {
  const int segment_bytes = element_bytes == 1 ? 32 : element_bytes == 2 ? 64 : 128;
  auto pending = active_accesses(request);
  while (!pending.empty()) {
    const std::int64_t segment = pending.front().address / segment_bytes * segment_bytes;
    std::int64_t lowest = segment + segment_bytes;
    std::int64_t highest_end = segment;
    std::vector<ActiveAccess> remaining;
    for (const auto& access : pending) {
      if (access.address >= segment && access.address < segment + segment_bytes) {
        lowest = std::min(lowest, access.address);
        highest_end = std::max(highest_end, access.address + element_bytes);
      } else {
        remaining.push_back(access);
      }
    }
    std::int64_t start = segment;
    int bytes = segment_bytes;
    while (bytes > 32) {
      const int half = bytes / 2;
      if (highest_end <= start + half) {
        bytes = half;
      } else if (lowest >= start + half) {
        start += half;
        bytes = half;
      } else {
        break;
      }
    }
    out.push_back({start, bytes});
    pending = std::move(remaining);
  }
}

void coalesce_sectors(std::span<const ThreadAddress> request, int element_bytes,
                      std::vector<MemoryTransaction>& out) {
  std::set<std::int64_t> sectors;
  for (const auto& access : active_accesses(request)) {
    for (std::int64_t sector = access.address / 32;
         sector <= (access.address + element_bytes - 1) / 32; ++sector) {
      sectors.insert(sector);
    }
  }
  for (const std::int64_t sector : sectors) {
    out.push_back({sector * 32, 32});
  }
}

// Bytes some thread uses: the union of the accessed elements. Threads reading the same element
// (a broadcast) use it once, so the efficiency below never exceeds 1.
std::int64_t distinct_bytes(std::span<const ThreadAddress> addresses, int element_bytes) {
  std::set<std::int64_t> elements;
  for (const auto& address : addresses) {
    if (address) {
      elements.insert(*address); // aligned to element_bytes: equal or disjoint
    }
  }
  return static_cast<std::int64_t>(elements.size()) * element_bytes;
}

} // namespace

std::string_view to_string(CoalescingRules rules) {
  switch (rules) {
  case CoalescingRules::cc_1_0:
    return "cc 1.0/1.1";
  case CoalescingRules::cc_1_2:
    return "cc 1.2/1.3";
  case CoalescingRules::sectors:
    return "32-byte sectors";
  }
  return "?";
}

Coalescing coalescing(View<ThreadAddress> addresses_view, int element_bytes,
                      CoalescingRules rules) {
  const std::span<const ThreadAddress> addresses(addresses_view.data(), addresses_view.size());
  if (element_bytes != 1 && element_bytes != 2 && element_bytes != 4 && element_bytes != 8 &&
      element_bytes != 16) {
    detail::bad_argument("element_bytes",
                         "must be 1, 2, 4, 8 or 16, got " + std::to_string(element_bytes));
  }
  if (addresses.empty()) {
    detail::bad_argument("addresses", "needs at least one thread");
  }
  Coalescing result;
  result.rules = rules;
  result.threads_per_request = rules == CoalescingRules::sectors ? 32 : 16;
  for (std::size_t thread = 0; thread < addresses.size(); ++thread) {
    if (!addresses[thread]) {
      continue;
    }
    const std::int64_t address = *addresses[thread];
    if (address < 0 || address % element_bytes != 0) {
      detail::bad_argument("addresses", "thread " + std::to_string(thread) + "'s address " +
                                            std::to_string(address) +
                                            " is negative or not aligned to the " +
                                            std::to_string(element_bytes) + "-byte element");
    }
    if (address > max_byte_address) {
      detail::bad_argument("addresses", "thread " + std::to_string(thread) + "'s address " +
                                            std::to_string(address) + " must be below 2^62");
    }
    result.bytes_requested += element_bytes;
  }
  result.bytes_used = distinct_bytes(addresses, element_bytes);
  result.broadcast = result.bytes_used == element_bytes && result.bytes_requested > element_bytes;

  const auto request_size = static_cast<std::size_t>(result.threads_per_request);
  for (std::size_t first = 0; first < addresses.size(); first += request_size) {
    const auto request = addresses.subspan(first, std::min(request_size, addresses.size() - first));
    switch (rules) {
    case CoalescingRules::cc_1_0:
      coalesce_cc_1_0(request, element_bytes, result.transactions);
      break;
    case CoalescingRules::cc_1_2:
      coalesce_cc_1_2(request, element_bytes, result.transactions);
      break;
    case CoalescingRules::sectors:
      coalesce_sectors(request, element_bytes, result.transactions);
      break;
    }
  }
  for (const auto& transaction : result.transactions) {
    result.bytes_transferred += transaction.bytes;
  }
  result.efficiency =
      result.bytes_transferred == 0
          ? 1.0
          : static_cast<double>(result.bytes_used) / static_cast<double>(result.bytes_transferred);
  return result;
}

std::vector<ThreadAddress> strided_addresses(int threads, std::int64_t base,
                                             std::int64_t stride_bytes) {
  detail::require_positive("threads", threads);
  detail::require_non_negative("base", base);
  detail::require_non_negative("stride_bytes", stride_bytes);
  std::vector<ThreadAddress> addresses;
  addresses.reserve(static_cast<std::size_t>(threads));
  for (int thread = 0; thread < threads; ++thread) {
    addresses.emplace_back(detail::checked_add(
        "base", base, detail::checked_mul("stride_bytes", thread, stride_bytes)));
  }
  return addresses;
}

} // namespace ladder::models
