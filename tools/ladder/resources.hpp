// `ladder list --resources`: what every registered rung's kernel asks of an SM (registers, shared
// memory), how many of its blocks the CUDA occupancy API says fit, and what the occupancy model
// (ladder/models.hpp) predicts from the same inputs.
//
// collect_resources() is the only part that talks to CUDA (cudaFuncGetAttributes and
// cudaOccupancyMaxActiveBlocksPerMultiprocessor); the model, the text table and the JSON are host
// code, tested in tests/host/test_resources.cpp with hand-filled rows.
#pragma once

#include "core/study.hpp"
#include "ladder/device.hpp"
#include "ladder/models.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ladder::cli {

// cudaFuncGetAttributes of one kernel.
struct KernelAttributes {
  int registers_per_thread = 0;            // numRegs
  std::int64_t static_shared_bytes = 0;    // sharedSizeBytes
  std::int64_t local_bytes_per_thread = 0; // localSizeBytes: spills and local arrays
  int max_threads_per_block = 0;           // with this kernel's registers and launch bounds
  std::int64_t max_dynamic_shared_bytes = 0;
  // preferredShmemCarveout as cudaFuncGetAttributes reports it (-1: no preference). Shown, not
  // given to the model: no rung sets a preference, and the model assumes none (the largest
  // configuration), as the API does by default.
  int carveout_preference = -1;
};

struct RungResources {
  std::string study;
  std::string label; // "1", "2", ... in ladder order, "ref" for reference rows (as `ladder list`)
  std::string rung;
  bool is_reference = false;
  bool has_kernel = false; // false for library calls (cudaMemcpy, cuBLAS, CUB): nothing to inspect
  int block_threads = 0;
  std::int64_t dynamic_shared_bytes = 0;
  KernelAttributes attributes;
  bool opted_in =
      false; // the dynamic shared memory needed cudaFuncAttributeMaxDynamicSharedMemorySize
  std::optional<int> api_blocks_per_sm; // cudaOccupancyMaxActiveBlocksPerMultiprocessor
  std::optional<models::OccupancyResult> model;
  std::string error; // a failed CUDA query or an input the model refused; empty when none
};

struct ResourceReport {
  std::string device;                      // "NVIDIA H200 (cc 9.0, 132 SMs)"
  models::ArchitectureLimits architecture; // what the model ran with: the device's own limits
  std::vector<RungResources> rows;
};

// The model's prediction for a row from its threads, registers and static + dynamic shared memory;
// a refusal (std::invalid_argument) lands in row.error.
void apply_model(RungResources& row, const models::ArchitectureLimits& architecture);

// API occupancy in 0..1: blocks x warps per block / warps per SM.
std::optional<double> api_occupancy(const RungResources& row,
                                    const models::ArchitectureLimits& architecture);

// Whether model and API give the same resident blocks per SM (false when either is missing).
bool model_agrees(const RungResources& row);

struct AgreementCount {
  int kernels = 0;  // rows with a kernel
  int compared = 0; // ... for which both the API and the model gave a number
  int agreeing = 0;
  int errors = 0; // rows whose query or model failed
};
AgreementCount count_agreement(const ResourceReport& report);

std::string format_resources(const ResourceReport& report);
nlohmann::json resources_json(const ResourceReport& report);

// Queries every rung of every registered study on the current device. Needs a CUDA device; a
// failing query is recorded in its row (row.error), the other rows still come back.
ResourceReport collect_resources();

} // namespace ladder::cli
