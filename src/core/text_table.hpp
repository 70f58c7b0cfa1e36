// A plain-text table: columns padded to their widest cell, the first columns left-aligned and the
// others right-aligned, a rule under the header. Shared by the run's tables and summary, `ladder
// model` and `ladder list --resources`.
#pragma once

#include <algorithm>
#include <cstddef>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace ladder::lab {

class TextTable {
public:
  explicit TextTable(std::vector<std::string> header, std::size_t left_aligned_columns = 1)
      : left_aligned_(left_aligned_columns) {
    rows_.push_back(std::move(header));
  }
  void add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }

  std::size_t columns() const { return rows_.front().size(); }

  void print(std::ostream& out) const {
    std::vector<std::size_t> widths;
    for (const auto& row : rows_) {
      widths.resize(std::max(widths.size(), row.size()));
      for (std::size_t column = 0; column < row.size(); ++column) {
        widths[column] = std::max(widths[column], row[column].size());
      }
    }
    for (std::size_t index = 0; index < rows_.size(); ++index) {
      const auto& row = rows_[index];
      std::string line;
      for (std::size_t column = 0; column < row.size(); ++column) {
        const std::string padding(widths[column] - row[column].size(), ' ');
        const std::string separator = column == 0 ? "" : "  ";
        line += column < left_aligned_ ? separator + row[column] + padding
                                       : separator + padding + row[column];
      }
      while (!line.empty() && line.back() == ' ') {
        line.pop_back();
      }
      out << line << '\n';
      if (index == 0) {
        std::size_t total = 0;
        for (const auto width : widths) {
          total += width + 2;
        }
        out << std::string(total - 2, '-') << '\n';
      }
    }
  }

private:
  std::vector<std::vector<std::string>> rows_;
  std::size_t left_aligned_;
};

} // namespace ladder::lab
