// `sinklab probe RUN_DIR --out DIR [flags]` (or `--gpt2 MODEL.safetensors --tokens IDS.npy`, or
// `--synthetic`): the registered normalization-limit probes (probes/probe_registry.cpp; `--list` prints
// them) on a trained token model and its own validation windows (or a GPT-2 and the user's token
// windows): P1-P6 are vanishing bounds, distance vs L and N with its bound and expectation, critical N
// by the KS test, separability, gradient sensitivity vs temperature and head coverage. Reads the run
// folder only; writes the CSVs, figures and probes.md to --out. A violated invariant is listed in
// probes.md and ends the command with status 3.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include "probes/probe_outputs.h"
#include "run_files/output_path.h"
#include "probes/probe_registry.h"
#include "probes/probe_run.h"
#include "apps/commands.h"
#include "config_loading/config_loader.h"
#include "core/thread_count.h"
#include "models/gpt2_loader.h"
#include "models/model_loader.h"
#include "models/token_windows.h"

namespace sinklab::apps {
namespace {

namespace fs = std::filesystem;
using namespace sinklab::probes;

constexpr int kProbeExitViolation = 3;
constexpr int kSyntheticLength = 128;  // the synthetic rows' "model length"

struct ProbeArgs {
  std::string run, out, checkpoint, gnuplot = "gnuplot";
  std::string gpt2, tokens;  // --gpt2 MODEL.safetensors --tokens IDS.npy
  int heads = 0;             // --heads, for a GPT-2 of a width without a known head count
  bool synthetic = false;
  bool list = false;  // --list: print the registered probes and stop
  ProbeFlagTexts flags;
};

std::string joined_command_line() {
  std::string s;
  for (const std::string& a : command_line()) s += (s.empty() ? "" : " ") + a;
  return s;
}

std::vector<int> lengths_for(const ProbeSettings& s, int model_length, const std::string& what) {
  if (s.lengths.empty()) return default_lengths(model_length);
  if (s.lengths.back() > model_length)
    throw std::invalid_argument("--L: " + std::to_string(s.lengths.back()) + " is longer than " + what + " (" +
                                std::to_string(model_length) + " positions)");
  return s.lengths;
}

// What the probes read: a model with its windows (none for --synthetic), the lengths, and how the
// model is named and normalizes its rows in probes.md.
struct ProbeSource {
  std::unique_ptr<Model> model;
  std::optional<ProbeWindows> windows;
  std::vector<int> lengths;
  std::string name;
  RowKind rows;  // default for --synthetic
  int threads = 0;  // 0: OpenMP's default
};

ProbeSource gpt2_source(const ProbeArgs& a, const ProbeSettings& settings) {
  ProbeSource src;
  Gpt2Model gpt2 = load_gpt2(a.gpt2, Gpt2Options{a.heads, settings.threads > 0 ? settings.threads : 1});
  src.model = std::move(gpt2.model);
  const TokenWindows tokens = read_token_windows(a.tokens, gpt2.vocab, gpt2.n_positions);
  if (tokens.windows < settings.windows)
    throw std::invalid_argument("--windows: " + std::to_string(settings.windows) + " windows asked, but " + a.tokens +
                                " holds " + std::to_string(tokens.windows) + " (pass --windows " +
                                std::to_string(tokens.windows) + ")");
  src.lengths = lengths_for(settings, static_cast<int>(tokens.length), a.tokens + "'s windows");
  src.name = "GPT-2 " + std::to_string(gpt2.n_layer) + " x " + std::to_string(gpt2.n_head) + " (" +
             fs::path(a.gpt2).filename().string() + ")";
  src.windows = ProbeWindows{src.model.get(), src.name, settings.windows, src.lengths.back(), {}};
  // The first --windows windows, each cut to the largest L.
  for (int w = 0; w < settings.windows; ++w)
    src.windows->ids.insert(src.windows->ids.end(), tokens.window(w), tokens.window(w) + src.lengths.back());
  src.rows = row_kind_of(*src.model);
  src.threads = settings.threads;
  return src;
}

ProbeSource run_source(const ProbeArgs& a, const ProbeSettings& settings, const fs::path& out) {
  const fs::path dir(a.run);
  if (!fs::is_directory(dir)) throw std::invalid_argument(a.run + ": no such run folder");
  if (!fs::exists(dir / "config.yaml"))
    throw std::invalid_argument(a.run + ": " + (dir / "config.yaml").string() +
                                " is missing, so this is not a sinklab run folder");
  if (fs::exists(out) && fs::equivalent(out, dir))
    throw std::invalid_argument("--out: " + a.out + " is the run folder; the probe writes elsewhere");
  const RunConfig config = load_run_config(dir / "config.yaml", {}, std::nullopt);
  const fs::path checkpoint = a.checkpoint.empty() ? dir / "checkpoint.bin" : fs::path(a.checkpoint);
  if (!fs::exists(checkpoint)) throw std::invalid_argument(checkpoint.string() + ": no such checkpoint file");
  ProbeSource src;
  src.model = load_model(checkpoint, config);
  const int model_length = std::min(src.model->shape().max_seq_len, config.task.seq_len);
  src.lengths = lengths_for(settings, model_length, "the model's windows");
  src.name = dir.filename().empty() ? dir.parent_path().filename().string() : dir.filename().string();
  src.windows = validation_windows(*src.model, src.name, settings.windows, src.lengths.back());
  src.rows = row_kind_of(*src.model);
  src.threads = settings.threads > 0 ? settings.threads : config.threads;
  return src;
}

ProbeSource synthetic_source(const ProbeSettings& settings) {
  ProbeSource src;
  src.lengths = lengths_for(settings, kSyntheticLength, "the synthetic rows");
  src.name = "synthetic";
  src.threads = settings.threads;
  return src;
}

// One line per registered probe: id, name, doc line.
void list_probes(const ProbeArgs& a) {
  if (!a.run.empty() || !a.gpt2.empty() || a.synthetic || !a.out.empty())
    throw std::invalid_argument("probe: --list runs nothing; give it alone");
  for (const ProbeRegistration& p : probe_registry())
    std::printf("%-4s %-14s %s\n", p.id.c_str(), p.name.c_str(), p.doc.c_str());
}

void run_probe(const ProbeArgs& a) {
  if (a.list) return list_probes(a);
  const ProbeSettings settings = parse_probe_settings(a.flags);  // before anything is read
  if (a.out.empty()) throw std::invalid_argument("probe: give an output folder with --out DIR");
  const int sources = int(a.synthetic) + int(!a.run.empty()) + int(!a.gpt2.empty());
  if (sources != 1)
    throw std::invalid_argument(sources == 0 ? "probe: give a RUN_DIR, --gpt2 MODEL.safetensors, or --synthetic"
                                             : "probe: give only one of RUN_DIR, --gpt2 and --synthetic");
  if (a.gpt2.empty() != a.tokens.empty())
    throw std::invalid_argument(a.gpt2.empty() ? "probe: --tokens goes with --gpt2"
                                               : "probe: --gpt2 needs --tokens IDS.npy");
  if (a.heads != 0 && a.gpt2.empty()) throw std::invalid_argument("probe: --heads goes with --gpt2");
  if (a.heads < 0) throw std::invalid_argument("probe: --heads must be positive, got " + std::to_string(a.heads));
  const fs::path out(a.out);
  check_output_path(out, OutputKind::folder, "--out");
  const ProbeSource src = a.synthetic ? synthetic_source(settings) : !a.gpt2.empty() ? gpt2_source(a, settings)
                                                                                     : run_source(a, settings, out);
  ProbeContext context;
  context.command = joined_command_line();
  context.model_name = src.name;
  context.rows = src.rows;
  const std::vector<int>& lengths = src.lengths;
  const int threads = src.threads;
  if (threads > 0) set_thread_count(threads);
  const auto start = std::chrono::steady_clock::now();
  const ProbeResults results = a.synthetic ? probe_synthetic(settings, lengths, SyntheticShape{}, std::cerr)
                                           : probe_model(*src.windows, settings, lengths, std::cerr);
  context.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  write_probe_outputs(results, settings, context, out, a.gnuplot, std::cerr);
  std::printf("probes of %s: %lld rows, %.1f s; %s\n", context.model_name.c_str(),
              static_cast<long long>(results.rows_seen), context.seconds, (out / "probes.md").c_str());
  if (results.violations() > 0) {
    const ViolationRecord& v = results.first_violations.front();
    std::fprintf(
        stderr,
        "sinklab: probe: %lld invariant violations (listed in %s); the first: %s at layer %d, head %d, window %d, "
        "row %d (L %d, N %d): %g vs bound %g\n",
        static_cast<long long>(results.violations()), (out / "probes.md").c_str(), v.what.c_str(), v.layer, v.head,
        v.window, v.row, v.L, v.N, v.value, v.bound);
    throw CLI::RuntimeError(kProbeExitViolation);
  }
}

}  // namespace

void add_probe_command(CLI::App& app) {
  auto a = std::make_shared<ProbeArgs>();
  CLI::App* cmd = app.add_subcommand(
      "probe",
      "Normalization-limit probes (Mudarisov et al. 2025) on a trained token model and its validation windows: "
      "vanishing bounds, distance vs L and N, critical N (KS test), separability, gradient vs temperature, head "
      "coverage -> CSVs, figures and probes.md in --out");
  cmd->add_option("RUN", a->run, "A run folder of a token model (its config.yaml and checkpoint.bin); read only");
  cmd->add_option("--gpt2", a->gpt2, "A Hugging Face GPT-2 model.safetensors instead of a run (docs/gpt2.md)");
  cmd->add_option("--tokens", a->tokens, "With --gpt2: token ids [windows, L] as a .npy file (int32 or int64)");
  cmd->add_option("--heads", a->heads, "With --gpt2: attention heads, when neither config.json nor the width tells");
  cmd->add_option("--out", a->out, "Output folder for the CSVs, figures/ and probes.md (required unless --list)");
  cmd->add_flag("--list", a->list, "Print every registered probe (id, name, what it measures) and exit");
  cmd->add_flag("--synthetic", a->synthetic, "Random rows instead of a model (2 layers x 4 heads, seeded by --seed)");
  cmd->add_option("--L", a->flags.lengths,
                  "Lengths, ascending (a,b,...,c continues the ratio); default 32,64,... up to the model's length");
  cmd->add_option("--N", a->flags.n_values, "Top-set sizes of distance_vs_N (and separability, N <= 64); default "
                                            "1,2,4,5,8,10,16,20,32,64,100");
  cmd->add_option("--windows", a->flags.windows, "Validation windows (the evaluation set's first W), default 4");
  cmd->add_option("--vectors", a->flags.vectors,
                  "x_k: value (the head's v_k, default) or hidden (the attention input)");
  cmd->add_option("--distance", a->flags.distance, "P3 tests r1 (d_true, default) or r2 (d_r2)");
  cmd->add_option("--expectation", a->flags.expectation, "P3 tests against main (E_main, default) or mc (E_mc)");
  cmd->add_option("--mc-samples", a->flags.mc_samples, "Random subsets per row of E_mc, default 64");
  cmd->add_option("--ks-alpha", a->flags.ks_alpha, "KS level of P3's critical N, default 0.01");
  cmd->add_option("--T", a->flags.temperatures,
                  "P5 temperatures: lo:hi:count (log-spaced) or a list; default 1e-3:1e2:26");
  cmd->add_option("--eps", a->flags.eps, "P5 finite-difference steps, default 1e-3,1e-1,10");
  cmd->add_option("--threads", a->flags.threads,
                  "OpenMP threads (0 = the run's, default; --gpt2: 0 = OpenMP's default)");
  cmd->add_option("--seed", a->flags.seed, "Seed of P5's directions, E_mc's subsets and --synthetic rows, default 0");
  cmd->add_option("--checkpoint", a->checkpoint, "Weights to use instead of RUN/checkpoint.bin");
  cmd->add_option("--gnuplot", a->gnuplot, "The gnuplot program (default: gnuplot on $PATH)");
  cmd->callback([a] { run_probe(*a); });
}

}  // namespace sinklab::apps
