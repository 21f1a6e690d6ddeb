#include "probes/p6_head_coverage.h"

#include <cmath>
#include <sstream>

#include "probes/p4_separability.h"
#include "probes/summary_numbers.h"

namespace sinklab::probes {
namespace {

ProbeSection write(const ProbeOutput& o) {
  const double p16 = separability_median_at(separability_medians(o.r), 16);
  int heads_99 = 0;
  if (p16 > 0 && p16 < 1) heads_99 = static_cast<int>(std::ceil(std::log(0.01) / std::log(1 - p16)));
  if (p16 >= 1) heads_99 = 1;
  std::ostringstream md;
  md << "| P6 coverage | p 0.8, H 3 -> 0.992 | p = " << num(p16)
     << " -> H = " << (heads_99 ? std::to_string(heads_99) : "n/a") << " heads for 99%; 3 heads cover "
     << num(1 - std::pow(1 - p16, 3)) << " | N = 16, L = " << o.r.max_len << " |\n";
  return {{}, {}, md.str(), ""};
}

}  // namespace

ProbeRegistration head_coverage_probe() {
  return {"P6",
          "coverage",
          "1 - (1 - p)^H: how many heads cover the selection, p = median N_s / N at N = 16 (probes.md)",
          nullptr,
          nullptr,
          nullptr,
          write};
}

}  // namespace sinklab::probes
