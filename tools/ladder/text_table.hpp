// The CLI's plain-text tables are the lab's (src/core/text_table.hpp).
#pragma once

#include "core/text_table.hpp"

namespace ladder::cli {
using lab::TextTable;
} // namespace ladder::cli
