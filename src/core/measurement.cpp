#include "core/measurement.hpp"

#include <algorithm>

namespace ladder::lab {

std::string_view role_name(Role role) {
  switch (role) {
  case Role::seed:
    return "seed";
  case Role::beyond:
    return "beyond";
  case Role::variant:
    return "variant";
  case Role::library:
    return "library";
  case Role::reference:
    return "reference";
  }
  return "?";
}

std::string_view bound_name(Bound bound) {
  switch (bound) {
  case Bound::dram_copy:
    return "DRAM read + write";
  case Bound::dram_read:
    return "DRAM read";
  case Bound::fp32_fma:
    return "FP32 FMA";
  case Bound::host_link:
    return "host link";
  case Bound::instruction:
    return "instruction issue";
  }
  return "?";
}

Unit unit_of(Bound bound) {
  switch (bound) {
  case Bound::fp32_fma:
    return Unit::flops_per_second;
  case Bound::instruction:
    return Unit::ops_per_second;
  default:
    return Unit::bytes_per_second;
  }
}

std::string_view unit_name(Unit unit) {
  switch (unit) {
  case Unit::bytes_per_second:
    return "B/s";
  case Unit::flops_per_second:
    return "FLOP/s";
  case Unit::ops_per_second:
    return "op/s";
  }
  return "?";
}

double Work::amount(Unit unit) const {
  switch (unit) {
  case Unit::bytes_per_second:
    return bytes_read + bytes_written;
  case Unit::flops_per_second:
    return flops;
  case Unit::ops_per_second:
    return ops;
  }
  return 0;
}

std::string_view check_label(CheckStatus status) {
  switch (status) {
  case CheckStatus::passed:
    return "ok";
  case CheckStatus::wrong:
    return "WRONG";
  case CheckStatus::skipped:
    return "skipped";
  case CheckStatus::wrong_as_taught:
    return "WRONG, as taught";
  }
  return "?";
}

Row make_row(const RungInfo& info, std::string label, std::size_t groups) {
  Row row;
  row.label = std::move(label);
  row.name = std::string(info.name);
  row.idea = std::string(info.idea);
  row.role = info.role;
  row.variant_of = std::string(info.variant_of);
  row.vendor = info.vendor;
  for (const Param& p : info.params)
    if (!p.key.empty())
      row.params[std::string(p.key)] = p.value;
  row.timings.resize(groups);
  return row;
}

namespace {

// The letters of a rung's n-th variant (n from 0): a .. z, then aa, ab, ..., so that no two
// variants of one rung share a label however many there are.
std::string variant_letters(int n) {
  std::string letters;
  for (++n; n > 0; n = (n - 1) / 26)
    letters.insert(letters.begin(), static_cast<char>('a' + (n - 1) % 26));
  return letters;
}

} // namespace

std::vector<std::string> rung_labels(const std::vector<RungInfo>& rungs) {
  std::vector<std::string> labels(rungs.size());
  int story = 0;
  for (std::size_t i = 0; i < rungs.size(); ++i)
    if (in_story(rungs[i].role))
      labels[i] = std::to_string(++story);
  for (std::size_t i = 0; i < rungs.size(); ++i) {
    if (rungs[i].role == Role::library)
      labels[i] = "lib";
    else if (rungs[i].role == Role::reference)
      labels[i] = "ref";
    else if (rungs[i].role == Role::variant) {
      labels[i] = "var";
      int letter = 0;
      for (std::size_t p = 0; p < rungs.size(); ++p)
        if ((in_story(rungs[p].role) || rungs[p].role == Role::reference) &&
            rungs[p].name == rungs[i].variant_of) {
          for (std::size_t k = 0; k < i; ++k)
            letter += rungs[k].role == Role::variant && rungs[k].variant_of == rungs[i].variant_of;
          labels[i] = labels[p] + variant_letters(letter);
        }
    }
  }
  return labels;
}

double per_second(double amount, double milliseconds) {
  return milliseconds > 0 ? amount / (milliseconds * 1e-3) : 0.0;
}

std::vector<std::size_t> reference_rows(const Table& table) {
  std::vector<std::size_t> refs;
  for (std::size_t i = 0; i < table.rows.size(); ++i)
    if (table.rows[i].role == Role::reference)
      refs.push_back(i);
  return refs;
}

namespace {

std::optional<double> row_time(const Row& row, std::size_t group) {
  if (row.check != CheckStatus::passed || group >= row.timings.size() || !row.timings[group])
    return std::nullopt;
  return row.timings[group]->median_ms;
}

} // namespace

bool untimed(const Table& table) {
  for (const Row& row : table.rows)
    for (const auto& t : row.timings)
      if (t)
        return false;
  return true;
}

std::vector<RowMetrics> compute_metrics(const Table& table, std::size_t group) {
  const auto refs = reference_rows(table);
  const Unit unit = unit_of(table.peak.bound);
  const double amount = table.work.amount(unit);
  const double peak = table.peak.reference();
  std::vector<RowMetrics> out(table.rows.size());
  std::optional<double> first_story_ms, previous_story_ms;
  for (std::size_t i = 0; i < table.rows.size(); ++i) {
    const Row& row = table.rows[i];
    RowMetrics& m = out[i];
    m.time_ms = row_time(row, group);
    if (m.time_ms) {
      if (amount > 0)
        m.throughput = per_second(amount, *m.time_ms);
      const double bound = row.peak ? *row.peak : peak;
      if (m.throughput && bound > 0)
        m.percent_of_peak = 100.0 * *m.throughput / bound;
      if (row.role != Role::reference && first_story_ms)
        m.cumulative_speedup = *first_story_ms / *m.time_ms;
      if (in_story(row.role)) {
        if (previous_story_ms)
          m.step_speedup = *previous_story_ms / *m.time_ms;
        if (!first_story_ms) {
          first_story_ms = m.time_ms;
          m.cumulative_speedup = 1.0;
        }
        previous_story_ms = m.time_ms;
      } else if (row.role == Role::variant) {
        for (const Row& parent : table.rows)
          if (parent.name == row.variant_of)
            if (auto parent_ms = row_time(parent, group))
              m.step_speedup = *parent_ms / *m.time_ms;
      }
    }
    for (auto r : refs) {
      const auto ref_ms = row_time(table.rows[r], group);
      m.vs_reference.push_back(m.time_ms && ref_ms ? std::optional(*ref_ms / *m.time_ms)
                                                   : std::nullopt);
    }
  }
  return out;
}

std::optional<double> sweep_ratio(const SweepPoint& point, const SweepRatio& ratio) {
  auto time = [&](std::size_t s) -> std::optional<double> {
    if (s >= point.times.size() || !point.times[s] ||
        (s < point.checks.size() && point.checks[s] != CheckStatus::passed))
      return std::nullopt;
    return point.times[s]->median_ms;
  };
  const auto ours = time(ratio.ours), vendor = time(ratio.vendor);
  if (!ours || !vendor || *ours <= 0)
    return std::nullopt;
  return *vendor / *ours;
}

SummaryLine summarize(const std::string& study, const StudyResults& results) {
  SummaryLine line;
  line.study = study;
  for (const Table& t : results.tables)
    for (const Row& r : t.rows)
      line.wrong += r.check == CheckStatus::wrong;
  const Table* headline = nullptr;
  for (const Table& t : results.tables)
    if (t.headline && !headline)
      headline = &t;
  if (!headline && !results.tables.empty())
    headline = &results.tables.front();
  if (headline) {
    line.headline = headline->title;
    line.bound = headline->peak.bound;
    const auto metrics = compute_metrics(*headline, 0);
    std::optional<std::size_t> library, vendor;
    for (std::size_t i = 0; i < headline->rows.size(); ++i) {
      const Row& r = headline->rows[i];
      if (r.role == Role::library && !library)
        library = i;
      if (r.role == Role::reference && r.vendor && !vendor)
        vendor = i;
    }
    // The best rung built past the course (beyond, variant or library): the course's own rows
    // include bounds such as the transpose's plain copy. Only where no such row was timed, the
    // best of the course's rows.
    for (const bool past_the_course : {true, false}) {
      for (std::size_t i = 0; i < headline->rows.size(); ++i) {
        const Row& r = headline->rows[i];
        const bool eligible = past_the_course ? (r.role == Role::beyond ||
                                                 r.role == Role::variant || r.role == Role::library)
                                              : r.role == Role::seed;
        if (eligible && metrics[i].percent_of_peak &&
            (!line.best_percent_of_peak ||
             *metrics[i].percent_of_peak > *line.best_percent_of_peak)) {
          line.best_percent_of_peak = metrics[i].percent_of_peak;
          line.best_rung = r.name;
        }
      }
      if (line.best_percent_of_peak)
        break;
    }
    if (library)
      line.library = headline->rows[*library].name;
    if (vendor)
      line.vendor = headline->rows[*vendor].name;
    if (library && vendor && metrics[*library].time_ms && metrics[*vendor].time_ms)
      line.library_vs_vendor = *metrics[*vendor].time_ms / *metrics[*library].time_ms;
  }
  for (const Sweep& s : results.sweeps)
    for (const SweepPoint& p : s.points)
      for (const SweepRatio& ratio : s.ratios)
        if (auto x = s.series[ratio.vendor].role == Role::reference ? sweep_ratio(p, ratio)
                                                                    : std::nullopt) {
          const std::string at = ratio.label + " at " + s.parameter + " = " + p.label;
          if (!line.sweep_min || *x < *line.sweep_min) {
            line.sweep_min = x;
            line.sweep_min_at = at;
          }
          if (!line.sweep_max || *x > *line.sweep_max) {
            line.sweep_max = x;
            line.sweep_max_at = at;
          }
        }
  return line;
}

} // namespace ladder::lab
