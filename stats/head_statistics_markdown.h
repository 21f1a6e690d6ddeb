#pragma once
// The table of per-head statistics in docs/analysis.md, rendered from stats/head_statistics.h so the
// documentation cannot drift from the code (tests/stats/head_statistics_markdown_test.cpp checks that
// the docs embed the current rendering).
#include <string>

namespace sinklab {

// A markdown table, one line per statistic, then a footnote line; ends with '\n'.
std::string head_statistics_markdown();

}  // namespace sinklab
