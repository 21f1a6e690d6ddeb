#pragma once
// The probes' files in one output folder, each written to a temporary name and renamed: every
// registered probe's CSVs (probe_registry.h), probes.md (the header, every probe's rows of the table of
// the paper's claims beside ours and of the invariant counters, the first violations) and each probe's
// figures/*.gp, rendered to PNG when gnuplot exists.
#include <filesystem>
#include <ostream>
#include <string>

#include "probes/head_means.h"
#include "probes/p3_critical_n.h"
#include "probes/probe_context.h"
#include "probes/probe_results.h"

namespace sinklab::probes {

// `gnuplot` is the command the figures are rendered with (report/gnuplot_runner.h).
void write_probe_outputs(const ProbeResults& r, const ProbeSettings& s, const ProbeContext& context,
                         const std::filesystem::path& out, const std::string& gnuplot, std::ostream& log);

}  // namespace sinklab::probes
