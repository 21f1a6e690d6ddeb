#pragma once
// The tables of run-level numbers in docs/analysis.md (summary.json, metrics.jsonl), rendered from
// stats/run_numbers.h so the documentation cannot drift from the code
// (tests/stats/run_numbers_markdown_test.cpp checks that the docs embed the current rendering).
#include <string>

namespace sinklab {

// Two markdown tables (summary.json, then a metrics.jsonl line), one line per number; ends with '\n'.
std::string run_numbers_markdown();

}  // namespace sinklab
