// CPU references for the transfers study: a copy must deliver every byte, and the pipeline's
// compute stage must equal the CPU's fused multiply-adds bit for bit. Host-only, so the host tests
// check them without a GPU.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace ladder::lab::transfers {

// "" when equal, else how many bytes differ and the first differing offset.
std::string compare_bytes(std::span<const std::byte> got, std::span<const std::byte> expected);

// out[i] = in[i] after `iterations` of x = fma(x, multiplier, addend), in float.
void cpu_pipeline_stage(std::span<const float> in, std::span<float> out, int iterations,
                        float multiplier, float addend);

// "" when bitwise equal, else the count and the first mismatch with both values.
std::string compare_floats_exact(std::span<const float> got, std::span<const float> expected);

} // namespace ladder::lab::transfers
