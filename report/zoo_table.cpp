#include "report/zoo_table.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "report/report_summary_tables.h"
#include "report/zoo_gates.h"

namespace sinklab {
namespace {

constexpr const char* kAbsent = "—";  // not recorded, or undefined for this normalizer

double median(std::vector<double> values) {
  values.erase(std::remove_if(values.begin(), values.end(), [](double v) { return std::isnan(v); }), values.end());
  if (values.empty()) return kNotRecorded;
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

std::string fixed4(double v) {
  if (std::isnan(v)) return kAbsent;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4f", v);
  return buf;
}

std::string scientific(double v) {
  if (std::isnan(v)) return kAbsent;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2e", v);
  return buf;
}

std::string integer(double v) {
  if (std::isnan(v)) return kAbsent;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f", v);
  return buf;
}

// Mean of one per-head statistic over every head of every usable run, skipping unrecorded values.
std::string head_mean(const ZooVariant& v, double ZooHeadFacts::*field) {
  double sum = 0.0;
  int n = 0;
  for (const auto& run : v.runs)
    for (const auto& h : run.heads)
      if (!std::isnan(h.*field)) {
        sum += h.*field;
        ++n;
      }
  return n ? fixed4(sum / n) : kAbsent;
}

// Median onset step over every head of every usable run; "(k/N)" when only k of the N heads reached it.
std::string onset_median(const ZooVariant& v, double ZooHeadFacts::*field) {
  std::vector<double> steps;
  std::size_t heads = 0;
  for (const auto& run : v.runs)
    for (const auto& h : run.heads) {
      ++heads;
      if (!std::isnan(h.*field)) steps.push_back(h.*field);
    }
  if (steps.empty()) return kAbsent;
  std::string text = integer(median(steps));
  if (steps.size() < heads) text += " (" + std::to_string(steps.size()) + "/" + std::to_string(heads) + ")";
  return text;
}

std::string stopped_text(const ZooVariant& v) {
  const auto stopped = std::count_if(v.runs.begin(), v.runs.end(), [](const ZooRunFacts& r) { return r.stopped; });
  std::string text = std::to_string(stopped) + "/" + std::to_string(v.total);
  std::string extra;
  if (v.diverged > 0) extra += std::to_string(v.diverged) + " diverged";
  if (v.failed > 0) extra += (extra.empty() ? "" : ", ") + std::to_string(v.failed) + " failed";
  return extra.empty() ? text : text + " (" + extra + ")";
}

std::string steps_median(const ZooVariant& v) {
  std::vector<double> steps;
  for (const auto& r : v.runs) steps.push_back(static_cast<double>(r.steps));
  return integer(median(steps));
}

std::string error_median(const ZooVariant& v) {
  std::vector<double> errors;
  for (const auto& r : v.runs) errors.push_back(r.eval_max_abs_error);
  return scientific(median(errors));
}

std::string measured(const ZooVariant& v) {
  if (!v.sink_class) return kAbsent;
  std::vector<SeedVerdict> seeds;
  for (const auto& r : v.runs) seeds.push_back({r.seed, evaluate_zoo_gate(*v.sink_class, r)});
  return zoo_gate_cell(seeds, v.diverged);
}

// Rows in `variants` order, a heading before each class's first row.
template <class MakeRow>
Table grouped(const std::vector<ZooVariant>& variants, MakeRow make_row) {
  Table t;
  bool first = true;
  std::optional<SinkClass> current;
  for (const auto& v : variants) {
    if (first || v.sink_class != current)
      t.sections.emplace_back(t.rows.size(), v.sink_class ? sink_class_heading(*v.sink_class) : "no class given");
    first = false;
    current = v.sink_class;
    t.rows.push_back(make_row(v));
  }
  return t;
}

}  // namespace

bool has_sink_classes(const ReportRuns& runs) {
  return std::any_of(runs.runs.begin(), runs.runs.end(), [](const ReportRun& r) { return r.sink_class.has_value(); });
}

std::vector<ZooVariant> collect_zoo_variants(const ReportRuns& runs) {
  std::vector<ZooVariant> in_sweep_order;
  for (const auto& name : runs.variants) {
    ZooVariant v;
    v.variant = name;
    for (const auto& r : runs.runs) {
      if (r.variant != name) continue;
      ++v.total;
      if (!v.sink_class && r.sink_class) v.sink_class = r.sink_class;
      if (v.predicted.empty()) v.predicted = r.predicted;
      if (!r.ok()) {
        ++v.failed;
      } else if (r.diverged()) {
        ++v.diverged;
      } else {
        ZooRunFacts facts = zoo_run_facts(*r.summary);
        facts.seed = r.seed;  // the sweep's seed, as in every other table of the report
        v.runs.push_back(std::move(facts));
      }
    }
    in_sweep_order.push_back(std::move(v));
  }
  // Class order, then the variants without one; stable: sweep order within a class.
  const auto rank = [](const ZooVariant& v) {
    if (!v.sink_class) return static_cast<std::ptrdiff_t>(kSinkClasses.size());
    return std::find(kSinkClasses.begin(), kSinkClasses.end(), *v.sink_class) - kSinkClasses.begin();
  };
  std::stable_sort(in_sweep_order.begin(), in_sweep_order.end(),
                   [&](const ZooVariant& a, const ZooVariant& b) { return rank(a) < rank(b); });
  return in_sweep_order;
}

Table zoo_table(const ReportRuns& runs, const std::vector<ZooVariant>& variants) {
  Table t = grouped(variants, [](const ZooVariant& v) {
    return std::vector<std::string>{v.variant,
                                    steps_median(v),
                                    stopped_text(v),
                                    error_median(v),
                                    head_mean(v, &ZooHeadFacts::bos_nontrigger),
                                    head_mean(v, &ZooHeadFacts::content_nontrigger),
                                    head_mean(v, &ZooHeadFacts::virtual_nontrigger),
                                    head_mean(v, &ZooHeadFacts::effective_content),
                                    head_mean(v, &ZooHeadFacts::value_weighted_bos),
                                    head_mean(v, &ZooHeadFacts::sink_score),
                                    head_mean(v, &ZooHeadFacts::sink_score_abs),
                                    head_mean(v, &ZooHeadFacts::gate_nontrigger),
                                    onset_median(v, &ZooHeadFacts::onset_50),
                                    onset_median(v, &ZooHeadFacts::onset_90),
                                    v.predicted.empty() ? kAbsent : v.predicted,
                                    measured(v)};
  });
  t.title = "Zoo comparison by sink class";
  t.header = {"variant",        "steps (median)",  "stopped",        "eval max error (median)", "BOS@nt",
              "content@nt",     "virtual@nt",      "eff. content",   "v-weighted BOS share",     "sink score",
              "sink score |A|", "gate@nt",         "onset 0.5 (median)", "onset 0.9 (median)",   "predicted",
              "measured"};
  t.notes = {
      "steps, eval max error: median over the seeds that finished without diverging; stopped: seeds that met the "
      "stop rule / seeds listed. BOS@nt ... gate@nt: bos_mass_nontrigger_mean, content_mass_nontrigger_mean, "
      "virtual_mass_nontrigger_mean, effective_content_mass, value_weighted_bos_share, sink_score, sink_score_abs, "
      "gate_nontrigger_mean of summary.json, mean over heads and seeds (nt = no-op rows, the non-trigger rows 1..T-1). "
      "onset: sink_onset_step_50 / _90, median over heads and seeds, (k/N) when only k of N heads reached it. "
      "— = not recorded or undefined for the normalizer.",
  };
  for (const auto& note : sink_setting_notes(runs)) t.notes.push_back(note);
  std::string gates = "measured: the sink class's acceptance gate on every seed, pass/FAIL with the failing number; "
                      "n/a = the gate does not apply to that seed (and why). Gates: ";
  for (std::size_t c = 0; c < kSinkClasses.size(); ++c) gates += (c ? "; " : "") + zoo_gate_text(kSinkClasses[c]);
  t.notes.push_back(gates + ".");
  return t;
}

Table zoo_text_table(const std::vector<ZooVariant>& variants) {
  Table t = grouped(variants, [](const ZooVariant& v) {
    return std::vector<std::string>{v.variant, stopped_text(v), steps_median(v), error_median(v),
                                    head_mean(v, &ZooHeadFacts::bos_nontrigger), measured(v)};
  });
  t.header = {"variant", "stopped", "steps", "eval max err", "BOS@nt", "measured (class gate)"};
  return t;
}

}  // namespace sinklab
