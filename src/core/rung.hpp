// What every registry entry of every study shares: the rung's name, its one-line idea, its role
// in the story, and the launch shape the resource report needs. Each study's entry holds one of
// these as `.info` and adds what is particular to the study (its launch signature, what it
// supports), written with designated initializers.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace ladder::lab {

// seed: a kernel of the course material; beyond: one idea past it; variant: a tuning shape of
// another rung (shown by `--all` and `ladder tune`); library: the public call; reference: the
// vendor library or the physical bound, measured in the same run.
enum class Role { seed, beyond, variant, library, reference };

std::string_view role_name(Role role);

// Seed and beyond rungs tell the story that `ladder run` prints and the docs number.
constexpr bool in_story(Role role) { return role == Role::seed || role == Role::beyond; }

// One typed tuning parameter of a rung (threads per block, tile bytes, stages, ...): what `ladder
// tune` prints as columns and JSON carries as numbers.
struct Param {
  std::string_view key;
  std::int64_t value = 0;
};

inline constexpr std::size_t max_params = 5;

struct RungInfo {
  std::string_view name;
  std::string_view idea;
  Role role = Role::beyond;
  std::string_view course_row = {}; // seed: the row of the course's table it reproduces
  std::string_view variant_of = {}; // variant: the rung whose tuning shape this is
  bool vendor = false;              // reference: a vendor library (CUB, cuBLAS), not a bound
  std::array<Param, max_params> params = {};
  // The kernel and launch shape, for the resource report (registers, shared memory, occupancy);
  // null for library calls such as cudaMemcpy or cuBLAS.
  const void* kernel = nullptr;
  int block_threads = 0;
  std::size_t dynamic_shared_bytes = 0;
};

// The shared part of every entry of a study's registry (entries hold theirs as `.info`).
template <class Registry> std::vector<RungInfo> infos_of(const Registry& registry) {
  std::vector<RungInfo> out;
  for (const auto& rung : registry)
    out.push_back(rung.info);
  return out;
}

// A study's `rungs` entry from its registry function: `.rungs = registry_infos<registry>`.
template <auto Registry> std::vector<RungInfo> registry_infos() { return infos_of(Registry()); }

} // namespace ladder::lab
