// `ladder report`: one self-contained HTML page (inline CSS and SVG, no script, no network) drawn
// from the typed measurements of one or more runs' JSON: each ladder as a bar chart toward the
// peak that bounds it with the vendor beside it, each sweep as lines over size, the course's
// published tables beside ours, the summary, and several runs side by side.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace ladder::lab {

struct RunDocument {
  std::string path; // as the user named it; shown on the page
  nlohmann::json doc;
};

// Reads a run's JSON (`ladder run --json`). Throws std::invalid_argument naming the file when it
// cannot be read or is not a run.
RunDocument read_run_document(const std::string& path);

// The page. Throws std::invalid_argument when a document's tables or sweeps are malformed.
std::string render_html_report(const std::vector<RunDocument>& runs);

} // namespace ladder::lab
