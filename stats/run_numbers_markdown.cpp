#include "stats/run_numbers_markdown.h"

#include "stats/run_numbers.h"

namespace sinklab {
namespace {

constexpr const char* kHeader = "| field | in the file | summary.csv | meaning |\n|---|---|---|---|\n";

std::string line(const char* name, const char* presence, InRunTable in_run_table, const char* doc) {
  return "| `" + std::string(name) + "` | " + presence + " | " + (in_run_table == InRunTable::yes ? "column" : "-") +
         " | " + doc + " |\n";
}

}  // namespace

std::string run_numbers_markdown() {
  std::string out = std::string("summary.json, one per run:\n\n") + kHeader;
#define SINKLAB_ALWAYS_LINE(name, in_run_table, format, doc) \
  out += line(#name, "always (null: not computed)", InRunTable::in_run_table, doc);
#define SINKLAB_WHEN_DEFINED_LINE(name, in_run_table, format, doc) \
  out += line(#name, "when defined", InRunTable::in_run_table, doc);
  SINKLAB_RUN_NUMBERS(SINKLAB_ALWAYS_LINE, SINKLAB_WHEN_DEFINED_LINE)
  out += std::string("\nmetrics.jsonl, one line per logged step:\n\n") + kHeader;
  SINKLAB_STEP_NUMBERS(SINKLAB_ALWAYS_LINE, SINKLAB_WHEN_DEFINED_LINE)
#undef SINKLAB_ALWAYS_LINE
#undef SINKLAB_WHEN_DEFINED_LINE
  return out;
}

}  // namespace sinklab
