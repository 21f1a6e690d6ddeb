#include "train/head_table.h"

#include <cstdio>
#include <limits>

namespace sinklab {

std::string format_head_table(const RunSummary& s) {
  std::string out;
  char line[256];
  char eval[96];
  if (s.eval_loss) {  // a token task
    std::snprintf(eval, sizeof eval, "eval loss %.3e nats  accuracy %.4f", *s.eval_loss, s.eval_accuracy.value_or(std::numeric_limits<double>::quiet_NaN()));
  } else {
    std::snprintf(eval, sizeof eval, "eval mse %.3e  max err %.3e", s.eval_mse, s.eval_max_abs_error);
  }
  std::snprintf(line, sizeof line, "%s  seed %llu  %s after %lld steps  %s  (%.1f s)\n", s.name.c_str(),
                static_cast<unsigned long long>(s.seed), s.stop_reason.c_str(), static_cast<long long>(s.steps), eval,
                s.wall_seconds);
  out += line;
  out += "layer head  BOS@non-trig (mean / min)  row mass  trig BOS  trig keys (mean, max dev)  alpha_0  sink  entropy\n";
  for (const HeadSinkStats& h : s.heads) {
    std::snprintf(line, sizeof line, "%5d %4d  %8.4f / %8.4f      %8.4f  %8.4f  %8.4f  %8.4f         %7.4f  %-4s  %7.4f\n", h.layer,
                  h.head, h.bos_mass_nontrigger_mean, h.bos_mass_nontrigger_min, h.mass_nontrigger_mean, h.trigger_bos,
                  h.trigger_keys_mean, h.trigger_keys_max_deviation, h.sink_score, h.sink_head ? "yes" : "no",
                  h.entropy_nontrigger);
    out += line;
  }
  char trigger[48] = "";
  if (s.eval_trigger >= 0) std::snprintf(trigger, sizeof trigger, "eval trigger j = %d, ", s.eval_trigger);
  std::snprintf(line, sizeof line, "(%sT = %d; alpha_0 sink threshold eps = %.2f, uniform baseline H_T/T = %.4f; sink rate %.2f)\n",
                trigger, s.seq_len, s.sink_eps, s.uniform_baseline, s.sink_rate);
  out += line;
  return out;
}

}  // namespace sinklab
