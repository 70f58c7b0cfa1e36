// `ladder list --resources`: the occupancy model beside the CUDA occupancy API for every rung.
//
// Both sides get the same inputs: the registry's block size and dynamic shared memory, and the
// compiled kernel's registers and static shared memory from cudaFuncGetAttributes. The device's
// limits come from cudaGetDeviceProperties (ladder::current_device_info), the allocation
// granularities from the model's table. Agreement is exact: the same resident blocks per SM.
#include "resources.hpp"

#include "text_table.hpp"

#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <sstream>
#include <stdexcept>

namespace ladder::cli {
namespace {

std::string percent_text(double fraction) {
  const double value = std::round(fraction * 1000.0) / 10.0;
  char text[32];
  std::snprintf(text, sizeof text, value == std::round(value) ? "%.0f%%" : "%.1f%%", value);
  return text;
}

std::string limiters_text(const models::OccupancyResult& result) {
  std::string text;
  for (const auto limiter : result.limiters) {
    text += (text.empty() ? "" : ", ") + std::string(models::to_string(limiter));
  }
  return text;
}

nlohmann::json blocks_json(int blocks) {
  return blocks == models::unlimited_blocks ? nlohmann::json(nullptr) : nlohmann::json(blocks);
}

std::string cuda_failure(const char* call, cudaError_t error) {
  cudaGetLastError(); // these errors are not sticky: clear them so the next query starts clean
  return std::string(call) + ": " + cudaGetErrorName(error) + " (" + cudaGetErrorString(error) +
         ")";
}

// The kernel's attributes and the API's resident blocks for the registry's launch shape.
void query_kernel(RungResources& row, const void* kernel) {
  cudaFuncAttributes attributes{};
  if (const cudaError_t error = cudaFuncGetAttributes(&attributes, kernel); error != cudaSuccess) {
    row.error = cuda_failure("cudaFuncGetAttributes", error);
    return;
  }
  row.attributes.registers_per_thread = attributes.numRegs;
  row.attributes.static_shared_bytes = static_cast<std::int64_t>(attributes.sharedSizeBytes);
  row.attributes.local_bytes_per_thread = static_cast<std::int64_t>(attributes.localSizeBytes);
  row.attributes.max_threads_per_block = attributes.maxThreadsPerBlock;
  row.attributes.max_dynamic_shared_bytes = attributes.maxDynamicSharedSizeBytes;
  row.attributes.carveout_preference = attributes.preferredShmemCarveout;
  if (row.block_threads <= 0) {
    row.error = "the registry gives no block size for this kernel (RungInfo::block_threads)";
    return;
  }
  // A launch with more than the default dynamic shared memory opts in first; so does this query,
  // or the API would answer 0 blocks for a kernel that runs.
  if (row.dynamic_shared_bytes > row.attributes.max_dynamic_shared_bytes) {
    if (const cudaError_t error =
            cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 static_cast<int>(row.dynamic_shared_bytes));
        error != cudaSuccess) {
      row.error = cuda_failure("cudaFuncSetAttribute(MaxDynamicSharedMemorySize)", error);
      return;
    }
    row.opted_in = true;
  }
  int blocks = 0;
  if (const cudaError_t error = cudaOccupancyMaxActiveBlocksPerMultiprocessor(
          &blocks, kernel, row.block_threads, static_cast<std::size_t>(row.dynamic_shared_bytes));
      error != cudaSuccess) {
    row.error = cuda_failure("cudaOccupancyMaxActiveBlocksPerMultiprocessor", error);
    return;
  }
  row.api_blocks_per_sm = blocks;
}

} // namespace

void apply_model(RungResources& row, const models::ArchitectureLimits& architecture) {
  if (!row.has_kernel) {
    return;
  }
  try {
    row.model = models::occupancy(architecture,
                                  {row.block_threads, row.attributes.registers_per_thread,
                                   row.attributes.static_shared_bytes + row.dynamic_shared_bytes});
  } catch (const std::invalid_argument& error) {
    row.model.reset();
    row.error = (row.error.empty() ? "" : row.error + "; ") + "model: " + error.what();
  }
}

std::optional<double> api_occupancy(const RungResources& row,
                                    const models::ArchitectureLimits& architecture) {
  if (!row.api_blocks_per_sm || row.block_threads <= 0 || architecture.max_warps_per_sm <= 0) {
    return std::nullopt;
  }
  const int warps_per_block =
      (row.block_threads + architecture.threads_per_warp - 1) / architecture.threads_per_warp;
  return static_cast<double>(*row.api_blocks_per_sm * warps_per_block) /
         architecture.max_warps_per_sm;
}

bool model_agrees(const RungResources& row) {
  return row.api_blocks_per_sm && row.model &&
         *row.api_blocks_per_sm == row.model->active_blocks_per_sm;
}

AgreementCount count_agreement(const ResourceReport& report) {
  AgreementCount count;
  for (const auto& row : report.rows) {
    if (!row.has_kernel) {
      continue;
    }
    ++count.kernels;
    count.errors += row.error.empty() ? 0 : 1;
    if (row.api_blocks_per_sm && row.model) {
      ++count.compared;
      count.agreeing += model_agrees(row) ? 1 : 0;
    }
  }
  return count;
}

std::string format_resources(const ResourceReport& report) {
  const auto& arch = report.architecture;
  std::ostringstream out;
  out << "Kernel resources and occupancy on " << report.device << "\n"
      << "  regs, local, static smem: cudaFuncGetAttributes of the compiled kernel; threads and "
         "dynamic smem: the registry's launch\n"
      << "  API: cudaOccupancyMaxActiveBlocksPerMultiprocessor; model: ladder::models::occupancy "
         "(`ladder model occupancy --device`)\n"
      << "  with the same inputs. Occupancy = resident warps / " << arch.max_warps_per_sm
      << " warps per SM. Shared memory in bytes per block.\n\n";

  TextTable table({"study", "#", "rung", "threads", "regs", "local", "smem static", "smem dyn",
                   "API blocks/SM", "API occ.", "model blocks/SM", "model occ.", "limited by",
                   "agree"},
                  3);
  bool any_library = false;
  bool any_opt_in = false;
  for (const auto& row : report.rows) {
    if (!row.has_kernel) {
      any_library = true;
      table.add(
          {row.study, row.label, row.rung, "-", "-", "-", "-", "-", "-", "-", "-", "-", "-", "-"});
      continue;
    }
    const bool have_attributes = row.attributes.max_threads_per_block > 0;
    auto attribute = [&](std::int64_t value) {
      return have_attributes ? std::to_string(value) : std::string("?");
    };
    any_opt_in = any_opt_in || row.opted_in;
    const auto api_occ = api_occupancy(row, arch);
    table.add({row.study, row.label, row.rung,
               row.block_threads > 0 ? std::to_string(row.block_threads) : "?",
               attribute(row.attributes.registers_per_thread),
               attribute(row.attributes.local_bytes_per_thread),
               attribute(row.attributes.static_shared_bytes),
               std::to_string(row.dynamic_shared_bytes) + (row.opted_in ? "*" : ""),
               row.api_blocks_per_sm ? std::to_string(*row.api_blocks_per_sm) : "?",
               api_occ ? percent_text(*api_occ) : "?",
               row.model ? std::to_string(row.model->active_blocks_per_sm) : "?",
               row.model ? percent_text(row.model->occupancy) : "?",
               row.model ? limiters_text(*row.model) : "?",
               !row.error.empty() ? "error" : (model_agrees(row) ? "yes" : "NO")});
  }
  table.print(out);

  out << "\nModel limits (the device's own): " << arch.max_warps_per_sm << " warps, "
      << arch.max_blocks_per_sm << " blocks, " << arch.registers_per_sm << " registers and "
      << arch.shared_memory_per_sm << " B shared memory per SM; "
      << arch.reserved_shared_memory_per_block
      << " B reserved per block. Granularities (table entry " << arch.name << "): registers in "
      << arch.register_allocation_unit << " per warp over " << arch.warp_allocation_granularity
      << " sub-partitions, shared memory in " << arch.shared_memory_allocation_unit << " B.\n";

  const AgreementCount count = count_agreement(report);
  out << "Agreement: the model gives the API's resident blocks per SM for " << count.agreeing
      << " of " << count.compared << " kernels compared";
  if (count.compared < count.kernels) {
    out << " (" << count.kernels - count.compared << " of " << count.kernels
        << " kernels not compared, see below)";
  }
  out << ".\n";
  for (const auto& row : report.rows) {
    if (row.has_kernel && row.api_blocks_per_sm && row.model && !model_agrees(row)) {
      out << "  DISAGREE " << row.study << "/" << row.rung << ": API " << *row.api_blocks_per_sm
          << " blocks/SM, model " << row.model->active_blocks_per_sm << " (" << row.block_threads
          << " threads, " << row.attributes.registers_per_thread << " registers, "
          << row.attributes.static_shared_bytes + row.dynamic_shared_bytes << " B shared)\n";
    }
  }
  for (const auto& row : report.rows) {
    if (!row.error.empty()) {
      out << "  error " << row.study << "/" << row.rung << ": " << row.error << "\n";
    }
  }
  if (any_opt_in) {
    out << "*: more dynamic shared memory than the default limit; opted in with "
           "cudaFuncAttributeMaxDynamicSharedMemorySize, as the launch does.\n";
  }
  if (any_library) {
    out << "-: no single kernel of ours to inspect (a library call such as cudaMemcpy, cuBLAS or "
           "CUB, a CPU rung, or a public call that dispatches several kernels).\n";
  }
  out << "Occupancy is a ceiling on resident warps, not a speed: compare with `ladder run`.\n";
  return out.str();
}

nlohmann::json resources_json(const ResourceReport& report) {
  const auto& arch = report.architecture;
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& row : report.rows) {
    nlohmann::json entry = {{"study", row.study},
                            {"label", row.label},
                            {"rung", row.rung},
                            {"is_reference", row.is_reference},
                            {"has_kernel", row.has_kernel}};
    if (row.has_kernel) {
      entry["threads_per_block"] = row.block_threads;
      entry["dynamic_shared_bytes"] = row.dynamic_shared_bytes;
      entry["opted_in"] = row.opted_in;
      if (row.attributes.max_threads_per_block > 0) {
        entry["attributes"] = {
            {"registers_per_thread", row.attributes.registers_per_thread},
            {"static_shared_bytes", row.attributes.static_shared_bytes},
            {"local_bytes_per_thread", row.attributes.local_bytes_per_thread},
            {"max_threads_per_block", row.attributes.max_threads_per_block},
            {"max_dynamic_shared_bytes", row.attributes.max_dynamic_shared_bytes},
            {"carveout_preference", row.attributes.carveout_preference}};
      }
      if (row.api_blocks_per_sm) {
        entry["api"] = {{"active_blocks_per_sm", *row.api_blocks_per_sm},
                        {"occupancy", api_occupancy(row, arch).value_or(0.0)}};
      }
      if (row.model) {
        const auto& m = *row.model;
        nlohmann::json limiters = nlohmann::json::array();
        for (const auto limiter : m.limiters) {
          limiters.push_back(models::to_string(limiter));
        }
        entry["model"] = {{"active_blocks_per_sm", m.active_blocks_per_sm},
                          {"active_warps_per_sm", m.active_warps_per_sm},
                          {"occupancy", m.occupancy},
                          {"registers_per_block", m.registers_per_block},
                          {"shared_memory_per_block", m.shared_memory_per_block},
                          {"shared_memory_per_sm", m.shared_memory_per_sm},
                          {"blocks_limited_by",
                           {{"warps", blocks_json(m.blocks_limited_by_warps)},
                            {"registers", blocks_json(m.blocks_limited_by_registers)},
                            {"shared_memory", blocks_json(m.blocks_limited_by_shared_memory)},
                            {"blocks_per_sm", blocks_json(m.blocks_limited_by_sm)}}},
                          {"limiters", limiters}};
      }
      if (row.api_blocks_per_sm && row.model) {
        entry["agree"] = model_agrees(row);
      }
      if (!row.error.empty()) {
        entry["error"] = row.error;
      }
    }
    rows.push_back(std::move(entry));
  }
  const AgreementCount count = count_agreement(report);
  return {{"device", report.device},
          {"architecture",
           {{"granularities_of", arch.name},
            {"compute_capability",
             std::to_string(arch.compute_major) + "." + std::to_string(arch.compute_minor)},
            {"max_warps_per_sm", arch.max_warps_per_sm},
            {"max_blocks_per_sm", arch.max_blocks_per_sm},
            {"registers_per_sm", arch.registers_per_sm},
            {"max_registers_per_block", arch.max_registers_per_block},
            {"shared_memory_per_sm", arch.shared_memory_per_sm},
            {"shared_memory_per_block", arch.shared_memory_per_block},
            {"shared_memory_per_block_optin", arch.shared_memory_per_block_optin},
            {"reserved_shared_memory_per_block", arch.reserved_shared_memory_per_block},
            {"register_allocation_unit", arch.register_allocation_unit},
            {"shared_memory_allocation_unit", arch.shared_memory_allocation_unit}}},
          {"rungs", rows},
          {"summary",
           {{"kernels", count.kernels},
            {"compared", count.compared},
            {"agreeing", count.agreeing},
            {"errors", count.errors}}}};
}

ResourceReport collect_resources() {
  const DeviceInfo info = current_device_info();
  ResourceReport report;
  report.device = info.name + " (device " + std::to_string(info.ordinal) + ", cc " +
                  std::to_string(info.compute_major) + "." + std::to_string(info.compute_minor) +
                  ", " + std::to_string(info.multiprocessors) + " SMs)";
  report.architecture = models::architecture_from_device(models::device_properties(info));
  for (const lab::Study& study : lab::studies()) {
    const auto rungs = study.rungs();
    const auto labels = lab::rung_labels(rungs);
    for (std::size_t i = 0; i < rungs.size(); ++i) {
      const lab::RungInfo& rung = rungs[i];
      RungResources row;
      row.study = std::string(study.name);
      row.label = labels[i];
      row.rung = std::string(rung.name);
      row.is_reference = rung.role == lab::Role::reference;
      row.has_kernel = rung.kernel != nullptr;
      row.block_threads = rung.block_threads;
      row.dynamic_shared_bytes = static_cast<std::int64_t>(rung.dynamic_shared_bytes);
      if (row.has_kernel) {
        query_kernel(row, rung.kernel);
        if (row.attributes.max_threads_per_block > 0 && row.block_threads > 0) {
          apply_model(row, report.architecture);
        }
      }
      report.rows.push_back(std::move(row));
    }
  }
  return report;
}

} // namespace ladder::cli
