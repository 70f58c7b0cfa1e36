#include "core/protocol.hpp"

namespace ladder::lab {

void measure_rung(const RunContext& ctx, const std::string& what, Row& row, const char* unsupported,
                  const std::function<std::string(cudaStream_t)>& check,
                  const std::vector<TimedMode>& modes, cudaStream_t stream) {
  if (unsupported) {
    row.check = CheckStatus::skipped;
    row.note = unsupported;
    return;
  }
  ctx.say("  " + what + ": " + row.name);
  const std::string wrong = check(stream);
  if (!wrong.empty()) {
    row.check = CheckStatus::wrong;
    row.note = wrong;
    return;
  }
  row.check = CheckStatus::passed;
  for (const TimedMode& mode : modes)
    if (mode.launch)
      row.timings.at(mode.group) =
          time_launches(mode.launch, stream, mode.timing, mode.ops_per_launch);
}

} // namespace ladder::lab
