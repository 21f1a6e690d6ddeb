#pragma once
// BOS mass vs step over a variant's seeds: per (layer, head) the mean over the seeds that logged the
// step, with the band from the smallest to the largest seed (no interval: a band shows every seed's
// spread, also where only two seeds are left). A seed that stopped earlier (its stop rule) simply drops
// out of later steps; the data file keeps the count n per step.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "report/report_line_plots.h"

namespace sinklab {

struct SeedMetrics {
  uint64_t seed = 0;
  std::vector<MetricsRecord> metrics;
};

// Writes figures/<name>.{dat,gp}: colour = head, dash pattern = layer (as write_bos_step_figure), a
// translucent min-max band under each mean line. False (nothing written) when no seed logged a value.
bool write_bos_band_figure(const std::filesystem::path& fig_dir, const std::string& name, const std::string& title,
                           const std::vector<SeedMetrics>& seeds, const BosRows& rows);

}  // namespace sinklab
