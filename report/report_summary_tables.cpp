#include "report/report_summary_tables.h"

#include <algorithm>
#include <charconv>
#include <cmath>
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

std::string statistic(const VariantSummary& v, const MeanCi& ci, NumberStyle style, std::string_view pm = "±") {
  return v.all_diverged() ? kAllDiverged : format_mean_ci(ci, style, pm);
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
    std::map<std::pair<int, int>, std::vector<double>> bos, mass, score;
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
      if (s.reached_stop_rule) ++v.reached;
      steps.push_back(static_cast<double>(s.steps));
      mse.push_back(s.eval_mse);
      max_err.push_back(s.eval_max_abs_error);
      wall.push_back(s.wall_seconds);
      heads += static_cast<int>(s.heads.size());
      for (const auto& h : s.heads) {
        const std::pair<int, int> key{h.layer, h.head};
        bos[key].push_back(h.bos_mass_nontrigger_mean);
        mass[key].push_back(h.mass_nontrigger_mean);
        score[key].push_back(h.sink_score);
        auto [it, fresh] = v.heads.try_emplace(key);
        it->second.bos_min = fresh ? h.bos_mass_nontrigger_min : std::min(it->second.bos_min, h.bos_mass_nontrigger_min);
        if (h.sink_head) {
          ++it->second.sink_seeds;
          ++sink_heads;
        }
      }
    }
    v.steps = mean_ci95(steps);
    v.eval_mse = mean_ci95(mse);
    v.eval_max_abs_error = mean_ci95(max_err);
    v.wall_seconds = mean_ci95(wall);
    v.sink_rate = proportion_ci95(sink_heads, heads);
    for (auto& [key, agg] : v.heads) {
      agg.bos = mean_ci95(bos[key]);
      agg.mass = mean_ci95(mass[key]);
      agg.sink_score = mean_ci95(score[key]);
    }
    out.push_back(std::move(v));
  }
  return out;
}

Table run_table(const ReportRuns& runs) {
  const std::vector<Column> columns = run_table_columns(head_union(runs));
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
    t.title = "Per variant (mean ± 95% CI over seeds)";
    if (shapes.size() > 1)
      t.title += shapes[g].empty() ? ": variants without a readable run that did not diverge"
                                   : ": " + std::to_string(layers) + " layer(s), " + std::to_string(shapes[g].size()) + " head(s) in all";
    t.header = {"variant", "reached stop", "steps", "eval_mse", "sink rate"};
    for (const auto& [l, h] : shapes[g]) {
      t.header.push_back(head_label(l, h) + " BOS@non-trigger");
      t.header.push_back(head_label(l, h) + " row mass");
    }
    for (const VariantSummary* v : members[g]) {
      std::vector<std::string> row = {v->variant, reached_text(*v), statistic(*v, v->steps, NumberStyle::integer),
                                      statistic(*v, v->eval_mse, NumberStyle::scientific),
                                      sink_rate_text(*v)};
      for (const auto& [key, agg] : v->heads) {
        row.push_back(format_mean_ci(agg.bos, NumberStyle::fixed4));
        row.push_back(format_mean_ci(agg.mass, NumberStyle::fixed4));
      }
      t.rows.push_back(std::move(row));
    }
    tables.push_back(std::move(t));
  }
  if (!tables.empty()) tables.back().notes = setting_notes(runs);
  return tables;
}

Table head_table(const std::vector<VariantSummary>& variants) {
  Table t;
  t.title = "Per head (mean ± 95% CI over seeds)";
  t.header = {"variant", "head", "BOS@non-trigger", "BOS min (any seed)", "row mass", "sink score", "sink head in"};
  for (const auto& v : variants)
    for (const auto& [key, agg] : v.heads)
      t.rows.push_back({v.variant, head_label(key.first, key.second), format_mean_ci(agg.bos, NumberStyle::fixed4),
                        format_number(agg.bos_min, NumberStyle::fixed4), format_mean_ci(agg.mass, NumberStyle::fixed4),
                        format_mean_ci(agg.sink_score, NumberStyle::fixed4),
                        std::to_string(agg.sink_seeds) + "/" + std::to_string(v.ok) + " seeds"});
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
  Table t;
  t.header = {"variant", "stop", "steps", "eval_mse", "sink rate", "BOS@non-trigger per head (layers split by /)"};
  for (const auto& v : variants) {
    std::vector<std::string> layers;
    int current = -1;
    for (const auto& [key, agg] : v.heads) {
      if (key.first != current) {
        layers.emplace_back();
        current = key.first;
      }
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.2f", agg.bos.mean);
      if (!layers.back().empty()) layers.back() += ' ';
      layers.back() += buf;
    }
    t.rows.push_back({v.variant, reached_text(v), statistic(v, v.steps, NumberStyle::integer, "+/-"),
                      statistic(v, v.eval_mse, NumberStyle::scientific, "+/-"),
                      sink_rate_text(v),
                      v.all_diverged() ? kAllDiverged : layers.empty() ? "-" : join(layers, " / ")});
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
      triggers.insert(r.summary->eval_trigger);
    }
  if (lengths.empty()) return {"No run has a readable summary.json of a run that did not diverge."};
  std::vector<std::string> eps_text, t_text, j_text;
  for (double e : eps) eps_text.push_back(exact_number(e));
  for (int t : lengths) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "T = %d (uniform-causal baseline alpha_0 = H_T/T = %.4f)", t, uniform_causal_baseline(t));
    t_text.push_back(buf);
  }
  for (int j : triggers) j_text.push_back(std::to_string(j));
  return {"Sink head: sink score alpha_0 > eps and the sink mass over the same rows > eps (a share of rows that spend "
          "mass), eps = " + join(eps_text, ", ") + "; " + join(t_text, "; ") + ".",
          "BOS@non-trigger: mean attention on BOS over query rows 1..T-1 except the trigger (evaluation trigger j = " +
              join(j_text, ", ") + "); row mass: their row sums (1 for softmax)."};
}

std::vector<std::string> setting_notes(const ReportRuns& runs) {
  std::vector<std::string> notes = sink_setting_notes(runs);
  if (notes.size() > 1)  // not when no run is readable: then the one note says so
    notes.push_back("Intervals: mean ± t_{0.975, n-1} s / sqrt(n) over seeds; n=1 means a single seed (no interval). "
                    "Sink rate: sink heads / heads pooled over the seeds, [95% Clopper-Pearson interval].");
  return notes;
}

}  // namespace sinklab
