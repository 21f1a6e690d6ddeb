#pragma once
// The extreme-token statistics (stats/extreme_tokens.h) as JSON: the "extreme_tokens" object of
// summary.json and of metrics.jsonl's evaluation lines. The reader checks every field (type, range,
// counts against layers x heads) and names the one that is wrong, so a damaged file is one message.
#include <string>

#include <nlohmann/json.hpp>

#include "stats/extreme_tokens.h"

namespace sinklab {

nlohmann::json extreme_tokens_json(const ExtremeTokenReport& report);
// `where` prefixes field paths in errors (e.g. "extreme_tokens"). Throws JsonFieldError.
ExtremeTokenReport parse_extreme_tokens(const nlohmann::json& j, const std::string& where);

}  // namespace sinklab
