#include "run_files/extreme_token_table.h"

#include <cmath>
#include <cstdio>

namespace sinklab {
namespace {

std::string format(const char* pattern, double v) {
  if (!std::isfinite(v)) return "-";
  char buf[64];
  std::snprintf(buf, sizeof buf, pattern, v);
  return buf;
}

// A ratio to the median |h|: "n/a" when the median is 0 and the ratio undefined (a footnote says so); "-"
// when the layer's own numbers are not finite (NaN weights), as every other non-finite number.
std::string ratio(const char* pattern, double v, const LayerExtremes& l) {
  return std::isnan(v) && std::isfinite(l.median_abs) ? "n/a" : format(pattern, v);
}

std::string sink_rates_line(const char* what, const ExtremeTokenStats& s) {
  std::string line = std::string("  ") + what + " (T " + std::to_string(s.seq_len) + ", " + std::to_string(s.windows) +
                     " windows): ";
  for (int k = 0; k < kFirstKeys; ++k)
    line +=
        "Sink_" + std::to_string(k + 1) + " " + format("%.1f%%", 100.0 * s.sink_rate[static_cast<size_t>(k)]) + "  ";
  if (std::isfinite(s.sink_rate_slot)) line += "Sink* " + format("%.1f%%", 100.0 * s.sink_rate_slot) + "  ";
  return line + "\n";
}

}  // namespace

std::string format_extreme_token_table(const ExtremeTokenReport& report) {
  const ExtremeTokenStats& e = report.eval;
  std::string out = "extreme tokens (docs/sinks-in-language-models.md; eps " + format("%.2f", e.eps) +
                    ", Sink_k = share of heads with alpha_{k-1} > eps)\n";
  out += sink_rates_line("evaluation inputs", e);
  if (report.gu_bos) out += sink_rates_line("Gu's protocol, BOS first", *report.gu_bos);
  if (report.gu_no_bos) out += sink_rates_line("Gu's protocol, no BOS", *report.gu_no_bos);
  out += "  uniform causal alpha_0 = H_T/T: " + format("%.4f", e.uniform_baseline) + " at T " +
         std::to_string(e.seq_len) + "\n";
  // Per head: the measurement a researcher reads first (Gu's no-BOS protocol when there is one).
  const ExtremeTokenStats& heads = report.gu_no_bos ? *report.gu_no_bos : e;
  out += std::string("  per head (") + (report.gu_no_bos ? "Gu's protocol, no BOS" : "evaluation inputs") + "):\n";
  out += "  layer head  alpha_0 alpha_1 alpha_2 alpha_3    slot  v-drain  |k0|/|kj|  cos(q,k0) cos(q,kj)\n";
  for (const HeadExtremes& h : heads.heads) {
    char line[200];
    std::snprintf(line, sizeof line, "  %5d %4d  %7s %7s %7s %7s %7s %8s %10s %10s %9s\n", h.layer, h.head,
                  format("%.4f", h.alpha[0]).c_str(), format("%.4f", h.alpha[1]).c_str(),
                  format("%.4f", h.alpha[2]).c_str(), format("%.4f", h.alpha[3]).c_str(),
                  format("%.4f", h.alpha_slot).c_str(), format("%.3f", h.value_drain).c_str(),
                  format("%.3f", h.key_norm_ratio).c_str(), format("%.3f", h.key_cos_first).c_str(),
                  format("%.3f", h.key_cos_others).c_str());
    out += line;
  }
  if (!heads.layers.empty()) {
    out += "  layer  massive  (pos, ch)  resid-peak  top 3 mean |h| / median (pos, ch)\n";
    for (const LayerExtremes& l : heads.layers) {
      char line[300];
      std::string top;
      for (const TopActivation& a : l.top)
        top += ratio("%.1f", a.ratio, l) + " (" + std::to_string(a.position) + ", " + std::to_string(a.channel) + ")  ";
      std::snprintf(line, sizeof line, "  %5d %8s  (%d, %d) %11s  %s\n", l.layer,
                    ratio("%.1f", l.massive_ratio, l).c_str(), l.max_position, l.max_channel,
                    ratio("%.2f", l.residual_peak, l).c_str(), top.c_str());
      out += line;
    }
    for (const LayerExtremes& l : heads.layers)
      if (std::isfinite(l.median_abs) && (std::isnan(l.massive_ratio) || std::isnan(l.residual_peak))) {
        out += "  (n/a: the median |h| is 0, as when most outputs are exactly 0: a ratio to it is undefined)\n";
        break;
      }
  }
  return out;
}

}  // namespace sinklab
