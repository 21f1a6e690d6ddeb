#include "probes/probe_outputs.h"

#include <sstream>
#include <vector>

#include "core/io/file_write.h"
#include "probes/probe_collector.h"
#include "probes/probe_registry.h"
#include "probes/summary_numbers.h"
#include "report/gnuplot_runner.h"
#include "run_files/output_path.h"

namespace sinklab::probes {
namespace {

namespace fs = std::filesystem;

// What was probed and how: the model, its normalizer, the grid and the flags that shape the numbers.
std::string header(const ProbeOutput& o) {
  const ProbeResults& r = o.r;
  const ProbeSettings& s = o.s;
  std::ostringstream md;
  md << "# Normalization-limit probes: " << o.context.model_name << "\n\n";
  md << "Model `" << o.context.model_name << "`, normalizer `" << o.context.rows.config.name << "`, " << r.layers
     << " layers x " << r.heads << " heads, vectors `" << o.vectors() << "`, " << r.windows << " windows, L in {";
  for (std::size_t p = 0; p < r.plans.size(); ++p) md << (p ? ", " : "") << r.plans[p].L;
  md << "}, KS alpha " << num(s.ks_alpha) << ", distance "
     << (s.distance == DistanceKind::r1 ? "r1 (d_true)" : "r2 (d_r2)") << ", expectation "
     << (s.expectation == ExpectationKind::main ? "E_main" : "E_mc") << ", E_mc from " << s.mc_samples
     << " subsets on one row in " << sample_stride(r.max_len) << " (t + 1 divisible by it; at L = " << r.max_len
     << "), P5 on the same rows. Wall time " << num(o.context.seconds) << " s.\n\n";
  if (!o.context.command.empty()) md << "Command: `" << o.context.command << "`\n\n";
  return md.str();
}

// The tables (every probe's rows, in registry order), the first violations and the list of files.
std::string probes_md(const ProbeOutput& o, const std::vector<ProbeSection>& sections, bool rendered) {
  const ProbeResults& r = o.r;
  std::ostringstream md;
  md << header(o);
  md << "## The paper's claims (GPT-2 124M, 12 x 12 heads, War and Peace) beside ours\n\n";
  md << "| probe | paper | ours | at |\n|---|---|---|---|\n";
  for (const ProbeSection& s : sections) md << s.claims;
  md << "\n## Invariants (checked on every row)\n\n| invariant | checked | violations |\n|---|---|---|\n";
  // The shared top-N scan's own bound (probe_collector.h), then each probe's.
  md << "| d_true <= d_max (rows summing to 1, distance-file N) | " << r.checks_d_max << " | " << r.violations_d_max
     << " |\n";
  for (const ProbeSection& s : sections) md << s.invariants;
  md << "\n";
  if (!r.first_violations.empty()) {
    md << "First violations:\n\n";
    for (const ViolationRecord& v : r.first_violations)
      md << "- " << v.what << ": layer " << v.layer << ", head " << v.head << ", window " << v.window << ", row "
         << v.row << ", L " << v.L << ", N " << v.N << ": " << num(v.value) << " vs bound " << num(v.bound) << "\n";
    md << "\n";
  }
  md << "Files: ";
  for (const ProbeSection& s : sections)
    for (const std::string& f : s.files) md << f << ", ";
  md << "figures/*.gp" << (rendered ? " and their PNGs" : " (gnuplot not found: render with `gnuplot figures/*.gp`)")
     << ".\n";
  return md.str();
}

}  // namespace

void write_probe_outputs(const ProbeResults& r, const ProbeSettings& s, const ProbeContext& context,
                         const fs::path& out, const std::string& gnuplot, std::ostream& log) {
  check_output_path(out, OutputKind::folder, "--out");
  check_output_path(out / "figures", OutputKind::folder, "--out", out);  // never a link to somewhere else
  fs::create_directories(out / "figures");
  const ProbeOutput output{r, s, context, out, fs::absolute(out / "figures")};
  std::vector<ProbeSection> sections;
  for (const ProbeRegistration& p : probe_registry()) sections.push_back(p.write(output));
  GnuplotRunner runner(gnuplot, log);
  for (const ProbeSection& section : sections)
    for (const auto& [name, text] : section.figures) {
      const fs::path script = out / "figures" / (name + ".gp");
      write_file_atomically(script, text);
      runner.render(script);
    }
  write_file_atomically(out / "probes.md", probes_md(output, sections, runner.available()));
}

}  // namespace sinklab::probes
