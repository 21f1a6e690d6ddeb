#include "report/report_summary_tables.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <numbers>
#include <optional>
#include <set>
#include <string_view>

#include "report/run_columns.h"
#include "stats/sink_statistics.h"

namespace sinklab {
namespace {


std::set<std::pair<int, int>> head_union(const ReportRuns& runs) {
  std::set<std::pair<int, int>> keys;
  for (const auto& r : runs.runs)
    if (r.usable())
      for (const auto& h : r.summary->heads) keys.insert({h.layer, h.head});
  return keys;
}

constexpr const char* kAllDiverged = "all diverged";

// "2/3", or "2/3 (1 diverged)": the diverged seeds stay visible next to those that met the stop rule.
std::string reached_text(const VariantSummary& v) {
  std::string text = std::to_string(v.reached) + "/" + std::to_string(v.total);
  if (v.diverged > 0) text += " (" + std::to_string(v.diverged) + " diverged)";
  return text;
}

// A variant's number over seeds; empty when none of its runs has it (not defined for its task, or no
// run finished), so no table shows "nan" or a dash for what cannot exist.
std::string statistic(const VariantSummary& v, const MeanCi& ci, NumberStyle style, std::string_view pm = "±") {
  if (v.all_diverged()) return kAllDiverged;
  return ci.n == 0 ? std::string() : format_mean_ci(ci, style, pm);
}

// The same for a share in [0, 1]: "mean [lo, hi]" with the bootstrap interval, which stays in the range.
std::string statistic(const VariantSummary& v, const BootstrapMeanCi& ci, NumberStyle style) {
  if (v.all_diverged()) return kAllDiverged;
  return ci.n == 0 ? std::string() : format_bootstrap_ci(ci, style);
}

std::string statistic(const BootstrapMeanCi& ci, NumberStyle style) {
  return ci.n == 0 ? std::string() : format_bootstrap_ci(ci, style);
}

// Whether some variant has a sink excess (runs written before it have none: no empty column).
bool any_sink_excess(const std::vector<const VariantSummary*>& variants) {
  return std::any_of(variants.begin(), variants.end(), [](const VariantSummary* v) { return v->sink_excess.n > 0; });
}

// Nats to bits: the same interval, divided by ln 2.
MeanCi in_bits(MeanCi ci) {
  ci.mean /= std::numbers::ln2;
  ci.half_width /= std::numbers::ln2;
  return ci;
}

void push_defined(std::vector<double>& values, const std::optional<double>& v) {
  if (v && !std::isnan(*v)) values.push_back(*v);
}

// The columns a group of variants has a number for; the rest are left out.
struct VariantColumns {
  // "reached stop": for a regression task (its max_abs_error rule is on by default), a run that met a
  // rule, or a variant with runs that failed or diverged.
  bool stop_rule = false;
  bool mse = false, tokens = false, active = false, no_op = false;
  bool no_op_heads = false, all_row_heads = false;
  std::string no_op_name;  // "non-trigger" or "no-op"
};

VariantColumns columns_of(const std::vector<const VariantSummary*>& variants) {
  VariantColumns c;
  TaskMeasures m;
  for (const VariantSummary* v : variants) {
    m |= v->measures;
    // The column also counts runs that failed or diverged, so it stays wherever a run did not finish.
    c.stop_rule |= v->measures.regression || v->reached > 0 || v->ok < v->total;
    c.active |= v->eval_active_loss.n > 0 || v->eval_active_accuracy.n > 0;
    c.no_op |= v->eval_no_op_loss.n > 0 || v->eval_no_op_accuracy.n > 0;
  }
  c.mse = m.regression;
  c.tokens = m.tokens;
  c.no_op_heads = m.no_op_rows;
  c.all_row_heads = m.all_rows;
  c.no_op_name = sink_rows_name(m) == "non-trigger rows" ? "non-trigger" : "no-op";
  return c;
}

std::string sink_rate_text(const VariantSummary& v) {
  return v.all_diverged() ? kAllDiverged : format_proportion_ci(v.sink_rate, NumberStyle::fixed4);
}

std::string join(const std::vector<std::string>& parts, const std::string& sep) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out += sep;
    out += parts[i];
  }
  return out;
}

}  // namespace

std::vector<VariantSummary> summarize_variants(const ReportRuns& runs) {
  std::vector<VariantSummary> out;
  for (const std::string& name : runs.variants) {
    VariantSummary v;
    v.variant = name;
    std::vector<double> steps, mse, max_err, wall;
    int sink_heads = 0, heads = 0;
    std::vector<double> loss, accuracy, active_loss, active_accuracy, no_op_loss, no_op_accuracy;
    std::vector<double> excess;
    std::map<std::pair<int, int>, std::vector<double>> bos, mass, bos_all, mass_all, score, head_excess;
    for (const auto& r : runs.runs) {
      if (r.variant != name) continue;
      ++v.total;
      if (!r.ok()) continue;
      const RunSummary& s = *r.summary;
      if (v.normalizer.empty()) v.normalizer = s.normalizer;
      if (s.diverged()) {  // counted, but its (NaN) metrics must not enter any mean
        ++v.diverged;
        continue;
      }
      ++v.ok;
      const TaskMeasures measures = measures_of(r);
      v.measures |= measures;
      if (s.reached_stop_rule) ++v.reached;
      push_defined(loss, s.eval_loss);
      push_defined(accuracy, s.eval_accuracy);
      push_defined(active_loss, s.eval_active_loss);
      push_defined(active_accuracy, s.eval_active_accuracy);
      push_defined(no_op_loss, s.eval_no_op_loss);
      push_defined(no_op_accuracy, s.eval_no_op_accuracy);
      push_defined(excess, s.sink_excess_mean);
      steps.push_back(static_cast<double>(s.steps));
      if (measures.regression) {  // a token task's eval_mse is null, not a number to average
        mse.push_back(s.eval_mse);
        max_err.push_back(s.eval_max_abs_error);
      }
      wall.push_back(s.wall_seconds);
      heads += static_cast<int>(s.heads.size());
      for (const auto& h : s.heads) {
        const std::pair<int, int> key{h.layer, h.head};
        if (measures.no_op_rows) {
          bos[key].push_back(h.bos_mass_nontrigger_mean);
          mass[key].push_back(h.mass_nontrigger_mean);
        } else {  // the task has no no-op rows: the same statistics over all rows
          bos_all[key].push_back(h.bos_mass_mean);
          mass_all[key].push_back(h.mass_mean);
        }
        score[key].push_back(h.sink_score);
        if (!std::isnan(h.sink_excess)) head_excess[key].push_back(h.sink_excess);
        const auto it = v.heads.try_emplace(key).first;
        if (measures.no_op_rows && !std::isnan(h.bos_mass_nontrigger_min))
          it->second.bos_min = std::isnan(it->second.bos_min) ? h.bos_mass_nontrigger_min
                                                              : std::min(it->second.bos_min, h.bos_mass_nontrigger_min);
        if (h.sink_head) {
          ++it->second.sink_seeds;
          ++sink_heads;
        }
      }
    }
    v.eval_loss = mean_ci95(loss);
    v.eval_accuracy = bootstrap_mean_ci95(accuracy);
    v.eval_active_loss = mean_ci95(active_loss);
    v.eval_active_accuracy = bootstrap_mean_ci95(active_accuracy);
    v.eval_no_op_loss = mean_ci95(no_op_loss);
    v.eval_no_op_accuracy = bootstrap_mean_ci95(no_op_accuracy);
    v.steps = mean_ci95(steps);
    v.eval_mse = mean_ci95(mse);
    v.eval_max_abs_error = mean_ci95(max_err);
    v.wall_seconds = mean_ci95(wall);
    v.sink_rate = proportion_ci95(sink_heads, heads);
    v.sink_excess = bootstrap_mean_ci95(excess);
    for (auto& [key, agg] : v.heads) {
      agg.bos = bootstrap_mean_ci95(bos[key]);
      agg.mass = bootstrap_mean_ci95(mass[key]);
      agg.bos_all = bootstrap_mean_ci95(bos_all[key]);
      agg.mass_all = bootstrap_mean_ci95(mass_all[key]);
      agg.sink_score = bootstrap_mean_ci95(score[key]);
      agg.sink_excess = bootstrap_mean_ci95(head_excess[key]);
    }
    out.push_back(std::move(v));
  }
  return out;
}

Table run_table(const ReportRuns& runs) {
  std::vector<Column> columns = run_table_columns(head_union(runs));
  std::erase_if(columns, [&](const Column& c) {  // a number no run has: not defined for the runs' tasks
    return c.number &&
           std::all_of(runs.runs.begin(), runs.runs.end(), [&](const ReportRun& r) { return c.value(r).empty(); });
  });
  Table t;
  for (const Column& c : columns) t.header.push_back(c.name);
  for (const auto& r : runs.runs) {
    std::vector<std::string> row;
    for (const Column& c : columns) row.push_back(c.value(r));
    t.rows.push_back(std::move(row));
  }
  return t;
}

std::vector<Table> variant_tables(const ReportRuns& runs, const std::vector<VariantSummary>& variants) {
  // One table per set of heads (model shape), so a 4x4 variant's 32 head columns do not pad the
  // 1x1 rows with dashes.
  std::vector<std::set<std::pair<int, int>>> shapes;
  std::vector<std::vector<const VariantSummary*>> members;
  for (const auto& v : variants) {
    std::set<std::pair<int, int>> keys;
    for (const auto& [key, agg] : v.heads) keys.insert(key);
    const auto it = std::find(shapes.begin(), shapes.end(), keys);
    if (it == shapes.end()) {
      shapes.push_back(keys);
      members.push_back({&v});
    } else {
      members[static_cast<size_t>(it - shapes.begin())].push_back(&v);
    }
  }
  std::vector<Table> tables;
  for (size_t g = 0; g < shapes.size(); ++g) {
    Table t;
    int layers = 0;
    for (const auto& key : shapes[g]) layers = std::max(layers, key.first + 1);
    t.title = "Per variant (mean and 95% CI over seeds)";
    if (shapes.size() > 1)
      t.title += shapes[g].empty() ? ": variants without a readable run that did not diverge"
                                   : ": " + std::to_string(layers) + " layer(s), " + std::to_string(shapes[g].size()) +
                                         " head(s) in all";
    const VariantColumns c = columns_of(members[g]);
    t.header = {"variant"};
    if (c.stop_rule) t.header.push_back("reached stop");
    t.header.push_back("steps");
    if (c.mse) t.header.push_back("eval_mse");
    if (c.tokens) t.header.insert(t.header.end(), {"eval loss (nats)", "eval loss (bits)", "accuracy"});
    if (c.active) t.header.insert(t.header.end(), {"active loss (nats)", "active accuracy"});
    if (c.no_op) t.header.insert(t.header.end(), {"no-op loss (nats)", "no-op accuracy"});
    const bool excess = any_sink_excess(members[g]);
    if (excess) t.header.push_back("sink excess");
    t.header.push_back("sink rate");
    for (const auto& [l, h] : shapes[g]) {
      if (c.no_op_heads) {
        t.header.push_back(head_label(l, h) + " BOS@" + c.no_op_name);
        t.header.push_back(head_label(l, h) + " row mass");
      }
      if (c.all_row_heads) {
        t.header.push_back(head_label(l, h) + " BOS@all rows");
        t.header.push_back(head_label(l, h) + " row mass@all rows");
      }
    }
    for (const VariantSummary* v : members[g]) {
      std::vector<std::string> row = {v->variant};
      if (c.stop_rule) row.push_back(reached_text(*v));
      row.push_back(statistic(*v, v->steps, NumberStyle::integer));
      if (c.mse) row.push_back(statistic(*v, v->eval_mse, NumberStyle::scientific));
      if (c.tokens)
        row.insert(row.end(), {statistic(*v, v->eval_loss, NumberStyle::fixed4),
                               statistic(*v, in_bits(v->eval_loss), NumberStyle::fixed4),
                               statistic(*v, v->eval_accuracy, NumberStyle::fixed4)});
      if (c.active)
        row.insert(row.end(), {statistic(*v, v->eval_active_loss, NumberStyle::fixed4),
                               statistic(*v, v->eval_active_accuracy, NumberStyle::fixed4)});
      if (c.no_op)
        row.insert(row.end(), {statistic(*v, v->eval_no_op_loss, NumberStyle::fixed4),
                               statistic(*v, v->eval_no_op_accuracy, NumberStyle::fixed4)});
      if (excess) row.push_back(statistic(*v, v->sink_excess, NumberStyle::fixed4));
      row.push_back(sink_rate_text(*v));
      for (const auto& [key, agg] : v->heads) {
        if (c.no_op_heads)
          row.insert(row.end(), {statistic(agg.bos, NumberStyle::fixed4), statistic(agg.mass, NumberStyle::fixed4)});
        if (c.all_row_heads)
          row.insert(row.end(),
                     {statistic(agg.bos_all, NumberStyle::fixed4), statistic(agg.mass_all, NumberStyle::fixed4)});
      }
      t.rows.push_back(std::move(row));
    }
    tables.push_back(std::move(t));
  }
  if (!tables.empty()) tables.back().notes = setting_notes(runs);
  return tables;
}

Table head_table(const std::vector<VariantSummary>& variants) {
  std::vector<const VariantSummary*> all;
  for (const auto& v : variants) all.push_back(&v);
  const VariantColumns c = columns_of(all);
  Table t;
  t.title = "Per head (mean and 95% CI over seeds)";
  bool excess = false;
  for (const auto& v : variants)
    for (const auto& [key, agg] : v.heads) excess |= agg.sink_excess.n > 0;
  t.header = {"variant", "head"};
  if (c.no_op_heads) t.header.insert(t.header.end(), {"BOS@" + c.no_op_name, "BOS min (any seed)", "row mass"});
  if (c.all_row_heads) t.header.insert(t.header.end(), {"BOS@all rows", "row mass@all rows"});
  if (excess) t.header.push_back("sink excess");
  t.header.insert(t.header.end(), {"sink score", "sink head in"});
  for (const auto& v : variants)
    for (const auto& [key, agg] : v.heads) {
      std::vector<std::string> row = {v.variant, head_label(key.first, key.second)};
      if (c.no_op_heads)
        row.insert(row.end(),
                   {statistic(agg.bos, NumberStyle::fixed4),
                    std::isnan(agg.bos_min) ? std::string() : format_number(agg.bos_min, NumberStyle::fixed4),
                    statistic(agg.mass, NumberStyle::fixed4)});
      if (c.all_row_heads)
        row.insert(row.end(),
                   {statistic(agg.bos_all, NumberStyle::fixed4), statistic(agg.mass_all, NumberStyle::fixed4)});
      if (excess) row.push_back(statistic(agg.sink_excess, NumberStyle::fixed4));
      row.insert(row.end(), {statistic(agg.sink_score, NumberStyle::fixed4),
                             std::to_string(agg.sink_seeds) + "/" + std::to_string(v.ok) + " seeds"});
      t.rows.push_back(std::move(row));
    }
  return t;
}

Table failed_runs_table(const ReportRuns& runs) {
  Table t;
  t.title = "Failed runs";
  t.header = {"id", "variant", "seed", "reason"};
  for (const auto& r : runs.runs)
    if (!r.ok()) t.rows.push_back({r.id, r.variant, std::to_string(r.seed), r.error});
  return t;
}

Table variant_text_table(const std::vector<VariantSummary>& variants) {
  std::vector<const VariantSummary*> all;
  for (const auto& v : variants) all.push_back(&v);
  const VariantColumns c = columns_of(all);
  Table t;
  t.header = {"variant"};
  if (c.stop_rule) t.header.push_back("stop");
  t.header.push_back("steps");
  if (c.mse) t.header.push_back("eval_mse");
  if (c.tokens) t.header.insert(t.header.end(), {"eval loss (nats)", "accuracy"});
  const bool excess = any_sink_excess(all);
  if (excess) t.header.push_back("sink excess");
  t.header.push_back("sink rate");
  const std::string rows = c.no_op_heads && c.all_row_heads ? c.no_op_name + " (else all rows)"
                           : c.no_op_heads                  ? c.no_op_name
                                                            : "all rows";
  t.header.push_back("BOS@" + rows + " per head (layers split by /)");
  for (const auto& v : variants) {
    std::vector<std::string> layers;
    int current = -1;
    for (const auto& [key, agg] : v.heads) {
      if (key.first != current) {
        layers.emplace_back();
        current = key.first;
      }
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.2f", agg.bos.n > 0 ? agg.bos.mean : agg.bos_all.mean);
      if (!layers.back().empty()) layers.back() += ' ';
      layers.back() += buf;
    }
    std::vector<std::string> row = {v.variant};
    if (c.stop_rule) row.push_back(reached_text(v));
    row.push_back(statistic(v, v.steps, NumberStyle::integer, "+/-"));
    if (c.mse) row.push_back(statistic(v, v.eval_mse, NumberStyle::scientific, "+/-"));
    if (c.tokens)
      row.insert(row.end(), {statistic(v, v.eval_loss, NumberStyle::fixed4, "+/-"),
                             statistic(v, v.eval_accuracy, NumberStyle::fixed4)});
    if (excess) row.push_back(statistic(v, v.sink_excess, NumberStyle::fixed4));
    row.push_back(sink_rate_text(v));
    row.push_back(v.all_diverged() ? kAllDiverged : layers.empty() ? "-" : join(layers, " / "));
    t.rows.push_back(std::move(row));
  }
  return t;
}

std::vector<std::string> sink_setting_notes(const ReportRuns& runs) {
  std::set<double> eps;
  std::set<int> lengths, triggers;
  for (const auto& r : runs.runs)
    if (r.usable()) {
      eps.insert(r.summary->sink_eps);
      lengths.insert(r.summary->seq_len);
      if (r.summary->eval_trigger >= 0) triggers.insert(r.summary->eval_trigger);
    }
  if (lengths.empty()) return {"No run has a readable summary.json of a run that did not diverge."};
  std::vector<std::string> eps_text, t_text, j_text;
  for (double e : eps) eps_text.push_back(exact_number(e));
  for (int t : lengths) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "T = %d (uniform-causal baseline alpha_0 = H_T/T = %.4f)", t,
                  uniform_causal_baseline(t));
    t_text.push_back(buf);
  }
  for (int j : triggers) j_text.push_back(std::to_string(j));
  std::vector<std::string> notes = {
      "Sink head: sink score alpha_0 > eps and the sink mass over the same rows > eps (a share of rows that spend "
      "mass), eps = " +
      join(eps_text, ", ") + "; " + join(t_text, "; ") + "."};
  // The rows each sink column reads, in the words of the runs' tasks (report_runs.h: TaskMeasures).
  const TaskMeasures m = measures_of(runs);
  if (m.no_op_rows && sink_rows_name(m) == "non-trigger rows")
    notes.push_back(
        "BOS@non-trigger: mean attention on BOS over query rows 1..T-1 except the trigger (evaluation trigger j = " +
        join(j_text, ", ") + "); row mass: their row sums (1 for softmax).");
  else if (m.no_op_rows)
    notes.push_back("BOS@no-op: mean attention on the sink keys over the rows the task flags no-op (nothing to do); "
                    "row mass: their row sums (1 for softmax).");
  if (m.all_rows)
    notes.push_back(
        "BOS@all rows: mean attention on the sink keys over every row that is not itself a sink key (the task "
        "flags no no-op rows); row mass@all rows: their row sums (1 for softmax).");
  if (m.tokens)
    notes.push_back("eval loss: next-token cross-entropy over the scored positions, in nats and in bits (nats / ln 2); "
                    "accuracy: share of scored positions predicted correctly.");
  const auto in_some_run = [&](std::optional<double> RunSummary::*number) {
    return std::any_of(runs.runs.begin(), runs.runs.end(), [&](const ReportRun& r) {
      return r.usable() && (*r.summary).*number && !std::isnan(*((*r.summary).*number));
    });
  };
  for (const auto& [loss, role] :
       {std::pair{&RunSummary::eval_active_loss, "active"}, std::pair{&RunSummary::eval_no_op_loss, "no-op"}})
    if (in_some_run(loss))
      notes.push_back(std::string(role) + " loss and accuracy: the same over the rows the task flags " + role + ".");
  return notes;
}

std::vector<std::string> setting_notes(const ReportRuns& runs) {
  std::vector<std::string> notes = sink_setting_notes(runs);
  if (notes.size() > 1) {  // not when no run is readable: then the one note says so
    const std::string shares = measures_of(runs).tokens ? "BOS mass, row mass, sink score, sink excess, accuracy"
                                                         : "BOS mass, row mass, sink score, sink excess";
    notes.push_back(
        "Intervals: shares (" + shares +
        "): mean [2.5%, 97.5%] "
        "of " +
        std::to_string(kBootstrapResamples) +
        " bootstrap means over the seeds (fixed seed), inside the "
        "range; other numbers: mean ± t_{0.975, n-1} s / sqrt(n); n=1 means a single seed (no interval). "
        "Sink rate: sink heads / heads pooled over the seeds, [95% Clopper-Pearson interval]. Sink excess: the "
        "mean over heads of (alpha - u) / (1 - u) per row, u uniform attention's share: 0 = uniform, 1 = all on "
        "the sink keys; graded, where the sink rate counts heads above eps.");
  }
  return notes;
}

}  // namespace sinklab
